//! Fuzzing the board parser, the batch reader and the command line: seed
//! boards and files mutated (byte flips, deletions, duplications,
//! separators, huge numbers, signs, non-UTF-8, NUL). A few thousand cases
//! run in every test run; `cargo xtask fuzz` runs millions
//! (`NPUZZLE_FUZZ_CASES`, `NPUZZLE_FUZZ_CLI_CASES`, `NPUZZLE_FUZZ_SEED`).
//! Every input that ever failed is kept in `tests/fuzz-regressions/` and
//! replayed first.
//!
//! Invariants: no panic; the parser accepts exactly what an independent
//! reference reader accepts, with the same tiles; in a batch, every line
//! that is a valid board on its own is answered, once, at its line; the
//! binary exits 0, 1 or 2 within its time bound and never panics.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use npuzzle_board::{parse_board, parse_set_line, BatchReader, SplitMix64};

use crate::harness::{repo_root, scratch, UserDirs};

pub(crate) fn env_count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const SEEDS: &[&str] = &[
    "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1",
    "0,12,9,13,15,11,10,14,3,7,2,5,4,8,6,1",
    "0 12 9 13/15 11 10 14/3 7 2 5/4 8 6 1",
    "3 8 1 3 4 0 2 7 6 5",
    "8 1 3 4 0 2 7 6 5",
    "1 2 3 0",
    "2\n1 2\n3 0\n",
    "3\n 0  1  3\n 4  2  5\n 7  8  6\n",
    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 0 24",
    "# comment\n1 2 3 0 # trailing\n\n",
    "1 80 0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1",
    "puzzle04.txt 3 4 4 0 1 3 4 2 5 7 8 6",
];

const PIECES: &[&[u8]] = &[
    b" ",
    b",",
    b"/",
    b"\n",
    b"\r\n",
    b"\t",
    b"#",
    b"+",
    b"-",
    b"0",
    b"1",
    b"3",
    b"16",
    b"99999999999999999999999999",
    b"18446744073709551616",
    b"\0",
    b"\xff\xfe",
    b"\xe2\x80\x83",
    b"x",
    b"\xef\xbc\x91",
    b"127",
    b"128",
    b"-1",
];

/// One mutation of `input`.
fn mutate(input: &mut Vec<u8>, rng: &mut SplitMix64) {
    let len = input.len();
    let at = |rng: &mut SplitMix64| rng.below(len as u64 + 1) as usize;
    match rng.below(6) {
        0 if len > 0 => {
            let i = rng.below(len as u64) as usize;
            input[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let start = at(rng).min(len - 1);
            let end = (start + 1 + rng.below(8) as usize).min(len);
            input.drain(start..end);
        }
        2 if len > 0 => {
            let start = at(rng).min(len - 1);
            let end = (start + 1 + rng.below(16) as usize).min(len);
            let copy = input[start..end].to_vec();
            let to = at(rng);
            input.splice(to..to, copy);
        }
        3 => {
            let piece = PIECES[rng.below(PIECES.len() as u64) as usize];
            let to = at(rng);
            input.splice(to..to, piece.iter().copied());
        }
        4 if len > 0 => {
            let i = rng.below(len as u64) as usize;
            input[i] = PIECES[rng.below(PIECES.len() as u64) as usize][0];
        }
        _ => {
            let seed = SEEDS[rng.below(SEEDS.len() as u64) as usize].as_bytes();
            input.extend_from_slice(if rng.below(2) == 0 { b"\n" } else { b" " });
            input.extend_from_slice(seed);
        }
    }
}

fn fresh_case(rng: &mut SplitMix64) -> Vec<u8> {
    let mut input = SEEDS[rng.below(SEEDS.len() as u64) as usize]
        .as_bytes()
        .to_vec();
    for _ in 0..1 + rng.below(4) {
        mutate(&mut input, rng);
    }
    input
}

/// The numbers' words of a line: split at white space, commas and '/'.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '/')
        .filter(|t| !t.is_empty())
        .collect()
}

/// Whether every comma stands between two numbers of its row: scanning
/// the text, a comma needs content since the last separator of a row (a
/// comma, a '/' or the start), and a row's end needs content after a comma.
fn commas_between_numbers(text: &str) -> bool {
    let mut content = false;
    let mut after_comma = false;
    for c in text.chars().chain(std::iter::once('/')) {
        match c {
            ',' if !content => return false,
            ',' => (content, after_comma) = (false, true),
            '/' if after_comma && !content => return false,
            '/' => (content, after_comma) = (false, false),
            c if c.is_whitespace() => {}
            _ => content = true,
        }
    }
    true
}

/// Whether rows given with '/' are the rows of an n x n board: n numbers
/// each, the algs4 size (when `header`) alone on the first row or first in it.
fn rows_fit(text: &str, n: usize, header: bool) -> bool {
    if !text.contains('/') {
        return true;
    }
    let mut counts: Vec<usize> = text.split('/').map(|row| words(row).len()).collect();
    if header {
        match counts.first() {
            Some(1) => {
                counts.remove(0);
            }
            Some(&first) if first > 0 => counts[0] = first - 1,
            _ => return false,
        }
    }
    counts.iter().all(|&count| count == n)
}

/// The reference reader: what a board must be, written independently of
/// the parser (n*n numbers, or n then n*n; plain digits; a permutation;
/// no empty field between commas; '/' only between the board's rows).
fn reference(text: &str) -> Option<Vec<u16>> {
    let tokens = words(text);
    if tokens.is_empty() || !tokens.iter().all(|t| t.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    if !commas_between_numbers(text) {
        return None;
    }
    let values: Vec<u128> = tokens
        .iter()
        .map(|t| t.parse::<u128>().unwrap_or(u128::MAX))
        .collect();
    let permutation = |values: &[u128]| -> Option<Vec<u16>> {
        let n = (2..=127usize).find(|n| n * n == values.len())?;
        let mut seen = vec![false; n * n];
        for &v in values {
            let slot = seen.get_mut(usize::try_from(v).ok()?)?;
            if std::mem::replace(slot, true) {
                return None;
            }
        }
        Some(values.iter().map(|&v| v as u16).collect())
    };
    if let Some(n) = (2..=127usize).find(|n| n * n == values.len()) {
        return rows_fit(text, n, false).then(|| permutation(&values))?;
    }
    let n = (2..=127usize).find(|n| n * n + 1 == values.len())?;
    (values[0] == n as u128 && rows_fit(text, n, true)).then(|| permutation(&values[1..]))?
}

/// Checks one input against every invariant of the in-process readers.
fn check_input(bytes: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let parsed = parse_board(&text).ok().map(|b| b.tiles().to_vec());
        if parsed != reference(&text) {
            return Err(format!(
                "parser {parsed:?}, reference {:?}",
                reference(&text)
            ));
        }
        let _ = parse_set_line(&text);
        // Batch: every line that is a board on its own is answered at its line.
        let items: Vec<_> = BatchReader::new(bytes).collect();
        let mut lines_seen = std::collections::HashSet::new();
        for item in &items {
            if !lines_seen.insert(item.line) && item.board.is_ok() {
                return Err(format!("line {} answered twice", item.line));
            }
        }
        let lines: Vec<Option<&str>> = bytes
            .split(|&b| b == b'\n')
            .map(|l| {
                std::str::from_utf8(l)
                    .ok()
                    .map(|l| l.split('#').next().unwrap_or("").trim())
            })
            .collect();
        for (i, content) in lines.iter().enumerate() {
            let Some(tiles) = content.and_then(reference) else {
                continue;
            };
            match items.iter().find(|it| it.line == i + 1) {
                Some(item) => {
                    let found = item.board.as_ref().ok().map(|b| b.tiles().to_vec());
                    if found.as_deref() != Some(&tiles[..]) {
                        return Err(format!("line {} read as {found:?}", i + 1));
                    }
                }
                None if !is_block_row(&lines, i) => {
                    return Err(format!("line {} lost", i + 1));
                }
                None => {}
            }
        }
        Ok(())
    }));
    outcome.unwrap_or_else(|_| Err("panic".to_string()))
}

/// Whether line `i` can be a row of an algs4 block started above it: a lone
/// n on an earlier line, and at most n lines of exactly n numbers from
/// there to line `i` (a legitimate reading, not a lost board).
fn is_block_row(lines: &[Option<&str>], i: usize) -> bool {
    let width = lines[i].map_or(0, |l| words(l).len());
    let mut rows = 1;
    for line in lines[..i].iter().rev() {
        let Some(line) = line else { return false };
        if line.is_empty() {
            continue;
        }
        let found = words(line);
        if found.len() == 1 && found[0].parse::<usize>() == Ok(width) {
            return rows <= width;
        }
        if found.len() != width {
            return false;
        }
        rows += 1;
    }
    false
}

fn regressions() -> Vec<(String, Vec<u8>)> {
    let dir = repo_root().join("tests/fuzz-regressions");
    let mut cases: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}

fn report(failures: &[(Vec<u8>, String)]) {
    if failures.is_empty() {
        return;
    }
    let dir = std::env::temp_dir().join("npuzzle-fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    for (i, (input, why)) in failures.iter().enumerate().take(20) {
        let _ = std::fs::write(dir.join(format!("case-{i}.txt")), input);
        eprintln!("{why}: {:?}", String::from_utf8_lossy(input));
    }
    panic!(
        "{} failing inputs, written to {} (keep them under tests/fuzz-regressions/)",
        failures.len(),
        dir.display()
    );
}

#[test]
fn fuzz_the_board_readers() {
    let cases = env_count("NPUZZLE_FUZZ_CASES", 5_000);
    let mut rng = SplitMix64::new(env_count("NPUZZLE_FUZZ_SEED", 1));
    let mut failures = Vec::new();
    for (name, input) in regressions() {
        if let Err(why) = check_input(&input) {
            failures.push((input, format!("regression {name}: {why}")));
        }
    }
    let started = Instant::now();
    for _ in 0..cases {
        let input = fresh_case(&mut rng);
        if let Err(why) = check_input(&input) {
            failures.push((input, why));
        }
    }
    eprintln!(
        "fuzz: {cases} parser cases in {:.1} s, {} failures",
        started.elapsed().as_secs_f64(),
        failures.len()
    );
    report(&failures);
}

const FLAGS: &[&str] = &[
    "--json",
    "--boards",
    "--no-moves",
    "--fast",
    "--set",
    "--check",
    "--format",
    "algs4",
    "--notation",
    "blank",
    "--goal",
    "blank-first",
    "--jobs",
    "2",
    "--jobs",
    "0",
    "--algorithm",
    "bfs",
    "--heuristic",
    "hamming",
    "--max-nodes",
    "1000",
    "--partition",
    "x",
    "--file",
    "-",
    "--svg",
];

#[test]
fn fuzz_the_command_line() {
    let cases = env_count("NPUZZLE_FUZZ_CLI_CASES", 200);
    let mut rng = SplitMix64::new(env_count("NPUZZLE_FUZZ_SEED", 1) ^ 0x5eed);
    let dir = scratch();
    let user = UserDirs::new();
    let mut failures = Vec::new();
    for case in 0..cases {
        let mut args: Vec<String> = vec!["solve".to_string()];
        for _ in 0..rng.below(3) {
            args.push(FLAGS[rng.below(FLAGS.len() as u64) as usize].to_string());
        }
        let board = fresh_case(&mut rng);
        let stdin = rng.below(2) == 0;
        if !stdin {
            args.push(String::from_utf8_lossy(&board).replace('\0', ""));
        }
        let mut child = user
            .apply(&mut Command::new(env!("CARGO_BIN_EXE_npuzzle")))
            .args(&args)
            .current_dir(dir.path())
            .env("NPUZZLE_PDB_DIR", dir.path().join("none"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        if stdin {
            let _ = input.write_all(&board);
        }
        drop(input);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if started.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let mut stderr = String::new();
        let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr);
        let why = match status.and_then(|s| s.code()) {
            None => Some("killed by a signal or the time bound".to_string()),
            Some(0..=2) if !stderr.contains("panicked") => None,
            Some(code) => Some(format!("exit {code}: {stderr}")),
        };
        if let Some(why) = why {
            failures.push((board, format!("case {case} {args:?}: {why}")));
        }
    }
    report(&failures);
}

/// The C ABI under random calls (tests/c/fuzz_abi.c): no crash, no panic
/// text on the host's stderr, every answer checked by the program.
#[test]
fn fuzz_the_c_abi() {
    let cases = env_count("NPUZZLE_FUZZ_C_CASES", 3_000);
    let seed = env_count("NPUZZLE_FUZZ_SEED", 1);
    let scratch = scratch();
    let user = UserDirs::new();
    let exe = crate::reuse::compile_c("tests/c/fuzz_abi.c", scratch.path(), true);
    let started = Instant::now();
    let output = user
        .apply(&mut Command::new(&exe))
        .arg(crate::tables::tables())
        .arg(cases.to_string())
        .arg(seed.to_string())
        .current_dir(scratch.path())
        .env("NPUZZLE_PDB_DIR", scratch.path().join("none"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(
        stderr.is_empty(),
        "the library wrote to the host's stderr: {stderr}"
    );
    eprintln!(
        "fuzz: C ABI, {} in {:.1} s",
        stdout.trim(),
        started.elapsed().as_secs_f64()
    );
}

/// Every 3x3 board's distance to the blank-last goal, by breadth-first
/// search from the goal: the truth the crafted-table cases are held to.
fn distances_3x3() -> std::collections::HashMap<Vec<u16>, u32> {
    use npuzzle_board::Goal;
    let goal = Goal::BlankLast.board(3);
    let mut distance = std::collections::HashMap::from([(goal.tiles().to_vec(), 0u32)]);
    let mut frontier = vec![goal];
    let mut depth = 0;
    while !frontier.is_empty() {
        depth += 1;
        let mut next = Vec::new();
        for board in &frontier {
            let moves: Vec<_> = board.legal_moves().collect();
            for m in moves {
                let mut child = board.clone();
                child.apply(m);
                if !distance.contains_key(child.tiles()) {
                    distance.insert(child.tiles().to_vec(), depth);
                    next.push(child);
                }
            }
        }
        frontier = next;
    }
    distance
}

/// One crafted change to a table image, its CRCs recomputed (the header's
/// last): bytes of the table raised, lowered or replaced, or a header
/// field changed. Returns what was done.
fn craft(image: &mut [u8], rng: &mut SplitMix64) -> String {
    let table_len = image.len() - 4096;
    let what = match rng.below(5) {
        0 => {
            let count = 1 + rng.below(4);
            for _ in 0..count {
                let at = 4096 + rng.below(table_len as u64) as usize;
                image[at] = image[at].wrapping_add(0x11 * (1 + rng.below(3) as u8));
            }
            format!("{count} bytes raised")
        }
        1 => {
            let at = 4096 + rng.below(table_len as u64) as usize;
            image[at] = 0;
            "a byte zeroed".to_string()
        }
        2 => {
            for byte in &mut image[4096..] {
                if *byte != 0 {
                    *byte = byte.saturating_add(0x11);
                }
            }
            "every non-zero byte raised".to_string()
        }
        3 => {
            let count = 1 + rng.below(8);
            for _ in 0..count {
                let at = 4096 + rng.below(table_len as u64) as usize;
                image[at] = rng.below(256) as u8;
            }
            format!("{count} random bytes")
        }
        _ => {
            image[29] = rng.below(256) as u8;
            "the maximum value changed".to_string()
        }
    };
    crate::tables::recompute_crcs(image);
    what
}

/// Crafted tables whose checksums all match, of a named partition (a
/// shipped digest) and of tile sets given by hand (built again at open):
/// every answer over them replays to the goal, and every answer called
/// optimal has the true length, or the tables are refused with a rebuild
/// command. `cargo xtask fuzz` runs thousands
/// (`NPUZZLE_FUZZ_TABLE_CASES`).
#[test]
fn fuzz_crafted_tables() {
    use npuzzle_board::Goal;
    use npuzzle_pdb::{build_file, file, Partition};
    let cases = env_count("NPUZZLE_FUZZ_TABLE_CASES", 40);
    let seed = env_count("NPUZZLE_FUZZ_SEED", 1);
    let mut rng = SplitMix64::new(seed ^ 0x7ab1_e5ca_fe00);
    let truth = distances_3x3();
    // Each partition with its tables' file names and images.
    type Images = Vec<(String, Vec<u8>)>;
    let sets: Vec<(&str, Images)> = ["4-4", "1,3,5,7;2,4,6,8"]
        .into_iter()
        .map(|name| {
            let partition = Partition::parse(name, 3, Goal::BlankLast).unwrap();
            let images = partition
                .patterns()
                .iter()
                .map(|p| (file::file_name(p), build_file(p, 1, |_| {}).unwrap()))
                .collect();
            (name, images)
        })
        .collect();
    let started = Instant::now();
    let (mut refused, mut answered) = (0, 0);
    for case in 0..cases {
        let (name, originals) = &sets[rng.below(sets.len() as u64) as usize];
        let mut images = originals.clone();
        let which = rng.below(images.len() as u64) as usize;
        let what = craft(&mut images[which].1, &mut rng);
        let dir = tempfile::tempdir().unwrap();
        for (file_name, image) in &images {
            let packed = zstd::encode_all(&image[..], 1).unwrap();
            std::fs::write(dir.path().join(file_name), packed).unwrap();
        }
        let context = format!("case {case} (seed {seed}), {name}, table {which}: {what}");
        let solver = npuzzle::Solver::builder()
            .pdb_dir(dir.path())
            .partition_for(3, *name)
            .heuristic(npuzzle::HeuristicKind::Pdb)
            .build()
            .unwrap();
        for _ in 0..4 {
            let board = npuzzle_board::random_board(3, Goal::BlankLast, &mut rng);
            match solver.solve(&board) {
                Ok(solution) => {
                    assert!(
                        board.solves(&solution.moves, Goal::BlankLast),
                        "{context}: {board} not solved"
                    );
                    let length = truth[board.tiles()];
                    assert!(
                        !solution.optimal || solution.length() as u32 == length,
                        "{context}: {board} answered in {} moves as optimal, the optimum is \
                         {length}",
                        solution.length()
                    );
                    answered += 1;
                }
                Err(npuzzle::Error::Tables(e)) => {
                    assert!(e.needs_build(), "{context}: {e}");
                    refused += 1;
                    break;
                }
                Err(other) => panic!("{context}: {other}"),
            }
        }
    }
    eprintln!(
        "fuzz: crafted tables, {cases} cases in {:.1} s: {refused} refused, {answered} boards \
         answered right",
        started.elapsed().as_secs_f64()
    );
}

/// Checkpoint files forged at random (`NPUZZLE_FUZZ_CHECKPOINT_CASES`, 20
/// here, more under `cargo xtask fuzz`). Edited without the user's key
/// (a field set to an odd value, an entry of a list changed, removed or
/// added, a byte flipped, the file cut): refused with status 2 and one
/// line, the file left as it was, unless the edit left its content as it
/// was. Signed again with the key but holding what no search can have (a
/// bound below the estimate or past a solution known, no iteration,
/// more nodes lost than expanded, another split depth): refused naming
/// the field. Never a panic, an abort or a wrong answer.
#[test]
fn fuzz_checkpoint_forgeries() {
    use crate::checkpoint::{resign, with_field};
    use crate::harness::npuzzle_as;

    let cases = env_count("NPUZZLE_FUZZ_CHECKPOINT_CASES", 20);
    let mut rng = SplitMix64::new(env_count("NPUZZLE_FUZZ_SEED", 1) ^ 0xc4ec);
    let dir = scratch();
    let user = UserDirs::new();
    // A board whose search splits (estimate above 10) and ends in moments.
    let board = npuzzle_board::random_walk(4, npuzzle_board::Goal::BlankLast, 44, &mut {
        SplitMix64::new(21)
    })
    .to_line();
    let solve = |extra: &[&str]| {
        let mut args = vec!["solve", &board, "--jobs", "1", "--json"];
        args.extend_from_slice(&["--heuristic", "linear-conflict"]);
        args.extend_from_slice(extra);
        npuzzle_as(&user, dir.path(), &args, "")
    };
    let whole = solve(&[]);
    assert_eq!(whole.status, 0, "{}", whole.stderr);
    let whole = &whole.json_records()[0];
    let expanded = whole["expanded"].as_u64().unwrap();
    let limit = (expanded / 3).max(1).to_string();
    let cut = solve(&["--max-nodes", &limit, "--checkpoint", "kept.json"]);
    assert_eq!(cut.status, 1, "{}", cut.stderr);
    let file = dir.path().join("kept.json");
    let kept = std::fs::read_to_string(&file).expect("a checkpoint");
    let parsed: serde_json::Value = serde_json::from_str(&kept).unwrap();
    const FIELDS: &[&str] = &[
        "bound",
        "iterations",
        "expanded",
        "generated",
        "lost",
        "runs",
    ];
    const ODD: &[&str] = &[
        "0",
        "1",
        "-1",
        "7",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "99999999999999999999",
        "1.5",
        "null",
        "\"9\"",
    ];
    let mut failures = Vec::new();
    let mut kinds = std::collections::BTreeMap::new();
    for case in 0..cases {
        let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n as u64) as usize;
        let (kind, text) = match pick(&mut rng, 6) {
            0 => {
                let field = FIELDS[pick(&mut rng, FIELDS.len())];
                let value = ODD[pick(&mut rng, ODD.len())];
                ("field", with_field(&kept, field, value))
            }
            1 => {
                let mut bytes = kept.clone().into_bytes();
                let at = pick(&mut rng, bytes.len());
                bytes[at] ^= 1 << pick(&mut rng, 8);
                ("flip", String::from_utf8_lossy(&bytes).into_owned())
            }
            2 => ("cut", kept[..pick(&mut rng, kept.len())].to_string()),
            3 => {
                // An entry of searched or came_near changed, dropped or
                // doubled.
                let mut value = parsed.clone();
                let list = ["searched", "came_near"][pick(&mut rng, 2)];
                let entries = value["progress"][list].as_array_mut().unwrap();
                if entries.is_empty() {
                    entries.push(serde_json::json!([65536, 50, 9]));
                } else {
                    let at = pick(&mut rng, entries.len());
                    match pick(&mut rng, 3) {
                        0 => {
                            entries.remove(at);
                        }
                        1 => {
                            let again = entries[at].clone();
                            entries.push(again);
                        }
                        _ => entries[at][0] = serde_json::json!(rng.next_u64() >> 30),
                    }
                }
                ("entry", serde_json::to_string(&value).unwrap())
            }
            4 => {
                // Impossible contents, signed with the user's key.
                let (field, value, named) = match pick(&mut rng, 8) {
                    0 => ("bound", "3".to_string(), "bound 3 is below"),
                    5 => ("bound", "0".to_string(), "bound is 0"),
                    6 => ("iterations", "4294967295".to_string(), "iterations is"),
                    7 => ("runs", "0".to_string(), "runs is 0"),
                    1 => (
                        "bound",
                        (400 + pick(&mut rng, 1 << 20)).to_string(),
                        "is above",
                    ),
                    2 => ("iterations", "0".to_string(), "iterations is 0"),
                    3 => ("lost", "18446744073709551615".to_string(), "lost"),
                    _ => (
                        "split_depth",
                        (pick(&mut rng, 8)).to_string(),
                        "split_depth is",
                    ),
                };
                let text = resign(&with_field(&kept, field, &value), &user);
                std::fs::write(&file, &text).unwrap();
                let run = solve(&["--checkpoint", "kept.json"]);
                *kinds.entry("signed impossible").or_insert(0) += 1;
                let named_ok = run.status == 2 && run.stderr.contains(named);
                if !named_ok || run.stderr.contains("panicked") {
                    failures.push((
                        text.into_bytes(),
                        format!(
                            "case {case}: signed {field} {value}: exit {}: {}",
                            run.status, run.stderr
                        ),
                    ));
                }
                continue;
            }
            _ => {
                let at = kept.rfind("\"code\":\"").unwrap() + 8;
                let mut code = kept.clone().into_bytes();
                code[at + pick(&mut rng, 64)] = b"0123456789abcdef"[pick(&mut rng, 16)];
                ("code", String::from_utf8_lossy(&code).into_owned())
            }
        };
        *kinds.entry(kind).or_insert(0) += 1;
        std::fs::write(&file, &text).unwrap();
        let run = solve(&["--checkpoint", "kept.json"]);
        let same_content =
            serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|value| value == parsed);
        let why = if run.stderr.contains("panicked") || run.status > 2 {
            Some(format!("exit {}", run.status))
        } else if same_content {
            // Nothing changed but the text: the search goes on as before.
            let record = run.json_records().into_iter().next();
            (run.status != 0 || record.is_none_or(|r| r["length"] != whole["length"]))
                .then(|| format!("an unchanged file gave exit {}", run.status))
        } else if run.status != 2 || !run.stdout.is_empty() || run.stderr.lines().count() != 1 {
            Some(format!(
                "an edited file was not refused in one line: exit {}",
                run.status
            ))
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(&text) {
            Some("the refused file was changed".to_string())
        } else {
            None
        };
        if let Some(why) = why {
            failures.push((
                text.into_bytes(),
                format!("case {case}: {kind}: {why}: {}", run.stderr),
            ));
        }
        // Back to the real one for the next case (a run that went on and
        // solved the board removed it).
        std::fs::write(&file, &kept).unwrap();
    }
    eprintln!(
        "fuzz: {cases} checkpoint forgeries {kinds:?}, {} failures",
        failures.len()
    );
    report(&failures);
}
