//! The units of one board's search spread over machines: the frontier an
//! IDA* iteration splits into, and one bounded pass below a node of it
//! (`npuzzle.distributed` in Python drives them).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use npuzzle_board::{Board, Goal, Move};
use npuzzle_search::{PassFrom, Request};

use crate::error::Error;
use crate::solver::Solver;
use crate::tables::Tables;

/// The deepest frontier [`Solver::frontier`](crate::Solver::frontier) makes (the local split
/// search's deepest): it holds up to about 3^depth boards.
pub const MAX_FRONTIER_DEPTH: u32 = 12;

/// The largest bound [`Solver::pass`](crate::Solver::pass) takes: the search keeps a row of
/// states per level down to the bound.
pub const MAX_PASS_BOUND: u32 = 1_000;

impl Solver {
    /// The subtrees one IDA* iteration over the side's tables splits into
    /// at `depth` below `board` (None: where the local split search cuts
    /// a board of its side, [`npuzzle_search::split_depth`]), for `bound`
    /// (None: the board's estimate): the units of a search spread over
    /// machines (see [`Solver::pass`](crate::Solver::pass)).
    pub fn frontier(
        &self,
        board: &Board,
        depth: Option<u32>,
        bound: Option<u32>,
    ) -> Result<npuzzle_search::Frontier, Error> {
        let depth = depth.unwrap_or_else(|| npuzzle_search::split_depth(board.size()));
        if !(1..=MAX_FRONTIER_DEPTH).contains(&depth) {
            return Err(Error::InvalidArgument(format!(
                "depth {depth} is out of range: give 1 to {MAX_FRONTIER_DEPTH} (the frontier \
                 grows about threefold per level)"
            )));
        }
        let (goal, tables) = self.side_tables(board)?;
        let request = Request {
            goal,
            reflect: self.config.reflection,
            ..Request::default()
        };
        let searched = tables.for_search(self.config.strategy);
        npuzzle_search::frontier_over(board, &request, &searched, depth, bound)
            .map_err(|e| Error::from_search(e, goal))
    }

    /// The open nodes A*+IDA*'s best-first phase leaves below `board`
    /// within `memory` bytes (as [`SolverBuilder::memory`](crate::SolverBuilder::memory)), over the
    /// side's tables: the units of an A*+IDA* search spread over machines,
    /// each searched by [`Solver::passes`] with [`PassFrom::Open`]. Every open node is given,
    /// by f (its moves' count plus its estimate), then estimate, whatever
    /// the bound; `goal` holds the answer when the phase reached it. The
    /// solver's node limit and `stop` end the phase. Boards up to 5x5.
    #[cfg(feature = "native")]
    pub fn open_frontier(
        &self,
        board: &Board,
        memory: u64,
        stop: Option<Arc<AtomicBool>>,
    ) -> Result<npuzzle_search::Frontier, Error> {
        crate::solver::check_memory_budget(memory)?;
        let (goal, tables) = self.side_tables(board)?;
        let request = Request {
            goal,
            reflect: self.config.reflection,
            max_nodes: self.config.max_nodes,
            stop,
            ..Request::default()
        };
        let searched = tables.for_search(self.config.strategy);
        let frontier = npuzzle_search::open_frontier_over(board, &request, &searched, memory)
            .map_err(|e| Error::from_search(e, goal))?;
        if let Some(moves) = &frontier.goal {
            tables.certify(board, moves)?;
        }
        Ok(frontier)
    }

    /// One pass of IDA* over the side's tables, bounded by `bound`, below
    /// the node `prefix` leads to from `board` (a node of
    /// [`Solver::frontier`](crate::Solver::frontier)), within `max_nodes` expanded nodes; setting
    /// `stop` ends it within milliseconds (`stopped` in the outcome).
    pub fn pass(
        &self,
        board: &Board,
        prefix: &[Move],
        bound: u32,
        max_nodes: Option<u64>,
        stop: Option<Arc<AtomicBool>>,
    ) -> Result<npuzzle_search::PassOutcome, Error> {
        let prefixes = [prefix.to_vec()];
        let mut outcomes =
            self.passes(board, &prefixes, PassFrom::Frontier, bound, max_nodes, stop)?;
        Ok(outcomes.pop().expect("one pass is made"))
    }

    /// Passes of IDA* as [`Solver::pass`], below the nodes `prefixes` lead
    /// to (of [`Solver::frontier`](crate::Solver::frontier) with [`PassFrom::Frontier`], of
    /// [`Solver::open_frontier`] with [`PassFrom::Open`]: the duplicate-move
    /// pruning starts afresh there, as in the local A*+IDA*), in order,
    /// until one finds a solution or `stop` ends one: an outcome per pass
    /// made. `max_nodes` bounds them together. The tables' heuristic is set
    /// up once for the run, not once a pass.
    pub fn passes(
        &self,
        board: &Board,
        prefixes: &[Vec<Move>],
        from_node: PassFrom,
        bound: u32,
        max_nodes: Option<u64>,
        stop: Option<Arc<AtomicBool>>,
    ) -> Result<Vec<npuzzle_search::PassOutcome>, Error> {
        if bound > MAX_PASS_BOUND {
            return Err(Error::InvalidArgument(format!(
                "bound {bound} is out of range: give at most {MAX_PASS_BOUND} (longer than any \
                 solution a search over tables finds)"
            )));
        }
        // Every prefix is a path on the board: a move off it names no node.
        for (index, prefix) in prefixes.iter().enumerate() {
            if let Err(e) = board.replay(prefix) {
                return Err(Error::InvalidArgument(format!(
                    "prefix {} ({}): {e}",
                    index + 1,
                    Move::format_sequence(prefix, npuzzle_board::Notation::Tile)
                )));
            }
        }
        let (goal, tables) = self.side_tables(board)?;
        let request = Request {
            goal,
            max_nodes,
            stop,
            reflect: self.config.reflection,
            ..Request::default()
        };
        let searched = tables.for_search(self.config.strategy);
        let outcomes =
            npuzzle_search::passes_over(board, &request, &searched, prefixes, from_node, bound)
                .map_err(|e| Error::from_search(e, goal))?;
        if let Some((prefix, moves)) = prefixes
            .iter()
            .zip(&outcomes)
            .find_map(|(prefix, outcome)| Some((prefix, outcome.moves.as_ref()?)))
        {
            let whole: Vec<Move> = prefix.iter().chain(moves).copied().collect();
            tables.certify(board, &whole)?;
        }
        Ok(outcomes)
    }

    /// The goal, and the tables for `board`'s side, once the board is
    /// known to reach the goal.
    fn side_tables(&self, board: &Board) -> Result<(Goal, Arc<Tables>), Error> {
        let goal = self.config.goal;
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        Ok((goal, self.tables(board.size())?))
    }
}
