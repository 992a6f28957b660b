//! The depth-first search under IDA*: one searcher over one position,
//! bounded by f = g + h, and IDA* on one thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use npuzzle_board::Move;

use crate::grid::{Grid, Position};
use crate::halt::{Halt, CHECK_EVERY};
use crate::heuristic::Heuristic;
use crate::pruning::{MovePruning, PruneState, START};
use crate::types::{Deadline, Stats};

/// The duplicate-move automaton, built once per process.
pub(super) fn pruning() -> &'static MovePruning {
    static PRUNING: std::sync::OnceLock<MovePruning> = std::sync::OnceLock::new();
    PRUNING.get_or_init(MovePruning::standard)
}

/// No cell: the root has no parent to avoid.
pub(super) const NO_CELL: u8 = u8::MAX;

/// How a bounded depth-first pass ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Found,
    Exhausted,
    Stopped,
}

/// The stop flag of searches that cannot be stopped.
static NEVER: AtomicBool = AtomicBool::new(false);
/// The first solution's subtree of searches that no other search ends.
static NO_SOLUTION: AtomicUsize = AtomicUsize::new(usize::MAX);

/// One depth-first searcher: the position it mutates, its path and counters.
pub(crate) struct Dfs<'a, H: Heuristic> {
    grid: &'a Grid,
    heuristic: &'a H,
    pub position: Position,
    pub path: Vec<Move>,
    bound: u32,
    /// The smallest f seen above the bound: the next iteration's bound.
    pub next_bound: u32,
    /// The least estimate among the nodes entered: how near the goal this
    /// search came.
    pub closest: u32,
    pub stats: Stats,
    /// The node count at which the budgets are looked at next: the node
    /// limit, or before it the clock's next look (one comparison a node
    /// either way).
    check_at: u64,
    node_limit: u64,
    /// The caller's stop flag (one that is never set when none was
    /// given), read at every node.
    stop: &'a AtomicBool,
    deadline: Option<&'a Deadline>,
    /// In a split search, the first subtree (in the split's order) where a
    /// solution was found, and this search's subtree: a search of a later
    /// subtree stops, since it cannot change the answer.
    pub(super) first_found: &'a AtomicUsize,
    pub(super) subtree: usize,
    pruning: &'static MovePruning,
    /// The children's states, a row per depth below the start, kept from
    /// one iteration (and one subtree) to the next: a node writes each
    /// child's state once, where its search will read it, instead of
    /// copying states (over a hundred bytes each) into and out of a local
    /// array.
    pub stack: Vec<[H::State; 4]>,
}

impl<'a, H: Heuristic> Dfs<'a, H> {
    pub fn new(
        grid: &'a Grid,
        heuristic: &'a H,
        position: Position,
        node_limit: u64,
        halt: Halt<'a>,
    ) -> Self {
        Dfs {
            grid,
            heuristic,
            position,
            path: Vec::with_capacity(256),
            bound: 0,
            next_bound: u32::MAX,
            closest: u32::MAX,
            stats: Stats::default(),
            check_at: if halt.deadline().is_some() {
                node_limit.min(CHECK_EVERY)
            } else {
                node_limit
            },
            node_limit,
            stop: halt.flag_or(&NEVER),
            deadline: halt.deadline(),
            first_found: &NO_SOLUTION,
            subtree: 0,
            pruning: pruning(),
            stack: Vec::new(),
        }
    }

    /// Searches below the current position (reached by `g` moves, the blank
    /// having come from `parent_blank`) with f bounded by `bound`.
    pub fn run(
        &mut self,
        bound: u32,
        g: u32,
        parent_blank: Option<u8>,
        history: PruneState,
        state: &H::State,
    ) -> Flow {
        self.bound = bound;
        self.next_bound = u32::MAX;
        self.closest = u32::MAX;
        // A node at depth g has f = g + h <= bound, so at most bound - g + 1
        // levels of children lie below the start.
        let rows = (bound.saturating_sub(g) + 2) as usize;
        if self.stack.len() < rows {
            self.stack.resize(rows, [*state; 4]);
        }
        let mut stack = std::mem::take(&mut self.stack);
        self.path.clear();
        let flow = self.search(
            g,
            parent_blank.unwrap_or(NO_CELL),
            history,
            state,
            &mut stack,
        );
        self.stack = stack;
        // The moves were pushed on the way back up.
        self.path.reverse();
        flow
    }

    /// At `check_at`: whether the node limit or the deadline is reached;
    /// if not, when to look next.
    #[cold]
    #[inline(never)]
    fn out_of_budget(&mut self) -> bool {
        let expanded = self.stats.expanded;
        if expanded >= self.node_limit || self.deadline.is_some_and(|d| d.passed()) {
            return true;
        }
        self.check_at = (expanded + CHECK_EVERY).min(self.node_limit);
        false
    }

    fn search(
        &mut self,
        g: u32,
        parent_blank: u8,
        history: PruneState,
        state: &H::State,
        stack: &mut [[H::State; 4]],
    ) -> Flow {
        let h = self.heuristic.value(state);
        self.closest = self.closest.min(h);
        if h == 0 && self.position.is_goal(self.grid) {
            return Flow::Found;
        }
        self.stats.expanded += 1;
        if self.stats.expanded >= self.check_at && self.out_of_budget() {
            return Flow::Stopped;
        }
        if self.stop.load(Ordering::Relaxed)
            || self.first_found.load(Ordering::Relaxed) < self.subtree
        {
            return Flow::Stopped;
        }
        let blank = self.position.blank();
        // Evaluate every child first: their table lookups are independent,
        // so their cache misses overlap, and the children can be searched
        // most promising first, which ends the last iteration sooner.
        let limit = self.bound.saturating_sub(g + 1);
        let (states, deeper) = stack
            .split_first_mut()
            .expect("a row per level down to the bound");
        let mut children: [(u8, Move, PruneState); 4] = [(0, Move::Up, START); 4];
        // Apart from the rest: one wide load of values just stored one by
        // one would wait for the stores.
        let mut f_of = [0u32; 4];
        let mut count = 0;
        // The loop of `moves_out`, written out: through the iterator the
        // search takes 6-9 % more instructions.
        for &(from, mv) in self.grid.neighbors(blank) {
            if from == parent_blank {
                continue;
            }
            let Some(after) = self.pruning.step(history, mv) else {
                continue;
            };
            // Only a heuristic that reads the child's position needs the
            // move made before the child is known to be within the bound.
            let tile = if H::UPDATE_READS_POSITION {
                self.position.slide(from)
            } else {
                self.position.tiles[from as usize]
            };
            let h = self.heuristic.update_within(
                state,
                &self.position,
                tile,
                from,
                blank,
                limit,
                &mut states[count],
            );
            let f = g + 1 + h;
            self.stats.generated += 1;
            if f <= self.bound {
                // The child will be entered: its children are prepared on
                // the child's position.
                if !H::UPDATE_READS_POSITION {
                    self.position.slide(from);
                }
                self.heuristic.prepare_children(
                    &mut states[count],
                    &self.position,
                    self.pruning.moves(after),
                );
                self.position.slide(blank);
                children[count] = (from, mv, after);
                f_of[count] = f;
                count += 1;
            } else {
                if H::UPDATE_READS_POSITION {
                    self.position.slide(blank);
                }
                self.next_bound = self.next_bound.min(f);
            }
        }
        for c in children_in_order(f_of, count) {
            let (from, mv, after) = children[c];
            self.position.slide(from);
            match self.search(g + 1, blank, after, &states[c], deeper) {
                Flow::Exhausted => {}
                Flow::Found => {
                    // The path is built on the way back up, not kept on the
                    // way down: it is wanted once.
                    self.path.push(mv);
                    return Flow::Found;
                }
                Flow::Stopped => return Flow::Stopped,
            }
            self.position.slide(blank);
        }
        Flow::Exhausted
    }
}

/// The moves search makes out of a node whose blank is on `blank`: each
/// one's cell the blank goes to, the move, and the pruning automaton's
/// state after it. The move back to `parent_blank` and the moves that end
/// a pruned sequence are left out.
#[inline(always)]
pub(super) fn moves_out<'a>(
    grid: &'a Grid,
    pruning: &'static MovePruning,
    blank: u8,
    parent_blank: u8,
    history: PruneState,
) -> impl Iterator<Item = (u8, Move, PruneState)> + 'a {
    grid.neighbors(blank)
        .iter()
        .filter(move |&&(from, _)| from != parent_blank)
        .filter_map(move |&(from, mv)| Some((from, mv, pruning.step(history, mv)?)))
}

/// The first `count` children by their f in `f`, the earlier first among
/// equals (an insertion sort: there are at most four, and the general sort
/// is a call).
#[inline(always)]
fn children_in_order(f: [u32; 4], count: usize) -> impl Iterator<Item = usize> {
    let mut order = [0usize, 1, 2, 3];
    for i in 1..count.min(4) {
        let mut j = i;
        while j > 0 && f[order[j - 1]] > f[order[j]] {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    order.into_iter().take(count)
}

/// Runs IDA* to the end on one thread; `None` when the node limit stopped it.
pub(crate) fn ida_star<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    node_limit: u64,
    halt: Halt<'_>,
) -> Option<(Vec<Move>, Stats)> {
    let state = heuristic.init(&position);
    let mut bound = heuristic.value(&state);
    let mut dfs = Dfs::new(grid, heuristic, position, node_limit, halt);
    loop {
        dfs.stats.iterations += 1;
        match dfs.run(bound, 0, None, START, &state) {
            Flow::Found => return Some((std::mem::take(&mut dfs.path), dfs.stats)),
            Flow::Stopped => return None,
            Flow::Exhausted => bound = dfs.next_bound,
        }
    }
}
