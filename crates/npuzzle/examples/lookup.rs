//! Prints a board's heuristic value: the number `npuzzle pdb lookup` prints
//! last.
//!
//! cargo run --release -p npuzzle --example lookup -- data "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"
//! cargo run --release -p npuzzle --example lookup -- DIR --partition 6-6-3 BOARD

use std::process::ExitCode;

use npuzzle::{parse_board, Goal, Partition, Tables};

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let (dir, partition, board) = match args {
        [dir, flag, name, board @ ..] if flag == "--partition" => (dir, Some(name), board),
        [dir, board @ ..] => (dir, None, board),
        [] => return Err("usage: lookup PDB_DIR [--partition NAME] BOARD".into()),
    };
    let board = parse_board(&board.join(" "))?;
    let tables = match partition {
        Some(name) => {
            Tables::open_partition(dir, &Partition::parse(name, board.size(), Goal::BlankLast)?)?
        }
        None => Tables::open(dir)?,
    };
    println!("{}", tables.heuristic(&board)?);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lookup: {e}");
            ExitCode::FAILURE
        }
    }
}
