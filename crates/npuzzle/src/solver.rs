//! The engine: from a board and options to an answer. Which search a board
//! gets (tables for 4x4 and 5x5 when built, linear conflict with a node
//! budget and the reduction past it, the reduction alone past 15x15), the
//! tables per board side opened once and shared, one board split over
//! threads or many boards at once.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use npuzzle_board::{Board, Goal, Move, Notation};
use npuzzle_pdb::{Lookup, Partition};
use npuzzle_search::heuristic::{Heuristic, LinearConflict};
use npuzzle_search::{
    Algorithm, Capacity, Effort, Grid, HeuristicKind, Position, Request, SearchError, Stats,
    MAX_SEARCH_SIZE,
};

use crate::build::{check_threads, cores};
use crate::error::{Error, TablesError, TablesProblem};
use crate::pool::ForkSafePool;
use crate::stream::Answers;
use crate::tables::{tables_error, Tables};

/// Expanded nodes an optimal search may take on a board that has no tables
/// before it gives way to the reduction (a second or two on one core).
pub const OPTIMAL_ATTEMPT_NODES: u64 = 3_000_000;

/// The deepest frontier [`Solver::frontier`] makes (the local split
/// search's deepest): it holds up to about 3^depth boards.
pub const MAX_FRONTIER_DEPTH: u32 = 12;

/// The largest bound [`Solver::pass`] takes: the search keeps a row of
/// states per level down to the bound.
pub const MAX_PASS_BOUND: u32 = 1_000;

/// The largest `within` percentage a solver takes (at most 11 times optimal).
pub const MAX_WITHIN: u32 = 1000;

/// A solution and the figures of the search that found it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Solution {
    /// The moves, named by the direction the tile moves ([`Notation::Tile`]).
    pub moves: Vec<Move>,
    /// Whether no shorter solution exists.
    pub optimal: bool,
    /// The search that found it: `idastar`, `astar`, `bfs` or `reduction`.
    pub algorithm: &'static str,
    /// The estimate that guided it (`pdb`, `linear-conflict`...), if any.
    pub heuristic: Option<&'static str>,
    /// The tables' partition, for searches over tables.
    pub partition: Option<String>,
    /// Whether the reflected lookup was used, for searches over tables.
    pub reflection: Option<bool>,
    /// The search's counters (None: no search ran, as for the reduction).
    pub stats: Option<Stats>,
    /// The heuristic value of the start board.
    pub initial_estimate: Option<u32>,
    /// For solutions that are not optimal: a lower bound on the optimal length.
    pub lower_bound: Option<u64>,
    /// For solutions that are not optimal: the guarantee, in percent (at
    /// most `1 + within / 100` times optimal); None when there is none.
    pub within: Option<u32>,
    /// For solutions that are not optimal: why.
    pub note: Option<String>,
    /// Time spent on this board (opening the tables of its side, once, is
    /// not counted).
    pub elapsed: Duration,
}

impl Solution {
    /// The number of moves.
    pub fn length(&self) -> usize {
        self.moves.len()
    }

    /// The moves as letters `U D L R`, the tile's direction.
    pub fn moves_text(&self) -> String {
        Move::format_sequence(&self.moves, Notation::Tile)
    }

    /// Nodes whose children were generated (0 when no search ran).
    pub fn expanded(&self) -> u64 {
        self.stats.map_or(0, |s| s.expanded)
    }

    /// Children generated (the figure the literature reports; 0 when no
    /// search ran).
    pub fn generated(&self) -> u64 {
        self.stats.map_or(0, |s| s.generated)
    }

    /// A solution known to be optimal from an earlier search (a cache of
    /// answers), with no figures.
    pub fn known_optimal(moves: Vec<Move>) -> Solution {
        Solution::by("idastar", moves)
    }

    fn by(algorithm: &'static str, moves: Vec<Move>) -> Solution {
        Solution {
            moves,
            optimal: true,
            algorithm,
            heuristic: None,
            partition: None,
            reflection: None,
            stats: None,
            initial_estimate: None,
            lower_bound: None,
            within: None,
            note: None,
            elapsed: Duration::ZERO,
        }
    }
}

/// Something the solver tells on the way, once: front ends print it (the
/// command line on stderr) or collect it ([`Solver::take_notes`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Note {
    /// No tables for a side whose boards get them by default: its boards
    /// are solved with linear conflict, optimally within `attempt_nodes`
    /// expanded nodes, else by the reduction (not optimal).
    TablesMissing {
        /// Where the solver looked, and how to build them.
        error: TablesError,
        /// The attempt's budget.
        attempt_nodes: u64,
        /// The attempt's bound over optimal, in percent (`--within`; 0:
        /// the attempt is optimal).
        within: u32,
    },
    /// What happened to an unpacked table copy (a damaged one replaced, a
    /// cache directory that could not be written).
    Cache(String),
    /// The tables are being unpacked, the first time they are opened after
    /// a build: an open that takes a second or more (later ones map the
    /// unpacked copy at once). Information, not a warning.
    Unpacking {
        /// The partition.
        partition: String,
        /// Where the packed tables are.
        dir: std::path::PathBuf,
        /// The bytes to unpack.
        bytes: u64,
    },
    /// The side's default tables are not built but one other complete set
    /// is, and none was asked for: that set is used.
    TablesChosen {
        /// The partition used.
        partition: String,
        /// The default partition, missing.
        default: String,
        /// The board side.
        size: usize,
        /// Where the tables are.
        dir: std::path::PathBuf,
    },
}

impl Note {
    /// The note, with `tables` the rendering of a [`TablesError`] (a front
    /// end gives its own build command there).
    pub fn message_with(&self, tables: impl Fn(&TablesError) -> String) -> String {
        match self {
            Note::TablesMissing {
                error,
                attempt_nodes,
                within,
            } => format!(
                "{}\nmeanwhile {n}x{n} boards are solved with linear conflict, {how} \
                 within {attempt_nodes} nodes, else by reduction (not optimal{guarantee})",
                tables(error),
                n = error.size,
                how = if *within == 0 {
                    "optimally".to_string()
                } else {
                    format!("at most {within}% over optimal")
                },
                guarantee = if *within == 0 { "" } else { ", no guarantee" }
            ),
            Note::Cache(text) => text.clone(),
            Note::Unpacking {
                partition,
                dir,
                bytes,
            } => format!(
                "unpacking the {partition} tables in {} ({:.0} MB), once: later runs map \
                 the unpacked copy directly",
                npuzzle_pdb::file::normalize(dir).display(),
                *bytes as f64 / 1e6
            ),
            Note::TablesChosen {
                partition,
                default,
                size,
                dir,
            } => format!(
                "using the {partition} tables in {}: the only set built there for \
                 {size}x{size} (the default, {default}, is not built)",
                npuzzle_pdb::file::normalize(dir).display()
            ),
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_with(|e| e.to_string()))
    }
}

type NoteSink = Arc<dyn Fn(&Note) + Send + Sync>;

/// The options of a [`Solver`], the same as `npuzzle solve` takes.
#[derive(Clone)]
struct Config {
    pdb_dir: Option<PathBuf>,
    goal: Goal,
    partition: Option<String>,
    partition_size: Option<usize>,
    algorithm: Option<Algorithm>,
    heuristic: Option<HeuristicKind>,
    fast: bool,
    effort: Effort,
    within: u32,
    reflection: bool,
    max_nodes: Option<u64>,
    threads: usize,
    on_note: Option<NoteSink>,
}

/// Sets a [`Solver`] up; every option has the command line's default.
#[must_use]
pub struct SolverBuilder {
    config: Config,
    tables: Vec<Tables>,
    open_now: Vec<usize>,
}

impl SolverBuilder {
    /// The directory of the tables (default: `$NPUZZLE_PDB_DIR`, else
    /// `./data`, else the user data directory; see [`crate::search_dirs`]).
    pub fn pdb_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.pdb_dir = Some(dir.into());
        self
    }

    /// The goal (default: blank-last, `1 2 ... 0`).
    pub fn goal(mut self, goal: Goal) -> Self {
        self.config.goal = goal;
        self
    }

    /// The partition or catalogue of every side's tables (`7-8`, `septet`,
    /// `"1,2,3;4,5,6"`, `7z-8+L7-8`...). Tables asked for by name are
    /// required: a board whose side has them missing is refused, never
    /// solved another way.
    pub fn partition(mut self, name: impl Into<String>) -> Self {
        self.config.partition = Some(name.into());
        self.config.partition_size = None;
        self
    }

    /// The partition for boards of side `size` only; other sides get their
    /// default tables.
    pub fn partition_for(mut self, size: usize, name: impl Into<String>) -> Self {
        self.config.partition = Some(name.into());
        self.config.partition_size = Some(size);
        self
    }

    /// The search, run exactly as asked (to the end or the node limit, no
    /// fallback); default: the policy of [`Solver`].
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.config.algorithm = Some(algorithm);
        self
    }

    /// The heuristic, run exactly as asked (see [`SolverBuilder::algorithm`]).
    pub fn heuristic(mut self, heuristic: HeuristicKind) -> Self {
        self.config.heuristic = Some(heuristic);
        self
    }

    /// Solve fast but not optimally (the reduction), for any size.
    pub fn fast(mut self, fast: bool) -> Self {
        self.config.fast = fast;
        self
    }

    /// How hard the reduction (past optimal search) works at the parts it
    /// searches (default: [`Effort::Thorough`]; [`Effort::Quick`] for
    /// answers within tens of milliseconds, as a game's coach wants).
    pub fn reduction_effort(mut self, effort: Effort) -> Self {
        self.config.effort = effort;
        self
    }

    /// Accept solutions up to `percent` percent longer than optimal
    /// (0, the default: optimal only). The search is weighted IDA*, over
    /// the tables where they are built, and the bound is guaranteed: a
    /// solution is at most `1 + percent / 100` times the optimal length.
    /// Past the board sizes search can take, the reduction answers as
    /// before, with no guarantee. At most [`MAX_WITHIN`].
    pub fn within(mut self, percent: u32) -> Self {
        self.config.within = percent;
        self
    }

    /// Whether table searches also look the reflected board up (default:
    /// yes; without, more nodes).
    pub fn reflection(mut self, reflection: bool) -> Self {
        self.config.reflection = reflection;
        self
    }

    /// Give up after this many nodes: IDA* expanded nodes; BFS and A*
    /// boards kept (default: IDA* none, BFS and A* what fits in about 1 GB).
    /// `None` restores the default.
    pub fn max_nodes(mut self, limit: Option<u64>) -> Self {
        self.config.max_nodes = limit;
        self
    }

    /// Threads: boards solved at once by [`Solver::solve_many`] and
    /// [`Solver::answers`], or the threads sharing one board's search in
    /// [`Solver::solve`] (default: one per core; 1 to 256).
    pub fn threads(mut self, threads: usize) -> Self {
        self.config.threads = threads;
        self
    }

    /// Called once for each [`Note`] (they are also kept for
    /// [`Solver::take_notes`]).
    pub fn on_note(mut self, sink: impl Fn(&Note) + Send + Sync + 'static) -> Self {
        self.config.on_note = Some(Arc::new(sink));
        self
    }

    /// Opens the tables of boards of side `size` in [`SolverBuilder::build`]
    /// and fails there if they are missing or damaged, instead of at the
    /// first board.
    pub fn open_tables_now(mut self, size: usize) -> Self {
        self.open_now.push(size);
        self
    }

    /// Tables already open, for boards of their side (their partition
    /// counts as asked for).
    pub fn tables(mut self, tables: Tables) -> Self {
        self.tables.push(tables);
        self
    }

    /// The solver, with the options checked (thread count, partition name
    /// for the side it names).
    pub fn build(self) -> Result<Solver, Error> {
        let SolverBuilder {
            config,
            tables,
            open_now,
        } = self;
        check_threads("threads", config.threads)?;
        if config.within > MAX_WITHIN {
            return Err(Error::InvalidArgument(format!(
                "within {} is out of range: give 0 (optimal) to {MAX_WITHIN} percent",
                config.within
            )));
        }
        if let (Some(name), Some(size)) = (&config.partition, config.partition_size) {
            Partition::parse(name, size, config.goal)?;
        }
        let solver = Solver {
            config: Arc::new(config),
            shared: Arc::new(Shared::default()),
            pool: Arc::new(ForkSafePool::new()),
        };
        for tables in tables {
            if tables.goal() != solver.config.goal {
                return Err(Error::InvalidArgument(format!(
                    "the tables are for goal {}, the solver for goal {}",
                    tables.goal(),
                    solver.config.goal
                )));
            }
            let mut sides = solver.shared.lock_tables();
            sides.insert(
                tables.size(),
                Side {
                    tables: Ok(Arc::new(tables)),
                    asked_for: true,
                },
            );
        }
        for size in open_now {
            solver.tables(size)?;
        }
        Ok(solver)
    }
}

/// One board side's tables, opened once.
struct Side {
    tables: Result<Arc<Tables>, Error>,
    /// The tables were named (a partition, or given open): missing ones
    /// refuse the board instead of giving way.
    asked_for: bool,
}

/// What clones of a solver share.
#[derive(Default)]
struct Shared {
    sides: Mutex<HashMap<usize, Side>>,
    notes: Mutex<Vec<Note>>,
    /// Sides whose missing tables were told.
    notes_said: Mutex<HashSet<usize>>,
}

impl Shared {
    fn lock_tables(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Side>> {
        self.sides.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How a board is to be solved.
enum Plan {
    /// An optimal search, with a node budget after which the reduction
    /// takes over (None: it runs to the end or to the node limit).
    Search {
        algorithm: Algorithm,
        heuristic: HeuristicKind,
        fallback_after: Option<u64>,
    },
    Reduce {
        why: String,
    },
}

/// Solves boards of every size from 2x2 to 127x127 with the command line's
/// policy:
///
/// | board | search |
/// | --- | --- |
/// | 2x2, 3x3 | IDA* with linear conflict (optimal, instant) |
/// | 4x4, 5x5 | IDA* over the tables when built (optimal); else as below, with a [`Note`] |
/// | up to 15x15 | IDA* with linear conflict for up to [`OPTIMAL_ATTEMPT_NODES`] expanded nodes (or the node limit), optimal; past that the reduction, not optimal |
/// | 16x16 and more | the reduction, not optimal |
///
/// Tables asked for by name, or damaged ones, are never replaced silently:
/// the board is refused with [`Error::Tables`]. An explicit algorithm or
/// heuristic runs exactly as asked. Each side's tables are opened the first
/// time a board needs them and shared by the solver's clones and threads.
///
/// ```no_run
/// use npuzzle::{parse_board, Solver};
///
/// let solver = Solver::builder().pdb_dir("data").build()?;
/// let board = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")?;
/// let solution = solver.solve(&board)?;
/// assert!(solution.optimal);
/// println!("{} moves: {}", solution.length(), solution.moves_text());
/// # Ok::<(), npuzzle::Error>(())
/// ```
#[derive(Clone)]
pub struct Solver {
    config: Arc<Config>,
    shared: Arc<Shared>,
    /// Started at the first board split over threads, and again in a
    /// child of `fork`.
    pool: Arc<ForkSafePool>,
}

impl Solver {
    /// A solver to set up; [`SolverBuilder::build`] makes it.
    pub fn builder() -> SolverBuilder {
        SolverBuilder {
            config: Config {
                pdb_dir: None,
                goal: Goal::BlankLast,
                partition: None,
                partition_size: None,
                algorithm: None,
                heuristic: None,
                fast: false,
                effort: Effort::Thorough,
                within: 0,
                reflection: true,
                max_nodes: None,
                threads: cores().min(crate::build::MAX_THREADS),
                on_note: None,
            },
            tables: Vec::new(),
            open_now: Vec::new(),
        }
    }

    /// A solver whose 4x4 boards are searched over the default 15-puzzle
    /// tables in `dir` (7-8, goal blank-last), opened now: fails at once if
    /// they are missing or damaged.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Solver, Error> {
        Solver::builder()
            .pdb_dir(dir)
            .partition_for(4, Partition::default_name(4))
            .open_tables_now(4)
            .build()
    }

    /// A solver over tables already open (for boards of their side; other
    /// sides as [`Solver::builder`]'s defaults).
    pub fn new(tables: Tables) -> Result<Solver, Error> {
        let goal = tables.goal();
        Solver::builder().goal(goal).tables(tables).build()
    }

    /// The same solver (options, open tables, notes) with another thread count.
    pub fn with_threads(&self, threads: usize) -> Result<Solver, Error> {
        check_threads("threads", threads)?;
        if threads == self.config.threads {
            return Ok(self.clone());
        }
        Ok(Solver {
            config: Arc::new(Config {
                threads,
                ..(*self.config).clone()
            }),
            shared: Arc::clone(&self.shared),
            pool: Arc::new(ForkSafePool::new()),
        })
    }

    /// The goal boards are solved for.
    pub fn goal(&self) -> Goal {
        self.config.goal
    }

    /// The thread count.
    pub fn threads(&self) -> usize {
        self.config.threads
    }

    /// The node limit of each search, if any.
    pub fn max_nodes(&self) -> Option<u64> {
        self.config.max_nodes
    }

    /// Solves one board, its search split across the solver's threads.
    pub fn solve(&self, board: &Board) -> Result<Solution, Error> {
        self.solve_limited(board, self.config.max_nodes)
    }

    /// [`Solver::solve`] with another node limit (`None`: none).
    pub fn solve_limited(&self, board: &Board, max_nodes: Option<u64>) -> Result<Solution, Error> {
        self.solve_split(board, max_nodes, None)
    }

    /// [`Solver::solve_limited`] that another thread can stop: the search
    /// ends within milliseconds of `stop` being set, with [`Error::Stopped`].
    pub fn solve_until(
        &self,
        board: &Board,
        max_nodes: Option<u64>,
        stop: &Arc<AtomicBool>,
    ) -> Result<Solution, Error> {
        self.solve_split(board, max_nodes, Some(Arc::clone(stop)))
    }

    fn solve_split(
        &self,
        board: &Board,
        max_nodes: Option<u64>,
        stop: Option<Arc<AtomicBool>>,
    ) -> Result<Solution, Error> {
        // One thread: the split search on this thread, for the same moves
        // as with more.
        if self.config.threads <= 1 {
            return guard(|| self.answer(board, true, max_nodes, stop, None));
        }
        match self.pool() {
            Ok(pool) => pool.install(|| guard(|| self.answer(board, true, max_nodes, stop, None))),
            Err(e) => Err(Error::InvalidArgument(e)),
        }
    }

    /// Solves one board on the calling thread (or the rayon pool it runs
    /// in, unsplit), with its own node limit: for servers and batch runners
    /// that have their own threads.
    pub fn solve_here(&self, board: &Board, max_nodes: Option<u64>) -> Result<Solution, Error> {
        guard(|| self.answer(board, false, max_nodes, None, None))
    }

    /// [`Solver::solve_here`] that another thread can stop (see
    /// [`Solver::solve_until`]).
    pub fn solve_here_until(
        &self,
        board: &Board,
        max_nodes: Option<u64>,
        stop: &Arc<AtomicBool>,
    ) -> Result<Solution, Error> {
        guard(|| self.answer(board, false, max_nodes, Some(Arc::clone(stop)), None))
    }

    /// [`Solver::solve_here_until`] for a batch's thread: the search takes
    /// on the batch's threads that `spare` counts (those with no board left)
    /// as they come free.
    pub(crate) fn solve_in_batch(
        &self,
        board: &Board,
        max_nodes: Option<u64>,
        stop: &Arc<AtomicBool>,
        spare: &Arc<AtomicUsize>,
    ) -> Result<Solution, Error> {
        guard(|| {
            self.answer(
                board,
                false,
                max_nodes,
                Some(Arc::clone(stop)),
                Some(Arc::clone(spare)),
            )
        })
    }

    /// Solves many boards, the solver's thread count at a time (each search
    /// on one thread, joined by the threads that have no board left once
    /// every board is taken); answers in the order of the boards.
    pub fn solve_many(&self, boards: &[Board]) -> Vec<Result<Solution, Error>> {
        fn itself(board: &Board) -> Option<&Board> {
            Some(board)
        }
        self.answers(boards.to_vec(), itself)
            .map(|answered| answered.result.expect("every item is a board"))
            .collect()
    }

    /// Solves a stream of items as they come, the solver's thread count at
    /// a time, and yields each with its answer in input order as soon as it
    /// and those before it are done. `board_of` picks an item's board (items
    /// without one are passed through with `None`, in order). Memory stays
    /// bounded: a reader thread takes at most a few items per thread beyond
    /// the last one yielded. Dropping the iterator stops the work after the
    /// boards being solved.
    pub fn answers<T, I>(&self, items: I, board_of: fn(&T) -> Option<&Board>) -> Answers<T>
    where
        T: Send + 'static,
        I: IntoIterator<Item = T>,
        I::IntoIter: Send + 'static,
    {
        Answers::start(self.clone(), items.into_iter(), board_of)
    }

    /// The tables for boards of side `size`, opened the first time: those
    /// of the partition asked for, else the side's default.
    pub fn tables(&self, size: usize) -> Result<Arc<Tables>, Error> {
        let mut sides = self.shared.lock_tables();
        let side = sides.entry(size).or_insert_with(|| self.open_side(size));
        side.tables.clone()
    }

    /// The tables for boards of side `size` if they have been opened (by a
    /// board of that side, or asked for up front), without opening them.
    pub fn opened_tables(&self, size: usize) -> Option<Arc<Tables>> {
        match self
            .shared
            .lock_tables()
            .get(&size)
            .map(|s| s.tables.clone())
        {
            Some(Ok(tables)) => Some(tables),
            _ => None,
        }
    }

    /// The subtrees one IDA* iteration over the side's tables splits into
    /// at `depth` below `board` (None: where the local split search cuts
    /// a board of its side, [`npuzzle_search::split_depth`]), for `bound`
    /// (None: the board's estimate): the units of a search spread over
    /// machines (see [`Solver::pass`]).
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
        let goal = self.config.goal;
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        let tables = self.tables(board.size())?;
        npuzzle_search::frontier_catalogue(
            board,
            goal,
            tables.tables(),
            tables.partition().groups(),
            self.config.reflection,
            depth,
            bound,
        )
        .map_err(Error::Search)
    }

    /// One pass of IDA* over the side's tables, bounded by `bound`, below
    /// the node `prefix` leads to from `board` (a node of
    /// [`Solver::frontier`]), within `max_nodes` expanded nodes; setting
    /// `stop` ends it within milliseconds (`stopped` in the outcome).
    pub fn pass(
        &self,
        board: &Board,
        prefix: &[Move],
        bound: u32,
        max_nodes: Option<u64>,
        stop: Option<Arc<AtomicBool>>,
    ) -> Result<npuzzle_search::PassOutcome, Error> {
        if bound > MAX_PASS_BOUND {
            return Err(Error::InvalidArgument(format!(
                "bound {bound} is out of range: give at most {MAX_PASS_BOUND} (longer than any \
                 solution a search over tables finds)"
            )));
        }
        let goal = self.config.goal;
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        let tables = self.tables(board.size())?;
        let request = Request {
            goal,
            max_nodes,
            stop,
            ..Request::default()
        };
        let outcome = npuzzle_search::pass_catalogue(
            board,
            &request,
            tables.tables(),
            tables.partition().groups(),
            self.config.reflection,
            prefix,
            bound,
        )
        .map_err(|e| match e {
            SearchError::NodeLimit { limit, .. } => Error::NodeLimit { limit },
            e => Error::Search(e),
        })?;
        if let Some(moves) = &outcome.moves {
            let whole: Vec<Move> = prefix.iter().chain(moves).copied().collect();
            tables.certify(board, &whole)?;
        }
        Ok(outcome)
    }

    /// The best lower bound on the board's distance available without a
    /// search: the tables' value when the side's tables are open and fit,
    /// else linear conflict (boards up to 15x15), else Manhattan.
    pub fn lower_bound(&self, board: &Board) -> u64 {
        let goal = self.config.goal;
        let size = board.size();
        let mut bound = if size <= MAX_SEARCH_SIZE {
            let heuristic = LinearConflict::new(&Grid::new(size, goal));
            u64::from(heuristic.value(&heuristic.init(&Position::new(board))))
        } else {
            board.manhattan(goal)
        };
        let opened = self
            .shared
            .lock_tables()
            .get(&size)
            .map(|s| s.tables.clone());
        if let Some(Ok(tables)) = opened {
            if let Ok(value) = tables.heuristic(board) {
                bound = bound.max(u64::from(value));
            }
        }
        bound
    }

    /// Each table's value for the board and their sums, over the side's tables.
    pub fn lookup(&self, board: &Board) -> Result<Lookup, Error> {
        self.tables(board.size())?.lookup(board)
    }

    /// The notes told since the last call, oldest first.
    pub fn take_notes(&self) -> Vec<Note> {
        std::mem::take(&mut *self.shared.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn note(&self, note: Note) {
        if let Some(sink) = &self.config.on_note {
            sink(&note);
        }
        self.shared
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(note);
    }

    fn pool(&self) -> Result<Arc<rayon::ThreadPool>, String> {
        self.pool.get(self.config.threads)
    }

    /// The partition asked for boards of side `size`, if any.
    fn partition_for(&self, size: usize) -> Option<&str> {
        match self.config.partition_size {
            Some(side) if side != size => None,
            _ => self.config.partition.as_deref(),
        }
    }

    fn open_side(&self, size: usize) -> Side {
        let asked_for = self.partition_for(size).is_some();
        let name = self
            .partition_for(size)
            .unwrap_or_else(|| Partition::default_name(size));
        let tables = Partition::parse(name, size, self.config.goal)
            .map_err(Error::from)
            .and_then(|partition| {
                let distinct = partition.distinct_patterns().len();
                if let Err(e) = Capacity::for_counts(distinct, partition.groups().len()) {
                    let dir = self.config.pdb_dir.clone().unwrap_or_default();
                    return Err(tables_error(
                        &partition,
                        &dir,
                        TablesProblem::Unusable(e.to_string()),
                    ));
                }
                let mut note = |text| self.note(Note::Cache(text));
                let mut unpacking = |dir: &std::path::Path, bytes| {
                    self.note(Note::Unpacking {
                        partition: partition.name().to_string(),
                        dir: dir.to_path_buf(),
                        bytes,
                    })
                };
                let dir = self.config.pdb_dir.as_deref();
                match Tables::find_telling(dir, &partition, &mut note, &mut unpacking) {
                    Err(Error::Tables(e)) if !asked_for => self.only_other_set(e, &mut note),
                    found => found,
                }
            })
            .map(Arc::new);
        Side { tables, asked_for }
    }

    /// With the default tables missing, the one other complete set built
    /// for the side (with a note saying so); else the error as it was.
    fn only_other_set(
        &self,
        error: TablesError,
        note: &mut dyn FnMut(String),
    ) -> Result<Tables, Error> {
        let TablesProblem::Missing { built, .. } = &error.problem else {
            return Err(Error::Tables(error));
        };
        let mut names: Vec<&str> = built.iter().map(|(name, _)| name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let ([name], Some((_, dir))) = (&names[..], built.first()) else {
            return Err(Error::Tables(error));
        };
        let partition = Partition::parse(name, error.size, error.goal)?;
        let bytes = Tables::bytes_to_unpack(dir, &partition);
        if bytes > 0 {
            self.note(Note::Unpacking {
                partition: partition.name().to_string(),
                dir: dir.clone(),
                bytes,
            });
        }
        let tables = Tables::open_partition(dir, &partition)?;
        for text in tables.notes() {
            note(text.clone());
        }
        self.note(Note::TablesChosen {
            partition: name.to_string(),
            default: error.partition.clone(),
            size: error.size,
            dir: dir.clone(),
        });
        Ok(tables)
    }

    /// Tables are the default for these sides, when built.
    fn tables_by_default(size: usize) -> bool {
        size == 4 || size == 5
    }

    /// Whether the caller chose the search (then it runs exactly as asked).
    fn explicit(&self) -> bool {
        self.config.algorithm.is_some() || self.config.heuristic.is_some()
    }

    fn plan(&self, size: usize, max_nodes: Option<u64>) -> Plan {
        if self.config.fast {
            return Plan::Reduce {
                why: "fast solving asked for".to_string(),
            };
        }
        if self.explicit() {
            let default_heuristic = if Self::tables_by_default(size) {
                HeuristicKind::Pdb
            } else {
                HeuristicKind::LinearConflict
            };
            return Plan::Search {
                algorithm: self.config.algorithm.unwrap_or(Algorithm::IdaStar),
                heuristic: self.config.heuristic.unwrap_or(default_heuristic),
                fallback_after: None,
            };
        }
        if size > MAX_SEARCH_SIZE {
            return Plan::Reduce {
                why: format!(
                    "optimal search takes boards up to {MAX_SEARCH_SIZE}x{MAX_SEARCH_SIZE}"
                ),
            };
        }
        // Tables missing and none asked for: go on without them. Damaged
        // tables, or tables asked for, are never replaced silently.
        if Self::tables_by_default(size) {
            let missing = match self.tables(size) {
                Err(Error::Tables(e)) if e.is_missing() && !self.asked_for(size) => Some(e),
                _ => None,
            };
            match missing {
                Some(error) => self.note_missing_once(size, error, max_nodes),
                None => {
                    return Plan::Search {
                        algorithm: Algorithm::IdaStar,
                        heuristic: HeuristicKind::Pdb,
                        fallback_after: None,
                    }
                }
            }
        }
        Plan::Search {
            algorithm: Algorithm::IdaStar,
            heuristic: HeuristicKind::LinearConflict,
            fallback_after: (size >= 4).then_some(max_nodes.unwrap_or(OPTIMAL_ATTEMPT_NODES)),
        }
    }

    fn asked_for(&self, size: usize) -> bool {
        self.shared
            .lock_tables()
            .get(&size)
            .is_some_and(|side| side.asked_for)
    }

    /// Tells once per board side that its tables are missing, and what
    /// happens instead.
    fn note_missing_once(&self, size: usize, error: TablesError, max_nodes: Option<u64>) {
        let noted = self
            .shared
            .notes_said
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(size);
        if noted {
            self.note(Note::TablesMissing {
                error,
                attempt_nodes: max_nodes.unwrap_or(OPTIMAL_ATTEMPT_NODES),
                within: self.config.within,
            });
        }
    }

    fn answer(
        &self,
        board: &Board,
        parallel: bool,
        max_nodes: Option<u64>,
        stop: Option<Arc<AtomicBool>>,
        spare_threads: Option<Arc<AtomicUsize>>,
    ) -> Result<Solution, Error> {
        let goal = self.config.goal;
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        // Opening a side's tables (the first board of that side) is not
        // this board's time.
        let plan = self.plan(board.size(), max_nodes);
        let started = Instant::now();
        let (algorithm, heuristic, fallback_after) = match plan {
            Plan::Reduce { why } => return self.reduce(board, why, started, stop.as_ref()),
            Plan::Search {
                algorithm,
                heuristic,
                fallback_after,
            } => (algorithm, heuristic, fallback_after),
        };
        let request = Request {
            goal,
            algorithm,
            heuristic,
            max_nodes: fallback_after.or(max_nodes),
            parallel,
            stop: stop.clone(),
            within: self.config.within,
            spare_threads,
            strategy: None,
        };
        let mut solution = Solution {
            heuristic: (algorithm != Algorithm::Bfs).then(|| heuristic.name()),
            ..Solution::by(algorithm.name(), Vec::new())
        };
        let tables = if heuristic == HeuristicKind::Pdb && algorithm != Algorithm::Bfs {
            let tables = self.tables(board.size())?;
            solution.partition = Some(tables.partition().name().to_string());
            solution.reflection = Some(self.config.reflection);
            Some(tables)
        } else {
            None
        };
        let search = |request: &Request| match &tables {
            Some(tables) => npuzzle_search::solve_catalogue(
                board,
                request,
                tables.tables(),
                tables.partition().groups(),
                self.config.reflection,
            ),
            None => npuzzle_search::solve(board, request),
        };
        let result = if request.within > 0 && request.max_nodes.is_some() {
            weighted_ladder(&search, &request)
        } else {
            search(&request).map(|found| (found, request.within))
        };
        if let (Ok((found, _)), Some(tables)) = (&result, &tables) {
            tables.certify(board, &found.moves)?;
        }
        match result {
            Ok((found, within)) if within > 0 => {
                // The search's own estimate is a lower bound; a solution
                // that long is optimal after all.
                let estimate = u64::from(found.initial_estimate).max(self.lower_bound(board));
                // Every solution of a board has the same parity.
                let lower_bound = estimate + ((found.moves.len() as u64 + estimate) & 1);
                let optimal = found.moves.len() as u64 == lower_bound;
                let note = if within > request.within {
                    format!(
                        "within {}% of optimal asked for; the node budget ran out first, \
                         so this answer is within {within}%",
                        request.within
                    )
                } else {
                    format!("within {within}% of optimal asked for")
                };
                Ok(Solution {
                    optimal,
                    within: (!optimal).then_some(within),
                    lower_bound: (!optimal).then_some(lower_bound),
                    note: (!optimal).then_some(note),
                    moves: found.moves,
                    stats: Some(found.stats),
                    initial_estimate: Some(found.initial_estimate),
                    elapsed: started.elapsed(),
                    ..solution
                })
            }
            Ok((found, _)) => Ok(Solution {
                moves: found.moves,
                stats: Some(found.stats),
                initial_estimate: Some(found.initial_estimate),
                elapsed: started.elapsed(),
                ..solution
            }),
            Err(SearchError::NodeLimit { limit, .. }) if fallback_after.is_some() => self.reduce(
                board,
                format!("optimal search gave up after {limit} nodes"),
                started,
                stop.as_ref(),
            ),
            Err(SearchError::Unsolvable) => Err(Error::Unsolvable { goal }),
            Err(SearchError::Stopped) => Err(Error::Stopped),
            Err(SearchError::NodeLimit {
                algorithm: Algorithm::IdaStar,
                limit,
            }) => Err(Error::NodeLimit { limit }),
            Err(SearchError::Tables(e)) => {
                let tables = self.tables(board.size())?;
                Err(tables_error(
                    tables.partition(),
                    tables.dir(),
                    TablesProblem::Unusable(e.to_string()),
                ))
            }
            Err(e) => Err(Error::Search(e)),
        }
    }

    fn reduce(
        &self,
        board: &Board,
        why: String,
        started: Instant,
        stop: Option<&Arc<AtomicBool>>,
    ) -> Result<Solution, Error> {
        let moves = npuzzle_search::solve_by_reduction_until(
            board,
            self.config.goal,
            self.config.effort,
            stop,
        )
        .map_err(|e| match e {
            SearchError::Stopped => Error::Stopped,
            e => Error::Search(e),
        })?;
        Ok(Solution {
            optimal: false,
            lower_bound: Some(self.lower_bound(board)),
            note: Some(why),
            elapsed: started.elapsed(),
            ..Solution::by("reduction", moves)
        })
    }
}

/// Weighted search from coarse to the bound asked for, within one node
/// budget: each stage is cheap next to the next, so when the budget runs
/// out the answer of the last stage that finished stands, with its own
/// guarantee, instead of none. Stops early at a solution whose length
/// meets the search's lower bound.
fn weighted_ladder(
    search: &dyn Fn(&Request) -> Result<npuzzle_search::Solution, SearchError>,
    request: &Request,
) -> Result<(npuzzle_search::Solution, u32), SearchError> {
    const STAGES: [u32; 11] = [100, 50, 35, 30, 25, 20, 15, 10, 7, 5, 2];
    let budget = request.max_nodes.unwrap_or(u64::MAX);
    let mut stats = Stats::default();
    let mut best: Option<(npuzzle_search::Solution, u32)> = None;
    let stages = STAGES
        .into_iter()
        .filter(|&w| w > request.within)
        .chain([request.within]);
    for within in stages {
        let stage = Request {
            within,
            max_nodes: Some(budget.saturating_sub(stats.expanded).max(1)),
            ..request.clone()
        };
        match search(&stage) {
            Ok(found) => {
                stats += found.stats;
                let length = found.moves.len() as u64;
                let estimate = u64::from(found.initial_estimate);
                let done = length <= estimate + ((length + estimate) & 1);
                best = Some((npuzzle_search::Solution { stats, ..found }, within));
                if done {
                    break;
                }
            }
            Err(SearchError::NodeLimit { .. }) if best.is_some() => {
                // The stage that ran out spent the rest of the budget.
                if let Some((found, _)) = &mut best {
                    found.stats.expanded = budget;
                }
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(best.expect("the last stage answered or returned"))
}

/// Runs `body`, turning a panic into [`Error::Internal`].
pub(crate) fn guard(body: impl FnOnce() -> Result<Solution, Error>) -> Result<Solution, Error> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(Error::Internal(what))
    })
}
