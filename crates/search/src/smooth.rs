//! Shortens a solution found by construction: each stretch of a few dozen
//! moves only rearranges the tiles in the rectangle its blank visits, so an
//! IDA* over that rectangle alone, from the stretch's first position to its
//! last, finds a shorter stretch when there is one. Rectangles are small
//! and their heuristic (the tiles' grid distances to where the stretch
//! leaves them) is tight, so most stretches are settled in a few nodes.

use npuzzle_board::Move;

use crate::grid::move_between;
use crate::halt::Halt;
use crate::types::Deadline;
use std::sync::atomic::AtomicBool;

/// Passes of [`shorten`] over a solution, each while it gains.
const PASSES: usize = 3;

/// [`polish`] until `stop` is set or `deadline` passes.
pub(crate) fn polish_until(
    board: &npuzzle_board::Board,
    moves: Vec<Move>,
    stop: Option<&AtomicBool>,
    deadline: Option<Deadline>,
) -> Vec<Move> {
    polish(board, moves, Halt::new(stop, deadline.as_ref()))
}

/// `moves` solving `board`, shortened by [`shorten`] while a pass gains
/// (at most [`PASSES`]); `halt` ends it early with the moves as they are.
fn polish(board: &npuzzle_board::Board, mut moves: Vec<Move>, halt: Halt) -> Vec<Move> {
    let start: Vec<u32> = board.tiles().iter().map(|&t| t as u32).collect();
    for _ in 0..PASSES {
        let before = moves.len();
        moves = cancel_pairs(shorten(board.size(), &start, moves, halt));
        if moves.len() == before || halt.now() {
            break;
        }
    }
    moves
}

/// Drops moves undone by the next one.
pub(crate) fn cancel_pairs(moves: Vec<Move>) -> Vec<Move> {
    let mut kept: Vec<Move> = Vec::with_capacity(moves.len());
    for m in moves {
        if kept.last() == Some(&m.opposite()) {
            kept.pop();
        } else {
            kept.push(m);
        }
    }
    kept
}

/// How far a stretch's rectangle is widened around the blank's cells, so
/// that a shortcut may pass beside them.
const MARGIN: usize = 1;
/// The moves in a stretch; one starts every `WINDOW / 2` moves.
const WINDOW: usize = 28;
/// The nodes one stretch's search may expand.
const BUDGET: u64 = 10_000;

/// A board as the smoother walks it: the tile on each cell, the blank's cell.
struct Walk {
    n: usize,
    tiles: Vec<u32>,
    blank: usize,
}

impl Walk {
    fn apply(&mut self, m: Move) {
        let to = m
            .blank_target(self.n, self.blank)
            .expect("a solution's moves stay on the board");
        self.tiles.swap(self.blank, to);
        self.blank = to;
    }
}

/// One stretch as a puzzle of its own: an `h` x `w` rectangle whose tiles
/// are named by the cell they must reach.
struct Stretch {
    h: usize,
    w: usize,
    /// Start: the goal cell of the tile on each cell; `u8::MAX` for the blank.
    tiles: Vec<u8>,
    blank: usize,
    /// Row and column of each cell of the rectangle.
    row: Vec<u8>,
    column: Vec<u8>,
    path: Vec<usize>,
    nodes: u64,
    budget: u64,
}

impl Stretch {
    fn moves_from(&self, blank: usize) -> impl Iterator<Item = usize> {
        let (h, w) = (self.h, self.w);
        let (r, c) = (blank / w, blank % w);
        [
            (r > 0).then(|| blank - w),
            (r + 1 < h).then(|| blank + w),
            (c > 0).then(|| blank - 1),
            (c + 1 < w).then(|| blank + 1),
        ]
        .into_iter()
        .flatten()
    }

    fn distance(&self, cell: usize, goal: u8) -> u32 {
        let goal = goal as usize;
        (self.row[cell].abs_diff(self.row[goal]) + self.column[cell].abs_diff(self.column[goal]))
            as u32
    }

    /// Depth-first search below `bound`; true when the goal (h == 0) is
    /// reached, the blank's cells then in `path`.
    fn search(&mut self, g: u32, h: u32, bound: u32, previous: usize) -> bool {
        if h == 0 {
            return true;
        }
        if g + h > bound || self.nodes >= self.budget {
            return false;
        }
        self.nodes += 1;
        let blank = self.blank;
        let candidates: Vec<usize> = self.moves_from(blank).collect();
        for next in candidates {
            if next == previous {
                continue;
            }
            let goal = self.tiles[next];
            let child_h = h + self.distance(blank, goal) - self.distance(next, goal);
            self.tiles[blank] = goal;
            self.tiles[next] = u8::MAX;
            self.blank = next;
            self.path.push(next);
            if self.search(g + 1, child_h, bound, blank) {
                return true;
            }
            self.path.pop();
            self.blank = blank;
            self.tiles[next] = goal;
            self.tiles[blank] = u8::MAX;
        }
        false
    }
}

/// A shorter way through the stretch `moves` from `walk`'s position, within
/// `budget` nodes, as the moves that replace it.
fn shortcut(walk: &Walk, moves: &[Move], budget: u64) -> Option<Vec<Move>> {
    let n = walk.n;
    // The rectangle of the blank's cells, widened.
    let (mut r0, mut r1, mut c0, mut c1) = (n, 0, n, 0);
    let mut end = Walk {
        n,
        tiles: Vec::new(),
        blank: walk.blank,
    };
    let mut blank = walk.blank;
    let mut visited = vec![blank];
    for &m in moves {
        blank = m.blank_target(n, blank).expect("on the board");
        visited.push(blank);
    }
    for &cell in &visited {
        r0 = r0.min(cell / n);
        r1 = r1.max(cell / n);
        c0 = c0.min(cell % n);
        c1 = c1.max(cell % n);
    }
    let (r0, r1) = (r0.saturating_sub(MARGIN), (r1 + MARGIN).min(n - 1));
    let (c0, c1) = (c0.saturating_sub(MARGIN), (c1 + MARGIN).min(n - 1));
    let (h, w) = (r1 - r0 + 1, c1 - c0 + 1);
    let cells = h * w;
    if cells > u8::MAX as usize {
        return None;
    }
    let local = |cell: usize| (cell / n - r0) * w + (cell % n - c0);
    let global = |cell: usize| (r0 + cell / w) * n + c0 + cell % w;
    // Where the stretch leaves each tile of the rectangle.
    end.tiles = (0..cells).map(|c| walk.tiles[global(c)]).collect();
    let mut end_blank = local(walk.blank);
    for &m in moves {
        let to = m.blank_target(n, global(end_blank)).expect("on the board");
        let to = local(to);
        end.tiles.swap(end_blank, to);
        end_blank = to;
    }
    // Tiles are named by where the stretch leaves them.
    let mut order: Vec<(u32, u8)> = end
        .tiles
        .iter()
        .enumerate()
        .map(|(cell, &tile)| (tile, cell as u8))
        .collect();
    order.sort_unstable();
    let tiles: Vec<u8> = (0..cells)
        .map(|c| match walk.tiles[global(c)] {
            0 => u8::MAX,
            tile => {
                let i = order
                    .binary_search_by_key(&tile, |&(t, _)| t)
                    .expect("a stretch keeps its tiles in its rectangle");
                order[i].1
            }
        })
        .collect();
    let row = (0..cells).map(|c| (c / w) as u8).collect();
    let column = (0..cells).map(|c| (c % w) as u8).collect();
    let start_blank = local(walk.blank);
    let mut stretch = Stretch {
        h,
        w,
        tiles,
        blank: start_blank,
        row,
        column,
        path: Vec::new(),
        nodes: 0,
        budget,
    };
    let h0: u32 = (0..cells)
        .filter(|&c| stretch.tiles[c] != u8::MAX)
        .map(|c| stretch.distance(c, stretch.tiles[c]))
        .sum();
    let length = moves.len() as u32;
    // A different way has the same parity: two moves shorter at least.
    let mut bound = h0;
    // The blank must also end where it did.
    let blank_gap = {
        let (a, b) = (start_blank, end_blank);
        ((a / w).abs_diff(b / w) + (a % w).abs_diff(b % w)) as u32
    };
    bound = bound.max(blank_gap);
    if (length - bound) % 2 == 1 {
        bound += 1;
    }
    while bound + 2 <= length && stretch.nodes < budget {
        stretch.path.clear();
        stretch.blank = start_blank;
        if stretch.search(0, h0, bound, usize::MAX) && stretch.blank == end_blank {
            let mut moves = Vec::with_capacity(stretch.path.len());
            let mut at = global(start_blank);
            for &next in &stretch.path {
                let to = global(next);
                moves.push(move_between(n, at, to));
                at = to;
            }
            return Some(moves);
        }
        bound += 2;
    }
    None
}

/// `moves` solving the board `tiles` (side `n`), shortened stretch by
/// stretch.
/// `halt` ends it early, the rest of the moves as they were.
fn shorten(n: usize, tiles: &[u32], mut moves: Vec<Move>, halt: Halt) -> Vec<Move> {
    let (window, budget) = (WINDOW, BUDGET);
    let mut walk = Walk {
        n,
        tiles: tiles.to_vec(),
        blank: tiles.iter().position(|&t| t == 0).expect("a blank"),
    };
    let step = (window / 2).max(1);
    let mut at = 0;
    while at < moves.len() {
        if halt.now() {
            break;
        }
        let end = (at + window).min(moves.len());
        if let Some(better) = shortcut(&walk, &moves[at..end], budget) {
            moves.splice(at..end, better);
        }
        let next = (at + step).min(moves.len());
        for &m in &moves[at..next] {
            walk.apply(m);
        }
        at = next;
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::{random_board, Board, Goal, SplitMix64};

    fn tiles(board: &Board) -> Vec<u32> {
        board.tiles().iter().map(|&t| t as u32).collect()
    }

    #[test]
    fn a_detour_that_comes_back_is_cut_out() {
        let mut rng = SplitMix64::new(3);
        let board = random_board(6, Goal::BlankLast, &mut rng);
        let solution = crate::reduction::solve_by_reduction(&board, Goal::BlankLast).unwrap();
        // Three turns of the blank round a 2x2 square leave every tile where
        // it was; spliced in where the blank can make them, the solution
        // still works and is 12 moves longer.
        let mut at = board.clone();
        let mut detoured = Vec::new();
        let mut spliced = false;
        for &m in &solution {
            let blank = at.tiles().iter().position(|&t| t == 0).unwrap();
            if !spliced && blank % 6 < 5 && blank / 6 < 5 {
                let turn = [Move::Left, Move::Up, Move::Right, Move::Down];
                for _ in 0..3 {
                    detoured.extend(turn);
                }
                spliced = true;
            }
            detoured.push(m);
            at.apply(m);
        }
        assert!(spliced);
        assert!(board.solves(&detoured, Goal::BlankLast));
        let shortened = shorten(6, &tiles(&board), detoured.clone(), Halt::default());
        assert!(board.solves(&shortened, Goal::BlankLast));
        assert!(shortened.len() + 12 <= detoured.len());
    }

    #[test]
    fn shortened_solutions_still_solve_and_never_grow() {
        let mut rng = SplitMix64::new(8);
        for n in [3, 4, 7, 12] {
            for _ in 0..4 {
                let board = random_board(n, Goal::BlankLast, &mut rng);
                // A long random walk to the board and back, then a solution:
                // plenty for the smoother to cut.
                let mut moves = Vec::new();
                let mut at = board.clone();
                for _ in 0..200 {
                    let m = Move::ALL[(rng.next_u64() % 4) as usize];
                    if at.apply(m) {
                        moves.push(m);
                    }
                }
                let back: Vec<Move> = moves.iter().rev().map(|m| m.opposite()).collect();
                moves.extend(back);
                moves
                    .extend(crate::reduction::solve_by_reduction(&board, Goal::BlankLast).unwrap());
                assert!(board.solves(&moves, Goal::BlankLast));
                let shortened = shorten(n, &tiles(&board), moves.clone(), Halt::default());
                assert!(board.solves(&shortened, Goal::BlankLast), "{n}x{n} {board}");
                assert!(shortened.len() < moves.len(), "{n}x{n}: nothing cut");
            }
        }
    }
}
