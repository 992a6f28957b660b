//! Reading boards from text.
//!
//! One board is n*n numbers separated by white space, commas and/or `/`
//! (rows), or the algs4 form: n first, then the n*n numbers. A batch is one
//! board per line, with `#` comments and blank lines skipped; a line holding
//! a lone number n starts an algs4 board whose n rows follow on the next lines.

use std::fmt;

use crate::board::{Board, BoardError, MAX_SIZE, MIN_SIZE};

/// Why some text is not a board; `line` is set when the text came from a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: Option<usize>,
    pub kind: ParseErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    Empty,
    NotANumber {
        token: String,
    },
    Board(BoardError),
    /// An algs4 header promised more rows than the text holds.
    MissingRows {
        size: usize,
        found: usize,
    },
    BadRow {
        row: usize,
        size: usize,
        found: usize,
    },
}

impl ParseError {
    fn new(kind: ParseErrorKind) -> ParseError {
        ParseError { line: None, kind }
    }

    fn at(mut self, line: usize) -> ParseError {
        self.line.get_or_insert(line);
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match &self.kind {
            ParseErrorKind::Empty => f.write_str("no board given"),
            ParseErrorKind::NotANumber { token } => {
                write!(f, "'{token}' is not a tile number")
            }
            ParseErrorKind::Board(e) => e.fmt(f),
            ParseErrorKind::MissingRows { size, found } => write!(
                f,
                "board size {size} needs {size} rows after it, found {found}"
            ),
            ParseErrorKind::BadRow { row, size, found } => write!(
                f,
                "row {row} of a {size}x{size} board has {found} numbers, expected {size}"
            ),
        }
    }
}

impl std::error::Error for ParseError {}

impl From<BoardError> for ParseError {
    fn from(e: BoardError) -> ParseError {
        ParseError::new(ParseErrorKind::Board(e))
    }
}

fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '/')
        .filter(|t| !t.is_empty())
}

fn numbers(text: &str) -> Result<Vec<u64>, ParseError> {
    tokens(text)
        .map(|t| {
            t.parse::<u64>().map_err(|_| {
                ParseError::new(ParseErrorKind::NotANumber {
                    token: t.to_string(),
                })
            })
        })
        .collect()
}

fn board_from_numbers(size: usize, numbers: &[u64]) -> Result<Board, ParseError> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
        return Err(BoardError::SizeOutOfRange { size }.into());
    }
    let max = size * size - 1;
    let tiles = numbers
        .iter()
        .map(|&v| {
            if v > max as u64 {
                Err(BoardError::TileOutOfRange { value: v, max })
            } else {
                Ok(v as u16)
            }
        })
        .collect::<Result<Vec<u16>, _>>()?;
    Ok(Board::new(size, tiles)?)
}

fn exact_sqrt(count: usize) -> Option<usize> {
    let root = (count as f64).sqrt().round() as usize;
    (root * root == count).then_some(root)
}

/// Reads one board: n*n numbers, or n then n*n numbers (algs4).
pub fn parse_board(text: &str) -> Result<Board, ParseError> {
    let numbers = numbers(text)?;
    if numbers.is_empty() {
        return Err(ParseError::new(ParseErrorKind::Empty));
    }
    if let Some(size) = exact_sqrt(numbers.len()) {
        return board_from_numbers(size, &numbers);
    }
    // The algs4 form: a square count plus one, led by its side.
    let rest = &numbers[1..];
    if let Some(size) = exact_sqrt(rest.len()) {
        if numbers[0] == size as u64 {
            return board_from_numbers(size, rest);
        }
    }
    Err(BoardError::NotSquare {
        count: numbers.len(),
    }
    .into())
}

/// One board of a batch, with the (1-based) line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchItem {
    pub line: usize,
    pub board: Result<Board, ParseError>,
}

fn content(line: &str) -> &str {
    line.split('#').next().unwrap_or("").trim()
}

/// Reads every board of a batch. A bad board is reported in place and the
/// rest are still read.
pub fn parse_batch(text: &str) -> Vec<BatchItem> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, content(l)))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let mut items = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (line, first) = lines[i];
        i += 1;
        let lone_size = match numbers(first) {
            Ok(v) if v.len() == 1 && v[0] >= MIN_SIZE as u64 => Some(v[0] as usize),
            _ => None,
        };
        let board = match lone_size {
            Some(size) if size <= MAX_SIZE => {
                let rows = &lines[i..lines.len().min(i + size)];
                i += rows.len();
                parse_algs4_rows(size, rows).map_err(|e| e.at(line))
            }
            _ => parse_board(first).map_err(|e| e.at(line)),
        };
        items.push(BatchItem { line, board });
    }
    items
}

fn parse_algs4_rows(size: usize, rows: &[(usize, &str)]) -> Result<Board, ParseError> {
    if rows.len() < size {
        return Err(ParseError::new(ParseErrorKind::MissingRows {
            size,
            found: rows.len(),
        }));
    }
    let mut all = Vec::with_capacity(size * size);
    for (row, &(line, text)) in rows.iter().enumerate() {
        let values = numbers(text).map_err(|e| e.at(line))?;
        if values.len() != size {
            return Err(ParseError::new(ParseErrorKind::BadRow {
                row: row + 1,
                size,
                found: values.len(),
            })
            .at(line));
        }
        all.extend(values);
    }
    board_from_numbers(size, &all)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HARD: [u16; 16] = [0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1];

    #[test]
    fn reads_every_single_board_form() {
        for text in [
            "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1",
            "0,12,9,13,15,11,10,14,3,7,2,5,4,8,6,1",
            "0 12 9 13/15 11 10 14/3 7 2 5/4 8 6 1",
            "0 12 9 13 / 15 11 10 14 / 3 7 2 5 / 4 8 6 1",
            "4\n 0 12  9 13\n15 11 10 14\n 3  7  2  5\n 4  8  6  1\n",
        ] {
            assert_eq!(parse_board(text).unwrap().tiles(), HARD, "{text}");
        }
    }

    #[test]
    fn names_the_problem() {
        let err = |t| parse_board(t).unwrap_err().to_string();
        assert_eq!(err("1 2 x 0"), "'x' is not a tile number");
        assert_eq!(err("1 2 -3 0"), "'-3' is not a tile number");
        assert!(err("1 2 3 4 5 6 7 0").contains("8 numbers do not make a square"));
        assert_eq!(err("1 2 2 0"), "tile 2 appears more than once");
        assert_eq!(
            err("1 2 9 0"),
            "tile 9 is out of range: tiles are 0 (the blank) to 3"
        );
        assert_eq!(err(""), "no board given");
    }

    #[test]
    fn batch_reports_bad_lines_and_keeps_going() {
        let text = "# a comment\n1 2 3 0\n\n1 1 3 0  # bad\n3\n1 2 3\n4 5 6\n7 8 0\n2\n1 2\n";
        let items = parse_batch(text);
        let lines: Vec<usize> = items.iter().map(|i| i.line).collect();
        assert_eq!(lines, [2, 4, 5, 9]);
        assert!(items[0].board.is_ok());
        assert_eq!(
            items[1].board.as_ref().unwrap_err().to_string(),
            "line 4: tile 1 appears more than once"
        );
        assert_eq!(items[2].board.as_ref().unwrap().size(), 3);
        assert_eq!(
            items[3].board.as_ref().unwrap_err().to_string(),
            "line 9: board size 2 needs 2 rows after it, found 1"
        );
    }

    #[test]
    fn algs4_rows_must_have_n_numbers() {
        let items = parse_batch("3\n1 2 3\n4 5\n6 7 8 0\n");
        assert_eq!(
            items[0].board.as_ref().unwrap_err().to_string(),
            "line 3: row 2 of a 3x3 board has 2 numbers, expected 3"
        );
    }
}
