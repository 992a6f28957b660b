//! Running `npuzzle solve --json` over boards, and what it gave.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use super::replay::{manhattan, replays};
use super::sets::Instance;
use super::strategies::{join_strategies, strategy};
use crate::workspace::root;

/// What one `npuzzle solve --json` run over a set gave.
pub struct Outcome {
    pub boards: usize,
    pub all_optimal: bool,
    pub wall: f64,
    pub expanded: u64,
    pub generated: u64,
    /// Sum over boards of each board's own search time (one thread each).
    pub search_seconds: f64,
    pub h0_sum: u64,
    pub peak_rss_mb: f64,
    pub unsolved: usize,
    /// The heuristic strategies the boards' records name.
    pub strategies: BTreeSet<String>,
}

impl Outcome {
    pub fn average(&self, total: u64) -> f64 {
        total as f64 / self.boards.max(1) as f64
    }

    /// The strategies that ran, joined; `-` when none was reported.
    pub fn strategy(&self) -> String {
        join_strategies(self.strategies.iter().map(String::as_str))
    }
}

/// The first JSON record of `npuzzle solve --json ARGS --pdb-dir data`.
pub fn first_record(npuzzle: &Path, args: &[&str]) -> Result<Value, String> {
    let output = Command::new(npuzzle)
        .args(["solve", "--json"])
        .args(args)
        .arg("--pdb-dir")
        .arg(root().join("data"))
        .output()
        .map_err(|e| format!("cannot run npuzzle: {e}"))?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| format!("npuzzle solve: {}", String::from_utf8_lossy(&output.stderr)))
}

pub fn solve_set(npuzzle: &Path, instances: &[Instance], args: &[&str]) -> Result<Outcome, String> {
    let input: String = instances.iter().map(|i| format!("{}\n", i.tiles)).collect();
    let started = Instant::now();
    let child = Command::new(npuzzle)
        .arg("solve")
        .arg("--json")
        .args(args)
        .arg("--pdb-dir")
        .arg(root().join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run npuzzle: {e}"))?;
    let output = feed_and_wait(child, input.into_bytes())?;
    let wall = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let records: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("bad JSON from npuzzle: {e}")))
        .collect::<Result<_, _>>()?;
    if records.len() != instances.len() + 1 {
        return Err(format!(
            "npuzzle answered {} records for {} boards: {}",
            records.len(),
            instances.len(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut outcome = Outcome {
        boards: instances.len(),
        all_optimal: true,
        wall,
        expanded: 0,
        generated: 0,
        search_seconds: 0.0,
        h0_sum: 0,
        peak_rss_mb: records[instances.len()]["peak_rss_mb"]
            .as_f64()
            .unwrap_or(0.0),
        unsolved: 0,
        strategies: BTreeSet::new(),
    };
    for (instance, record) in instances.iter().zip(&records) {
        outcome.strategies.insert(strategy(record).to_string());
        match record["length"].as_u64() {
            Some(length) => {
                outcome.all_optimal &= length == instance.length;
                outcome.expanded += record["expanded"].as_u64().unwrap_or(0);
                outcome.generated += record["generated"].as_u64().unwrap_or(0);
                outcome.search_seconds += record["seconds"].as_f64().unwrap_or(0.0);
                outcome.h0_sum += record["initial_estimate"].as_u64().unwrap_or(0);
            }
            None => {
                outcome.all_optimal = false;
                outcome.unsolved += 1;
            }
        }
    }
    Ok(outcome)
}

/// Writes `input` to the child's standard input from another thread while
/// its output is collected: writing it all first deadlocks once the child's
/// answers fill the output pipe.
pub fn feed_and_wait(
    mut child: std::process::Child,
    input: Vec<u8>,
) -> Result<std::process::Output, String> {
    use std::io::Write;
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    writer
        .join()
        .map_err(|_| "the input writer panicked".to_string())?
        .map_err(|e| format!("cannot write the boards to npuzzle: {e}"))?;
    Ok(output)
}

/// What `npuzzle solve --json` gave for some boards: per board (length,
/// Manhattan distance, seconds, record), and the summary's peak memory.
pub struct Batch {
    pub answers: Vec<(u64, u64, f64, Value)>,
    pub peak_rss_mb: f64,
    pub wall: f64,
}

/// Mean and worst of a batch's length / Manhattan and seconds per board.
pub struct Spread {
    pub ratio: f64,
    pub worst_ratio: f64,
    pub seconds: f64,
    pub worst_seconds: f64,
}

impl Batch {
    pub fn spread(&self) -> Spread {
        let ratios: Vec<f64> = self
            .answers
            .iter()
            .map(|(l, m, _, _)| *l as f64 / (*m).max(1) as f64)
            .collect();
        let seconds: Vec<f64> = self.answers.iter().map(|a| a.2).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let worst = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
        Spread {
            ratio: mean(&ratios),
            worst_ratio: worst(&ratios),
            seconds: mean(&seconds),
            worst_seconds: worst(&seconds),
        }
    }
}

/// `boards` solved one at a time, each by its own process
/// with every core: the time one board takes a user, not a batch's share.
/// Each answer's length, nodes and seconds go to standard error as they
/// come, so a long run that is cut short still tells what it found.
pub fn solve_each(npuzzle: &Path, boards: &[&str], args: &[&str]) -> Result<Batch, String> {
    let mut all = Batch {
        answers: Vec::new(),
        peak_rss_mb: 0.0,
        wall: 0.0,
    };
    for (index, board) in boards.iter().enumerate() {
        let one = solve_batch(npuzzle, &format!("{board}\n"), args)?;
        for (length, _, seconds, record) in &one.answers {
            eprintln!(
                "bench: board {index}: {length} moves, optimal {}, {} nodes, {seconds:.2} s",
                record["optimal"], record["expanded"]
            );
        }
        all.answers.extend(one.answers);
        all.peak_rss_mb = all.peak_rss_mb.max(one.peak_rss_mb);
        all.wall += one.wall;
    }
    Ok(all)
}

pub fn solve_batch(npuzzle: &Path, boards: &str, args: &[&str]) -> Result<Batch, String> {
    let started = Instant::now();
    let child = Command::new(npuzzle)
        .args(["solve", "--json", "--notation", "tile"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let output = feed_and_wait(child, boards.as_bytes().to_vec())?;
    let wall = started.elapsed().as_secs_f64();
    let records: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let peak_rss_mb = records
        .iter()
        .find(|r| r["type"] == "summary")
        .and_then(|r| r["peak_rss_mb"].as_f64())
        .unwrap_or(0.0);
    let mut answers = Vec::new();
    for mut record in records.into_iter().filter(|r| r["type"] != "summary") {
        if record["type"] != "solution" {
            return Err(format!(
                "npuzzle solve {args:?} did not solve a board: {record}"
            ));
        }
        let tiles: Vec<u64> = record["board"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let blank_first = record["goal"] == "blank-first";
        let moves = record["moves"].take();
        if !replays(&tiles, moves.as_str().unwrap_or_default(), blank_first) {
            return Err(format!(
                "npuzzle solve {args:?}: the moves do not take the board to the goal: {record}"
            ));
        }
        let bound = manhattan(&tiles, blank_first);
        let length = record["length"].as_u64().unwrap_or(0);
        let seconds = record["seconds"].as_f64().unwrap_or(0.0);
        answers.push((length, bound, seconds, record));
    }
    Ok(Batch {
        answers,
        peak_rss_mb,
        wall,
    })
}
