//! `npuzzle solve`: read the boards, solve them (in parallel for batches),
//! print each answer in input order.

use std::io::{self, Write};
use std::time::Instant;

use std::collections::HashMap;

use npuzzle_board::{BatchItem, Board, Goal, Move, Notation};
use npuzzle_pdb::file::{self, TableFile};
use npuzzle_pdb::Partition;
use npuzzle_search::additive::MAX_PATTERNS;
use npuzzle_search::{Algorithm, HeuristicKind, Request, SearchError, Solution};
use rayon::prelude::*;
use serde_json::json;

use crate::{input, pdb, show, SolveArgs, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// What became of one input board.
enum Answer {
    Solved(Solution, HeuristicLabel),
    /// Solved by reduction: valid, not optimal.
    Reduced {
        moves: Vec<Move>,
        lower_bound: u64,
        seconds: f64,
    },
    Failed(SearchError),
    /// The tables the board needs cannot be opened.
    NoTables(String),
    BadInput(String),
}

/// The heuristic a board was solved with, as reported.
#[derive(Clone)]
struct HeuristicLabel {
    kind: HeuristicKind,
    partition: Option<String>,
    reflection: bool,
}

impl HeuristicLabel {
    fn text(&self, algorithm: Algorithm) -> String {
        if algorithm == Algorithm::Bfs {
            return "no heuristic".to_string();
        }
        match &self.partition {
            Some(p) if self.reflection => format!("pdb {p} + reflection"),
            Some(p) => format!("pdb {p}"),
            None => self.kind.name().to_string(),
        }
    }
}

#[derive(Default)]
struct Summary {
    boards: u64,
    solved: u64,
    unsolvable: u64,
    failed: u64,
    bad_input: u64,
    nodes: u64,
    seconds: f64,
}

/// A partition's tables, mapped.
type OpenTables = (Partition, Vec<TableFile>);

/// The tables of each board size the batch needs, opened once up front and
/// shared by the threads.
struct Tables {
    by_size: HashMap<usize, Result<OpenTables, String>>,
}

impl Tables {
    fn open(args: &SolveArgs, goal: Goal, sizes: impl Iterator<Item = usize>) -> Tables {
        let mut by_size = HashMap::new();
        for size in sizes {
            by_size
                .entry(size)
                .or_insert_with(|| open_tables(args, goal, size));
        }
        Tables { by_size }
    }
}

fn open_tables(args: &SolveArgs, goal: Goal, size: usize) -> Result<OpenTables, String> {
    let name = args
        .partition
        .clone()
        .unwrap_or_else(|| Partition::default_name(size).to_string());
    let partition = Partition::parse(&name, size, goal).map_err(|e| e.to_string())?;
    if partition.patterns().len() > MAX_PATTERNS {
        return Err(format!(
            "the pdb heuristic takes at most {MAX_PATTERNS} patterns"
        ));
    }
    let dirs = pdb::search_dirs(args.pdb_dir.as_deref());
    let Some(dir) = pdb::find_dir(&dirs, &partition) else {
        return Err(format!(
            "{}; or solve without them: --heuristic linear-conflict{}",
            pdb::missing_tables(&dirs, &partition, size, goal),
            if size >= 5 {
                ", or --fast (not optimal)"
            } else {
                ""
            },
        ));
    };
    let tables =
        file::open_partition_noting(&dir, &partition, &mut |note| eprintln!("npuzzle: {note}"))
            .map_err(|e| e.to_string())?;
    Ok((partition, tables))
}

/// The heuristic for a board of side `size`: the one asked for, else the
/// pattern databases for 4x4 and linear conflict for other sizes.
fn heuristic_for(args: &SolveArgs, size: usize) -> HeuristicKind {
    match args.heuristic {
        Some(h) => h.into(),
        None if size == 4 || size == 5 => HeuristicKind::Pdb,
        None => HeuristicKind::LinearConflict,
    }
}

/// Smallest side solved by reduction when no search was asked for.
const FAST_FROM_SIZE: usize = 6;

/// Whether a board is solved by reduction: asked for, or the board is too
/// big for optimal search and no search was asked for.
fn reduces(args: &SolveArgs, board: &Board) -> bool {
    args.fast
        || (board.size() >= FAST_FROM_SIZE && args.heuristic.is_none() && args.algorithm.is_none())
}

/// Solves every board of `items` as `args` say, in input order.
fn compute(args: &SolveArgs, items: &[BatchItem]) -> io::Result<Vec<Answer>> {
    let goal = args.goal.goal();
    let algorithm: Algorithm = args.algorithm.map_or(Algorithm::IdaStar, Into::into);
    let needs_tables = |board: &Board| {
        !reduces(args, board)
            && algorithm != Algorithm::Bfs
            && heuristic_for(args, board.size()) == HeuristicKind::Pdb
            && board.is_solvable(goal)
    };
    let tables = Tables::open(
        args,
        goal,
        items
            .iter()
            .filter_map(|i| i.board.as_ref().ok())
            .filter(|b| needs_tables(b))
            .map(Board::size),
    );
    let answer = |item: &BatchItem| -> Answer {
        let board = match &item.board {
            Ok(board) => board,
            Err(e) => return Answer::BadInput(e.to_string()),
        };
        if reduces(args, board) {
            let started = Instant::now();
            return match npuzzle_search::solve_by_reduction(board, goal) {
                Ok(moves) => Answer::Reduced {
                    moves,
                    lower_bound: board.manhattan(goal),
                    seconds: started.elapsed().as_secs_f64(),
                },
                Err(e) => Answer::Failed(e),
            };
        }
        let kind = heuristic_for(args, board.size());
        let request = Request {
            goal,
            algorithm,
            heuristic: kind,
            max_nodes: args.max_nodes,
            // One board: split its search across the threads; a batch:
            // one board per thread.
            parallel: items.len() == 1,
        };
        let mut label = HeuristicLabel {
            kind,
            partition: None,
            reflection: false,
        };
        let result = if needs_tables(board) {
            match &tables.by_size[&board.size()] {
                Ok((partition, pdbs)) => {
                    label.partition = Some(partition.name().to_string());
                    label.reflection = !args.no_reflection;
                    npuzzle_search::solve_additive(board, &request, pdbs, label.reflection)
                }
                Err(message) => return Answer::NoTables(message.clone()),
            }
        } else {
            npuzzle_search::solve(board, &request)
        };
        match result {
            Ok(solution) => Answer::Solved(solution, label),
            Err(e) => Answer::Failed(e),
        }
    };
    let jobs = args.jobs.unwrap_or_else(rayon::current_num_threads).max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(io::Error::other)?;
    Ok(pool.install(|| items.par_iter().map(answer).collect()))
}

/// The moves of an answer, when it has some.
fn moves_of(answer: &Answer) -> Option<&[Move]> {
    match answer {
        Answer::Solved(s, _) => Some(&s.moves),
        Answer::Reduced { moves, .. } => Some(moves),
        _ => None,
    }
}

pub fn run(args: &SolveArgs, out: &mut impl Write) -> io::Result<u8> {
    let items = match input::read_boards(&args.board, args.file.as_deref()) {
        Ok(items) => items,
        Err(message) => {
            eprintln!("npuzzle: {message}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if args.svg.is_some() && items.len() != 1 {
        eprintln!(
            "npuzzle: --svg animates one board; {} were given",
            items.len()
        );
        return Ok(EXIT_BAD_INPUT);
    }
    if !args.fast
        && items
            .iter()
            .any(|i| i.board.as_ref().is_ok_and(|b| reduces(args, b)))
    {
        eprintln!(
            "npuzzle: boards of {FAST_FROM_SIZE}x{FAST_FROM_SIZE} and more are solved by reduction, \
             not optimally (optimal search is out of reach); --algorithm idastar insists on a search"
        );
    }
    let started = Instant::now();
    let answers = compute(args, &items)?;
    if let (Some(path), Ok(board), Some(moves)) =
        (&args.svg, &items[0].board, moves_of(&answers[0]))
    {
        match show::svg(board, moves) {
            Ok(svg) => std::fs::write(path, svg).map_err(|e| {
                io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display()))
            })?,
            Err(message) => {
                eprintln!("npuzzle: {message}");
                return Ok(EXIT_FAILED);
            }
        }
    }

    let printer = Printer {
        args,
        batch: items.len() > 1,
    };
    let mut summary = Summary::default();
    let mut reported_tables = false;
    for (index, (item, answer)) in items.iter().zip(&answers).enumerate() {
        summary.boards += 1;
        match answer {
            Answer::Solved(s, _) => {
                summary.solved += 1;
                summary.nodes += s.stats.expanded;
                summary.seconds += s.elapsed.as_secs_f64();
            }
            Answer::Reduced { seconds, .. } => {
                summary.solved += 1;
                summary.seconds += seconds;
            }
            Answer::Failed(SearchError::Unsolvable) => summary.unsolvable += 1,
            Answer::Failed(_) => summary.failed += 1,
            Answer::NoTables(message) => {
                summary.failed += 1;
                if !std::mem::replace(&mut reported_tables, true) {
                    eprintln!("npuzzle: {message}");
                }
            }
            Answer::BadInput(_) => summary.bad_input += 1,
        }
        printer.print(out, index + 1, item, answer)?;
    }
    printer.print_summary(out, &summary, started.elapsed().as_secs_f64())?;
    Ok(if summary.bad_input > 0 {
        EXIT_BAD_INPUT
    } else if summary.failed > 0 {
        EXIT_FAILED
    } else {
        EXIT_OK
    })
}

struct Printer<'a> {
    args: &'a SolveArgs,
    batch: bool,
}

impl Printer<'_> {
    fn notation(&self) -> Notation {
        self.args.notation.into()
    }

    fn print(
        &self,
        out: &mut impl Write,
        number: usize,
        item: &BatchItem,
        answer: &Answer,
    ) -> io::Result<()> {
        if let Answer::BadInput(message) = answer {
            eprintln!("npuzzle: {message}");
        }
        if self.args.json {
            return self.print_json(out, item, answer);
        }
        let board = match (&item.board, answer) {
            (_, Answer::BadInput(message)) => {
                if self.batch {
                    writeln!(out, "Board {number}: error: {message}\n")?;
                }
                return Ok(());
            }
            (Ok(board), _) => board,
            (Err(_), _) => unreachable!("a board that did not parse is bad input"),
        };
        if self.batch {
            let place = if item.line > 0 {
                format!(" (line {})", item.line)
            } else {
                String::new()
            };
            writeln!(out, "Board {number}{place}: {board}")?;
        }
        match answer {
            Answer::Solved(s, label) => self.print_solution(out, board, s, label)?,
            Answer::Reduced {
                moves,
                lower_bound,
                seconds,
            } => self.print_reduced(out, board, moves, *lower_bound, *seconds)?,
            Answer::Failed(SearchError::Unsolvable) => writeln!(out, "No solution possible")?,
            Answer::Failed(e) => {
                writeln!(out, "No answer: {e}")?;
                eprintln!("npuzzle: {e}");
            }
            Answer::NoTables(_) => writeln!(out, "No answer: pattern databases missing")?,
            Answer::BadInput(_) => unreachable!(),
        }
        if self.batch {
            writeln!(out)?;
        }
        Ok(())
    }

    fn print_moves(&self, out: &mut impl Write, board: &Board, moves: &[Move]) -> io::Result<()> {
        if self.args.no_moves {
            return Ok(());
        }
        let who = self.notation().name();
        writeln!(
            out,
            "Moves ({who} direction): {}",
            Move::format_sequence(moves, self.notation())
        )?;
        if self.args.boards {
            for b in board.replay(moves).expect("a solution replays") {
                writeln!(out, "{}", b.to_grid())?;
            }
        }
        Ok(())
    }

    fn print_reduced(
        &self,
        out: &mut impl Write,
        board: &Board,
        moves: &[Move],
        lower_bound: u64,
        seconds: f64,
    ) -> io::Result<()> {
        writeln!(
            out,
            "Number of moves = {} (not optimal: solved by reduction)",
            moves.len()
        )?;
        self.print_moves(out, board, moves)?;
        writeln!(
            out,
            "Lower bound (Manhattan) {lower_bound}, length / bound {:.2}; {:.6} s",
            moves.len() as f64 / lower_bound.max(1) as f64,
            seconds
        )
    }

    fn print_solution(
        &self,
        out: &mut impl Write,
        board: &Board,
        s: &Solution,
        label: &HeuristicLabel,
    ) -> io::Result<()> {
        writeln!(out, "Minimum number of moves = {}", s.moves.len())?;
        self.print_moves(out, board, &s.moves)?;
        writeln!(
            out,
            "Nodes: {} expanded, {} generated; h0 {} ({}), {}, {:.6} s",
            s.stats.expanded,
            s.stats.generated,
            s.initial_estimate,
            label.text(self.args.algorithm.map_or(Algorithm::IdaStar, Into::into)),
            self.algorithm_name(),
            s.elapsed.as_secs_f64()
        )
    }

    fn algorithm_name(&self) -> &'static str {
        self.args
            .algorithm
            .map_or(Algorithm::IdaStar, Into::into)
            .name()
    }

    fn print_json(
        &self,
        out: &mut impl Write,
        item: &BatchItem,
        answer: &Answer,
    ) -> io::Result<()> {
        let line = (item.line > 0).then_some(item.line);
        let record = match (&item.board, answer) {
            (_, Answer::BadInput(message)) => json!({
                "type": "error", "line": line, "error": message,
            }),
            (Ok(board), answer) => {
                let mut record = json!({
                    "type": "solution",
                    "line": line,
                    "board": board.tiles(),
                    "size": board.size(),
                    "goal": self.args.goal.goal().name(),
                    "solvable": !matches!(answer, Answer::Failed(SearchError::Unsolvable)),
                    "algorithm": self.algorithm_name(),
                    "heuristic": match self.args.algorithm {
                        Some(crate::AlgorithmArg::Bfs) => "none",
                        _ => heuristic_for(self.args, board.size()).name(),
                    },
                    "length": null, "moves": null, "nodes": null, "generated": null,
                    "h0": null, "seconds": null,
                });
                match answer {
                    Answer::Solved(s, label) => {
                        if let Some(partition) = &label.partition {
                            record["partition"] = json!(partition);
                            record["reflection"] = json!(label.reflection);
                        }
                        record["length"] = json!(s.moves.len());
                        if !self.args.no_moves {
                            record["moves"] =
                                json!(Move::format_sequence(&s.moves, self.notation()));
                        }
                        record["notation"] = json!(self.notation().name());
                        record["nodes"] = json!(s.stats.expanded);
                        record["generated"] = json!(s.stats.generated);
                        record["h0"] = json!(s.initial_estimate);
                        record["seconds"] = json!(s.elapsed.as_secs_f64());
                        record["optimal"] = json!(true);
                    }
                    Answer::Reduced {
                        moves,
                        lower_bound,
                        seconds,
                    } => {
                        record["algorithm"] = json!("reduction");
                        record["heuristic"] = json!(null);
                        record["length"] = json!(moves.len());
                        if !self.args.no_moves {
                            record["moves"] = json!(Move::format_sequence(moves, self.notation()));
                        }
                        record["notation"] = json!(self.notation().name());
                        record["lower_bound"] = json!(lower_bound);
                        record["seconds"] = json!(seconds);
                        record["optimal"] = json!(false);
                    }
                    Answer::Failed(SearchError::Unsolvable) => {}
                    Answer::Failed(e) => record["error"] = json!(e.to_string()),
                    Answer::NoTables(message) => record["error"] = json!(message),
                    Answer::BadInput(_) => unreachable!(),
                }
                record
            }
            (Err(_), _) => unreachable!("a board that did not parse is bad input"),
        };
        writeln!(out, "{record}")
    }

    fn print_summary(&self, out: &mut impl Write, s: &Summary, wall: f64) -> io::Result<()> {
        if self.args.json {
            let record = json!({
                "type": "summary", "boards": s.boards, "solved": s.solved,
                "unsolvable": s.unsolvable, "failed": s.failed, "errors": s.bad_input,
                "nodes": s.nodes, "seconds": s.seconds, "wall_seconds": wall,
                "peak_rss_mb": peak_rss_megabytes(),
            });
            return writeln!(out, "{record}");
        }
        if self.batch {
            writeln!(
                out,
                "Boards: {}, solved {}, unsolvable {}, failed {}, bad input {}; {} nodes expanded, \
                 {:.3} s searching, {:.3} s wall",
                s.boards, s.solved, s.unsolvable, s.failed, s.bad_input, s.nodes, s.seconds, wall
            )?;
        }
        Ok(())
    }
}

/// The process's peak resident memory, where the system tells it (Linux).
fn peak_rss_megabytes() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kilobytes: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes / 1024.0)
}

/// `npuzzle play`: solves one board and plays the solution.
pub fn play(args: &SolveArgs, delay: std::time::Duration, out: &mut impl Write) -> io::Result<u8> {
    let items = match input::read_boards(&args.board, args.file.as_deref()) {
        Ok(items) => items,
        Err(message) => {
            eprintln!("npuzzle: {message}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if items.len() != 1 {
        eprintln!("npuzzle: play shows one board; {} were given", items.len());
        return Ok(EXIT_BAD_INPUT);
    }
    let answers = compute(args, &items)?;
    match (&items[0].board, &answers[0]) {
        (Err(e), _) => {
            eprintln!("npuzzle: {e}");
            Ok(EXIT_BAD_INPUT)
        }
        (Ok(board), answer) => match moves_of(answer) {
            Some(moves) => {
                show::play(board, moves, delay, out)?;
                Ok(EXIT_OK)
            }
            None => {
                let message = match answer {
                    Answer::Failed(e) => e.to_string(),
                    Answer::NoTables(m) | Answer::BadInput(m) => m.clone(),
                    _ => unreachable!("answers with moves are handled above"),
                };
                eprintln!("npuzzle: {message}");
                Ok(
                    if matches!(answer, Answer::Failed(SearchError::Unsolvable)) {
                        EXIT_OK
                    } else {
                        EXIT_FAILED
                    },
                )
            }
        },
    }
}
