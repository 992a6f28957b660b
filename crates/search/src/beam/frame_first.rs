//! What a board gets from beam search: on 6x6 to 10x10 the frame-weighted
//! beams first (several widths, repairs after a stall), then the beam
//! with the plain heuristic, and the reduction from the nearest board
//! reached when no beam finishes.

use npuzzle_board::clock::Instant;
use npuzzle_board::{Board, Goal, Move};

use super::search::{self as beam};
use crate::additive::{Tables, WithHeuristic};
use crate::dispatch::{ended_early, search_grid, with_tables};
use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::{Heuristic, LinearConflict};
use crate::reduction::{
    solve_by_reduction_hurried, solve_by_reduction_until, Effort, FINISH_GRACE,
};
use crate::smooth;
use crate::types::{
    BeamEnding, BeamOutcome, Deadline, Incomplete, Request, ScheduledBeam, SearchError, Solution,
    Stats,
};

/// A solution of `board` by beam search of `width` (not optimal; see
/// `beam.rs`) over tables as [`solve_over`](crate::solve_over); `request.max_nodes`
/// and `request.stop` bound it. On 7x7 (`FRAME_OVER_TABLES_SIDES`) a
/// wide beam weights the frame over the tables, with the widths and
/// repairs of [`beam`].
pub fn beam_over<D: AsRef<[u8]> + Sync>(
    board: &Board,
    request: &Request,
    tables: &Tables<'_, D>,
    width: usize,
) -> Result<Solution, SearchError> {
    struct Run<'a>(&'a Board, &'a Request, usize);
    impl WithHeuristic for Run<'_> {
        type Output = Result<Solution, SearchError>;
        fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> Self::Output {
            let Run(board, request, width) = self;
            let guide = beam::WithConflicts::new(grid, heuristic);
            if FRAME_OVER_TABLES_SIDES.contains(&grid.n) && width >= FRAME_FIRST_MIN_WIDTH {
                frame_first_beams(grid, &guide, board, request, width, STALL_LEVELS, &[])
            } else {
                beam_with(grid, &guide, board, request, width)
            }
        }
    }
    let job = Run(board, request, width);
    with_tables(board, request.goal, tables, request.reflect, job)?
}

/// Sides on which a beam guided by linear conflict first tries the
/// frame-weighted guide (`beam::FrameWeighted`): measured on 6x6 to 10x10;
/// on 5x5 it gains nothing.
const FRAME_FIRST_SIDES: std::ops::RangeInclusive<usize> = 6..=10;

/// Sides whose tables guide a wide beam with the frame weighted, as
/// linear conflict does on 6x6 to 10x10: on 7x7 the tables alone answered
/// 1.628 times Manhattan on 20 boards, frame-weighted 1.578; on 6x6 1.482
/// alone, 1.499 frame-weighted (docs/experiments.md).
const FRAME_OVER_TABLES_SIDES: std::ops::RangeInclusive<usize> = 7..=7;

/// The narrowest beam that tries the frame-weighted guide first: it was
/// measured at widths of 2,500 to 20,000; narrower beams (the coach's)
/// keep linear conflict alone.
const FRAME_FIRST_MIN_WIDTH: usize = 2_000;

/// The widths, in percent of the budget's, of the frame-weighted beams a
/// board of 6x6 to 8x8 gets. Its answers are chaotic in the width (a
/// board that stalls at one width is often solved at another, and the
/// lengths differ by a few percent), so the first two both run and the
/// shorter answer is kept (8x8: 1.687 against 1.729 times Manhattan on 20
/// boards, for 1.5 times the time); the later ones run only while every
/// beam before stalled (18 of 19 stalled 8x8 boards solved by them).
const WIDTHS_PERCENT: [usize; 4] = [100, 75, 56, 42];

/// The beams of [`WIDTHS_PERCENT`] that always run on 6x6 to 8x8; past
/// 8x8 one beam takes half the time a board has.
const ALWAYS_RUN: usize = 2;

/// The largest side that gets more than one frame-weighted beam.
const WIDTHS_MAX_SIDE: usize = 8;

/// Repairs tried after a frame-weighted beam stalls: past 20, 60 gained
/// nothing on 10x10 (docs/experiments.md).
const REPAIRS: usize = 20;

/// A repaired tile's weight in the repairs' guides, in half moves per cell
/// of its Manhattan distance: 12 answered shorter than 3, 6 or 24.
const REPAIR_WEIGHT: u32 = 12;

/// Levels without a new least estimate after which a frame-weighted beam
/// is taken to be stuck.
const STALL_LEVELS: usize = 30;

/// A solution of `board` by beam search of `width` with linear conflict.
/// On 6x6 to 10x10 a wide beam is guided by `beam::FrameWeighted`
/// instead, on 6x6 to 8x8 at several widths (`WIDTHS_PERCENT`). When
/// every one stalls, repairs (`Beam::repair`) and then the reduction
/// finish from the board nearest the goal the last beam reached, within
/// the nodes of `request.max_nodes`.
pub fn beam(board: &Board, request: &Request, width: usize) -> Result<Solution, SearchError> {
    search_grid(board, request.goal)?;
    beam_stalling_after(board, request, width, STALL_LEVELS)
}

/// [`beam`] with the frame-weighted beam taken to be stuck after
/// `stall_levels` levels.
fn beam_stalling_after(
    board: &Board,
    request: &Request,
    width: usize,
    stall_levels: usize,
) -> Result<Solution, SearchError> {
    let n = board.size();
    let grid = Grid::new(n, request.goal);
    let linear_conflict = LinearConflict::new(&grid);
    if !FRAME_FIRST_SIDES.contains(&n) || width < FRAME_FIRST_MIN_WIDTH {
        return beam_with(&grid, &linear_conflict, board, request, width);
    }
    frame_first_beams(
        &grid,
        &linear_conflict,
        board,
        request,
        width,
        stall_levels,
        &request.beam_outcomes,
    )
}

/// Beams guided by `estimate` with the frame weighted, at the widths of
/// [`WIDTHS_PERCENT`] on 6x6 to 8x8 (one past 8x8); when every one stalls
/// (no new least estimate in `stall_levels` levels), repairs and the
/// reduction from the board nearest the goal the last beam reached.
fn frame_first_beams<H: Heuristic>(
    grid: &Grid,
    estimate: &H,
    board: &Board,
    request: &Request,
    width: usize,
    stall_levels: usize,
    given: &[BeamOutcome],
) -> Result<Solution, SearchError> {
    let started = Instant::now();
    let n = board.size();
    let bound = estimate.bound(&estimate.init(&Position::new(board)));
    let widths: &[usize] = if n <= WIDTHS_MAX_SIDE {
        &WIDTHS_PERCENT
    } else {
        &WIDTHS_PERCENT[..1]
    };
    let beam_within = |percent: usize, max_nodes: Option<u64>| {
        let rest = Request {
            max_nodes,
            ..request.clone()
        };
        frame_first_beam(
            grid,
            estimate,
            board,
            &rest,
            attempt_width(width, percent),
            bound,
            stall_levels,
        )
    };
    // A beam's outcome is the same wherever it ran when the node limit
    // left for it cannot cut it short (`left` at least its cap): then it
    // may come from elsewhere (`given`), or run beside the one before it
    // on two threads of the pool (the pair that always runs, and, when
    // both stalled, the next two).
    let apart = runs_apart(n, width);
    let fits = |attempt: usize, left: Option<u64>| {
        apart && left.is_none_or(|left| left >= beam_cap(width, bound, widths[attempt]))
    };
    let found = |attempt: usize, left: Option<u64>| {
        if !fits(attempt, left) {
            return None;
        }
        given
            .iter()
            .find(|outcome| outcome.attempt == attempt)
            .and_then(|outcome| outcome.replayed(board, request.goal, bound))
    };
    let run = |attempt: usize, left: Option<u64>| {
        found(attempt, left).unwrap_or_else(|| beam_within(widths[attempt], left))
    };
    let two_threads = request.parallel
        && rayon::current_thread_index().is_some()
        && rayon::current_num_threads() >= 2;
    // Beams `first` and `first + 1` side by side, when the second has room
    // whatever the first spends (a beam expands at most one node past its
    // cap).
    let side_by_side = |first: usize, left: Option<u64>| {
        let second = first + 1;
        if !two_threads || second >= widths.len() || !fits(first, left) {
            return None;
        }
        let after = left.map(|left| left.saturating_sub(beam_cap(width, bound, widths[first]) + 1));
        if !fits(second, after) {
            return None;
        }
        let (a, b) = rayon::join(|| run(first, left), || run(second, after));
        Some([a, b])
    };
    let halt = Halt::of(request);
    let mut ready = std::collections::VecDeque::new();
    let mut tally = Tally::default();
    for attempt in 0..widths.len() {
        let left = request
            .max_nodes
            .map(|limit| limit.saturating_sub(tally.spent));
        if (tally.best.is_some() && attempt >= ALWAYS_RUN) || left == Some(0) || halt.now() {
            break;
        }
        if ready.is_empty() && (attempt == 0 || attempt == ALWAYS_RUN) {
            ready.extend(side_by_side(attempt, left).into_iter().flatten());
        }
        tally.add(match ready.pop_front() {
            Some(outcome) => outcome,
            None => run(attempt, left),
        });
    }
    let Tally {
        best,
        nearest,
        spent,
    } = tally;
    if let Some(mut found) = best {
        found.stats.expanded = spent;
        found.elapsed = started.elapsed();
        return Ok(found);
    }
    // Out of time before any beam got anywhere: the reduction from the start.
    let Some(nearest) = nearest.or_else(|| halt.timed_out().then(Vec::new)) else {
        return Err(ended_early(request, spent).into());
    };
    let beam = Beam {
        grid,
        width,
        stall_levels,
        limit: nodes_to_depth(request, width, bound, 6),
    };
    let (moves, expanded) = beam.repair(board, nearest, spent, request);
    let names = ["frame-weighted", "frame-weighted+reduction"];
    finish_by_reduction(board, request, moves, expanded, bound, started, names)
}

/// What the beams so far came to.
#[derive(Default)]
struct Tally {
    /// The shortest answer.
    best: Option<Solution>,
    /// The moves to the board the last stalled beam came nearest the goal.
    nearest: Option<Vec<Move>>,
    /// Nodes expanded.
    spent: u64,
}

impl Tally {
    fn add(&mut self, outcome: Result<Solution, Unfinished>) {
        match outcome {
            Ok(found) => {
                self.spent += found.stats.expanded;
                if self
                    .best
                    .as_ref()
                    .is_none_or(|kept| found.moves.len() < kept.moves.len())
                {
                    self.best = Some(found);
                }
            }
            Err(unfinished) => {
                self.spent += unfinished.stats.expanded;
                self.nearest = unfinished.nearest.or(self.nearest.take());
            }
        }
    }
}

/// A frame-weighted beam's width at `percent` of the beams' `width`.
fn attempt_width(width: usize, percent: usize) -> usize {
    (width * percent / 100).max(1)
}

/// Whether this side and width get several frame-weighted beams that
/// may run apart: 6x6 to 8x8, a beam wide enough for the frame-weighted
/// guide.
fn runs_apart(n: usize, width: usize) -> bool {
    FRAME_FIRST_SIDES.contains(&n) && n <= WIDTHS_MAX_SIDE && width >= FRAME_FIRST_MIN_WIDTH
}

/// The nodes a frame-weighted beam at `percent` of `width` may expand
/// with no node limit given (it stops one node past them).
fn beam_cap(width: usize, bound: u32, percent: usize) -> u64 {
    nodes_to_depth(&Request::default(), attempt_width(width, percent), bound, 4)
}

/// The frame-weighted beams [`beam`]`(board, request, width)` runs that
/// a host may run in other processes with [`beam_attempt`] and hand to
/// its [`beam`] in [`Request::beam_outcomes`], in the order the solve
/// takes them: beams 0 and 1 always run; 2 when both stalled, 3 when 2
/// did too. Empty when this board's beam takes none from elsewhere (a
/// side other than 6x6 to 8x8, a beam too narrow for the frame-weighted
/// guide, or a node limit below a beam's cap: each runs to its own cap,
/// so the solve takes it only when the nodes its limit leaves for it
/// cannot cut it short).
pub fn beam_schedule(
    board: &Board,
    request: &Request,
    width: usize,
) -> Result<Vec<ScheduledBeam>, SearchError> {
    let bound = frame_bound(board, request)?;
    let schedule = (0..WIDTHS_PERCENT.len())
        .filter(|&attempt| runs_elsewhere(board.size(), width, bound, attempt, request))
        .map(|attempt| ScheduledBeam {
            attempt,
            always: attempt < ALWAYS_RUN,
        })
        .collect();
    Ok(schedule)
}

/// Frame-weighted beam `attempt` of those [`beam_schedule`] lists for
/// `board`; None for a beam it does not list.
pub fn beam_attempt(
    board: &Board,
    request: &Request,
    width: usize,
    attempt: usize,
) -> Result<Option<BeamOutcome>, SearchError> {
    let bound = frame_bound(board, request)?;
    if !runs_elsewhere(board.size(), width, bound, attempt, request) {
        return Ok(None);
    }
    let grid = Grid::new(board.size(), request.goal);
    let found = frame_first_beam(
        &grid,
        &LinearConflict::new(&grid),
        board,
        &Request {
            max_nodes: None,
            ..request.clone()
        },
        attempt_width(width, WIDTHS_PERCENT[attempt]),
        bound,
        STALL_LEVELS,
    );
    Ok(Some(BeamOutcome::of(attempt, found)))
}

/// Linear conflict's bound on `board`, which the frame-weighted beams
/// without tables start from.
fn frame_bound(board: &Board, request: &Request) -> Result<u32, SearchError> {
    let grid = search_grid(board, request.goal)?;
    let linear_conflict = LinearConflict::new(&grid);
    Ok(linear_conflict.value(&linear_conflict.init(&Position::new(board))))
}

/// Whether frame-weighted beam `attempt` of a board of side `n` may run
/// elsewhere (see [`beam_schedule`]).
fn runs_elsewhere(n: usize, width: usize, bound: u32, attempt: usize, request: &Request) -> bool {
    WIDTHS_PERCENT.get(attempt).is_some_and(|&percent| {
        runs_apart(n, width)
            && request
                .max_nodes
                .is_none_or(|limit| limit >= beam_cap(width, bound, percent))
    })
}

impl BeamOutcome {
    fn of(attempt: usize, found: Result<Solution, Unfinished>) -> BeamOutcome {
        let (ending, moves, stats) = match found {
            Ok(solution) => (BeamEnding::Solved, solution.moves, solution.stats),
            Err(Unfinished {
                nearest: Some(moves),
                stats,
            }) => (BeamEnding::Stalled, moves, stats),
            Err(Unfinished {
                nearest: None,
                stats,
            }) => (BeamEnding::Ended, Vec::new(), stats),
        };
        BeamOutcome {
            attempt,
            ending,
            moves,
            expanded: stats.expanded,
            generated: stats.generated,
        }
    }

    /// The outcome as the beam's own result, when its moves replay on
    /// `board` (to the goal when it says solved).
    fn replayed(
        &self,
        board: &Board,
        goal: Goal,
        bound: u32,
    ) -> Option<Result<Solution, Unfinished>> {
        let mut reached = board.clone();
        if !self.moves.iter().all(|&mv| reached.apply(mv)) {
            return None;
        }
        let stats = Stats {
            expanded: self.expanded,
            generated: self.generated,
            iterations: 1,
            strategy: "frame-weighted",
            ..Stats::default()
        };
        match self.ending {
            BeamEnding::Solved if reached.is_goal(goal) => Some(Ok(Solution {
                moves: self.moves.clone(),
                stats,
                initial_estimate: bound,
                elapsed: std::time::Duration::ZERO,
            })),
            BeamEnding::Stalled => Some(Err(Unfinished {
                nearest: Some(self.moves.clone()),
                stats,
            })),
            BeamEnding::Ended if self.moves.is_empty() => Some(Err(Unfinished {
                nearest: None,
                stats,
            })),
            _ => None,
        }
    }
}

/// A frame-weighted beam that did not reach the goal.
struct Unfinished {
    stats: Stats,
    /// The moves to the board of least estimate (None: stopped, or no
    /// level was kept).
    nearest: Option<Vec<Move>>,
}

/// A frame-weighted beam's settings, for the repairs that follow it.
struct Beam<'a> {
    grid: &'a Grid,
    width: usize,
    stall_levels: usize,
    /// The nodes the frame-weighted beam and its repairs may expand.
    limit: u64,
}

impl Beam<'_> {
    /// Repairs from the board `moves` reach on `board`, with `expanded`
    /// nodes spent: up to [`REPAIRS`] times, a beam steered by the
    /// outermost misplaced tile (and every tile repaired before) places it,
    /// and the frame-weighted beam, keeping the repaired tiles, goes on.
    /// The moves to the goal or to the nearest board reached, and the
    /// nodes spent; the repairs end when a steered beam fails.
    fn repair(
        &self,
        board: &Board,
        mut moves: Vec<Move>,
        mut expanded: u64,
        request: &Request,
    ) -> (Vec<Move>, u64) {
        let grid = self.grid;
        let n = grid.n;
        let halt = Halt::of(request);
        let mut reached = board.clone();
        for &mv in &moves {
            reached.apply(mv);
        }
        // Tiles are repaired from the outermost ring around the blank's
        // home in: the order in which the frame-weighted beam places them.
        let blank_home = grid.home[0] as usize;
        let ring = |tile: usize| {
            let home = grid.home[tile] as usize;
            let (row, column) = (home / n, home % n);
            row.abs_diff(blank_home / n)
                .max(column.abs_diff(blank_home % n))
        };
        let mut repaired: Vec<usize> = Vec::new();
        for _ in 0..REPAIRS {
            if expanded >= self.limit {
                break;
            }
            let position = Position::new(&reached);
            let Some(misplaced) = (1..n * n)
                .filter(|&tile| position.cells[tile] != grid.home[tile])
                .max_by_key(|&tile| (ring(tile), std::cmp::Reverse(tile)))
            else {
                break;
            };
            if !repaired.contains(&misplaced) {
                repaired.push(misplaced);
            }
            let steering = beam::FrameWeighted::steering(grid, &repaired, REPAIR_WEIGHT);
            let (ending, stats) = beam::beam_until(
                grid,
                &steering,
                &position,
                self.width,
                self.limit.saturating_sub(expanded),
                halt,
                Some(self.stall_levels),
                |state, _, _| state.weighted_home(),
            );
            expanded += stats.expanded;
            let beam::Ending::Solved(placing) = ending else {
                break;
            };
            for &mv in &placing {
                reached.apply(mv);
            }
            moves.extend(placing);
            if expanded >= self.limit {
                break;
            }
            let keeping = beam::FrameWeighted::keeping(grid, &repaired, REPAIR_WEIGHT);
            let (ending, stats) = beam::beam(
                grid,
                &keeping,
                &Position::new(&reached),
                self.width,
                self.limit.saturating_sub(expanded),
                halt,
                Some(self.stall_levels),
            );
            expanded += stats.expanded;
            let (solved, onward) = match ending {
                beam::Ending::Solved(onward) => (true, onward),
                beam::Ending::Unfinished(nearest) => (false, nearest),
                beam::Ending::Ended => break,
            };
            for &mv in &onward {
                reached.apply(mv);
            }
            moves.extend(onward);
            if solved {
                break;
            }
        }
        (moves, expanded)
    }
}

/// `moves` to a board, then the reduction from it (unless it is the
/// goal), polished as one; its time counts from `started`.
fn finish_by_reduction(
    board: &Board,
    request: &Request,
    moves: Vec<Move>,
    expanded: u64,
    initial_estimate: u32,
    started: Instant,
    [guide, guide_and_reduction]: [&'static str; 2],
) -> Result<Solution, SearchError> {
    let mut reached = board.clone();
    for &mv in &moves {
        reached.apply(mv);
    }
    let stop = request.stop.as_ref();
    let (rest, strategy) = if reached.is_goal(request.goal) {
        (Vec::new(), guide)
    } else {
        // Thorough while the budget lasts; past it, hurried.
        let hurried = || solve_by_reduction_hurried(&reached, request.goal, stop, request.deadline);
        let rest = if Halt::of(request).timed_out() {
            hurried()?
        } else {
            match solve_by_reduction_until(
                &reached,
                request.goal,
                Effort::Thorough,
                stop,
                request.deadline,
            ) {
                Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) => hurried()?,
                rest => rest?,
            }
        };
        (rest, guide_and_reduction)
    };
    let moves = moves.into_iter().chain(rest).collect();
    let mut moves = smooth::polish_until(board, moves, stop.map(|s| &**s), late_for(request));
    let mut strategy = strategy;
    if Halt::of(request).timed_out() {
        // A beam cut short may have wandered far, and its path has no time
        // left to be smoothed: never longer than the reduction from the
        // start.
        let direct = solve_by_reduction_hurried(board, request.goal, stop, request.deadline)?;
        if direct.len() < moves.len() {
            (moves, strategy) = (direct, "reduction");
        }
    }
    Ok(Solution {
        moves,
        stats: Stats {
            expanded,
            iterations: 1,
            strategy,
            ..Stats::default()
        },
        initial_estimate,
        elapsed: started.elapsed(),
    })
}

/// The nodes a beam of `width` expands down to `halves` / 2 times the
/// linear conflict `bound`, or `request.max_nodes` if fewer. A
/// frame-weighted beam answers under 1.8 times the bound, so past twice
/// it the beam has lost its way; its repairs may take it to three times.
fn nodes_to_depth(request: &Request, width: usize, bound: u32, halves: u64) -> u64 {
    let depth = halves * u64::from(bound.max(1)) / 2;
    request
        .max_nodes
        .unwrap_or(u64::MAX)
        .min(depth.saturating_mul(width as u64))
}

/// The beam guided by `estimate` with the frame weighted
/// (`beam::FrameWeighted`), or how far it came when it stalled or ran
/// out; `initial_estimate` is `estimate`'s.
fn frame_first_beam<H: Heuristic>(
    grid: &Grid,
    estimate: &H,
    board: &Board,
    request: &Request,
    width: usize,
    initial_estimate: u32,
    stall_levels: usize,
) -> Result<Solution, Unfinished> {
    let started = Instant::now();
    let guide = beam::FrameWeighted::over(grid, estimate);
    let position = Position::new(board);
    let limit = nodes_to_depth(request, width, initial_estimate, 4);
    match beam::beam(
        grid,
        &guide,
        &position,
        width,
        limit,
        Halt::of(request),
        Some(stall_levels),
    ) {
        (beam::Ending::Solved(moves), mut stats) => {
            stats.strategy = guide.name();
            Ok(Solution {
                moves: smooth::polish_until(
                    board,
                    moves,
                    request.stop.as_deref(),
                    request.deadline,
                ),
                stats,
                initial_estimate,
                elapsed: started.elapsed(),
            })
        }
        (beam::Ending::Unfinished(nearest), stats) => Err(Unfinished {
            stats,
            nearest: Some(nearest),
        }),
        (beam::Ending::Ended, stats) => Err(Unfinished {
            stats,
            nearest: None,
        }),
    }
}

fn beam_with<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    board: &Board,
    request: &Request,
    width: usize,
) -> Result<Solution, SearchError> {
    let started = Instant::now();
    let position = Position::new(board);
    let initial_estimate = heuristic.bound(&heuristic.init(&position));
    let limit = request.max_nodes.unwrap_or(u64::MAX);
    let halt = Halt::of(request);
    // The nearest board is tracked, never taken to be stuck: a beam cut
    // short by the clock answers from the board nearest the goal it
    // reached, finished by the reduction, instead of from the start.
    let never_stuck = Some(usize::MAX);
    let (ending, mut stats) =
        beam::beam(grid, heuristic, &position, width, limit, halt, never_stuck);
    let moves = match ending {
        beam::Ending::Solved(moves) => moves,
        beam::Ending::Unfinished(nearest) if halt.timed_out() => {
            let names = ["beam", "beam+reduction"];
            let expanded = stats.expanded;
            return finish_by_reduction(
                board,
                request,
                nearest,
                expanded,
                initial_estimate,
                started,
                names,
            );
        }
        _ => return Err(ended_early(request, limit).into()),
    };
    stats.strategy = heuristic.name();
    Ok(Solution {
        moves: smooth::polish_until(board, moves, request.stop.as_deref(), late_for(request)),
        stats,
        initial_estimate,
        elapsed: started.elapsed(),
    })
}

/// Where the smoothing of a beam's answer gives up: [`FINISH_GRACE`] past
/// the request's deadline, so that a budget is overrun by less than 0.1 s.
fn late_for(request: &Request) -> Option<Deadline> {
    request.deadline.map(|d| d.extended(FINISH_GRACE))
}

#[cfg(test)]
mod tests;
