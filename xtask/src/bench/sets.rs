//! The standard sets and the boards the sections make.

use std::path::Path;
use std::process::Command;

use crate::workspace::root;

/// One board of a set: its known optimal length and its tiles.
#[derive(Clone)]
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

/// A board `steps` random moves (never straight back) from blank-last
/// solved, from a fixed generator, as text.
pub fn walked_board(n: usize, steps: usize, seed: u64) -> String {
    use npuzzle_board::{random_walk, Goal, SplitMix64};
    random_walk(n, Goal::BlankLast, steps, &mut SplitMix64::new(seed)).to_line()
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
