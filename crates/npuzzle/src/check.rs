//! What a check says of a board: valid, solvable, solved, and how far from
//! the goal as far as a small search finds. `npuzzle serve`'s `/api/check`
//! and the browser engine's `check` answer it; each runs the search its
//! own way (a pool, the calling thread) and hands the answer here.

use npuzzle_board::{Board, Goal};

use crate::solver::Solver;

/// A board's check, as the `check` record of `npuzzle serve` and the
/// browser engine (docs/serve-api.md).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename = "check"))]
pub struct Check {
    /// The tiles, row by row, 0 for the blank.
    pub board: Vec<u16>,
    /// The board's side.
    pub size: usize,
    /// The goal's name.
    pub goal: &'static str,
    /// Whether the goal can be reached.
    pub solvable: bool,
    /// Whether the board is the goal.
    pub solved: bool,
    /// The exact number of moves to the goal, when the check's search
    /// proved it.
    pub distance: Option<usize>,
    /// A lower bound on it (the solver's estimate, or better).
    pub lower_bound: Option<u64>,
    /// The length of a known solution, not always optimal: an upper bound.
    pub upper_bound: Option<usize>,
}

impl Check {
    /// The check before any search: for a solvable board, the solver's
    /// lower bound.
    pub fn start(solver: &Solver, board: &Board, goal: Goal) -> Check {
        let solvable = board.is_solvable(goal);
        Check {
            board: board.tiles().to_vec(),
            size: board.size(),
            goal: goal.name(),
            solvable,
            solved: board.is_goal(goal),
            distance: None,
            lower_bound: solvable.then(|| solver.lower_bound(board)),
            upper_bound: None,
        }
    }

    /// Takes in a solution the check's search found: `length` moves,
    /// `optimal` or not, from a search whose estimate of the board was
    /// `initial_estimate`.
    pub fn found(&mut self, length: usize, optimal: bool, initial_estimate: Option<u32>) {
        self.upper_bound = Some(length);
        if optimal {
            self.distance = Some(length);
            self.lower_bound = Some(length as u64);
        } else if let Some(estimate) = initial_estimate {
            let bound = self.lower_bound.unwrap_or(0);
            self.lower_bound = Some(bound.max(u64::from(estimate)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_board;

    #[test]
    fn a_check_takes_the_best_bounds_it_is_given() {
        let solver = Solver::builder()
            .pdb_dir("/nonexistent-npuzzle-tables")
            .build()
            .unwrap();
        let board = parse_board("1 2 3 4 5 6 0 7 8").unwrap();
        let mut check = Check::start(&solver, &board, Goal::BlankLast);
        assert!(check.solvable && !check.solved);
        assert_eq!(check.lower_bound, Some(2));
        check.found(4, false, Some(3));
        assert_eq!(
            (check.distance, check.lower_bound, check.upper_bound),
            (None, Some(3), Some(4))
        );
        check.found(2, true, Some(2));
        assert_eq!(
            (check.distance, check.lower_bound, check.upper_bound),
            (Some(2), Some(2), Some(2))
        );
        let unsolvable = parse_board("2 1 3 4 5 6 7 8 0").unwrap();
        let check = Check::start(&solver, &unsolvable, Goal::BlankLast);
        assert_eq!((check.solvable, check.lower_bound), (false, None));
    }
}
