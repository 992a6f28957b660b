use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use clap::CommandFactory;

use super::*;

fn plan_of(args: &[&str]) -> Plan {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    parse(&args).expect("the options parse").plan()
}

fn defaults() -> Vec<&'static str> {
    SECTIONS
        .iter()
        .filter(|s| s.default)
        .map(|s| s.name)
        .collect()
}

#[test]
fn only_is_repeatable_and_runs_in_the_reports_order() {
    let plan = plan_of(&["--only", "princeton", "--only", "standard"]);
    assert_eq!(plan.sections, ["standard", "princeton"]);
    assert!(!plan.full);
    assert_eq!(plan.out, None, "a partial run is printed, not written");
    assert_eq!(plan.command(), " --only standard --only princeton");
}

#[test]
fn the_default_run_writes_the_report() {
    let plan = plan_of(&[]);
    assert_eq!(plan.sections, defaults());
    assert!(plan.full);
    assert_eq!(
        plan.out,
        Some(crate::workspace::root().join("bench/report.md"))
    );
    assert_eq!(plan.command(), "");
}

/// The sections the bench ran before it had a table of them, in that
/// order, the beam's after the reduction and the WebAssembly engine's
/// after it: the default run must stay the same report.
#[test]
fn the_default_sections_are_the_old_full_run() {
    assert_eq!(
        defaults(),
        [
            "standard",
            "end-to-end",
            "thread-rate",
            "tables",
            "catalogues",
            "serve-load",
            "serve-flood",
            "soak",
            "doors",
            "princeton",
            "heuristics",
            "reduction",
            "near-optimal",
            "web",
            "docs",
        ]
    );
}

#[test]
fn the_old_flags_are_aliases() {
    for (old, new) in [
        (vec!["--doors"], vec!["--only", "doors"]),
        (vec!["--soak"], vec!["--only", "soak"]),
        (vec!["--serve-flood"], vec!["--only", "serve-flood"]),
        (vec!["--catalogues"], vec!["--only", "catalogues"]),
        (vec!["--korf24-only"], vec!["--only", "korf24"]),
        (
            vec!["--near-optimal"],
            vec![
                "--only",
                "near-optimal",
                "--only",
                "reduction",
                "--only",
                "within",
            ],
        ),
        (vec!["--distributed"], vec!["--only", "distributed"]),
        (vec!["--build"], vec!["--with", "build"]),
        (
            vec!["--korf24"],
            vec!["--with", "korf24", "--with", "within"],
        ),
    ] {
        assert_eq!(plan_of(&old), plan_of(&new), "{old:?} against {new:?}");
    }
    let mut with_build = defaults();
    with_build.push("build");
    assert_eq!(plan_of(&["--build"]).sections, with_build);
    assert_eq!(plan_of(&["--build"]).command(), " --with build");
}

#[test]
fn the_distributed_count_comes_from_either_flag() {
    let boards = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        parse(&args).expect("the options parse").boards()
    };
    assert_eq!(boards(&["--distributed"]), 1_000_000);
    assert_eq!(boards(&["--distributed", "0"]), 0);
    assert_eq!(boards(&["--distributed", "2_000", "--quick"]), 2_000);
    assert_eq!(
        boards(&["--only", "distributed", "--boards", "1,000"]),
        1_000
    );
}

fn refusal(args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    parse(&args)
        .expect_err("the options are refused")
        .render()
        .to_string()
}

#[test]
fn bad_options_are_refused_by_name() {
    let unknown = refusal(&["--only", "korf25"]);
    assert!(unknown.contains("no section 'korf25'"), "{unknown}");
    assert!(
        unknown.contains("princeton"),
        "the sections are listed: {unknown}"
    );
    let option = refusal(&["--frobnicate"]);
    assert!(option.contains("--frobnicate"), "{option}");
    let count = refusal(&["--distributed", "many"]);
    assert!(count.contains("'many' is not a count of boards"), "{count}");
    let missing = refusal(&["--only"]);
    assert!(missing.contains("--only"), "{missing}");
}

#[test]
fn the_help_lists_every_section() {
    let help = Args::command().render_long_help().to_string();
    for section in SECTIONS {
        let row = format!(
            "| {} | {} | {} | {} |",
            section.name,
            section.measures,
            section.cost,
            if section.default { "*" } else { "" }
        );
        assert!(help.contains(&row), "{row} is not in the help:\n{help}");
    }
    let names: BTreeSet<&str> = SECTIONS.iter().map(|s| s.name).collect();
    assert_eq!(names.len(), SECTIONS.len(), "section names are unique");
}

#[test]
fn the_header_names_date_commit_and_machine() {
    let started = record::Started {
        date: "2026-11-27T18:30:05Z".to_string(),
        commit: "5646d52".to_string(),
    };
    let machine = record::Machine {
        cores: 2,
        memory_gib: Some(7.75),
        cpu: Some("AMD EPYC 7B13".to_string()),
    };
    let header = record::header(&started, " --only princeton", &["princeton"], &machine);
    assert!(
        header.starts_with("# npuzzle benchmark report\n"),
        "{header}"
    );
    assert!(
        header.contains(
            "Generated by `cargo xtask bench --only princeton` on 2026-11-27T18:30:05Z at commit \
             5646d52"
        ),
        "{header}"
    );
    assert!(
        header.contains("Machine: 2 cores, 7.8 GiB memory, CPU AMD EPYC 7B13."),
        "{header}"
    );
    assert_eq!(started.stem(), "2026-11-27T1830Z-5646d52");
}

#[test]
fn the_machine_is_read_from_proc() {
    let meminfo = "MemTotal:        8126464 kB\nMemFree:  1 kB\n";
    assert_eq!(record::memory_gib(meminfo), Some(7.75));
    assert_eq!(record::memory_gib("nothing"), None);
    let cpuinfo = "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nprocessor\t: 1\n";
    assert_eq!(record::cpu_model(cpuinfo).as_deref(), Some("AMD EPYC 7B13"));
    assert_eq!(record::cpu_model("processor\t: 0\n"), None);
}

#[test]
fn a_kept_run_is_never_overwritten() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let started = record::Started {
        date: "2026-11-27T18:30:05Z".to_string(),
        commit: "5646d52".to_string(),
    };
    let first = record::keep(dir.path(), &started, "first").expect("kept");
    let second = record::keep(dir.path(), &started, "second").expect("kept");
    assert_eq!(first, dir.path().join("2026-11-27T1830Z-5646d52.md"));
    assert_eq!(second, dir.path().join("2026-11-27T1830Z-5646d52-2.md"));
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "first");
    assert_eq!(std::fs::read_to_string(&second).unwrap(), "second");
}

#[test]
fn the_strategy_is_read_from_the_record_or_dashed() {
    let named = serde_json::json!({"type": "solution", "strategy": "prepared-ranks"});
    let older = serde_json::json!({"type": "solution", "length": 80});
    assert_eq!(strategies::strategy(&named), "prepared-ranks");
    assert_eq!(strategies::strategy(&older), "-");
    assert_eq!(strategies::strategies([&older, &older]), "-");
    assert_eq!(
        strategies::strategies([&named, &older, &named]),
        "prepared-ranks"
    );
    assert_eq!(strategies::join_strategies(["b", "a", "b"]), "a, b");
}

/// The modules of xtask/src, by path (`[]` is the crate root), and the
/// modules each refers to (`crate::a::b`, `super::a`, or a child by name).
fn references(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("xtask/src").flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    files(src, &mut paths);
    let module_of = |path: &Path| -> Vec<String> {
        let relative = path.strip_prefix(src).expect("under src");
        let mut parts: Vec<String> = relative
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "main")) {
            parts.pop();
        }
        parts
    };
    let modules: BTreeSet<Vec<String>> = paths.iter().map(|p| module_of(p)).collect();
    // The longest module a path of names resolves to.
    let resolve = |names: Vec<String>| -> Vec<String> {
        (0..=names.len())
            .rev()
            .map(|n| names[..n].to_vec())
            .find(|m| modules.contains(m))
            .unwrap_or_default()
    };
    let mut graph = BTreeMap::new();
    for path in &paths {
        let module = module_of(path);
        let text: String = std::fs::read_to_string(path)
            .expect("a source file")
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        // `a::b::c(...)` gives a, b, c; a path ends at the first word that
        // is not a bare name.
        let path_after = |at: usize| -> Vec<String> {
            let mut names = Vec::new();
            for word in text[at..].split("::") {
                let ident: String = word
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if ident.is_empty() {
                    break;
                }
                let whole = ident.len() == word.len();
                names.push(ident);
                if !whole {
                    break;
                }
            }
            names
        };
        let mut targets = BTreeSet::new();
        for (at, _) in text.match_indices("crate::") {
            targets.insert(resolve(path_after(at + "crate::".len())));
        }
        let parent = module[..module.len().saturating_sub(1)].to_vec();
        for (at, _) in text.match_indices("super::") {
            let mut names = parent.clone();
            names.extend(path_after(at + "super::".len()));
            targets.insert(resolve(names));
        }
        for child in modules.iter().filter(|m| {
            m.len() == module.len() + 1 && m.starts_with(&module) && m[..] != module[..]
        }) {
            let name = child.last().expect("a child has a name");
            let used = text.match_indices(&format!("{name}::")).any(|(at, _)| {
                !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
            });
            if used {
                targets.insert(child.clone());
            }
        }
        targets.remove(&module);
        graph.insert(module, targets);
    }
    graph
}

/// Two modules that refer to each other, the crate root aside: it
/// dispatches to every task and lends them its helpers (`root`,
/// `release_npuzzle`).
fn mutual(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for (a, targets) in graph {
        for b in targets {
            if a.is_empty() || b.is_empty() || a >= b {
                continue;
            }
            if graph.get(b).is_some_and(|back| back.contains(a)) {
                pairs.push((a.join("::"), b.join("::")));
            }
        }
    }
    pairs
}

#[test]
fn no_two_modules_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = references(&src);
    assert!(
        graph[&vec!["bench".to_string()]].contains(&vec!["bench".to_string(), "doors".to_string()]),
        "the scan sees the bench call its sections: {graph:?}"
    );
    assert_eq!(mutual(&graph), Vec::<(String, String)>::new(), "{graph:?}");
}

/// A stand-in for `npuzzle solve --json`: one record per board read from
/// standard input, `extra` spliced into each, then a summary.
fn fake_npuzzle(dir: &Path, extra: &str) -> std::path::PathBuf {
    let path = dir.join("npuzzle");
    crate::test_script::write_script(
        &path,
        &format!(
            "while read -r board; do\n  \
             echo '{{\"type\":\"solution\",\"length\":80,\"expanded\":5,\"seconds\":0.5{extra}}}'\n\
             done\necho '{{\"type\":\"summary\",\"peak_rss_mb\":3.0}}'"
        ),
    );
    path
}

#[test]
fn a_set_reports_the_strategy_its_records_name() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let hard = sets::read_set("hard80.txt").expect("bench/hard80.txt");
    let named = fake_npuzzle(dir.path(), r#","strategy":"prepared-ranks""#);
    let outcome = runs::solve_set(&named, &hard[..3], &[]).expect("solved");
    assert!(outcome.all_optimal);
    assert_eq!(outcome.expanded, 15);
    assert_eq!(outcome.strategy(), "prepared-ranks");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let unnamed = fake_npuzzle(dir.path(), "");
    let outcome = runs::solve_set(&unnamed, &hard[..3], &[]).expect("solved");
    assert_eq!(outcome.strategy(), "-");
}

#[test]
fn a_failed_section_is_reported_with_its_error() {
    let error: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    let text = failed_section("docs", &error);
    assert!(text.starts_with("## Section docs: failed\n"), "{text}");
    assert!(
        text.contains("line 1\n") && text.contains("line 20\n"),
        "{text}"
    );
    assert!(!text.contains("line 21"), "{text}");
}

/// The bench's replay accepts moves that solve, in the tile notation, for
/// both goals, and refuses an illegal move or one short of the goal.
#[test]
fn the_bench_replays_moves_to_either_goal() {
    use super::replay::replays;
    // 1 2 3 / 4 5 6 / 7 0 8: tile 8 slides left into the blank.
    let near = [1, 2, 3, 4, 5, 6, 7, 0, 8];
    assert!(replays(&near, "L", false));
    assert!(!replays(&near, "", false));
    assert!(
        !replays(&near, "R", false),
        "tile 7 slides right: not the goal"
    );
    assert!(
        !replays(&near, "D", false),
        "tile 5 slides down: not the goal"
    );
    // 1 0 2 / 3 4 5 / 6 7 8 to blank-first: tile 1 slides right.
    let first = [1, 0, 2, 3, 4, 5, 6, 7, 8];
    assert!(replays(&first, "R", true));
    assert!(
        !replays(&first, "U", true),
        "tile 4 slides up: not the goal"
    );
    assert!(!replays(&first, "LX", true), "not a move");
    assert!(
        !replays(&[0, 2, 1, 3], "D", false),
        "nothing above the blank"
    );
}

#[test]
fn korf50_takes_its_hours_jobs_and_memory() {
    let args: Vec<String> = [
        "--only",
        "korf50",
        "--max-hours",
        "0.5",
        "--korf50-jobs",
        "2",
        "--korf50-memory",
        "1G",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let parsed = parse(&args).expect("the options parse");
    assert_eq!(parsed.plan().sections, ["korf50"]);
    assert_eq!(
        (
            parsed.max_hours,
            parsed.korf50_jobs,
            parsed.korf50_memory.as_deref()
        ),
        (0.5, Some(2), Some("1G"))
    );
    for bad in ["0", "-1", "nan", "inf", "an hour"] {
        let args = ["--max-hours".to_string(), bad.to_string()];
        assert!(parse(&args).is_err(), "--max-hours {bad} was taken");
    }
    assert!(!SECTIONS.iter().any(|s| s.name == "korf50" && s.default));
}

#[test]
fn korf50_knows_the_published_nodes_of_the_fifty_by_number() {
    use korf50::{by_difficulty, PUBLISHED};
    assert_eq!(PUBLISHED.iter().sum::<u64>(), 1_180_783_277_381);
    // The ten easiest, as issue 12 lists them.
    assert_eq!(
        by_difficulty()[..10],
        [38, 40, 44, 25, 1, 32, 37, 30, 28, 5]
    );
    assert_eq!(by_difficulty()[49], 50);
    let order = by_difficulty();
    assert!(order
        .windows(2)
        .all(|w| PUBLISHED[w[0] - 1] <= PUBLISHED[w[1] - 1]));
}

#[test]
fn korf50_rows_read_back_and_project_the_rest() {
    use korf50::{newest, project, Row, Spent, PUBLISHED};
    let row = |number: usize, expanded: u64, seconds: f64, commit: &str| Row {
        number,
        optimal: 100,
        length: 100,
        expanded,
        best_first: 0,
        seconds,
        peak_rss_mb: 1200.0,
        tables: "septet".to_string(),
        jobs: "2".to_string(),
        memory: "-".to_string(),
        commit: commit.to_string(),
        date: "2026-11-29T21:00:00Z".to_string(),
        runs: 1,
    };
    let first = row(38, 1_000_000, 0.5, "aaaaaaa");
    let line = format!(
        "| 38 | 100 | 100 | 1000000 | 0 | 0.5 | 1200 | {} | 0.290 | septet | 2 | - | aaaaaaa | \
         2026-11-29T21:00:00Z |",
        PUBLISHED[37]
    );
    // Rows from before the runs column are of one run.
    assert_eq!(Row::parse(&line), Some(first.clone()));
    let resumed = Row {
        runs: 3,
        ..first.clone()
    };
    assert_eq!(Row::parse(&format!("{line} 3 |")), Some(resumed.clone()));
    assert_eq!(Row::parse(&resumed.line()), Some(resumed));
    assert_eq!(Row::parse(&format!("{line} 0 |")), None);
    assert_eq!(Row::parse("| # | optimal | length |"), None);
    assert_eq!(Row::parse(&line.replace("| 38 |", "| 51 |")), None);
    // The newest row of an instance counts; other settings do not.
    let mut other = row(40, 7, 1.0, "bbbbbbb");
    other.memory = "1G".to_string();
    let rows = [first, row(38, 2_000_000, 1.0, "ccccccc"), other];
    let solved = newest(&rows, |r| r.memory == "-");
    assert_eq!(solved.len(), 1);
    assert_eq!(solved[0].commit, "ccccccc");
    let p = project(&solved, None);
    assert_eq!((p.solved, p.nodes), (1, 2_000_000));
    let ratio = 2_000_000.0 / PUBLISHED[37] as f64;
    let rest = (PUBLISHED.iter().sum::<u64>() - PUBLISHED[37]) as f64;
    assert!((p.projected_nodes - (2e6 + rest * ratio)).abs() < 1.0);
    // At 2 M nodes a second.
    assert!((p.projected_seconds - p.projected_nodes / 2e6).abs() < 1e-3);
    // A kept search counts at no less than it has taken, and no more
    // than its scaled estimate when it has taken less.
    let scaled = PUBLISHED[49] as f64 * ratio;
    let beyond = Spent {
        number: 50,
        nodes: scaled as u64 + 1_000_000_000,
        seconds: scaled / 2e6 + 500.0,
    };
    let q = project(&solved, Some(&beyond));
    assert!((q.projected_nodes - p.projected_nodes - (beyond.nodes as f64 - scaled)).abs() < 2.0);
    assert!((q.projected_seconds - p.projected_seconds - 500.0).abs() < 1e-3);
    let short = Spent {
        number: 50,
        nodes: 5,
        seconds: 1.0,
    };
    assert_eq!(project(&solved, Some(&short)), p);
    // One solved of fifty is projected; fifty solved is measured.
    assert!(korf50::summary_line(&p, None, "2").contains("Projected for all fifty"));
    let all: Vec<Row> = (1..=50).map(|n| row(n, 1_000, 360.0, "eeeeeee")).collect();
    let all = project(&all.iter().collect::<Vec<_>>(), None);
    let line = korf50::summary_line(&all, None, "2");
    assert!(line.contains("Solved 50 of 50"), "{line}");
    assert!(
        line.contains("All fifty, measured: 5.0 hours on 2 jobs"),
        "{line}"
    );
    assert!(!line.contains("Projected"), "{line}");
    // A row whose length is not the set's optimum is not taken as solved.
    let set = sets::read_set("korf24_50.txt").unwrap();
    let mut kept = row(38, 1, 1.0, "ddddddd");
    kept.optimal = set[37].length;
    kept.length = set[37].length;
    assert!(korf50::agrees(&kept, &set));
    kept.length += 2;
    assert!(!korf50::agrees(&kept, &set));
}

#[test]
fn deepcubea24_rows_read_back_and_stale_ones_are_dropped() {
    use deepcubea::{boards_24_agree, Board, Row24, CATALOGUE_24, HEADER_24};
    use record::{read_kept, write_kept};
    let row = Row24 {
        board: 7,
        theirs: 92,
        length: 92,
        expanded: 1_283_418_845,
        seconds: 261.4,
        tables: CATALOGUE_24.to_string(),
        commit: "c798734".to_string(),
        date: "2026-12-07T20:50:00Z".to_string(),
    };
    assert_eq!(Row24::parse(&row.line()), Some(row));
    let header_rows: Vec<Row24> = HEADER_24.lines().filter_map(Row24::parse).collect();
    assert_eq!(header_rows, []);
    assert_eq!(
        Row24::parse("| 7 | 92 | 92 | many | 1.0 | septet | c | d |"),
        None
    );

    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("deepcubea24.md");
    assert_eq!(read_kept(&path), Ok(Vec::new()));
    let rows = [3, 0].map(|board| Row24 {
        board,
        theirs: 90 + board as u64,
        length: 90 + board as u64,
        expanded: 1,
        seconds: 0.5,
        tables: CATALOGUE_24.to_string(),
        commit: "c".to_string(),
        date: "d".to_string(),
    });
    write_kept(&path, HEADER_24, rows.iter().map(Row24::line)).expect("written");
    let back: Vec<Row24> = read_kept(&path)
        .expect("read")
        .iter()
        .filter_map(|l| Row24::parse(l))
        .collect();
    assert_eq!(back, rows);
    let set = |lengths: &[u64]| -> Vec<Board> {
        lengths
            .iter()
            .map(|&length| Board {
                length,
                seconds: 0.0,
                tiles: String::new(),
            })
            .collect()
    };
    assert!(boards_24_agree(&back[1], &set(&[90])));
    assert!(!boards_24_agree(&back[1], &set(&[91])));
    assert!(!boards_24_agree(&back[0], &set(&[90])));
}
