//! Project automation: `cargo xtask <task>`. Heavy work runs in the release
//! build of `npuzzle`, never in a debug build.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod digests;
mod install;
mod stages;
#[cfg(test)]
mod test_script;
mod web;

const TASKS: &str = "\
usage: cargo xtask <task> [options]

tasks:
  build-pdb [options]  build pattern databases into data/ (default: the 7-8
                       partition of the 15-puzzle); options are those of
                       `npuzzle pdb build --help` (--partition, --size, --goal,
                       --out, --threads, --force, --level)
  bench [options]      solve the standard sets in bench/ and write
                       bench/report.md (see `cargo xtask bench --help`)
  digests [--size N] [--goal G]
                       build every named partition's tables in memory and
                       list their digests in crates/pdb/digests.txt
  test [--all] [--no-python] [--no-web] [--no-browser]
                       the whole test suite: `cargo test --workspace
                       --release` (Rust, and the C program against
                       libnpuzzle), the light reader alone (default
                       features), the Python package (its wheel built with
                       maturin, installed into target/python-venv, tested
                       with pytest), the engine in WebAssembly (the site of
                       `web` built, the JavaScript door tested under Node
                       18+ against the command line), then the game of
                       `npuzzle serve` and of the static site in headless
                       Chromium (Playwright; $CHROMIUM, default
                       /usr/bin/chromium, installed with apt-get when run
                       as root). A stage whose needs are missing (python3
                       with venv, Chromium) is skipped with a note saying
                       what to install; with --all it is an error
  python               only the Python part of `test`; prints how to use
                       the venv it makes
  wheel [--out DIR]    build the Python package's abi3 wheel (CPython 3.9
                       and later; installs without Rust) into DIR (default:
                       target/wheels) and print its path
  browser              only the browser part of `test`; screenshots go to
                       target/browser-screenshots
  web [--out DIR]      build the game as a static, installable, offline site
                       with the engine in WebAssembly, and the JavaScript
                       door (npuzzle.js), into DIR (default: target/web);
                       compiles with rustup's wasm32-unknown-unknown target,
                       else Debian's rustc-web (installed with apt-get when
                       run as root)
  man [--out DIR]      write the manual pages of npuzzle (default: target/man)
  install-c [--prefix DIR]
                       install the C library: DIR/lib/libnpuzzle.a and .so,
                       DIR/include/npuzzle.h, DIR/lib/pkgconfig/npuzzle.pc
                       (default DIR: /usr/local)
  fuzz [options]       fuzz every door: the board readers and the command
                       line, the HTTP API, the C ABI and the Python API:
                       --cases N (parser, default 1,000,000), --cli-cases N
                       (runs of the binary, default 5,000), --door-cases N
                       (HTTP, C and Python each, default 100,000),
                       --table-cases N (crafted tables whose checksums
                       match, default 2,000), --seed S
";

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-pdb") => build_pdb(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("digests") => digests::run(&args[1..]),
        Some("fuzz") => fuzz(&args[1..]),
        Some("test") => test(&args[1..]),
        Some("python") => python_tests(),
        Some("wheel") => wheel(&args[1..]),
        Some("man") => install::man(&args[1..]),
        Some("install-c") => install::install_c(&args[1..]),
        Some("browser") => browser_tests(),
        Some("web") => web::run_web(&args[1..]),
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
/// Cargo's progress shows: the first build takes minutes.
pub fn release_npuzzle() -> Result<PathBuf, String> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let binary = target_dir().join("release").join("npuzzle");
    let mut command = Command::new(cargo);
    command.args([
        "build",
        "--release",
        "--package",
        "npuzzle-cli",
        "--bin",
        "npuzzle",
    ]);
    if !binary.is_file() {
        eprintln!(
            "xtask: compiling npuzzle (release build; the first time takes a few minutes, \
             then seconds)"
        );
    }
    let status = command
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build --release failed".to_string());
    }
    Ok(target_dir().join("release").join("npuzzle"))
}

fn build_pdb(args: &[String]) -> Result<(), String> {
    let npuzzle = release_npuzzle()?;
    let mut command = Command::new(npuzzle);
    command.args(["pdb", "build"]);
    if !args.iter().any(|a| a == "--out" || a.starts_with("--out=")) {
        command.arg("--out").arg(root().join("data"));
    }
    run(command.args(args), "npuzzle pdb build")
}

/// Runs the fuzz tests of every door with large case counts: the board
/// readers and the command line, the HTTP API (random requests and the
/// hostile request set, mutated), the C ABI (integration suite), the
/// Python API and the labeller's files tampered with (pytest, in the test
/// environment).
fn fuzz(args: &[String]) -> Result<(), String> {
    let mut cases = "1000000".to_string();
    let mut cli_cases = "5000".to_string();
    let mut door_cases = "100000".to_string();
    let mut table_cases = "2000".to_string();
    let mut seed = "1".to_string();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let slot = match arg.as_str() {
            "--cases" => &mut cases,
            "--cli-cases" => &mut cli_cases,
            "--door-cases" => &mut door_cases,
            "--table-cases" => &mut table_cases,
            "--seed" => &mut seed,
            other => return Err(format!("fuzz: unknown option '{other}'\n\n{TASKS}")),
        };
        *slot = rest
            .next()
            .filter(|v| v.parse::<u64>().is_ok())
            .ok_or_else(|| format!("fuzz: {arg} wants a number"))?
            .clone();
    }
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args([
            "test",
            "--release",
            "--package",
            "npuzzle-cli",
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
        .env("NPUZZLE_FUZZ_SEED", &seed)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("fuzz: failures (see above; inputs written under the temp directory)".into());
    }
    let python = python_package()?;
    run(
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
         Python API, {} labeller tamperings, {table_cases} crafted tables, seed {seed}: no \
         failure",
        door_cases.parse::<u64>().unwrap_or(0) / 200
    );
    Ok(())
}

pub fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// The whole suite: Rust (with the C program), Python and the browser; the
/// stages whose needs are missing are known (or refused) before any runs.
fn test(args: &[String]) -> Result<(), String> {
    let mut plan = stages::plan(args, &stages::Host::current())?;
    for note in &plan.notes {
        eprintln!("xtask: {note}");
    }
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    run(
        Command::new(&cargo)
            .args(["test", "--workspace", "--release"])
            .current_dir(root()),
        "cargo test",
    )?;
    // The light reader alone, as a dependent sees it: no feature enabled by
    // the other crates of the workspace.
    run(
        Command::new(&cargo)
            .args(["test", "--release", "--package", "npuzzle-pdb"])
            .current_dir(root()),
        "cargo test --package npuzzle-pdb (default features)",
    )?;
    // The engine as the browser has it: `npuzzle` without `native` (tables
    // from memory, one thread), through the WebAssembly crate's calls.
    run(
        Command::new(&cargo)
            .args(["test", "--release", "--package", "npuzzle-wasm"])
            .current_dir(root()),
        "cargo test --package npuzzle-wasm (npuzzle without native)",
    )?;
    if plan.python {
        if let Err(e) = python_tests() {
            plan.skip_unless_installed("Python", e)?;
        }
    }
    if plan.web {
        web::node_tests()?;
    }
    if plan.browser {
        if let Err(e) = browser_tests() {
            plan.skip_unless_installed("browser", e)?;
        }
    }
    for note in &plan.notes {
        eprintln!("xtask: {note}");
    }
    Ok(())
}

/// The target directory (CARGO_TARGET_DIR or the checkout's target/).
pub fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// The test virtual environment under target/, made if missing, with
/// `packages` installed from PyPI; returns its python.
fn python_venv(packages: &[&str]) -> Result<PathBuf, String> {
    let venv = target_dir().join("python-venv");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        run(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv (on Debian: apt-get install python3-venv)",
        )?;
    }
    pip_install(&python, packages)?;
    Ok(python)
}

/// `pip install --quiet ARGS` in the environment of `python`.
fn pip_install(python: &Path, args: &[&str]) -> Result<(), String> {
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(args),
        &format!("pip install {}", args.join(" ")),
    )
}

/// Plays the game in Debian's headless Chromium, driven by Playwright for
/// Python (which cannot download its own browsers here): the page of
/// `npuzzle serve`, and the static site (`cargo xtask web`, built here)
/// served by a plain static file server.
fn browser_tests() -> Result<(), String> {
    let host = stages::Host::current();
    if let Some(missing) = stages::python_missing(&host).or_else(|| stages::browser_missing(&host))
    {
        return Err(format!("the browser tests cannot run: {missing}"));
    }
    let chromium = host.chromium;
    let python = python_venv(&["pytest", "playwright>=1.40,<2"])?;
    let npuzzle = release_npuzzle()?;
    // The static site, built afresh: its tests fail on a missing or stale one.
    web::run_web(&[])?;
    let site = target_dir().join("web");
    let root = root();
    run(
        Command::new(&python)
            .args(["-m", "pytest", "-q"])
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

/// Builds the Python package into a virtual environment under target/ with
/// maturin and runs its tests with pytest.
fn python_tests() -> Result<(), String> {
    if let Some(missing) = stages::python_missing(&stages::Host::current()) {
        return Err(format!("the Python tests cannot run: {missing}"));
    }
    let root = root();
    let (python, wheel) = python_package_and_wheel()?;
    let npuzzle = release_npuzzle()?;
    run(
        Command::new(&python)
            .args(["-m", "pytest", "-q"])
            .arg(root.join("crates/python/tests"))
            .env("NPUZZLE_BIN", &npuzzle)
            .env("NPUZZLE_WHEEL", &wheel)
            .current_dir(&root),
        "pytest",
    )?;
    println!(
        "Python package installed in {venv}: {venv}/bin/python -c 'import npuzzle'",
        venv = target_dir().join("python-venv").display()
    );
    Ok(())
}

/// Builds the Python package with maturin and installs it into the test
/// environment under target/; returns its python.
pub fn python_package() -> Result<PathBuf, String> {
    python_package_and_wheel().map(|(python, _)| python)
}

/// `python_package`, and the wheel it installed (target/wheels).
fn python_package_and_wheel() -> Result<(PathBuf, PathBuf), String> {
    let python = python_venv(&[
        "maturin>=1.9,<2",
        "pytest",
        "numpy",
        "dask[distributed]",
        "pyarrow",
    ])?;
    let wheels = target_dir().join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    let wheel = build_wheel(&python, &wheels)?;
    pip_install(
        &python,
        &["--force-reinstall", "--no-deps", &wheel.to_string_lossy()],
    )?;
    Ok((python, wheel))
}

/// `cargo xtask wheel [--out DIR]`.
fn wheel(args: &[String]) -> Result<(), String> {
    let out = match args {
        [] => target_dir().join("wheels"),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => {
            return Err(format!(
                "wheel: usage: cargo xtask wheel [--out DIR]\n\n{TASKS}"
            ))
        }
    };
    if let Some(missing) = stages::python_missing(&stages::Host::current()) {
        return Err(format!(
            "wheel: maturin runs in a virtual environment: {missing}"
        ));
    }
    let python = python_venv(&["maturin>=1.9,<2"])?;
    let wheel = build_wheel(&python, &out)?;
    println!("{}", wheel.display());
    Ok(())
}

/// Builds the abi3 wheel (one for every CPython from 3.9: pyo3's
/// `abi3-py39`) into `out` with the maturin of `python`'s environment;
/// returns its path.
fn build_wheel(python: &Path, out: &Path) -> Result<PathBuf, String> {
    let maturin = python.with_file_name("maturin");
    eprintln!("xtask: building the Python wheel (a release build of the engine)");
    run(
        Command::new(maturin)
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(root().join("crates/python/Cargo.toml"))
            .arg("--out")
            .arg(out)
            .arg("--interpreter")
            .arg(python),
        "maturin build",
    )?;
    // The newest npuzzle wheel there: DIR may hold earlier ones.
    std::fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.extension().is_some_and(|e| e == "whl")
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("npuzzle-"))
        })
        .max_by_key(|path| path.metadata().and_then(|m| m.modified()).ok())
        .ok_or_else(|| format!("maturin made no wheel in {}", out.display()))
}
