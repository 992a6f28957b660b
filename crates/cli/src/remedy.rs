//! The command line's words for the engine's errors and notes: where
//! building tables is the remedy, the `npuzzle pdb build` (and, in a
//! checkout, `cargo xtask build-pdb`) command that does it.

use std::io;
use std::path::Path;

use npuzzle::table_file::{self as file};
use npuzzle::{Error, Goal, Note, OpenError, TablesError};

/// A table error with the command that makes a good table, where building
/// is the remedy.
pub(crate) fn explain(e: &OpenError, rebuild: &str) -> String {
    let path = e.path().display();
    match e.problem() {
        file::Problem::Missing => {
            format!("{path}: no such pattern database; build it with: {rebuild}")
        }
        problem if e.needs_rebuild() => format!("{path}: {problem}; rebuild it with: {rebuild}"),
        _ => e.to_string(),
    }
}

/// The command that builds `partition` into `dir`, and in a source
/// checkout the cargo command too.
pub(crate) fn build_hint(partition: &str, size: usize, goal: Goal, dir: &Path) -> String {
    let command = npuzzle::build_command(partition, size, goal, dir);
    if Path::new("xtask/Cargo.toml").is_file() {
        format!(
            "{command} (in this checkout: cargo xtask build-pdb --size {size} --goal {goal} \
             --partition {partition})"
        )
    } else {
        command
    }
}

/// The engine's table error with this command line's build command.
pub fn tables_message(e: &TablesError) -> String {
    let remedy = if e.is_missing() {
        build_hint(&e.partition, e.size, e.goal, &e.dir)
    } else {
        e.build_command()
    };
    e.message_with(&remedy)
}

/// The engine's note in this command line's words.
pub fn note_message(note: &Note) -> String {
    note.message_with(tables_message)
        .replace('\n', "\nnpuzzle: ")
}

/// An engine error in this command line's words.
pub(crate) fn error_message(e: &Error) -> String {
    match e {
        Error::Tables(tables) => tables_message(tables),
        Error::Io { path, error, .. } if error.kind() == io::ErrorKind::PermissionDenied => {
            format!(
                "cannot write in {}: choose another directory with --out",
                file::normalize(path).display()
            )
        }
        other => other.to_string(),
    }
}
