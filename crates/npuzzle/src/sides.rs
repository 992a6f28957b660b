//! The tables of each board side, opened the first time a board of that
//! side needs them and shared by a solver's clones and threads: those of
//! the partition asked for, else the strongest complete set built for
//! the side (`table_files::strongest_built`), else the side's default.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use npuzzle_pdb::Partition;
#[cfg(feature = "native")]
use npuzzle_search::Capacity;

use crate::builder::Config;
use crate::error::{Error, TablesProblem};
use crate::note::Note;
#[cfg(feature = "native")]
use crate::table_files::{search_dirs, strongest_built};
use crate::tables::{tables_error, Tables};

/// One board side's tables, opened once.
struct Side {
    tables: Result<Arc<Tables>, Error>,
    /// The tables were named (a partition, or given open): missing ones
    /// refuse the board instead of giving way.
    asked_for: bool,
}

/// The tables of every side seen so far. Notes on the way (unpacking, a
/// set chosen) go to the `note` the caller gives.
#[derive(Default)]
pub(crate) struct Sides {
    sides: Mutex<HashMap<usize, Side>>,
}

impl Sides {
    fn lock(&self) -> MutexGuard<'_, HashMap<usize, Side>> {
        self.sides.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The tables for boards of side `size`, opened the first time.
    pub(crate) fn get(
        &self,
        config: &Config,
        size: usize,
        note: &dyn Fn(Note),
    ) -> Result<Arc<Tables>, Error> {
        let mut sides = self.lock();
        let side = sides
            .entry(size)
            .or_insert_with(|| open_side(config, size, note));
        side.tables.clone()
    }

    /// The tables for boards of side `size` if they have been opened.
    pub(crate) fn opened(&self, size: usize) -> Option<Arc<Tables>> {
        match self.lock().get(&size).map(|s| s.tables.clone()) {
            Some(Ok(tables)) => Some(tables),
            _ => None,
        }
    }

    /// Tables given open, for boards of their side (asked for).
    pub(crate) fn insert(&self, tables: Arc<Tables>) {
        self.lock().insert(
            tables.size(),
            Side {
                tables: Ok(tables),
                asked_for: true,
            },
        );
    }

    /// Whether the side's tables were asked for (missing ones refuse its
    /// boards).
    pub(crate) fn asked_for(&self, size: usize) -> bool {
        self.lock().get(&size).is_some_and(|side| side.asked_for)
    }
}

/// The partition asked for boards of side `size`, if any.
fn partition_for(config: &Config, size: usize) -> Option<&str> {
    match config.partition_size {
        Some(side) if side != size => None,
        _ => config.partition.as_deref(),
    }
}

#[cfg(feature = "native")]
fn open_side(config: &Config, size: usize, tell: &dyn Fn(Note)) -> Side {
    let asked_for = partition_for(config, size).is_some();
    let default = Partition::default_name(size);
    // With none named, the strongest set built, named in a note unless it
    // is the default.
    let strongest = match asked_for {
        true => None,
        false => strongest_built(&search_dirs(config.pdb_dir.as_deref()), size, config.goal),
    };
    let name = match (partition_for(config, size), &strongest) {
        (Some(name), _) => name.to_string(),
        (None, Some((partition, _))) => partition.name().to_string(),
        (None, None) => default.to_string(),
    };
    if let Some((partition, dir)) = strongest.filter(|(p, _)| p.name() != default) {
        tell(Note::StrongestChosen {
            partition: partition.name().to_string(),
            size,
            dir,
        });
    }
    let tables = Partition::parse(&name, size, config.goal)
        .map_err(Error::from)
        .and_then(|partition| {
            let distinct = partition.distinct_patterns().len();
            if let Err(e) = Capacity::for_counts(distinct, partition.groups().len()) {
                let dir = config.pdb_dir.clone().unwrap_or_default();
                return Err(tables_error(
                    &partition,
                    &dir,
                    TablesProblem::Unusable(e.to_string()),
                ));
            }
            let mut note = |text| tell(Note::Cache(text));
            let mut unpacking = |dir: &Path, bytes| {
                tell(Note::Unpacking {
                    partition: partition.name().to_string(),
                    dir: dir.to_path_buf(),
                    bytes,
                    budget: config.max_time,
                })
            };
            let dir = config.pdb_dir.as_deref();
            Tables::find_telling(dir, &partition, &mut note, &mut unpacking)
        })
        .map(Arc::new);
    Side { tables, asked_for }
}

/// Without files, a side has only the tables given open: any other is
/// missing, and the solver goes on as it does when they are not built.
#[cfg(not(feature = "native"))]
fn open_side(config: &Config, size: usize, _tell: &dyn Fn(Note)) -> Side {
    let asked_for = partition_for(config, size).is_some();
    let name = partition_for(config, size).unwrap_or(Partition::default_name(size));
    let tables = Partition::parse(name, size, config.goal)
        .map_err(Error::from)
        .and_then(|partition| {
            Err(tables_error(
                &partition,
                Path::new(crate::tables::IN_MEMORY),
                TablesProblem::Missing {
                    file: npuzzle_pdb::file_name(&partition.patterns()[0]),
                    looked_in: Vec::new().into(),
                    built: Vec::new().into(),
                },
            ))
        });
    Side { tables, asked_for }
}

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
