use npuzzle_board::{random_board, Goal, SplitMix64};

use super::*;
use crate::reduction::solve_by_reduction;
use crate::testing::catalogue;
use crate::types::Incomplete;

/// On 6x6 to 8x8 a wide beam is frame-weighted, at two widths, and the
/// shorter answer is kept; when every beam is taken to be stuck at once,
/// repairs and the reduction answer. Every answer replays to the goal,
/// for both goals.
#[test]
fn the_frame_first_beams_and_their_fallback_answer_with_moves_that_solve() {
    let mut rng = SplitMix64::new(61);
    for (size, goal) in [(6, Goal::BlankLast), (7, Goal::BlankFirst)] {
        let board = random_board(size, goal, &mut rng);
        let request = Request {
            goal,
            max_nodes: Some(20_000_000),
            ..Request::default()
        };
        let width = 5_000.max(FRAME_FIRST_MIN_WIDTH);
        let framed = beam(&board, &request, width).unwrap();
        assert_eq!(framed.stats.strategy, "frame-weighted", "{board}");
        assert!(board.solves(&framed.moves, goal), "{board}");
        let grid = Grid::new(size, goal);
        let linear_conflict = LinearConflict::new(&grid);
        let bound = linear_conflict.value(&linear_conflict.init(&Position::new(&board)));
        let lengths: Vec<usize> = WIDTHS_PERCENT[..ALWAYS_RUN]
            .iter()
            .map(|percent| {
                let alone = frame_first_beam(
                    &grid,
                    &linear_conflict,
                    &board,
                    &request,
                    width * percent / 100,
                    bound,
                    STALL_LEVELS,
                );
                alone.map_or(usize::MAX, |found| found.moves.len())
            })
            .collect();
        assert_eq!(
            framed.moves.len(),
            *lengths.iter().min().unwrap(),
            "{lengths:?}"
        );
        let stalled = beam_stalling_after(&board, &request, width, 1).unwrap();
        assert!(
            stalled.stats.strategy.starts_with("frame-weighted"),
            "{}",
            stalled.stats.strategy
        );
        assert!(board.solves(&stalled.moves, goal), "{board}");
        assert!(stalled.stats.expanded > stalled.moves.len() as u64);
        // A narrow beam (the coach's) keeps linear conflict alone.
        let narrow = beam(&board, &request, FRAME_FIRST_MIN_WIDTH - 1).unwrap();
        assert_eq!(narrow.stats.strategy, "linear-conflict", "{board}");
        assert!(board.solves(&narrow.moves, goal), "{board}");
    }
}

/// In a pool of two threads the two frame-weighted beams that always run
/// go side by side, and the answer and the nodes are those of one thread;
/// with a node limit that could cut either short they take turns.
#[test]
fn the_first_two_beams_side_by_side_answer_as_one_thread_does() {
    let mut rng = SplitMix64::new(71);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (size, goal) in [(6, Goal::BlankLast), (8, Goal::BlankFirst)] {
        let board = random_board(size, goal, &mut rng);
        for max_nodes in [None, Some(1_500_000)] {
            let alone = Request {
                goal,
                max_nodes,
                ..Request::default()
            };
            let side_by_side = Request {
                parallel: true,
                ..alone.clone()
            };
            let width = FRAME_FIRST_MIN_WIDTH;
            let one = beam(&board, &alone, width).unwrap();
            let two = pool.install(|| beam(&board, &side_by_side, width)).unwrap();
            assert_eq!(two.stats.strategy, "frame-weighted", "{board}");
            assert_eq!(
                (one.moves.len(), one.stats.expanded),
                (two.moves.len(), two.stats.expanded),
                "{board} {max_nodes:?}"
            );
            assert_eq!(one.moves, two.moves);
            assert!(board.solves(&two.moves, goal), "{board}");
            // The same pair run apart (as two WebAssembly workers do) and
            // handed in; a forged outcome is run again, not believed.
            let outcomes: Vec<BeamOutcome> = (0..2)
                .filter_map(|attempt| beam_attempt(&board, &alone, width, attempt).unwrap())
                .collect();
            assert!(!outcomes.is_empty() || max_nodes.is_some(), "{board}");
            let mut forged = outcomes.clone();
            if let Some(last) = forged.last_mut() {
                last.ending = BeamEnding::Solved;
                last.moves.truncate(last.moves.len() / 2);
            }
            for given in [outcomes, forged] {
                let handed = Request {
                    beam_outcomes: given,
                    ..alone.clone()
                };
                let apart = beam(&board, &handed, width).unwrap();
                assert_eq!(
                    (
                        apart.moves.clone(),
                        apart.stats.expanded,
                        apart.stats.generated
                    ),
                    (one.moves.clone(), one.stats.expanded, one.stats.generated),
                    "{board} {max_nodes:?}"
                );
            }
        }
        // Narrow beams and sides without the pair run none apart.
        let narrow = Request {
            goal,
            ..Request::default()
        };
        assert_eq!(
            beam_attempt(&board, &narrow, FRAME_FIRST_MIN_WIDTH - 1, 0).unwrap(),
            None
        );
    }
    let nine = random_board(9, Goal::BlankLast, &mut rng);
    assert_eq!(
        beam_attempt(&nine, &Request::default(), 5_000, 0).unwrap(),
        None
    );
}

/// From 9x9 on, a frame-weighted beam that stalls or runs out of nodes is
/// repaired and finished by the reduction from the nearest board it
/// reached: the answer solves the board for either goal, within the node
/// limit.
#[test]
fn past_8x8_repairs_and_the_reduction_finish_a_stalled_frame_first_beam() {
    let mut rng = SplitMix64::new(67);
    for (size, goal) in [(9, Goal::BlankLast), (10, Goal::BlankFirst)] {
        let board = random_board(size, goal, &mut rng);
        let request = Request {
            goal,
            max_nodes: Some(50_000),
            ..Request::default()
        };
        for stall_levels in [1, 1_000] {
            let found =
                beam_stalling_after(&board, &request, FRAME_FIRST_MIN_WIDTH, stall_levels).unwrap();
            assert_eq!(found.stats.strategy, "frame-weighted+reduction", "{board}");
            assert!(board.solves(&found.moves, goal), "{board}");
            assert!(
                found.stats.expanded <= 50_000 + 1,
                "{}",
                found.stats.expanded
            );
            assert!(found.moves.len() as u64 >= board.manhattan(goal));
        }
        // A stop ends it without an answer.
        let stopped = Request {
            stop: Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
                true,
            ))),
            ..request
        };
        let found = beam_stalling_after(&board, &stopped, FRAME_FIRST_MIN_WIDTH, 1_000);
        assert!(
            matches!(found, Err(SearchError::Incomplete(Incomplete::Stopped))),
            "{found:?}"
        );
    }
}

/// A 10x10 board a frame-weighted beam stalled on (a few tiles far from
/// home in a long cycle, the rest placed): the repairs take it to the goal
/// in fewer moves than the reduction does, and every move is legal.
#[test]
fn repairs_take_a_stalled_board_to_the_goal_shorter_than_the_reduction() {
    let tiles: Vec<u16> = "1 2 3 4 5 6 7 8 9 10 11 0 13 14 15 16 17 23 18 20 21 24 84 19 25 26 \
        27 28 29 12 31 32 33 34 35 36 37 22 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 \
        56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 73 38 74 75 76 87 78 79 80 81 82 83 77 \
        85 86 72 88 89 30 91 92 93 94 95 96 97 98 90 99"
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let board = Board::new(10, tiles).unwrap();
    let grid = Grid::new(10, Goal::BlankLast);
    let repairs = Beam {
        grid: &grid,
        width: FRAME_FIRST_MIN_WIDTH,
        stall_levels: STALL_LEVELS,
        limit: 20_000_000,
    };
    let (moves, expanded) = repairs.repair(&board, Vec::new(), 0, &Request::default());
    assert!(expanded <= 20_000_001);
    let mut reached = board.clone();
    for &mv in &moves {
        assert!(reached.apply(mv));
    }
    assert!(reached.is_goal(Goal::BlankLast), "{reached}");
    let reduction = solve_by_reduction(&board, Goal::BlankLast).unwrap();
    assert!(
        moves.len() < reduction.len(),
        "{} moves, the reduction {}",
        moves.len(),
        reduction.len()
    );
}

/// The frame-first beams and the repairs after them together stay within
/// the node limit asked, and the reduction finishes the board.
#[test]
fn the_frame_first_beams_and_their_repairs_share_one_node_limit() {
    let board = random_board(7, Goal::BlankLast, &mut SplitMix64::new(5));
    let request = Request {
        max_nodes: Some(300_000),
        ..Request::default()
    };
    let found = beam_stalling_after(&board, &request, FRAME_FIRST_MIN_WIDTH, 1).unwrap();
    assert!(found.stats.expanded <= 300_001, "{}", found.stats.expanded);
    assert!(board.solves(&found.moves, Goal::BlankLast), "{board}");
}

/// On 7x7 a wide beam over tables weights the frame too, as linear
/// conflict's does; a narrow one (the coach's) and a 6x6 one follow the
/// tables alone. The bound stated is the tables' estimate; every answer
/// replays.
#[test]
fn tables_guide_the_frame_first_beams_on_7x7_alone_elsewhere() {
    let mut rng = SplitMix64::new(71);
    for (size, goal) in [
        (7, Goal::BlankLast),
        (7, Goal::BlankFirst),
        (6, Goal::BlankLast),
    ] {
        let board = random_board(size, goal, &mut rng);
        // Tables of three tiles each: built at once, and a fair guide.
        let cells = size * size;
        let triples: Vec<String> = (1..cells)
            .collect::<Vec<_>>()
            .chunks(3)
            .map(|tiles| {
                tiles
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let (tables, groups) = catalogue(&triples.join(";"), size, goal);
        let tables = Tables::new(&tables, &groups, None).unwrap();
        let request = Request {
            goal,
            max_nodes: Some(5_000_000),
            ..Request::default()
        };
        let wide = beam_over(&board, &request, &tables, FRAME_FIRST_MIN_WIDTH).unwrap();
        let narrow = beam_over(&board, &request, &tables, FRAME_FIRST_MIN_WIDTH - 1).unwrap();
        for found in [&wide, &narrow] {
            assert!(board.solves(&found.moves, goal), "{board}");
            assert!(found.moves.len() as u32 >= found.initial_estimate);
        }
        assert_eq!(wide.initial_estimate, narrow.initial_estimate);
        // The guide adds linear conflict to the tables; the bound stated
        // is the larger of the two, each admissible.
        struct Bound<'a>(&'a Board);
        impl WithHeuristic for Bound<'_> {
            type Output = u32;
            fn run<H: Heuristic>(self, grid: &Grid, heuristic: &H) -> u32 {
                let position = Position::new(self.0);
                let conflicts = LinearConflict::new(grid);
                let tables = heuristic.value(&heuristic.init(&position));
                tables.max(conflicts.value(&conflicts.init(&position)))
            }
        }
        let bound = with_tables(&board, goal, &tables, true, Bound(&board)).unwrap();
        assert_eq!(wide.initial_estimate, bound, "{board}");
        assert!(
            !narrow.stats.strategy.starts_with("frame"),
            "{}",
            narrow.stats.strategy
        );
        assert_eq!(
            wide.stats.strategy.starts_with("frame-weighted"),
            size == 7,
            "{size}x{size}: {}",
            wide.stats.strategy
        );
    }
}

/// When both beams of the pair stall, the next two run side by side too
/// (the fourth only counted if the third stalls), or come from elsewhere:
/// the answer and the nodes are those of one thread either way, with or
/// without a node limit.
#[test]
fn the_later_beams_side_by_side_answer_as_one_thread_does() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    // At width FRAME_FIRST_MIN_WIDTH beams 0 to 2 stall on the first and
    // 3 solves it; beams 0 and 1 stall on the second and 2 solves it.
    let boards = [
        "4 20 34 8 9 30 / 19 2 15 13 7 26 / 35 31 32 27 12 21 / 14 0 33 18 10 6 / \
         23 11 5 29 25 16 / 24 17 22 1 28 3",
        "7 33 46 10 41 44 32 / 15 5 38 47 2 39 42 / 12 25 17 19 9 43 8 / \
         34 3 4 24 40 35 26 / 0 21 22 1 48 28 6 / 18 45 13 31 14 20 27 / \
         29 23 36 11 30 37 16",
    ];
    let width = FRAME_FIRST_MIN_WIDTH;
    let figures = |s: &Solution| (s.moves.clone(), s.stats.expanded, s.stats.generated);
    for (text, solving_attempt) in boards.into_iter().zip([3, 2]) {
        let board = npuzzle_board::parse_board(text).unwrap();
        let alone = Request::default();
        let outcomes: Vec<BeamOutcome> = (0..4)
            .map(|attempt| {
                beam_attempt(&board, &alone, width, attempt)
                    .unwrap()
                    .unwrap()
            })
            .collect();
        let endings: Vec<BeamEnding> = outcomes.iter().map(|o| o.ending).collect();
        assert!(endings[..solving_attempt]
            .iter()
            .all(|&e| e == BeamEnding::Stalled));
        assert_eq!(endings[solving_attempt], BeamEnding::Solved, "{endings:?}");
        let one = beam(&board, &alone, width).unwrap();
        let spent: u64 = outcomes[..=solving_attempt]
            .iter()
            .map(|o| o.expanded)
            .sum();
        assert_eq!(
            one.stats.expanded, spent,
            "the beams after the answer not counted"
        );
        let side_by_side = Request {
            parallel: true,
            ..alone.clone()
        };
        let two = pool.install(|| beam(&board, &side_by_side, width)).unwrap();
        assert_eq!(figures(&two), figures(&one), "{board}");
        for given in [
            outcomes.clone(),
            outcomes[2..].to_vec(),
            outcomes[..3].to_vec(),
        ] {
            let handed = Request {
                beam_outcomes: given,
                ..alone.clone()
            };
            assert_eq!(
                figures(&beam(&board, &handed, width).unwrap()),
                figures(&one)
            );
        }
        assert!(board.solves(&one.moves, Goal::BlankLast));
        assert_eq!(beam_attempt(&board, &alone, width, 4).unwrap(), None);
        // A limit below a beam's cap: it is not run apart.
        let below = Request {
            max_nodes: Some(outcomes[3].expanded - 2),
            ..alone.clone()
        };
        assert_eq!(beam_attempt(&board, &below, width, 3).unwrap(), None);
        // A limit that cuts the last beam needed short: the outcome run to
        // its cap is not taken, and the answer is the one thread's.
        let before: u64 = outcomes[..solving_attempt].iter().map(|o| o.expanded).sum();
        let cut = Request {
            max_nodes: Some(before + outcomes[solving_attempt].expanded / 2),
            ..alone.clone()
        };
        let limited = beam(&board, &cut, width);
        let handed = Request {
            beam_outcomes: outcomes.clone(),
            ..cut.clone()
        };
        let on_two = Request {
            parallel: true,
            ..cut.clone()
        };
        let others = [
            beam(&board, &handed, width),
            pool.install(|| beam(&board, &on_two, width)),
        ];
        for other in others {
            match (&limited, &other) {
                (Ok(a), Ok(b)) => assert_eq!(figures(a), figures(b), "{board}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                _ => panic!("{board}: one answered, the other not"),
            }
        }
    }
}

/// A beam cut short by the clock answers from the board nearest the goal
/// it reached, finished by the reduction, or with the reduction from the
/// start where that is shorter (a beam cut early may have wandered): its
/// moves solve the board.
#[test]
fn a_beam_out_of_time_answers_from_the_board_nearest_the_goal() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..3 {
        let board = random_board(5, Goal::BlankLast, &mut rng);
        let request = Request {
            deadline: Some(crate::types::Deadline::after(
                std::time::Duration::from_millis(200),
            )),
            ..Request::default()
        };
        // Far too wide to finish in the budget on any machine.
        let found = beam(&board, &request, 1_000_000).unwrap();
        assert!(board.solves(&found.moves, Goal::BlankLast), "{board}");
        assert!(
            ["beam+reduction", "reduction"].contains(&found.stats.strategy),
            "{board}: {}",
            found.stats.strategy
        );
    }
}
