//! [`Tables`]: one partition's tables, checked, for lookups and searches,
//! whether they came from files (`table_files.rs`) or from memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use npuzzle_board::{Board, Goal, Move};
use npuzzle_pdb::{
    file_name, Lookup, OpenError, Partition, Pattern, Pdb, PdbError, Problem, TableBytes,
    Tables as Lookups,
};
use npuzzle_search::{Strategy, Tables as SearchTables};

use crate::error::{Error, TablesError, TablesProblem};

/// The tables of one partition (or catalogue), opened from a directory or
/// taken from memory ([`Tables::from_images`]).
pub struct Tables {
    pub(crate) set: Lookups<TableBytes>,
    pub(crate) partition: Partition,
    pub(crate) dir: PathBuf,
    pub(crate) notes: Vec<String>,
    /// How the search computes the heuristic over the set: chosen once,
    /// when the set is opened.
    pub(crate) strategy: Strategy,
}

/// The board side and goal a partition is for.
pub(crate) fn puzzle_of(partition: &Partition) -> (usize, Goal) {
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

/// What [`Tables::from_images`] names as the tables' directory.
pub const IN_MEMORY: &str = "(in memory)";

impl Tables {
    /// The tables of `partition` from whole file images (header and table,
    /// as `npuzzle pdb build` unpacks them or [`npuzzle_pdb::build_file`]
    /// makes them), one per distinct pattern in any order. Each is checked
    /// as an opened file is: the header, its pattern, the length and CRC a
    /// named partition's build has, the table's CRC and sampled values. For
    /// hosts without files, such as a browser that keeps tables it built.
    /// A named partition's tables are also held to the BLAKE3 digest of
    /// npuzzle's build (every byte read: milliseconds for 6-6-3), so values
    /// changed under recomputed checksums are refused too.
    pub fn from_images(partition: &Partition, images: Vec<Vec<u8>>) -> Result<Tables, Error> {
        let dir = Path::new(IN_MEMORY);
        let count = images.len();
        let damaged = |what: String, e: PdbError| {
            let path = dir.join(what);
            tables_error(
                partition,
                dir,
                TablesProblem::Damaged(Arc::new(OpenError::new(&path, Problem::Pdb(e)))),
            )
        };
        let mut opened: Vec<Pdb<TableBytes>> = Vec::with_capacity(count);
        for (index, image) in images.into_iter().enumerate() {
            let pdb = Pdb::from_bytes(TableBytes::Owned(Arc::new(image)))
                .map_err(|e| damaged(format!("image {} of {count}", index + 1), e))?;
            let pattern = pdb.pattern().clone();
            let name = || file_name(&pattern).trim_end_matches(".zst").to_string();
            if !partition.patterns().contains(&pattern) {
                let e = PdbError::Malformed {
                    what: format!(
                        "it holds tiles {pattern}, which {} has not",
                        partition.name()
                    ),
                };
                return Err(damaged(name(), e));
            }
            if opened.iter().any(|other| other.pattern() == &pattern) {
                let e = PdbError::Malformed {
                    what: format!("tiles {pattern} are given twice"),
                };
                return Err(damaged(name(), e));
            }
            pdb.check_known()
                .and_then(|()| pdb.verify())
                .and_then(|()| pdb.check_known_digest().map(|_| ()))
                .and_then(|()| pdb.check_plausible(npuzzle_pdb::OPEN_SAMPLES))
                .map_err(|e| damaged(name(), e))?;
            opened.push(pdb);
        }
        let mut tables = Vec::with_capacity(partition.patterns().len());
        for pattern in partition.patterns() {
            let Some(pdb) = opened.iter().find(|pdb| pdb.pattern() == pattern) else {
                return Err(tables_error(
                    partition,
                    dir,
                    TablesProblem::Missing {
                        file: file_name(pattern),
                        looked_in: Vec::new().into(),
                        built: Vec::new().into(),
                    },
                ));
            };
            tables.push(pdb.clone());
        }
        Tables::from_set(tables, partition, dir)
    }

    /// The tables of `partition`, each already checked, as a set.
    pub(crate) fn from_set(
        tables: Vec<Pdb<TableBytes>>,
        partition: &Partition,
        dir: &Path,
    ) -> Result<Tables, Error> {
        let set = Lookups::with_groups(tables, partition.groups()).map_err(|e| {
            let first = dir.join(file_name(&partition.patterns()[0]));
            tables_error(
                partition,
                dir,
                TablesProblem::Damaged(Arc::new(OpenError::new(&first, Problem::Pdb(e)))),
            )
        })?;
        // Refused now rather than at the first board.
        let strategy = SearchTables::new(set.tables(), set.groups(), None)
            .map_err(|e| tables_error(partition, dir, TablesProblem::Unusable(e.to_string())))?
            .strategy();
        Ok(Tables {
            set,
            partition: partition.clone(),
            dir: dir.to_path_buf(),
            notes: Vec::new(),
            strategy,
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

    /// The strategy chosen for the set when it was opened.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// The set as the searches take it, with its strategy, or `forced`
    /// (which the search refuses if it does not take the set).
    pub fn for_search(&self, forced: Option<Strategy>) -> SearchTables<'_, TableBytes> {
        let strategy = forced.unwrap_or(self.strategy);
        SearchTables::chosen(self.set.tables(), self.set.groups(), strategy)
            .expect("an opened set holds tables")
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
        let path = self.dir.join(file_name(pattern));
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

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_pdb::build_file;

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
        let set = Lookups::with_groups(tables, partition.groups()).unwrap();
        let strategy = npuzzle_search::choose(set.tables(), set.groups()).unwrap();
        Tables {
            set,
            partition,
            dir: PathBuf::from("tables-in-memory"),
            notes: Vec::new(),
            strategy,
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
