//! Breadth-first search and A*, as the classic solvers do them: every
//! visited board is kept in memory, which is why they run out of it on hard
//! 4x4 boards. They are here for comparison and refuse to go past a node limit.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use npuzzle_board::Move;

use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::Heuristic;
use crate::types::Stats;

/// A visited board: how it was reached.
struct Node {
    parent: u32,
    mv: Option<Move>,
    g: u32,
}

/// The tiles of a position, as a hash key.
fn key(position: &Position, cells: usize) -> Box<[u8]> {
    position.tiles[..cells].into()
}

fn position_of(key: &[u8]) -> Position {
    let mut position = Position {
        tiles: [0; 256],
        cells: [0; 256],
    };
    for (cell, &tile) in key.iter().enumerate() {
        position.tiles[cell] = tile;
        position.cells[tile as usize] = cell as u8;
    }
    position
}

fn path_to(nodes: &[Node], mut index: u32) -> Vec<Move> {
    let mut moves = Vec::new();
    while let Some(mv) = nodes[index as usize].mv {
        moves.push(mv);
        index = nodes[index as usize].parent;
    }
    moves.reverse();
    moves
}

/// Children of `key`: (child key, move).
fn children(grid: &Grid, key: &[u8]) -> Vec<(Box<[u8]>, Move)> {
    let mut position = position_of(key);
    let blank = position.blank();
    grid.neighbors(blank)
        .iter()
        .map(|&(from, mv)| {
            position.slide(from);
            let child = self::key(&position, grid.cells());
            position.slide(blank);
            (child, mv)
        })
        .collect()
}

/// Breadth-first search; `None` when more than `node_limit` boards were
/// seen, or when stopped.
pub(crate) fn bfs(
    grid: &Grid,
    start: Position,
    node_limit: u64,
    halt: Halt<'_>,
) -> Option<(Vec<Move>, Stats)> {
    let cells = grid.cells();
    let mut stats = Stats {
        iterations: 1,
        ..Stats::default()
    };
    if start.is_goal(grid) {
        return Some((Vec::new(), stats));
    }
    let mut nodes = vec![Node {
        parent: 0,
        mv: None,
        g: 0,
    }];
    let mut keys: Vec<Box<[u8]>> = vec![key(&start, cells)];
    let mut seen: HashMap<Box<[u8]>, u32> = HashMap::from([(keys[0].clone(), 0)]);
    let mut queue = VecDeque::from([0u32]);
    while let Some(index) = queue.pop_front() {
        stats.expanded += 1;
        if halt.now_at(stats.expanded) {
            return None;
        }
        for (child, mv) in children(grid, &keys[index as usize]) {
            stats.generated += 1;
            if let Entry::Vacant(slot) = seen.entry(child.clone()) {
                if nodes.len() as u64 >= node_limit {
                    return None;
                }
                let child_index = nodes.len() as u32;
                slot.insert(child_index);
                nodes.push(Node {
                    parent: index,
                    mv: Some(mv),
                    g: nodes[index as usize].g + 1,
                });
                if position_of(&child).is_goal(grid) {
                    return Some((path_to(&nodes, child_index), stats));
                }
                keys.push(child);
                queue.push_back(child_index);
            }
        }
    }
    unreachable!("a solvable board always reaches the goal")
}

/// A* with re-opening, so that an inconsistent but admissible heuristic still
/// gives optimal answers; `None` when more than `node_limit` boards were seen.
pub(crate) fn astar<H: Heuristic>(
    grid: &Grid,
    heuristic: &H,
    start: Position,
    node_limit: u64,
    halt: Halt<'_>,
) -> Option<(Vec<Move>, Stats)> {
    let cells = grid.cells();
    let mut stats = Stats {
        iterations: 1,
        ..Stats::default()
    };
    let h0 = heuristic.value(&heuristic.init(&start));
    let mut nodes = vec![Node {
        parent: 0,
        mv: None,
        g: 0,
    }];
    let mut keys: Vec<Box<[u8]>> = vec![key(&start, cells)];
    let mut index_of: HashMap<Box<[u8]>, u32> = HashMap::from([(keys[0].clone(), 0)]);
    // Ties on f go to the deeper node: it is closer to a goal.
    let mut open = BinaryHeap::from([(Reverse(h0), 0u32, 0u32)]);
    while let Some((Reverse(_), g, index)) = open.pop() {
        if g > nodes[index as usize].g {
            continue; // a stale entry: a shorter way here was found since
        }
        let position = position_of(&keys[index as usize]);
        if position.is_goal(grid) {
            return Some((path_to(&nodes, index), stats));
        }
        stats.expanded += 1;
        if halt.now_at(stats.expanded) {
            return None;
        }
        for (child, mv) in children(grid, &keys[index as usize]) {
            stats.generated += 1;
            let child_g = g + 1;
            let child_index = match index_of.entry(child.clone()) {
                Entry::Occupied(slot) => {
                    let i = *slot.get();
                    if nodes[i as usize].g <= child_g {
                        continue;
                    }
                    nodes[i as usize] = Node {
                        parent: index,
                        mv: Some(mv),
                        g: child_g,
                    };
                    i
                }
                Entry::Vacant(slot) => {
                    if nodes.len() as u64 >= node_limit {
                        return None;
                    }
                    let i = nodes.len() as u32;
                    slot.insert(i);
                    nodes.push(Node {
                        parent: index,
                        mv: Some(mv),
                        g: child_g,
                    });
                    keys.push(child.clone());
                    i
                }
            };
            let h = heuristic.value(&heuristic.init(&position_of(&child)));
            open.push((Reverse(child_g + h), child_g, child_index));
        }
    }
    unreachable!("a solvable board always reaches the goal")
}
