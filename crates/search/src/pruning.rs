//! Duplicate-move pruning (Taylor and Korf 1993): move sequences that reach
//! the same position as a shorter or equally long, earlier-ordered sequence
//! never need searching. We find such sequences up to a length by playing
//! every sequence on an unbounded board, keep for each effect the first
//! sequence in (length, move order), and forbid the others, but only where
//! the kept one touches no cell the forbidden one does not (so the kept one
//! is legal wherever the forbidden one is, edges included). An Aho-Corasick
//! automaton over the forbidden sequences then tells search, one move at a
//! time, whether the path so far ends in one.
//!
//! Among all optimal solutions, the first in (length, move order) contains
//! no forbidden sequence (replacing one would give an earlier solution), so
//! pruning keeps optimality.

use std::collections::VecDeque;
#[cfg(test)]
use std::collections::{HashMap, HashSet};

use npuzzle_board::Move;

use crate::heuristic::MoveSet;

/// An automaton state; `START` before any move.
pub type PruneState = u16;
/// The state before any move.
pub const START: PruneState = 0;
const DEAD: PruneState = PruneState::MAX;

/// The transition table: `next[state][move]`, `DEAD` where the path would
/// end in a forbidden sequence.
pub struct MovePruning {
    next: Vec<[PruneState; 4]>,
    /// `allowed[state]`: the moves out of `state` that `next` does not
    /// forbid.
    allowed: Vec<MoveSet>,
    #[cfg(test)]
    forbidden: usize,
}

/// A move's column in the transition table, 0 to 3.
pub(crate) fn index(m: Move) -> usize {
    match m {
        Move::Up => 0,
        Move::Down => 1,
        Move::Left => 2,
        Move::Right => 3,
    }
}

#[cfg(test)]
/// Blank displacement of each move (the tile moves the other way).
const BLANK_STEP: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

#[cfg(test)]
/// Plays move sequences on an unbounded board, one step at a time with undo.
struct Player {
    radius: i32,
    side: i32,
    /// The tile on each cell of a (2r+1)^2 window: the cell's own index
    /// unless moved.
    tiles: Vec<u32>,
    blank: (i32, i32),
    /// Cells the blank has been on, with multiplicity (for undo).
    visits: Vec<u32>,
}

#[cfg(test)]
impl Player {
    fn new(radius: i32) -> Player {
        let side = 2 * radius + 1;
        let mut visits = vec![0; (side * side) as usize];
        let center = (radius * side + radius) as usize;
        visits[center] = 1;
        Player {
            radius,
            side,
            tiles: (0..(side * side) as u32).collect(),
            blank: (0, 0),
            visits,
        }
    }

    fn cell(&self, (r, c): (i32, i32)) -> usize {
        ((r + self.radius) * self.side + (c + self.radius)) as usize
    }

    fn play(&mut self, m: usize) {
        let (dr, dc) = BLANK_STEP[m];
        let next = (self.blank.0 + dr, self.blank.1 + dc);
        let (a, b) = (self.cell(self.blank), self.cell(next));
        self.tiles.swap(a, b);
        self.blank = next;
        self.visits[b] += 1;
    }

    fn undo(&mut self, m: usize) {
        let (dr, dc) = BLANK_STEP[m];
        let previous = (self.blank.0 - dr, self.blank.1 - dc);
        let (a, b) = (self.cell(self.blank), self.cell(previous));
        self.visits[a] -= 1;
        self.tiles.swap(a, b);
        self.blank = previous;
    }

    /// The position reached, as the cells whose tile moved (the blank's
    /// own tile index marks where it is).
    fn effect(&self, touched: &[usize]) -> Vec<(u32, u32)> {
        let mut moved: Vec<(u32, u32)> = touched
            .iter()
            .filter(|&&c| self.tiles[c] != c as u32)
            .map(|&c| (c as u32, self.tiles[c]))
            .collect();
        moved.sort_unstable();
        moved.dedup();
        moved
    }

    fn visited(&self, touched: &[usize]) -> Vec<usize> {
        let mut cells: Vec<usize> = touched
            .iter()
            .copied()
            .filter(|&c| self.visits[c] > 0)
            .collect();
        cells.sort_unstable();
        cells.dedup();
        cells
    }
}

#[cfg(test)]
/// The forbidden sequences of up to `max_len` moves (as move indices), found
/// by playing every sequence that contains none shorter: the first sequence
/// met for an effect, breadth first in move order, is kept.
pub fn forbidden_sequences(max_len: usize) -> Vec<Vec<u8>> {
    let mut player = Player::new(max_len as i32 + 1);
    // For each effect met so far: the cells its first sequence touched.
    let mut first: HashMap<Vec<(u32, u32)>, Vec<usize>> = HashMap::new();
    let mut forbidden: Vec<Vec<u8>> = (0..4u8).map(|m| vec![m, m ^ 1]).collect();
    let mut forbidden_set: HashSet<Vec<u8>> = forbidden.iter().cloned().collect();
    // Breadth-first over lengths, so the first sequence met for an effect is
    // the first in (length, move order).
    let mut level: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..max_len {
        let mut next_level = Vec::new();
        for prefix in &level {
            for m in 0..4u8 {
                if prefix.last().is_some_and(|&last| last == m ^ 1) {
                    continue;
                }
                let mut sequence = prefix.clone();
                sequence.push(m);
                // Prefixes were checked when they were made: only the
                // suffixes are new.
                if (2..sequence.len())
                    .any(|k| forbidden_set.contains(&sequence[sequence.len() - k..]))
                {
                    continue;
                }
                let mut touched = vec![player.cell((0, 0))];
                for &step in &sequence {
                    player.play(step as usize);
                    touched.push(player.cell(player.blank));
                }
                let effect = player.effect(&touched);
                let visited = player.visited(&touched);
                for &step in sequence.iter().rev() {
                    player.undo(step as usize);
                }
                match first.get(&effect) {
                    Some(kept_cells)
                        if kept_cells.iter().all(|c| visited.binary_search(c).is_ok()) =>
                    {
                        forbidden_set.insert(sequence.clone());
                        forbidden.push(sequence);
                    }
                    Some(_) => next_level.push(sequence),
                    None => {
                        first.insert(effect, visited);
                        next_level.push(sequence);
                    }
                }
            }
        }
        level = next_level;
    }
    forbidden
}

/// The forbidden sequences of up to `STANDARD_LENGTH` moves, one per line
/// in tile notation: generating them takes seconds, so they are kept here,
/// and a test checks that the generator still gives exactly these.
const STANDARD: &str = include_str!("duplicates.txt");
#[cfg(test)]
/// The longest forbidden sequence in the standard automaton.
pub const STANDARD_LENGTH: usize = 12;

/// Move indices as letters, and back.
const LETTERS: [char; 4] = ['U', 'D', 'L', 'R'];

#[cfg(test)]
/// Sequences as lines of letters, the form of `duplicates.txt`.
pub fn format_sequences(sequences: &[Vec<u8>]) -> String {
    sequences
        .iter()
        .map(|s| s.iter().map(|&m| LETTERS[m as usize]).collect::<String>() + "\n")
        .collect()
}

impl MovePruning {
    /// The automaton for duplicate sequences of up to `STANDARD_LENGTH` moves.
    pub fn standard() -> MovePruning {
        let patterns: Vec<Vec<u8>> = STANDARD
            .lines()
            .map(|line| {
                line.chars()
                    .map(|c| LETTERS.iter().position(|&l| l == c).expect("a move letter") as u8)
                    .collect()
            })
            .collect();
        MovePruning::from_sequences(&patterns)
    }

    #[cfg(test)]
    /// The automaton for duplicate sequences of up to `max_len` moves.
    pub fn new(max_len: usize) -> MovePruning {
        MovePruning::from_sequences(&forbidden_sequences(max_len))
    }

    fn from_sequences(patterns: &[Vec<u8>]) -> MovePruning {
        // Trie.
        let mut next: Vec<[PruneState; 4]> = vec![[DEAD; 4]];
        let mut terminal = vec![false];
        for pattern in patterns {
            let mut state = 0usize;
            for &m in pattern {
                if next[state][m as usize] == DEAD {
                    next.push([DEAD; 4]);
                    terminal.push(false);
                    next[state][m as usize] = (next.len() - 1) as PruneState;
                }
                state = next[state][m as usize] as usize;
            }
            terminal[state] = true;
        }
        // Failure links, breadth first; missing edges follow them, and a
        // state whose failure chain is terminal is terminal too.
        let mut fail = vec![0usize; next.len()];
        let mut queue = VecDeque::new();
        let mut goto = next.clone();
        for m in 0..4 {
            match next[0][m] {
                DEAD => goto[0][m] = 0,
                child => {
                    fail[child as usize] = 0;
                    queue.push_back(child as usize);
                }
            }
        }
        while let Some(state) = queue.pop_front() {
            terminal[state] |= terminal[fail[state]];
            for m in 0..4 {
                match next[state][m] {
                    DEAD => goto[state][m] = goto[fail[state]][m],
                    child => {
                        fail[child as usize] = goto[fail[state]][m] as usize;
                        queue.push_back(child as usize);
                    }
                }
            }
        }
        let next: Vec<[PruneState; 4]> = goto
            .iter()
            .map(|row| row.map(|s| if terminal[s as usize] { DEAD } else { s }))
            .collect();
        let allowed = next
            .iter()
            .map(|row| {
                let bits = (0..4).filter(|&m| row[m] != DEAD).map(|m| 1 << m);
                MoveSet::from_bits(bits.sum())
            })
            .collect();
        MovePruning {
            next,
            allowed,
            #[cfg(test)]
            forbidden: patterns.len(),
        }
    }

    /// The state after `m`, or `None` when the path would end in a
    /// forbidden sequence.
    #[inline(always)]
    pub fn step(&self, state: PruneState, m: Move) -> Option<PruneState> {
        let s = self.next[state as usize][index(m)];
        (s != DEAD).then_some(s)
    }

    /// The moves out of `state` that `step` allows.
    #[inline(always)]
    pub fn moves(&self, state: PruneState) -> MoveSet {
        self.allowed[state as usize]
    }

    #[cfg(test)]
    /// The forbidden sequences the automaton knows.
    pub fn forbidden_count(&self) -> usize {
        self.forbidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_lists_what_step_allows() {
        let pruning = MovePruning::standard();
        let all = [Move::Up, Move::Down, Move::Left, Move::Right];
        for state in 0..pruning.next.len() as PruneState {
            for m in all {
                assert_eq!(
                    pruning.moves(state).contains(m),
                    pruning.step(state, m).is_some(),
                    "state {state}, {m:?}"
                );
            }
        }
        // The way back is never among the moves after a move.
        for m in all {
            let after = pruning.step(START, m).expect("a first move is allowed");
            assert!(!pruning.moves(after).contains(m.opposite()), "{m:?}");
        }
    }

    #[test]
    fn undoing_a_move_and_circling_a_square_twice_are_pruned() {
        let pruning = MovePruning::new(8);
        let run = |moves: &[Move]| {
            moves
                .iter()
                .try_fold(START, |s, &m| pruning.step(s, m))
                .is_some()
        };
        assert!(!run(&[Move::Up, Move::Down]));
        assert!(run(&[Move::Up, Move::Left, Move::Down, Move::Right]));
        // Twice round a 2x2 block is once round the other way.
        let twice = [
            Move::Up,
            Move::Left,
            Move::Down,
            Move::Right,
            Move::Up,
            Move::Left,
            Move::Down,
            Move::Right,
        ];
        assert!(!run(&twice));
        assert!(
            pruning.forbidden_count() > 4,
            "{}",
            pruning.forbidden_count()
        );
    }
}

#[cfg(test)]
mod standard {
    use super::*;

    /// The kept table is what the generator gives; with NPUZZLE_BLESS set,
    /// the test writes it instead.
    #[test]
    fn the_kept_table_is_what_the_generator_gives() {
        let generated = format_sequences(&forbidden_sequences(STANDARD_LENGTH));
        if std::env::var_os("NPUZZLE_BLESS").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/duplicates.txt");
            std::fs::write(path, &generated).unwrap();
        } else {
            assert!(
                generated == STANDARD,
                "run with NPUZZLE_BLESS=1 to regenerate src/duplicates.txt"
            );
        }
        let pruning = MovePruning::standard();
        assert_eq!(pruning.forbidden_count(), STANDARD.lines().count());
    }
}
