//! The additive heuristic of two plain tables on boards up to 4x4 (7-8 and
//! its kin, the default of the 15-puzzle), written for speed: the same
//! estimates as [`Additive`](crate::additive::Additive), node for node, in
//! far fewer instructions.
//!
//! Three things make it lean. Each child's new ranks are computed once, when
//! search decides to enter its parent ([`Heuristic::prepare_children`]),
//! and kept in the parent's state: the same computation tells which entries
//! to prefetch, so the lookups a level later find them in cache and cost no
//! rank arithmetic. A rank update is a sum of table reads with no branch: the
//! move's geometry (the cells it crosses, in the board and in its mirror
//! image) is precomputed per cell and direction, and what each crossed tile
//! does to the moving tile's digit is precomputed per pair of tiles. And with
//! two tables there is no partition, membership or table-kind loop at all.

use crate::additive::geometry::{
    cross_change, crossings, each_move_among, nibble_tables, placement, CheckedSet, Reflection,
};
use crate::additive::TablesView;
use crate::additive::MAX_PATTERN_TILES;
use crate::grid::{Grid, Position};
use crate::heuristic::{update_by_within, Heuristic, MoveSet};
use crate::prefetch::prefetch_byte;

/// The largest side taken: a move crosses at most three cells.
const MAX_SIDE: usize = 4;
const CELLS: usize = MAX_SIDE * MAX_SIDE;
/// A cell no tile ever stands on (the blank's tile, 0, reads there), for
/// the crossed-cell lists of moves that cross fewer than three cells.
const NO_CELL: u8 = u8::MAX;
/// The tables of a view: 0 and 1, or none.
const NO_TABLE: u8 = 2;

/// One table's entries.
struct Table<'a> {
    entries: &'a [u8],
}

/// A move's geometry in one view, as this strategy reads it: the cells it
/// crosses, whether it is vertical there, and the sign of the tile's cell
/// change (1 or -1 as a two's complement); 12 bytes, where the shared
/// [`crate::additive::geometry::Crossing`] takes 20.
#[derive(Clone, Copy)]
struct Crossing {
    crossed: [u8; 3],
    vertical: bool,
    sign: u32,
}

/// The board's view (index 0) or the mirror's (index 1) of the tiles.
struct View {
    /// The table holding each tile, or `NO_TABLE`.
    table_of: [u8; CELLS],
    /// The change of each tile's digit's value in its table's rank when it
    /// moves sideways (`[0]`) or vertically (`[1]`) to a higher cell, but
    /// for the tiles it crosses.
    step: [[u32; 2]; CELLS],
    /// `cross[x][y]`: the change of the rank when tile `x` moves to a higher
    /// cell past tile `y` (a tile of another table changes nothing; an
    /// earlier tile of the same table is not counted in `x`'s digit; a
    /// later one counts `x` no more), as a two's complement.
    cross: [[u32; CELLS]; CELLS],
    /// `crossing[from][direction]`: the move of the tile on `from` into
    /// the blank beside it, seen in this view.
    crossing: [[Crossing; 4]; CELLS],
}

/// What search keeps per node.
#[derive(Clone, Copy)]
pub struct PreparedRanksState {
    now: Tables,
    /// The rank each child's move leads to, by the move's direction and
    /// view (in the table holding the moving tile in that view); filled by
    /// `prepare_children`.
    next: [[u32; 2]; 4],
}

/// `[view][table]`: the placement's rank, the Manhattan distance of the
/// table's tiles and the table's value (the distance plus twice the entry).
#[derive(Clone, Copy)]
struct Tables {
    rank: [[u32; 2]; 2],
    manhattan: [[u8; 2]; 2],
    value: [[u8; 2]; 2],
}

/// Two additive tables (with the reflected lookup when asked), for boards
/// up to 4x4, stored as plain tables with nibble entries.
pub struct PreparedRanks<'a> {
    tables: [Table<'a>; 2],
    views: [View; 2],
    grid: Grid,
    /// The tiles of each table, in rank order, and their mirror images.
    tiles: [Vec<u8>; 2],
    mirror_sources: [Vec<u8>; 2],
    rankers: [&'a npuzzle_pdb::Ranker; 2],
    transpose: [u8; CELLS],
    /// `distance[tile][cell]`: the grid distance to the tile's home.
    distance: [[u8; CELLS]; CELLS],
    reflect: bool,
}

/// The direction of the move from `from` into the blank on `to`: a slot of
/// `PreparedRanksState::next`, the move's place in `Move::ALL` (so that search,
/// which has the move, needs no lookup).
#[inline(always)]
pub(crate) fn direction(from: u8, to: u8) -> usize {
    DIRECTION[from.wrapping_sub(to) as usize & (CELLS - 1)] as usize
}

/// `direction` by `from - to` (mod 16), unique on boards up to 4x4: the
/// tile comes from below (`n`: up, 0), from above (`-n`: down, 1), from the
/// right (1: left, 2) or from the left (-1: right, 3).
const DIRECTION: [u8; CELLS] = [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 3];

impl<'a> PreparedRanks<'a> {
    /// The heuristic over `pdbs`, or `None` unless they are two plain tables
    /// with nibble entries, for `grid`'s board of side at most 4, with no
    /// tile in both (the general heuristic takes every other case, and
    /// reports what is wrong with tables it cannot use).
    pub(crate) fn new<D: AsRef<[u8]> + Sync>(set: &TablesView<'a, D>) -> Option<Self> {
        let (grid, pdbs, groups, reflect) = set.parts();
        let n = grid.n;
        if groups != [2] || n > MAX_SIDE || !nibble_tables(pdbs, MAX_PATTERN_TILES, 0) {
            return None;
        }
        CheckedSet::check(grid, pdbs, groups).ok()?;
        let cells = n * n;
        let reflection = Reflection::new(grid);
        let tiles = [0, 1].map(|p| pdbs[p].pattern().tiles().to_vec());
        let mirror_sources = [0, 1].map(|p| {
            let [_, sources] = reflection.sources(&tiles[p]);
            sources
        });
        let tables = [0, 1].map(|p| Table {
            entries: pdbs[p].table(),
        });
        let views = [false, true].map(|mirror| {
            let mut table_of = [NO_TABLE; CELLS];
            let mut slot = [0usize; CELLS];
            let mut weight = [0u32; CELLS];
            for p in 0..2 {
                let ranker = pdbs[p].pattern().ranker();
                for (s, &t) in tiles[p].iter().enumerate() {
                    // In the mirror's view, table p's slot s holds the mirror
                    // image of its tile.
                    let x = if mirror { reflection.tile(t) } else { t } as usize;
                    table_of[x] = p as u8;
                    slot[x] = s;
                    weight[x] = ranker.weight(s) as u32;
                }
            }
            let mut cross = [[0u32; CELLS]; CELLS];
            for x in 1..cells {
                for y in 1..cells {
                    if table_of[x] != NO_TABLE && table_of[x] == table_of[y] && x != y {
                        cross[x][y] = cross_change(slot[x], weight[x], slot[y], weight[y], false);
                    }
                }
            }
            let crossing = crossings::<3, CELLS>(grid, mirror, NO_CELL, direction).map(|row| {
                row.map(|seen| Crossing {
                    crossed: seen.crossed,
                    vertical: seen.vertical,
                    sign: seen.sign,
                })
            });
            View {
                table_of,
                step: weight.map(|w| [w, w * n as u32]),
                cross,
                crossing,
            }
        });
        Some(PreparedRanks {
            tables,
            views,
            grid: grid.clone(),
            tiles,
            mirror_sources,
            rankers: [0, 1].map(|p| pdbs[p].pattern().ranker()),
            transpose: reflection.cells(),
            distance: grid.distance_table(),
            reflect,
        })
    }

    /// The value of table `table` at `rank`, its tiles `manhattan` away.
    #[inline(always)]
    fn entry(&self, table: usize, rank: u32, manhattan: u8) -> u8 {
        let entries = self.tables[table].entries;
        let byte = entries.get(rank as usize / 2).copied().unwrap_or(0);
        manhattan + 2 * ((byte >> (4 * (rank % 2))) & 0xF)
    }

    /// Fills `state.next` for the moves out of `position` (which `state`
    /// describes) that are among `moves`, and asks for the
    /// entries they will read.
    #[inline(always)]
    fn fill_next(&self, state: &mut PreparedRanksState, position: &Position, moves: MoveSet) {
        each_move_among(&self.grid, position, moves, |tile, from, direction| {
            self.fill_view::<0>(state, position, tile, from, direction);
            if self.reflect {
                self.fill_view::<1>(state, position, tile, from, direction);
            }
        });
    }

    /// The rank, in `VIEW`, of the table holding `tile` after `tile` moved
    /// from `from` in `direction` (`position` showing either side), into
    /// `state.next`; its entry is asked for.
    #[inline(always)]
    fn fill_view<const VIEW: usize>(
        &self,
        state: &mut PreparedRanksState,
        position: &Position,
        tile: u8,
        from: u8,
        direction: usize,
    ) {
        let v = &self.views[VIEW];
        let t = tile as usize & (CELLS - 1);
        let table = v.table_of[t];
        if table == NO_TABLE {
            return;
        }
        let p = table as usize & 1;
        let Crossing {
            crossed,
            vertical,
            sign,
        } = v.crossing[from as usize & (CELLS - 1)][direction];
        let cross = &v.cross[t];
        let read = |cell: u8| cross[position.tiles[cell as usize] as usize & (CELLS - 1)];
        let change = v.step[t][vertical as usize]
            .wrapping_add(read(crossed[0]))
            .wrapping_add(read(crossed[1]))
            .wrapping_add(read(crossed[2]));
        let next = state.now.rank[VIEW][p].wrapping_add(change.wrapping_mul(sign));
        state.next[direction][VIEW] = next;
        // Asked for whatever the table's size: the rank is computed anyway,
        // and a line already in cache costs the hint alone.
        prefetch_byte(self.tables[p].entries, next as usize / 2);
    }

    /// Table `p`'s rank, Manhattan distance and value in the board or its
    /// mirror, from scratch.
    fn evaluate(&self, p: usize, mirror: bool, position: &Position) -> (u32, u8, u8) {
        let sources = if mirror {
            &self.mirror_sources[p]
        } else {
            &self.tiles[p]
        };
        let mirror = mirror.then_some(&self.transpose[..]);
        let (placement, manhattan) =
            placement(&self.grid, position, &self.tiles[p], sources, mirror);
        let manhattan = manhattan as u8;
        let rank = self.rankers[p].rank(&placement[..sources.len()]) as u32;
        (rank, manhattan, self.entry(p, rank, manhattan))
    }
}

impl Heuristic for PreparedRanks<'_> {
    type State = PreparedRanksState;
    /// The children's ranks are in the parent's state.
    const UPDATE_READS_POSITION: bool = false;

    fn name(&self) -> &'static str {
        crate::additive::Strategy::PreparedRanks.name()
    }

    fn init(&self, position: &Position) -> PreparedRanksState {
        let mut state = PreparedRanksState {
            now: Tables {
                rank: [[0; 2]; 2],
                manhattan: [[0; 2]; 2],
                value: [[0; 2]; 2],
            },
            next: [[0; 2]; 4],
        };
        for view in 0..1 + self.reflect as usize {
            for p in 0..2 {
                let (rank, manhattan, value) = self.evaluate(p, view == 1, position);
                state.now.rank[view][p] = rank;
                state.now.manhattan[view][p] = manhattan;
                state.now.value[view][p] = value;
            }
        }
        self.fill_next(&mut state, position, MoveSet::ALL);
        state
    }

    #[inline(always)]
    fn value(&self, state: &PreparedRanksState) -> u32 {
        let [board, mirror] = state.now.value;
        (board[0] as u32 + board[1] as u32).max(mirror[0] as u32 + mirror[1] as u32)
    }

    fn update(
        &self,
        state: &PreparedRanksState,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> PreparedRanksState {
        let mut child = update_by_within(self, state, position, tile, from, to);
        self.fill_next(&mut child, position, MoveSet::ALL);
        child
    }

    /// Reads the entries of the ranks `prepare_children` left in `state`:
    /// the board's first, the mirror's only when the board's sum is within
    /// `limit` (as the general heuristic does, so that the cut-off values,
    /// and so the bounds and node counts, are the same).
    #[inline(always)]
    fn update_within(
        &self,
        state: &PreparedRanksState,
        _position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        limit: u32,
        child: &mut PreparedRanksState,
    ) -> u32 {
        // The children's ranks are filled when search enters the child.
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
            let table = self.views[view].table_of[t];
            // A tile in neither table leaves the view's sum as it was,
            // unchecked, as in the general heuristic.
            let sum = if table != NO_TABLE {
                let p = table as usize & 1;
                let rank = state.next[direction][view];
                let manhattan = now.manhattan[view][p].wrapping_add(change);
                let value = self.entry(p, rank, manhattan);
                let other = now.value[view][p ^ 1];
                now.rank[view][p] = rank;
                now.manhattan[view][p] = manhattan;
                now.value[view][p] = value;
                let sum = value as u32 + other as u32;
                if sum > limit {
                    return sum;
                }
                sum
            } else {
                now.value[view][0] as u32 + now.value[view][1] as u32
            };
            h = h.max(sum);
        }
        h
    }

    #[inline(always)]
    fn prepare_children(
        &self,
        state: &mut PreparedRanksState,
        position: &Position,
        moves: MoveSet,
    ) {
        self.fill_next(state, position, moves);
    }
}

#[cfg(test)]
mod tests {
    use npuzzle_board::Goal;
    use npuzzle_pdb::testing::TestBytes;
    use npuzzle_pdb::Partition;
    use npuzzle_pdb::Pdb;

    use super::*;
    use crate::additive::Pair;
    use crate::testing::assert_follows_move_by_move;

    fn tables(name: &str, size: usize, goal: Goal) -> Vec<Pdb<TestBytes>> {
        Partition::parse(name, size, goal)
            .unwrap()
            .patterns()
            .iter()
            .map(npuzzle_pdb::testing::table)
            .collect()
    }

    /// Sets with every tile in a table and sets with tiles in none, on each
    /// board size taken.
    const SETS: [(usize, &str); 5] = [
        (2, "1;2,3"),
        (3, "4-4"),
        (3, "1,2,3;5,6,7"),
        (4, "1,2,5,6,9;3,4,7,8,12"),
        (4, "1,2,3,4,5;10,11,14,15,12"),
    ];

    /// Walking as search does (never straight back, each child's ranks
    /// filled when it is entered), the estimate and every cut-off value
    /// agree with the general heuristic, and the ranks with a fresh
    /// evaluation.
    #[test]
    fn follows_the_general_heuristic_move_by_move() {
        for (size, name) in SETS {
            for goal in Goal::ALL {
                let pdbs = tables(name, size, goal);
                let grid = Grid::new(size, goal);
                for reflect in [false, true] {
                    let two =
                        PreparedRanks::new(&TablesView::new(&grid, &pdbs, &[2], reflect)).unwrap();
                    let general = Pair::with_capacity(&grid, &pdbs, &[2], reflect).unwrap();
                    let seed = size as u64 * 31 + reflect as u64;
                    assert_follows_move_by_move(&grid, (&two, &general), seed, name, |a, b| {
                        a.now.rank == b.now.rank
                    });
                }
            }
        }
    }

    /// A move's slot in the state, found from its cells, is the move's.
    #[test]
    fn directions_are_the_moves() {
        for n in 2..=MAX_SIDE {
            for goal in Goal::ALL {
                let grid = Grid::new(n, goal);
                for blank in 0..(n * n) as u8 {
                    for &(from, mv) in grid.neighbors(blank) {
                        assert_eq!(direction(from, blank), mv as usize, "{n} {from} {blank}");
                    }
                }
            }
        }
    }

    /// Only two plain tables with nibble entries on boards up to 4x4 are
    /// taken; the general heuristic takes the rest.
    #[test]
    fn takes_only_what_it_was_written_for() {
        let goal = Goal::BlankLast;
        let grid = Grid::new(3, goal);
        assert!(
            PreparedRanks::new(&TablesView::new(&grid, &tables("4-4", 3, goal), &[2], true))
                .is_some()
        );
        assert!(PreparedRanks::new(&TablesView::new(
            &grid,
            &tables("4z-4", 3, goal),
            &[2],
            true
        ))
        .is_none());
        assert!(PreparedRanks::new(&TablesView::new(
            &grid,
            &tables("1,2,3;4,5,6;7,8", 3, goal),
            &[2],
            true
        ))
        .is_none());
        assert!(PreparedRanks::new(&TablesView::new(
            &grid,
            &tables("1,2,3,4", 3, goal),
            &[2],
            true
        ))
        .is_none());
        let other_goal = tables("4-4", 3, Goal::BlankFirst);
        assert!(PreparedRanks::new(&TablesView::new(&grid, &other_goal, &[2], true)).is_none());
    }
}
