//! A table's whole file image, built: the generator's values encoded
//! under their header.

use std::sync::atomic::AtomicBool;

use npuzzle_board::clock::Instant;

use crate::format::{self, BuildInfo, Header};
use crate::generate;
use crate::pattern::{IndexScheme, Pattern};

/// Builds the table of `pattern` on the current rayon pool and returns the
/// whole file image (header and table), ready to be written or used.
pub fn build_file(
    pattern: &Pattern,
    threads: u32,
    on_level: impl Fn(&generate::Level) + Sync,
) -> Result<Vec<u8>, generate::BuildError> {
    build_file_until(pattern, threads, on_level, &AtomicBool::new(false))
}

/// [`build_file`] that stops soon after `stop` is set
/// ([`generate::build_until`]).
pub fn build_file_until(
    pattern: &Pattern,
    threads: u32,
    on_level: impl Fn(&generate::Level) + Sync,
    stop: &AtomicBool,
) -> Result<Vec<u8>, generate::BuildError> {
    let started = Instant::now();
    let built = generate::build_until(pattern, on_level, stop)?;
    let (encoding, table) = format::encode_table(pattern, built.values);
    let header = Header {
        version: match pattern.index_scheme() {
            IndexScheme::Placement => format::FORMAT_VERSION,
            IndexScheme::PlacementAndCell => format::FORMAT_VERSION_ZERO_AWARE,
            IndexScheme::PlacementAndRegion => format::FORMAT_VERSION_REGIONS,
        },
        pattern: pattern.clone(),
        encoding,
        max_value: built.max_value,
        entries: pattern.entries(),
        table_len: table.len() as u64,
        table_offset: format::HEADER_LEN as u64,
        table_crc: format::table_crc(&table),
        build: BuildInfo {
            states: built.states,
            successors: built.successors,
            milliseconds: started.elapsed().as_millis() as u64,
            threads,
            generator: concat!("npuzzle ", env!("CARGO_PKG_VERSION")).to_string(),
        },
    };
    let mut file = header.to_bytes();
    file.extend_from_slice(&table);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::PdbError;
    use crate::pattern::PatternError;
    use crate::table::Pdb;
    use npuzzle_board::{Board, Goal};
    use std::collections::{HashMap, VecDeque};

    /// The complete 8-puzzle table holds every board's true distance.
    #[test]
    fn complete_3x3_table_equals_true_distances() {
        for goal in Goal::ALL {
            let pattern = Pattern::new(3, goal, (1..9).collect()).unwrap();
            let pdb = Pdb::from_bytes(build_file(&pattern, 1, |_| {}).unwrap()).unwrap();
            pdb.verify().unwrap();
            let start = goal.board(3);
            let mut distance = HashMap::from([(start.clone(), 0u32)]);
            let mut queue = VecDeque::from([start]);
            while let Some(board) = queue.pop_front() {
                let d = distance[&board];
                assert_eq!(pdb.lookup(&board).unwrap(), d, "{board}");
                for m in board.legal_moves().collect::<Vec<_>>() {
                    let mut next = board.clone();
                    next.apply(m);
                    distance.entry(next.clone()).or_insert_with(|| {
                        queue.push_back(next);
                        d + 1
                    });
                }
            }
            assert_eq!(distance.len(), 181_440);
            assert_eq!(pdb.header().max_value, 31);
            // The other half of the permutations is never reached.
            let unsolvable = Board::from_tiles(vec![2, 1, 3, 4, 5, 6, 7, 8, 0]).unwrap();
            let pattern_cells: Vec<u8> = (1..9u16)
                .map(|t| unsolvable.tiles().iter().position(|&x| x == t).unwrap() as u8)
                .collect();
            assert!(pdb.is_unreached(pattern.rank(&pattern_cells)) != unsolvable.is_solvable(goal));
        }
    }

    #[test]
    fn histogram_counts_every_placement_once() {
        for tiles in [vec![1, 2, 3, 4], vec![8, 5, 2]] {
            for scheme in [
                IndexScheme::Placement,
                IndexScheme::PlacementAndCell,
                IndexScheme::PlacementAndRegion,
            ] {
                let pattern = Pattern::new(3, Goal::BlankFirst, tiles.clone())
                    .unwrap()
                    .with_index_scheme(scheme)
                    .unwrap();
                let pdb = Pdb::from_bytes(build_file(&pattern, 1, |_| {}).unwrap()).unwrap();
                // Each entry once, found from its placement and a blank cell
                // of its region.
                let mut seen = vec![false; pdb.header().entries as usize];
                let mut expected = vec![0u64; 256];
                let mut placement = vec![0u8; pattern.tiles().len()];
                for rank in 0..pattern.placements() {
                    pattern.unrank(rank, &mut placement);
                    for blank in (0..9u8).filter(|c| !placement.contains(c)) {
                        let index = pdb.index(&placement, blank);
                        if std::mem::replace(&mut seen[index as usize], true) {
                            continue;
                        }
                        let value = if pdb.is_unreached(index) {
                            255
                        } else {
                            pdb.value_with_manhattan(index, pattern.manhattan(&placement)) as usize
                        };
                        expected[value] += 1;
                    }
                }
                assert!(seen.iter().all(|&s| s));
                assert_eq!(pdb.histogram(), expected, "{pattern} {scheme:?}");
            }
        }
    }

    #[test]
    fn oversized_patterns_are_refused_before_any_allocation() {
        let twelve: Vec<u8> = (1..=12).collect();
        assert!(matches!(
            Pattern::new(8, Goal::BlankLast, twelve),
            Err(PatternError::TooLarge { .. })
        ));
        let ten: Vec<u8> = (1..=10).collect();
        let pattern = Pattern::new(4, Goal::BlankLast, ten).unwrap();
        // 29 G placements: the estimate is what `pdb build` refuses with.
        assert!(generate::memory_needed(&pattern) > 29_000_000_000);
    }

    #[test]
    fn damaged_images_are_refused() {
        let pattern = Pattern::new(3, Goal::BlankLast, vec![1, 2, 3, 4]).unwrap();
        let image = build_file(&pattern, 1, |_| {}).unwrap();
        assert!(Pdb::from_bytes(&image[..]).is_ok());

        let short = &image[..image.len() - 1];
        assert!(matches!(
            Pdb::from_bytes(short),
            Err(PdbError::Truncated { .. })
        ));

        let mut foreign = image.clone();
        foreign[0] = b'N';
        assert_eq!(Pdb::from_bytes(&foreign[..]).err(), Some(PdbError::Foreign));

        let mut header = image.clone();
        header[24] = 4; // claims 4x4: the header CRC no longer matches
        assert!(matches!(
            Pdb::from_bytes(&header[..]),
            Err(PdbError::HeaderChecksum { .. })
        ));

        let mut newer = image.clone();
        newer[20] = 4;
        assert_eq!(
            Pdb::from_bytes(&newer[..]).err(),
            Some(PdbError::Version {
                found: 4,
                supported: 3
            })
        );

        let mut table = image.clone();
        let last = table.len() - 1;
        table[last] ^= 0x10;
        let pdb = Pdb::from_bytes(&table[..]).unwrap();
        assert!(matches!(pdb.verify(), Err(PdbError::TableChecksum { .. })));
    }
}
