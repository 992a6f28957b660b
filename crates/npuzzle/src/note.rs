//! What the solver tells on the way, once per occasion.

use std::fmt;
use std::sync::Arc;

use crate::error::TablesError;

/// Something the solver tells on the way, once: front ends print it (the
/// command line on stderr) or collect it ([`Solver::take_notes`](crate::Solver::take_notes)).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Note {
    /// No tables for a side whose boards get them by default: its boards
    /// are solved with linear conflict, optimally within `attempt_nodes`
    /// expanded nodes, else by the reduction (not optimal).
    TablesMissing {
        /// Where the solver looked, and how to build them.
        error: TablesError,
        /// The attempt's budget.
        attempt_nodes: u64,
        /// The attempt's bound over optimal, in percent (`--within`; 0:
        /// the attempt is optimal).
        within: u32,
    },
    /// What happened to an unpacked table copy (a damaged one replaced, a
    /// cache directory that could not be written).
    Cache(String),
    /// The tables are being unpacked, the first time they are opened after
    /// a build: an open that takes a second or more (later ones map the
    /// unpacked copy at once). Information, not a warning.
    Unpacking {
        /// The partition.
        partition: String,
        /// Where the packed tables are.
        dir: std::path::PathBuf,
        /// The bytes to unpack.
        bytes: u64,
        /// The solver's time budget, which the unpacking counts against.
        budget: Option<std::time::Duration>,
    },
    /// None was asked for and a set other than the side's default is the
    /// strongest complete one built (named or given by hand; the order is
    /// `npuzzle::strongest_built`'s): it is used.
    StrongestChosen {
        /// The partition used.
        partition: String,
        /// The board side.
        size: usize,
        /// Where the tables are.
        dir: std::path::PathBuf,
    },
    /// A side's tables are built for the other goal only: its boards are
    /// solved over them, turned 180 degrees with tile v relabelled n*n - v
    /// (the same distance), and the moves turned back. Told once per side.
    TablesTurned {
        /// The board side.
        size: usize,
        /// The solver's goal.
        goal: npuzzle_board::Goal,
        /// The goal the tables were built for.
        tables_goal: npuzzle_board::Goal,
        /// Their partition.
        partition: String,
        /// Where they are.
        dir: std::path::PathBuf,
    },
    /// A memory budget was given and a board's search does not take it:
    /// only optimal IDA* searches of boards up to 5x5 run A*+IDA*. Told
    /// once per board side and search.
    MemoryUnused {
        /// The board side.
        size: usize,
        /// The search that ran instead, such as "A*" or "beam search".
        search: &'static str,
    },
}

impl Note {
    /// The note, with `tables` the rendering of a [`TablesError`] (a front
    /// end gives its own build command there).
    pub fn message_with(&self, tables: impl Fn(&TablesError) -> String) -> String {
        match self {
            Note::TablesMissing {
                error,
                attempt_nodes,
                within,
            } if *within == 0 && (5..=crate::policy::BEAM_MAX_SIZE).contains(&error.size) => {
                format!(
                    "{}\nmeanwhile {n}x{n} boards are solved with linear conflict: optimally \
                 within {attempt_nodes} nodes when the lower bound is at most {near}, else \
                 by beam search (not optimal, no guarantee how far from it)",
                    tables(error),
                    n = error.size,
                    near = crate::policy::OPTIMAL_ATTEMPT_MAX_BOUND,
                )
            }
            Note::TablesMissing {
                error,
                attempt_nodes,
                within,
            } => format!(
                "{}\nmeanwhile {n}x{n} boards are solved with linear conflict, {how} \
                 within {attempt_nodes} nodes, else by reduction (not optimal{guarantee})",
                tables(error),
                n = error.size,
                how = if *within == 0 {
                    "optimally".to_string()
                } else {
                    format!("at most {within}% over optimal")
                },
                guarantee = if *within == 0 { "" } else { ", no guarantee" }
            ),
            Note::Cache(text) => text.clone(),
            Note::Unpacking {
                partition,
                dir,
                bytes,
                budget,
            } => format!(
                "unpacking the {partition} tables in {} ({:.0} MB), once{}: later runs map \
                 the unpacked copy directly",
                npuzzle_pdb::normalize(dir).display(),
                *bytes as f64 / 1e6,
                budget.map_or(String::new(), |budget| format!(
                    ", out of this run's time budget of {} s",
                    npuzzle_search::seconds_text(budget)
                ))
            ),
            Note::StrongestChosen {
                partition,
                size,
                dir,
            } => format!(
                "using the {partition} tables in {}: the strongest complete set built there \
                 for {size}x{size} (--partition picks another)",
                npuzzle_pdb::normalize(dir).display()
            ),
            Note::TablesTurned {
                size,
                goal,
                tables_goal,
                partition,
                dir,
            } => format!(
                "{size}x{size} boards for goal {goal} are solved over the {tables_goal} \
                 {partition} tables in {} (the board turned 180 degrees: the same distance, \
                 optimal answers): no {goal} tables are built",
                npuzzle_pdb::normalize(dir).display()
            ),
            Note::MemoryUnused { size, search } => format!(
                "the memory budget is not used for {size}x{size} boards solved by {search}: \
                 only optimal IDA* searches of boards up to 5x5 keep positions (A*+IDA*)"
            ),
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_with(|e| e.to_string()))
    }
}

pub(crate) type NoteSink = Arc<dyn Fn(&Note) + Send + Sync>;
