//! Section "deepcubea": DeepCubeA's own 6x6 and 7x7 test boards (bench/,
//! from its repository) solved as `npuzzle solve` does by default over
//! the side's tables, against the lengths DeepCubeA published for them
//! (issue #99).

use std::fmt::Write as _;

use super::context::Ctx;
use super::runs::solve_batch;
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
/// each, two at a time: five minutes a set).
const ANYTIME_BOARDS: usize = 10;

/// The time each of those boards is given, in seconds.
const ANYTIME_SECONDS: &str = "60";

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let _ = writeln!(
        report,
        "\n## DeepCubeA's test boards (issue #99)\n\n\
         DeepCubeA's 6x6 and 7x7 test sets (`bench/deepcubea_*.txt`, from its repository), \
         solved as `npuzzle solve` does by default over the side's tables in data/ (built \
         when missing), two boards at a time; then the first {ANYTIME_BOARDS} of each with \
         `--anytime {ANYTIME_SECONDS}` (time for a shorter answer), two at a time. Lengths \
         against DeepCubeA's published answers for the same boards (its seconds are on a GPU \
         machine). Every answer is replayed to the goal by the bench.\n\n\
         | size | search | boards | mean length | DeepCubeA's | ratio | length / Manhattan | DeepCubeA's | shorter / equal / longer | mean s | worst s | DeepCubeA's mean s | wall s |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
    );
    let data = root().join("data");
    let data = data.to_string_lossy();
    for side in [6, 7] {
        let mut boards = read(side)?;
        if ctx.quick {
            boards.truncate(6);
        }
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
    let input: String = boards.iter().map(|b| format!("{}\n", b.tiles)).collect();
    let batch = solve_batch(&ctx.npuzzle, &input, args)?;
    if batch.answers.len() != boards.len() {
        return Err(format!(
            "deepcubea {side}x{side}: {} answers for {} boards",
            batch.answers.len(),
            boards.len()
        ));
    }
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
