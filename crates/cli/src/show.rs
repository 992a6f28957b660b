//! Watching a solution: an animated SVG, and playback in the terminal.

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use npuzzle_board::{Board, Move, Notation};

/// Pixels per cell of the SVG.
const CELL: usize = 64;
/// Seconds per move in the SVG.
const STEP_SECONDS: f64 = 0.35;
/// Seconds the start position is shown before the first move.
const HOLD_START_SECONDS: f64 = 1.0;
/// Seconds the goal is shown before the loop starts over.
const HOLD_END_SECONDS: f64 = 1.5;
/// Pixels of the move counter's bar under the board.
const BAR: usize = 40;
/// The most (tile, step) pairs an SVG may animate before it gets unwieldy.
pub const MAX_SVG_KEYFRAMES: usize = 4_000_000;

/// A self-contained SVG that plays the solution in any browser (SMIL
/// animation, no script): the start position held for a moment, each tile
/// sliding along its positions one keyframe per move under a move counter,
/// then the goal held before the loop starts over.
pub fn svg(board: &Board, moves: &[Move]) -> Result<String, String> {
    let n = board.size();
    let tiles = n * n - 1;
    if tiles * (moves.len() + 1) > MAX_SVG_KEYFRAMES {
        return Err(format!(
            "an SVG of {} moves on a {n}x{n} board would be too large to play; use `npuzzle play`",
            moves.len()
        ));
    }
    let boards = board.replay(moves).map_err(|e| e.to_string())?;
    // Where each tile is after each move.
    let mut track: Vec<Vec<usize>> = vec![Vec::with_capacity(boards.len()); n * n];
    for b in &boards {
        for (cell, &t) in b.tiles().iter().enumerate() {
            track[t as usize].push(cell);
        }
    }
    let duration = HOLD_START_SECONDS + moves.len() as f64 * STEP_SECONDS + HOLD_END_SECONDS;
    // When move `i` (1-based) starts; move `i` ends when move `i + 1` starts.
    let move_starts: Vec<f64> = (1..=moves.len() + 1)
        .map(|i| (HOLD_START_SECONDS + (i - 1) as f64 * STEP_SECONDS) / duration)
        .collect();
    // Keyframes: the start, held; the end of each move; the goal, held.
    let mut key_times = vec![0.0];
    key_times.extend(&move_starts);
    key_times.push(1.0);
    let key_times = join_times(&key_times);
    let size = n * CELL;
    let height = size + BAR;
    let font = CELL * 4 / 10;
    let mut out = String::new();
    out.push_str(&format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n\
         <title>npuzzle: {moves} moves for {board}</title>\n\
         <desc>Moves (tile direction): {letters}</desc>\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"#2b2d42\"/>\n",
        w = size,
        h = height,
        moves = moves.len(),
        board = board,
        letters = Move::format_sequence(moves, Notation::Tile),
    ));
    for (tile, cells) in track.iter().enumerate().skip(1) {
        let at = |cell: usize| format!("{},{}", (cell % n) * CELL, (cell / n) * CELL);
        let mut values = vec![at(cells[0])];
        values.extend(cells.iter().map(|&c| at(c)));
        values.push(at(*cells.last().expect("every board has every tile")));
        out.push_str(&format!(
            "<g transform=\"translate({first})\">\
             <rect x=\"2\" y=\"2\" width=\"{inner}\" height=\"{inner}\" rx=\"8\" fill=\"#edf2f4\" stroke=\"#8d99ae\" stroke-width=\"2\"/>\
             <text x=\"{mid}\" y=\"{mid}\" font-family=\"sans-serif\" font-size=\"{font}\" font-weight=\"bold\" fill=\"#2b2d42\" \
             text-anchor=\"middle\" dominant-baseline=\"central\">{tile}</text>\
             <animateTransform attributeName=\"transform\" type=\"translate\" dur=\"{duration:.2}s\" repeatCount=\"indefinite\" \
             keyTimes=\"{key_times}\" values=\"{values}\"/></g>\n",
            first = at(cells[0]),
            inner = CELL - 4,
            mid = CELL / 2,
            values = values.join(";"),
        ));
    }
    // The counter: one caption per stage, each shown only during its stage.
    let total = moves.len();
    let captions = (0..=total).map(|i| match i {
        0 if total == 0 => "already solved".to_string(),
        0 => format!("start: {total} moves to go"),
        i => {
            let tile = boards[i - 1].tiles()[boards[i].blank()];
            let done = if i == total { ": solved" } else { "" };
            format!(
                "move {i}/{total}: {tile} {}{done}",
                moves[i - 1].letter(Notation::Tile)
            )
        }
    });
    let baseline = size + BAR / 2;
    for (i, caption) in captions.enumerate() {
        // Discrete visibility: hidden until the stage starts, hidden again
        // when the next one starts.
        let shown = if total == 0 {
            String::new()
        } else {
            let (values, times) = match i {
                0 => ("visible;hidden", join_times(&[0.0, move_starts[0]])),
                i if i == total => ("hidden;visible", join_times(&[0.0, move_starts[i - 1]])),
                i => (
                    "hidden;visible;hidden",
                    join_times(&[0.0, move_starts[i - 1], move_starts[i]]),
                ),
            };
            format!(
                "<animate attributeName=\"visibility\" calcMode=\"discrete\" dur=\"{duration:.2}s\" \
                 repeatCount=\"indefinite\" keyTimes=\"{times}\" values=\"{values}\"/>"
            )
        };
        let initial = if i == 0 { "visible" } else { "hidden" };
        out.push_str(&format!(
            "<text class=\"counter\" x=\"{x}\" y=\"{baseline}\" visibility=\"{initial}\" font-family=\"sans-serif\" \
             font-size=\"{font}\" fill=\"#edf2f4\" text-anchor=\"middle\" dominant-baseline=\"central\">{caption}{shown}</text>\n",
            x = size / 2,
            font = BAR * 2 / 5,
        ));
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// Key times as SMIL wants them: fractions of the duration, `;`-separated.
fn join_times(times: &[f64]) -> String {
    let parts: Vec<String> = times.iter().map(|t| format!("{t:.5}")).collect();
    parts.join(";")
}

/// Plays the solution in the terminal: the board drawn in a grid and
/// redrawn in place, the tile that just moved highlighted and named in the
/// caption ("move 12/14: 6 L"), the last frame saying it is solved. To a
/// pipe or file, the frames follow each other plainly. Ctrl-C ends it (the
/// terminal's modes are never changed, so nothing needs restoring).
pub fn play(
    board: &Board,
    moves: &[Move],
    delay: Duration,
    out: &mut impl Write,
) -> io::Result<()> {
    let terminal = io::stdout().is_terminal();
    let width = (board.tiles().len() - 1).to_string().len();
    let n = board.size();
    let clear_line = if terminal { "\x1b[K" } else { "" };
    let rule = format!("+{}", format!("{}+", "-".repeat(width + 2)).repeat(n));
    // One board at a time: a solution of millions of moves plays in the
    // memory of one board.
    let mut walk = board.walk(moves);
    let mut moved = None;
    loop {
        let step = walk.step();
        if terminal && step > 0 {
            // Back to the top of the previous frame.
            write!(out, "\x1b[{}A", 2 * n + 2)?;
        }
        let caption = match (step, moved) {
            (0, _) if moves.is_empty() => "already solved".to_string(),
            (0, _) => format!("start: {} moves to go", moves.len()),
            (_, tile) => format!(
                "move {step}/{}: {} {}{}",
                moves.len(),
                tile.unwrap_or_default(),
                moves[step - 1].letter(Notation::Tile),
                if step == moves.len() { " - solved" } else { "" }
            ),
        };
        writeln!(out, "{caption}{clear_line}")?;
        writeln!(out, "{rule}{clear_line}")?;
        for row in walk.board().tiles().chunks(n) {
            let mut line = String::from("|");
            for &t in row {
                let text = if t == 0 {
                    " ".repeat(width)
                } else {
                    format!("{t:>width$}")
                };
                if terminal && Some(t) == moved {
                    line.push_str(&format!(" \x1b[7m{text}\x1b[0m |"));
                } else {
                    line.push_str(&format!(" {text} |"));
                }
            }
            writeln!(out, "{line}{clear_line}")?;
            writeln!(out, "{rule}{clear_line}")?;
        }
        if !terminal {
            writeln!(out)?;
        }
        out.flush()?;
        moved = match walk.advance().map_err(io::Error::other)? {
            Some(tile) => Some(tile),
            None => break,
        };
        if terminal {
            std::thread::sleep(delay);
        }
    }
    Ok(())
}
