//! Looks a board up with the light reader only (no C code, no thread pool):
//! maps the unpacked tables a solver left in `DIR/cache/`.
//!
//! cargo run --release -p npuzzle-pdb --features mmap --example light_lookup -- data 7-8 "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"

use std::process::ExitCode;

use npuzzle_board::{parse_board, Goal};
use npuzzle_pdb::{Partition, Tables};

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let [dir, partition, board @ ..] = args else {
        return Err("usage: light_lookup PDB_DIR PARTITION BOARD".into());
    };
    let board = parse_board(&board.join(" "))?;
    let partition = Partition::parse(partition, board.size(), Goal::BlankLast)?;
    let tables = Tables::open_unpacked(dir.as_ref(), &partition)?;
    let lookup = tables.lookup(&board)?;
    for (pdb, value) in tables.tables().iter().zip(&lookup.values) {
        println!("{}: {value}", pdb.pattern());
    }
    println!("sum: {}", lookup.sum);
    println!("reflected sum: {}", lookup.reflected_sum);
    println!("heuristic: {}", lookup.value);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("light_lookup: {e}");
            ExitCode::FAILURE
        }
    }
}
