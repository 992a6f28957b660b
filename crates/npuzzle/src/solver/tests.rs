//! The solver as every door calls it: optimal answers against BFS truth,
//! the same answers alone and in batches, stops, limits and threads.

use crate::testing::*;
use crate::*;
use npuzzle_board::{random_walk, SplitMix64};
use npuzzle_search::Request;

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
