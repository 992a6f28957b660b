//! What every section is given.

use std::path::PathBuf;

use super::sets::{read_set, Instance};

/// What every section is given.
pub struct Ctx {
    pub npuzzle: PathBuf,
    /// Fewer boards where a section has a smoke size.
    pub quick: bool,
    pub cores: usize,
    /// The 24-puzzle tables the korf24 section compares.
    pub korf24_partitions: Vec<String>,
    /// The random boards the distributed section labels.
    pub boards: u64,
}

impl Ctx {
    pub fn new(npuzzle: PathBuf, quick: bool, korf24_partitions: Vec<String>, boards: u64) -> Ctx {
        Ctx {
            npuzzle,
            quick,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            korf24_partitions,
            boards,
        }
    }

    /// Korf's 100 in the blank-last goal's form.
    pub fn korf(&self) -> Result<Vec<Instance>, String> {
        read_set("korf100_goal_blank_last.txt")
    }

    /// The 17 boards at distance 80.
    pub fn hard(&self) -> Result<Vec<Instance>, String> {
        read_set("hard80.txt")
    }
}
