//! The command line's smoke tests: the quick tier (`cargo xtask test
//! --quick`) runs these beside every crate's unit tests. A few seconds in
//! all, every answer checked against independent truth and replayed.

use npuzzle_board::{random_walk, Board, Goal, SplitMix64};

use crate::harness::{assert_record_replays, npuzzle, npuzzle_in, scratch};

/// 3x3 boards solved by the binary with no tables: the lengths breadth-
/// first search gives (the hardest board, 31 moves, among them), and an
/// unsolvable board and a bad one refused with their exit statuses.
#[test]
fn smoke_3x3_answers_are_breadth_first_lengths() {
    let truth = breadth_first_distances();
    let mut rng = SplitMix64::new(98);
    let mut boards: Vec<Board> = (0..20)
        .map(|_| random_walk(3, Goal::BlankLast, 60, &mut rng))
        .collect();
    boards.push(npuzzle_board::parse_board("8 6 7 2 5 4 3 0 1").unwrap());
    let input: String = boards.iter().map(|b| b.to_line() + "\n").collect();
    let run = npuzzle_in(scratch().path(), &["solve", "--json"], &input);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let records = run.json_records();
    for (board, record) in boards.iter().zip(&records) {
        assert_record_replays(record, Goal::BlankLast);
        assert_eq!(record["optimal"], true, "{record}");
        assert_eq!(
            record["length"].as_u64(),
            Some(truth[board.tiles()]),
            "{board}"
        );
    }
    assert_eq!(records[boards.len() - 1]["length"], 31);
    let unsolvable = npuzzle(&["solve", "1 2 3 4 5 6 8 7 0"]);
    assert_eq!(unsolvable.status, 1, "{}", unsolvable.stderr);
    assert!(unsolvable.stdout.contains("No solution possible"));
    let bad = npuzzle(&["solve", "1 2 3 4 5 6 7 7 0"]);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    bad.assert_no_panic();
}

/// 4x4 boards over tables the binary builds (5-5-5, a fraction of a
/// second): the lengths of linear-conflict IDA* without tables, an
/// independent search.
#[test]
fn smoke_4x4_answers_over_built_tables_are_optimal() {
    let dir = scratch();
    let built = npuzzle_in(
        dir.path(),
        &["pdb", "build", "--partition", "5-5-5", "--out", "."],
        "",
    );
    assert_eq!(built.status, 0, "{}", built.stderr);
    let mut rng = SplitMix64::new(99);
    let boards: Vec<Board> = (0..6)
        .map(|i| random_walk(4, Goal::BlankLast, 40 + 10 * i, &mut rng))
        .collect();
    let input: String = boards.iter().map(|b| b.to_line() + "\n").collect();
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--json", "--pdb-dir", ".", "--partition", "5-5-5"],
        &input,
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    for (board, record) in boards.iter().zip(run.json_records()) {
        assert_record_replays(&record, Goal::BlankLast);
        let reference = npuzzle_search::solve(board, &Default::default()).unwrap();
        assert_eq!(
            record["length"].as_u64(),
            Some(reference.moves.len() as u64),
            "{board}"
        );
        assert_eq!(record["partition"], "5-5-5", "{record}");
    }
}

/// Every solvable 3x3 board's distance to blank-last solved, by breadth-
/// first search over the tiles alone.
fn breadth_first_distances() -> std::collections::HashMap<Vec<u16>, u64> {
    let goal: Vec<u16> = (1..9).chain([0]).collect();
    let mut distance = std::collections::HashMap::from([(goal.clone(), 0u64)]);
    let mut queue = std::collections::VecDeque::from([goal]);
    while let Some(tiles) = queue.pop_front() {
        let d = distance[&tiles];
        let blank = tiles.iter().position(|&t| t == 0).unwrap();
        let (row, col) = (blank / 3, blank % 3);
        let mut sources = Vec::new();
        if row > 0 {
            sources.push(blank - 3);
        }
        if row < 2 {
            sources.push(blank + 3);
        }
        if col > 0 {
            sources.push(blank - 1);
        }
        if col < 2 {
            sources.push(blank + 1);
        }
        for source in sources {
            let mut next = tiles.clone();
            next.swap(blank, source);
            if !distance.contains_key(&next) {
                distance.insert(next.clone(), d + 1);
                queue.push_back(next);
            }
        }
    }
    assert_eq!(distance.len(), 181_440);
    distance
}
