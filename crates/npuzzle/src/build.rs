//! Building tables: the checks before a build (memory, a writable
//! directory, room on disk), the build itself on a bounded thread pool,
//! and what it reports on the way.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use npuzzle_pdb::file;
use npuzzle_pdb::format::{FORMAT_VERSION_REGIONS, HEADER_LEN};
use npuzzle_pdb::generate::{self, BuildError, Level};
use npuzzle_pdb::{build_file_until, Header, Partition, Pattern, Pdb};

use crate::error::Error;
use crate::table_files::writable;
use crate::threads::{check_threads, cores};

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Worker threads (at most [`MAX_THREADS`](crate::MAX_THREADS)).
    pub threads: usize,
    /// Rebuild tables that are already there and intact.
    pub force: bool,
    /// zstd level of the packed files.
    pub level: i32,
    /// Set from another thread, it stops the build within a fraction of a
    /// second with [`Error::Stopped`]; tables already written stay.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            threads: cores(),
            force: false,
            level: 9,
            stop: None,
        }
    }
}

/// What a build tells as it goes, one event per step of each table.
#[non_exhaustive]
pub enum BuildEvent<'a> {
    /// The table is there and intact: kept.
    UpToDate {
        /// Its packed file.
        path: &'a Path,
        /// Its header.
        header: &'a Header,
    },
    /// The file there is not the table wanted (another pattern, an older
    /// format, damaged): rebuilt.
    Replacing {
        /// Its packed file.
        path: &'a Path,
        /// Why, in words.
        why: String,
    },
    /// A table's generation begins.
    Started {
        /// Its pattern.
        pattern: &'a Pattern,
    },
    /// A breadth-first level is done.
    Level {
        /// Its pattern.
        pattern: &'a Pattern,
        /// The level's figures.
        level: &'a Level,
    },
    /// The table is generated and being compressed and written.
    Writing {
        /// Its pattern.
        pattern: &'a Pattern,
    },
    /// The table is written (packed, and unpacked in `cache/`).
    Built {
        /// Its packed file.
        path: &'a Path,
        /// Its header.
        header: &'a Header,
        /// The packed file's size.
        packed_bytes: u64,
        /// Time for this table.
        elapsed: Duration,
    },
}

/// What a build did.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct BuildReport {
    /// The directory written.
    pub dir: PathBuf,
    /// Tables built (the others were intact).
    pub built: usize,
    /// Distinct tables of the partition.
    pub tables: usize,
    /// States the builds reached.
    pub states: u64,
    /// Bytes of the packed files.
    pub disk_bytes: u64,
    /// Bytes mapped when the tables are opened.
    pub mapped_bytes: u64,
    /// Threads used.
    pub threads: usize,
    /// Time in all.
    pub elapsed: Duration,
}

/// Refuses a build before anything is allocated or written: the largest
/// pattern's peak memory against what the machine has, a directory that
/// cannot be created or written, and too little room for the files.
pub fn preflight(dir: &Path, partition: &Partition) -> Result<(), Error> {
    let biggest = partition
        .patterns()
        .iter()
        .max_by_key(|p| generate::memory_needed(p))
        .expect("a partition has patterns");
    let needed = generate::memory_needed(biggest);
    if let Some(available) = generate::available_memory().filter(|&a| a < needed) {
        return Err(Error::OutOfMemory {
            pattern: biggest.to_string(),
            needed,
            available,
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create the directory", dir, e))?;
    if !writable(dir) {
        return Err(Error::io(
            "write in",
            dir,
            std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "no file can be created there; choose another directory",
            ),
        ));
    }
    // Unpacked tables (cache/) plus packed ones, which are smaller.
    let unpacked: u64 = partition
        .distinct_patterns()
        .iter()
        .map(|p| HEADER_LEN as u64 + p.entries().div_ceil(2))
        .sum();
    file::check_room(dir, unpacked + unpacked / 2).map_err(|e| Error::io("build into", dir, e))
}

/// Builds the tables of `partition` into `dir` (created if need be): packed
/// files plus their unpacked copies in `cache/`, each written under a
/// temporary name and renamed. Tables already there and intact are kept.
/// Checks first (see [`preflight`]); uses one thread per core. The 7-8
/// tables of the 15-puzzle take about 45 s on 2 cores and 1.4 GB of
/// memory, 5-5-5 or 6-6-3 a few seconds.
pub fn build_tables(dir: impl AsRef<Path>, partition: &Partition) -> Result<BuildReport, Error> {
    build_tables_with(
        dir.as_ref(),
        partition,
        &BuildOptions::default(),
        &mut |_| {},
    )
}

/// [`build_tables`] with options, telling `on_event` what happens.
pub fn build_tables_with(
    dir: &Path,
    partition: &Partition,
    options: &BuildOptions,
    on_event: &mut dyn FnMut(BuildEvent<'_>),
) -> Result<BuildReport, Error> {
    let threads = check_threads("threads", options.threads)?;
    preflight(dir, partition)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Build(format!("cannot start {threads} threads: {e}")))?;
    let started = Instant::now();
    let distinct = partition.distinct_patterns();
    let mut report = BuildReport {
        dir: dir.to_path_buf(),
        tables: distinct.len(),
        threads,
        ..BuildReport::default()
    };
    for &pattern in &distinct {
        let path = dir.join(file::file_name(pattern));
        if !options.force && path.is_file() {
            match file::verify(&path) {
                Ok(header) if header.pattern() == pattern => {
                    on_event(BuildEvent::UpToDate {
                        path: &path,
                        header: &header,
                    });
                    report.disk_bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
                    report.mapped_bytes += header.file_len();
                    continue;
                }
                Ok(header) if header.pattern().has_values_of(pattern) => {
                    on_event(BuildEvent::Replacing {
                        path: &path,
                        why: format!(
                            "a zero-aware table of format version {} (one entry per free \
                             cell); rebuilding it in version {FORMAT_VERSION_REGIONS} (one per \
                             region, about a quarter of the size)",
                            header.version()
                        ),
                    })
                }
                Ok(_) => on_event(BuildEvent::Replacing {
                    path: &path,
                    why: "holds another pattern; rebuilding".to_string(),
                }),
                Err(e) => on_event(BuildEvent::Replacing {
                    path: &path,
                    why: format!("{}; rebuilding it", e.problem()),
                }),
            }
        }
        on_event(BuildEvent::Started { pattern });
        let pattern_started = Instant::now();
        // The generator reports levels from its worker threads; they are
        // handed to `on_event` here, on the caller's thread, in order.
        let (level_tx, level_rx) = std::sync::mpsc::channel::<Level>();
        let never = AtomicBool::new(false);
        let stop = options.stop.as_deref().unwrap_or(&never);
        let image = std::thread::scope(|scope| {
            let pool = &pool;
            let worker = scope.spawn(move || {
                pool.install(|| {
                    build_file_until(
                        pattern,
                        threads as u32,
                        |level| {
                            let _ = level_tx.send(*level);
                        },
                        stop,
                    )
                })
            });
            for level in level_rx.iter() {
                on_event(BuildEvent::Level {
                    pattern,
                    level: &level,
                });
            }
            worker.join()
        });
        let image = match image {
            Ok(Err(BuildError::Stopped)) => return Err(Error::Stopped),
            Ok(result) => result.map_err(|e| Error::Build(format!("pattern {pattern}: {e}")))?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Error::Stopped);
        }
        on_event(BuildEvent::Writing { pattern });
        let cache = file::cache_path(&path);
        pool.install(|| file::save_packed(&path, &image, options.level))
            .map_err(|e| Error::io("write", &path, e))?;
        file::save_raw(&cache, &image).map_err(|e| Error::io("write", &cache, e))?;
        let pdb = Pdb::from_bytes(&image[..]).map_err(|e| Error::Build(e.to_string()))?;
        let header = pdb.header();
        let packed_bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        on_event(BuildEvent::Built {
            path: &path,
            header,
            packed_bytes,
            elapsed: pattern_started.elapsed(),
        });
        report.built += 1;
        report.states += header.build().states();
        report.disk_bytes += packed_bytes;
        report.mapped_bytes += header.file_len();
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
