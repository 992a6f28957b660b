//! The one entry to optimal search: a board and a [`Request`] to the
//! algorithm and heuristic it names, over the tables when given.

use npuzzle_board::clock::Instant;
use npuzzle_board::{Board, Goal};

use crate::additive::{AdditiveError, Tables, WithHeuristic};
use crate::grid::{Grid, Position, MAX_SEARCH_SIZE};
use crate::halt::Halt;
use crate::heuristic::{Hamming, Heuristic, LinearConflict, Manhattan};
use crate::progress::ProgressMismatch;
use crate::types::{
    default_max_nodes, Algorithm, HeuristicKind, Incomplete, InputError, Request, SearchError,
    Solution,
};
use crate::{classic, ida, weighted};

/// The geometry of `board` for `goal`, when a search can take it:
/// solvable, and no larger than [`MAX_SEARCH_SIZE`].
pub(crate) fn search_grid(board: &Board, goal: Goal) -> Result<Grid, InputError> {
    let n = board.size();
    if !board.is_solvable(goal) {
        return Err(InputError::Unsolvable);
    }
    if n > MAX_SEARCH_SIZE {
        return Err(InputError::TooLarge { size: n });
    }
    Ok(Grid::new(n, goal))
}

/// Solves `board` optimally as `request` says.
pub fn solve(board: &Board, request: &Request) -> Result<Solution, SearchError> {
    let grid = search_grid(board, request.goal)?;
    if request.algorithm == Algorithm::Bfs {
        // Breadth-first search needs no estimate.
        return solve_with(&grid, &Manhattan::new(&grid), board, request);
    }
    match request.heuristic {
        HeuristicKind::Hamming => solve_with(&grid, &Hamming::new(&grid), board, request),
        HeuristicKind::Manhattan => solve_with(&grid, &Manhattan::new(&grid), board, request),
        HeuristicKind::LinearConflict => {
            solve_with(&grid, &LinearConflict::new(&grid), board, request)
        }
        HeuristicKind::Pdb => Err(SearchError::Input(InputError::NoTables)),
    }
}

/// Solves `board` optimally over additive pattern databases of one
/// partition (their patterns disjoint, for the board's size and
/// `request.goal`).
pub fn solve_additive<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &[npuzzle_pdb::Pdb<D>],
) -> Result<Solution, SearchError> {
    let groups = [tables.len()];
    let catalogue = Tables::new(tables, &groups, None)
        .map_err(|e| SearchError::Input(InputError::Tables(e)))?;
    solve_over(board, request, &catalogue)
}

/// Runs `job` on a solvable `board` for `goal` with the tables'
/// heuristic, maxed with the reflected lookup when `reflect`.
pub(crate) fn with_tables<D: AsRef<[u8]> + Sync, W: WithHeuristic>(
    board: &Board,
    goal: Goal,
    tables: &Tables<'_, D>,
    reflect: bool,
    job: W,
) -> Result<W::Output, SearchError> {
    if !board.is_solvable(goal) {
        return Err(SearchError::Input(InputError::Unsolvable));
    }
    let refused = |e| SearchError::Input(InputError::Tables(e));
    let (size, tables_goal) = tables.puzzle();
    if (size, tables_goal) != (board.size(), goal) {
        return Err(refused(AdditiveError::WrongPuzzle {
            table: (size, tables_goal),
            board: (board.size(), goal),
        }));
    }
    tables.run(reflect, job).map_err(refused)
}

/// Solves `board` optimally over tables: `groups[i]` tables of
/// partition i in a row, the heuristic the largest partition sum, of the
/// [`Capacity`](crate::additive::Capacity) the counts call for.
pub fn solve_over<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &Tables<'_, D>,
) -> Result<Solution, SearchError> {
    struct Solve<'a>(&'a Board, &'a Request);
    impl WithHeuristic for Solve<'_> {
        type Output = Result<Solution, SearchError>;
        fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output {
            solve_with(grid, heuristic, self.0, self.1)
        }
    }
    let job = Solve(board, request);
    with_tables(board, request.goal, tables, request.reflect, job)?
}

/// Solves a solvable `board` of `grid`'s size with any heuristic, weighted
/// when `request.within` says so.
pub fn solve_with<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    board: &Board,
    request: &Request,
) -> Result<Solution, SearchError> {
    let position = Position::new(board);
    let initial_estimate = heuristic.value(&heuristic.init(&position));
    if request.within > 0 && request.algorithm != Algorithm::Bfs {
        let weighted = weighted::Weighted::new(heuristic, request.within);
        return search(grid, &weighted, position, initial_estimate, request);
    }
    search(grid, heuristic, position, initial_estimate, request)
}

/// Why a search ended without a solution: the stop flag, else the
/// deadline, else `limit`.
pub(crate) fn ended_early(request: &Request, limit: u64) -> Incomplete {
    let halt = Halt::of(request);
    if halt.now() && !halt.timed_out() {
        Incomplete::Stopped
    } else if let (true, Some(deadline)) = (halt.timed_out(), request.deadline) {
        Incomplete::TimeLimit {
            budget: deadline.budget(),
        }
    } else {
        Incomplete::NodeLimit {
            algorithm: request.algorithm,
            limit,
        }
    }
}

pub(crate) fn search<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    initial_estimate: u32,
    request: &Request,
) -> Result<Solution, SearchError> {
    let started = Instant::now();
    let limit = match request.algorithm {
        Algorithm::IdaStar => request.max_nodes.unwrap_or(u64::MAX),
        _ => request
            .max_nodes
            .unwrap_or_else(|| default_max_nodes(grid.cells())),
    };
    let halt = Halt::of(request);
    let progress = request.progress.as_deref();
    if progress.is_some() && (request.algorithm != Algorithm::IdaStar || request.within > 0) {
        return Err(SearchError::Input(InputError::Progress(ProgressMismatch(
            "only optimal IDA* keeps progress".to_string(),
        ))));
    }
    let found = match request.algorithm {
        Algorithm::Bfs => classic::bfs(grid, position, limit, halt),
        Algorithm::AStar => classic::astar(grid, heuristic, position, limit, halt),
        Algorithm::IdaStar => {
            // The pool's threads when asked and called in one; else this
            // thread alone (the same moves either way). One thread still
            // takes the split's order, which ends the last iteration
            // sooner: 2,000 random 4x4 boards in 30 % fewer nodes.
            let workers = if request.parallel && rayon::current_thread_index().is_some() {
                rayon::current_num_threads()
            } else {
                1
            };
            let spare = request.spare_threads.as_deref();
            match request.memory {
                #[cfg(feature = "hybrid")]
                Some(_) if progress.is_some() => {
                    return Err(SearchError::Input(InputError::Progress(ProgressMismatch(
                        "A*+IDA* (a memory budget) keeps no progress; leave one of them out"
                            .to_string(),
                    ))));
                }
                #[cfg(feature = "hybrid")]
                Some(bytes) if grid.cells() <= ida::MAX_PACKED_CELLS => {
                    let most = (bytes / ida::BYTES_PER_NODE).max(8) as usize;
                    ida::hybrid_ida_star(
                        grid, heuristic, position, most, limit, halt, workers, spare,
                    )
                }
                _ => ida::split_ida_star_keeping(
                    grid, heuristic, position, limit, halt, workers, spare, progress,
                )
                .map_err(|e| SearchError::Input(InputError::Progress(e)))?,
            }
        }
    };
    let (moves, mut stats) = found.ok_or_else(|| ended_early(request, limit))?;
    stats.strategy = heuristic.name();
    Ok(Solution {
        moves,
        stats,
        initial_estimate,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests;
