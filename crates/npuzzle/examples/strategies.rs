//! Alternated A/B runs of the additive heuristic's strategies on one set of
//! boards, one thread, in one process (the same tables, the same page
//! cache): each strategy's expanded nodes, which must agree, and its
//! search seconds per round, with the median and the ratio to the first.
//!
//! ```text
//! cargo run --release -p npuzzle --example strategies -- \
//!     DIR SIZE GOAL PARTITION BOARDS ROUNDS STRATEGY...
//! cargo run --release -p npuzzle --example strategies -- \
//!     data 4 blank-last 7-8 bench/hard80.txt 5 prepared-ranks unrolled-partitions
//! ```
//!
//! BOARDS is a file of lines `number length tiles...` (bench/*.txt); a
//! number after `#` picks those lines only (`bench/korf24_50.txt#25`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use npuzzle::{parse_board, Goal, Partition, Tables};
use npuzzle_search::{Request, Strategy};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("strategies: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, size, goal, partition, boards, rounds, strategies @ ..] = &args[..] else {
        return Err("usage: strategies DIR SIZE GOAL PARTITION BOARDS ROUNDS STRATEGY...".into());
    };
    let size: usize = size.parse().map_err(|e| format!("size {size}: {e}"))?;
    let goal: Goal = goal.parse().map_err(|e| format!("{e}"))?;
    let rounds: usize = rounds
        .parse()
        .map_err(|e| format!("rounds {rounds}: {e}"))?;
    let strategies: Vec<Strategy> = strategies
        .iter()
        .map(|name| Strategy::from_name(name).ok_or(format!("no strategy named {name}")))
        .collect::<Result<_, _>>()?;
    let partition = Partition::parse(partition, size, goal).map_err(|e| e.to_string())?;
    let tables = Tables::open_partition(dir, &partition).map_err(|e| e.to_string())?;
    let (path, only) = match boards.split_once('#') {
        Some((path, number)) => (path, Some(number.to_string())),
        None => (boards.as_str(), None),
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut set = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if only.as_deref().is_some_and(|n| n != words[0]) {
            continue;
        }
        let length: usize = words[1].parse().map_err(|e| format!("{line}: {e}"))?;
        let board = parse_board(&words[2..].join(" ")).map_err(|e| e.to_string())?;
        set.push((length, board));
    }
    let mut seconds: Vec<Vec<Duration>> = vec![Vec::new(); strategies.len()];
    let mut nodes = vec![0u64; strategies.len()];
    for round in 0..rounds {
        // Alternated: each round starts with the next strategy.
        for k in 0..strategies.len() {
            let s = (k + round) % strategies.len();
            let request = Request {
                goal,
                heuristic: npuzzle_search::HeuristicKind::Pdb,
                ..Request::default()
            };
            let catalogue = tables.for_search(Some(strategies[s]));
            let mut expanded = 0;
            let mut spent = Duration::ZERO;
            for (length, board) in &set {
                let started = Instant::now();
                let solution = npuzzle_search::solve_over(board, &request, &catalogue)
                    .map_err(|e| format!("{}: {e}", strategies[s]))?;
                spent += started.elapsed();
                if solution.moves.len() != *length {
                    return Err(format!(
                        "{}: {} moves where {length} are optimal",
                        strategies[s],
                        solution.moves.len()
                    ));
                }
                assert_eq!(solution.stats.strategy, strategies[s].name());
                expanded += solution.stats.expanded;
            }
            if round > 0 && nodes[s] != expanded {
                return Err(format!("{}: nodes changed between rounds", strategies[s]));
            }
            nodes[s] = expanded;
            seconds[s].push(spent);
            println!(
                "round {round} {:<12} expanded {expanded:>12} search {:.3} s",
                strategies[s],
                spent.as_secs_f64()
            );
        }
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2].as_secs_f64()
    };
    let first = median(&mut seconds[0].clone());
    for (s, strategy) in strategies.iter().enumerate() {
        let m = median(&mut seconds[s]);
        println!(
            "{strategy:<12} expanded {:>12} median {m:.3} s ratio {:.3}",
            nodes[s],
            m / first
        );
    }
    if nodes.iter().any(|&n| n != nodes[0]) {
        return Err("the strategies expanded different nodes".into());
    }
    Ok(())
}
