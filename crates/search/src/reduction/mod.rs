//! Big boards, fast, not optimal: the board is reduced a line at a time (the
//! top row, then the left column, alternately) until a core of 5x5 or less
//! remains (or a larger one close to solved), which is searched.
//!
//! What makes the answers short:
//! - every blank move is priced: cheap when it pushes its tile towards
//!   home, dear when it pushes it away (doubly so for the tiles of the next
//!   few lines), so the blank's trips do part of the later work;
//! - a tile takes the cheapest route to its cell (a search over the tile's
//!   cell and the blank's side of it), on boards up to 40x40;
//! - the last two tiles of a line are placed together by an exact search in
//!   the 5x5 window at the line's end;
//! - the core is searched with ever tighter bounds while its budget lasts;
//! - the solution is shortened stretch by stretch (`smooth`), and boards up
//!   to 40x40 are also solved columns first, the shorter answer kept.

mod blank;
mod core;
mod tiles;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use npuzzle_board::{Board, Goal, Move};

use crate::dispatch::solve;
use crate::grid::{move_between, Grid, Position, MAX_SEARCH_SIZE};
use crate::heuristic::{Heuristic, LinearConflict};
use crate::smooth::{cancel_pairs, polish_until};
use crate::types::{
    Algorithm, Deadline, HeuristicKind, Incomplete, InputError, Request, SearchError, Solution,
};

/// What a blank move costs, in the units of the cheapest-path search, when
/// it pushes its tile neither way (the blank itself, or the tile it goes to
/// fetch).
const STEP: u32 = 8;
/// How much cheaper a blank move is when it pushes its tile closer to home,
/// and dearer when it pushes it away: every unit of another tile's distance
/// saved now saves moves when that tile is placed.
const SWAY: u32 = 7;
/// The side of the window at a line's end where its last two tiles are
/// placed by exact search.
const PAIR_WINDOW: usize = 5;
/// More than the dearest step (`STEP + 2 * SWAY`): the ring of buckets of
/// the cheapest-path search never wraps onto costs still queued.
const BUCKETS: usize = 32;
const _: () = assert!(BUCKETS as u32 > STEP + 2 * SWAY);
/// How far the blank's cheapest path may stray outside the rectangle of
/// its ends (before the whole board is searched).
const DETOUR: usize = 4;
/// How hard the reduction works at the parts it searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Effort {
    /// A 5x5 core's weighted searches may expand 2,000,000 nodes (about
    /// 0.3 s): the answers of `npuzzle solve`.
    #[default]
    Thorough,
    /// 200,000 nodes: answers in tens of milliseconds up to 10x10, a few
    /// percent longer (10 % on 5x5): an interactive coach's.
    Quick,
}

impl Effort {
    /// The nodes a beam search may expand for one board (see `beam.rs`):
    /// the width is this over 2.5 times the board's lower bound, about
    /// 30,000 boards on 6x6 (3 s on one core) and, when quick, 1,100
    /// (0.2 s; a 7x7 or 8x8 board then gets the reduction).
    pub fn beam_nodes(self) -> u64 {
        match self {
            Effort::Thorough => 7_500_000,
            Effort::Quick => 400_000,
        }
    }

    fn core_budget(self) -> u64 {
        match self {
            Effort::Thorough => 2_000_000,
            Effort::Quick => 200_000,
        }
    }
}
/// The largest board whose tiles take the cheapest route (`Reducer::route`);
/// larger ones walk a staircase, faster.
const ROUTE_MAX_SIZE: usize = 40;
/// The largest board also solved columns first, the shorter answer kept
/// (not when quick): past it the second solve costs seconds.
const SECOND_ORDER_MAX_SIZE: usize = 40;
/// The longest solution smoothed: past it (boards past about 50x50) a pass
/// costs seconds and gains under 1 %.
const SMOOTHING_MAX_MOVES: usize = 300_000;

/// A board being solved, in blank-last terms.
struct Reducer {
    n: usize,
    tiles: Vec<u32>,
    /// The cell of each tile (0 is the blank).
    cells: Vec<usize>,
    locked: Vec<bool>,
    moves: Vec<Move>,
    /// Scratch for breadth-first searches: a cell is seen in the current
    /// search when its stamp equals `stamp`.
    seen: Vec<u32>,
    parent: Vec<usize>,
    cost: Vec<u32>,
    /// The cheapest-path search's queue (see `blank_path`).
    buckets: Vec<Vec<usize>>,
    stamp: u32,
    /// The lines being placed: the tiles of the next few matter most.
    top: usize,
    left: usize,
    /// `SWAY`, or 0 for plain shortest paths.
    sway: u32,
    /// Whether a near-solved large core's search has failed: smaller ones
    /// are then not tried either.
    near_failed: bool,
    effort: Effort,
    /// Set by another thread to end the reduction with
    /// [`Incomplete::Stopped`]: looked at before every blank trip and
    /// every tile placed, so within a millisecond even on 127x127.
    stop: Option<Arc<AtomicBool>>,
    /// Past it the reduction ends with [`Incomplete::TimeLimit`], looked at
    /// as often as `stop`; or, when `hurried`, its core searches give up.
    deadline: Option<Deadline>,
    /// The reduction must answer: past the deadline its core searches give
    /// up (a smaller core is searched instead, down to 3x3, which takes
    /// microseconds), and only they look at it.
    hurried: bool,
}

/// A `Reducer`'s position and move count, to go back to.
struct Checkpoint {
    tiles: Vec<u32>,
    cells: Vec<usize>,
    moves: usize,
}

impl Reducer {
    fn new(board: &Board) -> Reducer {
        let n = board.size();
        let tiles: Vec<u32> = board.tiles().iter().map(|&t| t as u32).collect();
        let mut cells = vec![0; n * n];
        for (cell, &t) in tiles.iter().enumerate() {
            cells[t as usize] = cell;
        }
        Reducer {
            n,
            tiles,
            cells,
            locked: vec![false; n * n],
            moves: Vec::new(),
            seen: vec![0; n * n],
            parent: vec![0; n * n],
            cost: vec![0; n * n],
            buckets: vec![Vec::new(); BUCKETS],
            top: 0,
            left: 0,
            sway: SWAY,
            near_failed: false,
            effort: Effort::Thorough,
            stamp: 0,
            stop: None,
            deadline: None,
            hurried: false,
        }
    }

    fn check_stop(&self) -> Result<(), SearchError> {
        match &self.stop {
            Some(stop) if stop.load(Ordering::Relaxed) => {
                Err(SearchError::Incomplete(Incomplete::Stopped))
            }
            _ => match self.deadline {
                Some(deadline) if !self.hurried && deadline.passed() => {
                    Err(SearchError::Incomplete(Incomplete::TimeLimit {
                        budget: deadline.budget(),
                    }))
                }
                _ => Ok(()),
            },
        }
    }

    fn neighbours(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.n;
        let (r, c) = (cell / n, cell % n);
        [
            (r > 0).then(|| cell - n),
            (r + 1 < n).then(|| cell + n),
            (c > 0).then(|| cell - 1),
            (c + 1 < n).then(|| cell + 1),
        ]
        .into_iter()
        .flatten()
    }

    /// Moves the blank one step, onto the adjacent `to`.
    fn step_blank(&mut self, to: usize) {
        let from = self.cells[0];
        let tile = self.tiles[to];
        self.moves.push(move_between(self.n, from, to));
        self.tiles.swap(from, to);
        self.cells[tile as usize] = from;
        self.cells[0] = to;
    }

    /// Slides `tile` onto the adjacent free cell `to`.
    fn step_tile(&mut self, tile: u32, to: usize) -> Result<(), SearchError> {
        let from = self.cells[tile as usize];
        self.blank_to(to, &[from])?;
        self.step_blank(from);
        Ok(())
    }

    /// The cell at `line`, `along` of the frame: rows (line = row) or, when
    /// `columns`, columns (line = column).
    fn cell(&self, columns: bool, line: usize, along: usize) -> usize {
        if columns {
            along * self.n + line
        } else {
            line * self.n + along
        }
    }

    fn frame(&self, columns: bool, cell: usize) -> (usize, usize) {
        let (r, c) = (cell / self.n, cell % self.n);
        if columns {
            (c, r)
        } else {
            (r, c)
        }
    }
}

/// A valid (not optimal) solution of any solvable board.
pub fn solve_by_reduction(board: &Board, goal: Goal) -> Result<Vec<Move>, SearchError> {
    solve_by_reduction_with(board, goal, Effort::Thorough)
}

/// [`solve_by_reduction`] with the effort given.
pub fn solve_by_reduction_with(
    board: &Board,
    goal: Goal,
    effort: Effort,
) -> Result<Vec<Move>, SearchError> {
    solve_by_reduction_until(board, goal, effort, None, None)
}

/// [`solve_by_reduction_with`] that another thread can end by setting
/// `stop` ([`Incomplete::Stopped`]) and that ends at `deadline`
/// ([`Incomplete::TimeLimit`]), within a millisecond or so on every board
/// size. A 127x127 board takes seconds: a caller that must answer
/// whatever the time (a beam cut short, finished from where it got)
/// calls [`solve_by_reduction_hurried`].
pub fn solve_by_reduction_until(
    board: &Board,
    goal: Goal,
    effort: Effort,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Vec<Move>, SearchError> {
    blank_last(board, goal, |board| {
        reduce_in_every_order(board, effort, stop, deadline)
    })
}

/// `reduce_blank_last` of `board` turned to the blank-last goal when
/// `goal` is blank-first (blank-first is blank-last turned half round),
/// its moves turned back; unsolvable boards refused.
fn blank_last(
    board: &Board,
    goal: Goal,
    reduce_blank_last: impl FnOnce(&Board) -> Result<Vec<Move>, SearchError>,
) -> Result<Vec<Move>, SearchError> {
    if !board.is_solvable(goal) {
        return Err(SearchError::Input(InputError::Unsolvable));
    }
    if goal == Goal::BlankFirst {
        let moves = reduce_blank_last(&board.converted_goal())?;
        return Ok(moves.into_iter().map(Move::opposite).collect());
    }
    reduce_blank_last(board)
}

/// The reduction of a blank-last board, in each order its effort affords;
/// the shortest answer.
fn reduce_in_every_order(
    board: &Board,
    effort: Effort,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Vec<Move>, SearchError> {
    let n = board.size();
    let scrambled = board.manhattan(Goal::BlankLast) * 4 >= (n * n) as u64;
    let reduce = |board: &Board, sway| reduce(board, sway, effort, stop, deadline, false);
    let mut moves = reduce(board, SWAY)?;
    // The other orders may only shorten the first answer: one the budget
    // ends is left out.
    let mut consider = |other: Result<Vec<Move>, SearchError>| match other {
        Ok(other) => {
            if other.len() < moves.len() {
                moves = other;
            }
            Ok(())
        }
        Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) => Ok(()),
        Err(e) => Err(e),
    };
    if !scrambled {
        // Few tiles out of place: pushing them home on the way can pay less
        // than it costs in the order of the rest; take the better.
        consider(reduce(board, 0))?;
    }
    if n <= SECOND_ORDER_MAX_SIZE && effort == Effort::Thorough {
        // Columns first (the board transposed) is as good on average and
        // better on many boards.
        let transposed = reduce(&board.transposed(Goal::BlankLast), SWAY);
        consider(transposed.map(|moves| moves.into_iter().map(Move::transposed).collect()))?;
    }
    Ok(moves)
}

/// The reduction that finishes an answer its budget cut short: at the
/// quick effort, one order only, its core searches and smoothing given up
/// [`FINISH_GRACE`] past `deadline`. It answers (only `stop` ends it
/// without), a few tens of milliseconds past the deadline up to 10x10.
pub fn solve_by_reduction_hurried(
    board: &Board,
    goal: Goal,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Vec<Move>, SearchError> {
    let late = deadline.map(|d| d.extended(FINISH_GRACE));
    blank_last(board, goal, |board| {
        reduce(board, SWAY, Effort::Quick, stop, late, true)
    })
}

/// How long the work that finishes an answer cut short by its budget may
/// run past the deadline: the reduction's core searches and the smoothing
/// give up then, so that a budget is overrun by less than 0.1 s.
pub const FINISH_GRACE: std::time::Duration = std::time::Duration::from_millis(60);

/// The reduction with blank moves weighted by `sway`, smoothed.
fn reduce(
    board: &Board,
    sway: u32,
    effort: Effort,
    stop: Option<&Arc<AtomicBool>>,
    deadline: Option<Deadline>,
    hurried: bool,
) -> Result<Vec<Move>, SearchError> {
    let n = board.size();
    let mut reducer = Reducer::new(board);
    reducer.deadline = deadline;
    reducer.hurried = hurried;
    reducer.sway = sway;
    reducer.effort = effort;
    reducer.stop = stop.cloned();
    let (mut top, mut left) = (0, 0);
    loop {
        if top == left && reducer.finish_core(n - top)? {
            break;
        }
        reducer.top = top;
        reducer.left = left;
        // A line already in place is kept as it is.
        if n - top >= n - left {
            if !reducer.keep_if_in_place(false, top, left) {
                reducer.fill(false, top, left)?;
            }
            top += 1;
        } else {
            if !reducer.keep_if_in_place(true, left, top) {
                reducer.fill(true, left, top)?;
            }
            left += 1;
        }
    }
    let moves = cancel_pairs(reducer.moves);
    if moves.len() > SMOOTHING_MAX_MOVES {
        return Ok(moves);
    }
    let moves = polish_until(board, moves, stop.map(|s| &**s), deadline);
    if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
        return Err(SearchError::Incomplete(Incomplete::Stopped));
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::{random_board, SplitMix64};

    /// The flag is looked at throughout: set while a 127x127 board (seconds
    /// of work) is being reduced, it ends the reduction.
    #[test]
    fn a_stop_flag_ends_the_reduction_of_the_largest_board() {
        let board = random_board(127, Goal::BlankLast, &mut SplitMix64::new(3));
        let stop = Arc::new(AtomicBool::new(false));
        let setter = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(200));
                stop.store(true, Ordering::Relaxed);
            })
        };
        let result =
            solve_by_reduction_until(&board, Goal::BlankLast, Effort::Thorough, Some(&stop), None);
        setter.join().unwrap();
        assert!(
            matches!(result, Err(SearchError::Incomplete(Incomplete::Stopped))),
            "{:?}",
            result.map(|m| m.len())
        );
    }

    /// A spent budget ends the reduction of any board that needs a move,
    /// naming the budget; the goal itself needs no work and answers.
    #[test]
    fn a_spent_deadline_ends_the_reduction() {
        let budget = std::time::Duration::from_millis(1);
        let spent = Deadline::partly_spent(budget, budget);
        for (size, seed) in [(4, 1), (10, 2), (127, 3)] {
            let board = random_board(size, Goal::BlankFirst, &mut SplitMix64::new(seed));
            let result = solve_by_reduction_until(
                &board,
                Goal::BlankFirst,
                Effort::Quick,
                None,
                Some(spent),
            );
            assert!(
                matches!(result, Err(SearchError::Incomplete(Incomplete::TimeLimit { budget: b })) if b == budget),
                "{size}x{size}: {:?}",
                result.map(|m| m.len())
            );
        }
        let goal = Goal::BlankLast.board(5);
        assert_eq!(
            solve_by_reduction_until(&goal, Goal::BlankLast, Effort::Quick, None, Some(spent)),
            Ok(Vec::new())
        );
    }

    /// Five random boards of each size in `sizes`, for each goal.
    /// Five boards a goal and size: the first at `npuzzle solve`'s effort,
    /// the rest at the coach's, which runs the same steps on smaller
    /// budgets (the core's searches are nine tenths of the time).
    fn random_boards_are_solved(sizes: std::ops::RangeInclusive<usize>) {
        for n in sizes {
            let mut rng = SplitMix64::new(5 + n as u64);
            for goal in Goal::ALL {
                for count in 0..5 {
                    let board = random_board(n, goal, &mut rng);
                    let effort = if count == 0 {
                        Effort::Thorough
                    } else {
                        Effort::Quick
                    };
                    let moves = solve_by_reduction_with(&board, goal, effort).unwrap();
                    assert!(
                        board.solves(&moves, goal),
                        "{n}x{n} {goal} {effort:?}: {board}"
                    );
                }
            }
        }
    }

    // Every size from 2x2 to 12x12, in tests of about equal work.
    #[test]
    fn random_boards_of_2x2_to_8x8_are_solved() {
        random_boards_are_solved(2..=8);
    }
    #[test]
    fn random_9x9_and_10x10_boards_are_solved() {
        random_boards_are_solved(9..=10);
    }
    #[test]
    fn random_11x11_boards_are_solved() {
        random_boards_are_solved(11..=11);
    }
    #[test]
    fn random_12x12_boards_are_solved() {
        random_boards_are_solved(12..=12);
    }

    /// Length over Manhattan distance, the bench's measure: the plain
    /// line-by-line reduction gives about 3.6 at 10x10 and 3.9 at 30x30.
    #[test]
    fn solutions_are_at_most_2_6_times_the_manhattan_distance() {
        let mut rng = SplitMix64::new(21);
        for (n, count, most) in [(10, 10, 2.6), (30, 2, 2.6)] {
            let (mut length, mut manhattan) = (0, 0);
            for _ in 0..count {
                let board = random_board(n, Goal::BlankLast, &mut rng);
                let moves = solve_by_reduction(&board, Goal::BlankLast).unwrap();
                assert!(board.solves(&moves, Goal::BlankLast));
                length += moves.len() as u64;
                manhattan += board.manhattan(Goal::BlankLast);
            }
            let ratio = length as f64 / manhattan as f64;
            assert!(ratio <= most, "{n}x{n}: {ratio:.2} times Manhattan");
        }
    }

    #[test]
    fn a_60x60_board_is_solved() {
        let mut rng = SplitMix64::new(60);
        let board = random_board(60, Goal::BlankLast, &mut rng);
        let moves = solve_by_reduction(&board, Goal::BlankLast).unwrap();
        assert!(board.solves(&moves, Goal::BlankLast));
        assert!(moves.len() as u64 >= board.manhattan(Goal::BlankLast));
    }
}
