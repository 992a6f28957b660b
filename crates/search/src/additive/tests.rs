//! The additive tables under every strategy: optimal on every 3x3 board,
//! admissible and consistent, the same nodes whatever the strategy.

use crate::additive::{AdditiveError, Strategy};
use crate::testing::*;
use crate::*;
use npuzzle_board::{random_board, random_walk, Board, Goal, SplitMix64};
use npuzzle_pdb::testing::TestBytes;
use std::collections::HashMap;

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
            let tables = Tables::new(&tables, catalogue.groups(), None).unwrap();
            let s = solve_over(&board, &request, &tables).unwrap();
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
    let pair_catalogue = Tables::new(&tables, &[2], None).unwrap();
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
            solve_over(&board, &request, &pair_catalogue),
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

/// Every strategy that takes a set, forced through [`Tables::new`],
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
                        let forced = Tables::new(&pdbs, &groups, Some(strategy))
                            .map_err(|e| SearchError::Input(InputError::Tables(e)))?;
                        assert_eq!(forced.strategy(), strategy);
                        solve_over(board, &request, &forced)
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
        let catalogue = Tables::new(&pdbs, &groups, None).unwrap();
        assert_eq!(catalogue.strategy(), expected, "{name}");
    }
}
