//! The answer cache: solutions kept by position, so that a player who
//! follows the hints is answered from memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use npuzzle::{Board, Goal, Move, Solution, Solver};

/// Positions kept with their solutions (about 10 MB at most).
const CACHE_ENTRIES: usize = 100_000;

/// Solutions longer than this are not kept: each position along one keeps
/// its own tail.
const LONGEST_KEPT: usize = 2_000;

/// A position's solution by (goal, tiles), and whether it is optimal (else
/// the shortest one known).
type Solutions = HashMap<(Goal, Vec<u16>), (Arc<[Move]>, bool)>;

/// The solutions kept, shared by all requests.
#[derive(Default)]
pub struct Cache {
    solutions: Mutex<Solutions>,
}

impl Cache {
    /// The solution kept for a position, if any; `solver` gives a
    /// non-optimal one its lower bound.
    pub fn get(&self, goal: Goal, board: &Board, solver: &Solver) -> Option<Solution> {
        let (moves, optimal) = {
            let cache = self.solutions.lock().unwrap_or_else(|e| e.into_inner());
            cache.get(&(goal, board.tiles().to_vec())).cloned()?
        };
        let mut known = Solution::known_optimal(moves.to_vec());
        if !optimal {
            known.optimal = false;
            known.algorithm = "reduction";
            known.lower_bound = Some(solver.lower_bound(board));
            known.note = Some("the best solution known".to_string());
        }
        Some(known)
    }

    /// Keeps a solution and, for free, those of the positions along it: a
    /// player who follows the hints asks for them next, and gets the same
    /// plan. A non-optimal one never replaces an optimal one, nor a shorter
    /// one.
    pub fn remember(&self, goal: Goal, board: &Board, solution: &Solution) {
        let (moves, optimal) = (&solution.moves, solution.optimal);
        if !optimal && moves.len() > LONGEST_KEPT {
            return;
        }
        let mut cache = self.solutions.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() + moves.len() > CACHE_ENTRIES {
            cache.clear();
        }
        let mut walk = board.walk(moves);
        for step in 0..moves.len() {
            let key = (goal, walk.board().tiles().to_vec());
            let tail = moves.len() - step;
            let better = match cache.get(&key) {
                None => true,
                Some((_, true)) => false,
                Some((kept, false)) => optimal || tail < kept.len(),
            };
            if better {
                cache.insert(key, (Arc::from(&moves[step..]), optimal));
            }
            if walk.advance().is_err() {
                break;
            }
        }
    }
}
