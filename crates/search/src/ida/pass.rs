//! The pieces a distributed run takes: a frontier's nodes, and one pass
//! below one of them. The driver (crate `frontier`) hands them out.

use npuzzle_board::Move;

use super::dfs::{pruning, Dfs, Flow};
use super::split::{frontier, Subtree};
use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::Heuristic;
use crate::pruning::START;
use crate::types::PassFrom;

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
/// or, below a frontier node, a duplicate the pruning automaton skips)
/// has no nodes: (None, u32::MAX, 0, true, u32::MAX).
#[allow(clippy::type_complexity)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn pass_below<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    mut position: Position,
    prefix: &[Move],
    from_node: PassFrom,
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
        if from_node == PassFrom::Frontier {
            let Some(next) = pruning().step(history, m) else {
                return (None, u32::MAX, 0, true, u32::MAX);
            };
            history = next;
        }
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
