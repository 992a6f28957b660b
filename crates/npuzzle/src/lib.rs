//! Optimal solutions of sliding-tile puzzles in one call, over the pattern
//! databases that `npuzzle pdb build` writes.
//!
//! [`Tables`] opens a directory of tables (the packed `*.pdb.zst` files;
//! the first open unpacks them to `cache/` beside them, later opens map that
//! copy) and gives a board's heuristic value: the number `npuzzle pdb
//! lookup` prints. [`Solver`] solves boards optimally with IDA* over them,
//! one at a time (the search split across threads) or many at once.
//!
//! ```no_run
//! use npuzzle::{parse_board, Solver};
//!
//! let solver = Solver::open("data")?; // the 7-8 tables of the 15-puzzle
//! let board = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")?;
//! let solution = solver.solve(&board)?;
//! assert_eq!(solution.moves.len(), 80);
//! println!("{} moves: {}", solution.moves.len(), solution.moves_text());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Tables for other sizes, goals and partitions open with
//! [`Tables::open_partition`]. Reading tables without this crate's
//! dependencies (zstd's C code, rayon) is `npuzzle_pdb`'s job, with its
//! default features.
#![warn(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use npuzzle_board::{parse_board, Board, Goal, Move, Notation};
use npuzzle_pdb::file::{self, TableBytes};
use npuzzle_pdb::TableSet;
pub use npuzzle_pdb::{Lookup, OpenError, Partition, PatternError, PdbError};
use npuzzle_search::additive::Additive;
use npuzzle_search::{Algorithm, Grid, HeuristicKind, Request, SearchError};

/// Why a call failed. Each message says what to do.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A table file is missing or damaged (its message names the file).
    Tables(OpenError),
    /// The partition cannot be used (unknown name, overlapping tiles...).
    Partition(PatternError),
    /// The board does not fit the tables.
    #[allow(missing_docs)]
    WrongSize { board: usize, tables: usize },
    /// The board cannot reach the tables' goal (the parity rule).
    #[allow(missing_docs)]
    Unsolvable { goal: Goal },
    /// The search met its node limit before the end.
    #[allow(missing_docs)]
    NodeLimit { limit: u64 },
    /// The search could not run (the tables do not suit it).
    Search(SearchError),
    /// A table could not be built (the pattern is too large for the format).
    Build(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tables(e) => e.fmt(f),
            Error::Partition(e) => e.fmt(f),
            Error::WrongSize { board, tables } => write!(
                f,
                "the board is {board}x{board} but the tables are for {tables}x{tables} \
                 boards; open tables of the board's size"
            ),
            Error::Unsolvable { goal } => write!(
                f,
                "the board cannot reach the goal {goal} (its permutation parity and \
                 blank row say so); no solution exists"
            ),
            Error::NodeLimit { limit } => write!(
                f,
                "the search expanded {limit} nodes without finishing; raise the node limit"
            ),
            Error::Search(e) => e.fmt(f),
            Error::Build(e) => write!(f, "cannot build the table: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Tables(e) => Some(e),
            Error::Partition(e) => Some(e),
            Error::Search(e) => Some(e),
            _ => None,
        }
    }
}

impl From<OpenError> for Error {
    fn from(e: OpenError) -> Error {
        Error::Tables(e)
    }
}

impl From<PatternError> for Error {
    fn from(e: PatternError) -> Error {
        Error::Partition(e)
    }
}

/// Builds the tables of `partition` into `dir` (created if need be), as
/// `npuzzle pdb build` does without its progress display: packed files plus
/// their unpacked copies in `cache/`, each written under a temporary name
/// and renamed. Tables already there and intact are kept. Uses the current
/// rayon pool; the 7-8 tables of the 15-puzzle take about 45 s on 2
/// cores and 1.4 GB of memory, 5-5-5 or 6-6-3 a few seconds.
pub fn build_tables(dir: impl AsRef<Path>, partition: &Partition) -> Result<(), Error> {
    let dir = dir.as_ref();
    let io_error = |path: &Path, e: std::io::Error| {
        Error::Tables(OpenError::new(path, npuzzle_pdb::Problem::Io(e)))
    };
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    for pattern in partition.patterns() {
        let path = dir.join(file::file_name(pattern));
        if matches!(file::verify(&path), Ok(header) if header.pattern() == pattern) {
            continue;
        }
        let image = npuzzle_pdb::build_file(pattern, rayon::current_num_threads() as u32, |_| {})
            .map_err(|e| Error::Build(e.to_string()))?;
        file::save_packed(&path, &image, 19).map_err(|e| io_error(&path, e))?;
        let cache = file::cache_path(&path);
        file::save_raw(&cache, &image).map_err(|e| io_error(&cache, e))?;
    }
    Ok(())
}

/// The tables of one partition, opened from a directory.
pub struct Tables {
    set: TableSet<TableBytes>,
    partition: Partition,
    dir: PathBuf,
    notes: Vec<String>,
}

impl Tables {
    /// Opens the default tables of the 15-puzzle (partition 7-8, goal
    /// blank-last: `cargo xtask build-pdb` or `npuzzle pdb build`) in `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tables, Error> {
        let partition = Partition::parse(Partition::default_name(4), 4, Goal::BlankLast)?;
        Tables::open_partition(dir, &partition)
    }

    /// Opens the tables of `partition` in `dir`, checking each completely
    /// (header, and table CRC).
    pub fn open_partition(dir: impl AsRef<Path>, partition: &Partition) -> Result<Tables, Error> {
        let dir = dir.as_ref();
        let mut notes = Vec::new();
        let tables = file::open_partition_noting(dir, partition, &mut |note| notes.push(note))?;
        let set = TableSet::with_groups(tables, partition.groups()).map_err(|e| {
            let first = dir.join(file::file_name(&partition.patterns()[0]));
            Error::Tables(OpenError::new(&first, npuzzle_pdb::Problem::Pdb(e)))
        })?;
        Ok(Tables {
            set,
            partition: partition.clone(),
            dir: dir.to_path_buf(),
            notes,
        })
    }

    /// The heuristic value of `board`: the additive sum of the tables, maxed
    /// with the sum for the reflected board; a lower bound on its solution
    /// length, equal to what `npuzzle pdb lookup` prints last.
    pub fn heuristic(&self, board: &Board) -> Result<u32, Error> {
        self.lookup(board).map(|lookup| lookup.value)
    }

    /// Every figure of the lookup: each table's value and both sums.
    pub fn lookup(&self, board: &Board) -> Result<Lookup, Error> {
        self.check_size(board)?;
        self.set
            .lookup(board)
            .map_err(|e| Error::Tables(OpenError::new(&self.dir, npuzzle_pdb::Problem::Pdb(e))))
    }

    /// The partition the tables hold.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// The side of the boards the tables are for.
    pub fn size(&self) -> usize {
        self.set.size()
    }

    /// The goal the tables are built for.
    pub fn goal(&self) -> Goal {
        self.set.goal()
    }

    /// What happened to the unpacked copies on opening (a damaged one
    /// replaced, a cache directory that could not be written), one line each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    fn check_size(&self, board: &Board) -> Result<(), Error> {
        if board.size() != self.size() {
            return Err(Error::WrongSize {
                board: board.size(),
                tables: self.size(),
            });
        }
        Ok(())
    }
}

/// An optimal solution and the figures of its search.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Solution {
    /// The moves, named by the direction the tile moves ([`Notation::Tile`]).
    pub moves: Vec<Move>,
    /// Nodes whose children were generated.
    pub expanded: u64,
    /// Children generated (the figure the literature reports).
    pub generated: u64,
    /// The heuristic value of the start board.
    pub initial_estimate: u32,
    /// Time spent searching.
    pub elapsed: Duration,
}

impl Solution {
    /// The number of moves: the board's distance to the goal.
    pub fn length(&self) -> usize {
        self.moves.len()
    }

    /// The moves as letters `U D L R`, the tile's direction.
    pub fn moves_text(&self) -> String {
        Move::format_sequence(&self.moves, Notation::Tile)
    }
}

/// Solves boards optimally: IDA* over the additive tables, maxed with the
/// reflected lookup, with duplicate-move pruning.
pub struct Solver {
    tables: Tables,
    max_nodes: Option<u64>,
    reflect: bool,
}

impl Solver {
    /// A solver over the default 15-puzzle tables in `dir` (see [`Tables::open`]).
    pub fn open(dir: impl AsRef<Path>) -> Result<Solver, Error> {
        Solver::new(Tables::open(dir)?)
    }

    /// A solver over tables already open, checked to suit the search (at
    /// most four patterns of at most 16 tiles).
    pub fn new(tables: Tables) -> Result<Solver, Error> {
        let solver = Solver {
            tables,
            max_nodes: None,
            reflect: true,
        };
        solver.heuristic(&solver.grid())?;
        Ok(solver)
    }

    fn grid(&self) -> Grid {
        Grid::new(self.tables.size(), self.tables.goal())
    }

    /// Stops each search after `limit` expanded nodes ([`Error::NodeLimit`]).
    pub fn with_node_limit(mut self, limit: u64) -> Solver {
        self.max_nodes = Some(limit);
        self
    }

    /// Leaves the reflected lookup out (for comparisons: more nodes).
    pub fn without_reflection(mut self) -> Solver {
        self.reflect = false;
        self
    }

    /// The tables searched over.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// Solves one board, its search split across the threads of the current
    /// rayon pool (all cores by default).
    pub fn solve(&self, board: &Board) -> Result<Solution, Error> {
        self.solve_limited(board, self.max_nodes)
    }

    /// Solves one board as [`Solver::solve`] does, stopping after `max_nodes`
    /// expanded nodes (`None`: no limit) instead of the solver's limit.
    pub fn solve_limited(&self, board: &Board, max_nodes: Option<u64>) -> Result<Solution, Error> {
        let grid = self.grid();
        let heuristic = self.heuristic(&grid)?;
        self.solve_with(&grid, &heuristic, board, true, max_nodes)
    }

    /// Solves many boards, `jobs` at a time (each search on one thread; 0:
    /// one per core). Answers come back in the order of the boards.
    pub fn solve_many(&self, boards: &[Board], jobs: usize) -> Vec<Result<Solution, Error>> {
        use rayon::prelude::*;
        let grid = self.grid();
        let heuristic = match Additive::with_groups(
            &grid,
            self.tables.set.tables(),
            self.tables.set.groups(),
            self.reflect,
        ) {
            Ok(h) => h,
            Err(e) => {
                let error = || Err(Error::Search(SearchError::Tables(e.clone())));
                return boards.iter().map(|_| error()).collect();
            }
        };
        let run = || {
            boards
                .par_iter()
                .with_max_len(1)
                .map(|board| self.solve_with(&grid, &heuristic, board, false, self.max_nodes))
                .collect()
        };
        match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        }
    }

    fn heuristic<'a>(&'a self, grid: &Grid) -> Result<Additive<'a, TableBytes>, Error> {
        Additive::with_groups(
            grid,
            self.tables.set.tables(),
            self.tables.set.groups(),
            self.reflect,
        )
        .map_err(|e| Error::Search(SearchError::Tables(e)))
    }

    fn solve_with(
        &self,
        grid: &Grid,
        heuristic: &Additive<'_, TableBytes>,
        board: &Board,
        parallel: bool,
        max_nodes: Option<u64>,
    ) -> Result<Solution, Error> {
        self.tables.check_size(board)?;
        let goal = self.tables.goal();
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        let request = Request {
            goal,
            algorithm: Algorithm::IdaStar,
            heuristic: HeuristicKind::Pdb,
            max_nodes,
            parallel,
        };
        match npuzzle_search::solve_with(grid, heuristic, board, &request) {
            Ok(found) => Ok(Solution {
                moves: found.moves,
                expanded: found.stats.expanded,
                generated: found.stats.generated,
                initial_estimate: found.initial_estimate,
                elapsed: found.elapsed,
            }),
            Err(SearchError::NodeLimit { limit, .. }) => Err(Error::NodeLimit { limit }),
            Err(e) => Err(Error::Search(e)),
        }
    }
}

#[cfg(test)]
mod tests;

/// The README's Rust snippet, compiled as a doctest so it stays true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
