//! Sections "deepcubea" and "deepcubea24": DeepCubeA's own test boards
//! (bench/, from its repository) solved as `npuzzle solve` does by
//! default, the 6x6 and 7x7 ones over the side's tables and the 5x5 ones
//! optimally over the blank-first septet tables turned, against the
//! lengths DeepCubeA published for them (issue #99).

use std::fmt::Write as _;

use super::context::Ctx;
use super::runs::{solve_each, Batch};
use crate::workspace::root;

/// One of DeepCubeA's boards: its answer's length and seconds, and the
/// tiles.
struct Board {
    length: u64,
    seconds: f64,
    tiles: String,
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
const CATALOGUE_24: &str = "septet";

/// DeepCubeA's 24-puzzle boards (goal blank-last) solved optimally over
/// the blank-first septet tables, turned: every answer must be proven
/// optimal and no longer than DeepCubeA's.
pub fn run_24(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let mut boards = read(5)?;
    boards.truncate(
        ctx.deepcubea_boards
            .unwrap_or(if ctx.quick { 4 } else { usize::MAX }),
    );
    super::data::ensure_24_tables(&ctx.npuzzle, CATALOGUE_24)?;
    let data = root().join("data");
    let data = data.to_string_lossy();
    let args = ["--pdb-dir", &*data, "--partition", CATALOGUE_24];
    let batch = solve(ctx, 5, &boards, &args)?;
    let (mut nodes, mut ours, mut theirs, mut their_optimal) = (0u64, 0u64, 0u64, 0usize);
    for ((length, _, _, record), board) in batch.answers.iter().zip(&boards) {
        if record["optimal"] != true || *length > board.length {
            return Err(format!(
                "deepcubea 5x5: board {} not solved optimally (DeepCubeA: {} moves): {record}",
                board.tiles, board.length
            ));
        }
        nodes += record["expanded"].as_u64().unwrap_or(0);
        ours += length;
        theirs += board.length;
        their_optimal += usize::from(board.length == *length);
    }
    let count = boards.len().max(1) as f64;
    let spread = batch.spread();
    let _ = writeln!(
        report,
        "\n## DeepCubeA's 24-puzzle test boards, solved optimally (issue #99)\n\n\
         DeepCubeA's 5x5 test set (`bench/deepcubea_5x5.txt`, goal blank-last), solved by \
         `npuzzle solve --partition {CATALOGUE_24}` over the blank-first {CATALOGUE_24} \
         tables in data/ (built when missing), each board turned 180 degrees, one board at \
         a time with every core. Every answer is proven optimal and replayed to the goal.\n\n\
         | boards | mean length | DeepCubeA's | DeepCubeA's answers optimal | total s | mean s | worst s | total nodes | mean nodes | wall s |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} | {:.2} | {:.2} | {their_optimal} ({:.2} %) | {:.0} | {:.2} | {:.2} | {nodes} | {:.0} | {:.0} |",
        boards.len(),
        ours as f64 / count,
        theirs as f64 / count,
        100.0 * their_optimal as f64 / count,
        spread.seconds * count,
        spread.seconds,
        spread.worst_seconds,
        nodes as f64 / count,
        batch.wall,
    );
    Ok(())
}
