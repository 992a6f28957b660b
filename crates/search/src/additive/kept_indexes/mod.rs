//! The additive heuristic of several tables, plain or zero-aware by region,
//! in one partition or a catalogue, on boards up to 5x5 (6z-6z-6z-6z,
//! septet, duo, trio, 7z-8), written for speed: the same estimates as
//! [`Additive`](crate::additive::Additive), node for node.
//!
//! What the general heuristic works out per lookup is here either carried
//! or precomputed. The state keeps, per table and view, what the index is
//! updated from: a plain table's rank; a zero-aware table's cell set (a
//! bit mask) and order number (the order of its tiles on those cells).
//! A move changes them by sums of table reads, as in the two-table
//! heuristic: the cells it crosses are precomputed per cell and direction,
//! and what each crossed tile does to the moving tile's digit per pair of
//! tiles and table. The set's rank, its record and the blank's region
//! follow from the mask with a few loads from the shared region numbering.
//! And when search decides to enter a node, every entry its children will
//! read is located and asked for ([`Heuristic::prepare_children`]), so
//! that their cache misses overlap with the work of the node's siblings;
//! the node keeps the indexes, so a child's update reads its entries and
//! computes no index again.

mod heuristic;
mod view;

use npuzzle_pdb::regions::Regions;

use crate::additive::geometry::{nibble_tables, placement, CheckedSet, Reflection};
use crate::additive::TablesView;
use crate::grid::{Grid, Position};
use crate::heuristic::{update_by_within, Heuristic, MoveSet};
use crate::prefetch::{prefetch, prefetch_byte, PREFETCH_MIN_BYTES};
use view::{prepared_row, Crossing, SetRanks, Table, View, CELLS, CROSSED, MAX_SIDE};

/// What search keeps per node of one table in one view: the index key (a
/// plain table's rank, a zero-aware table's cell mask), a zero-aware
/// table's order number, the tiles' Manhattan distance and the table's
/// value, in one word, so that a move reads and writes it whole.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
#[repr(C, align(8))]
struct TableState {
    key: u32,
    order: u16,
    manhattan: u8,
    value: u8,
}

/// What search keeps per node: each table's state by view, and each
/// partition's sum. Then what [`Heuristic::prepare_children`] worked out
/// for the children, which a child does not inherit.
#[derive(Clone, Copy)]
pub struct KeptIndexesState<const P: usize, const G: usize> {
    tables: [[TableState; P]; 2],
    sum: [[u16; G]; 2],
    /// Bit `d`: the move in direction `d` is prepared.
    ready: u8,
    /// `[direction * 2 + view][k]`: the entry index and (zero-aware) order
    /// number of the moved tile's `k`-th table after that move (apart: the
    /// state is copied whole above the split depth).
    prepared_index: [[u32; G]; 8],
    prepared_order: [[u16; G]; 8],
}

/// Up to `P` distinct tables with nibble entries, plain or zero-aware by
/// region, in up to `G` partitions, on boards up to 5x5.
pub struct KeptIndexes<'a, const P: usize, const G: usize> {
    tables: Vec<Table<'a>>,
    /// Each table's entries and numbering (empty past the tables), in
    /// arrays of `P`, which the hot path indexes without bounds checks.
    entries: [&'a [u8]; P],
    regions: [Option<&'a Regions>; P],
    views: [View<G>; 2],
    /// `(partition, table)` of each table given.
    slots: Vec<(u8, u8)>,
    /// `member[p][g]`: all ones where partition `g` holds table `p`, so that
    /// a change of the table's value moves every sum it is in at once.
    member: [[u16; G]; P],
    grid: Grid,
    transpose: [u8; CELLS],
    /// `distance[tile][cell]`: the grid distance to the tile's home.
    distance: [[u8; CELLS]; CELLS],
    /// `(from - to) mod 32` to the move's direction.
    direction: [u8; CELLS],
    set_ranks: &'static SetRanks,
    reflect: bool,
    /// Whether some table is too large to stay in cache, so that asking for
    /// the children's entries ahead pays.
    prefetch: bool,
}

impl<'a, const P: usize, const G: usize> KeptIndexes<'a, P, G> {
    /// The heuristic over `pdbs`, in partitions of `groups[i]` tables, or
    /// `None` unless every table is plain or zero-aware by region with
    /// nibble entries, for `grid`'s board of side at most 5, the patterns
    /// of a partition disjoint, and the counts within `P` and `G` (the
    /// general heuristic takes every other case, and reports what is
    /// wrong with tables it cannot use).
    pub(crate) fn new<D: AsRef<[u8]> + Sync>(set: &TablesView<'a, D>) -> Option<Self> {
        let (grid, pdbs, groups, reflect) = set.parts();
        // Per-tile rows are indexed `[tile][k]` under masks (other
        // counts would read wrong rows), and table numbers reduced `% P`, a
        // mask only for a power of two; a partition's over-limit flag is a
        // byte of one of two u64s.
        const { assert!(G.is_power_of_two() && P.is_power_of_two() && G <= 16) };
        let n = grid.n;
        if n > MAX_SIDE || groups.len() > G || !nibble_tables(pdbs, 8, 8) {
            return None;
        }
        let CheckedSet {
            distinct,
            table_of: table_of_slot,
            group_of,
        } = CheckedSet::check(grid, pdbs, groups).ok()?;
        if distinct.len() > P {
            return None;
        }
        let reflection = Reflection::new(grid);
        let tables: Vec<Table<'a>> = distinct
            .iter()
            .map(|&s| {
                let pattern = pdbs[s].pattern();
                let tiles = pattern.tiles().to_vec();
                Table {
                    entries: pdbs[s].table(),
                    regions: pdbs[s].regions(),
                    ranker: pattern.ranker(),
                    sources: reflection.sources(&tiles),
                    tiles,
                }
            })
            .collect();
        let mut direction = [0u8; CELLS];
        for (d, difference) in [n, CELLS - n, 1, CELLS - 1].into_iter().enumerate() {
            direction[difference] = d as u8;
        }
        let board = View::new(grid, &tables, &table_of_slot, &group_of, 0, &direction)?;
        let mirror = View::new(grid, &tables, &table_of_slot, &group_of, 1, &direction)?;
        let mut member = [[0u16; G]; P];
        for (&p, &g) in table_of_slot.iter().zip(&group_of) {
            member[p][g] = u16::MAX;
        }
        Some(KeptIndexes {
            member,
            entries: std::array::from_fn(|p| tables.get(p).map_or(&[][..], |t| t.entries)),
            regions: std::array::from_fn(|p| tables.get(p).and_then(|t| t.regions)),
            prefetch: tables.iter().any(|t| t.entries.len() >= PREFETCH_MIN_BYTES),
            tables,
            views: [board, mirror],
            slots: table_of_slot
                .iter()
                .zip(&group_of)
                .map(|(&p, &g)| (g as u8, p as u8))
                .collect(),
            grid: grid.clone(),
            transpose: reflection.cells(),
            distance: grid.distance_table(),
            direction,
            set_ranks: SetRanks::shared(),
            reflect,
        })
    }

    /// The direction of the move from `from` into the blank on `to`.
    #[inline(always)]
    fn direction(&self, from: u8, to: u8) -> usize {
        self.direction[from.wrapping_sub(to) as usize & (CELLS - 1)] as usize
    }

    /// The key, order number and entry index of table `p` (the `k`-th
    /// table of `tile` in `VIEW`) after `tile`'s move `crossing`, from the
    /// parent's key and order; `crossed` are the tiles on the cells it
    /// crosses.
    #[inline(always)]
    fn locate<const VIEW: usize>(
        &self,
        state: &KeptIndexesState<P, G>,
        tile: usize,
        k: usize,
        p: usize,
        crossing: &Crossing,
        crossed: [u8; CROSSED],
    ) -> (u32, u16, u64) {
        let p = p % P;
        let old = state.tables[VIEW][p];
        let key = old.key;
        match self.regions[p] {
            Some(regions) => {
                let mask = key ^ crossing.flip;
                let change = self.order_change::<VIEW>(tile, k, crossing, crossed);
                let order = old.order.wrapping_add(change);
                let set = self.set_ranks.rank(mask);
                let index = regions.index_in_packed_set(set, order as u64, crossing.blank_after);
                (mask, order, index)
            }
            None => {
                let rank = key.wrapping_add(self.rank_change::<VIEW>(tile, k, crossing, crossed));
                (rank, 0, rank as u64)
            }
        }
    }

    /// The change of the rank of the `k`-th table of `tile` in `VIEW`, a
    /// plain one, under its move `crossing`, the tiles on the cells it
    /// crosses being `crossed`.
    #[inline(always)]
    fn rank_change<const VIEW: usize>(
        &self,
        tile: usize,
        k: usize,
        crossing: &Crossing,
        crossed: [u8; CROSSED],
    ) -> u32 {
        let v = &self.views[VIEW];
        let cross = &v.cross[tile & (CELLS - 1)][k & (G - 1)];
        let mut change = v.step[tile][k][crossing.vertical as usize];
        for y in crossed {
            change = change.wrapping_add(cross[y as usize & (CELLS - 1)]);
        }
        if crossing.up {
            change
        } else {
            change.wrapping_neg()
        }
    }

    /// The same for the order number of a zero-aware table.
    #[inline(always)]
    fn order_change<const VIEW: usize>(
        &self,
        tile: usize,
        k: usize,
        crossing: &Crossing,
        crossed: [u8; CROSSED],
    ) -> u16 {
        let cross = &self.views[VIEW].order_cross[tile & (CELLS - 1)][k & (G - 1)];
        let mut change = 0u16;
        for y in crossed {
            change = change.wrapping_add(cross[y as usize & (CELLS - 1)]);
        }
        if crossing.up {
            change
        } else {
            change.wrapping_neg()
        }
    }

    /// The tiles on the cells `crossing` crosses.
    #[inline(always)]
    fn crossed_tiles(crossing: &Crossing, position: &Position) -> [u8; CROSSED] {
        crossing.crossed.map(|cell| position.tiles[cell as usize])
    }

    /// Table `p`'s value at `index`, its tiles `manhattan` away.
    #[inline(always)]
    fn entry(&self, p: usize, index: u64, manhattan: u8) -> u8 {
        let entries = self.entries[p % P];
        let byte = entries.get(index as usize / 2).copied().unwrap_or(0);
        manhattan.wrapping_add(2 * ((byte >> (4 * (index % 2))) & 0xF))
    }

    /// Reads table `p`'s entry at the located `(key, order, index)` into
    /// `child`, its tiles' Manhattan distance changed by `change`, and moves
    /// the sums of the partitions holding it.
    #[inline(always)]
    fn take_value<const VIEW: usize>(
        &self,
        state: &KeptIndexesState<P, G>,
        p: usize,
        (key, order, index): (u32, u16, u64),
        change: u8,
        child: &mut KeptIndexesState<P, G>,
        sums: &mut [u16; G],
    ) {
        let old = state.tables[VIEW][p];
        let manhattan = old.manhattan.wrapping_add(change);
        let value = self.entry(p, index, manhattan);
        child.tables[VIEW][p] = TableState {
            key,
            order,
            manhattan,
            value,
        };
        let delta = (value as u16).wrapping_sub(old.value as u16);
        for (sum, &member) in sums.iter_mut().zip(&self.member[p]) {
            *sum = sum.wrapping_add(member & delta);
        }
    }

    /// Brings `VIEW` of `child` up to date for `tile`'s move from `from` in
    /// `direction` (the Manhattan distance changing by `change`), and the
    /// sums of the partitions; returns the first sum above `limit` among
    /// the partitions holding the tile, as the general heuristic does.
    /// A move that `prepare_children` worked out for `state` takes its
    /// indexes from there.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // the move, the bound and where to write
    fn update_view<const VIEW: usize>(
        &self,
        state: &KeptIndexesState<P, G>,
        position: &Position,
        tile: usize,
        from: u8,
        direction: usize,
        change: u8,
        limit: u32,
        child: &mut KeptIndexesState<P, G>,
    ) -> Option<u32> {
        let v = &self.views[VIEW];
        let crossing = &v.crossing[from as usize & (CELLS - 1)][direction & 3];
        let prepared = prepared_row::<VIEW>(direction);
        let ready = state.ready >> (direction & 3) & 1 == 1;
        let mut sums = state.sum[VIEW];
        let tables = &v.tables_of[tile];
        let count = (v.tables_count[tile] as usize).min(G);
        // Two loops: the one that works indexes out holds its loop-invariant
        // addresses to itself.
        if ready {
            for k in 0..count {
                let p = tables[k & (G - 1)] as usize % P;
                let index = state.prepared_index[prepared][k & (G - 1)];
                let (key, order) = match self.regions[p] {
                    Some(_) => (
                        state.tables[VIEW][p].key ^ crossing.flip,
                        state.prepared_order[prepared][k & (G - 1)],
                    ),
                    None => (index, 0),
                };
                self.take_value::<VIEW>(
                    state,
                    p,
                    (key, order, index as u64),
                    change,
                    child,
                    &mut sums,
                );
            }
        } else {
            let crossed = Self::crossed_tiles(crossing, position);
            for k in 0..count {
                let p = tables[k & (G - 1)] as usize % P;
                let located = self.locate::<VIEW>(state, tile, k, p, crossing, crossed);
                self.take_value::<VIEW>(state, p, located, change, child, &mut sums);
            }
        }
        child.sum[VIEW] = sums;
        let limit = limit.min(u16::MAX as u32) as u16;
        let mut over = [0u8; 16];
        for (flag, &sum) in over.iter_mut().zip(&sums) {
            *flag = if sum > limit { u8::MAX } else { 0 };
        }
        let holds = &v.holds[tile];
        for word in 0..G.div_ceil(8) {
            let flags = u64::from_le_bytes(std::array::from_fn(|b| over[(word * 8 + b) & 15]));
            let over = flags & holds[word & 1];
            if over != 0 {
                let g = word * 8 + over.trailing_zeros() as usize / 8;
                return Some(sums[g & (G - 1)] as u32);
            }
        }
        None
    }

    /// Works out the indexes the move of `tile` from `from` in `direction`
    /// will read in `VIEW`, into `state`, and asks for their entries when
    /// the tables leave the cache: a plain table's index is its rank; a
    /// zero-aware table's needs its set record, which is asked for now and
    /// read in `finish_view`, so that all the records' cache misses
    /// overlap; meanwhile its slot holds the set's rank.
    #[inline(always)]
    fn prepare_view<const VIEW: usize>(
        &self,
        state: &mut KeptIndexesState<P, G>,
        position: &Position,
        (tile, from, direction): (usize, u8, usize),
    ) {
        let v = &self.views[VIEW];
        let crossing = &v.crossing[from as usize & (CELLS - 1)][direction & 3];
        let crossed = Self::crossed_tiles(crossing, position);
        let prepared = prepared_row::<VIEW>(direction);
        let tables = &v.tables_of[tile];
        for k in 0..(v.tables_count[tile] as usize).min(G) {
            let p = tables[k & (G - 1)] as usize % P;
            let k = k & (G - 1);
            match self.regions[p] {
                Some(regions) => {
                    let old = state.tables[VIEW][p];
                    let mask = old.key ^ crossing.flip;
                    let change = self.order_change::<VIEW>(tile, k, crossing, crossed);
                    let order = old.order.wrapping_add(change);
                    let set = self.set_ranks.rank(mask);
                    if self.prefetch {
                        prefetch(regions.set_record(set));
                    }
                    state.prepared_order[prepared][k] = order;
                    state.prepared_index[prepared][k] = set as u32;
                }
                None => {
                    let change = self.rank_change::<VIEW>(tile, k, crossing, crossed);
                    let rank = state.tables[VIEW][p].key.wrapping_add(change);
                    state.prepared_index[prepared][k] = rank;
                    if self.prefetch {
                        prefetch_byte(self.entries[p], rank as usize / 2);
                    }
                }
            }
        }
    }

    /// The second round of `prepare_view`: the zero-aware tables' entry
    /// indexes from their set records, and their entries asked for.
    #[inline(always)]
    fn finish_view<const VIEW: usize>(
        &self,
        state: &mut KeptIndexesState<P, G>,
        (tile, from, direction): (usize, u8, usize),
    ) {
        let v = &self.views[VIEW];
        let blank = v.crossing[from as usize & (CELLS - 1)][direction & 3].blank_after;
        let prepared = prepared_row::<VIEW>(direction);
        let tables = &v.tables_of[tile];
        for k in 0..(v.tables_count[tile] as usize).min(G) {
            let p = tables[k & (G - 1)] as usize % P;
            let k = k & (G - 1);
            if let Some(regions) = self.regions[p] {
                let set = state.prepared_index[prepared][k] as usize;
                let order = state.prepared_order[prepared][k] as u64;
                let index = regions.index_in_packed_set(set, order, blank);
                state.prepared_index[prepared][k] = index as u32;
                if self.prefetch {
                    prefetch_byte(self.entries[p], index as usize / 2);
                }
            }
        }
    }

    /// Table `p`'s key, order number, Manhattan distance and value in the
    /// board or its mirror, from scratch.
    fn evaluate(&self, p: usize, view: usize, position: &Position) -> (u32, u16, u8, u8) {
        let table = &self.tables[p];
        let transpose = |cell: u8| {
            if view == 1 {
                self.transpose[cell as usize]
            } else {
                cell
            }
        };
        let mirror = (view == 1).then_some(&self.transpose[..]);
        let (placement, manhattan) = placement(
            &self.grid,
            position,
            &table.tiles,
            &table.sources[view],
            mirror,
        );
        let manhattan = manhattan as u8;
        let placement = &placement[..table.tiles.len()];
        let (key, order, index) = match table.regions {
            Some(regions) => {
                let (set, order) = regions.set_and_order(placement);
                let mask = placement.iter().fold(0u32, |m, &c| m | 1 << c);
                let blank = transpose(position.blank());
                (mask, order as u16, regions.index_in_set(set, order, blank))
            }
            None => {
                let rank = table.ranker.rank(placement) as u32;
                (rank, 0, rank as u64)
            }
        };
        (key, order, manhattan, self.entry(p, index, manhattan))
    }
}

#[cfg(test)]
mod tests {
    use npuzzle_board::{Goal, SplitMix64};

    use super::*;
    use crate::additive::{
        Additive, COMPACT_PATTERNS, HUGE_GROUPS, HUGE_PATTERNS, LARGE_GROUPS, LARGE_PATTERNS,
    };
    use crate::testing::{assert_follows_move_by_move, catalogue};

    /// Plain and zero-aware tables, alone and mixed, in one partition and
    /// in catalogues sharing tables, with tiles in no table, on each board
    /// size taken.
    const SETS: [(usize, &str); 9] = [
        (2, "z1;2,3"),
        (3, "4z-4"),
        (3, "z1,2,3;5,6,7"),
        (3, "z1,2,3,4;5,6,7,8+1,4,7,5;z2,3,6,8"),
        (3, "1,2;3,6;4,5;7,8+z1,2;z3,6;z4,5;z7,8+1,4;2,3;5,6;7,8"),
        (4, "z1,2,5,6,9;3,4,7,8,12"),
        (4, "1,2,3,4,5;z10,11,14,15,12"),
        (
            4,
            "z1,2,5,6;z3,4,7,8;z9,10,13,14;z11,12,15+z1,2,3,4;z5,6,7,8;z9,10,13,14",
        ),
        (
            5,
            "z1,2,3;z4,5,6;z7,8,9;z10,11,12;z13,14,15;z16,17,18;z19,20;z21,22,23,24\
             +z1,2,3;z4,5,6;z7,8,9;z10,11,12;z13,14,15;z16,17,18;z19,20,21;z22,23,24",
        ),
    ];

    const HUGE_SETS: [(usize, &str); 1] = [(3, crate::testing::HUGE_CATALOGUE)];

    /// One partition of up to four tables, as 6z-6z-6z-6z is searched: one
    /// sum per view.
    const ONE_PARTITION_SETS: [(usize, &str); 5] = [
        (2, "z1;2,3"),
        (3, "z1,2,3;5,6,7"),
        (3, "1,2,3;z4,5;6,7;z8"),
        (4, "z1,2,5,6;z3,4,7,8;z9,10,13,14;z11,12,15"),
        (5, "z1,2,3;z4,5,6;z7,8,9;z10,11,12"),
    ];

    /// Walking as search does (never straight back, children prepared
    /// when entered), the estimate and every cut-off value agree with the
    /// general heuristic, and the state with a fresh evaluation.
    #[test]
    fn follows_the_general_heuristic_move_by_move() {
        follow_move_by_move::<LARGE_PATTERNS, LARGE_GROUPS>(&SETS);
        follow_move_by_move::<HUGE_PATTERNS, HUGE_GROUPS>(&HUGE_SETS);
        follow_move_by_move::<COMPACT_PATTERNS, 1>(&ONE_PARTITION_SETS);
    }

    fn follow_move_by_move<const P: usize, const G: usize>(sets: &[(usize, &str)]) {
        for &(size, name) in sets {
            for goal in Goal::ALL {
                let (pdbs, groups) = catalogue(name, size, goal);
                let grid = Grid::new(size, goal);
                for reflect in [false, true] {
                    let fast =
                        KeptIndexes::<P, G>::new(&TablesView::new(&grid, &pdbs, &groups, reflect))
                            .unwrap_or_else(|| panic!("{name} is taken"));
                    let general =
                        Additive::<_, P, G>::with_capacity(&grid, &pdbs, &groups, reflect).unwrap();
                    let seed = size as u64 * 31 + reflect as u64;
                    assert_follows_move_by_move(&grid, (&fast, &general), seed, name, |a, b| {
                        a.tables == b.tables && a.sum == b.sum
                    });
                }
            }
        }
    }

    /// The chunked set ranks are the region numbering's.
    #[test]
    fn set_ranks_are_the_region_numbering() {
        let ranks = SetRanks::new();
        let mut rng = SplitMix64::new(3);
        for (n, k) in [(4, 7), (4, 8), (5, 3), (5, 6)] {
            let regions = Regions::of(n, k);
            for _ in 0..20_000 {
                let mut mask = 0u32;
                while mask.count_ones() < k as u32 {
                    mask |= 1 << rng.below((n * n) as u64);
                }
                assert_eq!(ranks.rank(mask), regions.set_rank(mask as u64), "{mask:b}");
            }
        }
    }

    /// Tables of another goal, more tables than the capacity or boards past
    /// 5x5 are left to the general heuristic.
    #[test]
    fn takes_only_what_it_was_written_for() {
        let goal = Goal::BlankLast;
        let grid = Grid::new(3, goal);
        let taken = |name: &str| {
            let (pdbs, groups) = catalogue(name, 3, goal);
            KeptIndexes::<16, 8>::new(&TablesView::new(&grid, &pdbs, &groups, true)).is_some()
        };
        assert!(taken("4z-4"));
        assert!(taken("1,2,3;4,5,6;7,8"));
        let (other_goal, groups) = catalogue("4-4", 3, Goal::BlankFirst);
        assert!(
            KeptIndexes::<16, 8>::new(&TablesView::new(&grid, &other_goal, &groups, true))
                .is_none()
        );
        let (pdbs, groups) = catalogue("1,2;3,4;5,6;7,8+1,3;2,4;5,7;6,8", 3, goal);
        assert!(KeptIndexes::<4, 2>::new(&TablesView::new(&grid, &pdbs, &groups, true)).is_none());
        let big = Grid::new(6, goal);
        let (six, groups) = catalogue("1,2", 6, goal);
        assert!(KeptIndexes::<16, 8>::new(&TablesView::new(&big, &six, &groups, true)).is_none());
    }
}
