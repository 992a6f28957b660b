//! The additive heuristic of up to four partitions of at most two tables
//! each, plain or zero-aware, on boards up to 4x4 (7z-8, duo, trio), written
//! for speed: the same estimates as [`Additive`](crate::additive::Additive),
//! node for node.
//!
//! It is the two-table heuristic ([`prepared_ranks`](crate::additive::prepared_ranks)) once per
//! partition. A move changes one table of each partition in each view, so
//! with the partition count a constant every loop unrolls, and a table's
//! slot is found by one read. A zero-aware table's key packs the cell set's
//! mask (low 16 bits) and the order number (high 16 bits), so that a move
//! updates it as it updates a plain table's rank: a sum of table reads,
//! here with the two cells' bits flipped. The set's record (its first entry,
//! regions and the blank's region per cell) is one read of a table by
//! mask. Children are evaluated partition by partition, and a
//! child is cut off at the first sum above the bound, the one the general
//! heuristic returns, so the partitions after it are never read.

use std::sync::Mutex;

use npuzzle_pdb::regions::Regions;
use npuzzle_pdb::{Pdb, Ranker};

use crate::additive::geometry::{
    self, cross_change, crossings, digit_weight, each_move_among, nibble_tables, placement,
    CheckedSet, Reflection,
};
use crate::additive::prepared_ranks::direction;
use crate::additive::TablesView;
use crate::additive::MAX_PATTERN_TILES;
use crate::grid::{Grid, Position};
use crate::heuristic::{update_by_within, Heuristic, MoveSet};
use crate::prefetch::prefetch_byte;

/// The largest side taken: a cell set fits 16 bits, a move crosses at most
/// three cells.
const MAX_SIDE: usize = 4;
const CELLS: usize = MAX_SIDE * MAX_SIDE;
/// A cell no tile stands on (the blank's tile, 0, reads there, and crosses
/// nothing), for moves that cross fewer than three cells.
const NO_CELL: u8 = u8::MAX;
/// A tile in neither table of a partition.
const NO_SLOT: u8 = 2;
/// The most tiles of a zero-aware table: its order number fits 16 bits.
const MAX_ZERO_AWARE_TILES: usize = 8;

type Crossing = geometry::Crossing<3>;

/// The board's view (0) or the mirror's (1) of the tables.
struct View<const G: usize> {
    /// `slot[tile][g]`: which table of partition `g` holds the tile, or
    /// `NO_SLOT`.
    slot: [[u8; G]; CELLS],
    /// `[tile][g][vertical]`: the change of the key when the tile moves to
    /// a higher cell, but for the tiles it crosses (a plain table's digit
    /// place value times the cells it passes; zero-aware: nothing).
    step: [[[u32; 2]; G]; CELLS],
    /// `cross[tile][g][other]`: the change of the key when the tile passes
    /// `other` towards a higher cell, as a two's complement: of a plain
    /// table's rank, or of a zero-aware table's order number (in the high
    /// half).
    cross: [[[u32; CELLS]; G]; CELLS],
    /// `[tile][g]`: the bits of the move's cells flipped in the key (a
    /// zero-aware table's cell mask), else none.
    flips: [[u32; G]; CELLS],
    /// `[from][direction]`: the move of the tile on `from` into the blank
    /// beside it, seen in this view.
    crossing: [[Crossing; 4]; CELLS],
}

impl<const G: usize> View<G> {
    /// The rows of one view (0: the board, 1: its mirror) of the tables
    /// `given`; a partition whose mirror repeats another has none in the
    /// mirror's view.
    fn new<D: AsRef<[u8]> + Sync>(
        grid: &Grid,
        given: &[[Option<&Pdb<D>>; 2]; G],
        zero_aware: &[[Option<ZeroAware<'_>>; 2]; G],
        sources: &[[[Vec<u8>; 2]; 2]; G],
        mirror_repeats: &[bool; G],
        view: usize,
    ) -> View<G> {
        let n = grid.n;
        let mut slot_of = [[NO_SLOT; G]; CELLS];
        // Each tile's place in its table's rank order.
        let mut place = [[0usize; G]; CELLS];
        for (g, pair) in sources.iter().enumerate() {
            if view == 1 && mirror_repeats[g] {
                continue;
            }
            for (s, by_view) in pair.iter().enumerate() {
                for (i, &x) in by_view[view].iter().enumerate() {
                    let x = x as usize;
                    slot_of[x][g] = s as u8;
                    place[x][g] = i;
                }
            }
        }
        // The value of digit `i` of table `[g][s]`'s key.
        // A zero-aware table's order number is the key's high half.
        let weight = |g: usize, s: usize, i: usize| -> u32 {
            given[g][s].map_or(0, |p| {
                let zero_aware = zero_aware[g][s].is_some();
                digit_weight(p.pattern().ranker(), zero_aware, i) << (16 * zero_aware as u32)
            })
        };
        let mut step = [[[0u32; 2]; G]; CELLS];
        let mut cross = [[[0u32; CELLS]; G]; CELLS];
        let mut flips = [[0u32; G]; CELLS];
        for x in 1..n * n {
            for g in 0..G {
                let s = slot_of[x][g] as usize;
                if s == NO_SLOT as usize {
                    continue;
                }
                let wx = weight(g, s, place[x][g]);
                match zero_aware[g][s] {
                    Some(_) => flips[x][g] = u32::MAX,
                    None => step[x][g] = [wx, wx.wrapping_mul(n as u32)],
                }
                for y in 1..n * n {
                    if y == x || slot_of[y][g] as usize != s {
                        continue;
                    }
                    cross[x][g][y] = cross_change(
                        place[x][g],
                        wx,
                        place[y][g],
                        weight(g, s, place[y][g]),
                        zero_aware[g][s].is_some(),
                    );
                }
            }
        }
        let crossing = crossings(grid, view == 1, NO_CELL, direction);
        View {
            slot: slot_of,
            step,
            cross,
            flips,
            crossing,
        }
    }
}

/// A zero-aware table's numbering and its cell sets' records by mask.
#[derive(Clone, Copy)]
struct ZeroAware<'a> {
    regions: &'a Regions,
    records: &'static [SetRecord],
}

/// What a zero-aware table's index needs of a set of cells, in 16 bytes:
/// its first entry, its regions, and each free cell's region (four bits
/// per cell).
#[derive(Clone, Copy, Default)]
#[repr(align(16))]
struct SetRecord {
    first: u32,
    regions: u32,
    labels: u64,
}

/// `[view][partition][slot]`: each table's key, the Manhattan distance of its
/// tiles and its value (the distance plus twice the entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tables<const G: usize> {
    key: [[[u32; 2]; G]; 2],
    manhattan: [[[u8; 2]; G]; 2],
    value: [[[u8; 2]; G]; 2],
}

/// What search keeps per node.
#[derive(Clone, Copy)]
pub struct UnrolledPartitionsState<const G: usize> {
    now: Tables<G>,
    /// `[direction][view][g]`: the key and the entry index the move in that
    /// direction leads to in the table of partition `g` holding the moving
    /// tile; filled by `prepare_children`.
    next_key: [[[u32; G]; 2]; 4],
    next_index: [[[u32; G]; 2]; 4],
}

/// Up to four partitions of one or two tables with nibble entries, plain
/// or zero-aware by region (index scheme 3), on boards up to 4x4.
pub struct UnrolledPartitions<'a, const G: usize> {
    /// `[g][slot]`: the entries (empty past a partition's tables).
    entries: [[&'a [u8]; 2]; G],
    zero_aware: [[Option<ZeroAware<'a>>; 2]; G],
    /// `[g][slot]`: the tables' rankers and tiles, and for the mirror's
    /// view the tile whose mirror image each one is (for `init`).
    rankers: [[Option<&'a Ranker>; 2]; G],
    sources: [[[Vec<u8>; 2]; 2]; G],
    tiles: [[Vec<u8>; 2]; G],
    views: [View<G>; 2],
    grid: Grid,
    transpose: [u8; CELLS],
    /// `distance[tile][cell]`: the grid distance to the tile's home.
    distance: [[u8; CELLS]; CELLS],
    reflect: bool,
    /// `[g]`: partition `g`'s mirror view repeats a partition's board view,
    /// so it is not read (its values stay 0).
    mirror_repeats: [bool; G],
}

/// The records of the sets of `k` cells of an n x n board (n <= 4) by
/// their mask (empty for other masks; 1 MB), built once per board size and
/// `k` and shared: the search finds a set's record in one read instead of
/// two dependent ones (its rank by mask, then the numbering's record).
/// Entry numbers fit 32 bits: `new` takes no larger table.
fn set_records(regions: &Regions, n: usize, k: usize) -> &'static [SetRecord] {
    type Built = Vec<((usize, usize), &'static [SetRecord])>;
    static BUILT: Mutex<Built> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, records)) = built.iter().find(|(key, _)| *key == (n, k)) {
        return records;
    }
    let cells = n * n;
    let records: Vec<SetRecord> = (0..1u32 << CELLS)
        .map(|mask| {
            if mask.count_ones() as usize != k || mask >> cells != 0 {
                return SetRecord::default();
            }
            let set = regions.set_rank(mask as u64);
            let first = regions.set_entries(set).start;
            let mut labels = 0u64;
            for cell in (0..cells as u8).filter(|&c| mask & 1 << c == 0) {
                labels |= (regions.index_in_packed_set(set, 0, cell) - first) << (4 * cell);
            }
            SetRecord {
                first: first as u32,
                regions: regions.regions_of(set) as u32,
                labels,
            }
        })
        .collect();
    let records: &'static [SetRecord] = Box::leak(records.into_boxed_slice());
    built.push(((n, k), records));
    records
}

impl<'a, const G: usize> UnrolledPartitions<'a, G> {
    /// The heuristic over `pdbs`, in `G` partitions of `groups[g]` tables,
    /// or `None` unless every table is plain or zero-aware by region with
    /// nibble entries for `grid`'s board of side at most 4, each partition
    /// one or two disjoint tables (the other fast paths and the general
    /// heuristic take every other case).
    pub(crate) fn new<D: AsRef<[u8]> + Sync>(set: &TablesView<'a, D>) -> Option<Self> {
        let (grid, pdbs, groups, reflect) = set.parts();
        let n = grid.n;
        if n > MAX_SIDE
            || groups.len() != G
            || groups.iter().any(|&size| size > 2)
            || !nibble_tables(pdbs, MAX_PATTERN_TILES, MAX_ZERO_AWARE_TILES)
        {
            return None;
        }
        CheckedSet::check(grid, pdbs, groups).ok()?;
        // `[g][slot]`: the table given for that slot.
        let mut given = [[None; 2]; G];
        let mut next = 0;
        for (g, &size) in groups.iter().enumerate() {
            for slot in given[g].iter_mut().take(size) {
                *slot = Some(&pdbs[next]);
                next += 1;
            }
        }
        let reflection = Reflection::new(grid);
        let tiles =
            given.map(|pair| pair.map(|pdb| pdb.map_or(vec![], |p| p.pattern().tiles().to_vec())));
        let sources = tiles
            .clone()
            .map(|pair| pair.map(|tiles| reflection.sources(&tiles)));
        let zero_aware = given.map(|pair| {
            pair.map(|pdb| {
                let pdb = pdb?;
                let regions = pdb.regions()?;
                Some(ZeroAware {
                    regions,
                    records: set_records(regions, n, pdb.pattern().tiles().len()),
                })
            })
        });
        // A partition whose mirror image is a partition of the set (itself,
        // for the L and square partitions of trio) reads in the mirror's
        // view the values that partition reads in the board's (a table's
        // value is a function of the abstract state, which the mirror maps
        // onto the image's): its mirror view is left out.
        let kinds = |g: usize, view: usize| {
            let mut kinds: Vec<(Vec<u8>, bool)> = (0..2)
                .filter(|&s| given[g][s].is_some())
                .map(|s| {
                    let mut tiles = sources[g][s][view].clone();
                    tiles.sort_unstable();
                    (tiles, zero_aware[g][s].is_some())
                })
                .collect();
            kinds.sort();
            kinds
        };
        let mirror_repeats: [bool; G] =
            std::array::from_fn(|g| (0..G).any(|q| kinds(g, 1) == kinds(q, 0)));
        let view = |view| View::new(grid, &given, &zero_aware, &sources, &mirror_repeats, view);
        let (board, mirror) = (view(0), view(1));
        Some(UnrolledPartitions {
            entries: given.map(|pair| pair.map(|pdb| pdb.map_or(&[][..], |p| p.table()))),
            zero_aware,
            rankers: given.map(|pair| pair.map(|pdb| pdb.map(|p| p.pattern().ranker()))),
            sources,
            tiles,
            views: [board, mirror],
            grid: grid.clone(),
            transpose: reflection.cells(),
            distance: grid.distance_table(),
            reflect,
            mirror_repeats,
        })
    }

    /// Table `[g][s]`'s value at `index`, its tiles `manhattan` away.
    #[inline(always)]
    fn entry(&self, g: usize, s: usize, index: u32, manhattan: u8) -> u8 {
        let byte = self.entries[g][s & 1]
            .get(index as usize / 2)
            .copied()
            .unwrap_or(0);
        manhattan.wrapping_add(2 * ((byte >> (4 * (index % 2))) & 0xF))
    }

    /// The entry index of a zero-aware table's `key` with the blank on
    /// `blank`.
    #[inline(always)]
    fn zero_aware_index(table: &ZeroAware, key: u32, blank: u8) -> u32 {
        let record = table
            .records
            .get(key as usize & 0xFFFF)
            .copied()
            .unwrap_or_default();
        let label = (record.labels >> (4 * (blank & 15))) & 0xF;
        record
            .first
            .wrapping_add((key >> 16).wrapping_mul(record.regions))
            .wrapping_add(label as u32)
    }

    /// Fills `state`'s next keys and indexes for the moves out of
    /// `position` (which `state` describes) that are among `moves`, and
    /// asks for the entries they will read.
    #[inline(always)]
    fn fill_next(
        &self,
        state: &mut UnrolledPartitionsState<G>,
        position: &Position,
        moves: MoveSet,
    ) {
        each_move_among(&self.grid, position, moves, |tile, from, direction| {
            let (tile, direction) = (tile as usize & (CELLS - 1), direction & 3);
            self.fill_view::<0>(state, position, tile, from, direction);
            if self.reflect {
                self.fill_view::<1>(state, position, tile, from, direction);
            }
        });
    }

    /// The keys and entry indexes, in `VIEW`, of the tables holding `tile`
    /// after its move from `from` in `direction`, into `state`; their
    /// entries are asked for.
    #[inline(always)]
    fn fill_view<const VIEW: usize>(
        &self,
        state: &mut UnrolledPartitionsState<G>,
        position: &Position,
        tile: usize,
        from: u8,
        direction: usize,
    ) {
        let v = &self.views[VIEW];
        let crossing = &v.crossing[from as usize & (CELLS - 1)][direction & 3];
        let [a, b, c] = crossing.crossed;
        let crossed = [
            position.tiles[a as usize] as usize & (CELLS - 1),
            position.tiles[b as usize] as usize & (CELLS - 1),
            position.tiles[c as usize] as usize & (CELLS - 1),
        ];
        for g in 0..G {
            let s = v.slot[tile][g] as usize;
            if s == NO_SLOT as usize {
                continue;
            }
            let s = s & 1;
            let cross = &v.cross[tile][g];
            let change = v.step[tile][g][crossing.vertical as usize]
                .wrapping_add(cross[crossed[0]])
                .wrapping_add(cross[crossed[1]])
                .wrapping_add(cross[crossed[2]]);
            let key = (state.now.key[VIEW][g][s] ^ (crossing.flip & v.flips[tile][g]))
                .wrapping_add(change.wrapping_mul(crossing.sign));
            let index = match &self.zero_aware[g][s] {
                Some(table) => Self::zero_aware_index(table, key, crossing.blank_after),
                None => key,
            };
            state.next_key[direction][VIEW][g] = key;
            state.next_index[direction][VIEW][g] = index;
            prefetch_byte(self.entries[g][s], index as usize / 2);
        }
    }

    /// Table `[g][s]`'s key, Manhattan distance and value in the board or
    /// its mirror, from scratch.
    fn evaluate(&self, g: usize, s: usize, view: usize, position: &Position) -> (u32, u8, u8) {
        let transpose = |cell: u8| {
            if view == 1 {
                self.transpose[cell as usize]
            } else {
                cell
            }
        };
        let tiles = &self.tiles[g][s];
        let mirror = (view == 1).then_some(&self.transpose[..]);
        let sources = &self.sources[g][s][view];
        let (placement, manhattan) = placement(&self.grid, position, tiles, sources, mirror);
        let (placement, manhattan) = (&placement[..tiles.len()], manhattan as u8);
        let (key, index) = match (&self.zero_aware[g][s], self.rankers[g][s]) {
            (Some(table), _) => {
                let (_, order) = table.regions.set_and_order(placement);
                let mask = placement.iter().fold(0u32, |m, &c| m | 1 << c);
                let key = mask | (order as u32) << 16;
                (
                    key,
                    Self::zero_aware_index(table, key, transpose(position.blank())),
                )
            }
            (None, Some(ranker)) => {
                let rank = ranker.rank(placement) as u32;
                (rank, rank)
            }
            (None, None) => return (0, 0, 0),
        };
        (key, manhattan, self.entry(g, s, index, manhattan))
    }
}

impl<const G: usize> Heuristic for UnrolledPartitions<'_, G> {
    type State = UnrolledPartitionsState<G>;
    /// The children's keys are in the parent's state.
    const UPDATE_READS_POSITION: bool = false;

    fn name(&self) -> &'static str {
        crate::additive::Strategy::UnrolledPartitions.name()
    }

    fn init(&self, position: &Position) -> UnrolledPartitionsState<G> {
        let mut state = UnrolledPartitionsState {
            now: Tables {
                key: [[[0; 2]; G]; 2],
                manhattan: [[[0; 2]; G]; 2],
                value: [[[0; 2]; G]; 2],
            },
            next_key: [[[0; G]; 2]; 4],
            next_index: [[[0; G]; 2]; 4],
        };
        for view in 0..1 + self.reflect as usize {
            for g in 0..G {
                if view == 1 && self.mirror_repeats[g] {
                    continue;
                }
                for s in 0..2 {
                    let (key, manhattan, value) = self.evaluate(g, s, view, position);
                    state.now.key[view][g][s] = key;
                    state.now.manhattan[view][g][s] = manhattan;
                    state.now.value[view][g][s] = value;
                }
            }
        }
        self.fill_next(&mut state, position, MoveSet::ALL);
        state
    }

    #[inline(always)]
    fn value(&self, state: &UnrolledPartitionsState<G>) -> u32 {
        let mut best = 0;
        for view in state.now.value {
            for [a, b] in view {
                best = best.max(a as u32 + b as u32);
            }
        }
        best
    }

    fn update(
        &self,
        state: &UnrolledPartitionsState<G>,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> UnrolledPartitionsState<G> {
        let mut child = update_by_within(self, state, position, tile, from, to);
        self.fill_next(&mut child, position, MoveSet::ALL);
        child
    }

    /// Reads the entries `prepare_children` located, partition by
    /// partition, the board's first, and stops at the first sum above
    /// `limit` among the partitions holding the tile (as the general
    /// heuristic does, so that the cut-off values, and so the bounds and
    /// node counts, are the same).
    #[inline(always)]
    fn update_within(
        &self,
        state: &UnrolledPartitionsState<G>,
        _position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        limit: u32,
        child: &mut UnrolledPartitionsState<G>,
    ) -> u32 {
        child.now = state.now;
        let now = &mut child.now;
        let t = tile as usize & (CELLS - 1);
        let distance = &self.distance[t];
        let change =
            distance[to as usize & (CELLS - 1)].wrapping_sub(distance[from as usize & (CELLS - 1)]);
        let direction = direction(from, to);
        // The sums are kept in registers: reading back values just stored
        // byte by byte would wait for the stores.
        let mut h = 0;
        for view in 0..1 + self.reflect as usize {
            for (g, &s) in self.views[view].slot[t].iter().enumerate() {
                let s = s as usize;
                let sum = if s != NO_SLOT as usize {
                    let s = s & 1;
                    let manhattan = now.manhattan[view][g][s].wrapping_add(change);
                    let index = state.next_index[direction][view][g];
                    let value = self.entry(g, s, index, manhattan);
                    now.key[view][g][s] = state.next_key[direction][view][g];
                    now.manhattan[view][g][s] = manhattan;
                    now.value[view][g][s] = value;
                    let sum = value as u32 + now.value[view][g][s ^ 1] as u32;
                    if sum > limit {
                        return sum;
                    }
                    sum
                } else {
                    // A partition without the tile keeps its sum, unchecked,
                    // as in the general heuristic.
                    now.value[view][g][0] as u32 + now.value[view][g][1] as u32
                };
                h = h.max(sum);
            }
        }
        h
    }

    #[inline(always)]
    fn prepare_children(
        &self,
        state: &mut UnrolledPartitionsState<G>,
        position: &Position,
        moves: MoveSet,
    ) {
        self.fill_next(state, position, moves);
    }
}

#[cfg(test)]
mod tests {
    use npuzzle_board::{random_board, Goal, SplitMix64};
    use npuzzle_pdb::testing::TestBytes;
    use npuzzle_pdb::Pdb;

    use super::*;
    use crate::additive::{Additive, LARGE_GROUPS, LARGE_PATTERNS};
    use crate::testing::{assert_follows_move_by_move, catalogue};

    /// Plain and zero-aware tables, alone and mixed, one or two to a
    /// partition, with tiles in no table, in one to four partitions, on each
    /// board size taken.
    const SETS: [(usize, &str); 12] = [
        (2, "z1;2,3"),
        (2, "z1;2,3+1,2;z3"),
        (3, "4z-4"),
        (3, "z1,2,3;5,6,7"),
        (3, "z1,2,3,4+5,6,7,8"),
        (3, "z1,2,3,4;5,6,7,8+1,4,7,5;z2,3,6,8+z1,2;3,6,7"),
        (3, "4z-4+4-4+z1,4,7,5;2,3,6,8+z1,2,3,4,5,6;7,8"),
        (4, "z1,2,5,6,9;3,4,7,8,12"),
        (4, "1,2,3,4,5;z10,11,14,15,12"),
        (4, "z1,2,5,6,9;3,4,7,8,12+z1,2,3,4;z5,6,7,8"),
        // Their own mirror images: the first for blank-last, the second
        // for blank-first.
        (3, "z1,2,4,5;3,6,7,8+z1,3,4,8;2,5,6,7"),
        // Each the other's mirror image for blank-first; the first its own
        // for blank-last.
        (3, "z1,2,4;3,5,6,7,8+z3,4,6;1,2,5,7,8"),
    ];

    /// Which partitions' mirror views repeat a board view: those of the
    /// sets built for it, for the goal each was built for, and not 4z-4's.
    #[test]
    fn leaves_out_the_mirror_views_that_repeat_a_partition() {
        let repeats = |size: usize, name: &str, goal: Goal| {
            let (pdbs, groups) = catalogue(name, size, goal);
            let grid = Grid::new(size, goal);
            match groups.len() {
                1 => UnrolledPartitions::<1>::new(&TablesView::new(&grid, &pdbs, &groups, true))
                    .map(|t| t.mirror_repeats.to_vec()),
                _ => UnrolledPartitions::<2>::new(&TablesView::new(&grid, &pdbs, &groups, true))
                    .map(|t| t.mirror_repeats.to_vec()),
            }
            .unwrap()
        };
        let [own, pair] = [SETS[10].1, SETS[11].1];
        assert_eq!(repeats(3, own, Goal::BlankLast), [true, false]);
        assert_eq!(repeats(3, own, Goal::BlankFirst), [false, true]);
        assert_eq!(repeats(3, pair, Goal::BlankFirst), [true, true]);
        // The first is its own image for blank-last.
        assert_eq!(repeats(3, pair, Goal::BlankLast), [true, false]);
        assert_eq!(repeats(3, "4z-4", Goal::BlankLast), [false]);
    }

    /// What leaving them out rests on: a repeating partition's sum over the
    /// mirrored board, from the tables themselves, is another partition's
    /// sum over the board, on every board tried.
    #[test]
    fn a_repeating_mirror_view_reads_another_partitions_values() {
        let mut rng = SplitMix64::new(5);
        for (name, goal) in [
            (SETS[10].1, Goal::BlankLast),
            (SETS[10].1, Goal::BlankFirst),
            (SETS[11].1, Goal::BlankFirst),
            (SETS[11].1, Goal::BlankLast),
        ] {
            let grid = Grid::new(3, goal);
            let (pdbs, groups) = catalogue(name, 3, goal);
            let fast = UnrolledPartitions::<2>::new(&TablesView::new(&grid, &pdbs, &groups, true))
                .unwrap();
            let set =
                npuzzle_pdb::Tables::with_groups(catalogue(name, 3, goal).0, &groups).unwrap();
            let boards: Vec<_> = (0..300).map(|_| random_board(3, goal, &mut rng)).collect();
            let sums: Vec<_> = boards
                .iter()
                .map(|board| set.lookup(board).unwrap().partition_sums)
                .collect();
            for g in (0..2).filter(|&g| fast.mirror_repeats[g]) {
                let same = (0..2).any(|q| sums.iter().all(|s| s[g].1 == s[q].0));
                assert!(same, "{name} {goal}: partition {g}'s mirror view");
            }
        }
    }

    /// Walking as search does, the estimate and every cut-off value agree
    /// with the general heuristic, and the state with a fresh evaluation.
    #[test]
    fn follows_the_general_heuristic_move_by_move() {
        compare_on_every_set();
    }

    /// Compares the heuristic over each set's tables, for each goal, with
    /// and without the reflected lookup, with the general one, move by move
    /// (whole searches: `every_strategy_that_takes_a_set_searches_the_general_nodes`).
    fn compare_on_every_set() {
        fn compare<const G: usize>(
            grid: &Grid,
            (pdbs, groups): (&[Pdb<TestBytes>], &[usize]),
            name: &str,
        ) {
            for reflect in [false, true] {
                let fast =
                    UnrolledPartitions::<G>::new(&TablesView::new(grid, pdbs, groups, reflect))
                        .unwrap_or_else(|| panic!("{name} is taken"));
                let general = Additive::<_, LARGE_PATTERNS, LARGE_GROUPS>::with_capacity(
                    grid, pdbs, groups, reflect,
                )
                .unwrap();
                let seed = grid.n as u64 * 31 + reflect as u64;
                assert_follows_move_by_move(grid, (&fast, &general), seed, name, |a, b| {
                    a.now == b.now
                });
            }
        }
        for (size, name) in SETS {
            for goal in Goal::ALL {
                let (pdbs, groups) = catalogue(name, size, goal);
                let set = (&pdbs[..], &groups[..]);
                let grid = Grid::new(size, goal);
                match groups.len() {
                    1 => compare::<1>(&grid, set, name),
                    2 => compare::<2>(&grid, set, name),
                    3 => compare::<3>(&grid, set, name),
                    _ => compare::<4>(&grid, set, name),
                }
            }
        }
    }

    /// Partitions of more than two tables, tables of another goal, a
    /// partition count other than `G` or boards past 4x4 are left to the
    /// other heuristics.
    #[test]
    fn takes_only_what_it_was_written_for() {
        let goal = Goal::BlankLast;
        let grid = Grid::new(3, goal);
        let taken = |name: &str| {
            let (pdbs, groups) = catalogue(name, 3, goal);
            UnrolledPartitions::<2>::new(&TablesView::new(&grid, &pdbs, &groups, true)).is_some()
        };
        assert!(taken("4z-4+4-4"));
        assert!(taken("z1,2,3,4+5,6,7,8"));
        assert!(!taken("4z-4"));
        assert!(!taken("1,2,3;4,5,6;7,8+4-4"));
        let (other_goal, groups) = catalogue("4z-4+4-4", 3, Goal::BlankFirst);
        assert!(
            UnrolledPartitions::<2>::new(&TablesView::new(&grid, &other_goal, &groups, true))
                .is_none()
        );
        // Two tables holding tile 4, given as one partition.
        let (overlapping, _) = catalogue("1,2,3,4+4,5,6", 3, goal);
        assert!(
            UnrolledPartitions::<1>::new(&TablesView::new(&grid, &overlapping, &[2], true))
                .is_none()
        );
        assert!(
            UnrolledPartitions::<2>::new(&TablesView::new(&grid, &overlapping, &[1, 1], true))
                .is_some()
        );
        let big = Grid::new(5, goal);
        let (five, groups) = catalogue("z1,2;3,4", 5, goal);
        assert!(
            UnrolledPartitions::<1>::new(&TablesView::new(&big, &five, &groups, true)).is_none()
        );
    }
}
