//! Section "tables": every 15-puzzle table configuration built in data/,
//! memory against nodes and time.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use super::context::Ctx;

use super::data::{fresh_page_cache, tables_built};

use super::strategies::join_strategies;

use super::runs::solve_set;

use super::sets::BOARD_80;
use crate::workspace::root;

/// The 15-puzzle table configurations the bench compares, with how to
/// build each.
const CONFIGURATIONS: [&str; 12] = [
    "7-8",
    "7z-8",
    "L7-8",
    "L7z-8",
    "7-8+S7-8",
    "7z-8+L7-8",
    "7z-8+S7-8",
    "duo",
    "7z-8+L7z-8",
    "7z-8+L7-8+S7-8",
    "7-8+L7-8+S7-8",
    "trio",
];

/// One 80-move board end to end, `runs` times: (median s, best s, peak RSS
/// MB of the median run, expanded).
fn one_board(npuzzle: &Path, args: &[&str], runs: usize) -> Result<(f64, f64, f64, u64), String> {
    let mut samples = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let output = Command::new(npuzzle)
            .args(["solve", "--json", BOARD_80])
            .args(args)
            .arg("--pdb-dir")
            .arg(root().join("data"))
            .output()
            .map_err(|e| e.to_string())?;
        let seconds = started.elapsed().as_secs_f64();
        let text = String::from_utf8_lossy(&output.stdout);
        let mut lines = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok());
        let record = lines.next().ok_or("no answer for the 80-move board")?;
        if record["length"] != 80 {
            return Err(format!("the 80-move board was answered {record}"));
        }
        let rss = lines
            .next_back()
            .and_then(|s| s["peak_rss_mb"].as_f64())
            .unwrap_or(0.0);
        samples.push((seconds, rss, record["expanded"].as_u64().unwrap_or(0)));
    }
    samples.sort_by(|a, b| a.0.total_cmp(&b.0));
    let median = samples[samples.len() / 2];
    Ok((median.0, samples[0].0, median.1, median.2))
}

/// Every 15-puzzle table configuration built: memory against nodes and time.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let korf = &ctx.korf()?;
    let hard = &ctx.hard()?;
    let _ = writeln!(
        report,
        "## 15-puzzle tables: memory against nodes and time\n\n\
         Each configuration that is built in data/ (the others are listed with the command \
         that builds them), all with the reflected lookup. `z`: zero-aware table; `+`: a \
         catalogue, the largest of the partitions' sums. Mapped: the tables' bytes; build: the \
         seconds their builds took on this machine, as the files' headers record. The 17 \
         boards and Korf's 100 are solved in one process each, boards in parallel; the \
         80-move board alone, process start to answer, median of 3 runs, with that run's \
         peak resident memory.\n"
    );
    let _ = writeln!(
        report,
        "| tables | mapped MB | build s | Korf's 100 avg h0 | Korf's 100 avg expanded | 17 x 80: total expanded | 17 x 80: wall s | 17 x 80: expanded/s per core | one 80-move board: s (best) | its expanded | its peak RSS MB | strategy |"
    );
    let _ = writeln!(
        report,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    for config in CONFIGURATIONS {
        let Some((mapped, build_seconds)) = tables_built(npuzzle, config) else {
            let _ = writeln!(
                report,
                "| {config} | not built: `cargo xtask build-pdb --partition {config}` | | | | | | | | | | | |"
            );
            continue;
        };
        let args = ["--partition", config];
        fresh_page_cache(npuzzle, config, 4, "blank-last");
        let korf_outcome = solve_set(npuzzle, korf, &args)?;
        let hard_outcome = solve_set(npuzzle, hard, &args)?;
        if !korf_outcome.all_optimal || !hard_outcome.all_optimal {
            return Err(format!("{config}: a length differs from the known optimum"));
        }
        let (median, best, rss, nodes) = one_board(npuzzle, &args, 3)?;
        let _ = writeln!(
            report,
            "| {config} | {mapped:.0} | {build_seconds:.0} | {:.2} | {:.0} | {} | {:.2} | {:.2e} | {median:.3} ({best:.3}) | {nodes} | {rss:.0} | {} |",
            korf_outcome.average(korf_outcome.h0_sum),
            korf_outcome.average(korf_outcome.expanded),
            hard_outcome.expanded,
            hard_outcome.wall,
            hard_outcome.expanded as f64 / hard_outcome.search_seconds.max(1e-9),
            join_strategies(
                korf_outcome
                    .strategies
                    .iter()
                    .chain(&hard_outcome.strategies)
                    .map(String::as_str)
            ),
        );
        eprintln!("bench: tables {config}: done");
    }
    let _ = writeln!(report);
    Ok(())
}
