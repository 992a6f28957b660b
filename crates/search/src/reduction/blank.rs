//! The blank's moves, priced by what they do to the other tiles, and
//! its cheapest routes.

use super::*;

impl Reducer {
    /// Whether `tile` belongs to the next few lines to be placed: what the
    /// blank's trips do to those tiles still holds when they are placed,
    /// while tiles placed later are shuffled many times before then.
    pub(super) fn placed_soon(&self, tile: u32) -> bool {
        let home = tile as usize - 1;
        let ahead = 2 + self.n / 10;
        (self.top..self.top + ahead).contains(&(home / self.n))
            || (self.left..self.left + ahead).contains(&(home % self.n))
    }

    /// How far `tile` on `cell` is from its own cell.
    pub(super) fn distance_home(&self, tile: u32, cell: usize) -> usize {
        let home = tile as usize - 1;
        (home / self.n).abs_diff(cell / self.n) + (home % self.n).abs_diff(cell % self.n)
    }

    /// A cheapest blank path to `target` avoiding locked cells and `avoid`,
    /// searched within `window` (row and column ranges) first, then on the
    /// whole board. A move costs more when it pushes its tile away from
    /// home than when it pushes it closer, so the blank's trips do some of
    /// the later work.
    pub(super) fn blank_path(
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
    pub(super) fn blank_to(&mut self, target: usize, avoid: &[usize]) -> Result<(), SearchError> {
        self.check_stop()?;
        let (path, _) = self.blank_route(target, avoid).ok_or(Incomplete::Stuck)?;
        for cell in path {
            self.step_blank(cell);
        }
        Ok(())
    }

    /// The blank's cheapest path to `target` without crossing `avoid`, and
    /// its cost, searched near the straight route first.
    pub(super) fn blank_route(
        &mut self,
        target: usize,
        avoid: &[usize],
    ) -> Option<(Vec<usize>, u32)> {
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

    /// What the blank's move from `from` onto the adjacent `to` costs as
    /// the board stands (see `SWAY`).
    pub(super) fn step_cost(&self, from: usize, to: usize) -> u32 {
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
}
