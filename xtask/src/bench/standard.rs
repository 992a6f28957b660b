//! Section "standard": Korf's 100 and the 17 boards at distance 80 with
//! the default tables.

use std::fmt::Write as _;

use super::context::Ctx;

use super::data::fresh_page_cache;

use super::runs::{solve_set, Outcome};

/// The tables `cargo xtask build-pdb` builds, named: with none named,
/// solve takes the strongest set built in data/, which may be another.
const DEFAULT_TABLES: &[&str] = &["--partition", "7-8"];

/// The standard sets with the default tables.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let korf = ctx.korf()?;
    let hard = ctx.hard()?;
    let cores = ctx.cores;
    fresh_page_cache(npuzzle, "7-8", 4, "blank-last");
    // The main sets, with the default heuristic (7-8 + reflection).
    let _ = writeln!(
        report,
        "## Standard sets (default tables: 7-8 additive PDBs + reflection, parallel)\n"
    );
    let _ = writeln!(
        report,
        "| set | boards | all optimal | wall s | avg expanded | avg generated | expanded/s per core | avg h0 | peak RSS MB | strategy |"
    );
    let _ = writeln!(
        report,
        "| --- | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    // Warm the page cache and the unpacked tables once.
    solve_set(npuzzle, &korf[..1], DEFAULT_TABLES)?;
    for (name, set, one_process_per_board) in [
        ("Korf's 100 (one process, boards in parallel)", &korf, false),
        (
            "17 boards at distance 80 (one process, boards in parallel)",
            &hard,
            false,
        ),
        (
            "17 boards at distance 80 (one process per board, its search split over the cores)",
            &hard,
            true,
        ),
    ] {
        let outcome = if !one_process_per_board {
            solve_set(npuzzle, set, DEFAULT_TABLES)?
        } else {
            // Sequential over boards, each board's search parallel: one
            // process per board, as a user solving them one by one.
            let mut total: Option<Outcome> = None;
            for instance in set.iter() {
                let o = solve_set(npuzzle, std::slice::from_ref(instance), DEFAULT_TABLES)?;
                total = Some(match total {
                    None => o,
                    Some(mut t) => {
                        t.boards += o.boards;
                        t.all_optimal &= o.all_optimal;
                        t.wall += o.wall;
                        t.expanded += o.expanded;
                        t.generated += o.generated;
                        t.search_seconds += o.search_seconds * cores as f64;
                        t.h0_sum += o.h0_sum;
                        t.peak_rss_mb = t.peak_rss_mb.max(o.peak_rss_mb);
                        t.strategies.extend(o.strategies);
                        t
                    }
                });
            }
            total.expect("a non-empty set")
        };
        let _ = writeln!(
            report,
            "| {name} | {} | {} | {:.2} | {:.0} | {:.0} | {:.2e} | {:.2} | {:.0} | {} |",
            outcome.boards,
            if outcome.all_optimal { "yes" } else { "NO" },
            outcome.wall,
            outcome.average(outcome.expanded),
            outcome.average(outcome.generated),
            outcome.expanded as f64 / outcome.search_seconds.max(1e-9),
            outcome.average(outcome.h0_sum),
            outcome.peak_rss_mb,
            outcome.strategy(),
        );
        eprintln!("bench: {name}: {:.2} s", outcome.wall);
    }
    Ok(())
}
