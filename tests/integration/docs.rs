//! Every shell block of README.md and docs/*.md runs as written, in a
//! scratch directory that looks like a checkout (bench/, examples/, crates/
//! and target/ linked, data/ holding small tables the test builds), with
//! `npuzzle` on the PATH and `cargo run --release --` meaning `npuzzle`, as
//! the README says. Python blocks run in pytest (crates/python/tests/
//! test_docs.py) and the README's Rust block as a doctest of the `npuzzle`
//! crate.
//!
//! A block may be marked by an HTML comment on the line before its fence:
//! - `<!-- docs-test: skip (why) -->`: not run (the test suite itself, an
//!   install);
//! - `<!-- docs-test: bench (why) -->`: run only with NPUZZLE_DOCS_FULL=1,
//!   in the checkout with its real tables (`cargo xtask bench` does that);
//! - `<!-- docs-test: server -->`: started in the background, kept running
//!   for the rest of the file's blocks once it prints its address;
//! - `<!-- docs-test: file NAME -->`: written to NAME for later blocks.
//!
//! A command passes when it exits 0, or with the status its comment names
//! ("exit status 1"). A `json` block after a command must show the record
//! type the command printed.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::harness::*;

/// How long one command may run: a guard against a hang, not a speed
/// check. `pip install ./crates/python` may compile the engine, which
/// took over five minutes on two cores shared with the other tests.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(900);

/// A fenced block of a Markdown file.
struct Block {
    file: String,
    /// The line of the opening fence (1-based).
    line: usize,
    lang: String,
    /// The docs-test marker's first word and the rest (`file hello.c`).
    marker: Option<(String, String)>,
    text: String,
}

fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
    let file = path
        .strip_prefix(repo_root())
        .unwrap_or(path)
        .display()
        .to_string();
    let mut found = Vec::new();
    let mut marker = None;
    let mut open: Option<Block> = None;
    for (index, line) in text.lines().enumerate() {
        if let Some(block) = open.as_mut() {
            if line.trim_start().starts_with("```") {
                found.push(open.take().unwrap());
            } else {
                block.text.push_str(line);
                block.text.push('\n');
            }
            continue;
        }
        if let Some(rest) = line
            .trim()
            .strip_prefix("<!-- docs-test:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            let rest = rest.trim();
            let (word, arg) = rest.split_once(' ').unwrap_or((rest, ""));
            marker = Some((word.to_string(), arg.trim().to_string()));
            continue;
        }
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            open = Some(Block {
                file: file.clone(),
                line: index + 1,
                lang: lang.trim().to_string(),
                marker: marker.take(),
                text: String::new(),
            });
            continue;
        }
        if !line.trim().is_empty() {
            marker = None;
        }
    }
    assert!(open.is_none(), "{file}: a code block is not closed");
    found
}

/// The commands of a shell block: continuation lines joined, comment and
/// blank lines left out.
fn commands(block: &Block) -> Vec<String> {
    let mut commands = Vec::new();
    let mut current = String::new();
    for line in block.text.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                commands.push(std::mem::take(&mut current));
            }
        }
    }
    commands
}

/// The exit status a command's comment names ("exit status 1"), else 0.
fn expected_status(command: &str) -> i32 {
    command
        .split_once(" # ")
        .and_then(|(_, comment)| comment.split("exit status ").nth(1))
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(0)
}

/// `npuzzle` is the binary under test; `cargo run --release --` means it,
/// as the README says.
const PRELUDE: &str = "set -o pipefail\n\
cargo() { if [ \"$1\" = run ] && [ \"$2\" = --release ] && [ \"$3\" = -- ]; then shift 3; \
npuzzle \"$@\"; else command cargo \"$@\"; fi; }\n";

fn full() -> bool {
    std::env::var_os("NPUZZLE_DOCS_FULL").is_some_and(|v| v == "1")
}

/// Small tables for the blocks: 6-6-3 alone (copied from the shared
/// fixture), the only set for 4x4, so `npuzzle solve` uses it.
fn small_tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch();
        let partition =
            npuzzle_pdb::Partition::parse("6-6-3", 4, npuzzle_board::Goal::BlankLast).unwrap();
        for pattern in partition.patterns() {
            let name = npuzzle_pdb::file::file_name(pattern);
            std::fs::copy(crate::tables::tables().join(&name), dir.path().join(&name)).unwrap();
        }
        dir
    })
    .path()
}

/// A scratch directory that looks like a checkout.
fn workspace() -> tempfile::TempDir {
    let dir = scratch();
    let root = repo_root().canonicalize().unwrap();
    for name in ["bench", "examples", "crates", "target", "docs"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    let data = if full() {
        root.join("data")
    } else {
        small_tables().to_path_buf()
    };
    std::os::unix::fs::symlink(data, dir.path().join("data")).unwrap();
    dir
}

fn shell(dir: &Path, script: &str) -> Command {
    // The shell inherits the test process's own user directories.
    isolate_process();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_npuzzle"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(format!("{PRELUDE}{script}"))
        .current_dir(dir)
        .env("PATH", path)
        // `pip install ./crates/python` builds the engine in the test
        // profile too, reusing what the tests built (in release it would
        // compile it again, for minutes).
        .env(
            "MATURIN_PEP517_ARGS",
            format!("--profile {}", crate::reuse::test_profile()),
        )
        .env_remove("NPUZZLE_PDB_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs a command to its end (or the timeout): status, stdout, stderr.
fn run(dir: &Path, command: &str) -> (i32, String, String) {
    let mut child = shell(dir, command).spawn().expect("bash runs");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = out.read_to_string(&mut text);
        text
    });
    let error_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = err.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if started.elapsed() > COMMAND_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, reader.join().unwrap(), error_reader.join().unwrap())
}

/// A server a block started: stopped when dropped, so a failing block
/// after it leaves no server running.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a server command; returns once it printed its address.
fn start_server(dir: &Path, command: &str, place: &str) -> Server {
    let mut server = Server(
        shell(dir, &format!("exec {command}"))
            .spawn()
            .expect("bash runs"),
    );
    let child = &mut server.0;
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("http://") {
                let _ = tx.send(line);
            }
        }
    });
    if rx.recv_timeout(Duration::from_secs(30)).is_err() {
        let _ = child.kill();
        let mut stderr = String::new();
        let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
        panic!("{place}: `{command}` did not start serving: {stderr}");
    }
    server
}

/// Builds the C library the README's C program links, in the profile
/// the tests are built in; the blocks' `target/release` means that
/// profile's directory, as `cargo run --release --` means the binary under
/// test.
fn release_libnpuzzle() {
    crate::reuse::build_libnpuzzle(&repo_root().join("target"), &crate::reuse::test_profile());
}

/// `command` with `target/release` read as the test profile's directory.
fn in_test_profile(command: &str) -> String {
    command.replace(
        "target/release",
        &format!(
            "target/{}",
            crate::reuse::profile_dir()
                .file_name()
                .unwrap()
                .to_string_lossy()
        ),
    )
}

/// The `"type"` a JSON text names first.
fn record_type(text: &str) -> Option<String> {
    let start = text.find("\"type\":")? + "\"type\":".len();
    let rest = text[start..].trim_start().strip_prefix('"')?;
    Some(rest.split('"').next()?.to_string())
}

/// Runs the blocks of one Markdown file; returns the commands run.
fn run_file(path: &Path) -> usize {
    let dir = workspace();
    // Stopped when the file's blocks end, or when one fails.
    let mut servers: Vec<Server> = Vec::new();
    let mut last_output: Option<String> = None;
    let mut ran = 0;
    for block in blocks(path) {
        let place = format!("{}:{}", block.file, block.line);
        let marker = block
            .marker
            .as_ref()
            .map(|(word, arg)| (word.as_str(), arg.as_str()));
        match (block.lang.as_str(), marker) {
            (_, Some(("skip", _))) => continue,
            (_, Some(("bench", _))) if !full() => continue,
            (_, Some(("file", name))) => {
                std::fs::write(dir.path().join(name), &block.text).unwrap();
                continue;
            }
            ("json", _) => {
                if let Some(output) = &last_output {
                    assert_eq!(
                        record_type(output),
                        record_type(&block.text),
                        "{place}: the command before printed {output}"
                    );
                }
                continue;
            }
            ("sh", Some(("server", _))) => {
                for command in commands(&block) {
                    servers.push(start_server(dir.path(), &command, &place));
                    ran += 1;
                }
                continue;
            }
            ("sh", Some((other, _))) if other != "bench" => {
                panic!("{place}: unknown docs-test marker '{other}'")
            }
            ("sh", _) => {}
            _ => continue,
        }
        // Blocks for the bench run in the checkout, with its tables.
        let cwd = if marker.is_some() {
            repo_root()
        } else {
            dir.path().to_path_buf()
        };
        for command in commands(&block) {
            let started = Instant::now();
            let (status, stdout, stderr) = run(&cwd, &in_test_profile(&command));
            let seconds = started.elapsed().as_secs_f64();
            if seconds >= 2.0 {
                eprintln!("docs: {place}: {seconds:.1} s for `{command}`");
            }
            let expected = expected_status(&command);
            assert!(
                !stderr.contains("panicked"),
                "{place}: `{command}` panicked: {stderr}"
            );
            assert_eq!(
                status, expected,
                "{place}: `{command}` exited {status}, not {expected}\nstdout:\n{stdout}\nstderr:\n{stderr}"
            );
            last_output = Some(stdout);
            ran += 1;
        }
    }
    drop(servers);
    ran
}

fn markdown_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_shell_block_of_the_docs_runs_as_written() {
    release_libnpuzzle();
    let mut ran = 0;
    for path in markdown_files() {
        ran += run_file(&path);
    }
    eprintln!("docs: {ran} commands ran");
    assert!(ran >= 30, "only {ran} commands ran");
}

/// The runner reads what the docs write: markers, continuations, statuses.
#[test]
fn the_block_reader_reads_markers_and_commands() {
    let dir = scratch();
    let path = dir.path().join("doc.md");
    std::fs::write(
        &path,
        "text\n\n<!-- docs-test: skip (why) -->\n```sh\nnot run\n```\n\n```sh\n# comment\n\
         a \\\n  b   # exit status 2\nc\n```\n```json\n{\"type\":\"solution\",...}\n```\n",
    )
    .unwrap();
    let found = blocks(&path);
    assert_eq!(found.len(), 3);
    assert_eq!(
        found[0].marker,
        Some(("skip".to_string(), "(why)".to_string()))
    );
    assert_eq!(found[1].marker, None);
    assert_eq!(found[1].line, 8);
    let commands = commands(&found[1]);
    assert_eq!(commands.len(), 2);
    assert_eq!(expected_status(&commands[0]), 2);
    assert_eq!(expected_status(&commands[1]), 0);
    assert_eq!(record_type(&found[2].text).as_deref(), Some("solution"));
}

/// Every file the docs link to exists.
#[test]
fn the_docs_links_lead_somewhere() {
    for path in markdown_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let base = path.parent().unwrap();
        for (index, _) in text.match_indices("](") {
            let target: String = text[index + 2..]
                .chars()
                .take_while(|&c| c != ')' && c != '#')
                .collect();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            assert!(
                base.join(&target).exists(),
                "{}: the link to {target} leads nowhere",
                path.display()
            );
        }
    }
}
