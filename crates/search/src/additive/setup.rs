//! Checking the tables and laying out what lookups need.

use super::*;

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
        if pdbs.is_empty() {
            return Err(AdditiveError::NoTables);
        }
        // Tables of the same pattern (one file opened for two partitions)
        // are one table here: `first_slot` holds the first slot of each
        // distinct table, `table_of` each slot's distinct table.
        let mut first_slot: Vec<usize> = Vec::new();
        let mut table_of: Vec<usize> = Vec::with_capacity(pdbs.len());
        for (s, pdb) in pdbs.iter().enumerate() {
            match first_slot
                .iter()
                .position(|&f| pdbs[f].pattern() == pdb.pattern())
            {
                Some(p) => table_of.push(p),
                None => {
                    table_of.push(first_slot.len());
                    first_slot.push(s);
                }
            }
        }
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
        let grouped: usize = groups.iter().sum();
        if grouped != pdbs.len() || groups.contains(&0) {
            return Err(AdditiveError::BadGroups {
                tables: pdbs.len(),
                grouped,
            });
        }
        let mut group_of = vec![0u8; pdbs.len()];
        let mut first = 0;
        for (g, &size) in groups.iter().enumerate() {
            group_of[first..first + size].fill(g as u8);
            first += size;
        }
        let n = grid.n;
        let goal = grid.goal;
        let mut seen = [[false; 256]; G];
        for (p, pdb) in pdbs.iter().enumerate() {
            let seen = &mut seen[group_of[p] as usize];
            let pattern = pdb.pattern();
            if (pattern.size(), pattern.goal()) != (n, goal) {
                return Err(AdditiveError::WrongPuzzle {
                    table: (pattern.size(), pattern.goal()),
                    board: (n, goal),
                });
            }
            if pattern.tiles().len() > MAX_PATTERN_TILES {
                return Err(AdditiveError::TooManyTiles {
                    tiles: pattern.tiles().len(),
                });
            }
            if pdb.header().entries() > 1 << 32 {
                return Err(AdditiveError::TooManyEntries {
                    entries: pdb.header().entries(),
                });
            }
            for &tile in pattern.tiles() {
                if std::mem::replace(&mut seen[tile as usize], true) {
                    return Err(AdditiveError::Overlap { tile });
                }
            }
        }
        let mut transpose = [0u8; 256];
        for (cell, t) in transpose.iter_mut().enumerate().take(n * n) {
            *t = ((cell % n) * n + cell / n) as u8;
        }
        // The mirror image of tile t: the tile whose goal cell is the mirror
        // of t's goal cell.
        let mirror_tile =
            |t: u8| goal.tile_at(n, transpose[goal.cell_of(n, t as u16)] as usize) as u8;
        let mut member = [[NOWHERE; 256]; G];
        let mut mirror_member = [[NOWHERE; 256]; G];
        for (s, pdb) in pdbs.iter().enumerate() {
            let (g, p) = (group_of[s] as usize, table_of[s] as u8);
            let tiles = pdb.pattern().tiles();
            for (slot, &t) in tiles.iter().enumerate() {
                member[g][t as usize] = Membership {
                    pattern: p,
                    slot: slot as u8,
                };
                // Mirror images pair up (the map is its own inverse).
                mirror_member[g][mirror_tile(t) as usize] = Membership {
                    pattern: p,
                    slot: slot as u8,
                };
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
            let mirror_sources: Vec<u8> = tiles.iter().map(|&q| mirror_tile(q)).collect();
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
                .map(|(&p, &g)| (g, p as u8))
                .collect(),
            member,
            mirror_member,
            transpose,
            reflect,
        })
    }
}
