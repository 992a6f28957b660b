//! Where the boards of `solve` come from: the arguments, files or stdin,
//! read lazily one board at a time.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use npuzzle_board::{echo, parse_board, BatchItem, BatchReader};

/// Where boards are read from.
pub enum Source {
    /// One board given as arguments.
    Arguments(String),
    /// A file, or standard input for "-".
    File(String),
}

impl Source {
    fn name(&self) -> &str {
        match self {
            Source::Arguments(_) => "the command line",
            Source::File(path) if path == "-" => "standard input",
            Source::File(path) => path,
        }
    }
}

/// Characters that occur in boards; an argument with any other is a path.
fn is_board_text(arg: &str) -> bool {
    arg.chars()
        .all(|c| c.is_ascii_digit() || c.is_whitespace() || ",/+-".contains(c))
}

/// Whether an argument names a file rather than holding tile numbers.
fn looks_like_path(arg: &str) -> bool {
    arg == "-" || Path::new(arg).is_file() || !is_board_text(arg)
}

/// The sources the arguments name: a board (all arguments together), or
/// files (every argument a path, plus any `--file`).
pub fn sources(args: &[String], files: &[String]) -> Result<Vec<Source>, String> {
    let paths = args.iter().filter(|a| looks_like_path(a)).count();
    if !files.is_empty() || (paths == args.len() && !args.is_empty()) {
        if let Some(board) = args.iter().find(|a| !looks_like_path(a)) {
            return Err(format!(
                "'{}' is a board, but boards are read from files here: give boards either \
                 as arguments or in files, not both",
                npuzzle_board::echo(board)
            ));
        }
        return Ok(files
            .iter()
            .chain(args)
            .map(|f| Source::File(f.clone()))
            .collect());
    }
    if args.is_empty() {
        return Ok(vec![Source::File("-".to_string())]);
    }
    if let Some(path) = args
        .iter()
        .find(|a| a.as_str() != "-" && Path::new(a).is_file())
    {
        return Err(format!(
            "'{}' is a file, but the other arguments are tile numbers: give boards either \
             as arguments or in files, not both",
            echo(path)
        ));
    }
    Ok(vec![Source::Arguments(args.join(" "))])
}

/// `--pdb-dir` and `$NPUZZLE_PDB_DIR` must name a directory, where they
/// name something that exists.
pub fn check_pdb_dir(dir: Option<&Path>) -> Result<(), String> {
    let (option, dir) = match dir {
        Some(dir) => ("--pdb-dir", dir.to_path_buf()),
        None => match std::env::var_os("NPUZZLE_PDB_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => ("$NPUZZLE_PDB_DIR", PathBuf::from(dir)),
            None => return Ok(()),
        },
    };
    check_directory(option, &dir)
}

/// Refuses a directory option that names something other than a
/// directory (a file, a FIFO...); one that does not exist yet is left to
/// the command, which says where it looked or creates it.
pub fn check_directory(option: &str, dir: &Path) -> Result<(), String> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => Err(format!(
            "{option} {}: not a directory but {}; give the directory that holds the tables",
            dir.display(),
            kind_of(&meta)
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{option} {}: cannot use it: {e}", dir.display())),
    }
}

/// What a non-directory is, for messages: "a file", "a FIFO"...
fn kind_of(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_fifo() {
            return "a FIFO (named pipe)".to_string();
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device".to_string();
        }
        if kind.is_socket() {
            return "a socket".to_string();
        }
    }
    if meta.is_file() {
        "a file".to_string()
    } else {
        "something else".to_string()
    }
}

/// One board read, with where it came from.
pub struct Input {
    /// The file it came from (None for the command line).
    pub file: Option<Arc<str>>,
    pub item: BatchItem,
}

impl Input {
    /// "FILE line N: " or "line N: " or "" for messages about this board.
    pub fn place(&self) -> String {
        match (&self.file, self.item.line) {
            (Some(file), 0) => format!("{file}: "),
            (Some(file), line) => format!("{file} line {line}: "),
            (None, 0) => String::new(),
            (None, line) => format!("line {line}: "),
        }
    }
}

/// A batch being read from one source.
type Reader = BatchReader<Box<dyn BufRead + Send>>;

/// The boards of all sources, in order, read as they are needed.
pub struct Inputs {
    sources: std::vec::IntoIter<Source>,
    current: Option<(Arc<str>, Reader)>,
    sets: bool,
}

impl Inputs {
    pub fn new(sources: Vec<Source>, sets: bool) -> Inputs {
        Inputs {
            sources: sources.into_iter(),
            current: None,
            sets,
        }
    }

    fn open(&self, path: &str) -> Result<Box<dyn BufRead + Send>, String> {
        if path == "-" {
            let stdin = io::stdin();
            if stdin.is_terminal() {
                eprintln!(
                    "npuzzle: reading boards from standard input, one per line (Ctrl-D ends; \
                     `npuzzle solve --help` shows the other ways)"
                );
            }
            return Ok(Box::new(BufReader::new(stdin)));
        }
        if Path::new(path).is_dir() {
            return Err(format!("{} is a directory, not a board file", echo(path)));
        }
        File::open(path)
            .map(|f| Box::new(BufReader::new(f)) as Box<dyn BufRead + Send>)
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound if path.chars().any(|c| c.is_numeric()) => format!(
                    "{}: no such file, and not a board either (tiles are the digits 0 to 9, \
                     separated by spaces, commas or '/')",
                    echo(path)
                ),
                io::ErrorKind::NotFound => format!("{}: no such file", echo(path)),
                _ => format!("cannot read {}: {e}", echo(path)),
            })
    }
}

impl Iterator for Inputs {
    type Item = Result<Input, String>;

    /// The next board; an `Err` is a source that cannot be opened (the
    /// others are still read).
    fn next(&mut self) -> Option<Result<Input, String>> {
        loop {
            if let Some((name, reader)) = &mut self.current {
                if let Some(item) = reader.next() {
                    return Some(Ok(Input {
                        file: Some(name.clone()),
                        item,
                    }));
                }
                self.current = None;
            }
            let source = self.sources.next()?;
            match source {
                Source::Arguments(text) => {
                    return Some(Ok(Input {
                        file: None,
                        item: BatchItem {
                            line: 0,
                            board: parse_board(&text),
                            known: None,
                        },
                    }))
                }
                Source::File(ref path) => match self.open(path) {
                    Ok(input) => {
                        let reader = if self.sets {
                            BatchReader::sets(input)
                        } else {
                            BatchReader::new(input)
                        };
                        self.current = Some((Arc::from(source.name()), reader));
                    }
                    Err(message) => return Some(Err(message)),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(args: &[&str], files: &[&str]) -> Result<Vec<String>, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let files: Vec<String> = files.iter().map(|s| s.to_string()).collect();
        sources(&args, &files).map(|s| {
            s.iter()
                .map(|s| match s {
                    Source::Arguments(b) => format!("board {b}"),
                    Source::File(f) => format!("file {f}"),
                })
                .collect()
        })
    }

    #[test]
    fn arguments_are_a_board_or_files() {
        assert_eq!(
            kinds(&["1", "2", "3", "0"], &[]).unwrap(),
            ["board 1 2 3 0"]
        );
        assert_eq!(kinds(&["1 2/3 0"], &[]).unwrap(), ["board 1 2/3 0"]);
        assert_eq!(
            kinds(&["+1", "2", "3", "0"], &[]).unwrap(),
            ["board +1 2 3 0"]
        );
        assert_eq!(kinds(&[], &[]).unwrap(), ["file -"]);
        assert_eq!(
            kinds(&["a.txt", "b.txt"], &[]).unwrap(),
            ["file a.txt", "file b.txt"]
        );
        assert_eq!(
            kinds(&["b.txt"], &["a.txt"]).unwrap(),
            ["file a.txt", "file b.txt"]
        );
        // A mistyped word among numbers is a bad tile, not a file.
        assert_eq!(
            kinds(&["1", "2", "x", "0"], &[]).unwrap(),
            ["board 1 2 x 0"]
        );
        assert!(kinds(&["1 2 3 0"], &["a.txt"]).is_err());
    }
}
