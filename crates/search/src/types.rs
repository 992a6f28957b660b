//! The vocabulary every search shares: what to run, what it counted, what
//! it found and why it found nothing. At the bottom of the crate, so the
//! searches depend on it and not on each other.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use npuzzle_board::clock::Instant;
use npuzzle_board::{Goal, Move};

use crate::additive::AdditiveError;
use crate::grid::MAX_SEARCH_SIZE;
use crate::progress::{Progress, ProgressMismatch};

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

impl std::str::FromStr for Algorithm {
    type Err = npuzzle_board::UnknownName;

    fn from_str(name: &str) -> Result<Algorithm, Self::Err> {
        npuzzle_board::parse_name("algorithm", name, &Algorithm::ALL, Algorithm::name)
    }
}

impl Algorithm {
    /// Every algorithm, the default first.
    pub const ALL: [Algorithm; 3] = [Algorithm::IdaStar, Algorithm::AStar, Algorithm::Bfs];

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

impl std::str::FromStr for HeuristicKind {
    type Err = npuzzle_board::UnknownName;

    fn from_str(name: &str) -> Result<HeuristicKind, Self::Err> {
        npuzzle_board::parse_name("heuristic", name, &HeuristicKind::ALL, HeuristicKind::name)
    }
}

impl HeuristicKind {
    /// Every heuristic, strongest first.
    pub const ALL: [HeuristicKind; 4] = [
        HeuristicKind::Pdb,
        HeuristicKind::LinearConflict,
        HeuristicKind::Manhattan,
        HeuristicKind::Hamming,
    ];

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
    /// Of `expanded`, the nodes A*+IDA*'s best-first phase expanded
    /// ([`Request::memory`]); 0 for the other searches.
    pub best_first: u64,
    /// The heuristic strategy that ran ([`crate::heuristic::Heuristic::name`]):
    /// which of the estimates, or which way of reading the tables.
    pub strategy: &'static str,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.expanded += other.expanded;
        self.generated += other.generated;
        self.iterations = self.iterations.max(other.iterations);
        self.best_first += other.best_first;
        if self.strategy.is_empty() {
            self.strategy = other.strategy;
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Request {
    /// The goal to reach.
    pub goal: Goal,
    /// The search to run.
    pub algorithm: Algorithm,
    /// The estimate guiding A* and IDA*.
    pub heuristic: HeuristicKind,
    /// BFS and A*: most boards kept in memory; IDA*: most nodes expanded.
    pub max_nodes: Option<u64>,
    /// IDA*: search the subtrees each iteration splits into across the
    /// current rayon pool (or on this thread outside one). Without it, on
    /// this thread alone, as a batch does with one board per thread. The
    /// subtrees go most promising first either way, so the moves are the
    /// same for any number of threads.
    pub parallel: bool,
    /// Set from another thread to stop the search: it ends within a few
    /// milliseconds with [`Incomplete::Stopped`].
    pub stop: Option<Arc<AtomicBool>>,
    /// A wall-clock budget: searches that have no answer yet end with
    /// [`Incomplete::TimeLimit`]; the beam answers from the board nearest
    /// the goal it reached by then (the reduction finishing from there
    /// does not watch the clock).
    pub deadline: Option<Deadline>,
    /// 0: optimal. Otherwise the solution may be up to `within` percent
    /// longer than optimal (weighted search: IDA* or A* over
    /// `(1 + within / 100) * h`), and is usually found far sooner.
    pub within: u32,
    /// IDA* on one thread: threads of the caller's that have nothing
    /// left to do (a batch's, once every board is taken). The search takes
    /// them on between subtrees to search its iteration alongside, and gives
    /// them back when the iteration ends.
    pub spare_threads: Option<Arc<AtomicUsize>>,
    /// IDA*: the bytes A*+IDA* may keep positions in. A best-first
    /// phase with duplicate detection expands the positions nearest the
    /// root once each, until this much is used, then IDA* searches below
    /// each position it left open, by increasing f, then h. None: plain
    /// IDA*. Boards up to 5x5. Without the `hybrid` feature (the
    /// WebAssembly engine) it is not read.
    pub memory: Option<u64>,
    /// Tables only: max each partition sum with the same sum over the
    /// board reflected about its main diagonal (a second admissible
    /// estimate from the same tables). On by default.
    pub reflect: bool,
    /// Beam search: outcomes of frame-weighted beams that always run
    /// ([`crate::beam_attempt`]), found elsewhere for this board, width and
    /// limit, so that hosts without threads (WebAssembly workers) run them
    /// side by side. One that does not replay is run again here.
    pub beam_outcomes: Vec<BeamOutcome>,
    /// IDA* over plain (not A*+IDA*) search: where an earlier run of this
    /// board's search left off, and where this one stands, kept up to date
    /// as its subtrees end, to go on from in a later run (see
    /// [`Progress`]). An empty one starts afresh.
    pub progress: Option<Arc<Mutex<Progress>>>,
}

/// The end of a wall-clock budget, looked at every few thousand nodes.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    from: Instant,
    /// Of the budget, spent before `from` (on this answer, elsewhere).
    spent: Duration,
    budget: Duration,
}

impl Deadline {
    /// `budget` from now.
    pub fn after(budget: Duration) -> Deadline {
        Deadline::partly_spent(budget, Duration::ZERO)
    }

    /// What is left of `budget` once `spent` of it went on this answer
    /// elsewhere (a host that ran some of its beams in other workers);
    /// messages name the whole budget.
    pub fn partly_spent(budget: Duration, spent: Duration) -> Deadline {
        Deadline {
            from: Instant::now(),
            spent,
            budget,
        }
    }

    /// Whether the budget is spent.
    pub fn passed(&self) -> bool {
        self.spent + self.from.elapsed() >= self.budget
    }

    /// The whole budget.
    pub fn budget(&self) -> Duration {
        self.budget
    }

    /// What is left of the budget (zero once it has passed).
    pub fn remaining(&self) -> Duration {
        self.budget.saturating_sub(self.spent + self.from.elapsed())
    }

    /// This deadline moved `grace` later: how long the work that finishes
    /// an answer cut short by it may run on.
    pub fn extended(self, grace: Duration) -> Deadline {
        Deadline {
            budget: self.budget + grace,
            ..self
        }
    }
}

/// What one frame-weighted beam found: see [`Request::beam_outcomes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeamOutcome {
    /// Which beam, as [`beam_schedule`](crate::beam_schedule) numbers them.
    pub attempt: usize,
    /// How it ended.
    pub ending: BeamEnding,
    /// To the goal when solved; when stalled, to the board nearest the
    /// goal the beam reached; else none.
    pub moves: Vec<Move>,
    /// Boards expanded.
    pub expanded: u64,
    /// Boards generated.
    pub generated: u64,
}

/// A frame-weighted beam of a board's solve that may run elsewhere:
/// see [`beam_schedule`](crate::beam_schedule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduledBeam {
    /// Its number, as [`beam_attempt`](crate::beam_attempt) takes it.
    pub attempt: usize,
    /// Whether the solve always runs it; else only when every beam
    /// before it stalled.
    pub always: bool,
}

/// How a beam of [`BeamOutcome`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeamEnding {
    /// It reached the goal.
    Solved,
    /// It stopped getting nearer the goal.
    Stalled,
    /// It died out, ran out of nodes, or was stopped.
    Ended,
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
/// the limit never falls just past a doubling.
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
            stop: None,
            deadline: None,
            within: 0,
            spare_threads: None,
            memory: None,
            reflect: true,
            beam_outcomes: Vec::new(),
            progress: None,
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

/// Why no solution came back: the input could not be searched, or the
/// search ran and stopped short.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchError {
    /// The board, or the tables given, cannot be searched: nothing ran.
    Input(InputError),
    /// The search ran and ended without an answer.
    Incomplete(Incomplete),
}

/// Why a board cannot be searched as asked: found before any search runs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum InputError {
    /// The parity rule says the goal cannot be reached.
    Unsolvable,
    /// Optimal search of boards this large is out of reach.
    TooLarge { size: usize },
    /// The PDB heuristic was asked for without tables.
    NoTables,
    /// The tables given cannot make an admissible heuristic for this board.
    Tables(AdditiveError),
    /// The progress given cannot go on in this search (or this search
    /// keeps none: A*+IDA*, BFS, A*, weighted search).
    Progress(ProgressMismatch),
}

/// Why a search that ran ended without an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum Incomplete {
    /// The search hit its node limit first.
    NodeLimit { algorithm: Algorithm, limit: u64 },
    /// The wall-clock budget ran out before an answer.
    TimeLimit { budget: Duration },
    /// The caller stopped the search.
    Stopped,
    /// The reduction solver found no way on (a bug: please report the board).
    Stuck,
}

impl From<InputError> for SearchError {
    fn from(e: InputError) -> SearchError {
        SearchError::Input(e)
    }
}

impl From<Incomplete> for SearchError {
    fn from(e: Incomplete) -> SearchError {
        SearchError::Incomplete(e)
    }
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Input(e) => e.fmt(f),
            SearchError::Incomplete(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Unsolvable => f.write_str("No solution possible"),
            InputError::TooLarge { size } => write!(
                f,
                "optimal search takes boards up to {MAX_SEARCH_SIZE}x{MAX_SEARCH_SIZE}; \
                 this one is {size}x{size}"
            ),
            InputError::NoTables => f.write_str("the pdb heuristic needs pattern databases"),
            InputError::Tables(e) => write!(f, "unusable pattern databases: {e}"),
            InputError::Progress(e) => write!(f, "cannot go on from the progress given: {e}"),
        }
    }
}

impl fmt::Display for Incomplete {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Incomplete::NodeLimit {
                algorithm: Algorithm::IdaStar,
                limit,
            } => write!(
                f,
                "IDA* expanded {limit} nodes, its node limit, without finishing; raise the \
                 limit or use a stronger heuristic"
            ),
            Incomplete::NodeLimit { algorithm, limit } => write!(
                f,
                "{} would need more than {limit} boards in memory, its node limit; IDA* \
                 solves the board in constant memory",
                algorithm.name()
            ),
            Incomplete::TimeLimit { budget } => write!(
                f,
                "no answer within the time budget of {} s; allow more time",
                seconds_text(*budget)
            ),
            Incomplete::Stopped => f.write_str("the search was stopped"),
            Incomplete::Stuck => {
                f.write_str("the reduction solver got stuck (a bug: please report the board)")
            }
        }
    }
}

/// Seconds as a person writes them: `2`, `0.5`, `1.25`.
pub fn seconds_text(duration: Duration) -> String {
    let text = format!("{:.3}", duration.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl std::error::Error for SearchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SearchError::Input(InputError::Tables(e)) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Tables(e) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for Incomplete {}

/// What node a pass's prefix leads to, which decides the pruning below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassFrom {
    /// A node of [`frontier_over`](crate::frontier_over): the prefix is a move sequence the
    /// search makes, and the pruning automaton goes on from its state at
    /// the node.
    Frontier,
    /// An open node of `open_frontier_over` (A*+IDA*): the prefix is
    /// the best path the best-first phase kept, and the automaton starts
    /// afresh at the node, as in the local A*+IDA*.
    Open,
}
