//! `cargo xtask test` and `cargo xtask browser`: the whole suite, and
//! its browser stage. Every stage builds in the test profile
//! ([`TEST_PROFILE`]), so the engine is compiled once for all of them, and
//! the suite ends with a table of each stage's seconds.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::python::{python_prepare, python_pytest, python_venv};
use crate::workspace::{cargo, root, run, target_dir, test_npuzzle, TEST_PROFILE};
use crate::{runner, stages, web};

/// The stages that run beside pytest, by name.
const LIGHT_READER: &str = "light reader alone (npuzzle-pdb, default features)";
const WITHOUT_NATIVE: &str = "engine without native (npuzzle-wasm)";
const WEB_AND_NODE: &str = "WebAssembly site and Node tests";
const BROWSER: &str = "browser (Chromium)";

/// What the browser tests import.
const BROWSER_PACKAGES: &[&str] = &[
    "pytest",
    "playwright>=1.40,<2",
    // axe-core (its axe.min.js), for the accessibility scan.
    "axe-playwright-python>=0.1.8,<1",
];

/// Past this many minutes in all, `--all` (what CI runs) fails: the suite
/// takes about 20 on a 2-core machine, and CI stops at 90.
const BUDGET_MINUTES: u64 = 40;

/// Each stage's name and wall time, in the order run.
struct Stages {
    started: Instant,
    done: Vec<(String, Duration, bool)>,
    /// Work that ran beside the stages (its time is inside theirs).
    background: Vec<(String, Duration)>,
}

impl Default for Stages {
    fn default() -> Stages {
        Stages {
            started: Instant::now(),
            done: Vec::new(),
            background: Vec::new(),
        }
    }
}

impl Stages {
    /// Runs `stage`, timing it whether it passes or fails.
    fn time<T>(
        &mut self,
        name: &str,
        stage: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        let started = Instant::now();
        let result = stage();
        self.record(name, started.elapsed(), result.is_ok());
        result
    }

    fn record(&mut self, name: &str, took: Duration, passed: bool) {
        self.done.push((name.to_string(), took, passed));
    }

    /// The wall time since the suite began.
    fn total(&self) -> Duration {
        self.started.elapsed()
    }

    fn print(&self) {
        eprintln!("\nxtask: stage times ({TEST_PROFILE} profile)");
        for (name, took, passed) in &self.done {
            let mark = if *passed { "" } else { "  FAILED" };
            eprintln!("  {:>7.1} s  {name}{mark}", took.as_secs_f64());
        }
        for (name, took) in &self.background {
            eprintln!(
                "  {:>7.1} s  {name} (beside the stages above)",
                took.as_secs_f64()
            );
        }
        eprintln!("  {:>7.1} s  in all (wall)", self.total().as_secs_f64());
    }
}

/// `cargo test ARGS` in the test profile, at the checkout.
fn cargo_test(args: &[&str], what: &str) -> Result<(), String> {
    run(
        Command::new(cargo())
            .arg("test")
            .args(["--profile", TEST_PROFILE])
            .args(args)
            .current_dir(root()),
        what,
    )
}

/// The whole suite: Rust (with the C program), Python and the browser; the
/// stages whose needs are missing are known (or refused) before any runs.
/// `--quick`: the unit tests of every crate and the command line's smoke
/// tests, for after each change.
pub fn test(args: &[String]) -> Result<(), String> {
    let quick = args.iter().any(|a| a == "--quick");
    let rest: Vec<String> = args.iter().filter(|a| *a != "--quick").cloned().collect();
    let mut stages = Stages::default();
    let result = if quick {
        quick_tier(&mut stages)
    } else {
        whole_suite(&rest, &mut stages)
    };
    stages.print();
    result?;
    let all = args.iter().any(|a| a == "--all");
    let minutes = stages.total().as_secs() / 60;
    if all && minutes >= BUDGET_MINUTES {
        return Err(format!(
            "the suite took {minutes} minutes, past its budget of {BUDGET_MINUTES}: make the \
             slowest stage above faster before adding to it"
        ));
    }
    Ok(())
}

/// Every crate's unit tests and the command line's smoke tests
/// (`smoke::` in the integration binary).
fn quick_tier(stages: &mut Stages) -> Result<(), String> {
    let binaries = stages.time("compile the tests", runner::build_test_binaries)?;
    stages.time("unit tests (every crate) and smoke tests", || {
        runner::run_tests(&binaries, |binary, name| {
            !binary.starts_with("integration") || name.starts_with("smoke::")
        })
    })
}

/// Runs `work` on a thread of its own, timed; a stage that needs what it
/// made waits for it with [`Background::wait`].
struct Background {
    name: &'static str,
    thread: std::thread::JoinHandle<Duration>,
}

impl Background {
    fn start(name: &'static str, work: impl FnOnce() + Send + 'static) -> Background {
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            work();
            started.elapsed()
        });
        Background { name, thread }
    }

    /// Waits for the work; its time goes into the table, marked as
    /// overlapping the stages.
    fn wait(self, stages: &mut Stages) {
        let took = self.thread.join().unwrap_or_default();
        stages.background.push((self.name.to_string(), took));
    }
}

fn whole_suite(args: &[String], stages: &mut Stages) -> Result<(), String> {
    let mut plan = stages::plan(args, &stages::Host::current())?;
    for note in &plan.notes {
        eprintln!("xtask: {note}");
    }
    // What later stages need and that leaves the cores mostly free starts
    // now: the test environment's packages from the package index. A
    // failure here is met again, and reported, by the stage that needs it.
    let (python, browser) = (plan.python, plan.browser);
    let packages = (python || browser).then(|| {
        Background::start("Python test environment (pip)", move || {
            let mut wanted = Vec::new();
            if python {
                wanted.extend_from_slice(crate::python::TEST_PACKAGES);
            }
            if browser {
                wanted.extend_from_slice(BROWSER_PACKAGES);
            }
            let _ = python_venv(&wanted);
        })
    });
    let binaries = stages.time("compile the workspace's tests", runner::build_test_binaries)?;
    // The WebAssembly engine (Debian's compiler, a target directory of its
    // own) compiles while the Rust tests run, which leave a core idle
    // much of the time.
    let site = (plan.web || plan.browser).then(|| {
        Background::start("WebAssembly engine and site", || {
            let _ = web::build_site(&target_dir().join("web"));
        })
    });
    let rust = stages
        .time("Rust tests (unit, integration with C)", || {
            // The WebAssembly crate's tests run below, against the engine
            // as the browser builds it (this build has `native` on).
            runner::run_tests(&binaries, |binary, _| !binary.starts_with("npuzzle_wasm"))
        })
        .and_then(|()| {
            stages.time("doc tests", || {
                cargo_test(&["--workspace", "--doc"], "cargo test --doc")
            })
        });
    let waited = |stages: &mut Stages| {
        for background in [packages, site].into_iter().flatten() {
            background.wait(stages);
        }
    };
    if let Err(e) = rust {
        waited(stages);
        return Err(e);
    }
    waited(stages);
    // The wheel and the command line Python calls are built first: they
    // and the stages beside take cargo's lock on target/ when they compile.
    let prepared = plan
        .python
        .then(|| stages.time("Python wheel (maturin)", python_prepare));
    // Beside pytest, which leaves part of a core idle (its workers wait on
    // each other), one after another: the light reader alone and the engine
    // without `native` (their compiles), then the browser and Node stages,
    // which wait on pages and a single-threaded engine most of the time.
    // Their output goes to a log printed when they end.
    let (web, browser) = (plan.web, plan.browser);
    let log_path = target_dir().join(TEST_PROFILE).join("beside-python.log");
    let beside = {
        let log_path = log_path.clone();
        std::thread::spawn(move || {
            match std::fs::File::create(&log_path) {
                Ok(log) => crate::workspace::log_commands_to(log),
                Err(e) => eprintln!(
                    "xtask: {}: {e}; the stages beside Python print here",
                    log_path.display()
                ),
            }
            let mut done = Vec::new();
            let timed = |name: &'static str, stage: fn() -> Result<(), String>| {
                let started = Instant::now();
                let result = stage();
                (name, started.elapsed(), result)
            };
            // The light reader alone, as a dependent sees it: no feature
            // enabled by the other crates of the workspace.
            done.push(timed(LIGHT_READER, || {
                cargo_test(
                    &["--package", "npuzzle-pdb"],
                    "cargo test --package npuzzle-pdb (default features)",
                )
            }));
            // The engine as the browser has it: `npuzzle` without `native`
            // (tables from memory, one thread), through the WebAssembly
            // crate's calls.
            done.push(timed(WITHOUT_NATIVE, || {
                cargo_test(
                    &["--package", "npuzzle-wasm"],
                    "cargo test --package npuzzle-wasm (npuzzle without native)",
                )
            }));
            if web {
                done.push(timed(WEB_AND_NODE, web::node_tests));
            }
            let web_passed = done
                .iter()
                .all(|(name, _, result)| *name != WEB_AND_NODE || result.is_ok());
            if browser && web_passed {
                done.push(timed(BROWSER, browser_tests));
            }
            done
        })
    };
    let python = match prepared {
        Some(Ok(prepared)) => stages.time("Python (pytest)", || python_pytest(prepared)),
        Some(Err(e)) => Err(e),
        None => Ok(()),
    };
    let done = beside
        .join()
        .map_err(|_| "the stages beside Python panicked".to_string())?;
    let output = std::fs::read_to_string(&log_path).unwrap_or_default();
    eprintln!(
        "\nxtask: the output of the stages beside Python ({}):\n{output}",
        log_path.display()
    );
    let mut beside_result = Ok(());
    for (name, took, result) in done {
        stages.record(&format!("{name} (beside Python)"), took, result.is_ok());
        if let Err(e) = result {
            let outcome = match name {
                BROWSER => plan.skip_unless_installed("browser", e),
                _ => Err(e),
            };
            if beside_result.is_ok() {
                beside_result = outcome;
            }
        }
    }
    if let Err(e) = python {
        plan.skip_unless_installed("Python", e)?;
    }
    beside_result?;
    for note in &plan.notes {
        eprintln!("xtask: {note}");
    }
    Ok(())
}

/// Plays the game in Debian's headless Chromium, driven by Playwright for
/// Python (which cannot download its own browsers here): the page of
/// `npuzzle serve`, and the static site (`cargo xtask web`, built here)
/// served by a plain static file server.
pub fn browser_tests() -> Result<(), String> {
    let host = stages::Host::current();
    if let Some(missing) = stages::python_missing(&host).or_else(|| stages::browser_missing(&host))
    {
        return Err(format!("the browser tests cannot run: {missing}"));
    }
    let chromium = host.chromium;
    let python = python_venv(BROWSER_PACKAGES)?;
    let npuzzle = test_npuzzle()?;
    // The static site, built afresh: its tests fail on a missing or stale one.
    web::run_web(&[])?;
    let site = target_dir().join("web");
    let root = root();
    run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "--durations=5"])
            .arg(root.join("tests/browser"))
            .env("NPUZZLE_BIN", &npuzzle)
            .env("NPUZZLE_WEB_DIR", &site)
            .env("CHROMIUM", &chromium)
            .env("SCREENSHOT_DIR", target_dir().join("browser-screenshots"))
            .current_dir(&root),
        "pytest tests/browser",
    )?;
    println!(
        "Screenshots of the game: {}",
        target_dir().join("browser-screenshots").display()
    );
    Ok(())
}
