//! `cargo xtask fuzz`: every door's fuzz tests with large case counts.

use std::process::Command;

use crate::python::python_package;
use crate::workspace::{self, cargo, root};

/// Runs the fuzz tests of every door with large case counts: the board
/// readers and the command line, the HTTP API (random requests and the
/// hostile request set, mutated), the C ABI (integration suite), the
/// Python API and the labeller's files tampered with (pytest, in the test
/// environment).
pub fn run(args: &[String]) -> Result<(), String> {
    let mut cases = "1000000".to_string();
    let mut cli_cases = "5000".to_string();
    let mut door_cases = "100000".to_string();
    let mut table_cases = "2000".to_string();
    let mut checkpoint_cases = "500".to_string();
    let mut seed = "1".to_string();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let slot = match arg.as_str() {
            "--cases" => &mut cases,
            "--cli-cases" => &mut cli_cases,
            "--door-cases" => &mut door_cases,
            "--table-cases" => &mut table_cases,
            "--checkpoint-cases" => &mut checkpoint_cases,
            "--seed" => &mut seed,
            other => {
                return Err(format!(
                    "fuzz: unknown option '{other}' (see cargo xtask help)"
                ))
            }
        };
        *slot = rest
            .next()
            .filter(|v| v.parse::<u64>().is_ok())
            .ok_or_else(|| format!("fuzz: {arg} wants a number"))?
            .clone();
    }
    let cargo = cargo();
    let status = Command::new(cargo)
        .args([
            "test",
            "--workspace",
            "--profile",
            crate::workspace::TEST_PROFILE,
            "--test",
            "integration",
            "fuzz",
            "--",
            "--nocapture",
        ])
        .env("NPUZZLE_FUZZ_CASES", &cases)
        .env("NPUZZLE_FUZZ_CLI_CASES", &cli_cases)
        .env("NPUZZLE_FUZZ_HTTP_CASES", &door_cases)
        .env("NPUZZLE_FUZZ_C_CASES", &door_cases)
        .env("NPUZZLE_FUZZ_TABLE_CASES", &table_cases)
        .env("NPUZZLE_FUZZ_CHECKPOINT_CASES", &checkpoint_cases)
        .env("NPUZZLE_FUZZ_SEED", &seed)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("fuzz: failures (see above; inputs written under the temp directory)".into());
    }
    let python = python_package(crate::workspace::TEST_PROFILE)?;
    workspace::run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-s"])
            .arg(root().join("crates/python/tests/test_fuzz.py"))
            .env("NPUZZLE_FUZZ_PY_CASES", &door_cases)
            .env("NPUZZLE_FUZZ_SEED", &seed)
            .current_dir(root()),
        "pytest crates/python/tests/test_fuzz.py",
    )?;
    println!(
        "fuzz: {cases} parser cases, {cli_cases} command-line runs, {door_cases} cases each \
         through the HTTP API (the hostile request set among them, mutated), the C ABI and the \
         Python API, {} labeller tamperings, {table_cases} crafted tables, {checkpoint_cases} \
         checkpoint forgeries, seed {seed}: no failure",
        door_cases.parse::<u64>().unwrap_or(0) / 200
    );
    Ok(())
}
