//! Big boards, fast, not optimal: the board is reduced a line at a time (the
//! top row, then the left column, alternately) until a core of 5x5 or less
//! remains (or a larger one close to solved), which is searched.
//!
//! What makes the answers short:
//! - every blank move is priced: cheap when it pushes its tile towards
//!   home, dear when it pushes it away (doubly so for the tiles of the next
//!   few lines), so the blank's trips do part of the later work;
//! - a tile takes the cheapest route to its cell (a search over the tile's
//!   cell and the blank's side of it), on boards up to 40x40;
//! - the last two tiles of a line are placed together by an exact search in
//!   the 5x5 window at the line's end;
//! - the core is searched with ever tighter bounds while its budget lasts;
//! - the solution is shortened stretch by stretch (`smooth`), and boards up
//!   to 40x40 are also solved columns first, the shorter answer kept.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use npuzzle_board::{Board, Goal, Move};

use crate::dispatch::solve;
use crate::grid::{move_between, Grid, Position, MAX_SEARCH_SIZE};
use crate::heuristic::{Heuristic, LinearConflict};
use crate::smooth::{cancel_pairs, polish_until};
use crate::types::{
    Algorithm, Deadline, HeuristicKind, Incomplete, InputError, Request, SearchError, Solution,
};

/// What a blank move costs, in the units of the cheapest-path search, when
/// it pushes its tile neither way (the blank itself, or the tile it goes to
/// fetch).
const STEP: u32 = 8;
/// How much cheaper a blank move is when it pushes its tile closer to home,
/// and dearer when it pushes it away: every unit of another tile's distance
/// saved now saves moves when that tile is placed.
const SWAY: u32 = 7;
/// The side of the window at a line's end where its last two tiles are
/// placed by exact search.
const PAIR_WINDOW: usize = 5;
/// More than the dearest step (`STEP + 2 * SWAY`): the ring of buckets of
/// the cheapest-path search never wraps onto costs still queued.
const BUCKETS: usize = 32;
const _: () = assert!(BUCKETS as u32 > STEP + 2 * SWAY);
/// How far the blank's cheapest path may stray outside the rectangle of
/// its ends (before the whole board is searched).
const DETOUR: usize = 4;
/// How hard the reduction works at the parts it searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Effort {
    /// A 5x5 core's weighted searches may expand 2,000,000 nodes (about
    /// 0.3 s): the answers of `npuzzle solve`.
    #[default]
    Thorough,
    /// 200,000 nodes: answers in tens of milliseconds up to 10x10, a few
    /// percent longer (10 % on 5x5): an interactive coach's.
    Quick,
}

impl Effort {
    /// The nodes a beam search may expand for one board (see `beam.rs`):
    /// the width is this over 2.5 times the board's lower bound, about
    /// 30,000 boards on 6x6 (3 s on one core) and, when quick, 1,100
    /// (0.2 s; a 7x7 or 8x8 board then gets the reduction).
    pub fn beam_nodes(self) -> u64 {
        match self {
            Effort::Thorough => 7_500_000,
            Effort::Quick => 400_000,
        }
    }

    fn core_budget(self) -> u64 {
        match self {
            Effort::Thorough => 2_000_000,
            Effort::Quick => 200_000,
        }
    }
}
/// The largest board whose tiles take the cheapest route (`Reducer::route`);
/// larger ones walk a staircase, faster.
const ROUTE_MAX_SIZE: usize = 40;
/// The largest board also solved columns first, the shorter answer kept
/// (not when quick): past it the second solve costs seconds.
const SECOND_ORDER_MAX_SIZE: usize = 40;
/// The longest solution smoothed: past it (boards past about 50x50) a pass
/// costs seconds and gains under 1 %.
const SMOOTHING_MAX_MOVES: usize = 300_000;

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
    cost: Vec<u32>,
    /// The cheapest-path search's queue (see `blank_path`).
    buckets: Vec<Vec<usize>>,
    stamp: u32,
    /// The lines being placed: the tiles of the next few matter most.
    top: usize,
    left: usize,
    /// `SWAY`, or 0 for plain shortest paths.
    sway: u32,
    /// Whether a near-solved large core's search has failed: smaller ones
    /// are then not tried either.
    near_failed: bool,
    effort: Effort,
    /// Set by another thread to end the reduction with
    /// [`Incomplete::Stopped`]: looked at before every blank trip and
    /// every tile placed, so within a millisecond even on 127x127.
    stop: Option<Arc<AtomicBool>>,
    /// Past it the reduction ends with [`Incomplete::TimeLimit`], looked at
    /// as often as `stop`; or, when `hurried`, its core searches give up.
    deadline: Option<Deadline>,
    /// The reduction must answer: past the deadline its core searches give
    /// up (a smaller core is searched instead, down to 3x3, which takes
    /// microseconds), and only they look at it.
    hurried: bool,
}

/// A `Reducer`'s position and move count, to go back to.
struct Checkpoint {
    tiles: Vec<u32>,
    cells: Vec<usize>,
    moves: usize,
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
            cost: vec![0; n * n],
            buckets: vec![Vec::new(); BUCKETS],
            top: 0,
            left: 0,
            sway: SWAY,
            near_failed: false,
            effort: Effort::Thorough,
            stamp: 0,
            stop: None,
            deadline: None,
            hurried: false,
        }
    }

    fn check_stop(&self) -> Result<(), SearchError> {
        match &self.stop {
            Some(stop) if stop.load(Ordering::Relaxed) => {
                Err(SearchError::Incomplete(Incomplete::Stopped))
            }
            _ => match self.deadline {
                Some(deadline) if !self.hurried && deadline.passed() => {
                    Err(SearchError::Incomplete(Incomplete::TimeLimit {
                        budget: deadline.budget(),
                    }))
                }
                _ => Ok(()),
            },
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

    /// Whether `tile` belongs to the next few lines to be placed: what the
    /// blank's trips do to those tiles still holds when they are placed,
    /// while tiles placed later are shuffled many times before then.
    fn placed_soon(&self, tile: u32) -> bool {
        let home = tile as usize - 1;
        let ahead = 2 + self.n / 10;
        (self.top..self.top + ahead).contains(&(home / self.n))
            || (self.left..self.left + ahead).contains(&(home % self.n))
    }

    /// How far `tile` on `cell` is from its own cell.
    fn distance_home(&self, tile: u32, cell: usize) -> usize {
        let home = tile as usize - 1;
        (home / self.n).abs_diff(cell / self.n) + (home % self.n).abs_diff(cell % self.n)
    }

    /// A cheapest blank path to `target` avoiding locked cells and `avoid`,
    /// searched within `window` (row and column ranges) first, then on the
    /// whole board. A move costs more when it pushes its tile away from
    /// home than when it pushes it closer, so the blank's trips do some of
    /// the later work.
    fn blank_path(
        &mut self,
        target: usize,
        avoid: &[usize],
        window: (usize, usize, usize, usize),
    ) -> Option<Vec<usize>> {
        let n = self.n;
        let start = self.cells[0];
        // Step costs are small integers: a ring of buckets, one per cost,
        // is the priority queue.
        let mut buckets = std::mem::take(&mut self.buckets);
        let mut found = None;
        for (r0, r1, c0, c1) in [window, (0, n - 1, 0, n - 1)] {
            self.stamp += 1;
            let stamp = self.stamp;
            self.seen[start] = stamp;
            self.cost[start] = 0;
            buckets[0].push(start);
            let (mut cost, mut queued) = (0u32, 1usize);
            while queued > 0 {
                let Some(cell) = buckets[cost as usize % BUCKETS].pop() else {
                    cost += 1;
                    continue;
                };
                queued -= 1;
                if self.cost[cell] < cost {
                    continue;
                }
                if cell == target {
                    found = Some(cell);
                    break;
                }
                let (r, c) = (cell / n, cell % n);
                let candidates = [
                    (r > r0).then(|| cell - n),
                    (r < r1).then(|| cell + n),
                    (c > c0).then(|| cell - 1),
                    (c < c1).then(|| cell + 1),
                ];
                for next in candidates.into_iter().flatten() {
                    if self.locked[next] || avoid.contains(&next) {
                        continue;
                    }
                    let step = if next == target {
                        STEP
                    } else {
                        self.step_cost(cell, next)
                    };
                    let reached = cost + step;
                    if self.seen[next] != stamp || reached < self.cost[next] {
                        self.seen[next] = stamp;
                        self.cost[next] = reached;
                        self.parent[next] = cell;
                        buckets[reached as usize % BUCKETS].push(next);
                        queued += 1;
                    }
                }
            }
            buckets.iter_mut().for_each(Vec::clear);
            if found.is_some() {
                break;
            }
        }
        self.buckets = buckets;
        let cell = found?;
        let mut path = vec![cell];
        let mut at = cell;
        while at != start {
            at = self.parent[at];
            path.push(at);
        }
        path.pop();
        path.reverse();
        Some(path)
    }

    /// Brings the blank to `target` without crossing `avoid`.
    fn blank_to(&mut self, target: usize, avoid: &[usize]) -> Result<(), SearchError> {
        self.check_stop()?;
        let (path, _) = self.blank_route(target, avoid).ok_or(Incomplete::Stuck)?;
        for cell in path {
            self.step_blank(cell);
        }
        Ok(())
    }

    /// The blank's cheapest path to `target` without crossing `avoid`, and
    /// its cost, searched near the straight route first.
    fn blank_route(&mut self, target: usize, avoid: &[usize]) -> Option<(Vec<usize>, u32)> {
        let n = self.n;
        let blank = self.cells[0];
        let (r0, r1) = ((blank / n).min(target / n), (blank / n).max(target / n));
        let (c0, c1) = ((blank % n).min(target % n), (blank % n).max(target % n));
        let window = (
            r0.saturating_sub(DETOUR),
            (r1 + DETOUR).min(n - 1),
            c0.saturating_sub(DETOUR),
            (c1 + DETOUR).min(n - 1),
        );
        let path = self.blank_path(target, avoid, window)?;
        Some((path, self.cost[target]))
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

    /// What the blank's move from `from` onto the adjacent `to` costs as
    /// the board stands (see `SWAY`).
    fn step_cost(&self, from: usize, to: usize) -> u32 {
        let tile = self.tiles[to];
        if tile == 0 {
            return STEP;
        }
        let sway = if self.placed_soon(tile) {
            2 * self.sway
        } else {
            self.sway
        };
        if self.distance_home(tile, from) < self.distance_home(tile, to) {
            STEP.saturating_sub(sway)
        } else {
            STEP + sway
        }
    }

    /// The cheapest way for `tile` to reach `target`, as the cells it
    /// steps onto: a cheapest-path search over (tile's cell, side of it
    /// the blank is on) in the rectangle round both, the blank's way
    /// round the tile priced on the board as it stands.
    fn route(&mut self, tile: u32, target: usize) -> Option<Vec<usize>> {
        let n = self.n;
        let from = self.cells[tile as usize];
        let (r0, r1) = ((from / n).min(target / n), (from / n).max(target / n));
        let (c0, c1) = ((from % n).min(target % n), (from % n).max(target % n));
        let (r0, r1) = (r0.saturating_sub(1), (r1 + 1).min(n - 1));
        let (c0, c1) = (c0.saturating_sub(1), (c1 + 1).min(n - 1));
        let (h, w) = (r1 - r0 + 1, c1 - c0 + 1);
        let local = |cell: usize| (cell / n - r0) * w + cell % n - c0;
        let global = |i: usize| (r0 + i / w) * n + c0 + i % w;
        // The cell beside `cell` on `side` (up, down, left, right), if in
        // the rectangle and free.
        let beside_in = |locked: &[bool], cell: usize, side: usize| -> Option<usize> {
            let (r, c) = (cell / n, cell % n);
            let next = match side {
                0 if r > r0 => cell - n,
                1 if r < r1 => cell + n,
                2 if c > c0 => cell - 1,
                3 if c < c1 => cell + 1,
                _ => return None,
            };
            (!locked[next]).then_some(next)
        };
        let states = h * w * 4;
        let mut cost = vec![u32::MAX; states];
        let mut parent = vec![usize::MAX; states];
        let mut queue = BinaryHeap::new();
        for side in 0..4 {
            if let Some(spot) = beside_in(&self.locked, from, side) {
                if let Some((_, c)) = self.blank_route(spot, &[from]) {
                    let state = local(from) * 4 + side;
                    if c < cost[state] {
                        cost[state] = c;
                        queue.push(Reverse((c, state)));
                    }
                }
            }
        }
        const OPPOSITE: [usize; 4] = [1, 0, 3, 2];
        let beside = |cell: usize, side: usize| beside_in(&self.locked, cell, side);
        while let Some(Reverse((c, state))) = queue.pop() {
            if c > cost[state] {
                continue;
            }
            let (at, side) = (global(state / 4), state % 4);
            if at == target {
                let mut cells = Vec::new();
                let mut s = state;
                while parent[s] != usize::MAX {
                    if parent[s] / 4 != s / 4 {
                        cells.push(global(s / 4));
                    }
                    s = parent[s];
                }
                cells.reverse();
                return Some(cells);
            }
            let blank = beside(at, side).expect("the blank's side is free");
            let mut relax =
                |next: usize, extra: u32, queue: &mut BinaryHeap<Reverse<(u32, usize)>>| {
                    if c + extra < cost[next] {
                        cost[next] = c + extra;
                        parent[next] = state;
                        queue.push(Reverse((c + extra, next)));
                    }
                };
            // The tile steps into the blank, which ends behind it.
            relax(local(blank) * 4 + OPPOSITE[side], STEP, &mut queue);
            // The blank goes round a corner to a neighbouring side.
            for turn in 0..4 {
                if turn == side || turn == OPPOSITE[side] {
                    continue;
                }
                let (Some(corner), Some(spot)) = (beside(blank, turn), beside(at, turn)) else {
                    continue;
                };
                let extra = self.step_cost(blank, corner) + self.step_cost(corner, spot);
                relax(local(at) * 4 + turn, extra, &mut queue);
            }
        }
        None
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
            self.check_stop()?;
            let here = self.cells[tile as usize];
            let towards = if a < along { a + 1 } else { a.wrapping_sub(1) };
            let (dl, da) = (l.wrapping_sub(line + 1), a.abs_diff(along));
            // The blank's way in front of the tile, when already found.
            let mut planned = None;
            let step_along = if l == line {
                l += 1;
                false
            } else if (dl, da) == (0, 0) {
                l -= 1;
                false
            } else if dl > 0 && da > 0 {
                // Either step makes progress: take the cheaper, counting
                // the blank's way round and what is left of the staircase.
                let rest = |x: usize, y: usize| STEP * (3 * (x + y) + 2 * x.abs_diff(y)) as u32;
                let along_way = self
                    .blank_route(self.cell(columns, l, towards), &[here])
                    .map(|(path, c)| (path, c + rest(dl, da - 1)));
                let across_way = self
                    .blank_route(self.cell(columns, l - 1, a), &[here])
                    .map(|(path, c)| (path, c + rest(dl - 1, da)));
                match (along_way, across_way) {
                    (Some((path, x)), Some((_, y))) if x <= y => {
                        planned = Some(path);
                        a = towards;
                        true
                    }
                    (Some((path, _)), None) => {
                        planned = Some(path);
                        a = towards;
                        true
                    }
                    (_, way) => {
                        planned = way.map(|(path, _)| path);
                        l -= 1;
                        false
                    }
                }
            } else if da > dl || (da == dl && !last_along) {
                a = towards;
                true
            } else {
                l -= 1;
                false
            };
            last_along = step_along;
            match planned {
                Some(path) => {
                    for cell in path {
                        self.step_blank(cell);
                    }
                    self.step_blank(here);
                }
                None => self.step_tile(tile, self.cell(columns, l, a))?,
            }
        }
        Ok(())
    }

    /// Places the last two tiles of a line together: both are brought into
    /// the window of the line's last few cells and those beside it, then an
    /// exact breadth-first search over (first tile, second tile, blank)
    /// inside the window finishes them. When the blank is shut in on the
    /// way (the tiles and the placed lines can wall it off), it starts
    /// again from fixed cells in a 3x3 window, a way that always gets through.
    fn place_pair(
        &mut self,
        columns: bool,
        line: usize,
        first: u32,
        second: u32,
    ) -> Result<(), SearchError> {
        let checkpoint = self.checkpoint();
        match self.pair_by_search(columns, line, [first, second], PAIR_WINDOW) {
            Err(SearchError::Incomplete(Incomplete::Stuck)) => {
                self.restore(checkpoint);
                self.pair_by_search(columns, line, [first, second], 3)
            }
            done => done,
        }
    }

    /// The position and the count of moves, for `restore`.
    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            tiles: self.tiles.clone(),
            cells: self.cells.clone(),
            moves: self.moves.len(),
        }
    }

    /// Takes back every move made since `checkpoint`.
    fn restore(&mut self, checkpoint: Checkpoint) {
        self.tiles = checkpoint.tiles;
        self.cells = checkpoint.cells;
        self.moves.truncate(checkpoint.moves);
    }

    /// `place_pair` in a `side` x `side` window; for a 3x3 window the tiles
    /// are first parked on its far line, the blank beside them.
    fn pair_by_search(
        &mut self,
        columns: bool,
        line: usize,
        [first, second]: [u32; 2],
        side: usize,
    ) -> Result<(), SearchError> {
        let n = self.n;
        let depth = side.min(n - line);
        let window: Vec<usize> = (0..depth)
            .flat_map(|d| (0..side).map(move |e| (d, e)))
            .map(|(d, e)| self.cell(columns, line + d, n - side + e))
            .filter(|&c| !self.locked[c])
            .collect();
        let first_target = self.cell(columns, line, n - 2);
        let second_target = self.cell(columns, line, n - 1);
        if side == 3 {
            let parking = [
                self.cell(columns, line + 2, n - 2),
                self.cell(columns, line + 2, n - 1),
            ];
            self.walk(first, parking[0], &[])?;
            self.walk(second, parking[1], &[parking[0]])?;
            self.blank_to(self.cell(columns, line + 1, n - 1), &parking)?;
        } else {
            // Both tiles, then the blank, into the window's nearest cells.
            let nearest = |from: usize, taken: &[usize]| {
                window
                    .iter()
                    .copied()
                    .filter(|c| !taken.contains(c))
                    .min_by_key(|&c| (c / n).abs_diff(from / n) + (c % n).abs_diff(from % n))
                    .expect("the window has room")
            };
            if !window.contains(&self.cells[first as usize]) {
                let spot = nearest(self.cells[first as usize], &[]);
                self.walk(first, spot, &[])?;
            }
            let first_cell = self.cells[first as usize];
            if !window.contains(&self.cells[second as usize]) {
                let spot = nearest(self.cells[second as usize], &[first_cell]);
                self.walk(second, spot, &[first_cell])?;
            }
            let pair = [first_cell, self.cells[second as usize]];
            if !window.contains(&self.cells[0]) {
                let spot = nearest(self.cells[0], &pair);
                self.blank_to(spot, &pair)?;
            }
        }
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
        let mut state = found.ok_or(Incomplete::Stuck)?;
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
                .ok_or(Incomplete::Stuck)?;
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
            self.check_stop()?;
            let target = self.cell(columns, line, along);
            let tile = Goal::BlankLast.tile_at(n, target) as u32;
            if n <= ROUTE_MAX_SIZE {
                let checkpoint = self.checkpoint();
                let routed = match self.route(tile, target) {
                    Some(cells) => cells
                        .into_iter()
                        .try_for_each(|cell| self.step_tile(tile, cell)),
                    None => Err(SearchError::Incomplete(Incomplete::Stuck)),
                };
                if routed.is_err() {
                    self.restore(checkpoint);
                    self.place(columns, tile, line, along)?;
                }
            } else {
                self.place(columns, tile, line, along)?;
            }
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
    /// budget, then weighted with ever tighter bounds (at most 200 %, 100 %,
    /// ... over optimal) while the core's budget lasts, the shortest answer
    /// kept. Cores of 5x5 and less are always searched; larger ones only
    /// when close to solved: far from it, linear conflict is too weak for
    /// even a 200 % bound to beat placing line by line.
    fn finish_core(&mut self, k: usize) -> Result<bool, SearchError> {
        const OPTIMAL_BUDGET: u64 = 100_000;
        const BOUNDS: [u32; 7] = [200, 100, 50, 35, 25, 15, 10];
        const NEAR_ATTEMPTS: [(u32, u64); 3] = [(25, 300_000), (100, 1_000_000), (200, 1_000_000)];
        const NEAR: u32 = 60;
        if k > MAX_SEARCH_SIZE {
            return Ok(false);
        }
        let core = self.core(k);
        if k > 5 {
            if self.near_failed {
                return Ok(false);
            }
            let heuristic = LinearConflict::new(&Grid::new(k, Goal::BlankLast));
            if heuristic.value(&heuristic.init(&Position::new(&core))) > NEAR {
                return Ok(false);
            }
        }
        let (stop, deadline, hurried) = (self.stop.clone(), self.deadline, self.hurried);
        let search_core = |core: &Board, within: u32, budget: u64| match search_core(
            core,
            within,
            budget,
            stop.clone(),
            deadline,
        ) {
            Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) if hurried => Ok(None),
            found => found,
        };
        if let Some(solution) = search_core(&core, 0, OPTIMAL_BUDGET)? {
            self.moves.extend(solution.moves);
            return Ok(true);
        }
        let mut best: Option<Vec<Move>> = None;
        if k > 5 {
            // A near-solved large core: the first answer within these budgets.
            for (within, budget) in NEAR_ATTEMPTS {
                // A tenth when quick, as for the 5x5 core.
                let budget = match self.effort {
                    Effort::Thorough => budget,
                    Effort::Quick => budget / 10,
                };
                if let Some(solution) = search_core(&core, within, budget)? {
                    best = Some(solution.moves);
                    break;
                }
            }
            self.near_failed = best.is_none();
        } else {
            let mut left = self.effort.core_budget();
            for within in BOUNDS {
                // Until the budget (nodes, or the deadline once an answer
                // is in hand) is spent.
                let solution = match search_core(&core, within, left) {
                    Err(SearchError::Incomplete(Incomplete::TimeLimit { .. }))
                        if best.is_some() =>
                    {
                        break
                    }
                    found => found?,
                };
                let Some(solution) = solution else {
                    break;
                };
                left = left.saturating_sub(solution.stats.expanded);
                if best.as_ref().is_none_or(|b| solution.moves.len() < b.len()) {
                    best = Some(solution.moves);
                }
            }
        }
        match best {
            Some(moves) => {
                self.moves.extend(moves);
                Ok(true)
            }
            // Never for 3x3: a few thousand nodes solve it optimally.
            None if k <= 3 => Err(SearchError::Incomplete(Incomplete::Stuck)),
            None => Ok(false),
        }
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

/// The core searched with linear conflict, IDA* on this thread, at most
/// `within` % over optimal; `None` when `budget` nodes run out first.
fn search_core(
    core: &Board,
    within: u32,
    budget: u64,
    stop: Option<Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Option<Solution>, SearchError> {
    let request = Request {
        goal: Goal::BlankLast,
        algorithm: Algorithm::IdaStar,
        heuristic: HeuristicKind::LinearConflict,
        max_nodes: Some(budget),
        parallel: false,
        stop,
        deadline,
        within,
        ..Request::default()
    };
    match solve(core, &request) {
        Ok(solution) => Ok(Some(solution)),
        Err(SearchError::Incomplete(Incomplete::NodeLimit { .. })) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A valid (not optimal) solution of any solvable board.
pub fn solve_by_reduction(board: &Board, goal: Goal) -> Result<Vec<Move>, SearchError> {
    solve_by_reduction_with(board, goal, Effort::Thorough)
}

/// [`solve_by_reduction`] with the effort given.
pub fn solve_by_reduction_with(
    board: &Board,
    goal: Goal,
    effort: Effort,
) -> Result<Vec<Move>, SearchError> {
    solve_by_reduction_until(board, goal, effort, None, None)
}

/// [`solve_by_reduction_with`] that another thread can end by setting
/// `stop` ([`Incomplete::Stopped`]) and that ends at `deadline`
/// ([`Incomplete::TimeLimit`]), within a millisecond or so on every board
/// size. A 127x127 board takes seconds: a caller that must answer
/// whatever the time (a beam cut short, finished from where it got)
/// calls [`solve_by_reduction_hurried`].
pub fn solve_by_reduction_until(
    board: &Board,
    goal: Goal,
    effort: Effort,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Vec<Move>, SearchError> {
    blank_last(board, goal, |board| {
        reduce_in_every_order(board, effort, stop, deadline)
    })
}

/// `reduce_blank_last` of `board` turned to the blank-last goal when
/// `goal` is blank-first (blank-first is blank-last turned half round),
/// its moves turned back; unsolvable boards refused.
fn blank_last(
    board: &Board,
    goal: Goal,
    reduce_blank_last: impl FnOnce(&Board) -> Result<Vec<Move>, SearchError>,
) -> Result<Vec<Move>, SearchError> {
    if !board.is_solvable(goal) {
        return Err(SearchError::Input(InputError::Unsolvable));
    }
    if goal == Goal::BlankFirst {
        let moves = reduce_blank_last(&board.converted_goal())?;
        return Ok(moves.into_iter().map(Move::opposite).collect());
    }
    reduce_blank_last(board)
}

/// The reduction of a blank-last board, in each order its effort affords;
/// the shortest answer.
fn reduce_in_every_order(
    board: &Board,
    effort: Effort,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Vec<Move>, SearchError> {
    let n = board.size();
    let scrambled = board.manhattan(Goal::BlankLast) * 4 >= (n * n) as u64;
    let reduce = |board: &Board, sway| reduce(board, sway, effort, stop, deadline, false);
    let mut moves = reduce(board, SWAY)?;
    // The other orders may only shorten the first answer: one the budget
    // ends is left out.
    let mut consider = |other: Result<Vec<Move>, SearchError>| match other {
        Ok(other) => {
            if other.len() < moves.len() {
                moves = other;
            }
            Ok(())
        }
        Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) => Ok(()),
        Err(e) => Err(e),
    };
    if !scrambled {
        // Few tiles out of place: pushing them home on the way can pay less
        // than it costs in the order of the rest; take the better.
        consider(reduce(board, 0))?;
    }
    if n <= SECOND_ORDER_MAX_SIZE && effort == Effort::Thorough {
        // Columns first (the board transposed) is as good on average and
        // better on many boards.
        let transposed = reduce(&board.transposed(Goal::BlankLast), SWAY);
        consider(transposed.map(|moves| moves.into_iter().map(Move::transposed).collect()))?;
    }
    Ok(moves)
}

/// The reduction that finishes an answer its budget cut short: at the
/// quick effort, one order only, its core searches and smoothing given up
/// [`FINISH_GRACE`] past `deadline`. It answers (only `stop` ends it
/// without), a few tens of milliseconds past the deadline up to 10x10.
pub fn solve_by_reduction_hurried(
    board: &Board,
    goal: Goal,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Vec<Move>, SearchError> {
    let late = deadline.map(|d| d.extended(FINISH_GRACE));
    blank_last(board, goal, |board| {
        reduce(board, SWAY, Effort::Quick, stop, late, true)
    })
}

/// How long the work that finishes an answer cut short by its budget may
/// run past the deadline: the reduction's core searches and the smoothing
/// give up then, so that a budget is overrun by less than 0.1 s.
pub const FINISH_GRACE: std::time::Duration = std::time::Duration::from_millis(60);

/// The reduction with blank moves weighted by `sway`, smoothed.
fn reduce(
    board: &Board,
    sway: u32,
    effort: Effort,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
    hurried: bool,
) -> Result<Vec<Move>, SearchError> {
    let n = board.size();
    let mut reducer = Reducer::new(board);
    reducer.deadline = deadline;
    reducer.hurried = hurried;
    reducer.sway = sway;
    reducer.effort = effort;
    reducer.stop = stop.cloned();
    let (mut top, mut left) = (0, 0);
    loop {
        if top == left && reducer.finish_core(n - top)? {
            break;
        }
        reducer.top = top;
        reducer.left = left;
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
    let moves = cancel_pairs(reducer.moves);
    if moves.len() > SMOOTHING_MAX_MOVES {
        return Ok(moves);
    }
    let moves = polish_until(board, moves, stop.map(|s| &**s), deadline);
    if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
        return Err(SearchError::Incomplete(Incomplete::Stopped));
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::{random_board, SplitMix64};

    /// The flag is looked at throughout: set while a 127x127 board (seconds
    /// of work) is being reduced, it ends the reduction.
    #[test]
    fn a_stop_flag_ends_the_reduction_of_the_largest_board() {
        let board = random_board(127, Goal::BlankLast, &mut SplitMix64::new(3));
        let stop = Arc::new(AtomicBool::new(false));
        let setter = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(200));
                stop.store(true, Ordering::Relaxed);
            })
        };
        let result =
            solve_by_reduction_until(&board, Goal::BlankLast, Effort::Thorough, Some(&stop), None);
        setter.join().unwrap();
        assert!(
            matches!(result, Err(SearchError::Incomplete(Incomplete::Stopped))),
            "{:?}",
            result.map(|m| m.len())
        );
    }

    /// A spent budget ends the reduction of any board that needs a move,
    /// naming the budget; the goal itself needs no work and answers.
    #[test]
    fn a_spent_deadline_ends_the_reduction() {
        let budget = std::time::Duration::from_millis(1);
        let spent = Deadline::partly_spent(budget, budget);
        for (size, seed) in [(4, 1), (10, 2), (127, 3)] {
            let board = random_board(size, Goal::BlankFirst, &mut SplitMix64::new(seed));
            let result = solve_by_reduction_until(
                &board,
                Goal::BlankFirst,
                Effort::Quick,
                None,
                Some(spent),
            );
            assert!(
                matches!(result, Err(SearchError::Incomplete(Incomplete::TimeLimit { budget: b })) if b == budget),
                "{size}x{size}: {:?}",
                result.map(|m| m.len())
            );
        }
        let goal = Goal::BlankLast.board(5);
        assert_eq!(
            solve_by_reduction_until(&goal, Goal::BlankLast, Effort::Quick, None, Some(spent)),
            Ok(Vec::new())
        );
    }

    /// Five random boards of each size in `sizes`, for each goal.
    /// Five boards a goal and size: the first at `npuzzle solve`'s effort,
    /// the rest at the coach's, which runs the same steps on smaller
    /// budgets (the core's searches are nine tenths of the time).
    fn random_boards_are_solved(sizes: std::ops::RangeInclusive<usize>) {
        for n in sizes {
            let mut rng = SplitMix64::new(5 + n as u64);
            for goal in Goal::ALL {
                for count in 0..5 {
                    let board = random_board(n, goal, &mut rng);
                    let effort = if count == 0 {
                        Effort::Thorough
                    } else {
                        Effort::Quick
                    };
                    let moves = solve_by_reduction_with(&board, goal, effort).unwrap();
                    assert!(
                        board.solves(&moves, goal),
                        "{n}x{n} {goal} {effort:?}: {board}"
                    );
                }
            }
        }
    }

    // Every size from 2x2 to 12x12, in tests of about equal work.
    #[test]
    fn random_boards_of_2x2_to_8x8_are_solved() {
        random_boards_are_solved(2..=8);
    }
    #[test]
    fn random_9x9_and_10x10_boards_are_solved() {
        random_boards_are_solved(9..=10);
    }
    #[test]
    fn random_11x11_boards_are_solved() {
        random_boards_are_solved(11..=11);
    }
    #[test]
    fn random_12x12_boards_are_solved() {
        random_boards_are_solved(12..=12);
    }

    /// Length over Manhattan distance, the bench's measure: the plain
    /// line-by-line reduction gives about 3.6 at 10x10 and 3.9 at 30x30.
    #[test]
    fn solutions_are_at_most_2_6_times_the_manhattan_distance() {
        let mut rng = SplitMix64::new(21);
        for (n, count, most) in [(10, 10, 2.6), (30, 2, 2.6)] {
            let (mut length, mut manhattan) = (0, 0);
            for _ in 0..count {
                let board = random_board(n, Goal::BlankLast, &mut rng);
                let moves = solve_by_reduction(&board, Goal::BlankLast).unwrap();
                assert!(board.solves(&moves, Goal::BlankLast));
                length += moves.len() as u64;
                manhattan += board.manhattan(Goal::BlankLast);
            }
            let ratio = length as f64 / manhattan as f64;
            assert!(ratio <= most, "{n}x{n}: {ratio:.2} times Manhattan");
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
