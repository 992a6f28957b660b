//! Optimal search for the n-puzzle: IDA* (the default), and BFS and A* as the
//! classic solvers do them, over the heuristics of [`heuristic`]; beam
//! search and the reduction for boards past optimal search.
//!
//! | module | owns |
//! | --- | --- |
//! | `dispatch` | the one entry: [`solve`], [`solve_with`], [`solve_over`] |
//! | `ida`, `classic`, `weighted` | IDA* (split across threads), BFS and A*, weighted search |
//! | `beam` | beam search and the frame-first policy ([`beam`], [`beam_schedule`], [`beam_attempt`]) |
//! | `reduction` | row-and-column reduction for any size |
//! | `frontier` | what distributed runs take ([`frontier_over`], [`passes_over`]) |
//! | `progress` | where an unfinished search stands, to go on from ([`Progress`]) |
//! | [`additive`], [`heuristic`] | the heuristics |

#![warn(missing_docs)]

pub mod additive;
mod beam;
mod classic;
mod dispatch;
mod frontier;
mod grid;
mod halt;
pub mod heuristic;
mod ida;
mod prefetch;
mod progress;
mod pruning;
mod reduction;
mod smooth;
mod types;
mod weighted;

pub use additive::{choose, Capacity, Strategy, Tables};
pub use beam::{beam, beam_attempt, beam_over, beam_schedule};
pub use dispatch::{solve, solve_additive, solve_over, solve_with};
#[cfg(feature = "hybrid")]
pub use frontier::open_frontier_over;
pub use frontier::{frontier_over, passes_over, Frontier, PassOutcome};
pub use grid::{Grid, Position, MAX_SEARCH_SIZE};
pub use ida::split_depth;
pub use progress::{Progress, ProgressMismatch, Searched};
pub use reduction::{
    solve_by_reduction, solve_by_reduction_hurried, solve_by_reduction_until,
    solve_by_reduction_with, Effort, FINISH_GRACE,
};
pub use types::{
    default_max_nodes, seconds_text, Algorithm, BeamEnding, BeamOutcome, Deadline, HeuristicKind,
    Incomplete, InputError, PassFrom, Request, ScheduledBeam, SearchError, Solution, Stats,
    DEFAULT_MEMORY_BYTES,
};

#[cfg(test)]
pub(crate) mod testing;
