//! What distributed runs take: the frontier an iteration splits into,
//! and one pass of IDA* below a frontier board.

use npuzzle_board::{Board, Move};

use crate::additive::{Catalogue, WithHeuristic};
use crate::dispatch::with_catalogue;
use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::Heuristic;
use crate::ida;
use crate::types::{Algorithm, Incomplete, Request, SearchError};

/// The subtrees one IDA* iteration splits into, for a search spread over
/// machines ([`frontier_catalogue`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frontier {
    /// Each node's moves from the root and its estimate, lowest estimate
    /// first (ties in level order). The local split search then puts first
    /// the subtrees that came nearest the goal in the last iteration
    /// ([`PassOutcome::closest`]); a caller that spreads the passes does the
    /// same to search in its order.
    pub nodes: Vec<(Vec<Move>, u32)>,
    /// The least f cut off above the nodes (a candidate next bound).
    pub least_cut: u32,
    /// A solution shallower than the split depth, within the bound.
    pub goal: Option<Vec<Move>>,
    /// The root's estimate (the first bound).
    pub root_estimate: u32,
    /// Nodes expanded above the split depth.
    pub expanded: u64,
}

/// What one pass below a frontier node found ([`pass_catalogue`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassOutcome {
    /// The moves from the node to the goal, if a solution is within the bound.
    pub moves: Option<Vec<Move>>,
    /// The least f above the bound met below the node (the next bound).
    pub next_bound: u32,
    /// Nodes expanded.
    pub expanded: u64,
    /// Whether the caller's stop flag or deadline ended the pass early (nothing found,
    /// and `next_bound` means nothing).
    pub stopped: bool,
    /// The least estimate among the nodes the pass entered: how near the
    /// goal it came. A split search puts the subtrees that came nearest
    /// first in the next iteration (u32::MAX for a prefix with no nodes).
    pub closest: u32,
}

/// The frontier at `depth` below `board` for `bound` (None: the root's
/// estimate), over a catalogue as [`solve_catalogue`]; of `request`, only
/// the goal and `reflect` count.
pub fn frontier_catalogue<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    catalogue: &Catalogue<'_, D>,
    depth: u32,
    bound: Option<u32>,
) -> Result<Frontier, SearchError> {
    struct Run<'a>(&'a Board, u32, Option<u32>);
    impl WithHeuristic for Run<'_> {
        type Output = Frontier;
        fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Frontier {
            let position = Position::new(self.0);
            let root_estimate = heuristic.value(&heuristic.init(&position));
            let bound = self.2.unwrap_or(root_estimate);
            let (nodes, least_cut, goal, expanded) =
                ida::frontier_moves(grid, heuristic, position, self.1, bound);
            Frontier {
                nodes,
                least_cut,
                goal,
                root_estimate,
                expanded,
            }
        }
    }
    let job = Run(board, depth, bound);
    with_catalogue(board, request.goal, catalogue, request.reflect, job)
}

/// One IDA* pass bounded by `bound` below the node `prefix` leads to from
/// `board`, over a catalogue; `request.max_nodes` and `request.stop` bound
/// it (the error says which ended it).
pub fn pass_catalogue<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    catalogue: &Catalogue<'_, D>,
    prefix: &[Move],
    bound: u32,
) -> Result<PassOutcome, SearchError> {
    struct Run<'a>(&'a Board, &'a Request, &'a [Move], u32);
    impl WithHeuristic for Run<'_> {
        type Output = Result<PassOutcome, SearchError>;
        fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output {
            let Run(board, request, prefix, bound) = self;
            let limit = request.max_nodes.unwrap_or(u64::MAX);
            let halt = Halt::of(request);
            let (moves, next_bound, expanded, complete, closest) = ida::pass_below(
                grid,
                heuristic,
                Position::new(board),
                prefix,
                bound,
                limit,
                halt,
            );
            let stopped = halt.now();
            if complete || stopped {
                Ok(PassOutcome {
                    moves,
                    next_bound,
                    expanded,
                    stopped: !complete,
                    closest,
                })
            } else {
                Err(SearchError::Incomplete(Incomplete::NodeLimit {
                    algorithm: Algorithm::IdaStar,
                    limit,
                }))
            }
        }
    }
    let job = Run(board, request, prefix, bound);
    with_catalogue(board, request.goal, catalogue, request.reflect, job)?
}
