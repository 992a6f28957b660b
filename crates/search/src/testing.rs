//! What the crate's tests share: true distances by BFS, requests, tables
//! built in memory, and checks of incremental heuristics.

use crate::heuristic::Heuristic;
use crate::heuristic::MoveSet;
use crate::*;
use npuzzle_board::{random_board, Board, Goal, SplitMix64};
use npuzzle_pdb::testing::TestBytes;
use std::collections::HashMap;
use std::collections::VecDeque;

/// True distances of every solvable board of side `n`, by BFS from the goal.
pub(crate) fn all_distances(n: usize, goal: Goal) -> HashMap<Vec<u16>, u32> {
    let start = goal.board(n);
    let mut distance = HashMap::from([(start.tiles().to_vec(), 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(board) = queue.pop_front() {
        let d = distance[board.tiles()];
        for m in board.legal_moves().collect::<Vec<_>>() {
            let mut next = board.clone();
            next.apply(m);
            distance.entry(next.tiles().to_vec()).or_insert_with(|| {
                queue.push_back(next.clone());
                d + 1
            });
        }
    }
    distance
}

pub(crate) fn request(algorithm: Algorithm, heuristic: HeuristicKind, goal: Goal) -> Request {
    Request {
        goal,
        algorithm,
        heuristic,
        max_nodes: None,
        parallel: false,
        stop: None,
        ..Request::default()
    }
}

pub(crate) const ALL_COMBINATIONS: [(Algorithm, HeuristicKind); 7] = [
    (Algorithm::Bfs, HeuristicKind::Manhattan),
    (Algorithm::AStar, HeuristicKind::Hamming),
    (Algorithm::AStar, HeuristicKind::Manhattan),
    (Algorithm::AStar, HeuristicKind::LinearConflict),
    (Algorithm::IdaStar, HeuristicKind::Hamming),
    (Algorithm::IdaStar, HeuristicKind::Manhattan),
    (Algorithm::IdaStar, HeuristicKind::LinearConflict),
];

/// Every table of `partition`, built in memory.
pub(crate) fn built_tables(name: &str, n: usize, goal: Goal) -> Vec<npuzzle_pdb::Pdb<TestBytes>> {
    npuzzle_pdb::testing::tables(name, n, goal)
}

/// The tables of the partitions or catalogue `name`, and how many each
/// partition has.
pub(crate) fn catalogue(
    name: &str,
    size: usize,
    goal: Goal,
) -> (Vec<npuzzle_pdb::Pdb<TestBytes>>, Vec<usize>) {
    let partition = npuzzle_pdb::Partition::parse(name, size, goal).unwrap();
    (built_tables(name, size, goal), partition.groups().to_vec())
}

/// An 8-puzzle catalogue beyond the common heuristic: 15 distinct tables in
/// 5 partitions that share some.
/// Slides a random neighbour of the blank into it, as a random walk does:
/// (the tile, the cell it left, the cell it entered).
pub(crate) fn random_slide(
    grid: &Grid,
    position: &mut Position,
    rng: &mut SplitMix64,
) -> (u8, u8, u8) {
    let blank = position.blank();
    let options = grid.neighbors(blank);
    let (from, _) = options[rng.below(options.len() as u64) as usize];
    (position.slide(from), from, blank)
}

/// A random cell the blank of `position` can move to, other than
/// `parent_blank` (a walk that never steps straight back, as search does).
pub(crate) fn random_move_from(
    grid: &Grid,
    position: &Position,
    parent_blank: u8,
    rng: &mut SplitMix64,
) -> u8 {
    let options: Vec<u8> = grid
        .neighbors(position.blank())
        .iter()
        .map(|&(from, _)| from)
        .filter(|&from| from != parent_blank)
        .collect();
    options[rng.below(options.len() as u64) as usize]
}

/// Walks 1,500 moves from a random board as search does (never straight
/// back, each child prepared when entered), with limits about the estimate
/// half the time (where which sum passes first decides the cut-off value),
/// and checks move by move that `fast` gives `general`'s estimate and every
/// cut-off value, and (`same_state`) the state a fresh evaluation gives.
pub(crate) fn assert_follows_move_by_move<F: Heuristic, H: Heuristic>(
    grid: &Grid,
    (fast, general): (&F, &H),
    seed: u64,
    name: &str,
    same_state: impl Fn(&F::State, &F::State) -> bool,
) {
    let mut rng = SplitMix64::new(seed);
    let mut position = Position::new(&random_board(grid.n, grid.goal, &mut rng));
    let mut state = fast.init(&position);
    let mut general_state = general.init(&position);
    assert_eq!(fast.value(&state), general.value(&general_state), "{name}");
    let mut parent_blank = u8::MAX;
    for step in 0..1500 {
        let blank = position.blank();
        let from = random_move_from(grid, &position, parent_blank, &mut rng);
        // As search calls it: before the move is made.
        let tile = position.tiles[from as usize];
        let limit = if step % 2 == 0 {
            rng.below(40) as u32
        } else {
            (fast.value(&state) + rng.below(5) as u32).saturating_sub(2)
        };
        let mut child = state;
        let mut general_child = general_state;
        let cut = fast.update_within(&state, &position, tile, from, blank, limit, &mut child);
        position.slide(from);
        let expected = general.update_within(
            &general_state,
            &position,
            tile,
            from,
            blank,
            limit,
            &mut general_child,
        );
        assert_eq!(cut, expected, "{name} step {step} limit {limit}");
        let mut updated = fast.update(&state, &position, tile, from, blank);
        let moves = MoveSet::all_but_to(grid, position.blank(), blank);
        fast.prepare_children(&mut updated, &position, moves);
        state = updated;
        general_state = general.update(&general_state, &position, tile, from, blank);
        assert_eq!(fast.value(&state), general.value(&general_state), "{name}");
        assert!(
            same_state(&state, &fast.init(&position)),
            "{name} step {step}"
        );
        parent_blank = blank;
    }
}

pub(crate) const SHARING_CATALOGUE: [&str; 5] = [
    "1,2;3,6;4,5;7,8",
    "1,4;2,3;5,6;7,8",
    "1,2;3,4;5,8;6,7",
    "2,5;1,4;3,6;7,8",
    "z1,2;z3,6;z4,5;z7,8",
];

/// More than 8 partitions and 16 tables (32: a zero-aware table is not
/// its plain twin), the last two without some tiles and stronger than the
/// rest: the widest capacity, [`Capacity::Huge`].
pub(crate) const HUGE_CATALOGUE: &str = "z1,2;3,4;5,6;z7,8+1,3;2,4;z5,7;6,8+1,4;z2,3;5,8;6,7\
    +z1,5;2,6;3,7;z4,8+1,6;2,5;z3,8;4,7+1,7;z2,8;3,5;4,6+z1,8;2,7;3,6;z4,5+z1,2,3;z4,5,6\
    +z5,6,7,8;1,2,3";

/// The easiest boards of Korf's 100 (converted to blank-last), with their
/// optimal lengths.
pub(crate) fn some_korf_boards(count: usize) -> Vec<(u32, Board)> {
    let text = include_str!("../../../bench/korf100_goal_blank_last.txt");
    let mut boards: Vec<(u32, Board)> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let v: Vec<u16> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
            (v[1] as u32, Board::from_tiles(v[2..].to_vec()).unwrap())
        })
        .collect();
    boards.sort_by_key(|(length, _)| *length);
    boards.truncate(count);
    boards
}

/// Whether, for every pattern, the cells outside it form one region: then
/// the stored least value over the blank's regions is the distance of the
/// board's own abstract state.
pub(crate) fn one_region_per_pattern(board: &Board, partition: &npuzzle_pdb::Partition) -> bool {
    partition.patterns().iter().all(|pattern| {
        let free: Vec<usize> = (0..16)
            .filter(|&c| !pattern.tiles().contains(&(board.tiles()[c] as u8)))
            .collect();
        let mut seen = vec![free[0]];
        let mut i = 0;
        while i < seen.len() {
            let c = seen[i];
            for d in free.iter().copied() {
                let adjacent = (c / 4 == d / 4 && c.abs_diff(d) == 1) || c.abs_diff(d) == 4;
                if adjacent && !seen.contains(&d) {
                    seen.push(d);
                }
            }
            i += 1;
        }
        seen.len() == free.len()
    })
}
