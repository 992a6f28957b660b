//! What the sections share: the standard sets, running `npuzzle solve
//! --json` over boards, the tables in data/, the integration tests.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use crate::workspace::root;

/// What every section is given.
pub struct Ctx {
    pub npuzzle: PathBuf,
    /// Fewer boards where a section has a smoke size.
    pub quick: bool,
    pub cores: usize,
    /// The 24-puzzle tables the korf24 section compares.
    pub korf24_partitions: Vec<String>,
    /// The random boards the distributed section labels.
    pub boards: u64,
}

impl Ctx {
    pub fn new(npuzzle: PathBuf, quick: bool, korf24_partitions: Vec<String>, boards: u64) -> Ctx {
        Ctx {
            npuzzle,
            quick,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            korf24_partitions,
            boards,
        }
    }

    /// Korf's 100 in the blank-last goal's form.
    pub fn korf(&self) -> Result<Vec<Instance>, String> {
        read_set("korf100_goal_blank_last.txt")
    }

    /// The 17 boards at distance 80.
    pub fn hard(&self) -> Result<Vec<Instance>, String> {
        read_set("hard80.txt")
    }
}

/// The heuristic strategy a `npuzzle solve --json` record names, `-` when
/// it names none.
pub fn strategy(record: &Value) -> &str {
    record["strategy"].as_str().unwrap_or("-")
}

/// The strategies of several records, each once, `-` for none.
pub fn strategies<'a>(records: impl IntoIterator<Item = &'a Value>) -> String {
    join_strategies(records.into_iter().map(strategy))
}

/// Distinct strategies, sorted and joined; `-` for none.
pub fn join_strategies<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: BTreeSet<&str> = names.into_iter().collect();
    if names.is_empty() {
        return "-".to_string();
    }
    let known: Vec<&str> = names.iter().copied().filter(|n| *n != "-").collect();
    if known.is_empty() {
        "-".to_string()
    } else {
        known.join(", ")
    }
}

/// One board of a set: its known optimal length and its tiles.
pub struct Instance {
    pub length: u64,
    pub tiles: String,
}

pub fn read_set(name: &str) -> Result<Vec<Instance>, String> {
    let path = root().join("bench").join(name);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            Instance {
                length: words[1].parse().expect("a length"),
                tiles: words[2..].join(" "),
            }
        })
        .collect())
}

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

/// Whether every table of `partition` (a 4x4 configuration) is in data/:
/// the megabytes they map and the seconds their builds took (as their
/// headers record, distinct tables once).
pub fn tables_built(npuzzle: &Path, partition: &str) -> Option<(f64, f64)> {
    let output = Command::new(npuzzle)
        .args(["pdb", "files", "--partition", partition, "--pdb-dir"])
        .arg(root().join("data"))
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let printed = String::from_utf8_lossy(&output.stdout);
    // "PATH: 259.5 MB to map, built in 42.5 s", then "288.3 MB mapped in all".
    let build_seconds = printed
        .lines()
        .filter_map(|line| {
            line.split("built in ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<f64>()
                .ok()
        })
        .sum();
    let mapped = printed
        .lines()
        .last()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some((mapped, build_seconds))
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

/// Drops the unpacked copies of `partition`'s tables (board side `size`,
/// `goal`) from the page cache, then maps them once. The timed runs then
/// find the pages as the kernel reads them for a map that asks for huge
/// pages (2 MiB folios, where the kernel and the filesystem keep them),
/// not as the page cache last held them: on this machine a cache partly
/// in small pages made `trio` 15-20 % slower. Tables not yet
/// unpacked, or unpacked outside data/cache, are left as they are; without
/// GNU `dd` nothing is dropped.
pub fn fresh_page_cache(npuzzle: &Path, partition: &str, size: usize, goal: &str) {
    let Ok(output) = Command::new(npuzzle)
        .args(["pdb", "files", "--partition", partition])
        .args(["--size", &size.to_string(), "--goal", goal, "--pdb-dir"])
        .arg(root().join("data"))
        .output()
    else {
        return;
    };
    // "PATH.pdb.zst: 259.5 MB to map, ...": the copy is data/cache/NAME.pdb.
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some(name) = line
            .split(": ")
            .next()
            .and_then(|path| Path::new(path).file_name()?.to_str()?.strip_suffix(".zst"))
        else {
            continue;
        };
        let unpacked = root().join("data/cache").join(name);
        if unpacked.is_file() {
            // count=0 with iflag=nocache asks to drop the whole file.
            let _ = Command::new("dd")
                .arg(format!("if={}", unpacked.display()))
                .args(["iflag=nocache", "count=0", "status=none"])
                .status();
        }
    }
    // One move from the goal: the blank and the tile before it swapped.
    let cells = size * size;
    let mut tiles: Vec<usize> = match goal {
        "blank-first" => (0..cells).collect(),
        _ => (1..cells).chain([0]).collect(),
    };
    let blank = tiles.iter().position(|&t| t == 0).unwrap_or(0);
    tiles.swap(blank, if blank == 0 { 1 } else { blank - 1 });
    let solved: Vec<String> = tiles.iter().map(|t| t.to_string()).collect();
    let _ = Command::new(npuzzle)
        .args([
            "solve",
            "--no-moves",
            "--partition",
            partition,
            "--goal",
            goal,
        ])
        .arg("--pdb-dir")
        .arg(root().join("data"))
        .arg(solved.join(" "))
        .stdout(Stdio::null())
        .status();
}

pub fn ensure_tables(npuzzle: &Path, partition: &str) -> Result<(), String> {
    let status = Command::new(npuzzle)
        .args(["pdb", "build", "--partition", partition, "--out"])
        .arg(root().join("data"))
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("building the {partition} tables failed"))
    }
}

pub fn has_default_tables() -> bool {
    ["9.10.11.12.13.14.15", "1.2.3.4.5.6.7.8"].iter().all(|t| {
        root()
            .join(format!("data/4x4-blank-last-{t}.pdb.zst"))
            .is_file()
    })
}

/// Runs the integration tests matching `filter` (release build, output
/// shown) with `envs`; returns what they printed on stderr.
pub fn integration_test(filter: &str, envs: &[(&str, &std::ffi::OsStr)]) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .args([
            "test",
            "--release",
            "--quiet",
            "--package",
            "npuzzle-cli",
            "--test",
            "integration",
            filter,
            "--",
            "--nocapture",
        ])
        .current_dir(root());
    for (name, value) in envs {
        command.env(name, value);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(format!(
            "the tests {filter} failed:\n{}{stderr}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    Ok(stderr)
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

/// The Manhattan distance of a board given as tiles, for the goal named.
pub fn manhattan(tiles: &[u64], blank_first: bool) -> u64 {
    let n = (tiles.len() as f64).sqrt().round() as u64;
    tiles
        .iter()
        .enumerate()
        .filter(|(_, &t)| t != 0)
        .map(|(cell, &t)| {
            let home = if blank_first { t } else { t - 1 };
            let cell = cell as u64;
            (cell / n).abs_diff(home / n) + (cell % n).abs_diff(home % n)
        })
        .sum()
}

/// Whether `moves` (the direction each tile slides, `--notation tile`)
/// are legal on `tiles` and end at the goal: the bench's own replay,
/// apart from the program's.
pub fn replays(tiles: &[u64], moves: &str, blank_first: bool) -> bool {
    let n = (tiles.len() as f64).sqrt().round() as usize;
    let mut tiles = tiles.to_vec();
    let Some(mut blank) = tiles.iter().position(|&t| t == 0) else {
        return false;
    };
    for letter in moves.chars() {
        // The tile slides towards the blank, so the blank goes the other way.
        let (row, column) = (blank / n, blank % n);
        let next = match letter {
            'U' if row + 1 < n => blank + n,
            'D' if row > 0 => blank - n,
            'L' if column + 1 < n => blank + 1,
            'R' if column > 0 => blank - 1,
            _ => return false,
        };
        tiles.swap(blank, next);
        blank = next;
    }
    let cells = tiles.len() as u64;
    tiles.iter().enumerate().all(|(cell, &tile)| {
        let expected = if blank_first {
            cell as u64
        } else {
            (cell as u64 + 1) % cells
        };
        tile == expected
    })
}

/// A board `steps` random moves (never straight back) from blank-last
/// solved, from a fixed generator, as text.
pub fn walked_board(n: usize, steps: usize, seed: u64) -> String {
    use npuzzle_board::{random_walk, Goal, SplitMix64};
    random_walk(n, Goal::BlankLast, steps, &mut SplitMix64::new(seed)).to_line()
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

pub fn random_boards(npuzzle: &Path, size: usize, count: usize) -> Result<String, String> {
    let output = Command::new(npuzzle)
        .args(["random", "--seed", "1", "--size", &size.to_string()])
        .args(["--count", &count.to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&output.stdout).to_string())
}

/// The first of the 17 boards at distance 80, the bench's one-board case.
pub const BOARD_80: &str = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";

/// What the sections on `npuzzle serve` say of the strategy: its answers
/// do not name it.
pub const SERVER_STRATEGY: &str =
    "Strategy: - (the server's answers do not name the heuristic strategy).";
