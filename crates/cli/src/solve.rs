//! `npuzzle solve`: read the boards, solve them (in parallel for batches),
//! print each answer in input order.

use std::io::{self, Write};
use std::time::Instant;

use npuzzle_board::{BatchItem, Board, Move, Notation};
use npuzzle_search::{Request, SearchError, Solution};
use rayon::prelude::*;
use serde_json::json;

use crate::{input, SolveArgs, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// What became of one input board.
enum Answer {
    Solved(Solution),
    Failed(SearchError),
    BadInput(String),
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

pub fn run(args: &SolveArgs, out: &mut impl Write) -> io::Result<u8> {
    let items = match input::read_boards(&args.board, args.file.as_deref()) {
        Ok(items) => items,
        Err(message) => {
            eprintln!("npuzzle: {message}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let request = Request {
        goal: args.goal.goal(),
        algorithm: args.algorithm.into(),
        heuristic: args.heuristic.into(),
        max_nodes: args.max_nodes,
    };
    let started = Instant::now();
    let answer = |item: &BatchItem| match &item.board {
        Ok(board) => match npuzzle_search::solve(board, &request) {
            Ok(solution) => Answer::Solved(solution),
            Err(e) => Answer::Failed(e),
        },
        Err(e) => Answer::BadInput(e.to_string()),
    };
    let jobs = args.jobs.unwrap_or_else(rayon::current_num_threads).max(1);
    let answers: Vec<Answer> = if jobs > 1 && items.len() > 1 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(io::Error::other)?;
        pool.install(|| items.par_iter().map(answer).collect())
    } else {
        items.iter().map(answer).collect()
    };

    let printer = Printer {
        args,
        batch: items.len() > 1,
    };
    let mut summary = Summary::default();
    for (index, (item, answer)) in items.iter().zip(&answers).enumerate() {
        summary.boards += 1;
        match answer {
            Answer::Solved(s) => {
                summary.solved += 1;
                summary.nodes += s.stats.expanded;
                summary.seconds += s.elapsed.as_secs_f64();
            }
            Answer::Failed(SearchError::Unsolvable) => summary.unsolvable += 1,
            Answer::Failed(_) => summary.failed += 1,
            Answer::BadInput(_) => summary.bad_input += 1,
        }
        printer.print(out, index + 1, item, answer)?;
    }
    summary.seconds = summary.seconds.max(0.0);
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
            Answer::Solved(s) => self.print_solution(out, board, s)?,
            Answer::Failed(SearchError::Unsolvable) => writeln!(out, "No solution possible")?,
            Answer::Failed(e) => {
                writeln!(out, "No answer: {e}")?;
                eprintln!("npuzzle: {e}");
            }
            Answer::BadInput(_) => unreachable!(),
        }
        if self.batch {
            writeln!(out)?;
        }
        Ok(())
    }

    fn print_solution(&self, out: &mut impl Write, board: &Board, s: &Solution) -> io::Result<()> {
        writeln!(out, "Minimum number of moves = {}", s.moves.len())?;
        let who = match self.notation() {
            Notation::Tile => "tile",
            Notation::Blank => "blank",
        };
        writeln!(
            out,
            "Moves ({who} direction): {}",
            Move::format_sequence(&s.moves, self.notation())
        )?;
        if self.args.boards {
            let boards = board.replay(&s.moves).expect("a solution replays");
            for b in boards {
                writeln!(out, "{}", b.to_grid())?;
            }
        }
        writeln!(
            out,
            "Nodes: {} expanded, {} generated; h0 {} ({}), {}, {:.6} s",
            s.stats.expanded,
            s.stats.generated,
            s.initial_estimate,
            self.heuristic_name(),
            self.algorithm_name(),
            s.elapsed.as_secs_f64()
        )
    }

    fn heuristic_name(&self) -> &'static str {
        npuzzle_search::HeuristicKind::from(self.args.heuristic).name()
    }

    fn algorithm_name(&self) -> &'static str {
        npuzzle_search::Algorithm::from(self.args.algorithm).name()
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
                    "heuristic": self.heuristic_name(),
                    "length": null, "moves": null, "nodes": null, "generated": null,
                    "h0": null, "seconds": null,
                });
                match answer {
                    Answer::Solved(s) => {
                        record["length"] = json!(s.moves.len());
                        record["moves"] = json!(Move::format_sequence(&s.moves, self.notation()));
                        record["notation"] = json!(match self.notation() {
                            Notation::Tile => "tile",
                            Notation::Blank => "blank",
                        });
                        record["nodes"] = json!(s.stats.expanded);
                        record["generated"] = json!(s.stats.generated);
                        record["h0"] = json!(s.initial_estimate);
                        record["seconds"] = json!(s.elapsed.as_secs_f64());
                        record["optimal"] = json!(true);
                    }
                    Answer::Failed(SearchError::Unsolvable) => {}
                    Answer::Failed(e) => record["error"] = json!(e.to_string()),
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
