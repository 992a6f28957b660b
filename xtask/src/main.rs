//! Project automation: `cargo xtask <task>`. Heavy work runs in the release
//! build of `npuzzle`, never in a debug build.

use std::env;
use std::process::{Command, ExitCode};

mod bench;
mod digests;
mod fuzz;
mod imports;
mod install;
mod python;
mod runner;
mod stages;
mod suite;
#[cfg(test)]
mod test_script;
mod web;
mod workspace;

use crate::workspace::{release_npuzzle, root, run};

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
  imports              list each crate's modules and the imports between
                       them; fails on a loop (a module that imports
                       itself back) or production code naming a test module
  man [--out DIR]      write the manual pages of npuzzle (default: target/man)
  install-c [--prefix DIR] [--built DIR]
                       install the C library: DIR/lib/libnpuzzle.a and .so,
                       DIR/include/npuzzle.h, DIR/lib/pkgconfig/npuzzle.pc;
                       built in release, or taken from the --built folder
                       (a build of your own, e.g. target/ci)
                       (default DIR: /usr/local)
  fuzz [options]       fuzz every door: the board readers and the command
                       line, the HTTP API, the C ABI and the Python API:
                       --cases N (parser, default 1,000,000), --cli-cases N
                       (runs of the binary, default 5,000), --door-cases N
                       (HTTP, C and Python each, default 100,000),
                       --table-cases N (crafted tables whose checksums
                       match, default 2,000), --checkpoint-cases N
                       (forged --checkpoint files, default 500), --seed S
";

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-pdb") => build_pdb(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("digests") => digests::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("imports") => imports::run(&args[1..]),
        Some("test") => suite::test(&args[1..]),
        Some("python") => python::python_tests(),
        Some("wheel") => python::wheel(&args[1..]),
        Some("man") => install::man(&args[1..]),
        Some("install-c") => install::install_c(&args[1..]),
        Some("browser") => suite::browser_tests(),
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

/// `cargo xtask build-pdb`: `npuzzle pdb build`, into data/ unless told.
fn build_pdb(args: &[String]) -> Result<(), String> {
    let npuzzle = release_npuzzle()?;
    let mut command = Command::new(npuzzle);
    command.args(["pdb", "build"]);
    if !args.iter().any(|a| a == "--out" || a.starts_with("--out=")) {
        command.arg("--out").arg(root().join("data"));
    }
    run(command.args(args), "npuzzle pdb build")
}
