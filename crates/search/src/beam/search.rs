//! Beam search: breadth-first, keeping at each depth only the `width`
//! boards with the lowest estimates. It finds long but good solutions on
//! boards where no bounded-suboptimal search finishes (6x6 with tables,
//! 5x5 with linear conflict): its cost is `width` times the solution's
//! length, whatever the heuristic's error. It proves nothing; the caller
//! states no bound for its answers.
//!
//! Boards kept in the last 32 to 64 levels are recognised by a 64-bit
//! Zobrist hash of the tiles and not kept again; a collision can only drop
//! a board from the beam, never make an answer wrong (every answer is a
//! sequence of legal moves to the goal).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

#[cfg(feature = "split")]
use rayon::prelude::*;

use npuzzle_board::Move;

use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::{Heuristic, LinearConflict, LinearConflictState, MoveSet};
use crate::types::Stats;

/// Levels of kept boards remembered at least (see `beam`).
const REMEMBERED: usize = 32;

/// A board in the beam, its tiles in [`Level::tiles`].
#[derive(Clone, Copy)]
struct Entry<S> {
    state: S,
    hash: u64,
    estimate: u32,
    /// The parent's index in the previous level.
    parent: u32,
    /// The move from the parent (unused at the start).
    mv: Move,
    /// The cell the blank left to get here: moving back is never useful.
    came_from: u8,
}

/// One depth of the beam: its boards and their tiles, `cells` bytes each.
struct Level<S> {
    entries: Vec<Entry<S>>,
    tiles: Vec<u8>,
}

impl<S> Level<S> {
    /// The first level: the start board alone.
    fn start(state: S, estimate: u32, hash: u64, tiles: &[u8]) -> Level<S> {
        Level {
            entries: vec![Entry {
                state,
                hash,
                estimate,
                parent: 0,
                mv: Move::Up,
                came_from: u8::MAX,
            }],
            tiles: tiles.to_vec(),
        }
    }
}

/// The hashes are already uniformly random.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys are hashed")
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

type Seen = HashSet<u64, BuildHasherDefault<Identity>>;

/// The boards kept in the last `REMEMBERED` to `2 * REMEMBERED` levels:
/// older ones are farther from the goal than the beam ever goes back.
#[derive(Default)]
struct Remembered {
    kept: Seen,
    older: Seen,
    /// The children of the level being expanded.
    generated: Seen,
}

impl Remembered {
    /// Before expanding the level `depth` levels past the start.
    fn next_level(&mut self, depth: usize) {
        if depth % REMEMBERED == REMEMBERED - 1 {
            std::mem::swap(&mut self.kept, &mut self.older);
            self.kept.clear();
        }
        self.generated.clear();
    }

    /// Whether a board was kept in a level before this one.
    #[inline]
    fn was_kept(&self, hash: u64) -> bool {
        self.kept.contains(&hash) || self.older.contains(&hash)
    }

    /// Whether a child is new: neither kept before nor generated in this
    /// level.
    #[inline]
    fn is_new(&mut self, hash: u64) -> bool {
        !self.was_kept(hash) && self.generated.insert(hash)
    }
}

/// Random keys per (tile, cell), from a fixed seed: the same answers on
/// every run.
fn zobrist_keys(cells: usize) -> Vec<u64> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..cells * cells)
        .map(|_| {
            // splitmix64
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

/// Levels this long or longer are expanded in pieces of at least this many
/// boards across the pool's threads, when the search may split.
const SPLIT_MIN_ENTRIES: usize = 2_048;

/// Children of a level, in generation order, with their tiles (`cells`
/// bytes each).
struct Children<S> {
    entries: Vec<Entry<S>>,
    tiles: Vec<u8>,
}

impl<S> Children<S> {
    fn new() -> Children<S> {
        Children {
            entries: Vec::new(),
            tiles: Vec::new(),
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.tiles.clear();
    }
}

/// How the expansion of some consecutive boards of a level ended.
#[derive(Default)]
struct Expanded {
    /// The first child where the search is done: its parent's index and
    /// the move.
    solved: Option<(u32, Move)>,
    expanded: u64,
    generated: u64,
    /// The stop flag or the deadline ended it.
    halted: bool,
}

/// The boards `entries` (with their `tiles`) of a level, the first at
/// `first` in it, expanded into `children`: those for which `is_new`
/// holds, in generation order. `base` is the nodes expanded before them,
/// for the clock's checks.
#[allow(clippy::too_many_arguments)]
fn expand<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    keys: &[u64],
    (entries, tiles, first, base): (&[Entry<H::State>], &[u8], usize, u64),
    position: &mut Position,
    halt: Halt<'_>,
    done: &impl Fn(&H::State, u32, &Position) -> bool,
    mut is_new: impl FnMut(u64) -> bool,
    children: &mut Children<H::State>,
) -> Expanded {
    let cells = grid.cells();
    let key = |tile: u8, cell: u8| keys[tile as usize * cells + cell as usize];
    let mut ended = Expanded::default();
    for (offset, entry) in entries.iter().enumerate() {
        ended.expanded += 1;
        if halt.now_at(base + ended.expanded) {
            ended.halted = true;
            return ended;
        }
        let index = (first + offset) as u32;
        show(position, &tiles[offset * cells..(offset + 1) * cells]);
        let mut state = entry.state;
        if entry.came_from != u8::MAX {
            heuristic.prepare_children(&mut state, position, MoveSet::ALL);
        }
        let blank = position.blank();
        for &(from, mv) in grid.neighbors(blank) {
            if from == entry.came_from {
                continue;
            }
            ended.generated += 1;
            let tile = position.slide(from);
            let hash = entry.hash ^ key(tile, from) ^ key(tile, blank);
            if is_new(hash) {
                let child = heuristic.update(&state, position, tile, from, blank);
                let estimate = heuristic.value(&child);
                if done(&child, estimate, position) {
                    ended.solved = Some((index, mv));
                    return ended;
                }
                children.entries.push(Entry {
                    state: child,
                    hash,
                    estimate,
                    parent: index,
                    mv,
                    came_from: blank,
                });
                children.tiles.extend_from_slice(&position.tiles[..cells]);
            }
            position.slide(blank);
        }
    }
    ended
}

/// What every piece of a level's expansion shares: the grid, the guide,
/// the Zobrist keys, the halt and the goal test.
type Context<'a, H, D> = (&'a Grid, &'a H, &'a [u64], Halt<'a>, &'a D);

/// A level's `entries` (with their tiles, the nodes expanded before them
/// last) expanded in pieces side by side on `threads` (each piece's
/// position starting as `start`), each child checked
/// against the levels before; then, in generation order, against this
/// one (a repeat is marked [`DUPLICATE`]). The children go to `children`,
/// in the order one thread gives them.
#[cfg(feature = "split")]
fn expand_in_pieces<H: Heuristic, D: Fn(&H::State, u32, &Position) -> bool + Sync>(
    (grid, heuristic, keys, halt, done): Context<'_, H, D>,
    (entries, tiles, base): (&[Entry<H::State>], &[u8], u64),
    (start, threads): (&Position, usize),
    seen: &mut Remembered,
    pieces: &mut Vec<(Children<H::State>, Position)>,
    children: &mut Children<H::State>,
) -> Vec<Expanded> {
    let cells = grid.cells();
    let piece = entries.len().div_ceil(4 * threads).max(SPLIT_MIN_ENTRIES);
    let count = entries.len().div_ceil(piece);
    pieces.resize_with(count.max(pieces.len()), || (Children::new(), start.clone()));
    let remembered = &*seen;
    let mut ends = Vec::new();
    entries
        .par_chunks(piece)
        .zip(pieces.par_iter_mut())
        .enumerate()
        .map(|(i, (entries, (out, position)))| {
            out.clear();
            let first = i * piece;
            let tiles = &tiles[first * cells..(first + entries.len()) * cells];
            let at = (entries, tiles, first, base + first as u64);
            let is_new = |hash| !remembered.was_kept(hash);
            expand(grid, heuristic, keys, at, position, halt, done, is_new, out)
        })
        .collect_into_vec(&mut ends);
    for (out, _) in &pieces[..count] {
        let from = children.entries.len();
        children.entries.extend_from_slice(&out.entries);
        children.tiles.extend_from_slice(&out.tiles);
        for child in &mut children.entries[from..] {
            if !seen.generated.insert(child.hash) {
                child.estimate = DUPLICATE;
            }
        }
    }
    ends
}

/// Without the `split` feature a beam runs on one thread (see
/// [`Halt::threads`]).
#[cfg(not(feature = "split"))]
fn expand_in_pieces<H: Heuristic, D: Fn(&H::State, u32, &Position) -> bool + Sync>(
    _: Context<'_, H, D>,
    _: (&[Entry<H::State>], &[u8], u64),
    _: (&Position, usize),
    _: &mut Remembered,
    _: &mut Vec<(Children<H::State>, Position)>,
    _: &mut Children<H::State>,
) -> Vec<Expanded> {
    unreachable!("a beam splits only with the `split` feature")
}

/// Makes `position` show `tiles` (every cell and tile is written).
fn show(position: &mut Position, tiles: &[u8]) {
    for (cell, &tile) in tiles.iter().enumerate() {
        position.tiles[cell] = tile;
        position.cells[tile as usize] = cell as u8;
    }
}

/// How a beam ended.
pub(crate) enum Ending {
    /// The moves to the goal.
    Solved(Vec<Move>),
    /// With `stall_levels`: that many levels went by with no board below
    /// the least estimate seen, more than `max_nodes` boards were
    /// expanded, or the deadline passed. The moves to the board of that
    /// estimate.
    Unfinished(Vec<Move>),
    /// The beam died out (every board of a level seen before), more than
    /// `max_nodes` boards were expanded or the deadline passed (without
    /// `stall_levels`), or the stop flag was set.
    Ended,
}

/// A solution of `start` found by beam search of `width`, and the
/// search's figures. With `stall_levels`, a beam that stops getting nearer
/// the goal ends early.
pub(crate) fn beam<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    start: &Position,
    width: usize,
    max_nodes: u64,
    halt: Halt<'_>,
    stall_levels: Option<usize>,
) -> (Ending, Stats) {
    let solved =
        |_: &H::State, estimate: u32, position: &Position| estimate == 0 && position.is_goal(grid);
    beam_until(
        grid,
        heuristic,
        start,
        width,
        max_nodes,
        halt,
        stall_levels,
        solved,
    )
}

/// [`beam`] to the first board where `done` holds, given the board's state
/// and estimate (the goal for [`beam`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn beam_until<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    start: &Position,
    width: usize,
    max_nodes: u64,
    halt: Halt<'_>,
    stall_levels: Option<usize>,
    done: impl Fn(&H::State, u32, &Position) -> bool + Sync,
) -> (Ending, Stats) {
    let mut nearest = Nearest::new();
    let cells = grid.cells();
    let width = width.max(1);
    let keys = zobrist_keys(cells);
    let key = |tile: u8, cell: u8| keys[tile as usize * cells + cell as usize];
    let mut stats = Stats {
        iterations: 1,
        ..Stats::default()
    };
    let start_state = heuristic.init(start);
    if done(&start_state, heuristic.value(&start_state), start) {
        return (Ending::Solved(Vec::new()), stats);
    }
    let start_hash = (0..cells).fold(0, |h, cell| h ^ key(start.tiles[cell], cell as u8));
    let estimate = heuristic.value(&start_state);
    let mut level = Level::start(start_state, estimate, start_hash, &start.tiles[..cells]);
    // Per depth past the start: each kept board's parent and move.
    let mut history: Vec<Vec<(u32, Move)>> = Vec::new();
    let mut seen = Remembered::default();
    seen.kept.insert(start_hash);
    let threads = halt.threads();
    let mut position = start.clone();
    let mut children = Children::new();
    let mut pieces: Vec<(Children<H::State>, Position)> = Vec::new();
    loop {
        seen.next_level(history.len());
        children.clear();
        // Entries past the node limit are not expanded: the limit ends the
        // beam once every entry before them is.
        let allowed = max_nodes.saturating_sub(stats.expanded);
        let allowed = usize::try_from(allowed).unwrap_or(usize::MAX);
        let expanding = &level.entries[..level.entries.len().min(allowed)];
        let mut ends = Vec::new();
        if threads > 1 && expanding.len() >= 2 * SPLIT_MIN_ENTRIES {
            let at = (expanding, &level.tiles[..], stats.expanded);
            let context = (grid, heuristic, &keys[..], halt, &done);
            let split = (start, threads);
            ends = expand_in_pieces(context, at, split, &mut seen, &mut pieces, &mut children);
        } else {
            let at = (expanding, &level.tiles[..], 0, stats.expanded);
            let is_new = |hash| seen.is_new(hash);
            let out = &mut children;
            ends.push(expand(
                grid,
                heuristic,
                &keys,
                at,
                &mut position,
                halt,
                &done,
                is_new,
                out,
            ));
        }
        let mut halted = false;
        for ended in ends {
            stats.expanded += ended.expanded;
            stats.generated += ended.generated;
            if let Some((index, mv)) = ended.solved {
                return (Ending::Solved(path(&history, index, mv)), stats);
            }
            halted |= ended.halted;
        }
        let out_of_nodes = expanding.len() < level.entries.len();
        if halted || out_of_nodes {
            if out_of_nodes {
                // As counted by a beam that stops at the first entry past
                // the limit.
                stats.expanded += 1;
            }
            if (out_of_nodes || halt.timed_out())
                && stall_levels.is_some()
                && nearest.estimate != u32::MAX
            {
                return (Ending::Unfinished(nearest.path(&history)), stats);
            }
            return (Ending::Ended, stats);
        }
        let order = lowest(&children.entries, width);
        if order.is_empty() {
            return (Ending::Ended, stats);
        }
        // The least estimate of the level, first in generation order: it is
        // kept whatever the width.
        let mut least = None;
        if let Some(stall_levels) = stall_levels {
            match nearest.level(&children.entries, stall_levels) {
                Progress::Nearer(child) => least = Some(child),
                Progress::NoNearer => {}
                Progress::Stalled => {
                    return (Ending::Unfinished(nearest.path(&history)), stats);
                }
            }
        }
        if let Some(least) = least {
            let index = order.binary_search(&least).expect("the least is kept");
            nearest.at = (history.len() + 1, index as u32);
        }
        let (kept, links) = keep(&children, &order, cells, &mut seen.kept, threads);
        history.push(links);
        level = kept;
    }
}

/// The board nearest the goal a beam with a stall limit met: its
/// estimate, the levels since, and its depth and index in its level.
struct Nearest {
    estimate: u32,
    levels_since: usize,
    at: (usize, u32),
}

impl Nearest {
    fn new() -> Nearest {
        Nearest {
            estimate: u32::MAX,
            levels_since: 0,
            at: (0, 0),
        }
    }

    /// Takes in a level's children, `stall_levels` the levels a beam
    /// goes on without coming nearer.
    fn level<S>(&mut self, children: &[Entry<S>], stall_levels: usize) -> Progress {
        let first_least = (0..children.len() as u32)
            .min_by_key(|&i| children[i as usize].estimate)
            .expect("a level has children");
        if children[first_least as usize].estimate < self.estimate {
            self.estimate = children[first_least as usize].estimate;
            self.levels_since = 0;
            return Progress::Nearer(first_least);
        }
        self.levels_since += 1;
        if self.levels_since < stall_levels {
            Progress::NoNearer
        } else {
            Progress::Stalled
        }
    }

    /// The moves to the nearest board.
    fn path(&self, history: &[Vec<(u32, Move)>]) -> Vec<Move> {
        let (depth, index) = self.at;
        path_to(&history[..depth], index)
    }
}

/// What a level's children did for a beam with a stall limit.
enum Progress {
    /// This child is the nearest the goal yet (the first of the least
    /// estimate).
    Nearer(u32),
    /// None came nearer.
    NoNearer,
    /// None came nearer for the stall limit's levels.
    Stalled,
}

/// The estimate of a child generated earlier in its level: never kept.
const DUPLICATE: u32 = u32::MAX;

/// The indexes of the `width` children of lowest estimate, ties to the
/// earlier board (the order of generation), so that answers are the same
/// on every run; in generation order.
fn lowest<S>(children: &[Entry<S>], width: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..children.len() as u32)
        .filter(|&i| children[i as usize].estimate != DUPLICATE)
        .collect();
    if order.len() > width {
        order.select_nth_unstable_by_key(width - 1, |&i| (children[i as usize].estimate, i));
        order.truncate(width);
    }
    order.sort_unstable();
    order
}

/// The children of `order` as the next level (copied by `threads`),
/// remembered in `seen`, and each one's parent and move.
fn keep<S: Copy + Send + Sync>(
    children: &Children<S>,
    order: &[u32],
    cells: usize,
    seen: &mut Seen,
    threads: usize,
) -> (Level<S>, Vec<(u32, Move)>) {
    let tiles_of = |i: u32| &children.tiles[i as usize * cells..(i as usize + 1) * cells];
    let mut kept = Level {
        entries: Vec::with_capacity(order.len()),
        tiles: Vec::with_capacity(order.len() * cells),
    };
    if threads > 1 && order.len() >= 2 * SPLIT_MIN_ENTRIES {
        gather_in_pieces(children, order, cells, &mut kept);
    } else {
        for &i in order {
            kept.entries.push(children.entries[i as usize]);
            kept.tiles.extend_from_slice(tiles_of(i));
        }
    }
    let mut links = Vec::with_capacity(order.len());
    for child in &kept.entries {
        seen.insert(child.hash);
        links.push((child.parent, child.mv));
    }
    (kept, links)
}

/// The children of `order` and their tiles copied into `kept` by the
/// threads of the pool.
#[cfg(feature = "split")]
fn gather_in_pieces<S: Copy + Send + Sync>(
    children: &Children<S>,
    order: &[u32],
    cells: usize,
    kept: &mut Level<S>,
) {
    order
        .par_iter()
        .map(|&i| children.entries[i as usize])
        .collect_into_vec(&mut kept.entries);
    kept.tiles.resize(order.len() * cells, 0);
    kept.tiles
        .par_chunks_mut(cells)
        .zip(order.par_iter())
        .for_each(|(tiles, &i)| {
            tiles.copy_from_slice(&children.tiles[i as usize * cells..(i as usize + 1) * cells])
        });
}

/// Without the `split` feature a beam runs on one thread.
#[cfg(not(feature = "split"))]
fn gather_in_pieces<S>(_: &Children<S>, _: &[u32], _: usize, _: &mut Level<S>) {
    unreachable!("a beam splits only with the `split` feature")
}

/// The moves to the board at `index` of the last level in `history`.
fn path_to(history: &[Vec<(u32, Move)>], index: u32) -> Vec<Move> {
    let Some((last, earlier)) = history.split_last() else {
        return Vec::new();
    };
    let (parent, mv) = last[index as usize];
    path(earlier, parent, mv)
}

/// The moves to the child that `mv` leads to from the board at `index` of
/// the last level in `history`.
fn path(history: &[Vec<(u32, Move)>], index: u32, mv: Move) -> Vec<Move> {
    let mut moves = vec![mv];
    let mut at = index;
    for links in history.iter().rev() {
        let (parent, mv) = links[at as usize];
        moves.push(mv);
        at = parent;
    }
    moves.reverse();
    moves
}

/// The tables' estimate plus linear conflict's: a guide, not a bound. The
/// two err on different boards (the tables miss conflicts between tiles
/// of different tables, linear conflict most of every other interaction),
/// so their sum ranks a beam's boards better than either: on DeepCubeA's
/// first ten 6x6 boards 1.452 times Manhattan against 1.488 for the
/// tables alone at width 10,000, 1.423 against 1.455 at 30,000. On 7x7,
/// whose 5-tile tables see a smaller share of the true excess over
/// Manhattan, that excess counts three times (docs/experiments.md).
pub(crate) struct WithConflicts<H> {
    tables: H,
    conflicts: LinearConflict,
    /// How much more the tables' excess over Manhattan counts, in the
    /// guide's units (two a move for each estimate).
    tables_excess: u32,
}

/// Sides on which the tables' excess over Manhattan counts three times:
/// on DeepCubeA's first 30 7x7 boards at width 10,000, 1.510 times
/// Manhattan against 1.552 once, 1.543 four times; on 6x6, 1.458 against
/// 1.458 (docs/experiments.md).
const TABLES_EXCESS_SIDES: std::ops::RangeInclusive<usize> = 7..=7;

/// The units the guide counts a move in, per estimate.
const WITH_CONFLICTS_SCALE: u32 = 2;

impl<H: Heuristic> WithConflicts<H> {
    pub(crate) fn new(grid: &Grid, tables: H) -> WithConflicts<H> {
        let tables_excess = if TABLES_EXCESS_SIDES.contains(&grid.n) {
            2 * WITH_CONFLICTS_SCALE
        } else {
            0
        };
        WithConflicts {
            tables,
            conflicts: LinearConflict::new(grid),
            tables_excess,
        }
    }
}

impl<H: Heuristic> Heuristic for WithConflicts<H> {
    type State = (H::State, LinearConflictState);

    const UNITS_PER_MOVE: u32 = WITH_CONFLICTS_SCALE * (H::UNITS_PER_MOVE + 1);

    fn name(&self) -> &'static str {
        self.tables.name()
    }

    fn init(&self, position: &Position) -> Self::State {
        (self.tables.init(position), self.conflicts.init(position))
    }

    #[inline(always)]
    fn value(&self, (tables, conflicts): &Self::State) -> u32 {
        let tables_value = self.tables.value(tables);
        let excess = tables_value.saturating_sub(H::UNITS_PER_MOVE * conflicts.manhattan());
        WITH_CONFLICTS_SCALE * (tables_value + self.conflicts.value(conflicts))
            + self.tables_excess * excess
    }

    #[inline(always)]
    fn bound(&self, (tables, conflicts): &Self::State) -> u32 {
        self.tables
            .bound(tables)
            .max(self.conflicts.value(conflicts))
    }

    #[inline(always)]
    fn prepare_children(&self, state: &mut Self::State, position: &Position, moves: MoveSet) {
        self.tables.prepare_children(&mut state.0, position, moves);
    }

    #[inline(always)]
    fn update(
        &self,
        (tables, conflicts): &Self::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> Self::State {
        (
            self.tables.update(tables, position, tile, from, to),
            self.conflicts.update(conflicts, position, tile, from, to),
        )
    }
}

/// An estimate (linear conflict, or tables) with the tiles of the frame
/// (the outer row and column that the goal's core, one line smaller,
/// leaves) counted half as much again: a guide, not a bound. The beam then
/// places the frame early and finishes the core, as a person does, with
/// most moves still helping every tile; on random 6x6 to 8x8 boards it
/// answers 3 to 6 % shorter than linear conflict alone, and over the 7x7
/// tables 3 % shorter than the tables alone (docs/experiments.md), but it
/// can stall on a board whose last tiles form a long cycle, which the
/// caller detects.
pub(crate) struct FrameWeighted<H = LinearConflict> {
    estimate: H,
    grid: Grid,
    /// Per tile, in units of half a move: 1 for frame tiles, else 0 (and
    /// more for tiles kept or steered).
    weights: Vec<u32>,
}

/// The estimate's state and the weighted tiles' Manhattan distance.
#[derive(Clone, Copy)]
pub(crate) struct FrameWeightedState<S> {
    estimate: S,
    /// In units of half a move.
    frame_distance: u32,
}

impl<S> FrameWeightedState<S> {
    /// Whether every weighted tile is home.
    pub(crate) fn weighted_home(&self) -> bool {
        self.frame_distance == 0
    }
}

/// Per tile, 1 for the frame's tiles (see [`FrameWeighted`]), else 0.
fn frame_weights(grid: &Grid) -> Vec<u32> {
    let n = grid.n;
    // The goal's core is the (n-1)x(n-1) block around the blank's home;
    // the frame is the row and column on the other side.
    let far = if grid.home[0] as usize / n == 0 {
        n - 1
    } else {
        0
    };
    (0..n * n)
        .map(|tile| {
            let home = grid.home[tile] as usize;
            u32::from(tile != 0 && (home / n == far || home % n == far))
        })
        .collect()
}

impl<H: Heuristic> FrameWeighted<H> {
    /// `estimate` with the frame weighted.
    pub(crate) fn over(grid: &Grid, estimate: H) -> FrameWeighted<H> {
        FrameWeighted {
            estimate,
            grid: grid.clone(),
            weights: frame_weights(grid),
        }
    }

    /// The estimate alone (a bound when it is one) in `state`.
    #[cfg(test)]
    pub(crate) fn unweighted(&self, state: &FrameWeightedState<H::State>) -> u32 {
        self.estimate.value(&state.estimate)
    }
}

impl FrameWeighted {
    #[cfg(test)]
    pub(crate) fn new(grid: &Grid) -> FrameWeighted {
        FrameWeighted::keeping(grid, &[], 0)
    }

    /// The frame weighted, and each tile of `kept` `weight` more.
    pub(crate) fn keeping(grid: &Grid, kept: &[usize], weight: u32) -> FrameWeighted {
        let mut guide = FrameWeighted::over(grid, LinearConflict::new(grid));
        for &tile in kept {
            guide.weights[tile] += weight;
        }
        guide
    }

    /// Only the tiles of `steered` weighted, `weight` each: the beam to the
    /// first board where they are all home (see
    /// [`FrameWeightedState::weighted_home`]) places them.
    pub(crate) fn steering(grid: &Grid, steered: &[usize], weight: u32) -> FrameWeighted {
        let weights = (0..grid.cells())
            .map(|tile| if steered.contains(&tile) { weight } else { 0 })
            .collect();
        FrameWeighted {
            estimate: LinearConflict::new(grid),
            grid: grid.clone(),
            weights,
        }
    }
}

impl<H: Heuristic> Heuristic for FrameWeighted<H> {
    type State = FrameWeightedState<H::State>;

    fn name(&self) -> &'static str {
        "frame-weighted"
    }

    fn init(&self, position: &Position) -> Self::State {
        let frame_distance = (0..self.weights.len())
            .map(|tile| self.weights[tile] * self.grid.distance(tile as u8, position.cells[tile]))
            .sum();
        FrameWeightedState {
            estimate: self.estimate.init(position),
            frame_distance,
        }
    }

    const UNITS_PER_MOVE: u32 = 2 * H::UNITS_PER_MOVE;

    #[inline(always)]
    fn value(&self, state: &Self::State) -> u32 {
        2 * self.estimate.value(&state.estimate) + H::UNITS_PER_MOVE * state.frame_distance
    }

    #[inline(always)]
    fn bound(&self, state: &Self::State) -> u32 {
        self.estimate.bound(&state.estimate)
    }

    #[inline(always)]
    fn prepare_children(&self, state: &mut Self::State, position: &Position, moves: MoveSet) {
        self.estimate
            .prepare_children(&mut state.estimate, position, moves);
    }

    #[inline(always)]
    fn update(
        &self,
        state: &Self::State,
        position: &Position,
        tile: u8,
        from: u8,
        to: u8,
    ) -> Self::State {
        let weight = self.weights[tile as usize];
        FrameWeightedState {
            estimate: self
                .estimate
                .update(&state.estimate, position, tile, from, to),
            frame_distance: state.frame_distance + weight * self.grid.distance(tile, to)
                - weight * self.grid.distance(tile, from),
        }
    }
}

#[cfg(test)]
mod tests {
    use npuzzle_board::{random_board, Goal, SplitMix64};

    use super::*;
    use crate::{solve, Request};
    use std::sync::atomic::AtomicBool;

    fn beam_of(board: &npuzzle_board::Board, width: usize, limit: u64) -> Option<Vec<Move>> {
        let grid = Grid::new(board.size(), Goal::BlankLast);
        let heuristic = LinearConflict::new(&grid);
        match beam(
            &grid,
            &heuristic,
            &Position::new(board),
            width,
            limit,
            Halt::default(),
            None,
        ) {
            (Ending::Solved(moves), _) => Some(moves),
            _ => None,
        }
    }

    /// Answers replay to the goal and are never shorter than optimal; a
    /// wide beam finds the optimal length on most 3x3 boards.
    #[test]
    fn beam_answers_solve_and_are_no_shorter_than_optimal() {
        let mut rng = SplitMix64::new(7);
        let mut optimal_found = 0;
        for _ in 0..30 {
            let board = random_board(3, Goal::BlankLast, &mut rng);
            let moves = beam_of(&board, 2_000, u64::MAX).expect("a wide beam solves 3x3");
            assert!(board.solves(&moves, Goal::BlankLast), "{board}");
            let optimal = solve(&board, &Request::default()).unwrap().moves.len();
            assert!(moves.len() >= optimal, "{board}");
            optimal_found += usize::from(moves.len() == optimal);
        }
        assert!(optimal_found >= 20, "{optimal_found} of 30 optimal");
        for size in [4, 5, 7] {
            let board = random_board(size, Goal::BlankLast, &mut rng);
            let moves = beam_of(&board, 500, u64::MAX).expect("a beam of 500 solves it");
            assert!(board.solves(&moves, Goal::BlankLast), "{board}");
        }
    }

    /// The frame-weighted guide's moves agree with evaluating from scratch
    /// (also keeping or steering tiles), and its frame is the outer row and
    /// column away from the blank's home.
    #[test]
    fn the_frame_weighted_guide_updates_as_it_evaluates() {
        let mut rng = SplitMix64::new(3);
        for (size, goal) in [(6, Goal::BlankLast), (7, Goal::BlankFirst)] {
            let grid = Grid::new(size, goal);
            let guide = FrameWeighted::new(&grid);
            assert_eq!(guide.weights.iter().sum::<u32>() as usize, 2 * size - 1);
            let far = if goal == Goal::BlankLast { 0 } else { size - 1 };
            for (tile, &in_frame) in guide.weights.iter().enumerate().skip(1) {
                let home = grid.home[tile] as usize;
                let outer = home / size == far || home % size == far;
                assert_eq!(in_frame == 1, outer, "tile {tile}");
            }
            let keeping = FrameWeighted::keeping(&grid, &[1, 9], 12);
            assert_eq!(
                keeping.weights.iter().sum::<u32>() as usize,
                2 * size - 1 + 24
            );
            let steering = FrameWeighted::steering(&grid, &[9], 12);
            assert_eq!(steering.weights.iter().sum::<u32>(), 12);
            for guide in [guide, keeping, steering] {
                let mut position = Position::new(&random_board(size, goal, &mut rng));
                let mut state = guide.init(&position);
                random_moves(
                    &grid,
                    &mut position,
                    &mut rng,
                    |position, tile, from, to| {
                        state = guide.update(&state, position, tile, from, to);
                        let fresh = guide.init(position);
                        assert_eq!(guide.value(&state), guide.value(&fresh));
                        assert_eq!(
                        state.weighted_home(),
                        (1..grid.cells())
                            .all(|t| guide.weights[t] == 0 || position.cells[t] == grid.home[t])
                    );
                        assert!(guide.value(&state) >= 2 * guide.unweighted(&fresh));
                    },
                );
            }
        }
    }

    /// The tables plus linear conflict update as they evaluate, the 7x7
    /// tables' excess over Manhattan counted three times; the bound is the
    /// larger of the two, and the frame weighted over them keeps its share
    /// of a move. Linear conflict stands in for the tables: its excess
    /// over Manhattan is its conflicts.
    #[test]
    fn the_tables_with_conflicts_update_as_they_evaluate() {
        assert_eq!(
            <FrameWeighted<&WithConflicts<&LinearConflict>>>::UNITS_PER_MOVE,
            8
        );
        for (n, extra_excess) in [(6, 0), (7, 4)] {
            let mut rng = SplitMix64::new(5);
            let grid = Grid::new(n, Goal::BlankLast);
            let conflicts = LinearConflict::new(&grid);
            let manhattan = crate::heuristic::Manhattan::new(&grid);
            let guide = WithConflicts::new(&grid, &conflicts);
            let framed = FrameWeighted::over(&grid, &guide);
            let mut position = Position::new(&random_board(n, Goal::BlankLast, &mut rng));
            let mut state = guide.init(&position);
            let mut framed_state = framed.init(&position);
            random_moves(
                &grid,
                &mut position,
                &mut rng,
                |position, tile, from, to| {
                    state = guide.update(&state, position, tile, from, to);
                    framed_state = framed.update(&framed_state, position, tile, from, to);
                    let md = manhattan.value(&manhattan.init(position));
                    let lc = conflicts.value(&conflicts.init(position));
                    let value = 2 * (lc + lc) + extra_excess * (lc - md);
                    assert_eq!(guide.value(&state), value);
                    assert_eq!(guide.bound(&state), lc);
                    assert_eq!(framed.bound(&framed_state), lc);
                    let frame: u32 = (1..grid.cells())
                        .filter(|&t| framed.weights[t] == 1)
                        .map(|t| grid.distance(t as u8, position.cells[t]))
                        .sum();
                    assert_eq!(framed.value(&framed_state), 2 * value + 4 * frame);
                },
            );
        }
    }

    /// Slides 500 random tiles on `position`, calling `each` after each
    /// move with the position, the tile, and the cells it left and entered.
    fn random_moves(
        grid: &Grid,
        position: &mut Position,
        rng: &mut SplitMix64,
        mut each: impl FnMut(&Position, u8, u8, u8),
    ) {
        for _ in 0..500 {
            let blank = position.blank();
            let choices = grid.neighbors(blank);
            let (from, _) = choices[rng.below(choices.len() as u64) as usize];
            let tile = position.slide(from);
            each(position, tile, from, blank);
        }
    }

    /// A beam that stops getting nearer the goal is reported stuck.
    #[test]
    fn a_beam_that_stops_improving_stalls() {
        let board = random_board(7, Goal::BlankLast, &mut SplitMix64::new(2));
        let grid = Grid::new(7, Goal::BlankLast);
        let guide = FrameWeighted::new(&grid);
        let (ending, stats) = beam(
            &grid,
            &guide,
            &Position::new(&board),
            200,
            u64::MAX,
            Halt::default(),
            Some(5),
        );
        let Ending::Unfinished(nearest) = ending else {
            panic!("not stalled after {} nodes", stats.expanded);
        };
        // The moves lead to a board nearer the goal than the start.
        let mut position = Position::new(&board);
        let start = guide.value(&guide.init(&position));
        let mut reached = board.clone();
        for &mv in &nearest {
            assert!(reached.apply(mv));
        }
        position = Position::new(&reached);
        assert!(guide.value(&guide.init(&position)) < start);
    }

    #[test]
    fn a_solved_board_needs_no_move_and_limits_end_the_beam() {
        assert_eq!(beam_of(&Goal::BlankLast.board(4), 10, 0), Some(Vec::new()));
        let board = random_board(5, Goal::BlankLast, &mut SplitMix64::new(1));
        assert_eq!(beam_of(&board, 1_000, 5_000), None);
        let grid = Grid::new(5, Goal::BlankLast);
        let stop = AtomicBool::new(true);
        let found = beam(
            &grid,
            &LinearConflict::new(&grid),
            &Position::new(&board),
            1_000,
            u64::MAX,
            Halt::flag(Some(&stop)),
            None,
        );
        assert!(matches!(found.0, Ending::Ended));
    }

    /// A beam split across a pool's threads keeps the same boards, in the
    /// same order, as on one thread: the same moves and node counts, and
    /// the same ending at a node limit that falls inside a level.
    #[cfg(feature = "split")]
    #[test]
    fn a_split_beam_answers_as_one_thread_does() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut rng = SplitMix64::new(11);
        for size in [6, 7] {
            let board = random_board(size, Goal::BlankLast, &mut rng);
            let grid = Grid::new(size, Goal::BlankLast);
            let heuristic = LinearConflict::new(&grid);
            let position = Position::new(&board);
            let split = Request {
                parallel: true,
                ..Request::default()
            };
            for (limit, stall) in [(u64::MAX, None), (200_000 + 1_234, Some(usize::MAX))] {
                let run = |halt| beam(&grid, &heuristic, &position, 6_000, limit, halt, stall);
                let (alone, alone_stats) = run(Halt::default());
                let (split, split_stats) = pool.install(|| {
                    let halt = Halt::of(&split);
                    assert_eq!(halt.threads(), 2);
                    run(halt)
                });
                let moves = |ending: Ending| match ending {
                    Ending::Solved(moves) => ("solved", moves),
                    Ending::Unfinished(moves) => ("unfinished", moves),
                    Ending::Ended => ("ended", Vec::new()),
                };
                assert_eq!(moves(alone), moves(split), "{board}, limit {limit}");
                assert_eq!(alone_stats.expanded, split_stats.expanded);
                assert_eq!(alone_stats.generated, split_stats.generated);
            }
        }
    }
}
