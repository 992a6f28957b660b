//! The additive pattern-database heuristic (Korf and Felner 2002): the sum
//! of the tables of disjoint patterns, maxed with the same sum over the board
//! reflected about the main diagonal (a second admissible estimate from the
//! same tables), updated move by move: a move changes one tile, so only its
//! pattern, and its mirror image's pattern, are looked up again, and the
//! rank of that pattern's placement is adjusted rather than recomputed.
//!
//! Several partitions (a catalogue) give the maximum of their sums: each is
//! admissible, so their maximum is too, and a move still changes one
//! pattern per partition.
//!
//! `general` holds the heuristic for any capacity (`limits`); the
//! unrolled strategies (`kept_indexes`, `prepared_ranks`,
//! `unrolled_partitions`) compute the same values faster for the usual
//! sets, and `choice` picks one per table set (`strategy` names them), once, when a
//! [`Tables`] is made.

mod choice;
mod error;
mod general;
pub(crate) mod geometry;
pub(crate) mod kept_indexes;
mod limits;
pub(crate) mod prepared_ranks;
mod strategy;
mod tables;
mod tables_view;
pub(crate) mod unrolled_partitions;

pub use error::AdditiveError;
pub use general::{Additive, AdditiveState, Compact, Huge, Large, Pair};
pub use limits::{
    COMPACT_GROUPS, COMPACT_PATTERNS, HUGE_GROUPS, HUGE_PATTERNS, LARGE_GROUPS, LARGE_PATTERNS,
    MAX_GROUPS, MAX_PATTERNS, MAX_PATTERN_TILES, PAIR_PATTERNS,
};
pub use strategy::{Capacity, Strategy};
pub use tables::{choose, Tables};
pub(crate) use tables_view::{TablesView, WithHeuristic};

#[cfg(test)]
mod tests;
