//! Where tables live and how they are opened: the search order of
//! directories, the default build directory, and [`Tables`], one
//! partition's tables mapped and checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use npuzzle_board::{Board, Goal, Move};
use npuzzle_pdb::file::{self, TableBytes};
use npuzzle_pdb::{Lookup, OpenError, Partition, Pattern, PdbError, Problem, TableSet};
use npuzzle_search::Capacity;

use crate::error::{Error, TablesError, TablesProblem};

/// Where tables are looked for, in order: `explicit` (a front end's
/// `--pdb-dir`), else `$NPUZZLE_PDB_DIR`, else `./data`, else the user data
/// directory (`~/.local/share/npuzzle` on Linux).
pub fn search_dirs(explicit: Option<&Path>) -> Vec<PathBuf> {
    if let Some(dir) = explicit {
        return vec![dir.to_path_buf()];
    }
    if let Some(dir) = std::env::var_os("NPUZZLE_PDB_DIR").filter(|d| !d.is_empty()) {
        return vec![PathBuf::from(dir)];
    }
    let mut dirs = vec![PathBuf::from("data")];
    dirs.extend(file::user_data_dir());
    dirs
}

/// The directory among `dirs` that holds the first table of `partition`:
/// anything under its name counts (a FIFO, a device, a symbolic link loop),
/// so that opening it says what is wrong rather than that it is missing.
pub fn find_dir(dirs: &[PathBuf], partition: &Partition) -> Option<PathBuf> {
    let name = file::file_name(&partition.patterns()[0]);
    dirs.iter()
        .find(|d| std::fs::symlink_metadata(d.join(&name)).is_ok())
        .cloned()
}

/// The complete sets of tables for boards of side `size` and `goal` in
/// `dir`, by partition name: the named partitions, each also with any of
/// its parts zero-aware (`7z-8`), and the named catalogues.
pub fn sets_in(dir: &Path, size: usize, goal: Goal) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let present: std::collections::HashSet<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    let mut names: Vec<String> = Vec::new();
    for name in npuzzle_pdb::known_partitions(size) {
        let parts: Vec<&str> = name.split('-').collect();
        for mask in 0..1u32 << parts.len() {
            let variant: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(i, part)| {
                    let z = if mask >> i & 1 == 1 { "z" } else { "" };
                    format!("{part}{z}")
                })
                .collect();
            names.push(variant.join("-"));
        }
    }
    names.extend(
        npuzzle_pdb::known_catalogues(size)
            .into_iter()
            .map(|(name, _, _)| name.to_string()),
    );
    let built = |name: &str| {
        Partition::parse(name, size, goal).ok().filter(|partition| {
            partition
                .patterns()
                .iter()
                .all(|pattern| present.contains(&file::file_name(pattern)))
        })
    };
    let sets: Vec<(String, Partition)> = names
        .into_iter()
        .filter_map(|name| built(&name).map(|partition| (name, partition)))
        .collect();
    // A partition that only a built catalogue holds is a part of that set,
    // not a set of its own: unless it is one a solver takes by itself.
    let in_catalogue = |partition: &Partition| {
        sets.iter().any(|(_, other)| {
            other.groups().len() > 1
                && partition
                    .patterns()
                    .iter()
                    .all(|p| other.patterns().contains(p))
        })
    };
    let taken_alone = Partition::strongest_first(size);
    sets.iter()
        .filter(|(name, partition)| {
            partition.groups().len() > 1
                || taken_alone.contains(&name.as_str())
                || !in_catalogue(partition)
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// The first of [`Partition::strongest_first`] complete in one of `dirs`,
/// with that directory.
pub fn strongest_built(dirs: &[PathBuf], size: usize, goal: Goal) -> Option<(Partition, PathBuf)> {
    Partition::strongest_first(size).iter().find_map(|name| {
        let partition = Partition::parse(name, size, goal).ok()?;
        let dir = dirs.iter().find(|dir| {
            partition
                .patterns()
                .iter()
                .all(|pattern| dir.join(file::file_name(pattern)).is_file())
        })?;
        Some((partition, dir.clone()))
    })
}

/// Whether a file can be created in `dir` (an existing directory).
pub fn writable(dir: &Path) -> bool {
    dir.is_dir() && tempfile::tempfile_in(dir).is_ok()
}

/// Where a build writes when no directory is named: `$NPUZZLE_PDB_DIR`,
/// else `./data` when it is a writable directory, else the user data
/// directory.
pub fn default_build_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NPUZZLE_PDB_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("data");
    if writable(&local) {
        return local;
    }
    file::user_data_dir().unwrap_or(local)
}

/// The tables of one partition (or catalogue), opened from a directory.
pub struct Tables {
    set: TableSet<TableBytes>,
    partition: Partition,
    dir: PathBuf,
    notes: Vec<String>,
}

/// The board side and goal a partition is for.
fn puzzle_of(partition: &Partition) -> (usize, Goal) {
    let first = &partition.patterns()[0];
    (first.size(), first.goal())
}

/// A [`TablesError`] about `partition`'s tables in `dir`.
pub(crate) fn tables_error(partition: &Partition, dir: &Path, problem: TablesProblem) -> Error {
    let (size, goal) = puzzle_of(partition);
    Error::Tables(TablesError {
        partition: partition.name().to_string(),
        size,
        goal,
        dir: dir.to_path_buf(),
        problem,
    })
}

impl Tables {
    /// Opens the default tables of the 15-puzzle (partition 7-8, goal
    /// blank-last: `cargo xtask build-pdb` or `npuzzle pdb build`) in `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tables, Error> {
        let partition = Partition::parse(Partition::default_name(4), 4, Goal::BlankLast)?;
        Tables::open_partition(dir, &partition)
    }

    /// Opens the tables of `partition` in `dir`, checking each completely
    /// (header, and table CRC).
    pub fn open_partition(dir: impl AsRef<Path>, partition: &Partition) -> Result<Tables, Error> {
        let mut notes = Vec::new();
        let tables = Tables::open_noting(dir.as_ref(), partition, &mut |note| notes.push(note))?;
        Ok(Tables { notes, ..tables })
    }

    /// Finds the tables of `partition` in the directories of
    /// [`search_dirs`]`(explicit)` and opens them; what happens to their
    /// unpacked copies on the way (a damaged one replaced) goes to `note`.
    pub fn find(
        explicit: Option<&Path>,
        partition: &Partition,
        note: &mut dyn FnMut(String),
    ) -> Result<Tables, Error> {
        let dirs = search_dirs(explicit);
        let Some(dir) = find_dir(&dirs, partition) else {
            // A build without a directory named writes to the default one.
            let build_dir = match &dirs[..] {
                [only] => only.clone(),
                _ => default_build_dir(),
            };
            let (size, goal) = puzzle_of(partition);
            let built = dirs
                .iter()
                .flat_map(|dir| {
                    sets_in(dir, size, goal)
                        .into_iter()
                        .map(move |name| (name, dir.clone()))
                })
                .collect();
            return Err(tables_error(
                partition,
                &build_dir,
                TablesProblem::Missing {
                    file: file::file_name(&partition.patterns()[0]),
                    looked_in: dirs.into(),
                    built,
                },
            ));
        };
        Tables::open_noting(&dir, partition, note)
    }

    /// [`Tables::find`], telling `unpacking` first when the tables must be
    /// unpacked (the first open after a build), with the directory and bytes.
    pub fn find_telling(
        explicit: Option<&Path>,
        partition: &Partition,
        note: &mut dyn FnMut(String),
        unpacking: &mut dyn FnMut(&Path, u64),
    ) -> Result<Tables, Error> {
        if let Some(dir) = find_dir(&search_dirs(explicit), partition) {
            let bytes = Tables::bytes_to_unpack(&dir, partition);
            if bytes > 0 {
                unpacking(&dir, bytes);
            }
        }
        Tables::find(explicit, partition, note)
    }

    /// The bytes of `partition`'s tables in `dir` that have no unpacked
    /// copy yet: opening them unpacks that much first (once).
    pub fn bytes_to_unpack(dir: &Path, partition: &Partition) -> u64 {
        partition
            .distinct_patterns()
            .into_iter()
            .map(|pattern| dir.join(file::file_name(pattern)))
            .filter(|packed| !file::cache_paths(packed).iter().any(|p| p.is_file()))
            .filter_map(|packed| file::read_packed_header(&packed).ok())
            .map(|(header, _)| header.file_len())
            .sum()
    }

    fn open_noting(
        dir: &Path,
        partition: &Partition,
        note: &mut dyn FnMut(String),
    ) -> Result<Tables, Error> {
        let damaged =
            |e: OpenError| tables_error(partition, dir, TablesProblem::Damaged(Arc::new(e)));
        // Checking the tables runs in parallel, in a pool that a child of
        // `fork` starts again (see `pool`).
        let mut notes = Vec::new();
        let opened = crate::pool::in_engine_pool(|| {
            file::open_partition_noting(dir, partition, &mut |text| notes.push(text))
        });
        for text in notes {
            note(text);
        }
        let tables = opened.map_err(damaged)?;
        let set = TableSet::with_groups(tables, partition.groups()).map_err(|e| {
            let first = dir.join(file::file_name(&partition.patterns()[0]));
            damaged(OpenError::new(&first, Problem::Pdb(e)))
        })?;
        // Refused now rather than at the first board: no heuristic holds
        // more tables than this.
        Capacity::for_tables(set.tables(), set.groups())
            .map_err(|e| tables_error(partition, dir, TablesProblem::Unusable(e.to_string())))?;
        Ok(Tables {
            set,
            partition: partition.clone(),
            dir: dir.to_path_buf(),
            notes: Vec::new(),
        })
    }

    /// The heuristic value of `board`: the additive sum of the tables, maxed
    /// with the sum for the reflected board; a lower bound on its solution
    /// length, equal to what `npuzzle pdb lookup` prints last.
    pub fn heuristic(&self, board: &Board) -> Result<u32, Error> {
        self.lookup(board).map(|lookup| lookup.value)
    }

    /// Every figure of the lookup: each table's value and both sums.
    pub fn lookup(&self, board: &Board) -> Result<Lookup, Error> {
        self.check_size(board)?;
        self.set.lookup(board).map_err(|e| {
            let path = self.dir.clone();
            tables_error(
                &self.partition,
                &self.dir,
                TablesProblem::Damaged(Arc::new(OpenError::new(&path, Problem::Pdb(e)))),
            )
        })
    }

    /// The partition the tables hold.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// The side of the boards the tables are for.
    pub fn size(&self) -> usize {
        self.set.size()
    }

    /// The goal the tables are built for.
    pub fn goal(&self) -> Goal {
        self.set.goal()
    }

    /// The directory the tables were opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What happened to the unpacked copies on opening (a damaged one
    /// replaced, a cache directory that could not be written), one line each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Each table, in partition order (a table two partitions hold appears
    /// twice, mapped once).
    pub fn tables(&self) -> &[npuzzle_pdb::Pdb<TableBytes>] {
        self.set.tables()
    }

    /// Holds a solution found over the tables against their values. A table
    /// counts the moves its tiles need, so at every board on the way its
    /// value (for the board and for the reflected board) is at most the
    /// moves of its tiles that remain in the solution. A table that breaks
    /// this holds false values whatever its checksums say: it is named, and
    /// no answer is given over it. Some 2 x length x tables lookups.
    pub fn certify(&self, board: &Board, moves: &[Move]) -> Result<(), Error> {
        let goal = self.goal();
        let boards = board
            .replay(moves)
            .expect("search returns legal moves only");
        for reflected in [false, true] {
            let path: Vec<Board> = if reflected {
                boards.iter().map(|b| b.transposed(goal)).collect()
            } else {
                boards.clone()
            };
            // The tile each move slides: the one standing where the blank goes.
            let moved: Vec<u16> = path
                .windows(2)
                .map(|pair| pair[0].tiles()[pair[1].blank()])
                .collect();
            for pdb in self.tables() {
                let tiles = pdb.pattern().tiles();
                let ours = |tile: u16| u8::try_from(tile).is_ok_and(|t| tiles.contains(&t));
                let mut remaining = moved.iter().filter(|&&tile| ours(tile)).count();
                for (step, on_the_way) in path.iter().enumerate() {
                    let value = pdb
                        .lookup(on_the_way)
                        .map_err(|e| self.damaged(pdb.pattern(), e))?;
                    if value as usize > remaining {
                        let what = format!(
                            "it gives {value} for {}{on_the_way}, {step} moves into a {}-move \
                             solution in which its tiles move only {remaining} more time{}",
                            if reflected { "the reflection of " } else { "" },
                            moves.len(),
                            if remaining == 1 { "" } else { "s" }
                        );
                        return Err(self.damaged(pdb.pattern(), PdbError::Contradicted { what }));
                    }
                    if moved.get(step).is_some_and(|&tile| ours(tile)) {
                        remaining -= 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// The error naming the table of `pattern` as damaged.
    fn damaged(&self, pattern: &Pattern, e: PdbError) -> Error {
        let path = self.dir.join(file::file_name(pattern));
        tables_error(
            &self.partition,
            &self.dir,
            TablesProblem::Damaged(Arc::new(OpenError::new(&path, Problem::Pdb(e)))),
        )
    }

    pub(crate) fn check_size(&self, board: &Board) -> Result<(), Error> {
        if board.size() != self.size() {
            return Err(Error::WrongSize {
                board: board.size(),
                tables: self.size(),
            });
        }
        Ok(())
    }
}

/// How `npuzzle pdb verify` proved a table's values exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// A named partition's table: its BLAKE3 digest is the one shipped.
    ShippedDigest,
    /// Another pattern's: built again and compared entry by entry.
    BuiltAgain,
}

/// Checks a table file completely and proves its values exact
/// ([`file::verify`]), saying how.
pub fn verify_exact(path: &Path) -> Result<(npuzzle_pdb::Header, Exactness), OpenError> {
    let header = file::verify(path)?;
    let how = match npuzzle_pdb::known_table(header.pattern()) {
        Some(_) => Exactness::ShippedDigest,
        None => Exactness::BuiltAgain,
    };
    Ok((header, how))
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_pdb::{build_file, Pdb};

    /// The tables of `partition` (3x3, blank-last) from memory, with every
    /// stored entry but the goal's raised by `raise`: what no open check
    /// stands between here and the search.
    fn tables_raised(partition: &str, raise: u8) -> Tables {
        let partition = Partition::parse(partition, 3, Goal::BlankLast).unwrap();
        let tables = partition
            .patterns()
            .iter()
            .map(|pattern| {
                let mut image = build_file(pattern, 1, |_| {}).unwrap();
                let pdb = Pdb::from_bytes(&image[..]).unwrap();
                let goal = pattern.goal().board(3);
                let cells: Vec<u8> = pattern
                    .tiles()
                    .iter()
                    .map(|&t| {
                        goal.tiles()
                            .iter()
                            .position(|&x| x == u16::from(t))
                            .unwrap() as u8
                    })
                    .collect();
                let goal_byte = match pdb.encoding() {
                    npuzzle_pdb::Encoding::NibbleExcess => (pdb.index(&cells, 8) / 2) as usize,
                    _ => pdb.index(&cells, 8) as usize,
                };
                let offset = pdb.header().table_offset() as usize;
                for (i, byte) in image[offset..].iter_mut().enumerate() {
                    if i != goal_byte {
                        *byte = byte.saturating_add(raise);
                    }
                }
                Pdb::from_bytes(TableBytes::Owned(Arc::new(image))).unwrap()
            })
            .collect();
        Tables {
            set: TableSet::with_groups(tables, partition.groups()).unwrap(),
            partition,
            dir: PathBuf::from("tables-in-memory"),
            notes: Vec::new(),
        }
    }

    /// A solution is certified over true tables and refused over raised
    /// ones, naming the table; the engine gives no answer over them.
    #[test]
    fn certify_names_a_table_its_solution_contradicts() {
        let board = npuzzle_board::parse_board("8 1 3 4 0 2 7 6 5").unwrap();
        let solver = crate::Solver::builder().build().unwrap();
        let moves = solver.solve(&board).unwrap().moves;
        tables_raised("1,3,5,7;2,4,6,8", 0)
            .certify(&board, &moves)
            .unwrap();
        let lying = tables_raised("1,3,5,7;2,4,6,8", 0x22);
        let error = lying.certify(&board, &moves).unwrap_err().to_string();
        assert!(
            error.contains("its values are false") && error.contains("3x3-blank-last-"),
            "{error}"
        );
        let solver = crate::Solver::builder()
            .tables(tables_raised("1,3,5,7;2,4,6,8", 0x22))
            .heuristic(npuzzle_search::HeuristicKind::Pdb)
            .build()
            .unwrap();
        match solver.solve(&board) {
            Err(Error::Tables(e)) => assert!(e.needs_build(), "{e}"),
            other => panic!("{other:?}"),
        }
    }
}
