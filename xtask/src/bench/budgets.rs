//! Section "budgets": how far past `--max-seconds` a first solve ends,
//! each board in a fresh process (the tables' first open counted), from
//! 4x4 to 10x10 and 127x127 (issue #97).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use super::context::Ctx;
use super::replay::replays;
use super::sets::{random_boards, walked_board, BOARD_80};
use crate::workspace::root;

const BUDGETS: [f64; 2] = [0.1, 1.0];

/// What one process gave: its wall seconds and record.
fn solve_once(
    npuzzle: &Path,
    tables: &Path,
    board: &str,
    args: &[&str],
) -> Result<(f64, Value), String> {
    let started = Instant::now();
    let output = Command::new(npuzzle)
        .args(["solve", "--json", "--notation", "tile", "--pdb-dir"])
        .arg(tables)
        .args(args)
        .arg(board)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let wall = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&output.stdout);
    let record = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["type"] != "summary")
        .ok_or_else(|| {
            format!(
                "npuzzle solve {args:?} {board}: no record; {}",
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    if record["type"] == "solution" {
        let tiles: Vec<u64> = record["board"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let moves = record["moves"].as_str().unwrap_or_default();
        if !replays(&tiles, moves, record["goal"] == "blank-first") {
            return Err(format!(
                "npuzzle solve {args:?}: the moves do not replay: {record}"
            ));
        }
    }
    Ok((wall, record))
}

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let _ = writeln!(
        report,
        "\n## Budgets: `--max-seconds` from a fresh process (issue #97)\n\n\
         Each board solved by its own `npuzzle solve --max-seconds B` over the tables in \
         data/ (whatever is built there), timed from the process's start to its end. \
         \"Open\" is a process that solves a board one move from solved: start-up and the \
         tables' first open. Overshoot is the worst wall time past the budget; the \
         promise is at most 0.1 s plus one open. A \"cold\" row solves the first board \
         over a fresh copy of the side's packed tables, so that the budget includes \
         unpacking them (once per copy); its open is another fresh copy's. 4x4 boards are the first of the 17 at \
         distance 80 and boards 40 moves from it; the rest random (seed 1).\n\n\
         | size | budget s | boards | answered | refused | open s | worst wall s | worst overshoot s | overshoot - open s | methods |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    let count = if ctx.quick { 2 } else { 5 };
    let data = root().join("data");
    for size in [4usize, 5, 6, 7, 8, 10, 127] {
        let boards: Vec<String> = if size == 4 {
            std::iter::once(BOARD_80.to_string())
                .chain((1..count as u64).map(|seed| walked_board(4, 40, seed)))
                .collect()
        } else {
            random_boards(npuzzle, size, count)?
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()
        };
        let near = walked_board(size, 1, 1);
        let (open, _) = solve_once(npuzzle, &data, &near, &[])?;
        for budget in BUDGETS {
            let budget_text = budget.to_string();
            let (mut answered, mut refused, mut worst) = (0, 0, 0.0f64);
            let mut methods = std::collections::BTreeMap::new();
            for board in &boards {
                let (wall, record) =
                    solve_once(npuzzle, &data, board, &["--max-seconds", &budget_text])?;
                worst = worst.max(wall);
                if record["type"] == "solution" {
                    answered += 1;
                    let method = record["algorithm"].as_str().unwrap_or("?").to_string();
                    *methods.entry(method).or_insert(0) += 1;
                } else {
                    refused += 1;
                }
            }
            let methods: Vec<String> = methods.iter().map(|(m, c)| format!("{m} {c}")).collect();
            let overshoot = (worst - budget).max(0.0);
            let _ = writeln!(
                report,
                "| {size}x{size} | {budget} | {} | {answered} | {refused} | {open:.2} | {worst:.2} | {overshoot:.2} | {:.2} | {} |",
                boards.len(),
                overshoot - open,
                methods.join(", "),
            );
        }
        if let Some(row) = cold_row(npuzzle, &data, size, &near, &boards[0])? {
            let _ = writeln!(report, "{row}");
        }
        eprintln!("bench: budgets {size}x{size} done");
    }
    Ok(())
}

/// The first board under the least budget over a fresh copy of `size`'s
/// packed tables in `data` (none built: no row), and the open of another
/// fresh copy: what a user's first run after a build pays.
fn cold_row(
    npuzzle: &Path,
    data: &Path,
    size: usize,
    near: &str,
    board: &str,
) -> Result<Option<String>, String> {
    let prefix = format!("{size}x{size}-");
    let packed: Vec<PathBuf> = std::fs::read_dir(data)
        .map_err(|e| format!("{}: {e}", data.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".pdb.zst"))
        })
        .collect();
    if packed.is_empty() {
        return Ok(None);
    }
    let fresh_copy = || -> Result<tempfile::TempDir, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        for path in &packed {
            let name = path.file_name().expect("a listed file has a name");
            std::fs::copy(path, dir.path().join(name))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(dir)
    };
    let budget = BUDGETS[0];
    let open_copy = fresh_copy()?;
    let (open, _) = solve_once(npuzzle, open_copy.path(), near, &[])?;
    let budget_copy = fresh_copy()?;
    let (wall, record) = solve_once(
        npuzzle,
        budget_copy.path(),
        board,
        &["--max-seconds", &budget.to_string()],
    )?;
    let answered = usize::from(record["type"] == "solution");
    let method = record["algorithm"].as_str().unwrap_or_default();
    let overshoot = (wall - budget).max(0.0);
    Ok(Some(format!(
        "| {size}x{size} | {budget} (cold) | 1 | {answered} | {} | {open:.2} | {wall:.2} | {overshoot:.2} | {:.2} | {method} |",
        1 - answered,
        overshoot - open,
    )))
}
