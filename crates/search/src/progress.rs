//! Where an unfinished IDA* search stands, so that a later run goes on
//! from there instead of from the start: the iteration under way, and the
//! subtrees of it already searched to the end. A search of hours then
//! survives the end of its process. The caller keeps it (in a file, at
//! the edge); the split search reads it on entry and keeps it up to date.

use std::fmt;

/// One subtree of the iteration under way searched to the end, without a
/// solution within the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The subtree's moves from the root, two bits a move after a leading
    /// one bit (see [`Progress::key_depth`]).
    pub key: u64,
    /// The least f above the bound it cut off: no solution through it is
    /// shorter.
    pub next_bound: u32,
    /// The least estimate its search met (how near the goal it came).
    pub closest: u32,
}

/// The state of one board's split IDA* search between runs
/// ([`crate::Request::progress`]). Empty (`bound` 0) before the first.
///
/// It belongs to one board, goal and heuristic: a subtree marked searched
/// is skipped, so progress taken from another search can hide the
/// solution. Whoever stores it must store with it what it belongs to
/// (the command line keeps the board, the tables' digests and the
/// options) and refuse it for anything else.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// The depth the search splits at: every key is of this many moves.
    pub split_depth: u32,
    /// The bound of the iteration under way; 0 before the first.
    pub bound: u32,
    /// Iterations begun, the one under way included.
    pub iterations: u32,
    /// Nodes every run so far expanded (those of `lost` included).
    pub expanded: u64,
    /// Children every run so far generated.
    pub generated: u64,
    /// Of `expanded`, nodes whose work a later run does again: subtrees
    /// cut short when a run ended, and the frontier a resumed run expands
    /// again. `expanded - lost` is what one uninterrupted run would count
    /// on one thread.
    pub lost: u64,
    /// Runs that took part, this one included once it has begun.
    pub runs: u32,
    /// How near the goal each subtree came in the last whole iteration,
    /// by key: the order the iteration under way searches them in.
    pub came_near: Vec<(u64, u32)>,
    /// The subtrees of the iteration under way searched to the end.
    pub searched: Vec<Searched>,
}

/// Why a [`Progress`] cannot go on in this search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgressMismatch(pub String);

impl fmt::Display for ProgressMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Progress {
    /// Checks the bound against `most`, the length of a solution known
    /// (the caller's, say the reduction's): an iteration at that bound
    /// would have ended the search, so no progress stands beyond it.
    pub fn check_bound_within(&self, most: u32) -> Result<(), ProgressMismatch> {
        if self.begun() && self.bound > most {
            return Err(ProgressMismatch(format!(
                "bound {} is above {most}, the length of a solution known (an iteration at that \
                 bound would have ended the search)",
                self.bound
            )));
        }
        Ok(())
    }

    /// Checks that progress with no iteration begun holds nothing else:
    /// a search starts it afresh, and counters it kept would be false.
    pub fn check_unbegun(&self) -> Result<(), ProgressMismatch> {
        if !self.begun() && *self != Progress::default() {
            return Err(ProgressMismatch(
                "bound is 0 (no iteration begun), yet it holds counters or subtrees".to_string(),
            ));
        }
        Ok(())
    }

    /// Whether a run has begun an iteration (else a search starts afresh).
    pub fn begun(&self) -> bool {
        self.bound > 0
    }

    /// The number of moves a key packs: `key`'s bits past its leading one,
    /// halved (None for 0, which packs nothing).
    pub fn key_depth(key: u64) -> Option<u32> {
        let bits = u64::BITS.checked_sub(key.leading_zeros() + 1)?;
        bits.is_multiple_of(2).then_some(bits / 2)
    }

    /// Checks what a search can check itself, each field named when it
    /// fails: the split depth it cuts at, a bound no lower than the root's
    /// estimate, keys of that depth, and counters that add up.
    pub fn check(&self, split_depth: u32, root_estimate: u32) -> Result<(), ProgressMismatch> {
        let mismatch = |why: String| Err(ProgressMismatch(why));
        if self.split_depth != split_depth {
            return mismatch(format!(
                "split_depth is {}, and this search splits at {split_depth}",
                self.split_depth
            ));
        }
        if self.bound < root_estimate {
            return mismatch(format!(
                "bound {} is below the board's estimate {root_estimate}",
                self.bound
            ));
        }
        if self.iterations == 0 {
            return mismatch("iterations is 0 with an iteration under way".to_string());
        }
        // Each iteration raises the bound by one at least.
        let most_iterations = self.bound - root_estimate + 1;
        if self.iterations > most_iterations {
            return mismatch(format!(
                "iterations is {}, more than the {most_iterations} the bounds from the estimate \
                 {root_estimate} to {} allow",
                self.iterations, self.bound
            ));
        }
        if self.runs == 0 {
            return mismatch("runs is 0 with an iteration under way".to_string());
        }
        if self.lost > self.expanded {
            return mismatch(format!(
                "lost {} is above expanded {}",
                self.lost, self.expanded
            ));
        }
        let keys = self
            .came_near
            .iter()
            .map(|&(key, _)| key)
            .chain(self.searched.iter().map(|s| s.key));
        for key in keys {
            if Progress::key_depth(key) != Some(split_depth) {
                return mismatch(format!(
                    "subtree key {key:#x} is not of split_depth {split_depth} moves"
                ));
            }
        }
        if let Some(s) = self.searched.iter().find(|s| s.next_bound <= self.bound) {
            return mismatch(format!(
                "searched subtree {:#x} has next bound {}, not above the bound {}",
                s.key, s.next_bound, self.bound
            ));
        }
        Ok(())
    }
}
