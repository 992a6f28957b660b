//! Project automation: `cargo xtask <task>`. Heavy work runs in the release
//! build of `npuzzle`, never in a debug build.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;

const TASKS: &str = "\
usage: cargo xtask <task> [options]

tasks:
  build-pdb [options]  build pattern databases into data/ (default: the 7-8
                       partition of the 15-puzzle); options are those of
                       `npuzzle pdb build --help` (--partition, --size, --goal,
                       --out, --threads, --force, --level)
  bench [options]      solve the standard sets in bench/ and write
                       bench/report.md (see `cargo xtask bench --help`)
";

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-pdb") => build_pdb(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print!("{TASKS}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task '{other}'\n\n{TASKS}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the repository")
        .to_path_buf()
}

/// Builds the release `npuzzle` and returns its path.
pub fn release_npuzzle() -> Result<PathBuf, String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "--package",
            "npuzzle-cli",
            "--bin",
            "npuzzle",
        ])
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build --release failed".to_string());
    }
    let target = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    Ok(target.join("release").join("npuzzle"))
}

fn build_pdb(args: &[String]) -> Result<(), String> {
    let npuzzle = release_npuzzle()?;
    let mut command = Command::new(npuzzle);
    command.args(["pdb", "build"]);
    if !args.iter().any(|a| a == "--out" || a.starts_with("--out=")) {
        command.arg("--out").arg(root().join("data"));
    }
    let status = command
        .args(args)
        .status()
        .map_err(|e| format!("cannot run npuzzle: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("npuzzle pdb build failed ({status})"))
    }
}
