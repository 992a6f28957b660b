//! `solve --checkpoint`: a search split across runs gives the answer one
//! run gives, and a file it cannot trust is refused, never followed.

use std::process::{Command, Stdio};

use npuzzle_board::Goal;

use crate::harness::{
    assert_record_replays, interrupt, npuzzle_as, repo_root, scratch, Run, UserDirs,
};

/// Korf's instance of `number` from the blank-last copy of the set: its
/// optimal length and its tiles.
fn korf100(number: usize) -> (u64, String) {
    let text = std::fs::read_to_string(repo_root().join("bench/korf100_goal_blank_last.txt"))
        .expect("the Korf 100 set");
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&number.to_string()))
        .expect("the instance");
    let mut fields = line.split_whitespace().skip(1);
    let length = fields.next().unwrap().parse().unwrap();
    (length, fields.collect::<Vec<_>>().join(" "))
}

/// `solve BOARD` on one thread, JSON, linear conflict unless `extra`
/// names a heuristic, as `user` (whose key signs the checkpoints).
fn solve(user: &UserDirs, dir: &std::path::Path, board: &str, extra: &[&str]) -> Run {
    let mut args = vec!["solve", board, "--jobs", "1", "--json"];
    if !extra.contains(&"--heuristic") {
        args.extend_from_slice(&["--heuristic", "linear-conflict"]);
    }
    args.extend_from_slice(extra);
    npuzzle_as(user, dir, &args, "")
}

/// `text`, a checkpoint as npuzzle writes it (its code last), signed
/// again with `user`'s key: what a user who edits the file can make.
pub(crate) fn resign(text: &str, user: &UserDirs) -> String {
    let key = npuzzle_pdb::file::user_key(&user.data_dir(), "checkpoint.key").unwrap();
    let at = text.rfind("\"code\":\"").expect("a code");
    let code = key.code(format!("{}\"code\":\"\"}}", &text[..at]).as_bytes());
    format!("{}\"code\":\"{code}\"}}", &text[..at])
}

/// `text` with the number after `"field":` made `value`.
pub(crate) fn with_field(text: &str, field: &str, value: &str) -> String {
    let name = format!("\"{field}\":");
    let at = text
        .find(&name)
        .unwrap_or_else(|| panic!("{field} in {text}"))
        + name.len();
    let end = at + text[at..].find([',', '}']).unwrap();
    format!("{}{value}{}", &text[..at], &text[end..])
}

/// Runs cut short by a node limit, each going on from the file, end with
/// the optimal answer, the file removed, and every node counted once once
/// the repeated ones are taken off.
#[test]
fn a_search_split_across_runs_gives_the_answer_of_one() {
    let dir = scratch();
    let user = UserDirs::new();
    let (length, board) = korf100(6);
    let whole = solve(&user, dir.path(), &board, &[]);
    assert_eq!(whole.status, 0, "{}", whole.stderr);
    let whole = &whole.json_records()[0];
    let whole_expanded = whole["expanded"].as_u64().unwrap();
    let limit = (whole_expanded / 6).to_string();
    let file = dir.path().join("search.json");
    let mut runs = 0;
    let answer = loop {
        runs += 1;
        assert!(runs <= 20, "no answer after {runs} runs");
        let run = solve(
            &user,
            dir.path(),
            &board,
            &["--max-nodes", &limit, "--checkpoint", "search.json"],
        );
        if run.status == 0 {
            break run;
        }
        assert_eq!(run.status, 1, "{}", run.stderr);
        assert!(file.exists(), "run {runs} kept nothing: {}", run.stderr);
        assert!(
            run.stderr.contains("run the same command to go on"),
            "{}",
            run.stderr
        );
    };
    assert!(runs > 2, "the limit never cut a run short");
    assert!(!file.exists(), "the file outlived the answer");
    let record = &answer.json_records()[0];
    assert_eq!(record["length"].as_u64(), Some(length), "{record}");
    assert_eq!(record["moves"], whole["moves"], "{record}");
    assert_record_replays(record, Goal::BlankLast);
    let resumed = &record["resumed"];
    assert_eq!(resumed["runs"].as_u64(), Some(runs), "{record}");
    assert!(resumed["earlier_seconds"].as_f64().unwrap() > 0.0);
    let lost = resumed["lost"].as_u64().unwrap();
    assert!(lost > 0, "{record}");
    assert_eq!(
        record["expanded"].as_u64().unwrap() - lost,
        whole_expanded,
        "{record}"
    );
}

/// A file of another board, a damaged one, a truncated one and one that
/// is not JSON are refused with the way out, left as they were; so are
/// options that keep no progress, and several boards.
#[test]
fn a_checkpoint_it_cannot_trust_is_refused() {
    let dir = scratch();
    let user = UserDirs::new();
    let (_, board) = korf100(3);
    let (_, other) = korf100(6);
    let cut = solve(
        &user,
        dir.path(),
        &board,
        &["--max-nodes", "2000000", "--checkpoint", "kept.json"],
    );
    assert_eq!(cut.status, 1, "{}", cut.stderr);
    let file = dir.path().join("kept.json");
    let kept = std::fs::read_to_string(&file).expect("a checkpoint");

    let refused = |what: &str, text: &str, board: &str, extra: &[&str], expected: &str| {
        std::fs::write(&file, text).unwrap();
        let mut args = vec!["--checkpoint", "kept.json"];
        args.extend_from_slice(extra);
        let run = solve(&user, dir.path(), board, &args);
        assert_eq!(run.status, 2, "{what}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{what}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{what}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{what}: {}", run.stdout);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text, "{what}");
    };
    let start_over = "remove kept.json to start the search over";
    refused("another board", &kept, &other, &[], "keeps another search");
    refused("another board", &kept, &other, &[], start_over);
    refused(
        "other options",
        &kept,
        &board,
        &["--heuristic", "manhattan"],
        "keeps another search",
    );
    refused(
        "truncated",
        &kept[..kept.len() / 2],
        &board,
        &[],
        "is not an npuzzle checkpoint",
    );
    refused("not JSON", "hello", &board, &[], start_over);
    // One digit of a subtree's bound changed: the CRC no longer matches.
    let at = kept.find("\"searched\":[[").expect("subtrees searched") + 13;
    let comma = at + kept[at..].find(',').unwrap() + 1;
    let digit = kept.as_bytes()[comma];
    let changed = format!(
        "{}{}{}",
        &kept[..comma],
        if digit == b'9' {
            '8'
        } else {
            (digit + 1) as char
        },
        &kept[comma + 1..]
    );
    refused(
        "one digit changed",
        &changed,
        &board,
        &[],
        "changed since npuzzle wrote it",
    );
    refused(
        "another format",
        &kept.replace("\"version\":2", "\"version\":9"),
        &board,
        &[],
        "version 9",
    );
    // Version 1 carried a CRC that anyone could compute again.
    let at = kept.rfind("\"code\":").unwrap();
    let crc = format!("{}\"crc32\":12345}}", &kept[..at]).replace("\"version\":2", "\"version\":1");
    refused("version 1", &crc, &board, &[], "version 1");
    // The bound of the iteration under way moved past the optimum (65 is
    // Korf #88's forgery): without the user's key, refused.
    let bound_at = |text: &str| {
        let at = text.find("\"bound\":").unwrap() + 8;
        text[at..at + text[at..].find(',').unwrap()]
            .parse::<u64>()
            .unwrap()
    };
    let bound = bound_at(&kept);
    let forged = with_field(&kept, "bound", &(bound + 30).to_string());
    refused(
        "bound moved",
        &forged,
        &board,
        &[],
        "changed since npuzzle wrote it",
    );
    refused(
        "searched emptied",
        &kept.replace(
            &kept[kept.find("\"searched\":").unwrap()..kept.rfind("]},\"code\"").unwrap() + 1],
            "\"searched\":[]",
        ),
        &board,
        &[],
        "changed since npuzzle wrote it",
    );
    // Signed again with the key (the user's own edit): whatever is
    // impossible is refused, naming the field; nothing is allocated from
    // a field's value.
    for (field, value, expected) in [
        ("bound", "4294967295", "bound 4294967295 is above"),
        ("bound", "1001", "bound 1001 is above"),
        ("bound", "3", "bound 3 is below the board's estimate"),
        ("iterations", "0", "iterations is 0"),
        (
            "iterations",
            "4294967295",
            "iterations is 4294967295, more than",
        ),
        ("runs", "0", "runs is 0"),
        ("bound", "0", "bound is 0 (no iteration begun)"),
        ("lost", "99999999999", "lost 99999999999 is above expanded"),
        ("split_depth", "7", "split_depth is 7"),
    ] {
        let forged = resign(&with_field(&kept, field, value), &user);
        refused(
            &format!("{field} {value}, signed"),
            &forged,
            &board,
            &[],
            expected,
        );
    }
    // A file larger than any checkpoint is refused before it is read.
    let huge = dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let run = solve(&user, dir.path(), &board, &["--checkpoint", "huge.json"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("more than any checkpoint"),
        "{}",
        run.stderr
    );
    // Another user's file (another key) is refused as an edited one.
    let stranger = UserDirs::new();
    std::fs::write(&file, &kept).unwrap();
    let run = solve(
        &stranger,
        dir.path(),
        &board,
        &["--checkpoint", "kept.json"],
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("another user or machine"),
        "{}",
        run.stderr
    );
    // --memory keeps no progress: refused once, with status 2.
    refused(
        "with --memory",
        &kept,
        &board,
        &["--memory", "64M"],
        "leave one of them out",
    );
    // Fast answers are refused with the heuristic this test gives.
    refused(
        "with --fast",
        &kept,
        &board,
        &["--fast"],
        "fast answers by the reduction, but heuristic linear-conflict runs as asked",
    );
    refused(
        "with --within",
        &kept,
        &board,
        &["--within", "10"],
        "progress is kept by optimal IDA* only",
    );
    // Places no checkpoint can be kept in are refused before the search.
    for (place, expected) in [
        (
            "missing/kept.json",
            "cannot write --checkpoint missing/kept.json",
        ),
        (".", "is not a regular file"),
    ] {
        let run = solve(&user, dir.path(), &board, &["--checkpoint", place]);
        assert_eq!(run.status, 2, "{place}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{place}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{place}: {}", run.stdout);
    }
    std::fs::write(&file, &kept).unwrap();
    let two = npuzzle_as(
        &user,
        dir.path(),
        &["solve", "--checkpoint", "kept.json", "-f", "-"],
        "1 2 3 4 5 6 8 7 0\n1 2 3 4 5 6 7 0 8\n",
    );
    assert_eq!(two.status, 2, "{}", two.stderr);
    assert!(two.stderr.contains("one board"), "{}", two.stderr);
    // Untouched by all that, the file still takes the search on; the
    // text says so.
    let on = npuzzle_as(
        &user,
        dir.path(),
        &[
            "solve",
            &board,
            "--heuristic",
            "linear-conflict",
            "--jobs",
            "1",
            "--checkpoint",
            "kept.json",
        ],
        "",
    );
    assert_eq!(on.status, 0, "{}", on.stderr);
    assert!(
        on.stdout
            .contains("Resumed: 2 runs; the earlier one searched"),
        "{}",
        on.stdout
    );
    assert!(!file.exists());
}

/// Ctrl-C stops a kept search: the progress is written, the answer is a
/// refusal that counts this run's nodes (those the file holds), and the
/// exit status is a shell's for an interrupt, 130.
#[test]
fn ctrl_c_keeps_the_search_and_counts_its_nodes() {
    let dir = scratch();
    // Hundreds of millions of nodes with linear conflict: never answered
    // within the wait below.
    let (_, board) = korf100(60);
    let user = UserDirs::new();
    let mut command = Command::new(env!("CARGO_BIN_EXE_npuzzle"));
    user.apply(&mut command)
        .env("NPUZZLE_PDB_DIR", dir.path().join("no-tables-here"))
        .args(["solve", &board, "--jobs", "1", "--json"])
        .args([
            "--heuristic",
            "linear-conflict",
            "--checkpoint",
            "kept.json",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().expect("npuzzle runs");
    std::thread::sleep(std::time::Duration::from_secs(2));
    interrupt(&child);
    let run = Run::of(child.wait_with_output().unwrap());
    run.assert_no_panic();
    assert_eq!(run.status, 130, "{}", run.stderr);
    let record = &run.json_records()[0];
    assert_eq!(record["type"], "refused", "{record}");
    assert!(
        record["reason"].as_str().unwrap().contains("Ctrl-C"),
        "{record}"
    );
    let expanded = record["expanded"].as_u64().expect("the nodes counted");
    assert!(expanded > 0, "{record}");
    assert!(
        run.stderr
            .contains("the search so far is kept in kept.json"),
        "{}",
        run.stderr
    );
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("kept.json")).unwrap())
            .unwrap();
    assert_eq!(
        kept["progress"]["expanded"].as_u64(),
        Some(expanded),
        "{kept}"
    );
}
