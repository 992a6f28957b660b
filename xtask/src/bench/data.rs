//! The tables in data/: which are built, and their pages made fresh.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::workspace::root;

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

/// Builds the 4x4 tables of `partition` (default goal) that data/ lacks.
pub fn ensure_tables(npuzzle: &Path, partition: &str) -> Result<(), String> {
    build_missing(npuzzle, partition, &[])
}

/// Builds the 24-puzzle tables of `partition` (blank-first goal) that
/// data/ lacks.
pub fn ensure_24_tables(npuzzle: &Path, partition: &str) -> Result<(), String> {
    build_missing(
        npuzzle,
        partition,
        &["--size", "5", "--goal", "blank-first"],
    )
}

/// Builds the default tables of a `side`x`side` board (default goal) that
/// data/ lacks.
pub fn ensure_side_tables(npuzzle: &Path, side: usize) -> Result<(), String> {
    build_missing(
        npuzzle,
        npuzzle_pdb::Partition::default_name(side),
        &["--size", &side.to_string()],
    )
}

fn build_missing(npuzzle: &Path, partition: &str, board: &[&str]) -> Result<(), String> {
    let status = Command::new(npuzzle)
        .args(["pdb", "build"])
        .args(board)
        .args(["--partition", partition, "--out"])
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
