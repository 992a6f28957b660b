use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::OnceLock;

use npuzzle_board::{random_walk, SplitMix64};
use npuzzle_pdb::file;
use npuzzle_search::Request;

use super::*;

/// Points this test process's user cache and data directories, and the
/// default table directory, at its own, once, before any table is built
/// or opened: unpacked copies in the user's `~/.cache/npuzzle`, and
/// tables in `./data`, `$NPUZZLE_PDB_DIR` or `~/.local/share/npuzzle`,
/// must not stand in for the tables here (a test of a side without
/// tables would find them).
fn isolate() {
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = tempfile::tempdir().unwrap();
        let no_tables = root.path().join("no-tables");
        std::fs::create_dir(&no_tables).unwrap();
        std::env::set_var("NPUZZLE_PDB_DIR", no_tables);
        std::env::set_var("NPUZZLE_CACHE_DIR", root.path().join("npuzzle-cache"));
        std::env::set_var("XDG_CACHE_HOME", root.path().join("cache"));
        std::env::set_var("XDG_DATA_HOME", root.path().join("data"));
        root
    });
}

/// Builds `partition`'s tables into a fresh directory.
fn build(partition: &Partition) -> tempfile::TempDir {
    isolate();
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

/// A one-thread solver over the 5-5-5 tables (node counts are then the
/// same from run to run).
fn open_555() -> Solver {
    Solver::builder()
        .pdb_dir(tables_555())
        .partition_for(4, "5-5-5")
        .threads(1)
        .open_tables_now(4)
        .build()
        .unwrap()
}

/// Every 3x3 board's distance, by breadth-first search from the goal.
fn distances_3x3() -> HashMap<Board, usize> {
    distances_3x3_to(Goal::BlankLast)
}

/// Every 3x3 board's distance to `goal`, by breadth-first search from it.
fn distances_3x3_to(goal: Goal) -> HashMap<Board, usize> {
    let start = goal.board(3);
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
    let truth = distances_3x3();
    let boards: Vec<Board> = truth.keys().step_by(97).cloned().collect();
    // Over the complete table, asked for by name.
    let with_tables = Solver::builder()
        .pdb_dir(tables_8())
        .partition_for(3, "8")
        .heuristic(HeuristicKind::Pdb)
        .threads(2)
        .build()
        .unwrap();
    // With no tables anywhere: the policy's linear conflict.
    let empty = tempfile::tempdir().unwrap();
    let without = Solver::builder().pdb_dir(empty.path()).build().unwrap();
    for solver in [&with_tables, &without] {
        let answers = solver.solve_many(&boards);
        for (board, answer) in boards.iter().zip(answers) {
            let solution = answer.unwrap();
            assert!(solution.optimal);
            assert_eq!(solution.length(), truth[board], "{board}");
            assert!(board.solves(&solution.moves, Goal::BlankLast), "{board}");
        }
    }
    assert!(without.take_notes().is_empty(), "3x3 boards need no tables");
    // The complete 3x3 table is exact.
    for board in &boards {
        let value = with_tables.lookup(board).unwrap().value;
        assert_eq!(value as usize, truth[board]);
    }
}

#[test]
fn solve_and_solve_many_agree_with_an_independent_search_on_4x4() {
    let solver = open_555();
    let mut rng = SplitMix64::new(7);
    let boards: Vec<Board> = (0..40)
        .map(|_| random_walk(4, Goal::BlankLast, 60, &mut rng))
        .collect();
    let many = solver.with_threads(2).unwrap().solve_many(&boards);
    for (board, answer) in boards.iter().zip(many) {
        let solution = answer.unwrap();
        assert!(board.solves(&solution.moves, Goal::BlankLast));
        assert_eq!(solution.partition.as_deref(), Some("5-5-5"));
        // Linear-conflict IDA*, no tables: an independent optimum.
        let reference = npuzzle_search::solve(board, &Request::default()).unwrap();
        assert_eq!(solution.length(), reference.moves.len(), "{board}");
        let one = solver.solve(board).unwrap();
        assert_eq!(one.length(), solution.length());
        // A batch searches each board on one thread, as a run `here` does,
        // with the threads that have no board left lent to it: the same
        // moves.
        let here = Run {
            here: true,
            ..Run::default()
        };
        let here = solver.solve_with(board, &here).unwrap();
        assert_eq!(here.moves, solution.moves, "{board}");
        // A single board's split search gives the same moves on any
        // number of threads.
        let two = solver.with_threads(2).unwrap().solve(board).unwrap();
        assert_eq!(one.moves, two.moves, "{board}");
        // The heuristic is the search's starting estimate, and a lower bound.
        let h = solver.tables(4).unwrap().heuristic(board).unwrap();
        assert_eq!(Some(h), solution.initial_estimate, "{board}");
        assert!(h as usize <= solution.length());
    }
}

#[test]
fn lookup_sums_the_tables_and_their_reflection() {
    let solver = open_555();
    let board = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    let lookup = solver.lookup(&board).unwrap();
    assert_eq!(lookup.values.len(), 3);
    assert_eq!(lookup.sum, lookup.values.iter().sum::<u32>());
    let reflected = board.transposed(Goal::BlankLast);
    let direct = solver.lookup(&reflected).unwrap();
    assert_eq!(direct.sum, lookup.reflected_sum);
    assert_eq!(lookup.value, lookup.sum.max(lookup.reflected_sum));
    assert_eq!(solver.lower_bound(&board), u64::from(lookup.value));
}

#[test]
fn bad_boards_and_missing_tables_are_errors_that_say_what_to_do() {
    let solver = open_555();
    let small = parse_board("1 2 3 4 5 6 7 8 0").unwrap();
    let tables = solver.tables(4).unwrap();
    let e = tables.lookup(&small).unwrap_err();
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

    let hard = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    let ten = Run {
        max_nodes: Some(10),
        ..Run::default()
    };
    assert!(matches!(
        solver.solve_with(&hard, &ten).unwrap_err(),
        Error::NodeLimit {
            algorithm: Algorithm::IdaStar,
            limit: 10
        }
    ));

    let empty = tempfile::tempdir().unwrap();
    let e = Solver::open(empty.path()).err().unwrap();
    let Error::Tables(tables) = &e else {
        panic!("{e}")
    };
    assert!(tables.is_missing() && tables.needs_build());
    assert_eq!((tables.size, tables.partition.as_str()), (4, "7-8"));
    let text = e.to_string();
    assert!(text.contains("no pattern databases for 4x4"), "{text}");
    assert!(text.contains("4x4-blank-last-"), "{text}");
    assert!(text.contains("build_tables("), "{text}");
    // `main` returning the error prints the message, not a dump.
    assert_eq!(format!("{e:?}"), text);

    assert!(matches!(
        Solver::builder().threads(0).build().err(),
        Some(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        Solver::builder().threads(1_000_000_000).build().err(),
        Some(Error::InvalidArgument(_))
    ));
}

/// Missing default tables: the board is solved without them and the
/// solver says so once; tables asked for by name refuse the board instead.
#[test]
fn missing_tables_give_way_unless_asked_for() {
    let empty = tempfile::tempdir().unwrap();
    let board = parse_board("5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12").unwrap();
    let solver = Solver::builder().pdb_dir(empty.path()).build().unwrap();
    let reference = npuzzle_search::solve(&board, &Request::default()).unwrap();
    for _ in 0..3 {
        let solution = solver.solve(&board).unwrap();
        assert!(solution.optimal);
        assert_eq!(solution.heuristic, Some("linear-conflict"));
        assert_eq!(solution.length(), reference.moves.len());
    }
    let notes = solver.take_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(matches!(&notes[0], Note::TablesMissing { error, .. } if error.size == 4));
    assert!(
        notes[0].to_string().contains("optimally within"),
        "{}",
        notes[0]
    );
    // With a bound, the note says what the attempt guarantees instead.
    let within = Solver::builder()
        .pdb_dir(empty.path())
        .within(30)
        .build()
        .unwrap();
    assert!(within.solve(&board).unwrap().length() <= reference.moves.len() * 13 / 10);
    let notes = within.take_notes();
    assert!(
        notes[0]
            .to_string()
            .contains("at most 30% over optimal within"),
        "{}",
        notes[0]
    );
    // A hard board past the attempt's budget: the reduction, not optimal.
    let hard = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    let limited = Solver::builder()
        .pdb_dir(empty.path())
        .max_nodes(Some(1000))
        .build()
        .unwrap();
    let solution = limited.solve(&hard).unwrap();
    assert!(!solution.optimal);
    assert_eq!(solution.algorithm, "reduction");
    assert!(hard.solves(&solution.moves, Goal::BlankLast));
    assert!(solution.lower_bound.unwrap() <= 80);
    assert!(solution.note.unwrap().contains("gave up after 1000 nodes"));

    let named = Solver::builder()
        .pdb_dir(empty.path())
        .partition("5-5-5")
        .build()
        .unwrap();
    let e = named.solve(&board).unwrap_err();
    assert!(matches!(&e, Error::Tables(t) if t.is_missing()), "{e}");
}

/// A directory holding sets other than the default: the strongest is
/// used, with a note; asked for another, the error names the sets there.
#[test]
fn a_set_other_than_the_default_is_used_and_others_are_named() {
    let board = parse_board("5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12").unwrap();
    let solver = Solver::builder().pdb_dir(tables_555()).build().unwrap();
    let solution = solver.solve(&board).unwrap();
    assert!(solution.optimal);
    assert_eq!(solution.partition.as_deref(), Some("5-5-5"));
    let notes = solver.take_notes();
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, Note::StrongestChosen { partition, .. } if partition == "5-5-5")),
        "{notes:?}"
    );
    assert_eq!(
        crate::table_files::sets_in(tables_555(), 4, Goal::BlankLast),
        ["5-5-5"]
    );
    let asked = Solver::builder()
        .pdb_dir(tables_555())
        .partition("6-6-3")
        .build()
        .unwrap();
    let e = asked.solve(&board).unwrap_err();
    assert!(
        e.to_string()
            .contains("Built for 4x4, goal blank-last: 5-5-5"),
        "{e}"
    );
    // Two sets and no default: the one with more table entries is taken.
    let two = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(tables_555()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, two.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    build_tables(
        two.path(),
        &Partition::parse("6-6-3", 4, Goal::BlankLast).unwrap(),
    )
    .unwrap();
    let solver = Solver::builder().pdb_dir(two.path()).build().unwrap();
    let solution = solver.solve(&board).unwrap();
    assert_eq!(solution.partition.as_deref(), Some("6-6-3"));
    let notes = solver.take_notes();
    assert!(
        notes
            .iter()
            .any(|n| matches!(n, Note::StrongestChosen { partition, .. } if partition == "6-6-3")),
        "{notes:?}"
    );
}

/// A catalogue of 15 distinct tables in 5 partitions takes the large
/// heuristic, through the engine as through the search crate.
#[test]
fn large_catalogues_solve_through_the_engine() {
    let catalogue = [
        "1,2;3,6;4,5;7,8",
        "1,4;2,3;5,6;7,8",
        "1,2;3,4;5,8;6,7",
        "2,5;1,4;3,6;7,8",
        "z1,2;z3,6;z4,5;z7,8",
    ]
    .join("+");
    let partition = Partition::parse(&catalogue, 3, Goal::BlankLast).unwrap();
    let dir = build(&partition);
    let solver = Solver::builder()
        .pdb_dir(dir.path())
        .partition(catalogue.as_str())
        .heuristic(HeuristicKind::Pdb)
        .threads(1)
        .build()
        .unwrap();
    let truth = distances_3x3();
    for (board, &d) in truth.iter().step_by(997) {
        let solution = solver.solve(board).unwrap();
        assert_eq!(solution.length(), d, "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankLast));
        assert_eq!(solution.partition.as_deref(), Some(catalogue.as_str()));
    }
}

/// The stream yields every item once, in input order, items without a
/// board passed through, whatever order the threads finish in.
#[test]
fn answers_come_in_input_order_with_bounded_look_ahead() {
    let solver = open_555().with_threads(3).unwrap();
    let mut rng = SplitMix64::new(11);
    let items: Vec<Option<Board>> = (0..60)
        .map(|i| (i % 7 != 3).then(|| random_walk(4, Goal::BlankLast, 10 + i % 50, &mut rng)))
        .collect();
    let answers: Vec<_> = solver.answers(items.clone(), Option::as_ref).collect();
    assert_eq!(answers.len(), items.len());
    for (answered, expected) in answers.iter().zip(&items) {
        assert_eq!(&answered.item, expected);
        match (&answered.item, &answered.result) {
            (Some(board), Some(Ok(solution))) => {
                assert!(board.solves(&solution.moves, Goal::BlankLast))
            }
            (None, None) => {}
            other => panic!("{other:?}"),
        }
    }
    // Stopping early leaves no thread blocked on the caller.
    let mut partial = solver.answers(items, Option::as_ref);
    assert!(partial.next().is_some());
    drop(partial);
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
        let h = solver.tables(2).unwrap().heuristic(&board).unwrap() as usize;
        assert_eq!(h, solver.solve(&board).unwrap().length(), "{board}");
    }
}

/// A search another thread stops ends with `Error::Stopped`, split over
/// threads or not, as a stream dropped mid-way stops its searches; the
/// solver answers again afterwards.
#[test]
fn searches_stop_when_asked() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    // Minutes over 5-5-5 on one thread.
    let hard = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
    for threads in [1, 2] {
        let solver = open_555().with_threads(threads).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let setter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
        });
        let run = Run {
            stop: Some(Arc::clone(&stop)),
            ..Run::default()
        };
        let result = solver.solve_with(&hard, &run);
        setter.join().unwrap();
        assert!(matches!(result, Err(Error::Stopped)), "{result:?}");
        let easy = parse_board("1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15").unwrap();
        assert_eq!(solver.solve(&easy).unwrap().length(), 1);
    }
    let solver = open_555().with_threads(2).unwrap();
    let mut stream = solver.answers(vec![hard.clone(), hard], |b: &Board| Some(b));
    assert!(matches!(
        stream.next_within(std::time::Duration::from_millis(100)),
        Waited::Pending
    ));
    drop(stream);
}

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

/// The solution names the heuristic implementation that ran (the search's
/// `Stats::strategy`), and none where no search ran.
#[test]
fn solutions_name_the_strategy_that_ran() {
    isolate();
    let solver = Solver::builder().threads(1).build().unwrap();
    let small = parse_board("8 1 3 4 0 2 7 6 5").unwrap();
    let solution = solver.solve(&small).unwrap();
    let strategy = solution.strategy().expect("a search ran");
    assert!(!strategy.is_empty());
    assert_eq!(Some(strategy), solution.stats.map(|s| s.strategy));

    let over_tables = open_555().solve(&small_4x4()).unwrap();
    assert!(over_tables.strategy().is_some_and(|s| !s.is_empty()));

    let fast = Solver::builder().fast(true).build().unwrap();
    let reduced = fast
        .solve(&random_board(6, Goal::BlankLast, &mut SplitMix64::new(3)))
        .unwrap();
    assert_eq!(reduced.strategy(), None);
}

fn small_4x4() -> Board {
    parse_board("1 2 3 4 5 6 7 8 9 10 11 12 13 0 14 15").unwrap()
}

/// Time for a shorter answer: the default beam's answer, then wider beams;
/// never longer than the default's, replayed to the goal, its note saying
/// how long it searched. Within a node limit, the beams together keep to
/// it. Where no beam runs, it is refused.
#[test]
fn time_for_a_shorter_answer_never_lengthens_it() {
    use std::time::Duration;
    isolate();
    let policy = Solver::builder().threads(2).build().unwrap();
    let board = random_board(6, Goal::BlankLast, &mut SplitMix64::new(5));
    let default = policy.solve(&board).unwrap();
    let run = Run {
        anytime: Some(Duration::from_secs(4)),
        ..Run::default()
    };
    let improved = policy.solve_with(&board, &run).unwrap();
    // The first answer is the budget's, from the default width when the
    // time sufficed (on a slow machine it may not): never shorter after.
    let number_after = |note: &str, after: &str| -> usize {
        let at = note.find(after).unwrap() + after.len();
        let digits: String = note[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    let note = improved.note.as_deref().unwrap();
    let first = number_after(note, "given: ");
    assert!(improved.length() <= first, "{note}");
    let default_width = number_after(default.note.as_deref().unwrap(), "width ");
    if number_after(note, "moves at width ") == default_width {
        assert_eq!(first, default.length(), "{note}");
    }
    assert!(!improved.optimal);
    let mut reached = board.clone();
    assert!(improved.moves.iter().all(|&mv| reached.apply(mv)));
    assert!(reached.is_goal(Goal::BlankLast));
    let note = improved.note.as_deref().unwrap();
    assert!(
        note.contains("beam searched") && note.contains("of the 4 s given"),
        "{note}"
    );

    let limited = Run {
        anytime: Some(Duration::from_secs(600)),
        max_nodes: Some(3_000_000),
        ..Run::default()
    };
    let solution = policy.solve_with(&board, &limited).unwrap();
    let expanded = solution.stats.unwrap().expanded;
    assert!(expanded <= 3_000_000 + 16, "{expanded}");
    let mut reached = board.clone();
    assert!(solution.moves.iter().all(|&mv| reached.apply(mv)));
    assert!(reached.is_goal(Goal::BlankLast));

    let fast = Solver::builder().fast(true);
    let e = fast
        .anytime(Some(Duration::from_secs(1)))
        .build()
        .err()
        .unwrap();
    assert!(e.to_string().contains("anytime"), "{e}");
    let fast = Solver::builder().fast(true).build().unwrap();
    let e = fast.solve_with(&board, &run).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
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

/// `solve_with` takes the run's own node limit over the solver's, and a
/// run `here` gives the moves of the split search.
#[test]
fn a_run_overrides_the_solvers_node_limit() {
    isolate();
    let board = parse_board("8 1 3 4 0 2 7 6 5").unwrap();
    let limited = Solver::builder()
        .max_nodes(Some(1))
        .threads(2)
        .build()
        .unwrap();
    assert!(matches!(
        limited.solve(&board),
        Err(Error::NodeLimit { limit: 1, .. })
    ));
    let roomy = Run {
        max_nodes: Some(1_000_000),
        ..Run::default()
    };
    let split = limited.solve_with(&board, &roomy).unwrap();
    let here = limited
        .solve_with(
            &board,
            &Run {
                here: true,
                ..roomy.clone()
            },
        )
        .unwrap();
    assert_eq!(split.moves, here.moves);
    assert_eq!(split.length(), 14);
}

/// A strategy forced through the builder runs (the solution names it) and
/// gives the moves and node counts of the one chosen; one not written for
/// the tables is refused by name.
#[test]
fn a_forced_strategy_runs_and_agrees_with_the_chosen_one() {
    isolate();
    let board = random_walk(4, Goal::BlankLast, 40, &mut SplitMix64::new(9));
    let with = |strategy: Option<Strategy>| {
        let builder = Solver::builder()
            .pdb_dir(tables_555())
            .partition_for(4, "5-5-5")
            .threads(1);
        match strategy {
            Some(s) => builder.strategy(s),
            None => builder,
        }
        .build()
        .unwrap()
        .solve(&board)
    };
    let chosen = with(None).unwrap();
    assert_eq!(chosen.strategy(), Some("kept-indexes"));
    let counts = |s: &Solution| s.stats.map(|s| (s.expanded, s.generated));
    for strategy in [Strategy::KeptIndexes, Strategy::General] {
        let forced = with(Some(strategy)).unwrap();
        assert_eq!(forced.strategy(), Some(strategy.name()));
        assert_eq!(forced.moves, chosen.moves);
        assert_eq!(counts(&forced), counts(&chosen));
    }
    let refused = with(Some(Strategy::PreparedRanks)).unwrap_err().to_string();
    assert!(refused.contains("prepared-ranks"), "{refused}");
}

/// With none named, the strongest complete set built is taken, in the
/// documented order; a set missing one file does not count; the sets a
/// message lists leave out the parts of a built catalogue. (Existence is
/// all the choice reads, so empty files stand for the tables here.)
#[test]
fn the_strongest_set_built_is_taken_and_catalogue_parts_are_not_listed() {
    let dir = tempfile::tempdir().unwrap();
    let dirs = [dir.path().to_path_buf()];
    let touch = |name: &str, size: usize, goal: Goal| {
        for pattern in Partition::parse(name, size, goal).unwrap().patterns() {
            std::fs::write(dir.path().join(file::file_name(pattern)), b"").unwrap();
        }
    };
    let chosen = |size, goal| {
        crate::table_files::strongest_built(&dirs, size, goal).map(|(p, _)| p.name().to_string())
    };
    assert_eq!(chosen(4, Goal::BlankLast), None);
    // Sets of tiles given by hand count as any other; a part missing
    // leaves none, and among sets not in the listed order the one with
    // more table entries is taken.
    let by_hand = "1,2,5,6,9,10;3,4,7,8,11,12;13,14,15";
    touch("1,2,5,6,9,10;3,4,7,8,11,12", 4, Goal::BlankLast);
    assert_eq!(chosen(4, Goal::BlankLast), None, "13,14,15 missing");
    touch(by_hand, 4, Goal::BlankLast);
    assert_eq!(chosen(4, Goal::BlankLast).as_deref(), Some(by_hand));
    touch("5-5-5", 4, Goal::BlankLast);
    assert_eq!(chosen(4, Goal::BlankLast).as_deref(), Some(by_hand));
    touch("z1,2,5,6,9,10;3,4,7,8,11,12;13,14,15", 4, Goal::BlankLast);
    assert_eq!(
        chosen(4, Goal::BlankLast).as_deref(),
        Some("z1,2,5,6,9,10;3,4,7,8,11,12;13,14,15"),
        "zero-aware: more entries"
    );
    let listed = crate::table_files::sets_in(dir.path(), 4, Goal::BlankLast);
    assert!(listed.iter().any(|s| s == "5-5-5"), "{listed:?}");
    assert!(
        !listed
            .iter()
            .any(|s| s == "1,2,3,4,5;6,7,8,9,10;11,12,13,14,15"),
        "a named set listed again by its tiles: {listed:?}"
    );
    // Many overlapping small tables: the search for covers stays bounded.
    let crowded = tempfile::tempdir().unwrap();
    for a in 1..15u8 {
        for b in a + 1..16 {
            let name = format!("{a},{b}");
            for pattern in Partition::parse(&name, 4, Goal::BlankLast)
                .unwrap()
                .patterns()
            {
                std::fs::write(crowded.path().join(file::file_name(pattern)), b"").unwrap();
            }
        }
    }
    let started = std::time::Instant::now();
    let found = crate::table_files::sets_in(crowded.path(), 4, Goal::BlankLast);
    assert!(found.len() <= 32, "{}", found.len());
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    touch("7-8", 4, Goal::BlankLast);
    assert_eq!(chosen(4, Goal::BlankLast).as_deref(), Some("7-8"));
    touch("trio", 4, Goal::BlankLast);
    assert_eq!(chosen(4, Goal::BlankLast).as_deref(), Some("trio"));
    touch("7-8+L7-8+S7-8", 4, Goal::BlankLast);
    assert_eq!(chosen(4, Goal::BlankLast).as_deref(), Some("7-8+L7-8+S7-8"));
    assert_eq!(chosen(4, Goal::BlankFirst), None, "another goal's tables");

    touch("6z-6z-6z-6z", 5, Goal::BlankFirst);
    touch("septet", 5, Goal::BlankFirst);
    let compound = Partition::parse("compound", 5, Goal::BlankFirst).unwrap();
    let file_of = |pattern| dir.path().join(file::file_name(pattern));
    let last = compound
        .patterns()
        .iter()
        .find(|&p| !file_of(p).exists())
        .expect("compound has tables of its own");
    for pattern in compound.patterns().iter().filter(|&p| p != last) {
        std::fs::write(file_of(pattern), b"").unwrap();
    }
    assert_eq!(
        chosen(5, Goal::BlankFirst).as_deref(),
        Some("septet"),
        "compound incomplete"
    );
    std::fs::write(file_of(last), b"").unwrap();
    assert_eq!(chosen(5, Goal::BlankFirst).as_deref(), Some("compound"));
    let listed = crate::table_files::sets_in(dir.path(), 5, Goal::BlankFirst);
    for set in ["compound", "septet", "6z-6z-6z-6z"] {
        assert!(listed.iter().any(|s| s == set), "{set} in {listed:?}");
    }
    assert!(
        listed.len() <= 5,
        "catalogue parts listed as sets: {listed:?}"
    );
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
    let solver = Solver::builder()
        .pdb_dir(dir.path())
        .partition_for(6, name.as_str())
        .threads(1)
        .build()
        .unwrap();
    let board = npuzzle_board::random_board(6, Goal::BlankLast, &mut SplitMix64::new(6));
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
    let again = Solver::builder()
        .pdb_dir(dir.path())
        .partition_for(6, name.as_str())
        .threads(1)
        .build()
        .unwrap()
        .solve(&board)
        .unwrap();
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

/// Every door reads a memory budget by one rule, and the builder refuses
/// what the rule refuses, so that a door passing bytes (C) cannot slip a
/// budget past it.
#[test]
fn memory_budgets_are_read_and_checked_by_one_rule() {
    use crate::{memory_size, MAX_MEMORY, MIN_MEMORY};
    assert_eq!(memory_size("2G"), Ok(2 << 30));
    assert_eq!(memory_size("500m"), Ok(500 << 20));
    assert_eq!(memory_size("1.5GiB"), Ok(3 << 29));
    assert_eq!(memory_size("4096"), Ok(4096));
    assert_eq!(memory_size("1K"), Ok(MIN_MEMORY));
    assert_eq!(memory_size("1024T"), Ok(MAX_MEMORY));
    for bad in ["", "G", "2X", "nan", "-1G", "0", "1023", "1025T", "inf"] {
        let e = memory_size(bad).expect_err(bad);
        assert!(e.contains(&format!("{bad:?}")), "{bad}: {e}");
    }
    for bytes in [0, MIN_MEMORY - 1, MAX_MEMORY + 1, u64::MAX] {
        let e = Solver::builder()
            .memory(bytes)
            .build()
            .err()
            .expect("refused");
        assert!(
            matches!(&e, Error::InvalidArgument(m) if m.contains(&format!("memory {bytes} bytes"))),
            "{bytes}: {e}"
        );
    }
    let solver = Solver::builder().memory(MIN_MEMORY).build().unwrap();
    let board = parse_board("8 1 3 4 0 2 7 6 5").unwrap();
    let solution = solver.solve(&board).unwrap();
    assert!(solution.optimal);
}

/// Over tables, a search stopped by its node limit again and again, each
/// run going on from the progress, gives the moves of one run; the line
/// that names the search names each table's CRC and the options, and
/// boards that get no optimal IDA* have none.
#[test]
fn progress_over_tables_goes_on_across_runs() {
    use std::sync::{Arc, Mutex};

    use npuzzle_search::Progress;

    let solver = open_555();
    let board = parse_board("1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2").unwrap();
    let whole = solver.solve(&board).unwrap();
    let progress = Arc::new(Mutex::new(Progress::default()));
    let run = Run {
        max_nodes: Some(whole.expanded() / 5),
        progress: Some(Arc::clone(&progress)),
        ..Run::default()
    };
    let mut runs = 1;
    let resumed = loop {
        match solver.solve_with(&board, &run) {
            Ok(solution) => break solution,
            Err(Error::NodeLimit { .. }) => runs += 1,
            Err(e) => panic!("{e}"),
        }
        assert!(runs < 20, "no answer after {runs} runs");
    };
    assert!(runs > 2, "never cut short");
    assert_eq!(resumed.moves, whole.moves);
    let kept = progress.lock().unwrap();
    assert_eq!(kept.runs, runs);
    assert_eq!(resumed.expanded() - kept.lost, whole.expanded());

    let line = solver.search_identity(&board).unwrap();
    let tables = solver.tables(4).unwrap();
    for table in tables.tables() {
        let crc = format!("crc {:08x}", table.header().table_crc());
        assert!(line.contains(&crc), "{line}");
    }
    assert!(line.contains("1 15 10 13 0 11"), "{line}");
    let unreflected = Solver::builder()
        .pdb_dir(tables_555())
        .partition_for(4, "5-5-5")
        .reflection(false)
        .build()
        .unwrap();
    assert_ne!(unreflected.search_identity(&board).unwrap(), line);
    let other = parse_board("1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15").unwrap();
    assert_ne!(solver.search_identity(&other).unwrap(), line);
    let fast = Solver::builder().fast(true).build().unwrap();
    assert!(fast.search_identity(&board).is_err());
    let kept_run = Run {
        progress: Some(Arc::new(Mutex::new(Progress::default()))),
        ..Run::default()
    };
    assert!(matches!(
        fast.solve_with(&board, &kept_run),
        Err(Error::InvalidArgument(_))
    ));
}

/// Threads sharing a solver whose tables are not open yet: the first to
/// need them opens them while the others wait, and nobody waits forever.
/// A worker of the solver's pool that opened the tables under the sides'
/// lock, and took another queued search while the check of the tables
/// ran, blocked on the lock it held.
#[test]
fn threads_sharing_a_fresh_solver_all_get_their_answers() {
    let mut rng = SplitMix64::new(97);
    let boards: Vec<Board> = (0..4)
        .map(|_| random_walk(4, Goal::BlankLast, 40, &mut rng))
        .collect();
    let lengths: Vec<usize> = boards
        .iter()
        .map(|board| {
            npuzzle_search::solve(board, &Request::default())
                .unwrap()
                .moves
                .len()
        })
        .collect();
    for round in 0..50 {
        for memory in [None, Some(1 << 20)] {
            let mut builder = Solver::builder()
                .pdb_dir(tables_555())
                .partition_for(4, "5-5-5")
                .threads(2);
            if let Some(bytes) = memory {
                builder = builder.memory(bytes);
            }
            let solver = builder.build().unwrap();
            let (tx, rx) = std::sync::mpsc::channel();
            for (index, board) in boards.iter().enumerate() {
                let (solver, board, tx) = (solver.clone(), board.clone(), tx.clone());
                std::thread::spawn(move || {
                    let _ = tx.send((index, solver.solve(&board)));
                });
            }
            drop(tx);
            for _ in 0..boards.len() {
                let (index, answer) = rx
                    .recv_timeout(std::time::Duration::from_secs(60))
                    .unwrap_or_else(|_| panic!("round {round}: a search never answered"));
                let solution = answer.unwrap();
                assert_eq!(solution.length(), lengths[index], "round {round}");
                assert!(boards[index].solves(&solution.moves, Goal::BlankLast));
            }
        }
    }
}

#[test]
fn tables_of_one_goal_answer_the_others_boards_optimally() {
    // 3x3: the exact blank-last table, asked for by a blank-first solver.
    let truth = distances_3x3_to(Goal::BlankFirst);
    let boards: Vec<Board> = truth.keys().step_by(61).cloned().collect();
    let turned = Solver::builder()
        .pdb_dir(tables_8())
        .goal(Goal::BlankFirst)
        .partition_for(3, "8")
        .heuristic(HeuristicKind::Pdb)
        .threads(2)
        .open_tables_now(3)
        .build()
        .unwrap();
    for (board, answer) in boards.iter().zip(turned.solve_many(&boards)) {
        let solution = answer.unwrap();
        assert!(solution.optimal, "{board}");
        assert_eq!(solution.length(), truth[board], "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankFirst), "{board}");
        assert_eq!(turned.lookup(board).unwrap().value as usize, truth[board]);
        assert_eq!(turned.lower_bound(board) as usize, truth[board]);
    }
    let notes = turned.take_notes();
    let told: Vec<_> = notes
        .iter()
        .filter(|n| matches!(n, Note::TablesTurned { size: 3, .. }))
        .collect();
    assert_eq!(told.len(), 1, "{notes:?}");
    assert!(
        told[0].to_string().contains("blank-last 8 tables"),
        "{}",
        told[0]
    );
    // A blank-last board given to it is refused for its own goal's parity.
    let odd = Board::new(3, vec![2, 1, 3, 4, 5, 6, 7, 8, 0]).unwrap();
    assert!(matches!(
        turned.solve(&odd),
        Err(Error::Unsolvable {
            goal: Goal::BlankFirst
        })
    ));

    // 4x4 by default policy: blank-last 5-5-5 tables, blank-first boards,
    // held to linear conflict's optimal IDA* (no tables).
    let solver = Solver::builder()
        .pdb_dir(tables_555())
        .goal(Goal::BlankFirst)
        .partition_for(4, "5-5-5")
        .threads(1)
        .build()
        .unwrap();
    let plain = Solver::builder()
        .goal(Goal::BlankFirst)
        .heuristic(HeuristicKind::LinearConflict)
        .threads(1)
        .build()
        .unwrap();
    let mut rng = SplitMix64::new(17);
    for steps in [0, 1, 20, 45, 60] {
        let board = random_walk(4, Goal::BlankFirst, steps, &mut rng);
        let solution = solver.solve(&board).unwrap();
        let truth = plain.solve(&board).unwrap();
        assert!(solution.optimal, "{board}");
        assert_eq!(solution.length(), truth.length(), "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankFirst), "{board}");
        assert_eq!(solution.partition.as_deref(), Some("5-5-5"));
    }
    // A progress line names the turned search, whose goal it is.
    let board = random_walk(4, Goal::BlankFirst, 40, &mut rng);
    let identity = solver.search_identity(&board).unwrap();
    assert!(identity.contains("goal blank-last"), "{identity}");

    // Neither goal's tables: the side goes on without them, as before.
    let empty = tempfile::tempdir().unwrap();
    let none = Solver::builder()
        .pdb_dir(empty.path())
        .goal(Goal::BlankFirst)
        .build()
        .unwrap();
    let board = random_walk(4, Goal::BlankFirst, 30, &mut rng);
    assert!(board.solves(&none.solve(&board).unwrap().moves, Goal::BlankFirst));
    assert!(none
        .take_notes()
        .iter()
        .all(|n| !matches!(n, Note::TablesTurned { .. })));
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
