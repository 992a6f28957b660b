//! Solves a board with the engine of `npuzzle solve`, over the tables in a
//! directory.
//!
//! cargo run --release -p npuzzle --example solve -- data "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"
//! cargo run --release -p npuzzle --example solve -- DIR --partition 6-6-3 BOARD

use npuzzle::{parse_board, Partition, Solver};

fn main() -> Result<(), npuzzle::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, partition, board) = match &args[..] {
        [dir, flag, name, board @ ..] if flag == "--partition" => (dir, Some(name), board),
        [dir, board @ ..] => (dir, None, board),
        [] => {
            eprintln!("usage: solve PDB_DIR [--partition NAME] BOARD");
            std::process::exit(2);
        }
    };
    let board = parse_board(&board.join(" "))?;
    let size = board.size();
    // The tables of the board's side are required: opened now, or an error
    // that says how to build them.
    let name = partition.map_or(Partition::default_name(size), String::as_str);
    let solver = Solver::builder()
        .pdb_dir(dir)
        .partition_for(size, name)
        .open_tables_now(size)
        .build()?;
    let solution = solver.solve(&board)?;
    println!("Minimum number of moves = {}", solution.length());
    println!("Moves: {}", solution.moves_text());
    println!(
        "Nodes: {} expanded, {} generated; h0 {}",
        solution.expanded(),
        solution.generated(),
        solution.initial_estimate.unwrap_or(0)
    );
    Ok(())
}
