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

/// A scratch directory that is removed at the end of the test.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Runs `npuzzle args...` with `stdin` in `dir`.
pub fn npuzzle_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_npuzzle"))
        .args(args)
        .current_dir(dir)
        // Hermetic: no tables unless a test builds them and passes --pdb-dir.
        .env("NPUZZLE_PDB_DIR", dir.join("no-tables-here"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("npuzzle runs");
    // npuzzle may stop reading early (an overlong line): a closed pipe here
    // is its answer, not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let output = child.wait_with_output().unwrap();
    let run = Run {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
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
