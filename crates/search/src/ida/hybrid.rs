//! A*+IDA* (Bu and Korf, IJCAI 2019): best-first search with duplicate
//! detection until a memory budget is spent, then IDA* below each node it
//! left open. Near the root, where IDA* expands the same positions again
//! by other paths every iteration, each position is expanded once; in
//! each iteration the open nodes are searched by increasing f, then
//! increasing h, so the last iteration reaches the goal early.
//!
//! Optimal for any admissible estimate: a node whose g improves is opened
//! again (the tables' estimates are not consistent), so some open node
//! lies on an optimal path with its optimal g, and the first iteration
//! whose bound reaches the optimal length finds a solution below it.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use npuzzle_board::Move;

use super::dfs::Dfs;
use super::split::{on_workers, promise, Ended, Handout};
use crate::grid::{Grid, Position};
use crate::halt::{Halt, CHECK_EVERY};
use crate::heuristic::Heuristic;
use crate::pruning::START;
use crate::types::Stats;

/// Bytes one kept node costs at most: its record, up to four slots of
/// the hash index (it doubles when half full), its place in the open
/// list, and in the frontier its entry, its order and its promise.
pub(crate) const BYTES_PER_NODE: u64 = std::mem::size_of::<Node>() as u64 + 4 * 4 + 4 + 12 + 8 + 4;

/// The most cells a position packs into a key (5 bits a tile).
pub(crate) const MAX_PACKED_CELLS: usize = 25;

/// A position kept by the best-first phase.
#[derive(Clone, Copy)]
struct Node {
    /// The tile on each cell, 5 bits a cell.
    key: [u64; 2],
    /// The node it was best reached from (`NONE` for the root).
    parent: u32,
    g: u8,
    h: u8,
    /// The blank's move that reached it, as an index in [`Move::ALL`].
    mv: u8,
    open: bool,
}

const NONE: u32 = u32::MAX;

fn pack(position: &Position, cells: usize) -> [u64; 2] {
    let mut key = 0u128;
    for c in (0..cells).rev() {
        key = (key << 5) | u128::from(position.tiles[c]);
    }
    [key as u64, (key >> 64) as u64]
}

fn unpack(key: [u64; 2], cells: usize) -> Position {
    let mut key = u128::from(key[0]) | (u128::from(key[1]) << 64);
    let mut position = Position {
        tiles: [0; 256],
        cells: [0; 256],
    };
    for c in 0..cells {
        let tile = (key & 31) as u8;
        key >>= 5;
        position.tiles[c] = tile;
        position.cells[tile as usize] = c as u8;
    }
    position
}

fn slot_of(key: [u64; 2], mask: usize) -> usize {
    let mixed = (key[0] ^ key[1].rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed ^ (mixed >> 31)) as usize & mask
}

/// The kept nodes, found by position through an open-addressing index.
struct Kept {
    nodes: Vec<Node>,
    index: Vec<u32>,
    mask: usize,
    most: usize,
}

impl Kept {
    /// Room for `most` nodes, taken as they come.
    fn new(most: usize) -> Kept {
        const FIRST_SLOTS: usize = 1 << 10;
        Kept {
            nodes: Vec::new(),
            index: vec![NONE; FIRST_SLOTS],
            mask: FIRST_SLOTS - 1,
            most,
        }
    }

    /// The node of `key`, or the empty slot where it would go.
    fn find(&self, key: [u64; 2]) -> Result<u32, usize> {
        let mut slot = slot_of(key, self.mask);
        loop {
            match self.index[slot] {
                NONE => return Err(slot),
                i if self.nodes[i as usize].key == key => return Ok(i),
                _ => slot = (slot + 1) & self.mask,
            }
        }
    }

    fn insert(&mut self, slot: usize, node: Node) -> u32 {
        let i = self.nodes.len() as u32;
        if self.nodes.len() == self.nodes.capacity() {
            // Grown by at most the room left, so the budget holds.
            let room = self.most - self.nodes.len();
            self.nodes
                .reserve_exact(self.nodes.len().max(1 << 10).min(room).max(1));
        }
        self.nodes.push(node);
        self.index[slot] = i;
        if self.nodes.len() * 2 > self.index.len() {
            self.grow();
        }
        i
    }

    /// Doubles the index.
    fn grow(&mut self) {
        let slots = self.index.len() * 2;
        let mask = slots - 1;
        let mut index = vec![NONE; slots];
        for (i, node) in self.nodes.iter().enumerate() {
            let mut slot = slot_of(node.key, mask);
            while index[slot] != NONE {
                slot = (slot + 1) & mask;
            }
            index[slot] = i as u32;
        }
        (self.index, self.mask) = (index, mask);
    }

    fn full(&self) -> bool {
        self.nodes.len() + 4 > self.most
    }

    /// The blank's moves from the root to node `i`.
    fn moves_to(&self, mut i: u32) -> Vec<Move> {
        let mut moves = Vec::new();
        while self.nodes[i as usize].parent != NONE {
            moves.push(Move::ALL[self.nodes[i as usize].mv as usize]);
            i = self.nodes[i as usize].parent;
        }
        moves.reverse();
        moves
    }
}

/// Open nodes by f, then h: `buckets[f][h]`.
#[derive(Default)]
struct Open {
    buckets: Vec<Vec<Vec<u32>>>,
    least_f: usize,
}

impl Open {
    fn push(&mut self, i: u32, g: u32, h: u32) {
        let (f, h) = ((g + h) as usize, h as usize);
        if self.buckets.len() <= f {
            self.buckets.resize_with(f + 1, Vec::new);
        }
        let row = &mut self.buckets[f];
        if row.len() <= h {
            row.resize_with(h + 1, Vec::new);
        }
        row[h].push(i);
        self.least_f = self.least_f.min(f);
    }

    /// The next entry by f, then h (entries may be stale).
    fn pop(&mut self) -> Option<u32> {
        while self.least_f < self.buckets.len() {
            if let Some(i) = self.buckets[self.least_f].iter_mut().find_map(Vec::pop) {
                return Some(i);
            }
            self.least_f += 1;
        }
        None
    }

    /// Every entry left, by f, then h.
    fn drain(self) -> impl Iterator<Item = u32> {
        self.buckets.into_iter().flatten().flatten()
    }
}

/// What the best-first phase left for IDA*.
struct OpenAtEnd {
    /// The positions kept, which the open nodes index.
    kept: Kept,
    /// Open nodes by f, then h: (node, g, f).
    nodes: Vec<(u32, u32, u32)>,
    expanded: u64,
    generated: u64,
}

/// A*+IDA* with at most `most_nodes` kept positions, the searches below
/// them on `workers` threads of the rayon pool (1: this thread, taking on
/// `spare` threads as they come free); `None` when the node limit or the
/// halt ended it. `position` has at most [`MAX_PACKED_CELLS`] cells. The
/// solution kept is the one below the first open node in order that has
/// one, so the moves do not depend on the number of threads.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hybrid_ida_star<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    most_nodes: usize,
    node_limit: u64,
    halt: Halt<'_>,
    workers: usize,
    spare: Option<&AtomicUsize>,
) -> Option<(Vec<Move>, Stats)> {
    let frontier = match best_first(grid, heuristic, &position, most_nodes, node_limit, halt) {
        Ok(frontier) => frontier,
        Err(found) => return found,
    };
    let mut stats = Stats {
        expanded: frontier.expanded,
        generated: frontier.generated,
        best_first: frontier.expanded,
        ..Stats::default()
    };
    let &(_, _, first_f) = frontier.nodes.first()?;
    let mut bound = first_f;
    // The least estimate each node's search met in the last iteration.
    let closest: Vec<AtomicU32> = frontier
        .nodes
        .iter()
        .map(|_| AtomicU32::new(u32::MAX))
        .collect();
    loop {
        stats.iterations += 1;
        let mut next_bound = u32::MAX;
        let mut order: Vec<usize> = Vec::new();
        for (k, &(_, _, f)) in frontier.nodes.iter().enumerate() {
            if f > bound {
                next_bound = next_bound.min(f);
            } else {
                order.push(k);
            }
        }
        // Most promising first, as the split search orders its subtrees.
        order.sort_by_key(|&k| {
            let h = u32::from(frontier.kept.nodes[frontier.nodes[k].0 as usize].h);
            let near = closest[k].load(Ordering::Relaxed);
            promise(h, (near != u32::MAX).then_some(near))
        });
        let below = Below {
            grid,
            heuristic,
            kept: &frontier.kept,
            frontier: &frontier.nodes,
            bound,
            closest: &closest,
            order,
            handout: Handout::new(stats.expanded),
            node_limit,
            halt,
        };
        let (iteration, below_next) = on_workers(workers, spare, &|recruit| below.work(recruit));
        stats.expanded += iteration.expanded;
        stats.generated += iteration.generated;
        match below.handout.ended(stats.expanded, node_limit, halt) {
            Ended::Found(moves) => return Some((moves, stats)),
            Ended::Stopped => return None,
            Ended::GoOn => {}
        }
        next_bound = next_bound.min(below_next);
        if next_bound == u32::MAX {
            return None;
        }
        bound = next_bound;
    }
}

/// What the best-first phase alone gives a search spread over machines
/// ([`open_frontier_moves`]).
pub(crate) enum OpenFrontier {
    /// The open nodes as the blank's moves from the root and estimate, by
    /// f (the moves' count plus the estimate), then estimate; and the
    /// nodes expanded.
    Open(Vec<(Vec<Move>, u32)>, u64),
    /// The phase reached the goal: the moves, and the nodes expanded.
    Solved(Vec<Move>, u64),
    /// The node limit or the halt ended it, or nothing is left to search.
    Ended,
}

/// The best-first phase of [`hybrid_ida_star`] with at most `most_nodes`
/// kept positions: the nodes it leaves open, each named by its kept path
/// from the root, so that other processes search below them
/// ([`pass_below`](super::pass_below) with the automaton started afresh,
/// as [`hybrid_ida_star`] does).
pub(crate) fn open_frontier_moves<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: Position,
    most_nodes: usize,
    node_limit: u64,
    halt: Halt<'_>,
) -> OpenFrontier {
    match best_first(grid, heuristic, &position, most_nodes, node_limit, halt) {
        Ok(frontier) => {
            // A node whose parent's g improved after it was reached lies
            // fewer moves from the root by its kept path than its g: its
            // f is the path's.
            let kept = &frontier.kept;
            let mut nodes: Vec<(Vec<Move>, u32)> = frontier
                .nodes
                .iter()
                .map(|&(i, _, _)| (kept.moves_to(i), u32::from(kept.nodes[i as usize].h)))
                .collect();
            nodes.sort_by_key(|(moves, h)| (moves.len() as u32 + h, *h));
            OpenFrontier::Open(nodes, frontier.expanded)
        }
        Err(Some((moves, stats))) => OpenFrontier::Solved(moves, stats.expanded),
        Err(None) => OpenFrontier::Ended,
    }
}

/// One iteration below the open nodes: the order they are handed out in
/// and what the threads searching below them share.
struct Below<'a, H: Heuristic> {
    grid: &'a Grid,
    heuristic: &'a H,
    kept: &'a Kept,
    /// The open nodes: (node, g, f).
    frontier: &'a [(u32, u32, u32)],
    bound: u32,
    /// Places in `frontier` within the bound, most promising first.
    order: Vec<usize>,
    /// The least estimate each node's search met, by place in `frontier`
    /// (kept from one iteration to the next).
    closest: &'a [AtomicU32],
    handout: Handout,
    node_limit: u64,
    halt: Halt<'a>,
}

impl<H: Heuristic> Below<'_, H> {
    /// One thread's share of the open nodes; see [`Handout::work`].
    fn work(&self, recruit: Option<&dyn Fn()>) -> (Stats, u32) {
        self.handout
            .work(self.order.len(), recruit, |place, stack| {
                self.search_below(place, stack)
            })
    }

    /// IDA*'s pass below the open node at `place` in the order: its nodes
    /// and the least f it cut off.
    fn search_below(&self, place: usize, stack: &mut Vec<[H::State; 4]>) -> (Stats, u32) {
        let (grid, cells) = (self.grid, self.grid.cells());
        let k = self.order[place];
        let (i, g, _) = self.frontier[k];
        let node = self.kept.nodes[i as usize];
        let position = unpack(node.key, cells);
        // The blank came from the parent's blank by `mv`.
        let parent_blank = (node.parent != NONE).then(|| {
            let back = Move::ALL[node.mv as usize].opposite();
            back.blank_target(grid.n, position.blank() as usize)
                .expect("the move came from there") as u8
        });
        let state = self.heuristic.init(&position);
        let left = self.handout.left(self.node_limit);
        let mut dfs = Dfs::new(grid, self.heuristic, position, left, self.halt);
        dfs.first_found = &self.handout.first_found;
        dfs.subtree = place;
        dfs.stack = std::mem::take(stack);
        let flow = dfs.run(self.bound, g, parent_blank, START, &state);
        self.handout
            .record(place, flow, &dfs, || self.kept.moves_to(i));
        self.closest[k].store(dfs.closest, Ordering::Relaxed);
        *stack = std::mem::take(&mut dfs.stack);
        (dfs.stats, dfs.next_bound)
    }
}

/// Expands `position`'s positions best first, each once at its least g,
/// until `most_nodes` are kept: the open nodes then, or the answer (a
/// goal reached, or the search ended). `position` has at most
/// [`MAX_PACKED_CELLS`] cells.
#[allow(clippy::type_complexity)]
fn best_first<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    position: &Position,
    most_nodes: usize,
    node_limit: u64,
    halt: Halt<'_>,
) -> Result<OpenAtEnd, Option<(Vec<Move>, Stats)>> {
    let cells = grid.cells();
    assert!(cells <= MAX_PACKED_CELLS, "a key packs at most 25 cells");
    let mut kept = Kept::new(most_nodes.clamp(8, NONE as usize - 1));
    let root_h = heuristic.value(&heuristic.init(position));
    let key = pack(position, cells);
    let slot = kept.find(key).expect_err("the index starts empty");
    let root = kept.insert(
        slot,
        Node {
            key,
            parent: NONE,
            g: 0,
            h: root_h as u8,
            mv: 0,
            open: true,
        },
    );
    let mut open = Open::default();
    open.push(root, 0, root_h);
    let (mut expanded, mut generated) = (0u64, 0u64);
    while !kept.full() {
        let Some(i) = open.pop() else {
            return Err(None);
        };
        let node = kept.nodes[i as usize];
        if !node.open || open.least_f != usize::from(node.g) + usize::from(node.h) {
            continue;
        }
        let mut position = unpack(node.key, cells);
        if node.h == 0 && position.is_goal(grid) {
            let stats = Stats {
                expanded,
                generated,
                iterations: 1,
                best_first: expanded,
                ..Stats::default()
            };
            return Err(Some((kept.moves_to(i), stats)));
        }
        kept.nodes[i as usize].open = false;
        expanded += 1;
        if expanded >= node_limit || (expanded.is_multiple_of(CHECK_EVERY) && halt.now()) {
            return Err(None);
        }
        let state = heuristic.init(&position);
        let blank = position.blank();
        let g = u32::from(node.g) + 1;
        for &(from, mv) in grid.neighbors(blank) {
            let tile = position.slide(from);
            generated += 1;
            let key = pack(&position, cells);
            let child = match kept.find(key) {
                Ok(c) if u32::from(kept.nodes[c as usize].g) <= g => None,
                Ok(c) => {
                    let known = &mut kept.nodes[c as usize];
                    (known.g, known.parent, known.mv, known.open) = (g as u8, i, mv as u8, true);
                    Some((c, u32::from(known.h)))
                }
                Err(slot) => {
                    let child_state = heuristic.update(&state, &position, tile, from, blank);
                    let h = heuristic.value(&child_state);
                    let node = Node {
                        key,
                        parent: i,
                        g: g as u8,
                        h: h as u8,
                        mv: mv as u8,
                        open: true,
                    };
                    Some((kept.insert(slot, node), h))
                }
            };
            if let Some((c, h)) = child {
                open.push(c, g, h);
            }
            position.slide(blank);
        }
    }
    let nodes = open
        .drain()
        .filter_map(|i| {
            let node = kept.nodes[i as usize];
            let (g, f) = (u32::from(node.g), u32::from(node.g) + u32::from(node.h));
            node.open.then_some((i, g, f))
        })
        .collect::<Vec<_>>();
    // An entry left stale by a better g sits at its old f: only the
    // entry at the node's own f stands.
    let mut seen = vec![false; kept.nodes.len()];
    let mut standing: Vec<(u32, u32, u32)> = Vec::with_capacity(nodes.len());
    for (i, g, f) in nodes {
        if !std::mem::replace(&mut seen[i as usize], true) {
            standing.push((i, g, f));
        }
    }
    standing.sort_by_key(|&(i, _, f)| (f, kept.nodes[i as usize].h));
    Ok(OpenAtEnd {
        kept,
        nodes: standing,
        expanded,
        generated,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use npuzzle_board::{random_walk, Board, Goal, SplitMix64};
    use npuzzle_pdb::Partition;

    use super::*;
    use crate::additive::kept_indexes::KeptIndexes;
    use crate::additive::{Pair, TablesView};
    use crate::heuristic::Manhattan;
    use crate::ida::split_ida_star;
    use crate::testing::{all_distances, catalogue};

    /// Budgets from almost nothing (the root and its children) to more
    /// than the 8-puzzle's 181,440 positions (A* alone answers).
    const BUDGETS: [usize; 3] = [8, 300, 200_000];

    /// Every 97th 3x3 board of both goals, at every budget, over
    /// Manhattan and over the 4-4 tables (not consistent: a node's g can
    /// improve after it was expanded): the optimal length, moves that
    /// solve it, and the best-first phase's nodes counted in `expanded`.
    #[test]
    fn every_budget_finds_the_optimal_length_on_3x3_boards() {
        for goal in Goal::ALL {
            let grid = Grid::new(3, goal);
            let (tables, groups) = catalogue("4-4", 3, goal);
            let tables = Pair::with_capacity(&grid, &tables, &groups, true).unwrap();
            let manhattan = Manhattan::new(&grid);
            let mut distances: Vec<_> = all_distances(3, goal).into_iter().collect();
            distances.sort();
            for (tiles, d) in distances.into_iter().step_by(97) {
                let board = Board::from_tiles(tiles).unwrap();
                for most in BUDGETS {
                    let run = |found: Option<(Vec<Move>, Stats)>| {
                        let (moves, stats) = found.expect("no limit was set");
                        let what = format!("{board} budget {most}");
                        assert_eq!(moves.len() as u32, d, "{what}");
                        assert!(board.solves(&moves, goal), "{what}");
                        assert!(stats.best_first <= stats.expanded, "{what}");
                        assert!(d == 0 || stats.best_first > 0, "{what}");
                    };
                    let position = || Position::new(&board);
                    let halt = Halt::default();
                    run(hybrid_ida_star(
                        &grid,
                        &manhattan,
                        position(),
                        most,
                        u64::MAX,
                        halt,
                        1,
                        None,
                    ));
                    run(hybrid_ida_star(
                        &grid,
                        &tables,
                        position(),
                        most,
                        u64::MAX,
                        halt,
                        1,
                        None,
                    ));
                }
            }
        }
    }

    /// Every 3x3 board of both goals over the 4-4 tables, with a budget
    /// the best-first phase fills on all but the nearest boards: the
    /// length breadth-first search gives, and moves that reach the goal.
    #[test]
    fn every_3x3_board_gets_its_breadth_first_length() {
        for goal in Goal::ALL {
            let grid = Grid::new(3, goal);
            let (tables, groups) = catalogue("4-4", 3, goal);
            let tables = Pair::with_capacity(&grid, &tables, &groups, true).unwrap();
            let distances = all_distances(3, goal);
            assert_eq!(distances.len(), 181_440);
            for (tiles, d) in distances {
                let board = Board::from_tiles(tiles).unwrap();
                let (moves, _) = hybrid_ida_star(
                    &grid,
                    &tables,
                    Position::new(&board),
                    40,
                    u64::MAX,
                    Halt::default(),
                    1,
                    None,
                )
                .expect("no limit was set");
                assert_eq!(moves.len() as u32, d, "{board}");
                assert!(board.solves(&moves, goal), "{board}");
            }
        }
    }

    /// 4x4 boards 60 random moves from the goal: the hybrid's length is
    /// plain IDA*'s at every budget.
    #[test]
    fn the_hybrid_agrees_with_ida_star_on_4x4_boards() {
        let goal = Goal::BlankLast;
        let name = "z1,2,5,6,9;3,4,7,8,12+1,2,3,4;z5,6,9,10,13;7,8,11,12,14,15";
        let grid = Grid::new(4, goal);
        let groups = Partition::parse(name, 4, goal).unwrap().groups().to_vec();
        let pdbs = npuzzle_pdb::testing::tables(name, 4, goal);
        let heuristic =
            KeptIndexes::<8, 4>::new(&TablesView::new(&grid, &pdbs, &groups, true)).unwrap();
        let mut rng = SplitMix64::new(75);
        for _ in 0..6 {
            let board = random_walk(4, goal, 60, &mut rng);
            let position = || Position::new(&board);
            let halt = Halt::default();
            let (plain, _) =
                split_ida_star(&grid, &heuristic, position(), u64::MAX, halt, 1, None).unwrap();
            for most in [100, 20_000] {
                let (moves, stats) =
                    hybrid_ida_star(&grid, &heuristic, position(), most, u64::MAX, halt, 1, None)
                        .unwrap();
                assert_eq!(moves.len(), plain.len(), "{board} budget {most}");
                assert!(board.solves(&moves, goal), "{board}");
                assert!(stats.best_first > 0 && stats.best_first <= stats.expanded);
                // A hundred positions hold no 4x4 answer: IDA* ran below.
                assert!(most > 100 || stats.best_first < stats.expanded);
            }
        }
    }

    /// Two threads below the open nodes (and one taking on a spare
    /// thread): the same moves as one, the goal reached, and nodes counted
    /// from both phases.
    #[test]
    fn two_threads_give_the_moves_of_one() {
        let goal = Goal::BlankLast;
        let grid = Grid::new(4, goal);
        let heuristic = crate::heuristic::LinearConflict::new(&grid);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut rng = SplitMix64::new(72);
        for _ in 0..4 {
            let board = random_walk(4, goal, 80, &mut rng);
            let position = || Position::new(&board);
            let halt = Halt::default();
            let solve = |workers, spare| {
                hybrid_ida_star(
                    &grid,
                    &heuristic,
                    position(),
                    5_000,
                    u64::MAX,
                    halt,
                    workers,
                    spare,
                )
                .unwrap()
            };
            let (one, one_stats) = solve(1, None);
            let (two, two_stats) = pool.install(|| solve(2, None));
            let spare = AtomicUsize::new(1);
            let (taken, _) = solve(1, Some(&spare));
            assert_eq!(
                spare.load(Ordering::Relaxed),
                1,
                "the spare thread is given back"
            );
            assert!(board.solves(&one, goal), "{board}");
            assert_eq!(two, one, "{board}");
            assert_eq!(taken, one, "{board}");
            assert_eq!(two_stats.best_first, one_stats.best_first, "{board}");
            assert!(
                two_stats.expanded > two_stats.best_first,
                "{board}: IDA* ran below"
            );
        }
    }

    /// The node limit ends either phase, and so does the stop flag.
    #[test]
    fn the_node_limit_and_the_stop_flag_end_both_phases() {
        let goal = Goal::BlankLast;
        let grid = Grid::new(4, goal);
        let heuristic = Manhattan::new(&grid);
        let board = random_walk(4, goal, 200, &mut SplitMix64::new(3));
        let position = || Position::new(&board);
        let halt = Halt::default();
        // In the best-first phase (its budget not reached) and below it.
        assert!(
            hybrid_ida_star(&grid, &heuristic, position(), 1 << 20, 50, halt, 1, None).is_none()
        );
        assert!(
            hybrid_ida_star(&grid, &heuristic, position(), 100, 5_000, halt, 1, None).is_none()
        );
        let stop = AtomicBool::new(true);
        let stopped = Halt::flag(Some(&stop));
        assert!(hybrid_ida_star(
            &grid,
            &heuristic,
            position(),
            100,
            u64::MAX,
            stopped,
            1,
            None
        )
        .is_none());
        assert!(hybrid_ida_star(
            &grid,
            &heuristic,
            position(),
            1 << 22,
            u64::MAX,
            stopped,
            1,
            None
        )
        .is_none());
    }

    /// The open frontier, and passes below its nodes driven as a
    /// distributed run drives them (the nodes within the bound by promise,
    /// the first in order with a solution kept), give the local
    /// A*+IDA*'s moves with its nodes, on one thread.
    #[test]
    fn passes_below_the_open_frontier_find_the_local_moves_and_nodes() {
        use std::collections::HashMap;

        use crate::ida::pass_below;
        use crate::types::PassFrom;

        let goal = Goal::BlankLast;
        let grid = Grid::new(4, goal);
        let heuristic = crate::heuristic::LinearConflict::new(&grid);
        let halt = Halt::default();
        let mut rng = SplitMix64::new(76);
        for _ in 0..4 {
            let board = random_walk(4, goal, 80, &mut rng);
            let position = || Position::new(&board);
            for most in [100, 5_000] {
                let (local, stats) =
                    hybrid_ida_star(&grid, &heuristic, position(), most, u64::MAX, halt, 1, None)
                        .unwrap();
                let OpenFrontier::Open(nodes, best_first) =
                    open_frontier_moves(&grid, &heuristic, position(), most, u64::MAX, halt)
                else {
                    panic!("{board}: the best-first phase ended the search");
                };
                assert_eq!(best_first, stats.best_first, "{board}");
                let f = |(moves, h): &(Vec<Move>, u32)| moves.len() as u32 + h;
                let mut bound = nodes.iter().map(f).min().unwrap();
                let mut came_near: HashMap<Vec<Move>, u32> = HashMap::new();
                let mut expanded = best_first;
                let found = loop {
                    let mut order: Vec<_> = nodes.iter().filter(|n| f(n) <= bound).collect();
                    order.sort_by_key(|(moves, h)| promise(*h, came_near.get(moves).copied()));
                    let mut next_bound = nodes.iter().map(f).filter(|&x| x > bound).min();
                    let mut found = None;
                    for (prefix, _) in order {
                        let (rest, below, nodes, complete, closest) = pass_below(
                            &grid,
                            &heuristic,
                            position(),
                            prefix,
                            PassFrom::Open,
                            bound,
                            u64::MAX,
                            halt,
                        );
                        assert!(complete, "{board}");
                        expanded += nodes;
                        came_near.insert(prefix.clone(), closest);
                        if let Some(rest) = rest {
                            found = Some([prefix.clone(), rest].concat());
                            break;
                        }
                        next_bound = Some(next_bound.map_or(below, |b| b.min(below)));
                    }
                    match found {
                        Some(moves) => break moves,
                        None => bound = next_bound.expect("a solvable board has a next bound"),
                    }
                };
                assert!(board.solves(&found, goal), "{board}");
                assert_eq!(
                    (found, expanded),
                    (local, stats.expanded),
                    "{board} budget {most}"
                );
            }
        }
    }

    /// Packing keeps every tile of a 5x5 position.
    #[test]
    fn a_5x5_position_packs_and_unpacks_whole() {
        let board = random_walk(5, Goal::BlankLast, 300, &mut SplitMix64::new(9));
        let position = Position::new(&board);
        let back = unpack(pack(&position, 25), 25);
        assert_eq!(back.tiles[..25], position.tiles[..25]);
        assert_eq!(back.cells[..25], position.cells[..25]);
    }
}
