//! Why a call failed: typed, and each message says what to do in words that
//! hold for any program using the library. Front ends (the command line,
//! the C ABI, Python) read the fields to add their own commands.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use npuzzle_board::Goal;
use npuzzle_pdb::{normalize, OpenError, PatternError};
use npuzzle_search::{Algorithm, Incomplete, InputError, SearchError};

/// Why a call failed. Each message says what to do.
///
/// A program whose `main` returns `Result<(), npuzzle::Error>` prints the
/// error's `Debug` form, which is its message, so this works as expected:
///
/// ```no_run
/// fn main() -> Result<(), npuzzle::Error> {
///     let solver = npuzzle::Solver::builder().build()?;
///     let board = npuzzle::parse_board("8 1 3 4 0 2 7 6 5")?;
///     println!("{}", solver.solve(&board)?.moves_text());
///     Ok(())
/// }
/// ```
#[non_exhaustive]
#[derive(Clone)]
pub enum Error {
    /// Text that is not a board (the message names the tile or the count).
    Parse(npuzzle_board::ParseError),
    /// Tiles that are not a board (not a permutation of 0..n*n-1).
    Board(npuzzle_board::BoardError),
    /// Tables missing, damaged, stale or unusable (see [`TablesError`]).
    Tables(TablesError),
    /// The partition cannot be used (unknown name, overlapping tiles...).
    Partition(PatternError),
    /// The board does not fit the tables.
    #[allow(missing_docs)]
    WrongSize { board: usize, tables: usize },
    /// The board cannot reach the goal (the parity rule).
    #[allow(missing_docs)]
    Unsolvable { goal: Goal },
    /// The search met its node limit before the end: IDA* expanded `limit`
    /// nodes, or BFS and A* would keep more than `limit` boards in memory.
    #[allow(missing_docs)]
    NodeLimit { algorithm: Algorithm, limit: u64 },
    /// The wall-clock budget ran out before an answer (optimal and
    /// weighted searches; near-optimal ones answer from where they came).
    #[allow(missing_docs)]
    TimeLimit { budget: std::time::Duration },
    /// The search asked for cannot run on this board (too large for it, the
    /// tables heuristic without tables). Never a node limit, an unsolvable
    /// board or a stop: those have their own variants.
    Search(SearchError),
    /// An option out of range (the message names it and the range).
    InvalidArgument(String),
    /// A table build would not fit in this machine's memory.
    #[allow(missing_docs)]
    OutOfMemory {
        pattern: String,
        needed: u64,
        available: u64,
    },
    /// A directory or file could not be created or written: `doing` says
    /// what was tried ("create the directory", "write").
    #[allow(missing_docs)]
    Io {
        path: PathBuf,
        doing: &'static str,
        error: Arc<io::Error>,
    },
    /// A table could not be built (the pattern is too large for the format).
    Build(String),
    /// A bug in npuzzle (a caught panic): please report the message.
    Internal(String),
    /// The caller stopped the search (the stop flag of [`crate::Run`]), or
    /// a build.
    Stopped,
}

/// The tables of one partition that cannot be used, with what a front end
/// needs to say how to make good ones: the partition, the board side, the
/// goal and the directory.
#[derive(Clone, Debug)]
pub struct TablesError {
    /// The partition or catalogue name, as `npuzzle pdb build --partition` takes it.
    pub partition: String,
    /// The board side.
    pub size: usize,
    /// The goal the tables are for.
    pub goal: Goal,
    /// Where they were found (damaged), or where a build would write them
    /// (missing).
    pub dir: PathBuf,
    /// What is wrong.
    pub problem: TablesProblem,
}

/// What is wrong with a partition's tables.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum TablesProblem {
    /// Built nowhere the search looked.
    Missing {
        /// The first table's file name.
        file: String,
        /// The directories searched, in order.
        looked_in: Box<[PathBuf]>,
        /// The other complete sets for the same side and goal found there:
        /// partition name and directory.
        built: Box<[(String, PathBuf)]>,
    },
    /// A file is damaged, stale, foreign or unreadable (rebuilding helps
    /// when [`OpenError::needs_rebuild`] says so).
    Damaged(Arc<OpenError>),
    /// The tables are fine but no heuristic takes them (too many, or
    /// overlapping within a partition).
    Unusable(String),
}

impl TablesError {
    /// Whether the tables are simply not built (rather than damaged): the
    /// solver may go on without them where none were asked for.
    pub fn is_missing(&self) -> bool {
        matches!(self.problem, TablesProblem::Missing { .. })
    }

    /// Whether building the tables again (with force) repairs them.
    pub fn needs_build(&self) -> bool {
        match &self.problem {
            TablesProblem::Missing { .. } => true,
            TablesProblem::Damaged(e) => {
                e.needs_rebuild() || matches!(e.problem(), npuzzle_pdb::Problem::Missing)
            }
            TablesProblem::Unusable(_) => false,
        }
    }

    /// The `npuzzle pdb build` command that builds these tables (with
    /// `--force` where files are there but damaged), quoted for a POSIX
    /// shell: the remedy the C ABI and Python print, and the command line.
    pub fn build_command(&self) -> String {
        let command = build_command(&self.partition, self.size, self.goal, &self.dir);
        if self.is_missing() {
            command
        } else {
            command + " --force"
        }
    }

    /// The message, with `remedy` (a front end's command that builds the
    /// tables) where building is what helps.
    pub fn message_with(&self, remedy: &str) -> String {
        let size = self.size;
        match &self.problem {
            TablesProblem::Missing {
                file,
                looked_in,
                built,
            } => {
                let looked: Vec<String> = looked_in
                    .iter()
                    .map(|d| normalize(d).display().to_string())
                    .collect();
                let others = if built.is_empty() {
                    String::new()
                } else {
                    let sets: Vec<String> = built
                        .iter()
                        .map(|(name, dir)| format!("{name} (in {})", normalize(dir).display()))
                        .collect();
                    format!(
                        " Built for {size}x{size}, goal {}: {}; name one as the partition to \
                         use it.",
                        self.goal,
                        sets.join(", ")
                    )
                };
                format!(
                    "no pattern databases for {size}x{size} (partition {}, goal {}): looked for \
                     {file} in {}.{others} Build them with: {remedy}",
                    self.partition,
                    self.goal,
                    looked.join(", ")
                )
            }
            TablesProblem::Damaged(e) => {
                let path = e.path().display();
                match e.problem() {
                    npuzzle_pdb::Problem::Missing => {
                        format!("{path}: no such pattern database; build it with: {remedy}")
                    }
                    problem if e.needs_rebuild() => {
                        format!("{path}: {problem}; rebuild it with: {remedy}")
                    }
                    _ => e.to_string(),
                }
            }
            TablesProblem::Unusable(why) => format!(
                "the tables of {} ({size}x{size}, goal {}) cannot be searched over: {why}",
                self.partition, self.goal
            ),
        }
    }

    /// The library's own remedy: the call that builds the tables.
    fn library_remedy(&self) -> String {
        format!(
            "build_tables(\"{}\", partition {}, size {}, goal {}){}",
            normalize(&self.dir).display(),
            self.partition,
            self.size,
            self.goal,
            if self.is_missing() {
                ""
            } else {
                ", which replaces damaged files"
            }
        )
    }
}

/// The `npuzzle pdb build` command that builds `partition`'s tables for
/// side `size` and `goal` into `dir`, quoted for a POSIX shell.
pub fn build_command(partition: &str, size: usize, goal: Goal, dir: &Path) -> String {
    format!(
        "npuzzle pdb build --size {size} --goal {goal} --partition {} --out {}",
        shell_word(partition),
        shell_word(&normalize(dir).display().to_string())
    )
}

fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.,/".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

impl fmt::Display for TablesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_with(&self.library_remedy()))
    }
}

impl std::error::Error for TablesError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.problem {
            TablesProblem::Damaged(e) => Some(&**e),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse(e) => e.fmt(f),
            Error::Board(e) => e.fmt(f),
            Error::Tables(e) => e.fmt(f),
            Error::Partition(e) => e.fmt(f),
            Error::WrongSize { board, tables } => write!(
                f,
                "the board is {board}x{board} but the tables are for {tables}x{tables} \
                 boards; open tables of the board's size"
            ),
            Error::Unsolvable { goal } => write!(
                f,
                "the board cannot reach the goal {goal} (its permutation parity and \
                 blank row say so); no solution exists"
            ),
            // The search crate words these outcomes; each door adds how
            // its users raise the budget.
            &Error::NodeLimit { algorithm, limit } => {
                Incomplete::NodeLimit { algorithm, limit }.fmt(f)
            }
            &Error::TimeLimit { budget } => Incomplete::TimeLimit { budget }.fmt(f),
            Error::Search(e) => e.fmt(f),
            Error::InvalidArgument(e) => f.write_str(e),
            Error::OutOfMemory {
                pattern,
                needed,
                available,
            } => write!(
                f,
                "building pattern {pattern} needs about {:.1} GB of memory; this machine has \
                 {:.1} GB available: use smaller patterns",
                *needed as f64 / 1e9,
                *available as f64 / 1e9
            ),
            Error::Io { path, doing, error } => {
                write!(f, "cannot {doing} {}: {error}", normalize(path).display())
            }
            Error::Build(e) => write!(f, "cannot build the table: {e}"),
            Error::Internal(e) => write!(f, "internal error in npuzzle (please report it): {e}"),
            Error::Stopped => f.write_str("the search was stopped before it finished"),
        }
    }
}

/// The message, so that `fn main() -> Result<(), Error>` prints it.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Parse(e) => Some(e),
            Error::Board(e) => Some(e),
            Error::Tables(e) => Some(e),
            Error::Partition(e) => Some(e),
            Error::Search(e) => Some(e),
            Error::Io { error, .. } => Some(&**error),
            _ => None,
        }
    }
}

impl From<PatternError> for Error {
    fn from(e: PatternError) -> Error {
        Error::Partition(e)
    }
}

impl From<npuzzle_board::ParseError> for Error {
    fn from(e: npuzzle_board::ParseError) -> Error {
        Error::Parse(e)
    }
}

impl From<npuzzle_board::BoardError> for Error {
    fn from(e: npuzzle_board::BoardError) -> Error {
        Error::Board(e)
    }
}

impl From<TablesError> for Error {
    fn from(e: TablesError) -> Error {
        Error::Tables(e)
    }
}

/// What kind of failure an [`Error`] is: the few kinds every door maps to
/// its own form (exit status, HTTP status, C status, Python exception, the
/// JavaScript error's `kind`), each from one table. ARCHITECTURE.md lists
/// every door's table.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Not a board: text that does not read as one, or tiles that are not
    /// a permutation.
    InvalidBoard,
    /// An option out of range, an unknown name, or a request that cannot
    /// run on this board (optimal search of a board too large, the tables
    /// heuristic without tables, a partition the format cannot hold).
    InvalidArgument,
    /// The board does not fit the tables given.
    WrongSize,
    /// The board cannot reach the goal.
    Unsolvable,
    /// Tables missing, damaged, stale or unusable: build them.
    Tables,
    /// The search met its node limit first.
    NodeLimit,
    /// The search met its wall-clock budget first.
    TimeLimit,
    /// A table build would not fit in memory.
    OutOfMemory,
    /// A file or directory could not be read or written.
    Io,
    /// The caller stopped the search or build.
    Stopped,
    /// A bug in npuzzle: please report it.
    Internal,
}

impl ErrorKind {
    /// Every kind, for the doors' tables and their tests.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::InvalidBoard,
        ErrorKind::InvalidArgument,
        ErrorKind::WrongSize,
        ErrorKind::Unsolvable,
        ErrorKind::Tables,
        ErrorKind::NodeLimit,
        ErrorKind::TimeLimit,
        ErrorKind::OutOfMemory,
        ErrorKind::Io,
        ErrorKind::Stopped,
        ErrorKind::Internal,
    ];

    /// The kind's stable name (snake case), as records and the JavaScript
    /// door's errors carry it.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidBoard => "invalid_board",
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::WrongSize => "wrong_size",
            ErrorKind::Unsolvable => "unsolvable",
            ErrorKind::Tables => "tables",
            ErrorKind::NodeLimit => "node_limit",
            ErrorKind::TimeLimit => "time_limit",
            ErrorKind::OutOfMemory => "out_of_memory",
            ErrorKind::Io => "io",
            ErrorKind::Stopped => "stopped",
            ErrorKind::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Error {
    /// What kind of failure this is (see [`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Parse(_) | Error::Board(_) => ErrorKind::InvalidBoard,
            Error::Partition(_) | Error::InvalidArgument(_) | Error::Build(_) => {
                ErrorKind::InvalidArgument
            }
            Error::WrongSize { .. } => ErrorKind::WrongSize,
            Error::Unsolvable { .. } => ErrorKind::Unsolvable,
            Error::Tables(_) => ErrorKind::Tables,
            Error::NodeLimit { .. } => ErrorKind::NodeLimit,
            Error::TimeLimit { .. } => ErrorKind::TimeLimit,
            Error::OutOfMemory { .. } => ErrorKind::OutOfMemory,
            Error::Io { .. } => ErrorKind::Io,
            Error::Stopped => ErrorKind::Stopped,
            Error::Internal(_) => ErrorKind::Internal,
            Error::Search(SearchError::Incomplete(Incomplete::Stuck)) => ErrorKind::Internal,
            Error::Search(_) => ErrorKind::InvalidArgument,
        }
    }

    /// The node limit a search stopped at: IDA*'s expanded nodes, or the
    /// boards BFS and A* may keep.
    pub fn node_limit(&self) -> Option<u64> {
        match self {
            Error::NodeLimit { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    /// A search's error as the engine's: the node limit, an unsolvable
    /// board and a stop each have one variant, whichever layer saw them.
    pub(crate) fn from_search(e: SearchError, goal: Goal) -> Error {
        match e {
            SearchError::Incomplete(Incomplete::NodeLimit { algorithm, limit }) => {
                Error::NodeLimit { algorithm, limit }
            }
            SearchError::Input(InputError::Unsolvable) => Error::Unsolvable { goal },
            SearchError::Incomplete(Incomplete::Stopped) => Error::Stopped,
            SearchError::Incomplete(Incomplete::TimeLimit { budget }) => {
                Error::TimeLimit { budget }
            }
            // The caller's progress is an argument, and one it can fix.
            e @ SearchError::Input(InputError::Progress(_)) => {
                Error::InvalidArgument(e.to_string())
            }
            e => Error::Search(e),
        }
    }

    #[cfg(feature = "native")]
    pub(crate) fn io(doing: &'static str, path: &Path, error: io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            doing,
            error: Arc::new(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind has its own stable name, and errors the engine makes have
    /// the kind their doors expect.
    #[test]
    fn kinds_are_named_once_and_errors_have_theirs() {
        let names: std::collections::HashSet<&str> =
            ErrorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        assert!(names
            .iter()
            .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
        let parse = Error::from(crate::parse_board("1 2 x").unwrap_err());
        assert_eq!(parse.kind(), ErrorKind::InvalidBoard);
        let search = |e| Error::from_search(e, Goal::BlankLast).kind();
        assert_eq!(
            search(SearchError::Input(InputError::TooLarge { size: 10 })),
            ErrorKind::InvalidArgument
        );
        assert_eq!(
            search(SearchError::Input(InputError::Unsolvable)),
            ErrorKind::Unsolvable
        );
        assert_eq!(
            search(SearchError::Incomplete(Incomplete::Stuck)),
            ErrorKind::Internal
        );
        assert_eq!(
            search(SearchError::Incomplete(Incomplete::Stopped)),
            ErrorKind::Stopped
        );
        assert_eq!(
            search(SearchError::Incomplete(Incomplete::TimeLimit {
                budget: std::time::Duration::from_secs(1)
            })),
            ErrorKind::TimeLimit
        );
        assert_eq!(
            Error::InvalidArgument("x".into()).kind(),
            ErrorKind::InvalidArgument
        );
        assert_eq!(Error::Internal("x".into()).kind(), ErrorKind::Internal);
    }
}
