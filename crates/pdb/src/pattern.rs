//! Patterns (the tiles one table abstracts over), partitions (disjoint
//! patterns whose values add up) and the dense ranking of tile placements.

use std::fmt;

use npuzzle_board::Goal;

use crate::regions::Regions;

/// Cell sets are `u64` bit masks, so boards up to 8x8.
pub const MAX_PDB_SIZE: usize = 8;

/// Why a pattern or partition is not acceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum PatternError {
    /// A board size tables are not built for.
    Size { size: usize },
    /// A number that is not a tile of the board.
    Tile { tile: u64, max: usize },
    /// A tile in two patterns.
    Repeated { tile: u8 },
    /// A pattern without tiles.
    Empty,
    /// A partition name not known for this size.
    UnknownPartition { name: String, size: usize },
    /// A tile list that cannot be read.
    BadList { text: String },
    /// More placements than any table could hold.
    TooLarge { size: usize, tiles: usize },
    /// A zero-aware pattern whose region index would outweigh its table.
    ZeroAwareTooLarge { size: usize, tiles: usize },
}

/// The most placements a pattern may have: 2^40 (a table of that many
/// entries would take 512 GB); it keeps every size computation in range.
pub const MAX_PLACEMENTS: u64 = 1 << 40;

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Size { size } => write!(
                f,
                "pattern databases are built for boards from 2x2 to {MAX_PDB_SIZE}x{MAX_PDB_SIZE}, not {size}x{size}"
            ),
            PatternError::Tile { tile, max } => {
                write!(f, "tile {tile} is not a tile of this board (1 to {max})")
            }
            PatternError::Repeated { tile } => {
                write!(f, "tile {tile} is in more than one pattern (patterns must be disjoint)")
            }
            PatternError::Empty => f.write_str("a pattern needs at least one tile"),
            PatternError::UnknownPartition { name, size } if known_partitions(*size).is_empty() => {
                write!(
                    f,
                    "no partition named '{name}' for {size}x{size}: npuzzle has no named \
                     partitions of this size; list the tiles of each table, as \
                     \"1,2,3;4,5,6\" (a z before a tile list makes that table zero-aware)"
                )
            }
            PatternError::UnknownPartition { name, size } => write!(
                f,
                "no partition named '{name}' for {size}x{size}: use {}, or list the tiles \
                 as \"1,2,3;4,5,6\" (a z after a part, as in 7z-8, or before a tile list \
                 makes that table zero-aware){}",
                known_partitions(*size).join(", "),
                match known_catalogues(*size).as_slice() {
                    [] => String::new(),
                    names => format!(
                        "; catalogues: {}",
                        names.iter().map(|c| c.0).collect::<Vec<_>>().join(", ")
                    ),
                }
            ),
            PatternError::BadList { text } => write!(
                f,
                "'{text}' is not a tile list: write tiles separated by commas, patterns by ';'"
            ),
            PatternError::TooLarge { size, tiles } => write!(
                f,
                "a pattern of {tiles} tiles on a {size}x{size} board has more than 2^40 \
                 placements: no table of it fits anywhere; use smaller patterns"
            ),
            PatternError::ZeroAwareTooLarge { size, tiles } => write!(
                f,
                "a zero-aware table of {tiles} tiles on a {size}x{size} board would need an \
                 index of its regions larger than 256 MB; drop the z (a plain table) or use \
                 fewer tiles"
            ),
        }
    }
}

impl std::error::Error for PatternError {}

/// The tiles one table tracks, in the order their cells are ranked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pattern {
    size: usize,
    goal: Goal,
    tiles: Vec<u8>,
    index: IndexScheme,
    ranker: Ranker,
}

/// How a table numbers its entries (see `docs/pdb-format.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexScheme {
    /// Scheme 1: one entry per placement, the least over the blank's regions.
    Placement,
    /// Scheme 2 (zero-aware, format version 2): one entry per placement and
    /// free cell of the blank; still read, no longer built.
    PlacementAndCell,
    /// Scheme 3 (zero-aware, format version 3): one entry per placement and
    /// region of the free cells, numbered by `Regions`.
    PlacementAndRegion,
}

impl IndexScheme {
    /// The scheme's number in the file header.
    pub fn code(self) -> u8 {
        match self {
            IndexScheme::Placement => 1,
            IndexScheme::PlacementAndCell => 2,
            IndexScheme::PlacementAndRegion => 3,
        }
    }
}

impl Pattern {
    /// The pattern of `tiles` (ranked in that order) on a `size`x`size` board.
    pub fn new(size: usize, goal: Goal, tiles: Vec<u8>) -> Result<Pattern, PatternError> {
        if !(2..=MAX_PDB_SIZE).contains(&size) {
            return Err(PatternError::Size { size });
        }
        if tiles.is_empty() {
            return Err(PatternError::Empty);
        }
        let max = size * size - 1;
        let mut seen = 0u64;
        for &t in &tiles {
            if t == 0 || t as usize > max {
                return Err(PatternError::Tile {
                    tile: t.into(),
                    max,
                });
            }
            if seen & (1 << t) != 0 {
                return Err(PatternError::Repeated { tile: t });
            }
            seen |= 1 << t;
        }
        let cells = (size * size) as u64;
        let placements = (0..tiles.len() as u64)
            .try_fold(1u64, |product, i| product.checked_mul(cells - i))
            .filter(|&p| p <= MAX_PLACEMENTS);
        if placements.is_none() {
            return Err(PatternError::TooLarge {
                size,
                tiles: tiles.len(),
            });
        }
        let ranker = Ranker::new(size * size, tiles.len());
        Ok(Pattern {
            size,
            goal,
            tiles,
            index: IndexScheme::Placement,
            ranker,
        })
    }

    /// The same tiles with a zero-aware table (one value per placement and
    /// region of the blank, rather than the least over the blank's regions),
    /// numbered by index scheme 3.
    pub fn zero_aware(self, zero_aware: bool) -> Result<Pattern, PatternError> {
        self.with_index_scheme(if zero_aware {
            IndexScheme::PlacementAndRegion
        } else {
            IndexScheme::Placement
        })
    }

    /// The same tiles with entries numbered by `scheme` (readers take it
    /// from the file header). Scheme 3 is refused where its per-set index
    /// would outweigh the table (five or more tiles on 8x8).
    pub fn with_index_scheme(mut self, scheme: IndexScheme) -> Result<Pattern, PatternError> {
        if scheme == IndexScheme::PlacementAndRegion
            && !crate::regions::fits(self.size, self.tiles.len())
        {
            return Err(PatternError::ZeroAwareTooLarge {
                size: self.size,
                tiles: self.tiles.len(),
            });
        }
        self.index = scheme;
        Ok(self)
    }

    /// Whether tables of the two patterns hold the same values, whatever
    /// their numbering: the same tiles, board and goal, both zero-aware or
    /// both not.
    pub fn has_values_of(&self, other: &Pattern) -> bool {
        (self.size, self.goal, &self.tiles, self.is_zero_aware())
            == (other.size, other.goal, &other.tiles, other.is_zero_aware())
    }

    /// How the table numbers its entries.
    pub fn index_scheme(&self) -> IndexScheme {
        self.index
    }

    /// Whether its table keeps the blank's region (Clausecker and
    /// Reinefeld's zero-aware pattern databases): larger values, and
    /// consistent ones, for about 2.4 times the entries (7 tiles of the
    /// 15-puzzle).
    pub fn is_zero_aware(&self) -> bool {
        self.index != IndexScheme::Placement
    }

    /// The numbering of (placement, region) pairs of a scheme-3 table.
    pub fn regions(&self) -> Option<std::sync::Arc<Regions>> {
        (self.index == IndexScheme::PlacementAndRegion)
            .then(|| Regions::of(self.size, self.tiles.len()))
    }

    /// The cells no pattern tile stands on: where the blank can be.
    pub fn free_cells(&self) -> usize {
        self.cells() - self.tiles.len()
    }

    /// Table entries: one per placement, or, zero-aware, one per placement
    /// and region of the free cells (scheme 3) or free cell (scheme 2).
    pub fn entries(&self) -> u64 {
        match self.index {
            IndexScheme::Placement => self.placements(),
            IndexScheme::PlacementAndCell => self.placements() * self.free_cells() as u64,
            IndexScheme::PlacementAndRegion => Regions::of(self.size, self.tiles.len()).entries(),
        }
    }

    /// The board's side.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The board's cells.
    pub fn cells(&self) -> usize {
        self.size * self.size
    }

    /// The goal the pattern's home cells come from.
    pub fn goal(&self) -> Goal {
        self.goal
    }

    /// The tiles, in rank order.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// The tiles joined by dots, as in file names: `1.2.3`, or
    /// `zero-aware-1.2.3`.
    pub fn label(&self) -> String {
        let tiles: Vec<String> = self.tiles.iter().map(u8::to_string).collect();
        let prefix = if self.is_zero_aware() {
            "zero-aware-"
        } else {
            ""
        };
        format!("{prefix}{}", tiles.join("."))
    }

    /// The number of placements: cells!/(cells-k)!.
    pub fn placements(&self) -> u64 {
        let cells = self.cells() as u64;
        (0..self.tiles.len() as u64).map(|i| cells - i).product()
    }

    /// The dense rank of a placement (the cells of the pattern tiles, in tile
    /// order) in `0..placements()`. Each tile's cell is counted among the
    /// cells the earlier tiles left free, and the digits are combined in a
    /// mixed radix with the last tile least significant: a move of the last
    /// tiles then stays near in memory.
    #[inline(always)]
    pub fn rank(&self, placement: &[u8]) -> u64 {
        self.ranker.rank(placement)
    }

    /// The inverse of `rank`: writes the cells of the tiles into `placement`.
    pub fn unrank(&self, rank: u64, placement: &mut [u8]) {
        self.ranker.unrank(rank, placement)
    }

    /// The ranking of placements of this many tiles on this many cells.
    pub fn ranker(&self) -> &Ranker {
        &self.ranker
    }

    /// Sum of the pattern tiles' grid distances to their goal cells (of the
    /// first `placement.len()` tiles).
    pub fn manhattan(&self, placement: &[u8]) -> u32 {
        let n = self.size;
        self.tiles
            .iter()
            .zip(placement)
            .map(|(&t, &c)| {
                let home = self.goal.cell_of(n, t as u16);
                let c = c as usize;
                ((c / n).abs_diff(home / n) + (c % n).abs_diff(home % n)) as u32
            })
            .sum()
    }

    /// Each pattern tile's grid distance from each cell to its goal cell
    /// (`distances()[tile][cell]`, tiles in pattern order).
    pub fn distances(&self) -> Vec<[u8; 64]> {
        let n = self.size;
        self.goal_placement()
            .iter()
            .map(|&home| {
                let mut row = [0u8; 64];
                for (c, d) in row.iter_mut().enumerate().take(n * n) {
                    *d = ((c / n).abs_diff(home as usize / n) + (c % n).abs_diff(home as usize % n))
                        as u8;
                }
                row
            })
            .collect()
    }

    /// The goal cells of the pattern tiles.
    pub fn goal_placement(&self) -> Vec<u8> {
        self.tiles
            .iter()
            .map(|&t| self.goal.cell_of(self.size, t as u16) as u8)
            .collect()
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tiles: Vec<String> = self.tiles.iter().map(u8::to_string).collect();
        let prefix = if self.is_zero_aware() { "z" } else { "" };
        write!(f, "{prefix}{{{}}}", tiles.join(","))
    }
}

/// Ranking and unranking for k tiles on a board of `cells` cells, with the
/// arithmetic precomputed: ranking sums independent products (no multiply
/// chain) and unranking divides by multiplying with reciprocals, because the
/// generator does both billions of times.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ranker {
    k: usize,
    /// Place value of each digit in the mixed radix.
    weights: [u64; 64],
    /// ceil(2^64 / radix) for digit i's radix `cells - i` (Lemire's fastdiv,
    /// exact for 32-bit dividends).
    reciprocals: [u64; 64],
    radices: [u64; 64],
    /// All ranks fit in 32 bits, so the reciprocals apply.
    small: bool,
}

impl Ranker {
    /// The ranking of `k` distinct cells out of `cells`.
    pub fn new(cells: usize, k: usize) -> Ranker {
        let mut weights = [0u64; 64];
        let mut reciprocals = [0u64; 64];
        let mut radices = [0u64; 64];
        let mut weight = 1u64;
        for i in (0..k).rev() {
            weights[i] = weight;
            radices[i] = (cells - i) as u64;
            reciprocals[i] = (u64::MAX / radices[i]).wrapping_add(1);
            weight *= radices[i];
        }
        Ranker {
            k,
            weights,
            reciprocals,
            radices,
            small: weight <= 1 << 32,
        }
    }

    /// The place value of tile `i`'s digit.
    #[inline(always)]
    pub fn weight(&self, i: usize) -> u64 {
        self.weights[i]
    }

    /// The rank of `placement`: each tile's cell counted among the cells the
    /// earlier tiles left free, as digits of a mixed radix.
    #[inline(always)]
    pub fn rank(&self, placement: &[u8]) -> u64 {
        let mut used = 0u64;
        let mut rank = 0u64;
        for (i, &c) in placement.iter().enumerate().take(self.k) {
            let below = (used & ((1u64 << c) - 1)).count_ones() as u64;
            rank += (c as u64 - below) * self.weights[i];
            used |= 1u64 << c;
        }
        rank
    }

    /// The placement of rank `rank`, written into `placement`.
    pub fn unrank(&self, mut rank: u64, placement: &mut [u8]) {
        let mut digits = [0u8; 64];
        for i in (0..self.k).rev() {
            let radix = self.radices[i];
            let quotient = if self.small {
                ((self.reciprocals[i] as u128 * rank as u128) >> 64) as u64
            } else {
                rank / radix
            };
            digits[i] = (rank - quotient * radix) as u8;
            rank = quotient;
        }
        let mut used = 0u64;
        for i in 0..self.k {
            let c = select(!used, digits[i] as u32);
            placement[i] = c;
            used |= 1u64 << c;
        }
    }
}

/// `SELECT_IN_BYTE[byte][j]`: the position of the j-th set bit of `byte`.
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut j = 0;
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][j] = bit as u8;
                j += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// The position of the `j`-th (from 0) set bit of `bits`, a byte at a time:
/// a bit-by-bit loop mispredicts on every placement.
#[inline(always)]
fn select(bits: u64, mut j: u32) -> u8 {
    let mut base = 0;
    loop {
        let byte = (bits >> base) as u8;
        let ones = byte.count_ones();
        if j < ones {
            return base as u8 + SELECT_IN_BYTE[byte as usize][j as usize];
        }
        j -= ones;
        base += 8;
    }
}

/// Disjoint patterns of one board whose table values add up; or a
/// catalogue of several such partitions (`A+B`), whose sums are maxed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    name: String,
    patterns: Vec<Pattern>,
    /// The number of patterns of each partition, in order.
    groups: Vec<usize>,
}

/// Named partitions, as cell sets of the blank-first goal (Korf and Felner's
/// convention); for blank-last the board is turned half round, which maps
/// the blank-first partition onto the equivalent one.
fn named_cells(name: &str, size: usize) -> Option<Vec<Vec<u8>>> {
    let cells: Vec<Vec<u8>> = match (size, name) {
        (2, "3") => vec![vec![1, 2, 3]],
        (3, "8") => vec![(1..9).collect()],
        (3, "4-4") => vec![vec![1, 2, 3, 5], vec![4, 6, 7, 8]],
        (4, "7-8") => vec![(1..8).collect(), (8..16).collect()],
        (4, "6-6-3") => vec![
            vec![1, 4, 5, 8, 9, 12],
            vec![2, 3, 6, 7, 10, 11],
            vec![13, 14, 15],
        ],
        (4, "5-5-5") => vec![
            vec![1, 2, 3, 6, 7],
            vec![4, 5, 8, 9, 12],
            vec![10, 11, 13, 14, 15],
        ],
        // The second partition of the catalogues: the seven cells of the
        // row and column farthest from the blank's home (an L), the rest.
        (4, "L7-8") => vec![
            vec![3, 7, 11, 12, 13, 14, 15],
            vec![1, 2, 4, 5, 6, 8, 9, 10],
        ],
        // The third: the 3x3 square in the corner farthest from the
        // blank's home, less its inner corner (8), and the rest (an L of 7).
        (4, "S7-8") => vec![
            vec![1, 2, 3, 4, 5, 8, 12],
            vec![6, 7, 9, 10, 11, 13, 14, 15],
        ],
        (5, "6-6-6-6") => vec![
            vec![1, 2, 5, 6, 7, 12],
            vec![3, 4, 8, 9, 13, 14],
            vec![10, 11, 15, 16, 20, 21],
            vec![17, 18, 19, 22, 23, 24],
        ],
        // Blocks across the seams of 6-6-6-6, for catalogues.
        (5, "B6-6-6-6") => vec![
            vec![1, 2, 3, 6, 7, 8],
            vec![4, 9, 13, 14, 18, 19],
            vec![5, 10, 11, 15, 16, 20],
            vec![12, 17, 21, 22, 23, 24],
        ],
        // The seven partitions of Clausecker and Reinefeld's "small"
        // catalogue of the 24-puzzle (clausecker/24puzzle, small-t.cat,
        // whose transposed partitions are our reflected lookups).
        (5, "C6-6-6-6") => vec![
            vec![1, 5, 6, 10, 11, 12],
            vec![2, 3, 4, 7, 8, 9],
            vec![13, 14, 18, 19, 23, 24],
            vec![15, 16, 17, 20, 21, 22],
        ],
        (5, "D6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 11],
            vec![3, 4, 7, 8, 9, 12],
            vec![13, 14, 18, 19, 23, 24],
            vec![15, 16, 17, 20, 21, 22],
        ],
        (5, "E6-6-6-6") => vec![
            vec![1, 5, 6, 10, 11, 12],
            vec![2, 3, 4, 7, 8, 9],
            vec![13, 14, 15, 16, 17, 18],
            vec![19, 20, 21, 22, 23, 24],
        ],
        (5, "F6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 11],
            vec![3, 4, 7, 8, 9, 12],
            vec![13, 14, 15, 16, 17, 18],
            vec![19, 20, 21, 22, 23, 24],
        ],
        (5, "G6-6-6-6") => vec![
            vec![1, 5, 6, 10, 15, 20],
            vec![2, 3, 4, 7, 8, 9],
            vec![11, 12, 16, 17, 21, 22],
            vec![13, 14, 18, 19, 23, 24],
        ],
        (5, "H6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 11],
            vec![3, 4, 9, 14, 19, 24],
            vec![7, 8, 12, 13, 18, 23],
            vec![15, 16, 17, 20, 21, 22],
        ],
        (5, "I6-6-6-6") => vec![
            vec![1, 5, 6, 10, 15, 20],
            vec![2, 3, 4, 7, 8, 9],
            vec![11, 12, 13, 16, 17, 18],
            vec![14, 19, 21, 22, 23, 24],
        ],
        // The seven more of their "improved compound" catalogue
        // (improved-compound.cat, partitions 6, 7 and 9 to 13), which with
        // the seven above use 20 distinct tables.
        (5, "J6-6-6-6") => vec![
            vec![1, 5, 6, 10, 15, 20],
            vec![2, 3, 7, 8, 13, 18],
            vec![4, 9, 14, 19, 23, 24],
            vec![11, 12, 16, 17, 21, 22],
        ],
        (5, "K6-6-6-6") => vec![
            vec![1, 5, 6, 10, 11, 12],
            vec![2, 3, 7, 8, 13, 18],
            vec![4, 9, 14, 19, 23, 24],
            vec![15, 16, 17, 20, 21, 22],
        ],
        (5, "L6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 15],
            vec![3, 4, 7, 8, 9, 14],
            vec![11, 12, 13, 16, 17, 18],
            vec![19, 20, 21, 22, 23, 24],
        ],
        (5, "M6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 15],
            vec![3, 4, 9, 14, 19, 24],
            vec![7, 8, 12, 13, 18, 23],
            vec![11, 16, 17, 20, 21, 22],
        ],
        (5, "N6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 15],
            vec![3, 4, 7, 8, 9, 12],
            vec![11, 16, 17, 20, 21, 22],
            vec![13, 14, 18, 19, 23, 24],
        ],
        (5, "O6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 11],
            vec![3, 4, 7, 8, 9, 14],
            vec![12, 13, 18, 19, 23, 24],
            vec![15, 16, 17, 20, 21, 22],
        ],
        (5, "P6-6-6-6") => vec![
            vec![1, 2, 5, 6, 10, 15],
            vec![3, 4, 7, 8, 9, 14],
            vec![11, 16, 17, 20, 21, 22],
            vec![12, 13, 18, 19, 23, 24],
        ],
        // Seven compact blocks of five: the 35-puzzle's tables (45 M
        // entries each, seconds to build).
        (6, "5-5-5-5-5-5-5") => vec![
            vec![1, 2, 6, 7, 8],
            vec![3, 4, 5, 9, 10],
            vec![11, 16, 17, 22, 23],
            vec![12, 18, 19, 24, 25],
            vec![13, 14, 15, 20, 21],
            vec![26, 27, 30, 31, 32],
            vec![28, 29, 33, 34, 35],
        ],
        // Eight compact blocks of five and two of four: the 48-puzzle's
        // tables (229 M entries for each of five tiles, 930 MB in all).
        (7, "5-5-5-5-4-5-5-4-5-5") => vec![
            vec![1, 7, 8, 14, 15],
            vec![2, 3, 9, 10, 16],
            vec![4, 5, 11, 17, 18],
            vec![6, 12, 13, 19, 20],
            vec![21, 22, 28, 29],
            vec![23, 24, 25, 30, 31],
            vec![26, 27, 32, 33, 34],
            vec![35, 36, 42, 43],
            vec![37, 38, 39, 44, 45],
            vec![40, 41, 46, 47, 48],
        ],
        _ => return None,
    };
    Some(cells)
}

/// Named catalogues: partitions joined by `+`, as the user could write
/// them.
fn named_catalogue(name: &str, size: usize) -> Option<&'static str> {
    CATALOGUES
        .iter()
        .find(|(n, s, _, _)| *n == name && *s == size)
        .map(|(_, _, parts, _)| *parts)
}

/// (name, board side, partitions, what it is for).
const CATALOGUES: &[(&str, usize, &str, &str)] = &[
    (
        "duo",
        4,
        "7z-8+S7z-8",
        "many boards or hard ones: 7-8 with the 7-tile table zero-aware, maxed with \
         the square 7-8, its 7-tile table zero-aware too (659 MB)",
    ),
    (
        "trio",
        4,
        "7z-8+L7z-8+S7z-8",
        "the fewest nodes within 1 GB: duo maxed with the L-shaped 7-8 (990 MB)",
    ),
    (
        "duo",
        5,
        "6z-6z-6z-6z+B6-6-6-6",
        "the 24-puzzle's: zero-aware 6-6-6-6 maxed with the blocks across its seams \
         (617 MB)",
    ),
    (
        "septet",
        5,
        "C6z-6z-6z-6z+D6z-6z-6z-6z+E6z-6z-6z-6z+F6z-6z-6z-6z+G6z-6z-6z-6z+H6z-6z-6z-6z\
         +I6z-6z-6z-6z",
        "the 24-puzzle's fewest nodes: the seven zero-aware 6-6-6-6 partitions of \
         Clausecker and Reinefeld's small catalogue, 14 distinct tables (1.27 GB)",
    ),
    (
        "compound",
        5,
        "C6z-6z-6z-6z+D6z-6z-6z-6z+E6z-6z-6z-6z+F6z-6z-6z-6z+G6z-6z-6z-6z+H6z-6z-6z-6z\
         +I6z-6z-6z-6z+J6z-6z-6z-6z+K6z-6z-6z-6z+L6z-6z-6z-6z+M6z-6z-6z-6z+N6z-6z-6z-6z\
         +O6z-6z-6z-6z+P6z-6z-6z-6z",
        "the 24-puzzle's fewest nodes within 2 GB: septet and seven more zero-aware \
         6-6-6-6 partitions (Clausecker's improved compound catalogue), 20 distinct \
         tables (1.81 GB)",
    ),
];

/// The catalogue names known for boards of side `size`, with their
/// partitions and what each is for.
pub fn known_catalogues(size: usize) -> Vec<(&'static str, &'static str, &'static str)> {
    CATALOGUES
        .iter()
        .filter(|(_, s, _, _)| *s == size)
        .map(|(name, _, parts, about)| (*name, *parts, *about))
        .collect()
}

/// The partition names known for boards of side `size`.
pub fn known_partitions(size: usize) -> Vec<&'static str> {
    [
        "3",
        "8",
        "4-4",
        "7-8",
        "L7-8",
        "S7-8",
        "6-6-3",
        "5-5-5",
        "6-6-6-6",
        "B6-6-6-6",
        "C6-6-6-6",
        "D6-6-6-6",
        "E6-6-6-6",
        "F6-6-6-6",
        "G6-6-6-6",
        "H6-6-6-6",
        "I6-6-6-6",
        "J6-6-6-6",
        "K6-6-6-6",
        "L6-6-6-6",
        "M6-6-6-6",
        "N6-6-6-6",
        "O6-6-6-6",
        "P6-6-6-6",
        "5-5-5-5-5-5-5",
        "5-5-5-5-4-5-5-4-5-5",
    ]
    .into_iter()
    .filter(|name| named_cells(name, size).is_some())
    .collect()
}

impl Partition {
    /// The partition built when none is named, and looked for when no
    /// stronger set is built ([`Partition::strongest_first`]): for 5x5 the
    /// zero-aware 6-6-6-6, the set the README recommends; for 6x6 and 7x7
    /// blocks of five tiles (and four), which guide their beam search.
    /// Sides past 7x7 have no default tables ([`Partition::has_default`]).
    pub fn default_name(size: usize) -> &'static str {
        match size {
            2 => "3",
            3 => "8",
            5 => "6z-6z-6z-6z",
            6 => "5-5-5-5-5-5-5",
            7 => "5-5-5-5-4-5-5-4-5-5",
            _ => "7-8",
        }
    }

    /// Whether boards of side `size` have default tables (2x2 to 7x7).
    /// On 8x8, 5-tile tables would map 5.9 GB (13 of 457 MB), and 4-tile
    /// ones guided the 5x5 beam worse than linear conflict.
    pub fn has_default(size: usize) -> bool {
        (2..=7).contains(&size)
    }

    /// The sets a solver takes for boards of side `size` when none is
    /// named, strongest first: the first one built is used (docs/cli.md,
    /// "Which tables a board gets"). For 4x4 the three 7-8 partitions
    /// first (the fastest on two cores), then `trio` (the fewest nodes);
    /// for 5x5 the catalogue with the fewest nodes first.
    pub fn strongest_first(size: usize) -> &'static [&'static str] {
        match size {
            2 => &["3"],
            3 => &["8"],
            4 => &["7-8+L7-8+S7-8", "trio", "duo", "7z-8", "7-8"],
            5 => &["compound", "septet", "6z-6z-6z-6z", "6-6-6-6"],
            6 => &["5-5-5-5-5-5-5"],
            7 => &["5-5-5-5-4-5-5-4-5-5"],
            _ => &[],
        }
    }

    /// A named partition (`7-8`, `6-6-3`, ...) or a list of tile sets
    /// (`"1,2,3;4,5,6"`). A `z` marks a zero-aware table: after a part of a
    /// name (`7z-8`: the 7-tile table zero-aware) or before a tile set
    /// (`"z1,2,3;4,5,6"`).
    ///
    /// Partitions joined by `+` make a catalogue: the heuristic is the
    /// largest of their sums (each with its reflected lookup). Catalogue
    /// names stand for such lists (see [`known_catalogues`]).
    pub fn parse(name: &str, size: usize, goal: Goal) -> Result<Partition, PatternError> {
        if !(2..=MAX_PDB_SIZE).contains(&size) {
            return Err(PatternError::Size { size });
        }
        let expanded = named_catalogue(name, size).unwrap_or(name);
        if expanded.contains('+') {
            let mut patterns = Vec::new();
            let mut groups = Vec::new();
            for part in expanded.split('+').map(str::trim) {
                if part.is_empty() {
                    return Err(PatternError::UnknownPartition {
                        name: name.to_string(),
                        size,
                    });
                }
                let partition = Partition::parse_one(part, size, goal)?;
                groups.push(partition.patterns.len());
                patterns.extend(partition.patterns);
            }
            return Ok(Partition {
                name: name.to_string(),
                patterns,
                groups,
            });
        }
        Partition::parse_one(expanded, size, goal).map(|mut p| {
            p.name = name.to_string();
            p
        })
    }

    fn parse_one(name: &str, size: usize, goal: Goal) -> Result<Partition, PatternError> {
        let tile_sets: Vec<(Vec<u8>, bool)> = if name.contains(',') || name.contains(';') {
            parse_tile_lists(name)?
        } else {
            let parts: Vec<&str> = name.split('-').collect();
            let zero_aware: Vec<bool> = parts.iter().map(|p| p.ends_with('z')).collect();
            let plain: Vec<&str> = parts
                .iter()
                .map(|p| p.strip_suffix('z').unwrap_or(p))
                .collect();
            let cells = named_cells(&plain.join("-"), size).ok_or_else(|| {
                PatternError::UnknownPartition {
                    name: name.to_string(),
                    size,
                }
            })?;
            let last = (size * size - 1) as u8;
            cells
                .into_iter()
                .zip(zero_aware)
                .map(|(set, zero_aware)| match goal {
                    Goal::BlankFirst => (set, zero_aware),
                    // Half a turn: cell c goes to last - c, where blank-last has tile last - c + 1.
                    Goal::BlankLast => (
                        set.into_iter().map(|c| last - c + 1).rev().collect(),
                        zero_aware,
                    ),
                })
                .collect()
        };
        let mut all = 0u64;
        let mut patterns = Vec::new();
        for (tiles, zero_aware) in tile_sets {
            let pattern = Pattern::new(size, goal, tiles)?.zero_aware(zero_aware)?;
            for &t in pattern.tiles() {
                if all & (1 << t) != 0 {
                    return Err(PatternError::Repeated { tile: t });
                }
                all |= 1 << t;
            }
            patterns.push(pattern);
        }
        if patterns.is_empty() {
            return Err(PatternError::Empty);
        }
        Ok(Partition {
            name: name.to_string(),
            groups: vec![patterns.len()],
            patterns,
        })
    }

    /// The number of patterns of each partition, in order (one entry unless
    /// this is a catalogue).
    pub fn groups(&self) -> &[usize] {
        &self.groups
    }

    /// The partitions of a catalogue (itself, for a partition), as the
    /// patterns of each.
    pub fn parts(&self) -> Vec<&[Pattern]> {
        let mut rest = &self.patterns[..];
        self.groups
            .iter()
            .map(|&n| {
                let (part, tail) = rest.split_at(n);
                rest = tail;
                part
            })
            .collect()
    }

    /// The partition's name (`7-8`, or the tile lists).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its patterns, disjoint within each partition, the partitions of a
    /// catalogue one after the other.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Each pattern once, in order of first appearance: the tables to build,
    /// list or map, when partitions of a catalogue share some.
    pub fn distinct_patterns(&self) -> Vec<&Pattern> {
        let mut distinct: Vec<&Pattern> = Vec::new();
        for pattern in &self.patterns {
            if !distinct.contains(&pattern) {
                distinct.push(pattern);
            }
        }
        distinct
    }

    /// Whether every partition holds every tile, so that the sum of each
    /// partition's Manhattan distances is the board's.
    pub fn covers_all_tiles(&self) -> bool {
        let cells = self.patterns[0].cells();
        self.parts()
            .iter()
            .all(|part| part.iter().map(|p| p.tiles.len()).sum::<usize>() == cells - 1)
    }
}

fn parse_tile_lists(text: &str) -> Result<Vec<(Vec<u8>, bool)>, PatternError> {
    text.split(';')
        .filter(|set| !set.trim().is_empty())
        .map(|set| {
            let set = set.trim();
            let (set, zero_aware) = match set.strip_prefix('z') {
                Some(rest) => (rest.trim_start_matches(':'), true),
                None => (set, false),
            };
            let tiles = set
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .map(|t| {
                    t.parse::<u8>().map_err(|_| PatternError::BadList {
                        text: t.to_string(),
                    })
                })
                .collect::<Result<Vec<u8>, PatternError>>()?;
            Ok((tiles, zero_aware))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn named_partitions_cover_the_board_for_both_goals() {
        for (size, name) in [
            (3, "8"),
            (3, "4-4"),
            (4, "7-8"),
            (4, "6-6-3"),
            (4, "5-5-5"),
            (4, "L7-8"),
            (4, "S7-8"),
            (4, "duo"),
            (4, "trio"),
            (5, "6-6-6-6"),
            (5, "B6-6-6-6"),
            (5, "duo"),
        ] {
            for goal in Goal::ALL {
                let p = Partition::parse(name, size, goal).unwrap();
                assert!(p.covers_all_tiles(), "{name} {goal}");
            }
        }
        let p = Partition::parse("7-8", 4, Goal::BlankLast).unwrap();
        assert_eq!(p.patterns()[0].tiles(), &[9, 10, 11, 12, 13, 14, 15]);
        assert_eq!(p.patterns()[1].tiles(), &[1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn zero_aware_marks_and_catalogues_parse() {
        let p = Partition::parse("7z-8", 4, Goal::BlankLast).unwrap();
        let zero_aware: Vec<bool> = p.patterns().iter().map(Pattern::is_zero_aware).collect();
        assert_eq!(zero_aware, [true, false]);
        assert_eq!(p.patterns()[0].tiles(), &[9, 10, 11, 12, 13, 14, 15]);
        // One entry per placement and region of the free cells (2.4 on average).
        assert_eq!(p.patterns()[0].entries(), 139_849_920);
        assert_eq!(p.patterns()[0].label(), "zero-aware-9.10.11.12.13.14.15");
        let list = Partition::parse("z1,2;3", 2, Goal::BlankLast).unwrap();
        assert!(list.patterns()[0].is_zero_aware() && !list.patterns()[1].is_zero_aware());
        let duo = Partition::parse("duo", 4, Goal::BlankLast).unwrap();
        assert_eq!(duo.groups(), &[2, 2]);
        assert_eq!(duo.parts()[1][0].tiles(), &[4, 8, 11, 12, 13, 14, 15]);
        assert!(duo.parts()[1][0].is_zero_aware());
        assert_eq!(duo.name(), "duo");
        let same = Partition::parse("7z-8+S7z-8", 4, Goal::BlankLast).unwrap();
        assert_eq!(same.patterns(), duo.patterns());
        let trio = Partition::parse("trio", 4, Goal::BlankLast).unwrap();
        assert_eq!(trio.groups(), &[2, 2, 2]);
        assert_eq!(trio.parts()[1][0].tiles(), &[1, 2, 3, 4, 5, 9, 13]);
        assert_eq!(trio.parts()[2][0].tiles(), &[4, 8, 11, 12, 13, 14, 15]);
        assert_eq!(trio.parts()[2][1].tiles(), &[1, 2, 3, 5, 6, 7, 9, 10]);
        assert!(trio.parts().iter().all(|part| part[0].is_zero_aware()));
        // Within a partition tiles may not repeat; across a catalogue they do.
        assert!(Partition::parse("7-8+1,2;2,3", 4, Goal::BlankLast).is_err());
        for bad in ["7zz-8", "z", "7-8+", "+", "7-8++6-6-3", "zz1,2"] {
            assert!(Partition::parse(bad, 4, Goal::BlankLast).is_err(), "{bad}");
        }
    }

    #[test]
    fn partition_errors_are_named() {
        let err = |s: &str| {
            Partition::parse(s, 4, Goal::BlankLast)
                .unwrap_err()
                .to_string()
        };
        assert!(err("9-9").contains("no partition named '9-9' for 4x4: use 7-8, L7-8, S7-8, 6-6-3"));
        assert!(err("1,2;2,3").contains("tile 2 is in more than one pattern"));
        assert!(err("1,16").contains("tile 16 is not a tile of this board"));
        assert!(err("1,x").contains("'x' is not a tile list"));
    }

    #[test]
    fn ranks_are_dense_and_invertible_for_small_patterns() {
        let p = Pattern::new(3, Goal::BlankLast, vec![3, 1, 8]).unwrap();
        assert_eq!(p.placements(), 9 * 8 * 7);
        let mut seen = vec![false; p.placements() as usize];
        let mut placement = [0u8; 3];
        for r in 0..p.placements() {
            p.unrank(r, &mut placement);
            assert_eq!(p.rank(&placement), r);
            assert!(!std::mem::replace(&mut seen[r as usize], true));
        }
    }

    proptest! {
        #[test]
        fn rank_inverts_unrank_on_big_patterns(rank in 0u64..518_918_400) {
            let p = Partition::parse("7-8", 4, Goal::BlankLast).unwrap().patterns()[1].clone();
            let mut placement = [0u8; 8];
            p.unrank(rank, &mut placement);
            let mut sorted = placement;
            sorted.sort();
            prop_assert!(sorted.windows(2).all(|w| w[0] < w[1]) && sorted[7] < 16);
            prop_assert_eq!(p.rank(&placement), rank);
        }
    }
}
