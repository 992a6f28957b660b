//! The additive pattern-database heuristic (Korf and Felner 2002): the sum
//! of the tables of disjoint patterns, maxed with the same sum over the board
//! reflected about the main diagonal (a second admissible estimate from the
//! same tables), updated move by move: a move changes one tile, so only its
//! pattern, and its mirror image's pattern, are looked up again.

use npuzzle_pdb::{Encoding, Pdb};

use crate::grid::{Grid, Position};
use crate::heuristic::Heuristic;

/// The most patterns a partition may have here.
pub const MAX_PATTERNS: usize = 8;
/// The most tiles a pattern may have here (a table of more would not fit
/// in memory anyway).
pub const MAX_PATTERN_TILES: usize = 16;
const NO_PATTERN: u8 = u8::MAX;

/// One table with what the heuristic needs to look its patterns up fast.
struct Table<'a, D> {
    pdb: &'a Pdb<D>,
    nibbles: bool,
    /// Pattern tiles, in rank order.
    tiles: Vec<u8>,
    /// For the reflected lookup: the original tile whose mirror image is each
    /// pattern tile.
    mirror_sources: Vec<u8>,
}

/// The state search carries: each pattern's value, for the board and for its
/// reflection, and the two sums.
#[derive(Clone, Copy)]
pub struct AdditiveState {
    value: [u8; MAX_PATTERNS],
    mirror_value: [u8; MAX_PATTERNS],
    sum: u16,
    mirror_sum: u16,
}

/// Additive PDBs over a grid, with or without the reflected lookup.
pub struct Additive<'a, D> {
    grid: Grid,
    tables: Vec<Table<'a, D>>,
    /// The pattern (index) of each tile, and of each tile's mirror image.
    pattern_of: [u8; 256],
    mirror_pattern_of: [u8; 256],
    /// The mirror cell of each cell.
    transpose: [u8; 256],
    reflect: bool,
}

impl<'a, D: AsRef<[u8]> + Sync> Additive<'a, D> {
    /// Tables must be disjoint patterns of `grid`'s size and goal; at most
    /// `MAX_PATTERNS` of them.
    pub fn new(grid: &Grid, pdbs: &'a [Pdb<D>], reflect: bool) -> Additive<'a, D> {
        assert!(
            pdbs.len() <= MAX_PATTERNS,
            "at most {MAX_PATTERNS} patterns"
        );
        let n = grid.n;
        let goal = grid.goal;
        let mut transpose = [0u8; 256];
        for (cell, t) in transpose.iter_mut().enumerate().take(n * n) {
            *t = ((cell % n) * n + cell / n) as u8;
        }
        // The mirror image of tile t: the tile whose goal cell is the mirror
        // of t's goal cell.
        let mirror_tile =
            |t: u8| goal.tile_at(n, transpose[goal.cell_of(n, t as u16)] as usize) as u8;
        let mut pattern_of = [NO_PATTERN; 256];
        let mut mirror_pattern_of = [NO_PATTERN; 256];
        let mut tables = Vec::new();
        for (p, pdb) in pdbs.iter().enumerate() {
            let pattern = pdb.pattern();
            assert_eq!(
                (pattern.size(), pattern.goal()),
                (n, goal),
                "table for another puzzle"
            );
            let tiles = pattern.tiles().to_vec();
            assert!(
                tiles.len() <= MAX_PATTERN_TILES,
                "at most {MAX_PATTERN_TILES} tiles a pattern"
            );
            for &t in &tiles {
                pattern_of[t as usize] = p as u8;
            }
            // Mirror images pair up (the map is its own inverse).
            let mirror_sources: Vec<u8> = tiles.iter().map(|&q| mirror_tile(q)).collect();
            for &source in &mirror_sources {
                mirror_pattern_of[source as usize] = p as u8;
            }
            tables.push(Table {
                pdb,
                nibbles: pdb.encoding() == Encoding::NibbleExcess,
                tiles,
                mirror_sources,
            });
        }
        Additive {
            grid: grid.clone(),
            tables,
            pattern_of,
            mirror_pattern_of,
            transpose,
            reflect,
        }
    }

    /// The rank of pattern `p`'s placement (on the board or its mirror) and
    /// the pattern tiles' Manhattan distance.
    #[inline(always)]
    fn rank(&self, p: usize, mirror: bool, position: &Position) -> (u64, u32) {
        let table = &self.tables[p];
        let mut placement = [0u8; MAX_PATTERN_TILES];
        let mut manhattan = 0;
        let sources = if mirror {
            &table.mirror_sources
        } else {
            &table.tiles
        };
        for (i, (&source, &tile)) in sources.iter().zip(&table.tiles).enumerate() {
            let mut cell = position.cells[source as usize];
            if mirror {
                cell = self.transpose[cell as usize];
            }
            placement[i] = cell;
            manhattan += self.grid.distance(tile, cell);
        }
        let rank = table
            .pdb
            .pattern()
            .ranker()
            .rank(&placement[..table.tiles.len()]);
        (rank, manhattan)
    }

    /// Pattern `p`'s value for the board or its mirror.
    #[inline(always)]
    fn lookup(&self, p: usize, mirror: bool, position: &Position) -> u8 {
        let (rank, manhattan) = self.rank(p, mirror, position);
        let table = &self.tables[p];
        let entry = table.pdb.entry(rank);
        let value = if table.nibbles {
            manhattan + 2 * entry as u32
        } else {
            entry as u32
        };
        value as u8
    }
}

impl<D: AsRef<[u8]> + Sync> Heuristic for Additive<'_, D> {
    type State = AdditiveState;

    fn name(&self) -> &'static str {
        "pdb"
    }

    fn init(&self, position: &Position) -> AdditiveState {
        let mut state = AdditiveState {
            value: [0; MAX_PATTERNS],
            mirror_value: [0; MAX_PATTERNS],
            sum: 0,
            mirror_sum: 0,
        };
        for p in 0..self.tables.len() {
            state.value[p] = self.lookup(p, false, position);
            state.sum += state.value[p] as u16;
            if self.reflect {
                state.mirror_value[p] = self.lookup(p, true, position);
                state.mirror_sum += state.mirror_value[p] as u16;
            }
        }
        state
    }

    #[inline(always)]
    fn value(&self, state: &AdditiveState) -> u32 {
        state.sum.max(state.mirror_sum) as u32
    }

    #[inline(always)]
    fn update(
        &self,
        state: &AdditiveState,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> AdditiveState {
        self.update_within(state, position, tile, from, to, u32::MAX)
    }

    /// The board's own sum first; the reflected lookup, a second cache miss,
    /// only when the first sum does not already exceed `limit`.
    #[inline(always)]
    fn update_within(
        &self,
        state: &AdditiveState,
        position: &Position,
        tile: u8,
        _from: u8,
        _to: u8,
        limit: u32,
    ) -> AdditiveState {
        let mut next = *state;
        let p = self.pattern_of[tile as usize];
        if p != NO_PATTERN {
            let p = p as usize;
            let value = self.lookup(p, false, position);
            next.sum = next.sum - state.value[p] as u16 + value as u16;
            next.value[p] = value;
            if next.sum as u32 > limit {
                return next;
            }
        }
        if self.reflect {
            let q = self.mirror_pattern_of[tile as usize];
            if q != NO_PATTERN {
                let q = q as usize;
                let value = self.lookup(q, true, position);
                next.mirror_sum = next.mirror_sum - state.mirror_value[q] as u16 + value as u16;
                next.mirror_value[q] = value;
            }
        }
        next
    }
}
