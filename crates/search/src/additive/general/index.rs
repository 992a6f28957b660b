//! From a placement to an entry: ranks, the index schemes (plain, by free
//! cell, by blank region) and reading values.

use super::*;
use crate::additive::geometry::placement;

impl<D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Additive<'_, D, P, G> {
    /// Pattern `p`'s view of the board or of its mirror, from scratch.
    pub(super) fn evaluate(&self, p: usize, mirror: bool, position: &Position) -> PatternState {
        let table = &self.tables[p];
        let sources = if mirror {
            &table.mirror_sources
        } else {
            &table.tiles
        };
        let transpose = mirror.then_some(&self.transpose[..]);
        let (placement, manhattan) =
            placement(&self.grid, position, &table.tiles, sources, transpose);
        let rank = table
            .pdb
            .pattern()
            .ranker()
            .rank(&placement[..table.tiles.len()]);
        self.with_value(p, mirror, rank as u32, manhattan as u8, position)
    }

    /// The pattern's state from its rank and Manhattan distance (and, for a
    /// zero-aware table, the blank's cell in `position`).
    #[inline(always)]
    pub(super) fn with_value(
        &self,
        p: usize,
        mirror: bool,
        rank: u32,
        manhattan: u8,
        position: &Position,
    ) -> PatternState {
        let index = self.entry_index(p, mirror, rank, position);
        self.read_entry(p, rank, manhattan, index)
    }

    /// Where pattern `p`'s entry for `rank` (and, zero-aware, the blank of
    /// `position`) lies in its table.
    #[inline(always)]
    pub(super) fn entry_index(
        &self,
        p: usize,
        mirror: bool,
        rank: u32,
        position: &Position,
    ) -> u64 {
        let table = &self.tables[p];
        if let Some(regions) = table.regions {
            self.region_index(regions, p, mirror, position)
        } else if table.free_cells == 0 {
            rank as u64
        } else {
            rank as u64 * table.free_cells as u64 + self.blank_slot(p, mirror, position) as u64
        }
    }

    /// Pattern `p`'s state from its entry at `index`.
    #[inline(always)]
    pub(super) fn read_entry(
        &self,
        p: usize,
        rank: u32,
        manhattan: u8,
        index: u64,
    ) -> PatternState {
        let table = &self.tables[p];
        let value = if table.nibbles {
            let excess = (table.entries[(index / 2) as usize] >> (4 * (index % 2))) & 0xF;
            manhattan + 2 * excess
        } else {
            table.entries[index as usize]
        };
        PatternState {
            rank,
            manhattan,
            value,
        }
    }

    /// The byte holding entry `index` of table `p`.
    #[inline(always)]
    pub(super) fn entry_byte(&self, p: usize, index: u64) -> usize {
        if self.tables[p].nibbles {
            index as usize / 2
        } else {
            index as usize
        }
    }

    /// The scheme-3 entry of pattern `p` in the board or its mirror, from
    /// the cells of its tiles and the blank (the placement's rank does not
    /// give the set of cells it takes). It gathers the cells itself, as
    /// `placement` does, on purpose: built on `placement`, the 7-8 search
    /// (which never runs this) compiled to other code and took 5-7 % more
    /// time, measured over 8 and 12 alternations.
    #[inline(always)]
    pub(super) fn region_index(
        &self,
        regions: &Regions,
        p: usize,
        mirror: bool,
        position: &Position,
    ) -> u64 {
        let table = &self.tables[p];
        let k = table.tiles.len();
        let mut placement = [0u8; MAX_PATTERN_TILES];
        let blank = if mirror {
            for (cell, &source) in placement.iter_mut().zip(&table.mirror_sources) {
                *cell = self.transpose[position.cells[source as usize] as usize];
            }
            self.transpose[position.blank() as usize]
        } else {
            for (cell, &tile) in placement.iter_mut().zip(&table.tiles) {
                *cell = position.cells[tile as usize];
            }
            position.blank()
        };
        regions.index(&placement[..k], blank)
    }

    /// The cells of pattern `p`'s tiles in the board or its mirror, in tile
    /// order, and the blank's cell there.
    #[inline(always)]
    pub(super) fn placement(
        &self,
        p: usize,
        mirror: bool,
        position: &Position,
    ) -> ([u8; MAX_PATTERN_TILES], u8) {
        let table = &self.tables[p];
        let mut placement = [0u8; MAX_PATTERN_TILES];
        let blank = if mirror {
            for (cell, &source) in placement.iter_mut().zip(&table.mirror_sources) {
                *cell = self.transpose[position.cells[source as usize] as usize];
            }
            self.transpose[position.blank() as usize]
        } else {
            for (cell, &tile) in placement.iter_mut().zip(&table.tiles) {
                *cell = position.cells[tile as usize];
            }
            position.blank()
        };
        (placement, blank)
    }

    /// The blank's place among the cells free of pattern `p`'s tiles, in
    /// the board or its mirror: the blank's cell less the pattern tiles
    /// before it. Counted afresh (a few loads from the position, in cache)
    /// rather than carried, to keep the search state small.
    #[inline(always)]
    pub(super) fn blank_slot(&self, p: usize, mirror: bool, position: &Position) -> u32 {
        let table = &self.tables[p];
        let mut blank = position.blank();
        let mut below = 0;
        if mirror {
            blank = self.transpose[blank as usize];
            for &source in &table.mirror_sources {
                below += (self.transpose[position.cells[source as usize] as usize] < blank) as u32;
            }
        } else {
            for &tile in &table.tiles {
                below += (position.cells[tile as usize] < blank) as u32;
            }
        }
        blank as u32 - below
    }
}
