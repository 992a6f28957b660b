//! Stand-in programs for tests, written so that running them cannot fail
//! with "text file busy" (ETXTBSY).
//!
//! A file written by this process is open for writing for a moment; a
//! child forked by another test thread in that moment inherits the
//! descriptor and holds it until it execs, and executing the file then
//! fails. The script is therefore written by a child `sh`, whose
//! descriptor no thread of this process can inherit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes `body` after a `#!/bin/sh` line to `path`, mode 0755.
pub fn write_script(path: &Path, body: &str) {
    let mut writer = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh runs");
    writer
        .stdin
        .take()
        .expect("a pipe to sh")
        .write_all(format!("#!/bin/sh\n{body}\n").as_bytes())
        .expect("the script is sent to sh");
    let status = writer.wait().expect("sh ends");
    assert!(
        status.success(),
        "writing {} failed: {status}",
        path.display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Sets the flag when dropped, so that spawning threads stop even when
    /// an assertion fails.
    struct StopOnDrop<'a>(&'a AtomicBool);

    impl Drop for StopOnDrop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }

    #[test]
    fn a_written_script_runs_while_other_threads_spawn_processes() {
        let dir = tempfile::tempdir().unwrap();
        let stop = AtomicBool::new(false);
        let failures = std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let _ = Command::new("true").status();
                    }
                });
            }
            let _stop = StopOnDrop(&stop);
            (0..200)
                .filter_map(|round| {
                    let path = dir.path().join(format!("script{round}"));
                    write_script(&path, "exit 7");
                    match Command::new(&path).status() {
                        Ok(status) if status.code() == Some(7) => None,
                        other => Some(format!("round {round}: {other:?}")),
                    }
                })
                .collect::<Vec<_>>()
        });
        assert!(failures.is_empty(), "{failures:?}");
    }
}
