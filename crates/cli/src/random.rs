//! `npuzzle random`: uniformly random solvable boards.

use std::io::{self, Write};

use npuzzle_board::{random_board, SplitMix64};

use crate::args::RandomArgs;
use crate::status::{EXIT_BAD_INPUT, EXIT_OK};

/// Prints `--count` boards of `--size` from `--seed` (default: the clock).
pub fn run(args: &RandomArgs, out: &mut impl Write) -> io::Result<u8> {
    if !(npuzzle_board::MIN_SIZE..=npuzzle_board::MAX_SIZE).contains(&args.size) {
        eprintln!(
            "npuzzle: --size {} is out of range: n must be from {} to {}",
            args.size,
            npuzzle_board::MIN_SIZE,
            npuzzle_board::MAX_SIZE
        );
        return Ok(EXIT_BAD_INPUT);
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    });
    let mut rng = SplitMix64::new(seed);
    for _ in 0..args.count {
        let board = random_board(args.size, args.goal.goal(), &mut rng);
        let line: Vec<String> = board.tiles().iter().map(u16::to_string).collect();
        writeln!(out, "{}", line.join(" "))?;
    }
    Ok(EXIT_OK)
}
