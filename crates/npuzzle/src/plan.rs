//! The plan: which search a board gets (tables for 4x4 and 5x5 when
//! built, linear conflict with a node budget and the beam or the
//! reduction past it, the reduction alone past 15x15; the limits are in
//! `policy`), decided once with the tables each search reads. `answer`
//! runs it.

use std::sync::Arc;

use npuzzle_board::Board;
use npuzzle_search::heuristic::{Heuristic, LinearConflict};
use npuzzle_search::{Algorithm, Grid, HeuristicKind, Position, MAX_SEARCH_SIZE};

use crate::error::{Error, TablesError};
use crate::note::Note;
use crate::policy::{BEAM_MAX_SIZE, OPTIMAL_ATTEMPT_MAX_BOUND, OPTIMAL_ATTEMPT_NODES};
use crate::solution::Solution;
use crate::solver::Solver;
use crate::tables::Tables;

/// How a board is solved, decided once by [`Solver::plan`] with the
/// tables each search reads: nothing is looked up or decided again
/// after a search ends.
pub(crate) enum Plan {
    Search(Search),
    /// Beam search, over `tables` when given; the reduction answers when
    /// it finds nothing.
    Beam {
        tables: Option<Arc<Tables>>,
    },
    Reduce {
        why: String,
    },
    /// The board's tables are read from the other goal's, by the solver
    /// of that goal (this goal's are not built): it plans the turned board.
    Turned(Solver),
}

/// An optimal search (or one within `within` percent).
pub(crate) struct Search {
    pub(crate) algorithm: Algorithm,
    pub(crate) heuristic: HeuristicKind,
    /// The tables the PDB heuristic reads.
    pub(crate) tables: Option<Arc<Tables>>,
    /// An attempt that gives way to a near-optimal answer (None: it runs
    /// to the end or to the node limit given).
    pub(crate) gives_way: Option<GiveWay>,
}

/// When an optimal attempt gives way, and to what: out of time, the
/// reduction finishes; out of nodes, the beam on 5x5 to 10x10 (over
/// `beam_tables` when given), else the reduction.
pub(crate) struct GiveWay {
    pub(crate) after_nodes: u64,
    pub(crate) beam_tables: Option<Arc<Tables>>,
}

/// How the plan looks for a side's tables.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Look {
    /// Open them (the first board of a side).
    Open,
    /// Judge by those opened so far: a door sizes its first search by
    /// the plan without opening tables.
    Peek,
}

/// A side's tables as the plan finds them.
enum SideTables {
    Open(Arc<Tables>),
    /// Not built, and not asked for: the board goes on without them.
    Missing(TablesError),
    /// Not built for this goal; the other goal's answer for them.
    Turned(Solver),
    /// Not opened yet (only when peeking).
    Unopened,
}

impl SideTables {
    fn open(self) -> Option<Arc<Tables>> {
        match self {
            SideTables::Open(tables) => Some(tables),
            _ => None,
        }
    }
}

impl Search {
    /// A solution's labels for this search: algorithm, heuristic and
    /// tables (the moves and figures come after it).
    pub(crate) fn labels(&self, reflection: bool) -> Solution {
        Solution {
            heuristic: (self.algorithm != Algorithm::Bfs).then(|| self.heuristic.name()),
            partition: (self.tables.as_ref()).map(|t| t.partition().name().to_string()),
            reflection: self.tables.as_ref().map(|_| reflection),
            ..Solution::by(self.algorithm.name(), Vec::new())
        }
    }
}

impl Solver {
    /// The best lower bound on the board's distance available without a
    /// search: the tables' value when the side's tables are open and fit,
    /// else linear conflict (boards up to 15x15), else Manhattan.
    pub fn lower_bound(&self, board: &Board) -> u64 {
        let goal = self.config.goal;
        let size = board.size();
        let mut bound = if size <= MAX_SEARCH_SIZE {
            let heuristic = LinearConflict::new(&Grid::new(size, goal));
            u64::from(heuristic.value(&heuristic.init(&Position::new(board))))
        } else {
            board.manhattan(goal)
        };
        if let Some(tables) = self.opened_tables(size) {
            if let Ok(value) = tables.heuristic(board) {
                bound = bound.max(u64::from(value));
            }
        } else if let Some(tables) = self.shared.turned.get().and_then(|t| t.opened_tables(size)) {
            if let Ok(value) = tables.heuristic(&Self::turned_board(board)) {
                bound = bound.max(u64::from(value));
            }
        }
        bound
    }

    /// Tables are the default for these sides, when built.
    pub(crate) fn tables_by_default(size: usize) -> bool {
        size == 4 || size == 5
    }

    /// Whether a partition was asked for boards of side `size`.
    fn partition_asked(&self, size: usize) -> bool {
        self.config.partition.is_some()
            && self.config.partition_size.is_none_or(|side| side == size)
    }

    /// Whether boards of side `size` get an optimal search over the
    /// side's tables: by default on 4x4 and 5x5, and on smaller sides
    /// when a partition is asked for them (past 5x5 the beam reads them).
    fn optimal_over_tables(&self, size: usize) -> bool {
        Self::tables_by_default(size) || (size < 4 && self.partition_asked(size))
    }

    /// Whether this solver answers `board` near-optimally (by the beam or
    /// the reduction) rather than by an optimal search, judged by the
    /// tables opened so far: a door sizes its first search by it without
    /// opening tables.
    pub fn answers_near_optimally(&self, board: &Board) -> bool {
        match self.plan(board, self.config.max_nodes, Look::Peek) {
            Ok(Plan::Turned(turned)) => turned.answers_near_optimally(&Self::turned_board(board)),
            plan => matches!(plan, Ok(Plan::Beam { .. } | Plan::Reduce { .. })),
        }
    }

    /// Sides whose default tables guide the beam, when built.
    pub(crate) fn beam_tables_by_default(size: usize) -> bool {
        npuzzle_pdb::Partition::has_default(size) && size > 5
    }

    /// The tables the beam reads on this side: the side's default ones
    /// when built, or those asked for (as [`Solver::usable_tables`]).
    fn beam_tables(&self, size: usize, look: Look) -> Result<Option<SideTables>, Error> {
        if !(Self::beam_tables_by_default(size) || self.partition_asked(size)) {
            return Ok(None);
        }
        self.usable_tables(size, look).map(Some)
    }

    /// The side's tables when built and sound, or missing and not asked
    /// for; an error (the board is refused) for damaged tables or tables
    /// asked for, which are never replaced silently.
    fn usable_tables(&self, size: usize, look: Look) -> Result<SideTables, Error> {
        if look == Look::Peek {
            if let Some(tables) = self.opened_tables(size) {
                return Ok(SideTables::Open(tables));
            }
            return Ok(self
                .turned_already(size)
                .map_or(SideTables::Unopened, SideTables::Turned));
        }
        match self.tables(size) {
            Ok(tables) => Ok(SideTables::Open(tables)),
            Err(Error::Tables(e)) if e.is_missing() => match self.turned_for(size) {
                Some(turned) => Ok(SideTables::Turned(turned)),
                None if !self.shared.sides.asked_for(size) => Ok(SideTables::Missing(e)),
                None => Err(Error::Tables(e)),
            },
            Err(e) => Err(e),
        }
    }

    /// Whether the caller chose the search (then it runs exactly as asked).
    fn explicit(&self) -> bool {
        self.config.algorithm.is_some() || self.config.heuristic.is_some()
    }

    pub(crate) fn plan(
        &self,
        board: &Board,
        max_nodes: Option<u64>,
        look: Look,
    ) -> Result<Plan, Error> {
        let size = board.size();
        let within = self.config.within;
        if self.config.fast {
            return Ok(Plan::Reduce {
                why: "fast solving asked for".to_string(),
            });
        }
        if self.explicit() {
            let default_heuristic = if self.optimal_over_tables(size) || self.partition_asked(size)
            {
                HeuristicKind::Pdb
            } else {
                HeuristicKind::LinearConflict
            };
            let algorithm = self.config.algorithm.unwrap_or(Algorithm::IdaStar);
            let heuristic = self.config.heuristic.unwrap_or(default_heuristic);
            let reads_tables = heuristic == HeuristicKind::Pdb && algorithm != Algorithm::Bfs;
            let tables = match look {
                Look::Open if reads_tables => match self.tables(size) {
                    Ok(tables) => Some(tables),
                    Err(Error::Tables(e)) if e.is_missing() => match self.turned_for(size) {
                        Some(turned) => return Ok(Plan::Turned(turned)),
                        None => return Err(Error::Tables(e)),
                    },
                    Err(e) => return Err(e),
                },
                Look::Peek if reads_tables => match self.turned_already(size) {
                    Some(turned) => return Ok(Plan::Turned(turned)),
                    None => None,
                },
                _ => None,
            };
            return Ok(Plan::Search(Search {
                algorithm,
                heuristic,
                tables,
                gives_way: None,
            }));
        }
        if size > MAX_SEARCH_SIZE {
            return Ok(Plan::Reduce {
                why: format!(
                    "optimal search takes boards up to {MAX_SEARCH_SIZE}x{MAX_SEARCH_SIZE}"
                ),
            });
        }
        if self.optimal_over_tables(size) {
            match self.usable_tables(size, look)? {
                SideTables::Open(tables) => {
                    return Ok(Plan::Search(Search {
                        algorithm: Algorithm::IdaStar,
                        heuristic: HeuristicKind::Pdb,
                        tables: Some(tables),
                        gives_way: None,
                    }))
                }
                SideTables::Missing(error) => self.note_missing_once(size, error, max_nodes),
                SideTables::Turned(turned) => return Ok(Plan::Turned(turned)),
                SideTables::Unopened => {}
            }
        }
        let beam_side = (5..=BEAM_MAX_SIZE).contains(&size);
        let beam_tables = match beam_side {
            true if within == 0 => self.beam_tables(size, look)?,
            // A weighted search reads no tables; the beam it may give way
            // to takes them when they are sound.
            true => self.beam_tables(size, look).ok().flatten(),
            false => None,
        };
        match beam_tables.as_ref() {
            Some(SideTables::Missing(error))
                if within == 0 && Self::beam_tables_by_default(size) =>
            {
                self.note_missing_once(size, error.clone(), max_nodes);
            }
            // Turned, a weighted search keeps its guarantee (the same
            // distances), and the beam it may give way to reads the tables.
            Some(SideTables::Turned(turned)) => return Ok(Plan::Turned(turned.clone())),
            _ => {}
        }
        let beam_tables = beam_tables.and_then(SideTables::open);
        let lower_bound = self.lower_bound(board);
        if size >= 5 && within == 0 && lower_bound > OPTIMAL_ATTEMPT_MAX_BOUND {
            if beam_side {
                return Ok(Plan::Beam {
                    tables: beam_tables,
                });
            }
            return Ok(Plan::Reduce {
                why: format!("no optimal search finishes at lower bound {lower_bound}"),
            });
        }
        Ok(Plan::Search(Search {
            algorithm: Algorithm::IdaStar,
            heuristic: HeuristicKind::LinearConflict,
            tables: None,
            gives_way: (size >= 4).then(|| GiveWay {
                after_nodes: max_nodes.unwrap_or(OPTIMAL_ATTEMPT_NODES),
                beam_tables: beam_tables.filter(|_| beam_side),
            }),
        }))
    }

    /// Tells once per board side that its tables are missing, and what
    /// happens instead.
    fn note_missing_once(&self, size: usize, error: TablesError, max_nodes: Option<u64>) {
        let noted = self
            .shared
            .notes_said
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(size);
        if noted {
            self.note(Note::TablesMissing {
                error,
                attempt_nodes: max_nodes.unwrap_or(OPTIMAL_ATTEMPT_NODES),
                within: self.config.within,
            });
        }
    }
}

// Over a table directory: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
