//! Big boards, fast, not optimal: the board is reduced a line at a time (the
//! top row, then the left column, alternately) until a 3x3 core remains,
//! which is solved optimally. A tile is walked to its cell one step at a
//! time, the blank brought round it by a breadth-first search in a small
//! window; the last two tiles of a line are placed together by an exact
//! search over their positions in the 3x3 window at the line's end.

use std::collections::VecDeque;

use npuzzle_board::{Board, Goal, Move};

use crate::grid::{Grid, Position, MAX_SEARCH_SIZE};
use crate::heuristic::{Heuristic, LinearConflict};
use crate::solve;
use crate::types::{Algorithm, HeuristicKind, Request, SearchError};

/// A board being solved, in blank-last terms.
struct Reducer {
    n: usize,
    tiles: Vec<u32>,
    /// The cell of each tile (0 is the blank).
    cells: Vec<usize>,
    locked: Vec<bool>,
    moves: Vec<Move>,
    /// Scratch for breadth-first searches: a cell is seen in the current
    /// search when its stamp equals `stamp`.
    seen: Vec<u32>,
    parent: Vec<usize>,
    stamp: u32,
}

/// The move that slides the tile on `to` into the blank on `from`.
fn move_between(n: usize, from: usize, to: usize) -> Move {
    if to == from + n {
        Move::Up
    } else if to + n == from {
        Move::Down
    } else if to == from + 1 {
        Move::Left
    } else {
        Move::Right
    }
}

impl Reducer {
    fn new(board: &Board) -> Reducer {
        let n = board.size();
        let tiles: Vec<u32> = board.tiles().iter().map(|&t| t as u32).collect();
        let mut cells = vec![0; n * n];
        for (cell, &t) in tiles.iter().enumerate() {
            cells[t as usize] = cell;
        }
        Reducer {
            n,
            tiles,
            cells,
            locked: vec![false; n * n],
            moves: Vec::new(),
            seen: vec![0; n * n],
            parent: vec![0; n * n],
            stamp: 0,
        }
    }

    fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.n;
        let (r, c) = (cell / n, cell % n);
        [
            (r > 0).then(|| cell - n),
            (r + 1 < n).then(|| cell + n),
            (c > 0).then(|| cell - 1),
            (c + 1 < n).then(|| cell + 1),
        ]
        .into_iter()
        .flatten()
    }

    /// Moves the blank one step, onto the adjacent `to`.
    fn step_blank(&mut self, to: usize) {
        let from = self.cells[0];
        let tile = self.tiles[to];
        self.moves.push(move_between(self.n, from, to));
        self.tiles.swap(from, to);
        self.cells[tile as usize] = from;
        self.cells[0] = to;
    }

    /// A shortest blank path to `target` avoiding locked cells and `avoid`,
    /// searched within `window` (row and column ranges) first, then on the
    /// whole board.
    fn blank_path(
        &mut self,
        target: usize,
        avoid: &[usize],
        window: (usize, usize, usize, usize),
    ) -> Option<Vec<usize>> {
        let n = self.n;
        let start = self.cells[0];
        for (r0, r1, c0, c1) in [window, (0, n - 1, 0, n - 1)] {
            self.stamp += 1;
            let stamp = self.stamp;
            self.seen[start] = stamp;
            let mut queue = VecDeque::from([start]);
            while let Some(cell) = queue.pop_front() {
                if cell == target {
                    let mut path = vec![cell];
                    let mut at = cell;
                    while at != start {
                        at = self.parent[at];
                        path.push(at);
                    }
                    path.pop();
                    path.reverse();
                    return Some(path);
                }
                let (r, c) = (cell / n, cell % n);
                let candidates = [
                    (r > r0).then(|| cell - n),
                    (r < r1).then(|| cell + n),
                    (c > c0).then(|| cell - 1),
                    (c < c1).then(|| cell + 1),
                ];
                for next in candidates.into_iter().flatten() {
                    if self.seen[next] != stamp && !self.locked[next] && !avoid.contains(&next) {
                        self.seen[next] = stamp;
                        self.parent[next] = cell;
                        queue.push_back(next);
                    }
                }
            }
        }
        None
    }

    /// Brings the blank to `target` without crossing `avoid`.
    fn blank_to(&mut self, target: usize, avoid: &[usize]) -> Result<(), SearchError> {
        let n = self.n;
        let blank = self.cells[0];
        let (r0, r1) = ((blank / n).min(target / n), (blank / n).max(target / n));
        let (c0, c1) = ((blank % n).min(target % n), (blank % n).max(target % n));
        let window = (
            r0.saturating_sub(1),
            (r1 + 1).min(n - 1),
            c0.saturating_sub(1),
            (c1 + 1).min(n - 1),
        );
        let path = self
            .blank_path(target, avoid, window)
            .ok_or(SearchError::Stuck)?;
        for cell in path {
            self.step_blank(cell);
        }
        Ok(())
    }

    /// Slides `tile` onto the adjacent free cell `to`.
    fn step_tile(&mut self, tile: u32, to: usize) -> Result<(), SearchError> {
        let from = self.cells[tile as usize];
        self.blank_to(to, &[from])?;
        self.step_blank(from);
        Ok(())
    }

    /// The cell at `line`, `along` of the frame: rows (line = row) or, when
    /// `columns`, columns (line = column).
    fn cell(&self, columns: bool, line: usize, along: usize) -> usize {
        if columns {
            along * self.n + line
        } else {
            line * self.n + along
        }
    }

    fn frame(&self, columns: bool, cell: usize) -> (usize, usize) {
        let (r, c) = (cell / self.n, cell % self.n);
        if columns {
            (c, r)
        } else {
            (r, c)
        }
    }

    /// Walks `tile` to (`line`, `along`) of the frame, ending with a step
    /// onto the line from the cell below. A step in a new direction costs
    /// the blank two moves to get in front of the tile, a step straight on
    /// four, so the walk goes straight only while one distance exceeds the
    /// other, then as a staircase. Every cell on the way is unlocked: only
    /// the line's cells before `along` are locked.
    fn place(
        &mut self,
        columns: bool,
        tile: u32,
        line: usize,
        along: usize,
    ) -> Result<(), SearchError> {
        let (mut l, mut a) = self.frame(columns, self.cells[tile as usize]);
        let mut last_along = false;
        while (l, a) != (line, along) {
            let towards = if a < along { a + 1 } else { a.wrapping_sub(1) };
            let (dl, da) = (l.wrapping_sub(line + 1), a.abs_diff(along));
            let step_along = if l == line {
                l += 1;
                false
            } else if (dl, da) == (0, 0) {
                l -= 1;
                false
            } else if da > dl || (da == dl && !last_along) {
                a = towards;
                true
            } else {
                l -= 1;
                false
            };
            last_along = step_along;
            self.step_tile(tile, self.cell(columns, l, a))?;
        }
        Ok(())
    }

    /// Places the last two tiles of a line together: both are brought into
    /// the 3x3 window at the line's end, then an exact breadth-first search
    /// over (first tile, second tile, blank) inside the window finishes them.
    fn place_pair(
        &mut self,
        columns: bool,
        line: usize,
        first: u32,
        second: u32,
    ) -> Result<(), SearchError> {
        let n = self.n;
        let window: Vec<usize> = (0..3)
            .flat_map(|d| (0..3).map(move |e| (d, e)))
            .map(|(d, e)| self.cell(columns, line + d, n - 3 + e))
            .filter(|&c| !self.locked[c])
            .collect();
        let first_target = self.cell(columns, line, n - 2);
        let second_target = self.cell(columns, line, n - 1);
        // Bring both tiles into the window's bottom line, the blank beside them.
        let parking = [
            self.cell(columns, line + 2, n - 2),
            self.cell(columns, line + 2, n - 1),
        ];
        self.walk(first, parking[0], &[])?;
        self.walk(second, parking[1], &[parking[0]])?;
        let spot = self.cell(columns, line + 1, n - 1);
        self.blank_to(spot, &parking)?;
        // Exact search in the window.
        let index = |cell: usize| {
            window
                .iter()
                .position(|&w| w == cell)
                .expect("in the window")
        };
        let w = window.len();
        let encode = |a: usize, b: usize, blank: usize| (a * w + b) * w + blank;
        let start = encode(
            index(self.cells[first as usize]),
            index(self.cells[second as usize]),
            index(self.cells[0]),
        );
        let goal = (index(first_target), index(second_target));
        let mut parent = vec![usize::MAX; w * w * w];
        parent[start] = start;
        let mut queue = VecDeque::from([start]);
        let mut found = None;
        while let Some(state) = queue.pop_front() {
            let (a, b, blank) = (state / (w * w), state / w % w, state % w);
            if (a, b) == goal {
                found = Some(state);
                break;
            }
            for next in self
                .neighbours(window[blank])
                .filter_map(|c| window.iter().position(|&x| x == c))
            {
                let (na, nb) = (
                    if next == a { blank } else { a },
                    if next == b { blank } else { b },
                );
                let child = encode(na, nb, next);
                if parent[child] == usize::MAX {
                    parent[child] = state;
                    queue.push_back(child);
                }
            }
        }
        let mut state = found.ok_or(SearchError::Stuck)?;
        let mut blanks = Vec::new();
        while parent[state] != state {
            blanks.push(window[state % w]);
            state = parent[state];
        }
        for cell in blanks.into_iter().rev() {
            self.step_blank(cell);
        }
        self.locked[first_target] = true;
        self.locked[second_target] = true;
        Ok(())
    }

    /// Walks `tile` to `target` along a shortest path of unlocked cells
    /// that avoids `avoid`.
    fn walk(&mut self, tile: u32, target: usize, avoid: &[usize]) -> Result<(), SearchError> {
        // Breadth first from the target, so each step can follow the
        // distances down (the cells it avoids do not move meanwhile).
        let mut distance = vec![usize::MAX; self.n * self.n];
        distance[target] = 0;
        let mut queue = VecDeque::from([target]);
        while let Some(cell) = queue.pop_front() {
            for next in self.neighbours(cell).collect::<Vec<_>>() {
                if !self.locked[next] && !avoid.contains(&next) && distance[next] == usize::MAX {
                    distance[next] = distance[cell] + 1;
                    queue.push_back(next);
                }
            }
        }
        loop {
            let at = self.cells[tile as usize];
            if at == target {
                return Ok(());
            }
            let step = self
                .neighbours(at)
                .filter(|&c| !self.locked[c] && !avoid.contains(&c))
                .min_by_key(|&c| distance[c])
                .ok_or(SearchError::Stuck)?;
            let mut avoid_tile = avoid.to_vec();
            avoid_tile.push(at);
            self.blank_to(step, &avoid_tile)?;
            self.step_blank(at);
        }
    }

    /// Fills line `line` of the frame from `start` to the end.
    fn fill(&mut self, columns: bool, line: usize, start: usize) -> Result<(), SearchError> {
        let n = self.n;
        for along in start..n - 2 {
            let target = self.cell(columns, line, along);
            let tile = Goal::BlankLast.tile_at(n, target) as u32;
            self.place(columns, tile, line, along)?;
            self.locked[target] = true;
        }
        let first = Goal::BlankLast.tile_at(n, self.cell(columns, line, n - 2)) as u32;
        let second = Goal::BlankLast.tile_at(n, self.cell(columns, line, n - 1)) as u32;
        self.place_pair(columns, line, first, second)
    }

    /// The k x k core in the bottom-right corner as a board of its own.
    fn core(&self, k: usize) -> Board {
        let n = self.n;
        let base = n - k;
        let mut core = vec![0u16; k * k];
        for i in 0..k {
            for j in 0..k {
                let tile = self.tiles[(base + i) * n + base + j];
                core[i * k + j] = if tile == 0 {
                    0
                } else {
                    let home = Goal::BlankLast.cell_of(n, tile as u16);
                    ((home / n - base) * k + (home % n - base) + 1) as u16
                };
            }
        }
        Board::new(k, core).expect("the core holds its own tiles")
    }

    /// Tries to finish the k x k core by search: optimal within a small
    /// budget, then weighted (at most 25 % and 100 % over optimal) within
    /// larger ones. Cores of 5x5 and less are always tried; larger ones
    /// only when close to solved, where search beats placing line by line.
    fn finish_core(&mut self, k: usize) -> Result<bool, SearchError> {
        const ATTEMPTS: [(u32, u64); 4] = [
            (0, 100_000),
            (25, 300_000),
            (100, 1_000_000),
            (200, 1_000_000),
        ];
        const NEAR: u32 = 60;
        if k > MAX_SEARCH_SIZE {
            return Ok(false);
        }
        let core = self.core(k);
        if k > 6 {
            let heuristic = LinearConflict::new(&Grid::new(k, Goal::BlankLast));
            if heuristic.value(&heuristic.init(&Position::new(&core))) > NEAR {
                return Ok(false);
            }
        }
        for (within, budget) in ATTEMPTS {
            let request = Request {
                max_nodes: Some(budget),
                within,
                ..core_request()
            };
            match solve(&core, &request) {
                Ok(solution) => {
                    self.moves.extend(solution.moves);
                    return Ok(true);
                }
                Err(SearchError::NodeLimit { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if k <= 3 {
            // Never reached: a 3x3 board takes a few thousand nodes.
            return Err(SearchError::Stuck);
        }
        Ok(false)
    }

    /// Locks the line's cells from `start` on if they hold their own
    /// tiles; whether they did.
    fn keep_if_in_place(&mut self, columns: bool, line: usize, start: usize) -> bool {
        let cells: Vec<usize> = (start..self.n)
            .map(|along| self.cell(columns, line, along))
            .collect();
        let in_place = cells
            .iter()
            .all(|&cell| self.tiles[cell] as u16 == Goal::BlankLast.tile_at(self.n, cell));
        if in_place {
            for cell in cells {
                self.locked[cell] = true;
            }
        }
        in_place
    }
}

/// Linear conflict, IDA* on this thread: the core's searches.
fn core_request() -> Request {
    Request {
        goal: Goal::BlankLast,
        algorithm: Algorithm::IdaStar,
        heuristic: HeuristicKind::LinearConflict,
        max_nodes: None,
        parallel: false,
        stop: None,
        within: 0,
    }
}

/// Drops moves undone by the next one.
fn cancel_pairs(moves: Vec<Move>) -> Vec<Move> {
    let mut kept: Vec<Move> = Vec::with_capacity(moves.len());
    for m in moves {
        if kept.last() == Some(&m.opposite()) {
            kept.pop();
        } else {
            kept.push(m);
        }
    }
    kept
}

/// A valid (not optimal) solution of any solvable board.
pub fn solve_by_reduction(board: &Board, goal: Goal) -> Result<Vec<Move>, SearchError> {
    if !board.is_solvable(goal) {
        return Err(SearchError::Unsolvable);
    }
    // Blank-first is blank-last turned half round: solve that, turn back.
    if goal == Goal::BlankFirst {
        let moves = solve_by_reduction(&board.converted_goal(), Goal::BlankLast)?;
        return Ok(moves.into_iter().map(Move::opposite).collect());
    }
    let n = board.size();
    let mut reducer = Reducer::new(board);
    let (mut top, mut left) = (0, 0);
    loop {
        if top == left && reducer.finish_core(n - top)? {
            break;
        }
        // A line already in place is kept as it is.
        if n - top >= n - left {
            if !reducer.keep_if_in_place(false, top, left) {
                reducer.fill(false, top, left)?;
            }
            top += 1;
        } else {
            if !reducer.keep_if_in_place(true, left, top) {
                reducer.fill(true, left, top)?;
            }
            left += 1;
        }
    }
    Ok(cancel_pairs(reducer.moves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::{random_board, SplitMix64};

    #[test]
    fn random_boards_of_every_size_are_solved() {
        let mut rng = SplitMix64::new(5);
        for n in 2..=12 {
            for goal in Goal::ALL {
                for _ in 0..5 {
                    let board = random_board(n, goal, &mut rng);
                    let moves = solve_by_reduction(&board, goal).unwrap();
                    assert!(board.solves(&moves, goal), "{n}x{n} {goal}: {board}");
                }
            }
        }
    }

    #[test]
    fn a_60x60_board_is_solved() {
        let mut rng = SplitMix64::new(60);
        let board = random_board(60, Goal::BlankLast, &mut rng);
        let moves = solve_by_reduction(&board, Goal::BlankLast).unwrap();
        assert!(board.solves(&moves, Goal::BlankLast));
        assert!(moves.len() as u64 >= board.manhattan(Goal::BlankLast));
    }
}
