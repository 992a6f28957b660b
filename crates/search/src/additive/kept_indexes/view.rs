//! Where a table's index is made from, per view: the tiles' tables and
//! digits, and the cell sets' ranks shared by every zero-aware table.

use npuzzle_pdb::regions::Regions;
use npuzzle_pdb::Ranker;

use crate::additive::geometry::{self, cross_change, crossings, digit_weight};
use crate::grid::Grid;

/// The largest side taken: a vertical move crosses `MAX_SIDE - 1` cells,
/// and a cell set fits a `u32` mask.
pub(super) const MAX_SIDE: usize = 5;
/// Cells and tiles are indexed in arrays of this size (a power of two, so
/// masking replaces bounds checks).
pub(super) const CELLS: usize = 32;
/// A cell past the board: no tile stands on it, so it reads as the
/// blank, 0, which crosses nothing.
pub(super) const NO_CELL: u8 = CELLS as u8 - 1;
pub(super) const NO_TABLE: u8 = u8::MAX;
pub(super) const CROSSED: usize = MAX_SIDE - 1;

/// One table's entries and how its index is made.
pub(super) struct Table<'a> {
    pub(super) entries: &'a [u8],
    /// Zero-aware by region (index scheme 3): the numbering; else a plain
    /// placement table.
    pub(super) regions: Option<&'a Regions>,
    pub(super) ranker: &'a Ranker,
    /// The tiles in rank order, and for the mirror's view the tile whose
    /// mirror image each one is.
    pub(super) sources: [Vec<u8>; 2],
    pub(super) tiles: Vec<u8>,
}

pub(super) type Crossing = geometry::Crossing<CROSSED>;

/// The board's view (0) or the mirror's (1) of the tables.
pub(super) struct View<const G: usize> {
    /// The distinct tables holding each tile, then `NO_TABLE`.
    pub(super) tables_of: [[u8; G]; CELLS],
    /// How many tables hold each tile, at most `G`: loops over them are
    /// bounded by `G` too, so that with one partition they fold away.
    pub(super) tables_count: [u8; CELLS],
    /// Byte `g % 8` of word `g / 8` all ones where partition `g` holds the
    /// tile.
    pub(super) holds: [[u64; 2]; CELLS],
    /// `[tile][k][vertical]`: the change of the index key when the tile
    /// moves to a higher cell in its `k`-th table, but for the tiles it
    /// crosses (plain tables: its digit's place value times the cells it
    /// passes; zero-aware: nothing, the order is unchanged).
    pub(super) step: [[[u32; 2]; G]; CELLS],
    /// `cross[tile][k][other]`: the change of a plain table's rank when it
    /// passes `other`, as a two's complement (in fixed-size arrays, which
    /// masked indexes read without bounds checks).
    pub(super) cross: Box<[[[u32; CELLS]; G]; CELLS]>,
    /// The same for a zero-aware table's order number, which fits 16 bits
    /// (half the cache lines).
    pub(super) order_cross: Box<[[[u16; CELLS]; G]; CELLS]>,
    /// `[from][direction]`: the move of the tile on `from` into the blank
    /// beside it, seen in this view.
    pub(super) crossing: [[Crossing; 4]; CELLS],
}

impl<const G: usize> View<G> {
    /// The rows of one view (0: the board, 1: its mirror) of `tables`,
    /// given slot `s` as table `table_of_slot[s]` in partition
    /// `group_of[s]`; `None` when a tile is in more than `G` tables.
    pub(super) fn new(
        grid: &Grid,
        tables: &[Table<'_>],
        table_of_slot: &[usize],
        group_of: &[usize],
        view: usize,
        direction: &[u8; CELLS],
    ) -> Option<View<G>> {
        let n = grid.n;
        let cells = n * n;
        let direction_of = |from: u8, to: u8| direction[from.wrapping_sub(to) as usize % CELLS];
        let mut tables_of = [[NO_TABLE; G]; CELLS];
        let mut table_in = [[NO_TABLE; G]; CELLS];
        // The slot of each tile in each table, in this view.
        let mut slot_in = vec![[u8::MAX; CELLS]; tables.len()];
        for (p, table) in tables.iter().enumerate() {
            for (slot, &x) in table.sources[view].iter().enumerate() {
                slot_in[p][x as usize] = slot as u8;
            }
        }
        for (s, &p) in table_of_slot.iter().enumerate() {
            for &x in &tables[p].sources[view] {
                let x = x as usize;
                table_in[x][group_of[s]] = p as u8;
                let held = &mut tables_of[x];
                if !held.contains(&(p as u8)) {
                    let free = held.iter().position(|&q| q == NO_TABLE)?;
                    held[free] = p as u8;
                }
            }
        }
        let weight = |p: usize, slot: u8| -> u32 {
            digit_weight(tables[p].ranker, tables[p].regions.is_some(), slot as usize)
        };
        let mut step = [[[0u32; 2]; G]; CELLS];
        let mut cross = Box::new([[[0u32; CELLS]; G]; CELLS]);
        let mut order_cross = Box::new([[[0u16; CELLS]; G]; CELLS]);
        for x in 1..cells {
            for (k, &p) in tables_of[x].iter().enumerate() {
                if p == NO_TABLE {
                    break;
                }
                let p = p as usize;
                let sx = slot_in[p][x];
                let wx = weight(p, sx);
                let plain = tables[p].regions.is_none();
                if plain {
                    step[x][k] = [wx, wx.wrapping_mul(n as u32)];
                }
                for y in 1..cells {
                    let sy = slot_in[p][y];
                    if y == x || sy == u8::MAX {
                        continue;
                    }
                    let change = cross_change(sx.into(), wx, sy.into(), weight(p, sy), !plain);
                    if plain {
                        cross[x][k][y] = change;
                    } else {
                        order_cross[x][k][y] = change as u16;
                    }
                }
            }
        }
        let crossing = crossings(grid, view == 1, NO_CELL, |from, to| {
            direction_of(from, to) as usize
        });
        let holds = table_in.map(|row| {
            let mut words = [0u64; 2];
            for (g, _) in row.iter().enumerate().filter(|&(_, &p)| p != NO_TABLE) {
                words[g / 8] |= 0xFF << (8 * (g % 8));
            }
            words
        });
        Some(View {
            tables_count: tables_of.map(|row| row.iter().filter(|&&p| p != NO_TABLE).count() as u8),
            tables_of,
            holds,
            step,
            cross,
            order_cross,
            crossing,
        })
    }
}

/// Colex ranks of cell sets (as `Regions::set_rank` numbers them), from
/// three chunks of the mask: each chunk's terms depend only on its bits and
/// on how many cells lie below it, so three loads replace a loop over the
/// cells (a quarter of the search's instructions with `septet`).
pub(super) struct SetRanks {
    /// Cells 0 to 8.
    pub(super) low: [u32; 512],
    /// Cells 9 to 16 and 17 to 24: `[bits * 9 + below]`, `below` the
    /// number of cells below the chunk (at most 8 in a set of at most 8
    /// cells; the rows are padded so that any count indexes them without a
    /// check).
    pub(super) middle: [u32; CHUNK_TERMS],
    pub(super) high: [u32; CHUNK_TERMS],
}

/// 256 chunks of 9 counts, and room for a count up to 32 past the last.
const CHUNK_TERMS: usize = 256 * 9 + 32;

impl SetRanks {
    /// The ranks, built once per process.
    pub(super) fn shared() -> &'static SetRanks {
        static BUILT: std::sync::OnceLock<Box<SetRanks>> = std::sync::OnceLock::new();
        BUILT.get_or_init(SetRanks::new)
    }

    pub(super) fn new() -> Box<SetRanks> {
        let binomial = |n: u64, k: u64| -> u64 {
            if k > n {
                return 0;
            }
            (0..k).fold(1, |c, j| c * (n - j) / (j + 1))
        };
        // The terms of the cells of `bits` from cell `first` on, the lowest
        // being number `below` of the set.
        let terms = |bits: usize, first: u64, below: u64| -> u32 {
            let mut sum = 0;
            let mut index = below;
            for j in 0..9 {
                if bits >> j & 1 == 1 {
                    sum += binomial(first + j, index + 1);
                    index += 1;
                }
            }
            sum as u32
        };
        let chunk = |first: u64| -> [u32; CHUNK_TERMS] {
            std::array::from_fn(|i| {
                let (bits, below) = (i / 9, i % 9);
                if bits < 256 {
                    terms(bits, first, below as u64)
                } else {
                    0
                }
            })
        };
        Box::new(SetRanks {
            low: std::array::from_fn(|bits| terms(bits, 0, 0)),
            middle: chunk(9),
            high: chunk(17),
        })
    }

    /// The rank of the set `mask` (at most 15 cells below cell 17).
    #[inline(always)]
    pub(super) fn rank(&self, mask: u32) -> usize {
        let low = mask & 0x1FF;
        let below_middle = low.count_ones() as usize;
        let below_high = (mask & 0x1FFFF).count_ones() as usize;
        (self.low[low as usize]
            + self.middle[((mask >> 9) as usize & 0xFF) * 9 + below_middle]
            + self.high[((mask >> 17) as usize & 0xFF) * 9 + below_high]) as usize
    }
}

/// The row of a node's prepared indexes for its child in `direction`, seen
/// in `VIEW`.
#[inline(always)]
pub(super) fn prepared_row<const VIEW: usize>(direction: usize) -> usize {
    (direction & 3) * 2 + VIEW
}
