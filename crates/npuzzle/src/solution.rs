//! What a solve answers: the moves and the figures of the search that
//! found them.

use std::time::Duration;

use npuzzle_board::{Move, Notation};
use npuzzle_search::Stats;

/// A solution and the figures of the search that found it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Solution {
    /// The moves, named by the direction the tile moves ([`Notation::Tile`]).
    pub moves: Vec<Move>,
    /// Whether no shorter solution exists.
    pub optimal: bool,
    /// The search that found it: `idastar`, `astar`, `bfs`, `beam` or `reduction`.
    pub algorithm: &'static str,
    /// The estimate that guided it (`pdb`, `linear-conflict`...), if any.
    pub heuristic: Option<&'static str>,
    /// The tables' partition, for searches over tables.
    pub partition: Option<String>,
    /// Whether the reflected lookup was used, for searches over tables.
    pub reflection: Option<bool>,
    /// The search's counters (None: no search ran, as for the reduction).
    pub stats: Option<Stats>,
    /// The heuristic value of the start board.
    pub initial_estimate: Option<u32>,
    /// For solutions that are not optimal: a lower bound on the optimal length.
    pub lower_bound: Option<u64>,
    /// For solutions that are not optimal: the guarantee, in percent (at
    /// most `1 + within / 100` times optimal); None when there is none.
    pub within: Option<u32>,
    /// For solutions that are not optimal: why.
    pub note: Option<String>,
    /// Time spent on this board (opening the tables of its side, once, is
    /// not counted).
    pub elapsed: Duration,
}

impl Solution {
    /// The number of moves.
    pub fn length(&self) -> usize {
        self.moves.len()
    }

    /// The moves as letters `U D L R`, the tile's direction.
    pub fn moves_text(&self) -> String {
        Move::format_sequence(&self.moves, Notation::Tile)
    }

    /// Nodes whose children were generated (0 when no search ran).
    pub fn expanded(&self) -> u64 {
        self.stats.map_or(0, |s| s.expanded)
    }

    /// Children generated (the figure the literature reports; 0 when no
    /// search ran).
    pub fn generated(&self) -> u64 {
        self.stats.map_or(0, |s| s.generated)
    }

    /// The heuristic implementation that ran ([`Stats::strategy`]: which
    /// estimate, or which way of reading the tables), None when no search
    /// ran (the reduction, a known answer).
    pub fn strategy(&self) -> Option<&'static str> {
        self.stats
            .map(|s| s.strategy)
            .filter(|name| !name.is_empty())
    }

    /// A solution known to be optimal from an earlier search (a cache of
    /// answers), with no figures.
    pub fn known_optimal(moves: Vec<Move>) -> Solution {
        Solution::by("idastar", moves)
    }

    pub(crate) fn by(algorithm: &'static str, moves: Vec<Move>) -> Solution {
        Solution {
            moves,
            optimal: true,
            algorithm,
            heuristic: None,
            partition: None,
            reflection: None,
            stats: None,
            initial_estimate: None,
            lower_bound: None,
            within: None,
            note: None,
            elapsed: Duration::ZERO,
        }
    }
}
