//! The implementations of the additive heuristic ([`Strategy`]) and the
//! sizes of its search state ([`Capacity`]); `choice` picks them.

use npuzzle_pdb::{Pattern, Pdb};

use super::AdditiveError;
use super::{COMPACT_GROUPS, COMPACT_PATTERNS, HUGE_GROUPS, HUGE_PATTERNS};
use super::{LARGE_GROUPS, LARGE_PATTERNS, MAX_GROUPS, MAX_PATTERNS, PAIR_PATTERNS};

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
    /// Every strategy, in the order [`choose`](crate::additive::tables::choose) tries them.
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
        name.parse().ok()
    }
}

impl std::str::FromStr for Strategy {
    type Err = npuzzle_board::UnknownName;

    fn from_str(name: &str) -> Result<Strategy, Self::Err> {
        npuzzle_board::parse_name("strategy", name, &Strategy::ALL, Strategy::name)
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
