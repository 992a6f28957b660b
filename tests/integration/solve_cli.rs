use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use npuzzle_board::{parse_board, Board, Goal, Notation};

use crate::harness::*;

#[test]
fn solves_a_board_and_prints_replayable_moves_and_boards() {
    let run = npuzzle(&["solve", "8 1 3 4 0 2 7 6 5", "--boards"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("Minimum number of moves = 14\n"),
        "{}",
        run.stdout
    );
    let moves = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Moves (tile direction): "))
        .unwrap();
    let board = parse_board("8 1 3 4 0 2 7 6 5").unwrap();
    assert_replays(&board, moves, Notation::Tile, Goal::BlankLast);
    // 15 boards in algs4 form, the last one the goal.
    assert_eq!(run.stdout.matches("\n3\n").count(), 15);
    assert!(run.stdout.contains(&Goal::BlankLast.board(3).to_grid()));
}

#[test]
fn all_board_forms_give_the_same_answer() {
    let dir = scratch();
    std::fs::write(dir.path().join("p.txt"), "3\n 8 1 3\n 4 0 2\n 7 6 5\n").unwrap();
    for args in [
        vec!["solve", "8 1 3 4 0 2 7 6 5"],
        vec!["solve", "8", "1", "3", "4", "0", "2", "7", "6", "5"],
        vec!["solve", "8,1,3,4,0,2,7,6,5"],
        vec!["solve", "8 1 3/4 0 2/7 6 5"],
        vec!["solve", "3 8 1 3 4 0 2 7 6 5"],
        vec!["solve", "p.txt"],
        vec!["solve", "--file", "p.txt"],
    ] {
        let run = npuzzle_in(dir.path(), &args, "");
        assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.starts_with("Minimum number of moves = 14\n"),
            "{args:?}"
        );
    }
    let run = npuzzle_in(dir.path(), &["solve"], "8 1 3 4 0 2 7 6 5\n");
    assert!(run.stdout.starts_with("Minimum number of moves = 14\n"));
}

/// Every Princeton test file of side 2 or 3, in its own algs4 file, gives
/// exactly the expected answer.
#[test]
fn princeton_files_give_their_expected_answers() {
    let dir = scratch();
    let text = std::fs::read_to_string(repo_root().join("bench/princeton_8puzzle.txt")).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, n, expected) = (words[0], words[1].parse::<usize>().unwrap(), words[2]);
        if n > 3 {
            continue;
        }
        let tiles: Vec<u16> = words[4..].iter().map(|t| t.parse().unwrap()).collect();
        let board = Board::new(n, tiles).unwrap();
        std::fs::write(dir.path().join(name), board.to_grid()).unwrap();
        let run = npuzzle_in(dir.path(), &["solve", "--json", name], "");
        let record = &run.json_records()[0];
        if expected == "-1" {
            assert_eq!(record["solvable"], false, "{name}");
            assert!(record["length"].is_null());
        } else {
            assert_eq!(record["length"].to_string(), expected, "{name}");
            assert_replays(
                &board,
                record["moves"].as_str().unwrap(),
                Notation::Tile,
                Goal::BlankLast,
            );
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} files of side <= 3");
}

#[test]
fn the_hardest_8_puzzles_take_31_moves_for_both_goals() {
    let root = repo_root();
    for (set, goal) in [
        ("bench/puzzle8_hardest.txt", "blank-last"),
        ("bench/puzzle8_hardest_goal_blank_first.txt", "blank-first"),
    ] {
        let text = std::fs::read_to_string(root.join(set)).unwrap();
        let boards: String = text
            .lines()
            .map(|l| l.split_whitespace().skip(2).collect::<Vec<_>>().join(" ") + "\n")
            .collect();
        let run = npuzzle_in(&root, &["solve", "--json", "--goal", goal], &boards);
        let records = run.json_records();
        assert_eq!(records.len(), 3);
        for r in &records[..2] {
            assert_eq!(r["length"], 31);
            assert_eq!(r["goal"], goal);
        }
        assert_eq!(records[2]["type"], "summary");
        assert_eq!(records[2]["solved"], 2);
    }
}

#[test]
fn json_records_carry_the_documented_fields() {
    let run = npuzzle(&["solve", "--json", "1 2 3 4 5 6 0 7 8"]);
    let records = run.json_records();
    let r = &records[0];
    for field in [
        "board",
        "size",
        "solvable",
        "length",
        "moves",
        "nodes",
        "seconds",
        "heuristic",
        "algorithm",
        "h0",
    ] {
        assert!(!r[field].is_null(), "missing {field}: {r}");
    }
    assert_eq!(r["moves"], "LL");
    assert_eq!(r["size"], 3);
    assert_eq!(r["algorithm"], "idastar");
    assert_eq!(r["heuristic"], "linear-conflict");
    let s = &records[1];
    assert_eq!(s["type"], "summary");
    assert_eq!(
        (s["boards"].as_u64(), s["solved"].as_u64()),
        (Some(1), Some(1))
    );
}

/// The figures have the names of every door (C's `npuzzle_info`, Python's
/// `Solution`), the old JSON names stay for one release, and the text and
/// JSON both name the heuristic strategy that ran.
#[test]
fn every_output_names_the_figures_as_the_other_doors_do() {
    let run = npuzzle(&["solve", "--json", "8 1 3 4 0 2 7 6 5"]);
    let records = run.json_records();
    let r = &records[0];
    for field in ["expanded", "generated", "initial_estimate", "strategy"] {
        assert!(!r[field].is_null(), "missing {field}: {r}");
    }
    assert_eq!(r["expanded"], r["nodes"]);
    assert_eq!(r["initial_estimate"], r["h0"]);
    assert_eq!(records[1]["expanded"], records[1]["nodes"]);
    let strategy = r["strategy"].as_str().unwrap();
    assert!(!strategy.is_empty());
    let text = npuzzle(&["solve", "8 1 3 4 0 2 7 6 5"]);
    let nodes = text
        .stdout
        .lines()
        .find(|line| line.starts_with("Nodes:"))
        .unwrap_or_else(|| panic!("no nodes line: {}", text.stdout));
    assert!(
        nodes.contains(&format!("initial estimate {}", r["initial_estimate"]))
            && nodes.contains(&format!("strategy {strategy}")),
        "{nodes}"
    );
    // A batch's refusal counts its nodes under both names too.
    let refused = npuzzle(&["solve", "--json", "--max-nodes", "5", "8 1 3 4 0 2 7 6 5"]);
    let r = &refused.json_records()[0];
    assert_eq!(r["type"], "refused", "{r}");
    assert_eq!(r["expanded"], r["nodes"]);
}

#[test]
fn blank_notation_names_the_blank_moves() {
    let run = npuzzle(&[
        "solve",
        "--json",
        "--notation",
        "blank",
        "1 2 3 4 5 6 0 7 8",
    ]);
    assert_eq!(run.json_records()[0]["moves"], "RR");
}

#[test]
fn unsolvable_boards_are_detected_at_once() {
    // An unsolvable 4x4 board: IDA* would never end on it.
    let run = npuzzle(&["solve", "--json", "2 1 3 4 5 6 7 8 9 10 11 12 13 14 15 0"]);
    // The one board asked about has no solution: exit status 1, as `play`.
    assert_eq!(run.status, 1, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_eq!(r["solvable"], false);
    assert!(r["length"].is_null());
    let text = npuzzle(&["solve", "1 2 3 4 5 6 8 7 0"]);
    assert_eq!(text.stdout, "No solution possible\n");
    assert_eq!(text.status, 1);
    // A batch answered every board, the unsolvable one included.
    let dir = scratch();
    let batch = npuzzle_in(
        dir.path(),
        &["solve", "-"],
        "1 2 3 4 5 6 8 7 0\n1 2 3 4 5 6 7 0 8\n",
    );
    assert_eq!(batch.status, 0, "{}", batch.stderr);
    assert!(
        batch.stdout.contains("No solution possible"),
        "{}",
        batch.stdout
    );
}

#[test]
fn blank_first_goal_is_honoured() {
    let run = npuzzle(&[
        "solve",
        "--json",
        "--goal",
        "blank-first",
        "1 0 2 3 4 5 6 7 8",
    ]);
    let r = &run.json_records()[0];
    assert_eq!(r["length"], 1);
    assert_eq!(r["moves"], "R");
}

#[test]
fn every_algorithm_and_heuristic_agrees() {
    let board = "0 1 3 4 2 5 7 8 6";
    let mut lengths = Vec::new();
    for (algorithm, heuristic) in [
        ("bfs", "manhattan"),
        ("astar", "hamming"),
        ("astar", "manhattan"),
        ("astar", "linear-conflict"),
        ("idastar", "hamming"),
        ("idastar", "manhattan"),
        ("idastar", "linear-conflict"),
    ] {
        let run = npuzzle(&[
            "solve",
            "--json",
            "-a",
            algorithm,
            "--heuristic",
            heuristic,
            board,
        ]);
        let r = &run.json_records()[0];
        assert_eq!(r["algorithm"], algorithm);
        lengths.push(r["length"].as_u64().unwrap());
    }
    assert!(lengths.iter().all(|&l| l == 4), "{lengths:?}");
}

#[test]
fn bad_input_is_named_and_the_batch_goes_on() {
    let input = "# boards\n1 2 3 0\n1 2 2 0\n\n1 2 3 4 5 x 7 8 0\n1 2 3 4 5\n3 1 2 0\n";
    let dir = scratch();
    let run = npuzzle_in(dir.path(), &["solve", "--json"], input);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("line 3: tile 2 appears more than once"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("line 5: 'x' is not a tile number"));
    assert!(run
        .stderr
        .contains("line 6: 5 numbers do not make a square board"));
    let records = run.json_records();
    assert_eq!(records.len(), 6);
    assert_eq!(records[0]["length"], 0);
    assert_eq!(records[1]["type"], "error");
    assert_eq!(records[1]["line"], 3);
    assert_eq!(records[4]["length"], 4);
    assert_eq!(records[5]["errors"], 3);
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    for (args, message) in [
        (
            vec!["solve", "1 2 3"],
            "3 numbers do not make a square board",
        ),
        (
            vec!["solve", "--file", "no/such/file.txt"],
            "no/such/file.txt: no such file",
        ),
        (
            vec!["solve", "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 99"],
            "tile 99 is out of range",
        ),
        (vec!["solve", "1 0"], "board size 1x1 is out of range"),
        (vec!["random", "--size", "1"], "--size 1 is out of range"),
    ] {
        let run = npuzzle(&args);
        assert_eq!(run.status, 2, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
    let run = npuzzle(&["solve", "--algorithm", "dfs", "1 2 3 0"]);
    assert_eq!(run.status, 2);
}

#[test]
fn classic_searches_refuse_boards_beyond_their_limit() {
    let run = npuzzle(&[
        "solve",
        "-a",
        "bfs",
        "--max-nodes",
        "20000",
        "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1",
    ]);
    assert_eq!(run.status, 1);
    // The command line adds its own remedy to the engine's message.
    assert!(
        run.stderr.contains(
            "more than 20000 boards in memory, its node limit; IDA* solves the board \
                       in constant memory (--max-nodes 20000; IDA* is --algorithm idastar)"
        ) && run.stderr.contains("--algorithm idastar"),
        "{}",
        run.stderr
    );
}

/// `--max-seconds`: an optimal search out of time is refused with the
/// budget named (exit 1, a `refused` record); a board past optimal search
/// still answers, by the beam cut short and the reduction, its note
/// naming the budget; a budget that is not seconds is refused at once.
#[test]
fn a_time_budget_refuses_optimal_searches_and_cuts_beams_short() {
    let hard = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";
    let run = npuzzle(&[
        "solve",
        "--json",
        "-a",
        "idastar",
        "--heuristic",
        "manhattan",
        "--max-seconds",
        "0.05",
        hard,
    ]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_eq!(r["type"], "refused", "{r}");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("time budget of 0.05 s"),
        "{r}"
    );
    let board = npuzzle(&["random", "--size", "8", "--seed", "9"]).stdout;
    let run = npuzzle(&["solve", "--json", "--max-seconds", "0.2", board.trim()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_eq!(r["optimal"], false, "{r}");
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("time budget of 0.2 s ran out"),
        "{r}"
    );
    assert_record_replays(r, Goal::BlankLast);
    for bad in ["0", "-1", "nan", "inf", "1e7", "ten"] {
        let option = format!("--max-seconds={bad}");
        let run = npuzzle(&["solve", &option, "1 2 3 4 5 6 7 0 8"]);
        assert_eq!(run.status, 2, "{bad}: {}", run.stderr);
        assert!(
            run.stderr.contains("--max-seconds") && run.stderr.contains("from 0.001 to 1000000"),
            "{bad}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

/// `--anytime`: time for a shorter answer than the default beam's, never
/// a longer one, its note saying how long it searched; refused with
/// options that run no beam, and when it is not seconds.
#[test]
fn time_for_a_shorter_answer_is_spent_on_wider_beams() {
    let board = npuzzle(&["random", "--size", "6", "--seed", "3"]).stdout;
    let default = npuzzle(&["solve", "--json", board.trim()]);
    assert_eq!(default.status, 0, "{}", default.stderr);
    let default = &default.json_records()[0];
    let run = npuzzle(&["solve", "--json", "--anytime", "3", board.trim()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_record_replays(r, Goal::BlankLast);
    let note = r["note"].as_str().unwrap();
    // The first answer is the default's when its width was reached in
    // time (on a slow machine it may not be); never shorter after.
    let number_after = |text: &str, after: &str| -> u64 {
        let at = text.find(after).unwrap() + after.len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    let first = number_after(note, "given: ");
    assert!(r["length"].as_u64().unwrap() <= first, "{note}");
    let default_note = default["note"].as_str().unwrap();
    if number_after(note, "moves at width ") == number_after(default_note, "width ") {
        assert_eq!(default["length"].as_u64(), Some(first), "{note}");
    }
    assert!(
        note.contains("beam searched") && note.contains("of the 3 s given"),
        "{note}"
    );
    for other in [&["--fast"][..], &["--within", "5"], &["-a", "idastar"]] {
        let mut args = vec!["solve", "--anytime", "3"];
        args.extend_from_slice(other);
        args.push(board.trim());
        let run = npuzzle(&args);
        assert_eq!(run.status, 2, "{other:?}: {}", run.stderr);
        assert!(run.stderr.contains("--anytime"), "{}", run.stderr);
    }
    // A board past the beam's sides is reduced, and its note says the time
    // went unused.
    let big = npuzzle(&["random", "--size", "12", "--seed", "3"]).stdout;
    let run = npuzzle(&["solve", "--json", "--anytime", "3", big.trim()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_record_replays(r, Goal::BlankLast);
    assert_eq!(r["algorithm"], "reduction");
    let note = r["note"].as_str().unwrap();
    assert!(note.contains("shorter answer went unused"), "{note}");
    let run = npuzzle(&["solve", "--anytime=soon", board.trim()]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("from 0.001 to 1000000"),
        "{}",
        run.stderr
    );
}

/// Ctrl-C during `--anytime` ends the wider beams: the best answer found
/// so far is printed, its note saying the search was stopped, and the
/// exit status is a success's, long before the ten minutes given.
#[test]
fn ctrl_c_during_anytime_prints_the_best_answer_so_far() {
    let board = npuzzle(&["random", "--size", "5", "--seed", "3"]).stdout;
    let dir = scratch();
    let user = UserDirs::new();
    let mut command = Command::new(env!("CARGO_BIN_EXE_npuzzle"));
    user.apply(&mut command)
        .args([
            "solve",
            "--json",
            "--jobs",
            "1",
            "--anytime",
            "600",
            "--pdb-dir",
        ])
        .arg(dir.path())
        .arg(board.trim())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("npuzzle runs");
    // The default beam of a 5x5 board takes well under a second.
    std::thread::sleep(std::time::Duration::from_secs(5));
    interrupt(&child);
    // Had Ctrl-C been ignored, the search would run its ten minutes.
    let waited = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if waited.elapsed() > std::time::Duration::from_secs(240) {
            let _ = child.kill();
            panic!("Ctrl-C did not end the --anytime search");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let run = Run::of(child.wait_with_output().unwrap());
    run.assert_no_panic();
    assert_eq!(run.status, 0, "{}", run.stderr);
    let record = &run.json_records()[0];
    assert_record_replays(record, Goal::BlankLast);
    let note = record["note"].as_str().unwrap();
    assert!(
        note.contains("of the 600 s given") && note.contains("stopped"),
        "{note}"
    );
}

#[test]
fn check_explains_solvability() {
    let ok = npuzzle(&["check", "1 2 3 4 5 6 7 0 8"]);
    assert_eq!(
        (ok.status, ok.stdout.as_str()),
        (0, "valid 3x3 board, solvable for goal blank-last\n")
    );
    let no = npuzzle(&[
        "check",
        "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1",
        "--goal",
        "blank-first",
    ]);
    assert_eq!(no.status, 1);
    assert!(no.stdout.contains("not solvable for goal blank-first"));
    assert!(no.stdout.contains("solvable for goal blank-last"));
    let bad = npuzzle(&["check", "1 1 2 0"]);
    assert_eq!(bad.status, 2);
    assert!(bad.stdout.contains("tile 1 appears more than once"));
}

#[test]
fn random_boards_are_reproducible_and_pipe_into_solve() {
    let a = npuzzle(&["random", "--size", "3", "--count", "20", "--seed", "42"]);
    let b = npuzzle(&["random", "--size", "3", "--count", "20", "--seed", "42"]);
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stdout.lines().count(), 20);
    let dir = scratch();
    let solved = npuzzle_in(dir.path(), &["solve", "--json"], &a.stdout);
    let records = solved.json_records();
    let summary = records.last().unwrap();
    assert_eq!(summary["solved"], 20, "{summary}");
    for r in &records[..20] {
        assert_record_replays(r, Goal::BlankLast);
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let user = UserDirs::new();
    let mut child = user
        .apply(&mut Command::new(env!("CARGO_BIN_EXE_npuzzle")))
        .args(["random", "--size", "4", "--count", "1000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is gone now, like `| head -1`.
    let output = child.wait_with_output().unwrap();
    assert_eq!(first.split_whitespace().count(), 16);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn big_boards_are_solved_by_reduction_and_say_so() {
    let boards = npuzzle(&["random", "--size", "12", "--count", "3", "--seed", "9"]);
    let dir = scratch();
    let run = npuzzle_in(dir.path(), &["solve", "--json"], &boards.stdout);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let records = run.json_records();
    for r in &records[..3] {
        assert_eq!(r["optimal"], false);
        assert_eq!(r["algorithm"], "reduction");
        let length = r["length"].as_u64().unwrap();
        assert!(length >= r["lower_bound"].as_u64().unwrap());
        assert_record_replays(r, Goal::BlankLast);
    }
    // Three moves from solved: the reduction's answer meets the bound, so
    // it is optimal, and said so.
    let text = npuzzle(&[
        "solve",
        "--fast",
        "--goal",
        "blank-first",
        "1 2 3 0 4 5 6 7 8 9 10 11 12 13 14 15",
    ]);
    assert!(
        text.stdout.contains("Minimum number of moves = 3\n"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("not optimal"), "{}", text.stdout);
    // Korf's instance 3 (59 moves): longer, and said so.
    let text = npuzzle(&["solve", "--fast", "1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2"]);
    assert!(
        text.stdout
            .contains("(not optimal: solved by reduction; --fast)"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("Lower bound "), "{}", text.stdout);
}

/// Boards past optimal search up to 10x10 get the beam (9x9 with the
/// frame first): each answer replays to the goal, for both goals, and
/// says what it is.
#[test]
fn boards_no_optimal_search_finishes_get_the_beam_and_say_so() {
    let dir = scratch();
    for goal in ["blank-last", "blank-first"] {
        let boards = npuzzle(&[
            "random", "--size", "5", "--count", "2", "--seed", "61", "--goal", goal,
        ]);
        let run = npuzzle_in(
            dir.path(),
            &["solve", "--json", "--goal", goal, "--max-nodes", "1000000"],
            &boards.stdout,
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
        assert!(run.stderr.contains("else by beam search"), "{}", run.stderr);
        let goal = Goal::from_name(goal).unwrap();
        for r in &run.json_records()[..2] {
            assert_eq!(r["algorithm"], "beam", "{r}");
            assert_eq!(r["optimal"], false);
            let length = r["length"].as_u64().unwrap();
            assert!(length >= r["lower_bound"].as_u64().unwrap());
            assert_record_replays(r, goal);
        }
    }
    // 9x9: the frame-first beam, repaired and finished by the reduction
    // where it stalls.
    let boards = npuzzle(&["random", "--size", "9", "--count", "1", "--seed", "67"]);
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--json", "--max-nodes", "4000000"],
        &boards.stdout,
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = &run.json_records()[0];
    assert_eq!(r["algorithm"], "beam", "{r}");
    assert!(
        r["strategy"]
            .as_str()
            .unwrap()
            .starts_with("frame-weighted"),
        "{r}"
    );
    assert!(r["expanded"].as_u64().unwrap() <= 4_000_001, "{r}");
    assert_record_replays(r, Goal::BlankLast);
    let board = npuzzle(&["random", "--size", "6", "--seed", "3"]);
    let text = npuzzle_in(
        dir.path(),
        &["solve", "--max-nodes", "2000000"],
        &board.stdout,
    );
    assert_eq!(text.status, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("(not optimal: beam search of width"),
        "{}",
        text.stdout
    );
}

/// The SVG is well-formed XML with one keyframe per move for every tile,
/// exactly one tile moving per step, the start and the goal held, and a
/// move counter in step with the tiles.
#[test]
fn the_svg_animates_one_move_per_step() {
    let dir = scratch();
    let board = "8 1 3 4 0 2 7 6 5";
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--json", "--svg", "out.svg", board],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let length = run.json_records()[0]["length"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(dir.path().join("out.svg")).unwrap();
    let document = roxmltree::Document::parse(&text).expect("well-formed XML");
    let animations: Vec<roxmltree::Node> = document
        .descendants()
        .filter(|n| n.has_tag_name("animateTransform"))
        .collect();
    let tracks: Vec<Vec<&str>> = animations
        .iter()
        .map(|n| n.attribute("values").unwrap().split(';').collect())
        .collect();
    assert_eq!(tracks.len(), 8);
    let key_times: Vec<f64> = animations[0]
        .attribute("keyTimes")
        .unwrap()
        .split(';')
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(key_times.len(), length + 3);
    assert!(key_times.windows(2).all(|w| w[0] < w[1]), "{key_times:?}");
    for track in &tracks {
        // The start held, one position per board of the solution, the goal held.
        assert_eq!(track.len(), length + 3);
        assert_eq!(track[0], track[1], "the start is held");
        assert_eq!(track[length + 1], track[length + 2], "the goal is held");
    }
    for step in 1..=length {
        let moving = tracks.iter().filter(|t| t[step] != t[step + 1]).count();
        assert_eq!(moving, 1, "step {step}");
    }
    // The counter: one caption per stage, shown from the keyframe where its
    // move starts.
    let captions: Vec<roxmltree::Node> = document
        .descendants()
        .filter(|n| n.attribute("class") == Some("counter"))
        .collect();
    assert_eq!(captions.len(), length + 1);
    for (i, caption) in captions.iter().enumerate() {
        let words = caption.text().unwrap();
        if i == 0 {
            assert!(words.contains(&format!("{length} moves")), "{words}");
            continue;
        }
        assert!(words.starts_with(&format!("move {i}/{length}")), "{words}");
        let shown_from: f64 = caption
            .first_element_child()
            .unwrap()
            .attribute("keyTimes")
            .unwrap()
            .split(';')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(shown_from, key_times[i], "caption {i}");
    }
    assert!(captions[length].text().unwrap().ends_with("solved"));
    assert!(
        !text.contains("href"),
        "the SVG refers to nothing outside it"
    );
    let many = npuzzle_in(
        dir.path(),
        &["solve", "--svg", "x.svg"],
        "1 2 3 0\n1 2 0 3\n",
    );
    assert_eq!(many.status, 2);
}

#[test]
fn play_prints_plain_frames_to_a_pipe() {
    let run = npuzzle(&["play", "--delay", "0", "1 2 3 4 0 5 7 8 6"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stdout.contains('\x1b'), "escape codes in a pipe");
    let frames: Vec<&str> = run.stdout.trim_end().split("\n\n").collect();
    assert_eq!(frames.len(), 3);
    assert!(frames[0].starts_with("start: 2 moves to go\n+---+---+---+\n"));
    // The frame names the tile that moved, and the last says it is solved.
    assert!(frames[1].starts_with("move 1/2: 5 L\n"), "{:?}", frames[1]);
    assert!(
        frames[2].starts_with("move 2/2: 6 U - solved\n"),
        "{:?}",
        frames[2]
    );
    assert!(
        frames[2].ends_with("| 1 | 2 | 3 |\n+---+---+---+\n| 4 | 5 | 6 |\n+---+---+---+\n| 7 | 8 |   |\n+---+---+---+"),
        "{:?}",
        frames[2]
    );
    let none = npuzzle(&["play", "1 2 3 4 5 6 8 7 0"]);
    assert!(none.stderr.contains("No solution possible"));
}

/// The moves of the JSON solution records in a run's output, in order.
fn moves_of(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|record| record["type"] == "solution")
        .map(|record| record["moves"].as_str().unwrap().to_string())
        .collect()
}

/// The same board and options give the same moves with any number of
/// threads, given alone or in a batch (a batch solves each board on one
/// thread with the plain depth-first search, a single board splits its
/// search): outputs can be diffed. The boards need searches split into
/// many subtrees (the 3x3 ones with linear conflict, the 4x4 ones over the
/// 6-6-3 tables).
#[test]
fn same_moves_whatever_the_thread_count() {
    let sets = [
        (
            None,
            vec![
                "6 4 7 8 5 0 3 2 1",
                "8 6 7 2 5 4 3 0 1",
                "8 1 3 4 0 2 7 6 5",
            ],
        ),
        (
            Some("6-6-3"),
            vec![
                "1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2",
                "0 8 14 15 1 10 11 5 4 7 13 6 3 2 9 12",
                "0 2 13 7 15 6 8 4 9 10 12 3 11 1 5 14",
            ],
        ),
    ];
    let dir = crate::tables::tables().display().to_string();
    for (partition, boards) in sets {
        let mut options = vec!["solve", "--json", "--pdb-dir", dir.as_str()];
        if let Some(name) = partition {
            options.extend(["--partition", name]);
        }
        let mut seen: Option<(Vec<String>, Vec<String>)> = None;
        for jobs in ["1", "2", "3", "4"] {
            let mut answers = Vec::new();
            for board in &boards {
                let mut args = options.clone();
                args.extend(["--jobs", jobs, board]);
                let run = npuzzle(&args);
                assert_eq!(run.status, 0, "{}", run.stderr);
                answers.extend(moves_of(&run));
            }
            let mut args = options.clone();
            args.extend(["--jobs", jobs]);
            let batch = npuzzle_in(Path::new("."), &args, &boards.join("\n"));
            assert_eq!(batch.status, 0, "{}", batch.stderr);
            assert_eq!(answers.len(), boards.len(), "every board solved");
            let batched = moves_of(&batch);
            assert_eq!(
                batched.len(),
                boards.len(),
                "every board of the batch solved"
            );
            match &seen {
                Some((first, first_batch)) => {
                    assert_eq!(&answers, first, "alone, --jobs {jobs}");
                    assert_eq!(&batched, first_batch, "a batch, --jobs {jobs}");
                }
                None => seen = Some((answers, batched)),
            }
        }
    }
}

/// A board typed without `solve` gets the command that solves it; what is
/// not a board gets clap's message. `check` reads files, line by line, and
/// an empty one is bad input.
#[test]
fn a_bare_board_suggests_solve_and_check_reads_files() {
    let run = npuzzle(&["8", "1", "3", "4", "0", "2", "7", "6", "5"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("npuzzle solve 8 1 3 4 0 2 7 6 5"),
        "{}",
        run.stderr
    );
    let empty = npuzzle(&[""]);
    assert_eq!(empty.status, 2);
    assert!(!empty.stderr.contains("npuzzle solve"), "{}", empty.stderr);
    let dir = scratch();
    std::fs::write(dir.path().join("b.txt"), "8 1 3 4 0 2 7 6 5\n1 2 x 0\n").unwrap();
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    let checked = npuzzle_in(dir.path(), &["check", "b.txt"], "");
    assert_eq!(checked.status, 2, "{}", checked.stdout);
    assert!(checked
        .stdout
        .contains("b.txt line 1: valid 3x3 board, solvable"));
    assert!(checked
        .stdout
        .contains("b.txt line 2: invalid: 'x' is not a tile number"));
    let none = npuzzle_in(dir.path(), &["check", "empty.txt"], "");
    assert_eq!(none.status, 2);
    assert!(none.stderr.contains("no boards"), "{}", none.stderr);
}

/// `--partition` names tables for the search: a name that fits no board
/// side, a board of a side it does not fit, or options that search without
/// tables are usage errors (exit 2) naming the value; never ignored.
#[test]
fn a_bad_or_unused_partition_is_refused() {
    const HARD: &str = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";
    const SMALL: &str = "8 1 3 4 0 2 7 6 5";
    let garbage = "partition garbage: not a partition of any board side (no partition \
                   named 'garbage' for 4x4";
    let cases: [(&[&str], &str); 6] = [
        (&["--partition", "garbage", HARD], garbage),
        (&["--partition", "garbage", SMALL], garbage),
        (
            &["--partition", "7-8", SMALL],
            "--partition 7-8 is for 4x4 boards, not this 3x3 one",
        ),
        (
            &["--partition", "6-6-3", "--fast", HARD],
            "partition 6-6-3 names tables, but fast searches without them",
        ),
        (
            &["--partition", "6-6-3", "--heuristic", "manhattan", HARD],
            "partition 6-6-3 names tables, but heuristic manhattan searches without them",
        ),
        (
            &["--partition", "8", "--algorithm", "bfs", SMALL],
            "partition 8 names tables, but algorithm bfs searches without them",
        ),
    ];
    for (args, message) in cases {
        for command in ["solve", "play"] {
            let mut all = vec![command];
            all.extend(args);
            let run = npuzzle(&all);
            assert_eq!(run.status, 2, "{all:?}: {}", run.stderr);
            assert!(run.stderr.contains(message), "{all:?}: {}", run.stderr);
            assert!(run.stdout.is_empty(), "{all:?}: {}", run.stdout);
        }
    }
    // In a batch, the board the partition does not fit is the error; the
    // others are solved over its tables.
    let tables = crate::tables::tables().display().to_string();
    let run = npuzzle_in(
        crate::tables::tables(),
        &[
            "solve",
            "--json",
            "--partition",
            "6-6-3",
            "--pdb-dir",
            &tables,
        ],
        &format!("{SMALL}\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15\n"),
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    let records = run.json_records();
    assert_eq!(records[0]["type"], "error");
    assert!(records[0]["error"]
        .as_str()
        .unwrap()
        .contains("--partition 6-6-3 is for 4x4 boards, not this 3x3 one"));
    assert_eq!(records[1]["partition"], "6-6-3", "{}", records[1]);
    // A 3x3 partition is searched over: its tables are asked for, so
    // missing ones refuse the board (exit 1) with the command that builds them.
    let run = npuzzle(&["solve", "--partition", "8", SMALL]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("npuzzle pdb build --size 3 --goal blank-last --partition 8"),
        "{}",
        run.stderr
    );
}

/// A --pdb-dir (or $NPUZZLE_PDB_DIR, or pdb build's --out) that names a
/// file is refused as such (exit 2), not taken for a place to build in.
#[test]
fn a_table_directory_that_is_a_file_is_refused() {
    let dir = scratch();
    std::fs::write(dir.path().join("notes.txt"), "not tables\n").unwrap();
    let board = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";
    let expected = "notes.txt: not a directory but a file; give the directory that holds \
                    the tables";
    for args in [
        vec!["solve", "--pdb-dir", "notes.txt", board],
        vec!["play", "--pdb-dir", "notes.txt", board],
        vec!["pdb", "files", "--pdb-dir", "notes.txt"],
        vec!["pdb", "lookup", "--pdb-dir", "notes.txt", board],
        vec!["pdb", "build", "--partition", "6-6-3", "--out", "notes.txt"],
    ] {
        let run = npuzzle_in(dir.path(), &args, "");
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("pdb build --size"), "{}", run.stderr);
    }
    let user = UserDirs::new();
    let mut command = Command::new(env!("CARGO_BIN_EXE_npuzzle"));
    user.apply(&mut command)
        .env("NPUZZLE_PDB_DIR", dir.path().join("notes.txt"));
    let run = run_command(command, dir.path(), &["solve", board], "");
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("$NPUZZLE_PDB_DIR") && run.stderr.contains(expected),
        "{}",
        run.stderr
    );
}

/// `--memory` runs A*+IDA*: the same optimal length as plain IDA*, its
/// best-first nodes counted within `expanded` and named apart in the text
/// and the JSON (0 for plain IDA*); a size that is not one is refused.
#[test]
fn memory_runs_a_star_ida_star_and_counts_its_phases() {
    let board = "8 6 7 2 5 4 3 0 1";
    let plain = npuzzle(&["solve", "--json", board]).json_records()[0].clone();
    assert_eq!(plain["best_first_expanded"], 0, "{plain}");
    for size in ["1K", "64K", "1M", "0.5G"] {
        let hybrid = npuzzle(&["solve", "--json", "--memory", size, board]);
        assert_eq!(hybrid.status, 0, "{}", hybrid.stderr);
        let r = &hybrid.json_records()[0];
        assert_eq!(r["length"], plain["length"], "{size}: {r}");
        assert_eq!(r["optimal"], true, "{size}: {r}");
        assert_record_replays(r, Goal::BlankLast);
        let best_first = r["best_first_expanded"].as_u64().unwrap();
        assert!(best_first > 0 && best_first <= r["expanded"].as_u64().unwrap());
    }
    let text = npuzzle(&["solve", "--memory", "1K", board]);
    assert!(text.stdout.contains(" best first)"), "{}", text.stdout);
    assert!(!text.stderr.contains("not used"), "{}", text.stderr);
    // A weighted search keeps positions too: the text counts the phase
    // the JSON counts.
    let weighted = ["solve", "--memory", "64M", "--within", "10", board];
    let json = npuzzle(&[&weighted[..], &["--json"]].concat());
    let r = &json.json_records()[0];
    assert_record_replays(r, Goal::BlankLast);
    let best_first = r["best_first_expanded"].as_u64().unwrap();
    assert!(best_first > 0, "{r}");
    let text = npuzzle(&weighted);
    let expanded = r["expanded"].to_string();
    let counted = [
        format!("{expanded} expanded ("),
        format!("{expanded} nodes expanded ("),
    ];
    let phase = format!("({best_first} best first)");
    assert!(
        counted.iter().any(|c| text.stdout.contains(c)) && text.stdout.contains(&phase),
        "{phase}: {}",
        text.stdout
    );
    // A search that keeps no positions says so, once per side and search.
    let twice = format!("{board}\n{board}\n");
    for (args, search) in [
        (&["--algorithm", "astar"][..], "solved by A*"),
        (&["--fast"][..], "near-optimal"),
    ] {
        let args = [&["solve", "--memory", "1M"], args].concat();
        let run = npuzzle_in(scratch().path(), &args, &twice);
        assert_eq!(run.status, 0, "{}", run.stderr);
        assert_eq!(
            run.stderr.matches("memory budget is not used").count(),
            1,
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains(search), "{}", run.stderr);
    }
    for bad in ["12X", "0", "-1G", "nan", "2000T"] {
        let run = npuzzle(&["solve", &format!("--memory={bad}"), board]);
        assert_eq!(run.status, 2, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("--memory"), "{bad}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{bad}: {}", run.stderr);
    }
    // More than any machine of ours has free: refused before any search.
    let run = npuzzle(&["solve", "--memory", "1000T", board]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("this machine has free"),
        "{}",
        run.stderr
    );
}
