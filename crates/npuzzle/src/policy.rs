//! The limits of the policy every door follows: how far an optimal search
//! goes on a board without tables, and which boards the beam takes.

/// Expanded nodes an optimal search may take on a board that has no tables
/// before it gives way to the reduction (a second or two on one core).
pub const OPTIMAL_ATTEMPT_NODES: u64 = 3_000_000;

/// Boards whose lower bound is at most this get an optimal attempt before
/// the beam on sides without optimal tables: past it an attempt of
/// [`OPTIMAL_ATTEMPT_NODES`] essentially never finishes (random 5x5
/// boards bound about 100, their optimal lengths about 25 more).
pub const OPTIMAL_ATTEMPT_MAX_BOUND: u64 = 50;

/// The largest side the beam takes. Up to 8x8 a beam with linear
/// conflict backs up the frame-weighted one; on 9x9 and 10x10 the
/// reduction finishes where the frame-weighted beam stalls (2.0 against
/// the reduction's 2.45 times Manhattan on 10x10). Past 10x10 a beam as
/// wide as the budget affords costs more than a board's 10 s.
pub const BEAM_MAX_SIZE: usize = 10;

/// The widest beam: past it, answers gain under 1 % (docs/experiments.md).
pub const MAX_BEAM_WIDTH: u64 = 50_000;

/// How many hundredths of the effort's beam budget (and [`MAX_BEAM_WIDTH`]) a
/// default beam over a side's tables gets. At the base budget one board
/// took 1.75 s on 2 cores over the 6x6 tables and 4.3 s (worst 5.8 s)
/// over the 7x7 tables (DeepCubeA's first ten boards), of the 10 s a
/// board has; each tripling of the width answers about 2 % shorter
/// (docs/experiments.md). Over the 7x7 tables half again gained 0.3 %
/// on those boards, for a worst board of 6 s: not taken.
pub fn tables_beam_percent(side: usize) -> u64 {
    match side {
        6 => 250,
        _ => 100,
    }
}

/// The history a beam widened for a shorter answer may keep (8 bytes a
/// board for each level, [`crate::SolverBuilder::anytime`]): a beam of a
/// million boards on 6x6, half that on 7x7, with its two levels of tiles
/// about 1.5 GB in all.
pub const ANYTIME_BEAM_BYTES: u64 = 1 << 30;

/// The narrowest beam tried: narrower ones wander on 7x7 and 8x8 (a beam
/// of 350 on 7x7 found nothing on 77 boards of 100), so the reduction
/// answers at once.
pub const MIN_BEAM_WIDTH: usize = 500;

/// Expanded nodes a check (`npuzzle serve`'s `/api/check`, the browser
/// engine's `check`) spends looking for a board's exact distance: a
/// fraction of a second, so the coach answers every move at once.
pub const CHECK_NODES: u64 = 200_000;
