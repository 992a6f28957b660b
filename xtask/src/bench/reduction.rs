//! Section "reduction": boards past optimal search, by reduction, and
//! boards a few moves from solved.

use std::fmt::Write as _;

use super::context::Ctx;

use super::strategies::strategies;

use super::runs::solve_batch;

use super::sets::{random_boards, walked_board};

/// Big boards by reduction.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let quick = ctx.quick;
    let _ = writeln!(
        report,
        "\n## Boards past optimal search: the reduction (`--fast`, boards in parallel)\n\n\
         Random boards (seed 1); length / Manhattan distance (optimal 24-puzzles are about \
         1.3 times theirs), against the targets of issue #33. Lines are placed one at a \
         time, blank moves priced by what they do to the other tiles, each tile by its \
         cheapest route (to 40x40); the last 5x5 corner is searched; the solution is then \
         shortened stretch by stretch (see docs/cli.md). Seconds are per board, two boards \
         at a time on this machine's cores.\n\n\
         | size | boards | mean length / Manhattan | target | worst | mean s | worst s | peak RSS MB | wall s | strategy |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    for size in [5usize, 6, 7, 8, 10, 30, 127] {
        let count = match (quick, size) {
            (true, _) => 5,
            (false, 127) => 10,
            (false, 30) => 30,
            _ => 100,
        };
        let boards = random_boards(npuzzle, size, count)?;
        let batch = solve_batch(npuzzle, &boards, &["--fast"])?;
        let spread = batch.spread();
        let target = match size {
            5 => "1.45",
            6..=8 => "1.6",
            10 => "2.0",
            30 => "2.5",
            _ => "3.0",
        };
        let _ = writeln!(
            report,
            "| {size}x{size} | {} | {:.2} | {target} | {:.2} | {:.3} | {:.3} | {:.0} | {:.1} | {} |",
            batch.answers.len(),
            spread.ratio,
            spread.worst_ratio,
            spread.seconds,
            spread.worst_seconds,
            batch.peak_rss_mb,
            batch.wall,
            strategies(batch.answers.iter().map(|a| &a.3)),
        );
        eprintln!("bench: {size}x{size} by reduction done");
    }
    let _ = writeln!(
        report,
        "\nWhere a target is missed, why: 1.45 at 5x5 without tables means about 1.1 times \
         optimal, and linear conflict is too weak for weighted search to get that close on a \
         24-puzzle in a second (with the 5x5 tables `--within` gets 1.045 times optimal, the \
         table further down); 1.6 at 6x6 to 8x8 and 2.0 at 10x10 mean within 25-50 % of \
         optimal, where no whole-board search with linear conflict finishes (on 6x6, weighted \
         IDA* fails at 100 % on half the boards within 3,000,000 nodes and gives 2.95 times \
         Manhattan at 200 %), and placing lines costs each tile 3 to 5 moves per step of its \
         distance, of which pricing the blank's moves wins back part. Closer would take a \
         heuristic of another class (pattern databases for 6x6 and up, or a learned one)."
    );
    let _ = writeln!(
        report,
        "\nBoards d random moves from solved (never straight back; 5 per cell), default \
         options: the longest answer.\n\n\
         | size | d = 0 | d = 1 | d = 10 | d = 50 | strategies |\n\
         | --- | ---: | ---: | ---: | ---: | --- |"
    );
    for size in [5usize, 8, 16, 30, 127] {
        let mut row = format!("| {size}x{size} |");
        let mut ran = Vec::new();
        for steps in [0usize, 1, 10, 50] {
            let boards: String = (0..5)
                .map(|seed| format!("{}\n", walked_board(size, steps, seed + 1)))
                .collect();
            let batch = solve_batch(npuzzle, &boards, &[])?;
            let longest = batch.answers.iter().map(|a| a.0).max().unwrap_or(0);
            let _ = write!(row, " {longest} |");
            ran.extend(batch.answers.into_iter().map(|a| a.3));
        }
        let _ = write!(row, " {} |", strategies(&ran));
        let _ = writeln!(report, "{row}");
    }
    Ok(())
}
