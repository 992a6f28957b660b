//! Where the boards of `solve` come from: the arguments, a file or stdin.

use std::io::Read;
use std::path::Path;

use npuzzle_board::{parse_batch, parse_board, BatchItem};

/// The boards to solve, in input order; `line` is 0 for the command line.
pub fn read_boards(board_args: &[String], file: Option<&str>) -> Result<Vec<BatchItem>, String> {
    if let Some(path) = file {
        return read_batch(path);
    }
    match board_args {
        // `npuzzle solve puzzle04.txt`, as the algs4 solver is run.
        [single] if Path::new(single).is_file() => read_batch(single),
        [] => read_batch("-"),
        words => Ok(vec![BatchItem {
            line: 0,
            board: parse_board(&words.join(" ")),
        }]),
    }
}

fn read_batch(path: &str) -> Result<Vec<BatchItem>, String> {
    let mut text = String::new();
    let read = if path == "-" {
        std::io::stdin().read_to_string(&mut text)
    } else {
        std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text))
    };
    read.map_err(|e| {
        let name = if path == "-" { "standard input" } else { path };
        format!("cannot read {name}: {e}")
    })?;
    Ok(parse_batch(&text))
}
