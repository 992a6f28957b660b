//! Iterative-deepening A* (Korf 1985): depth-first search bounded by
//! f = g + h, the bound raised to the smallest f that exceeded it. Memory is
//! the path alone; the board is changed and restored in place, the heuristic
//! is updated per move, and the move back to the parent is never generated.

use std::sync::atomic::{AtomicBool, Ordering};

use npuzzle_board::Move;

use crate::grid::{Grid, Position};
use crate::heuristic::Heuristic;
use crate::Stats;

/// No cell: the root has no parent to avoid.
const NO_CELL: u8 = u8::MAX;

/// How a bounded depth-first pass ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Found,
    Exhausted,
    Stopped,
}

/// One depth-first searcher: the position it mutates, its path and counters.
pub(crate) struct Dfs<'a, H: Heuristic> {
    grid: &'a Grid,
    heuristic: &'a H,
    pub position: Position,
    pub path: Vec<Move>,
    bound: u32,
    /// The smallest f seen above the bound: the next iteration's bound.
    pub next_bound: u32,
    pub stats: Stats,
    node_limit: u64,
    /// Set by another thread that found a solution or by the node limit.
    stop: &'a AtomicBool,
}

impl<'a, H: Heuristic> Dfs<'a, H> {
    pub fn new(
        grid: &'a Grid,
        heuristic: &'a H,
        position: Position,
        node_limit: u64,
        stop: &'a AtomicBool,
    ) -> Self {
        Dfs {
            grid,
            heuristic,
            position,
            path: Vec::with_capacity(256),
            bound: 0,
            next_bound: u32::MAX,
            stats: Stats::default(),
            node_limit,
            stop,
        }
    }

    /// Searches below the current position (reached by `g` moves, the blank
    /// having come from `parent_blank`) with f bounded by `bound`.
    pub fn run(&mut self, bound: u32, g: u32, parent_blank: Option<u8>, state: &H::State) -> Flow {
        self.bound = bound;
        self.next_bound = u32::MAX;
        self.search(g, parent_blank.unwrap_or(NO_CELL), state)
    }

    fn search(&mut self, g: u32, parent_blank: u8, state: &H::State) -> Flow {
        if self.heuristic.value(state) == 0 && self.position.is_goal(self.grid) {
            return Flow::Found;
        }
        self.stats.expanded += 1;
        // Checking the shared flag costs a load; every 4096 nodes is plenty.
        if self.stats.expanded & 0xFFF == 0 {
            if self.stop.load(Ordering::Relaxed) {
                return Flow::Stopped;
            }
            if self.stats.expanded >= self.node_limit {
                return Flow::Stopped;
            }
        }
        let blank = self.position.blank();
        let neighbors = self.grid.neighbors(blank);
        for &(from, _) in neighbors {
            if from != parent_blank {
                let tile = self.position.tiles[from as usize];
                self.heuristic.prefetch(state, &self.position, tile, blank);
            }
        }
        for &(from, mv) in neighbors {
            if from == parent_blank {
                continue;
            }
            let tile = self.position.slide(from);
            let child = self
                .heuristic
                .update(state, &self.position, tile, from, blank);
            self.stats.generated += 1;
            let f = g + 1 + self.heuristic.value(&child);
            if f <= self.bound {
                self.path.push(mv);
                match self.search(g + 1, blank, &child) {
                    Flow::Exhausted => {}
                    other => return other,
                }
                self.path.pop();
            } else if f < self.next_bound {
                self.next_bound = f;
            }
            self.position.slide(blank);
        }
        Flow::Exhausted
    }
}

/// Runs IDA* to the end on one thread; `None` when the node limit stopped it.
pub(crate) fn ida_star<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    node_limit: u64,
) -> Option<(Vec<Move>, Stats)> {
    let stop = AtomicBool::new(false);
    let state = heuristic.init(&position);
    let mut bound = heuristic.value(&state);
    let mut dfs = Dfs::new(grid, heuristic, position, node_limit, &stop);
    loop {
        dfs.stats.iterations += 1;
        match dfs.run(bound, 0, None, &state) {
            Flow::Found => return Some((std::mem::take(&mut dfs.path), dfs.stats)),
            Flow::Stopped => return None,
            Flow::Exhausted => bound = dfs.next_bound,
        }
    }
}
