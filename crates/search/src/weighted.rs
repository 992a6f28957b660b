//! Bounded-suboptimal search: IDA* over `floor(w * h)` instead of `h`
//! (weighted IDA*). Every node of an optimal path has
//! `g + w * h <= w * (g + h) <= w * C*`, so the bound never passes
//! `w * C*` before the goal is found, and the solution found within a bound
//! is no longer than the bound: at most `w` times optimal, for any
//! admissible `h`, consistent or not. The weight is `1 + within / 100`.

use crate::grid::Position;
use crate::heuristic::{Heuristic, MoveSet};

/// `inner` with its estimates multiplied by `percent / 100` (rounded down).
pub struct Weighted<'a, H> {
    inner: &'a H,
    percent: u32,
}

impl<'a, H: Heuristic> Weighted<'a, H> {
    /// `inner` weighted by `1 + within / 100`.
    pub fn new(inner: &'a H, within: u32) -> Weighted<'a, H> {
        Weighted {
            inner,
            percent: 100 + within,
        }
    }

    #[inline(always)]
    fn scale(&self, h: u32) -> u32 {
        (u64::from(h) * u64::from(self.percent) / 100).min(u64::from(u32::MAX)) as u32
    }
}

impl<H: Heuristic> Heuristic for Weighted<'_, H> {
    type State = H::State;
    const UPDATE_READS_POSITION: bool = H::UPDATE_READS_POSITION;

    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn init(&self, position: &Position) -> H::State {
        self.inner.init(position)
    }

    #[inline(always)]
    fn value(&self, state: &H::State) -> u32 {
        self.scale(self.inner.value(state))
    }

    #[inline(always)]
    fn update(
        &self,
        state: &H::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> H::State {
        self.inner.update(state, position, tile, from, to)
    }

    #[inline(always)]
    fn prepare_children(&self, state: &mut H::State, position: &Position, moves: MoveSet) {
        self.inner.prepare_children(state, position, moves)
    }

    #[inline(always)]
    fn update_within(
        &self,
        state: &H::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
        limit: u32,
        child: &mut H::State,
    ) -> u32 {
        // The largest h whose weighted value is within `limit`:
        // floor(p * h / 100) <= limit  <=>  h <= (100 * (limit + 1) - 1) / p.
        let inner_limit = ((100 * (u64::from(limit) + 1) - 1) / u64::from(self.percent))
            .min(u64::from(u32::MAX)) as u32;
        let h = self
            .inner
            .update_within(state, position, tile, from, to, inner_limit, child);
        self.scale(h)
    }
}

#[cfg(test)]
mod tests;
