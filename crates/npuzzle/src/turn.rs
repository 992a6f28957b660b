//! One set of tables for both goals. Turned 180 degrees with every tile v
//! relabelled n*n - v ([`Board::converted_goal`]), a board of one goal is
//! a board of the other at the same distance, and each move of its
//! solution is the opposite move of the turned board's. So when a side's
//! tables are built for the other goal only, this goal's boards are
//! solved over them, optimally, and the moves turned back.

use std::sync::Arc;

use npuzzle_board::{Board, Goal};

use crate::error::Error;
use crate::note::Note;
use crate::solution::Solution;
use crate::solver::{Shared, Solver};

impl Solver {
    /// The solver of the other goal, when this goal's tables for side
    /// `size` are missing (not damaged: those refuse the board) and the
    /// other goal's are built and sound. Whether a board reads tables at
    /// all is the plan's to say ([`crate::plan`]).
    pub(crate) fn turned_for(&self, size: usize) -> Option<Solver> {
        if self.shared.is_turned {
            return None;
        }
        match self.tables(size) {
            Err(Error::Tables(e)) if e.is_missing() => {}
            _ => return None,
        }
        let turned = self.shared.turned.get_or_init(|| self.other_goal()).clone();
        turned.tables(size).ok()?;
        self.note_turned_once(size, &turned);
        Some(turned)
    }

    /// The solver of the other goal when it has opened tables for side
    /// `size` (a board of this side was turned before), without opening any.
    pub(crate) fn turned_already(&self, size: usize) -> Option<Solver> {
        let turned = self.shared.turned.get()?;
        turned.opened_tables(size).map(|_| turned.clone())
    }

    /// This solver with the other goal: its own tables, the same threads.
    fn other_goal(&self) -> Solver {
        let mut config = (*self.config).clone();
        config.goal = match config.goal {
            Goal::BlankLast => Goal::BlankFirst,
            Goal::BlankFirst => Goal::BlankLast,
        };
        Solver {
            config: Arc::new(config),
            shared: Arc::new(Shared {
                is_turned: true,
                ..Shared::default()
            }),
            #[cfg(feature = "native")]
            pool: self.pool.clone(),
        }
    }

    fn note_turned_once(&self, size: usize, turned: &Solver) {
        let first = self
            .shared
            .notes_said
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(size);
        if let (true, Some(tables)) = (first, turned.opened_tables(size)) {
            self.note(Note::TablesTurned {
                size,
                goal: self.config.goal,
                tables_goal: turned.config.goal,
                partition: tables.partition().name().to_string(),
                dir: tables.dir().to_path_buf(),
            });
        }
    }

    /// A solution of the turned board, for this board: the moves turned
    /// back, the turned solver's notes kept with this one's (its note sink
    /// has told them already).
    pub(crate) fn turned_back(&self, turned: &Solver, solution: Solution) -> Solution {
        self.keep_notes(turned.take_notes());
        Solution {
            moves: solution.moves.iter().map(|m| m.opposite()).collect(),
            ..solution
        }
    }

    /// The board as the turned solver takes it.
    pub(crate) fn turned_board(board: &Board) -> Board {
        board.converted_goal()
    }
}

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
