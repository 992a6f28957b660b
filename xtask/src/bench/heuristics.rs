//! Section "heuristics": the heuristics on Korf's 100, beside the
//! literature.

use std::fmt::Write as _;

use super::context::Ctx;

use super::data::ensure_tables;

use super::runs::solve_set;

/// Heuristics on Korf's 100, beside the literature.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let korf = &ctx.korf()?;
    let quick = ctx.quick;
    for partition in ["6-6-3", "5-5-5"] {
        ensure_tables(npuzzle, partition)?;
    }
    let subset = if quick { 3 } else { 10 };
    let _ = writeln!(
        report,
        "## Heuristics on Korf's 100 (IDA*, boards in parallel)\n"
    );
    let _ = writeln!(
        report,
        "Literature: Korf & Felner 2002, Felner, Korf & Hanan 2004 (average generated nodes per board over all 100).\n"
    );
    let _ = writeln!(
        report,
        "| heuristic | boards | all optimal | avg h0 | avg expanded | avg generated | literature generated | wall s | strategy |"
    );
    let _ = writeln!(
        report,
        "| --- | ---: | :---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let all = if quick { 20 } else { korf.len() };
    let rows: Vec<(&str, Vec<&str>, usize, &str)> = vec![
        (
            "Manhattan",
            vec!["--heuristic", "manhattan"],
            subset,
            "401,189,630",
        ),
        (
            "linear conflict",
            vec!["--heuristic", "linear-conflict"],
            subset,
            "",
        ),
        (
            "5-5-5",
            vec!["--partition", "5-5-5", "--no-reflection"],
            all,
            "3,090,405",
        ),
        (
            "6-6-3",
            vec!["--partition", "6-6-3", "--no-reflection"],
            all,
            "617,555",
        ),
        ("7-8", vec!["--no-reflection"], all, "136,288"),
        ("7-8 + reflection", vec![], all, "36,710"),
    ];
    for (name, args, count, literature) in rows {
        let outcome = solve_set(npuzzle, &korf[..count], &args)?;
        let boards = if count < korf.len() {
            format!("first {count}")
        } else {
            count.to_string()
        };
        let _ = writeln!(
            report,
            "| {name} | {boards} | {} | {:.2} | {:.0} | {:.0} | {literature} | {:.2} | {} |",
            if outcome.all_optimal { "yes" } else { "NO" },
            outcome.average(outcome.h0_sum),
            outcome.average(outcome.expanded),
            outcome.average(outcome.generated),
            outcome.wall,
            outcome.strategy(),
        );
        eprintln!("bench: {name}: {:.2} s", outcome.wall);
    }
    let _ = writeln!(
        report,
        "\nAverage h0 of Korf's 100 in the literature: 7-8 44.75, 7-8 + reflection 45.63."
    );
    Ok(())
}
