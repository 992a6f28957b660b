//! `npuzzle pdb build`, `info` and `verify` as a user runs them.

use std::process::Command;

use npuzzle_pdb::file;

use crate::harness::*;
use crate::tables::*;

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

/// A sound table under another table's name is refused by `pdb verify`,
/// as `solve` refuses it: name, header and contents must agree.
#[test]
fn verify_refuses_a_table_under_another_tables_name() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let first = blank_last_pattern_file(&data, "5-5-5", 0);
    let third = blank_last_pattern_file(&data, "5-5-5", 2);
    let relabelled = dir.path().join(first.file_name().unwrap());
    std::fs::copy(&third, &relabelled).unwrap();
    let run = npuzzle_in(
        dir.path(),
        &["pdb", "verify", relabelled.to_str().unwrap()],
        "",
    );
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("its name is not the one its contents have"),
        "{}",
        run.stderr
    );
    let name = third.file_name().unwrap().to_string_lossy().to_string();
    assert!(run.stderr.contains(&name), "{}", run.stderr);
    // Under its own name the same bytes pass.
    let own = dir.path().join(&name);
    std::fs::copy(&third, &own).unwrap();
    let run = npuzzle_in(dir.path(), &["pdb", "verify", own.to_str().unwrap()], "");
    assert_eq!(run.status, 0, "{}", run.stderr);
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

/// A build killed half-way through writing leaves no file under a real
/// name; the next build removes its temporary file and succeeds.
#[test]
fn an_interrupted_build_leaves_nothing_that_loads() {
    let dir = scratch();
    let user = UserDirs::new();
    let build = |kill: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_npuzzle"));
        user.apply(&mut command)
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

/// --level takes zstd's standard levels, 1 to 19: others are refused
/// (exit 2) naming the value and the range, before anything is built.
#[test]
fn compression_levels_outside_1_to_19_are_refused() {
    for level in ["0", "20", "22", "1000", "-3"] {
        let dir = scratch();
        let level_arg = format!("--level={level}");
        let run = npuzzle_in(
            dir.path(),
            &[
                "pdb",
                "build",
                "--partition",
                "6-6-3",
                "--out",
                ".",
                &level_arg,
            ],
            "",
        );
        assert_eq!(run.status, 2, "{level}: {}", run.stdout);
        assert!(
            run.stderr.contains(&format!("'{level}'")) && run.stderr.contains("1..=19"),
            "{level}: {}",
            run.stderr
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

#[test]
fn a_piped_build_prints_whole_lines_and_no_bar() {
    let dir = scratch();
    let out = dir.path().join("tables");
    let run = npuzzle_in(
        dir.path(),
        &["pdb", "build", "--size", "3", "--out", &dir_arg(&out)],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains(['\r', '\x1b']), "{text:?}");
        assert!(text.is_empty() || text.ends_with('\n'), "{text:?}");
    }
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(
        lines[0].contains(": pattern {1,2,3,4,5,6,7,8}, "),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("built 1 of 1 tables"), "{}", lines[1]);
}

/// The seconds a build prints as searching are those `pdb info` reads
/// back from the file's header.
#[test]
fn build_and_info_agree_on_the_search_seconds() {
    let dir = scratch();
    let out = dir.path().join("tables");
    let run = npuzzle_in(
        dir.path(),
        &[
            "pdb",
            "build",
            "--size",
            "3",
            "--partition",
            "1,2,3,4;5,6,7,8",
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let built: Vec<(String, String)> = run
        .stdout
        .lines()
        .filter_map(|line| {
            let (path, rest) = line.split_once(": pattern ")?;
            let (_, seconds) = rest.split_once(" s (")?;
            let (seconds, _) = seconds.split_once(" s searching")?;
            Some((path.to_string(), seconds.to_string()))
        })
        .collect();
    assert_eq!(built.len(), 2, "{}", run.stdout);
    for (path, seconds) in built {
        let info = npuzzle_in(dir.path(), &["pdb", "info", &path], "");
        assert_eq!(info.status, 0, "{}", info.stderr);
        assert!(
            info.stdout.contains(&format!(", {seconds} s searching,")),
            "{seconds} s: {}",
            info.stdout
        );
    }
}
