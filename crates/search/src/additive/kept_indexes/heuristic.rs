//! The heuristic search calls: a board's state, a move's update, and
//! the children's entries asked for ahead.

use super::*;

impl<const P: usize, const G: usize> Heuristic for KeptIndexes<'_, P, G> {
    type State = KeptIndexesState<P, G>;
    /// A move reads only the tiles it crosses, which it does not move.
    const UPDATE_READS_POSITION: bool = false;

    fn name(&self) -> &'static str {
        crate::additive::Strategy::KeptIndexes.name()
    }

    fn init(&self, position: &Position) -> KeptIndexesState<P, G> {
        let mut state = KeptIndexesState {
            tables: [[TableState::default(); P]; 2],
            sum: [[0; G]; 2],
            ready: 0,
            prepared_index: [[0; G]; 8],
            prepared_order: [[0; G]; 8],
        };
        for view in 0..1 + self.reflect as usize {
            for p in 0..self.tables.len() {
                let (key, order, manhattan, value) = self.evaluate(p, view, position);
                state.tables[view][p] = TableState {
                    key,
                    order,
                    manhattan,
                    value,
                };
            }
            for &(g, p) in &self.slots {
                state.sum[view][g as usize] += state.tables[view][p as usize].value as u16;
            }
        }
        state
    }

    #[inline(always)]
    fn value(&self, state: &KeptIndexesState<P, G>) -> u32 {
        // The sums of partitions past the catalogue's, and the mirror's
        // without reflection, stay 0: a loop over all `G` vectorizes.
        let mut best = [0u16; G];
        for ((best, &board), &mirror) in best.iter_mut().zip(&state.sum[0]).zip(&state.sum[1]) {
            *best = board.max(mirror);
        }
        best.into_iter().max().unwrap_or(0) as u32
    }

    fn update(
        &self,
        state: &KeptIndexesState<P, G>,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> KeptIndexesState<P, G> {
        update_by_within(self, state, position, tile, from, to)
    }

    /// The board's sums first; the mirror's only when none exceeds
    /// `limit` (as the general heuristic does, so that the cut-off values,
    /// and so the bounds and node counts, are the same).
    #[inline(always)]
    fn update_within(
        &self,
        state: &KeptIndexesState<P, G>,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        limit: u32,
        child: &mut KeptIndexesState<P, G>,
    ) -> u32 {
        // What was prepared for this node's children is not the child's.
        child.tables = state.tables;
        child.sum = state.sum;
        child.ready = 0;
        let t = tile as usize & (CELLS - 1);
        let distance = &self.distance[t];
        let change =
            distance[to as usize & (CELLS - 1)].wrapping_sub(distance[from as usize & (CELLS - 1)]);
        let direction = self.direction(from, to);
        if let Some(cut) =
            self.update_view::<0>(state, position, t, from, direction, change, limit, child)
        {
            return cut;
        }
        if self.reflect {
            if let Some(cut) =
                self.update_view::<1>(state, position, t, from, direction, change, limit, child)
            {
                return cut;
            }
        }
        self.value(child)
    }

    /// Works out every index the children of the node will read by
    /// `moves`, and asks for their entries.
    #[inline(always)]
    fn prepare_children(
        &self,
        state: &mut KeptIndexesState<P, G>,
        position: &Position,
        moves: MoveSet,
    ) {
        let blank = position.blank();
        let mut steps = [(0, 0, 0); 4];
        let mut count = 0;
        for &(from, mv) in self.grid.neighbors(blank) {
            if !moves.contains(mv) {
                continue;
            }
            let tile = position.tiles[from as usize] as usize & (CELLS - 1);
            let step = (tile, from, self.direction(from, blank));
            self.prepare_view::<0>(state, position, step);
            if self.reflect {
                self.prepare_view::<1>(state, position, step);
            }
            if let Some(slot) = steps.get_mut(count) {
                *slot = step;
                count += 1;
            }
        }
        let mut ready = 0;
        for &step in &steps[..count] {
            self.finish_view::<0>(state, step);
            if self.reflect {
                self.finish_view::<1>(state, step);
            }
            ready |= 1 << step.2;
        }
        state.ready = ready;
    }
}
