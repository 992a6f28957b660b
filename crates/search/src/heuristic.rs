//! Admissible estimates of the distance to the goal, behind one trait that
//! lets search update them move by move instead of recomputing them.

use npuzzle_board::Move;

use crate::grid::{Grid, Position};

/// The moves out of a node that search will try, a bit per `Move`: the
/// children whose entries a heuristic asks for ahead. Search leaves out
/// the moves the pruning automaton forbids (about 7 % of those the board
/// allows on the 4x4), so their cache lines are not fetched for nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveSet(u8);

impl MoveSet {
    /// Every move.
    pub const ALL: MoveSet = MoveSet(0xF);

    /// The moves whose bits (by `Move as u8`) are set in `bits`.
    pub const fn from_bits(bits: u8) -> MoveSet {
        MoveSet(bits & 0xF)
    }

    /// Every move out of `blank` on `grid` but the one to `cell` (the way
    /// back to the parent, or none when `cell` is not a neighbour): what
    /// the tests' walks, which do not run the automaton, prepare.
    #[cfg(test)]
    pub(crate) fn all_but_to(grid: &Grid, blank: u8, cell: u8) -> MoveSet {
        let back = grid
            .neighbors(blank)
            .iter()
            .find(|&&(from, _)| from == cell)
            .map_or(0, |&(_, mv)| 1 << mv as u8);
        MoveSet(0xF & !back)
    }

    /// Whether `mv` is one of the moves.
    #[inline(always)]
    pub fn contains(self, mv: Move) -> bool {
        self.0 >> (mv as u8) & 1 != 0
    }
}

/// An admissible heuristic that search can update incrementally. `State` is
/// whatever the heuristic keeps between moves; search copies it on its stack,
/// so undoing a move costs nothing.
pub trait Heuristic: Sync {
    /// What the heuristic keeps between moves.
    type State: Copy + Send + Sync;

    /// Whether `update_within` reads `position` (which then must show the
    /// move; `update` is always given the moved position). A heuristic that
    /// finds all it needs in the parent's state lets search skip moving and
    /// restoring the tiles for the children it cuts off.
    const UPDATE_READS_POSITION: bool = true;

    /// Units of `value` per move: more than one for a guide that sums or
    /// weights estimates, so that weights added on top keep their share.
    const UNITS_PER_MOVE: u32 = 1;

    /// The name used on the command line and in reports.
    fn name(&self) -> &'static str;

    /// Evaluates a position from scratch.
    fn init(&self, position: &Position) -> Self::State;

    /// The estimate in `state`.
    fn value(&self, state: &Self::State) -> u32;

    /// A lower bound on the moves left, in moves: `value` for an
    /// admissible heuristic; a guide that is not one (the beam's) keeps
    /// the bound of what it is built on.
    #[inline(always)]
    fn bound(&self, state: &Self::State) -> u32 {
        self.value(state)
    }

    /// The state after `tile` slid from `from` to `to`; `position` already
    /// shows the move.
    fn update(
        &self,
        state: &Self::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> Self::State;

    /// Search will enter the node that `state` and `position` describe,
    /// and make no moves out of it but `moves`; it calls this first, on
    /// every node it enters but the start (whose state comes from `init` or
    /// `update`, prepared for every move). A heuristic whose lookups miss
    /// the cache may ask for those children's entries now, and may keep in
    /// `state` what it computed to find them.
    #[inline(always)]
    fn prepare_children(&self, _state: &mut Self::State, _position: &Position, _moves: MoveSet) {}

    /// The estimate of the child that `tile`'s move from `from` to `to`
    /// leads to, its state written to `child` (search passes the row where
    /// it keeps the child, so no state is copied twice). A caller that only
    /// needs to know whether the estimate exceeds `limit` lets a heuristic
    /// that is the largest of several stop at the first one above it: the
    /// value returned is then above `limit` and never above the child's
    /// true estimate, and `child` holds nothing to use.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)] // the move, the bound and where to write
    fn update_within(
        &self,
        state: &Self::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        _limit: u32,
        child: &mut Self::State,
    ) -> u32 {
        *child = self.update(state, position, tile, from, to);
        self.value(child)
    }
}

/// A borrowed heuristic is one, so that guides can wrap tables they do
/// not own.
impl<H: Heuristic> Heuristic for &H {
    type State = H::State;

    const UPDATE_READS_POSITION: bool = H::UPDATE_READS_POSITION;

    const UNITS_PER_MOVE: u32 = H::UNITS_PER_MOVE;

    fn name(&self) -> &'static str {
        (**self).name()
    }

    #[inline(always)]
    fn init(&self, position: &Position) -> Self::State {
        (**self).init(position)
    }

    #[inline(always)]
    fn value(&self, state: &Self::State) -> u32 {
        (**self).value(state)
    }

    #[inline(always)]
    fn bound(&self, state: &Self::State) -> u32 {
        (**self).bound(state)
    }

    #[inline(always)]
    fn update(
        &self,
        state: &Self::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> Self::State {
        (**self).update(state, position, tile, from, to)
    }

    #[inline(always)]
    fn prepare_children(&self, state: &mut Self::State, position: &Position, moves: MoveSet) {
        (**self).prepare_children(state, position, moves)
    }

    #[inline(always)]
    fn update_within(
        &self,
        state: &Self::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        limit: u32,
        child: &mut Self::State,
    ) -> u32 {
        (**self).update_within(state, position, tile, from, to, limit, child)
    }
}

/// `update` for a heuristic whose `update_within` does the work: the
/// child with no bound to stop at.
#[inline(always)]
pub(crate) fn update_by_within<H: Heuristic>(
    heuristic: &H,
    state: &H::State,
    position: &Position,
    tile: u8,
    from: u8,
    to: u8,
) -> H::State {
    let mut child = *state;
    heuristic.update_within(state, position, tile, from, to, u32::MAX, &mut child);
    child
}

/// The number of tiles off their goal cell: the weakest classic estimate.
pub struct Hamming {
    grid: Grid,
}

impl Hamming {
    /// The estimate for `grid`.
    pub fn new(grid: &Grid) -> Hamming {
        Hamming { grid: grid.clone() }
    }
}

impl Heuristic for Hamming {
    type State = u32;

    fn name(&self) -> &'static str {
        "hamming"
    }

    fn init(&self, position: &Position) -> u32 {
        (1..self.grid.cells())
            .filter(|&t| position.cells[t] != self.grid.home[t])
            .count() as u32
    }

    fn value(&self, state: &u32) -> u32 {
        *state
    }

    #[inline(always)]
    fn update(&self, state: &u32, _: &Position, tile: u8, from: u8, to: u8) -> u32 {
        let home = self.grid.home[tile as usize];
        *state + (from == home) as u32 - (to == home) as u32
    }
}

/// The sum of the tiles' grid distances to their goal cells.
pub struct Manhattan {
    grid: Grid,
}

impl Manhattan {
    /// The estimate for `grid`.
    pub fn new(grid: &Grid) -> Manhattan {
        Manhattan { grid: grid.clone() }
    }
}

impl Heuristic for Manhattan {
    type State = u32;

    fn name(&self) -> &'static str {
        "manhattan"
    }

    fn init(&self, position: &Position) -> u32 {
        (1..self.grid.cells())
            .map(|t| self.grid.distance(t as u8, position.cells[t]))
            .sum()
    }

    fn value(&self, state: &u32) -> u32 {
        *state
    }

    #[inline(always)]
    fn update(&self, state: &u32, _: &Position, tile: u8, from: u8, to: u8) -> u32 {
        *state + self.grid.distance(tile, to) - self.grid.distance(tile, from)
    }
}

/// Manhattan distance plus linear conflicts (Hansson, Mayer and Yung 1992):
/// tiles that are in their goal row (column) but in the wrong order must
/// leave it, two extra moves each. Per line we count the fewest tiles whose
/// removal leaves the rest in order (line length minus the longest increasing
/// run), which keeps the sum admissible.
pub struct LinearConflict {
    grid: Grid,
    /// Per tile: its goal row and column. Per cell: its row and column.
    /// Lookups, because the side is known only at run time and a division
    /// by it was a tenth of the beam's time.
    home_row: Vec<u8>,
    home_column: Vec<u8>,
    row: Vec<u8>,
    column: Vec<u8>,
}

/// Manhattan distance and the conflict count of every row and column.
#[derive(Clone, Copy)]
pub struct LinearConflictState {
    manhattan: u32,
    conflicts: u32,
    rows: [u8; 16],
    columns: [u8; 16],
}

impl LinearConflictState {
    /// The Manhattan distance part.
    pub(crate) fn manhattan(&self) -> u32 {
        self.manhattan
    }
}

impl LinearConflict {
    /// The estimate for `grid`.
    pub fn new(grid: &Grid) -> LinearConflict {
        let n = grid.n;
        let cells = grid.cells();
        LinearConflict {
            home_row: grid.home.iter().map(|&h| h / n as u8).collect(),
            home_column: grid.home.iter().map(|&h| h % n as u8).collect(),
            row: (0..cells).map(|c| (c / n) as u8).collect(),
            column: (0..cells).map(|c| (c % n) as u8).collect(),
            grid: grid.clone(),
        }
    }

    /// Tiles to remove from line `line` (a row when `row`, else a column) so
    /// that the tiles at home in it are in goal order.
    fn line_conflicts(&self, position: &Position, line: usize, row: bool) -> u8 {
        let n = self.grid.n;
        // Goal positions along the line of the tiles that belong to it, in
        // their current order along the line.
        let (home_line, home_along) = if row {
            (&self.home_row, &self.home_column)
        } else {
            (&self.home_column, &self.home_row)
        };
        let (first, step) = if row { (line * n, 1) } else { (line, n) };
        let mut keys = [0u8; 16];
        let mut len = 0;
        let mut ordered = true;
        for i in 0..n {
            let tile = position.tiles[first + i * step] as usize;
            if tile == 0 || home_line[tile] as usize != line {
                continue;
            }
            let along = home_along[tile];
            ordered &= len == 0 || keys[len - 1] < along;
            keys[len] = along;
            len += 1;
        }
        if ordered {
            return 0;
        }
        // Longest increasing subsequence, quadratic: lines are short.
        let mut best = [1u8; 16];
        let mut longest = 1;
        for i in 1..len {
            for j in 0..i {
                if keys[j] < keys[i] && best[j] + 1 > best[i] {
                    best[i] = best[j] + 1;
                }
            }
            longest = longest.max(best[i]);
        }
        len as u8 - longest
    }
}

impl Heuristic for LinearConflict {
    type State = LinearConflictState;

    fn name(&self) -> &'static str {
        "linear-conflict"
    }

    fn init(&self, position: &Position) -> LinearConflictState {
        let n = self.grid.n;
        let mut state = LinearConflictState {
            manhattan: Manhattan::new(&self.grid).init(position),
            conflicts: 0,
            rows: [0; 16],
            columns: [0; 16],
        };
        for line in 0..n {
            state.rows[line] = self.line_conflicts(position, line, true);
            state.columns[line] = self.line_conflicts(position, line, false);
            state.conflicts += (state.rows[line] + state.columns[line]) as u32;
        }
        state
    }

    #[inline(always)]
    fn value(&self, state: &LinearConflictState) -> u32 {
        state.manhattan + 2 * state.conflicts
    }

    #[inline(always)]
    fn update(
        &self,
        state: &LinearConflictState,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> LinearConflictState {
        let mut next = *state;
        next.manhattan =
            state.manhattan + self.grid.distance(tile, to) - self.grid.distance(tile, from);
        let (from, to) = (from as usize, to as usize);
        // A tile moving along a column keeps its order in that column but
        // leaves one row for another: only those two rows change (and the
        // same for columns under a sideways move).
        let is_row = self.column[from] == self.column[to];
        let (lines, a, b) = if is_row {
            (&mut next.rows, self.row[from], self.row[to])
        } else {
            (&mut next.columns, self.column[from], self.column[to])
        };
        // Only tiles at home in a line take part in its conflicts: the
        // line the tile enters or leaves changes only when it is the
        // tile's goal line, and the other one not at all.
        let home = if is_row {
            self.home_row[tile as usize]
        } else {
            self.home_column[tile as usize]
        };
        if home == a || home == b {
            let line = home as usize;
            let fresh = self.line_conflicts(position, line, is_row);
            next.conflicts = next.conflicts + fresh as u32 - lines[line] as u32;
            lines[line] = fresh;
        }
        next
    }
}

#[cfg(test)]
mod tests;
