//! The bench's own checks of an answer: Manhattan distance, and a replay
//! apart from the program's.

/// The Manhattan distance of a board given as tiles, for the goal named.
pub fn manhattan(tiles: &[u64], blank_first: bool) -> u64 {
    let n = (tiles.len() as f64).sqrt().round() as u64;
    tiles
        .iter()
        .enumerate()
        .filter(|(_, &t)| t != 0)
        .map(|(cell, &t)| {
            let home = if blank_first { t } else { t - 1 };
            let cell = cell as u64;
            (cell / n).abs_diff(home / n) + (cell % n).abs_diff(home % n)
        })
        .sum()
}

/// Whether `moves` (the direction each tile slides, `--notation tile`)
/// are legal on `tiles` and end at the goal: the bench's own replay,
/// apart from the program's.
pub fn replays(tiles: &[u64], moves: &str, blank_first: bool) -> bool {
    let n = (tiles.len() as f64).sqrt().round() as usize;
    let mut tiles = tiles.to_vec();
    let Some(mut blank) = tiles.iter().position(|&t| t == 0) else {
        return false;
    };
    for letter in moves.chars() {
        // The tile slides towards the blank, so the blank goes the other way.
        let (row, column) = (blank / n, blank % n);
        let next = match letter {
            'U' if row + 1 < n => blank + n,
            'D' if row > 0 => blank - n,
            'L' if column + 1 < n => blank + 1,
            'R' if column > 0 => blank - 1,
            _ => return false,
        };
        tiles.swap(blank, next);
        blank = next;
    }
    let cells = tiles.len() as u64;
    tiles.iter().enumerate().all(|(cell, &tile)| {
        let expected = if blank_first {
            cell as u64
        } else {
            (cell as u64 + 1) % cells
        };
        tile == expected
    })
}
