//! Section "within": `--within` on Korf & Felner's 50 24-puzzles.

use std::fmt::Write as _;

use super::context::Ctx;

use super::strategies::strategies;

use super::runs::solve_batch;

use super::sets::read_set;
use crate::workspace::root;

/// Near-optimal answers with a guarantee: `--within` on Korf and Felner's
/// 50 24-puzzles over the 6z-6z-6z-6z tables, one thread, a node cap.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let set = read_set("korf24_50.txt")?;
    let boards: String = set.iter().map(|i| format!("{}\n", i.tiles)).collect();
    let optimal: u64 = set.iter().map(|i| i.length).sum();
    let _ = writeln!(
        report,
        "\n## 24-puzzle within a bound of optimal (`--within`, 6z-6z-6z-6z, one thread)\n\n\
         Korf & Felner's 50 (optimal lengths known, mean {:.2}). Weighted IDA* guarantees at \
         most 1 + PCT/100 times optimal; under a node budget it runs coarse to fine (100, 50, \
         35 ... PCT %) and answers with the last stage that finished, whose guarantee the \
         record gives. Every length is checked against the optimum and its record's \
         guarantee. \"met\": answers within the PCT asked for.\n\n\
         | within | node budget | met | mean length / optimal | worst length / optimal | \
         mean expanded | mean s | worst s | strategy |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        optimal as f64 / set.len() as f64
    );
    let dir = root().join("data");
    let dir = dir.to_string_lossy();
    for (within, budget) in [
        (100u64, 20_000_000u64),
        (50, 20_000_000),
        (30, 20_000_000),
        (20, 20_000_000),
        (10, 20_000_000),
        (2, 5_000_000),
    ] {
        let (within_text, budget_text) = (within.to_string(), budget.to_string());
        let args = [
            "--goal",
            "blank-first",
            "--partition",
            "6z-6z-6z-6z",
            "--pdb-dir",
            &dir,
            "-j",
            "1",
            "--max-nodes",
            &budget_text,
            "--within",
            &within_text,
        ];
        let batch = solve_batch(npuzzle, &boards, &args)?;
        let (mut ratios, mut expanded, mut seconds, mut met) = (Vec::new(), 0u64, Vec::new(), 0);
        for (instance, (_, _, _, record)) in set.iter().zip(&batch.answers) {
            seconds.push(record["seconds"].as_f64().unwrap_or(0.0));
            let length = record["length"].as_u64().unwrap_or(0);
            let promised = record["within"].as_u64().unwrap_or(0);
            if length * 100 > instance.length * (100 + promised) {
                return Err(format!(
                    "--within {within}: {length} moves promised within {promised}%, the \
                     optimum is {}",
                    instance.length
                ));
            }
            met += usize::from(length * 100 <= instance.length * (100 + within));
            ratios.push(length as f64 / instance.length as f64);
            expanded += record["expanded"].as_u64().unwrap_or(0);
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let row = format!(
            "| {within} % | {budget} | {met} / {} | {:.3} | {:.3} | {} | {:.2} | {:.2} | {} |",
            set.len(),
            mean(&ratios),
            ratios.iter().cloned().fold(0.0, f64::max),
            expanded / ratios.len().max(1) as u64,
            mean(&seconds),
            seconds.iter().cloned().fold(0.0, f64::max),
            strategies(batch.answers.iter().map(|a| &a.3)),
        );
        let _ = writeln!(report, "{row}");
        eprintln!("bench: within {row}");
    }
    Ok(())
}
