//! The capacities of the heuristic's variants: how many tables and
//! partitions each holds, and the largest pattern.

/// The most distinct tables the heuristic takes, over all its partitions
/// (three 7-8 partitions of the 15-puzzle, or two 6-6-6-6 of the
/// 24-puzzle): the search state holds a rank per table, and is copied at
/// every node, so the common heuristic keeps it small; `LARGE_PATTERNS`
/// and `LARGE_GROUPS` are the capacity of the large one (see `Large`).
pub const MAX_PATTERNS: usize = 8;
/// The most partitions whose maximum is taken.
pub const MAX_GROUPS: usize = 4;
/// The distinct tables of the pair heuristic (see `Pair`).
pub const PAIR_PATTERNS: usize = 2;
/// The most distinct tables of the compact heuristic (see `Compact`).
pub const COMPACT_PATTERNS: usize = 4;
/// The most partitions of the compact heuristic.
pub const COMPACT_GROUPS: usize = 2;
/// The most distinct tables of the large heuristic (the 14 of the 24-puzzle
/// catalogue `septet`).
pub const LARGE_PATTERNS: usize = 16;
/// The most partitions of the large heuristic.
pub const LARGE_GROUPS: usize = 8;
/// The most distinct tables of the huge heuristic (the 20 of the 24-puzzle
/// catalogue `compound`).
pub const HUGE_PATTERNS: usize = 32;
/// The most partitions of the huge heuristic.
pub const HUGE_GROUPS: usize = 16;
/// The most tiles a pattern may have here (a table of more would not fit
/// in memory anyway).
pub const MAX_PATTERN_TILES: usize = 16;
