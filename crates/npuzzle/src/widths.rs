//! Which beam widths a near-optimal answer runs: under a wall-clock budget,
//! narrow to the budget's width (the answer of the widest beam that
//! finished); given time for a shorter answer
//! ([`crate::SolverBuilder::anytime`]), wider ones after.

use npuzzle_board::clock::Instant;
use std::time::Duration;

use npuzzle_search::{Deadline, Incomplete, SearchError, Solution};

use crate::policy::{ANYTIME_BEAM_BYTES, MIN_BEAM_WIDTH};

/// One beam of the given width, within its share of the budget's nodes
/// and, when one is given, a node cap; cut at the search's deadline, or
/// at the one given.
pub(crate) type OneBeam<'a> =
    &'a dyn Fn(usize, Option<u64>, Option<Deadline>) -> Result<Solution, SearchError>;

/// The narrowest beam of [`widening`], in halvings of the full width.
const WIDENING_STEPS: u32 = 4;

/// Beams from a sixteenth of `width` up to `width`, each twice as wide as
/// the last (together at most twice the time of the widest), until the
/// `deadline` passes; returns the shortest answer, its beam's width and
/// the nodes every beam expanded (one that found nothing at its limit). A
/// narrow beam that finds nothing leaves it to the wider ones; with no
/// answer at all, the last beam's error stands. With `max_nodes`, the
/// beams together expand at most that many nodes.
pub(crate) fn widening(
    one_beam: OneBeam,
    width: usize,
    deadline: &Deadline,
    max_nodes: Option<u64>,
) -> (Result<Solution, SearchError>, usize, u64) {
    let mut best: Option<(Solution, usize)> = None;
    let mut expanded = 0;
    // Every beam's nodes, one that found nothing at its limit.
    let mut spent = 0u64;
    // Halvings of `width` from the narrowest, so that the last is `width`.
    let mut halvings = WIDENING_STEPS;
    let mut beam_width = (width >> halvings).max(MIN_BEAM_WIDTH).min(width);
    let last_error = loop {
        let cap = max_nodes.map(|max_nodes| max_nodes.saturating_sub(spent));
        if cap == Some(0) {
            break None;
        }
        match one_beam(beam_width, cap, None) {
            Ok(found) => {
                expanded += found.stats.expanded;
                spent += found.stats.expanded;
                if best
                    .as_ref()
                    .is_none_or(|(kept, _)| found.moves.len() < kept.moves.len())
                {
                    best = Some((found, beam_width));
                }
            }
            // A beam that found nothing in its nodes or time: the best so
            // far stands, or a wider beam may yet answer.
            Err(SearchError::Incomplete(Incomplete::NodeLimit { limit, .. }))
                if best.is_some() || (beam_width < width && !deadline.passed()) =>
            {
                spent += limit;
            }
            Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) if best.is_some() => {}
            Err(e) => break Some(e),
        }
        if deadline.passed() || beam_width >= width {
            break None;
        }
        while halvings > 0 && width >> halvings <= beam_width {
            halvings -= 1;
        }
        beam_width = (width >> halvings).max(MIN_BEAM_WIDTH).min(width);
    };
    let found = match (best, last_error) {
        (_, Some(e)) => (Err(e), width),
        (Some((mut found, width)), None) => {
            found.stats.expanded = expanded;
            (Ok(found), width)
        }
        (None, None) => (
            Err(SearchError::Incomplete(Incomplete::TimeLimit {
                budget: deadline.budget(),
            })),
            width,
        ),
    };
    (found.0, found.1, spent)
}

/// What the beams past the budget's width did for an answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Improvement {
    /// The length and width of the budget's answer.
    pub first: (usize, usize),
    /// Beams run past it, and the widest of them.
    pub beams: usize,
    pub widest: usize,
    /// Wall-clock time of every beam, the budget's included.
    pub searched: Duration,
    /// The node limit, not the time, ended the beams.
    pub out_of_nodes: bool,
    /// The stop flag ended them before the time was up.
    pub stopped: bool,
}

impl Improvement {
    /// The note's words for it, `length` being the answer's.
    pub(crate) fn describe(&self, length: usize, width: usize, budget: Duration) -> String {
        let (first, first_width) = self.first;
        let searched = format!("{:.1}", self.searched.as_secs_f64());
        let budget = npuzzle_search::seconds_text(budget);
        let ended = if self.stopped {
            "; stopped before the time was up"
        } else if self.out_of_nodes {
            "; the node limit ended it"
        } else {
            ""
        };
        let beams = match self.beams {
            1 => "1 more beam".to_string(),
            n => format!("{n} more beams"),
        };
        if length < first {
            format!(
                "beam searched {searched} s of the {budget} s given: {first} moves at width \
                 {first_width}, then {beams} up to width {}; the shortest, {length} moves \
                 ({} fewer), at width {width}{ended}",
                self.widest,
                first - length
            )
        } else if self.beams == 0 {
            let left = if self.stopped {
                "it was stopped first"
            } else if self.out_of_nodes {
                "the node limit left no room"
            } else {
                "no time was left"
            };
            format!(
                "beam searched {searched} s of the {budget} s given: {first} moves at width \
                 {first_width}, and {left} for a wider beam"
            )
        } else {
            format!(
                "beam searched {searched} s of the {budget} s given: {first} moves at width \
                 {first_width}, then {beams} up to width {} found none shorter{ended}",
                self.widest
            )
        }
    }
}

/// The answer the search gives without time for a shorter one (one beam
/// of `width`, or under the search's own `deadline` the beams of
/// [`widening`]), then beams twice as wide each, up to what
/// [`ANYTIME_BEAM_BYTES`] of history holds, each sized to finish within
/// what is left of `anytime` (a beam's time grows with its width) and cut
/// at it; the shortest answer stands, so it is never longer than the one
/// without. Answers are chaotic in the width, so when the doubling would
/// not finish in time, the widest beam that would is tried, if it differs
/// from every beam run so far. With `max_nodes`, the beams together
/// expand at most that many nodes.
pub(crate) fn improving(
    one_beam: OneBeam,
    width: usize,
    deadline: Option<&Deadline>,
    anytime: &Deadline,
    max_nodes: Option<u64>,
) -> (Result<Solution, SearchError>, usize, Option<Improvement>) {
    let started = Instant::now();
    // Nodes spent, a beam that found nothing at its limit; and the sum of
    // the widths run, which the time is spread over.
    let (first, first_width, mut spent, widths_run) = match deadline {
        Some(deadline) => {
            let (found, width, spent) = widening(one_beam, width, deadline, max_nodes);
            // A sixteenth of the width doubling to it: 1.94 widths.
            (found, width, spent, 1.94 * width as f64)
        }
        None => {
            let found = one_beam(width, None, None);
            let spent = match &found {
                Ok(found) => found.stats.expanded,
                Err(SearchError::Incomplete(Incomplete::NodeLimit { limit, .. })) => *limit,
                Err(_) => 0,
            };
            (found, width, spent, width as f64)
        }
    };
    let Ok(mut best) = first else {
        return (first, first_width, None);
    };
    let mut best_width = first_width;
    let mut improvement = Improvement {
        first: (best.moves.len(), first_width),
        beams: 0,
        widest: first_width,
        searched: started.elapsed(),
        out_of_nodes: false,
        stopped: false,
    };
    // The time of a beam per unit of width, from the last that finished.
    let mut seconds_per_width = improvement.searched.as_secs_f64() / widths_run.max(1.0);
    let mut tried = vec![first_width];
    while !anytime.passed() && best.moves.len() > 1 {
        let max_width = (ANYTIME_BEAM_BYTES / (8 * best.moves.len() as u64)) as usize;
        let widest = improvement.widest;
        let doubled = (widest * 2).min(max_width);
        // A beam expands at most its width a level: past the levels of
        // the answer to beat, it cannot beat it.
        let length = best.moves.len() as u64;
        let nodes_left = max_nodes.map_or(u64::MAX, |max_nodes| max_nodes.saturating_sub(spent));
        let affordable = (nodes_left / length).min(usize::MAX as u64) as usize;
        // 80 % of what is left: a beam's time is close to linear in its
        // width, but not exactly.
        let left = anytime.remaining().as_secs_f64();
        let fits = (0.8 * left / seconds_per_width.max(1e-12)) as usize;
        let next = doubled.min(affordable).min(fits);
        // A width within a tenth of one run gives much the same answer.
        let new = |w: usize| tried.iter().all(|&t| w.abs_diff(t) * 10 > t);
        if next < first_width || !new(next) {
            improvement.out_of_nodes = affordable < doubled.min(fits);
            break;
        }
        let limit = (next as u64).saturating_mul(length).min(nodes_left);
        let beam_started = Instant::now();
        let found = one_beam(next, Some(limit), Some(*anytime));
        improvement.beams += 1;
        improvement.widest = widest.max(next);
        tried.push(next);
        match found {
            Ok(found) => {
                seconds_per_width = beam_started.elapsed().as_secs_f64() / next as f64;
                spent += found.stats.expanded;
                best.stats.expanded += found.stats.expanded;
                if found.moves.len() < best.moves.len() {
                    let expanded = best.stats.expanded;
                    best = found;
                    best.stats.expanded = expanded;
                    best_width = next;
                }
            }
            // No shorter answer within its levels, or cut by the time.
            Err(SearchError::Incomplete(Incomplete::NodeLimit { limit, .. })) => {
                spent += limit;
                seconds_per_width =
                    seconds_per_width.max(beam_started.elapsed().as_secs_f64() / next as f64);
            }
            Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) => {}
            // Stopped: the best answer so far stands.
            Err(SearchError::Incomplete(Incomplete::Stopped)) => {
                improvement.stopped = true;
                break;
            }
            Err(e) => return (Err(e), next, None),
        }
    }
    improvement.searched = started.elapsed();
    (Ok(best), best_width, Some(improvement))
}

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
