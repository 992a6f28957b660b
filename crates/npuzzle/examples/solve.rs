//! Solves a board optimally over the tables in a directory.
//!
//! cargo run --release -p npuzzle --example solve -- data "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"
//! cargo run --release -p npuzzle --example solve -- DIR --partition 6-6-3 BOARD

use std::process::ExitCode;

use npuzzle::{parse_board, Goal, Partition, Solver, Tables};

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let (dir, partition, board) = match args {
        [dir, flag, name, board @ ..] if flag == "--partition" => (dir, Some(name), board),
        [dir, board @ ..] => (dir, None, board),
        [] => return Err("usage: solve PDB_DIR [--partition NAME] BOARD".into()),
    };
    let board = parse_board(&board.join(" "))?;
    let tables = match partition {
        Some(name) => {
            Tables::open_partition(dir, &Partition::parse(name, board.size(), Goal::BlankLast)?)?
        }
        None => Tables::open(dir)?,
    };
    let solution = Solver::new(tables)?.solve(&board)?;
    println!("Minimum number of moves = {}", solution.length());
    println!("Moves: {}", solution.moves_text());
    println!(
        "Nodes: {} expanded, {} generated; h0 {}",
        solution.expanded, solution.generated, solution.initial_estimate
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("solve: {e}");
            ExitCode::FAILURE
        }
    }
}
