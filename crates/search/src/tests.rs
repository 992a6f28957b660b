use std::collections::HashMap;
use std::collections::VecDeque;

use npuzzle_board::{random_board, random_walk, Board, Goal, SplitMix64};
use proptest::prelude::*;

use super::*;
use crate::additive::{AdditiveError, Strategy};
use crate::heuristic::MoveSet;
use crate::heuristic::{Hamming, Heuristic, LinearConflict, Manhattan};
use npuzzle_pdb::testing::TestBytes;

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

fn request(algorithm: Algorithm, heuristic: HeuristicKind, goal: Goal) -> Request {
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

const ALL_COMBINATIONS: [(Algorithm, HeuristicKind); 7] = [
    (Algorithm::Bfs, HeuristicKind::Manhattan),
    (Algorithm::AStar, HeuristicKind::Hamming),
    (Algorithm::AStar, HeuristicKind::Manhattan),
    (Algorithm::AStar, HeuristicKind::LinearConflict),
    (Algorithm::IdaStar, HeuristicKind::Hamming),
    (Algorithm::IdaStar, HeuristicKind::Manhattan),
    (Algorithm::IdaStar, HeuristicKind::LinearConflict),
];

#[test]
fn every_heuristic_is_admissible_on_every_3x3_board() {
    for goal in Goal::ALL {
        let grid = Grid::new(3, goal);
        let (h, m, lc) = (
            Hamming::new(&grid),
            Manhattan::new(&grid),
            LinearConflict::new(&grid),
        );
        let distances = all_distances(3, goal);
        assert_eq!(distances.len(), 181_440);
        let mut lc_beats_manhattan = 0;
        for (tiles, &d) in &distances {
            let p = Position::new(&Board::from_tiles(tiles.clone()).unwrap());
            let (hv, mv, lv) = (
                h.value(&h.init(&p)),
                m.value(&m.init(&p)),
                lc.value(&lc.init(&p)),
            );
            assert!(
                hv <= d && mv <= d && lv <= d,
                "{tiles:?}: {hv} {mv} {lv} > {d}"
            );
            assert!(hv <= mv && mv <= lv);
            lc_beats_manhattan += (lv > mv) as u32;
        }
        assert!(
            lc_beats_manhattan > 50_000,
            "linear conflict adds little: {lc_beats_manhattan}"
        );
    }
}

#[test]
fn incremental_updates_match_fresh_evaluation() {
    let mut rng = SplitMix64::new(3);
    for (n, goal) in [3, 4, 5, 6, 7, 8]
        .into_iter()
        .flat_map(|n| Goal::ALL.map(|g| (n, g)))
    {
        let grid = Grid::new(n, goal);
        let lc = LinearConflict::new(&grid);
        let mut p = Position::new(&random_board(n, goal, &mut rng));
        let mut state = lc.init(&p);
        for _ in 0..2000 {
            let (tile, from, blank) = random_slide(&grid, &mut p, &mut rng);
            state = lc.update(&state, &p, tile, from, blank);
            assert_eq!(lc.value(&state), lc.value(&lc.init(&p)));
        }
    }
}

#[test]
fn all_algorithms_find_optimal_lengths_on_random_3x3_boards() {
    for goal in Goal::ALL {
        let distances = all_distances(3, goal);
        let mut rng = SplitMix64::new(11);
        for _ in 0..30 {
            let board = random_board(3, goal, &mut rng);
            let truth = distances[board.tiles()];
            for (algorithm, heuristic) in ALL_COMBINATIONS {
                let s = solve(&board, &request(algorithm, heuristic, goal)).unwrap();
                assert_eq!(
                    s.moves.len() as u32,
                    truth,
                    "{board} {algorithm:?} {heuristic:?}"
                );
                assert!(board.solves(&s.moves, goal));
            }
        }
    }
}

#[test]
fn the_hardest_8_puzzles_take_31_moves() {
    for (goal, boards) in [
        (
            Goal::BlankLast,
            [[6, 4, 7, 8, 5, 0, 3, 2, 1], [8, 6, 7, 2, 5, 4, 3, 0, 1]],
        ),
        (
            Goal::BlankFirst,
            [[8, 0, 6, 5, 4, 7, 2, 3, 1], [8, 7, 6, 0, 4, 1, 2, 5, 3]],
        ),
    ] {
        for tiles in boards {
            let board = Board::from_tiles(tiles.to_vec()).unwrap();
            for (algorithm, heuristic) in ALL_COMBINATIONS {
                let s = solve(&board, &request(algorithm, heuristic, goal)).unwrap();
                assert_eq!(s.moves.len(), 31);
                assert!(board.solves(&s.moves, goal));
            }
        }
    }
}

#[test]
fn every_2x2_board_is_solved_or_refused_correctly() {
    for goal in Goal::ALL {
        let distances = all_distances(2, goal);
        let mut rng = SplitMix64::new(5);
        for _ in 0..200 {
            let mut tiles: Vec<u16> = vec![0, 1, 2, 3];
            for i in (1..4).rev() {
                tiles.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let board = Board::from_tiles(tiles.clone()).unwrap();
            let result = solve(
                &board,
                &request(Algorithm::IdaStar, HeuristicKind::Manhattan, goal),
            );
            match distances.get(&tiles) {
                Some(&d) => assert_eq!(result.unwrap().moves.len() as u32, d),
                None => assert_eq!(
                    result.unwrap_err(),
                    SearchError::Input(InputError::Unsolvable)
                ),
            }
        }
    }
}

#[test]
fn classic_searches_refuse_past_their_node_limit() {
    let board =
        Board::from_tiles(vec![0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1]).unwrap();
    for algorithm in [Algorithm::Bfs, Algorithm::AStar] {
        let mut r = request(algorithm, HeuristicKind::Manhattan, Goal::BlankLast);
        r.max_nodes = Some(10_000);
        let err = solve(&board, &r).unwrap_err();
        assert_eq!(
            err,
            SearchError::Incomplete(Incomplete::NodeLimit {
                algorithm,
                limit: 10_000
            })
        );
        // Library terms: each door names its own option for the limit.
        assert!(err.to_string().contains("node limit"), "{err}");
        assert!(!err.to_string().contains("--"), "{err}");
    }
}

/// The limit is the whole search's, not each subtree's of the split: a
/// search that needs N nodes is refused at N / 2, plain and weighted.
#[test]
fn ida_star_refuses_at_its_node_limit_across_subtrees() {
    let board = random_board(4, Goal::BlankLast, &mut SplitMix64::new(7));
    for within in [0, 50] {
        let mut r = request(
            Algorithm::IdaStar,
            HeuristicKind::LinearConflict,
            Goal::BlankLast,
        );
        r.within = within;
        let needed = solve(&board, &r).unwrap().stats.expanded;
        assert!(needed > 5_000, "a board too easy to split: {needed} nodes");
        r.max_nodes = Some(needed / 2);
        assert_eq!(
            solve(&board, &r).unwrap_err(),
            SearchError::Incomplete(Incomplete::NodeLimit {
                algorithm: Algorithm::IdaStar,
                limit: needed / 2
            }),
            "within {within}: {needed} nodes needed"
        );
        r.max_nodes = Some(needed + 1);
        assert!(solve(&board, &r).is_ok(), "within {within}");
    }
}

/// A spent wall-clock budget ends every search that has no answer yet
/// with `TimeLimit` (A*, BFS, IDA* on one thread and split, weighted),
/// and a roomy one changes nothing.
#[test]
fn searches_end_at_their_deadline() {
    use std::time::Duration;
    // Minutes for IDA* with Manhattan; past memory for BFS.
    let board =
        Board::from_tiles(vec![0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1]).unwrap();
    let spent = Duration::from_millis(1);
    for (algorithm, within, parallel) in [
        (Algorithm::Bfs, 0, false),
        (Algorithm::AStar, 0, false),
        (Algorithm::IdaStar, 0, false),
        (Algorithm::IdaStar, 0, true),
        (Algorithm::IdaStar, 3, false),
    ] {
        let mut r = request(algorithm, HeuristicKind::Manhattan, Goal::BlankLast);
        r.within = within;
        r.parallel = parallel;
        r.deadline = Some(Deadline::after(spent));
        std::thread::sleep(Duration::from_millis(2));
        let err = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| solve(&board, &r))
            .unwrap_err();
        assert_eq!(
            err,
            SearchError::Incomplete(Incomplete::TimeLimit { budget: spent }),
            "{algorithm:?}"
        );
        // More time is the one advice that holds for every search cut
        // short, the reduction's included.
        assert!(
            err.to_string()
                .ends_with("time budget of 0.001 s; allow more time"),
            "{err}"
        );
    }
    // A budget partly spent elsewhere ends that much sooner.
    let minute = Duration::from_secs(60);
    assert!(!Deadline::partly_spent(minute, minute / 2).passed());
    assert!(Deadline::partly_spent(minute, minute).passed());
    assert_eq!(Deadline::partly_spent(minute, minute).budget(), minute);
    let easy = random_walk(4, Goal::BlankLast, 30, &mut SplitMix64::new(3));
    let mut r = request(
        Algorithm::IdaStar,
        HeuristicKind::Manhattan,
        Goal::BlankLast,
    );
    let plain = solve(&easy, &r).unwrap();
    r.deadline = Some(Deadline::after(Duration::from_secs(3600)));
    let timed = solve(&easy, &r).unwrap();
    assert_eq!((timed.moves, timed.stats), (plain.moves, plain.stats));
}

/// Out of time, the frame-first beams answer from the board nearest the
/// goal they reached, finished by the reduction: a solution that replays.
/// A beam without that fallback says `TimeLimit`.
#[test]
fn the_beam_answers_from_where_it_got_when_time_runs_out() {
    use std::time::Duration;
    let board = random_board(8, Goal::BlankLast, &mut SplitMix64::new(9));
    let mut r = Request {
        deadline: Some(Deadline::after(Duration::from_millis(1))),
        ..Request::default()
    };
    std::thread::sleep(Duration::from_millis(2));
    let found = beam(&board, &r, 5_000).unwrap();
    let mut reached = board.clone();
    assert!(found.moves.iter().all(|&mv| reached.apply(mv)));
    assert!(reached.is_goal(Goal::BlankLast));
    assert_eq!(found.stats.strategy, "frame-weighted+reduction");
    let narrow = random_board(5, Goal::BlankLast, &mut SplitMix64::new(9));
    r.deadline = Some(Deadline::after(Duration::from_millis(1)));
    std::thread::sleep(Duration::from_millis(2));
    // 5x5 gets one beam guided by linear conflict: it too answers from
    // where it got.
    let found = beam(&narrow, &r, 5_000).unwrap();
    assert!(narrow.solves(&found.moves, Goal::BlankLast));
    assert_eq!(found.stats.strategy, "beam+reduction");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A board `steps` random moves from the goal is solved in at most
    /// `steps` moves, and the solution replays to the goal.
    #[test]
    fn random_walks_are_solved_within_their_length(
        seed in any::<u64>(), steps in 0usize..40, n in 3usize..5, first in any::<bool>()
    ) {
        let goal = if first { Goal::BlankFirst } else { Goal::BlankLast };
        let board = random_walk(n, goal, steps, &mut SplitMix64::new(seed));
        let s = solve(&board, &request(Algorithm::IdaStar, HeuristicKind::LinearConflict, goal)).unwrap();
        prop_assert!(s.moves.len() <= steps);
        prop_assert_eq!(s.moves.len() % 2, steps % 2);
        prop_assert!(board.solves(&s.moves, goal));
        let m = solve(&board, &request(Algorithm::IdaStar, HeuristicKind::Manhattan, goal)).unwrap();
        prop_assert_eq!(m.moves.len(), s.moves.len());
    }
}

/// Every table of `partition`, built in memory.
fn built_tables(name: &str, n: usize, goal: Goal) -> Vec<npuzzle_pdb::Pdb<TestBytes>> {
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

/// IDA* over additive tables, with the pruning automaton, with and without
/// the reflected lookup, is optimal on every 8-puzzle board of both goals.
/// The 4-4 tables take the least over the blank's regions, so they are not
/// consistent: this catches a next bound taken from a value above the truth.
/// Zero-aware tables, alone and mixed with the others, likewise.
fn additive_ida_star_is_optimal_on_every_3x3_board(goal: Goal, name: &str) {
    let distances = all_distances(3, goal);
    let request = request(Algorithm::IdaStar, HeuristicKind::Pdb, goal);
    let tables = built_tables(name, 3, goal);
    for reflect in [false, true] {
        for (tiles, &d) in &distances {
            let board = Board::from_tiles(tiles.clone()).unwrap();
            let request = Request {
                reflect,
                ..request.clone()
            };
            let s = solve_additive(&board, &request, &tables).unwrap();
            assert_eq!(s.moves.len() as u32, d, "{name} {board} reflect {reflect}");
            assert!(board.solves(&s.moves, goal));
        }
    }
}

// One test per goal and table set: the six run side by side.
#[test]
fn additive_ida_star_4_4_is_optimal_on_every_3x3_board_blank_last() {
    additive_ida_star_is_optimal_on_every_3x3_board(Goal::BlankLast, "4-4");
}
#[test]
fn additive_ida_star_4_4_is_optimal_on_every_3x3_board_blank_first() {
    additive_ida_star_is_optimal_on_every_3x3_board(Goal::BlankFirst, "4-4");
}
#[test]
fn additive_ida_star_4z_4z_is_optimal_on_every_3x3_board_blank_last() {
    additive_ida_star_is_optimal_on_every_3x3_board(Goal::BlankLast, "4z-4z");
}
#[test]
fn additive_ida_star_4z_4z_is_optimal_on_every_3x3_board_blank_first() {
    additive_ida_star_is_optimal_on_every_3x3_board(Goal::BlankFirst, "4z-4z");
}
#[test]
fn additive_ida_star_4_4z_is_optimal_on_every_3x3_board_blank_last() {
    additive_ida_star_is_optimal_on_every_3x3_board(Goal::BlankLast, "4-4z");
}
#[test]
fn additive_ida_star_4_4z_is_optimal_on_every_3x3_board_blank_first() {
    additive_ida_star_is_optimal_on_every_3x3_board(Goal::BlankFirst, "4-4z");
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

/// `SHARING_CATALOGUE` and `HUGE_CATALOGUE` are solved by the large and
/// the huge heuristic, optimally, on 3,000 8-puzzle boards each against
/// their BFS distances.
#[test]
fn large_catalogues_are_optimal_on_3x3_boards() {
    let goal = Goal::BlankLast;
    let distances = all_distances(3, goal);
    for (parts, capacity) in [
        (SHARING_CATALOGUE.join("+"), Capacity::Large),
        (HUGE_CATALOGUE.to_string(), Capacity::Huge),
    ] {
        let catalogue = npuzzle_pdb::Partition::parse(&parts, 3, goal).unwrap();
        let tables = built_tables(&parts, 3, goal);
        assert_eq!(
            Capacity::for_tables(&tables, catalogue.groups()),
            Ok(capacity)
        );
        let request = request(Algorithm::IdaStar, HeuristicKind::Pdb, goal);
        for (tiles, &d) in distances.iter().step_by(60) {
            let board = Board::from_tiles(tiles.clone()).unwrap();
            let tables = Catalogue::new(&tables, catalogue.groups(), None).unwrap();
            let s = solve_catalogue(&board, &request, &tables).unwrap();
            assert_eq!(s.moves.len() as u32, d, "{board}");
            assert!(board.solves(&s.moves, goal));
        }
    }
}

/// The solver takes the smallest heuristic that holds the tables (its state
/// is copied at every node); every capacity searches the same nodes and
/// finds optimal solutions, and a set too large for one is passed on.
#[test]
fn every_heuristic_capacity_searches_the_same_nodes() {
    use crate::additive::{Additive, AdditiveError, Compact, Large, Pair};
    let goal = Goal::BlankFirst;
    let grid = Grid::new(3, goal);
    let tables = built_tables("4-4", 3, goal);
    let request = request(Algorithm::IdaStar, HeuristicKind::Pdb, goal);
    let pair = Pair::with_capacity(&grid, &tables, &[2], true).unwrap();
    let pair_catalogue = Catalogue::new(&tables, &[2], None).unwrap();
    let compact = Compact::with_capacity(&grid, &tables, &[2], true).unwrap();
    let common = Additive::new(&grid, &tables, true).unwrap();
    let large = Large::with_capacity(&grid, &tables, &[2], true).unwrap();
    let distances = all_distances(3, goal);
    for (tiles, &d) in distances.iter().step_by(500) {
        let board = Board::from_tiles(tiles.clone()).unwrap();
        let solved = [
            solve_with(&grid, &pair, &board, &request),
            solve_with(&grid, &compact, &board, &request),
            solve_with(&grid, &common, &board, &request),
            solve_with(&grid, &large, &board, &request),
            solve_catalogue(&board, &request, &pair_catalogue),
        ]
        .map(|s| {
            let s = s.unwrap();
            assert_eq!(s.moves.len() as u32, d, "{board}");
            assert!(board.solves(&s.moves, goal), "{board}");
            s.stats.expanded
        });
        assert!(
            solved.iter().all(|&e| e == solved[0]),
            "{board}: {solved:?}"
        );
    }
    let three = built_tables("1,2,3;4,5,6;7,8", 3, goal);
    assert!(matches!(
        Pair::with_capacity(&grid, &three, &[3], true).err(),
        Some(AdditiveError::TooManyPatterns { count: 3, most: 2 })
    ));
    assert!(Compact::with_capacity(&grid, &three, &[3], true).is_ok());
}

/// Zero-aware values are exact abstract distances: on every 8-puzzle board
/// (both goals) the sum of the 4z-4z tables is 0 at the goal only, never
/// above the true distance, never below the 4-4 sum, and every move changes
/// it by exactly one (consistency, which the 4-4 tables lack); so does the
/// maximum with the reflected sum (both have the parity of the Manhattan
/// distance).
#[test]
fn zero_aware_sums_are_admissible_and_consistent_on_every_3x3_board() {
    use crate::additive::Additive;
    use crate::grid::Position;
    use crate::heuristic::Heuristic;
    for goal in Goal::ALL {
        let grid = Grid::new(3, goal);
        let zero_aware = built_tables("4z-4z", 3, goal);
        let plain = built_tables("4-4", 3, goal);
        let sums = |tables, reflect| Additive::new(&grid, tables, reflect).unwrap();
        let (z, z_max, p) = (
            sums(&zero_aware, false),
            sums(&zero_aware, true),
            sums(&plain, false),
        );
        let h =
            |a: &Additive<'_, TestBytes>, board: &Board| a.value(&a.init(&Position::new(board)));
        let mut above_plain = 0;
        for (tiles, &d) in &all_distances(3, goal) {
            let board = Board::from_tiles(tiles.clone()).unwrap();
            let (hz, hz_max, hp) = (h(&z, &board), h(&z_max, &board), h(&p, &board));
            assert!(hz <= hz_max && hz_max <= d, "{board}: {hz} {hz_max} > {d}");
            assert!(hz >= hp, "{board}: zero-aware {hz} below {hp}");
            assert_eq!(hz == 0, d == 0, "{board}");
            above_plain += (hz > hp) as u32;
            for m in board.legal_moves().collect::<Vec<_>>() {
                let mut child = board.clone();
                child.apply(m);
                let step = h(&z, &child) as i32 - hz as i32;
                assert!(step.abs() == 1, "{board} -> {child}: {step}");
                let step_max = h(&z_max, &child) as i32 - hz_max as i32;
                assert!(step_max.abs() == 1, "{board} -> {child}: {step_max}");
            }
        }
        // The tables do see the blank: some boards gain over 4-4.
        assert!(above_plain > 1000, "{above_plain}");
    }
}

/// 10,000 4x4 boards from random walks: 6-6-3 with reflection and 5-5-5
/// without give the same lengths, never longer than the walk.
#[test]
fn additive_partitions_agree_on_random_4x4_boards() {
    let goal = Goal::BlankLast;
    let strong = built_tables("6-6-3", 4, goal);
    let weak = built_tables("5-5-5", 4, goal);
    let request = request(Algorithm::IdaStar, HeuristicKind::Pdb, goal);
    let mut rng = SplitMix64::new(29);
    for _ in 0..10_000 {
        let steps = 20 + rng.below(41) as usize;
        let board = random_walk(4, goal, steps, &mut rng);
        let a = solve_additive(&board, &request, &strong).unwrap();
        let unreflected = Request {
            reflect: false,
            ..request.clone()
        };
        let b = solve_additive(&board, &unreflected, &weak).unwrap();
        assert_eq!(a.moves.len(), b.moves.len(), "{board}");
        assert!(a.moves.len() <= steps && board.solves(&a.moves, goal));
    }
}

#[test]
fn additive_tables_are_checked_before_use() {
    use crate::additive::{Additive, AdditiveError};
    let goal = Goal::BlankLast;
    let grid = Grid::new(3, goal);
    let overlapping: Vec<_> = [vec![1, 2, 3], vec![3, 4, 5]]
        .into_iter()
        .map(|tiles| {
            let pattern = npuzzle_pdb::Pattern::new(3, goal, tiles).unwrap();
            npuzzle_pdb::testing::table(&pattern)
        })
        .collect();
    assert_eq!(
        Additive::new(&grid, &overlapping, true).err(),
        Some(AdditiveError::Overlap { tile: 3 })
    );
    let other_goal = built_tables("4-4", 3, Goal::BlankFirst);
    assert!(matches!(
        Additive::new(&grid, &other_goal, true).err(),
        Some(AdditiveError::WrongPuzzle { .. })
    ));
    let board = Board::from_tiles(vec![1, 2, 3, 4, 5, 6, 7, 0, 8]).unwrap();
    let err = solve_additive(
        &board,
        &request(Algorithm::IdaStar, HeuristicKind::Pdb, Goal::BlankFirst),
        &built_tables("1,2;3,4", 4, Goal::BlankFirst),
    );
    assert!(
        matches!(err, Err(SearchError::Input(InputError::Tables(_)))),
        "{err:?}"
    );
}

/// The easiest boards of Korf's 100 (converted to blank-last), with their
/// optimal lengths.
fn some_korf_boards(count: usize) -> Vec<(u32, Board)> {
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
fn one_region_per_pattern(board: &Board, partition: &npuzzle_pdb::Partition) -> bool {
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

/// The additive heuristic is admissible: never above the true length, for
/// the board and its reflection. It is consistent (changes by at most one
/// per move) wherever a table's value is the distance of the board's own
/// abstract state, that is when the free cells of every pattern are
/// connected; where a pattern splits them into pockets, the stored least
/// value over the pockets may jump by more than one (see docs/pdb-format.md).
#[test]
fn the_additive_heuristic_is_admissible_and_consistent_where_defined() {
    for name in ["6-6-3", "5-5-5"] {
        let partition = npuzzle_pdb::Partition::parse(name, 4, Goal::BlankLast).unwrap();
        let pdbs = npuzzle_pdb::testing::tables(partition.name(), 4, Goal::BlankLast);
        let value = |board: &Board| -> (u32, u32) {
            let sum: u32 = pdbs.iter().map(|p| p.lookup(board).unwrap()).sum();
            let mirrored = board.transposed(Goal::BlankLast);
            let mirror: u32 = pdbs.iter().map(|p| p.lookup(&mirrored).unwrap()).sum();
            (sum, mirror)
        };
        for (length, board) in some_korf_boards(100) {
            let (sum, mirror) = value(&board);
            assert!(
                sum <= length && mirror <= length,
                "{board}: {sum} {mirror} > {length}"
            );
            assert!(sum >= board.manhattan(Goal::BlankLast) as u32);
        }
        let mut rng = SplitMix64::new(99);
        let mut compared = 0;
        for _ in 0..20_000 {
            let board = random_board(4, Goal::BlankLast, &mut rng);
            if !one_region_per_pattern(&board, &partition) {
                continue;
            }
            let (sum, _) = value(&board);
            for m in board.legal_moves().collect::<Vec<_>>() {
                let mut next = board.clone();
                next.apply(m);
                if one_region_per_pattern(&next, &partition) {
                    let (s, _) = value(&next);
                    assert!(sum.abs_diff(s) <= 1, "{board} -> {next}: {sum} -> {s}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 1000, "only {compared} pairs compared");
    }
    // Zero-aware tables hold the distance of the board's own abstract state
    // everywhere: admissible, and every move changes the sum by exactly one.
    let partition = npuzzle_pdb::Partition::parse("6z-6z-3z", 4, Goal::BlankLast).unwrap();
    let pdbs = npuzzle_pdb::testing::tables(partition.name(), 4, Goal::BlankLast);
    let sum = |board: &Board| -> u32 { pdbs.iter().map(|p| p.lookup(board).unwrap()).sum() };
    for (length, board) in some_korf_boards(100) {
        assert!(sum(&board) <= length, "{board}");
        assert!(sum(&board.transposed(Goal::BlankLast)) <= length, "{board}");
    }
    let mut rng = SplitMix64::new(98);
    for _ in 0..5_000 {
        let board = random_board(4, Goal::BlankLast, &mut rng);
        let here = sum(&board);
        for m in board.legal_moves().collect::<Vec<_>>() {
            let mut next = board.clone();
            next.apply(m);
            assert_eq!(here.abs_diff(sum(&next)), 1, "{board} -> {next}");
        }
    }
}

/// The search over tables agrees with linear-conflict IDA* on boards a
/// moderate number of random moves from the goal.
#[test]
fn pdb_search_agrees_with_linear_conflict_search() {
    let partition = npuzzle_pdb::Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap();
    let pdbs = npuzzle_pdb::testing::tables(partition.name(), 4, Goal::BlankLast);
    let mut rng = SplitMix64::new(7);
    for i in 0..40 {
        let board = random_walk(4, Goal::BlankLast, 30 + i, &mut rng);
        let request = Request {
            goal: Goal::BlankLast,
            algorithm: Algorithm::IdaStar,
            heuristic: HeuristicKind::LinearConflict,
            max_nodes: None,
            parallel: false,
            stop: None,
            ..Request::default()
        };
        let truth = solve(&board, &request).unwrap();
        for reflect in [false, true] {
            let request = Request {
                reflect,
                ..request.clone()
            };
            let s = solve_additive(&board, &request, &pdbs).unwrap();
            assert_eq!(s.moves.len(), truth.moves.len(), "{board}");
            assert!(board.solves(&s.moves, Goal::BlankLast));
        }
    }
}

/// Weighted search keeps its promise on 3x3 boards against breadth-first
/// truth: at most `1 + within / 100` times optimal, for every search that
/// takes a weight (a sample of every board, both goals, split and not),
/// and often longer than optimal (so the weight is really applied).
#[test]
fn weighted_search_stays_within_its_bound_of_optimal() {
    for goal in Goal::ALL {
        let distances = all_distances(3, goal);
        let mut longer = 0;
        for within in [10, 50, 200] {
            for (index, (tiles, &d)) in distances.iter().enumerate() {
                if index % 97 != 0 {
                    continue;
                }
                let board = Board::new(3, tiles.clone()).unwrap();
                for (algorithm, heuristic, parallel) in [
                    (Algorithm::IdaStar, HeuristicKind::LinearConflict, false),
                    (Algorithm::IdaStar, HeuristicKind::Manhattan, true),
                    (Algorithm::AStar, HeuristicKind::Manhattan, false),
                ] {
                    let request = Request {
                        within,
                        parallel,
                        ..request(algorithm, heuristic, goal)
                    };
                    let solution = solve(&board, &request).unwrap();
                    let length = solution.moves.len() as u64;
                    assert!(board.solves(&solution.moves, goal), "{board}");
                    assert!(
                        length * 100 <= u64::from(d) * u64::from(100 + within),
                        "{board}: {length} moves, optimal {d}, within {within}%, {algorithm:?} {heuristic:?} {parallel}"
                    );
                    longer += usize::from(length > u64::from(d));
                }
            }
        }
        assert!(longer > 100, "only {longer} answers longer than optimal");
    }
}

/// The reduction keeps lines already in place, and hands near-solved
/// boards to search: a board d random moves from solved gets at most d
/// moves for small d, and a solved board none, at every size.
#[test]
fn the_reduction_answers_near_solved_boards_briefly() {
    let mut rng = SplitMix64::new(33);
    for n in [4, 7, 12, 40] {
        for goal in Goal::ALL {
            assert!(solve_by_reduction(&goal.board(n), goal).unwrap().is_empty());
            for d in [1, 5, 10, 30] {
                let board = random_walk(n, goal, d, &mut rng);
                let moves = solve_by_reduction(&board, goal).unwrap();
                assert!(board.solves(&moves, goal), "{board}");
                let most = if d <= 10 { d } else { 2 * d };
                assert!(
                    moves.len() <= most,
                    "{n}x{n} {d} moves off: {}",
                    moves.len()
                );
            }
        }
    }
}

/// Sets of every shape a strategy is written for: plain and zero-aware
/// tables, alone and mixed, one to four tables to a partition, in one
/// partition or a catalogue (tables shared, mirror images of each other),
/// tiles in no table, on each board size up to 5x5.
const AGREEMENT_SETS: [(usize, &str); 20] = [
    (2, "1;2,3"),
    (2, "z1;2,3"),
    (2, "z1;2,3+1,2;z3"),
    (3, "4-4"),
    (3, "4z-4"),
    (3, "1,2,3;5,6,7"),
    (3, "z1,2,3;5,6,7"),
    (3, "1,2,3;z4,5;6,7;z8"),
    (3, "z1,2,3,4+5,6,7,8"),
    (3, "z1,2,3,4;5,6,7,8+1,4,7,5;z2,3,6,8+z1,2;3,6,7"),
    (3, "4z-4+4-4+z1,4,7,5;2,3,6,8+z1,2,3,4,5,6;7,8"),
    (3, "z1,2,4,5;3,6,7,8+z1,3,4,8;2,5,6,7"),
    (3, "z1,2,4;3,5,6,7,8+z3,4,6;1,2,5,7,8"),
    (3, "1,2;3,6;4,5;7,8+z1,2;z3,6;z4,5;z7,8+1,4;2,3;5,6;7,8"),
    (4, "1,2,5,6,9;3,4,7,8,12"),
    (4, "z1,2,5,6,9;3,4,7,8,12"),
    (4, "1,2,3,4,5;z10,11,14,15,12"),
    (4, "z1,2,5,6,9;3,4,7,8,12+z1,2,3,4;z5,6,7,8"),
    (
        4,
        "z1,2,5,6;z3,4,7,8;z9,10,13,14;z11,12,15+z1,2,3,4;z5,6,7,8;z9,10,13,14",
    ),
    (5, "z1,2,3;z4,5,6;z7,8,9;z10,11,12"),
];

/// Every strategy that takes a set, forced through [`Catalogue::new`],
/// expands and generates the same nodes as the general one and finds the
/// same moves, which solve the board, for both goals, with and without the
/// reflected lookup; one that does not take a set says so by name. Each
/// strategy takes some set, and `choose` picks the first that takes it.
#[test]
fn every_strategy_that_takes_a_set_searches_the_general_nodes() {
    let mut taken = HashMap::new();
    for (size, name) in AGREEMENT_SETS
        .into_iter()
        .chain([(3, HUGE_CATALOGUE), (3, &*SHARING_CATALOGUE.join("+"))])
    {
        for goal in Goal::ALL {
            let (pdbs, groups) = catalogue(name, size, goal);
            let chosen = choose(&pdbs, &groups).unwrap();
            let mut rng = SplitMix64::new(11);
            let boards: Vec<Board> = (0..if size >= 4 { 3 } else { 6 })
                .map(|_| match size {
                    2 | 3 => random_board(size, goal, &mut rng),
                    _ => random_walk(size, goal, 30, &mut rng),
                })
                .collect();
            for reflect in [false, true] {
                for board in &boards {
                    let run = |strategy| {
                        let request = Request {
                            goal,
                            heuristic: HeuristicKind::Pdb,
                            reflect,
                            ..Request::default()
                        };
                        let forced = Catalogue::new(&pdbs, &groups, Some(strategy))
                            .map_err(|e| SearchError::Input(InputError::Tables(e)))?;
                        assert_eq!(forced.strategy(), strategy);
                        solve_catalogue(board, &request, &forced)
                    };
                    let general = run(Strategy::General).unwrap();
                    assert!(board.solves(&general.moves, goal));
                    let mut first_taking = None;
                    for strategy in Strategy::ALL {
                        let found = match run(strategy) {
                            Err(SearchError::Input(InputError::Tables(
                                AdditiveError::NotTaken { strategy: s },
                            ))) => {
                                assert_eq!(s, strategy.name());
                                continue;
                            }
                            found => found.unwrap(),
                        };
                        first_taking.get_or_insert(strategy);
                        *taken.entry(strategy).or_insert(0) += 1;
                        let what = format!("{name} {goal} {strategy} reflect {reflect}: {board}");
                        assert_eq!(found.stats.strategy, strategy.name(), "{what}");
                        assert_eq!(found.moves, general.moves, "{what}");
                        assert_eq!(found.initial_estimate, general.initial_estimate, "{what}");
                        let counts = |s: &Stats| (s.expanded, s.generated, s.iterations);
                        assert_eq!(counts(&found.stats), counts(&general.stats), "{what}");
                    }
                    assert_eq!(first_taking, Some(chosen), "{name} {goal}");
                }
            }
        }
    }
    for strategy in Strategy::ALL {
        assert!(taken.contains_key(&strategy), "{strategy} took no set");
    }
}

/// The named sets get the strategies written for them; boards past 5x5
/// the general one.
#[test]
fn choose_names_the_strategy_for_each_usual_set() {
    for (size, name, expected) in [
        (3, "4-4", Strategy::PreparedRanks),
        (3, "4z-4", Strategy::UnrolledPartitions),
        (4, "6-6-3", Strategy::KeptIndexes),
        (5, "z1,2,3;z4,5,6;z7,8,9;z10,11,12", Strategy::KeptIndexes),
        (6, "1,2", Strategy::General),
    ] {
        let (pdbs, groups) = catalogue(name, size, Goal::BlankLast);
        assert_eq!(choose(&pdbs, &groups), Ok(expected), "{name}");
        let catalogue = Catalogue::new(&pdbs, &groups, None).unwrap();
        assert_eq!(catalogue.strategy(), expected, "{name}");
    }
}
