//! Tables per side: found, refused when missing or damaged, the
//! strongest set built taken.

use crate::testing::*;
use crate::*;
use npuzzle_pdb::file;
use npuzzle_search::Request;

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
