//! Small tables for tests, built in memory and kept for the process: one
//! helper instead of a builder per test module.

use std::sync::{Arc, Mutex};

use npuzzle_board::Goal;

use crate::image::build_file;
use crate::{Partition, Pattern, Pdb};

/// A built table's bytes, shared between the tests that ask for it.
#[derive(Clone)]
pub struct TestBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for TestBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// The table of `pattern`, built on the first call for it in this process.
pub fn table(pattern: &Pattern) -> Pdb<TestBytes> {
    static BUILT: Mutex<Vec<(Pattern, TestBytes)>> = Mutex::new(Vec::new());
    let found = {
        let built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        built
            .iter()
            .find(|(p, _)| p == pattern)
            .map(|(_, b)| b.clone())
    };
    let bytes = found.unwrap_or_else(|| {
        let image = build_file(pattern, 1, |_| {}).expect("a test pattern builds");
        let bytes = TestBytes(Arc::new(image));
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        built.push((pattern.clone(), bytes.clone()));
        bytes
    });
    Pdb::from_bytes(bytes).expect("a built table parses")
}

/// The tables of the partition or catalogue `name` for side `size` and
/// `goal`, in partition order (see [`table`]).
pub fn tables(name: &str, size: usize, goal: Goal) -> Vec<Pdb<TestBytes>> {
    let partition = Partition::parse(name, size, goal).expect("a test partition parses");
    partition.patterns().iter().map(table).collect()
}
