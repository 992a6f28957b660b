//! Section "korf50": Korf & Felner's fifty 24-puzzles in order of
//! published difficulty until the time given runs out, each row kept in
//! bench/runs/korf50.md as it ends, so that runs across days add up; the
//! report projects the instances not yet solved from the measured rates.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use super::context::Ctx;
use super::data::{ensure_24_tables, fresh_page_cache};
use super::record::{read_kept, table_cells, write_kept, Started};
use super::replay::replays;
use super::runs::feed_and_wait;
use super::sets::{read_set, Instance};
use super::strategies::strategy;
use crate::workspace::root;

/// Expanded nodes published for each of the fifty, by number, for
/// clausecker/24puzzle's zero-aware "small" catalogue
/// (doc/zpdb-paper-2/korf-small-zpdb.out, matched by board: 1.18e12 in
/// all, 3,218 minutes of wall time there).
pub const PUBLISHED: [u64; 50] = [
    53_848_738,
    12_889_231_618,
    2_418_437_615,
    616_554_044,
    176_967_150,
    3_025_112_424,
    8_087_803_174,
    6_135_164_661,
    139_257_503_265,
    76_580_113_103,
    52_614_901_639,
    78_270_149_630,
    319_952_186,
    89_543_926_428,
    11_436_756_369,
    295_627_821,
    15_640_095_668,
    131_573_822_523,
    15_218_497_346,
    10_284_615_128,
    26_683_342_659,
    241_956_643,
    5_855_445_178,
    20_358_642_119,
    37_172_997,
    1_228_120_251,
    1_872_729_978,
    167_959_834,
    265_641_183,
    154_117_709,
    4_051_420_238,
    57_801_737,
    108_729_245_793,
    15_671_916_687,
    4_717_898_962,
    238_596_946,
    107_340_791,
    3_450_832,
    9_492_310_290,
    8_296_164,
    3_375_922_989,
    22_680_138_294,
    5_137_292_767,
    26_772_635,
    7_360_265_880,
    1_495_685_257,
    2_364_729_584,
    54_136_974_740,
    5_563_996_366,
    224_259_011_348,
];

/// The file the rows are kept in, across runs.
fn kept_rows() -> PathBuf {
    root().join("bench/runs/korf50.md")
}

const HEADER: &str = "# Korf & Felner's fifty 24-puzzles, as `cargo xtask bench --only korf50` \
solved them\n\nOne row per instance solved, appended as each ends; the report takes the newest \
row of each instance for the tables, jobs and memory it runs with. Seconds are the processes' \
(table mapping included), summed over the runs a search took (it goes on from its checkpoint \
when a run's time runs out; expanded then counts every run's nodes, those expanded twice \
included); peak RSS counts the mapped tables' resident pages.\n\n\
| # | optimal | length | expanded | best first | seconds | peak RSS MB | published | ours / published | tables | jobs | memory | commit | date | runs |\n\
| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- | --- | --- | ---: |\n";

/// One instance as a run solved it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub number: usize,
    pub optimal: u64,
    pub length: u64,
    pub expanded: u64,
    pub best_first: u64,
    pub seconds: f64,
    pub peak_rss_mb: f64,
    pub tables: String,
    pub jobs: String,
    pub memory: String,
    pub commit: String,
    pub date: String,
    /// The runs the search took (1 unless it went on from a checkpoint).
    pub runs: u32,
}

impl Row {
    pub fn line(&self) -> String {
        let published = PUBLISHED[self.number - 1];
        format!(
            "| {} | {} | {} | {} | {} | {:.1} | {:.0} | {published} | {:.3} | {} | {} | {} | {} | {} | {} |",
            self.number,
            self.optimal,
            self.length,
            self.expanded,
            self.best_first,
            self.seconds,
            self.peak_rss_mb,
            self.expanded as f64 / published as f64,
            self.tables,
            self.jobs,
            self.memory,
            self.commit,
            self.date,
            self.runs
        )
    }

    /// A row of the kept file; `None` for the header and other lines.
    pub fn parse(line: &str) -> Option<Row> {
        let cells = table_cells(line)?;
        // Rows from before checkpoints have no runs column: one run.
        let (cells, runs) = match cells.len() {
            14 => (&cells[..], "1"),
            15 => (&cells[..14], cells[14]),
            _ => return None,
        };
        let [number, optimal, length, expanded, best_first, seconds, peak, _, _, tables, jobs, memory, commit, date] =
            cells[..]
        else {
            return None;
        };
        let number: usize = number.parse().ok()?;
        (1..=50).contains(&number).then_some(())?;
        Some(Row {
            number,
            optimal: optimal.parse().ok()?,
            length: length.parse().ok()?,
            expanded: expanded.parse().ok()?,
            best_first: best_first.parse().ok()?,
            seconds: seconds.parse().ok()?,
            peak_rss_mb: peak.parse().ok()?,
            tables: tables.to_string(),
            jobs: jobs.to_string(),
            memory: memory.to_string(),
            commit: commit.to_string(),
            date: date.to_string(),
            runs: runs.parse().ok().filter(|&r| r >= 1)?,
        })
    }

    fn same_setting(&self, setting: &Setting) -> bool {
        self.tables == setting.tables && self.jobs == setting.jobs && self.memory == setting.memory
    }
}

/// What the rows of one configuration are compared by, and how `solve`
/// runs: the tables, the threads and the memory budget (`-`: none).
pub struct Setting {
    pub tables: String,
    pub jobs: String,
    pub memory: String,
}

/// The instances' numbers by published nodes, fewest first.
pub fn by_difficulty() -> Vec<usize> {
    let mut numbers: Vec<usize> = (1..=50).collect();
    numbers.sort_by_key(|&n| PUBLISHED[n - 1]);
    numbers
}

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let options = &ctx.korf50;
    let tables = ctx
        .korf24_partitions
        .first()
        .cloned()
        .unwrap_or_else(|| "septet".to_string());
    let setting = Setting {
        tables: tables.clone(),
        jobs: options
            .jobs
            .map_or_else(|| ctx.cores.to_string(), |j| j.to_string()),
        memory: options.memory.clone().unwrap_or_else(|| "-".to_string()),
    };
    ensure_24_tables(&ctx.npuzzle, &tables)?;
    fresh_page_cache(&ctx.npuzzle, &tables, 5, "blank-first");
    let set = read_set("korf24_50.txt")?;
    let mut rows = read_rows(&kept_rows())?;
    let kept = rows.len();
    rows.retain(|r| agrees(r, &set));
    if rows.len() < kept {
        eprintln!(
            "bench: korf50: {} rows of bench/runs/korf50.md disagree with bench/korf24_50.txt \
             and are dropped (their instances are solved again)",
            kept - rows.len()
        );
    }
    let started = Started::now();
    let clock = Instant::now();
    let budget = options.max_hours * 3600.0;
    let mut unfinished = None;
    for number in by_difficulty() {
        let done = rows
            .iter()
            .any(|r| r.number == number && r.same_setting(&setting));
        if done && !options.again {
            continue;
        }
        let left = budget - clock.elapsed().as_secs_f64();
        if left < 1.0 {
            break;
        }
        let instance = &set[number - 1];
        // A*+IDA* keeps no progress: its searches start over each run.
        let checkpoint = (setting.memory == "-").then(|| checkpoint_of(number));
        match solve(
            &ctx.npuzzle,
            instance,
            &setting,
            left,
            checkpoint.as_deref(),
        )? {
            Some(answer) => {
                let row = Row {
                    number,
                    optimal: instance.length,
                    length: answer.length,
                    expanded: answer.expanded,
                    best_first: answer.best_first,
                    seconds: answer.seconds,
                    peak_rss_mb: answer.peak_rss_mb,
                    tables: setting.tables.clone(),
                    jobs: setting.jobs.clone(),
                    memory: setting.memory.clone(),
                    commit: started.commit.clone(),
                    date: started.date.clone(),
                    runs: answer.runs,
                };
                eprintln!("bench: korf50 {}", row.line());
                rows.push(row);
                write_rows(&kept_rows(), &rows)?;
            }
            None => {
                let kept = checkpoint
                    .as_deref()
                    .filter(|c| c.exists())
                    .map(|c| (c, read_checkpoint(c)));
                unfinished = Some(Unfinished {
                    number,
                    seconds: left,
                    kept: kept.as_ref().map(|(c, r)| standing(c, r.as_ref())),
                    spent: kept.and_then(|(_, r)| spent(number, &r?)),
                });
                break;
            }
        }
    }
    summarize(report, &rows, &setting, unfinished, options.max_hours);
    Ok(())
}

/// Where an unfinished instance's search is kept between runs.
fn checkpoint_of(number: usize) -> PathBuf {
    root().join(format!("bench/runs/korf50-{number}.checkpoint.json"))
}

/// The instance a run ended on unsolved.
pub(super) struct Unfinished {
    number: usize,
    /// The seconds it was given.
    seconds: f64,
    /// Where its search stands, when kept.
    kept: Option<String>,
    /// What its kept search has taken so far.
    spent: Option<Spent>,
}

/// The nodes and seconds a kept, unfinished search has taken so far.
#[derive(Debug, PartialEq)]
pub struct Spent {
    pub number: usize,
    pub nodes: u64,
    pub seconds: f64,
}

/// The checkpoint file at `path`, when it can be read.
fn read_checkpoint(path: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// What the kept search `record` of instance `number` has taken.
fn spent(number: usize, record: &Value) -> Option<Spent> {
    Some(Spent {
        number,
        nodes: record["progress"]["expanded"].as_u64()?,
        seconds: record["milliseconds"].as_f64()? / 1000.0,
    })
}

/// Where the search kept in `path` (read as `record`) stands, for the
/// report.
fn standing(path: &Path, record: Option<&Value>) -> String {
    let shown = path.strip_prefix(root()).unwrap_or(path).display();
    let Some(record) = record else {
        return format!("{shown} (unreadable)");
    };
    let p = &record["progress"];
    format!(
        "{shown}: iteration {} at bound {}, {} of its subtrees searched, {} nodes in {:.0} s \
         over {} runs",
        p["iterations"],
        p["bound"],
        p["searched"].as_array().map_or(0, Vec::len),
        p["expanded"],
        record["milliseconds"].as_f64().unwrap_or(0.0) / 1000.0,
        p["runs"]
    )
}

/// What `solve` gave for one instance.
pub struct Answer {
    pub length: u64,
    pub expanded: u64,
    pub best_first: u64,
    /// The process's, start and table mapping included.
    pub seconds: f64,
    /// The search's own.
    pub search_seconds: f64,
    pub peak_rss_mb: f64,
    /// The heuristic strategy the record names, `-` for none.
    pub strategy: String,
    /// The runs the search took (1 unless it went on from a checkpoint).
    pub runs: u32,
}

/// Solves one 24-puzzle (blank-first goal) within `seconds`, its search
/// kept in `checkpoint` and going on from there when given: `None` when
/// the time ran out; an error for a wrong length or moves that do not
/// replay. Seconds count every run's.
pub fn solve(
    npuzzle: &Path,
    instance: &Instance,
    setting: &Setting,
    seconds: f64,
    checkpoint: Option<&Path>,
) -> Result<Option<Answer>, String> {
    solve_to(
        npuzzle,
        instance,
        "blank-first",
        setting,
        seconds,
        checkpoint,
    )
}

/// [`solve`] towards `goal` (`blank-first` or `blank-last`), any size.
pub fn solve_to(
    npuzzle: &Path,
    instance: &Instance,
    goal: &str,
    setting: &Setting,
    seconds: f64,
    checkpoint: Option<&Path>,
) -> Result<Option<Answer>, String> {
    let mut command = Command::new(npuzzle);
    command
        .args(["solve", "--json", "--notation", "tile", "--goal", goal])
        .args(["--partition", &setting.tables, "--jobs", &setting.jobs])
        .args(["--max-seconds", &format!("{:.0}", seconds.max(1.0))])
        .arg("--pdb-dir")
        .arg(root().join("data"));
    if setting.memory != "-" {
        command.args(["--memory", &setting.memory]);
    }
    if let Some(path) = checkpoint {
        command.arg("--checkpoint").arg(path);
    }
    let clock = Instant::now();
    let child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run npuzzle: {e}"))?;
    let output = feed_and_wait(child, format!("{}\n", instance.tiles).into_bytes())?;
    let wall = clock.elapsed().as_secs_f64();
    let records: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let answer = records.iter().find(|r| r["type"] != "summary");
    let peak_rss_mb = records
        .iter()
        .find(|r| r["type"] == "summary")
        .and_then(|r| r["peak_rss_mb"].as_f64())
        .unwrap_or(0.0);
    let Some(answer) = answer else {
        return Err(format!(
            "npuzzle gave no answer: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    };
    if answer["type"] != "solution" {
        let reason = answer["reason"].as_str().unwrap_or_default();
        if reason.contains("time budget") {
            return Ok(None);
        }
        return Err(format!("npuzzle did not solve the board: {answer}"));
    }
    let length = answer["length"].as_u64().unwrap_or(0);
    let tiles: Vec<u64> = instance
        .tiles
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    let blank_first = goal == "blank-first";
    if length != instance.length
        || !replays(&tiles, answer["moves"].as_str().unwrap_or(""), blank_first)
    {
        return Err(format!(
            "wrong answer for {}: length {length}, optimal {}, or moves that do not replay",
            instance.tiles, instance.length
        ));
    }
    let earlier = answer["resumed"]["earlier_seconds"].as_f64().unwrap_or(0.0);
    Ok(Some(Answer {
        length,
        expanded: answer["expanded"].as_u64().unwrap_or(0),
        best_first: answer["best_first_expanded"].as_u64().unwrap_or(0),
        seconds: wall + earlier,
        search_seconds: answer["seconds"].as_f64().unwrap_or(wall) + earlier,
        peak_rss_mb,
        strategy: strategy(answer).to_string(),
        runs: answer["resumed"]["runs"].as_u64().map_or(1, |r| r as u32),
    }))
}

/// Whether a kept row's lengths are the set's optimum: a row edited or
/// damaged by hand is not taken as solved.
pub fn agrees(row: &Row, set: &[Instance]) -> bool {
    set.get(row.number - 1)
        .is_some_and(|i| row.length == i.length && row.optimal == i.length)
}

fn read_rows(path: &Path) -> Result<Vec<Row>, String> {
    Ok(read_kept(path)?
        .iter()
        .filter_map(|l| Row::parse(l))
        .collect())
}

fn write_rows(path: &Path, rows: &[Row]) -> Result<(), String> {
    write_kept(path, HEADER, rows.iter().map(Row::line))
}

/// The newest row of each instance solved with `setting`, by difficulty.
pub fn newest(rows: &[Row], setting_of: impl Fn(&Row) -> bool) -> Vec<&Row> {
    by_difficulty()
        .into_iter()
        .filter_map(|n| rows.iter().rev().find(|r| r.number == n && setting_of(r)))
        .collect()
}

/// The projection for the instances not solved: their published nodes
/// times the ratio measured over the solved ones, at the node rate
/// measured over them, and never less than a kept search has already
/// taken.
#[derive(Debug, PartialEq)]
pub struct Projection {
    pub solved: usize,
    pub nodes: u64,
    pub seconds: f64,
    pub projected_nodes: f64,
    pub projected_seconds: f64,
}

pub fn project(solved: &[&Row], kept: Option<&Spent>) -> Projection {
    let nodes: u64 = solved.iter().map(|r| r.expanded).sum();
    let seconds: f64 = solved.iter().map(|r| r.seconds).sum();
    let published: u64 = solved.iter().map(|r| PUBLISHED[r.number - 1]).sum();
    let ratio = nodes as f64 / published.max(1) as f64;
    let rate = (nodes as f64 / seconds.max(1e-9)).max(1.0);
    let (mut projected_nodes, mut projected_seconds) = (nodes as f64, seconds);
    for n in (1..=50).filter(|n| solved.iter().all(|r| r.number != *n)) {
        let scaled = PUBLISHED[n - 1] as f64 * ratio;
        let spent = kept.filter(|k| k.number == n);
        projected_nodes += spent.map_or(scaled, |k| scaled.max(k.nodes as f64));
        projected_seconds += spent.map_or(scaled / rate, |k| (scaled / rate).max(k.seconds));
    }
    Projection {
        solved: solved.len(),
        nodes,
        seconds,
        projected_nodes,
        projected_seconds,
    }
}

/// The report's last line: what is solved, and all fifty's total,
/// measured when every one is solved, else projected.
pub(super) fn summary_line(p: &Projection, unfinished: Option<&Unfinished>, jobs: &str) -> String {
    let solved = format!(
        "Solved {} of 50: {} nodes in {:.0} s ({:.2} M nodes/s).",
        p.solved,
        p.nodes,
        p.seconds,
        p.nodes as f64 / p.seconds.max(1e-9) / 1e6,
    );
    let target = "target: at most 6 hours on 2 cores";
    if p.solved == 50 {
        return format!(
            "{solved} All fifty, measured: {:.1} hours on {jobs} jobs ({target}).",
            p.seconds / 3600.0
        );
    }
    let left = unfinished.map_or(String::new(), |u| {
        format!(
            " #{} was not solved in the {:.0} s left{}.",
            u.number,
            u.seconds,
            u.kept.as_ref().map_or(String::new(), |k| format!(
                "; its search is kept for the next run in {k}"
            ))
        )
    });
    format!(
        "{solved}{left} Projected for all fifty at the ratio and node rate measured, and a \
         kept search at no less than it has taken: {:.3e} nodes, {:.1} hours on {jobs} jobs \
         ({target}).",
        p.projected_nodes,
        p.projected_seconds / 3600.0,
    )
}

fn summarize(
    report: &mut String,
    rows: &[Row],
    setting: &Setting,
    unfinished: Option<Unfinished>,
    max_hours: f64,
) {
    let solved = newest(rows, |r| r.same_setting(setting));
    let _ = writeln!(
        report,
        "\n## Korf & Felner's fifty 24-puzzles ({} + reflection, {} jobs, memory {})\n\n\
         In order of the published nodes (clausecker/24puzzle's zero-aware \"small\" \
         catalogue), up to {max_hours} h a run; the rows of every run so far are kept in \
         bench/runs/korf50.md. Each length is the known optimum and each answer replays.\n\n\
         | # | length | expanded | best first | seconds | peak RSS MB | published | ours / published | commit | runs |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
        setting.tables, setting.jobs, setting.memory
    );
    for r in &solved {
        let published = PUBLISHED[r.number - 1];
        let _ = writeln!(
            report,
            "| {} | {} | {} | {} | {:.1} | {:.0} | {published} | {:.3} | {} | {} |",
            r.number,
            r.length,
            r.expanded,
            r.best_first,
            r.seconds,
            r.peak_rss_mb,
            r.expanded as f64 / published as f64,
            r.commit,
            r.runs
        );
    }
    let p = project(&solved, unfinished.as_ref().and_then(|u| u.spent.as_ref()));
    let _ = writeln!(
        report,
        "\n{}",
        summary_line(&p, unfinished.as_ref(), &setting.jobs)
    );
}
