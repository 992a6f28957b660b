//! Section "korf24": the ten easiest of Korf & Felner's 24-puzzles beside
//! the published nodes of a zero-aware catalogue, and one thread against
//! two.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::context::Ctx;
use super::data::fresh_page_cache;
use super::korf50::{solve, Answer, Setting, PUBLISHED};
use super::sets::{read_set, Instance};
use super::strategies::join_strategies;
use crate::workspace::root;

/// The ten 24-puzzles of issue 12, by number in Korf & Felner's list, the
/// fewest published nodes first ([`PUBLISHED`]; the ten add up to
/// 793,728,587).
pub const KORF24_TEN: [usize; 10] = [38, 40, 44, 25, 1, 32, 37, 30, 28, 5];

/// The 24-puzzle tables `--korf24` compares by default.
const KORF24_DEFAULT: [&str; 3] = ["septet", "6z-6z-6z-6z", "compound"];

/// The ten beside the published figures, for each partition asked for.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let default: Vec<String> = KORF24_DEFAULT.iter().map(|p| p.to_string()).collect();
    let partitions = if ctx.korf24_partitions.is_empty() {
        &default
    } else {
        &ctx.korf24_partitions
    };
    for partition in partitions {
        korf24_section(&ctx.npuzzle, ctx.cores, partition, report)?;
    }
    Ok(())
}

fn korf24_section(
    npuzzle: &Path,
    cores: usize,
    partition: &str,
    report: &mut String,
) -> Result<(), String> {
    let started = Instant::now();
    let status = Command::new(npuzzle)
        .args(["pdb", "build", "--size", "5", "--goal", "blank-first"])
        .args(["--partition", partition, "--out"])
        .arg(root().join("data"))
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("building the {partition} tables failed"));
    }
    let build_seconds = started.elapsed().as_secs_f64();
    let output = Command::new(npuzzle)
        .args(["pdb", "files", "--size", "5", "--goal", "blank-first"])
        .args(["--partition", partition, "--pdb-dir"])
        .arg(root().join("data"))
        .output()
        .map_err(|e| e.to_string())?;
    let files = String::from_utf8_lossy(&output.stdout).to_string();
    let mapped_gb = mapped_megabytes(&files) / 1000.0;
    let _ = writeln!(
        report,
        "\n## 24-puzzle, optimal ({partition} + reflection), 10 minutes per board\n\n\
         The ten easiest of Korf & Felner's 50 by the published figures of \
         clausecker/24puzzle's zero-aware \"small\" catalogue \
         (doc/zpdb-paper-2/korf-small-zpdb.out); ratio = ours / published. Tables (checked or \
         built in {build_seconds:.0} s by this run; see each file's build time in \
         `npuzzle pdb info`):\n\n```\n{}```\n",
        files
    );
    let _ = writeln!(
        report,
        "| # | optimal length | solved length | expanded | published expanded | ratio | seconds | M nodes/s | strategy |"
    );
    let _ = writeln!(
        report,
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let set = read_set("korf24_50.txt")?;
    fresh_page_cache(npuzzle, partition, 5, "blank-first");
    let (mut ours, mut published_total, mut all_solved) = (0u64, 0u64, true);
    let mut total_seconds = 0.0;
    let mut search_seconds = 0.0;
    let mut ran = Vec::new();
    for number in KORF24_TEN {
        let published = PUBLISHED[number - 1];
        let instance = &set[number - 1];
        let run = solve_ten_minutes(npuzzle, instance, partition, cores)?;
        let (length, expanded) = (
            run.as_ref().map(|a| a.length),
            run.as_ref().map(|a| a.expanded),
        );
        // Out of time: the ten minutes spent, no answer.
        let (seconds, run_search_seconds) = run
            .as_ref()
            .map_or((600.0, 600.0), |a| (a.seconds, a.search_seconds));
        let run_strategy = run.as_ref().map_or("-".to_string(), |a| a.strategy.clone());
        search_seconds += run_search_seconds;
        all_solved &= run.is_some();
        total_seconds += seconds;
        ours += expanded.unwrap_or(0);
        published_total += published;
        let row = format!(
            "| {number} | {} | {} | {} | {published} | {} | {seconds:.1} | {} | {} |",
            instance.length,
            length.map_or("not within 600 s".to_string(), |l| l.to_string()),
            expanded.map_or(String::new(), |e| e.to_string()),
            expanded.map_or(String::new(), |e| format!(
                "{:.2}",
                e as f64 / published as f64
            )),
            expanded.map_or(String::new(), |e| format!(
                "{:.2}",
                e as f64 / run_search_seconds / 1e6
            )),
            run_strategy,
        );
        ran.push(run_strategy);
        let _ = writeln!(report, "{row}");
        eprintln!("bench: 24-puzzle {row}");
    }
    let _ = writeln!(
        report,
        "| all | | {} | {ours} | {published_total} | {:.2} | {total_seconds:.0} | {:.2} | {} |\n\n\
         Seconds are the process's, start and table mapping included; M nodes/s is \
         expanded nodes over the search's own time, on every core. Half the published \
         total in at most 2 GB of tables (issue 34): {:.1} M nodes against {:.1} M, \
         {mapped_gb:.2} GB mapped: {}.",
        if all_solved {
            "all optimal"
        } else {
            "NOT all solved"
        },
        ours as f64 / published_total as f64,
        ours as f64 / search_seconds / 1e6,
        join_strategies(ran.iter().map(String::as_str)),
        ours as f64 / 1e6,
        published_total as f64 / 2e6,
        if all_solved && 2 * ours <= published_total && mapped_gb <= 2.0 {
            "met"
        } else {
            "not met"
        }
    );
    korf24_threads(npuzzle, partition, &set, report)
}

/// The megabytes `npuzzle pdb files` says its tables map ("...: 90.5 MB
/// to map, ...").
fn mapped_megabytes(files: &str) -> f64 {
    files
        .lines()
        .filter_map(|line| {
            line.split(": ")
                .nth(1)?
                .split(" MB to map")
                .next()?
                .parse::<f64>()
                .ok()
        })
        .sum()
}

/// The six 24-puzzles of issue 34 on one thread and on two: nodes,
/// seconds and node rates, and the speed-up.
fn korf24_threads(
    npuzzle: &Path,
    partition: &str,
    set: &[Instance],
    report: &mut String,
) -> Result<(), String> {
    let _ = writeln!(
        report,
        "\n{partition}, one thread against two (search time; speed-up = one thread's time \
         over two's; rate ratio = two threads' node rate over one's):\n\n\
         | # | length | nodes, 1 thread | s | M nodes/s | nodes, 2 threads | s | M nodes/s | \
         speed-up | rate ratio |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let mut totals = [(0u64, 0f64); 2];
    let mut ran = Vec::new();
    for number in [40, 44, 38, 25, 32, 1] {
        let instance = &set[number - 1];
        let mut runs = Vec::new();
        for (t, jobs) in [1, 2].into_iter().enumerate() {
            let run = solve_ten_minutes(npuzzle, instance, partition, jobs)?
                .ok_or_else(|| format!("24-puzzle #{number} with -j {jobs}: not within 600 s"))?;
            let nodes = run.expanded;
            totals[t].0 += nodes;
            totals[t].1 += run.search_seconds;
            runs.push((nodes, run.search_seconds));
            ran.push(run.strategy);
        }
        let row = format!(
            "| {number} | {} | {} |",
            instance.length,
            one_against_two(runs[0], runs[1], 2)
        );
        let _ = writeln!(report, "{row}");
        eprintln!("bench: 24-puzzle threads {row}");
    }
    let _ = writeln!(
        report,
        "| all | | {} |\n\nStrategy: {}.",
        one_against_two(totals[0], totals[1], 1),
        join_strategies(ran.iter().map(String::as_str))
    );
    Ok(())
}

/// The cells of a one- against two-thread row: each run's nodes, seconds
/// (`digits` decimals) and M nodes/s, then the speed-up and the rate ratio.
fn one_against_two(one: (u64, f64), two: (u64, f64), digits: usize) -> String {
    let rate = |(nodes, seconds): (u64, f64)| nodes as f64 / seconds / 1e6;
    format!(
        "{} | {:.digits$} | {:.2} | {} | {:.digits$} | {:.2} | {:.2} | {:.2}",
        one.0,
        one.1,
        rate(one),
        two.0,
        two.1,
        rate(two),
        one.1 / two.1,
        rate(two) / rate(one),
    )
}

/// One 24-puzzle on `jobs` threads within ten minutes, solved as the
/// korf50 section solves them: its length checked, its moves replayed.
fn solve_ten_minutes(
    npuzzle: &Path,
    instance: &Instance,
    partition: &str,
    jobs: usize,
) -> Result<Option<Answer>, String> {
    let setting = Setting {
        tables: partition.to_string(),
        jobs: jobs.to_string(),
        memory: "-".to_string(),
    };
    solve(npuzzle, instance, &setting, 600.0, None)
}
