//! What an installation gets besides the binary (shell completions, the
//! manual pages, the C library with its pkg-config file), and the texts
//! that state what the program does (README, docs/cli.md, `--help`) held
//! to what it does.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::*;

const SUBCOMMANDS: [&str; 7] = [
    "solve",
    "play",
    "check",
    "random",
    "serve",
    "pdb",
    "completions",
];

fn readme() -> String {
    std::fs::read_to_string(repo_root().join("README.md")).unwrap()
}

fn cli_doc() -> String {
    std::fs::read_to_string(repo_root().join("docs/cli.md")).unwrap()
}

#[test]
fn completions_name_every_subcommand_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let run = npuzzle(&["completions", shell]);
        assert_eq!(run.status, 0, "{shell}: {}", run.stderr);
        for subcommand in SUBCOMMANDS {
            assert!(
                run.stdout.contains(subcommand),
                "{shell} completions lack '{subcommand}':\n{}",
                run.stdout
            );
        }
        // The options of a subcommand too.
        assert!(run.stdout.contains("within"), "{shell}: no --within");
    }
    let fish = npuzzle(&["completions", "fish"]);
    assert!(
        fish.stdout.contains("complete -c npuzzle"),
        "{}",
        fish.stdout
    );
    let bash = npuzzle(&["completions", "bash"]);
    assert!(bash.stdout.contains("complete -F"), "{}", bash.stdout);

    let unknown = npuzzle(&["completions", "tcsh"]);
    assert_eq!(unknown.status, 2);
    assert!(unknown.stderr.contains("tcsh"), "{}", unknown.stderr);
}

#[test]
fn the_manual_pages_generate_and_list_the_subcommands() {
    let dir = scratch();
    let out = dir.path().join("man");
    let run = npuzzle(&["man", "--out", out.to_str().unwrap()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let page = std::fs::read_to_string(out.join("npuzzle.1")).unwrap();
    assert!(page.contains(".TH "), "not a manual page:\n{page}");
    for subcommand in SUBCOMMANDS {
        assert!(
            page.contains(&format!("npuzzle\\-{subcommand}(1)")),
            "npuzzle.1 does not list '{subcommand}':\n{page}"
        );
        assert!(
            out.join(format!("npuzzle-{subcommand}.1")).is_file(),
            "no page for {subcommand}"
        );
    }
    let solve = std::fs::read_to_string(out.join("npuzzle-solve.1")).unwrap();
    assert!(solve.contains("\\-\\-within"), "{solve}");

    // A directory that cannot be made is named.
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "").unwrap();
    let run = npuzzle(&["man", "--out", blocked.join("man").to_str().unwrap()]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("file/man"), "{}", run.stderr);
}

/// Whether `program` runs (`program --version`).
fn found(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The README's C program (the block marked `docs-test: file hello.c`).
fn readme_hello_c() -> String {
    let readme = readme();
    let marker = "<!-- docs-test: file hello.c -->";
    let after = &readme[readme.find(marker).expect("the hello.c block") + marker.len()..];
    let body = after
        .trim_start()
        .strip_prefix("```c\n")
        .expect("a C block after the marker");
    body[..body.find("```").unwrap()].to_string()
}

/// What the README says hello prints: the comment on the C program's
/// printf line and the one after `./hello`; they must agree.
fn readme_hello_output() -> String {
    let program = readme_hello_c();
    let printf = program
        .lines()
        .find(|l| l.trim_start().starts_with("printf("))
        .expect("hello.c prints");
    let in_c = printf
        .split_once("/* ")
        .and_then(|(_, c)| c.split_once(" */"))
        .map(|(c, _)| c.trim().to_string())
        .expect("a comment on the printf line");
    let readme = readme();
    let run_line = readme
        .lines()
        .find(|l| l.trim_start().starts_with("./hello "))
        .expect("a line running ./hello");
    let in_sh = run_line.split_once("# ").unwrap().1.trim().to_string();
    assert_eq!(in_c, in_sh, "the README's two comments on hello's output");
    in_c
}

/// `cargo xtask install-c --prefix DIR --built PROFILE_DIR` into a scratch
/// prefix: the libraries this build's tests link, built once by the suite
/// (`cargo xtask install-c` alone builds them in release first).
fn install_c(prefix: &Path) -> Run {
    let profile = crate::reuse::libnpuzzle();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command.arg("xtask");
    run_command(
        command,
        &repo_root(),
        &[
            "install-c",
            "--prefix",
            prefix.to_str().unwrap(),
            "--built",
            profile.to_str().unwrap(),
        ],
        "",
    )
}

#[test]
fn install_c_installs_what_pkg_config_and_a_c_or_cpp_compiler_need() {
    let missing: Vec<&str> = ["cc", "c++", "pkg-config"]
        .into_iter()
        .filter(|p| !found(p))
        .collect();
    if !missing.is_empty() {
        println!(
            "install-c test skipped: {} not found (apt-get install build-essential pkg-config)",
            missing.join(", ")
        );
        return;
    }
    let dir = scratch();
    let prefix = dir.path().join("prefix");
    let run = install_c(&prefix);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    for file in [
        "lib/libnpuzzle.a",
        "lib/libnpuzzle.so",
        "include/npuzzle.h",
        "lib/pkgconfig/npuzzle.pc",
    ] {
        assert!(prefix.join(file).is_file(), "{file} not installed");
    }
    let expected = readme_hello_output();
    std::fs::write(dir.path().join("hello.c"), readme_hello_c()).unwrap();
    let prefix = prefix.canonicalize().unwrap();
    let pkg_config_path: PathBuf = prefix.join("lib/pkgconfig");
    for (compiler, language) in [("cc", "c"), ("c++", "c++")] {
        let exe = dir.path().join(format!("hello-{language}"));
        let script = format!(
            "{compiler} -x {language} hello.c $(pkg-config --cflags --libs npuzzle) -o {exe}",
            exe = exe.display()
        );
        let build = Command::new("sh")
            .args(["-c", &script])
            .env("PKG_CONFIG_PATH", &pkg_config_path)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let mut command = Command::new(&exe);
        command.env("LD_LIBRARY_PATH", prefix.join("lib"));
        let hello = npuzzle_from(command, dir.path(), &[], "");
        assert_eq!(hello.status, 0, "{language}: {}", hello.stderr);
        assert_eq!(
            hello.stdout.trim_end(),
            expected,
            "{language}: hello prints another line than the README says"
        );
    }
}

#[test]
fn play_of_an_unsolvable_board_says_so_and_fails() {
    let run = npuzzle(&["play", "--delay", "0", "1 2 3 4 5 6 8 7 0"]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert_eq!(run.stderr, "npuzzle: No solution possible\n");
    assert_eq!(run.stdout, "");

    // At a terminal, the "solving..." line is cleared before the message.
    if !found("script") {
        println!("terminal check skipped: `script` (util-linux) not found");
        return;
    }
    let dir = scratch();
    let command = format!(
        "{} play --delay 0 1 2 3 4 5 6 8 7 0",
        env!("CARGO_BIN_EXE_npuzzle")
    );
    let mut script = Command::new("script");
    script.args(["-qec", &command, "/dev/null"]);
    let run = npuzzle_from(script, dir.path(), &[], "");
    assert_eq!(run.status, 1, "{}", run.stdout);
    let message = run.stdout.find("npuzzle: No solution possible").unwrap();
    let clear = run.stdout.find("\r\x1b[K").expect("the line is cleared");
    assert!(clear < message, "{:?}", run.stdout);
}

/// The paragraph of `npuzzle solve --help` about `option`.
fn help_of(option: &str) -> String {
    let help = npuzzle(&["solve", "--help"]);
    assert_eq!(help.status, 0);
    let start = help
        .stdout
        .find(&format!("      {option}\n"))
        .unwrap_or_else(|| panic!("no {option} in:\n{}", help.stdout));
    let rest = &help.stdout[start..];
    let end = rest.find("\n\n").unwrap_or(rest.len());
    rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `NxN` sizes a text names.
fn sizes(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.split_once('x').is_some_and(|(a, b)| {
                !a.is_empty() && a == b && a.chars().all(|c| c.is_ascii_digit())
            })
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn fast_help_says_what_docs_cli_md_says() {
    let help = help_of("--fast");
    let doc = cli_doc();
    let bullet = doc
        .lines()
        .find(|l| l.starts_with("- `--fast`"))
        .expect("docs/cli.md's --fast bullet");
    let reduction = doc
        .split("\n\n")
        .find(|p| p.starts_with("The reduction places"))
        .expect("docs/cli.md's paragraph on the reduction");
    // The largest board, and the core searched at the end.
    let help_sizes = sizes(&help);
    assert_eq!(help_sizes.len(), 2, "{help}");
    assert!(sizes(bullet).contains(&help_sizes[0]), "{help}\n{bullet}");
    assert!(
        reduction.contains(&format!("a core of {} or\nless", help_sizes[1]))
            || reduction.contains(&format!("a core of {} or less", help_sizes[1])),
        "--help's core {} is not docs/cli.md's:\n{reduction}",
        help_sizes[1]
    );
    for claim in ["not optimal", "weighted", "100,000"] {
        assert!(help.contains(claim), "--help lacks '{claim}': {help}");
        assert!(
            reduction.contains(claim) || bullet.contains(claim),
            "docs/cli.md lacks '{claim}'"
        );
    }
    assert_eq!(
        help_sizes[0],
        format!("{0}x{0}", npuzzle_board::MAX_SIZE),
        "{help}"
    );
}

/// The rows of the README's table of what each size gets by default.
fn size_table() -> Vec<String> {
    readme()
        .lines()
        .skip_while(|l| !l.starts_with("| board | how |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_size_table_ends_where_the_program_does() {
    let rows = size_table();
    let last = rows.last().expect("the README's size table");
    let first_cell = last.split('|').nth(1).unwrap().trim();
    assert!(
        !first_cell.contains("and up") && !first_cell.contains("and more"),
        "the README promises sizes past its last: {first_cell}"
    );
    let largest = sizes(first_cell).pop().expect("a size in the last row");
    let n: usize = largest.split('x').next().unwrap().parse().unwrap();
    let at = npuzzle(&["random", "--size", &n.to_string(), "--seed", "1"]);
    assert_eq!(at.status, 0, "{}", at.stderr);
    let past = npuzzle(&["random", "--size", &(n + 1).to_string()]);
    assert_eq!(past.status, 2, "the README's largest size is not the limit");
    assert!(
        past.stderr.contains(&format!("from 2 to {n}")),
        "{}",
        past.stderr
    );
}

/// The row of `section`'s table in bench/report.md that starts with `start`.
fn report_row(section: &str, start: &str) -> String {
    let report = std::fs::read_to_string(repo_root().join("bench/report.md")).unwrap();
    report
        .lines()
        .skip_while(|l| {
            !(l.starts_with('#') && l.trim_start_matches('#').trim().starts_with(section))
        })
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("the report's {section} row {start}"))
        .to_string()
}

#[test]
fn the_5x5_ratios_are_the_bench_reports() {
    let row = report_row("Boards past optimal search", "| 5x5 |");
    let reduction = row.split('|').nth(3).unwrap().trim().to_string();
    let doc = cli_doc().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        doc.contains(&format!(
            "about {reduction} times their Manhattan distance at 5x5"
        )),
        "docs/cli.md says otherwise than the report's {reduction}"
    );
    let row = report_row("Boards no optimal search finishes", "| 5x5 | none |");
    let beam: f64 = row.split('|').nth(7).unwrap().trim().parse().unwrap();
    let readme_row = size_table()
        .into_iter()
        .find(|r| r.starts_with("| 5x5 without tables"))
        .expect("the README's 5x5-without-tables row");
    assert!(
        readme_row.contains(&format!("about {beam:.2} times Manhattan")),
        "README says otherwise than the report's {beam:.2}: {readme_row}"
    );
}

/// The crates published for others: the libraries and the command.
const PUBLISHED: [&str; 5] = [
    "npuzzle-board",
    "npuzzle-pdb",
    "npuzzle-search",
    "npuzzle",
    "npuzzle-cli",
];

/// What `cargo ARGS`, run in the checkout, prints; it must succeed.
fn cargo_stdout(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn cargo_json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&cargo_stdout(args)).unwrap()
}

#[test]
fn published_crates_carry_their_metadata_and_licences() {
    let metadata = cargo_json(&["metadata", "--format-version", "1", "--offline"]);
    let packages = metadata["packages"].as_array().unwrap();
    for name in PUBLISHED {
        let package = packages
            .iter()
            .find(|p| p["name"] == name && p["source"].is_null())
            .unwrap_or_else(|| panic!("no package {name}"));
        for field in ["description", "license", "repository", "readme"] {
            assert!(
                package[field].as_str().is_some_and(|v| !v.is_empty()),
                "{name} has no {field}"
            );
        }
        assert_eq!(package["license"], "MIT OR Apache-2.0", "{name}");
        for field in ["keywords", "categories"] {
            assert!(
                package[field].as_array().is_some_and(|v| !v.is_empty()),
                "{name} has no {field}"
            );
        }
        for dep in package["dependencies"].as_array().unwrap() {
            if dep["path"].is_string() && dep["kind"].is_null() {
                assert_ne!(
                    dep["req"], "*",
                    "{name}'s path dependency {} has no version",
                    dep["name"]
                );
            }
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let list = Command::new(cargo)
            .args([
                "package",
                "--list",
                "--offline",
                "--allow-dirty",
                "-p",
                name,
            ])
            .current_dir(repo_root())
            .output()
            .unwrap();
        assert!(
            list.status.success(),
            "{}",
            String::from_utf8_lossy(&list.stderr)
        );
        let files = String::from_utf8(list.stdout).unwrap();
        for file in ["LICENSE-MIT", "LICENSE-APACHE", "README.md", "Cargo.toml"] {
            assert!(
                files.lines().any(|l| l == file),
                "{name}'s package lacks {file}:\n{files}"
            );
        }
    }
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = std::fs::read_to_string(repo_root().join(licence)).unwrap();
        assert!(text.len() > 1000, "{licence}");
    }
}

/// `cargo doc --workspace` writes each documented target to
/// target/doc/NAME: two of one name overwrite each other, with a warning.
#[test]
fn documented_targets_have_names_of_their_own() {
    let metadata = cargo_json(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]);
    let mut seen = std::collections::HashMap::new();
    for package in metadata["packages"].as_array().unwrap() {
        for target in package["targets"].as_array().unwrap() {
            let documented =
                target["doc"].as_bool().unwrap_or(true)
                    && target["kind"].as_array().unwrap().iter().any(|k| {
                        k != "test" && k != "example" && k != "bench" && k != "custom-build"
                    });
            if !documented {
                continue;
            }
            let name = target["name"].as_str().unwrap().replace('-', "_");
            let owner = package["name"].as_str().unwrap();
            if let Some(other) = seen.insert(name.clone(), owner) {
                panic!("{owner} and {other} both document a target named {name}");
            }
        }
    }
}

/// `cargo install --path crates/cli` warns of a profile override for a
/// package outside the command's build ("profile package spec 'xtask' in
/// profile 'dev' did not match any packages"): every package that the root
/// manifest's profiles name must be one the command is built from.
#[test]
fn profile_overrides_name_only_what_the_command_builds() {
    let metadata = cargo_json(&["metadata", "--format-version", "1", "--offline"]);
    let ids: std::collections::HashMap<&str, &str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let nodes = metadata["resolve"]["nodes"].as_array().unwrap();
    let cli = nodes
        .iter()
        .find(|n| ids[n["id"].as_str().unwrap()] == "npuzzle-cli")
        .unwrap();
    let mut built = std::collections::HashSet::new();
    let mut todo = vec![cli];
    while let Some(node) = todo.pop() {
        if !built.insert(ids[node["id"].as_str().unwrap()]) {
            continue;
        }
        for dep in node["deps"].as_array().unwrap() {
            let not_dev = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"] != "dev");
            if not_dev {
                let id = dep["pkg"].as_str().unwrap();
                todo.push(nodes.iter().find(|n| n["id"] == id).unwrap());
            }
        }
    }
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    for line in manifest.lines() {
        let Some(spec) = line
            .trim()
            .strip_prefix("[profile.")
            .and_then(|rest| rest.strip_suffix(']'))
        else {
            continue;
        };
        if let Some((_, package)) = spec.split_once(".package.") {
            let package = package.trim_matches('"');
            assert!(
                package == "*" || built.contains(package),
                "[profile.{spec}] names {package}, which `cargo install --path crates/cli` does not build"
            );
        }
    }
}

/// `cargo install` without `--locked` ignores Cargo.lock and builds with
/// whatever versions are newest: every install line the docs give pins them.
#[test]
fn every_documented_cargo_install_is_locked() {
    let mut texts = vec![("README.md".to_string(), readme())];
    for entry in std::fs::read_dir(repo_root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            texts.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    let mut seen = 0;
    for (file, text) in texts {
        let joined = text.replace("`cargo\ninstall", "`cargo install");
        for (at, _) in joined.match_indices("cargo install") {
            let rest = &joined[at..];
            let command = &rest[..rest.find(['`', '\n', '#']).unwrap_or(rest.len())];
            assert!(command.contains("--locked"), "{file}: `{command}`");
            seen += 1;
        }
    }
    assert!(seen >= 2, "the README's install lines");
}

/// Each package of `cargo tree ARGS -e EDGES` with the features it is
/// built with (`name version [features]`), once per distinct build.
fn resolved_features(args: &[&str], edges: &str) -> std::collections::BTreeSet<String> {
    let mut all = vec!["tree"];
    all.extend_from_slice(args);
    all.extend(["-e", edges, "--prefix", "none", "--format", "{p} [{f}]"]);
    cargo_stdout(&all)
        .lines()
        .map(|line| line.trim_end_matches(" (*)").to_string())
        .collect()
}

/// maturin builds the Python extension alone; it reuses the engine the
/// test build compiled only if every package under the engine is built
/// with the same features as in the workspace's tests
/// (crates/python/Cargo.toml asks for those the rest of the workspace
/// turns on). A dependency that turns on another feature breaks the reuse
/// and adds minutes to the suite.
#[test]
fn the_python_extension_builds_the_engine_with_the_workspaces_features() {
    let package = |line: &String| line.split(" [").next().unwrap().to_string();
    let engine: std::collections::BTreeSet<String> =
        resolved_features(&["-p", "npuzzle"], "normal,build")
            .iter()
            .map(package)
            .collect();
    let under_engine = |args: &[&str], edges: &str| {
        resolved_features(args, edges)
            .into_iter()
            .filter(|line| engine.contains(&package(line)))
            .collect::<std::collections::BTreeSet<_>>()
    };
    // What `cargo build-tests` (.cargo/config.toml) builds.
    let workspace = under_engine(&["--workspace"], "normal,build,dev");
    let python = under_engine(&["-p", "npuzzle-python"], "normal,build");
    assert!(workspace.len() > 10, "{workspace:?}");
    assert_eq!(
        workspace.symmetric_difference(&python).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "packages built with other features in the Python extension than in the workspace's \
         tests (add the features to crates/python/Cargo.toml)"
    );
}
