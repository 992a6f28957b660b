//! What distributed runs take: the frontier an iteration splits into,
//! and one pass of IDA* below a frontier board.

use npuzzle_board::{Board, Move};

use crate::additive::{Tables, WithHeuristic};
use crate::dispatch::with_tables;
use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::Heuristic;
use crate::ida;
use crate::types::{Algorithm, Incomplete, PassFrom, Request, SearchError};

/// The subtrees one IDA* iteration splits into, for a search spread over
/// machines ([`frontier_over`]).
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

/// What one pass below a frontier node found ([`passes_over`]).
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
/// estimate), over tables as [`solve_over`](crate::solve_over); of `request`, only
/// the goal and `reflect` count.
pub fn frontier_over<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &Tables<'_, D>,
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
    with_tables(board, request.goal, tables, request.reflect, job)
}

/// The open nodes of A*+IDA*'s best-first phase below `board` within
/// `memory` bytes, over tables: the units of an A*+IDA* search spread
/// over machines, each searched by [`passes_over`] with
/// [`PassFrom::Open`]. `nodes` holds every open node by f (the moves'
/// count plus the estimate), then estimate, whatever the bound; `goal`
/// the answer if the phase reached it; `least_cut` is `u32::MAX`.
/// Of `request`, the goal, `reflect`, `max_nodes` and `stop` count.
#[cfg(feature = "hybrid")]
pub fn open_frontier_over<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &Tables<'_, D>,
    memory: u64,
) -> Result<Frontier, SearchError> {
    use crate::types::InputError;
    if board.size() * board.size() > ida::MAX_PACKED_CELLS {
        return Err(SearchError::Input(InputError::TooLarge {
            size: board.size(),
        }));
    }
    struct Run<'a>(&'a Board, &'a Request, u64);
    impl WithHeuristic for Run<'_> {
        type Output = Result<Frontier, SearchError>;
        fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output {
            let Run(board, request, memory) = self;
            let position = Position::new(board);
            let root_estimate = heuristic.value(&heuristic.init(&position));
            let most = (memory / ida::BYTES_PER_NODE).max(8) as usize;
            let limit = request.max_nodes.unwrap_or(u64::MAX);
            let halt = Halt::of(request);
            let (nodes, goal, expanded) =
                match ida::open_frontier_moves(grid, heuristic, position, most, limit, halt) {
                    ida::OpenFrontier::Open(nodes, expanded) => (nodes, None, expanded),
                    ida::OpenFrontier::Solved(moves, expanded) => {
                        (Vec::new(), Some(moves), expanded)
                    }
                    ida::OpenFrontier::Ended => {
                        let why = crate::dispatch::ended_early(request, limit);
                        return Err(SearchError::Incomplete(why));
                    }
                };
            Ok(Frontier {
                nodes,
                least_cut: u32::MAX,
                goal,
                root_estimate,
                expanded,
            })
        }
    }
    let job = Run(board, request, memory);
    with_tables(board, request.goal, tables, request.reflect, job)?
}

/// IDA* passes bounded by `bound` below the nodes `prefixes` lead to from
/// `board` (nodes of the frontier `from_node` names), in order, over
/// tables, until one finds a solution or is stopped (the later ones
/// are not searched): an outcome per pass made. The heuristic is set up
/// once for all of them, so a run of thousands of small passes (the open
/// nodes of A*+IDA*) costs their searches, not thousands of set-ups.
/// `request.max_nodes` bounds their nodes together and `request.stop`
/// ends them (the error says which ended them).
pub fn passes_over<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &Tables<'_, D>,
    prefixes: &[Vec<Move>],
    from_node: PassFrom,
    bound: u32,
) -> Result<Vec<PassOutcome>, SearchError> {
    struct Run<'a>(&'a Board, &'a Request, &'a [Vec<Move>], PassFrom, u32);
    impl WithHeuristic for Run<'_> {
        type Output = Result<Vec<PassOutcome>, SearchError>;
        fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output {
            let Run(board, request, prefixes, from_node, bound) = self;
            let limit = request.max_nodes.unwrap_or(u64::MAX);
            let halt = Halt::of(request);
            let root = Position::new(board);
            let mut outcomes = Vec::with_capacity(prefixes.len());
            let mut spent = 0u64;
            for prefix in prefixes {
                let (moves, next_bound, expanded, complete, closest) = ida::pass_below(
                    grid,
                    heuristic,
                    root.clone(),
                    prefix,
                    from_node,
                    bound,
                    limit - spent,
                    halt,
                );
                spent += expanded;
                let stopped = halt.now();
                if !complete && !stopped {
                    return Err(SearchError::Incomplete(Incomplete::NodeLimit {
                        algorithm: Algorithm::IdaStar,
                        limit,
                    }));
                }
                let ends = moves.is_some() || !complete;
                outcomes.push(PassOutcome {
                    moves,
                    next_bound,
                    expanded,
                    stopped: !complete,
                    closest,
                });
                if ends {
                    break;
                }
            }
            Ok(outcomes)
        }
    }
    let job = Run(board, request, prefixes, from_node, bound);
    with_tables(board, request.goal, tables, request.reflect, job)?
}
