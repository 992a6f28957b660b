//! Solving over built tables: known optimal lengths for every table
//! configuration, both goals, 4x4 and 5x5, one board split over threads.

use npuzzle_board::{random_walk, Board, Goal, Notation, SplitMix64};
use npuzzle_pdb::file;
use npuzzle_pdb::Partition;
use npuzzle_search::{Algorithm, HeuristicKind, Request, Tables};

use crate::harness::*;
use crate::tables::*;

#[test]
fn solve_with_tables_gives_the_known_optimal_lengths() {
    let boards = some_korf_boards(8);
    let input: String = boards.iter().map(|(_, b)| format!("{b}\n")).collect();
    for extra in [&[][..], &["--no-reflection"][..]] {
        let mut args = vec!["solve", "--json", "--partition", "6-6-3", "--pdb-dir"];
        let dir = dir_arg(tables());
        args.push(&dir);
        args.extend_from_slice(extra);
        let run = npuzzle_in(tables(), &args, &input);
        assert_eq!(run.status, 0, "{}", run.stderr);
        let records = run.json_records();
        for ((length, board), record) in boards.iter().zip(&records) {
            assert_eq!(record["length"], *length, "{board}");
            assert_eq!(record["heuristic"], "pdb");
            assert_eq!(record["partition"], "6-6-3");
            assert_eq!(record["reflection"], extra.is_empty());
            assert_replays(
                board,
                record["moves"].as_str().unwrap(),
                Notation::Tile,
                Goal::BlankLast,
            );
        }
    }
}

/// Zero-aware tables and catalogues (the largest of several partitions'
/// sums) give the known lengths with fewer nodes: the start value can only
/// grow, so the search is never larger than over the weakest member.
#[test]
fn zero_aware_tables_and_catalogues_give_the_known_optimal_lengths() {
    let boards = some_korf_boards(6);
    let input: String = boards.iter().map(|(_, b)| format!("{b}\n")).collect();
    let dir = dir_arg(tables());
    let mut expanded = std::collections::HashMap::new();
    for partition in ["6-6-3", "6z-6z-3z", "5-5-5", "6z-6z-3z+5-5-5"] {
        let args = [
            "solve",
            "--json",
            "--partition",
            partition,
            "--pdb-dir",
            &dir,
        ];
        let run = npuzzle_in(tables(), &args, &input);
        assert_eq!(run.status, 0, "{partition}: {}", run.stderr);
        let records = run.json_records();
        let mut total = 0;
        for ((length, board), record) in boards.iter().zip(&records) {
            assert_eq!(record["length"], *length, "{partition} {board}");
            assert_eq!(record["partition"], partition);
            assert_replays(
                board,
                record["moves"].as_str().unwrap(),
                Notation::Tile,
                Goal::BlankLast,
            );
            total += record["expanded"].as_u64().unwrap();
        }
        expanded.insert(partition, total);
    }
    assert!(expanded["6z-6z-3z"] < expanded["6-6-3"], "{expanded:?}");
    assert!(
        expanded["6z-6z-3z+5-5-5"] <= expanded["6z-6z-3z"],
        "{expanded:?}"
    );

    // Beyond the common heuristic's four partitions, the large one takes
    // over; a table several partitions hold is opened and mapped once, and
    // repeating partitions changes nothing: the same nodes, board by board.
    let repeated = "6z-6z-3z+5-5-5+6z-6z-3z+5-5-5+6z-6z-3z";
    let catalogue = Partition::parse(repeated, 4, Goal::BlankLast).unwrap();
    let pdbs = file::open_partition(tables(), &catalogue).unwrap();
    assert_eq!(pdbs.len(), 15);
    for (i, pdb) in pdbs.iter().enumerate().skip(6) {
        assert_eq!(
            pdb.bytes().as_ptr(),
            pdbs[i % 6].bytes().as_ptr(),
            "table {i}"
        );
    }
    let request = Request {
        goal: Goal::BlankLast,
        algorithm: Algorithm::IdaStar,
        heuristic: HeuristicKind::Pdb,
        max_nodes: None,
        parallel: false,
        stop: None,
        within: 0,
        ..Request::default()
    };
    let common = Tables::new(&pdbs[..6], &[3, 3], None).unwrap();
    let large = Tables::new(&pdbs, &[3; 5], None).unwrap();
    for (length, board) in &boards {
        let common = npuzzle_search::solve_over(board, &request, &common).unwrap();
        let large = npuzzle_search::solve_over(board, &request, &large).unwrap();
        assert_eq!(large.moves.len() as u32, *length, "{board}");
        assert!(board.solves(&large.moves, Goal::BlankLast), "{board}");
        assert_eq!(large.stats.expanded, common.stats.expanded, "{board}");
    }

    // The lookup shows each partition's sums; the catalogue takes the largest.
    let (_, board) = &boards[5];
    let line = board.to_string();
    let lookup = |partition: &str| {
        let args = [
            "pdb",
            "lookup",
            "--partition",
            partition,
            "--pdb-dir",
            &dir,
            &line,
        ];
        let run = npuzzle_in(tables(), &args, "");
        assert_eq!(run.status, 0, "{}", run.stderr);
        let last = run.stdout.lines().last().unwrap().to_string();
        (
            run.stdout.clone(),
            last.strip_prefix("heuristic: ")
                .unwrap()
                .parse::<u32>()
                .unwrap(),
        )
    };
    let (text, both) = lookup("6z-6z-3z+5-5-5");
    assert!(
        text.contains("z{5,6,9,10,13,14}: ") && text.contains("partition 2: sum "),
        "{text}"
    );
    assert_eq!(both, lookup("6z-6z-3z").1.max(lookup("5-5-5").1));
    assert!(lookup("6z-6z-3z").1 >= lookup("6-6-3").1);

    // `pdb files` lists what a catalogue needs and says what is missing.
    let args = [
        "pdb",
        "files",
        "--catalogue",
        "6z-6z-3z+5-5-5",
        "--pdb-dir",
        &dir,
    ];
    let run = npuzzle_in(tables(), &args, "");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("zero-aware-5.6.9.10.13.14.pdb.zst: 5.9 MB to map"),
        "{}",
        run.stdout
    );
    let args = ["pdb", "files", "--catalogue", "duo", "--pdb-dir", &dir];
    let run = npuzzle_in(tables(), &args, "");
    assert_eq!(run.status, 1);
    assert!(
        run.stdout.contains("missing") && run.stdout.contains("--partition duo"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_single_board_is_solved_by_parallel_ida_star_with_the_same_length() {
    let (length, board) = some_korf_boards(1).remove(0);
    let dir = dir_arg(tables());
    let line = board.to_string();
    for jobs in ["1", "2"] {
        let args = [
            "solve",
            "--json",
            "--partition",
            "6-6-3",
            "--pdb-dir",
            &dir,
            "--jobs",
            jobs,
            &line,
        ];
        let run = npuzzle_in(tables(), &args, "");
        let record = &run.json_records()[0];
        assert_eq!(record["length"], length, "--jobs {jobs}");
        assert_replays(
            &board,
            record["moves"].as_str().unwrap(),
            Notation::Tile,
            Goal::BlankLast,
        );
    }
}

#[test]
fn blank_first_tables_solve_korf_boards_as_published() {
    let text = std::fs::read_to_string(repo_root().join("bench/korf100.txt")).unwrap();
    let mut boards: Vec<(u32, String)> = text
        .lines()
        .map(|l| {
            let (id_len, tiles) = l.split_at(l.match_indices(' ').nth(1).unwrap().0);
            (
                id_len.split_whitespace().nth(1).unwrap().parse().unwrap(),
                tiles.trim().to_string(),
            )
        })
        .collect();
    boards.sort();
    let input: String = boards[..3].iter().map(|(_, b)| format!("{b}\n")).collect();
    let dir = dir_arg(tables());
    let args = [
        "solve",
        "--json",
        "--goal",
        "blank-first",
        "--partition",
        "5-5-5",
        "--pdb-dir",
        &dir,
    ];
    let run = npuzzle_in(tables(), &args, &input);
    let records = run.json_records();
    assert_eq!(records[3]["solved"], 3, "{}", run.stderr);
    for ((length, _), record) in boards[..3].iter().zip(&records) {
        assert_eq!(record["length"], *length);
        assert_eq!(record["goal"], "blank-first");
    }
}

/// With no partition named, a complete set of tiles given by hand is a
/// set like any other: the only one built is used, and the note names it;
/// beside a named set with more table entries, that one is used.
#[test]
fn a_set_given_by_hand_is_found_with_no_partition_named() {
    const BY_HAND: &str = "1,2,5,6,9;3,4,7,8,11;10,12,13,14,15";
    let dir = scratch();
    let build = |partition: &str| {
        let run = npuzzle_in(
            dir.path(),
            &["pdb", "build", "--partition", partition, "--out", "."],
            "",
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
    };
    build(BY_HAND);
    let solve_with = |how: &[&str]| {
        let mut args = vec!["solve", "--json"];
        args.extend(how);
        args.push("5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12");
        npuzzle_in(dir.path(), &args, "")
    };
    let solve = || solve_with(&["--pdb-dir", "."]);
    let optimal = &solve_with(&["--heuristic", "linear-conflict"]).json_records()[0]["length"];
    let run = solve();
    let record = &run.json_records()[0];
    assert_eq!(&record["length"], optimal, "{}", run.stderr);
    assert_eq!(record["optimal"], true);
    assert_eq!(record["partition"], BY_HAND, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("using the {BY_HAND} tables")),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("no pattern databases"),
        "{}",
        run.stderr
    );
    build("6-6-3");
    let run = solve();
    assert_eq!(
        run.json_records()[0]["partition"],
        "6-6-3",
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("using the 6-6-3 tables") && run.stderr.contains("strongest"),
        "{}",
        run.stderr
    );
}

/// 5x5 boards go through the same tables and search: a partial partition
/// (four 3-tile patterns, the other tiles counted by nothing) stays
/// admissible, and solutions match linear-conflict IDA*.
#[test]
fn five_by_five_boards_are_solved_optimally_over_tables() {
    let partition = "1,2,3;4,5,6;7,8,9;10,11,12";
    let dir = five_by_five_tables(partition, "blank-last");
    let mut rng = SplitMix64::new(25);
    let boards: Vec<Board> = (0..4)
        .map(|_| random_walk(5, Goal::BlankLast, 26, &mut rng))
        .collect();
    let input: String = boards.iter().map(|b| format!("{b}\n")).collect();
    let pdb = npuzzle_in(
        dir.path(),
        &[
            "solve",
            "--json",
            "--partition",
            partition,
            "--pdb-dir",
            ".",
        ],
        &input,
    );
    let lc = npuzzle_in(
        dir.path(),
        &["solve", "--json", "--heuristic", "linear-conflict"],
        &input,
    );
    for ((board, a), b) in boards.iter().zip(pdb.json_records()).zip(lc.json_records()) {
        assert_eq!(a["heuristic"], "pdb", "{}", pdb.stderr);
        assert_eq!(a["length"], b["length"], "{board}");
        assert_replays(
            board,
            a["moves"].as_str().unwrap(),
            Notation::Tile,
            Goal::BlankLast,
        );
    }
}

/// `--within` keeps its guarantee against Korf's published lengths over
/// tables, says so in its records (optimal false, the guarantee, a lower
/// bound no longer than the optimal length), and needs fewer nodes than
/// the optimal search.
#[test]
fn within_stays_within_its_bound_of_the_known_lengths() {
    let boards = some_korf_boards(12);
    let input: String = boards.iter().map(|(_, b)| format!("{b}\n")).collect();
    let dir = dir_arg(tables());
    let solve = |extra: &[&str]| {
        let mut args = vec!["solve", "--json", "--partition", "6-6-3", "--pdb-dir", &dir];
        args.extend_from_slice(extra);
        let run = npuzzle_in(tables(), &args, &input);
        assert_eq!(run.status, 0, "{}", run.stderr);
        run.json_records()
    };
    let optimal = solve(&[]);
    let (mut nodes_optimal, mut nodes_weighted, mut longer) = (0, 0, 0);
    for record in &optimal[..boards.len()] {
        nodes_optimal += record["expanded"].as_u64().unwrap();
    }
    let weighted = solve(&["--within", "20"]);
    for ((length, board), record) in boards.iter().zip(&weighted) {
        let found = record["length"].as_u64().unwrap();
        assert!(
            found * 100 <= u64::from(*length) * 120,
            "{board}: {found} vs {length}"
        );
        assert_replays(
            board,
            record["moves"].as_str().unwrap(),
            Notation::Tile,
            Goal::BlankLast,
        );
        nodes_weighted += record["expanded"].as_u64().unwrap();
        if found > u64::from(*length) {
            longer += 1;
            assert_eq!(record["optimal"], false, "{record}");
            assert_eq!(record["within"], 20, "{record}");
            let bound = record["lower_bound"].as_u64().unwrap();
            assert!(
                bound <= u64::from(*length) && bound % 2 == found % 2,
                "{record}"
            );
        } else {
            assert_eq!(
                record["optimal"],
                found == record["initial_estimate"].as_u64().unwrap()
            );
        }
    }
    assert!(longer > 0, "no answer was longer than optimal");
    assert!(
        nodes_weighted * 2 < nodes_optimal,
        "{nodes_weighted} nodes within 20%, {nodes_optimal} optimal"
    );
    // Under a node budget too small for 1 %, the last stage that finished
    // answers, and its record gives that stage's guarantee, which holds.
    let budgeted = solve(&["--within", "1", "--max-nodes", "3000"]);
    let mut coarser = 0;
    for ((length, board), record) in boards.iter().zip(&budgeted) {
        assert_eq!(record["type"], "solution", "{record}");
        let found = record["length"].as_u64().unwrap();
        assert_replays(
            board,
            record["moves"].as_str().unwrap(),
            Notation::Tile,
            Goal::BlankLast,
        );
        if record["optimal"] == true {
            assert_eq!(found, u64::from(*length), "{record}");
            continue;
        }
        let promised = record["within"].as_u64().unwrap();
        assert!(
            found * 100 <= u64::from(*length) * (100 + promised),
            "{record}"
        );
        if promised > 1 {
            coarser += 1;
            assert!(
                record["note"].as_str().unwrap().contains("node budget"),
                "{record}"
            );
        }
    }
    assert!(coarser > 0, "the budget never ran out");
}

/// `--within` on 24-puzzles, against Korf & Felner's optimal lengths: the
/// eight shortest of their 50 over six 4-tile tables (built here in a
/// tenth of a second), within 50 % of optimal, each answer replayed.
#[test]
fn within_keeps_its_bound_on_the_easier_24_puzzles() {
    const PARTITION: &str = "1,2,5,6;3,4,8,9;7,11,12,13;10,15,16,20;14,18,19,24;17,21,22,23";
    let dir = five_by_five_tables(PARTITION, "blank-first");
    let text = std::fs::read_to_string(repo_root().join("bench/korf24_50.txt")).unwrap();
    let mut boards: Vec<(u64, Board)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v: Vec<u16> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
            (u64::from(v[1]), Board::from_tiles(v[2..].to_vec()).unwrap())
        })
        .collect();
    boards.sort_by_key(|(length, _)| *length);
    boards.truncate(8);
    let input: String = boards.iter().map(|(_, b)| format!("{b}\n")).collect();
    let run = npuzzle_in(
        dir.path(),
        &[
            "solve",
            "--json",
            "--goal",
            "blank-first",
            "--partition",
            PARTITION,
            "--pdb-dir",
            ".",
            "--within",
            "50",
        ],
        &input,
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let records = run.json_records();
    for ((optimal, board), record) in boards.iter().zip(&records) {
        let found = record["length"].as_u64().unwrap();
        assert!(
            *optimal <= found && found * 100 <= optimal * 150,
            "{board}: {found} moves, optimal {optimal}"
        );
        assert_replays(
            board,
            record["moves"].as_str().unwrap(),
            Notation::Tile,
            Goal::BlankFirst,
        );
        assert_eq!(record["within"], 50, "{record}");
        assert_eq!(record["optimal"], false, "{record}");
        let bound = record["lower_bound"].as_u64().unwrap();
        assert!(bound <= *optimal && bound % 2 == found % 2, "{record}");
    }
}

/// Small 5x5 tables of `partition`, built into a scratch directory.
fn five_by_five_tables(partition: &str, goal: &str) -> tempfile::TempDir {
    let dir = scratch();
    let build = npuzzle_in(
        dir.path(),
        &[
            "pdb",
            "build",
            "--size",
            "5",
            "--goal",
            goal,
            "--partition",
            partition,
            "--out",
            ".",
        ],
        "",
    );
    assert_eq!(build.status, 0, "{}", build.stderr);
    dir
}
