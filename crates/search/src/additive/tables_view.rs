//! The tables as every strategy takes them, and what runs with the
//! heuristic a strategy builds over them.

use npuzzle_pdb::Pdb;

use crate::grid::Grid;
use crate::heuristic::Heuristic;

/// Something to run with whichever heuristic the tables get (generic in
/// the heuristic, which a closure cannot be).
pub(crate) trait WithHeuristic {
    type Output;
    fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output;
}

/// The tables as a strategy sees them: `groups[i]` tables of partition i
/// in a row, maxed with the reflected lookup when `reflect`.
pub(crate) struct TablesView<'a, D> {
    pub grid: &'a Grid,
    pub tables: &'a [Pdb<D>],
    pub groups: &'a [usize],
    pub reflect: bool,
}

impl<D> Clone for TablesView<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for TablesView<'_, D> {}

impl<'a, D> TablesView<'a, D> {
    /// The board, the tables, their partitions and whether to reflect.
    pub fn parts(&self) -> (&'a Grid, &'a [Pdb<D>], &'a [usize], bool) {
        (self.grid, self.tables, self.groups, self.reflect)
    }

    pub fn new(
        grid: &'a Grid,
        tables: &'a [Pdb<D>],
        groups: &'a [usize],
        reflect: bool,
    ) -> TablesView<'a, D> {
        TablesView {
            grid,
            tables,
            groups,
            reflect,
        }
    }
}
