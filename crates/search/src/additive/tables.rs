//! A set of tables as the searches take it: the tables, their partitions
//! and the strategy that computes their heuristic, chosen once.

use npuzzle_board::Goal;
use npuzzle_pdb::Pdb;

use super::choice::run_chosen;
use super::{AdditiveError, Strategy, TablesView, WithHeuristic};
use crate::grid::Grid;

/// Additive pattern databases for one board size and goal: `groups[i]`
/// tables of partition i in a row, the heuristic the largest partition
/// sum. The strategy is chosen when they are made, so each search
/// over it builds only that strategy's heuristic.
pub struct Tables<'a, D> {
    tables: &'a [Pdb<D>],
    groups: &'a [usize],
    grid: Grid,
    strategy: Strategy,
}

impl<'a, D: AsRef<[u8]> + Sync> Tables<'a, D> {
    /// Checks the set (one size and goal, disjoint patterns within each
    /// partition, counts the search state holds) and chooses its strategy:
    /// `forced`, or else the fastest that takes the set.
    pub fn new(
        tables: &'a [Pdb<D>],
        groups: &'a [usize],
        forced: Option<Strategy>,
    ) -> Result<Self, AdditiveError> {
        struct Nothing;
        impl WithHeuristic for Nothing {
            type Output = ();
            fn run<H: crate::heuristic::Heuristic>(self, _: &Grid, _: &H) {}
        }
        let grid = grid_of(tables)?;
        let (strategy, ()) = run_chosen(
            &TablesView::new(&grid, tables, groups, true),
            forced,
            Nothing,
        )?;
        Ok(Tables {
            tables,
            groups,
            grid,
            strategy,
        })
    }

    /// Tables whose `strategy` was chosen before, by [`Tables::new`]
    /// over the same tables: nothing is checked until a search runs, which
    /// refuses the set then if `strategy` does not take it.
    pub fn chosen(
        tables: &'a [Pdb<D>],
        groups: &'a [usize],
        strategy: Strategy,
    ) -> Result<Self, AdditiveError> {
        Ok(Tables {
            tables,
            groups,
            grid: grid_of(tables)?,
            strategy,
        })
    }

    /// The strategy every search over the tables runs.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The board size and goal the tables are for.
    pub fn puzzle(&self) -> (usize, Goal) {
        (self.grid.n, self.grid.goal)
    }

    /// The tables, partition by partition.
    pub fn tables(&self) -> &'a [Pdb<D>] {
        self.tables
    }

    /// How many tables each partition holds.
    pub fn groups(&self) -> &'a [usize] {
        self.groups
    }

    /// Runs `job` with the tables' heuristic, maxed with the reflected
    /// lookup when `reflect`.
    pub(crate) fn run<W: WithHeuristic>(
        &self,
        reflect: bool,
        job: W,
    ) -> Result<W::Output, AdditiveError> {
        let set = TablesView::new(&self.grid, self.tables, self.groups, reflect);
        run_chosen(&set, Some(self.strategy), job).map(|(_, output)| output)
    }
}

/// The strategy that runs for `tables` grouped by `groups`: the first of
/// [`Strategy::ALL`] that takes them. [`Tables::new`](Tables::new)
/// chooses the same.
pub fn choose<D: AsRef<[u8]> + Sync>(
    tables: &[Pdb<D>],
    groups: &[usize],
) -> Result<Strategy, AdditiveError> {
    Tables::new(tables, groups, None).map(|catalogue| catalogue.strategy())
}

/// The geometry of the first table's puzzle.
fn grid_of<D: AsRef<[u8]> + Sync>(tables: &[Pdb<D>]) -> Result<Grid, AdditiveError> {
    let pattern = tables.first().ok_or(AdditiveError::NoTables)?.pattern();
    Ok(Grid::new(pattern.size(), pattern.goal()))
}
