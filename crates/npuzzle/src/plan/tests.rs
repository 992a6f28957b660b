//! What each board gets: the plan's searches, budgets and fallbacks.

use crate::plan::*;
use crate::testing::*;
use crate::*;
use npuzzle_board::random_board;
use npuzzle_board::{random_walk, SplitMix64};

/// One condition, one variant: a node limit is `Error::NodeLimit` from
/// IDA*, BFS, A* and a distributed pass alike, never `Error::Search`; and
/// no message names a command-line flag (each door adds its own remedy).
#[test]
fn each_condition_has_one_variant_and_a_message_in_library_terms() {
    isolate();
    let hard = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    for algorithm in [Algorithm::IdaStar, Algorithm::AStar, Algorithm::Bfs] {
        let solver = Solver::builder()
            .algorithm(algorithm)
            .heuristic(HeuristicKind::LinearConflict)
            .max_nodes(Some(2_000))
            .threads(1)
            .build()
            .unwrap();
        let e = solver.solve(&hard).unwrap_err();
        assert!(
            matches!(e, Error::NodeLimit { algorithm: a, limit: 2_000 } if a == algorithm),
            "{algorithm:?}: {e:?}"
        );
        assert_eq!(e.node_limit(), Some(2_000));
        assert!(!e.to_string().contains("--"), "{e}");
    }
    let solver = open_555();
    let e = solver
        .pass(&hard, &[], 80, Some(10), None)
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, Error::NodeLimit { limit: 10, .. }), "{e:?}");

    let e = Solver::builder()
        .algorithm(Algorithm::IdaStar)
        .build()
        .unwrap()
        .solve(&random_board(16, Goal::BlankLast, &mut SplitMix64::new(1)))
        .unwrap_err();
    assert!(matches!(e, Error::Search(_)), "{e:?}");
    assert!(!e.to_string().contains("--"), "{e}");
}

/// The wall-clock budget, the solver's or the run's: an optimal search
/// out of time says so (`TimeLimit`, its message naming the budget); a
/// board past optimal search answers from the beam and the reduction,
/// noting the budget; the reduction of a board with no optimal attempt
/// left answers too; a weighted search keeps its last finished stage.
#[test]
fn a_time_budget_ends_optimal_searches_and_cuts_near_optimal_ones_short() {
    use std::time::Duration;
    isolate();
    let hard = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    let tiny = Duration::from_millis(1);
    let explicit = Solver::builder()
        .heuristic(HeuristicKind::Manhattan)
        .max_time(Some(tiny))
        .threads(2)
        .build()
        .unwrap();
    let e = explicit.solve(&hard).unwrap_err();
    assert!(
        matches!(e, Error::TimeLimit { budget } if budget == tiny),
        "{e:?}"
    );
    assert!(e.to_string().contains("0.001 s"), "{e}");
    let roomy = Run {
        max_time: Some(Duration::from_secs(3600)),
        ..Run::default()
    };
    let easy = parse_board("8 1 3 4 0 2 7 6 5").unwrap();
    assert_eq!(explicit.solve_with(&easy, &roomy).unwrap().length(), 14);

    let policy = Solver::builder().threads(2).build().unwrap();
    let run = Run {
        max_time: Some(tiny),
        ..Run::default()
    };
    let big = random_board(8, Goal::BlankLast, &mut SplitMix64::new(9));
    let solution = policy.solve_with(&big, &run).unwrap();
    assert!(!solution.optimal);
    assert!(
        solution
            .note
            .as_deref()
            .unwrap()
            .contains("time budget of 0.001 s ran out"),
        "{:?}",
        solution.note
    );
    let mut reached = big.clone();
    assert!(solution.moves.iter().all(|&mv| reached.apply(mv)));
    assert!(reached.is_goal(Goal::BlankLast));

    // A budget spent elsewhere (beams in other workers) ends at once, and
    // the note names the whole budget.
    let spent = Run {
        max_time: Some(Duration::from_secs(60)),
        time_spent: Duration::from_secs(60),
        here: true,
        ..Run::default()
    };
    let solution = policy.solve_with(&big, &spent).unwrap();
    assert!(
        solution
            .note
            .as_deref()
            .unwrap()
            .contains("time budget of 60 s ran out"),
        "{:?}",
        solution.note
    );

    // 4x4 without tables: the optimal attempt gives way to the reduction.
    let fallback = policy.solve_with(&hard, &run).unwrap();
    assert_eq!(fallback.algorithm, "reduction");
    assert!(
        fallback
            .note
            .as_deref()
            .unwrap()
            .contains("time budget of 0.001 s"),
        "{:?}",
        fallback.note
    );

    let weighted = Solver::builder()
        .heuristic(HeuristicKind::LinearConflict)
        .within(2)
        .threads(1)
        .build()
        .unwrap();
    let quick = Run {
        max_time: Some(Duration::from_millis(300)),
        ..Run::default()
    };
    // Within 2 % takes far longer: a stage before it answers, or none.
    match weighted.solve_with(&hard, &quick) {
        Ok(found) => assert!(found.length() >= 80 && found.within.is_some_and(|w| w > 2)),
        Err(e) => assert!(matches!(e, Error::TimeLimit { .. }), "{e:?}"),
    }
}

/// The reduction alone is held to the budget: a board past 10x10 whose
/// budget is spent is refused with the budget named (a 127x127 reduction
/// takes seconds); up to 10x10, where it takes milliseconds, it answers.
#[test]
fn a_spent_budget_refuses_the_reduction_of_big_boards_and_answers_small_ones() {
    use std::time::Duration;
    isolate();
    let solver = Solver::builder().threads(1).build().unwrap();
    let spent = Run {
        max_time: Some(Duration::from_secs(2)),
        time_spent: Duration::from_secs(2),
        ..Run::default()
    };
    for size in [16, 127] {
        let board = random_board(size, Goal::BlankLast, &mut SplitMix64::new(5));
        let e = solver.solve_with(&board, &spent).unwrap_err();
        assert!(
            matches!(e, Error::TimeLimit { budget } if budget == Duration::from_secs(2)),
            "{size}x{size}: {e:?}"
        );
    }
    let fast = Solver::builder().threads(1).fast(true).build().unwrap();
    let board = random_board(10, Goal::BlankLast, &mut SplitMix64::new(5));
    let solution = fast.solve_with(&board, &spent).unwrap();
    assert_eq!(solution.algorithm, "reduction");
    assert!(board.solves(&solution.moves, Goal::BlankLast));
}

/// A 5x5 board far from solved (linear conflict's bound past
/// [`OPTIMAL_ATTEMPT_MAX_BOUND`]) gets no optimal attempt but the beam:
/// a solution that replays to the goal, no shorter than the bound it
/// states, and no longer than the reduction's.
#[test]
fn far_boards_without_tables_get_the_beam_and_near_ones_an_optimal_search() {
    isolate();
    let empty = tempfile::tempdir().unwrap();
    let solver = Solver::builder()
        .pdb_dir(empty.path())
        .threads(1)
        .build()
        .unwrap();
    let mut rng = SplitMix64::new(61);
    for _ in 0..2 {
        let board = npuzzle_board::random_board(5, Goal::BlankLast, &mut rng);
        assert!(solver.lower_bound(&board) > crate::policy::OPTIMAL_ATTEMPT_MAX_BOUND);
        let solution = solver.solve(&board).unwrap();
        assert_eq!(solution.algorithm, "beam", "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankLast), "{board}");
        assert!(!solution.optimal);
        let bound = solution.lower_bound.unwrap();
        assert!(bound <= solution.length() as u64 && bound >= board.manhattan(Goal::BlankLast));
        let reduced =
            npuzzle_search::solve_by_reduction_with(&board, Goal::BlankLast, Effort::Quick)
                .unwrap();
        assert!(solution.length() <= reduced.len(), "{board}");
        assert!(solution
            .note
            .as_deref()
            .unwrap()
            .contains("beam search of width"));
    }
    // Thirty moves from solved: the optimal search finishes at once.
    let near = random_walk(5, Goal::BlankLast, 30, &mut rng);
    let solution = solver.solve(&near).unwrap();
    assert!(solution.optimal, "{near}");
    assert_eq!(solution.algorithm, "idastar");
    assert!(near.solves(&solution.moves, Goal::BlankLast));
}

/// On 6x6 the beam reads the side's tables when they are there (here a
/// partition of 3-tile tables, built in a moment), and its answers match
/// the tables' own check (`certify`) and replay to the goal.
#[test]
fn a_6x6_board_is_beamed_over_its_tables() {
    let tiles: Vec<String> = (1..36u8)
        .collect::<Vec<_>>()
        .chunks(3)
        .map(|c| c.iter().map(u8::to_string).collect::<Vec<_>>().join(","))
        .collect();
    let name = tiles.join(";");
    let partition = Partition::parse(&name, 6, Goal::BlankLast).unwrap();
    let dir = build(&partition);
    let board = npuzzle_board::random_board(6, Goal::BlankLast, &mut SplitMix64::new(6));
    let solver_within = |max_nodes| {
        Solver::builder()
            .pdb_dir(dir.path())
            .partition_for(6, name.as_str())
            .max_nodes(max_nodes)
            .threads(1)
            .build()
            .unwrap()
    };
    // By default the beam over 6x6 tables is two and a half times as wide
    // as one without: the time a board has affords it.
    let solver = solver_within(None);
    let width = |over_tables| {
        solver
            .beam_request(&board, over_tables, None, &Run::default(), None)
            .unwrap()
            .width
    };
    let (wide, base) = (width(true), width(false));
    assert!(wide.abs_diff(base * 5 / 2) <= 3, "{wide} {base}");
    // The beam itself, kept short by a node limit.
    let solver = solver_within(Some(1_000_000));
    let solution = solver.solve(&board).unwrap();
    assert_eq!(solution.algorithm, "beam");
    assert_eq!(solution.heuristic, Some("pdb"));
    assert_eq!(solution.partition.as_deref(), Some(partition.name()));
    assert!(board.solves(&solution.moves, Goal::BlankLast));
    let tables = solver.tables(6).unwrap();
    let estimate = u64::from(tables.heuristic(&board).unwrap());
    assert!(solution.lower_bound.unwrap() >= estimate);
    assert!(solution.length() as u64 >= estimate);
    // The same answer from a second solver: the beam is deterministic.
    let again = solver_within(Some(1_000_000)).solve(&board).unwrap();
    assert_eq!(again.moves, solution.moves);
}

/// An answer as short as the proven lower bound is optimal, whatever
/// method found it: the reduction on a 16x16 or 127x127 board one move
/// from solved, and the beam's note never says "no bound" beside one.
#[test]
fn an_answer_as_short_as_the_bound_is_optimal_whatever_found_it() {
    let solver = Solver::builder().threads(1).build().unwrap();
    for size in [16, 127] {
        let mut tiles: Vec<u16> = (1..(size * size) as u16).collect();
        tiles.push(0);
        tiles.swap(size * size - 1, size * size - 2);
        let board = Board::new(size, tiles).unwrap();
        let solution = solver.solve(&board).unwrap();
        assert_eq!(solution.algorithm, "reduction", "{size}x{size}");
        assert_eq!(solution.length(), 1, "{size}x{size}");
        assert!(solution.optimal, "{size}x{size}: {solution:?}");
        assert_eq!(solution.lower_bound, None);
        assert_eq!(solution.note, None);
    }
    let board =
        npuzzle_board::random_board(6, Goal::BlankLast, &mut npuzzle_board::SplitMix64::new(1));
    let beam = Solver::builder()
        .threads(1)
        .max_nodes(Some(2_000_000))
        .build()
        .unwrap()
        .solve(&board)
        .unwrap();
    assert!(!beam.optimal && beam.lower_bound.is_some(), "{beam:?}");
    assert!(
        !beam.note.as_deref().unwrap_or("").contains("no bound"),
        "{beam:?}"
    );
}

/// Under a wall-clock budget the beam starts narrow and widens while time
/// is left: a 5x5 board without tables gets a beam's answer in 1 s, where
/// the full-width beam takes seconds, not the reduction from the start.
#[test]
fn a_budgeted_beam_answers_from_the_widest_beam_that_finished() {
    use std::time::Duration;
    isolate();
    let solver = Solver::builder().threads(1).build().unwrap();
    let run = Run {
        max_time: Some(Duration::from_secs(1)),
        here: true,
        ..Run::default()
    };
    let mut rng = SplitMix64::new(3);
    let (mut budgeted, mut reduced) = (0, 0);
    for _ in 0..3 {
        let board = random_board(5, Goal::BlankLast, &mut rng);
        let solution = solver.solve_with(&board, &run).unwrap();
        assert_eq!(solution.algorithm, "beam", "{board}: {:?}", solution.note);
        assert!(board.solves(&solution.moves, Goal::BlankLast), "{board}");
        budgeted += solution.length();
        reduced += npuzzle_search::solve_by_reduction(&board, Goal::BlankLast)
            .unwrap()
            .len();
    }
    assert!(budgeted < reduced, "{budgeted} moves against {reduced}");
}

/// `serve` sizes its first search by [`Solver::answers_near_optimally`],
/// which peeks at the plan without opening tables: without tables it
/// says what the plan then does, for far boards (near-optimal from 5x5
/// on) and near-solved ones (an optimal attempt up to 15x15).
#[test]
fn a_peek_at_the_plan_says_what_the_plan_does() {
    let empty = tempfile::tempdir().unwrap();
    let solver = Solver::builder().pdb_dir(empty.path()).build().unwrap();
    let mut rng = SplitMix64::new(74);
    for size in (2..=12).chain([16]) {
        let far = random_board(size, Goal::BlankLast, &mut rng);
        let near = random_walk(size, Goal::BlankLast, 3, &mut rng);
        for (board, near_optimal) in [(far, size >= 5), (near, size > MAX_SEARCH_SIZE)] {
            let peeked = solver.answers_near_optimally(&board);
            let planned = matches!(
                solver.plan(&board, None, Look::Open).unwrap(),
                Plan::Beam { .. } | Plan::Reduce { .. }
            );
            assert_eq!(peeked, planned, "{board}");
            assert_eq!(peeked, near_optimal, "{board}");
        }
    }
}
