//! Tiles and lines placed: a tile's cheapest route to its cell, the
//! last two of a line together, a line filled.

use super::*;

impl Reducer {
    /// The cheapest way for `tile` to reach `target`, as the cells it
    /// steps onto: a cheapest-path search over (tile's cell, side of it
    /// the blank is on) in the rectangle round both, the blank's way
    /// round the tile priced on the board as it stands.
    pub(super) fn route(&mut self, tile: u32, target: usize) -> Option<Vec<usize>> {
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
    pub(super) fn place(
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
    pub(super) fn place_pair(
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
    pub(super) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            tiles: self.tiles.clone(),
            cells: self.cells.clone(),
            moves: self.moves.len(),
        }
    }

    /// Takes back every move made since `checkpoint`.
    pub(super) fn restore(&mut self, checkpoint: Checkpoint) {
        self.tiles = checkpoint.tiles;
        self.cells = checkpoint.cells;
        self.moves.truncate(checkpoint.moves);
    }

    /// `place_pair` in a `side` x `side` window; for a 3x3 window the tiles
    /// are first parked on its far line, the blank beside them.
    pub(super) fn pair_by_search(
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
    pub(super) fn walk(
        &mut self,
        tile: u32,
        target: usize,
        avoid: &[usize],
    ) -> Result<(), SearchError> {
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
    pub(super) fn fill(
        &mut self,
        columns: bool,
        line: usize,
        start: usize,
    ) -> Result<(), SearchError> {
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

    /// Locks the line's cells from `start` on if they hold their own
    /// tiles; whether they did.
    pub(super) fn keep_if_in_place(&mut self, columns: bool, line: usize, start: usize) -> bool {
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
