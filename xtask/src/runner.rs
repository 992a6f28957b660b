//! The Rust stage of `cargo xtask test`: every test of every test binary
//! run as its own process, as many at once as the machine has cores, the
//! slowest first, so that no binary waits for another and no long test
//! starts last. Tests named in [`ALONE`] run with nothing beside them.
//!
//! Each test runs as `BINARY --exact NAME` in its package's directory, as
//! `cargo test` would run the binary (cargo-nextest's model). What the
//! tests share is on disk under target/, built once (the integration
//! tests' table fixtures), not in a process's memory.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::workspace::{cargo, root, target_dir, TEST_PROFILE};

/// Tests that hold the server's answers to a wall-clock bound (a hint
/// within 2 s under a flood) or count its CPU seconds: they run with no
/// other test beside them, so that a neighbour's load cannot fail them.
const ALONE: &[&str] = &[
    "serve::hints_answer_while_clients_flood_heavy_boards",
    "serve::serve_under_mixed_traffic_stays_flat",
    "serve::a_search_whose_client_hangs_up_stops",
];

/// One test of one binary.
#[derive(Clone)]
struct Test {
    /// The binary's short name (`integration`, `npuzzle_search`, ...).
    binary: String,
    executable: PathBuf,
    /// The package's directory: the working directory cargo gives tests.
    package_dir: PathBuf,
    name: String,
}

impl Test {
    fn label(&self) -> String {
        format!("{} {}", self.binary, self.name)
    }

    fn alone(&self) -> bool {
        ALONE.contains(&self.name.as_str())
    }
}

/// What one test's run gave.
struct Outcome {
    test: Test,
    took: Duration,
    passed: bool,
    ignored: bool,
    output: String,
}

/// Builds the test binaries (the `build-tests` alias) and returns them:
/// (short name, executable, package directory).
pub fn build_test_binaries() -> Result<Vec<(String, PathBuf, PathBuf)>, String> {
    let output = Command::new(cargo())
        .args([
            "build-tests",
            "--profile",
            TEST_PROFILE,
            "--message-format",
            "json-render-diagnostics",
        ])
        .current_dir(root())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo build-tests failed ({})", output.status));
    }
    let mut binaries = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" || message["profile"]["test"] != true {
            continue;
        }
        let (Some(executable), Some(manifest)) = (
            message["executable"].as_str(),
            message["manifest_path"].as_str(),
        ) else {
            continue;
        };
        let name = message["target"]["name"].as_str().unwrap_or("?");
        let kind = message["target"]["kind"][0].as_str().unwrap_or("?");
        let label = match kind {
            "lib" | "cdylib" | "staticlib" | "rlib" => name.to_string(),
            _ => format!("{name} ({kind})"),
        };
        let package_dir = Path::new(manifest)
            .parent()
            .expect("a manifest sits in its package")
            .to_path_buf();
        binaries.push((label, PathBuf::from(executable), package_dir));
    }
    binaries.sort();
    binaries.dedup();
    Ok(binaries)
}

/// The tests of each binary (`--list --format terse`).
fn list_tests(binaries: &[(String, PathBuf, PathBuf)]) -> Result<Vec<Test>, String> {
    let mut tests = Vec::new();
    for (binary, executable, package_dir) in binaries {
        let output = Command::new(executable)
            .args(["--list", "--format", "terse"])
            .current_dir(package_dir)
            .output()
            .map_err(|e| format!("cannot list the tests of {}: {e}", executable.display()))?;
        if !output.status.success() {
            return Err(format!(
                "{} --list failed: {}",
                executable.display(),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            if let Some(name) = line.strip_suffix(": test") {
                tests.push(Test {
                    binary: binary.clone(),
                    executable: executable.clone(),
                    package_dir: package_dir.clone(),
                    name: name.to_string(),
                });
            }
        }
    }
    Ok(tests)
}

/// Where each run leaves its tests' seconds, read by the next run to start
/// the slowest first.
fn times_file() -> PathBuf {
    target_dir().join(TEST_PROFILE).join("test-times.tsv")
}

/// Seconds per test label from the last run, if any.
fn last_times() -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(times_file()).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (seconds, label) = line.split_once('\t')?;
            Some((label.to_string(), seconds.parse().ok()?))
        })
        .collect()
}

/// Without a last run (a fresh clone), a binary's tests are ranked by how
/// heavy its kind of test is: the integration tests run programs and build
/// tables, the search crate's unit tests search exhaustively.
fn default_weight(test: &Test) -> f64 {
    match test.binary.as_str() {
        b if b.starts_with("integration") => 2.0,
        "npuzzle_search" => 1.5,
        "npuzzle" => 1.0,
        _ => 0.5,
    }
}

/// Runs one test as its own process.
fn run_one(test: Test) -> Outcome {
    let started = Instant::now();
    let profile_dir = target_dir().join(TEST_PROFILE);
    let library_path = std::env::join_paths(
        [profile_dir.join("deps"), profile_dir.clone()]
            .into_iter()
            .chain(
                std::env::var_os("LD_LIBRARY_PATH")
                    .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
                    .unwrap_or_default(),
            ),
    )
    .unwrap_or_default();
    let result = Command::new(&test.executable)
        .args(["--exact", &test.name, "--test-threads", "1"])
        .current_dir(&test.package_dir)
        .env("CARGO", cargo())
        .env("CARGO_MANIFEST_DIR", &test.package_dir)
        .env("LD_LIBRARY_PATH", library_path)
        .stdin(Stdio::null())
        .output();
    let took = started.elapsed();
    match result {
        Ok(output) => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            let ignored = stdout.contains("1 ignored");
            let passed = output.status.success() && (stdout.contains("1 passed") || ignored);
            Outcome {
                test,
                took,
                passed,
                ignored,
                output: format!("{stdout}{}", String::from_utf8_lossy(&output.stderr)),
            }
        }
        Err(e) => Outcome {
            test,
            took,
            passed: false,
            ignored: false,
            output: format!("cannot run: {e}"),
        },
    }
}

/// The queue the workers share: tests waiting, and how many run now (a
/// test that must run alone waits for zero and holds the machine).
struct Queue {
    waiting: VecDeque<Test>,
    running: usize,
    alone_running: bool,
}

/// How many tests run at once: NPUZZLE_TEST_JOBS, else the cores.
pub fn jobs() -> usize {
    std::env::var("NPUZZLE_TEST_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// Runs the tests of `binaries` that `wanted` keeps, [`jobs`] at a time;
/// prints each result as it comes and, at the end, the failures' output
/// and the slowest tests.
pub fn run_tests(
    binaries: &[(String, PathBuf, PathBuf)],
    wanted: impl Fn(&str, &str) -> bool,
) -> Result<(), String> {
    let jobs = jobs();
    let mut tests = list_tests(binaries)?;
    tests.retain(|t| wanted(&t.binary, &t.name));
    let last = last_times();
    let expected = |t: &Test| {
        last.get(&t.label())
            .copied()
            .unwrap_or_else(|| default_weight(t))
    };
    tests.sort_by(|a, b| expected(b).total_cmp(&expected(a)));
    // Tests that must run alone go last, one after another.
    let (alone, shared): (Vec<Test>, Vec<Test>) = tests.into_iter().partition(Test::alone);
    let total = shared.len() + alone.len();
    eprintln!(
        "xtask: {total} tests in {} binaries, {jobs} at a time ({} alone at the end)",
        binaries.len(),
        alone.len()
    );
    let queue = Mutex::new(Queue {
        waiting: shared.into_iter().chain(alone).collect(),
        running: 0,
        alone_running: false,
    });
    let changed = Condvar::new();
    let outcomes = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let test = {
                    let mut q = queue.lock().unwrap();
                    loop {
                        let Some(next) = q.waiting.front() else {
                            break None;
                        };
                        let may_start = if next.alone() {
                            q.running == 0
                        } else {
                            !q.alone_running
                        };
                        if may_start {
                            let test = q.waiting.pop_front().unwrap();
                            q.running += 1;
                            q.alone_running = test.alone();
                            break Some(test);
                        }
                        q = changed.wait(q).unwrap();
                    }
                };
                let Some(test) = test else { break };
                let outcome = run_one(test);
                let mark = if !outcome.passed {
                    "FAIL"
                } else if outcome.ignored {
                    "SKIP"
                } else {
                    "PASS"
                };
                eprintln!(
                    "{mark} [{:>6.1} s] {}",
                    outcome.took.as_secs_f64(),
                    outcome.test.label()
                );
                outcomes.lock().unwrap().push(outcome);
                let mut q = queue.lock().unwrap();
                q.running -= 1;
                q.alone_running = false;
                changed.notify_all();
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|o| std::cmp::Reverse(o.took));
    let times: String = outcomes
        .iter()
        .map(|o| format!("{:.3}\t{}\n", o.took.as_secs_f64(), o.test.label()))
        .collect();
    let _ = std::fs::write(times_file(), times);
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.passed).collect();
    for outcome in &failed {
        eprintln!(
            "\n---- {} ----\n{}",
            outcome.test.label(),
            outcome.output.trim_end()
        );
    }
    let busy: f64 = outcomes.iter().map(|o| o.took.as_secs_f64()).sum();
    eprintln!(
        "\nxtask: the 20 slowest tests ({:.0} s of tests in {:.0} s of wall time):",
        busy,
        started.elapsed().as_secs_f64()
    );
    for outcome in outcomes.iter().take(20) {
        eprintln!(
            "  {:>6.1} s  {}",
            outcome.took.as_secs_f64(),
            outcome.test.label()
        );
    }
    let ignored = outcomes.iter().filter(|o| o.ignored).count();
    eprintln!(
        "xtask: {} passed, {} failed, {ignored} ignored, of {total}",
        outcomes.len() - failed.len() - ignored,
        failed.len()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} tests failed: {}",
            failed.len(),
            failed
                .iter()
                .map(|o| o.test.label())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}
