//! Section "princeton": the Princeton files, every answer checked.

use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use super::context::Ctx;

use super::strategies::strategies;
use crate::workspace::root;

/// The Princeton files with default options, every answer checked.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let started = Instant::now();
    let output = Command::new(npuzzle)
        .args(["solve", "--set", "--json", "--no-moves", "--pdb-dir"])
        .arg(root().join("data"))
        .arg(root().join("bench/princeton_8puzzle.txt"))
        .output()
        .map_err(|e| format!("cannot run npuzzle: {e}"))?;
    let records: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let summary = records
        .last()
        .cloned()
        .ok_or("no summary from npuzzle solve --set")?;
    let _ = writeln!(
        report,
        "## Princeton files, default options\n\n{} boards (2x2 to 10x10), {} solved, {} unsolvable, \
         {} disagreeing with the expected answer; {:.2} s wall; strategies {}.\n",
        summary["boards"],
        summary["solved"],
        summary["unsolvable"],
        summary["mismatches"],
        started.elapsed().as_secs_f64(),
        strategies(&records[..records.len() - 1]),
    );
    if summary["mismatches"] != 0 || !output.status.success() {
        return Err(format!(
            "Princeton files: answers disagree with the expected ones: {summary}"
        ));
    }
    Ok(())
}
