//! Sections "deepcubea" and "deepcubea24": DeepCubeA's own test boards
//! (bench/, from its repository) solved as `npuzzle solve` does by
//! default, the 6x6 and 7x7 ones over the side's tables and the 5x5 ones
//! optimally over the blank-first septet tables turned, against the
//! lengths DeepCubeA published for them (issue #99).

use std::fmt::Write as _;

use std::path::PathBuf;

use super::context::Ctx;
use super::record::{read_kept, table_cells, write_kept, Started};
use super::runs::{solve_each, Batch};
use crate::workspace::root;

/// One of DeepCubeA's boards: its answer's length and seconds, and the
/// tiles.
pub(super) struct Board {
    pub(super) length: u64,
    pub(super) seconds: f64,
    pub(super) tiles: String,
}

fn read(side: usize) -> Result<Vec<Board>, String> {
    let path = root().join(format!("bench/deepcubea_{side}x{side}.txt"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let bad = || {
                format!(
                    "{}:{}: not `id length seconds tiles...`",
                    path.display(),
                    i + 1
                )
            };
            if words.len() != 3 + side * side {
                return Err(bad());
            }
            Ok(Board {
                length: words[1].parse().map_err(|_| bad())?,
                seconds: words[2].parse().map_err(|_| bad())?,
                tiles: words[3..].join(" "),
            })
        })
        .collect()
}

/// Boards of each set solved with time for a shorter answer (a minute
/// each: ten minutes a set).
const ANYTIME_BOARDS: usize = 10;

/// The time each of those boards is given, in seconds.
const ANYTIME_SECONDS: &str = "60";

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let _ = writeln!(
        report,
        "\n## DeepCubeA's test boards (issue #99)\n\n\
         DeepCubeA's 6x6 and 7x7 test sets (`bench/deepcubea_*.txt`, from its repository), \
         solved as `npuzzle solve` does by default over the side's tables in data/ (built \
         when missing), one board at a time with every core (the seconds a board takes a \
         user); then the first {ANYTIME_BOARDS} of each with `--anytime {ANYTIME_SECONDS}` \
         (time for a shorter answer). Lengths \
         against DeepCubeA's published answers for the same boards (its seconds are on a GPU \
         machine). Every answer is replayed to the goal by the bench.\n\n\
         | size | search | boards | mean length | DeepCubeA's | ratio | length / Manhattan | DeepCubeA's | shorter / equal / longer | mean s | worst s | DeepCubeA's mean s | wall s |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
    );
    let data = root().join("data");
    let data = data.to_string_lossy();
    for side in [6, 7] {
        let mut boards = read(side)?;
        boards.truncate(
            ctx.deepcubea_boards
                .unwrap_or(if ctx.quick { 6 } else { usize::MAX }),
        );
        super::data::ensure_side_tables(&ctx.npuzzle, side)?;
        row(ctx, report, side, "default", &boards, &["--pdb-dir", &data])?;
        let (anytime_boards, seconds) = if ctx.quick {
            (2, "2")
        } else {
            (ANYTIME_BOARDS, ANYTIME_SECONDS)
        };
        boards.truncate(anytime_boards);
        let search = format!("`--anytime {seconds}`");
        row(
            ctx,
            report,
            side,
            &search,
            &boards,
            &["--pdb-dir", &data, "--anytime", seconds],
        )?;
        eprintln!("bench: deepcubea {side}x{side} done");
    }
    Ok(())
}

/// One row: `boards` solved with `args`, against DeepCubeA's answers.
fn row(
    ctx: &Ctx,
    report: &mut String,
    side: usize,
    search: &str,
    boards: &[Board],
    args: &[&str],
) -> Result<(), String> {
    let batch = solve(ctx, side, boards, args)?;
    let count = boards.len() as f64;
    let ours: u64 = batch.answers.iter().map(|a| a.0).sum();
    let theirs: u64 = boards.iter().map(|b| b.length).sum();
    let manhattan: u64 = batch.answers.iter().map(|a| a.1).sum();
    let (mut shorter, mut equal, mut longer) = (0, 0, 0);
    for (answer, board) in batch.answers.iter().zip(boards) {
        match answer.0.cmp(&board.length) {
            std::cmp::Ordering::Less => shorter += 1,
            std::cmp::Ordering::Equal => equal += 1,
            std::cmp::Ordering::Greater => longer += 1,
        }
    }
    let spread = batch.spread();
    let their_seconds: f64 = boards.iter().map(|b| b.seconds).sum::<f64>() / count;
    let _ = writeln!(
        report,
        "| {side}x{side} | {search} | {} | {:.2} | {:.2} | {:.3} | {:.3} | {:.3} | {shorter} / {equal} / {longer} | {:.2} | {:.2} | {:.1} | {:.0} |",
        boards.len(),
        ours as f64 / count,
        theirs as f64 / count,
        ours as f64 / theirs as f64,
        ours as f64 / manhattan as f64,
        theirs as f64 / manhattan as f64,
        spread.seconds,
        spread.worst_seconds,
        their_seconds,
        batch.wall,
    );
    Ok(())
}

/// `boards` solved one at a time with `args`, an answer for each.
fn solve(ctx: &Ctx, side: usize, boards: &[Board], args: &[&str]) -> Result<Batch, String> {
    let tiles: Vec<&str> = boards.iter().map(|b| b.tiles.as_str()).collect();
    let batch = solve_each(&ctx.npuzzle, &tiles, args)?;
    if batch.answers.len() != boards.len() {
        return Err(format!(
            "deepcubea {side}x{side}: {} answers for {} boards",
            batch.answers.len(),
            boards.len()
        ));
    }
    Ok(batch)
}

/// The septet catalogue: the 24-puzzle tables that solved Korf and
/// Felner's fifty fastest (bench/runs/korf50.md), blank-first.
pub(super) const CATALOGUE_24: &str = "septet";

/// Where the 24-puzzle rows are kept across runs: the set takes hours,
/// so each board's row is kept as it ends and later runs go on from there.
fn kept_24() -> PathBuf {
    root().join("bench/runs/deepcubea24.md")
}

pub(super) const HEADER_24: &str =
    "# DeepCubeA's 24-puzzle test boards, as `cargo xtask bench --only \
deepcubea24` solved them\n\nOne row per board (numbered from 0 in \
`bench/deepcubea_5x5.txt`), appended as each ends; a later run solves only the boards \
not kept for the same tables. Every answer was proven optimal, no longer than \
DeepCubeA's, and replayed to the goal. Seconds are the process's (tables mapped \
included), one board at a time with every core.\n\n\
| board | DeepCubeA's length | length | expanded | seconds | tables | commit | date |\n\
| ---: | ---: | ---: | ---: | ---: | --- | --- | --- |\n";

/// One 24-puzzle board as a run solved it.
#[derive(Debug, PartialEq)]
pub(super) struct Row24 {
    pub(super) board: usize,
    pub(super) theirs: u64,
    pub(super) length: u64,
    pub(super) expanded: u64,
    pub(super) seconds: f64,
    pub(super) tables: String,
    pub(super) commit: String,
    pub(super) date: String,
}

impl Row24 {
    pub(super) fn line(&self) -> String {
        format!(
            "| {} | {} | {} | {} | {:.1} | {} | {} | {} |",
            self.board,
            self.theirs,
            self.length,
            self.expanded,
            self.seconds,
            self.tables,
            self.commit,
            self.date
        )
    }

    /// A row of the kept file; `None` for the header and other lines.
    pub(super) fn parse(line: &str) -> Option<Row24> {
        let [board, theirs, length, expanded, seconds, tables, commit, date] =
            table_cells(line)?[..]
        else {
            return None;
        };
        Some(Row24 {
            board: board.parse().ok()?,
            theirs: theirs.parse().ok()?,
            length: length.parse().ok()?,
            expanded: expanded.parse().ok()?,
            seconds: seconds.parse().ok()?,
            tables: tables.to_string(),
            commit: commit.to_string(),
            date: date.to_string(),
        })
    }
}

/// DeepCubeA's 24-puzzle boards (goal blank-last) solved optimally over
/// the blank-first septet tables, turned: every answer must be proven
/// optimal and no longer than DeepCubeA's. The first `--deepcubea-boards`
/// (all by default) not yet kept in bench/runs/deepcubea24.md are solved
/// and kept; the report sums every kept row among them.
pub fn run_24(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let all = read(5)?;
    let limit = ctx
        .deepcubea_boards
        .unwrap_or(if ctx.quick { 4 } else { usize::MAX });
    let boards = &all[..limit.min(all.len())];
    let path = kept_24();
    let mut rows: Vec<Row24> = read_kept(&path)?
        .iter()
        .filter_map(|l| Row24::parse(l))
        .collect();
    let kept = rows.len();
    rows.retain(|r| boards_24_agree(r, &all));
    // A board kept twice (files merged by hand) counts once: its last row.
    let mut seen = std::collections::HashSet::new();
    rows.reverse();
    rows.retain(|r| seen.insert((r.board, r.tables.clone())));
    rows.reverse();
    if rows.len() < kept {
        eprintln!(
            "bench: deepcubea24: {} rows of {} disagree with bench/deepcubea_5x5.txt and are \
             dropped (their boards are solved again)",
            kept - rows.len(),
            path.display()
        );
    }
    super::data::ensure_24_tables(&ctx.npuzzle, CATALOGUE_24)?;
    let data = root().join("data");
    let data = data.to_string_lossy();
    let args = ["--pdb-dir", &*data, "--partition", CATALOGUE_24];
    let started = Started::now();
    let clock = std::time::Instant::now();
    for (index, board) in boards.iter().enumerate() {
        if rows
            .iter()
            .any(|r| r.board == index && r.tables == CATALOGUE_24)
        {
            continue;
        }
        let batch = solve(ctx, 5, std::slice::from_ref(board), &args)?;
        let (length, _, seconds, record) = &batch.answers[0];
        if record["optimal"] != true || *length > board.length {
            return Err(format!(
                "deepcubea 5x5: board {index} not solved optimally (DeepCubeA: {} moves): {record}",
                board.length
            ));
        }
        let row = Row24 {
            board: index,
            theirs: board.length,
            length: *length,
            expanded: record["expanded"].as_u64().unwrap_or(0),
            seconds: *seconds,
            tables: CATALOGUE_24.to_string(),
            commit: started.commit.clone(),
            date: started.date.clone(),
        };
        eprintln!("bench: deepcubea24 {}", row.line());
        rows.push(row);
        rows.sort_by_key(|r| r.board);
        write_kept(&path, HEADER_24, rows.iter().map(Row24::line))?;
    }
    let solved: Vec<&Row24> = rows
        .iter()
        .filter(|r| r.board < boards.len() && r.tables == CATALOGUE_24)
        .collect();
    let count = solved.len().max(1) as f64;
    let sum = |f: fn(&Row24) -> u64| solved.iter().map(|r| f(r)).sum::<u64>();
    let (ours, theirs, nodes) = (sum(|r| r.length), sum(|r| r.theirs), sum(|r| r.expanded));
    let their_optimal = solved.iter().filter(|r| r.theirs == r.length).count();
    let seconds: f64 = solved.iter().map(|r| r.seconds).sum();
    let worst = solved.iter().map(|r| r.seconds).fold(0.0, f64::max);
    let _ = writeln!(
        report,
        "\n## DeepCubeA's 24-puzzle test boards, solved optimally (issue #99)\n\n\
         DeepCubeA's 5x5 test set (`bench/deepcubea_5x5.txt`, goal blank-last), solved by \
         `npuzzle solve --partition {CATALOGUE_24}` over the blank-first {CATALOGUE_24} \
         tables in data/ (built when missing), each board turned 180 degrees, one board at \
         a time with every core. Every answer is proven optimal and replayed to the goal. \
         Each board's row is kept in bench/runs/deepcubea24.md, which runs add to: {} of \
         the first {} boards are solved ({} in this run, {:.0} s).\n\n\
         | boards | mean length | DeepCubeA's | DeepCubeA's answers optimal | total s | mean s | worst s | total nodes | mean nodes |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} | {:.2} | {:.2} | {their_optimal} ({:.2} %) | {seconds:.0} | {:.2} | {worst:.2} | {nodes} | {:.0} |",
        solved.len(),
        boards.len(),
        solved.iter().filter(|r| r.date == started.date).count(),
        clock.elapsed().as_secs_f64(),
        solved.len(),
        ours as f64 / count,
        theirs as f64 / count,
        100.0 * their_optimal as f64 / count,
        seconds / count,
        nodes as f64 / count,
    );
    Ok(())
}

/// Whether `row` is of a board of `boards` with DeepCubeA's length.
pub(super) fn boards_24_agree(row: &Row24, boards: &[Board]) -> bool {
    boards
        .get(row.board)
        .is_some_and(|b| b.length == row.theirs)
}
