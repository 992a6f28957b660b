//! Reading boards from text.
//!
//! One board is n*n numbers separated by white space, commas and/or `/`
//! (rows), or the algs4 form: n first, then the n*n numbers. Numbers are
//! plain decimal digits. A batch is one board per line, with `#` comments
//! and blank lines skipped; a line holding a lone number n starts an algs4
//! board whose n rows follow, each of exactly n numbers. A batch is read
//! line by line from any `BufRead`, so its length does not bound memory.

use std::fmt;
use std::io::{BufRead, Read};

use crate::board::{Board, BoardError, MAX_SIZE, MIN_SIZE};

/// The longest line a batch may hold: a 127x127 board takes under 80 KB.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Echoed input is cut to this many characters in messages.
const ECHO_CHARS: usize = 24;

/// Why some text is not a board; `line` is set when the text came from a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The line of the batch (1-based), if the text came from one.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: ParseErrorKind,
}

/// What is wrong with some text that should be a board.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum ParseErrorKind {
    /// No numbers at all.
    Empty,
    /// A token that is not a tile number.
    NotANumber { token: String },
    /// Numbers that are not a board.
    Board(BoardError),
    /// An algs4 header promised more rows than the text holds.
    MissingRows { size: usize, found: usize },
    /// An algs4 board ended at a row of the wrong length (on line `at`).
    BadRow {
        size: usize,
        row: usize,
        at: usize,
        found: usize,
    },
    /// A lone number that cannot start an algs4 board.
    LoneNumber { value: String },
    /// A line past `MAX_LINE_BYTES`: the rest of the input is not read.
    LineTooLong,
    /// A line that is not UTF-8 text.
    NotText,
    /// The input could not be read further.
    Read { message: String },
    /// A set line (`id length tiles...`) without its id or length.
    BadSetLine,
    /// Nothing between two commas, or before the first or after the last
    /// comma of a row; `after` is the number before it, if any.
    EmptyField { after: Option<String>, last: bool },
    /// A row (1-based, between `/`s) that does not hold one row of the
    /// board: `found` numbers where the `size`x`size` board has `size`.
    RowLength {
        row: usize,
        text: String,
        found: usize,
        size: usize,
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

    /// Whether the input cannot be read past this error.
    pub fn ends_input(&self) -> bool {
        matches!(
            self.kind,
            ParseErrorKind::LineTooLong | ParseErrorKind::Read { .. }
        )
    }
}

/// `text` cut to a few characters, control characters escaped, for messages
/// that must stay one short line whatever the input.
pub fn echo(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(ECHO_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    let count = text.chars().count();
    if count > ECHO_CHARS {
        out.push_str(&format!("... ({count} characters)"));
    }
    out
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match &self.kind {
            ParseErrorKind::Empty => f.write_str("no board given"),
            ParseErrorKind::NotANumber { token } => {
                write!(f, "'{}' is not a tile number", echo(token))
            }
            ParseErrorKind::Board(e) => e.fmt(f),
            ParseErrorKind::MissingRows { size, found } => write!(
                f,
                "board size {size} needs {size} rows after it, found {found}"
            ),
            ParseErrorKind::BadRow {
                size,
                row,
                at,
                found,
            } => write!(
                f,
                "the {size}x{size} board started here ends at line {at}: its row {row} has \
                 {found} numbers, expected {size}"
            ),
            ParseErrorKind::LoneNumber { value } => write!(
                f,
                "a lone '{}' is not a board (an algs4 board starts with its size, {MIN_SIZE} to \
                 {MAX_SIZE})",
                echo(value)
            ),
            ParseErrorKind::LineTooLong => write!(
                f,
                "longer than {} MiB: not a board file? The rest is not read",
                MAX_LINE_BYTES >> 20
            ),
            ParseErrorKind::NotText => f.write_str("not text (UTF-8)"),
            ParseErrorKind::Read { message } => write!(f, "cannot read further: {message}"),
            ParseErrorKind::BadSetLine => f.write_str(
                "a set line is: id, optimal length (-1: unsolvable), then the tiles \
                 (or the Princeton form: file name, n, expected, computed, tiles)",
            ),
            ParseErrorKind::EmptyField { after: None, .. } => {
                f.write_str("an empty field before the first comma: a comma separates two numbers")
            }
            ParseErrorKind::EmptyField {
                after: Some(number),
                last,
            } => write!(
                f,
                "an empty field {} '{}': a comma separates two numbers",
                if *last {
                    "after the last comma, which follows"
                } else {
                    "between two commas, after"
                },
                echo(number)
            ),
            ParseErrorKind::RowLength {
                row,
                text,
                found,
                size,
            } => write!(
                f,
                "row {row} ('{}') has {found} numbers, but the rows of a {size}x{size} board \
                 have {size}: '/' separates the board's rows",
                echo(text.trim())
            ),
        }
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ParseErrorKind::Board(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BoardError> for ParseError {
    fn from(e: BoardError) -> ParseError {
        ParseError::new(ParseErrorKind::Board(e))
    }
}

fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '/')
        .filter(|t| !t.is_empty())
}

/// A token's value: plain decimal digits only (no sign, no spaces); values
/// past u64 saturate, to be refused as out of range.
fn number(token: &str) -> Result<u64, ParseError> {
    if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::new(ParseErrorKind::NotANumber {
            token: token.to_string(),
        }));
    }
    Ok(token.parse::<u64>().unwrap_or(u64::MAX))
}

/// The numbers of a text and, when it has rows separated by `/`, each
/// row's text and count.
struct Numbers<'a> {
    values: Vec<u64>,
    rows: Vec<(&'a str, usize)>,
}

/// Reads the numbers of `text`, refusing empty fields between commas.
fn numbers(text: &str) -> Result<Numbers<'_>, ParseError> {
    let mut values = Vec::new();
    let mut rows = Vec::new();
    let mut before: Option<&str> = None;
    for row in text.split('/') {
        let start = values.len();
        let fields: Vec<&str> = row.split(',').collect();
        for (i, field) in fields.iter().enumerate() {
            let words: Vec<&str> = field
                .split(char::is_whitespace)
                .filter(|t| !t.is_empty())
                .collect();
            if words.is_empty() && fields.len() > 1 {
                return Err(ParseError::new(ParseErrorKind::EmptyField {
                    after: if i == 0 {
                        None
                    } else {
                        before.map(str::to_string)
                    },
                    last: i + 1 == fields.len(),
                }));
            }
            for word in words {
                values.push(number(word)?);
                before = Some(word);
            }
        }
        rows.push((row, values.len() - start));
    }
    if rows.len() == 1 {
        rows.clear();
    }
    Ok(Numbers { values, rows })
}

/// Checks that rows given with `/` are the board's rows, each of `size`
/// numbers; `header` says the first number is the algs4 size, which may
/// stand alone on the first row or lead it.
fn check_rows(rows: &[(&str, usize)], size: usize, header: bool) -> Result<(), ParseError> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
        return Ok(()); // refused for its size
    }
    let mut counts: Vec<(usize, &str, usize)> = rows
        .iter()
        .enumerate()
        .map(|(i, &(text, count))| (i + 1, text, count))
        .collect();
    if header {
        match counts.first_mut() {
            Some((_, _, 1)) => {
                counts.remove(0);
            }
            Some((_, _, count)) if *count > 1 => *count -= 1,
            _ => {}
        }
    }
    match counts.into_iter().find(|&(_, _, count)| count != size) {
        Some((row, text, found)) => Err(ParseError::new(ParseErrorKind::RowLength {
            row,
            text: text.to_string(),
            found,
            size,
        })),
        None => Ok(()),
    }
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

/// A board from numbers: n*n of them, or n then n*n (algs4); rows given
/// with `/` must be the board's.
fn board_from_list(numbers: &Numbers) -> Result<Board, ParseError> {
    let Numbers { values, rows } = numbers;
    if values.is_empty() {
        return Err(ParseError::new(ParseErrorKind::Empty));
    }
    if let Some(size) = exact_sqrt(values.len()) {
        check_rows(rows, size, false)?;
        return board_from_numbers(size, values);
    }
    // The algs4 form: a square count plus one, led by its side.
    let rest = &values[1..];
    if let Some(size) = exact_sqrt(rest.len()) {
        if values[0] == size as u64 {
            check_rows(rows, size, true)?;
            return board_from_numbers(size, rest);
        }
    }
    Err(BoardError::NotSquare {
        count: values.len(),
    }
    .into())
}

/// Reads one board: n*n numbers, or n then n*n numbers (algs4).
pub fn parse_board(text: &str) -> Result<Board, ParseError> {
    board_from_list(&numbers(text)?)
}

/// A board of a standard instance set with its known optimal length:
/// `id length tiles...`, or the Princeton list's `file n expected computed
/// tiles...`. A length of -1 means unsolvable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetEntry {
    /// The instance's name in the set.
    pub id: String,
    /// Its optimal length (`None`: unsolvable).
    pub expected: Option<u32>,
    /// The board.
    pub board: Board,
}

/// Reads one line of an instance set (see [`SetEntry`]).
pub fn parse_set_line(text: &str) -> Result<SetEntry, ParseError> {
    let words: Vec<&str> = tokens(text).collect();
    let [id, length, rest @ ..] = &words[..] else {
        return Err(ParseError::new(ParseErrorKind::BadSetLine));
    };
    let expected = |word: &str| -> Result<Option<u32>, ParseError> {
        if word == "-1" {
            return Ok(None);
        }
        let value = number(word).map_err(|_| ParseError::new(ParseErrorKind::BadSetLine))?;
        u32::try_from(value)
            .map(Some)
            .map_err(|_| ParseError::new(ParseErrorKind::BadSetLine))
    };
    let princeton = exact_sqrt(rest.len().saturating_sub(2))
        .filter(|&n| n >= MIN_SIZE && rest.len() >= 2 && number(length).ok() == Some(n as u64));
    let (expected, tiles) = match princeton {
        Some(_) if exact_sqrt(rest.len()).is_none() => (expected(rest[0])?, &rest[2..]),
        _ => (expected(length)?, rest),
    };
    let numbers = tiles
        .iter()
        .map(|t| number(t))
        .collect::<Result<Vec<_>, _>>()?;
    let size = exact_sqrt(numbers.len()).ok_or(BoardError::NotSquare {
        count: numbers.len(),
    })?;
    Ok(SetEntry {
        id: id.to_string(),
        expected,
        board: board_from_numbers(size, &numbers)?,
    })
}

/// One board of a batch, with the (1-based) line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchItem {
    /// The line the board starts on (1-based).
    pub line: usize,
    /// The board, or why the text is not one.
    pub board: Result<Board, ParseError>,
    /// For instance-set lines: the id and the known optimal length.
    pub known: Option<Known>,
}

/// What an instance set says of a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// The instance's name in the set.
    pub id: String,
    /// The optimal length; `None`: unsolvable.
    pub expected: Option<u32>,
}

fn content(line: &str) -> &str {
    line.split('#').next().unwrap_or("").trim()
}

/// What one line of a batch holds.
enum LineRead {
    Text(String),
    End,
    Failed(ParseErrorKind),
}

/// Reads the boards of a batch one at a time from any `BufRead`. A bad
/// board is reported in place (with its own line) and reading goes on; an
/// algs4 block ends at its first row of the wrong length, and that line is
/// read again on its own, so no board is swallowed by a bad neighbour.
pub struct BatchReader<R> {
    input: R,
    line: usize,
    /// A line read ahead and not used yet (the row that ended a block).
    pending: Option<(usize, String)>,
    done: bool,
    buffer: Vec<u8>,
    /// Lines are instance-set lines (`id length tiles...`).
    sets: bool,
}

impl<R: BufRead> BatchReader<R> {
    /// A reader of the boards in `input`.
    pub fn new(input: R) -> BatchReader<R> {
        BatchReader {
            input,
            line: 0,
            pending: None,
            done: false,
            buffer: Vec::new(),
            sets: false,
        }
    }

    /// Reads instance-set lines (see [`parse_set_line`]) instead of boards.
    pub fn sets(input: R) -> BatchReader<R> {
        BatchReader {
            sets: true,
            ..BatchReader::new(input)
        }
    }

    /// The next raw line, at most `MAX_LINE_BYTES` long.
    fn raw_line(&mut self) -> LineRead {
        self.buffer.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        match Read::take(&mut self.input, limit).read_until(b'\n', &mut self.buffer) {
            Ok(0) => LineRead::End,
            Ok(_) => {
                self.line += 1;
                if self.buffer.last() != Some(&b'\n') && self.buffer.len() as u64 >= limit {
                    return LineRead::Failed(ParseErrorKind::LineTooLong);
                }
                match std::str::from_utf8(&self.buffer) {
                    // A byte-order mark some editors write first is no content.
                    Ok(text) if self.line == 1 => {
                        LineRead::Text(content(text.trim_start_matches('\u{feff}')).to_string())
                    }
                    Ok(text) => LineRead::Text(content(text).to_string()),
                    Err(_) => LineRead::Failed(ParseErrorKind::NotText),
                }
            }
            Err(e) => {
                self.line += 1;
                LineRead::Failed(ParseErrorKind::Read {
                    message: e.to_string(),
                })
            }
        }
    }

    /// The next line with content, or an error for a line that cannot be
    /// read; `None` at the end.
    fn next_line(&mut self) -> Option<Result<(usize, String), ParseError>> {
        if let Some(pending) = self.pending.take() {
            return Some(Ok(pending));
        }
        loop {
            match self.raw_line() {
                LineRead::End => return None,
                LineRead::Text(text) if text.is_empty() => continue,
                LineRead::Text(text) => return Some(Ok((self.line, text))),
                LineRead::Failed(kind) => {
                    let error = ParseError::new(kind).at(self.line);
                    if error.ends_input() {
                        self.done = true;
                    }
                    return Some(Err(error));
                }
            }
        }
    }

    /// Reads the rows of an algs4 board of side `size` announced on `line`.
    fn algs4_rows(&mut self, size: usize, line: usize) -> Result<Board, ParseError> {
        let mut all = Vec::with_capacity(size * size);
        for row in 1..=size {
            let (at, text) = match self.next_line() {
                None => {
                    return Err(ParseError::new(ParseErrorKind::MissingRows {
                        size,
                        found: row - 1,
                    })
                    .at(line))
                }
                Some(Err(e)) => {
                    // Report the unreadable line on its own, after this block.
                    let ends = e.ends_input();
                    self.pending = None;
                    self.done = ends;
                    return Err(e);
                }
                Some(Ok(next)) => next,
            };
            match numbers(&text) {
                Ok(found) if found.values.len() == size => all.extend(found.values),
                found => {
                    let found = found.map_or(0, |n| n.values.len());
                    self.pending = Some((at, text));
                    return Err(ParseError::new(ParseErrorKind::BadRow {
                        size,
                        row,
                        at,
                        found,
                    })
                    .at(line));
                }
            }
        }
        board_from_numbers(size, &all).map_err(|e| e.at(line))
    }
}

impl<R: BufRead> Iterator for BatchReader<R> {
    type Item = BatchItem;

    fn next(&mut self) -> Option<BatchItem> {
        if self.done && self.pending.is_none() {
            return None;
        }
        let (line, text) = match self.next_line()? {
            Ok(next) => next,
            Err(e) => {
                return Some(BatchItem {
                    line: e.line.unwrap_or(self.line),
                    board: Err(e),
                    known: None,
                })
            }
        };
        if self.sets {
            return Some(match parse_set_line(&text) {
                Ok(entry) => BatchItem {
                    line,
                    board: Ok(entry.board),
                    known: Some(Known {
                        id: entry.id,
                        expected: entry.expected,
                    }),
                },
                Err(e) => BatchItem {
                    line,
                    board: Err(e.at(line)),
                    known: None,
                },
            });
        }
        let board = match numbers(&text) {
            Ok(found) if found.values.len() == 1 && found.rows.is_empty() => {
                match found.values[0] {
                    n if (MIN_SIZE as u64..=MAX_SIZE as u64).contains(&n) => {
                        self.algs4_rows(n as usize, line)
                    }
                    _ => Err(ParseError::new(ParseErrorKind::LoneNumber { value: text }).at(line)),
                }
            }
            Ok(found) => board_from_list(&found).map_err(|e| e.at(line)),
            Err(e) => Err(e.at(line)),
        };
        Some(BatchItem {
            line,
            board,
            known: None,
        })
    }
}

/// Reads every board of a batch held in memory (see [`BatchReader`]).
pub fn parse_batch(text: &str) -> Vec<BatchItem> {
    BatchReader::new(text.as_bytes()).collect()
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
    fn rows_must_be_the_boards_rows() {
        let err = |t| parse_board(t).unwrap_err().to_string();
        assert_eq!(
            err("1 2 3/4 5 6 7/8 0"),
            "row 2 ('4 5 6 7') has 4 numbers, but the rows of a 3x3 board have 3: '/' \
             separates the board's rows"
        );
        assert!(err("1 2 3 4 5 6 7 8/9 10 11 12 13 14 15 0").starts_with("row 1 ("));
        assert!(err("1 2 3/4 5 6/7 8 0/").starts_with("row 4 ('') has 0 numbers"));
        assert!(err("1 2 3//4 5 6 7 8 0").starts_with("row 2 ('') has 0"));
        // The algs4 size may stand alone on the first row, or lead it.
        for text in [
            "3/8 1 3/4 0 2/7 6 5",
            "3 8 1 3/4 0 2/7 6 5",
            "8 1 3/4 0 2/7 6 5",
        ] {
            assert_eq!(parse_board(text).unwrap().size(), 3, "{text}");
        }
        assert!(err("3 8/1 3 4/0 2 7/6 5").starts_with("row 1 ('3 8') has 1 numbers"));
    }

    #[test]
    fn commas_separate_numbers() {
        let err = |t| parse_board(t).unwrap_err().to_string();
        assert_eq!(
            err("1,2,3,,4,5,6,7,8,0"),
            "an empty field between two commas, after '3': a comma separates two numbers"
        );
        assert_eq!(
            err("1,2,3, ,4,5,6,7,8,0"),
            "an empty field between two commas, after '3': a comma separates two numbers"
        );
        assert!(err(",1,2,3,4,5,6,7,8,0").starts_with("an empty field before the first comma"));
        assert!(err("1,2,3,4,5,6,7,8,0,")
            .starts_with("an empty field after the last comma, which follows '0'"));
        assert!(err("1,2,3,/4,5,6/7,8,0").starts_with("an empty field after the last comma"));
        for text in [
            "1, 2, 3, 4, 5, 6, 7, 8, 0",
            "1,2,3/4,5,6/7,8,0",
            "1 2,3 4,5 6,7 8,0",
        ] {
            assert!(parse_board(text).is_ok(), "{text}");
        }
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
            "line 1: the 3x3 board started here ends at line 3: its row 2 has 2 numbers, expected 3"
        );
        // The row that ended the block is read on its own, with its own line.
        assert_eq!(items[1].line, 3);
        assert!(items[1].board.is_err());
        assert_eq!(items[2].line, 4);
        assert!(items[2]
            .board
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("line 4:"));
    }

    fn lines_and_results(text: &str) -> Vec<(usize, bool)> {
        parse_batch(text)
            .into_iter()
            .map(|i| (i.line, i.board.is_ok()))
            .collect()
    }

    #[test]
    fn a_bad_block_swallows_no_board() {
        // A count line followed by one-line boards: one error, three boards.
        let text = "3\n8 1 3 4 0 2 7 6 5\n1 2 3 4 5 6 7 0 8\n1 2 3 4 5 6 0 7 8\n";
        assert_eq!(
            lines_and_results(text),
            [(1, false), (2, true), (3, true), (4, true)]
        );
        // A short block, then a one-line board.
        let text = "3\n1 2 3\n4 5\n8 1 3 4 0 2 7 6 5\n";
        assert_eq!(lines_and_results(text), [(1, false), (3, false), (4, true)]);
        // A block cut short by the end of the input.
        assert_eq!(lines_and_results("2\n1 2\n"), [(1, false)]);
        // Lone numbers that cannot be a size.
        assert_eq!(
            lines_and_results("1\n0\n999\n1 2 3 0\n"),
            [(1, false), (2, false), (3, false), (4, true)]
        );
    }

    #[test]
    fn tiles_are_plain_digits() {
        for text in [
            "+8 +1 +3 +4 +0 +2 +7 +6 +5",
            "1 2 3 -0",
            "1 2 3 0x0",
            "1 2 3 ０",
        ] {
            assert!(matches!(
                parse_board(text).unwrap_err().kind,
                ParseErrorKind::NotANumber { .. }
            ));
        }
        let huge = parse_board("1 2 3 99999999999999999999999999").unwrap_err();
        assert!(huge.to_string().contains("out of range"), "{huge}");
    }

    #[test]
    fn echoed_input_is_short() {
        let token = "x".repeat(10_000_000);
        let message = parse_board(&token).unwrap_err().to_string();
        assert!(message.len() < 100, "{}", message.len());
        assert!(echo("a\0b").contains("\\0"));
    }

    #[test]
    fn overlong_lines_and_binary_end_or_skip_cleanly() {
        let mut text = "1 2 3 0\n".to_string();
        text.push_str(&" ".repeat(MAX_LINE_BYTES + 10));
        text.push_str("\n1 2 3 0\n");
        let items = parse_batch(&text);
        assert_eq!(items.len(), 2);
        assert!(items[0].board.is_ok());
        assert_eq!(items[1].line, 2);
        assert_eq!(
            items[1].board.as_ref().unwrap_err().kind,
            ParseErrorKind::LineTooLong
        );
        // /dev/zero: one endless line, refused after a bounded read.
        let zeros = std::io::Read::take(std::io::repeat(0), 1 << 40);
        let items: Vec<BatchItem> = BatchReader::new(std::io::BufReader::new(zeros)).collect();
        assert_eq!(items.len(), 1);
        // Not UTF-8: that line is refused, the next is read.
        let items = parse_batch_bytes(b"1 2 \xff 0\n1 2 3 0\n");
        assert_eq!(
            items[0].board.as_ref().unwrap_err().kind,
            ParseErrorKind::NotText
        );
        assert!(items[1].board.is_ok());
    }

    fn parse_batch_bytes(bytes: &[u8]) -> Vec<BatchItem> {
        BatchReader::new(bytes).collect()
    }

    #[test]
    fn set_lines_carry_their_known_length() {
        let e = parse_set_line("1 80 0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1").unwrap();
        assert_eq!(
            (e.id.as_str(), e.expected, e.board.size()),
            ("1", Some(80), 4)
        );
        let e = parse_set_line("puzzle04.txt 3 4 4 0 1 3 4 2 5 7 8 6").unwrap();
        assert_eq!(
            (e.id.as_str(), e.expected, e.board.size()),
            ("puzzle04.txt", Some(4), 3)
        );
        let e = parse_set_line("puzzle3x3-unsolvable.txt 3 -1 -1 1 2 3 4 5 6 8 7 0").unwrap();
        assert_eq!(e.expected, None);
        assert!(parse_set_line("7").is_err());
    }
}
