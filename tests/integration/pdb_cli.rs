//! Pattern databases as a user meets them: built with `npuzzle pdb build`,
//! inspected, verified, damaged, and used by `npuzzle solve`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use npuzzle_board::{random_board, random_walk, Board, Goal, Notation, SplitMix64};
use npuzzle_pdb::file;
use npuzzle_pdb::Partition;
use npuzzle_search::{Algorithm, HeuristicKind, Request};

use crate::harness::*;

/// Tables built once for the whole test binary: 6-6-3 and 5-5-5 for the
/// blank-last goal, 5-5-5 for blank-first.
pub(crate) fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch();
        for (partition, goal) in [
            ("6-6-3", "blank-last"),
            ("5-5-5", "blank-last"),
            ("5-5-5", "blank-first"),
            ("6z-6z-3z", "blank-last"),
        ] {
            let run = npuzzle_in(
                dir.path(),
                &[
                    "pdb",
                    "build",
                    "--partition",
                    partition,
                    "--goal",
                    goal,
                    "--out",
                    ".",
                ],
                "",
            );
            assert_eq!(run.status, 0, "{}", run.stderr);
        }
        dir
    })
    .path()
}

/// A private copy of the tables, for tests that damage them.
fn copy_of_tables(into: &Path) -> PathBuf {
    let target = into.join("data");
    std::fs::create_dir_all(target.join("cache")).unwrap();
    for sub in ["", "cache"] {
        for entry in std::fs::read_dir(tables().join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, target.join(sub).join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    target
}

fn dir_arg(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

fn blank_last_pattern_file(dir: &Path, partition: &str, index: usize) -> PathBuf {
    let partition = Partition::parse(partition, 4, Goal::BlankLast).unwrap();
    dir.join(file::file_name(&partition.patterns()[index]))
}

#[test]
fn building_again_keeps_valid_tables() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let run = npuzzle_in(
        dir.path(),
        &[
            "pdb",
            "build",
            "--partition",
            "6-6-3",
            "--out",
            &dir_arg(&data),
        ],
        "",
    );
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stdout.matches("up to date").count(),
        3,
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("built 0 of 3 tables"));
}

#[test]
fn info_prints_the_header_and_histogram() {
    let path = blank_last_pattern_file(tables(), "5-5-5", 0);
    let run = npuzzle_in(
        tables(),
        &["pdb", "info", "--histogram", path.to_str().unwrap()],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    for needle in [
        "npuzzle-pdb version 1",
        "4x4, goal blank-last",
        "524,160 (u4 excess over Manhattan / 2)",
        "histogram",
        "mean value",
    ] {
        assert!(run.stdout.contains(needle), "no {needle}: {}", run.stdout);
    }
    // Every placement has a value; none is left unreached on 4x4.
    let total: u64 = run
        .stdout
        .lines()
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(v, _)| v.parse::<u32>().is_ok())
        .map(|(_, c)| c.parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 524_160);
}

#[test]
fn verify_accepts_good_tables_and_refuses_damaged_ones() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = blank_last_pattern_file(&data, "5-5-5", 1);
    let raw = file::cache_path(&packed);
    let ok = npuzzle_in(
        dir.path(),
        &[
            "pdb",
            "verify",
            packed.to_str().unwrap(),
            raw.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(ok.status, 0, "{}", ok.stderr);
    assert_eq!(ok.stdout.matches(": ok").count(), 2);

    let mut bytes = std::fs::read(&raw).unwrap();
    let middle = bytes.len() - 1000;
    bytes[middle] ^= 0x01;
    std::fs::write(&raw, bytes).unwrap();
    let bad = npuzzle_in(dir.path(), &["pdb", "verify", raw.to_str().unwrap()], "");
    assert_eq!(bad.status, 1);
    assert!(
        bad.stderr.contains("the table is corrupt"),
        "{}",
        bad.stderr
    );
    assert!(bad.stderr.contains("rebuild"), "{}", bad.stderr);
}

/// Boards from Korf's 100 (converted to blank-last) that 6-6-3 solves quickly.
fn some_korf_boards(count: usize) -> Vec<(u32, Board)> {
    let text =
        std::fs::read_to_string(repo_root().join("bench/korf100_goal_blank_last.txt")).unwrap();
    let mut boards: Vec<(u32, Board)> = text
        .lines()
        .map(|l| {
            let v: Vec<u16> = l.split_whitespace().map(|t| t.parse().unwrap()).collect();
            (v[1] as u32, Board::from_tiles(v[2..].to_vec()).unwrap())
        })
        .collect();
    boards.sort_by_key(|(length, _)| *length);
    boards.truncate(count);
    boards
}

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
            total += record["nodes"].as_u64().unwrap();
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
    };
    for (length, board) in &boards {
        let common =
            npuzzle_search::solve_catalogue(board, &request, &pdbs[..6], &[3, 3], true).unwrap();
        let large = npuzzle_search::solve_catalogue(board, &request, &pdbs, &[3; 5], true).unwrap();
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

/// Whether, for every pattern, the cells outside it form one region: then
/// the stored least value over the blank's regions is the distance of the
/// board's own abstract state.
fn one_region_per_pattern(board: &Board, partition: &Partition) -> bool {
    partition.patterns().iter().all(|pattern| {
        let free: Vec<usize> = (0..16)
            .filter(|&c| !pattern.tiles().contains(&(board.tiles()[c] as u8)))
            .collect();
        let mut seen = vec![free[0]];
        let mut i = 0;
        while i < seen.len() {
            let c = seen[i];
            for d in free.iter().copied() {
                let adjacent = (c / 4 == d / 4 && c.abs_diff(d) == 1) || c.abs_diff(d) == 4;
                if adjacent && !seen.contains(&d) {
                    seen.push(d);
                }
            }
            i += 1;
        }
        seen.len() == free.len()
    })
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
        let partition = Partition::parse(name, 4, Goal::BlankLast).unwrap();
        let pdbs = file::open_partition(tables(), &partition).unwrap();
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
    let partition = Partition::parse("6z-6z-3z", 4, Goal::BlankLast).unwrap();
    let pdbs = file::open_partition(tables(), &partition).unwrap();
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

/// The search over tables agrees with linear-conflict IDA* on boards a
/// moderate number of random moves from the goal.
#[test]
fn pdb_search_agrees_with_linear_conflict_search() {
    let partition = Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap();
    let pdbs = file::open_partition(tables(), &partition).unwrap();
    let mut rng = SplitMix64::new(7);
    for i in 0..40 {
        let board = random_walk(4, Goal::BlankLast, 30 + i, &mut rng);
        let request = Request {
            goal: Goal::BlankLast,
            algorithm: Algorithm::IdaStar,
            heuristic: HeuristicKind::LinearConflict,
            max_nodes: None,
            parallel: false,
        };
        let truth = npuzzle_search::solve(&board, &request).unwrap();
        for reflect in [false, true] {
            let s = npuzzle_search::solve_additive(&board, &request, &pdbs, reflect).unwrap();
            assert_eq!(s.moves.len(), truth.moves.len(), "{board}");
            assert!(board.solves(&s.moves, Goal::BlankLast));
        }
    }
}

/// The values examples/read_pdb.py reads for `boards` from the unpacked
/// table `table`.
fn python_lookups(table: &Path, boards: &[Board]) -> Vec<u32> {
    let output = Command::new("python3")
        .arg(repo_root().join("examples/read_pdb.py"))
        .arg(table)
        .args(boards.iter().map(|b| {
            b.tiles()
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(",")
        }))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

#[test]
fn the_python_reader_agrees_with_the_rust_lookup() {
    if Command::new("python3").arg("--version").output().is_err() {
        panic!("python3 is needed for this test (.ci/run installs it)");
    }
    let partition = Partition::parse("6-6-3+6z-6z-3z", 4, Goal::BlankLast).unwrap();
    let pdbs = file::open_partition(tables(), &partition).unwrap();
    let mut rng = SplitMix64::new(2024);
    let boards: Vec<Board> = (0..200)
        .map(|_| random_board(4, Goal::BlankLast, &mut rng))
        .collect();
    for (pattern, pdb) in partition.patterns().iter().zip(&pdbs) {
        let raw = file::cache_path(&tables().join(file::file_name(pattern)));
        let python = python_lookups(&raw, &boards);
        let rust: Vec<u32> = boards.iter().map(|b| pdb.lookup(b).unwrap()).collect();
        assert_eq!(python, rust, "pattern {pattern}");
    }
    // Zero-aware tables of format version 2 (one entry per free cell), which
    // npuzzle no longer builds but still reads: both readers agree on them
    // and with the version-3 table of the same pattern.
    let dir = scratch();
    let pattern = npuzzle_pdb::Pattern::new(4, Goal::BlankLast, vec![1, 2, 3, 5, 6]).unwrap();
    let mut values = Vec::new();
    for scheme in [
        npuzzle_pdb::IndexScheme::PlacementAndCell,
        npuzzle_pdb::IndexScheme::PlacementAndRegion,
    ] {
        let pattern = pattern.clone().with_index_scheme(scheme).unwrap();
        let image = npuzzle_pdb::build_file(&pattern, 1, |_| {}).unwrap();
        let path = dir.path().join(format!("{scheme:?}.pdb"));
        std::fs::write(&path, &image).unwrap();
        let pdb = npuzzle_pdb::Pdb::from_bytes(image).unwrap();
        let python = python_lookups(&path, &boards[..50]);
        let rust: Vec<u32> = boards
            .iter()
            .take(50)
            .map(|b| pdb.lookup(b).unwrap())
            .collect();
        assert_eq!(python, rust, "{scheme:?}");
        values.push(rust);
    }
    assert_eq!(values[0], values[1]);
}

/// The stdlib reader runs as a program (executable, maps the file), points
/// from a packed file to its unpacked copy, and refuses bad boards by name.
#[test]
fn the_python_reader_explains_what_it_refuses() {
    let partition = Partition::parse("6-6-3", 4, Goal::BlankLast).unwrap();
    let packed = tables().join(file::file_name(&partition.patterns()[0]));
    let unpacked = file::cache_path(&packed);
    let reader = repo_root().join("examples/read_pdb.py");
    let run = |args: &[&std::ffi::OsStr]| {
        // Run directly, as a user would: the file is executable.
        let output = Command::new(&reader).args(args).output().unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (status, _, stderr) = run(&[packed.as_os_str(), HARD.as_ref()]);
    assert_eq!(status, 1, "{stderr}");
    assert!(stderr.contains("compressed with zstd"), "{stderr}");
    assert!(stderr.contains(&unpacked.display().to_string()), "{stderr}");

    let (status, stdout, stderr) = run(&[unpacked.as_os_str(), HARD.as_ref()]);
    assert_eq!(status, 0, "{stderr}");
    let pdb = file::open_partition(tables(), &partition).unwrap();
    let board = npuzzle_board::parse_board(HARD).unwrap();
    assert_eq!(stdout.trim(), pdb[0].lookup(&board).unwrap().to_string());

    for (board, expected) in [
        (
            "1 2 3 4 5 6 7 8 0",
            "9 numbers, but the table is for 4x4 boards",
        ),
        (
            "1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
            "tile 1 appears twice",
        ),
        (
            "16 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15",
            "16 is not a tile of a 4x4 board",
        ),
        ("1 2 x 4", "'x' is not a tile number"),
    ] {
        let (status, _, stderr) = run(&[unpacked.as_os_str(), board.as_ref()]);
        assert_eq!(status, 2, "{board}: {stderr}");
        assert!(stderr.contains(expected), "{board}: {stderr}");
        assert!(!stderr.contains("Traceback"), "{stderr}");
    }
}

const HARD: &str = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";

/// `npuzzle solve ARGS --partition PARTITION --pdb-dir DATA BOARD`, run in `dir`.
fn solve_over(dir: &Path, data: &Path, partition: &str, args: &[&str], board: &str) -> Run {
    let data = dir_arg(data);
    let mut all = vec!["solve"];
    all.extend(args);
    all.extend(["--partition", partition, "--pdb-dir", &data, board]);
    npuzzle_in(dir, &all, "")
}

/// Solving with damaged tables in `data` fails with a message that names the
/// problem and the rebuild command; it never answers.
fn assert_refused(dir: &Path, data: &Path, expected: &str) {
    let run = solve_over(dir, data, "6-6-3", &[], HARD);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(!run.stdout.contains("Minimum number of moves"));
    assert!(
        run.stderr.contains(expected),
        "wanted '{expected}' in: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("npuzzle pdb build") && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
}

/// Recompresses a packed table after `damage` changed its image: a valid
/// zstd frame around bytes that only our checksums can catch.
fn repack(packed: &Path, damage: impl FnOnce(&mut Vec<u8>)) {
    let mut image = zstd::decode_all(std::fs::File::open(packed).unwrap()).unwrap();
    damage(&mut image);
    overwrite(packed, &zstd::encode_all(&image[..], 3).unwrap());
}

/// Writes over a read-only table file, as a careless program would.
fn overwrite(path: &Path, bytes: &[u8]) {
    let _ = std::fs::remove_file(path);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn damaged_tables_are_refused_with_a_rebuild_command() {
    let packed_of = |data: &Path| blank_last_pattern_file(data, "6-6-3", 2);

    // Truncated packed file, no cache.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    let bytes = std::fs::read(&packed).unwrap();
    overwrite(&packed, &bytes[..bytes.len() / 2]);
    assert_refused(
        dir.path(),
        &data,
        "not a valid zstd-compressed pattern database",
    );

    // A changed table byte inside a valid zstd frame, no cache: our CRC
    // catches it, every time.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    repack(&packed, |image| {
        let at = image.len() - 100;
        image[at] ^= 0x40;
    });
    let run = solve_over(dir.path(), &data, "6-6-3", &[], HARD);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("the table is corrupt"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("Minimum number of moves"));

    // A truncated cache is unpacked again from the packed file: still correct.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let cache = file::cache_path(&packed_of(&data));
    let bytes = std::fs::read(&cache).unwrap();
    overwrite(&cache, &bytes[..bytes.len() - 7]);
    let run = solve_over(
        dir.path(),
        &data,
        "6-6-3",
        &["--json"],
        "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15",
    );
    assert_eq!(run.json_records()[0]["length"], 1, "{}", run.stderr);
    assert_eq!(std::fs::read(&cache).unwrap().len(), bytes.len());

    // A foreign file under the right name.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    overwrite(&packed, b"hello, I am not a table");
    assert_refused(
        dir.path(),
        &data,
        "not a valid zstd-compressed pattern database",
    );

    // A packed file of a future format version (header CRC made to match).
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    repack(&packed, |image| {
        image[20] = 4;
        image[60..64].copy_from_slice(&[0; 4]);
        let crc = crc32fast::hash(&image[..4096]);
        image[60..64].copy_from_slice(&crc.to_le_bytes());
    });
    assert_refused(
        dir.path(),
        &data,
        "format version 4, but this npuzzle reads versions 1 to 3",
    );

    // A table for the other goal under this goal's name.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let blank_first = Partition::parse("5-5-5", 4, Goal::BlankFirst).unwrap();
    let blank_last = Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap();
    let wrong = data.join(file::file_name(&blank_first.patterns()[0]));
    let right = data.join(file::file_name(&blank_last.patterns()[0]));
    overwrite(&right, &std::fs::read(&wrong).unwrap());
    let run = solve_over(dir.path(), &data, "5-5-5", &[], HARD);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("it is not the table wanted"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("goal blank-first"), "{}", run.stderr);
}

#[test]
fn a_damaged_cache_is_never_used() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let solve = || solve_over(dir.path(), &data, "6-6-3", &["--json"], HARD);
    assert_eq!(solve().json_records()[0]["length"], 80);
    // One changed byte in the middle of a mapped cache file, header intact.
    let packed = blank_last_pattern_file(&data, "6-6-3", 0);
    let cache = file::cache_path(&packed);
    let mut bytes = std::fs::read(&cache).unwrap();
    let at = 4096 + (bytes.len() - 4096) / 2;
    bytes[at] = bytes[at].wrapping_add(0x0c);
    overwrite(&cache, &bytes);
    let verify = npuzzle_in(dir.path(), &["pdb", "verify", packed.to_str().unwrap()], "");
    assert_eq!(verify.status, 1);
    assert!(verify.stderr.contains("unpacked copy"), "{}", verify.stderr);
    let run = solve();
    assert_eq!(run.json_records()[0]["length"], 80, "{}", run.stderr);
    assert!(
        run.stderr.contains("replacing the unpacked table"),
        "{}",
        run.stderr
    );
    let again = npuzzle_in(dir.path(), &["pdb", "verify", packed.to_str().unwrap()], "");
    assert_eq!(again.status, 0, "{}", again.stderr);
    // The replaced cache is read-only for everyone.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&cache).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444);
}

#[test]
fn missing_tables_say_how_to_build_them() {
    let dir = scratch();
    // Asked for: refused, with the command that builds them.
    let run = npuzzle_in(dir.path(), &["solve", "--heuristic", "pdb", HARD], "");
    assert_eq!(run.status, 1);
    for needle in ["no pattern databases for 4x4", "npuzzle pdb build", "--out"] {
        assert!(run.stderr.contains(needle), "{needle}: {}", run.stderr);
    }
    assert!(!run.stdout.contains("moves ="), "{}", run.stdout);
    // By default: said once, then answered without them.
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--no-moves"],
        &format!("{HARD}\n{HARD}\n"),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("no pattern databases for 4x4").count(),
        1
    );
    assert_eq!(
        run.stdout.matches("not optimal").count(),
        2,
        "{}",
        run.stdout
    );
}

#[test]
fn pdb_info_wants_a_file_and_prints_the_header_at_once() {
    let run = npuzzle_in(tables(), &["pdb", "info", "."], "");
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("is a directory"), "{}", run.stderr);
    let path = blank_last_pattern_file(tables(), "5-5-5", 0);
    let run = npuzzle_in(tables(), &["pdb", "info", path.to_str().unwrap()], "");
    assert_eq!(run.status, 0);
    assert!(run.stdout.contains("--histogram"), "{}", run.stdout);
}

#[test]
fn oversized_patterns_are_refused_before_allocating() {
    let dir = scratch();
    for (args, needle) in [
        (vec!["--partition", "1,2,3,4,5,6,7,8,9,10"], "GB of memory"),
        (
            vec!["--size", "5", "--partition", "1,2,3,4,5,6,7,8,9"],
            "GB of memory",
        ),
        (
            vec!["--size", "8", "--partition", "1,2,3,4,5,6,7,8,9,10,11,12"],
            "2^40",
        ),
        (
            vec!["--threads", "100000"],
            "--threads 100000 is out of range",
        ),
    ] {
        let mut all = vec!["pdb", "build", "--out", "."];
        all.extend(args);
        let run = npuzzle_in(dir.path(), &all, "");
        assert_ne!(run.status, 0, "{all:?}");
        assert!(run.stderr.contains(needle), "{all:?}: {}", run.stderr);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Four solvers started together on a fresh directory unpack each table once.
#[test]
fn simultaneous_first_opens_unpack_once() {
    let dir = scratch();
    let data = dir.path().join("fresh");
    std::fs::create_dir(&data).unwrap();
    let partition = Partition::parse("6-6-3", 4, Goal::BlankLast).unwrap();
    for pattern in partition.patterns() {
        let name = file::file_name(pattern);
        std::fs::copy(tables().join(&name), data.join(&name)).unwrap();
    }
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_npuzzle"))
                .args(["solve", "--json", "--partition", "6-6-3", "--pdb-dir"])
                .arg(&data)
                .arg(HARD)
                .env("NPUZZLE_CACHE_DIR", dir.path().join("user-cache"))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        assert!(String::from_utf8_lossy(&output.stdout).contains("\"length\":80"));
        // A second unpack over a first would say it replaced the table.
        assert!(
            output.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let names: Vec<String> = std::fs::read_dir(data.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|n| n.ends_with(".pdb")), "{names:?}");
}

/// When the table directory cannot hold the cache, the per-user cache
/// directory does, and then memory; answers stay right.
#[test]
fn an_unwritable_cache_falls_back() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    std::fs::remove_dir_all(data.join("cache")).unwrap();
    // `cache` is a file: the directory cannot be made.
    std::fs::write(data.join("cache"), b"in the way").unwrap();
    let user = dir.path().join("user-cache");
    let run = |cache_dir: &Path| {
        let output = Command::new(env!("CARGO_BIN_EXE_npuzzle"))
            .args(["solve", "--json", "--partition", "6-6-3", "--pdb-dir"])
            .arg(&data)
            .arg(HARD)
            .env("NPUZZLE_CACHE_DIR", cache_dir)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (status, stdout, stderr) = run(&user);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("\"length\":80"));
    assert!(
        stderr.contains("cannot write the unpacked table"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&user).unwrap().count(), 3);
    // No writable cache anywhere: unpacked into memory.
    let (status, stdout, stderr) = run(&data.join("cache").join("sub"));
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("\"length\":80"));
    assert!(stderr.contains("into memory"), "{stderr}");
}

/// A build killed half-way through writing leaves no file under a real
/// name; the next build removes its temporary file and succeeds.
#[test]
fn an_interrupted_build_leaves_nothing_that_loads() {
    let dir = scratch();
    let build = |kill: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_npuzzle"));
        command
            .args(["pdb", "build", "--partition", "5-5-5", "--out", "."])
            .current_dir(dir.path());
        if let Some(after) = kill {
            command.env("NPUZZLE_KILL_WRITE_AFTER", after);
        }
        command.output().unwrap()
    };
    let killed = build(Some("20000"));
    assert!(!killed.status.success());
    let names = || -> Vec<String> {
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let after_kill = names();
    assert!(
        after_kill.iter().all(|n| !n.ends_with(".pdb.zst")),
        "{after_kill:?}"
    );
    assert!(
        after_kill.iter().any(|n| n.ends_with(".tmp")),
        "{after_kill:?}"
    );
    let args = [
        "solve",
        "--partition",
        "5-5-5",
        "--heuristic",
        "pdb",
        "--pdb-dir",
        ".",
        HARD,
    ];
    let run = npuzzle_in(dir.path(), &args, "");
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("no pattern databases"),
        "{}",
        run.stderr
    );
    let rebuilt = build(None);
    assert!(rebuilt.status.success());
    let after = names();
    assert!(after.iter().all(|n| !n.ends_with(".tmp")), "{after:?}");
    assert_eq!(after.iter().filter(|n| n.ends_with(".pdb.zst")).count(), 3);
}

/// 5x5 boards go through the same tables and search: a partial partition
/// (four 3-tile patterns, the other tiles counted by nothing) stays
/// admissible, and solutions match linear-conflict IDA*.
#[test]
fn five_by_five_boards_are_solved_optimally_over_tables() {
    let dir = scratch();
    let partition = "1,2,3;4,5,6;7,8,9;10,11,12";
    let build = npuzzle_in(
        dir.path(),
        &[
            "pdb",
            "build",
            "--size",
            "5",
            "--partition",
            partition,
            "--out",
            ".",
        ],
        "",
    );
    assert_eq!(build.status, 0, "{}", build.stderr);
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

/// A small packed file whose header (its CRC valid) claims a huge table:
/// refused as truncated, with nothing allocated for the claim.
#[test]
fn crafted_headers_are_refused_without_allocating() {
    use npuzzle_pdb::Pattern;
    let dir = scratch();
    for (size, tiles) in [(4usize, 10u8), (5, 8)] {
        let pattern = Pattern::new(size, Goal::BlankLast, (1..=tiles).collect()).unwrap();
        let entries = pattern.placements();
        // The header as docs/pdb-format.md lays it out, written independently.
        let mut bytes = vec![0u8; 4096];
        bytes[..16].copy_from_slice(b"npuzzle-pdb\0\0\0\0\0");
        bytes[16..20].copy_from_slice(&0x0A0B_0C0Du32.to_le_bytes());
        bytes[20..22].copy_from_slice(&1u16.to_le_bytes());
        bytes[22..24].copy_from_slice(&4096u16.to_le_bytes());
        bytes[24] = size as u8;
        bytes[26] = tiles;
        bytes[27] = 1; // placement rank, least value over blank regions
        bytes[28] = 2; // nibble excess
        bytes[29] = 60;
        bytes[32..40].copy_from_slice(&entries.to_le_bytes());
        bytes[40..48].copy_from_slice(&entries.div_ceil(2).to_le_bytes());
        bytes[48..56].copy_from_slice(&4096u64.to_le_bytes());
        bytes[64..64 + tiles as usize].copy_from_slice(pattern.tiles());
        let crc = crc32fast::hash(&bytes);
        bytes[60..64].copy_from_slice(&crc.to_le_bytes());
        let header = npuzzle_pdb::Header::parse(&bytes).expect("the crafted header parses");
        assert_eq!(header.entries(), entries);
        let path = dir.path().join(format!("crafted-{size}.pdb.zst"));
        std::fs::write(&path, zstd::encode_all(&bytes[..], 19).unwrap()).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 200);
        for command in ["verify", "info"] {
            let run = npuzzle_in(dir.path(), &["pdb", command, path.to_str().unwrap()], "");
            assert_eq!(run.status, 1, "{command}: {}", run.stderr);
            assert!(
                run.stderr.contains("truncated"),
                "{command}: {}",
                run.stderr
            );
        }
        // The same header claiming an 8x8 board: more than 2^40 placements.
        bytes[24] = 8;
        bytes[60..64].copy_from_slice(&[0; 4]);
        let crc = crc32fast::hash(&bytes);
        bytes[60..64].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, zstd::encode_all(&bytes[..], 19).unwrap()).unwrap();
        let run = npuzzle_in(dir.path(), &["pdb", "verify", path.to_str().unwrap()], "");
        assert_eq!(run.status, 1, "{}", run.stderr);
        assert!(run.stderr.contains("2^40"), "{}", run.stderr);
    }
}

/// Whether this run may switch users and mount (root, as in CI): the two
/// tests below need it, and say so when they cannot run.
fn privileged() -> bool {
    let ok = Command::new("unshare")
        .args(["-m", "true"])
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status()
            .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: needs root (unshare, setpriv), as CI has");
    }
    ok
}

/// As a user who cannot write the table directory, the per-user cache
/// takes the unpacked tables; the message names the real path and cause.
#[test]
fn a_read_only_table_directory_falls_back_for_other_users() {
    if !privileged() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("tables");
    std::fs::create_dir(&data).unwrap();
    for pattern in Partition::parse("6-6-3", 4, Goal::BlankLast)
        .unwrap()
        .patterns()
    {
        let name = file::file_name(pattern);
        std::fs::copy(tables().join(&name), data.join(&name)).unwrap();
    }
    let user_cache = dir.path().join("user-cache");
    std::fs::create_dir(&user_cache).unwrap();
    std::fs::set_permissions(&user_cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let binary = dir.path().join("npuzzle");
    std::fs::copy(env!("CARGO_BIN_EXE_npuzzle"), &binary).unwrap();
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&binary)
        .args(["solve", "--json", "--partition", "6-6-3", "--pdb-dir"])
        .arg(&data)
        .arg(HARD)
        .env("NPUZZLE_CACHE_DIR", &user_cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"length\":80"));
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(
        stderr.contains(&data.join("cache").display().to_string()),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&user_cache).unwrap().count(), 3);
}

/// A filesystem too full for the unpacked tables: refused before writing
/// (no half-written file), and the per-user cache takes them.
#[test]
fn a_full_filesystem_falls_back_before_writing() {
    if !privileged() {
        return;
    }
    let dir = scratch();
    let mount = dir.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    let mut copy = String::new();
    for pattern in Partition::parse("6-6-3", 4, Goal::BlankLast)
        .unwrap()
        .patterns()
    {
        let name = file::file_name(pattern);
        copy.push_str(&format!(
            "cp '{}' '{}/' && ",
            tables().join(&name).display(),
            mount.display()
        ));
    }
    let script = format!(
        "mount -t tmpfs -o size=3m tmpfs '{m}' && {copy} '{bin}' solve --json --partition 6-6-3 \
         --pdb-dir '{m}' '{HARD}'; status=$?; ls -a '{m}/cache' >&2; exit $status",
        m = mount.display(),
        bin = env!("CARGO_BIN_EXE_npuzzle"),
    );
    let output = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .env("NPUZZLE_CACHE_DIR", dir.path().join("user-cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"length\":80"));
    assert!(stderr.contains("no room"), "{stderr}");
    assert!(
        !stderr.lines().any(|l| l.ends_with(".tmp")),
        "a temporary file was left: {stderr}"
    );
}
