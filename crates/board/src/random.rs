//! Seeded random boards. The generator is ours (SplitMix64) so that a seed
//! names the same boards on every platform and in every release.

use crate::board::{Board, Goal, Move};

/// Steele, Lea and Flood's SplitMix64: tiny, fast and good enough for
/// shuffling; not for cryptography.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started from `seed`: the same seed gives the same boards.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (Lemire's multiply-shift with rejection).
    pub fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0);
        loop {
            let product = (self.next_u64() as u128) * (bound as u128);
            let low = product as u64;
            if low >= bound.wrapping_neg() % bound {
                return (product >> 64) as u64;
            }
        }
    }
}

/// A board drawn uniformly from those that can reach `goal`: a uniform
/// permutation, with two tiles swapped when it has the wrong parity (the swap
/// is a bijection between the two halves, so uniformity is kept).
pub fn random_board(size: usize, goal: Goal, rng: &mut SplitMix64) -> Board {
    let mut tiles: Vec<u16> = (0..(size * size) as u16).collect();
    for i in (1..tiles.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        tiles.swap(i, j);
    }
    let mut board = Board::new(size, tiles.clone()).expect("a permutation is a board");
    if !board.is_solvable(goal) {
        let (a, b) = {
            let mut nonblank = tiles.iter().enumerate().filter(|(_, &t)| t != 0);
            (nonblank.next().unwrap().0, nonblank.next().unwrap().0)
        };
        tiles.swap(a, b);
        board = Board::new(size, tiles).expect("a permutation is a board");
    }
    board
}

/// The board reached by `steps` random moves from the goal, never undoing
/// the previous move; its distance is at most `steps`.
pub fn random_walk(size: usize, goal: Goal, steps: usize, rng: &mut SplitMix64) -> Board {
    let mut board = goal.board(size);
    let mut last: Option<Move> = None;
    for _ in 0..steps {
        let choices: Vec<Move> = board
            .legal_moves()
            .filter(|&m| Some(m.opposite()) != last)
            .collect();
        let m = choices[rng.below(choices.len() as u64) as usize];
        board.apply(m);
        last = Some(m);
    }
    board
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_boards_are_solvable_and_reproducible() {
        for goal in Goal::ALL {
            let mut a = SplitMix64::new(7);
            let mut b = SplitMix64::new(7);
            for size in 2..6 {
                let x = random_board(size, goal, &mut a);
                assert!(x.is_solvable(goal));
                assert_eq!(x, random_board(size, goal, &mut b));
            }
        }
    }

    #[test]
    fn random_boards_cover_all_solvable_2x2_boards_evenly() {
        let mut rng = SplitMix64::new(1);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..12_000 {
            *counts
                .entry(random_board(2, Goal::BlankLast, &mut rng))
                .or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 12);
        assert!(
            counts.values().all(|&c| (800..1200).contains(&c)),
            "{counts:?}"
        );
    }
}
