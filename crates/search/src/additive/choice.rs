//! Which implementation of the additive heuristic a set of tables gets,
//! decided here alone: the strategies are tried fastest first and the first
//! that takes the set runs, in the smallest [`Capacity`] that holds it.
//! Every strategy gives the same estimate at every node (the agreement
//! tests hold each to [`Strategy::General`] node for node), so the choice
//! changes the time and never the answer or the node count.

use super::{Additive, AdditiveError, Compact, Huge, Large, Pair};
use super::{Capacity, Strategy};
use super::{COMPACT_GROUPS, COMPACT_PATTERNS, HUGE_GROUPS, HUGE_PATTERNS};
use super::{LARGE_GROUPS, LARGE_PATTERNS, MAX_GROUPS, MAX_PATTERNS, PAIR_PATTERNS};
use crate::additive::kept_indexes::KeptIndexes;
use crate::additive::prepared_ranks::PreparedRanks;
use crate::additive::tables_view::{TablesView, WithHeuristic};
use crate::additive::unrolled_partitions::UnrolledPartitions;

/// Runs `job` with `forced`'s heuristic, or else with the first strategy
/// that takes the set; returns the strategy that ran with the output.
pub(crate) fn run_chosen<D: AsRef<[u8]> + Sync, W: WithHeuristic>(
    set: &TablesView<'_, D>,
    forced: Option<Strategy>,
    job: W,
) -> Result<(Strategy, W::Output), AdditiveError> {
    let TablesView {
        grid,
        tables,
        groups,
        reflect,
    } = *set;
    let capacity = Capacity::for_tables(tables, groups)?;
    let order = match forced {
        Some(strategy) => vec![strategy],
        None => Strategy::ALL.to_vec(),
    };
    for strategy in order {
        macro_rules! run_if_taken {
            ($heuristic:expr) => {
                if let Some(heuristic) = $heuristic {
                    return Ok((strategy, job.run(grid, &heuristic)));
                }
            };
        }
        macro_rules! kept_indexes {
            ($p:expr, $g:expr) => {
                run_if_taken!(KeptIndexes::<{ $p }, { $g }>::new(set))
            };
        }
        macro_rules! general {
            ($heuristic:ty) => {{
                let heuristic = <$heuristic>::with_capacity(grid, tables, groups, reflect)?;
                return Ok((Strategy::General, job.run(grid, &heuristic)));
            }};
        }
        match (strategy, capacity) {
            (Strategy::PreparedRanks, Capacity::Pair) => {
                run_if_taken!(PreparedRanks::new(set))
            }
            (Strategy::PreparedRanks, _) => {}
            (Strategy::UnrolledPartitions, _) => match groups.len() {
                1 => run_if_taken!(UnrolledPartitions::<1>::new(set)),
                2 => run_if_taken!(UnrolledPartitions::<2>::new(set)),
                3 => run_if_taken!(UnrolledPartitions::<3>::new(set)),
                4 => run_if_taken!(UnrolledPartitions::<4>::new(set)),
                _ => {}
            },
            (Strategy::KeptIndexes, Capacity::Pair) => kept_indexes!(PAIR_PATTERNS, 1),
            // One sum per view: the loops over a tile's tables and over the
            // sums then fold away.
            (Strategy::KeptIndexes, Capacity::Compact) if groups.len() == 1 => {
                kept_indexes!(COMPACT_PATTERNS, 1)
            }
            (Strategy::KeptIndexes, Capacity::Compact) => {
                kept_indexes!(COMPACT_PATTERNS, COMPACT_GROUPS)
            }
            (Strategy::KeptIndexes, Capacity::Common) => kept_indexes!(MAX_PATTERNS, MAX_GROUPS),
            (Strategy::KeptIndexes, Capacity::Large) => kept_indexes!(LARGE_PATTERNS, LARGE_GROUPS),
            (Strategy::KeptIndexes, Capacity::Huge) => kept_indexes!(HUGE_PATTERNS, HUGE_GROUPS),
            (Strategy::General, Capacity::Pair) => general!(Pair<'_, D>),
            (Strategy::General, Capacity::Compact) => general!(Compact<'_, D>),
            (Strategy::General, Capacity::Common) => general!(Additive<'_, D>),
            (Strategy::General, Capacity::Large) => general!(Large<'_, D>),
            (Strategy::General, Capacity::Huge) => general!(Huge<'_, D>),
        }
    }
    Err(AdditiveError::NotTaken {
        strategy: forced.map_or("", Strategy::name),
    })
}
