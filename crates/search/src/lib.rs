//! Optimal search for the n-puzzle: IDA* (the default), and BFS and A* as the
//! classic solvers do them, over the heuristics of [`heuristic`].

#![warn(missing_docs)]

pub mod additive;
mod classic;
mod grid;
pub mod heuristic;
mod ida;
pub mod pruning;
mod reduction;
pub mod two_tables;

use std::fmt;
use std::time::{Duration, Instant};

use npuzzle_board::{Board, Goal, Move};

use additive::AdditiveError;
pub use grid::{Grid, Position, MAX_SEARCH_SIZE};
use heuristic::{Hamming, Heuristic, LinearConflict, Manhattan};
pub use reduction::solve_by_reduction;

/// Which search runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// Breadth-first search (no estimate; memory grows fast).
    Bfs,
    /// A* (memory grows with the boards kept).
    AStar,
    /// Iterative-deepening A* (constant memory): the default.
    #[default]
    IdaStar,
}

impl Algorithm {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Bfs => "bfs",
            Algorithm::AStar => "astar",
            Algorithm::IdaStar => "idastar",
        }
    }
}

/// Which estimate guides A* and IDA*.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeuristicKind {
    /// Tiles out of place.
    Hamming,
    /// Sum of the tiles' grid distances home.
    Manhattan,
    /// Manhattan plus two moves per conflicting pair in a row or column.
    #[default]
    LinearConflict,
    /// Additive pattern databases (tables given by the caller).
    Pdb,
}

impl HeuristicKind {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            HeuristicKind::Hamming => "hamming",
            HeuristicKind::Manhattan => "manhattan",
            HeuristicKind::LinearConflict => "linear-conflict",
            HeuristicKind::Pdb => "pdb",
        }
    }
}

/// Counters of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes whose children were generated.
    pub expanded: u64,
    /// Children generated (the figure the literature reports).
    pub generated: u64,
    /// IDA* iterations (1 for BFS and A*).
    pub iterations: u32,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.expanded += other.expanded;
        self.generated += other.generated;
        self.iterations = self.iterations.max(other.iterations);
    }
}

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// The goal to reach.
    pub goal: Goal,
    /// The search to run.
    pub algorithm: Algorithm,
    /// The estimate guiding A* and IDA*.
    pub heuristic: HeuristicKind,
    /// BFS and A*: most boards kept in memory; IDA*: most nodes expanded.
    pub max_nodes: Option<u64>,
    /// IDA*: split each iteration across the current rayon pool.
    pub parallel: bool,
}

/// The memory BFS and A* may fill by default.
pub const DEFAULT_MEMORY_BYTES: u64 = 1_000_000_000;

/// What one board kept by BFS or A* costs, in bytes, on a board of `cells`
/// cells, besides its hash slot: its tiles twice (the list of boards and
/// the hash key, each a heap block with the allocator's header, rounded to
/// 16), the fat pointers, the node and the queue or heap entries.
fn bytes_per_kept_board(cells: usize) -> u64 {
    let block = (cells + 8).div_ceil(16).max(2) as u64 * 16;
    2 * block + 56
}

/// A hash slot (key pointer, index, control byte, padding).
const BYTES_PER_SLOT: u64 = 25;

/// The default node limit of BFS and A*: the most boards whose estimated
/// memory fits `DEFAULT_MEMORY_BYTES`, counting the hash table at the
/// power-of-two size it has then (it holds at most 7/8 of its slots), so
/// the limit never falls just past a doubling. Measured peaks: see README.
pub fn default_max_nodes(cells: usize) -> u64 {
    let per_board = bytes_per_kept_board(cells);
    (10..40)
        .map(|k| {
            let slots = 1u64 << k;
            let fits = DEFAULT_MEMORY_BYTES.saturating_sub(slots * BYTES_PER_SLOT) / per_board;
            fits.min(slots / 8 * 7)
        })
        .max()
        .unwrap_or(1)
}

impl Default for Request {
    fn default() -> Request {
        Request {
            goal: Goal::BlankLast,
            algorithm: Algorithm::IdaStar,
            heuristic: HeuristicKind::LinearConflict,
            max_nodes: None,
            parallel: false,
        }
    }
}

/// An optimal solution with the figures of the search that found it.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// The search's counters.
    pub stats: Stats,
    /// The heuristic's estimate of the start board.
    pub initial_estimate: u32,
    /// Time spent searching.
    pub elapsed: Duration,
}

/// Why no solution came back.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum SearchError {
    /// The parity rule says the goal cannot be reached.
    Unsolvable,
    /// Optimal search of boards this large is out of reach.
    TooLarge { size: usize },
    /// The search hit its node limit first.
    NodeLimit { algorithm: Algorithm, limit: u64 },
    /// The PDB heuristic was asked for without tables.
    NoTables,
    /// The tables given cannot make an admissible heuristic for this board.
    Tables(AdditiveError),
    /// The reduction solver found no way on (a bug: please report the board).
    Stuck,
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Unsolvable => f.write_str("No solution possible"),
            SearchError::TooLarge { size } => write!(
                f,
                "optimal search takes boards up to {MAX_SEARCH_SIZE}x{MAX_SEARCH_SIZE}; \
                 this one is {size}x{size}"
            ),
            SearchError::NodeLimit {
                algorithm: Algorithm::IdaStar,
                limit,
            } => write!(
                f,
                "IDA* expanded {limit} nodes without finishing (--max-nodes); raise the limit \
                 or use a stronger heuristic"
            ),
            SearchError::NoTables => f.write_str("the pdb heuristic needs pattern databases"),
            SearchError::Tables(e) => write!(f, "unusable pattern databases: {e}"),
            SearchError::Stuck => {
                f.write_str("the reduction solver got stuck (a bug: please report the board)")
            }
            SearchError::NodeLimit { algorithm, limit } => write!(
                f,
                "{} would need more than {limit} boards in memory (--max-nodes {limit}); \
                 IDA* (--algorithm idastar) solves it in constant memory",
                algorithm.name()
            ),
        }
    }
}

impl std::error::Error for SearchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SearchError::Tables(e) => Some(e),
            _ => None,
        }
    }
}

/// Solves `board` optimally as `request` says.
pub fn solve(board: &Board, request: &Request) -> Result<Solution, SearchError> {
    let n = board.size();
    if !board.is_solvable(request.goal) {
        return Err(SearchError::Unsolvable);
    }
    if n > MAX_SEARCH_SIZE {
        return Err(SearchError::TooLarge { size: n });
    }
    let grid = Grid::new(n, request.goal);
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
        HeuristicKind::Pdb => Err(SearchError::NoTables),
    }
}

/// Solves `board` optimally over additive pattern databases (their patterns
/// disjoint, for the board's size and `request.goal`), maxed with the
/// reflected lookup when `reflect`.
pub fn solve_additive<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &[npuzzle_pdb::Pdb<D>],
    reflect: bool,
) -> Result<Solution, SearchError> {
    solve_catalogue(board, request, tables, &[tables.len()], reflect)
}

/// The heuristic a set of tables gets, chosen from their counts: the
/// search copies the heuristic's state at every node, so the smallest
/// capacity that holds the tables is the fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    /// One partition of two tables (7-8, 7z-8): [`additive::Pair`], or the
    /// two-table heuristic when both are plain nibble tables of a board up
    /// to 4x4.
    Pair,
    /// Up to 4 distinct tables in up to 2 partitions (6-6-3, 6-6-6-6, duo).
    Compact,
    /// Up to 8 distinct tables in up to 4 partitions (trio).
    Common,
    /// Up to 16 distinct tables in up to 8 partitions (septet).
    Large,
}

impl Capacity {
    /// The capacity for `distinct` distinct tables in `partitions`
    /// partitions, or why no heuristic holds them.
    pub fn for_counts(distinct: usize, partitions: usize) -> Result<Capacity, AdditiveError> {
        use additive::*;
        if distinct == 0 {
            return Err(AdditiveError::NoTables);
        }
        if distinct > LARGE_PATTERNS {
            return Err(AdditiveError::TooManyPatterns {
                count: distinct,
                most: LARGE_PATTERNS,
            });
        }
        if partitions > LARGE_GROUPS {
            return Err(AdditiveError::TooManyPartitions {
                count: partitions,
                most: LARGE_GROUPS,
            });
        }
        Ok(if distinct <= PAIR_PATTERNS && partitions == 1 {
            Capacity::Pair
        } else if distinct <= COMPACT_PATTERNS && partitions <= COMPACT_GROUPS {
            Capacity::Compact
        } else if distinct <= MAX_PATTERNS && partitions <= MAX_GROUPS {
            Capacity::Common
        } else {
            Capacity::Large
        })
    }

    /// The capacity for `tables` grouped in partitions of `groups[i]`
    /// tables (a table several partitions hold counts once).
    pub fn for_tables<D: AsRef<[u8]> + Sync>(
        tables: &[npuzzle_pdb::Pdb<D>],
        groups: &[usize],
    ) -> Result<Capacity, AdditiveError> {
        let mut distinct: Vec<&npuzzle_pdb::Pattern> = Vec::new();
        for pdb in tables {
            if !distinct.contains(&pdb.pattern()) {
                distinct.push(pdb.pattern());
            }
        }
        Capacity::for_counts(distinct.len(), groups.len())
    }
}

/// Solves `board` optimally over a catalogue: `groups[i]` tables of
/// partition i in a row, the heuristic the largest partition sum, of the
/// [`Capacity`] the counts call for.
pub fn solve_catalogue<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &[npuzzle_pdb::Pdb<D>],
    groups: &[usize],
    reflect: bool,
) -> Result<Solution, SearchError> {
    use additive::{Additive, Compact, Large, Pair};
    if !board.is_solvable(request.goal) {
        return Err(SearchError::Unsolvable);
    }
    let grid = Grid::new(board.size(), request.goal);
    let capacity = Capacity::for_tables(tables, groups).map_err(SearchError::Tables)?;
    match capacity {
        Capacity::Pair => {
            if let Some(heuristic) = two_tables::TwoTables::new(&grid, tables, reflect) {
                return solve_with(&grid, &heuristic, board, request);
            }
            let heuristic =
                Pair::with_capacity(&grid, tables, groups, reflect).map_err(SearchError::Tables)?;
            solve_with(&grid, &heuristic, board, request)
        }
        Capacity::Compact => {
            let heuristic = Compact::with_capacity(&grid, tables, groups, reflect)
                .map_err(SearchError::Tables)?;
            solve_with(&grid, &heuristic, board, request)
        }
        Capacity::Common => {
            let heuristic = Additive::with_groups(&grid, tables, groups, reflect)
                .map_err(SearchError::Tables)?;
            solve_with(&grid, &heuristic, board, request)
        }
        Capacity::Large => {
            let heuristic = Large::with_capacity(&grid, tables, groups, reflect)
                .map_err(SearchError::Tables)?;
            solve_with(&grid, &heuristic, board, request)
        }
    }
}

/// Solves a solvable `board` of `grid`'s size with any heuristic.
pub fn solve_with<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    board: &Board,
    request: &Request,
) -> Result<Solution, SearchError> {
    let started = Instant::now();
    let position = Position::new(board);
    let initial_estimate = heuristic.value(&heuristic.init(&position));
    let limit = match request.algorithm {
        Algorithm::IdaStar => request.max_nodes.unwrap_or(u64::MAX),
        _ => request
            .max_nodes
            .unwrap_or_else(|| default_max_nodes(grid.cells())),
    };
    let found = match request.algorithm {
        Algorithm::Bfs => classic::bfs(grid, position, limit),
        Algorithm::AStar => classic::astar(grid, heuristic, position, limit),
        Algorithm::IdaStar if request.parallel && rayon::current_num_threads() > 1 => {
            ida::parallel_ida_star(grid, heuristic, position, limit)
        }
        Algorithm::IdaStar => ida::ida_star(grid, heuristic, position, limit),
    };
    let (moves, stats) = found.ok_or(SearchError::NodeLimit {
        algorithm: request.algorithm,
        limit,
    })?;
    Ok(Solution {
        moves,
        stats,
        initial_estimate,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests;
