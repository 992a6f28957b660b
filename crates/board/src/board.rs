use std::fmt;

use crate::names::{parse_name, UnknownName};

/// The smallest board side we accept: 1x1 has no moves.
pub const MIN_SIZE: usize = 2;
/// The largest board side we accept: n*n - 1 must fit comfortably in a `u16`
/// and output stays readable.
pub const MAX_SIZE: usize = 127;

/// Where the tiles belong when the puzzle is solved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Goal {
    /// `1 2 ... n*n-1 0`: the convention of the classic (algs4) solvers.
    #[default]
    BlankLast,
    /// `0 1 2 ... n*n-1`: Korf's convention, used by the research literature.
    BlankFirst,
}

impl Goal {
    /// Both goals.
    pub const ALL: [Goal; 2] = [Goal::BlankLast, Goal::BlankFirst];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Goal::BlankLast => "blank-last",
            Goal::BlankFirst => "blank-first",
        }
    }

    /// The goal named `blank-last` or `blank-first`.
    pub fn from_name(name: &str) -> Option<Goal> {
        name.parse().ok()
    }

    /// The tile that sits on `cell` in the solved `n` x `n` board.
    pub fn tile_at(self, n: usize, cell: usize) -> u16 {
        let last = n * n - 1;
        match self {
            Goal::BlankLast if cell == last => 0,
            Goal::BlankLast => (cell + 1) as u16,
            Goal::BlankFirst => cell as u16,
        }
    }

    /// The cell where `tile` belongs in the solved `n` x `n` board.
    pub fn cell_of(self, n: usize, tile: u16) -> usize {
        match self {
            Goal::BlankLast if tile == 0 => n * n - 1,
            Goal::BlankLast => tile as usize - 1,
            Goal::BlankFirst => tile as usize,
        }
    }

    /// The solved board.
    pub fn board(self, n: usize) -> Board {
        let tiles = (0..n * n).map(|cell| self.tile_at(n, cell)).collect();
        Board::with_blank(n, tiles)
    }
}

impl std::str::FromStr for Goal {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Goal, UnknownName> {
        parse_name("goal", name, &Goal::ALL, Goal::name)
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A move, named by the direction in which the *tile* slides into the blank
/// (the speed-solvers' convention): `Up` moves the tile below the blank up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the four directions
pub enum Move {
    Up,
    Down,
    Left,
    Right,
}

/// How moves are written: by the tile's direction (default) or the blank's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Notation {
    /// The direction the tile slides (the speed-solvers' convention).
    #[default]
    Tile,
    /// The direction the blank moves (the opposite letter).
    Blank,
}

impl std::str::FromStr for Notation {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Notation, UnknownName> {
        parse_name("notation", name, &Notation::ALL, Notation::name)
    }
}

impl Notation {
    /// Both notations.
    pub const ALL: [Notation; 2] = [Notation::Tile, Notation::Blank];

    /// The name used on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Tile => "tile",
            Notation::Blank => "blank",
        }
    }
}

impl Move {
    /// The four moves.
    pub const ALL: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

    /// The move that undoes this one.
    pub fn opposite(self) -> Move {
        match self {
            Move::Up => Move::Down,
            Move::Down => Move::Up,
            Move::Left => Move::Right,
            Move::Right => Move::Left,
        }
    }

    /// The same move seen in the board reflected about the main diagonal.
    pub fn transposed(self) -> Move {
        match self {
            Move::Up => Move::Left,
            Move::Left => Move::Up,
            Move::Down => Move::Right,
            Move::Right => Move::Down,
        }
    }

    /// The letter of this move in `notation`.
    pub fn letter(self, notation: Notation) -> char {
        let m = match notation {
            Notation::Tile => self,
            Notation::Blank => self.opposite(),
        };
        match m {
            Move::Up => 'U',
            Move::Down => 'D',
            Move::Left => 'L',
            Move::Right => 'R',
        }
    }

    /// The move a letter `U D L R` names in `notation`.
    pub fn from_letter(letter: char, notation: Notation) -> Option<Move> {
        let m = match letter.to_ascii_uppercase() {
            'U' => Move::Up,
            'D' => Move::Down,
            'L' => Move::Left,
            'R' => Move::Right,
            _ => return None,
        };
        Some(match notation {
            Notation::Tile => m,
            Notation::Blank => m.opposite(),
        })
    }

    /// Writes a move sequence as letters.
    pub fn format_sequence(moves: &[Move], notation: Notation) -> String {
        moves.iter().map(|m| m.letter(notation)).collect()
    }

    /// Reads a move sequence written as letters; white space is ignored.
    pub fn parse_sequence(text: &str, notation: Notation) -> Result<Vec<Move>, BoardError> {
        text.chars()
            .filter(|c| !c.is_whitespace())
            .enumerate()
            .map(|(index, c)| {
                Move::from_letter(c, notation).ok_or(BoardError::BadMoveLetter { letter: c, index })
            })
            .collect()
    }

    /// The cell the blank moves to when the tile there slides by `self`,
    /// or `None` at the edge.
    pub fn blank_target(self, n: usize, blank: usize) -> Option<usize> {
        let (row, col) = (blank / n, blank % n);
        match self {
            // The tile below the blank moves up: the blank goes down.
            Move::Up if row + 1 < n => Some(blank + n),
            Move::Down if row > 0 => Some(blank - n),
            Move::Left if col + 1 < n => Some(blank + 1),
            Move::Right if col > 0 => Some(blank - 1),
            _ => None,
        }
    }
}

/// Why a board or a move is not acceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum BoardError {
    /// The number count is not n*n for any allowed n.
    NotSquare { count: usize },
    /// The side is outside the sizes handled.
    SizeOutOfRange { size: usize },
    /// A number larger than any tile of the board.
    TileOutOfRange { value: u64, max: usize },
    /// A tile given twice.
    DuplicateTile { value: u16 },
    /// A tile missing.
    MissingTile { value: u16 },
    /// A move that leaves the board.
    IllegalMove { step: usize, letter: char },
    /// A letter that is not a move.
    BadMoveLetter { letter: char, index: usize },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::NotSquare { count } => write!(
                f,
                "{count} numbers do not make a square board: give n*n numbers (4, 9, 16, 25, ...), \
                 or n followed by n*n numbers"
            ),
            BoardError::SizeOutOfRange { size } => write!(
                f,
                "board size {size}x{size} is out of range: n must be from {MIN_SIZE} to {MAX_SIZE}"
            ),
            // Numbers past u64 saturate: say so rather than quote the cap.
            BoardError::TileOutOfRange {
                value: u64::MAX,
                max,
            } => write!(
                f,
                "a tile of 20 digits or more is out of range: tiles are 0 (the blank) to {max}"
            ),
            BoardError::TileOutOfRange { value, max } => {
                write!(
                    f,
                    "tile {value} is out of range: tiles are 0 (the blank) to {max}"
                )
            }
            BoardError::DuplicateTile { value } => write!(f, "tile {value} appears more than once"),
            BoardError::MissingTile { value } => write!(f, "tile {value} is missing"),
            BoardError::IllegalMove { step, letter } => {
                write!(f, "move {} ('{letter}') runs off the board", step + 1)
            }
            BoardError::BadMoveLetter { letter, index } => write!(
                f,
                "'{letter}' at position {} is not a move: use U, D, L, R",
                index + 1
            ),
        }
    }
}

impl std::error::Error for BoardError {}

/// An n x n board, row-major, 0 for the blank. Always a permutation of
/// `0..n*n` with `MIN_SIZE <= n <= MAX_SIZE`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    size: usize,
    tiles: Vec<u16>,
    /// The blank's cell, kept so that a move costs O(1).
    blank: usize,
}

impl Board {
    /// Checks that `tiles` is a permutation of `0..size*size`.
    pub fn new(size: usize, tiles: Vec<u16>) -> Result<Board, BoardError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(BoardError::SizeOutOfRange { size });
        }
        let cells = size * size;
        if tiles.len() != cells {
            return Err(BoardError::NotSquare { count: tiles.len() });
        }
        let mut seen = vec![false; cells];
        for &t in &tiles {
            let slot = seen.get_mut(t as usize).ok_or(BoardError::TileOutOfRange {
                value: t.into(),
                max: cells - 1,
            })?;
            if *slot {
                return Err(BoardError::DuplicateTile { value: t });
            }
            *slot = true;
        }
        // With no duplicate and none out of range, nothing can be missing;
        // kept for boards built from a shorter list by future callers.
        if let Some(missing) = seen.iter().position(|s| !s) {
            return Err(BoardError::MissingTile {
                value: missing as u16,
            });
        }
        Ok(Board::with_blank(size, tiles))
    }

    /// A board of tiles known to be a permutation.
    fn with_blank(size: usize, tiles: Vec<u16>) -> Board {
        let blank = tiles
            .iter()
            .position(|&t| t == 0)
            .expect("a permutation has a blank");
        Board { size, tiles, blank }
    }

    /// Builds a board from a flat list whose length must be a square.
    pub fn from_tiles(tiles: Vec<u16>) -> Result<Board, BoardError> {
        let size = (tiles.len() as f64).sqrt().round() as usize;
        if size * size != tiles.len() {
            return Err(BoardError::NotSquare { count: tiles.len() });
        }
        Board::new(size, tiles)
    }

    /// The side n of the n x n board.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The tiles, row-major.
    pub fn tiles(&self) -> &[u16] {
        &self.tiles
    }

    /// The cell of the blank.
    pub fn blank(&self) -> usize {
        self.blank
    }

    /// Whether the board is `goal`.
    pub fn is_goal(&self, goal: Goal) -> bool {
        self.tiles
            .iter()
            .enumerate()
            .all(|(cell, &t)| t == goal.tile_at(self.size, cell))
    }

    /// Whether `goal` can be reached, by the parity rule: every move swaps the
    /// blank with a neighbour, flipping both the parity of the permutation
    /// (board to goal) and the parity of the blank's distance to its goal cell,
    /// so the two parities must agree; and when they do, the goal is reachable.
    pub fn is_solvable(&self, goal: Goal) -> bool {
        let n = self.size;
        let cells = n * n;
        let mut visited = vec![false; cells];
        let mut cycles = 0;
        for start in 0..cells {
            if visited[start] {
                continue;
            }
            cycles += 1;
            let mut cell = start;
            while !visited[cell] {
                visited[cell] = true;
                cell = goal.cell_of(n, self.tiles[cell]);
            }
        }
        let permutation_odd = (cells - cycles) % 2 == 1;
        let blank = self.blank();
        let goal_blank = goal.cell_of(n, 0);
        let distance = (blank / n).abs_diff(goal_blank / n) + (blank % n).abs_diff(goal_blank % n);
        permutation_odd == (distance % 2 == 1)
    }

    /// The moves possible from here, in `Move::ALL` order.
    pub fn legal_moves(&self) -> impl Iterator<Item = Move> + '_ {
        let blank = self.blank();
        Move::ALL
            .into_iter()
            .filter(move |m| m.blank_target(self.size, blank).is_some())
    }

    /// Slides a tile; `false` (and no change) if the move runs off the board.
    pub fn apply(&mut self, m: Move) -> bool {
        let blank = self.blank();
        match m.blank_target(self.size, blank) {
            Some(target) => {
                self.tiles.swap(blank, target);
                self.blank = target;
                true
            }
            None => false,
        }
    }

    /// Plays `moves` one at a time on a copy of this board, so that a long
    /// solution is shown in the memory of one board.
    pub fn walk<'a>(&self, moves: &'a [Move]) -> Walk<'a> {
        Walk {
            board: self.clone(),
            moves,
            step: 0,
        }
    }

    /// The boards visited by playing `moves`, starting with this one.
    pub fn replay(&self, moves: &[Move]) -> Result<Vec<Board>, BoardError> {
        let mut boards = Vec::with_capacity(moves.len() + 1);
        let mut board = self.clone();
        boards.push(board.clone());
        for (step, &m) in moves.iter().enumerate() {
            if !board.apply(m) {
                return Err(BoardError::IllegalMove {
                    step,
                    letter: m.letter(Notation::Tile),
                });
            }
            boards.push(board.clone());
        }
        Ok(boards)
    }

    /// Whether `moves` lead from this board to `goal`.
    pub fn solves(&self, moves: &[Move], goal: Goal) -> bool {
        let mut board = self.clone();
        moves.iter().all(|&m| board.apply(m)) && board.is_goal(goal)
    }

    /// The sum over tiles of their grid distance to their goal cells.
    pub fn manhattan(&self, goal: Goal) -> u64 {
        let n = self.size;
        self.tiles
            .iter()
            .enumerate()
            .filter(|&(_, &t)| t != 0)
            .map(|(cell, &t)| {
                let home = goal.cell_of(n, t);
                ((cell / n).abs_diff(home / n) + (cell % n).abs_diff(home % n)) as u64
            })
            .sum()
    }

    /// The board reflected about the main diagonal, with each tile relabelled
    /// as the tile whose goal cell is the mirror of its own. Both goals are
    /// symmetric under this map, so the reflected board is exactly as far from
    /// the goal as this one, and a second lookup in the same tables gives a
    /// second admissible estimate.
    pub fn transposed(&self, goal: Goal) -> Board {
        let n = self.size;
        let transpose = |cell: usize| (cell % n) * n + cell / n;
        let mut tiles = vec![0; n * n];
        for (cell, &t) in self.tiles.iter().enumerate() {
            tiles[transpose(cell)] = goal.tile_at(n, transpose(goal.cell_of(n, t)));
        }
        Board::with_blank(n, tiles)
    }

    /// The same position for the other goal: rotated 180 degrees, every tile
    /// v relabelled n*n - v. Distances are unchanged.
    pub fn converted_goal(&self) -> Board {
        let cells = self.tiles.len();
        let mut tiles = vec![0; cells];
        for (cell, &t) in self.tiles.iter().enumerate() {
            tiles[cells - 1 - cell] = if t == 0 { 0 } else { cells as u16 - t };
        }
        Board::with_blank(self.size, tiles)
    }

    /// One line, rows separated by `/`: the form `parse_board` reads back.
    pub fn to_line(&self) -> String {
        self.tiles
            .chunks(self.size)
            .map(|row| row.iter().map(u16::to_string).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(" / ")
    }

    /// The algs4 form: n on the first line, then n right-aligned rows.
    pub fn to_grid(&self) -> String {
        let width = (self.tiles.len() - 1).to_string().len();
        let mut out = format!("{}\n", self.size);
        for row in self.tiles.chunks(self.size) {
            let cells: Vec<String> = row.iter().map(|t| format!("{t:>width$}")).collect();
            out.push(' ');
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
        out
    }
}

/// A solution being played: the current board and the moves done.
pub struct Walk<'a> {
    board: Board,
    moves: &'a [Move],
    step: usize,
}

impl Walk<'_> {
    /// The board after the moves done so far.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// How many moves are done.
    pub fn step(&self) -> usize {
        self.step
    }

    /// Plays the next move: the tile it moved, `None` when all are done.
    pub fn advance(&mut self) -> Result<Option<u16>, BoardError> {
        let Some(&m) = self.moves.get(self.step) else {
            return Ok(None);
        };
        let blank = self.board.blank;
        if !self.board.apply(m) {
            return Err(BoardError::IllegalMove {
                step: self.step,
                letter: m.letter(Notation::Tile),
            });
        }
        self.step += 1;
        Ok(Some(self.board.tiles[blank]))
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashSet, VecDeque};

    fn board(tiles: &[u16]) -> Board {
        Board::from_tiles(tiles.to_vec()).unwrap()
    }

    #[test]
    fn goals_place_tiles_as_documented() {
        assert_eq!(
            Goal::BlankLast.board(3).tiles(),
            &[1, 2, 3, 4, 5, 6, 7, 8, 0]
        );
        assert_eq!(Goal::BlankFirst.board(2).tiles(), &[0, 1, 2, 3]);
        for goal in Goal::ALL {
            for t in 0..16 {
                assert_eq!(goal.tile_at(4, goal.cell_of(4, t)), t);
            }
        }
    }

    #[test]
    fn rejects_bad_boards() {
        assert_eq!(
            Board::from_tiles(vec![1, 2, 3]),
            Err(BoardError::NotSquare { count: 3 })
        );
        assert_eq!(
            Board::from_tiles(vec![1, 1, 2, 0]),
            Err(BoardError::DuplicateTile { value: 1 })
        );
        assert_eq!(
            Board::from_tiles(vec![1, 4, 2, 0]),
            Err(BoardError::TileOutOfRange { value: 4, max: 3 })
        );
        assert_eq!(
            Board::new(1, vec![0]),
            Err(BoardError::SizeOutOfRange { size: 1 })
        );
    }

    #[test]
    fn moves_name_the_tile_direction() {
        let mut b = board(&[1, 2, 3, 4, 0, 5, 7, 8, 6]);
        // Tile 5 is right of the blank: it moves left.
        assert!(b.apply(Move::Left));
        // Tile 6 is below the blank: it moves up.
        assert!(b.apply(Move::Up));
        assert!(b.is_goal(Goal::BlankLast));
        assert!(!b.apply(Move::Up), "nothing below the blank in the corner");
        assert_eq!(
            Move::format_sequence(&[Move::Left, Move::Up], Notation::Blank),
            "RD"
        );
    }

    /// The parity rule must agree with what is reachable, for every board of
    /// the two smallest sizes and both goals.
    #[test]
    fn parity_rule_agrees_with_exhaustive_search() {
        for n in [2usize, 3] {
            for goal in Goal::ALL {
                let start = goal.board(n);
                let mut seen: HashSet<Vec<u16>> = HashSet::from([start.tiles.clone()]);
                let mut queue = VecDeque::from([start]);
                while let Some(b) = queue.pop_front() {
                    for m in b.legal_moves().collect::<Vec<_>>() {
                        let mut next = b.clone();
                        next.apply(m);
                        if seen.insert(next.tiles.clone()) {
                            queue.push_back(next);
                        }
                    }
                }
                let total: usize = (1..=n * n).product();
                assert_eq!(seen.len(), total / 2);
                let mut perm: Vec<u16> = (0..(n * n) as u16).collect();
                let mut count = 0;
                for_each_permutation(&mut perm, 0, &mut |tiles| {
                    let b = Board::new(n, tiles.to_vec()).unwrap();
                    assert_eq!(b.is_solvable(goal), seen.contains(tiles), "{b} {goal}");
                    count += 1;
                });
                assert_eq!(count, total);
            }
        }
    }

    fn for_each_permutation(items: &mut [u16], k: usize, f: &mut impl FnMut(&[u16])) {
        if k == items.len() {
            f(items);
            return;
        }
        for i in k..items.len() {
            items.swap(k, i);
            for_each_permutation(items, k + 1, f);
            items.swap(k, i);
        }
    }

    #[test]
    fn reflection_and_goal_conversion_keep_distance_and_solvability() {
        let b = board(&[0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1]);
        for goal in Goal::ALL {
            let t = b.transposed(goal);
            assert_eq!(t.transposed(goal), b);
            assert_eq!(t.manhattan(goal), b.manhattan(goal));
            assert_eq!(t.is_solvable(goal), b.is_solvable(goal));
        }
        let c = b.converted_goal();
        assert_eq!(c.converted_goal(), b);
        assert!(b.is_solvable(Goal::BlankLast) && c.is_solvable(Goal::BlankFirst));
        assert!(!b.is_solvable(Goal::BlankFirst));
        assert_eq!(
            Goal::BlankLast.board(4).converted_goal(),
            Goal::BlankFirst.board(4)
        );
    }

    #[test]
    fn replay_reports_the_illegal_step() {
        let b = Goal::BlankLast.board(3);
        assert_eq!(
            b.replay(&[Move::Right, Move::Up]),
            Err(BoardError::IllegalMove {
                step: 1,
                letter: 'U'
            })
        );
    }
}
