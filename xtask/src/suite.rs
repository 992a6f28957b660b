//! `cargo xtask test` and `cargo xtask browser`: the whole suite, and
//! its browser stage.

use std::process::Command;

use crate::python::{python_tests, python_venv};
use crate::workspace::{cargo, release_npuzzle, root, run, target_dir};
use crate::{stages, web};

/// The whole suite: Rust (with the C program), Python and the browser; the
/// stages whose needs are missing are known (or refused) before any runs.
pub fn test(args: &[String]) -> Result<(), String> {
    let mut plan = stages::plan(args, &stages::Host::current())?;
    for note in &plan.notes {
        eprintln!("xtask: {note}");
    }
    let cargo = cargo();
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
