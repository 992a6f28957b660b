//! Beam search: the search itself (`search`), and what a board gets from
//! it (`frame_first`: the frame-weighted beams, repairs and fallbacks).

mod frame_first;
mod search;

pub use frame_first::{beam, beam_attempt, beam_over, beam_schedule};
