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
    /// How the korf50 section runs.
    pub korf50: Korf50,
    /// The first boards of each DeepCubeA set solved [default: all].
    pub deepcubea_boards: Option<usize>,
}

impl Ctx {
    pub fn new(npuzzle: PathBuf, quick: bool, korf24_partitions: Vec<String>, boards: u64) -> Ctx {
        Ctx {
            npuzzle,
            quick,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            korf24_partitions,
            boards,
            korf50: Korf50::default(),
            deepcubea_boards: None,
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

/// How `korf50` runs: the time it may take, and what `solve` is given.
#[derive(Clone, Debug, PartialEq)]
pub struct Korf50 {
    pub max_hours: f64,
    /// `--jobs` for each solve; `None`: every core.
    pub jobs: Option<usize>,
    /// `--memory` for each solve (A*+IDA*); `None`: plain IDA*.
    pub memory: Option<String>,
    /// Solve again the instances bench/runs/korf50.md already holds.
    pub again: bool,
}

impl Default for Korf50 {
    fn default() -> Korf50 {
        Korf50 {
            max_hours: 1.0,
            jobs: None,
            memory: None,
            again: false,
        }
    }
}
