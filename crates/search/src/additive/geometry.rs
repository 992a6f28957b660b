//! What every strategy of the additive heuristic shares: the check that a
//! set of tables makes an admissible sum, the board's mirror image (the
//! reflected lookup), a pattern's placement in either view, the change of a
//! rank's digit when a tile passes another, and the moves' geometry in
//! each view. The strategies differ only in how they lay these out for
//! their loops.

use npuzzle_pdb::{Encoding, IndexScheme, Pdb, Ranker};

use super::{AdditiveError, MAX_PATTERN_TILES};
use crate::grid::{Grid, Position};
use crate::heuristic::MoveSet;

/// The tables given, checked: each for this board and goal, small enough
/// for 32-bit ranks, and the patterns of each partition disjoint, so the
/// largest partition sum is admissible. Tables of one pattern (one file
/// opened for two partitions) are one distinct table.
pub(crate) struct CheckedSet {
    /// The first table given of each distinct table.
    pub distinct: Vec<usize>,
    /// The distinct table of each table given.
    pub table_of: Vec<usize>,
    /// The partition of each table given.
    pub group_of: Vec<usize>,
}

impl CheckedSet {
    /// Checks `pdbs`, in partitions of `groups[i]` tables in a row.
    pub fn check<D: AsRef<[u8]> + Sync>(
        grid: &Grid,
        pdbs: &[Pdb<D>],
        groups: &[usize],
    ) -> Result<CheckedSet, AdditiveError> {
        if pdbs.is_empty() {
            return Err(AdditiveError::NoTables);
        }
        let grouped: usize = groups.iter().sum();
        if grouped != pdbs.len() || groups.contains(&0) {
            return Err(AdditiveError::BadGroups {
                tables: pdbs.len(),
                grouped,
            });
        }
        let mut group_of = Vec::with_capacity(pdbs.len());
        for (g, &size) in groups.iter().enumerate() {
            group_of.extend(std::iter::repeat_n(g, size));
        }
        let mut distinct: Vec<usize> = Vec::new();
        let mut table_of = Vec::with_capacity(pdbs.len());
        let mut seen = vec![[false; 256]; groups.len()];
        for (s, pdb) in pdbs.iter().enumerate() {
            let pattern = pdb.pattern();
            if (pattern.size(), pattern.goal()) != (grid.n, grid.goal) {
                return Err(AdditiveError::WrongPuzzle {
                    table: (pattern.size(), pattern.goal()),
                    board: (grid.n, grid.goal),
                });
            }
            if pattern.tiles().len() > MAX_PATTERN_TILES {
                return Err(AdditiveError::TooManyTiles {
                    tiles: pattern.tiles().len(),
                });
            }
            if pdb.header().entries() > 1 << 32 {
                return Err(AdditiveError::TooManyEntries {
                    entries: pdb.header().entries(),
                });
            }
            for &tile in pattern.tiles() {
                if std::mem::replace(&mut seen[group_of[s]][tile as usize], true) {
                    return Err(AdditiveError::Overlap { tile });
                }
            }
            match distinct.iter().position(|&f| pdbs[f].pattern() == pattern) {
                Some(p) => table_of.push(p),
                None => {
                    table_of.push(distinct.len());
                    distinct.push(s);
                }
            }
        }
        Ok(CheckedSet {
            distinct,
            table_of,
            group_of,
        })
    }
}

/// Whether every table has nibble entries and is plain, of at most
/// `most_plain` tiles, or zero-aware by region, of at most
/// `most_zero_aware` tiles (0: none taken): the kinds the fast strategies
/// are written for.
pub(crate) fn nibble_tables<D: AsRef<[u8]> + Sync>(
    pdbs: &[Pdb<D>],
    most_plain: usize,
    most_zero_aware: usize,
) -> bool {
    pdbs.iter().all(|pdb| {
        let pattern = pdb.pattern();
        let most = match pattern.index_scheme() {
            IndexScheme::Placement => most_plain,
            IndexScheme::PlacementAndRegion => most_zero_aware,
            _ => 0,
        };
        pdb.encoding() == Encoding::NibbleExcess && (1..=most).contains(&pattern.tiles().len())
    })
}

/// The board's mirror image about its main diagonal: each table read on
/// the mirror gives a second admissible estimate.
pub(crate) struct Reflection {
    /// The mirror cell of each cell (its own inverse).
    cells: [u8; 256],
    /// The tile whose goal cell is the mirror of each tile's.
    tiles: [u8; 256],
}

impl Reflection {
    pub fn new(grid: &Grid) -> Reflection {
        let (n, goal) = (grid.n, grid.goal);
        let mut cells = [0u8; 256];
        for (cell, mirror) in cells.iter_mut().enumerate().take(n * n) {
            *mirror = ((cell % n) * n + cell / n) as u8;
        }
        let mut tiles = [0u8; 256];
        for (tile, mirror) in tiles.iter_mut().enumerate().take(n * n) {
            *mirror = goal.tile_at(n, cells[goal.cell_of(n, tile as u16)] as usize) as u8;
        }
        Reflection { cells, tiles }
    }

    /// The mirror cells of the first `C` cells.
    pub fn cells<const C: usize>(&self) -> [u8; C] {
        std::array::from_fn(|cell| self.cells[cell])
    }

    /// The mirror image of `tile`.
    pub fn tile(&self, tile: u8) -> u8 {
        self.tiles[tile as usize]
    }

    /// A pattern's tiles in rank order as each view reads them: `[0]` the
    /// tiles, `[1]` the tile whose mirror image each one is (mirror images
    /// pair up, so it is each one's mirror image).
    pub fn sources(&self, tiles: &[u8]) -> [Vec<u8>; 2] {
        [
            tiles.to_vec(),
            tiles.iter().map(|&t| self.tile(t)).collect(),
        ]
    }
}

/// The cells of a pattern's tiles in a view of `position` (the board's, or
/// with `mirror` the transposed one), read from `sources` (see
/// [`Reflection::sources`]), and their grid distance to `tiles`' homes.
pub(crate) fn placement(
    grid: &Grid,
    position: &Position,
    tiles: &[u8],
    sources: &[u8],
    mirror: Option<&[u8]>,
) -> ([u8; MAX_PATTERN_TILES], u32) {
    let mut placement = [0u8; MAX_PATTERN_TILES];
    let mut manhattan = 0;
    for (i, (&source, &tile)) in sources.iter().zip(tiles).enumerate() {
        let mut cell = position.cells[source as usize];
        if let Some(transpose) = mirror {
            cell = transpose[cell as usize];
        }
        placement[i] = cell;
        manhattan += grid.distance(tile, cell);
    }
    (placement, manhattan)
}

/// The place value of digit `slot` of a table's key: of a plain table's
/// rank, or of a zero-aware table's order number (`slot!`).
pub(crate) fn digit_weight(ranker: &Ranker, zero_aware: bool, slot: usize) -> u32 {
    if zero_aware {
        (1..=slot as u32).product()
    } else {
        ranker.weight(slot) as u32
    }
}

/// The change of a key when the tile in `slot` (of place value `weight`)
/// moves to a higher cell past the tile in `other_slot` of the same table
/// (of place value `other_weight`), as a two's complement. A plain digit
/// is the tile's cell less the earlier tiles below it: passing an earlier
/// tile takes one from the mover's digit, passing a later one adds one to
/// the later tile's. An order digit counts the earlier tiles below, the
/// opposite way.
pub(crate) fn cross_change(
    slot: usize,
    weight: u32,
    other_slot: usize,
    other_weight: u32,
    zero_aware: bool,
) -> u32 {
    let change = if other_slot < slot {
        weight.wrapping_neg()
    } else {
        other_weight
    };
    if zero_aware {
        change.wrapping_neg()
    } else {
        change
    }
}

/// A move's geometry in one view: the board cells it crosses (where the
/// tiles are read; `K` of them, padded with a cell no tile stands on),
/// whether it is vertical there and towards a higher cell (`sign` 1, else
/// -1 as a two's complement), the two cells' bits and the cell the blank
/// comes to.
#[derive(Clone, Copy)]
pub(crate) struct Crossing<const K: usize> {
    pub crossed: [u8; K],
    pub vertical: bool,
    pub up: bool,
    pub sign: u32,
    pub flip: u32,
    pub blank_after: u8,
}

/// `[from][direction]`: the move of the tile on `from` into the blank
/// beside it, seen in the board (or, `mirror`, its mirror image), for `C`
/// cells; `direction` numbers the four moves, `no_cell` pads the crossed
/// cells.
pub(crate) fn crossings<const K: usize, const C: usize>(
    grid: &Grid,
    mirror: bool,
    no_cell: u8,
    direction: impl Fn(u8, u8) -> usize,
) -> [[Crossing<K>; 4]; C] {
    let none = Crossing {
        crossed: [no_cell; K],
        vertical: false,
        up: false,
        sign: 0,
        flip: 0,
        blank_after: 0,
    };
    let mut crossing = [[none; 4]; C];
    for seen in grid.moves_seen::<K>(mirror, no_cell) {
        crossing[seen.from as usize][direction(seen.from, seen.to)] = Crossing {
            crossed: seen.crossed,
            vertical: seen.vertical(),
            up: seen.up(),
            sign: if seen.up() { 1 } else { u32::MAX },
            flip: seen.cells(),
            blank_after: seen.tile,
        };
    }
    crossing
}

/// Calls `each(tile, from, direction)` for every move out of `position`
/// among `moves` (the tile on `from` sliding into the blank; `direction`
/// the move's place in `Move::ALL`): the children a strategy prepares.
#[inline(always)]
pub(crate) fn each_move_among(
    grid: &Grid,
    position: &Position,
    moves: MoveSet,
    mut each: impl FnMut(u8, u8, usize),
) {
    for &(from, mv) in grid.neighbors(position.blank()) {
        if moves.contains(mv) {
            each(position.tiles[from as usize], from, mv as usize);
        }
    }
}
