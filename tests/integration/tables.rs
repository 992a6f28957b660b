//! The tables the integration tests share: built once per test binary by
//! the real `npuzzle pdb build`, and helpers to copy and name them.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use npuzzle_board::{Board, Goal};
use npuzzle_pdb::file;
use npuzzle_pdb::Partition;

use crate::harness::*;

/// The 80-move board.
pub const HARD: &str = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";

/// Korf's #3, 59 moves: a real search over the 6-6-3 tables that takes
/// milliseconds, for tests whose subject is the tables, not the search.
pub const KORF_3: &str = "1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2";

/// The partitions every test may use: 6-6-3 and 5-5-5 for the blank-last
/// goal, 5-5-5 for blank-first, and 6z-6z-3z.
const FIXTURE_PARTITIONS: [(&str, &str); 4] = [
    ("6-6-3", "blank-last"),
    ("5-5-5", "blank-last"),
    ("5-5-5", "blank-first"),
    ("6z-6z-3z", "blank-last"),
];

/// The tables the tests share, built by the real `npuzzle pdb build` once
/// per build of `npuzzle` (the generator's version: the fixture is keyed
/// by the binary's checksum) into target/<profile>/test-fixtures, under a
/// lock, so that every test process of a run (`cargo xtask test` runs each
/// test as its own) and every later run of the same build shares them.
/// Reused tables are checked first against the list of files made when
/// they were built (names, lengths, times): a changed fixture is built
/// again, never used (and the solver checks every table as it opens it).
/// Tests copy them before damaging them.
pub(crate) fn tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        isolate_process();
        let binary = std::fs::read(env!("CARGO_BIN_EXE_npuzzle")).unwrap();
        let key = format!("{:08x}-{}", crc32fast::hash(&binary), binary.len());
        let exe = std::env::current_exe().unwrap();
        let root = exe
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .join("test-fixtures");
        std::fs::create_dir_all(&root).unwrap();
        let lock = std::fs::File::create(root.join("lock")).unwrap();
        lock.lock().unwrap();
        let dir = root.join(format!("tables-{key}"));
        if dir.is_dir() && !fixture_is_sound(&dir) {
            eprintln!(
                "test fixture {} is damaged: building it again",
                dir.display()
            );
            std::fs::remove_dir_all(&dir).unwrap();
        }
        if !dir.is_dir() {
            // Older builds' fixtures go: one is kept, this build's.
            for entry in std::fs::read_dir(&root).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    std::fs::remove_dir_all(&path).unwrap();
                } else if path.extension().is_some_and(|e| e == "manifest") {
                    std::fs::remove_file(&path).unwrap();
                }
            }
            let building = tempfile::tempdir_in(&root).unwrap();
            for (partition, goal) in FIXTURE_PARTITIONS {
                let run = npuzzle_in(
                    building.path(),
                    &[
                        "pdb",
                        "build",
                        "--partition",
                        partition,
                        "--goal",
                        goal,
                        "--out",
                        ".",
                    ],
                    "",
                );
                assert_eq!(run.status, 0, "{}", run.stderr);
            }
            std::fs::write(manifest_of(&dir), fixture_manifest(building.path())).unwrap();
            std::fs::rename(building.keep(), &dir).unwrap();
        }
        dir
    })
}

/// Each table file of a fixture directory with its length and
/// modification time, one per line: what the fixture was when built.
fn fixture_manifest(dir: &Path) -> String {
    let mut lines: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?.to_string();
            (name.ends_with(".pdb.zst") || name.ends_with(".pdb")).then(|| {
                let meta = std::fs::metadata(&path).unwrap();
                format!("{name} {} {:?}\n", meta.len(), meta.modified().unwrap())
            })
        })
        .collect();
    lines.sort();
    lines.concat()
}

/// Where the manifest of fixture `dir` is kept: beside it, so that the
/// directory holds the tables alone.
fn manifest_of(dir: &Path) -> PathBuf {
    dir.with_extension("manifest")
}

/// Whether the fixture's tables are the files built: none missing, none
/// added, none changed since (a test that damaged them in place).
fn fixture_is_sound(dir: &Path) -> bool {
    let manifest = std::fs::read_to_string(manifest_of(dir)).unwrap_or_default();
    !manifest.is_empty() && manifest == fixture_manifest(dir)
}

/// A private copy of the tables, for tests that damage them.
pub(crate) fn copy_of_tables(into: &Path) -> PathBuf {
    let target = into.join("data");
    std::fs::create_dir_all(target.join("cache")).unwrap();
    for sub in ["", "cache"] {
        for entry in std::fs::read_dir(tables().join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, target.join(sub).join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    target
}

pub(crate) fn dir_arg(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

pub(crate) fn blank_last_pattern_file(dir: &Path, partition: &str, index: usize) -> PathBuf {
    let partition = Partition::parse(partition, 4, Goal::BlankLast).unwrap();
    dir.join(file::file_name(&partition.patterns()[index]))
}

/// Boards from Korf's 100 (converted to blank-last) that 6-6-3 solves quickly.
pub(crate) fn some_korf_boards(count: usize) -> Vec<(u32, Board)> {
    let text =
        std::fs::read_to_string(repo_root().join("bench/korf100_goal_blank_last.txt")).unwrap();
    let mut boards: Vec<(u32, Board)> = text
        .lines()
        .map(|l| {
            let v: Vec<u16> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
            (v[1] as u32, Board::from_tiles(v[2..].to_vec()).unwrap())
        })
        .collect();
    boards.sort_by_key(|(length, _)| *length);
    boards.truncate(count);
    boards
}

/// Recomputes a table image's CRCs after its bytes were changed, the
/// table's first and then the header's (computed with its own field
/// zeroed): a file whose checksums all match, as a forger would leave it.
pub(crate) fn recompute_crcs(image: &mut [u8]) {
    let table_crc = crc32fast::hash(&image[4096..]);
    image[56..60].copy_from_slice(&table_crc.to_le_bytes());
    image[60..64].copy_from_slice(&[0; 4]);
    let header_crc = crc32fast::hash(&image[..4096]);
    image[60..64].copy_from_slice(&header_crc.to_le_bytes());
}
