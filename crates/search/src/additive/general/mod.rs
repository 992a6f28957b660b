//! The heuristic itself: the tables' sums, maxed over partitions and with
//! the reflected board, updated move by move, for any capacity (the
//! variants `Pair`, `Compact`, `Large` and `Huge` differ only in it).

mod index;
mod setup;
mod update;

use npuzzle_pdb::regions::Regions;
use npuzzle_pdb::{Encoding, IndexScheme, Pdb};

use super::limits::{
    COMPACT_GROUPS, COMPACT_PATTERNS, HUGE_GROUPS, HUGE_PATTERNS, LARGE_GROUPS, LARGE_PATTERNS,
    MAX_GROUPS, MAX_PATTERNS, MAX_PATTERN_TILES, PAIR_PATTERNS,
};
use crate::additive::error::AdditiveError;
use crate::grid::{Grid, Position};
use crate::heuristic::{update_by_within, Heuristic, MoveSet};
use crate::prefetch::{prefetch, prefetch_byte, NEAR_ENTRIES, PREFETCH_MIN_BYTES};

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

/// The heuristic for catalogues too large for the common one: up to 16
/// distinct tables in up to 8 partitions, at twice the state per node.
pub type Large<'a, D> = Additive<'a, D, LARGE_PATTERNS, LARGE_GROUPS>;

/// The heuristic for the largest catalogues: up to 32 distinct tables in
/// up to 16 partitions.
pub type Huge<'a, D> = Additive<'a, D, HUGE_PATTERNS, HUGE_GROUPS>;

/// The heuristic for one partition of at most two tables (7-8, 7z-8): the
/// search copies its state at every node, and this one is a quarter of the
/// common one's (36 bytes instead of 144), which takes a fifth off the
/// time of a long 15-puzzle search.
pub type Pair<'a, D> = Additive<'a, D, PAIR_PATTERNS, 1>;

/// The heuristic for the other usual sets (up to 4 distinct tables in up
/// to 2 partitions: 6-6-3, 6-6-6-6, the 15-puzzle's duo), at half the
/// common one's state.
pub type Compact<'a, D> = Additive<'a, D, COMPACT_PATTERNS, COMPACT_GROUPS>;

impl<D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Heuristic for Additive<'_, D, P, G> {
    type State = AdditiveState<P, G>;

    fn name(&self) -> &'static str {
        super::Strategy::General.name()
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
        moves: MoveSet,
    ) {
        if self.prefetched != 0 {
            self.far_child_entries(state, position, moves, |p, byte| {
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
        update_by_within(self, state, position, tile, from, to)
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

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::{random_board, Goal, SplitMix64};
    use npuzzle_pdb::testing::TestBytes;
    use npuzzle_pdb::Partition;

    use crate::testing::random_slide;

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
                let pdbs: Vec<Pdb<TestBytes>> = partition
                    .patterns()
                    .iter()
                    .map(npuzzle_pdb::testing::table)
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
        let pdbs: Vec<Pdb<TestBytes>> = partition
            .patterns()
            .iter()
            .map(npuzzle_pdb::testing::table)
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
            let moves = MoveSet::all_but_to(&grid, blank, parent_blank);
            additive.far_child_entries(&state, &position, moves, |p, byte| asked.push((p, byte)));
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
        let parts = crate::testing::SHARING_CATALOGUE;
        let catalogue = Partition::parse(&parts.join("+"), 3, goal).unwrap();
        let pdbs: Vec<Pdb<TestBytes>> = catalogue
            .patterns()
            .iter()
            .map(npuzzle_pdb::testing::table)
            .collect();
        let grid = Grid::new(3, goal);
        assert!(matches!(
            Additive::with_groups(&grid, &pdbs, catalogue.groups(), true).err(),
            Some(AdditiveError::TooManyPatterns { count: 15, .. })
        ));
        let large = Large::with_capacity(&grid, &pdbs, catalogue.groups(), true).unwrap();
        assert_eq!(large.tables.len(), 15);
        // Each partition alone, in the common heuristic.
        let mut first = 0;
        let alone: Vec<Additive<'_, TestBytes>> = catalogue
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
