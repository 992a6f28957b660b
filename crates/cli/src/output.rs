//! What `npuzzle solve` prints: text, JSON Lines (one serde type per record
//! type, every key always present; schema in docs/solve-output.schema.json)
//! or the Princeton algs4 client's exact output.

use std::io::{self, IsTerminal, Write};

use npuzzle::records::{
    ErrorRecord, Origin, RefusedRecord, Resumed, SolutionRecord, UnsolvableRecord,
};
use npuzzle::{Algorithm, Board, Error, Goal, Move, Notation, Solution};
use npuzzle_board::Known;
use serde::Serialize;

use crate::args::{FormatArg, SolveArgs};
use crate::input::Input;
use crate::remedy;
use crate::status::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// What became of one input board.
pub enum Answer {
    Solved(Solution),
    Unsolvable,
    /// A valid board left unanswered: a node limit, tables missing.
    Refused {
        reason: String,
        nodes: Option<u64>,
        seconds: f64,
    },
    /// Not a board.
    BadInput(String),
}

impl Answer {
    /// What the command line reports for the engine's answer to a board.
    pub fn of(result: Result<Solution, Error>, seconds: f64) -> Answer {
        match result {
            Ok(solution) => Answer::Solved(solution),
            Err(Error::Unsolvable { .. }) => Answer::Unsolvable,
            Err(e) => Answer::Refused {
                reason: refusal(&e),
                nodes: e.node_limit(),
                seconds,
            },
        }
    }
}

/// Why a board was refused, in the command line's words.
fn refusal(e: &Error) -> String {
    match e {
        Error::NodeLimit {
            algorithm: Algorithm::IdaStar,
            ..
        } => format!("{e} (--max-nodes)"),
        Error::NodeLimit { limit, .. } => {
            format!("{e} (--max-nodes {limit}; IDA* is --algorithm idastar)")
        }
        Error::TimeLimit { .. } => format!("{e} (--max-seconds)"),
        Error::Tables(tables) => remedy::tables_message(tables),
        other => other.to_string(),
    }
}

/// Counts over a batch.
#[derive(Default)]
pub struct Summary {
    pub boards: u64,
    pub solved: u64,
    pub optimal: u64,
    pub unsolvable: u64,
    pub refused: u64,
    pub errors: u64,
    /// Answers that disagree with an instance set's known length.
    pub mismatches: u64,
    pub nodes: u64,
    pub seconds: f64,
}

impl Summary {
    pub fn count(&mut self, answer: &Answer, known: Option<&Known>) {
        self.boards += 1;
        match answer {
            Answer::Solved(s) => {
                self.solved += 1;
                self.optimal += s.optimal as u64;
                self.nodes += s.stats.map_or(0, |s| s.expanded);
                self.seconds += s.elapsed.as_secs_f64();
            }
            Answer::Unsolvable => self.unsolvable += 1,
            Answer::Refused { nodes, seconds, .. } => {
                self.refused += 1;
                self.nodes += nodes.unwrap_or(0);
                self.seconds += seconds;
            }
            Answer::BadInput(_) => self.errors += 1,
        }
        if known.is_some_and(|k| agrees(answer, k) == Some(false)) {
            self.mismatches += 1;
        }
    }

    pub fn exit_code(&self) -> u8 {
        if self.errors > 0 {
            EXIT_BAD_INPUT
        } else if self.refused > 0 || self.mismatches > 0 {
            EXIT_FAILED
        } else {
            EXIT_OK
        }
    }
}

/// Whether an answer matches what an instance set says: None when it
/// cannot tell (a refused board, or a solution not optimal that neither
/// undercuts the known optimum nor proves it too short).
fn agrees(answer: &Answer, known: &Known) -> Option<bool> {
    match (answer, known.expected) {
        (Answer::Solved(s), Some(expected)) => {
            let length = s.moves.len() as u64;
            let expected = expected as u64;
            // Not optimal: wrong only when shorter than the known optimum,
            // or when its proven lower bound is past it.
            let bound = s.lower_bound.unwrap_or(0);
            match s.optimal {
                true => Some(length == expected),
                false => (length < expected || bound > expected).then_some(false),
            }
        }
        (Answer::Solved(_), None) => Some(false),
        (Answer::Unsolvable, expected) => Some(expected.is_none()),
        (Answer::Refused { .. } | Answer::BadInput(_), _) => None,
    }
}

#[derive(Serialize)]
struct SummaryRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    boards: u64,
    solved: u64,
    optimal: u64,
    unsolvable: u64,
    refused: u64,
    errors: u64,
    mismatches: u64,
    /// Nodes expanded over the batch.
    expanded: u64,
    /// The old name of `expanded`: deprecated, emitted until the next release.
    nodes: u64,
    #[serde(serialize_with = "npuzzle::records::micros")]
    seconds: f64,
    #[serde(serialize_with = "npuzzle::records::micros")]
    wall_seconds: f64,
    peak_rss_mb: Option<f64>,
}

/// Prints answers in the chosen format.
pub struct Printer<'a> {
    args: &'a SolveArgs,
    /// More than one board: answers get a header line, and a summary ends.
    pub batch: bool,
    /// With --checkpoint: what the earlier runs of the board's search did.
    pub resumed: Option<Resumed>,
    count: u64,
    /// Standard output is the terminal standard error would also write to.
    stdout_terminal: bool,
}

impl<'a> Printer<'a> {
    pub fn new(args: &'a SolveArgs) -> Printer<'a> {
        Printer {
            args,
            batch: false,
            resumed: None,
            count: 0,
            stdout_terminal: io::stdout().is_terminal() && io::stderr().is_terminal(),
        }
    }

    fn format(&self) -> FormatArg {
        if self.args.json {
            FormatArg::Json
        } else {
            self.args.format
        }
    }

    fn notation(&self) -> Notation {
        self.args.notation.into()
    }

    pub fn print(&mut self, out: &mut dyn Write, input: &Input, answer: &Answer) -> io::Result<()> {
        self.count += 1;
        // Text at a terminal shows these already: said once, not twice.
        let shown = self.stdout_terminal && !self.args.check && self.format() == FormatArg::Text;
        match answer {
            Answer::BadInput(message) if !(shown && self.batch) => {
                eprintln!("npuzzle: {}", with_file(input, message))
            }
            Answer::Refused { reason, .. } if !shown => {
                eprintln!("npuzzle: {}{reason}", input.place())
            }
            _ => {}
        }
        if self.args.check {
            return self.print_check(out, input, answer);
        }
        match self.format() {
            FormatArg::Json => self.print_json(out, input, answer),
            FormatArg::Algs4 => self.print_algs4(out, input, answer),
            FormatArg::Text => self.print_text(out, input, answer),
        }
    }

    fn print_check(&self, out: &mut dyn Write, input: &Input, answer: &Answer) -> io::Result<()> {
        let name = match (&input.file, input.item.line) {
            (Some(file), 0 | 1) => file.to_string(),
            (Some(file), line) => format!("{file} line {line}"),
            (None, _) => "board".to_string(),
        };
        match answer {
            Answer::Solved(s) => writeln!(out, "{name}: {}", s.moves.len()),
            Answer::Unsolvable => writeln!(out, "{name}: -1"),
            Answer::Refused { .. } | Answer::BadInput(_) => writeln!(out, "{name}: error"),
        }
    }

    fn print_algs4(&self, out: &mut dyn Write, input: &Input, answer: &Answer) -> io::Result<()> {
        let board = match (&input.item.board, answer) {
            (Ok(board), Answer::Solved(s)) => (board, s),
            (_, Answer::Unsolvable) => return writeln!(out, "No solution possible"),
            _ => return Ok(()),
        };
        let (board, solved) = board;
        writeln!(out, "Minimum number of moves = {}", solved.moves.len())?;
        let mut walk = board.walk(&solved.moves);
        loop {
            writeln!(out, "{}", algs4_board(walk.board()))?;
            match walk.advance() {
                Ok(Some(_)) => {}
                Ok(None) => return Ok(()),
                Err(e) => return Err(io::Error::other(e)),
            }
        }
    }

    fn print_text(&self, out: &mut dyn Write, input: &Input, answer: &Answer) -> io::Result<()> {
        let board = match (&input.item.board, answer) {
            (_, Answer::BadInput(message)) => {
                if self.batch {
                    writeln!(
                        out,
                        "Board {}: error: {}\n",
                        self.count,
                        with_file(input, message)
                    )?;
                }
                return Ok(());
            }
            (Ok(board), _) => board,
            (Err(_), _) => unreachable!("a board that did not parse is bad input"),
        };
        if self.batch {
            let place = input.place();
            let place = place.trim_end_matches(": ");
            let place = if place.is_empty() {
                String::new()
            } else {
                format!(" ({place})")
            };
            writeln!(out, "Board {}{place}: {board}", self.count)?;
        }
        if let Some(known) = &input.item.known {
            let expected = known
                .expected
                .map_or("unsolvable".to_string(), |e| e.to_string());
            let verdict = match (agrees(answer, known), answer) {
                (Some(true), _) => "agrees",
                (Some(false), _) => "DISAGREES",
                (None, Answer::Refused { .. }) => "not checked: refused",
                (None, _) => "not checked: not optimal",
            };
            writeln!(out, "Known: {} {expected} ({verdict})", known.id)?;
        }
        match answer {
            Answer::Solved(s) if s.optimal => {
                writeln!(out, "Minimum number of moves = {}", s.moves.len())?;
                self.print_moves(out, board, &s.moves)?;
                let stats = s.stats.unwrap_or_default();
                let mut heuristic = match (&s.partition, s.reflection) {
                    (Some(p), Some(true)) => format!("pdb {p} + reflection"),
                    (Some(p), _) => format!("pdb {p}"),
                    (None, _) => s.heuristic.unwrap_or("no heuristic").to_string(),
                };
                if let Some(strategy) = s.strategy() {
                    heuristic += &format!(", strategy {strategy}");
                }
                let best_first = match stats.best_first {
                    0 => String::new(),
                    n => format!(" ({n} best first)"),
                };
                writeln!(
                    out,
                    "Nodes: {} expanded{best_first}, {} generated; initial estimate {} \
                     ({heuristic}), {}, {}",
                    stats.expanded,
                    stats.generated,
                    s.initial_estimate.unwrap_or(0),
                    s.algorithm,
                    duration_text(s.elapsed.as_secs_f64())
                )?;
                if let Some(r) = self.resumed {
                    let earlier = match r.runs {
                        2 => "the earlier one",
                        _ => "the earlier ones",
                    };
                    writeln!(
                        out,
                        "Resumed: {} runs; {earlier} searched {}; {} of the nodes expanded \
                         again after runs ended mid-subtree",
                        r.runs,
                        duration_text(r.earlier_seconds),
                        r.lost
                    )?;
                }
            }
            Answer::Solved(s) => {
                match s.within {
                    Some(percent) => writeln!(
                        out,
                        "Number of moves = {} (within {percent}% of optimal: at most {:.2} \
                         times the minimum)",
                        s.moves.len(),
                        1.0 + f64::from(percent) / 100.0
                    )?,
                    None => writeln!(
                        out,
                        "Number of moves = {} (not optimal: {})",
                        s.moves.len(),
                        not_optimal_how(s.algorithm, s.note.as_deref())
                    )?,
                }
                self.print_moves(out, board, &s.moves)?;
                let bound = s.lower_bound.unwrap_or(0);
                let ratio = if bound > 0 {
                    format!(
                        ", length / bound {:.2}",
                        s.moves.len() as f64 / bound as f64
                    )
                } else {
                    String::new()
                };
                let nodes = s
                    .stats
                    .map(|stats| {
                        let strategy = s
                            .strategy()
                            .map_or(String::new(), |name| format!(" (strategy {name})"));
                        let best_first = match stats.best_first {
                            0 => String::new(),
                            n => format!(" ({n} best first)"),
                        };
                        format!("{} nodes expanded{best_first}{strategy}, ", stats.expanded)
                    })
                    .unwrap_or_default();
                writeln!(
                    out,
                    "Lower bound {bound}{ratio}; {nodes}{}",
                    duration_text(s.elapsed.as_secs_f64())
                )?;
            }
            Answer::Unsolvable => writeln!(out, "No solution possible")?,
            Answer::Refused { reason, .. } => writeln!(out, "No answer: {reason}")?,
            Answer::BadInput(_) => unreachable!("handled above"),
        }
        if self.batch {
            writeln!(out)?;
        }
        Ok(())
    }

    /// The moves, and with --boards every board, one at a time (the memory
    /// of one board, however long the solution).
    fn print_moves(&self, out: &mut dyn Write, board: &Board, moves: &[Move]) -> io::Result<()> {
        if self.args.no_moves {
            return Ok(());
        }
        writeln!(
            out,
            "Moves ({} direction): {}",
            self.notation().name(),
            Move::format_sequence(moves, self.notation())
        )?;
        if self.args.boards {
            let mut walk = board.walk(moves);
            loop {
                writeln!(out, "{}", walk.board().to_grid())?;
                match walk.advance() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => return Err(io::Error::other(e)),
                }
            }
        }
        Ok(())
    }

    fn print_json(&self, out: &mut dyn Write, input: &Input, answer: &Answer) -> io::Result<()> {
        let line = json_record(
            input,
            answer,
            self.args.search.goal.goal(),
            self.notation(),
            !self.args.no_moves,
            self.resumed,
        );
        writeln!(out, "{}", line.map_err(io::Error::other)?)
    }

    pub fn print_summary(&self, out: &mut dyn Write, s: &Summary, wall: f64) -> io::Result<()> {
        if self.args.check {
            return Ok(());
        }
        match self.format() {
            FormatArg::Json => {
                let record = SummaryRecord {
                    kind: "summary",
                    boards: s.boards,
                    solved: s.solved,
                    optimal: s.optimal,
                    unsolvable: s.unsolvable,
                    refused: s.refused,
                    errors: s.errors,
                    mismatches: s.mismatches,
                    expanded: s.nodes,
                    nodes: s.nodes,
                    seconds: s.seconds,
                    wall_seconds: wall,
                    peak_rss_mb: peak_rss_megabytes(),
                };
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&record).map_err(io::Error::other)?
                )
            }
            FormatArg::Text if self.batch => writeln!(
                out,
                "Boards: {}, solved {} ({} optimal), unsolvable {}, refused {}, bad input {}{}; \
                 {} nodes expanded, {} searching, {} wall",
                s.boards,
                s.solved,
                s.optimal,
                s.unsolvable,
                s.refused,
                s.errors,
                if self.args.set {
                    format!(", disagreeing with the set {}", s.mismatches)
                } else {
                    String::new()
                },
                s.nodes,
                duration_text(s.seconds),
                duration_text(wall)
            ),
            _ => Ok(()),
        }
    }
}

/// A duration for people: three significant digits at most, in the unit
/// that reads best (`954 ms`, `1.23 s`, `12.3 s`, `593 µs`).
pub fn duration_text(seconds: f64) -> String {
    match seconds {
        s if s >= 100.0 => format!("{s:.0} s"),
        s if s >= 10.0 => format!("{s:.1} s"),
        s if s >= 1.0 => format!("{s:.2} s"),
        s if s >= 1e-3 => format!("{:.0} ms", s * 1e3),
        s => format!("{:.0} µs", s * 1e6),
    }
}

/// A message prefixed with the file it concerns, when there is one and the
/// message does not name it yet.
fn with_file(input: &Input, message: &str) -> String {
    match &input.file {
        Some(file) => format!("{file}: {message}"),
        None => message.to_string(),
    }
}

/// A board as the algs4 `Board.toString()` writes it: n, then each row of
/// "%2d " fields.
fn algs4_board(board: &Board) -> String {
    let n = board.size();
    let mut text = format!("{n}\n");
    for row in board.tiles().chunks(n) {
        for &tile in row {
            text.push_str(&format!("{tile:2} "));
        }
        text.push('\n');
    }
    text
}

/// The process's peak resident memory, where the system tells it (Linux).
pub fn peak_rss_megabytes() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kilobytes: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kilobytes / 1024.0 * 10.0).round() / 10.0)
}

/// The JSON record (one line of `--json` output) for one answered input.
pub fn json_record(
    input: &Input,
    answer: &Answer,
    goal: Goal,
    notation: Notation,
    with_moves: bool,
    resumed: Option<Resumed>,
) -> serde_json::Result<String> {
    let known = input.item.known.as_ref();
    let origin = Origin {
        file: input.file.as_deref(),
        line: (input.item.line > 0).then_some(input.item.line),
        id: known.map(|k| k.id.as_str()),
        expected: known.and_then(|k| k.expected),
    };
    let agrees = known.and_then(|k| agrees(answer, k));
    match (&input.item.board, answer) {
        (_, Answer::BadInput(message)) => serde_json::to_string(&ErrorRecord::new(origin, message)),
        (Ok(board), _) => record(
            origin, agrees, board, answer, goal, notation, with_moves, resumed,
        ),
        (Err(_), _) => unreachable!("a board that did not parse is bad input"),
    }
}

/// The record of an answer about `board` that has no file, line or
/// instance set: what `npuzzle serve` answers.
pub fn board_record(
    board: &Board,
    answer: &Answer,
    goal: Goal,
    notation: Notation,
    with_moves: bool,
) -> serde_json::Result<String> {
    record(
        Origin::default(),
        None,
        board,
        answer,
        goal,
        notation,
        with_moves,
        None,
    )
}

/// The record of an answer about `board`, from `origin`; `agrees`: whether
/// it matches the instance set's length (None: no set).
#[allow(clippy::too_many_arguments)] // the record's parts, each its own
fn record(
    origin: Origin,
    agrees: Option<bool>,
    board: &Board,
    answer: &Answer,
    goal: Goal,
    notation: Notation,
    with_moves: bool,
    resumed: Option<Resumed>,
) -> serde_json::Result<String> {
    match answer {
        Answer::BadInput(message) => serde_json::to_string(&ErrorRecord::new(origin, message)),
        Answer::Solved(solution) => {
            let mut record = SolutionRecord::new(board, goal, notation, solution, with_moves);
            record.origin = origin;
            record.agrees = agrees;
            record.resumed = resumed;
            serde_json::to_string(&record)
        }
        Answer::Unsolvable => {
            serde_json::to_string(&UnsolvableRecord::new(origin, board, goal, agrees))
        }
        Answer::Refused {
            reason,
            nodes,
            seconds,
        } => serde_json::to_string(&RefusedRecord::new(
            origin, board, goal, reason, *nodes, *seconds,
        )),
    }
}

/// Why an answer is not optimal, as the note after its length says it:
/// the reduction names why it was used, the beam search its width.
pub fn not_optimal_how(algorithm: &str, note: Option<&str>) -> String {
    match (algorithm, note) {
        ("reduction", note) => format!("solved by reduction; {}", note.unwrap_or("asked for")),
        (_, Some(note)) => note.to_string(),
        (algorithm, None) => format!("solved by {algorithm}"),
    }
}
