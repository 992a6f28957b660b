use super::*;
use npuzzle::parse_board;

/// An engine that finds no tables on disk. Built for the host with the
/// workspace, the engine has the native features and would look in
/// `./data`, `$NPUZZLE_PDB_DIR` and the user data directory; these tests
/// give it tables from memory or none.
fn engine() -> Engine {
    static NO_TABLES: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    NO_TABLES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("npuzzle-wasm-tests-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::env::set_var("NPUZZLE_PDB_DIR", &dir);
        std::env::set_var("XDG_DATA_HOME", &dir);
        dir
    });
    Engine::default()
}

fn solve(engine: &mut Engine, request: &str) -> serde_json::Value {
    let text = engine.request(request).unwrap_or_else(|e| panic!("{e:?}"));
    serde_json::from_str(&text).unwrap()
}

/// The board after `moves` (tile notation) from `board`, checked move by move.
fn replay(board: &str, moves: &str) -> Board {
    let board = parse_board(board).unwrap();
    let moves = npuzzle::Move::parse_sequence(moves, Notation::Tile).unwrap();
    let path = board.replay(&moves).unwrap();
    path.last().cloned().unwrap_or(board)
}

#[test]
fn an_8_puzzle_is_solved_optimally_and_its_moves_replay() {
    let mut engine = engine();
    let record = solve(&mut engine, r#"{"op":"solve","board":"8 1 3 4 0 2 7 6 5"}"#);
    assert_eq!(record["length"], 14);
    assert_eq!(record["optimal"], true);
    assert_eq!(record["algorithm"], "idastar");
    let end = replay("8 1 3 4 0 2 7 6 5", record["moves"].as_str().unwrap());
    assert!(end.is_goal(Goal::BlankLast));
    // Tiles as a list are the same board.
    let listed = solve(&mut engine, r#"{"op":"solve","board":[8,1,3,4,0,2,7,6,5]}"#);
    assert_eq!(listed["moves"], record["moves"]);
    assert_eq!(listed["expanded"], record["expanded"]);
}

#[test]
fn a_hint_is_the_first_move_of_an_optimal_solution() {
    let mut engine = engine();
    let record = solve(&mut engine, r#"{"op":"hint","board":"8 1 3 4 0 2 7 6 5"}"#);
    let moves = record["moves"].as_str().unwrap();
    assert_eq!(record["move"].as_str().unwrap(), &moves[..1]);
    let solved = solve(&mut engine, r#"{"op":"hint","board":"1 2 3 4 5 6 7 8 0"}"#);
    assert_eq!(solved["length"], 0);
    assert!(solved["move"].is_null());
}

#[test]
fn bad_requests_get_the_command_lines_words_and_a_kind() {
    let mut engine = engine();
    let cases = [
        (r#"{"op":"solve","board":"1 2 3"}"#, "invalid", "3"),
        (
            r#"{"op":"solve","board":"1 2 3 4 5 6 8 7 0"}"#,
            "unsolvable",
            "goal",
        ),
        (
            r#"{"op":"solve","board":[1,2,-3,0]}"#,
            "invalid",
            "tile number 3",
        ),
        (
            r#"{"op":"solve","board":"1 2 3 0","goal":"up"}"#,
            "invalid",
            "goal",
        ),
        (
            r#"{"op":"solve","board":"1 2 3 0","speed":1}"#,
            "invalid",
            "speed",
        ),
        (r#"{"op":"fly"}"#, "invalid", "fly"),
        (r#"not json"#, "invalid", "not one the engine takes"),
        (r#"{"op":"random","size":200}"#, "invalid", "200"),
        (
            r#"{"op":"table_files","partition":"9-9","size":4}"#,
            "invalid",
            "",
        ),
    ];
    for (request, kind, words) in cases {
        let failure = engine.request(request).unwrap_err();
        assert_eq!(failure.kind, kind, "{request}: {failure:?}");
        assert!(failure.error.contains(words), "{request}: {failure:?}");
        assert!(!failure.error.contains('\n'), "{request}: {failure:?}");
    }
    let limited = engine
        .request(r#"{"op":"solve","board":"0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1","max_nodes":1000,"fast":false}"#)
        .map(|text| serde_json::from_str::<serde_json::Value>(&text).unwrap());
    // Without tables a 4x4 board past the budget is answered by the
    // reduction, not refused: the command line's policy.
    let limited = limited.unwrap();
    assert_eq!(limited["optimal"], false);
    let notes = limited["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("engine.useTables(engine.buildTables(\"7-8\"")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .all(|n| !n.as_str().unwrap().contains("npuzzle pdb build")),
        "{notes:?}"
    );
    // What happens meanwhile is the engine's policy, in its words.
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("meanwhile 4x4 boards are solved with linear conflict")),
        "{notes:?}"
    );
    // A 6x6 board without tables: the beam, as the engine says, not
    // "optimally ... else not optimally".
    let six = engine
        .request(r#"{"op":"solve","board":"1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 0 35"}"#)
        .map(|text| serde_json::from_str::<serde_json::Value>(&text).unwrap())
        .unwrap();
    let notes = six["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("by beam search")
                && n.as_str().unwrap().contains("engine.useTables(")),
        "{notes:?}"
    );
}

#[test]
fn random_boards_are_the_command_lines_for_the_same_seed() {
    let mut engine = engine();
    for (size, seed) in [(3, 1), (4, 7), (5, 123)] {
        let record = solve(
            &mut engine,
            &format!(r#"{{"op":"random","size":{size},"seed":{seed}}}"#),
        );
        let expected = random_board(size, Goal::BlankLast, &mut SplitMix64::new(seed));
        let tiles: Vec<u16> = serde_json::from_value(record["board"].clone()).unwrap();
        assert_eq!(tiles, expected.tiles());
    }
}

#[test]
fn a_check_gives_the_distance_of_a_near_board_and_says_unsolvable() {
    let mut engine = engine();
    let near = solve(&mut engine, r#"{"op":"check","board":"8 1 3 4 0 2 7 6 5"}"#);
    assert_eq!(near["distance"], 14);
    assert_eq!(near["solvable"], true);
    let odd = solve(&mut engine, r#"{"op":"check","board":"1 2 3 4 5 6 8 7 0"}"#);
    assert_eq!(odd["solvable"], false);
    assert!(odd["distance"].is_null());
    // The record of `npuzzle serve`'s /api/check, field for field.
    let text = engine
        .request(r#"{"op":"check","board":"1 2 3 4 5 6 7 0 8"}"#)
        .unwrap();
    assert_eq!(
        text,
        r#"{"type":"check","board":[1,2,3,4,5,6,7,0,8],"size":3,"goal":"blank-last","solvable":true,"solved":false,"distance":1,"lower_bound":1,"upper_bound":1}"#
    );
}

/// The tables of `partition` for 4x4 built by the engine, as the browser
/// builds them.
fn built_images(engine: &mut Engine, partition: &str) -> Vec<Vec<u8>> {
    let record = solve(
        engine,
        &format!(r#"{{"op":"table_files","partition":"{partition}","size":4}}"#),
    );
    let count = record["files"].as_array().unwrap().len();
    (0..count)
        .map(|index| engine.build_table(partition, 4, index).unwrap())
        .collect()
}

#[test]
fn built_tables_solve_4x4_boards_optimally_and_damaged_ones_are_refused() {
    let mut engine = engine();
    let images = built_images(&mut engine, "5-5-5");
    assert_eq!(images.len(), 3);

    // A damaged copy (one byte of a table changed) is refused, naming the table.
    let mut damaged = images.clone();
    let last = damaged[1].len() - 1;
    damaged[1][last] ^= 0x11;
    for image in damaged {
        engine.stage(image);
    }
    let failure = engine
        .request(r#"{"op":"use_tables","partition":"5-5-5","size":4}"#)
        .unwrap_err();
    assert_eq!(failure.kind, "tables", "{failure:?}");
    // A partial set is refused too, saying how to give the set whole.
    engine.stage(images[0].clone());
    let failure = engine
        .request(r#"{"op":"use_tables","partition":"5-5-5","size":4}"#)
        .unwrap_err();
    assert_eq!(failure.kind, "tables", "{failure:?}");
    assert!(
        failure.error.contains("engine.buildTables(\"5-5-5\""),
        "{failure:?}"
    );
    assert!(!failure.error.contains("looked for"), "{failure:?}");

    for image in images {
        engine.stage(image);
    }
    solve(
        &mut engine,
        r#"{"op":"use_tables","partition":"5-5-5","size":4}"#,
    );
    // Korf's instance 3 of 100, 59 moves (bench/korf100_goal_blank_last.txt).
    let board = "1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2";
    let record = solve(
        &mut engine,
        &format!(r#"{{"op":"solve","board":"{board}"}}"#),
    );
    assert_eq!(record["length"], 59);
    assert_eq!(record["optimal"], true);
    assert_eq!(record["heuristic"], "pdb");
    assert_eq!(record["partition"], "5-5-5");
    assert!(replay(board, record["moves"].as_str().unwrap()).is_goal(Goal::BlankLast));
}

/// Images staged for a request that is refused are not kept for the next:
/// a refused set (a typo in its name) leaves nothing behind, and an empty
/// set is refused.
#[test]
fn a_refused_set_leaves_no_images_behind() {
    let mut engine = engine();
    let images = built_images(&mut engine, "5-5-5");
    for image in &images {
        engine.stage(image.clone());
    }
    let failure = engine
        .request(r#"{"op":"use_tables","partition":"5-5-6","size":4}"#)
        .unwrap_err();
    assert_eq!(failure.kind, "invalid", "{failure:?}");
    let failure = engine
        .request(r#"{"op":"use_tables","partition":"5-5-5","size":4}"#)
        .unwrap_err();
    assert_eq!(failure.kind, "tables", "{failure:?}");
    // Twice the same table is refused, naming it.
    for image in [&images[0], &images[0], &images[1], &images[2]] {
        engine.stage(image.clone());
    }
    let failure = engine
        .request(r#"{"op":"use_tables","partition":"5-5-5","size":4}"#)
        .unwrap_err();
    assert!(failure.error.contains("given twice"), "{failure:?}");
}

/// Flips bits of `bytes[at..at + 4]` so that the CRC-32 of `bytes` is
/// `crc` again: CRC-32 is affine in the bits, so 32 flips are solved for
/// over GF(2), as a forger would.
fn restore_crc(bytes: &mut [u8], at: usize, crc: u32) {
    let effect: Vec<u32> = (0..32)
        .map(|bit| {
            bytes[at + bit / 8] ^= 1 << (bit % 8);
            let changed = crc32fast::hash(bytes);
            bytes[at + bit / 8] ^= 1 << (bit % 8);
            changed ^ crc32fast::hash(bytes)
        })
        .collect();
    let target = crc32fast::hash(bytes) ^ crc;
    // Gaussian elimination: rows are (effect, the bits flipped for it).
    let mut rows: Vec<(u32, u32)> = effect
        .iter()
        .enumerate()
        .map(|(i, &e)| (e, 1 << i))
        .collect();
    let mut pivots = Vec::new();
    for bit in (0..32).rev() {
        let Some(found) = (pivots.len()..32).find(|&r| rows[r].0 >> bit & 1 == 1) else {
            continue;
        };
        rows.swap(pivots.len(), found);
        let pivot = rows[pivots.len()];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != pivots.len() && row.0 >> bit & 1 == 1 {
                row.0 ^= pivot.0;
                row.1 ^= pivot.1;
            }
        }
        pivots.push(bit);
    }
    let mut flips = 0u32;
    for (r, &bit) in pivots.iter().enumerate() {
        if target >> bit & 1 == 1 {
            flips ^= rows[r].1;
        }
    }
    for bit in 0..32 {
        if flips >> bit & 1 == 1 {
            bytes[at + bit / 8] ^= 1 << (bit % 8);
        }
    }
    assert_eq!(crc32fast::hash(bytes), crc, "the forger's CRC fix applies");
}

/// Values changed under the same checksums: the digest of npuzzle's build
/// refuses them (the sampled check alone may miss a few changed entries).
#[test]
fn forged_values_with_matching_checksums_are_refused() {
    let mut engine = engine();
    let mut images = built_images(&mut engine, "5-5-5");
    let offset = npuzzle_pdb::format::HEADER_LEN;
    let table = &mut images[0][offset..];
    let crc = crc32fast::hash(table);
    table[1000] = table[1000].wrapping_add(0x11);
    restore_crc(table, 2000, crc);
    for image in images {
        engine.stage(image);
    }
    let failure = engine
        .request(r#"{"op":"use_tables","partition":"5-5-5","size":4}"#)
        .unwrap_err();
    assert_eq!(failure.kind, "tables", "{failure:?}");
    assert!(failure.error.contains("BLAKE3"), "{failure:?}");
}

/// A 6x6 solve's pair of beams run apart (as the page's two workers do)
/// and handed back gives the answer and nodes of the solve alone; an
/// outcome that does not replay is run again; a 3x3 board runs no pair.
#[test]
fn a_pair_of_beams_run_apart_gives_the_same_answer() {
    let mut engine = engine();
    let random = solve(&mut engine, r#"{"op":"random","size":6,"seed":3}"#);
    let board = random["board"].to_string();
    let alone = solve(&mut engine, &format!(r#"{{"op":"solve","board":{board}}}"#));
    let outcomes: Vec<serde_json::Value> = (0..2)
        .map(|attempt| {
            let answer = solve(
                &mut engine,
                &format!(r#"{{"op":"beam","board":{board},"attempt":{attempt}}}"#),
            );
            assert_eq!(answer["outcome"]["attempt"], attempt, "{answer}");
            answer["outcome"].clone()
        })
        .collect();
    let mut forged = outcomes[1].clone();
    forged["ending"] = "solved".into();
    forged["moves"] = "L".into();
    for beams in [
        serde_json::json!(outcomes),
        serde_json::json!([outcomes[0], forged]),
    ] {
        let apart = solve(
            &mut engine,
            &format!(r#"{{"op":"solve","board":{board},"beams":{beams}}}"#),
        );
        for field in ["moves", "length", "expanded", "generated", "strategy"] {
            assert_eq!(apart[field], alone[field], "{field}");
        }
    }
    let small = solve(
        &mut engine,
        r#"{"op":"beam","board":"8 1 3 4 0 2 7 6 5","attempt":0}"#,
    );
    assert!(small["outcome"].is_null(), "{small}");
    for bad in [
        r#"{"op":"beam","board":"8 1 3 4 0 2 7 6 5"}"#,
        r#"{"op":"solve","board":"8 1 3 4 0 2 7 6 5","beams":[{"attempt":0,"ending":"won","moves":"","expanded":0,"generated":0}]}"#,
        r#"{"op":"beam","board":"8 1 3 4 0 2 7 6 5","attempt":0,"color":1}"#,
    ] {
        let refused = engine.request(bad).unwrap_err();
        assert_eq!(refused.kind, "invalid", "{bad}: {refused:?}");
    }
}

/// The JavaScript `kind` of every kind of failure, as ARCHITECTURE.md gives
/// it; npuzzle.js picks its error class by these names.
#[test]
fn every_error_kind_has_its_javascript_kind() {
    let table = [
        (ErrorKind::InvalidBoard, "invalid"),
        (ErrorKind::InvalidArgument, "invalid"),
        (ErrorKind::WrongSize, "invalid"),
        (ErrorKind::Unsolvable, "unsolvable"),
        (ErrorKind::Tables, "tables"),
        (ErrorKind::NodeLimit, "node_limit"),
        (ErrorKind::TimeLimit, "time_limit"),
        (ErrorKind::OutOfMemory, "internal"),
        (ErrorKind::Io, "internal"),
        (ErrorKind::Stopped, "internal"),
        (ErrorKind::Internal, "internal"),
    ];
    assert_eq!(table.len(), ErrorKind::ALL.len());
    let door =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/js/npuzzle.js")).unwrap();
    for ((kind, name), listed) in table.into_iter().zip(ErrorKind::ALL) {
        assert_eq!(kind, listed);
        assert_eq!(kind_name(kind), name, "{kind}");
        assert!(
            door.contains(&format!("\"{name}\"")),
            "npuzzle.js knows {name}"
        );
    }
}

/// The page's solution records are the command line's and the server's
/// (docs/solve-output.schema.json), `move` and `notes` added.
#[test]
fn solution_records_are_the_documented_schemas() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/solve-output.schema.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut engine = engine();
    for request in [
        r#"{"op":"solve","board":"8 1 3 4 0 2 7 6 5"}"#,
        r#"{"op":"hint","board":"8 1 3 4 0 2 7 6 5","notation":"blank"}"#,
        r#"{"op":"hint","board":"1 2 3 4 5 6 7 8 0"}"#,
        r#"{"op":"solve","board":"1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15"}"#,
    ] {
        let record = solve(&mut engine, request);
        let errors: Vec<String> = validator
            .iter_errors(&record)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{request}: {errors:?} in {record}");
        assert_eq!(
            record["move"].is_null(),
            !request.contains("hint") || record["length"] == 0
        );
    }
}
