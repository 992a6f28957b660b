//! Which implementation of the additive heuristic a set of tables gets,
//! decided here alone: the strategies are tried fastest first and the first
//! that takes the set runs, in the smallest [`Capacity`] that holds it.
//! Every strategy gives the same estimate at every node (the agreement
//! tests hold each to [`Strategy::General`] node for node), so the choice
//! changes the time and never the answer or the node count.

use npuzzle_pdb::{Pattern, Pdb};

use super::{Additive, AdditiveError, Compact, Huge, Large, Pair};
use super::{COMPACT_GROUPS, COMPACT_PATTERNS, HUGE_GROUPS, HUGE_PATTERNS};
use super::{LARGE_GROUPS, LARGE_PATTERNS, MAX_GROUPS, MAX_PATTERNS, PAIR_PATTERNS};
use crate::additive::kept_indexes::KeptIndexes;
use crate::additive::prepared_ranks::PreparedRanks;
use crate::additive::unrolled_partitions::UnrolledPartitions;
use crate::grid::Grid;
use crate::heuristic::Heuristic;

/// A way of computing the additive heuristic, named for its technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// One partition of two plain tables on boards up to 4x4 (7-8): the
    /// children's ranks are prepared in the parent's state by branchless
    /// sums of precomputed reads.
    PreparedRanks,
    /// Up to four partitions of one or two tables, plain or zero-aware,
    /// on boards up to 4x4 (7z-8, trio): the partition count is a
    /// constant, so every loop unrolls; a zero-aware key updates like a
    /// rank.
    UnrolledPartitions,
    /// Up to 32 tables in up to 16 partitions, plain or zero-aware, on
    /// boards up to 5x5 (6z-6z-6z-6z, septet): the node keeps the entry
    /// indexes it located for its children.
    KeptIndexes,
    /// Any tables on any board: ranks updated move by move through each
    /// tile's membership. The reference the others are held to.
    General,
}

impl Strategy {
    /// Every strategy, in the order [`choose`] tries them.
    pub const ALL: [Strategy; 4] = [
        Strategy::PreparedRanks,
        Strategy::UnrolledPartitions,
        Strategy::KeptIndexes,
        Strategy::General,
    ];

    /// The name in reports, `Stats::strategy` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::PreparedRanks => "prepared-ranks",
            Strategy::UnrolledPartitions => "unrolled-partitions",
            Strategy::KeptIndexes => "kept-indexes",
            Strategy::General => "general",
        }
    }

    /// The strategy of that name.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The size of the search state a set of tables needs, chosen from their
/// counts: search copies the state at every node, so the smallest
/// capacity that holds the tables is the fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    /// One partition of two tables (7-8, 7z-8).
    Pair,
    /// Up to 4 distinct tables in up to 2 partitions (6-6-3, 6-6-6-6, duo).
    Compact,
    /// Up to 8 distinct tables in up to 4 partitions (trio).
    Common,
    /// Up to 16 distinct tables in up to 8 partitions (septet).
    Large,
    /// Up to 32 distinct tables in up to 16 partitions (compound).
    Huge,
}

impl Capacity {
    /// The capacity for `distinct` distinct tables in `partitions`
    /// partitions, or why no heuristic holds them.
    pub fn for_counts(distinct: usize, partitions: usize) -> Result<Capacity, AdditiveError> {
        if distinct == 0 {
            return Err(AdditiveError::NoTables);
        }
        if distinct > HUGE_PATTERNS {
            return Err(AdditiveError::TooManyPatterns {
                count: distinct,
                most: HUGE_PATTERNS,
            });
        }
        if partitions > HUGE_GROUPS {
            return Err(AdditiveError::TooManyPartitions {
                count: partitions,
                most: HUGE_GROUPS,
            });
        }
        Ok(if distinct <= PAIR_PATTERNS && partitions == 1 {
            Capacity::Pair
        } else if distinct <= COMPACT_PATTERNS && partitions <= COMPACT_GROUPS {
            Capacity::Compact
        } else if distinct <= MAX_PATTERNS && partitions <= MAX_GROUPS {
            Capacity::Common
        } else if distinct <= LARGE_PATTERNS && partitions <= LARGE_GROUPS {
            Capacity::Large
        } else {
            Capacity::Huge
        })
    }

    /// The capacity for `tables` grouped in partitions of `groups[i]`
    /// tables (a table several partitions hold counts once).
    pub fn for_tables<D: AsRef<[u8]> + Sync>(
        tables: &[Pdb<D>],
        groups: &[usize],
    ) -> Result<Capacity, AdditiveError> {
        let mut distinct: Vec<&Pattern> = Vec::new();
        for pdb in tables {
            if !distinct.contains(&pdb.pattern()) {
                distinct.push(pdb.pattern());
            }
        }
        Capacity::for_counts(distinct.len(), groups.len())
    }
}

/// Something to run with whichever heuristic the tables get (generic in
/// the heuristic, which a closure cannot be).
pub(crate) trait WithHeuristic {
    type Output;
    fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output;
}

/// The tables as a strategy sees them: `groups[i]` tables of partition i
/// in a row, maxed with the reflected lookup when `reflect`.
pub(crate) struct TableSet<'a, D> {
    pub grid: &'a Grid,
    pub tables: &'a [Pdb<D>],
    pub groups: &'a [usize],
    pub reflect: bool,
}

impl<D> Clone for TableSet<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for TableSet<'_, D> {}

impl<'a, D> TableSet<'a, D> {
    /// The board, the tables, their partitions and whether to reflect.
    pub fn parts(&self) -> (&'a Grid, &'a [Pdb<D>], &'a [usize], bool) {
        (self.grid, self.tables, self.groups, self.reflect)
    }

    pub fn new(
        grid: &'a Grid,
        tables: &'a [Pdb<D>],
        groups: &'a [usize],
        reflect: bool,
    ) -> TableSet<'a, D> {
        TableSet {
            grid,
            tables,
            groups,
            reflect,
        }
    }
}

/// The strategy that runs for `set`: the first of [`Strategy::ALL`] that
/// takes it.
pub fn choose<D: AsRef<[u8]> + Sync>(
    grid: &Grid,
    tables: &[Pdb<D>],
    groups: &[usize],
) -> Result<Strategy, AdditiveError> {
    struct Name;
    impl WithHeuristic for Name {
        type Output = &'static str;
        fn run<H: Heuristic>(self, _: &Grid, heuristic: &H) -> &'static str {
            heuristic.name()
        }
    }
    let name = run(&TableSet::new(grid, tables, groups, true), None, Name)?;
    Ok(Strategy::from_name(name).expect("every heuristic of the family is a strategy"))
}

/// Runs `job` with `forced`'s heuristic, or else with the first strategy
/// that takes the set.
pub(crate) fn run<D: AsRef<[u8]> + Sync, W: WithHeuristic>(
    set: &TableSet<'_, D>,
    forced: Option<Strategy>,
    job: W,
) -> Result<W::Output, AdditiveError> {
    let TableSet {
        grid,
        tables,
        groups,
        reflect,
    } = *set;
    let capacity = Capacity::for_tables(tables, groups)?;
    macro_rules! run_if_taken {
        ($heuristic:expr) => {
            if let Some(heuristic) = $heuristic {
                return Ok(job.run(grid, &heuristic));
            }
        };
    }
    macro_rules! kept_indexes {
        ($p:expr, $g:expr) => {
            run_if_taken!(KeptIndexes::<{ $p }, { $g }>::new(set))
        };
    }
    macro_rules! general {
        ($heuristic:ty) => {{
            let heuristic = <$heuristic>::with_capacity(grid, tables, groups, reflect)?;
            return Ok(job.run(grid, &heuristic));
        }};
    }
    let order = match forced {
        Some(strategy) => vec![strategy],
        None => Strategy::ALL.to_vec(),
    };
    for strategy in order {
        match (strategy, capacity) {
            (Strategy::PreparedRanks, Capacity::Pair) => {
                run_if_taken!(PreparedRanks::new(set))
            }
            (Strategy::PreparedRanks, _) => {}
            (Strategy::UnrolledPartitions, _) => match groups.len() {
                1 => run_if_taken!(UnrolledPartitions::<1>::new(set)),
                2 => run_if_taken!(UnrolledPartitions::<2>::new(set)),
                3 => run_if_taken!(UnrolledPartitions::<3>::new(set)),
                4 => run_if_taken!(UnrolledPartitions::<4>::new(set)),
                _ => {}
            },
            (Strategy::KeptIndexes, Capacity::Pair) => kept_indexes!(PAIR_PATTERNS, 1),
            // One sum per view: the loops over a tile's tables and over the
            // sums then fold away.
            (Strategy::KeptIndexes, Capacity::Compact) if groups.len() == 1 => {
                kept_indexes!(COMPACT_PATTERNS, 1)
            }
            (Strategy::KeptIndexes, Capacity::Compact) => {
                kept_indexes!(COMPACT_PATTERNS, COMPACT_GROUPS)
            }
            (Strategy::KeptIndexes, Capacity::Common) => kept_indexes!(MAX_PATTERNS, MAX_GROUPS),
            (Strategy::KeptIndexes, Capacity::Large) => kept_indexes!(LARGE_PATTERNS, LARGE_GROUPS),
            (Strategy::KeptIndexes, Capacity::Huge) => kept_indexes!(HUGE_PATTERNS, HUGE_GROUPS),
            (Strategy::General, Capacity::Pair) => general!(Pair<'_, D>),
            (Strategy::General, Capacity::Compact) => general!(Compact<'_, D>),
            (Strategy::General, Capacity::Common) => general!(Additive<'_, D>),
            (Strategy::General, Capacity::Large) => general!(Large<'_, D>),
            (Strategy::General, Capacity::Huge) => general!(Huge<'_, D>),
        }
    }
    Err(AdditiveError::NotTaken {
        strategy: forced.map_or("", Strategy::name),
    })
}
