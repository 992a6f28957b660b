//! What the stages of `cargo xtask test` need beyond Rust and a C compiler,
//! found (or installed where xtask can) before any stage runs: a stage whose
//! need is missing is skipped with a note saying what to install, or, with
//! `--all`, refused.

use std::env;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The machine as the probes see it; tests make one with a PATH of their
/// own and a Chromium path that does not exist.
pub struct Host {
    /// Where programs are looked up (python3, apt-get).
    pub path: OsString,
    /// Where the browser tests look for Chromium.
    pub chromium: PathBuf,
    /// Whether the user named Chromium's path ($CHROMIUM): then nothing is
    /// installed for it.
    pub chromium_named: bool,
    /// Whether xtask may install system packages (run as root).
    pub root: bool,
    /// Whether a Rust compiler for WebAssembly is installed.
    pub web_compiler: bool,
}

pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

impl Host {
    pub fn current() -> Host {
        let named = env::var_os("CHROMIUM").filter(|c| !c.is_empty());
        Host {
            path: env::var_os("PATH").unwrap_or_default(),
            chromium_named: named.is_some(),
            chromium: named.map_or_else(|| PathBuf::from(DEFAULT_CHROMIUM), PathBuf::from),
            root: Command::new("id")
                .arg("-u")
                .output()
                .is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == b"0"),
            web_compiler: crate::web::compiler_available(),
        }
    }

    fn find(&self, program: &str) -> Option<PathBuf> {
        env::split_paths(&self.path)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    }
}

/// What the Python stage lacks, if anything: python3 able to make a
/// virtual environment with pip (the rest comes from the package index).
pub fn python_missing(host: &Host) -> Option<String> {
    let ready = host.find("python3").is_some_and(|python| {
        Command::new(python)
            .args(["-c", "import venv, ensurepip"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    (!ready).then(|| {
        "they need python3 with venv and ensurepip on the PATH (Debian: apt-get install \
         python3-venv)"
            .to_string()
    })
}

/// What the browser stage lacks, if anything. Run as root with apt-get on
/// the PATH and no $CHROMIUM named, a missing Chromium is installed first.
pub fn browser_missing(host: &Host) -> Option<String> {
    if host.chromium.is_file() {
        return None;
    }
    if host.root && !host.chromium_named {
        if let Some(apt) = host.find("apt-get") {
            eprintln!("xtask: installing Chromium with apt-get for the browser tests");
            let installed = Command::new(&apt)
                .arg("update")
                .arg("-qq")
                .status()
                .is_ok_and(|s| s.success())
                && Command::new(&apt)
                    .args(["install", "-y", "-qq", "chromium", "fonts-dejavu-core"])
                    .env("DEBIAN_FRONTEND", "noninteractive")
                    .status()
                    .is_ok_and(|s| s.success());
            if installed && host.chromium.is_file() {
                return None;
            }
        }
    }
    Some(format!(
        "they need Chromium at {} (Debian, as root: apt-get install chromium \
         fonts-dejavu-core; or set CHROMIUM to its path)",
        host.chromium.display()
    ))
}

/// What the web stage lacks, if anything: Node.js 18 or later (the
/// JavaScript door's tests), and a compiler for WebAssembly (rustup's
/// target, Debian's rustc-web, or root to install it: `cargo xtask web`).
pub fn web_missing(host: &Host) -> Option<String> {
    let node = host.find("node").and_then(|node| {
        let out = Command::new(node).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let major: u32 = text
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()?
            .parse()
            .ok()?;
        (major >= 18).then_some(major)
    });
    if node.is_none() {
        return Some(
            "they need Node.js 18 or later on the PATH (Debian: apt-get install nodejs)"
                .to_string(),
        );
    }
    let compiler = host.web_compiler || host.root;
    (!compiler).then(|| {
        "they need a Rust compiler for wasm32-unknown-unknown: `rustup target add \
         wasm32-unknown-unknown`, or on Debian (as root) `apt-get install rustc-web cargo-web \
         rust-web-src rust-web-llvm lld-22`"
            .to_string()
    })
}

/// The stages `cargo xtask test ARGS` runs, and a note for each skipped
/// for a missing need.
#[derive(Debug, PartialEq)]
pub struct Plan {
    pub python: bool,
    /// The engine in WebAssembly: the site built, the JavaScript door's
    /// tests under Node.
    pub web: bool,
    pub browser: bool,
    pub notes: Vec<String>,
    /// `--all`: a stage that cannot get what it needs is an error.
    pub all: bool,
}

impl Plan {
    /// What to do when a stage's packages could not be installed
    /// (`error` starts with "pip install"): without `--all`, skip the stage
    /// with a note saying so; else, and for any other failure, fail.
    pub fn skip_unless_installed(&mut self, stage: &str, error: String) -> Result<(), String> {
        if self.all || !error.starts_with("pip install") {
            return Err(error);
        }
        let note = format!(
            "skipped the {stage} tests: {error}: is the package index (PyPI) reachable? \
             `cargo xtask test --all` requires every stage"
        );
        eprintln!("xtask: {note}");
        self.notes.push(note);
        Ok(())
    }
}

pub fn plan(args: &[String], host: &Host) -> Result<Plan, String> {
    let mut all = false;
    let mut plan = Plan {
        python: true,
        web: true,
        browser: true,
        notes: Vec::new(),
        all: false,
    };
    for arg in args {
        match arg.as_str() {
            "--all" => {
                all = true;
                plan.all = true;
            }
            "--no-python" => plan.python = false,
            "--no-web" => plan.web = false,
            "--no-browser" => plan.browser = false,
            other => return Err(format!("test: unknown option '{other}'")),
        }
    }
    let skip = |plan: &mut Plan, stages: &str, missing: String| {
        let note = format!("skipped the {stages} tests: {missing}");
        if all {
            Err(format!("{note}; --all runs every stage"))
        } else {
            plan.notes.push(note);
            Ok(())
        }
    };
    // The browser tests drive Chromium from the same virtual environment.
    if plan.python || plan.browser {
        if let Some(missing) = python_missing(host) {
            let stages = match (plan.python, plan.browser) {
                (true, true) => "Python and browser",
                (true, false) => "Python",
                _ => "browser",
            };
            skip(&mut plan, stages, missing)?;
            plan.python = false;
            plan.browser = false;
        }
    }
    // The browser tests play the static site too: they need its build.
    if plan.web || plan.browser {
        if let Some(missing) = web_missing(host) {
            let stages = match (plan.web, plan.browser) {
                (true, true) => "web and browser",
                (true, false) => "web",
                _ => "browser",
            };
            skip(&mut plan, stages, missing)?;
            plan.web = false;
            plan.browser = false;
        }
    }
    if plan.browser {
        if let Some(missing) = browser_missing(host) {
            skip(&mut plan, "browser", missing)?;
            plan.browser = false;
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    fn script(dir: &Path, name: &str, body: &str) {
        crate::test_script::write_script(&dir.join(name), body);
    }

    /// A PATH holding a python3 that answers yes to the venv probe, and
    /// nothing else; Chromium named at a path that does not exist.
    fn host_without_chromium(dir: &Path) -> Host {
        script(dir, "python3", "exit 0");
        script(dir, "node", "echo v20.1.0");
        Host {
            path: dir.as_os_str().to_owned(),
            chromium: dir.join("no-chromium"),
            chromium_named: true,
            root: false,
            web_compiler: true,
        }
    }

    #[test]
    fn without_node_or_a_web_compiler_the_web_and_browser_stages_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let mut host = host_without_chromium(dir.path());
        host.chromium = PathBuf::from("/bin/sh");
        host.web_compiler = false;
        let plan = plan(&[], &host).unwrap();
        assert!(plan.python && !plan.web && !plan.browser, "{plan:?}");
        assert!(
            plan.notes[0].starts_with("skipped the web and browser tests"),
            "{plan:?}"
        );
        assert!(plan.notes[0].contains("rustc-web"), "{plan:?}");
        let err = super::plan(&args(&["--all"]), &host).unwrap_err();
        assert!(err.contains("wasm32-unknown-unknown"), "{err}");

        host.web_compiler = true;
        script(dir.path(), "node", "echo v16.20.0");
        let plan = super::plan(&[], &host).unwrap();
        assert!(
            !plan.web && plan.notes[0].contains("Node.js 18"),
            "{plan:?}"
        );
        script(dir.path(), "node", "echo v22.3.0");
        let plan = super::plan(&[], &host).unwrap();
        assert!(
            plan.web && plan.browser && plan.notes.is_empty(),
            "{plan:?}"
        );
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn a_missing_browser_skips_its_stage_with_a_note_saying_what_to_install() {
        let dir = tempfile::tempdir().unwrap();
        let plan = plan(&[], &host_without_chromium(dir.path())).unwrap();
        assert!(plan.python && !plan.browser, "{plan:?}");
        assert_eq!(plan.notes.len(), 1, "{plan:?}");
        let note = &plan.notes[0];
        assert!(note.starts_with("skipped the browser tests"), "{note}");
        assert!(note.contains("apt-get install chromium"), "{note}");
        assert!(note.contains(&dir.path().join("no-chromium").display().to_string()));
        assert!(!note.contains('\n'), "{note}");
    }

    #[test]
    fn with_all_a_missing_browser_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = plan(&args(&["--all"]), &host_without_chromium(dir.path())).unwrap_err();
        assert!(err.contains("apt-get install chromium"), "{err}");
        assert!(err.contains("--all"), "{err}");
    }

    #[test]
    fn without_python3_the_python_and_browser_stages_are_skipped_or_with_all_refused() {
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "node", "echo v20.1.0");
        let host = Host {
            path: dir.path().as_os_str().to_owned(),
            chromium: PathBuf::from("/bin/sh"),
            chromium_named: true,
            root: false,
            web_compiler: true,
        };
        let plan = plan(&[], &host).unwrap();
        assert!(!plan.python && !plan.browser, "{plan:?}");
        assert_eq!(plan.notes.len(), 1, "{plan:?}");
        assert!(
            plan.notes[0].starts_with("skipped the Python and browser tests"),
            "{plan:?}"
        );
        assert!(plan.notes[0].contains("python3-venv"), "{plan:?}");
        let err = super::plan(&args(&["--all"]), &host).unwrap_err();
        assert!(err.contains("python3-venv"), "{err}");
    }

    #[test]
    fn a_stage_left_out_by_choice_needs_nothing_even_with_all() {
        let dir = tempfile::tempdir().unwrap();
        let plan = plan(
            &args(&["--all", "--no-web", "--no-browser"]),
            &host_without_chromium(dir.path()),
        )
        .unwrap();
        assert_eq!(
            plan,
            Plan {
                python: true,
                web: false,
                browser: false,
                notes: vec![],
                all: true,
            }
        );
    }

    #[test]
    fn a_stage_whose_packages_cannot_be_installed_is_skipped_unless_all() {
        let mut plan = Plan {
            python: true,
            web: true,
            browser: true,
            notes: vec![],
            all: false,
        };
        let unreachable = "pip install pytest failed (exit status: 1)".to_string();
        plan.skip_unless_installed("Python", unreachable.clone())
            .unwrap();
        assert!(plan.notes.last().unwrap().contains("package index"));
        let failed = "pytest crates/python/tests failed (exit status: 1)".to_string();
        assert_eq!(
            plan.skip_unless_installed("Python", failed.clone()),
            Err(failed)
        );
        plan.all = true;
        assert_eq!(
            plan.skip_unless_installed("Python", unreachable.clone()),
            Err(unreachable)
        );
    }

    #[test]
    fn as_root_a_missing_chromium_is_installed_with_apt_get() {
        let dir = tempfile::tempdir().unwrap();
        let mut host = host_without_chromium(dir.path());
        host.chromium_named = false;
        host.root = true;
        let log = dir.path().join("apt-get.log");
        script(
            dir.path(),
            "apt-get",
            &format!(
                "echo \"$@\" >> '{}'\n[ \"$1\" = install ] && touch '{}'\nexit 0",
                log.display(),
                host.chromium.display()
            ),
        );
        let plan = plan(&args(&["--all"]), &host).unwrap();
        assert!(
            plan.python && plan.browser && plan.notes.is_empty(),
            "{plan:?}"
        );
        let calls = fs::read_to_string(log).unwrap();
        assert!(
            calls.contains("install -y -qq chromium fonts-dejavu-core"),
            "{calls}"
        );
    }

    #[test]
    fn an_unknown_option_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = plan(&args(&["--al"]), &host_without_chromium(dir.path())).unwrap_err();
        assert!(err.contains("'--al'"), "{err}");
    }
}
