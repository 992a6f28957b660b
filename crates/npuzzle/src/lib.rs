//! The npuzzle engine: optimal (and, past what search can finish, fast)
//! solutions of sliding-tile puzzles over the pattern databases that
//! `npuzzle pdb build` or [`build_tables`] writes. The command line, its
//! web server, the C ABI and the Python package all answer through this
//! crate, so they give the same answers with the same node counts.
//!
//! [`Solver`] turns "a directory, a board, options" into an answer with the
//! command line's policy (tables for 4x4 and 5x5 when built, linear
//! conflict for other sizes, the reduction past what search can finish).
//! [`Tables`] opens one partition's tables for lookups.
//!
//! ```no_run
//! use npuzzle::{parse_board, Solver};
//!
//! // The 7-8 tables of the 15-puzzle, from ./data (or $NPUZZLE_PDB_DIR).
//! let solver = Solver::builder().build()?;
//! let board = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")?;
//! let solution = solver.solve(&board)?;
//! assert_eq!(solution.length(), 80);
//! println!("{} moves: {}", solution.length(), solution.moves_text());
//! # Ok::<(), npuzzle::Error>(())
//! ```
//!
//! Errors are [`Error`]s: each message says what to do, and a `main` that
//! returns `Result<(), npuzzle::Error>` prints that message. Reading tables
//! without this crate's dependencies (zstd's C code, rayon) is
//! `npuzzle_pdb`'s job, with its default features.
//!
//! The default feature `native` adds what a browser lacks: table files
//! (found, unpacked, mapped, built and written), thread pools and batch
//! streams. Without it (the WebAssembly build, `crates/wasm`) the policy
//! is the same; tables come from memory ([`Tables::from_images`], given to
//! [`SolverBuilder::tables`]), every search runs on the calling thread,
//! and a side without tables given goes on as the command line does when
//! they are not built.
#![warn(missing_docs)]

mod answer;
#[cfg(feature = "native")]
mod build;
mod builder;
mod check;
mod distributed;
mod error;
mod note;
mod plan;
mod policy;
#[cfg(feature = "native")]
mod pool;
#[cfg(feature = "serde")]
pub mod records;
mod sides;
mod solution;
mod solver;
#[cfg(feature = "native")]
mod stream;
#[cfg(feature = "native")]
mod table_files;
mod tables;
mod threads;
mod turn;
mod widths;

#[cfg(feature = "native")]
pub use build::{
    build_tables, build_tables_with, preflight, BuildEvent, BuildOptions, BuildReport,
};
pub use builder::{
    memory_size, seconds_field, time_budget, Options, SolverBuilder, MAX_MEMORY, MAX_SECONDS,
    MAX_WITHIN, MIN_MEMORY,
};
pub use check::Check;
pub use error::{build_command, Error, ErrorKind, TablesError, TablesProblem};
pub use note::Note;
pub use npuzzle_board::{
    named_field, parse_board, random_board, Board, Goal, Move, Notation, SplitMix64, UnknownName,
    MAX_SIZE, MIN_SIZE,
};
/// A key of the user's, for files only the user's own runs may vouch for
/// (the command line's checkpoints), in the user data directory.
#[cfg(feature = "native")]
pub use npuzzle_pdb::file::{user_data_dir, user_key, UserKey};
pub use npuzzle_pdb::{Lookup, OpenError, Partition, PatternError, PdbError};
pub use npuzzle_search::{
    seconds_text, Algorithm, BeamEnding, BeamOutcome, Effort, HeuristicKind, PassFrom, Progress,
    ScheduledBeam, Searched, Stats, Strategy, MAX_SEARCH_SIZE,
};
pub use policy::{
    ANYTIME_BEAM_BYTES, BEAM_MAX_SIZE, CHECK_NODES, OPTIMAL_ATTEMPT_MAX_BOUND,
    OPTIMAL_ATTEMPT_NODES,
};
pub use solution::Solution;
pub use solver::{Run, Solver};
#[cfg(feature = "native")]
pub use stream::{Answered, Answers, Waited};
#[cfg(feature = "native")]
pub use table_files::{
    default_build_dir, find_dir, search_dirs, strongest_built, verify_exact, Exactness,
};
pub use tables::{Tables, IN_MEMORY};
pub use threads::{check_threads, cores, MAX_THREADS};

/// Table files one by one, for tools that inspect them: open, verify, read
/// headers (the format is specified in `docs/pdb-format.md`).
#[cfg(feature = "native")]
pub mod table_file {
    pub use npuzzle_pdb::file::{
        cache_path, file_name, is_packed, normalize, open_noting, open_unpacked,
        read_packed_header, verify, TableBytes, TableFile,
    };
    pub use npuzzle_pdb::format::{FORMAT_VERSION_REGIONS, HEADER_LEN};
    pub use npuzzle_pdb::{Header, Pdb, Problem};
}

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
pub(crate) mod testing;

/// The README's Rust snippet, compiled as a doctest so it stays true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
