//! `npuzzle solve` and `npuzzle play`: read boards as a stream, have the
//! engine solve them (several at once for batches), print each answer in
//! input order as soon as it and those before it are done.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use npuzzle::{HeuristicKind, Partition, Solver};
use npuzzle_board::echo;

use crate::args::{PlayArgs, SearchArgs, SolveArgs};
use crate::checkpoint::Checkpoint;
use crate::input::{self, Input, Inputs};
use crate::output::{Answer, Printer, Summary};
use crate::status::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK};
use crate::{remedy, show};

/// Why `--partition` cannot serve a board of side `size` (it names no
/// tables of that side), if it cannot.
pub fn partition_misfit(args: &SearchArgs, size: usize) -> Option<String> {
    let name = args.partition.as_deref()?;
    let goal = args.goal.goal();
    let e = Partition::parse(name, size, goal).err()?;
    let sides: Vec<String> = (npuzzle::MIN_SIZE..=npuzzle::MAX_SIZE)
        .filter(|&side| Partition::parse(name, side, goal).is_ok())
        .map(|side| format!("{side}x{side}"))
        .collect();
    Some(format!(
        "--partition {} is for {} boards, not this {size}x{size} one ({e}); solve it without \
         --partition",
        echo(name),
        sides.join(", ")
    ))
}

/// The engine set up as the search options say; its notes go to stderr in
/// the command line's words.
pub fn solver(args: &SearchArgs) -> Result<Solver, String> {
    input::check_pdb_dir(args.pdb_dir.as_deref())?;
    let cores = npuzzle::cores();
    let jobs = npuzzle::check_threads(
        "--jobs",
        args.jobs.unwrap_or(cores.min(npuzzle::MAX_THREADS)),
    )
    .map_err(|e| e.to_string())?;
    // The engine decides what a partition asked for gives (an optimal
    // search over its tables up to 5x5, the beam over them past), and
    // refuses a name that fits no side.
    let heuristic = args.heuristic.map(HeuristicKind::from);
    let options = npuzzle::Options {
        pdb_dir: args.pdb_dir.clone(),
        goal: Some(args.goal.goal().name().to_string()),
        partition: args.partition.clone(),
        algorithm: args
            .algorithm
            .map(|a| npuzzle::Algorithm::from(a).name().to_string()),
        heuristic: heuristic.map(|h| h.name().to_string()),
        fast: args.fast,
        within: args.within.map(i64::from),
        reflection: Some(!args.no_reflection),
        max_nodes: args.max_nodes,
        max_seconds: args.max_seconds.map(|d| d.as_secs_f64()),
        anytime: args.anytime.map(|d| d.as_secs_f64()),
        memory: args.memory,
        threads: Some(jobs),
        ..npuzzle::Options::default()
    };
    let builder = options
        .builder()
        .map_err(|e| e.to_string())?
        .on_note(|note| eprintln!("npuzzle: {}", remedy::note_message(note)));
    builder.build().map_err(|e| e.to_string())
}

/// Runs `work`; at a terminal, a search that takes more than a second
/// shows a spinner with the time so far on stderr, cleared when it ends.
fn with_spinner<T>(what: &str, work: impl FnOnce() -> T) -> T {
    if !io::stderr().is_terminal() {
        return work();
    }
    let done = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let waiter = {
        let done = std::sync::Arc::clone(&done);
        let what = what.to_string();
        std::thread::spawn(move || {
            let (lock, signal) = &*done;
            let finished = lock.lock().unwrap_or_else(|e| e.into_inner());
            let (finished, _) = signal
                .wait_timeout_while(finished, Duration::from_secs(1), |f| !*f)
                .unwrap_or_else(|e| e.into_inner());
            if *finished {
                return;
            }
            let spinner = ProgressBar::new_spinner();
            spinner.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{elapsed}] (Ctrl-C stops)")
                    .expect("a valid template"),
            );
            spinner.set_message(what);
            spinner.enable_steady_tick(Duration::from_millis(200));
            let _finished = signal
                .wait_while(finished, |f| !*f)
                .unwrap_or_else(|e| e.into_inner());
            spinner.finish_and_clear();
        })
    };
    let result = work();
    let (lock, signal) = &*done;
    *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
    signal.notify_all();
    let _ = waiter.join();
    result
}

/// Answers one input: a board, or the error that it is not one (or that
/// `--partition` does not fit it).
fn answer_input(solver: &Solver, input: &Input, args: &SearchArgs) -> Answer {
    let fast = args.fast;
    match &input.item.board {
        Ok(board) => {
            if let Some(misfit) = partition_misfit(args, board.size()) {
                return Answer::BadInput(misfit);
            }
            let started = Instant::now();
            let run = npuzzle::Run {
                stop: args.anytime.map(|_| anytime_stop()),
                ..npuzzle::Run::default()
            };
            let result = with_spinner(
                &format!("solving the {n}x{n} board", n = board.size()),
                || solver.solve_with(board, &run),
            );
            with_fast_note(Answer::of(result, started.elapsed().as_secs_f64()), fast)
        }
        Err(e) => Answer::BadInput(e.to_string()),
    }
}

/// The stop flag of `--anytime` searches: the first Ctrl-C ends the
/// wider beams, and the best answer found so far is printed (boards after
/// it are stopped at once); a second one ends the process.
fn anytime_stop() -> Arc<AtomicBool> {
    static STOP: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    let stop = STOP.get_or_init(|| {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let _ = ctrlc::set_handler(move || {
            if flag.swap(true, Ordering::Relaxed) {
                std::process::exit(EXIT_INTERRUPTED.into());
            }
        });
        stop
    });
    Arc::clone(stop)
}

/// One board's answer with its search kept in a `--checkpoint` file.
struct KeptAnswer {
    answer: Answer,
    /// What earlier runs did, when this run went on from them.
    resumed: Option<npuzzle::records::Resumed>,
    /// Ctrl-C stopped the search.
    interrupted: bool,
}

impl KeptAnswer {
    fn without_search(answer: Answer) -> KeptAnswer {
        KeptAnswer {
            answer,
            resumed: None,
            interrupted: false,
        }
    }
}

/// Answers one board with its search kept in the `--checkpoint` file
/// `path`, going on from it. An error (the file refused, or a board that
/// gets no optimal IDA*) before any search.
fn answer_keeping(
    solver: &Solver,
    board: &npuzzle::Board,
    path: &std::path::Path,
    args: &SearchArgs,
) -> Result<KeptAnswer, String> {
    if args.memory.is_some() {
        return Err(
            "--checkpoint keeps plain IDA*'s progress, and --memory runs A*+IDA*, which keeps \
             none: leave one of them out"
                .to_string(),
        );
    }
    if let Some(misfit) = partition_misfit(args, board.size()) {
        return Ok(KeptAnswer::without_search(Answer::BadInput(misfit)));
    }
    let search = match solver.search_identity(board) {
        Ok(search) => search,
        Err(npuzzle::Error::InvalidArgument(e)) => return Err(format!("--checkpoint: {e}")),
        // Unsolvable, tables missing or damaged: answered as without
        // --checkpoint.
        Err(e) => return Ok(KeptAnswer::without_search(Answer::of(Err(e), 0.0))),
    };
    let kept = Checkpoint::open(path, search)?;
    // Ctrl-C stops the search and the progress is written; a second one
    // ends the process at once.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::Relaxed) {
            std::process::exit(EXIT_INTERRUPTED.into());
        }
    });
    let run = npuzzle::Run {
        progress: Some(Arc::clone(&kept.progress)),
        stop: Some(stop),
        ..npuzzle::Run::default()
    };
    let started = Instant::now();
    let result = with_spinner(
        &format!("solving the {n}x{n} board", n = board.size()),
        || kept.saving(|| solver.solve_with(board, &run)),
    );
    // Progress the search finds impossible: refused as the file is, left
    // as it was.
    if let Err(npuzzle::Error::InvalidArgument(why)) = &result {
        return Err(format!(
            "--checkpoint {}: {why}; remove it to start the search over",
            path.display()
        ));
    }
    let interrupted = matches!(result, Err(npuzzle::Error::Stopped));
    let answer = match Answer::of(result, started.elapsed().as_secs_f64()) {
        // Stopped by time or Ctrl-C: the nodes are the progress's.
        Answer::Refused {
            reason,
            nodes: None,
            seconds,
        } => Answer::Refused {
            reason: if interrupted {
                "the search was stopped by Ctrl-C".to_string()
            } else {
                reason
            },
            nodes: Some(kept.expanded_in_this_run()),
            seconds,
        },
        other => other,
    };
    // The answer stands whatever becomes of the file.
    let kept_now = match &answer {
        Answer::Solved(_) => kept.remove(),
        _ => kept.save(),
    };
    match kept_now {
        Err(e) => eprintln!("npuzzle: {e}"),
        Ok(()) if !matches!(answer, Answer::Solved(_)) => {
            if path.exists() {
                eprintln!("npuzzle: {}", kept.standing());
            }
        }
        Ok(()) => {}
    }
    Ok(KeptAnswer {
        answer,
        resumed: kept.resumed(),
        interrupted,
    })
}

/// `--fast` answers name the option as their reason.
fn with_fast_note(answer: Answer, fast: bool) -> Answer {
    match answer {
        Answer::Solved(mut solved) if fast => {
            solved.note = Some("--fast".to_string());
            Answer::Solved(solved)
        }
        other => other,
    }
}

pub fn run(args: &SolveArgs, out: &mut impl Write) -> io::Result<u8> {
    let bad = |message: String| {
        eprintln!("npuzzle: {message}");
        Ok(EXIT_BAD_INPUT)
    };
    let solver = match solver(&args.search) {
        Ok(solver) => solver,
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
    let (mut ahead, mut source_errors) = read_ahead(&mut inputs, if interactive { 1 } else { 2 });
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
    if args.checkpoint.is_some() && batch {
        return bad("--checkpoint keeps one board's search; give one board".to_string());
    }
    // One board: answered before the batch's printing is set up, so that
    // a refused --checkpoint ends the run before any output.
    let mut interrupted = false;
    let single = if batch {
        None
    } else {
        let input = ahead.pop().expect("one board");
        let answer = match (&args.checkpoint, &input.item.board) {
            (Some(path), Ok(board)) => match answer_keeping(&solver, board, path, &args.search) {
                Ok(kept) => {
                    printer.resumed = kept.resumed;
                    interrupted = kept.interrupted;
                    kept.answer
                }
                Err(e) => return bad(e),
            },
            _ => answer_input(&solver, &input, &args.search),
        };
        Some((input, answer))
    };
    let mut emit = |input: Input, answer: Answer, out: &mut dyn Write| -> io::Result<()> {
        summary.count(&answer, input.item.known.as_ref());
        printer.print(out, &input, &answer)?;
        out.flush()
    };
    if let Some((input, answer)) = single {
        if let (Some(path), Ok(board), Answer::Solved(solved)) =
            (&args.svg, &input.item.board, &answer)
        {
            if !write_svg(path, board, &solved.moves)? {
                return Ok(EXIT_FAILED);
            }
        }
        emit(input, answer, out)?;
    } else {
        let inputs = ahead.into_iter().map(Ok).chain(inputs);
        source_errors += answer_batch(&solver, &args.search, inputs, &mut emit, out)?;
    }
    summary.errors += source_errors;
    printer.print_summary(out, &summary, started.elapsed().as_secs_f64())?;
    if interrupted {
        return Ok(EXIT_INTERRUPTED);
    }
    // One board asked about and none possible: a failure, as for `play`
    // and `check`; a batch answered every board, unsolvable ones included.
    if !batch && summary.unsolvable > 0 {
        return Ok(EXIT_FAILED);
    }
    Ok(summary.exit_code())
}

/// Reads up to `count` boards; says why each unreadable one is skipped, and
/// counts them.
fn read_ahead(inputs: &mut Inputs, count: usize) -> (Vec<Input>, u64) {
    let mut ahead = Vec::new();
    let mut errors = 0;
    while ahead.len() < count {
        match inputs.next() {
            Some(Ok(input)) => ahead.push(input),
            Some(Err(message)) => {
                eprintln!("npuzzle: {message}");
                errors += 1;
            }
            None => break,
        }
    }
    (ahead, errors)
}

/// Writes the animated solution to `path`; false when it cannot be drawn
/// (said on stderr).
fn write_svg(
    path: &std::path::Path,
    board: &npuzzle::Board,
    moves: &[npuzzle::Move],
) -> io::Result<bool> {
    match show::svg(board, moves) {
        Ok(svg) => {
            std::fs::write(path, svg).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
            })?;
            Ok(true)
        }
        Err(message) => {
            eprintln!("npuzzle: {message}");
            Ok(false)
        }
    }
}

/// Answers every board of a batch in input order, boards in parallel;
/// returns how many inputs could not be read.
fn answer_batch(
    solver: &Solver,
    search: &SearchArgs,
    inputs: impl Iterator<Item = Result<Input, String>> + Send + 'static,
    emit: &mut impl FnMut(Input, Answer, &mut dyn Write) -> io::Result<()>,
    out: &mut dyn Write,
) -> io::Result<u64> {
    /// An input, and why `--partition` does not fit its board.
    type Item = (Result<Input, String>, Option<String>);
    fn board_of(item: &Item) -> Option<&npuzzle::Board> {
        match item {
            (Ok(input), None) => input.item.board.as_ref().ok(),
            _ => None,
        }
    }
    let fitted = search.clone();
    let items = inputs.map(move |item: Result<Input, String>| {
        let misfit = item
            .as_ref()
            .ok()
            .and_then(|input| input.item.board.as_ref().ok())
            .and_then(|board| partition_misfit(&fitted, board.size()));
        (item, misfit)
    });
    let mut errors = 0;
    for answered in solver.answers(items, board_of) {
        let seconds = answered.elapsed.as_secs_f64();
        match (answered.item, answered.result) {
            ((Err(message), _), _) => {
                eprintln!("npuzzle: {message}");
                errors += 1;
            }
            ((Ok(input), _), Some(result)) => {
                let answer = with_fast_note(Answer::of(result, seconds), search.fast);
                emit(input, answer, out)?;
            }
            ((Ok(input), misfit), None) => {
                let answer = match (&input.item.board, misfit) {
                    (Err(e), _) => Answer::BadInput(e.to_string()),
                    (Ok(_), Some(misfit)) => Answer::BadInput(misfit),
                    (Ok(_), None) => unreachable!("a board gets an answer"),
                };
                emit(input, answer, out)?;
            }
        }
    }
    Ok(errors)
}

/// `npuzzle play`: solves one board and plays the solution.
pub fn play(args: &PlayArgs, out: &mut impl Write) -> io::Result<u8> {
    let solver = match solver(&args.search) {
        Ok(solver) => solver,
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
    if let Some(misfit) = partition_misfit(&args.search, board.size()) {
        eprintln!("npuzzle: {misfit}");
        return Ok(EXIT_BAD_INPUT);
    }
    let terminal = io::stdout().is_terminal();
    if terminal {
        write!(out, "solving the {n}x{n} board...", n = board.size())?;
        out.flush()?;
    }
    let result = solver.solve(board);
    if terminal {
        // The line is cleared before the first frame or a message on stderr.
        write!(out, "\r\x1b[K")?;
        out.flush()?;
    }
    match with_fast_note(Answer::of(result, 0.0), args.search.fast) {
        Answer::Solved(solved) => {
            if let Some(note) = &solved.note {
                let how = crate::output::not_optimal_how(solved.algorithm, Some(note));
                eprintln!("npuzzle: not optimal: {how}");
            }
            show::play(
                board,
                &solved.moves,
                std::time::Duration::from_millis(args.delay),
                out,
            )?;
            Ok(EXIT_OK)
        }
        // Nothing to play: a failure, as `check` of that board is.
        Answer::Unsolvable => {
            eprintln!("npuzzle: No solution possible");
            Ok(EXIT_FAILED)
        }
        Answer::Refused { reason, .. } | Answer::BadInput(reason) => {
            eprintln!("npuzzle: {reason}");
            Ok(EXIT_FAILED)
        }
    }
}
