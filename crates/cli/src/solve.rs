//! `npuzzle solve` and `npuzzle play`: read boards as a stream, solve them
//! (several at once for batches), print each answer in input order as soon
//! as it and those before it are done.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use npuzzle_board::{Board, Goal};
use npuzzle_pdb::file::TableFile;
use npuzzle_pdb::Partition;
use npuzzle_search::additive::{LARGE_GROUPS, LARGE_PATTERNS};
use npuzzle_search::{Algorithm, HeuristicKind, Request, SearchError, MAX_SEARCH_SIZE};

use crate::input::{self, Input, Inputs};
use crate::output::{Answer, Printer, Solved, Summary};
use crate::{pdb, show, PlayArgs, SearchArgs, SolveArgs, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// Expanded nodes an optimal search may take on a board that has no tables
/// before it gives way to the reduction (a second or two on one core).
pub const OPTIMAL_ATTEMPT_NODES: u64 = 3_000_000;

/// A partition's tables, mapped.
type OpenTables = (Partition, Vec<TableFile>);

/// Solves boards as the search options say, opening each size's tables the
/// first time a board needs them and sharing them between threads.
pub struct Solver<'a> {
    args: &'a SearchArgs,
    tables: Mutex<HashMap<usize, Arc<Result<OpenTables, TablesError>>>>,
    /// Sides whose missing tables were already reported.
    noted: Mutex<Vec<usize>>,
    /// The one side `--partition` applies to (None: every side).
    partition_side: Option<usize>,
}

/// Why a side's tables cannot be used.
struct TablesError {
    /// Not built (rather than damaged, or refused): search may go on without.
    missing: bool,
    message: String,
}

/// How a board is to be solved.
enum Plan {
    /// An optimal search, with a node budget after which the reduction
    /// takes over (None: the search runs to the end or to --max-nodes).
    Search {
        algorithm: Algorithm,
        heuristic: HeuristicKind,
        fallback_after: Option<u64>,
    },
    Reduce {
        why: String,
    },
}

impl<'a> Solver<'a> {
    pub fn new(args: &'a SearchArgs) -> Solver<'a> {
        Solver {
            args,
            tables: Mutex::new(HashMap::new()),
            noted: Mutex::new(Vec::new()),
            partition_side: None,
        }
    }

    /// A solver whose `--partition` names the tables of `side` only; other
    /// sides get their default tables (the server takes every size).
    pub fn with_partition_for(args: &'a SearchArgs, side: usize) -> Solver<'a> {
        Solver {
            partition_side: Some(side),
            ..Solver::new(args)
        }
    }

    /// The partition asked for boards of side `size`, if any.
    fn partition_option(&self, size: usize) -> Option<&str> {
        match self.partition_side {
            Some(side) if side != size => None,
            _ => self.args.partition.as_deref(),
        }
    }

    fn goal(&self) -> Goal {
        self.args.goal.goal()
    }

    /// Whether the user chose the search (then it runs exactly as asked).
    fn explicit(&self) -> bool {
        self.args.algorithm.is_some() || self.args.heuristic.is_some()
    }

    /// The tables for boards of side `size`, opened once.
    fn tables(&self, size: usize) -> Arc<Result<OpenTables, TablesError>> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        tables
            .entry(size)
            .or_insert_with(|| Arc::new(self.open_tables(size)))
            .clone()
    }

    fn open_tables(&self, size: usize) -> Result<OpenTables, TablesError> {
        let refused = |message: String| TablesError {
            missing: false,
            message,
        };
        let goal = self.goal();
        let name = self
            .partition_option(size)
            .unwrap_or_else(|| Partition::default_name(size))
            .to_string();
        let partition = Partition::parse(&name, size, goal).map_err(|e| refused(e.to_string()))?;
        let distinct = partition.distinct_patterns();
        if distinct.len() > LARGE_PATTERNS || partition.groups().len() > LARGE_GROUPS {
            return Err(refused(format!(
                "the pdb heuristic takes at most {LARGE_PATTERNS} distinct tables in at most \
                 {LARGE_GROUPS} partitions; {} tables in {} partitions given",
                distinct.len(),
                partition.groups().len()
            )));
        }
        let dirs = pdb::search_dirs(self.args.pdb_dir.as_deref());
        let Some(dir) = pdb::find_dir(&dirs, &partition) else {
            return Err(TablesError {
                missing: true,
                message: pdb::missing_tables(&dirs, &partition, size, goal),
            });
        };
        let tables = npuzzle_pdb::file::open_partition_noting(&dir, &partition, &mut |note| {
            eprintln!("npuzzle: {note}")
        })
        .map_err(|e| {
            refused(pdb::explain(
                &e,
                &pdb::rebuild_command(&partition, size, goal, &dir),
            ))
        })?;
        Ok((partition, tables))
    }

    /// Tables are the default for these sides, when built.
    fn tables_by_default(size: usize) -> bool {
        size == 4 || size == 5
    }

    fn plan(&self, board: &Board, max_nodes: Option<u64>) -> Plan {
        let size = board.size();
        if self.args.fast {
            return Plan::Reduce {
                why: "--fast".to_string(),
            };
        }
        if self.explicit() {
            return Plan::Search {
                algorithm: self.args.algorithm.map_or(Algorithm::IdaStar, Into::into),
                heuristic: self.args.heuristic.map_or(
                    if Self::tables_by_default(size) {
                        HeuristicKind::Pdb
                    } else {
                        HeuristicKind::LinearConflict
                    },
                    Into::into,
                ),
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
        // tables, or tables asked for by --partition, are never replaced
        // silently: the board is refused.
        let table_options = self.partition_option(size).is_some();
        if Self::tables_by_default(size) {
            match &*self.tables(size) {
                Err(e) if e.missing && !table_options => {
                    self.note_once(size, &e.message, max_nodes)
                }
                _ => {
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

    /// Says once per board side why its tables are not used, and what
    /// happens instead.
    fn note_once(&self, size: usize, message: &str, max_nodes: Option<u64>) {
        let mut noted = self.noted.lock().unwrap_or_else(|e| e.into_inner());
        if !noted.contains(&size) {
            noted.push(size);
            eprintln!(
                "npuzzle: {message}\nnpuzzle: meanwhile {size}x{size} boards are solved with \
                 linear conflict, optimally within {} nodes, else by reduction (not optimal)",
                max_nodes.unwrap_or(OPTIMAL_ATTEMPT_NODES)
            );
        }
    }

    /// The answer for one board; `parallel` splits its search across the
    /// current rayon pool.
    pub fn answer(&self, board: &Board, parallel: bool) -> Answer {
        self.answer_within(board, parallel, self.args.max_nodes)
    }

    /// `answer` with its own node budget instead of `--max-nodes`.
    pub fn answer_within(&self, board: &Board, parallel: bool, max_nodes: Option<u64>) -> Answer {
        let goal = self.goal();
        if !board.is_solvable(goal) {
            return Answer::Unsolvable;
        }
        let started = Instant::now();
        let (algorithm, heuristic, fallback_after) = match self.plan(board, max_nodes) {
            Plan::Reduce { why } => return self.reduce(board, why, started),
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
        };
        let mut solved = Solved {
            heuristic: (algorithm != Algorithm::Bfs).then(|| heuristic.name()),
            ..Solved::optimal(Vec::new(), algorithm.name())
        };
        let result = if heuristic == HeuristicKind::Pdb && algorithm != Algorithm::Bfs {
            match &*self.tables(board.size()) {
                Ok((partition, tables)) => {
                    solved.partition = Some(partition.name().to_string());
                    solved.reflection = Some(!self.args.no_reflection);
                    npuzzle_search::solve_catalogue(
                        board,
                        &request,
                        tables,
                        partition.groups(),
                        !self.args.no_reflection,
                    )
                }
                Err(e) => return refused(e.message.clone(), started),
            }
        } else {
            npuzzle_search::solve(board, &request)
        };
        match result {
            Ok(solution) => {
                solved.moves = solution.moves;
                solved.stats = Some(solution.stats);
                solved.h0 = Some(solution.initial_estimate);
                solved.seconds = solution.elapsed.as_secs_f64();
                Answer::Solved(solved)
            }
            Err(SearchError::NodeLimit { limit, .. }) if fallback_after.is_some() => self.reduce(
                board,
                format!("optimal search gave up after {limit} nodes"),
                started,
            ),
            Err(SearchError::Unsolvable) => Answer::Unsolvable,
            Err(e) => {
                let nodes = match e {
                    SearchError::NodeLimit { limit, .. } => Some(limit),
                    _ => None,
                };
                Answer::Refused {
                    reason: e.to_string(),
                    nodes,
                    seconds: started.elapsed().as_secs_f64(),
                }
            }
        }
    }

    pub fn reduce(&self, board: &Board, why: String, started: Instant) -> Answer {
        match npuzzle_search::solve_by_reduction(board, self.goal()) {
            Ok(moves) => Answer::Solved(Solved {
                optimal: false,
                lower_bound: Some(board.manhattan(self.goal())),
                note: Some(why),
                seconds: started.elapsed().as_secs_f64(),
                ..Solved::optimal(moves, "reduction")
            }),
            Err(e) => refused(e.to_string(), started),
        }
    }
}

/// A board left unanswered for `reason`, with no node count to report.
fn refused(reason: String, started: Instant) -> Answer {
    Answer::Refused {
        reason,
        nodes: None,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The thread count from `--jobs`, checked.
fn jobs(args: &SearchArgs) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    pdb::check_threads("--jobs", args.jobs.unwrap_or(cores))
}

/// Answers one input: a board, or the error that it is not one.
fn answer_input(solver: &Solver, input: &Input, parallel: bool) -> Answer {
    match &input.item.board {
        Ok(board) => solver.answer(board, parallel),
        Err(e) => Answer::BadInput(e.to_string()),
    }
}

pub fn run(args: &SolveArgs, out: &mut impl Write) -> io::Result<u8> {
    let bad = |message: String| {
        eprintln!("npuzzle: {message}");
        Ok(EXIT_BAD_INPUT)
    };
    let jobs = match jobs(&args.search) {
        Ok(j) => j,
        Err(e) => return bad(e),
    };
    let sources = match input::sources(&args.board, &args.file) {
        Ok(s) => s,
        Err(e) => return bad(e),
    };
    let many_sources = sources.len() > 1;
    // Someone typing boards: answer each line at once (no look-ahead).
    let interactive =
        matches!(&sources[..], [input::Source::File(f)] if f == "-") && io::stdin().is_terminal();
    let mut inputs = Inputs::new(sources, args.set);
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut printer = Printer::new(args);
    // Read two boards ahead: one board alone gets every thread for its
    // search and is printed without a batch header.
    let mut ahead = Vec::new();
    let mut source_errors = 0;
    while ahead.len() < if interactive { 1 } else { 2 } {
        match inputs.next() {
            Some(Ok(input)) => ahead.push(input),
            Some(Err(message)) => {
                eprintln!("npuzzle: {message}");
                source_errors += 1;
            }
            None => break,
        }
    }
    let batch = ahead.len() > 1 || many_sources || interactive;
    printer.batch = batch;
    if ahead.is_empty() {
        if source_errors == 0 {
            eprintln!("npuzzle: no boards in the input");
        }
        summary.errors += source_errors;
        printer.print_summary(out, &summary, started.elapsed().as_secs_f64())?;
        return Ok(EXIT_BAD_INPUT);
    }
    if args.svg.is_some() && batch {
        return bad("--svg animates one board; give one".to_string());
    }
    let solver = Solver::new(&args.search);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(io::Error::other)?;
    let mut emit = |input: Input, answer: Answer, out: &mut dyn Write| -> io::Result<()> {
        summary.count(&answer, input.item.known.as_ref());
        printer.print(out, &input, &answer)?;
        out.flush()
    };
    if !batch {
        let input = ahead.pop().expect("one board");
        let answer = pool.install(|| answer_input(&solver, &input, true));
        if let (Some(path), Ok(board), Answer::Solved(solved)) =
            (&args.svg, &input.item.board, &answer)
        {
            match show::svg(board, &solved.moves) {
                Ok(svg) => std::fs::write(path, svg).map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
                })?,
                Err(message) => {
                    eprintln!("npuzzle: {message}");
                    return Ok(EXIT_FAILED);
                }
            }
        }
        emit(input, answer, out)?;
    } else {
        let rest = ahead.into_iter().map(Ok).chain(inputs);
        let note_source = |message: String| {
            eprintln!("npuzzle: {message}");
        };
        if jobs == 1 {
            for input in rest {
                match input {
                    Ok(input) => {
                        let answer = answer_input(&solver, &input, false);
                        emit(input, answer, out)?;
                    }
                    Err(message) => {
                        note_source(message);
                        source_errors += 1;
                    }
                }
            }
        } else {
            let errors = stream(&solver, jobs, rest, &mut |input, answer| {
                emit(input, answer, out)
            })?;
            source_errors += errors;
        }
    }
    summary.errors += source_errors;
    printer.print_summary(out, &summary, started.elapsed().as_secs_f64())?;
    Ok(summary.exit_code())
}

/// Solves a stream of boards on `jobs` threads, handing each answer to
/// `emit` in input order. A reader thread reads ahead at most a few boards
/// per thread beyond the last one printed (a permit per board, returned when
/// it is printed), so memory does not grow with the batch and an answer is
/// printed while later input is still awaited. Returns the number of
/// sources that could not be opened.
fn stream(
    solver: &Solver,
    jobs: usize,
    inputs: impl Iterator<Item = Result<Input, String>> + Send + 'static,
    emit: &mut dyn FnMut(Input, Answer) -> io::Result<()>,
) -> io::Result<u64> {
    let window = 4 * jobs;
    let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(window);
    for _ in 0..window {
        permit_tx.send(()).expect("room for every permit");
    }
    let (job_tx, job_rx) = mpsc::channel::<(u64, Input)>();
    let (done_tx, done_rx) = mpsc::channel::<Event>();
    // The reader is not joined: it may be blocked on input that never comes
    // when the output is closed; the process ends without it.
    let reader_done = done_tx.clone();
    std::thread::spawn(move || {
        let mut sent = 0u64;
        for input in inputs {
            match input {
                Ok(input) => {
                    if permit_rx.recv().is_err() || job_tx.send((sent, input)).is_err() {
                        return;
                    }
                    sent += 1;
                }
                Err(message) => {
                    eprintln!("npuzzle: {message}");
                    let _ = reader_done.send(Event::SourceError);
                }
            }
        }
        let _ = reader_done.send(Event::End { boards: sent });
    });
    let job_rx = Mutex::new(job_rx);
    // Set when the printer stops early (a closed pipe): the workers end
    // after their current board instead of waiting for more.
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let done_tx = done_tx.clone();
            let (job_rx, stop) = (&job_rx, &stop);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let job = job_rx
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .recv_timeout(Duration::from_millis(50));
                let (index, input) = match job {
                    Ok(job) => job,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                };
                let answer = answer_input(solver, &input, false);
                if done_tx
                    .send(Event::Answer(index, Box::new((input, answer))))
                    .is_err()
                {
                    break;
                }
            });
        }
        drop(done_tx);
        let mut source_errors = 0;
        let mut printed = 0u64;
        let mut total = None;
        let mut finished = BTreeMap::new();
        while total != Some(printed) {
            match done_rx.recv() {
                Ok(Event::Answer(index, answered)) => {
                    finished.insert(index, *answered);
                }
                Ok(Event::SourceError) => source_errors += 1,
                Ok(Event::End { boards }) => total = Some(boards),
                Err(_) => return Err(io::Error::other("the solver threads stopped")),
            }
            while let Some((input, answer)) = finished.remove(&printed) {
                if let Err(e) = emit(input, answer) {
                    if e.kind() == io::ErrorKind::BrokenPipe {
                        // The reader is gone (`| head`): every answer it
                        // wanted is out; boards still being solved are not.
                        std::process::exit(EXIT_OK.into());
                    }
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                printed += 1;
                let _ = permit_tx.send(());
            }
        }
        Ok(source_errors)
    })
}

/// What the reader and the solver threads tell the printer.
enum Event {
    Answer(u64, Box<(Input, Answer)>),
    SourceError,
    End { boards: u64 },
}

/// `npuzzle play`: solves one board and plays the solution.
pub fn play(args: &PlayArgs, out: &mut impl Write) -> io::Result<u8> {
    let jobs = match jobs(&args.search) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let sources = match input::sources(&args.board, &[]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let mut inputs = Inputs::new(sources, false);
    let input = match (inputs.next(), inputs.next()) {
        (Some(Ok(input)), None) => input,
        (Some(Err(message)), _) => {
            eprintln!("npuzzle: {message}");
            return Ok(EXIT_BAD_INPUT);
        }
        (None, _) => {
            eprintln!("npuzzle: no board given");
            return Ok(EXIT_BAD_INPUT);
        }
        (Some(Ok(_)), Some(_)) => {
            eprintln!("npuzzle: play shows one board; the input holds more");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let board = match &input.item.board {
        Ok(board) => board,
        Err(e) => {
            eprintln!(
                "npuzzle: {}{e}",
                input
                    .file
                    .as_deref()
                    .map_or(String::new(), |f| format!("{f}: "))
            );
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let solver = Solver::new(&args.search);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(io::Error::other)?;
    match pool.install(|| solver.answer(board, true)) {
        Answer::Solved(solved) => {
            if let Some(note) = &solved.note {
                eprintln!("npuzzle: not optimal: solved by reduction ({note})");
            }
            show::play(
                board,
                &solved.moves,
                std::time::Duration::from_millis(args.delay),
                out,
            )?;
            Ok(EXIT_OK)
        }
        Answer::Unsolvable => {
            eprintln!("npuzzle: No solution possible");
            Ok(EXIT_OK)
        }
        Answer::Refused { reason, .. } | Answer::BadInput(reason) => {
            eprintln!("npuzzle: {reason}");
            Ok(EXIT_FAILED)
        }
    }
}
