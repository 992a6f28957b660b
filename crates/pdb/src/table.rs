//! A table ready for lookups, over any bytes: a `Vec<u8>`, a static slice or
//! a memory map. Files and maps are the caller's business (see `file`).

use npuzzle_board::{Board, Goal};
#[cfg(feature = "parallel")]
use rayon::prelude::*;

use crate::format::{
    table_crc, Encoding, Header, PdbError, HEADER_LEN, NIBBLE_UNREACHED, UNREACHED,
};
use crate::pattern::Pattern;
use crate::regions::Regions;
use std::sync::Arc;

/// A pattern database: header plus table, checked in O(1) on construction.
///
/// ```
/// # #[cfg(feature = "generate")] {
/// use npuzzle_board::{Board, Goal};
/// use npuzzle_pdb::{build_file, Pattern, Pdb};
///
/// // Tiles 1 to 3 of the 8-puzzle: a table small enough to build here.
/// let pattern = Pattern::new(3, Goal::BlankLast, vec![1, 2, 3]).unwrap();
/// let bytes = build_file(&pattern, 1, |_| {}).unwrap();
/// let pdb = Pdb::from_bytes(bytes).unwrap();
/// pdb.verify().unwrap();
/// let board = Board::from_tiles(vec![2, 1, 3, 4, 5, 6, 7, 8, 0]).unwrap();
/// // Tiles 1 and 2 must pass each other: more than their Manhattan distance of 2.
/// assert!(pdb.lookup(&board).unwrap() > 2);
/// # }
/// ```
#[derive(Clone)]
pub struct Pdb<D> {
    bytes: D,
    header: Header,
    /// The numbering of a scheme-3 table, shared by all tables of its size.
    regions: Option<Arc<Regions>>,
}

impl<D: AsRef<[u8]> + Sync> Pdb<D> {
    /// Checks the header (label, version, CRC, fields) and the length; the
    /// table's own CRC is left to `verify`.
    pub fn from_bytes(bytes: D) -> Result<Pdb<D>, PdbError> {
        let header = Header::parse(bytes.as_ref())?;
        let len = bytes.as_ref().len() as u64;
        if len != header.file_len() {
            return Err(PdbError::Truncated {
                len,
                needed: header.file_len(),
            });
        }
        let regions = header.pattern.regions();
        Ok(Pdb {
            bytes,
            header,
            regions,
        })
    }

    /// Checks the table against the CRC in the header (reads all of it).
    pub fn verify(&self) -> Result<(), PdbError> {
        let computed = table_crc(self.table());
        if computed != self.header.table_crc {
            return Err(PdbError::TableChecksum {
                stored: self.header.table_crc,
                computed,
            });
        }
        Ok(())
    }

    /// The header: pattern, encoding, sizes, CRC, build record.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The tiles the table abstracts over.
    pub fn pattern(&self) -> &Pattern {
        &self.header.pattern
    }

    /// How entries hold values.
    pub fn encoding(&self) -> Encoding {
        self.header.encoding
    }

    /// The whole file image: header, then table.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// The table bytes, after the header.
    pub fn table(&self) -> &[u8] {
        &self.bytes.as_ref()[HEADER_LEN..]
    }

    /// The stored entry at `index`: the value (byte encoding) or the excess
    /// (nibble encoding).
    #[inline(always)]
    pub fn entry(&self, index: u64) -> u8 {
        let table = self.table();
        match self.header.encoding {
            Encoding::Byte => table[index as usize],
            Encoding::NibbleExcess => (table[(index / 2) as usize] >> (4 * (index % 2))) & 0xF,
        }
    }

    /// The value at `index`, given the Manhattan distance of the pattern
    /// tiles, which search keeps anyway.
    #[inline(always)]
    pub fn value_with_manhattan(&self, index: u64, manhattan: u32) -> u32 {
        match self.header.encoding {
            Encoding::Byte => self.entry(index) as u32,
            Encoding::NibbleExcess => manhattan + 2 * self.entry(index) as u32,
        }
    }

    /// The entry index of a placement (cells of the pattern tiles in tile
    /// order) with the blank on cell `blank`: the placement's rank (scheme
    /// 1), the rank times the free cells plus the number of free cells
    /// before the blank's (scheme 2), or the entry of the placement and the
    /// blank's region (scheme 3).
    #[inline(always)]
    pub fn index(&self, placement: &[u8], blank: u8) -> u64 {
        if let Some(regions) = &self.regions {
            return regions.index(placement, blank);
        }
        let pattern = self.pattern();
        let rank = pattern.rank(placement);
        if !pattern.is_zero_aware() {
            return rank;
        }
        let below = placement.iter().filter(|&&c| c < blank).count() as u64;
        rank * pattern.free_cells() as u64 + blank as u64 - below
    }

    /// The numbering of a scheme-3 table (None for the other schemes).
    pub fn regions(&self) -> Option<&Regions> {
        self.regions.as_deref()
    }

    /// The value of a placement of the pattern tiles, the blank on `blank`
    /// (which only zero-aware tables read).
    pub fn value(&self, placement: &[u8], blank: u8) -> u32 {
        let pattern = self.pattern();
        self.value_with_manhattan(self.index(placement, blank), pattern.manhattan(placement))
    }

    /// The table's lower bound on the moves that `board` needs.
    pub fn lookup(&self, board: &Board) -> Result<u32, PdbError> {
        let pattern = self.pattern();
        if board.size() != pattern.size() {
            return Err(PdbError::Mismatch {
                what: format!(
                    "the table is for {n}x{n} boards, the board is {m}x{m}",
                    n = pattern.size(),
                    m = board.size()
                ),
            });
        }
        let (placement, blank) = self.placement_of(board);
        Ok(self.value(&placement, blank))
    }

    /// The cells of the pattern's tiles on `board` (a board of the table's
    /// size), and the blank's cell.
    pub(crate) fn placement_of(&self, board: &Board) -> (Vec<u8>, u8) {
        let mut cell_of = vec![0u8; board.tiles().len()];
        for (cell, &tile) in board.tiles().iter().enumerate() {
            cell_of[tile as usize] = cell as u8;
        }
        let placement = self
            .pattern()
            .tiles()
            .iter()
            .map(|&t| cell_of[t as usize])
            .collect();
        (placement, cell_of[0])
    }

    /// Checks that this is the table for `pattern`. A zero-aware table of
    /// either numbering (scheme 2 or 3) will do: they hold the same values.
    pub fn expect_pattern(&self, pattern: &Pattern) -> Result<(), PdbError> {
        let found = self.pattern();
        if found.has_values_of(pattern) {
            return Ok(());
        }
        Err(PdbError::Mismatch {
            what: format!(
                "it holds pattern {found} of {n}x{n} for goal {}, wanted {pattern} for goal {}",
                found.goal(),
                pattern.goal(),
                n = found.size()
            ),
        })
    }

    /// Whether the entry at `index` marks a state never reached.
    pub fn is_unreached(&self, index: u64) -> bool {
        match self.header.encoding {
            Encoding::Byte => self.entry(index) == UNREACHED,
            Encoding::NibbleExcess => self.entry(index) == NIBBLE_UNREACHED,
        }
    }

    /// How many placements have each value (0..=254); index 255 counts the
    /// placements never reached. Reads the whole table (in parallel with the
    /// `parallel` feature); ranks that differ only in the last tile's digit
    /// share one unrank.
    pub fn histogram(&self) -> Vec<u64> {
        let pattern = self.pattern();
        let k = pattern.tiles().len();
        if let Some(regions) = &self.regions {
            // Set by set; a placement's regions share its Manhattan distance.
            let distances = pattern.distances();
            return count_values(regions.sets() as u64, k, |set, counts, _| {
                let entries = regions.set_entries(set as usize);
                let per_placement = regions.regions_of(set as usize) as u64;
                regions.for_each_scored_placement(
                    set as usize,
                    &distances,
                    |order, _, manhattan| {
                        let first = entries.start + order * per_placement;
                        for index in first..first + per_placement {
                            counts[self.value_or_unreached(index, manhattan)] += 1;
                        }
                    },
                );
            });
        }
        if pattern.is_zero_aware() {
            // A placement's entries (one per blank cell) share its Manhattan
            // distance.
            let free = pattern.free_cells() as u64;
            return count_values(pattern.placements(), k, |rank, counts, placement| {
                pattern.unrank(rank, placement);
                let manhattan = pattern.manhattan(placement);
                for index in rank * free..(rank + 1) * free {
                    counts[self.value_or_unreached(index, manhattan)] += 1;
                }
            });
        }
        let group = (pattern.cells() - (k - 1)) as u64;
        count_values(self.header.entries / group, k, |g, counts, placement| {
            self.count_group(g * group, group, counts, placement)
        })
    }

    /// The histogram slot of entry `index`: its value (at most 254), or 255
    /// if never reached.
    fn value_or_unreached(&self, index: u64, manhattan: u32) -> usize {
        if self.is_unreached(index) {
            255
        } else {
            self.value_with_manhattan(index, manhattan).min(254) as usize
        }
    }

    /// Counts the values of the `group` ranks from `first`, which share all
    /// digits but the last tile's.
    fn count_group(&self, first: u64, group: u64, counts: &mut [u64], placement: &mut [u8]) {
        let pattern = self.pattern();
        let k = pattern.tiles().len();
        let n = pattern.size();
        let home = pattern.goal().cell_of(n, pattern.tiles()[k - 1] as u16);
        pattern.unrank(first, placement);
        let prefix = pattern.manhattan(&placement[..k - 1]);
        let mut free = !placement[..k - 1].iter().fold(0u64, |m, &c| m | 1 << c);
        for rank in first..first + group {
            let cell = free.trailing_zeros() as usize;
            free &= free - 1;
            let entry = self.entry(rank) as usize;
            let value = match self.header.encoding {
                Encoding::Byte => entry,
                Encoding::NibbleExcess if entry == NIBBLE_UNREACHED as usize => 255,
                Encoding::NibbleExcess => {
                    let last = (cell / n).abs_diff(home / n) + (cell % n).abs_diff(home % n);
                    (prefix as usize + last + 2 * entry).min(254)
                }
            };
            counts[value] += 1;
        }
    }
}

/// Runs `count(i, counts, placement)` for i in 0..n (in parallel with the
/// `parallel` feature), each worker with its own counts and a placement
/// buffer of `k` cells, and adds the counts up.
fn count_values(n: u64, k: usize, count: impl Fn(u64, &mut [u64], &mut [u8]) + Sync) -> Vec<u64> {
    let start = || (vec![0u64; 256], vec![0u8; k]);
    let step = |(mut counts, mut placement): (Vec<u64>, Vec<u8>), i: u64| {
        count(i, &mut counts, &mut placement);
        (counts, placement)
    };
    #[cfg(feature = "parallel")]
    {
        (0..n)
            .into_par_iter()
            .fold(start, step)
            .map(|(counts, _)| counts)
            .reduce(|| vec![0u64; 256], add_counts)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..n).fold(start(), step).0
    }
}

#[cfg(feature = "parallel")]
fn add_counts(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    a
}

impl<D> Pdb<D> {
    /// The same table over other bytes (the caller keeps them equal).
    pub fn map_bytes<E>(self, wrap: impl FnOnce(D) -> E) -> Pdb<E> {
        Pdb {
            bytes: wrap(self.bytes),
            header: self.header,
            regions: self.regions,
        }
    }

    /// The goal the table is built for.
    pub fn goal(&self) -> Goal {
        self.header.pattern.goal()
    }
}
