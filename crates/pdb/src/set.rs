//! The tables of a partition looked up together: the heuristic value the
//! solver starts from and `npuzzle pdb lookup` prints.

use npuzzle_board::{Board, Goal};

use crate::format::PdbError;
use crate::pattern::Partition;
use crate::table::Pdb;

/// Disjoint tables of one board size and goal, looked up as the solver does:
/// the sum of their values, maxed with the same sum over the board reflected
/// about its main diagonal (Korf and Felner's second lookup: the reflection
/// maps solutions to solutions, so both sums are lower bounds).
///
/// A catalogue is several such partitions in a row; its value is the
/// largest of their values.
pub struct Tables<D> {
    tables: Vec<Pdb<D>>,
    /// The number of tables of each partition.
    groups: Vec<usize>,
}

/// Every figure of one lookup.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lookup {
    /// Each table's value, in the order of the tables.
    pub values: Vec<u32>,
    /// Their sum: a lower bound on the moves the board needs (for a
    /// catalogue, the largest partition sum).
    pub sum: u32,
    /// The same sum for the reflected board: another lower bound.
    pub reflected_sum: u32,
    /// The larger of the two: the heuristic value.
    pub value: u32,
    /// For each partition (one unless a catalogue): its sum and reflected
    /// sum.
    pub partition_sums: Vec<(u32, u32)>,
}

impl<D: AsRef<[u8]> + Sync> Tables<D> {
    /// Takes tables of one size and goal whose patterns share no tile.
    pub fn new(tables: Vec<Pdb<D>>) -> Result<Tables<D>, PdbError> {
        let groups = vec![tables.len()];
        Tables::with_groups(tables, &groups)
    }

    /// Takes a catalogue: `groups[i]` tables of partition i, in a row, of
    /// one size and goal; within a partition no two patterns share a tile.
    pub fn with_groups(tables: Vec<Pdb<D>>, groups: &[usize]) -> Result<Tables<D>, PdbError> {
        let mismatch = |what: String| PdbError::Mismatch { what };
        let Some(first) = tables.first() else {
            return Err(mismatch("no tables given".to_string()));
        };
        if groups.iter().sum::<usize>() != tables.len() || groups.contains(&0) {
            return Err(mismatch(format!(
                "{} tables given for partitions of {groups:?}",
                tables.len()
            )));
        }
        let (size, goal) = (first.pattern().size(), first.goal());
        let mut first = 0;
        for &n in groups {
            let mut seen = vec![false; size * size];
            for pdb in &tables[first..first + n] {
                let pattern = pdb.pattern();
                if pattern.size() != size || pdb.goal() != goal {
                    return Err(mismatch(format!(
                        "tables for {size}x{size} goal {goal} and for {n}x{n} goal {} cannot \
                         be added",
                        pdb.goal(),
                        n = pattern.size()
                    )));
                }
                for &tile in pattern.tiles() {
                    if std::mem::replace(&mut seen[tile as usize], true) {
                        return Err(mismatch(format!(
                            "tile {tile} is in two tables, so their values cannot be added"
                        )));
                    }
                }
            }
            first += n;
        }
        Ok(Tables {
            tables,
            groups: groups.to_vec(),
        })
    }

    /// The number of tables of each partition.
    pub fn groups(&self) -> &[usize] {
        &self.groups
    }

    /// The tables, in the order given.
    pub fn tables(&self) -> &[Pdb<D>] {
        &self.tables
    }

    /// The side of the boards the tables are for.
    pub fn size(&self) -> usize {
        self.tables[0].pattern().size()
    }

    /// The goal the tables are built for.
    pub fn goal(&self) -> Goal {
        self.tables[0].goal()
    }

    /// Looks `board` up in every table, directly and reflected.
    pub fn lookup(&self, board: &Board) -> Result<Lookup, PdbError> {
        let values = self
            .tables
            .iter()
            .map(|pdb| pdb.lookup(board))
            .collect::<Result<Vec<u32>, PdbError>>()?;
        let reflected = board.transposed(self.goal());
        let reflected_values = self
            .tables
            .iter()
            .map(|pdb| pdb.lookup(&reflected))
            .collect::<Result<Vec<u32>, PdbError>>()?;
        let mut partition_sums = Vec::new();
        let mut first = 0;
        for &n in &self.groups {
            let range = first..first + n;
            partition_sums.push((
                values[range.clone()].iter().sum(),
                reflected_values[range].iter().sum(),
            ));
            first += n;
        }
        let sum = partition_sums.iter().map(|s| s.0).max().unwrap_or(0);
        let reflected_sum = partition_sums.iter().map(|s| s.1).max().unwrap_or(0);
        Ok(Lookup {
            values,
            sum,
            reflected_sum,
            value: reflected_sum.max(sum),
            partition_sums,
        })
    }

    /// The heuristic value of `board`: a lower bound on its solution length,
    /// the number `npuzzle pdb lookup` prints last.
    pub fn value(&self, board: &Board) -> Result<u32, PdbError> {
        self.lookup(board).map(|lookup| lookup.value)
    }

    /// Checks that the tables are exactly those of `partition`.
    pub fn expect_partition(&self, partition: &Partition) -> Result<(), PdbError> {
        if self.tables.len() != partition.patterns().len() || self.groups != partition.groups() {
            return Err(PdbError::Mismatch {
                what: format!(
                    "{} tables given, partition {} has {}",
                    self.tables.len(),
                    partition.name(),
                    partition.patterns().len()
                ),
            });
        }
        self.tables
            .iter()
            .zip(partition.patterns())
            .try_for_each(|(pdb, pattern)| pdb.expect_pattern(pattern))
    }
}

#[cfg(feature = "mmap")]
impl Tables<memmap2::Mmap> {
    /// Maps the unpacked tables (`*.pdb`) of `partition` from `dir`, or from
    /// `dir/cache/` where `npuzzle` unpacks the `*.pdb.zst` files it is given,
    /// and checks each completely (its CRC: some 30 ms per 100 MB).
    pub fn open_unpacked(
        dir: &std::path::Path,
        partition: &Partition,
    ) -> Result<Tables<memmap2::Mmap>, crate::OpenError> {
        use crate::error::{fail, Problem};
        let tables = partition
            .patterns()
            .iter()
            .map(|pattern| {
                let name = crate::naming::unpacked_file_name(pattern);
                let direct = dir.join(&name);
                let path = if direct.exists() {
                    direct
                } else {
                    dir.join("cache").join(&name)
                };
                let pdb = crate::mapped::open_unpacked(&path)?;
                pdb.expect_pattern(pattern)
                    .and_then(|()| pdb.verify())
                    .map_err(|e| fail(&path, Problem::Pdb(e)))?;
                Ok(pdb)
            })
            .collect::<Result<Vec<_>, crate::OpenError>>()?;
        Tables::with_groups(tables, partition.groups()).map_err(|e| fail(dir, Problem::Pdb(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{BuildInfo, Encoding, Header, FORMAT_VERSION, HEADER_LEN};
    use crate::pattern::Pattern;

    /// A table written by hand, so this runs without the generator: tile 1
    /// of the 2x2 puzzle, whose abstract distance is its Manhattan distance.
    fn tile_one_table(goal: Goal) -> Vec<u8> {
        let pattern = Pattern::new(2, goal, vec![1]).unwrap();
        let home = goal.cell_of(2, 1);
        let table: Vec<u8> = (0..4usize)
            .map(|cell| ((cell / 2).abs_diff(home / 2) + (cell % 2).abs_diff(home % 2)) as u8)
            .collect();
        let header = Header {
            version: FORMAT_VERSION,
            pattern,
            encoding: Encoding::Byte,
            max_value: 2,
            entries: 4,
            table_len: 4,
            table_offset: HEADER_LEN as u64,
            table_crc: crate::format::table_crc(&table),
            build: BuildInfo::default(),
        };
        let mut image = header.to_bytes();
        image.extend_from_slice(&table);
        image
    }

    #[test]
    fn a_set_adds_its_tables_and_the_reflected_board() {
        for goal in Goal::ALL {
            let pdb = Pdb::from_bytes(tile_one_table(goal)).unwrap();
            pdb.verify().unwrap();
            assert_eq!(pdb.histogram()[..3], [1, 2, 1]);
            let set = Tables::new(vec![pdb]).unwrap();
            assert_eq!((set.size(), set.goal()), (2, goal));
            for tiles in [[0u16, 1, 2, 3], [3, 2, 1, 0], [1, 2, 3, 0], [2, 0, 3, 1]] {
                let board = Board::new(2, tiles.to_vec()).unwrap();
                let lookup = set.lookup(&board).unwrap();
                let cell = board.tiles().iter().position(|&t| t == 1).unwrap();
                let home = goal.cell_of(2, 1);
                let manhattan =
                    ((cell / 2).abs_diff(home / 2) + (cell % 2).abs_diff(home % 2)) as u32;
                assert_eq!(lookup.values, vec![manhattan]);
                let reflected = set.tables()[0].lookup(&board.transposed(goal)).unwrap();
                assert_eq!(lookup.reflected_sum, reflected);
                assert_eq!(lookup.value, manhattan.max(reflected));
            }
        }
    }

    #[test]
    fn sets_refuse_overlapping_or_mixed_tables() {
        let table = || Pdb::from_bytes(tile_one_table(Goal::BlankLast)).unwrap();
        let overlap = Tables::new(vec![table(), table()]).err().unwrap();
        assert!(
            overlap.to_string().contains("tile 1 is in two tables"),
            "{overlap}"
        );
        let other = Pdb::from_bytes(tile_one_table(Goal::BlankFirst)).unwrap();
        assert!(Tables::new(vec![table(), other]).is_err());
        assert!(Tables::<Vec<u8>>::new(vec![]).is_err());
        let set = Tables::new(vec![table()]).unwrap();
        let big = Board::new(3, (0..9).collect()).unwrap();
        assert!(set.lookup(&big).is_err());
    }
}
