//! The tables used from other programs: the Rust library (one-call and
//! light reader), its examples, and the C ABI from a C program compiled
//! with the system `cc`. Each must agree with `npuzzle pdb lookup` and find
//! optimal solutions.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use npuzzle_board::{random_board, random_walk, Board, Goal, Notation, SplitMix64};
use npuzzle_pdb::{Partition, Tables};

use crate::harness::*;
use crate::tables::tables;

/// The target directory of this build and the profile directory within it
/// (`target/release/deps/integration-*` is this binary).
pub(crate) fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Boards of 4x4 with their optimal lengths from linear-conflict IDA*, which
/// uses no table: an independent truth.
fn boards_with_lengths(count: usize, seed: u64) -> Vec<(Board, usize)> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|i| {
            let board = random_walk(4, Goal::BlankLast, 40 + 3 * i, &mut rng);
            let solution = npuzzle_search::solve(&board, &Default::default()).unwrap();
            (board, solution.moves.len())
        })
        .filter(|(_, length)| *length >= 10)
        .collect()
}

/// The C programs' input: a line "LENGTH t0 t1 ..." per board.
fn c_input(boards: &[(Board, usize)]) -> String {
    boards
        .iter()
        .map(|(board, length)| {
            let tiles: Vec<String> = board.tiles().iter().map(u16::to_string).collect();
            format!("{length} {}\n", tiles.join(" "))
        })
        .collect()
}

/// Starts the C program `exe` with `args`, as a user of its own (kept
/// while it runs), and writes `input` to it (then its end).
fn start_c(exe: &Path, args: &[&str], input: &str) -> (UserDirs, std::process::Child) {
    let user = UserDirs::new();
    let mut child = user
        .apply(&mut Command::new(exe))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    (user, child)
}

/// What `npuzzle pdb lookup` prints last for `board` over the 6-6-3 tables.
fn cli_heuristic(board: &Board) -> u32 {
    let run = npuzzle(&[
        "pdb",
        "lookup",
        "--partition",
        "6-6-3",
        "--pdb-dir",
        tables().to_str().unwrap(),
        &board.to_line(),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let last = run.stdout.lines().last().unwrap();
    last.strip_prefix("heuristic: ").unwrap().parse().unwrap()
}

#[test]
fn rust_library_lookups_equal_the_cli() {
    let partition = Partition::parse("6-6-3", 4, Goal::BlankLast).unwrap();
    let one_call = npuzzle::Tables::open_partition(tables(), &partition).unwrap();
    // The light reader maps the copies the CLI unpacked into cache/.
    let light = Tables::open_unpacked(tables(), &partition).unwrap();
    let mut rng = SplitMix64::new(11);
    let mut boards: Vec<Board> = (0..25)
        .map(|_| random_board(4, Goal::BlankLast, &mut rng))
        .collect();
    boards.push(npuzzle_board::parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap());
    for board in &boards {
        let cli = cli_heuristic(board);
        assert_eq!(one_call.heuristic(board).unwrap(), cli, "{board}");
        assert_eq!(light.value(board).unwrap(), cli, "{board}");
    }
}

/// Runs a binary of this build's examples.
fn example(name: &str, args: &[&str]) -> Run {
    let path = profile_dir().join("examples").join(name);
    assert!(path.is_file(), "{} is built by cargo test", path.display());
    let output = Command::new(&path).args(args).output().unwrap();
    Run::of(output)
}

#[test]
fn examples_run_as_documented() {
    let dir = tables().to_str().unwrap();
    for (board, length) in boards_with_lengths(3, 5) {
        let line = board.to_line();
        let lookup = example("lookup", &[dir, "--partition", "6-6-3", &line]);
        assert_eq!(lookup.status, 0, "{}", lookup.stderr);
        assert_eq!(lookup.stdout.trim(), cli_heuristic(&board).to_string());

        let light = example("light_lookup", &[dir, "6-6-3", &line]);
        assert_eq!(light.status, 0, "{}", light.stderr);
        assert!(light
            .stdout
            .ends_with(&format!("heuristic: {}\n", cli_heuristic(&board))));

        let solve = example("solve", &[dir, "--partition", "6-6-3", &line]);
        assert_eq!(solve.status, 0, "{}", solve.stderr);
        assert!(solve
            .stdout
            .starts_with(&format!("Minimum number of moves = {length}\n")));
        let moves = solve
            .stdout
            .lines()
            .nth(1)
            .unwrap()
            .strip_prefix("Moves: ")
            .unwrap();
        assert_replays(&board, moves, Notation::Tile, Goal::BlankLast);
    }
    // Errors are sentences, not Debug dumps.
    let missing = example("solve", &["/nonexistent-tables", "1 2 3 4 5 6 7 8 0"]);
    assert_eq!(missing.status, 1);
    assert!(
        missing.stderr.contains("no pattern databases for 3x3"),
        "{}",
        missing.stderr
    );
    assert!(!missing.stderr.contains("Tables("), "{}", missing.stderr);
    assert!(
        !missing.stderr.contains("TablesError"),
        "{}",
        missing.stderr
    );
}

#[test]
fn the_light_reader_has_no_c_code_and_no_thread_pool() {
    let tree = |features: &[&str]| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let mut command = Command::new(cargo);
        command
            .args([
                "tree",
                "-p",
                "npuzzle-pdb",
                "-e",
                "normal",
                "--prefix",
                "none",
            ])
            .args(features)
            .current_dir(repo_root());
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let light = tree(&[]);
    let crates: Vec<&str> = light
        .lines()
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert!(
        crates
            .iter()
            .all(|c| ["npuzzle-pdb", "npuzzle-board", "crc32fast", "cfg-if"].contains(c)),
        "{light}"
    );
    let mapped = tree(&["--features", "mmap"]);
    assert!(
        mapped.contains("memmap2") && !mapped.contains("zstd") && !mapped.contains("rayon"),
        "{mapped}"
    );
    let full = tree(&["--features", "store,generate"]);
    assert!(
        full.contains("zstd-sys") && full.contains("rayon"),
        "{full}"
    );
}

/// The profile this test binary was built in (`release`, `ci`, `debug`).
pub(crate) fn test_profile() -> String {
    let dir = profile_dir()
        .file_name()
        .expect("a profile directory")
        .to_string_lossy()
        .into_owned();
    // `dev` is the one profile whose directory has another name.
    if dir == "debug" {
        "dev".to_string()
    } else {
        dir
    }
}

/// Builds the C library (`libnpuzzle.so`, `libnpuzzle.a`) into
/// `target_dir` in `profile`, as the whole workspace's targets: the
/// features of a test build, so that the engine this binary was built
/// from is reused, not compiled again.
pub(crate) fn build_libnpuzzle(target_dir: &Path, profile: &str) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .args(["build-tests", "--profile", profile])
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(repo_root());
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "cargo build-tests --profile {profile}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Builds libnpuzzle (the C ABI crate) in this build's profile, once.
pub(crate) fn libnpuzzle() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile = profile_dir();
        build_libnpuzzle(profile.parent().unwrap(), &test_profile());
        assert!(profile.join("libnpuzzle.a").is_file() && profile.join("libnpuzzle.so").is_file());
        profile
    })
}

/// Compiles a C program of the repository with the system `cc` against the
/// static or the shared library.
pub(crate) fn compile_c(source: &str, into: &Path, shared: bool) -> PathBuf {
    let lib = libnpuzzle();
    let exe = into.join(if shared { "c-shared" } else { "c-static" });
    let root = repo_root();
    let mut cc = Command::new("cc");
    cc.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg("-I")
        .arg(root.join("crates/capi/include"))
        .arg(root.join(source));
    if shared {
        cc.arg(format!("-L{}", lib.display()))
            .arg("-lnpuzzle")
            .arg(format!("-Wl,-rpath,{}", lib.display()));
    } else {
        cc.arg(lib.join("libnpuzzle.a"))
            .args(["-lpthread", "-ldl", "-lm"]);
    }
    let output = cc.output().expect("the system C compiler `cc` runs");
    assert!(
        output.status.success(),
        "cc: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

#[test]
fn a_c_program_solves_boards_through_libnpuzzle() {
    let boards = boards_with_lengths(12, 21);
    let input = c_input(&boards);
    let scratch = scratch();
    for shared in [false, true] {
        let exe = compile_c("tests/c/solve_boards.c", scratch.path(), shared);
        let (_user, child) = start_c(&exe, &[tables().to_str().unwrap(), "6-6-3"], &input);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "shared {shared}: {stderr}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(stdout.lines().count(), boards.len());
        for ((board, length), line) in boards.iter().zip(stdout.lines()) {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields[1], length.to_string(), "{board}");
            assert_eq!(fields[0], cli_heuristic(board).to_string(), "{board}");
            assert_replays(
                board,
                fields.get(2).copied().unwrap_or(""),
                Notation::Tile,
                Goal::BlankLast,
            );
        }
    }
}

/// Threads sharing a fresh handle (default options: one thread per core,
/// tables opened by the first board) all get their answers, on 50 new
/// handles in a row; a deadlock is a program still running at the timeout.
#[test]
fn c_threads_sharing_a_fresh_handle_all_get_their_answers() {
    let boards = boards_with_lengths(6, 97);
    let input = c_input(&boards);
    let scratch = scratch();
    let exe = compile_c("tests/c/threads.c", scratch.path(), true);
    let (_user, mut child) = start_c(&exe, &[tables().to_str().unwrap(), "5-5-5", "50"], &input);
    wait_or_kill(&mut child, 120, "threads sharing a fresh handle hung");
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("50 rounds, 4 threads"), "{stdout}");
}

#[test]
fn the_c_example_of_the_readme_solves_a_board() {
    let scratch = scratch();
    let exe = compile_c("examples/c/solve.c", scratch.path(), true);
    let (board, length) = boards_with_lengths(1, 8).remove(0);
    let tiles: Vec<String> = board.tiles().iter().map(u16::to_string).collect();
    let user = UserDirs::new();
    let output = user
        .apply(&mut Command::new(&exe))
        .arg(tables())
        .arg("6-6-3")
        .args(&tiles)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rest = stdout
        .strip_prefix(&format!("{length} moves: "))
        .expect(&stdout);
    assert_replays(
        &board,
        rest.split(' ').next().unwrap(),
        Notation::Tile,
        Goal::BlankLast,
    );
    // Missing tables: the library's message, exit status 1.
    let output = user
        .apply(&mut Command::new(&exe))
        .arg("/nonexistent")
        .args(&tiles)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("npuzzle pdb build"));
}
