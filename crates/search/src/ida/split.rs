//! IDA* split over threads: the levels above a split depth are expanded
//! once per iteration, and the subtrees below them searched in parallel,
//! most promising first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use npuzzle_board::Move;

use super::dfs::{ida_star, moves_out, pruning, Dfs, Flow, NO_CELL};
use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::Heuristic;
use crate::progress::{Progress, ProgressMismatch, Searched};
use crate::pruning::{MovePruning, PruneState, START};
use crate::types::Stats;

/// A node the levels above the split depth expand.
pub(super) struct Subtree<S> {
    pub(super) position: Position,
    pub(super) moves: Vec<Move>,
    pub(super) parent_blank: Option<u8>,
    pub(super) history: PruneState,
    pub(super) state: S,
}

impl<S> Subtree<S> {
    /// The search's start.
    pub(super) fn root(position: Position, state: S) -> Subtree<S> {
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
pub(super) struct Start<S> {
    pub(super) moves: Vec<Move>,
    pub(super) parent_blank: Option<u8>,
    pub(super) history: PruneState,
    pub(super) state: S,
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
pub(super) struct Frontier<S> {
    /// The nodes at the split depth with f within the bound, in level
    /// order, in parts (one per node of the last level walked breadth
    /// first; see `frontier`).
    pub(super) parts: Vec<Vec<Start<S>>>,
    /// The least f cut off above them.
    pub(super) least_cut: u32,
    /// A goal above the split depth (weighted estimates can put the bound
    /// past a shallow goal): the shallowest, the first in level order.
    pub(super) goal: Option<Vec<Move>>,
    pub(super) stats: Stats,
}

/// What expanding one node above the split depth gives, besides its
/// children within the bound: the least f it cut off; the children
/// generated; and a goal child, where the expansion stopped.
pub(super) struct Expansion {
    least_cut: u32,
    generated: u64,
    goal: Option<Vec<Move>>,
}

/// Expands `node`, at depth `g`, against `bound`, its children within the
/// bound pushed to `kept` in move order.
pub(super) fn expand<H: Heuristic>(
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
pub(super) fn frontier<H: Heuristic>(
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
#[cfg(test)]
pub(crate) fn split_ida_star<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    node_limit: u64,
    halt: Halt<'_>,
    workers: usize,
    spare: Option<&AtomicUsize>,
) -> Option<(Vec<Move>, Stats)> {
    split_ida_star_keeping(
        grid, heuristic, position, node_limit, halt, workers, spare, None,
    )
    .expect("a search without progress to go on from cannot mismatch it")
}

/// [`split_ida_star`] that goes on from `progress` when it has begun, and
/// keeps it up to date as subtrees end (see [`Progress`]). The node limit
/// counts this run's nodes; the counters returned, every run's.
#[allow(clippy::too_many_arguments)] // split_ida_star's, and the progress
pub(crate) fn split_ida_star_keeping<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    node_limit: u64,
    halt: Halt<'_>,
    workers: usize,
    spare: Option<&AtomicUsize>,
    progress: Option<&Mutex<Progress>>,
) -> Result<Option<(Vec<Move>, Stats)>, ProgressMismatch> {
    let depth = split_depth(grid.n);
    let state = heuristic.init(&position);
    let mut bound = heuristic.value(&state);
    if bound <= depth + 2 || (grid.n <= 3 && progress.is_none()) {
        // Too shallow to split, or an 8-puzzle (a few hundred nodes, where
        // collecting the frontier cost more than the search): nothing to
        // keep.
        return Ok(ida_star(grid, heuristic, position, node_limit, halt));
    }
    let mut stats = Stats::default();
    // How near the goal each subtree's search came in the last iteration,
    // by the subtree's moves.
    let mut came_near: HashMap<u64, u32> = HashMap::new();
    // The subtrees of the iteration resumed that an earlier run searched.
    let mut searched: HashMap<u64, (u32, u32)> = HashMap::new();
    let mut resuming = false;
    if let Some(progress) = progress {
        let mut kept = lock(progress);
        if kept.begun() {
            kept.check(depth, bound)?;
            bound = kept.bound;
            stats.expanded = kept.expanded;
            stats.generated = kept.generated;
            stats.iterations = kept.iterations - 1;
            came_near = kept.came_near.iter().copied().collect();
            searched = kept
                .searched
                .iter()
                .map(|s| (s.key, (s.next_bound, s.closest)))
                .collect();
            resuming = true;
        } else {
            // Nothing begun keeps nothing: counters without an iteration
            // are not this search's.
            kept.check_unbegun()?;
            kept.split_depth = depth;
        }
        kept.runs = kept.runs.saturating_add(1);
    }
    // The node limit is this run's.
    let before = stats.expanded;
    let root = Subtree::root(position, state);
    let split = Split {
        grid,
        heuristic,
        root: &root.position,
        depth,
        node_limit: node_limit.saturating_add(before),
        halt,
        progress,
    };
    loop {
        stats.iterations += 1;
        // The nodes above the split depth, once per iteration.
        let above = frontier(grid, heuristic, &root, depth, bound, workers);
        stats.expanded += above.stats.expanded;
        stats.generated += above.stats.generated;
        if let Some(progress) = progress {
            let mut kept = lock(progress);
            if resuming {
                // The frontier again: work an earlier run did.
                kept.lost += above.stats.expanded;
            } else {
                kept.bound = bound;
                kept.iterations = stats.iterations;
                kept.came_near = came_near.iter().map(|(&k, &v)| (k, v)).collect();
                kept.came_near.sort_unstable();
                kept.searched.clear();
            }
            kept.expanded = stats.expanded;
            kept.generated = stats.generated;
        }
        resuming = false;
        if let Some(moves) = above.goal {
            return Ok(Some((moves, stats)));
        }
        let iteration = Iteration::new(
            &split,
            &above,
            bound,
            &came_near,
            std::mem::take(&mut searched),
            stats.expanded,
        );
        let (iteration_stats, next_bound) = iteration.run(workers, spare);
        stats.expanded += iteration_stats.expanded;
        stats.generated += iteration_stats.generated;
        match iteration
            .handout
            .ended(stats.expanded, split.node_limit, halt)
        {
            Ended::Found(moves) => return Ok(Some((moves, stats))),
            Ended::Stopped => return Ok(None),
            Ended::GoOn => {}
        }
        bound = next_bound.min(above.least_cut);
        came_near = iteration.came_near();
    }
}

fn lock(progress: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    progress.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a split search's iterations share.
struct Split<'a, H> {
    grid: &'a Grid,
    heuristic: &'a H,
    root: &'a Position,
    depth: u32,
    /// The whole search's, every run's nodes counted.
    node_limit: u64,
    halt: Halt<'a>,
    progress: Option<&'a Mutex<Progress>>,
}

/// One iteration below the frontier: its subtrees, the order they are
/// handed out in, and what the threads searching them share.
struct Iteration<'a, H: Heuristic> {
    split: &'a Split<'a, H>,
    bound: u32,
    subtrees: Vec<&'a Start<H::State>>,
    /// Places in `subtrees`, most promising first.
    order: Vec<usize>,
    /// The least estimate each subtree's search met, by place in `order`.
    closest: Vec<AtomicU32>,
    /// By place in `order`, the next bound and closest estimate of the
    /// subtrees an earlier run searched (not searched again).
    searched: Vec<Option<(u32, u32)>>,
    handout: Handout,
}

impl<'a, H: Heuristic> Iteration<'a, H> {
    /// The frontier's subtrees ordered most promising first (see
    /// `promise`), to be handed out in that order to whichever thread is
    /// free, so that the threads work where a solution is likeliest and
    /// the last iteration ends soonest. The sort is stable: ties keep the
    /// frontier's level order. The order is sorted, not the subtrees,
    /// which are large (the heuristic's state).
    fn new(
        split: &'a Split<'a, H>,
        above: &'a Frontier<H::State>,
        bound: u32,
        came_near: &HashMap<u64, u32>,
        searched: HashMap<u64, (u32, u32)>,
        spent: u64,
    ) -> Self {
        let subtrees: Vec<&Start<H::State>> = above.parts.iter().flatten().collect();
        let promises: Vec<(u32, u32)> = subtrees
            .iter()
            .map(|t| {
                let estimate = split.heuristic.value(&t.state);
                promise(estimate, came_near.get(&packed_moves(&t.moves)).copied())
            })
            .collect();
        let mut order: Vec<usize> = (0..subtrees.len()).collect();
        order.sort_by_key(|&i| promises[i]);
        let searched = order
            .iter()
            .map(|&i| searched.get(&packed_moves(&subtrees[i].moves)).copied())
            .collect();
        Iteration {
            split,
            bound,
            closest: subtrees.iter().map(|_| AtomicU32::new(u32::MAX)).collect(),
            searched,
            subtrees,
            order,
            handout: Handout::new(spent),
        }
    }

    /// Searches the subtrees on `workers` threads of the rayon pool, or
    /// on this one taking on `spare` threads: the iteration's nodes and
    /// its next bound.
    fn run(&self, workers: usize, spare: Option<&AtomicUsize>) -> (Stats, u32) {
        on_workers(workers, spare, &|recruit| self.work(recruit))
    }

    /// One thread's share of the subtrees; see [`Handout::work`].
    fn work(&self, recruit: Option<&dyn Fn()>) -> (Stats, u32) {
        self.handout
            .work(self.subtrees.len(), recruit, |place, stack| {
                self.search_subtree(place, stack)
            })
    }

    /// Searches the subtree at `place` in the order: its nodes and the
    /// least f it cut off.
    fn search_subtree(&self, place: usize, stack: &mut Vec<[H::State; 4]>) -> (Stats, u32) {
        let Split {
            grid,
            heuristic,
            root,
            depth,
            node_limit,
            halt,
            progress,
        } = *self.split;
        if let Some((next_bound, closest)) = self.searched[place] {
            self.closest[place].store(closest, Ordering::Relaxed);
            return (Stats::default(), next_bound);
        }
        // Subtrees smaller than the clock's interval look at it here.
        if halt.now() {
            self.handout.stopped.store(true, Ordering::Relaxed);
            return (Stats::default(), u32::MAX);
        }
        let subtree = self.subtrees[self.order[place]];
        let position = subtree.position(grid, root);
        // The start's children are prepared as every other node's are.
        let mut start = subtree.state;
        heuristic.prepare_children(&mut start, &position, pruning().moves(subtree.history));
        let mut dfs = Dfs::new(
            grid,
            heuristic,
            position,
            self.handout.left(node_limit),
            halt,
        );
        dfs.first_found = &self.handout.first_found;
        dfs.subtree = place;
        dfs.stack = std::mem::take(stack);
        let flow = dfs.run(
            self.bound,
            depth,
            subtree.parent_blank,
            subtree.history,
            &start,
        );
        self.handout
            .record(place, flow, &dfs, || subtree.moves.clone());
        if let Some(progress) = progress {
            keep(progress, flow, &dfs, packed_moves(&subtree.moves));
        }
        *stack = std::mem::take(&mut dfs.stack);
        self.closest[place].store(dfs.closest, Ordering::Relaxed);
        (dfs.stats, dfs.next_bound)
    }

    /// How near the goal each subtree's search came, by its moves.
    fn came_near(&self) -> HashMap<u64, u32> {
        self.order
            .iter()
            .zip(&self.closest)
            .map(|(&i, near)| {
                (
                    packed_moves(&self.subtrees[i].moves),
                    near.load(Ordering::Relaxed),
                )
            })
            .collect()
    }
}

/// Adds one subtree's search to `progress`: its nodes, and the subtree as
/// searched if it ended without a solution, or its nodes as lost if it
/// was cut short.
fn keep<H: Heuristic>(progress: &Mutex<Progress>, flow: Flow, dfs: &Dfs<'_, H>, key: u64) {
    let mut kept = lock(progress);
    kept.expanded += dfs.stats.expanded;
    kept.generated += dfs.stats.generated;
    match flow {
        Flow::Exhausted => kept.searched.push(Searched {
            key,
            next_bound: dfs.next_bound,
            closest: dfs.closest,
        }),
        Flow::Stopped => kept.lost += dfs.stats.expanded,
        Flow::Found => {}
    }
}

/// How one iteration's starts (a split search's subtrees, A*+IDA*'s open
/// nodes) go to the threads, by place in their order, most promising
/// first, and what the searches below them report back. The solution kept
/// is the one below the first place that has one, so the moves depend
/// neither on timing nor on the number of threads.
pub(super) struct Handout {
    next: AtomicUsize,
    /// The first place known to hold a goal; a search below a later place
    /// stops, since it cannot change the answer.
    pub(super) first_found: AtomicUsize,
    /// A search was stopped by the node limit or the halt.
    pub(super) stopped: AtomicBool,
    /// Nodes the whole search expanded so far: the node limit is the
    /// whole search's, and each start gets what the finished ones left
    /// (with several threads, the searches under way may together pass it
    /// by at most a start's share each).
    spent: AtomicU64,
    /// The goal below the first place that has one, by place.
    found: Mutex<Option<(usize, Vec<Move>)>>,
}

impl Handout {
    /// `spent`: the nodes expanded before this iteration.
    pub(super) fn new(spent: u64) -> Handout {
        Handout {
            next: AtomicUsize::new(0),
            first_found: AtomicUsize::new(usize::MAX),
            stopped: AtomicBool::new(false),
            spent: AtomicU64::new(spent),
            found: Mutex::new(None),
        }
    }

    /// One thread's share of `starts` places: `search` of the next place
    /// until none is left, an earlier one holds a goal, or a search was
    /// stopped. `recruit`, on the search's own thread, takes spare threads
    /// on before each start. One stack of child states per thread, for all
    /// its searches.
    pub(super) fn work<S>(
        &self,
        starts: usize,
        recruit: Option<&dyn Fn()>,
        mut search: impl FnMut(usize, &mut Vec<[S; 4]>) -> (Stats, u32),
    ) -> (Stats, u32) {
        let mut totals = (Stats::default(), u32::MAX);
        let mut stack = Vec::new();
        loop {
            if let Some(recruit) = recruit {
                recruit();
            }
            let place = self.next.fetch_add(1, Ordering::Relaxed);
            if self.stopped() || place >= starts || place > self.first_found.load(Ordering::Relaxed)
            {
                return totals;
            }
            let (stats, next_bound) = search(place, &mut stack);
            totals.0 += stats;
            totals.1 = totals.1.min(next_bound);
        }
    }

    /// The node limit left to a search starting now.
    pub(super) fn left(&self, node_limit: u64) -> u64 {
        node_limit.saturating_sub(self.spent.load(Ordering::Relaxed))
    }

    /// Takes how the search below `place` ended: on a goal, the moves
    /// `prefix()` then the search's path.
    pub(super) fn record<H: Heuristic>(
        &self,
        place: usize,
        flow: Flow,
        dfs: &Dfs<'_, H>,
        prefix: impl FnOnce() -> Vec<Move>,
    ) {
        match flow {
            Flow::Found => {
                self.first_found.fetch_min(place, Ordering::Relaxed);
                let mut moves = prefix();
                moves.extend_from_slice(&dfs.path);
                let mut best = self.found.lock().expect("no panics while held");
                if best.as_ref().is_none_or(|(i, _)| place < *i) {
                    *best = Some((place, moves));
                }
            }
            // An earlier place's solution ended this search: nothing lost.
            Flow::Stopped if self.first_found.load(Ordering::Relaxed) < place => {}
            Flow::Stopped => self.stopped.store(true, Ordering::Relaxed),
            Flow::Exhausted => {}
        }
        self.spent.fetch_add(dfs.stats.expanded, Ordering::Relaxed);
    }

    /// How the iteration ended, once its threads are done. A goal found
    /// is the answer even when a limit stopped an earlier place's search:
    /// this iteration's bound is the optimal length either way, and only
    /// the moves may differ from an unlimited run's.
    pub(super) fn ended(&self, expanded: u64, node_limit: u64, halt: Halt<'_>) -> Ended {
        let found = self.found.lock().expect("no panics while held").take();
        match found {
            Some((_, moves)) => Ended::Found(moves),
            None if self.stopped() || expanded >= node_limit || halt.now() => Ended::Stopped,
            None => Ended::GoOn,
        }
    }

    pub(super) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

/// How an iteration below the starts ended.
#[derive(Debug, PartialEq)]
pub(super) enum Ended {
    /// A goal: the moves from the root.
    Found(Vec<Move>),
    /// The node limit or the halt ended it first.
    Stopped,
    /// Searched to the end without a goal: the next bound follows.
    GoOn,
}

/// Runs `worker` on `workers` threads of the rayon pool, or on this one
/// taking on `spare` threads: the sum of their nodes and the least of
/// their next bounds.
pub(super) fn on_workers<W>(workers: usize, spare: Option<&AtomicUsize>, worker: &W) -> (Stats, u32)
where
    W: Fn(Option<&dyn Fn()>) -> (Stats, u32) + Sync,
{
    use rayon::prelude::*;

    if workers <= 1 {
        match spare {
            None => worker(None),
            Some(spare) => with_spare_threads(spare, worker),
        }
    } else {
        (0..workers).into_par_iter().map(|_| worker(None)).reduce(
            || (Stats::default(), u32::MAX),
            |(mut a, x), (b, y)| {
                a += b;
                (a, x.min(y))
            },
        )
    }
}

/// Runs `worker` on this thread, taking on the threads that `spare`
/// counts as they come free (a batch's threads that have no board left)
/// to run it alongside until the iteration ends, then giving them back:
/// a batch's last boards use every core.
pub(super) fn with_spare_threads<W>(spare: &AtomicUsize, worker: &W) -> (Stats, u32)
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
pub(super) fn promise(estimate: u32, closest: Option<u32>) -> (u32, u32) {
    (closest.unwrap_or(estimate), estimate)
}

/// A move sequence of up to 31 moves (the split depth is at most 12) as one
/// number: two bits a move, after a leading one so that lengths differ.
fn packed_moves(moves: &[Move]) -> u64 {
    moves
        .iter()
        .fold(1, |key, &m| key << 2 | crate::pruning::index(m) as u64)
}
