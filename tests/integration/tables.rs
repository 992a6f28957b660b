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

/// Tables built once for the whole test binary: 6-6-3 and 5-5-5 for the
/// blank-last goal, 5-5-5 for blank-first.
pub(crate) fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch();
        for (partition, goal) in [
            ("6-6-3", "blank-last"),
            ("5-5-5", "blank-last"),
            ("5-5-5", "blank-first"),
            ("6z-6z-3z", "blank-last"),
        ] {
            let run = npuzzle_in(
                dir.path(),
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
        dir
    })
    .path()
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
