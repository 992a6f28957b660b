//! `cargo xtask bench`: solves the standard sets with the release build and
//! writes a Markdown report. Figures are printed, never asserted: the
//! machines are shared and noisy, so compare ratios within one run.
//!
//! The report is a list of sections ([`SECTIONS`]), one file each; a run
//! takes the default ones or those `--only` names. A run of the default
//! sections rewrites bench/report.md whole and keeps a copy under
//! bench/runs/ that no later run overwrites.

use std::path::{Path, PathBuf};

use clap::Parser;

use crate::workspace::{release_npuzzle, root};

mod budgets;
mod build;
mod catalogues;
mod context;
mod data;
mod deepcubea;
mod docs;
mod doors;
mod end_to_end;
mod heuristics;
mod hybrid;
mod integration;
mod korf24;
mod korf50;
mod near_optimal;
mod princeton;
mod record;

mod reduction;
mod replay;
mod runs;
mod serve_flood;
mod serve_load;
mod sets;
mod soak;
mod standard;
mod strategies;
mod tables;
mod thread_rate;
mod web;
mod within;

pub use context::Ctx;

/// One section of the report.
pub struct Section {
    pub name: &'static str,
    /// What it measures, one line.
    pub measures: &'static str,
    /// About how long it takes on 2 cores.
    pub cost: &'static str,
    /// Whether a run without `--only` includes it.
    pub default: bool,
    /// Whether it needs the default 7-8 tables in data/.
    pub needs_default_tables: bool,
    pub run: fn(&Ctx, &mut String) -> Result<(), String>,
}

/// Every section, in the report's order.
pub const SECTIONS: &[Section] = &[
    Section {
        name: "standard",
        measures: "Korf's 100 and the 17 boards at distance 80 with the default tables: \
                   every length checked, nodes, wall time, memory",
        cost: "1 min",
        default: true,
        needs_default_tables: true,
        run: standard::run,
    },
    Section {
        name: "end-to-end",
        measures: "one 80-move board, process start to answer, 5 runs",
        cost: "5 s",
        default: true,
        needs_default_tables: true,
        run: end_to_end::run,
    },
    Section {
        name: "thread-rate",
        measures: "the node rate of one search thread, and what a read that misses \
                   the cache costs",
        cost: "15 s",
        default: true,
        needs_default_tables: true,
        run: thread_rate::run,
    },
    Section {
        name: "tables",
        measures: "every 15-puzzle table configuration built: memory against nodes \
                   and time",
        cost: "1 to 6 min per configuration built (12 at most)",
        default: true,
        needs_default_tables: true,
        run: tables::run,
    },
    Section {
        name: "catalogues",
        measures: "the 4x4 catalogues on the 17 boards at distance 80, boards in \
                   parallel, one process per board, one thread",
        cost: "5 min with all six built",
        default: true,
        needs_default_tables: true,
        run: catalogues::run,
    },
    Section {
        name: "serve-load",
        measures: "`npuzzle serve`: hint latency beside 80-move solves and 10,000 \
                   idle connections",
        cost: "1 min",
        default: true,
        needs_default_tables: true,
        run: serve_load::run,
    },
    Section {
        name: "serve-flood",
        measures: "`npuzzle serve`: hint p50 and p99 and the 503s while 24 clients \
                   flood it with 5x5 to 8x8 boards (the test tables without 7-8)",
        cost: "1 min",
        default: true,
        needs_default_tables: false,
        run: serve_flood::run,
    },
    Section {
        name: "soak",
        measures: "`npuzzle serve` under ten minutes of mixed traffic: memory and \
                   hint p99 per minute",
        cost: "10 min",
        default: true,
        needs_default_tables: true,
        run: soak::run,
    },
    Section {
        name: "doors",
        measures: "the same boards through the command line, the C ABI and the \
                   Python package: nodes agree, time ratios",
        cost: "2 min, more the first time (builds the C library and the venv)",
        default: true,
        needs_default_tables: false,
        run: doors::run,
    },
    Section {
        name: "princeton",
        measures: "the Princeton files (2x2 to 10x10), every answer checked",
        cost: "1 s",
        default: true,
        needs_default_tables: false,
        run: princeton::run,
    },
    Section {
        name: "heuristics",
        measures: "Manhattan, linear conflict, 5-5-5, 6-6-3, 7-8 on Korf's 100 beside \
                   the literature",
        cost: "1 min (builds 5-5-5 and 6-6-3 if missing)",
        default: true,
        needs_default_tables: true,
        run: heuristics::run,
    },
    Section {
        name: "reduction",
        measures: "boards past optimal search (5x5 to 127x127) by reduction: length \
                   against Manhattan, time; boards near solved",
        cost: "4 min (--quick: under 1 min)",
        default: true,
        needs_default_tables: false,
        run: reduction::run,
    },
    Section {
        name: "near-optimal",
        measures: "what solve answers by default on 5x5 to 10x10 boards no optimal \
                   search finishes (the beam), with and without the 6x6 tables",
        cost: "20 min (--quick: 1 min)",
        default: true,
        needs_default_tables: false,
        run: near_optimal::run,
    },
    Section {
        name: "budgets",
        measures: "--max-seconds 0.1 and 1 from a fresh process, 4x4 to 10x10 and \
                   127x127 over the tables in data/: worst wall time past the budget \
                   against the tables' first open",
        cost: "2 min",
        default: false,
        needs_default_tables: false,
        run: budgets::run,
    },
    Section {
        name: "deepcubea",
        measures: "DeepCubeA's 500 6x6 and 500 7x7 test boards solved by default over \
                   the side's tables, one at a time, against DeepCubeA's published lengths",
        cost: "90 min (--quick: 2 min; --deepcubea-boards 50: 30 min), plus building \
               missing tables (7x7: 2 min)",
        default: false,
        needs_default_tables: false,
        run: deepcubea::run,
    },
    Section {
        name: "deepcubea24",
        measures: "DeepCubeA's 496 24-puzzle test boards (blank-last) solved optimally over \
                   the blank-first septet tables turned: total time and nodes",
        cost: "hours, kept board by board in bench/runs/deepcubea24.md so that runs \
               add up (the first three boards: 5 min, the first alone 4 min), plus \
               building missing tables (septet 2 min)",
        default: false,
        needs_default_tables: false,
        run: deepcubea::run_24,
    },
    Section {
        name: "web",
        measures: "the engine in WebAssembly in headless Chromium: size, page ready, \
                   node rate against native, 4x4 tables and hints, 5x5 to 8x8 beside the \
                   command line",
        cost: "15 min (--quick: 2 min), more the first time (compiles the engine)",
        default: true,
        needs_default_tables: false,
        run: web::run,
    },
    Section {
        name: "docs",
        measures: "every shell block of README.md and docs/ run against data/",
        cost: "2 min",
        default: true,
        needs_default_tables: true,
        run: docs::run,
    },
    Section {
        name: "build",
        measures: "building the 7-8 tables and the 24-puzzle's 6z-6z-6z-6z afresh: \
                   time and peak memory",
        cost: "1.5 min",
        default: false,
        needs_default_tables: false,
        run: build::run,
    },
    Section {
        name: "korf24",
        measures: "the ten easiest of Korf & Felner's 24-puzzles beside the \
                   published nodes, per --korf24-partition; one thread against two",
        cost: "1.5 min per partition, plus building missing tables (septet 2 min)",
        default: false,
        needs_default_tables: false,
        run: korf24::run,
    },
    Section {
        name: "korf50",
        measures: "Korf & Felner's fifty 24-puzzles, fewest published nodes first, \
                   until --max-hours runs out; rows kept in bench/runs/korf50.md across \
                   runs, an unfinished search in its checkpoint, the rest projected",
        cost: "--max-hours (default 1 h), plus building missing tables (septet 2 min)",
        default: false,
        needs_default_tables: false,
        run: korf50::run,
    },
    Section {
        name: "hybrid",
        measures: "A*+IDA* (--memory 64M, 1G) beside plain IDA*: the ten easiest \
                   24-puzzles (septet), the 17 boards at distance 80 and Korf's 100 \
                   (7-8), one thread and two: nodes by phase, seconds, peak memory",
        cost: "40 min (--quick: 2 min), plus building missing tables (septet 2 min)",
        default: false,
        needs_default_tables: true,
        run: hybrid::run,
    },
    Section {
        name: "within",
        measures: "--within on Korf & Felner's 50 24-puzzles with 6z-6z-6z-6z, one \
                   thread",
        cost: "5 min",
        default: false,
        needs_default_tables: false,
        run: within::run,
    },
    Section {
        name: "distributed",
        measures: "npuzzle.distributed on a local Dask cluster: labelling --boards \
                   random boards, one search over 1 and 2 workers",
        cost: "15 min for 1,000,000 boards",
        default: false,
        needs_default_tables: true,
        run: distributed,
    },
];

/// The section named `name`.
fn section(name: &str) -> Option<&'static Section> {
    SECTIONS.iter().find(|s| s.name == name)
}

/// A section's name as clap reads it, refused with the list when unknown.
fn section_name(name: &str) -> Result<&'static str, String> {
    section(name).map(|s| s.name).ok_or_else(|| {
        format!(
            "no section '{name}'; the sections: {}",
            SECTIONS
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// A positive number of hours.
fn hours(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(h) if h.is_finite() && h > 0.0 => Ok(h),
        _ => Err(format!("'{text}' is not a positive number of hours")),
    }
}

/// A count of boards, with `_` or `,` between digits allowed.
fn board_count(text: &str) -> Result<u64, String> {
    text.replace(['_', ','], "")
        .parse()
        .map_err(|_| format!("'{text}' is not a count of boards"))
}

/// The options of `cargo xtask bench`. The old single-purpose flags stay
/// as aliases: each adds sections to `--only` (or, for --build and
/// --korf24, to the default run).
#[derive(Parser, Debug, Default)]
#[command(
    name = "cargo xtask bench",
    about = "Solve the standard sets with the release build and write bench/report.md",
    after_help = after_help(),
    disable_version_flag = true
)]
pub struct Args {
    /// Run only this section (repeat for several); the report is printed,
    /// and written only to --out
    #[arg(long, value_name = "NAME", value_parser = section_name)]
    only: Vec<&'static str>,
    /// Add a section the default run leaves out (repeatable)
    #[arg(long, value_name = "NAME", value_parser = section_name)]
    with: Vec<&'static str>,
    /// Fewer boards for the slow heuristics and the reduction (a smoke run)
    #[arg(long)]
    quick: bool,
    /// Where the report goes [default run: bench/report.md; with --only:
    /// printed only]
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The 24-puzzle tables of the korf24 section, a partition or a
    /// catalogue (repeatable) [default: septet, 6z-6z-6z-6z, compound]
    #[arg(long = "korf24-partition", value_name = "P")]
    korf24_partition: Vec<String>,
    /// The hours the korf50 section may take (its first table set is the
    /// first --korf24-partition, default septet)
    #[arg(long = "max-hours", value_name = "H", default_value = "1", value_parser = hours)]
    max_hours: f64,
    /// --jobs for each korf50 solve [default: every core]
    #[arg(long = "korf50-jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    korf50_jobs: Option<u32>,
    /// --memory for each korf50 solve (A*+IDA*) [default: plain IDA*]
    #[arg(long = "korf50-memory", value_name = "SIZE")]
    korf50_memory: Option<String>,
    /// Solve again the instances bench/runs/korf50.md holds for this setting
    #[arg(long = "korf50-again")]
    korf50_again: bool,
    /// The first boards of each set the deepcubea and deepcubea24
    /// sections solve [default: all]
    #[arg(long = "deepcubea-boards", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    deepcubea_boards: Option<u32>,
    /// Random boards the distributed section labels (0: none)
    #[arg(long, value_name = "N", value_parser = board_count, default_value = "1000000")]
    boards: u64,
    /// Alias of --with build
    #[arg(long)]
    build: bool,
    /// Alias of --with korf24 --with within
    #[arg(long)]
    korf24: bool,
    /// Alias of --only korf24
    #[arg(long = "korf24-only")]
    korf24_only: bool,
    /// Alias of --only doors
    #[arg(long)]
    doors: bool,
    /// Alias of --only soak
    #[arg(long)]
    soak: bool,
    /// Alias of --only serve-flood
    #[arg(long = "serve-flood")]
    serve_flood: bool,
    /// Alias of --only near-optimal --only reduction --only within
    #[arg(long = "near-optimal")]
    near_optimal: bool,
    /// Alias of --only catalogues
    #[arg(long)]
    catalogues: bool,
    /// Alias of --only distributed [--boards BOARDS]
    #[arg(long, value_name = "BOARDS", num_args = 0..=1, value_parser = board_count)]
    distributed: Option<Option<u64>>,
}

/// The table of sections, for `--help`.
fn after_help() -> String {
    let mut text = String::from(
        "Sections (in the report's order; * = in the default run):\n\n\
         | section | what it measures | cost on 2 cores | default |\n\
         | --- | --- | --- | --- |\n",
    );
    for s in SECTIONS {
        text += &format!(
            "| {} | {} | {} | {} |\n",
            s.name,
            s.measures,
            s.cost,
            if s.default { "*" } else { "" }
        );
    }
    text += "\nThe default run needs the 7-8 tables (cargo xtask build-pdb). It rewrites \
             bench/report.md (or --out) whole and keeps a copy as \
             bench/runs/DATE-COMMIT.md, never overwritten.";
    text
}

/// What a run does, from the options.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// The sections to run, in the report's order.
    pub sections: Vec<&'static str>,
    /// The default run (no --only): writes bench/report.md and the record.
    pub full: bool,
    pub out: Option<PathBuf>,
}

impl Plan {
    /// The options that choose these sections: none for the default run,
    /// else `--only` or `--with` for each section that differs from it.
    pub fn command(&self) -> String {
        SECTIONS
            .iter()
            .filter(|s| self.sections.contains(&s.name))
            .filter(|s| !(self.full && s.default))
            .map(|s| format!(" --{} {}", if self.full { "with" } else { "only" }, s.name))
            .collect()
    }
}

impl Args {
    fn plan(&self) -> Plan {
        let mut only = self.only.clone();
        let mut with = self.with.clone();
        let aliases = [
            (self.korf24_only, "korf24"),
            (self.doors, "doors"),
            (self.soak, "soak"),
            (self.serve_flood, "serve-flood"),
            (self.near_optimal, "near-optimal"),
            (self.near_optimal, "reduction"),
            (self.near_optimal, "within"),
            (self.catalogues, "catalogues"),
            (self.distributed.is_some(), "distributed"),
        ];
        only.extend(aliases.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
        if self.build {
            with.push("build");
        }
        if self.korf24 {
            with.extend(["korf24", "within"]);
        }
        let full = only.is_empty();
        let sections = SECTIONS
            .iter()
            .filter(|s| {
                (if full {
                    s.default
                } else {
                    only.contains(&s.name)
                }) || with.contains(&s.name)
            })
            .map(|s| s.name)
            .collect();
        let out = match (&self.out, full) {
            (Some(out), _) => Some(out.clone()),
            (None, true) => Some(root().join("bench/report.md")),
            (None, false) => None,
        };
        Plan {
            sections,
            full,
            out,
        }
    }

    fn boards(&self) -> u64 {
        self.distributed.flatten().unwrap_or(self.boards)
    }
}

/// Parses the options (`args` without the task's name).
pub fn parse(args: &[String]) -> Result<Args, clap::Error> {
    Args::try_parse_from(
        std::iter::once("cargo xtask bench".to_string()).chain(args.iter().cloned()),
    )
}

pub fn run(args: &[String]) -> Result<(), String> {
    let args = match parse(args) {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => {
            // --help: clap's text, on standard output.
            print!("{e}");
            return Ok(());
        }
        Err(e) => return Err(format!("bench: {}", e.render().to_string().trim_end())),
    };
    let plan = args.plan();
    if plan
        .sections
        .iter()
        .any(|name| section(name).is_some_and(|s| s.needs_default_tables))
        && !data::has_default_tables()
    {
        return Err(format!(
            "no default tables in data/: run `cargo xtask build-pdb` first (needed by: {})",
            plan.sections
                .iter()
                .filter(|name| section(name).is_some_and(|s| s.needs_default_tables))
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut ctx = Ctx::new(
        release_npuzzle()?,
        args.quick,
        args.korf24_partition.clone(),
        args.boards(),
    );
    ctx.korf50 = context::Korf50 {
        max_hours: args.max_hours,
        jobs: args.korf50_jobs.map(|j| j as usize),
        memory: args.korf50_memory.clone(),
        again: args.korf50_again,
    };
    ctx.deepcubea_boards = args.deepcubea_boards.map(|n| n as usize);
    let started = record::Started::now();
    let mut report = record::header(
        &started,
        &plan.command(),
        &plan.sections,
        &record::Machine::here(),
    );
    // A section that fails is reported as failed and the others still
    // run: an hour's figures are not lost to the last section.
    let mut failed = Vec::new();
    for name in &plan.sections {
        let section = section(name).expect("the plan names sections of the table");
        eprintln!("bench: section {name} ({})", section.cost);
        if let Err(message) = (section.run)(&ctx, &mut report) {
            eprintln!("bench: section {name} failed: {message}");
            report.push_str(&failed_section(name, &message));
            failed.push(*name);
        }
    }
    print!("{report}");
    if let Some(out) = &plan.out {
        write(out, &report)?;
        eprintln!("bench: report written to {}", out.display());
    }
    if plan.full {
        let kept = record::keep(&root().join("bench/runs"), &started, &report)?;
        eprintln!("bench: this run kept as {}", kept.display());
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("sections failed: {}", failed.join(", ")))
    }
}

/// The report's paragraph for a section that failed, with the first lines
/// of its error.
fn failed_section(name: &str, message: &str) -> String {
    let lines: Vec<&str> = message.trim().lines().take(20).collect();
    format!(
        "## Section {name}: failed\n\nThis run has no figures for it; the error:\n\n```text\n{}\n```\n\n",
        lines.join("\n")
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// npuzzle.distributed (Dask) through bench/distributed_bench.py: labels
/// `ctx.boards` random 15-puzzle boards, then one search split over 1 and
/// 2 workers. The script prints its own Markdown; it is passed through.
fn distributed(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let python = crate::python::python_package("release")?;
    let output = std::process::Command::new(python)
        .arg(root().join("bench/distributed_bench.py"))
        .arg(ctx.boards.to_string())
        .arg("4")
        .arg("--split")
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run bench/distributed_bench.py: {e}"))?;
    if !output.status.success() {
        return Err("bench/distributed_bench.py failed".to_string());
    }
    report.push_str("\n## `npuzzle.distributed` on a local Dask cluster\n\n");
    report.push_str(&String::from_utf8_lossy(&output.stdout));
    report.push('\n');
    Ok(())
}

#[cfg(test)]
mod tests;
