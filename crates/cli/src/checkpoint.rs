//! `npuzzle solve --checkpoint FILE`: one board's optimal search kept in
//! a file as it goes, so that a search of hours goes on across runs. The
//! file holds the engine's progress ([`npuzzle::Progress`]) with the line
//! naming the search it belongs to ([`npuzzle::Solver::search_identity`])
//! and a CRC over both. It is refused for any other search, since a
//! subtree marked searched is skipped; it is written to a temporary name
//! and renamed, so a run killed while writing leaves the last one whole.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use npuzzle::{Progress, Searched};
use serde::{Deserialize, Serialize};

use crate::output::Resumed;

const FORMAT: &str = "npuzzle-checkpoint";
const VERSION: u32 = 1;
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
    /// Seconds the earlier runs searched.
    seconds: f64,
    progress: ProgressRecord,
    /// CRC-32 of the record's JSON with this field 0.
    crc32: u32,
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

fn crc_of(record: &Record) -> Result<u32, String> {
    let text = serde_json::to_string(&Record {
        crc32: 0,
        ..record.clone()
    })
    .map_err(|e| e.to_string())?;
    Ok(crc32fast::hash(text.as_bytes()))
}

/// One board's search kept in a file.
pub struct Checkpoint {
    path: PathBuf,
    search: String,
    /// Seconds the earlier runs searched.
    earlier_seconds: f64,
    /// Runs before this one.
    earlier_runs: u32,
    started: Instant,
    /// What the search reads on entry and keeps up to date.
    pub progress: Arc<Mutex<Progress>>,
}

impl Checkpoint {
    /// The progress `path` holds for `search`; empty when there is no such
    /// file. A file that is not a whole checkpoint, or one of another
    /// search, is refused with what to do.
    pub fn open(path: &Path, search: String) -> Result<Checkpoint, String> {
        let shown = path.display();
        let start_over =
            format!("remove {shown} to start the search over, or give another --checkpoint file");
        let (progress, earlier_seconds) = match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Progress::default(), 0.0),
            Err(e) => return Err(format!("cannot read --checkpoint {shown}: {e}")),
            Ok(bytes) => {
                let record: Record = serde_json::from_slice(&bytes).map_err(|e| {
                    format!("{shown} is not an npuzzle checkpoint ({e}): {start_over}")
                })?;
                if record.format != FORMAT || record.version != VERSION {
                    return Err(format!(
                        "{shown} is a {} version {} file, not an npuzzle checkpoint version \
                         {VERSION}: {start_over}",
                        record.format, record.version
                    ));
                }
                if crc_of(&record)? != record.crc32 {
                    return Err(format!(
                        "{shown} is damaged (its CRC does not match): {start_over}"
                    ));
                }
                if record.search != search {
                    return Err(format!(
                        "{shown} keeps another search: it was made by \"{}\", this one is \
                         \"{search}\"; {start_over}",
                        record.search
                    ));
                }
                let valid = record.seconds.is_finite() && record.seconds >= 0.0;
                if !valid {
                    return Err(format!("{shown} is damaged (seconds): {start_over}"));
                }
                (record.progress.progress(), record.seconds)
            }
        };
        Ok(Checkpoint {
            path: path.to_path_buf(),
            search,
            earlier_seconds,
            earlier_runs: progress.runs,
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
    /// it over the file; nothing when no iteration has begun.
    pub fn save(&self) -> Result<(), String> {
        let progress = self.snapshot();
        if !progress.begun() {
            return Ok(());
        }
        let mut record = Record {
            format: FORMAT.to_string(),
            version: VERSION,
            search: self.search.clone(),
            seconds: self.earlier_seconds + self.started.elapsed().as_secs_f64(),
            progress: ProgressRecord::of(&progress),
            crc32: 0,
        };
        record.crc32 = crc_of(&record)?;
        let text = serde_json::to_string(&record).map_err(|e| e.to_string())?;
        let cannot = |e: &dyn std::fmt::Display| {
            format!("cannot write --checkpoint {}: {e}", self.path.display())
        };
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".npuzzle-checkpoint");
        // Not the temporary file's owner-only mode: the file is kept.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        let mut temporary = builder.tempfile_in(dir).map_err(|e| cannot(&e))?;
        use std::io::Write as _;
        temporary
            .write_all(text.as_bytes())
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(|e| cannot(&e))?;
        temporary.persist(&self.path).map_err(|e| cannot(&e))?;
        Ok(())
    }

    /// Once solved: the file has nothing left to go on from.
    pub fn remove(&self) -> Result<(), String> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!(
                "cannot remove --checkpoint {}: {e}",
                self.path.display()
            )),
            _ => Ok(()),
        }
    }

    /// What earlier runs did, when this run went on from them.
    pub fn resumed(&self) -> Option<Resumed> {
        (self.earlier_runs > 0).then(|| Resumed {
            runs: self.snapshot().runs,
            earlier_seconds: self.earlier_seconds,
            lost: self.snapshot().lost,
        })
    }

    /// Where the search stands, for the message of a run that ends
    /// unsolved.
    pub fn standing(&self) -> String {
        let p = self.snapshot();
        format!(
            "iteration {} at bound {}: {} of its subtrees searched; {} nodes so far, run {}",
            p.iterations,
            p.bound,
            p.searched.len(),
            p.expanded,
            p.runs
        )
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
