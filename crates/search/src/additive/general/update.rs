//! Move by move: rank updates, the views of the board and its mirror, and
//! the far entries whose lines are asked for ahead.

use super::*;

impl<D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Additive<'_, D, P, G> {
    /// The entries (table, byte) of the prefetched tables that the children
    /// of the node `state` and `position` describe will read far from its
    /// own, by `moves`.
    #[inline(always)]
    pub(super) fn far_child_entries(
        &self,
        state: &AdditiveState<P, G>,
        position: &Position,
        moves: MoveSet,
        mut each: impl FnMut(usize, usize),
    ) {
        let blank = position.blank();
        for &(from, mv) in self.grid.neighbors(blank) {
            if !moves.contains(mv) {
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
    pub(super) fn moved(
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

    /// Brings the board's view (or, `MIRROR`, the reflected one) of `next`
    /// up to date for `tile`'s `step` (of that view's cells): the partitions
    /// the tile is not in keep their sums, since the blank moved within one
    /// region of their free cells, and a table several partitions share is
    /// looked up once. Stops at the first partition whose sum exceeds
    /// `limit`, and returns that sum.
    #[inline(always)]
    pub(super) fn update_view<const MIRROR: bool>(
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
    pub(super) fn view<'s, const MIRROR: bool>(
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
    pub(super) fn sum_view<const MIRROR: bool>(
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
    pub(super) fn locate_view<const MIRROR: bool>(
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
