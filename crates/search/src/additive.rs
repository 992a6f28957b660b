//! The additive pattern-database heuristic (Korf and Felner 2002): the sum
//! of the tables of disjoint patterns, maxed with the same sum over the board
//! reflected about the main diagonal (a second admissible estimate from the
//! same tables), updated move by move: a move changes one tile, so only its
//! pattern, and its mirror image's pattern, are looked up again, and the
//! rank of that pattern's placement is adjusted rather than recomputed.
//!
//! Several partitions (a catalogue) give the maximum of their sums: each is
//! admissible, so their maximum is too, and a move still changes one
//! pattern per partition.

use std::fmt;

use npuzzle_board::Goal;
use npuzzle_pdb::regions::Regions;
use npuzzle_pdb::{Encoding, IndexScheme, Pdb};

use crate::grid::{Grid, Position};
use crate::heuristic::Heuristic;

/// The most distinct tables the heuristic takes, over all its partitions
/// (three 7-8 partitions of the 15-puzzle, or two 6-6-6-6 of the
/// 24-puzzle): the search state holds a rank per table, and is copied at
/// every node, so the common heuristic keeps it small; `LARGE_PATTERNS`
/// and `LARGE_GROUPS` are the capacity of the large one (see `Large`).
pub const MAX_PATTERNS: usize = 8;
/// The most partitions whose maximum is taken.
pub const MAX_GROUPS: usize = 4;
/// The distinct tables of the pair heuristic (see `Pair`).
pub const PAIR_PATTERNS: usize = 2;
/// The most distinct tables of the compact heuristic (see `Compact`).
pub const COMPACT_PATTERNS: usize = 4;
/// The most partitions of the compact heuristic.
pub const COMPACT_GROUPS: usize = 2;
/// The most distinct tables of the large heuristic (the 14 of the 24-puzzle
/// catalogue `septet`).
pub const LARGE_PATTERNS: usize = 16;
/// The most partitions of the large heuristic.
pub const LARGE_GROUPS: usize = 8;
/// The most tiles a pattern may have here (a table of more would not fit
/// in memory anyway).
pub const MAX_PATTERN_TILES: usize = 16;
const NO_PATTERN: u8 = u8::MAX;

/// One table with what the heuristic needs to look its patterns up fast.
struct Table<'a, D> {
    pdb: &'a Pdb<D>,
    /// The table's entries, held here: reaching them through the `Pdb`
    /// costs a chain of dependent loads per lookup.
    entries: &'a [u8],
    nibbles: bool,
    /// Zero-aware by cell (index scheme 2): entries per placement (one per
    /// free cell); else 0.
    free_cells: u32,
    /// Zero-aware by region (index scheme 3): the numbering.
    regions: Option<&'a Regions>,
    /// Pattern tiles, in rank order.
    tiles: Vec<u8>,
    /// For the reflected lookup: the original tile whose mirror image is each
    /// pattern tile.
    mirror_sources: Vec<u8>,
    /// Place value of each slot's digit in the rank, and 0 for `NO_SLOT`.
    weights: [u64; MAX_PATTERN_TILES + 1],
    /// The slot of each tile of the board (`[0]`) and of the mirror
    /// (`[1]`) in this pattern, else `NO_SLOT`: a rank update reads the
    /// tiles between a move's two cells through it without branching.
    slot_of: [[u8; 256]; 2],
}

/// Not in the pattern: above every slot, with weight 0.
const NO_SLOT: u8 = MAX_PATTERN_TILES as u8;

/// One pattern's view of the board (or of its mirror): its placement rank,
/// the Manhattan distance of its tiles and its value.
#[derive(Clone, Copy, Default)]
struct PatternState {
    /// 32 bits keep the state small (search copies it at every node); ranks
    /// of tables that fit in memory fit in them.
    rank: u32,
    manhattan: u8,
    value: u8,
}

/// The state search carries: each pattern's rank and value, for the board
/// and for its reflection, and the two sums of each partition.
#[derive(Clone, Copy)]
pub struct AdditiveState<const P: usize = MAX_PATTERNS, const G: usize = MAX_GROUPS> {
    board: [PatternState; P],
    mirror: [PatternState; P],
    sum: [u16; G],
    mirror_sum: [u16; G],
}

/// Where a tile stands in the partition, for the board or the mirror.
#[derive(Clone, Copy)]
struct Membership {
    pattern: u8,
    slot: u8,
}

const NOWHERE: Membership = Membership {
    pattern: NO_PATTERN,
    slot: 0,
};

/// One tile's move, seen by a pattern: its slot, its cells (of the board or
/// the mirror) and the change of its grid distance to home.
#[derive(Clone, Copy)]
struct Step {
    slot: u8,
    from: u8,
    to: u8,
    distance_change: i32,
}

/// Additive PDBs over a grid, with or without the reflected lookup, for at
/// most `P` distinct tables in at most `G` partitions (a table that several
/// partitions share is looked up once per move).
pub struct Additive<'a, D, const P: usize = MAX_PATTERNS, const G: usize = MAX_GROUPS> {
    grid: Grid,
    /// The distinct tables.
    tables: Vec<Table<'a, D>>,
    /// How many partitions there are.
    groups: usize,
    /// The distinct table behind each table given, partition by partition.
    slots: Vec<(u8, u8)>,
    /// Per partition, the table and slot of each tile, and of each tile's
    /// mirror image.
    member: [[Membership; 256]; G],
    mirror_member: [[Membership; 256]; G],
    /// The mirror cell of each cell.
    transpose: [u8; 256],
    reflect: bool,
    /// The tables whose entries search asks for a level ahead, a bit each
    /// (see `prepare_children`).
    prefetched: u32,
}

/// Why a set of tables cannot make an admissible additive heuristic here.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum AdditiveError {
    /// No table at all.
    NoTables,
    /// More distinct tables than the search state holds (`most`).
    TooManyPatterns { count: usize, most: usize },
    /// More partitions than the search state holds (`most`).
    TooManyPartitions { count: usize, most: usize },
    /// Partition sizes that do not add up to the tables given.
    BadGroups { tables: usize, grouped: usize },
    /// A table for another board size or goal.
    WrongPuzzle {
        table: (usize, Goal),
        board: (usize, Goal),
    },
    /// A pattern of more tiles than the search state holds.
    TooManyTiles { tiles: usize },
    /// A table whose ranks do not fit the search state's 32 bits.
    TooManyEntries { entries: u64 },
    /// Two tables share a tile: their sum would overestimate.
    Overlap { tile: u8 },
}

impl fmt::Display for AdditiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdditiveError::NoTables => f.write_str("no tables were given"),
            AdditiveError::TooManyPatterns { count, most } => write!(
                f,
                "{count} distinct tables given; the pdb heuristic takes at most {most}"
            ),
            AdditiveError::TooManyPartitions { count, most } => write!(
                f,
                "{count} partitions given; the pdb heuristic takes the maximum of at most {most}"
            ),
            AdditiveError::BadGroups { tables, grouped } => {
                write!(f, "{tables} tables given but the partitions hold {grouped}")
            }
            AdditiveError::WrongPuzzle { table, board } => write!(
                f,
                "a table is for {t}x{t} boards with goal {}, the board is {b}x{b} with goal {}",
                table.1,
                board.1,
                t = table.0,
                b = board.0
            ),
            AdditiveError::TooManyTiles { tiles } => write!(
                f,
                "a pattern has {tiles} tiles; the additive heuristic takes at most \
                 {MAX_PATTERN_TILES}"
            ),
            AdditiveError::TooManyEntries { entries } => write!(
                f,
                "a table has {entries} entries; the additive heuristic takes at most 2^32"
            ),
            AdditiveError::Overlap { tile } => write!(
                f,
                "tile {tile} is in two tables of one partition: the sum of overlapping \
                 patterns overestimates, so the solutions would not be optimal"
            ),
        }
    }
}

impl std::error::Error for AdditiveError {}

/// The heuristic for catalogues too large for the common one: up to 16
/// distinct tables in up to 8 partitions, at twice the state per node.
pub type Large<'a, D> = Additive<'a, D, LARGE_PATTERNS, LARGE_GROUPS>;

/// The heuristic for one partition of at most two tables (7-8, 7z-8): the
/// search copies its state at every node, and this one is a quarter of the
/// common one's (36 bytes instead of 144), which takes a fifth off the
/// time of a long 15-puzzle search.
pub type Pair<'a, D> = Additive<'a, D, PAIR_PATTERNS, 1>;

/// The heuristic for the other usual sets (up to 4 distinct tables in up
/// to 2 partitions: 6-6-3, 6-6-6-6, the 15-puzzle's duo), at half the
/// common one's state.
pub type Compact<'a, D> = Additive<'a, D, COMPACT_PATTERNS, COMPACT_GROUPS>;

impl<'a, D: AsRef<[u8]> + Sync> Additive<'a, D> {
    /// Checks that the tables are disjoint patterns of `grid`'s size and
    /// goal, few and small enough for the search state, so that their sum is
    /// admissible and every rank fits.
    pub fn new(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        reflect: bool,
    ) -> Result<Additive<'a, D>, AdditiveError> {
        Additive::with_groups(grid, pdbs, &[pdbs.len()], reflect)
    }

    /// A catalogue: the tables are `groups.len()` partitions in a row, of
    /// `groups[i]` tables each; the heuristic is the largest partition sum.
    /// Within a partition the patterns must be disjoint. At most
    /// `MAX_PATTERNS` distinct tables in `MAX_GROUPS` partitions.
    pub fn with_groups(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        groups: &[usize],
        reflect: bool,
    ) -> Result<Additive<'a, D>, AdditiveError> {
        Additive::build(grid, pdbs, groups, reflect)
    }
}

impl<'a, D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Additive<'a, D, P, G> {
    /// `with_groups` for up to `P` distinct tables in up to `G` partitions
    /// (the aliases `Pair`, `Compact`, `Additive` and `Large` name the
    /// capacities the solver uses).
    pub fn with_capacity(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        groups: &[usize],
        reflect: bool,
    ) -> Result<Additive<'a, D, P, G>, AdditiveError> {
        Additive::build(grid, pdbs, groups, reflect)
    }

    fn build(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        groups: &[usize],
        reflect: bool,
    ) -> Result<Additive<'a, D, P, G>, AdditiveError> {
        if pdbs.is_empty() {
            return Err(AdditiveError::NoTables);
        }
        // Tables of the same pattern (one file opened for two partitions)
        // are one table here: `first_slot` holds the first slot of each
        // distinct table, `table_of` each slot's distinct table.
        let mut first_slot: Vec<usize> = Vec::new();
        let mut table_of: Vec<usize> = Vec::with_capacity(pdbs.len());
        for (s, pdb) in pdbs.iter().enumerate() {
            match first_slot
                .iter()
                .position(|&f| pdbs[f].pattern() == pdb.pattern())
            {
                Some(p) => table_of.push(p),
                None => {
                    table_of.push(first_slot.len());
                    first_slot.push(s);
                }
            }
        }
        if first_slot.len() > P {
            return Err(AdditiveError::TooManyPatterns {
                count: first_slot.len(),
                most: P,
            });
        }
        if groups.len() > G {
            return Err(AdditiveError::TooManyPartitions {
                count: groups.len(),
                most: G,
            });
        }
        let grouped: usize = groups.iter().sum();
        if grouped != pdbs.len() || groups.contains(&0) {
            return Err(AdditiveError::BadGroups {
                tables: pdbs.len(),
                grouped,
            });
        }
        let mut group_of = vec![0u8; pdbs.len()];
        let mut first = 0;
        for (g, &size) in groups.iter().enumerate() {
            group_of[first..first + size].fill(g as u8);
            first += size;
        }
        let n = grid.n;
        let goal = grid.goal;
        let mut seen = [[false; 256]; G];
        for (p, pdb) in pdbs.iter().enumerate() {
            let seen = &mut seen[group_of[p] as usize];
            let pattern = pdb.pattern();
            if (pattern.size(), pattern.goal()) != (n, goal) {
                return Err(AdditiveError::WrongPuzzle {
                    table: (pattern.size(), pattern.goal()),
                    board: (n, goal),
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
                if std::mem::replace(&mut seen[tile as usize], true) {
                    return Err(AdditiveError::Overlap { tile });
                }
            }
        }
        let mut transpose = [0u8; 256];
        for (cell, t) in transpose.iter_mut().enumerate().take(n * n) {
            *t = ((cell % n) * n + cell / n) as u8;
        }
        // The mirror image of tile t: the tile whose goal cell is the mirror
        // of t's goal cell.
        let mirror_tile =
            |t: u8| goal.tile_at(n, transpose[goal.cell_of(n, t as u16)] as usize) as u8;
        let mut member = [[NOWHERE; 256]; G];
        let mut mirror_member = [[NOWHERE; 256]; G];
        for (s, pdb) in pdbs.iter().enumerate() {
            let (g, p) = (group_of[s] as usize, table_of[s] as u8);
            let tiles = pdb.pattern().tiles();
            for (slot, &t) in tiles.iter().enumerate() {
                member[g][t as usize] = Membership {
                    pattern: p,
                    slot: slot as u8,
                };
                // Mirror images pair up (the map is its own inverse).
                mirror_member[g][mirror_tile(t) as usize] = Membership {
                    pattern: p,
                    slot: slot as u8,
                };
            }
        }
        let mut tables = Vec::new();
        for &s in &first_slot {
            let pdb = &pdbs[s];
            let pattern = pdb.pattern();
            let tiles = pattern.tiles().to_vec();
            let mut weights = [0u64; MAX_PATTERN_TILES + 1];
            for (slot, weight) in weights.iter_mut().enumerate().take(tiles.len()) {
                *weight = pattern.ranker().weight(slot);
            }
            let mirror_sources: Vec<u8> = tiles.iter().map(|&q| mirror_tile(q)).collect();
            let mut slot_of = [[NO_SLOT; 256]; 2];
            for (slot, (&tile, &source)) in tiles.iter().zip(&mirror_sources).enumerate() {
                slot_of[0][tile as usize] = slot as u8;
                slot_of[1][source as usize] = slot as u8;
            }
            tables.push(Table {
                pdb,
                entries: pdb.table(),
                nibbles: pdb.encoding() == Encoding::NibbleExcess,
                free_cells: if pattern.index_scheme() == IndexScheme::PlacementAndCell {
                    pattern.free_cells() as u32
                } else {
                    0
                },
                regions: pdb.regions(),
                tiles,
                mirror_sources,
                weights,
                slot_of,
            });
        }
        let prefetched = tables
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                t.entries.len() >= PREFETCH_MIN_BYTES && t.regions.is_none() && t.free_cells == 0
            })
            .fold(0, |bits, (p, _)| bits | 1 << p);
        Ok(Additive {
            prefetched,
            grid: grid.clone(),
            tables,
            groups: groups.len(),
            slots: table_of
                .iter()
                .zip(&group_of)
                .map(|(&p, &g)| (g, p as u8))
                .collect(),
            member,
            mirror_member,
            transpose,
            reflect,
        })
    }

    /// Pattern `p`'s view of the board or of its mirror, from scratch.
    fn evaluate(&self, p: usize, mirror: bool, position: &Position) -> PatternState {
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
        self.with_value(p, mirror, rank as u32, manhattan as u8, position)
    }

    /// The pattern's state from its rank and Manhattan distance (and, for a
    /// zero-aware table, the blank's cell in `position`).
    #[inline(always)]
    fn with_value(
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
    fn entry_index(&self, p: usize, mirror: bool, rank: u32, position: &Position) -> u64 {
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
    fn read_entry(&self, p: usize, rank: u32, manhattan: u8, index: u64) -> PatternState {
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
    fn entry_byte(&self, p: usize, index: u64) -> usize {
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
    fn region_index(&self, regions: &Regions, p: usize, mirror: bool, position: &Position) -> u64 {
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
    fn placement(
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
    fn blank_slot(&self, p: usize, mirror: bool, position: &Position) -> u32 {
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

    /// The entries (table, byte) of the prefetched tables that the children
    /// of the node `state` and `position` describe will read far from its
    /// own, but for the move back to `parent_blank`.
    #[inline(always)]
    fn far_child_entries(
        &self,
        state: &AdditiveState<P, G>,
        position: &Position,
        parent_blank: u8,
        mut each: impl FnMut(usize, usize),
    ) {
        let blank = position.blank();
        for &(from, _) in self.grid.neighbors(blank) {
            if from == parent_blank {
                continue;
            }
            let tile = position.tiles[from as usize];
            for mirror in [false, true] {
                if mirror && !self.reflect {
                    break;
                }
                let (members, before) = if mirror {
                    (&self.mirror_member, &state.mirror)
                } else {
                    (&self.member, &state.board)
                };
                let mut done = !self.prefetched;
                for group in &members[..self.groups] {
                    let m = group[tile as usize];
                    if m.pattern == NO_PATTERN || done & (1 << m.pattern) != 0 {
                        continue;
                    }
                    done |= 1 << m.pattern;
                    let p = m.pattern as usize;
                    let table = &self.tables[p];
                    if table.weights[m.slot as usize] < NEAR_ENTRIES {
                        continue;
                    }
                    let (from, to) = if mirror {
                        (
                            self.transpose[from as usize],
                            self.transpose[blank as usize],
                        )
                    } else {
                        (from, blank)
                    };
                    let step = Step {
                        slot: m.slot,
                        from,
                        to,
                        distance_change: 0,
                    };
                    let (rank, _) = self.moved(p, mirror, &before[p], position, step);
                    let byte = if table.nibbles {
                        rank as usize / 2
                    } else {
                        rank as usize
                    };
                    each(p, byte);
                }
            }
        }
    }

    /// Pattern `p`'s rank and Manhattan distance after the tile in `slot`
    /// moved from `from` to the adjacent `to` (cells of the board, or of the
    /// mirror when `mirror`). Only that tile's digit changes, by the cells
    /// it crossed that earlier tiles hold, and the digits of the later tiles
    /// standing between the two cells, by one each; a sideways move crosses
    /// no cell.
    #[inline(always)]
    fn moved(
        &self,
        p: usize,
        mirror: bool,
        old: &PatternState,
        position: &Position,
        step: Step,
    ) -> (u32, u8) {
        let Step {
            slot,
            from,
            to,
            distance_change,
        } = step;
        let table = &self.tables[p];
        let (low, high) = if to > from { (from, to) } else { (to, from) };
        let slot_of = &table.slot_of[mirror as usize];
        let mut digit_change = (high - low) as u64;
        let mut later_weights = 0u64;
        for cell in low + 1..high {
            let board_cell = if mirror {
                self.transpose[cell as usize]
            } else {
                cell
            };
            let between = slot_of[position.tiles[board_cell as usize] as usize];
            // An earlier tile's cell is not counted in the moving tile's
            // digit; a later tile's digit counts the moving tile's cell.
            digit_change -= (between < slot) as u64;
            later_weights += table.weights[between as usize] * (between > slot) as u64;
        }
        let change = (digit_change * table.weights[slot as usize] + later_weights) as u32;
        let rank = if to > from {
            old.rank + change
        } else {
            old.rank - change
        };
        let manhattan = (old.manhattan as i32 + distance_change) as u8;
        (rank, manhattan)
    }
}

impl<D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Additive<'_, D, P, G> {
    /// Brings the board's view (or, `MIRROR`, the reflected one) of `next`
    /// up to date for `tile`'s `step` (of that view's cells): the partitions
    /// the tile is not in keep their sums, since the blank moved within one
    /// region of their free cells, and a table several partitions share is
    /// looked up once. Stops at the first partition whose sum exceeds
    /// `limit`, and returns that sum.
    #[inline(always)]
    fn update_view<const MIRROR: bool>(
        &self,
        tile: u8,
        step: Step,
        state: &AdditiveState<P, G>,
        next: &mut AdditiveState<P, G>,
        position: &Position,
        limit: u32,
    ) -> Option<u32> {
        if G > 1 && self.groups > 1 {
            // A catalogue: the tile is in several tables (`G` is known at
            // compile time: the pair heuristic of 7-8 carries no such code).
            let indices = self.locate_view::<MIRROR>(tile, step, state, next, position);
            return self.sum_view::<MIRROR>(
                tile,
                state,
                next,
                limit,
                #[inline(always)]
                |p, _, _, after| {
                    *after = self.read_entry(p, after.rank, after.manhattan, indices[p]);
                },
            );
        }
        self.sum_view::<MIRROR>(
            tile,
            state,
            next,
            limit,
            #[inline(always)]
            |p, slot, before, after| {
                let step = Step { slot, ..step };
                let (rank, manhattan) = self.moved(p, MIRROR, before, position, step);
                *after = self.with_value(p, MIRROR, rank, manhattan, position);
            },
        )
    }

    /// The board's (or, `MIRROR`, the mirror's) memberships, the parent's
    /// pattern states, and the child's pattern states and sums.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn view<'s, const MIRROR: bool>(
        &'s self,
        state: &'s AdditiveState<P, G>,
        next: &'s mut AdditiveState<P, G>,
    ) -> (
        &'s [[Membership; 256]; G],
        &'s [PatternState; P],
        &'s mut [PatternState; P],
        &'s mut [u16; G],
    ) {
        if MIRROR {
            (
                &self.mirror_member,
                &state.mirror,
                &mut next.mirror,
                &mut next.mirror_sum,
            )
        } else {
            (&self.member, &state.board, &mut next.board, &mut next.sum)
        }
    }

    /// Brings each table holding `tile` up to date through `entry` (given
    /// the table, the tile's slot, the parent's and the child's pattern
    /// state), once per table, and the sums of the partitions, stopping at
    /// the first sum that exceeds `limit`, which it returns.
    #[inline(always)]
    fn sum_view<const MIRROR: bool>(
        &self,
        tile: u8,
        state: &AdditiveState<P, G>,
        next: &mut AdditiveState<P, G>,
        limit: u32,
        mut entry: impl FnMut(usize, u8, &PatternState, &mut PatternState),
    ) -> Option<u32> {
        let (members, before, after, sums) = self.view::<MIRROR>(state, next);
        let mut done = 0u32;
        for g in 0..self.groups {
            let m = members[g][tile as usize];
            if m.pattern == NO_PATTERN {
                continue;
            }
            let p = m.pattern as usize;
            if done & (1 << p) == 0 {
                done |= 1 << p;
                entry(p, m.slot, &before[p], &mut after[p]);
            }
            sums[g] = sums[g] - before[p].value as u16 + after[p].value as u16;
            if sums[g] as u32 > limit {
                return Some(sums[g] as u32);
            }
        }
        None
    }

    /// The first half of `update_view` for several tables: brings the
    /// ranks of the view up to date, finds every entry the move reads and
    /// asks for it, and returns them by table, so that all their cache
    /// misses overlap before any is read (a loop reading each as
    /// it goes stalls on each in turn, the work between two reads filling
    /// the core's window); `sum_view` then reads them.
    #[inline(always)]
    fn locate_view<const MIRROR: bool>(
        &self,
        tile: u8,
        step: Step,
        state: &AdditiveState<P, G>,
        next: &mut AdditiveState<P, G>,
        position: &Position,
    ) -> [u64; P] {
        let (members, before, after, _) = self.view::<MIRROR>(state, next);
        let mut indices = [0u64; P];
        // Zero-aware tables by region need their cell set's record before
        // the entry can be found: (set, order number, blank) for each.
        let mut located = [(0usize, 0u64, 0u8); P];
        let mut by_region = 0u32;
        let mut done = 0u32;
        for group in &members[..self.groups] {
            let m = group[tile as usize];
            let p = m.pattern as usize;
            if m.pattern == NO_PATTERN || done & (1 << p) != 0 {
                continue;
            }
            done |= 1 << p;
            let step = Step {
                slot: m.slot,
                ..step
            };
            let (rank, manhattan) = self.moved(p, MIRROR, &before[p], position, step);
            after[p].rank = rank;
            after[p].manhattan = manhattan;
            let table = &self.tables[p];
            if let Some(regions) = table.regions {
                let (placement, blank) = self.placement(p, MIRROR, position);
                let (set, order) = regions.set_and_order(&placement[..table.tiles.len()]);
                prefetch(regions.set_record(set));
                located[p] = (set, order, blank);
                by_region |= 1 << p;
            } else {
                let index = self.entry_index(p, MIRROR, rank, position);
                prefetch_byte(table.entries, self.entry_byte(p, index));
                indices[p] = index;
            }
        }
        while by_region != 0 {
            let p = by_region.trailing_zeros() as usize;
            by_region &= by_region - 1;
            let (set, order, blank) = located[p];
            let regions = self.tables[p].regions.expect("marked as by region");
            let index = regions.index_in_set(set, order, blank);
            prefetch_byte(self.tables[p].entries, self.entry_byte(p, index));
            indices[p] = index;
        }
        indices
    }
}

impl<D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Heuristic for Additive<'_, D, P, G> {
    type State = AdditiveState<P, G>;

    fn name(&self) -> &'static str {
        "pdb"
    }

    fn init(&self, position: &Position) -> AdditiveState<P, G> {
        let mut state = AdditiveState {
            board: [PatternState::default(); P],
            mirror: [PatternState::default(); P],
            sum: [0; G],
            mirror_sum: [0; G],
        };
        for p in 0..self.tables.len() {
            state.board[p] = self.evaluate(p, false, position);
            if self.reflect {
                state.mirror[p] = self.evaluate(p, true, position);
            }
        }
        for &(g, p) in &self.slots {
            state.sum[g as usize] += state.board[p as usize].value as u16;
            state.mirror_sum[g as usize] += state.mirror[p as usize].value as u16;
        }
        state
    }

    /// Each child's move changes one rank per view; a digit of a high
    /// place value sends the lookup far from the parent's entry, into
    /// memory no cache holds (a large table), and the search would wait for
    /// it: that entry is asked for now, while the node's own lookups are
    /// under way. One thread on the 80-move board with 7-8: 5 to 10 % less
    /// time; on tables that stay in cache the extra rank updates only cost,
    /// so they are left out.
    #[inline(always)]
    fn prepare_children(
        &self,
        state: &mut AdditiveState<P, G>,
        position: &Position,
        parent_blank: u8,
    ) {
        if self.prefetched != 0 {
            self.far_child_entries(state, position, parent_blank, |p, byte| {
                prefetch_byte(self.tables[p].entries, byte)
            });
        }
    }

    #[inline(always)]
    fn value(&self, state: &AdditiveState<P, G>) -> u32 {
        let mut best = 0;
        for g in 0..self.groups {
            best = best.max(state.sum[g]).max(state.mirror_sum[g]);
        }
        best as u32
    }

    #[inline(always)]
    fn update(
        &self,
        state: &AdditiveState<P, G>,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> AdditiveState<P, G> {
        let mut child = *state;
        self.update_within(state, position, tile, from, to, u32::MAX, &mut child);
        child
    }

    /// The board's own sums first; the reflected lookups, more cache misses,
    /// only when no sum already exceeds `limit`. A partition's sum is
    /// exact once its view is brought up to date, so the one that exceeded
    /// is returned as it is; the other sums in `child` may still be the
    /// parent's (a parent's stale sum can exceed the child's by up to 3,
    /// since tables that take the least over the blank's regions are not
    /// consistent), which is why `child` is not to be used then.
    #[inline(always)]
    fn update_within(
        &self,
        state: &AdditiveState<P, G>,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        limit: u32,
        child: &mut AdditiveState<P, G>,
    ) -> u32 {
        *child = *state;
        // Reflection keeps grid distances, so one change serves both views.
        let step = Step {
            slot: 0,
            from,
            to,
            distance_change: self.grid.distance(tile, to) as i32
                - self.grid.distance(tile, from) as i32,
        };
        if let Some(cut) = self.update_view::<false>(tile, step, state, child, position, limit) {
            return cut;
        }
        if self.reflect {
            let step = Step {
                from: self.transpose[from as usize],
                to: self.transpose[to as usize],
                ..step
            };
            if let Some(cut) = self.update_view::<true>(tile, step, state, child, position, limit) {
                return cut;
            }
        }
        self.value(child)
    }
}

/// Tables at least this large are prefetched: one this size does not stay
/// in cache beside another (the 7-tile table of 7-8, 28 MB, gains; the
/// 6-tile ones of 6-6-3, 2.9 MB, lose).
const PREFETCH_MIN_BYTES: usize = 16 << 20;

/// A move of a tile whose digit has a place value below this lands within a
/// cache line or so of the parent's entry, which is in cache.
const NEAR_ENTRIES: u64 = 128;

/// Asks for the cache line of `bytes[index]`, which a lookup will read
/// soon: a hint, which never faults and changes no result. `safe_arch`
/// wraps the one instruction this needs (the standard library's intrinsic
/// asks for `unsafe` at the call).
#[inline(always)]
pub(crate) fn prefetch_byte(bytes: &[u8], index: usize) {
    if let Some(byte) = bytes.get(index) {
        prefetch(byte);
    }
}

/// Asks for the cache line of `value`.
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    safe_arch::prefetch_t0(value);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::{random_board, Goal, SplitMix64};
    use npuzzle_pdb::{build_file, Partition};

    use crate::tests::random_slide;

    /// Move by move, the incremental state equals a fresh evaluation.
    #[test]
    fn incremental_updates_match_fresh_evaluation() {
        for (size, name) in [
            (3, "4-4"),
            (3, "4z-4"),
            (4, "1,2,5,6;3,4,7,8;9,10,13,14"),
            (4, "z1,2,5,6;3,4,7,8;z9,10,13,14"),
            // Catalogues: a tile in several tables, whose entries are
            // found before any is read.
            (3, "z1,2,3,4;5,6,7,8+1,4,7,5;z2,3,6,8"),
            (
                4,
                "z1,2,5,6;3,4,7,8;z9,10,13,14+z1,2,3,4;5,6,7,8;z9,10,11,12",
            ),
        ] {
            for goal in Goal::ALL {
                let partition = Partition::parse(name, size, goal).unwrap();
                let pdbs: Vec<Pdb<Vec<u8>>> = partition
                    .patterns()
                    .iter()
                    .map(|p| Pdb::from_bytes(build_file(p, 1, |_| {}).unwrap()).unwrap())
                    .collect();
                let grid = Grid::new(size, goal);
                let additive =
                    Additive::with_groups(&grid, &pdbs, partition.groups(), true).unwrap();
                let mut rng = SplitMix64::new(17);
                let mut position = Position::new(&random_board(size, goal, &mut rng));
                let mut state = additive.init(&position);
                for _ in 0..3000 {
                    let (tile, from, blank) = random_slide(&grid, &mut position, &mut rng);
                    let fresh = additive.init(&position);
                    // Cut off at any limit, the value stays a lower bound of
                    // the child's own (IDA* takes its next bound from it).
                    let limit = rng.below(40) as u32;
                    let mut child = state;
                    let value = additive
                        .update_within(&state, &position, tile, from, blank, limit, &mut child);
                    assert!(
                        value <= additive.value(&fresh),
                        "limit {limit}: {value} above {}",
                        additive.value(&fresh)
                    );
                    if value <= limit {
                        assert_eq!(value, additive.value(&fresh));
                        assert_eq!((child.sum, child.mirror_sum), (fresh.sum, fresh.mirror_sum));
                    }
                    state = additive.update(&state, &position, tile, from, blank);
                    assert_eq!((state.sum, state.mirror_sum), (fresh.sum, fresh.mirror_sum));
                    assert_eq!(additive.value(&state), additive.value(&fresh));
                    for p in 0..pdbs.len() {
                        assert_eq!(state.board[p].rank, fresh.board[p].rank);
                        assert_eq!(state.mirror[p].rank, fresh.mirror[p].rank);
                    }
                }
            }
        }
    }

    /// What a node asks for ahead is what its children then read: every
    /// entry `far_child_entries` names is the entry of one child's lookup,
    /// in the board's view or the mirror's, and moves of tiles with a
    /// high place value do name some.
    #[test]
    fn prefetched_entries_are_the_childrens_entries() {
        let goal = Goal::BlankLast;
        let partition = Partition::parse("5-5-5", 4, goal).unwrap();
        let pdbs: Vec<Pdb<Vec<u8>>> = partition
            .patterns()
            .iter()
            .map(|p| Pdb::from_bytes(build_file(p, 1, |_| {}).unwrap()).unwrap())
            .collect();
        let grid = Grid::new(4, goal);
        let mut additive = Additive::new(&grid, &pdbs, true).unwrap();
        assert_eq!(additive.prefetched, 0, "small tables stay in cache");
        additive.prefetched = (1 << pdbs.len()) - 1;
        let mut rng = SplitMix64::new(29);
        let mut position = Position::new(&random_board(4, goal, &mut rng));
        let mut state = additive.init(&position);
        let mut parent_blank = u8::MAX;
        let mut named = 0;
        for _ in 0..3000 {
            let blank = position.blank();
            let mut asked = Vec::new();
            additive.far_child_entries(&state, &position, parent_blank, |p, byte| {
                asked.push((p, byte))
            });
            let mut read = Vec::new();
            for &(from, _) in grid.neighbors(blank) {
                let tile = position.slide(from);
                let child = additive.update(&state, &position, tile, from, blank);
                position.slide(blank);
                for p in 0..pdbs.len() {
                    for view in [&child.board[p], &child.mirror[p]] {
                        read.push((p, view.rank as usize / 2));
                    }
                }
            }
            for entry in &asked {
                assert!(read.contains(entry), "{entry:?} is read by no child");
            }
            named += asked.len();
            let (tile, from, _) = random_slide(&grid, &mut position, &mut rng);
            state = additive.update(&state, &position, tile, from, blank);
            parent_blank = blank;
        }
        assert!(named > 1000, "only {named} entries named");
    }

    /// A catalogue whose partitions share tables, with more distinct
    /// tables than the common heuristic holds: the large one keeps each
    /// partition's sum equal to that partition's own heuristic, move by
    /// move, and takes their maximum.
    #[test]
    fn shared_tables_in_a_large_catalogue_keep_every_partition_sum() {
        let goal = Goal::BlankLast;
        let parts = crate::tests::SHARING_CATALOGUE;
        let catalogue = Partition::parse(&parts.join("+"), 3, goal).unwrap();
        let build =
            |p: &npuzzle_pdb::Pattern| Pdb::from_bytes(build_file(p, 1, |_| {}).unwrap()).unwrap();
        let pdbs: Vec<Pdb<Vec<u8>>> = catalogue.patterns().iter().map(build).collect();
        let grid = Grid::new(3, goal);
        assert!(matches!(
            Additive::with_groups(&grid, &pdbs, catalogue.groups(), true).err(),
            Some(AdditiveError::TooManyPatterns { count: 15, .. })
        ));
        let large = Large::with_capacity(&grid, &pdbs, catalogue.groups(), true).unwrap();
        assert_eq!(large.tables.len(), 15);
        // Each partition alone, in the common heuristic.
        let mut first = 0;
        let alone: Vec<Additive<'_, Vec<u8>>> = catalogue
            .groups()
            .iter()
            .map(|&size| {
                first += size;
                Additive::new(&grid, &pdbs[first - size..first], true).unwrap()
            })
            .collect();
        let mut rng = SplitMix64::new(5);
        let mut position = Position::new(&random_board(3, goal, &mut rng));
        let mut state = large.init(&position);
        for _ in 0..3000 {
            let (tile, from, blank) = random_slide(&grid, &mut position, &mut rng);
            state = large.update(&state, &position, tile, from, blank);
            let fresh = large.init(&position);
            assert_eq!((state.sum, state.mirror_sum), (fresh.sum, fresh.mirror_sum));
            let mut best = 0;
            for (g, heuristic) in alone.iter().enumerate() {
                let own = heuristic.init(&position);
                assert_eq!(
                    (state.sum[g], state.mirror_sum[g]),
                    (own.sum[0], own.mirror_sum[0])
                );
                best = best.max(heuristic.value(&own));
            }
            assert_eq!(large.value(&state), best);
        }
    }
}
