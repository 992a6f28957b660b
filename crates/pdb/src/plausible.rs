//! Checks that a table's values are a pattern database's, beyond its CRC: a
//! file whose bytes were replaced and whose CRCs were recomputed passes the
//! CRC, and would make search endless or its answers wrong.
//!
//! Every table npuzzle builds holds, for each state of the abstraction (the
//! pattern tiles' cells, and for zero-aware tables the blank's region), the
//! number of pattern-tile moves to the goal, minimized over the blank's
//! regions for plain tables. So: the goal's entry is 0, and only the goal
//! placement has 0; no value exceeds the header's maximum; and a state of
//! value v > 0 has a neighbour, one pattern-tile move away (the blank first
//! moving freely to it, within its region for zero-aware tables), of value
//! v - 1 or less: the first move of a shortest abstract path. (Plain tables
//! are not consistent, since the minimum over regions may drop by more than
//! one, so no check asks for "at least v - 1".)

use npuzzle_board::{random_board, Board, SplitMix64};

use crate::format::PdbError;
use crate::table::Pdb;

/// States sampled at every open: a few milliseconds on the largest tables.
pub const OPEN_SAMPLES: usize = 500;

/// States sampled by a full check (`npuzzle pdb verify`).
pub const VERIFY_SAMPLES: usize = 200_000;

fn implausible(what: String) -> PdbError {
    PdbError::Implausible { what }
}

impl<D: AsRef<[u8]> + Sync> Pdb<D> {
    /// The goal's entry and `samples` random states, checked (see the module
    /// documentation). Deterministic for a given table.
    pub fn check_plausible(&self, samples: usize) -> Result<(), PdbError> {
        let pattern = self.pattern();
        let (n, goal) = (pattern.size(), pattern.goal());
        let at_goal = self.lookup(&goal.board(n))?;
        if at_goal != 0 {
            return Err(implausible(format!(
                "the goal's entry is {at_goal}, where every pattern database holds 0"
            )));
        }
        let mut rng = SplitMix64::new(0x9e37_79b9 ^ u64::from(self.header().table_crc()));
        for _ in 0..samples {
            self.check_state(&random_board(n, goal, &mut rng))?;
        }
        Ok(())
    }

    /// The full check: [`Pdb::check_plausible`] on many states, and the
    /// largest value in the whole table against the header's maximum, the
    /// depth of the abstraction's search: equal for zero-aware tables, at
    /// most that for plain ones (a placement's least value over its blank
    /// regions may stay below it).
    pub fn check_values_fully(&self) -> Result<(), PdbError> {
        self.check_plausible(VERIFY_SAMPLES)?;
        let histogram = self.histogram();
        let largest = (0..255).rev().find(|&v| histogram[v] > 0).unwrap_or(0);
        let max = usize::from(self.header().max_value());
        if largest > max || (self.pattern().is_zero_aware() && largest != max) {
            return Err(implausible(format!(
                "the largest value is {largest}, the header says {max}"
            )));
        }
        Ok(())
    }

    /// The checks on the state of `board`.
    fn check_state(&self, board: &Board) -> Result<(), PdbError> {
        let pattern = self.pattern();
        let n = pattern.size();
        let cells = n * n;
        let (placement, blank) = self.placement_of(board);
        if self.is_unreached(self.index(&placement, blank)) {
            return Ok(());
        }
        let value = self.value(&placement, blank);
        let max = u32::from(self.header().max_value());
        let at_goal = placement == pattern.goal_placement();
        // Zero-aware tables count the blank's way home too: the goal
        // placement with the blank shut out of its goal cell is not 0.
        let wrong_zero =
            (value == 0 && !at_goal) || (at_goal && value != 0 && !pattern.is_zero_aware());
        if value > max || wrong_zero {
            return Err(implausible(format!(
                "{board} has the value {value} (the header's maximum is {max}; the goal \
                 placement has 0, and no other)"
            )));
        }
        if value == 0 {
            return Ok(());
        }
        // The cells the blank can reach without moving a pattern tile (any
        // free cell for plain tables, whose values are minima over regions).
        let mut in_pattern = vec![false; cells];
        for &c in &placement {
            in_pattern[c as usize] = true;
        }
        let neighbours = |c: usize| {
            let (row, col) = (c / n, c % n);
            [
                (row > 0).then(|| c - n),
                (row + 1 < n).then(|| c + n),
                (col > 0).then(|| c - 1),
                (col + 1 < n).then(|| c + 1),
            ]
            .into_iter()
            .flatten()
        };
        let reachable: Vec<usize> = if pattern.is_zero_aware() {
            let mut seen = vec![false; cells];
            let mut queue = vec![blank as usize];
            seen[blank as usize] = true;
            let mut i = 0;
            while i < queue.len() {
                for d in neighbours(queue[i]) {
                    if !in_pattern[d] && !seen[d] {
                        seen[d] = true;
                        queue.push(d);
                    }
                }
                i += 1;
            }
            queue
        } else {
            (0..cells).filter(|&c| !in_pattern[c]).collect()
        };
        let mut least = u32::MAX;
        let mut moved = placement.clone();
        for &free in &reachable {
            for from in neighbours(free).filter(|&d| in_pattern[d]) {
                let slot = placement
                    .iter()
                    .position(|&c| c as usize == from)
                    .expect("a pattern cell");
                moved[slot] = free as u8;
                let index = self.index(&moved, from as u8);
                if !self.is_unreached(index) {
                    least = least.min(self.value(&moved, from as u8));
                }
                moved[slot] = placement[slot];
            }
        }
        if least + 1 > value {
            return Err(implausible(format!(
                "{board} has the value {value} but no state one pattern-tile move away has less \
                 (the least is {least})"
            )));
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "generate"))]
mod tests {
    use npuzzle_board::Goal;

    use crate::testing::tables;

    /// Every kind of table npuzzle builds passes, on every sampled state.
    #[test]
    fn true_tables_of_every_kind_pass() {
        for (name, size, goal) in [
            ("8", 3, Goal::BlankLast),
            ("4-4", 3, Goal::BlankFirst),
            ("z1,2,3,4;z5,6,7,8", 3, Goal::BlankLast),
            ("5-5-5", 4, Goal::BlankLast),
            ("6z-6z-3z", 4, Goal::BlankFirst),
        ] {
            for pdb in tables(name, size, goal) {
                pdb.check_plausible(20_000)
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", pdb.pattern()));
            }
        }
    }
}
