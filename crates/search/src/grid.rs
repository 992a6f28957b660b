use npuzzle_board::{Board, Goal, Move};

/// The largest side optimal search takes: tiles must fit in a `u8`, and far
/// below this size optimal search is hopeless anyway.
pub const MAX_SEARCH_SIZE: usize = 15;

/// The fixed geometry of an n x n puzzle with a given goal, computed once per
/// search so that the inner loop only indexes tables.
#[derive(Clone, Debug)]
pub struct Grid {
    /// The side.
    pub n: usize,
    /// The goal.
    pub goal: Goal,
    /// Goal cell of each tile.
    pub home: Vec<u8>,
    /// For each cell of the blank: the cells a tile can come from, with the
    /// move that brings it, in `Move::ALL` order.
    neighbors: Vec<Vec<(u8, Move)>>,
    /// `distance[tile * cells + cell]`: grid distance of `cell` to the tile's home.
    distance: Vec<u8>,
}

impl Grid {
    /// The tables of an `n`x`n` board for `goal`.
    pub fn new(n: usize, goal: Goal) -> Grid {
        assert!(
            (2..=MAX_SEARCH_SIZE).contains(&n),
            "search supports 2..=15, got {n}"
        );
        let cells = n * n;
        let home: Vec<u8> = (0..cells)
            .map(|t| goal.cell_of(n, t as u16) as u8)
            .collect();
        let neighbors = (0..cells)
            .map(|blank| {
                Move::ALL
                    .into_iter()
                    .filter_map(|m| m.blank_target(n, blank).map(|c| (c as u8, m)))
                    .collect()
            })
            .collect();
        let mut distance = vec![0; cells * cells];
        for tile in 1..cells {
            let h = home[tile] as usize;
            for cell in 0..cells {
                distance[tile * cells + cell] =
                    ((cell / n).abs_diff(h / n) + (cell % n).abs_diff(h % n)) as u8;
            }
        }
        Grid {
            n,
            goal,
            home,
            neighbors,
            distance,
        }
    }

    /// The board's cells.
    pub fn cells(&self) -> usize {
        self.n * self.n
    }

    /// The cells a tile can slide from into the blank at `blank`, with the move.
    #[inline(always)]
    pub fn neighbors(&self, blank: u8) -> &[(u8, Move)] {
        &self.neighbors[blank as usize]
    }

    /// `[tile][cell]`: the grid distance to the tile's home, in a fixed
    /// array of side `C` (at least the board's cells; 0 past them), which
    /// the fast heuristics index without bounds checks.
    pub(crate) fn distance_table<const C: usize>(&self) -> [[u8; C]; C] {
        let cells = self.cells();
        std::array::from_fn(|tile| {
            std::array::from_fn(|cell| {
                if tile < cells && cell < cells {
                    self.distance(tile as u8, cell as u8) as u8
                } else {
                    0
                }
            })
        })
    }

    /// The grid distance of `cell` to `tile`'s home.
    #[inline(always)]
    pub fn distance(&self, tile: u8, cell: u8) -> u32 {
        self.distance[tile as usize * self.cells() + cell as usize] as u32
    }

    /// Every move (the tile on `from` into the blank on `to`) as the board
    /// shows it, or its mirror image (the board transposed), for the fast
    /// heuristics' per-move tables.
    pub(crate) fn moves_seen<const K: usize>(&self, mirror: bool, no_cell: u8) -> Vec<SeenMove<K>> {
        let n = self.n;
        // Transposing is its own inverse: it maps board cells to the
        // mirror's and back.
        let seen = |cell: u8| {
            if mirror {
                ((cell as usize % n) * n + cell as usize / n) as u8
            } else {
                cell
            }
        };
        let mut moves = Vec::new();
        for to in 0..self.cells() as u8 {
            for &(from, _) in self.neighbors(to) {
                let (tile, blank) = (seen(from), seen(to));
                let mut crossed = [no_cell; K];
                let between = tile.min(blank) + 1..tile.max(blank);
                for (slot, cell) in crossed.iter_mut().zip(between) {
                    *slot = seen(cell);
                }
                moves.push(SeenMove {
                    from,
                    to,
                    tile,
                    blank,
                    crossed,
                });
            }
        }
        moves
    }
}

/// The move that slides the tile on `to` into the blank on `from`.
pub(crate) fn move_between(n: usize, from: usize, to: usize) -> Move {
    if to == from + n {
        Move::Up
    } else if to + n == from {
        Move::Down
    } else if to == from + 1 {
        Move::Left
    } else {
        Move::Right
    }
}

/// A move seen in the board or its mirror image.
pub(crate) struct SeenMove<const K: usize> {
    /// The move on the board: the tile's cell and the blank's.
    pub from: u8,
    pub to: u8,
    /// The same two cells as seen.
    pub tile: u8,
    pub blank: u8,
    /// The board cells whose tiles the move passes as seen (vertically
    /// there), then `no_cell`: where search reads the crossed tiles.
    pub crossed: [u8; K],
}

impl<const K: usize> SeenMove<K> {
    /// Whether the tile moves along a column as seen.
    pub fn vertical(&self) -> bool {
        self.tile.abs_diff(self.blank) > 1
    }

    /// Whether the tile moves to a higher cell as seen.
    pub fn up(&self) -> bool {
        self.blank > self.tile
    }

    /// The two cells' bits as seen.
    pub fn cells(&self) -> u32 {
        1 << self.tile | 1 << self.blank
    }
}

/// A board in the form search mutates in place: both directions of the
/// tile/cell map, in fixed arrays indexed by `u8` so that no index is checked.
#[derive(Clone)]
pub struct Position {
    /// The tile on each cell (0 = blank).
    pub tiles: [u8; 256],
    /// The cell of each tile (entry 0 is the blank's cell).
    pub cells: [u8; 256],
}

impl Position {
    /// The position of `board`.
    pub fn new(board: &Board) -> Position {
        let mut tiles = [0u8; 256];
        let mut cells = [0u8; 256];
        for (cell, &tile) in board.tiles().iter().enumerate() {
            tiles[cell] = tile as u8;
            cells[tile as usize] = cell as u8;
        }
        Position { tiles, cells }
    }

    /// The blank's cell.
    #[inline(always)]
    pub fn blank(&self) -> u8 {
        self.cells[0]
    }

    /// Slides the tile on `from` into the blank; returns the tile.
    #[inline(always)]
    pub fn slide(&mut self, from: u8) -> u8 {
        let blank = self.cells[0];
        let tile = self.tiles[from as usize];
        self.tiles[blank as usize] = tile;
        self.tiles[from as usize] = 0;
        self.cells[tile as usize] = blank;
        self.cells[0] = from;
        tile
    }

    /// Whether every tile is home.
    pub fn is_goal(&self, grid: &Grid) -> bool {
        (0..grid.cells()).all(|t| self.cells[t] == grid.home[t])
    }

    /// The position as a board of side `n`.
    pub fn to_board(&self, n: usize) -> Board {
        let tiles = self.tiles[..n * n].iter().map(|&t| t as u16).collect();
        Board::new(n, tiles).expect("a position is a permutation")
    }
}
