//! `npuzzle check`: whether boards are valid and solvable, and why not.

use std::io::{self, Write};

use npuzzle_board::Goal;

use crate::args::CheckArgs;
use crate::input;
use crate::status::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// `npuzzle check`: for each board (arguments or files, as `solve` reads
/// them), whether it is valid and solvable for the goal, and why not.
pub fn run(args: &CheckArgs, out: &mut impl Write) -> io::Result<u8> {
    let goal = args.goal.goal();
    let sources = match input::sources(&args.board, &[]) {
        Ok(sources) => sources,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let from_files = !matches!(&sources[..], [input::Source::Arguments(_)]);
    let mut status = EXIT_OK;
    let mut boards = 0;
    for item in input::Inputs::new(sources, false) {
        boards += 1;
        let input = match item {
            Ok(input) => input,
            Err(message) => {
                eprintln!("npuzzle: {message}");
                status = EXIT_BAD_INPUT;
                continue;
            }
        };
        let place = match (&input.file, from_files) {
            (Some(file), true) => format!("{file} line {}: ", input.item.line),
            _ => String::new(),
        };
        let board = match &input.item.board {
            Ok(board) => board,
            Err(e) => {
                // The place names the line the error would.
                let (place, e) = match (&input.file, from_files) {
                    (Some(file), true) => {
                        let line = e.line.unwrap_or(input.item.line);
                        let e = npuzzle_board::ParseError {
                            line: None,
                            ..e.clone()
                        };
                        (format!("{file} line {line}: "), e)
                    }
                    _ => (place, e.clone()),
                };
                writeln!(out, "{place}invalid: {e}")?;
                status = EXIT_BAD_INPUT;
                continue;
            }
        };
        let n = board.size();
        if board.is_solvable(goal) {
            writeln!(out, "{place}valid {n}x{n} board, solvable for goal {goal}")?;
            continue;
        }
        let other = Goal::ALL
            .into_iter()
            .find(|&g| g != goal && board.is_solvable(g));
        writeln!(
            out,
            "{place}valid {n}x{n} board, not solvable for goal {goal}: every move flips both \
             the parity of the tile permutation and the parity of the blank's distance to its \
             goal cell, and here they disagree{}",
            match other {
                Some(g) => format!(" (it is solvable for goal {g})"),
                None => String::new(),
            }
        )?;
        if status == EXIT_OK {
            status = EXIT_FAILED;
        }
    }
    if boards == 0 {
        eprintln!("npuzzle: no boards in the input");
        return Ok(EXIT_BAD_INPUT);
    }
    Ok(status)
}
