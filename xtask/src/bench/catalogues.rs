//! Section "catalogues": the 4x4 catalogues on the 17 boards at distance
//! 80, three ways.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Instant;

use super::context::Ctx;

use super::data::{fresh_page_cache, tables_built};

use super::strategies::{join_strategies, strategy};

use super::runs::{first_record, solve_set};

/// The 4x4 catalogues against 7-8 on the 17 boards at distance 80 (fewer
/// nodes for more lookups per move), with the tables a move reads: one of
/// each partition in each view, but none in the mirror's view of the L and
/// square partitions, which are their own mirror images.
const CATALOGUES: [(&str, usize); 6] = [
    ("7-8", 2),
    ("7z-8", 2),
    ("7-8+S7-8", 3),
    ("duo", 3),
    ("7-8+L7-8+S7-8", 4),
    ("trio", 4),
];
/// Runs of the 17 boards in parallel per set, the median reported.
const CATALOGUE_ROUNDS: usize = 5;

/// The 4x4 catalogues that are built, on the 17 boards at distance 80:
/// boards in parallel in one process; one process per board, its search
/// split over the cores; one process per board on one thread.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let hard = &ctx.hard()?;
    let _ = writeln!(
        report,
        "## 4x4 catalogues on the 17 boards at distance 80\n\n\
         With the reflected lookup. Boards in parallel: one process, each board on one \
         thread, wall seconds, the median of {CATALOGUE_ROUNDS} runs, the sets alternated run \
         by run. One process per board: the search split over the cores, the sum of the \
         processes' seconds (start, table mapping and checks included) and of their \
         searches'. One thread: one process per board with `--jobs 1`, search seconds. \
         Both alternate the sets board by board. Lookups per move: the tables a move \
         reads, in both views (a partition that is its own mirror image is read in the \
         board's view alone). Against 7-8: \
         the ratio of wall seconds boards in parallel, and of process seconds one process \
         per board. The tables are dropped from the page cache and mapped once before the \
         runs.\n"
    );
    let _ = writeln!(
        report,
        "| tables | lookups per move | boards in parallel: expanded | wall s | against 7-8 | one process per board: expanded | process s | search s | against 7-8 | one thread: expanded | search s | M nodes/s | strategy |"
    );
    let _ = writeln!(
        report,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let built: Vec<&str> = CATALOGUES
        .iter()
        .map(|(config, _)| *config)
        .filter(|config| tables_built(npuzzle, config).is_some())
        .collect();
    for config in &built {
        fresh_page_cache(npuzzle, config, 4, "blank-last");
    }
    // Boards in parallel: (expanded, wall seconds of each round), the sets
    // alternated round by round, so that a change in the machine's load
    // falls on all of them.
    let mut parallel: Vec<(u64, Vec<f64>)> = vec![(0, Vec::new()); built.len()];
    // The strategies each set's searches named.
    let mut ran: Vec<BTreeSet<String>> = vec![BTreeSet::new(); built.len()];
    for _ in 0..CATALOGUE_ROUNDS {
        for ((config, (expanded, walls)), ran) in
            built.iter().zip(parallel.iter_mut()).zip(ran.iter_mut())
        {
            let outcome = solve_set(npuzzle, hard, &["--partition", config])?;
            ran.extend(outcome.strategies.iter().cloned());
            if !outcome.all_optimal {
                return Err(format!("{config}: a length differs from the known optimum"));
            }
            *expanded = outcome.expanded;
            walls.push(outcome.wall);
        }
    }
    eprintln!("bench: catalogues: boards in parallel done");
    // One process per board, split over the cores and on one thread:
    // (expanded, process seconds, search seconds), the sets alternated
    // board by board.
    let mut split = vec![(0u64, 0.0, 0.0); built.len()];
    let mut one = vec![(0u64, 0.0, 0.0); built.len()];
    for instance in hard {
        for (jobs, totals) in [(None, &mut split), (Some("1"), &mut one)] {
            for ((config, total), ran) in built.iter().zip(totals.iter_mut()).zip(ran.iter_mut()) {
                let mut args = vec!["--no-moves", "--partition", config];
                if let Some(jobs) = jobs {
                    args.extend(["--jobs", jobs]);
                }
                args.push(&instance.tiles);
                let started = Instant::now();
                let record = first_record(npuzzle, &args)?;
                total.1 += started.elapsed().as_secs_f64();
                if record["length"].as_u64() != Some(instance.length) {
                    return Err(format!(
                        "{config}: {} is not solved optimally",
                        instance.tiles
                    ));
                }
                ran.insert(strategy(&record).to_string());
                total.0 += record["expanded"].as_u64().unwrap_or(0);
                total.2 += record["seconds"].as_f64().unwrap_or(0.0);
            }
        }
        eprintln!("bench: catalogues: {} done", instance.tiles);
    }
    // 7-8's (median wall seconds, process seconds).
    let mut reference = None;
    for (config, lookups) in CATALOGUES {
        let Some(i) = built.iter().position(|b| *b == config) else {
            let _ = writeln!(
                report,
                "| {config} | not built: `cargo xtask build-pdb --partition {config}` | | | | | | | | | | | |"
            );
            continue;
        };
        let (expanded, walls) = &mut parallel[i];
        walls.sort_by(f64::total_cmp);
        let wall = walls[walls.len() / 2];
        let (split_nodes, split_process, split_search) = split[i];
        let (one_nodes, _, one_search) = one[i];
        let (wall_7_8, process_7_8) = *reference.get_or_insert((wall, split_process));
        let _ = writeln!(
            report,
            "| {config} | {lookups} | {expanded} | {wall:.2} | {:.2} | {split_nodes} | {split_process:.2} | {split_search:.2} | {:.2} | {one_nodes} | {one_search:.2} | {:.2} | {} |",
            wall / wall_7_8,
            split_process / process_7_8,
            one_nodes as f64 / one_search.max(1e-9) / 1e6,
            join_strategies(ran[i].iter().map(String::as_str)),
        );
    }
    let _ = writeln!(report);
    Ok(())
}
