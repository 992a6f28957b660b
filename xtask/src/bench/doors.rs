//! Section "doors" ("one engine behind every door"): the same boards through the command
//! line, the C ABI and the Python package, one search thread each, runs
//! alternated, on every table set that is built: nodes must agree, times
//! are compared as ratios to the command line's.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::context::Ctx;

use super::data::fresh_page_cache;

use super::strategies::strategy;

use super::runs::first_record;

use super::sets::BOARD_80;
use crate::workspace::{root, target_dir};

/// A table set and a board to solve over it.
struct Case {
    partition: &'static str,
    size: usize,
    goal: &'static str,
    board: &'static str,
    what: &'static str,
    runs: usize,
}

/// Korf and Felner's 24-puzzle #40 (82 moves).
const KORF24_40: &str = "2 17 4 13 7 12 10 3 0 16 21 24 8 5 18 20 15 19 14 9 22 11 6 1 23";

const CASES: [Case; 3] = [
    Case {
        partition: "7-8",
        size: 4,
        goal: "blank-last",
        board: BOARD_80,
        what: "80-move 15-puzzle",
        runs: 5,
    },
    Case {
        partition: "trio",
        size: 4,
        goal: "blank-last",
        board: BOARD_80,
        what: "80-move 15-puzzle",
        runs: 3,
    },
    Case {
        partition: "septet",
        size: 5,
        goal: "blank-first",
        board: KORF24_40,
        what: "24-puzzle #40 (82 moves)",
        runs: 1,
    },
];

/// One door's answer: nodes and search seconds.
type Sample = (u64, f64);

fn built(npuzzle: &Path, case: &Case) -> bool {
    Command::new(npuzzle)
        .args(["pdb", "files", "--partition", case.partition])
        .args(["--size", &case.size.to_string(), "--goal", case.goal])
        .arg("--pdb-dir")
        .arg(root().join("data"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The command line's answer, and the strategy its record names.
fn cli(npuzzle: &Path, case: &Case) -> Result<(Sample, String), String> {
    let record = first_record(
        npuzzle,
        &[
            "--jobs",
            "1",
            "--partition",
            case.partition,
            "--goal",
            case.goal,
            case.board,
        ],
    )?;
    Ok((
        (
            record["expanded"].as_u64().unwrap_or(0),
            record["seconds"].as_f64().unwrap_or(0.0),
        ),
        strategy(&record).to_string(),
    ))
}

/// Builds libnpuzzle and the C parity program; None (with the reason)
/// where no C compiler is found.
fn c_program() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "-p", "npuzzle-capi"])
        .current_dir(root())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("cargo build -p npuzzle-capi failed".to_string());
    }
    let lib = target_dir().join("release");
    let exe = target_dir().join("bench-parity-c");
    let output = Command::new("cc")
        .args(["-std=c99", "-O2", "-o"])
        .arg(&exe)
        .arg("-I")
        .arg(root().join("crates/capi/include"))
        .arg(root().join("tests/c/parity.c"))
        .arg(format!("-L{}", lib.display()))
        .arg("-lnpuzzle")
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .output()
        .map_err(|e| format!("cc: {e}"))?;
    if !output.status.success() {
        return Err(format!("cc: {}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(exe)
}

fn c_abi(program: &Path, case: &Case) -> Result<Sample, String> {
    let mut child = Command::new(program)
        // `cargo run` points LD_LIBRARY_PATH at target/debug, which would
        // win over the program's rpath to the release library.
        .env_remove("LD_LIBRARY_PATH")
        .arg(root().join("data"))
        .arg(format!("partition={}", case.partition))
        .arg(format!("size={}", case.size))
        .arg(format!("goal={}", case.goal))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let _ = child
        .stdin
        .take()
        .expect("piped")
        .write_all(format!("{}\n", case.board).as_bytes());
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = text.split_whitespace().collect();
    match fields[..] {
        [_, nodes, "1", seconds, _] => Ok((
            nodes.parse().map_err(|_| text.to_string())?,
            seconds.parse().map_err(|_| text.to_string())?,
        )),
        _ => Err(format!(
            "the C program answered {text:?} for {} {} {}",
            case.partition,
            case.board,
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

/// The test venv's python with the package built from this checkout (a
/// package installed earlier may be of other code).
fn python() -> Option<PathBuf> {
    match crate::python::python_package("release") {
        Ok(python) => Some(python),
        Err(e) => {
            eprintln!("bench: the Python door is left out: {e}");
            None
        }
    }
}

fn python_door(python: &Path, case: &Case) -> Result<Sample, String> {
    let script = format!(
        "import npuzzle\n\
         s = npuzzle.Solver({data:?}, partition={p:?}, size={n}, goal={g:?}, jobs=1)\n\
         r = s.solve({b:?})\n\
         print(r.expanded, r.seconds)\n",
        data = root().join("data").display().to_string(),
        p = case.partition,
        n = case.size,
        g = case.goal,
        b = case.board
    );
    let output = Command::new(python)
        .args(["-c", &script])
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace();
    match (fields.next(), fields.next()) {
        (Some(nodes), Some(seconds)) => Ok((
            nodes.parse().map_err(|_| text.to_string())?,
            seconds.parse().map_err(|_| text.to_string())?,
        )),
        _ => Err(format!(
            "python: {}",
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

fn median(samples: &mut [Sample]) -> Sample {
    samples.sort_by(|a, b| a.1.total_cmp(&b.1));
    samples[samples.len() / 2]
}

/// Appends the section to `report`.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let _ = writeln!(
        report,
        "## One engine behind every door\n\n\
         The same board through `npuzzle solve --jobs 1`, the C ABI (`npuzzle_open_with`, \
         one thread) and the Python package (`Solver(..., jobs=1).solve`), runs alternated; \
         search seconds as each door reports them (median), and the ratio to the command \
         line's. Strategy: the command line's record names it; the C and Python doors \
         do not report it (`-`).\n\n\
         | tables | board | door | expanded | seconds | / CLI | strategy |\n\
         | --- | --- | --- | ---: | ---: | ---: | --- |"
    );
    let c_program = c_program();
    let python = python();
    for case in &CASES {
        if !built(npuzzle, case) {
            let _ = writeln!(
                report,
                "| {} | {} | not built: `cargo xtask build-pdb --size {} --goal {} --partition {}` | | | | |",
                case.partition, case.what, case.size, case.goal, case.partition
            );
            continue;
        }
        fresh_page_cache(npuzzle, case.partition, case.size, case.goal);
        let (mut from_cli, mut from_c, mut from_python) = (Vec::new(), Vec::new(), Vec::new());
        let mut cli_strategy = String::from("-");
        for _ in 0..case.runs {
            let (sample, strategy) = cli(npuzzle, case)?;
            from_cli.push(sample);
            cli_strategy = strategy;
            if let Ok(program) = &c_program {
                from_c.push(c_abi(program, case)?);
            }
            if let Some(python) = &python {
                from_python.push(python_door(python, case)?);
            }
        }
        let base = median(&mut from_cli);
        let mut row = |door: &str, sample: Sample, strategy: &str| {
            let _ = writeln!(
                report,
                "| {} | {} | {door} | {} | {:.3} | {:.2} | {strategy} |",
                case.partition,
                case.what,
                sample.0,
                sample.1,
                sample.1 / base.1.max(1e-9)
            );
        };
        row("command line", base, &cli_strategy);
        match &c_program {
            Ok(_) => row("C", median(&mut from_c), "-"),
            Err(why) => row(&format!("C: not run ({why})"), (0, 0.0), "-"),
        }
        match &python {
            Some(_) => row("Python", median(&mut from_python), "-"),
            None => row(
                "Python: not installed (`cargo xtask python`)",
                (0, 0.0),
                "-",
            ),
        }
        let nodes: Vec<u64> = [&from_cli, &from_c, &from_python]
            .iter()
            .flat_map(|s| s.iter().map(|x| x.0))
            .collect();
        if nodes.iter().any(|&n| n != base.0) {
            return Err(format!(
                "{}: the doors disagree on the expanded nodes: {nodes:?}",
                case.partition
            ));
        }
        eprintln!("bench: doors {}: done", case.partition);
    }
    let _ = writeln!(report);
    Ok(())
}
