//! Every algorithm through the one entry: optimal lengths against BFS
//! truth and known 8-puzzle distances, limits and deadlines honoured.

use crate::testing::*;
use crate::*;
use npuzzle_board::{random_board, random_walk, Board, Goal, SplitMix64};
use proptest::prelude::*;

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
