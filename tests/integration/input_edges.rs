//! Every input answered: empty and malformed batches, arguments, streaming,
//! output formats and the JSON schema. Each case here once failed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use npuzzle_board::Goal;

use crate::harness::*;

#[test]
fn an_empty_batch_says_so() {
    let dir = scratch();
    std::fs::write(dir.path().join("comments.txt"), "# nothing\n\n   \n").unwrap();
    let spaces = " ".repeat(10_000_000);
    for (args, stdin) in [
        (vec!["solve"], ""),
        (vec!["solve", "--file", "/dev/null"], ""),
        (vec!["solve", "comments.txt"], ""),
        (vec!["solve"], spaces.as_str()),
    ] {
        for json in [false, true] {
            let mut args = args.clone();
            if json {
                args.push("--json");
            }
            let run = npuzzle_in(dir.path(), &args, stdin);
            assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
            assert!(run.stderr.len() < 300, "{}", run.stderr.len());
            if json {
                let records = run.json_records();
                assert_eq!(records.last().unwrap()["type"], "summary", "{args:?}");
            }
        }
    }
}

#[test]
fn no_board_is_swallowed_by_a_bad_neighbour() {
    let run = npuzzle(&["solve", "--json", "--no-moves"]);
    assert_eq!(run.status, 2);
    let dir = scratch();
    let stdin = "3\n8 1 3 4 0 2 7 6 5\n1 2 3 4 5 6 7 0 8\n1 2 3 4 5 6 0 7 8\n\
                 3\n1 2 3\n4 5\n8 1 3 4 0 2 7 6 5\n";
    let run = npuzzle_in(dir.path(), &["solve", "--json", "--no-moves"], stdin);
    let records = run.json_records();
    let kinds: Vec<(String, u64)> = records[..records.len() - 1]
        .iter()
        .map(|r| {
            (
                r["type"].as_str().unwrap().to_string(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("error", 1),
        ("solution", 2),
        ("solution", 3),
        ("solution", 4),
        ("error", 5),
        ("error", 7),
        ("solution", 8),
    ];
    let expected: Vec<(String, u64)> = expected.iter().map(|(k, l)| (k.to_string(), *l)).collect();
    assert_eq!(kinds, expected);
    // The text message names the same line as the record.
    for r in records.iter().filter(|r| r["type"] == "error") {
        let line = r["line"].as_u64().unwrap();
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .contains(&format!("line {line}:")),
            "{r}"
        );
        assert!(run.stderr.contains(&format!("line {line}:")));
    }
}

#[test]
fn malformed_boards_and_arguments_are_refused() {
    let dir = scratch();
    std::fs::write(dir.path().join("a.txt"), "1 2 3 0\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "1 2 0 3\n").unwrap();
    let big_token = "x".repeat(100_000);
    for (args, needle) in [
        (
            vec!["solve", "+8 +1 +3 +4 +0 +2 +7 +6 +5"],
            "'+8' is not a tile number",
        ),
        (vec!["solve", "nosuch.txt"], "nosuch.txt: no such file"),
        (
            vec!["solve", "--jobs", "100000", "1 2 3 0"],
            "--jobs 100000 is out of range",
        ),
        (
            vec!["solve", "--jobs", "0", "1 2 3 0"],
            "--jobs 0 is out of range",
        ),
        (vec!["solve", "--file", "a.txt", "1 2 3 0"], "not both"),
        (vec!["solve", "a.txt", "1", "2"], "not both"),
        (vec!["solve", &big_token], "characters)"),
    ] {
        let run = npuzzle_in(dir.path(), &args, "");
        assert_eq!(run.status, 2, "{needle}");
        assert!(run.stderr.contains(needle), "{needle}: {}", run.stderr);
        assert!(
            run.stderr.len() < 500,
            "{needle}: echoed {} bytes",
            run.stderr.len()
        );
    }
    // Several files, by --file and as arguments: every board answered.
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--check", "-f", "a.txt", "b.txt"],
        "",
    );
    assert_eq!(run.stdout, "a.txt: 0\nb.txt: 1\n");
    for option in ["--svg", "--json", "--boards"] {
        let run = npuzzle_in(dir.path(), &["play", option, "1 2 3 0"], "");
        assert_eq!(run.status, 2, "play {option}");
    }
}

#[test]
fn endless_input_is_refused_in_bounded_memory() {
    let run = npuzzle(&["solve", "--json", "--file", "/dev/zero"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("line 1: longer than 1 MiB"),
        "{}",
        run.stderr
    );
    let summary = run.json_records().pop().unwrap();
    assert!(
        summary["peak_rss_mb"].as_f64().unwrap() < 100.0,
        "{summary}"
    );
}

/// Answers stream out as boards finish: the first arrives while the input
/// is still open.
#[test]
fn answers_stream_before_the_input_ends() {
    for jobs in ["1", "2"] {
        let user = UserDirs::new();
        let mut child = user
            .apply(&mut Command::new(env!("CARGO_BIN_EXE_npuzzle")))
            .args(["solve", "--no-moves", "--jobs", jobs])
            .env("NPUZZLE_PDB_DIR", "/nonexistent")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(
            stdin,
            "1 2 3 4 5 6 7 0 8\n1 2 3 4 5 6 0 7 8\n8 1 3 4 0 2 7 6 5"
        )
        .unwrap();
        stdin.flush().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        assert!(first.starts_with("Board 1"), "{first}");
        let second = lines.next().unwrap().unwrap();
        assert_eq!(second, "Minimum number of moves = 1");
        drop(stdin);
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn algs4_output_is_what_the_princeton_client_prints() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("puzzle04.txt"),
        "3\n 0  1  3\n 4  2  5\n 7  8  6\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("unsolvable.txt"), "2\n 1  0\n 2  3\n").unwrap();
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--format", "algs4", "puzzle04.txt"],
        "",
    );
    let expected = "Minimum number of moves = 4\n\
        3\n 0  1  3 \n 4  2  5 \n 7  8  6 \n\n\
        3\n 1  0  3 \n 4  2  5 \n 7  8  6 \n\n\
        3\n 1  2  3 \n 4  0  5 \n 7  8  6 \n\n\
        3\n 1  2  3 \n 4  5  0 \n 7  8  6 \n\n\
        3\n 1  2  3 \n 4  5  6 \n 7  8  0 \n\n";
    assert_eq!(run.stdout, expected);
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--format", "algs4", "unsolvable.txt"],
        "",
    );
    assert_eq!(run.stdout, "No solution possible\n");
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--check", "puzzle04.txt", "unsolvable.txt"],
        "",
    );
    assert_eq!(run.stdout, "puzzle04.txt: 4\nunsolvable.txt: -1\n");
}

#[test]
fn every_size_gets_a_sensible_answer_by_default() {
    // A 5x5 board one move away, with no tables built: optimal, 1 move.
    let board: Vec<String> = (1..=23)
        .map(|t| t.to_string())
        .chain(["0", "24"].map(String::from))
        .collect();
    let run = npuzzle(&["solve", "--json", &board.join(" ")]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_eq!(
        (r["length"].as_u64(), r["optimal"].as_bool()),
        (Some(1), Some(true))
    );
    // Solved 6x6 and 10x10 boards: 0 moves, optimal.
    for n in [6u16, 10] {
        let tiles: Vec<String> = (1..n * n)
            .map(|t| t.to_string())
            .chain(["0".to_string()])
            .collect();
        let run = npuzzle(&["solve", "--json", &tiles.join(" ")]);
        let r = &run.json_records()[0];
        assert_eq!(
            (r["length"].as_u64(), r["optimal"].as_bool()),
            (Some(0), Some(true)),
            "{n}"
        );
    }
    // The Princeton files of every size but 4x4 (whose hard boards need
    // the 7-8 tables: `cargo xtask bench` checks all 150), with defaults.
    let text = std::fs::read_to_string(repo_root().join("bench/princeton_8puzzle.txt")).unwrap();
    let lines: String = text
        .lines()
        .filter(|l| l.split_whitespace().nth(1) != Some("4"))
        .map(|l| format!("{l}\n"))
        .collect();
    let run = npuzzle(&["solve", "--set", "--json", "--no-moves"]);
    assert_eq!(run.status, 2);
    let dir = scratch();
    let run = npuzzle_in(dir.path(), &["solve", "--set", "--json"], &lines);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let records = run.json_records();
    let summary = records.last().unwrap();
    assert!(summary["boards"].as_u64().unwrap() > 70);
    assert_eq!(summary["mismatches"], 0, "{summary}");
    for r in &records[..records.len() - 1] {
        if r["type"] == "solution" {
            assert_record_replays(r, Goal::BlankLast);
        }
    }
    // A board refused for a limit confirms nothing and contradicts
    // nothing: refused, not disagreeing; a wrong known length disagrees.
    let set = "hard 31 8 6 7 2 5 4 3 0 1\nwrong 30 8 6 7 2 5 4 3 0 1\n";
    let run = npuzzle_in(dir.path(), &["solve", "--set", "--max-nodes", "10"], set);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout.matches("(not checked: refused)").count(),
        2,
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("DISAGREES"), "{}", run.stdout);
    assert!(
        run.stdout.contains("disagreeing with the set 0"),
        "{}",
        run.stdout
    );
    let run = npuzzle_in(dir.path(), &["solve", "--set", "--json"], set);
    let records = run.json_records();
    assert_eq!(records[0]["agrees"], true, "{}", records[0]);
    assert_eq!(records[1]["agrees"], false, "{}", records[1]);
    assert_eq!(records[2]["mismatches"], 1, "{}", records[2]);
}

/// Every record type, validated against the documented JSON Schema.
#[test]
fn json_output_follows_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("docs/solve-output.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let dir = scratch();
    let batch = "1 2 3 0\n2 1 3 0\n1 2 x 0\n8 1 3 4 0 2 7 6 5\n";
    let big = npuzzle(&["random", "--size", "7", "--seed", "2"]).stdout;
    let runs = [
        npuzzle_in(dir.path(), &["solve", "--json"], batch),
        npuzzle_in(
            dir.path(),
            &["solve", "--json", "--fast", "--no-moves"],
            &big,
        ),
        npuzzle_in(
            dir.path(),
            &["solve", "--json", "--no-moves", "--max-nodes", "1000000"],
            &big,
        ),
        npuzzle_in(
            dir.path(),
            &[
                "solve",
                "--json",
                "--algorithm",
                "idastar",
                "--max-nodes",
                "10",
                "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1",
            ],
            "",
        ),
        npuzzle_in(
            dir.path(),
            &["solve", "--json", "--set"],
            "a 3 1 2 3 0\nb -1 2 1 3 0\n",
        ),
        npuzzle_in(
            dir.path(),
            &["solve", "--json", "--algorithm", "bfs", "8 1 3 4 0 2 7 6 5"],
            "",
        ),
    ];
    let mut kinds = std::collections::BTreeSet::new();
    for run in &runs {
        for record in run.json_records() {
            let errors: Vec<String> = validator
                .iter_errors(&record)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{record}: {errors:?}");
            kinds.insert(record["type"].as_str().unwrap().to_string());
            if let Some(seconds) = record.get("seconds").and_then(|s| s.as_f64()) {
                assert!(seconds.to_string().len() <= 12, "float noise: {seconds}");
            }
        }
    }
    assert_eq!(kinds.len(), 5, "{kinds:?}");
}

/// Rows given with '/' must be the board's rows and a comma stands between
/// two numbers: other text is refused (exit 2) with the row or the place
/// named, on the command line, in `check` and on a file's line.
#[test]
fn uneven_rows_and_empty_fields_are_refused() {
    let cases = [
        (
            "1 2 3/4 5 6 7/8 0",
            "row 2 ('4 5 6 7') has 4 numbers, but the rows of a 3x3 board have 3",
        ),
        (
            "1 2 3 4 5 6 7 8/9 10 11 12 13 14 15 0",
            "row 1 ('1 2 3 4 5 6 7 8') has 8 numbers, but the rows of a 4x4 board have 4",
        ),
        ("1 2 3/4 5 6/7 8 0/", "row 4 ('') has 0 numbers"),
        (
            "1,2,3,,4,5,6,7,8,0",
            "an empty field between two commas, after '3'",
        ),
        (
            ",8,1,3,4,0,2,7,6,5",
            "an empty field before the first comma",
        ),
        (
            "8,1,3,4,0,2,7,6,5,",
            "an empty field after the last comma, which follows '5'",
        ),
    ];
    let dir = scratch();
    for (board, expected) in cases {
        for command in ["solve", "check"] {
            let run = npuzzle_in(dir.path(), &[command, board], "");
            assert_eq!(run.status, 2, "{command} {board}: {}", run.stdout);
            assert!(
                run.stderr.contains(expected) || run.stdout.contains(expected),
                "{command} {board}: wanted '{expected}' in {}{}",
                run.stdout,
                run.stderr
            );
            assert!(!run.stdout.contains("Minimum number of moves"));
        }
    }
    let file: String = cases
        .iter()
        .map(|(board, _)| format!("{board}\n"))
        .collect();
    std::fs::write(dir.path().join("boards.txt"), file + "8 1 3/4 0 2/7 6 5\n").unwrap();
    let run = npuzzle_in(dir.path(), &["solve", "--json", "boards.txt"], "");
    assert_eq!(run.status, 2);
    let records = run.json_records();
    for (i, (_, expected)) in cases.iter().enumerate() {
        assert_eq!(records[i]["type"], "error", "{}", records[i]);
        assert_eq!(records[i]["line"], i as u64 + 1);
        let message = records[i]["error"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{}", records[i]);
    }
    assert_eq!(records[cases.len()]["type"], "solution");
}
