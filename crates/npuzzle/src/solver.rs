//! The solver: its handle, the two ways to solve one board ([`Solver::solve`]
//! and [`Solver::solve_with`] a [`Run`]) and the two to solve many. The
//! options live in `builder.rs`, the tables per side in `sides.rs`, the
//! policy and the one path to an answer in `plan.rs`, the distributed
//! units in `distributed.rs`.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
#[cfg(feature = "native")]
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use npuzzle_board::{Board, Goal};
use npuzzle_pdb::{Lookup, Partition};
use npuzzle_search::{BeamOutcome, Progress};

use crate::builder::{
    within_out_of_range, Config, SolverBuilder, MAX_MEMORY, MAX_WITHIN, MIN_MEMORY,
};
use crate::error::Error;
use crate::note::Note;
#[cfg(feature = "native")]
use crate::pool::ForkSafePool;
use crate::sides::Sides;
use crate::solution::Solution;
#[cfg(feature = "native")]
use crate::stream::Answers;
use crate::tables::Tables;
use crate::threads::check_threads;

/// What clones of a solver share.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) sides: Sides,
    pub(crate) notes: Mutex<Vec<Note>>,
    /// Sides whose missing tables were told.
    pub(crate) notes_said: Mutex<HashSet<usize>>,
    /// Sides and searches whose unused memory budget was told.
    pub(crate) memory_notes_said: Mutex<HashSet<(usize, &'static str)>>,
    /// The solver of the other goal, whose tables answer this goal's
    /// boards on sides where only they are built (`turn.rs`).
    pub(crate) turned: std::sync::OnceLock<Solver>,
    /// This is such a solver: it never turns again.
    pub(crate) is_turned: bool,
}

/// How one [`Solver::solve_with`] runs; `Run::default()` is what
/// [`Solver::solve`] does.
///
/// ```no_run
/// use std::sync::{atomic::AtomicBool, Arc};
/// use npuzzle::{parse_board, Run, Solver};
///
/// let solver = Solver::builder().build()?;
/// let board = parse_board("8 1 3 4 0 2 7 6 5")?;
/// let stop = Arc::new(AtomicBool::new(false)); // set by another thread
/// let run = Run { max_nodes: Some(1_000_000), stop: Some(stop), here: true, ..Run::default() };
/// let solution = solver.solve_with(&board, &run)?;
/// # Ok::<(), npuzzle::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// The node limit of this search: IDA* expanded nodes, BFS and A*
    /// boards kept (None: the solver's, [`crate::SolverBuilder::max_nodes`]).
    pub max_nodes: Option<u64>,
    /// The wall-clock budget of this search (None: the solver's,
    /// [`crate::SolverBuilder::max_time`]).
    pub max_time: Option<std::time::Duration>,
    /// Time for a shorter near-optimal answer (None: the solver's,
    /// [`crate::SolverBuilder::anytime`]).
    pub anytime: Option<std::time::Duration>,
    /// Of the wall-clock budget, already spent on this answer elsewhere
    /// (the beams a host without threads ran in other workers): the search
    /// ends that much sooner, and notes name the whole budget.
    pub time_spent: std::time::Duration,
    /// Set from another thread to end the search within milliseconds,
    /// with [`Error::Stopped`].
    pub stop: Option<Arc<AtomicBool>>,
    /// On the calling thread alone (or the rayon pool it runs in, unsplit):
    /// for servers and batch runners that have their own threads. Without
    /// it (the default), the search is split across the solver's threads;
    /// the moves are the same either way.
    pub here: bool,
    /// Beam search on 6x6 to 8x8: outcomes of the frame-weighted beams
    /// the solve runs, found elsewhere by [`Solver::beam_attempt`] for the
    /// same board and run (hosts without threads run them in other
    /// workers). One that does not replay is run again.
    pub beams: Vec<BeamOutcome>,
    /// Optimal IDA* only: where an earlier run of this board's search
    /// left off (empty: from the start), kept up to date as this one goes,
    /// so that a search of hours can end with its process and go on in
    /// the next (see [`Progress`]; the caller stores it with the board,
    /// the tables' digests and the options, and refuses it for others).
    /// A board whose plan is not an optimal IDA* is refused.
    pub progress: Option<Arc<Mutex<Progress>>>,
}

/// Solves boards of every size from 2x2 to 127x127 with the command line's
/// policy:
///
/// | board | search |
/// | --- | --- |
/// | 2x2, 3x3 | IDA* with linear conflict (optimal, instant) |
/// | 4x4, 5x5 | IDA* over the tables when built (optimal); else as below, with a [`Note`] |
/// | up to 15x15 | IDA* with linear conflict for up to [`OPTIMAL_ATTEMPT_NODES`](crate::OPTIMAL_ATTEMPT_NODES) expanded nodes (or the node limit), optimal; past that the reduction, not optimal |
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
    pub(crate) config: Arc<Config>,
    pub(crate) shared: Arc<Shared>,
    /// Started at the first board split over threads, and again in a
    /// child of `fork`.
    #[cfg(feature = "native")]
    pub(crate) pool: Arc<ForkSafePool>,
}

impl SolverBuilder {
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
            return Err(within_out_of_range(config.within));
        }
        if config.anytime.is_some() {
            config.anytime_applies()?;
        }
        config.partition_applies()?;
        config.fast_applies()?;
        if let Some(bytes) = config.memory {
            check_memory_budget(bytes)?;
        }
        #[cfg(not(feature = "native"))]
        if config.memory.is_some() {
            return Err(Error::InvalidArgument(
                "memory: this build of the engine (without its `native` feature, as in \
                 WebAssembly) has no memory-bounded search; leave the budget out"
                    .into(),
            ));
        }
        let solver = Solver {
            config: Arc::new(config),
            shared: Arc::new(Shared::default()),
            #[cfg(feature = "native")]
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
            solver.shared.sides.insert(tables);
        }
        for size in open_now {
            if let Err(e) = solver.tables(size) {
                solver.turned_for(size).ok_or(e)?;
            }
        }
        Ok(solver)
    }
}

/// Refuses a memory budget out of range, or larger than the machine can
/// give now: the search would be killed once it had used it.
pub(crate) fn check_memory_budget(asked: u64) -> Result<(), Error> {
    if !(MIN_MEMORY..=MAX_MEMORY).contains(&asked) {
        return Err(Error::InvalidArgument(format!(
            "memory {asked} bytes is out of range: give 1K to 1024T ({MIN_MEMORY} to \
             {MAX_MEMORY} bytes)"
        )));
    }
    #[cfg(feature = "native")]
    if let Some(free) = npuzzle_pdb::generate::available_memory() {
        let gigabytes = |bytes: u64| bytes as f64 / f64::from(1 << 30);
        if asked > free {
            return Err(Error::InvalidArgument(format!(
                "memory {:.1} GB is more than the {:.1} GB this machine has free: give less, \
                 such as {:.0}G",
                gigabytes(asked),
                gigabytes(free),
                (gigabytes(free) / 2.0).floor().max(1.0)
            )));
        }
    }
    Ok(())
}

impl Solver {
    /// A solver to set up; [`SolverBuilder::build`] makes it.
    pub fn builder() -> SolverBuilder {
        SolverBuilder::new()
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
            #[cfg(feature = "native")]
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

    /// Solves one board, its search split across the solver's threads,
    /// within the solver's node limit.
    pub fn solve(&self, board: &Board) -> Result<Solution, Error> {
        self.solve_with(board, &Run::default())
    }

    /// Solves one board as `run` says: its own node limit, a stop flag,
    /// on this thread or split across the solver's.
    pub fn solve_with(&self, board: &Board, run: &Run) -> Result<Solution, Error> {
        // One thread (always, without `native`): the split search on this
        // thread, for the same moves as with more.
        #[cfg(feature = "native")]
        if !run.here && self.config.threads > 1 {
            return match self.pool() {
                Ok(pool) => pool.install(|| guard(|| self.answer(board, run, None))),
                Err(e) => Err(Error::InvalidArgument(e)),
            };
        }
        guard(|| self.answer(board, run, None))
    }

    /// Solves many boards, the solver's thread count at a time (each search
    /// on one thread, joined by the threads that have no board left once
    /// every board is taken); answers in the order of the boards.
    #[cfg(feature = "native")]
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
    #[cfg(feature = "native")]
    pub fn answers<T, I>(&self, items: I, board_of: fn(&T) -> Option<&Board>) -> Answers<T>
    where
        T: Send + 'static,
        I: IntoIterator<Item = T>,
        I::IntoIter: Send + 'static,
    {
        let solver = self.clone();
        // Each item's search on its worker thread, stopped with the
        // stream, joined by the batch's threads that have no item left.
        let solve = move |board: &Board, stop: &Arc<AtomicBool>, spare: &Arc<AtomicUsize>| {
            let run = Run {
                stop: Some(Arc::clone(stop)),
                here: true,
                ..Run::default()
            };
            guard(|| solver.answer(board, &run, Some(Arc::clone(spare))))
        };
        Answers::start(self.threads(), items.into_iter(), board_of, solve)
    }

    /// The tables for boards of side `size`, opened the first time: those
    /// of the partition asked for, else the side's default.
    pub fn tables(&self, size: usize) -> Result<Arc<Tables>, Error> {
        self.shared
            .sides
            .get(&self.config, size, &|note| self.note(note))
    }

    /// The tables for boards of side `size` if they have been opened (by a
    /// board of that side, or asked for up front), without opening them.
    pub fn opened_tables(&self, size: usize) -> Option<Arc<Tables>> {
        self.shared.sides.opened(size)
    }

    /// Each table's value for the board and their sums, over the side's tables.
    pub fn lookup(&self, board: &Board) -> Result<Lookup, Error> {
        if let Some(turned) = self.turned_for(board.size()) {
            let lookup = turned.lookup(&Self::turned_board(board));
            self.keep_notes(turned.take_notes());
            return lookup;
        }
        self.tables(board.size())?.lookup(board)
    }

    /// The notes told since the last call, oldest first.
    pub fn take_notes(&self) -> Vec<Note> {
        std::mem::take(&mut *self.shared.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Keeps notes already told to the note sink with this solver's own.
    pub(crate) fn keep_notes(&self, notes: Vec<Note>) {
        self.shared
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(notes);
    }

    pub(crate) fn note(&self, note: Note) {
        if let Some(sink) = &self.config.on_note {
            sink(&note);
        }
        self.shared
            .notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(note);
    }

    #[cfg(feature = "native")]
    fn pool(&self) -> Result<Arc<rayon::ThreadPool>, String> {
        self.pool.get(self.config.threads)
    }
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

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
