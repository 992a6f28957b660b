//! The board model of the n-puzzle: boards, goals, moves, solvability,
//! replay, parsing, random boards and the diagonal reflection.
//!
//! Everything here works on values and `&str`; files, terminals and search
//! live in other crates.

#![warn(missing_docs)]

mod board;
pub mod clock;
mod names;
mod parse;
mod random;

pub use board::{Board, BoardError, Goal, Move, Notation, Walk, MAX_SIZE, MIN_SIZE};
pub use names::{named_field, parse_name, UnknownName};
pub use parse::{
    echo, parse_batch, parse_board, parse_set_line, BatchItem, BatchReader, Known, ParseError,
    ParseErrorKind, SetEntry, MAX_LINE_BYTES,
};
pub use random::{random_board, random_walk, SplitMix64};
