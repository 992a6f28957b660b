//! Iterative-deepening A* (Korf 1985): depth-first search bounded by
//! f = g + h, the bound raised to the smallest f that exceeded it. Memory is
//! the path alone; the board is changed and restored in place, the heuristic
//! is updated per move, and the move back to the parent is never generated.
//!
//! `dfs` is the searcher and IDA* on one thread; `split` runs the subtrees
//! below a split depth on several threads; `pass` gives a distributed run
//! its frontier and its passes; `hybrid` is A*+IDA*, best-first search
//! near the root within a memory budget and IDA* below.

mod dfs;
#[cfg(feature = "hybrid")]
mod hybrid;
mod pass;
mod split;
#[cfg(test)]
mod tests;

#[cfg(feature = "hybrid")]
pub(crate) use hybrid::{
    hybrid_ida_star, open_frontier_moves, OpenFrontier, BYTES_PER_NODE, MAX_PACKED_CELLS,
};
pub(crate) use pass::{frontier_moves, pass_below};
pub use split::split_depth;
#[cfg(test)]
pub(crate) use split::split_ida_star;
pub(crate) use split::split_ida_star_keeping;
