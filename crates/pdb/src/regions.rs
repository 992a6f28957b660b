//! Index scheme 3: one entry per placement and region of free cells.
//!
//! A zero-aware value depends on the blank's region, not its cell, and the
//! k tiles of a placement leave few regions: 2.4 on average for 7 tiles of
//! the 15-puzzle, against 9 free cells. Keyed by region, the zero-aware
//! 7-tile table has 140 million entries instead of 519 million.
//!
//! The regions depend only on the set of cells the tiles take, so a
//! placement is numbered by that set first (its rank among the k-sets in
//! colex order), then by the order of the tiles on it (a factorial-base
//! number). A record per set gives its first entry and its number of
//! regions; a label per set and cell gives the region of each free cell,
//! numbered by their lowest cells. A lookup costs a few bit operations and
//! two loads from tables of a few hundred kilobytes (4x4) or megabytes (5x5).

use std::sync::{Arc, Mutex};

/// The most bytes the per-set records and labels may take: beyond this (8x8
/// boards with five or more tiles) they would outweigh the table.
const MAX_INDEX_BYTES: u64 = 1 << 28;

/// Cell masks of an n x n board, for filling regions.
#[derive(Debug)]
pub(crate) struct Geometry {
    pub(crate) n: usize,
    pub(crate) all: u64,
    not_first_column: u64,
    not_last_column: u64,
    /// The neighbours of each cell (for the generator's moves).
    #[cfg_attr(not(feature = "generate"), allow(dead_code))]
    pub(crate) adjacent: Vec<u64>,
}

impl Geometry {
    pub(crate) fn new(n: usize) -> Geometry {
        let cells = n * n;
        let all = if cells == 64 {
            u64::MAX
        } else {
            (1u64 << cells) - 1
        };
        let column = |col: usize| (0..n).fold(0u64, |m, row| m | 1 << (row * n + col));
        let adjacent = (0..cells)
            .map(|c| {
                let (row, col) = (c / n, c % n);
                let mut m = 0u64;
                if row > 0 {
                    m |= 1 << (c - n);
                }
                if row + 1 < n {
                    m |= 1 << (c + n);
                }
                if col > 0 {
                    m |= 1 << (c - 1);
                }
                if col + 1 < n {
                    m |= 1 << (c + 1);
                }
                m
            })
            .collect();
        Geometry {
            n,
            all,
            not_first_column: all & !column(0),
            not_last_column: all & !column(n - 1),
            adjacent,
        }
    }

    /// The cells of `free` connected to `seed`.
    #[inline(always)]
    pub(crate) fn region(&self, free: u64, seed: u32) -> u64 {
        let mut region = 1u64 << seed;
        loop {
            let grown = (region
                | ((region << 1) & self.not_first_column)
                | ((region >> 1) & self.not_last_column)
                | (region << self.n)
                | (region >> self.n))
                & free;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }
}

/// One set of cells the pattern tiles can take: what a lookup needs, in one
/// 32-byte record (two to a cache line). Opaque: a caller holds one only to
/// ask for its cache line early (see `Regions::set_record`).
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub struct CellSet {
    /// The entry of its first placement's first region.
    first: u64,
    /// Regions of the cells it leaves free.
    regions: u64,
    /// On boards of at most 32 cells, the region of each free cell, four
    /// bits per cell (0 for taken cells); `labels` holds them otherwise.
    packed_labels: [u64; 2],
}

/// Boards up to this many cells keep the labels in the set records.
const PACKED_CELLS: usize = 32;

/// The scheme-3 numbering of (placement, region) pairs for k tiles on an
/// n x n board.
#[derive(Debug)]
pub struct Regions {
    cells: usize,
    k: usize,
    /// `binomial[c][i]` = C(c, i) (fixed sizes: indexing needs no bounds
    /// check).
    binomial: Box<[[u64; 32]; 64]>,
    /// i! for the factorial-base order number.
    factorials: [u64; 32],
    sets: Vec<CellSet>,
    /// The cells of each set.
    masks: Vec<u64>,
    /// On boards of more than 32 cells, `labels[set * cells + cell]`: the
    /// region of a free cell (0 for the region with the lowest cell, and so
    /// on); 0 for taken cells.
    labels: Vec<u8>,
    entries: u64,
}

/// The tiles put one by one on the places of a set, for
/// `for_each_scored_placement`.
struct PlacementWalk<'a> {
    k: usize,
    factorials: &'a [u64; 32],
    sorted: &'a [u8],
    scores: &'a [[u8; 64]],
}

impl PlacementWalk<'_> {
    /// Puts tiles `i..k` on the places not in `taken`.
    fn place<F: FnMut(u64, &[u8], u32)>(
        &self,
        i: usize,
        taken: u64,
        order: u64,
        score: u32,
        placement: &mut [u8],
        f: &mut F,
    ) {
        if i == self.k {
            f(order, placement, score);
            return;
        }
        let mut places = !taken & ((1u64 << self.k) - 1);
        while places != 0 {
            let place = places.trailing_zeros();
            places &= places - 1;
            // Tile i's digit: the earlier tiles on lower places.
            let digit = (taken & ((1u64 << place) - 1)).count_ones() as u64;
            let cell = self.sorted[place as usize];
            placement[i] = cell;
            self.place(
                i + 1,
                taken | 1 << place,
                order + digit * self.factorials[i],
                score + self.scores[i][cell as usize] as u32,
                placement,
                f,
            );
        }
    }
}

/// The first entry of the placement of order number `order` on a set.
#[inline(always)]
fn record_index(record: &CellSet, order: u64) -> u64 {
    record.first + order * record.regions
}

/// The region of free cell `cell` in a record of a board of at most 32
/// cells.
#[inline(always)]
fn packed_label(record: &CellSet, cell: u8) -> u64 {
    (record.packed_labels[(cell as usize >> 4) & 1] >> (4 * (cell & 15))) & 0xF
}

/// C(n, i) (0 for i > n), or None past u64.
fn binomial(n: u64, i: u64) -> Option<u64> {
    if i > n {
        return Some(0);
    }
    (0..i).try_fold(1u64, |c, j| c.checked_mul(n - j).map(|c| c / (j + 1)))
}

/// The bytes the index of k tiles on `cells` cells would take, if it fits
/// in u64.
fn index_bytes(cells: usize, k: usize) -> Option<u64> {
    let sets = binomial(cells as u64, k as u64)?;
    sets.checked_mul(cells as u64 + std::mem::size_of::<CellSet>() as u64)
}

/// Whether the index of k tiles on an n x n board is small enough to build.
pub(crate) fn fits(n: usize, k: usize) -> bool {
    k <= 20 && index_bytes(n * n, k).is_some_and(|b| b <= MAX_INDEX_BYTES)
}

impl Regions {
    /// The numbering for k tiles on an n x n board, built once per process
    /// and shared (the tiles' identities and the goal do not matter).
    /// Callers check `fits` first.
    pub fn of(n: usize, k: usize) -> Arc<Regions> {
        static BUILT: Mutex<Vec<(usize, usize, Arc<Regions>)>> = Mutex::new(Vec::new());
        let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, r)) = built.iter().find(|(bn, bk, _)| (*bn, *bk) == (n, k)) {
            return r.clone();
        }
        assert!(
            fits(n, k),
            "the region index of {k} tiles on {n}x{n} is too large"
        );
        let regions = Arc::new(Regions::new(n, k));
        built.push((n, k, regions.clone()));
        regions
    }

    /// The numbering the generator searches in, for any pattern it may
    /// build: shared when small enough for a table's index, else made for
    /// this build alone (its memory is in `generate::memory_needed`).
    #[cfg(feature = "generate")]
    pub(crate) fn for_build(n: usize, k: usize) -> Arc<Regions> {
        if fits(n, k) {
            Regions::of(n, k)
        } else {
            Arc::new(Regions::new(n, k))
        }
    }

    /// The bytes of the numbering of k tiles on an n x n board, beside the
    /// table.
    #[cfg(feature = "generate")]
    pub(crate) fn bytes(n: usize, k: usize) -> u64 {
        let cells = (n * n) as u64;
        let sets = binomial(cells, k as u64).unwrap_or(u64::MAX);
        let labels = if cells as usize > PACKED_CELLS {
            cells
        } else {
            0
        };
        sets.saturating_mul(std::mem::size_of::<CellSet>() as u64 + 8 + labels)
    }

    fn new(n: usize, k: usize) -> Regions {
        let cells = n * n;
        let geometry = Geometry::new(n);
        let mut binomial_table = Box::new([[0u64; 32]; 64]);
        for (c, row) in binomial_table.iter_mut().enumerate() {
            for (i, entry) in row.iter_mut().enumerate().take(k + 1) {
                *entry = binomial(c as u64, i as u64).unwrap_or(0);
            }
        }
        let mut factorials = [0u64; 32];
        let mut f = 1u64;
        for (i, entry) in factorials.iter_mut().enumerate().take(k + 1) {
            *entry = f;
            f = f.saturating_mul(i as u64 + 1);
        }
        let orders = factorials[k];
        let count = binomial(cells as u64, k as u64).unwrap_or(0) as usize;
        let mut sets = Vec::with_capacity(count);
        let mut masks = Vec::with_capacity(count);
        let packed = cells <= PACKED_CELLS;
        let mut labels = vec![0u8; if packed { 0 } else { count * cells }];
        let mut first = 0u64;
        // The k-sets in increasing order of their masks (Gosper's hack),
        // which is colex order.
        let mut mask = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        for set in 0..count {
            let free = geometry.all & !mask;
            let mut left = free;
            let mut regions = 0u64;
            let mut packed_labels = [0u64; 2];
            while left != 0 {
                let region = geometry.region(free, left.trailing_zeros());
                left &= !region;
                let mut cells_of = region;
                while cells_of != 0 {
                    let cell = cells_of.trailing_zeros() as usize;
                    if packed {
                        packed_labels[cell / 16] |= regions << (4 * (cell % 16));
                    } else {
                        labels[set * cells + cell] = regions as u8;
                    }
                    cells_of &= cells_of - 1;
                }
                regions += 1;
            }
            // Tables small enough to build leave at most 13 regions on 32
            // cells, so a label fits in four bits.
            assert!(
                !packed || regions <= 16,
                "{regions} regions do not fit four bits"
            );
            sets.push(CellSet {
                first,
                regions,
                packed_labels,
            });
            masks.push(mask);
            first += orders * regions;
            if set + 1 < count {
                let low = mask & mask.wrapping_neg();
                let ripple = mask + low;
                mask = ripple | (((mask ^ ripple) >> 2) / low);
            }
        }
        Regions {
            cells,
            k,
            binomial: binomial_table,
            factorials,
            sets,
            masks,
            labels,
            entries: first,
        }
    }

    /// Entries of a table with this numbering.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The number of cell sets.
    pub fn sets(&self) -> usize {
        self.sets.len()
    }

    /// The rank of a set of k cells among all k-sets, in colex order.
    #[inline(always)]
    pub fn set_rank(&self, mut mask: u64) -> usize {
        let mut rank = 0u64;
        let mut i = 1;
        while mask != 0 {
            rank += self.binomial[mask.trailing_zeros() as usize & 63][i & 31];
            i += 1;
            mask &= mask - 1;
        }
        rank as usize
    }

    /// The entry of a placement (cells of the pattern tiles in tile order)
    /// with the blank on the free cell `blank`.
    #[inline(always)]
    pub fn index(&self, placement: &[u8], blank: u8) -> u64 {
        let (set, order, label) = self.locate(placement, blank);
        record_index(&self.sets[set], order) + label
    }

    /// `index` in two halves, for a caller that looks up several tables
    /// at once: the set and order number of a placement, computed from the
    /// placement alone, then (`index_in_set`) the entry, which reads the
    /// set's record. Between the two, the caller can ask for every
    /// record's cache line (`set_record`), so that their misses overlap.
    #[inline(always)]
    pub fn set_and_order(&self, placement: &[u8]) -> (usize, u64) {
        let mut used = 0u64;
        let mut order = 0u64;
        for (i, &c) in placement.iter().enumerate() {
            // Tile i's place among the first i + 1 tiles, as a factorial digit.
            order += (used & ((1u64 << c) - 1)).count_ones() as u64 * self.factorials[i & 31];
            used |= 1u64 << c;
        }
        (self.set_rank(used), order)
    }

    /// The record `index_in_set` reads for set `set`.
    #[inline(always)]
    pub fn set_record(&self, set: usize) -> &CellSet {
        &self.sets[set]
    }

    /// The entry of the placement of set `set` and order number `order`
    /// (from `set_and_order`) with the blank on the free cell `blank`.
    #[inline(always)]
    pub fn index_in_set(&self, set: usize, order: u64, blank: u8) -> u64 {
        record_index(&self.sets[set], order) + self.label(set, blank)
    }

    /// The set, order number and region of a placement with the blank on
    /// `blank`.
    #[inline(always)]
    pub(crate) fn locate(&self, placement: &[u8], blank: u8) -> (usize, u64, u64) {
        let (set, order) = self.set_and_order(placement);
        (set, order, self.label(set, blank))
    }

    /// The region of free cell `cell` among those set `set` leaves.
    #[inline(always)]
    pub(crate) fn label(&self, set: usize, cell: u8) -> u64 {
        if self.cells <= PACKED_CELLS {
            packed_label(&self.sets[set], cell)
        } else {
            self.labels[set * self.cells + cell as usize] as u64
        }
    }

    /// `index_in_set` for boards of at most 32 cells, which keep the labels
    /// in the record: one record read, no branch (the search's hot path).
    #[inline(always)]
    pub fn index_in_packed_set(&self, set: usize, order: u64, blank: u8) -> u64 {
        debug_assert!(self.cells <= PACKED_CELLS);
        let record = &self.sets[set];
        record_index(record, order) + packed_label(record, blank)
    }

    /// The entries of set `set`: its placements' regions, placement by
    /// placement.
    pub fn set_entries(&self, set: usize) -> std::ops::Range<u64> {
        let record = &self.sets[set];
        record.first..record.first + self.factorials[self.k] * record.regions
    }

    /// The cells of set `set`.
    #[cfg(feature = "generate")]
    pub(crate) fn mask(&self, set: usize) -> u64 {
        self.masks[set]
    }

    /// k!: the orders of the tiles on a set.
    #[cfg(feature = "generate")]
    pub(crate) fn orders(&self) -> u64 {
        self.factorials[self.k]
    }

    /// i!, for i up to k.
    #[cfg(feature = "generate")]
    pub(crate) fn factorial(&self, i: usize) -> u64 {
        self.factorials[i]
    }

    /// C(c, i), for i up to k.
    #[cfg(feature = "generate")]
    pub(crate) fn binomial(&self, c: usize, i: usize) -> u64 {
        self.binomial[c & 63][i & 31]
    }

    /// The number of regions the tiles of set `set` leave.
    pub fn regions_of(&self, set: usize) -> usize {
        self.sets[set].regions as usize
    }

    /// The lowest cell of each region of set `set`, in region order.
    pub fn lowest_cells(&self, set: usize) -> Vec<u8> {
        let free = !self.masks[set] & ((1u128 << self.cells) - 1) as u64;
        let mut lowest = Vec::with_capacity(self.regions_of(set));
        let mut cells = free;
        while cells != 0 {
            let c = cells.trailing_zeros() as u8;
            cells &= cells - 1;
            if self.label(set, c) as usize == lowest.len() {
                lowest.push(c);
            }
        }
        lowest
    }

    /// The placements of set `set`: calls `f(order, placement)` once for
    /// each of the k! orders of the tiles on its cells (not in order: tile
    /// by tile, so that each placement costs a few operations).
    pub fn for_each_placement(&self, set: usize, mut f: impl FnMut(u64, &[u8])) {
        let scores = vec![[0u8; 64]; self.k];
        self.for_each_scored_placement(set, &scores, |order, placement, _| f(order, placement));
    }

    /// `for_each_placement`, with each placement's score: the sum over the
    /// tiles of `scores[tile][cell]` (such as the Manhattan distance, from
    /// `Pattern::distances`), summed as the tiles are placed.
    pub fn for_each_scored_placement(
        &self,
        set: usize,
        scores: &[[u8; 64]],
        mut f: impl FnMut(u64, &[u8], u32),
    ) {
        let mut sorted = [0u8; 64];
        let mut mask = self.masks[set];
        for cell in &mut sorted[..self.k] {
            *cell = mask.trailing_zeros() as u8;
            mask &= mask - 1;
        }
        let mut placement = vec![0u8; self.k];
        let walk = PlacementWalk {
            k: self.k,
            factorials: &self.factorials,
            sorted: &sorted[..self.k],
            scores: &scores[..self.k],
        };
        walk.place(0, 0, 0, 0, &mut placement, &mut f);
    }

    /// Fills `entries` (one item per entry) set by set, in parallel:
    /// `fill(set, its first entry, its entries)`.
    #[cfg(feature = "generate")]
    pub(crate) fn fill_by_set<T: Send>(
        &self,
        entries: &mut [T],
        fill: impl Fn(usize, usize, &mut [T]) + Sync,
    ) {
        use rayon::prelude::*;
        self.split_by_set(entries)
            .into_par_iter()
            .enumerate()
            .for_each(|(set, out)| fill(set, self.set_entries(set).start as usize, out));
    }

    /// Cuts `entries` (one item per entry) into the slices of each set, so
    /// that the sets can be filled in parallel.
    pub fn split_by_set<'a, T>(&self, mut entries: &'a mut [T]) -> Vec<&'a mut [T]> {
        let mut slices = Vec::with_capacity(self.sets.len());
        for set in 0..self.sets.len() {
            let len = (self.set_entries(set).end - self.set_entries(set).start) as usize;
            let (head, tail) = entries.split_at_mut(len);
            slices.push(head);
            entries = tail;
        }
        slices
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (placement, region) pair gets its own entry, densely.
    #[test]
    fn entries_are_dense_and_distinct() {
        for (n, k) in [(2, 1), (3, 2), (3, 4), (4, 3)] {
            let regions = Regions::of(n, k);
            let geometry = Geometry::new(n);
            let mut seen = vec![false; regions.entries() as usize];
            let cells = (n * n) as u8;
            let mut placement = vec![0u8; k];
            let ranker = crate::pattern::Ranker::new(n * n, k);
            let placements: u64 = (0..k as u64).map(|i| cells as u64 - i).product();
            for rank in 0..placements {
                ranker.unrank(rank, &mut placement);
                let taken = placement.iter().fold(0u64, |m, &c| m | 1 << c);
                let free = geometry.all & !taken;
                let mut left = free;
                let mut indexes = Vec::new();
                while left != 0 {
                    let region = geometry.region(free, left.trailing_zeros());
                    left &= !region;
                    // Every cell of a region gives the same entry.
                    let mut cells_of = region;
                    let index = regions.index(&placement, region.trailing_zeros() as u8);
                    while cells_of != 0 {
                        let c = cells_of.trailing_zeros() as u8;
                        assert_eq!(regions.index(&placement, c), index);
                        cells_of &= cells_of - 1;
                    }
                    indexes.push(index);
                }
                for index in indexes {
                    assert!(!std::mem::replace(&mut seen[index as usize], true));
                }
            }
            assert!(
                seen.iter().all(|&s| s),
                "{n}x{n}, {k} tiles: entries left over"
            );
        }
    }

    /// `for_each_placement` gives each order of a set once, with the
    /// placement that has it.
    #[test]
    fn placements_come_with_their_orders() {
        let regions = Regions::of(3, 3);
        for set in 0..regions.sets() {
            let lowest = regions.lowest_cells(set);
            assert_eq!(lowest.len(), regions.regions_of(set));
            let entries = regions.set_entries(set);
            let mut seen = vec![false; (entries.end - entries.start) as usize];
            regions.for_each_placement(set, |order, placement| {
                for (label, &cell) in lowest.iter().enumerate() {
                    let index = regions.index(placement, cell);
                    assert_eq!(
                        index,
                        entries.start + order * lowest.len() as u64 + label as u64
                    );
                    assert!(!std::mem::replace(
                        &mut seen[(index - entries.start) as usize],
                        true
                    ));
                }
            });
            assert!(seen.iter().all(|&s| s));
        }
    }

    /// The 15-puzzle figures quoted in the docs.
    #[test]
    fn fifteen_puzzle_sizes() {
        assert_eq!(Regions::of(4, 7).entries(), 139_849_920);
        assert!(fits(5, 8) && !fits(8, 5));
    }
}
