//! One engine behind every door: the Rust library, the C ABI and the
//! command line give the same length, optimality and expanded-node count
//! (one thread; batches against batches, single boards against single
//! boards) on every table configuration and every board-size policy.
//! (The Python package's side is in crates/python/tests.)

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use npuzzle::{Board, Goal, HeuristicKind, Partition, Solver};
use npuzzle_board::{random_walk, SplitMix64};

use crate::harness::*;
use crate::reuse::compile_c;
use crate::tables::tables;

/// 3x3 tables (plain, zero-aware, complete) built through the library.
fn tables_3x3() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch();
        for name in ["8", "4-4", "z1,2,3,4;z5,6,7,8"] {
            let partition = Partition::parse(name, 3, Goal::BlankLast).unwrap();
            npuzzle::build_tables(dir.path(), &partition).unwrap();
        }
        dir
    })
    .path()
}

/// The C parity program, compiled once.
fn c_program() -> &'static Path {
    static EXE: OnceLock<(tempfile::TempDir, std::path::PathBuf)> = OnceLock::new();
    &EXE.get_or_init(|| {
        let dir = scratch();
        let exe = compile_c("tests/c/parity.c", dir.path(), true);
        (dir, exe)
    })
    .1
}

/// What one door said of one board: length, expanded nodes, optimal.
type Said = (usize, u64, bool);

/// The command line's answers (`--jobs 1 --json`).
fn cli(args: &[&str], boards: &[Board]) -> Vec<Said> {
    let input: String = boards.iter().map(|b| b.to_line() + "\n").collect();
    let mut all = vec!["solve", "--json", "--jobs", "1"];
    all.extend_from_slice(args);
    let run = npuzzle_in(scratch().path(), &all, &input);
    assert!(run.status == 0, "{args:?}: {}", run.stderr);
    let records = run.json_records();
    records[..boards.len()]
        .iter()
        .map(|r| {
            assert_record_replays(r, Goal::BlankLast);
            (
                r["length"].as_u64().unwrap() as usize,
                r["expanded"].as_u64().unwrap_or(0),
                r["optimal"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// The C ABI's answers (`npuzzle_open_with`, one thread).
fn c_abi(dir: Option<&Path>, options: &[String], boards: &[Board], empty: &Path) -> Vec<Said> {
    let input: String = boards
        .iter()
        .map(|b| {
            let tiles: Vec<String> = b.tiles().iter().map(u16::to_string).collect();
            tiles.join(" ") + "\n"
        })
        .collect();
    let dir = dir.map_or("-".to_string(), |d| d.display().to_string());
    let user = UserDirs::new();
    let mut child = user
        .apply(&mut Command::new(c_program()))
        .arg(dir)
        .args(options)
        .env("NPUZZLE_PDB_DIR", empty)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .zip(boards)
        .map(|(line, board)| {
            let fields: Vec<&str> = line.split(' ').collect();
            assert_eq!(fields.len(), 5, "{line}");
            assert_replays(board, fields[4], npuzzle::Notation::Tile, Goal::BlankLast);
            (
                fields[0].parse().unwrap(),
                fields[1].parse().unwrap(),
                fields[2] == "1",
            )
        })
        .collect()
}

/// The Rust library's answers to the boards one at a time (`solve`: the
/// split search, on one thread here), as the C program asks.
fn library_one_by_one(solver: &Solver, boards: &[Board]) -> Vec<Said> {
    boards
        .iter()
        .map(|board| {
            let s = solver.solve(board).unwrap();
            assert!(board.solves(&s.moves, Goal::BlankLast));
            (s.length(), s.expanded(), s.optimal)
        })
        .collect()
}

/// The Rust library's answers to the boards as a batch (`solve_many`: a
/// depth-first search per board), as the command line reads them.
fn library(solver: &Solver, boards: &[Board]) -> Vec<Said> {
    solver
        .solve_many(boards)
        .into_iter()
        .zip(boards)
        .map(|(answer, board)| {
            let s = answer.unwrap();
            assert!(board.solves(&s.moves, Goal::BlankLast));
            (s.length(), s.expanded(), s.optimal)
        })
        .collect()
}

fn walks(size: usize, count: usize, steps: usize, seed: u64) -> Vec<Board> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|i| random_walk(size, Goal::BlankLast, steps + 7 * i, &mut rng))
        .collect()
}

/// Every table configuration: partitions, zero-aware tables and
/// catalogues of two to five partitions (the largest heuristic included).
#[test]
fn every_door_searches_the_same_nodes_over_every_table_configuration() {
    let empty = scratch();
    let sharing = [
        "1,2;3,6;4,5;7,8",
        "1,4;2,3;5,6;7,8",
        "1,2;3,4;5,8;6,7",
        "2,5;1,4;3,6;7,8",
        "z1,2;z3,6;z4,5;z7,8",
    ]
    .join("+");
    let sharing_dir = scratch();
    npuzzle::build_tables(
        sharing_dir.path(),
        &Partition::parse(&sharing, 3, Goal::BlankLast).unwrap(),
    )
    .unwrap();
    let configurations: Vec<(usize, &Path, String)> = vec![
        (3, tables_3x3(), "8".into()),
        (3, tables_3x3(), "4-4".into()),
        (3, tables_3x3(), "z1,2,3,4;z5,6,7,8".into()),
        (3, tables_3x3(), "4-4+z1,2,3,4;z5,6,7,8".into()),
        (3, sharing_dir.path(), sharing.clone()),
        (4, tables(), "5-5-5".into()),
        (4, tables(), "6-6-3".into()),
        (4, tables(), "6z-6z-3z".into()),
        (4, tables(), "5-5-5+6-6-3".into()),
        (4, tables(), "6z-6z-3z+6-6-3+5-5-5".into()),
    ];
    for (size, dir, partition) in &configurations {
        let boards = walks(*size, 5, if *size == 3 { 40 } else { 50 }, 31);
        let dir_text = dir.display().to_string();
        let mut args = vec!["--pdb-dir", &dir_text, "--partition", partition];
        if *size == 3 {
            args.extend(["--heuristic", "pdb"]);
        }
        let from_cli = cli(&args, &boards);
        let mut builder = Solver::builder()
            .pdb_dir(*dir)
            .partition(partition.as_str())
            .threads(1);
        let mut options = vec![format!("partition={partition}")];
        if *size == 3 {
            builder = builder.heuristic(HeuristicKind::Pdb);
            options.push("heuristic=pdb".into());
        }
        let solver = builder.build().unwrap();
        let from_library = library(&solver, &boards);
        let from_c = c_abi(Some(dir), &options, &boards, empty.path());
        assert_eq!(from_library, from_cli, "{partition}");
        assert_eq!(from_c, library_one_by_one(&solver, &boards), "{partition}");
        assert!(from_cli
            .iter()
            .all(|&(_, nodes, optimal)| optimal && nodes > 0));
    }
}

/// Every board-size policy, without tables: 2x2 and 3x3 by linear
/// conflict, 4x4 by linear conflict within the node budget and by the
/// reduction past it, 5x5 and 6x6 far from solved by the beam (which on
/// 6x6 within 5,000 nodes gives way to the reduction), 20x20 by the
/// reduction, and `--fast`.
#[test]
fn every_door_follows_the_same_policy_per_board_size() {
    let empty = scratch();
    let cases: Vec<(Vec<Board>, Vec<&str>)> = vec![
        (walks(2, 4, 5, 1), vec![]),
        (walks(3, 6, 30, 2), vec![]),
        (walks(4, 4, 30, 3), vec![]),
        (walks(4, 3, 200, 4), vec!["--max-nodes", "2000"]),
        (walks(6, 3, 400, 5), vec!["--max-nodes", "5000"]),
        (walks(5, 2, 300, 8), vec!["--max-nodes", "300000"]),
        (walks(20, 2, 3000, 6), vec![]),
        (walks(4, 3, 60, 7), vec!["--fast"]),
    ];
    let mut saw_reduction = false;
    for (boards, args) in &cases {
        let from_cli = cli(args, &boards[..]);
        let mut builder = Solver::builder().pdb_dir(empty.path()).threads(1);
        let mut options = Vec::new();
        if let Some(limit) = args
            .iter()
            .position(|a| *a == "--max-nodes")
            .map(|i| args[i + 1])
        {
            builder = builder.max_nodes(Some(limit.parse().unwrap()));
            options.push(format!("max_nodes={limit}"));
        }
        if args.contains(&"--fast") {
            builder = builder.fast(true);
            options.push("fast=1".into());
        }
        let solver = builder.build().unwrap();
        let from_library = library(&solver, boards);
        let from_c = c_abi(None, &options, boards, empty.path());
        assert_eq!(from_library, from_cli, "{args:?} {}", boards[0]);
        assert_eq!(
            from_c,
            library_one_by_one(&solver, boards),
            "{args:?} {}",
            boards[0]
        );
        saw_reduction |= from_cli.iter().any(|&(_, _, optimal)| !optimal);
    }
    assert!(saw_reduction, "the cases reach the reduction");
}
