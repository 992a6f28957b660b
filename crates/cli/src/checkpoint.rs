//! `npuzzle solve --checkpoint FILE`: one board's optimal search kept in
//! a file as it goes, so that a search of hours goes on across runs. The
//! file holds the engine's progress ([`npuzzle::Progress`]) with the line
//! naming the search it belongs to ([`npuzzle::Solver::search_identity`])
//! and a keyed BLAKE3 code over both, under a key of the user's
//! (`checkpoint.key` in the user data directory, 0600). A subtree marked
//! searched is skipped, so a file that could be edited would let an
//! answer claim more than was searched: a file whose code does not match
//! (edited, damaged, or written by another user or machine) is refused,
//! and so is one for any other search. It is written to a temporary name
//! and renamed, so a run killed while writing leaves the last one whole.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use npuzzle::{Progress, Searched};
use serde::{Deserialize, Serialize};

use npuzzle::records::Resumed;

const FORMAT: &str = "npuzzle-checkpoint";
/// 2: a keyed code in place of version 1's CRC.
const VERSION: u32 = 2;
/// The key's file in the user data directory.
const KEY_FILE: &str = "checkpoint.key";
/// The largest file read: a 5x5 search splits into at most 4 * 3^11
/// subtrees, each kept in at most two lists of some 25 bytes an entry.
const MOST_BYTES: u64 = 64 << 20;
/// How often a running search's progress is written: a run killed
/// outright loses at most this much.
const EVERY: Duration = Duration::from_secs(60);

/// The file, as JSON.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    format: String,
    version: u32,
    /// The search it belongs to.
    search: String,
    /// Milliseconds the earlier runs searched (an integer, as every
    /// number here: the CRC is over the record written again, and
    /// integers come back as they were).
    milliseconds: u64,
    progress: ProgressRecord,
    /// The keyed BLAKE3 code of the record's JSON with this field empty,
    /// in hex.
    code: String,
}

/// What every version of the file begins with.
#[derive(Deserialize)]
struct Head {
    format: String,
    version: u32,
}

/// [`Progress`] as the file keeps it; subtrees as `[key, next bound,
/// closest]` and `[key, closest]`.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProgressRecord {
    split_depth: u32,
    bound: u32,
    iterations: u32,
    expanded: u64,
    generated: u64,
    lost: u64,
    runs: u32,
    came_near: Vec<(u64, u32)>,
    searched: Vec<(u64, u32, u32)>,
}

impl ProgressRecord {
    fn of(p: &Progress) -> ProgressRecord {
        ProgressRecord {
            split_depth: p.split_depth,
            bound: p.bound,
            iterations: p.iterations,
            expanded: p.expanded,
            generated: p.generated,
            lost: p.lost,
            runs: p.runs,
            came_near: p.came_near.clone(),
            searched: p
                .searched
                .iter()
                .map(|s| (s.key, s.next_bound, s.closest))
                .collect(),
        }
    }

    fn progress(self) -> Progress {
        Progress {
            split_depth: self.split_depth,
            bound: self.bound,
            iterations: self.iterations,
            expanded: self.expanded,
            generated: self.generated,
            lost: self.lost,
            runs: self.runs,
            came_near: self.came_near,
            searched: self
                .searched
                .into_iter()
                .map(|(key, next_bound, closest)| Searched {
                    key,
                    next_bound,
                    closest,
                })
                .collect(),
        }
    }
}

/// The user's key for checkpoints, made on first use.
fn key() -> Result<npuzzle::UserKey, String> {
    let dir = npuzzle::user_data_dir()
        .ok_or("--checkpoint: no user data directory to keep the checkpoint key in (set HOME)")?;
    npuzzle::user_key(&dir, KEY_FILE).map_err(|e| format!("--checkpoint: {e}"))
}

fn code_of(record: &Record, key: &npuzzle::UserKey) -> Result<String, String> {
    let text = serde_json::to_string(&Record {
        code: String::new(),
        ..record.clone()
    })
    .map_err(|e| e.to_string())?;
    Ok(key.code(text.as_bytes()))
}

/// One board's search kept in a file.
pub struct Checkpoint {
    /// The file written (a symbolic link's target).
    path: PathBuf,
    /// The path as given, for messages.
    shown: String,
    search: String,
    /// Seconds the earlier runs searched.
    earlier_seconds: f64,
    /// Runs before this one.
    earlier_runs: u32,
    /// Where the search stood when this run began: its iteration and
    /// the subtrees of it searched.
    began_at: (u32, usize),
    /// The nodes earlier runs expanded.
    earlier_expanded: u64,
    started: Instant,
    /// What the search reads on entry and keeps up to date.
    pub progress: Arc<Mutex<Progress>>,
}

/// The directory `path` is in.
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The prefix of `path`'s temporary files, beside it.
fn temporary_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(|| "checkpoint".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.partial")
}

/// Temporaries of `path` a killed run left, older than any run still
/// writing one.
fn remove_stale_temporaries(path: &Path) {
    let prefix = temporary_prefix(path);
    let Ok(entries) = std::fs::read_dir(dir_of(path)) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > 2 * EVERY);
        if stale && entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

impl Checkpoint {
    /// The progress `path` holds for `search`; empty when there is no such
    /// file. A file that is not a whole checkpoint, one of another search,
    /// and a place no file can be written are refused with what to do,
    /// before any search.
    pub fn open(given: &Path, search: String) -> Result<Checkpoint, String> {
        let shown = given.display().to_string();
        // A symbolic link stands for its target: that is the file kept.
        let path = match std::fs::symlink_metadata(given) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(given).map_err(|e| {
                format!("--checkpoint {shown} is a symbolic link to nothing usable ({e})")
            })?,
            _ => given.to_path_buf(),
        };
        let start_over =
            format!("remove {shown} to start the search over, or give another --checkpoint file");
        let (progress, earlier_seconds) = match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Progress::default(), 0.0),
            Err(e) => return Err(format!("cannot read --checkpoint {shown}: {e}")),
            Ok(m) if !m.is_file() => {
                return Err(format!(
                    "--checkpoint {shown} is not a regular file: give the path of a file \
                     (it need not exist yet)"
                ))
            }
            Ok(m) if m.len() > MOST_BYTES => {
                return Err(format!(
                    "{shown} is {} bytes, more than any checkpoint ({MOST_BYTES} at most): \
                     {start_over}",
                    m.len()
                ))
            }
            Ok(_) => {
                let mut bytes = Vec::new();
                std::fs::File::open(&path)
                    .and_then(|file| {
                        use std::io::Read as _;
                        file.take(MOST_BYTES).read_to_end(&mut bytes)
                    })
                    .map_err(|e| format!("cannot read --checkpoint {shown}: {e}"))?;
                let not_ours = |e: serde_json::Error| {
                    format!("{shown} is not an npuzzle checkpoint ({e}): {start_over}")
                };
                let head: Head = serde_json::from_slice(&bytes).map_err(not_ours)?;
                if head.format != FORMAT || head.version != VERSION {
                    return Err(format!(
                        "{shown} is a {} version {} file, not an npuzzle checkpoint version \
                         {VERSION}: use the npuzzle that wrote it, or {start_over}",
                        head.format, head.version
                    ));
                }
                let record: Record = serde_json::from_slice(&bytes).map_err(not_ours)?;
                let key = key()?;
                if code_of(&record, &key)? != record.code {
                    return Err(format!(
                        "{shown} was changed since npuzzle wrote it, or was written by another \
                         user or machine (its code does not match the key in {}): a checkpoint \
                         is taken back only as its writer left it; {start_over}",
                        key.path().display()
                    ));
                }
                if record.search != search {
                    return Err(format!(
                        "{shown} keeps another search: it was made by \"{}\", this one is \
                         \"{search}\"; {start_over}",
                        record.search
                    ));
                }
                (
                    record.progress.progress(),
                    record.milliseconds as f64 / 1000.0,
                )
            }
        };
        // The progress must be writable and signable: found out now, not
        // after a search of hours.
        key()?;
        remove_stale_temporaries(&path);
        tempfile::Builder::new()
            .prefix(&temporary_prefix(&path))
            .tempfile_in(dir_of(&path))
            .map_err(|e| {
                format!(
                    "cannot write --checkpoint {shown} ({e}): give a file in a directory you \
                     can write"
                )
            })?;
        Ok(Checkpoint {
            path,
            shown,
            search,
            earlier_seconds,
            earlier_runs: progress.runs,
            began_at: (progress.iterations, progress.searched.len()),
            earlier_expanded: progress.expanded,
            started: Instant::now(),
            progress: Arc::new(Mutex::new(progress)),
        })
    }

    fn snapshot(&self) -> Progress {
        self.progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Writes the progress to a temporary name beside the file and renames
    /// it over the file (keeping the file's permissions); nothing when no
    /// iteration has begun.
    pub fn save(&self) -> Result<(), String> {
        let progress = self.snapshot();
        if !progress.begun() {
            return Ok(());
        }
        let seconds = self.earlier_seconds + self.started.elapsed().as_secs_f64();
        let mut record = Record {
            format: FORMAT.to_string(),
            version: VERSION,
            search: self.search.clone(),
            milliseconds: (seconds * 1000.0).round() as u64,
            progress: ProgressRecord::of(&progress),
            code: String::new(),
        };
        record.code = code_of(&record, &key()?)?;
        let text = serde_json::to_string(&record).map_err(|e| e.to_string())?;
        let cannot =
            |e: &dyn std::fmt::Display| format!("cannot write --checkpoint {}: {e}", self.shown);
        let prefix = temporary_prefix(&self.path);
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        // Not the temporary file's owner-only mode: the file is kept.
        let permissions = std::fs::metadata(&self.path).map(|m| m.permissions());
        #[cfg(unix)]
        let permissions = permissions
            .or_else(|_| Ok::<_, ()>(std::os::unix::fs::PermissionsExt::from_mode(0o644)));
        if let Ok(permissions) = permissions {
            builder.permissions(permissions);
        }
        let mut temporary = builder
            .tempfile_in(dir_of(&self.path))
            .map_err(|e| cannot(&e))?;
        use std::io::Write as _;
        temporary
            .write_all(text.as_bytes())
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(|e| cannot(&e))?;
        temporary
            .persist(&self.path)
            .map_err(|e| cannot(&e.error))?;
        Ok(())
    }

    /// Once solved: the file has nothing left to go on from.
    pub fn remove(&self) -> Result<(), String> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("cannot remove --checkpoint {}: {e}", self.shown))
            }
            _ => Ok(()),
        }
    }

    /// What earlier runs did, when this run went on from them.
    pub fn resumed(&self) -> Option<Resumed> {
        let now = self.snapshot();
        (self.earlier_runs > 0).then_some(Resumed {
            runs: now.runs,
            earlier_seconds: self.earlier_seconds,
            lost: now.lost,
        })
    }

    /// The nodes this run expanded, cut subtrees included.
    pub fn expanded_in_this_run(&self) -> u64 {
        self.snapshot().expanded - self.earlier_expanded
    }

    /// What to tell of a run that ends unsolved: where the search
    /// stands, and whether the next run can get further.
    pub fn standing(&self) -> String {
        let p = self.snapshot();
        let mut told = format!(
            "the search so far is kept in {} (iteration {} at bound {}: {} of its subtrees \
             searched; {} nodes so far, run {}); ",
            self.shown,
            p.iterations,
            p.bound,
            p.searched.len(),
            p.expanded,
            p.runs
        );
        if (p.iterations, p.searched.len()) == self.began_at {
            told += "no subtree ended in this run, so a run with the same limits gets no \
                     further: allow it more time (--max-seconds) or nodes (--max-nodes)";
        } else {
            told += "run the same command to go on";
        }
        told
    }

    /// Runs `work` while a thread writes the progress every [`EVERY`];
    /// a failed write is said once on stderr (the search goes on).
    pub fn saving<T>(&self, work: impl FnOnce() -> T) -> T {
        let done = (Mutex::new(false), Condvar::new());
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let (lock, signal) = &done;
                let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
                let mut said = false;
                loop {
                    let (now, _) = signal
                        .wait_timeout_while(finished, EVERY, |f| !*f)
                        .unwrap_or_else(|e| e.into_inner());
                    finished = now;
                    if *finished {
                        return;
                    }
                    if let Err(e) = self.save() {
                        if !said {
                            eprintln!("npuzzle: {e}");
                            said = true;
                        }
                    }
                }
            });
            let result = work();
            let (lock, signal) = &done;
            *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
            signal.notify_all();
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A progress that has begun, with a subtree searched.
    fn begun() -> Progress {
        Progress {
            split_depth: 8,
            bound: 52,
            iterations: 7,
            expanded: 123_456,
            generated: 234_567,
            lost: 3_456,
            runs: 1,
            came_near: vec![(1 << 16, 30), ((1 << 16) + 5, 28)],
            searched: vec![Searched {
                key: (1 << 16) + 5,
                next_bound: 54,
                closest: 28,
            }],
        }
    }

    /// Whatever seconds a run adds, the file it writes is taken back
    /// whole, the same progress in it.
    #[test]
    fn a_written_checkpoint_reads_back_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept.json");
        for earlier in [
            0.0,
            1.003_879_929_999_999_9,
            0.024_620_108_999_999_998,
            12_345.678,
        ] {
            let kept = Checkpoint::open(&path, "search".to_string()).unwrap();
            let kept = Checkpoint {
                earlier_seconds: earlier,
                ..kept
            };
            *kept.progress.lock().unwrap() = begun();
            kept.save().unwrap();
            let again = Checkpoint::open(&path, "search".to_string()).unwrap();
            assert_eq!(again.snapshot(), begun());
            assert!(again.earlier_seconds >= earlier - 0.001, "{earlier}");
            let other = Checkpoint::open(&path, "another search".to_string());
            assert!(other.err().unwrap().contains("keeps another search"));
        }
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["kept.json"], "temporaries left behind");
    }

    /// Nothing is written before an iteration begins; a run that ends no
    /// subtree says the next one with its limits gets no further.
    #[test]
    fn a_run_that_ends_no_subtree_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kept.json");
        let kept = Checkpoint::open(&path, "search".to_string()).unwrap();
        kept.save().unwrap();
        assert!(!path.exists());
        *kept.progress.lock().unwrap() = begun();
        assert!(kept.standing().contains("run the same command to go on"));
        kept.save().unwrap();
        let again = Checkpoint::open(&path, "search".to_string()).unwrap();
        assert!(again.standing().contains("gets no further"));
        again.progress.lock().unwrap().searched.push(Searched {
            key: (1 << 16) + 6,
            next_bound: 54,
            closest: 29,
        });
        assert!(again.standing().contains("run the same command to go on"));
    }
}
