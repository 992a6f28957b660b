use std::collections::{HashMap, VecDeque};
use std::sync::OnceLock;

use npuzzle_board::{random_walk, SplitMix64};
use npuzzle_pdb::file;

use super::*;

/// Builds `partition`'s tables into a fresh directory.
fn build(partition: &Partition) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    build_tables(dir.path(), partition).unwrap();
    dir
}

fn tables_555() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| build(&Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap()))
        .path()
}

fn tables_8() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| build(&Partition::parse("8", 3, Goal::BlankLast).unwrap()))
        .path()
}

fn open_555() -> Solver {
    let partition = Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap();
    Solver::new(Tables::open_partition(tables_555(), &partition).unwrap()).unwrap()
}

/// Every 3x3 board's distance, by breadth-first search from the goal.
fn distances_3x3() -> HashMap<Board, usize> {
    let start = Goal::BlankLast.board(3);
    let mut distance = HashMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(board) = queue.pop_front() {
        let d = distance[&board];
        for m in board.legal_moves().collect::<Vec<_>>() {
            let mut next = board.clone();
            next.apply(m);
            distance.entry(next.clone()).or_insert_with(|| {
                queue.push_back(next);
                d + 1
            });
        }
    }
    distance
}

#[test]
fn solutions_are_optimal_and_replay_to_the_goal_on_3x3() {
    let partition = Partition::parse("8", 3, Goal::BlankLast).unwrap();
    let solver = Solver::new(Tables::open_partition(tables_8(), &partition).unwrap()).unwrap();
    let truth = distances_3x3();
    let boards: Vec<Board> = truth.keys().step_by(97).cloned().collect();
    let answers = solver.solve_many(&boards, 2);
    for (board, answer) in boards.iter().zip(answers) {
        let solution = answer.unwrap();
        assert_eq!(solution.length(), truth[board], "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankLast), "{board}");
        // The complete 3x3 table is exact.
        assert_eq!(
            solver.tables().heuristic(board).unwrap() as usize,
            truth[board]
        );
    }
}

#[test]
fn solve_and_solve_many_agree_with_an_independent_search_on_4x4() {
    let solver = open_555();
    let mut rng = SplitMix64::new(7);
    let boards: Vec<Board> = (0..40)
        .map(|_| random_walk(4, Goal::BlankLast, 60, &mut rng))
        .collect();
    let many = solver.solve_many(&boards, 0);
    for (board, answer) in boards.iter().zip(many) {
        let solution = answer.unwrap();
        assert!(board.solves(&solution.moves, Goal::BlankLast));
        // Linear-conflict IDA*, no tables: an independent optimum.
        let reference = npuzzle_search::solve(board, &Request::default()).unwrap();
        assert_eq!(solution.length(), reference.moves.len(), "{board}");
        let one = solver.solve(board).unwrap();
        assert_eq!(one.length(), solution.length());
        // The heuristic is the search's starting estimate, and a lower bound.
        let h = solver.tables().heuristic(board).unwrap();
        assert_eq!(h, solution.initial_estimate, "{board}");
        assert!(h as usize <= solution.length());
    }
}

#[test]
fn lookup_sums_the_tables_and_their_reflection() {
    let solver = open_555();
    let board = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    let lookup = solver.tables().lookup(&board).unwrap();
    assert_eq!(lookup.values.len(), 3);
    assert_eq!(lookup.sum, lookup.values.iter().sum::<u32>());
    let reflected = board.transposed(Goal::BlankLast);
    let direct = solver.tables().lookup(&reflected).unwrap();
    assert_eq!(direct.sum, lookup.reflected_sum);
    assert_eq!(lookup.value, lookup.sum.max(lookup.reflected_sum));
}

#[test]
fn bad_boards_and_missing_tables_are_errors_that_say_what_to_do() {
    let solver = open_555();
    let small = parse_board("1 2 3 4 5 6 7 8 0").unwrap();
    let e = solver.solve(&small).unwrap_err();
    assert!(matches!(
        e,
        Error::WrongSize {
            board: 3,
            tables: 4
        }
    ));
    assert!(
        e.to_string().contains("open tables of the board's size"),
        "{e}"
    );

    let unsolvable = parse_board("2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0").unwrap();
    let e = solver.solve(&unsolvable).unwrap_err();
    assert!(matches!(e, Error::Unsolvable { .. }), "{e}");

    let limited = open_555().with_node_limit(10);
    let hard = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    assert!(matches!(
        limited.solve(&hard).unwrap_err(),
        Error::NodeLimit { limit: 10 }
    ));

    let empty = tempfile::tempdir().unwrap();
    let e = Solver::open(empty.path()).err().unwrap();
    let text = e.to_string();
    assert!(text.contains("no such pattern database"), "{text}");
    assert!(text.contains("npuzzle pdb build"), "{text}");
    let source = std::error::Error::source(&e).expect("the open error as source");
    assert!(source.to_string().contains(".pdb.zst"), "{source}");
}

#[test]
fn building_again_keeps_intact_tables_and_replaces_damaged_ones() {
    let partition = Partition::parse("3", 2, Goal::BlankLast).unwrap();
    let dir = build(&partition);
    let path = dir.path().join(file::file_name(&partition.patterns()[0]));
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    build_tables(dir.path(), &partition).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, b"not a table").unwrap();
    assert!(Tables::open_partition(dir.path(), &partition).is_err());
    build_tables(dir.path(), &partition).unwrap();
    // The complete 2x2 table is exact: its value is the solution's length.
    let solver = Solver::new(Tables::open_partition(dir.path(), &partition).unwrap()).unwrap();
    let mut rng = SplitMix64::new(3);
    for steps in 0..20 {
        let board = random_walk(2, Goal::BlankLast, steps, &mut rng);
        let h = solver.tables().heuristic(&board).unwrap() as usize;
        assert_eq!(h, solver.solve(&board).unwrap().length(), "{board}");
    }
}
