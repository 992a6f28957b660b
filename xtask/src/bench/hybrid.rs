//! Section "hybrid": A*+IDA* (`--memory`) beside plain IDA* on the sets
//! issue 75 measures: the ten easiest of Korf & Felner's 24-puzzles with
//! `septet`, the 17 boards at distance 80 and Korf's 100 with 7-8; one
//! thread and two, one process per board.

use std::fmt::Write as _;
use std::path::Path;

use super::context::Ctx;
use super::data::{ensure_24_tables, fresh_page_cache};
use super::korf24::KORF24_TEN;
use super::korf50::{solve_to, Setting};
use super::sets::{read_set, Instance};
use super::strategies::join_strategies;

/// The budgets beside plain IDA*: one the best-first phase fills in a
/// second or two, one of about a gigabyte.
const BUDGETS: [&str; 2] = ["64M", "1G"];

/// The most one search may take; none of these comes near it.
const SECONDS_PER_BOARD: f64 = 900.0;

/// One set of boards and the tables it is solved with.
struct Set {
    name: &'static str,
    tables: &'static str,
    size: usize,
    goal: &'static str,
    instances: Vec<Instance>,
}

/// One configuration's sums over a set.
#[derive(Clone, Default)]
struct Totals {
    expanded: u64,
    best_first: u64,
    /// The processes' seconds, start and table mapping included.
    seconds: f64,
    search_seconds: f64,
    /// The largest of the processes' peaks.
    peak_rss_mb: f64,
    strategies: Vec<String>,
}

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    ensure_24_tables(npuzzle, "septet")?;
    let fifty = read_set("korf24_50.txt")?;
    let boards = |all: Vec<Instance>| -> Vec<Instance> {
        let count = if ctx.quick { 2 } else { all.len() };
        all.into_iter().take(count).collect()
    };
    let ten: Vec<Instance> = KORF24_TEN.iter().map(|&n| fifty[n - 1].clone()).collect();
    let sets = [
        Set {
            name: "Korf & Felner's ten easiest",
            tables: "septet",
            size: 5,
            goal: "blank-first",
            instances: boards(ten),
        },
        Set {
            name: "17 boards at distance 80",
            tables: "7-8",
            size: 4,
            goal: "blank-last",
            instances: boards(ctx.hard()?),
        },
        Set {
            name: "Korf's 100",
            tables: "7-8",
            size: 4,
            goal: "blank-last",
            instances: boards(ctx.korf()?),
        },
    ];
    let budgets: &[&str] = if ctx.quick { &BUDGETS[..1] } else { &BUDGETS };
    let memories: Vec<&str> = std::iter::once("-")
        .chain(budgets.iter().copied())
        .collect();
    let _ = writeln!(
        report,
        "## A*+IDA* (`--memory`) beside plain IDA*\n\n\
         One process per board, the configurations alternated board by board. Expanded \
         counts both phases; best first: the expansions of the best-first phase (A*). \
         Process seconds: start and table mapping included; search seconds: the \
         searches' own. Peak RSS: the largest of the processes' peaks, the mapped \
         tables' resident pages included. Against plain: nodes and search seconds over \
         plain IDA*'s on the same threads. Every length is the known optimum and every \
         answer replays. Korf & Felner's ten easiest 24-puzzles: #{}.\n\n\
         | set | boards | tables | threads | memory | expanded | best first | against plain: \
         nodes | process s | search s | against plain: s | peak RSS MB |\n\
         | --- | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        KORF24_TEN.map(|n| n.to_string()).join(", #")
    );
    let mut ran = Vec::new();
    for set in &sets {
        fresh_page_cache(npuzzle, set.tables, set.size, set.goal);
        for jobs in [1, 2] {
            let totals = solve_all(npuzzle, set, jobs, &memories)?;
            let plain = &totals[0];
            for (memory, t) in memories.iter().zip(&totals) {
                let row = format!(
                    "| {} | {} | {} | {jobs} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
                    set.name,
                    set.instances.len(),
                    set.tables,
                    if *memory == "-" { "plain IDA*" } else { memory },
                    t.expanded,
                    t.best_first,
                    t.expanded as f64 / plain.expanded.max(1) as f64,
                    t.seconds,
                    t.search_seconds,
                    t.search_seconds / plain.search_seconds.max(1e-9),
                    t.peak_rss_mb,
                );
                eprintln!("bench: hybrid {row}");
                let _ = writeln!(report, "{row}");
                ran.extend(t.strategies.iter().cloned());
            }
        }
    }
    ran.sort();
    ran.dedup();
    let _ = writeln!(
        report,
        "\nStrategy: {}.\n",
        join_strategies(ran.iter().map(String::as_str))
    );
    Ok(())
}

/// Every board of `set` on `jobs` threads, once for each of `memories`
/// (`-`: plain IDA*), in that order board by board.
fn solve_all(
    npuzzle: &Path,
    set: &Set,
    jobs: usize,
    memories: &[&str],
) -> Result<Vec<Totals>, String> {
    let mut totals = vec![Totals::default(); memories.len()];
    for instance in &set.instances {
        for (memory, total) in memories.iter().zip(totals.iter_mut()) {
            let setting = Setting {
                tables: set.tables.to_string(),
                jobs: jobs.to_string(),
                memory: memory.to_string(),
            };
            let answer = solve_to(
                npuzzle,
                instance,
                set.goal,
                &setting,
                SECONDS_PER_BOARD,
                None,
            )?
            .ok_or_else(|| {
                format!(
                    "{} with -j {jobs} --memory {memory}: not solved within {SECONDS_PER_BOARD} s",
                    instance.tiles
                )
            })?;
            total.expanded += answer.expanded;
            total.best_first += answer.best_first;
            total.seconds += answer.seconds;
            total.search_seconds += answer.search_seconds;
            total.peak_rss_mb = total.peak_rss_mb.max(answer.peak_rss_mb);
            if !total.strategies.contains(&answer.strategy) {
                total.strategies.push(answer.strategy);
            }
        }
    }
    Ok(totals)
}
