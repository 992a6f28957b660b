//! Section "build": the default tables and a 24-puzzle set built afresh.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::context::Ctx;
use crate::workspace::root;

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    build_section(&ctx.npuzzle, "the default tables (7-8)", &[], report)?;
    build_section(
        &ctx.npuzzle,
        "a 24-puzzle set (6z-6z-6z-6z: four zero-aware 6-tile tables)",
        &[
            "--size",
            "5",
            "--goal",
            "blank-first",
            "--partition",
            "6z-6z-6z-6z",
        ],
        report,
    )
}

/// Builds tables afresh (`npuzzle pdb build` with `args`, by default the
/// 7-8 set) and reports what the build printed: each table's time and the
/// whole build's time and peak memory.
fn build_section(
    npuzzle: &Path,
    what: &str,
    args: &[&str],
    report: &mut String,
) -> Result<(), String> {
    let dir = root().join("target/bench-build");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    eprintln!("bench: building {what} into {}", dir.display());
    let started = Instant::now();
    let output = Command::new(npuzzle)
        .args(["pdb", "build"])
        .args(args)
        .arg("--out")
        .arg(&dir)
        .output()
        .map_err(|e| format!("cannot run npuzzle: {e}"))?;
    let wall = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    if !output.status.success() {
        return Err(format!(
            "the build failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let _ = writeln!(
        report,
        "\n## Building {what}\n\n`npuzzle pdb build{}` into an empty directory: {wall:.1} s \
         wall, process start to exit. What it printed:\n\n```",
        args.iter().fold(String::new(), |line, a| line + " " + a)
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    let prefix = format!("{}/", dir.display());
    for line in printed.lines() {
        let _ = writeln!(report, "{}", line.strip_prefix(&prefix).unwrap_or(line));
    }
    let _ = writeln!(report, "```");
    Ok(())
}
