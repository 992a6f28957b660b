//! The beam search alone on a file of boards (one per line), one thread,
//! for each width asked: mean and worst length over Manhattan distance,
//! seconds and expanded nodes per board (docs/experiments.md).
//!
//! ```text
//! cargo run --release -p npuzzle --example beam -- DIR SIZE PARTITION|lc BOARDS WIDTH,...
//! npuzzle random --size 6 --count 10 --seed 1 > b6.txt
//! cargo run --release -p npuzzle --example beam -- data 6 5-5-5-5-5-5-5 b6.txt 10000,30000
//! ```

use std::process::ExitCode;
use std::time::Instant;

use npuzzle::{parse_board, Goal, Partition, Tables};
use npuzzle_search::Request;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("beam: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, size, partition, boards, widths] = &args[..] else {
        return Err("usage: beam DIR SIZE PARTITION|lc BOARDS WIDTH,...".into());
    };
    let size: usize = size.parse().map_err(|e| format!("size {size}: {e}"))?;
    let goal = Goal::BlankLast;
    let tables = match partition.as_str() {
        "lc" => None,
        name => {
            let partition = Partition::parse(name, size, goal).map_err(|e| e.to_string())?;
            Some(Tables::open_partition(dir, &partition).map_err(|e| e.to_string())?)
        }
    };
    let text = std::fs::read_to_string(boards).map_err(|e| format!("{boards}: {e}"))?;
    let boards = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| parse_board(line).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    for width in widths.split(',') {
        let width: usize = width.parse().map_err(|e| format!("width {width}: {e}"))?;
        let (mut ratios, mut seconds, mut nodes) = (Vec::new(), 0.0, 0);
        for board in &boards {
            let request = Request {
                goal,
                ..Request::default()
            };
            let started = Instant::now();
            let found = match &tables {
                Some(t) => npuzzle_search::beam_over(board, &request, &t.for_search(None), width),
                None => npuzzle_search::beam(board, &request, width),
            }
            .map_err(|e| format!("{board}: {e}"))?;
            seconds += started.elapsed().as_secs_f64();
            nodes += found.stats.expanded;
            ratios.push(found.moves.len() as f64 / board.manhattan(goal).max(1) as f64);
        }
        let count = boards.len().max(1) as f64;
        println!(
            "width {width}: mean ratio {:.3}, worst {:.3}, {:.2} s and {:.0} nodes per board",
            ratios.iter().sum::<f64>() / count,
            ratios.iter().cloned().fold(0.0, f64::max),
            seconds / count,
            nodes as f64 / count
        );
    }
    Ok(())
}
