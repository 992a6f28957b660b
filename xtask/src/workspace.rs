//! Where things are and how tools run: the checkout, the target folder,
//! the release build of `npuzzle`.

use std::cell::RefCell;
use std::env;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

thread_local! {
    /// Where the commands [`run`] starts on this thread write: a stage
    /// running beside another keeps its output in a log, printed whole
    /// when it ends, instead of interleaving lines with the other's.
    static COMMAND_LOG: RefCell<Option<File>> = const { RefCell::new(None) };
}

/// Sends the output of the commands this thread runs to `log`.
pub fn log_commands_to(log: File) {
    COMMAND_LOG.with_borrow_mut(|slot| *slot = Some(log));
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
    let cargo = cargo();
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

/// The profile of the test suite's builds (Cargo.toml's `[profile.ci]`:
/// release code without link-time optimisation, built in minutes less).
pub const TEST_PROFILE: &str = "ci";

/// Builds what the test suite builds (the `build-tests` alias of
/// .cargo/config.toml) in the test profile, the features as the tests
/// resolve them (so nothing the tests built is compiled again), and
/// returns that `npuzzle`: the binary the Python, Node and browser stages
/// drive. After the Rust stage it compiles nothing.
pub fn test_npuzzle() -> Result<PathBuf, String> {
    run(
        Command::new(cargo())
            .args(["build-tests", "--profile", TEST_PROFILE])
            .current_dir(root()),
        "cargo build-tests --profile ci",
    )?;
    Ok(target_dir().join(TEST_PROFILE).join("npuzzle"))
}

/// The cargo that runs this task (its path in $CARGO), else `cargo`.
pub fn cargo() -> String {
    env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// Runs `command`; `what` names it in the error.
pub fn run(command: &mut Command, what: &str) -> Result<(), String> {
    COMMAND_LOG.with_borrow(|log| {
        if let Some(log) = log {
            if let (Ok(out), Ok(err)) = (log.try_clone(), log.try_clone()) {
                command.stdout(out).stderr(err);
            }
        }
    });
    let status = command
        .status()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// The target directory (CARGO_TARGET_DIR or the checkout's target/).
pub fn target_dir() -> PathBuf {
    env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}
