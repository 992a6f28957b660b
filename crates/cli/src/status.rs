//! The command's exit statuses.

/// Everything answered.
pub const EXIT_OK: u8 = 0;
/// A search failed (limit reached) or a board is unsolvable (`check`).
pub const EXIT_FAILED: u8 = 1;
/// Bad input (a board, a file, an argument).
pub const EXIT_BAD_INPUT: u8 = 2;
/// Ctrl-C stopped a `--checkpoint` search (its progress kept): 128 + SIGINT,
/// as a shell reports a process the signal ended.
pub const EXIT_INTERRUPTED: u8 = 130;
