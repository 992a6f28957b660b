use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use npuzzle_board::{Board, Goal, Move, Notation};

/// The repository root (for the bench sets).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What one run of `npuzzle` gave.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// What a finished process gave (its output must be UTF-8).
    pub fn of(output: std::process::Output) -> Run {
        Run {
            status: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    pub fn json_records(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
            .collect()
    }

    pub fn assert_no_panic(&self) {
        assert!(!self.stderr.contains("panicked"), "panic: {}", self.stderr);
    }
}

/// Sends `child` the signal of Ctrl-C.
pub fn interrupt(child: &std::process::Child) {
    let signal = std::process::Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status()
        .expect("sh runs kill");
    assert!(signal.success());
}

/// A scratch directory that is removed at the end of the test.
pub fn scratch() -> tempfile::TempDir {
    isolate_process();
    tempfile::tempdir().expect("a temporary directory")
}

/// A user's directories of its own for one run of a program: HOME, the XDG
/// cache, data and config directories and `NPUZZLE_CACHE_DIR`, all inside
/// one temporary directory, so that no test sees the tables or unpacked
/// copies in the real user's `~/.cache/npuzzle` or `~/.local/share/npuzzle`.
pub struct UserDirs {
    root: tempfile::TempDir,
}

impl UserDirs {
    pub fn new() -> UserDirs {
        isolate_process();
        let root = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir(root.path().join("home")).expect("a home directory");
        UserDirs { root }
    }

    /// Gives `command` these directories, whatever the environment says.
    pub fn apply<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        self.apply_but_home(command)
            .env("HOME", self.root.path().join("home"))
    }

    /// The user data directory npuzzle finds in these directories.
    pub fn data_dir(&self) -> PathBuf {
        self.root.path().join("data").join("npuzzle")
    }

    /// [`UserDirs::apply`] with HOME left as it is (for shells that may run
    /// cargo, which finds its toolchain under HOME).
    pub fn apply_but_home<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        let root = self.root.path();
        command
            .env("XDG_CACHE_HOME", root.join("cache"))
            .env("XDG_DATA_HOME", root.join("data"))
            .env("XDG_CONFIG_HOME", root.join("config"))
            .env("NPUZZLE_CACHE_DIR", root.join("npuzzle-cache"))
    }
}

/// Points this test process's own user directories (the XDG cache and data
/// directories and `NPUZZLE_CACHE_DIR`; HOME stays, for cargo and
/// compilers) at a directory of its own, once, before any test opens a
/// table in process or spawns a program that inherits them.
pub fn isolate_process() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let parent = Path::new(env!("CARGO_TARGET_TMPDIR"));
        remove_stale_user_dirs(parent);
        let root = tempfile::Builder::new()
            .prefix(&format!("user-dirs-{}-", std::process::id()))
            .tempdir_in(parent)
            .expect("a directory for the test process's user directories")
            .keep();
        std::env::set_var("XDG_CACHE_HOME", root.join("cache"));
        std::env::set_var("XDG_DATA_HOME", root.join("data"));
        std::env::set_var("XDG_CONFIG_HOME", root.join("config"));
        std::env::set_var("NPUZZLE_CACHE_DIR", root.join("npuzzle-cache"));
    });
}

/// Removes the user directories of test processes that have ended.
fn remove_stale_user_dirs(parent: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("user-dirs-")
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Runs `npuzzle args...` with `stdin` in `dir`, with user directories of
/// its own.
pub fn npuzzle_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    npuzzle_from(
        Command::new(env!("CARGO_BIN_EXE_npuzzle")),
        dir,
        args,
        stdin,
    )
}

/// [`npuzzle_in`] from `command` (the binary, with whatever environment
/// the caller gave it): the harness still gives it user directories of its
/// own and no tables unless the test passes --pdb-dir.
pub fn npuzzle_from(mut command: Command, dir: &Path, args: &[&str], stdin: &str) -> Run {
    let user = UserDirs::new();
    user.apply(&mut command)
        // Hermetic: no tables unless a test builds them and passes --pdb-dir.
        .env("NPUZZLE_PDB_DIR", dir.join("no-tables-here"));
    run_command(command, dir, args, stdin)
}

/// [`npuzzle_in`] as the user of `user`'s directories, for runs that
/// must share them (a checkpoint's key).
pub fn npuzzle_as(user: &UserDirs, dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_npuzzle"));
    user.apply(&mut command)
        .env("NPUZZLE_PDB_DIR", dir.join("no-tables-here"));
    run_command(command, dir, args, stdin)
}

/// Waits for `child` to end; kills it and panics with `hung` after
/// `seconds`: a test of something that must not hang fails, not hangs.
pub fn wait_or_kill(child: &mut std::process::Child, seconds: u64, hung: &str) {
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(seconds) {
            let _ = child.kill();
            panic!("{hung} (killed after {seconds} s)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs `command args...` with `stdin` in `dir`, its environment as given.
pub fn run_command(mut command: Command, dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("npuzzle runs");
    // npuzzle may stop reading early (an overlong line): a closed pipe here
    // is its answer, not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let output = child.wait_with_output().unwrap();
    let run = Run::of(output);
    run.assert_no_panic();
    run
}

pub fn npuzzle(args: &[&str]) -> Run {
    let dir = scratch();
    npuzzle_in(dir.path(), args, "")
}

/// Checks that `moves` (as printed) take `board` to `goal`.
pub fn assert_replays(board: &Board, moves: &str, notation: Notation, goal: Goal) {
    let moves = Move::parse_sequence(moves, notation).expect("printed moves are letters");
    assert!(
        board.solves(&moves, goal),
        "{moves:?} does not take {board} to {goal}"
    );
}

/// Checks that a JSON solution record's moves take its board to `goal`.
pub fn assert_record_replays(record: &serde_json::Value, goal: Goal) {
    let tiles: Vec<u16> = record["board"]
        .as_array()
        .expect("a board")
        .iter()
        .map(|v| v.as_u64().expect("a tile") as u16)
        .collect();
    let board = Board::from_tiles(tiles).expect("a valid board");
    assert_replays(
        &board,
        record["moves"].as_str().expect("moves"),
        Notation::Tile,
        goal,
    );
}
