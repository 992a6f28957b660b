//! What the engine's tests share: a test process kept from the user's
//! tables and caches, small tables built once, BFS truth on 3x3.

use crate::*;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::OnceLock;

/// Points this test process's user cache and data directories, and the
/// default table directory, at its own, once, before any table is built
/// or opened: unpacked copies in the user's `~/.cache/npuzzle`, and
/// tables in `./data`, `$NPUZZLE_PDB_DIR` or `~/.local/share/npuzzle`,
/// must not stand in for the tables here (a test of a side without
/// tables would find them).
pub(crate) fn isolate() {
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = tempfile::tempdir().unwrap();
        let no_tables = root.path().join("no-tables");
        std::fs::create_dir(&no_tables).unwrap();
        std::env::set_var("NPUZZLE_PDB_DIR", no_tables);
        std::env::set_var("NPUZZLE_CACHE_DIR", root.path().join("npuzzle-cache"));
        std::env::set_var("XDG_CACHE_HOME", root.path().join("cache"));
        std::env::set_var("XDG_DATA_HOME", root.path().join("data"));
        root
    });
}

/// Builds `partition`'s tables into a fresh directory.
pub(crate) fn build(partition: &Partition) -> tempfile::TempDir {
    isolate();
    let dir = tempfile::tempdir().unwrap();
    build_tables(dir.path(), partition).unwrap();
    dir
}

pub(crate) fn tables_555() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| build(&Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap()))
        .path()
}

pub(crate) fn tables_8() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| build(&Partition::parse("8", 3, Goal::BlankLast).unwrap()))
        .path()
}

/// A one-thread solver over the 5-5-5 tables (node counts are then the
/// same from run to run).
pub(crate) fn open_555() -> Solver {
    Solver::builder()
        .pdb_dir(tables_555())
        .partition_for(4, "5-5-5")
        .threads(1)
        .open_tables_now(4)
        .build()
        .unwrap()
}

/// Every 3x3 board's distance, by breadth-first search from the goal.
pub(crate) fn distances_3x3() -> HashMap<Board, usize> {
    distances_3x3_to(Goal::BlankLast)
}

/// Every 3x3 board's distance to `goal`, by breadth-first search from it.
pub(crate) fn distances_3x3_to(goal: Goal) -> HashMap<Board, usize> {
    let start = goal.board(3);
    let mut distance = HashMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(board) = queue.pop_front() {
        let d = distance[&board];
        for m in board.legal_moves().collect::<Vec<_>>() {
            let mut next = board.clone();
            next.apply(m);
            distance.entry(next.clone()).or_insert_with(|| {
                queue.push_back(next);
                d + 1
            });
        }
    }
    distance
}

pub(crate) fn small_4x4() -> Board {
    parse_board("1 2 3 4 5 6 7 8 9 10 11 12 13 0 14 15").unwrap()
}
