//! Checking the tables and laying out what lookups need.

use super::*;
use crate::additive::geometry::{CheckedSet, Reflection};

impl<'a, D: AsRef<[u8]> + Sync> Additive<'a, D> {
    /// Checks that the tables are disjoint patterns of `grid`'s size and
    /// goal, few and small enough for the search state, so that their sum is
    /// admissible and every rank fits.
    pub fn new(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        reflect: bool,
    ) -> Result<Additive<'a, D>, AdditiveError> {
        Additive::with_groups(grid, pdbs, &[pdbs.len()], reflect)
    }

    /// A catalogue: the tables are `groups.len()` partitions in a row, of
    /// `groups[i]` tables each; the heuristic is the largest partition sum.
    /// Within a partition the patterns must be disjoint. At most
    /// `MAX_PATTERNS` distinct tables in `MAX_GROUPS` partitions.
    pub fn with_groups(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        groups: &[usize],
        reflect: bool,
    ) -> Result<Additive<'a, D>, AdditiveError> {
        Additive::build(grid, pdbs, groups, reflect)
    }
}

impl<'a, D: AsRef<[u8]> + Sync, const P: usize, const G: usize> Additive<'a, D, P, G> {
    /// `with_groups` for up to `P` distinct tables in up to `G` partitions
    /// (the aliases `Pair`, `Compact`, `Additive` and `Large` name the
    /// capacities the solver uses).
    pub fn with_capacity(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        groups: &[usize],
        reflect: bool,
    ) -> Result<Additive<'a, D, P, G>, AdditiveError> {
        Additive::build(grid, pdbs, groups, reflect)
    }

    pub(super) fn build(
        grid: &Grid,
        pdbs: &'a [Pdb<D>],
        groups: &[usize],
        reflect: bool,
    ) -> Result<Additive<'a, D, P, G>, AdditiveError> {
        let CheckedSet {
            distinct: first_slot,
            table_of,
            group_of,
        } = CheckedSet::check(grid, pdbs, groups)?;
        if first_slot.len() > P {
            return Err(AdditiveError::TooManyPatterns {
                count: first_slot.len(),
                most: P,
            });
        }
        if groups.len() > G {
            return Err(AdditiveError::TooManyPartitions {
                count: groups.len(),
                most: G,
            });
        }
        let reflection = Reflection::new(grid);
        let mut member = [[NOWHERE; 256]; G];
        let mut mirror_member = [[NOWHERE; 256]; G];
        for (s, pdb) in pdbs.iter().enumerate() {
            let (g, p) = (group_of[s], table_of[s] as u8);
            for (slot, &t) in pdb.pattern().tiles().iter().enumerate() {
                let membership = Membership {
                    pattern: p,
                    slot: slot as u8,
                };
                member[g][t as usize] = membership;
                mirror_member[g][reflection.tile(t) as usize] = membership;
            }
        }
        let mut tables = Vec::new();
        for &s in &first_slot {
            let pdb = &pdbs[s];
            let pattern = pdb.pattern();
            let tiles = pattern.tiles().to_vec();
            let mut weights = [0u64; MAX_PATTERN_TILES + 1];
            for (slot, weight) in weights.iter_mut().enumerate().take(tiles.len()) {
                *weight = pattern.ranker().weight(slot);
            }
            let [_, mirror_sources] = reflection.sources(&tiles);
            let mut slot_of = [[NO_SLOT; 256]; 2];
            for (slot, (&tile, &source)) in tiles.iter().zip(&mirror_sources).enumerate() {
                slot_of[0][tile as usize] = slot as u8;
                slot_of[1][source as usize] = slot as u8;
            }
            tables.push(Table {
                pdb,
                entries: pdb.table(),
                nibbles: pdb.encoding() == Encoding::NibbleExcess,
                free_cells: if pattern.index_scheme() == IndexScheme::PlacementAndCell {
                    pattern.free_cells() as u32
                } else {
                    0
                },
                regions: pdb.regions(),
                tiles,
                mirror_sources,
                weights,
                slot_of,
            });
        }
        let prefetched = tables
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                t.entries.len() >= PREFETCH_MIN_BYTES && t.regions.is_none() && t.free_cells == 0
            })
            .fold(0, |bits, (p, _)| bits | 1 << p);
        Ok(Additive {
            prefetched,
            grid: grid.clone(),
            tables,
            groups: groups.len(),
            slots: table_of
                .iter()
                .zip(&group_of)
                .map(|(&p, &g)| (g as u8, p as u8))
                .collect(),
            member,
            mirror_member,
            transpose: reflection.cells(),
            reflect,
        })
    }
}
