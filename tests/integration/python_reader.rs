//! examples/read_pdb.py, the standard-library Python reader, against the
//! Rust lookups.

use std::path::Path;
use std::process::Command;

use npuzzle_board::{random_board, Board, Goal, SplitMix64};
use npuzzle_pdb::file;
use npuzzle_pdb::Partition;

use crate::harness::*;
use crate::tables::*;

/// The values examples/read_pdb.py reads for `boards` from the unpacked
/// table `table`.
fn python_lookups(table: &Path, boards: &[Board]) -> Vec<u32> {
    let output = Command::new("python3")
        .arg(repo_root().join("examples/read_pdb.py"))
        .arg(table)
        .args(boards.iter().map(|b| {
            b.tiles()
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(",")
        }))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

#[test]
fn the_python_reader_agrees_with_the_rust_lookup() {
    if Command::new("python3").arg("--version").output().is_err() {
        panic!("python3 is needed for this test (.ci/run installs it)");
    }
    let partition = Partition::parse("6-6-3+6z-6z-3z", 4, Goal::BlankLast).unwrap();
    let pdbs = file::open_partition(tables(), &partition).unwrap();
    let mut rng = SplitMix64::new(2024);
    let boards: Vec<Board> = (0..200)
        .map(|_| random_board(4, Goal::BlankLast, &mut rng))
        .collect();
    for (pattern, pdb) in partition.patterns().iter().zip(&pdbs) {
        let raw = file::cache_path(&tables().join(file::file_name(pattern)));
        let python = python_lookups(&raw, &boards);
        let rust: Vec<u32> = boards.iter().map(|b| pdb.lookup(b).unwrap()).collect();
        assert_eq!(python, rust, "pattern {pattern}");
    }
    // Zero-aware tables of format version 2 (one entry per free cell), which
    // npuzzle no longer builds but still reads: both readers agree on them
    // and with the version-3 table of the same pattern.
    let dir = scratch();
    let pattern = npuzzle_pdb::Pattern::new(4, Goal::BlankLast, vec![1, 2, 3, 5, 6]).unwrap();
    let mut values = Vec::new();
    for scheme in [
        npuzzle_pdb::IndexScheme::PlacementAndCell,
        npuzzle_pdb::IndexScheme::PlacementAndRegion,
    ] {
        let pattern = pattern.clone().with_index_scheme(scheme).unwrap();
        let image = npuzzle_pdb::build_file(&pattern, 1, |_| {}).unwrap();
        let path = dir.path().join(format!("{scheme:?}.pdb"));
        std::fs::write(&path, &image).unwrap();
        let pdb = npuzzle_pdb::Pdb::from_bytes(image).unwrap();
        let python = python_lookups(&path, &boards[..50]);
        let rust: Vec<u32> = boards
            .iter()
            .take(50)
            .map(|b| pdb.lookup(b).unwrap())
            .collect();
        assert_eq!(python, rust, "{scheme:?}");
        values.push(rust);
    }
    assert_eq!(values[0], values[1]);
}

/// The stdlib reader runs as a program (executable, maps the file), points
/// from a packed file to its unpacked copy, and refuses bad boards by name.
#[test]
fn the_python_reader_explains_what_it_refuses() {
    let partition = Partition::parse("6-6-3", 4, Goal::BlankLast).unwrap();
    let packed = tables().join(file::file_name(&partition.patterns()[0]));
    let unpacked = file::cache_path(&packed);
    let reader = repo_root().join("examples/read_pdb.py");
    let run = |args: &[&std::ffi::OsStr]| {
        // Run directly, as a user would: the file is executable.
        let output = Command::new(&reader).args(args).output().unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (status, _, stderr) = run(&[packed.as_os_str(), HARD.as_ref()]);
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains("compressed with zstd"), "{stderr}");
    assert!(stderr.contains(&unpacked.display().to_string()), "{stderr}");

    let (status, stdout, stderr) = run(&[unpacked.as_os_str(), HARD.as_ref()]);
    assert_eq!(status, 0, "{stderr}");
    let pdb = file::open_partition(tables(), &partition).unwrap();
    let board = npuzzle_board::parse_board(HARD).unwrap();
    assert_eq!(stdout.trim(), pdb[0].lookup(&board).unwrap().to_string());

    for (board, expected) in [
        (
            "1 2 3 4 5 6 7 8 0",
            "9 numbers, but the table is for 4x4 boards",
        ),
        (
            "1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
            "tile 1 appears twice",
        ),
        (
            "16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
            "16 is not a tile of a 4x4 board",
        ),
        ("1 2 x 4", "'x' is not a tile number"),
    ] {
        let (status, _, stderr) = run(&[unpacked.as_os_str(), board.as_ref()]);
        assert_eq!(status, 2, "{board}: {stderr}");
        assert!(stderr.contains(expected), "{board}: {stderr}");
        assert!(!stderr.contains("Traceback"), "{stderr}");
    }
}
