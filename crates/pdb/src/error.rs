//! Why a table file cannot be used, for every way of opening one.

use std::fmt;
#[cfg(feature = "mmap")]
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::format::PdbError;

/// Why a table file cannot be used: the file (made absolute) and the problem.
/// Its message says what to do in words that hold for any program using the
/// tables; [`OpenError::needs_rebuild`] tells a tool when to print its own
/// rebuild command.
#[derive(Debug)]
pub struct OpenError {
    path: PathBuf,
    problem: Problem,
}

/// What is wrong with a table file.
#[derive(Debug)]
#[non_exhaustive]
pub enum Problem {
    /// No file at that path.
    Missing,
    /// A directory or other non-file where a table file was expected.
    NotAFile,
    /// A FIFO, a device, a socket or a symbolic link loop where a table
    /// file was expected (what it is, in words); never opened.
    Special(&'static str),
    /// The file could not be read (permissions, I/O error).
    Io(io::Error),
    /// The packed file is not a valid zstd stream.
    NotZstd(String),
    /// The bytes are not a usable table (foreign, truncated, corrupt, wrong table).
    Pdb(PdbError),
    /// Its values can be proven exact only by building it again (its tiles
    /// were given by hand), and the build needs more memory than is
    /// available.
    NoMemoryToProve {
        /// Bytes the build takes at its peak (`generate::memory_needed`).
        needed: u64,
        /// Bytes the system can still give (`generate::available_memory`).
        available: u64,
    },
    /// The packed file is good but its unpacked copy at `cache` is not.
    DamagedCache {
        /// The unpacked copy.
        cache: PathBuf,
        /// What is wrong with it.
        error: PdbError,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing => f.write_str("no such pattern database"),
            Problem::NotAFile => f.write_str("a directory, not a table file"),
            Problem::Special(kind) => write!(f, "{kind}, not a table file"),
            Problem::Io(e) => write!(f, "cannot read it: {e}"),
            Problem::NotZstd(e) => write!(
                f,
                "damaged: not a valid zstd-compressed pattern database ({e})"
            ),
            Problem::Pdb(e) => e.fmt(f),
            Problem::NoMemoryToProve { needed, available } => write!(
                f,
                "its tiles were given by hand, so its values are proven exact by building it \
                 again, which needs about {:.1} GB of memory; {:.1} GB is available",
                *needed as f64 / 1e9,
                *available as f64 / 1e9
            ),
            Problem::DamagedCache { cache, error } => write!(
                f,
                "good, but its unpacked copy {} is damaged ({error})",
                cache.display()
            ),
        }
    }
}

impl OpenError {
    /// An error about `path` (kept absolute, for messages).
    pub fn new(path: &Path, problem: Problem) -> OpenError {
        OpenError {
            path: normalize(path),
            problem,
        }
    }

    /// The file concerned, absolute.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is wrong with it.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// Whether the file is missing or damaged, so building it (again) is the
    /// remedy, rather than fixing a path or a permission.
    pub fn needs_rebuild(&self) -> bool {
        matches!(
            self.problem,
            Problem::Missing | Problem::NotZstd(_) | Problem::Pdb(_)
        )
    }
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let problem = &self.problem;
        match problem {
            Problem::Missing => write!(
                f,
                "{path}: {problem}; build the tables with `npuzzle pdb build` \
                 (see `npuzzle pdb build --help` for sizes and partitions)"
            ),
            Problem::NotAFile | Problem::Special(_) => write!(
                f,
                "{path} is {problem}: give a .pdb.zst (or unpacked .pdb) file"
            ),
            Problem::Io(_) => write!(f, "{path}: {problem}"),
            Problem::NoMemoryToProve { .. } => {
                write!(f, "{path}: {problem}; free memory and try again")
            }
            Problem::NotZstd(_) | Problem::Pdb(_) => write!(
                f,
                "{path}: {problem}; rebuild it with `npuzzle pdb build --force` \
                 (same size, goal and partition)"
            ),
            Problem::DamagedCache { .. } => write!(
                f,
                "{path} is {problem}; it is unpacked again at the next open, or delete it"
            ),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.problem {
            Problem::Io(e) => Some(e),
            Problem::Pdb(e) | Problem::DamagedCache { error: e, .. } => Some(e),
            _ => None,
        }
    }
}

#[cfg(feature = "mmap")]
pub(crate) fn fail(path: &Path, problem: Problem) -> OpenError {
    OpenError::new(path, problem)
}

/// Opens a table file, a missing one, a directory or a special file told
/// apart from other failures. What the path is, is checked before it is
/// opened: a FIFO would block the open, a device would never end.
#[cfg(feature = "mmap")]
pub(crate) fn open_file(path: &Path) -> Result<File, OpenError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(fail(path, Problem::NotAFile)),
        Ok(meta) if !meta.is_file() => return Err(fail(path, Problem::Special(kind_of(&meta)))),
        Err(e) if is_loop(&e) => {
            return Err(fail(path, Problem::Special("a symbolic link loop")));
        }
        _ => {}
    }
    File::open(path).map_err(|e| {
        let problem = if e.kind() == io::ErrorKind::NotFound {
            Problem::Missing
        } else {
            Problem::Io(e)
        };
        fail(path, problem)
    })
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(feature = "mmap")]
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    let _ = meta;
    "a special file"
}

/// Whether resolving a path failed on a loop of symbolic links (ELOOP).
#[cfg(feature = "mmap")]
fn is_loop(e: &io::Error) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const ELOOP: i32 = 40;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const ELOOP: i32 = 62; // macOS and the BSDs
    e.raw_os_error() == Some(ELOOP)
}

/// `path` made absolute and without `.` or `..`, for messages (no symlinks
/// are resolved, and the path need not exist).
pub fn normalize(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
