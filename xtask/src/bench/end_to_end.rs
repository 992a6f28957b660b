//! Section "end-to-end": one 80-move board as a user runs it.

use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::context::Ctx;

use super::strategies::strategy;

use super::runs::first_record;

use super::sets::BOARD_80;
use crate::workspace::root;

/// One 80-move board, end to end, as a user runs it.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let mut latencies = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let status = Command::new(npuzzle)
            .args(["solve", BOARD_80, "--pdb-dir"])
            .arg(root().join("data"))
            .stdout(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err("solving the 80-move board failed".to_string());
        }
        latencies.push(started.elapsed().as_secs_f64());
    }
    latencies.sort_by(f64::total_cmp);
    // The timed runs print as a user sees them; one more, untimed, in JSON
    // names the strategy.
    let record = first_record(npuzzle, &["--no-moves", BOARD_80])?;
    let _ = writeln!(
        report,
        "## One 80-move board end to end\n\n\
         `npuzzle solve \"{BOARD_80}\"`, process start to answer, 5 runs: median {:.3} s, \
         best {:.3} s; tables {} (the strongest set built in data/), strategy {}.\n",
        latencies[2],
        latencies[0],
        record["partition"].as_str().unwrap_or("-"),
        strategy(&record)
    );
    Ok(())
}
