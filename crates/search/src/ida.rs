//! Iterative-deepening A* (Korf 1985): depth-first search bounded by
//! f = g + h, the bound raised to the smallest f that exceeded it. Memory is
//! the path alone; the board is changed and restored in place, the heuristic
//! is updated per move, and the move back to the parent is never generated.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use npuzzle_board::Move;

use crate::grid::{Grid, Position};
use crate::halt::{Halt, CHECK_EVERY};
use crate::heuristic::Heuristic;
use crate::pruning::{MovePruning, PruneState, START};

/// The duplicate-move automaton, built once per process.
fn pruning() -> &'static MovePruning {
    static PRUNING: std::sync::OnceLock<MovePruning> = std::sync::OnceLock::new();
    PRUNING.get_or_init(MovePruning::standard)
}
use crate::types::{Deadline, Stats};

/// No cell: the root has no parent to avoid.
const NO_CELL: u8 = u8::MAX;

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
    first_found: &'a AtomicUsize,
    subtree: usize,
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
fn moves_out<'a>(
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

/// The split search's frontier from `position` for `bound`: each node's
/// moves from the root and estimate (most promising first, ties in level
/// order), the least f cut above them, a goal above the depth if one is
/// within the bound, and the nodes expanded on the way.
#[allow(clippy::type_complexity)]
pub(crate) fn frontier_moves<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    depth: u32,
    bound: u32,
) -> (Vec<(Vec<Move>, u32)>, u32, Option<Vec<Move>>, u64) {
    let state = heuristic.init(&position);
    let root = Subtree::root(position, state);
    let above = frontier(grid, heuristic, &root, depth, bound, 1);
    let mut nodes: Vec<(Vec<Move>, u32)> = above
        .parts
        .into_iter()
        .flatten()
        .map(|t| (t.moves, heuristic.value(&t.state)))
        .collect();
    nodes.sort_by_key(|(_, h)| *h);
    (nodes, above.least_cut, above.goal, above.stats.expanded)
}

/// One pass below the node `prefix` leads to from `position`, bounded by
/// `bound`: the moves from that node if a solution is within the bound,
/// else the least f above it; the nodes expanded; whether the pass ran to
/// its end (false: the node limit or the stop flag ended it); and the
/// least estimate it met (the split search's `promise`). A prefix that is
/// not a move sequence the search makes (off the board, undoing a move,
/// or a duplicate the pruning automaton skips) has no nodes: (None,
/// u32::MAX, 0, true, u32::MAX).
#[allow(clippy::type_complexity)]
pub(crate) fn pass_below<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    mut position: Position,
    prefix: &[Move],
    bound: u32,
    node_limit: u64,
    halt: Halt<'_>,
) -> (Option<Vec<Move>>, u32, u64, bool, u32) {
    let n = grid.n;
    let mut history = START;
    let mut parent_blank = None;
    for &m in prefix {
        let blank = position.blank();
        let Some(from) = m.blank_target(n, blank as usize) else {
            return (None, u32::MAX, 0, true, u32::MAX);
        };
        if parent_blank == Some(from as u8) {
            return (None, u32::MAX, 0, true, u32::MAX);
        }
        let Some(next) = pruning().step(history, m) else {
            return (None, u32::MAX, 0, true, u32::MAX);
        };
        history = next;
        position.slide(from as u8);
        parent_blank = Some(blank);
    }
    let state = heuristic.init(&position);
    let mut dfs = Dfs::new(grid, heuristic, position, node_limit, halt);
    match dfs.run(bound, prefix.len() as u32, parent_blank, history, &state) {
        Flow::Found => (
            Some(std::mem::take(&mut dfs.path)),
            bound,
            dfs.stats.expanded,
            true,
            dfs.closest,
        ),
        Flow::Exhausted => (None, dfs.next_bound, dfs.stats.expanded, true, dfs.closest),
        Flow::Stopped => (None, u32::MAX, dfs.stats.expanded, false, dfs.closest),
    }
}

/// A node the levels above the split depth expand.
struct Subtree<S> {
    position: Position,
    moves: Vec<Move>,
    parent_blank: Option<u8>,
    history: PruneState,
    state: S,
}

impl<S> Subtree<S> {
    /// The search's start.
    fn root(position: Position, state: S) -> Subtree<S> {
        Subtree {
            position,
            moves: Vec::new(),
            parent_blank: None,
            history: START,
            state,
        }
    }
}

/// A node at the split depth, where a subtree's search starts: the
/// root's position after `moves` (kept as moves, not as a position: a
/// position is 512 bytes, and there are tens of thousands of them).
struct Start<S> {
    moves: Vec<Move>,
    parent_blank: Option<u8>,
    history: PruneState,
    state: S,
}

impl<S> Start<S> {
    /// The position this start stands for, `root` being the root's.
    fn position(&self, grid: &Grid, root: &Position) -> Position {
        let mut position = root.clone();
        for &m in &self.moves {
            let from = m
                .blank_target(grid.n, position.blank() as usize)
                .expect("a frontier node's moves stay on the board");
            position.slide(from as u8);
        }
        position
    }
}

/// What the levels above the split depth hold.
struct Frontier<S> {
    /// The nodes at the split depth with f within the bound, in level
    /// order, in parts (one per node of the last level walked breadth
    /// first; see `frontier`).
    parts: Vec<Vec<Start<S>>>,
    /// The least f cut off above them.
    least_cut: u32,
    /// A goal above the split depth (weighted estimates can put the bound
    /// past a shallow goal): the shallowest, the first in level order.
    goal: Option<Vec<Move>>,
    stats: Stats,
}

/// What expanding one node above the split depth gives, besides its
/// children within the bound: the least f it cut off; the children
/// generated; and a goal child, where the expansion stopped.
struct Expansion {
    least_cut: u32,
    generated: u64,
    goal: Option<Vec<Move>>,
}

/// Expands `node`, at depth `g`, against `bound`, its children within the
/// bound pushed to `kept` in move order.
fn expand<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    node: &Subtree<H::State>,
    g: u32,
    bound: u32,
    kept: &mut Vec<Subtree<H::State>>,
) -> Expansion {
    let mut expansion = Expansion {
        least_cut: u32::MAX,
        generated: 0,
        goal: None,
    };
    let blank = node.position.blank();
    let parent_blank = node.parent_blank.unwrap_or(NO_CELL);
    for (from, mv, history) in moves_out(grid, pruning(), blank, parent_blank, node.history) {
        let mut position = node.position.clone();
        let tile = position.slide(from);
        let state = heuristic.update(&node.state, &position, tile, from, blank);
        expansion.generated += 1;
        let h = heuristic.value(&state);
        let f = g + 1 + h;
        if f > bound {
            expansion.least_cut = expansion.least_cut.min(f);
            continue;
        }
        // Allocated once at its final length (a clone and a push would
        // allocate twice).
        let mut moves = Vec::with_capacity(node.moves.len() + 1);
        moves.extend_from_slice(&node.moves);
        moves.push(mv);
        if h == 0 && position.is_goal(grid) {
            expansion.goal = Some(moves);
            return expansion;
        }
        kept.push(Subtree {
            position,
            moves,
            parent_blank: Some(blank),
            history,
            state,
        });
    }
    expansion
}

/// The levels from the root down to `depth`, cut at `bound`: the top
/// `BREADTH_FIRST` breadth first, the rest depth first below each node of
/// the last of those, these walks shared by `workers` threads of the rayon
/// pool (the result is the same for any number: the nodes stay in level
/// order, each level in move order). The nodes at `depth` are kept in
/// parts, one per node above, in order: gathering them into one array
/// would be one thread copying every node while the others wait.
fn frontier<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    root: &Subtree<H::State>,
    depth: u32,
    bound: u32,
    workers: usize,
) -> Frontier<H::State> {
    use rayon::prelude::*;
    /// Levels expanded breadth first: enough nodes for the threads to
    /// share, few enough that copying them costs nothing.
    const BREADTH_FIRST: u32 = 4;
    let mut least_cut = u32::MAX;
    let mut stats = Stats::default();
    let mut level = vec![Subtree::root(root.position.clone(), root.state)];
    for g in 0..depth.min(BREADTH_FIRST) {
        stats.expanded += level.len() as u64;
        let mut next = Vec::with_capacity(level.len() * 3);
        for node in &level {
            let expansion = expand(grid, heuristic, node, g, bound, &mut next);
            stats.generated += expansion.generated;
            least_cut = least_cut.min(expansion.least_cut);
            if let Some(moves) = expansion.goal {
                return Frontier {
                    parts: Vec::new(),
                    least_cut,
                    goal: Some(moves),
                    stats,
                };
            }
        }
        level = next;
    }
    let below = |node: &Subtree<H::State>| {
        let mut collector = Collector {
            grid,
            heuristic,
            pruning: pruning(),
            position: node.position.clone(),
            moves: node.moves.clone(),
            depth,
            bound,
            kept: Vec::new(),
            least_cut: u32::MAX,
            stats: Stats::default(),
            goal: None,
        };
        let g = node.moves.len() as u32;
        let parent_blank = node.parent_blank.unwrap_or(NO_CELL);
        let mut start = node.state;
        heuristic.prepare_children(&mut start, &node.position, pruning().moves(node.history));
        let mut stack = vec![[start; 4]; (depth - g + 1) as usize];
        collector.collect(g, parent_blank, node.history, &start, &mut stack);
        collector
    };
    let collected: Vec<Collector<H>> = if workers > 1 {
        level.par_iter().map(below).collect()
    } else {
        level.iter().map(below).collect()
    };
    let mut goal: Option<(u32, Vec<Move>)> = None;
    let mut parts = Vec::with_capacity(collected.len());
    for part in collected {
        stats += part.stats;
        least_cut = least_cut.min(part.least_cut);
        if let Some((at, moves)) = part.goal {
            if goal.as_ref().is_none_or(|(shallowest, _)| at < *shallowest) {
                goal = Some((at, moves));
            }
        }
        if !part.kept.is_empty() {
            parts.push(part.kept);
        }
    }
    if goal.is_some() {
        parts.clear();
    }
    Frontier {
        parts,
        least_cut,
        goal: goal.map(|(_, moves)| moves),
        stats,
    }
}

/// A depth-first walk that keeps the nodes at `depth` within `bound`, as
/// the search does: a node's children are evaluated with the entries
/// asked for when it was entered (a level at a time, each node's position
/// and state would be copied once per level).
struct Collector<'a, H: Heuristic> {
    grid: &'a Grid,
    heuristic: &'a H,
    pruning: &'static MovePruning,
    position: Position,
    moves: Vec<Move>,
    depth: u32,
    bound: u32,
    kept: Vec<Start<H::State>>,
    least_cut: u32,
    stats: Stats,
    /// The shallowest goal within the bound, the first in move order:
    /// its depth and moves.
    goal: Option<(u32, Vec<Move>)>,
}

impl<H: Heuristic> Collector<'_, H> {
    fn collect(
        &mut self,
        g: u32,
        parent_blank: u8,
        history: PruneState,
        state: &H::State,
        stack: &mut [[H::State; 4]],
    ) {
        if g == self.depth {
            self.kept.push(Start {
                moves: self.moves.clone(),
                parent_blank: (parent_blank != NO_CELL).then_some(parent_blank),
                history,
                state: *state,
            });
            return;
        }
        self.stats.expanded += 1;
        let blank = self.position.blank();
        let (states, deeper) = stack
            .split_first_mut()
            .expect("a row per level down to the depth");
        let mut children: [(u8, Move, PruneState); 4] = [(0, Move::Up, START); 4];
        let mut count = 0;
        for (from, mv, after) in moves_out(self.grid, self.pruning, blank, parent_blank, history) {
            let tile = self.position.slide(from);
            // Cut-off values as the search's, whose next bound they join.
            let h = self.heuristic.update_within(
                state,
                &self.position,
                tile,
                from,
                blank,
                self.bound.saturating_sub(g + 1),
                &mut states[count],
            );
            self.stats.generated += 1;
            let f = g + 1 + h;
            if f > self.bound {
                self.least_cut = self.least_cut.min(f);
            } else if h == 0 && self.position.is_goal(self.grid) {
                if self.goal.as_ref().is_none_or(|(at, _)| g + 1 < *at) {
                    let mut moves = self.moves.clone();
                    moves.push(mv);
                    self.goal = Some((g + 1, moves));
                }
            } else {
                // A child at the depth is kept, not entered: its search
                // prepares it.
                if g + 1 < self.depth {
                    self.heuristic.prepare_children(
                        &mut states[count],
                        &self.position,
                        self.pruning.moves(after),
                    );
                }
                children[count] = (from, mv, after);
                count += 1;
            }
            self.position.slide(blank);
        }
        for (c, &(from, mv, after)) in children.iter().enumerate().take(count) {
            self.position.slide(from);
            self.moves.push(mv);
            self.collect(g + 1, blank, after, &states[c], deeper);
            self.moves.pop();
            self.position.slide(blank);
        }
    }
}

/// The depth a split search cuts each iteration at. Cut at 12 moves, a
/// 4x4 iteration has thousands of subtrees of a few hundred nodes, each
/// begun with entries that no subtree searched just before brought into
/// the cache; at 8 they hold thousands of nodes (the 17 boards at
/// distance 80: 2-10 % faster, nodes within 1.5 %). The 24-puzzle's
/// subtrees are large at 12 already, and its last iteration gains from
/// the finer order (docs/internals.md, "Split depth on the 4x4").
pub fn split_depth(side: usize) -> u32 {
    if side <= 4 {
        8
    } else {
        12
    }
}

/// IDA* with each iteration split into the subtrees below a fixed depth,
/// searched most promising first by `workers` threads of the rayon pool
/// (1: the calling thread alone). The solution kept is the one in the
/// first subtree in that order that has one, so the moves depend neither
/// on timing nor on the number of workers. `None` when the node limit
/// stopped it.
pub(crate) fn split_ida_star<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    node_limit: u64,
    halt: Halt<'_>,
    workers: usize,
    spare: Option<&AtomicUsize>,
) -> Option<(Vec<Move>, Stats)> {
    use rayon::prelude::*;
    use std::sync::Mutex;

    let depth = split_depth(grid.n);
    let state = heuristic.init(&position);
    let mut bound = heuristic.value(&state);
    if bound <= depth + 2 {
        return ida_star(grid, heuristic, position, node_limit, halt);
    }
    let root = Subtree::root(position, state);
    let mut stats = Stats::default();
    // How near the goal each subtree's search came in the last iteration,
    // by the subtree's moves.
    let mut came_near: HashMap<u64, u32> = HashMap::new();
    loop {
        stats.iterations += 1;
        // The nodes above the split depth, once per iteration.
        let above = frontier(grid, heuristic, &root, depth, bound, workers);
        stats.expanded += above.stats.expanded;
        stats.generated += above.stats.generated;
        if let Some(moves) = above.goal {
            return Some((moves, stats));
        }
        let least_cut = above.least_cut;
        let subtrees: Vec<&Start<H::State>> = above.parts.iter().flatten().collect();
        let first_found = AtomicUsize::new(usize::MAX);
        let stopped = AtomicBool::new(false);
        // The node limit is the whole search's: each subtree gets what the
        // finished ones left (with several workers, the subtrees under way
        // may together pass it by at most a subtree's share each).
        let spent = AtomicU64::new(stats.expanded);
        let found: Mutex<Option<(usize, Vec<Move>)>> = Mutex::new(None);
        // Most promising subtrees first (see `promise`), handed out in that
        // order to whichever thread is free, so that the threads work where
        // a solution is likeliest and the last iteration ends soonest. The
        // sort is stable: ties keep the frontier's level order. The order is
        // sorted, not the subtrees, which are large (the heuristic's state).
        let promises: Vec<(u32, u32)> = subtrees
            .iter()
            .map(|t| {
                let estimate = heuristic.value(&t.state);
                promise(estimate, came_near.get(&packed_moves(&t.moves)).copied())
            })
            .collect();
        let mut order: Vec<usize> = (0..subtrees.len()).collect();
        order.sort_by_key(|&i| promises[i]);
        let closest: Vec<AtomicU32> = subtrees.iter().map(|_| AtomicU32::new(u32::MAX)).collect();
        let next_subtree = AtomicUsize::new(0);
        let search_subtree = |index: usize,
                              subtree: &Start<H::State>,
                              stack: &mut Vec<[H::State; 4]>|
         -> (Stats, u32) {
            // Subtrees smaller than the clock's interval look at it here.
            if halt.now() {
                stopped.store(true, Ordering::Relaxed);
                return (Stats::default(), u32::MAX);
            }
            let position = subtree.position(grid, &root.position);
            // The start's children are prepared as every other node's are.
            let mut start = subtree.state;
            heuristic.prepare_children(&mut start, &position, pruning().moves(subtree.history));
            let left = node_limit.saturating_sub(spent.load(Ordering::Relaxed));
            let mut dfs = Dfs::new(grid, heuristic, position, left, halt);
            dfs.first_found = &first_found;
            dfs.subtree = index;
            dfs.stack = std::mem::take(stack);
            let flow = dfs.run(bound, depth, subtree.parent_blank, subtree.history, &start);
            match flow {
                Flow::Found => {
                    first_found.fetch_min(index, Ordering::Relaxed);
                    let mut moves = subtree.moves.clone();
                    moves.extend_from_slice(&dfs.path);
                    let mut best = found.lock().expect("no panics while held");
                    if best.as_ref().is_none_or(|(i, _)| index < *i) {
                        *best = Some((index, moves));
                    }
                }
                // An earlier subtree's solution ended this one: nothing lost.
                Flow::Stopped if first_found.load(Ordering::Relaxed) < index => {}
                Flow::Stopped => stopped.store(true, Ordering::Relaxed),
                Flow::Exhausted => {}
            }
            spent.fetch_add(dfs.stats.expanded, Ordering::Relaxed);
            *stack = std::mem::take(&mut dfs.stack);
            closest[index].store(dfs.closest, Ordering::Relaxed);
            (dfs.stats, dfs.next_bound)
        };
        // `recruit`, on the search's own thread, takes spare threads on
        // before each subtree.
        let worker = |recruit: Option<&dyn Fn()>| {
            let mut totals = (Stats::default(), u32::MAX);
            // One stack of child states per thread, for all its subtrees.
            let mut stack = Vec::new();
            loop {
                if let Some(recruit) = recruit {
                    recruit();
                }
                let index = next_subtree.fetch_add(1, Ordering::Relaxed);
                // A later subtree cannot change the answer once an
                // earlier one has one.
                if index >= subtrees.len() || index > first_found.load(Ordering::Relaxed) {
                    return totals;
                }
                let (s, b) = search_subtree(index, subtrees[order[index]], &mut stack);
                totals.0 += s;
                totals.1 = totals.1.min(b);
            }
        };
        let (iteration_stats, next_bound) = if workers <= 1 {
            match spare {
                None => worker(None),
                Some(spare) => with_spare_threads(spare, &worker),
            }
        } else {
            (0..workers).into_par_iter().map(|_| worker(None)).reduce(
                || (Stats::default(), u32::MAX),
                |(mut a, x), (b, y)| {
                    a += b;
                    (a, x.min(y))
                },
            )
        };
        stats.expanded += iteration_stats.expanded;
        stats.generated += iteration_stats.generated;
        if let Some((_, moves)) = found.into_inner().expect("no panics while held") {
            return Some((moves, stats));
        }
        if stopped.load(Ordering::Relaxed) || stats.expanded >= node_limit || halt.now() {
            return None;
        }
        bound = next_bound.min(least_cut);
        came_near = order
            .iter()
            .zip(&closest)
            .map(|(&i, near)| {
                (
                    packed_moves(&subtrees[i].moves),
                    near.load(Ordering::Relaxed),
                )
            })
            .collect();
    }
}

/// Runs `worker` on this thread, taking on the threads that `spare`
/// counts as they come free (a batch's threads that have no board left)
/// to run it alongside until the iteration ends, then giving them back:
/// a batch's last boards use every core.
fn with_spare_threads<W>(spare: &AtomicUsize, worker: &W) -> (Stats, u32)
where
    W: Fn(Option<&dyn Fn()>) -> (Stats, u32) + Sync,
{
    std::thread::scope(|scope| {
        let helpers = std::cell::RefCell::new(Vec::new());
        let recruit = || {
            while spare.load(Ordering::Relaxed) > 0
                && spare
                    .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |n| n.checked_sub(1))
                    .is_ok()
            {
                // A thread the system refuses is given back: the search
                // goes on without it.
                match std::thread::Builder::new().spawn_scoped(scope, move || worker(None)) {
                    Ok(helper) => helpers.borrow_mut().push(helper),
                    Err(_) => {
                        spare.fetch_add(1, Ordering::AcqRel);
                        return;
                    }
                }
            }
        };
        let mut totals = worker(Some(&recruit));
        let helpers = helpers.into_inner();
        let taken = helpers.len();
        for helper in helpers {
            let (stats, next_bound) = helper
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            totals.0 += stats;
            totals.1 = totals.1.min(next_bound);
        }
        spare.fetch_add(taken, Ordering::AcqRel);
        totals
    })
}

/// The key a split search orders a subtree by, most promising first: the
/// least estimate its search met in the last iteration (`closest`; its
/// own estimate if the last bound cut it off), then its estimate. A
/// subtree whose search came near the goal under the last bound most
/// likely holds a solution under the next: on the 24-puzzle the last
/// iteration finds its solution after about a fifth of the nodes that
/// the order by estimate alone expands (docs/internals.md).
pub(crate) fn promise(estimate: u32, closest: Option<u32>) -> (u32, u32) {
    (closest.unwrap_or(estimate), estimate)
}

/// A move sequence of up to 31 moves (the split depth is at most 12) as one
/// number: two bits a move, after a leading one so that lengths differ.
fn packed_moves(moves: &[Move]) -> u64 {
    moves
        .iter()
        .fold(1, |key, &m| key << 2 | crate::pruning::index(m) as u64)
}

#[cfg(test)]
mod tests {
    use npuzzle_board::{random_walk, Goal, SplitMix64};
    use npuzzle_pdb::testing::TestBytes;
    use npuzzle_pdb::Partition;

    use super::*;
    use crate::additive::kept_indexes::KeptIndexes;
    use crate::additive::TableSet;

    /// A 4x4 catalogue of zero-aware and plain tables in two partitions,
    /// small enough to build in a test: its grid, tables and partition
    /// sizes.
    fn small_catalogue() -> (Grid, Vec<npuzzle_pdb::Pdb<TestBytes>>, Vec<usize>) {
        let goal = Goal::BlankLast;
        let name = "z1,2,5,6,9;3,4,7,8,12+1,2,3,4;z5,6,9,10,13;7,8,11,12,14,15";
        let groups = Partition::parse(name, 4, goal).unwrap().groups().to_vec();
        let pdbs = npuzzle_pdb::testing::tables(name, 4, goal);
        (Grid::new(4, goal), pdbs, groups)
    }

    /// The levels above the split depth are the same, in the same order,
    /// however many threads expand them, and so is the split search's
    /// solution.
    #[test]
    fn the_frontier_and_the_solution_do_not_depend_on_the_threads() {
        let (grid, pdbs, groups) = small_catalogue();
        let goal = grid.goal;
        let heuristic =
            KeptIndexes::<8, 4>::new(&TableSet::new(&grid, &pdbs, &groups, true)).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut rng = SplitMix64::new(5);
        for _ in 0..3 {
            let board = random_walk(4, goal, 60, &mut rng);
            let position = Position::new(&board);
            let state = heuristic.init(&position);
            let root = Subtree::root(position.clone(), state);
            let bound = heuristic.value(&state) + 14;
            let one = frontier(&grid, &heuristic, &root, 10, bound, 1);
            let two = pool.install(|| frontier(&grid, &heuristic, &root, 10, bound, 2));
            let moves = |f: &Frontier<_>| -> Vec<Vec<Move>> {
                f.parts.iter().flatten().map(|t| t.moves.clone()).collect()
            };
            assert!(moves(&one).len() > 100, "{board}: {}", moves(&one).len());
            assert_eq!(moves(&one), moves(&two), "{board}");
            assert_eq!((one.least_cut, one.stats), (two.least_cut, two.stats));
            let solve = |workers| {
                pool.install(|| {
                    split_ida_star(
                        &grid,
                        &heuristic,
                        position.clone(),
                        u64::MAX,
                        Halt::default(),
                        workers,
                        None,
                    )
                })
                .unwrap()
            };
            let (alone, _) = solve(1);
            let (together, _) = solve(2);
            assert_eq!(alone, together, "{board}");
            assert!(board.solves(&alone, goal));
            // One thread with a spare one, lent for every iteration.
            let spare = AtomicUsize::new(1);
            let (helped, _) = split_ida_star(
                &grid,
                &heuristic,
                position.clone(),
                u64::MAX,
                Halt::default(),
                1,
                Some(&spare),
            )
            .unwrap();
            assert_eq!(alone, helped, "{board}");
            assert_eq!(
                spare.load(Ordering::Relaxed),
                1,
                "the spare thread is given back"
            );
        }
    }

    /// A search takes on every spare thread when it looks, runs the worker
    /// on each, adds up their figures, and gives the threads back.
    #[test]
    fn spare_threads_join_the_search_and_are_given_back() {
        let spare = AtomicUsize::new(3);
        let runs = AtomicUsize::new(0);
        let worker = |recruit: Option<&dyn Fn()>| {
            if let Some(recruit) = recruit {
                recruit();
                assert_eq!(spare.load(Ordering::Relaxed), 0, "all three taken");
            }
            let run = runs.fetch_add(1, Ordering::Relaxed) as u64;
            let stats = Stats {
                expanded: 10 + run,
                ..Stats::default()
            };
            (stats, 40 + run as u32)
        };
        let (stats, next_bound) = with_spare_threads(&spare, &worker);
        assert_eq!(runs.load(Ordering::Relaxed), 4);
        assert_eq!(stats.expanded, 10 + 11 + 12 + 13);
        assert_eq!(next_bound, 40);
        assert_eq!(spare.load(Ordering::Relaxed), 3);
        // None spare: the worker alone.
        let none = AtomicUsize::new(0);
        runs.store(0, Ordering::Relaxed);
        let worker = |recruit: Option<&dyn Fn()>| {
            if let Some(recruit) = recruit {
                recruit();
            }
            runs.fetch_add(1, Ordering::Relaxed);
            (Stats::default(), 7)
        };
        assert_eq!(with_spare_threads(&none, &worker).1, 7);
        assert_eq!(runs.load(Ordering::Relaxed), 1);
    }

    /// A goal above the depth, as a bound past it (an inadmissible
    /// estimate's) finds it: the shallowest, the first in move order, for
    /// any number of threads, and no frontier with it.
    #[test]
    fn the_frontier_stops_at_the_shallowest_goal() {
        let grid = Grid::new(4, Goal::BlankLast);
        let heuristic = crate::heuristic::Manhattan::new(&grid);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut rng = SplitMix64::new(3);
        for walk in [3, 6, 9] {
            let board = random_walk(4, Goal::BlankLast, walk, &mut rng);
            let position = Position::new(&board);
            let (shortest, _) =
                crate::classic::bfs(&grid, position.clone(), u64::MAX, Halt::default()).unwrap();
            let root = Subtree::root(position.clone(), heuristic.init(&position));
            let one = frontier(&grid, &heuristic, &root, 12, 40, 1);
            let two = pool.install(|| frontier(&grid, &heuristic, &root, 12, 40, 2));
            let found = one.goal.expect("a goal within the bound");
            assert_eq!(found.len(), shortest.len(), "{board}");
            assert!(board.solves(&found, Goal::BlankLast), "{board}");
            assert_eq!(two.goal, Some(found), "{board}");
            assert!(one.parts.is_empty() && two.parts.is_empty());
        }
    }

    /// One thread's split search expands exactly the nodes of the
    /// frontier's subtrees passed one by one in `promise` order, which the
    /// last iteration's nearest approaches change: the order the
    /// distributed search rebuilds from the passes' reports.
    #[test]
    fn the_split_search_takes_the_subtrees_that_came_nearest_first() {
        let (grid, pdbs, groups) = small_catalogue();
        let goal = grid.goal;
        let heuristic =
            KeptIndexes::<8, 4>::new(&TableSet::new(&grid, &pdbs, &groups, true)).unwrap();
        let mut rng = SplitMix64::new(9);
        let mut reordered = 0;
        for _ in 0..3 {
            let board = random_walk(4, goal, 60, &mut rng);
            let position = Position::new(&board);
            let (solution, stats) = split_ida_star(
                &grid,
                &heuristic,
                position.clone(),
                u64::MAX,
                Halt::default(),
                1,
                None,
            )
            .unwrap();
            let mut bound = heuristic.value(&heuristic.init(&position));
            let mut came_near: HashMap<Vec<Move>, u32> = HashMap::new();
            let mut expanded = 0;
            let found = loop {
                let (nodes, least_cut, shallow, above) = frontier_moves(
                    &grid,
                    &heuristic,
                    position.clone(),
                    split_depth(grid.n),
                    bound,
                );
                assert!(shallow.is_none(), "{board}");
                expanded += above;
                let mut ordered = nodes.clone();
                ordered.sort_by_key(|(moves, h)| promise(*h, came_near.get(moves).copied()));
                reordered += (ordered != nodes) as usize;
                let (mut next_bound, mut found) = (least_cut, None);
                came_near.clear();
                for (prefix, h) in &ordered {
                    let (rest, below, nodes, complete, closest) = pass_below(
                        &grid,
                        &heuristic,
                        position.clone(),
                        prefix,
                        bound,
                        u64::MAX,
                        Halt::default(),
                    );
                    assert!(complete && closest <= *h);
                    expanded += nodes;
                    came_near.insert(prefix.clone(), closest);
                    if let Some(rest) = rest {
                        found = Some([prefix.clone(), rest].concat());
                        break;
                    }
                    next_bound = next_bound.min(below);
                }
                match found {
                    Some(moves) => break moves,
                    None => bound = next_bound,
                }
            };
            assert_eq!((found, expanded), (solution, stats.expanded), "{board}");
        }
        assert!(reordered > 0, "no iteration changed the order");
    }
}
