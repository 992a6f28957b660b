//! Why tables cannot make the heuristic.

use std::fmt;

use npuzzle_board::Goal;

use super::MAX_PATTERN_TILES;

/// Why a set of tables cannot make an admissible additive heuristic here.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum AdditiveError {
    /// No table at all.
    NoTables,
    /// More distinct tables than the search state holds (`most`).
    TooManyPatterns { count: usize, most: usize },
    /// More partitions than the search state holds (`most`).
    TooManyPartitions { count: usize, most: usize },
    /// Partition sizes that do not add up to the tables given.
    BadGroups { tables: usize, grouped: usize },
    /// A table for another board size or goal.
    WrongPuzzle {
        table: (usize, Goal),
        board: (usize, Goal),
    },
    /// A pattern of more tiles than the search state holds.
    TooManyTiles { tiles: usize },
    /// A table whose ranks do not fit the search state's 32 bits.
    TooManyEntries { entries: u64 },
    /// Two tables share a tile: their sum would overestimate.
    Overlap { tile: u8 },
    /// The strategy asked for is not written for these tables (board
    /// size, table kinds or counts).
    NotTaken { strategy: &'static str },
}

impl fmt::Display for AdditiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdditiveError::NoTables => f.write_str("no tables were given"),
            AdditiveError::TooManyPatterns { count, most } => write!(
                f,
                "{count} distinct tables given; the pdb heuristic takes at most {most}"
            ),
            AdditiveError::TooManyPartitions { count, most } => write!(
                f,
                "{count} partitions given; the pdb heuristic takes the maximum of at most {most}"
            ),
            AdditiveError::BadGroups { tables, grouped } => {
                write!(f, "{tables} tables given but the partitions hold {grouped}")
            }
            AdditiveError::WrongPuzzle { table, board } => write!(
                f,
                "a table is for {t}x{t} boards with goal {}, the board is {b}x{b} with goal {}",
                table.1,
                board.1,
                t = table.0,
                b = board.0
            ),
            AdditiveError::TooManyTiles { tiles } => write!(
                f,
                "a pattern has {tiles} tiles; the additive heuristic takes at most \
                 {MAX_PATTERN_TILES}"
            ),
            AdditiveError::TooManyEntries { entries } => write!(
                f,
                "a table has {entries} entries; the additive heuristic takes at most 2^32"
            ),
            AdditiveError::Overlap { tile } => write!(
                f,
                "tile {tile} is in two tables of one partition: the sum of overlapping \
                 patterns overestimates, so the solutions would not be optimal"
            ),
            AdditiveError::NotTaken { strategy } => write!(
                f,
                "the {strategy} strategy does not take these tables (their board size, kinds \
                 or counts); the general strategy takes any"
            ),
        }
    }
}

impl std::error::Error for AdditiveError {}
