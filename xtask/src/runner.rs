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

/// How long one test may run before it is killed and counted failed:
/// NPUZZLE_TEST_TIMEOUT seconds, else 20 minutes (the slowest test takes
/// about 2), so that a hang names its test instead of stopping CI.
fn test_timeout() -> Duration {
    let seconds = std::env::var("NPUZZLE_TEST_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&s: &u64| s > 0)
        .unwrap_or(1200);
    Duration::from_secs(seconds)
}

/// Runs one test as its own process, in a process group of its own: a
/// test past `timeout` is killed with every program it started.
fn run_one(test: Test, timeout: Duration) -> Outcome {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
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
    let failed = |test, output: String| Outcome {
        test,
        took: started.elapsed(),
        passed: false,
        ignored: false,
        output,
    };
    let spawned = Command::new(&test.executable)
        .args(["--exact", &test.name, "--test-threads", "1"])
        .current_dir(&test.package_dir)
        .env("CARGO", cargo())
        .env("CARGO_MANIFEST_DIR", &test.package_dir)
        .env("LD_LIBRARY_PATH", library_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return failed(test, format!("cannot run: {e}")),
    };
    // Read on threads of their own; a program the test left behind may
    // hold a pipe open, so the output is awaited a few seconds at most.
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
        });
        receiver
    };
    let stdout = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() > timeout => {
                // The whole group: the test and what it started.
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return failed(test, format!("cannot wait for the test: {e}")),
        }
    };
    let output = |receiver: std::sync::mpsc::Receiver<String>| {
        receiver
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| "(output cut: a program the test started holds it)".to_string())
    };
    let (stdout, stderr) = (output(stdout), output(stderr));
    let Some(status) = status else {
        return failed(
            test,
            format!(
                "killed after {} s (NPUZZLE_TEST_TIMEOUT)\n{stdout}{stderr}",
                timeout.as_secs()
            ),
        );
    };
    let ignored = stdout.contains("1 ignored");
    let passed = status.success() && (stdout.contains("1 passed") || ignored);
    Outcome {
        test,
        took: started.elapsed(),
        passed,
        ignored,
        output: format!("{stdout}{stderr}"),
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
    let timeout = test_timeout();
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
                let outcome = run_one(test, timeout);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake test binary: a script that ignores its arguments.
    fn script(dir: &Path, body: &str) -> Test {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("fake-test");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Test {
            binary: "fake".to_string(),
            executable: path,
            package_dir: dir.to_path_buf(),
            name: "a::test".to_string(),
        }
    }

    #[test]
    fn a_test_that_hangs_is_killed_with_what_it_started_and_fails() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("child.pid");
        let test = script(
            dir.path(),
            &format!("sleep 600 & echo $! > '{}'; wait", pid_file.display()),
        );
        let started = Instant::now();
        let outcome = run_one(test, Duration::from_millis(500));
        assert!(started.elapsed() < Duration::from_secs(30));
        assert!(!outcome.passed);
        assert!(
            outcome.output.contains("killed after"),
            "{}",
            outcome.output
        );
        let child = std::fs::read_to_string(&pid_file).unwrap();
        // Running or sleeping: a killed process is gone, or a zombie
        // until its new parent reaps it.
        let alive = || {
            std::fs::read_to_string(format!("/proc/{}/stat", child.trim())).is_ok_and(|stat| {
                let state = stat.rsplit(") ").next().unwrap_or("");
                !state.starts_with('Z') && !state.starts_with('X')
            })
        };
        let waited = Instant::now();
        while alive() && waited.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!alive(), "the test's own child {child} was left running");
    }

    #[test]
    fn a_test_passes_on_its_summary_line_and_fails_without_it() {
        let dir = tempfile::tempdir().unwrap();
        let passed = run_one(
            script(dir.path(), "echo 'test result: ok. 1 passed; 0 failed'"),
            Duration::from_secs(60),
        );
        assert!(passed.passed && !passed.ignored, "{}", passed.output);
        let filtered = run_one(
            script(dir.path(), "echo 'test result: ok. 0 passed; 0 failed'"),
            Duration::from_secs(60),
        );
        assert!(!filtered.passed, "a test that did not run passed");
        let failing = run_one(
            script(dir.path(), "echo '1 passed'; exit 101"),
            Duration::from_secs(60),
        );
        assert!(!failing.passed);
    }
}
