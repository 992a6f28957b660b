//! Section "near-optimal": what `npuzzle solve` answers by default on
//! boards no optimal search finishes (5x5 without tables, 6x6 and 7x7
//! with and without their tables, 8x8 to 10x10: the beam, repaired past
//! 8x8), against the targets of issue #61.

use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::context::Ctx;

use super::strategies::strategies;

use super::runs::solve_batch;

use super::sets::random_boards;

/// (side, mean length / Manhattan to reach).
const TARGETS: [(usize, f64); 5] = [(5, 1.40), (6, 1.50), (7, 1.60), (8, 1.70), (10, 1.90)];

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let _ = writeln!(
        report,
        "\n## Boards no optimal search finishes: the beam (default options)\n\n\
         Random boards (seed 1), solved as `npuzzle solve` does by default, two boards at \
         a time; length / Manhattan distance (optimal solutions are about 1.3 times it), \
         against the targets of issue #61. Without tables the beam is guided by linear \
         conflict; with the 6x6 or 7x7 tables (`npuzzle pdb build --size 6` or `--size 7`, \
         built afresh here) by them. Every answer is replayed to the goal by the bench \
         itself. Tables: MB mapped and build seconds on this machine. Seconds are per \
         board, one thread each.\n\n\
         | size | tables | MB | build s | boards | method | mean length / Manhattan | target | worst | mean s | worst s | peak RSS MB | wall s | strategy |\n\
         | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let empty = tempfile::tempdir().map_err(|e| e.to_string())?;
    let built = tempfile::tempdir().map_err(|e| e.to_string())?;
    for (size, target) in TARGETS {
        let count = if ctx.quick { 4 } else { 100 };
        let boards = random_boards(npuzzle, size, count)?;
        let mut runs = vec![("none".to_string(), empty.path().to_path_buf(), None)];
        if (6..=7).contains(&size) {
            let started = Instant::now();
            let status = Command::new(npuzzle)
                .args(["pdb", "build", "--size", &size.to_string(), "--out"])
                .arg(built.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("building the {size}x{size} tables failed"));
            }
            let seconds = started.elapsed().as_secs_f64();
            runs.push((
                npuzzle_pdb::Partition::default_name(size).to_string(),
                built.path().to_path_buf(),
                Some((mapped_mb(npuzzle, size, built.path())?, seconds)),
            ));
        }
        for (name, dir, table_figures) in runs {
            let dir = dir.to_string_lossy().to_string();
            let batch = solve_batch(npuzzle, &boards, &["--pdb-dir", &dir])?;
            let spread = batch.spread();
            let mut methods = std::collections::BTreeMap::new();
            for answer in &batch.answers {
                let algorithm = answer.3["algorithm"].as_str().unwrap_or("?").to_string();
                *methods.entry(algorithm).or_insert(0) += 1;
            }
            let methods: Vec<String> = methods.iter().map(|(m, c)| format!("{m} {c}")).collect();
            let (mb, build) = match table_figures {
                Some((mb, s)) => (format!("{mb:.0}"), format!("{s:.1}")),
                None => ("-".to_string(), "-".to_string()),
            };
            let _ = writeln!(
                report,
                "| {size}x{size} | {name} | {mb} | {build} | {} | {} | {:.3} | {target:.2} | {:.2} | {:.2} | {:.2} | {:.0} | {:.1} | {} |",
                batch.answers.len(),
                methods.join(", "),
                spread.ratio,
                spread.worst_ratio,
                spread.seconds,
                spread.worst_seconds,
                batch.peak_rss_mb,
                batch.wall,
                strategies(batch.answers.iter().map(|a| &a.3)),
            );
            eprintln!("bench: near-optimal {size}x{size} with tables {name} done");
        }
    }
    Ok(())
}

/// The MB the side's default tables in `dir` map, as `npuzzle pdb files`
/// says.
fn mapped_mb(npuzzle: &std::path::Path, size: usize, dir: &std::path::Path) -> Result<f64, String> {
    let output = Command::new(npuzzle)
        .args(["pdb", "files", "--size", &size.to_string(), "--pdb-dir"])
        .arg(dir)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|line| line.strip_suffix(" MB mapped in all"))
        .and_then(|mb| mb.trim().parse().ok())
        .ok_or_else(|| format!("`npuzzle pdb files --size {size}` named no size: {text}"))
}
