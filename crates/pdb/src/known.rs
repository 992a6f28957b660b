//! The digests of the tables npuzzle's named partitions and catalogues
//! build, shipped with the program.
//!
//! The generator is deterministic: a pattern's table is the same bytes on
//! every machine and every thread count. So a table of a named partition
//! is trusted for its values, not only for its bytes: its header's CRC must
//! be the one listed here (one comparison at every open, so a table whose
//! values were changed and whose CRCs were recomputed is refused at once),
//! and `npuzzle pdb verify` compares the whole table's BLAKE3 digest.
//! Tables of other patterns (tile sets given by hand) have no digest here;
//! `verify` proves them exact by building them again.
//!
//! `digests.txt` is written by `cargo xtask digests`, which builds every
//! table of every named partition and catalogue; the tests build the small
//! ones and compare.

use crate::format::{Header, PdbError};
use crate::naming::unpacked_file_name;
use crate::pattern::{IndexScheme, Pattern};
use crate::table::Pdb;

/// One line per table: unpacked file name, index scheme (1 to 3), table
/// length in bytes, table CRC-32 and BLAKE3 digest, both in hex.
const DIGESTS: &str = include_str!("../digests.txt");

/// What npuzzle's generator writes for a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownTable {
    /// The table's length in bytes (the header excluded).
    pub table_len: u64,
    /// The table's CRC-32, as its header records it.
    pub crc: u32,
    /// The BLAKE3 digest of the table.
    pub digest: [u8; 32],
}

/// The table npuzzle builds for `pattern`, where the pattern belongs to a
/// named partition or catalogue.
pub fn known_table(pattern: &Pattern) -> Option<KnownTable> {
    let name = unpacked_file_name(pattern);
    DIGESTS.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        if fields.next()? != name || fields.next()? != scheme_code(pattern).to_string() {
            return None;
        }
        let table_len = fields.next()?.parse().ok()?;
        let crc = u32::from_str_radix(fields.next()?, 16).ok()?;
        let digest = parse_hex(fields.next()?)?;
        Some(KnownTable {
            table_len,
            crc,
            digest,
        })
    })
}

/// The index scheme's number in `digests.txt`: a zero-aware table of
/// either numbering holds the same values in other bytes.
pub fn scheme_code(pattern: &Pattern) -> u8 {
    match pattern.index_scheme() {
        IndexScheme::Placement => 1,
        IndexScheme::PlacementAndCell => 2,
        IndexScheme::PlacementAndRegion => 3,
    }
}

/// The BLAKE3 digest of a table, as `digests.txt` lists it.
#[cfg(feature = "digest")]
pub fn table_digest(table: &[u8]) -> [u8; 32] {
    *blake3::hash(table).as_bytes()
}

/// A digest in lower-case hex.
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_hex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut digest = [0u8; 32];
    for (i, byte) in digest.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(digest)
}

fn differs(pdb_pattern: &Pattern, what: String) -> PdbError {
    PdbError::NotAsBuilt {
        pattern: pdb_pattern.to_string(),
        what,
    }
}

/// For a pattern of a named partition, checks a header's table length and
/// CRC against the build's: O(1), made at every open. The table's own bytes
/// are held to that CRC by [`Pdb::verify`].
pub fn check_known_header(header: &Header) -> Result<(), PdbError> {
    let Some(known) = known_table(header.pattern()) else {
        return Ok(());
    };
    if header.table_len() != known.table_len || header.table_crc() != known.crc {
        return Err(differs(
            header.pattern(),
            format!(
                "its table has CRC-32 {:08x} and {} bytes, npuzzle's build has {:08x} and {}",
                header.table_crc(),
                header.table_len(),
                known.crc,
                known.table_len
            ),
        ));
    }
    Ok(())
}

impl<D: AsRef<[u8]> + Sync> Pdb<D> {
    /// For a pattern of a named partition, checks the header's length and
    /// CRC against the build's ([`check_known_header`]).
    pub fn check_known(&self) -> Result<(), PdbError> {
        check_known_header(self.header())
    }

    /// For a pattern of a named partition, the whole table's BLAKE3 digest
    /// against the build's (reads every byte). Returns whether the pattern
    /// has a shipped digest: if not, nothing was checked.
    #[cfg(feature = "digest")]
    pub fn check_known_digest(&self) -> Result<bool, PdbError> {
        let Some(known) = known_table(self.pattern()) else {
            return Ok(false);
        };
        self.check_known()?;
        let digest = table_digest(self.table());
        if digest != known.digest {
            return Err(differs(
                self.pattern(),
                format!(
                    "its table's BLAKE3 digest is {}, npuzzle's build has {}",
                    hex(&digest),
                    hex(&known.digest)
                ),
            ));
        }
        Ok(true)
    }
}

#[cfg(feature = "generate")]
impl<D: AsRef<[u8]> + Sync> Pdb<D> {
    /// Builds the table of this pattern again and compares every entry, so
    /// the values are proven exact whatever the file's checksums say: the
    /// time and memory of a build. The error names the first entry that
    /// differs and how many do.
    pub fn check_exact(&self) -> Result<(), PdbError> {
        let pattern = self.pattern();
        let built =
            crate::image::build_file(pattern, 1, |_| {}).map_err(|e| PdbError::Malformed {
                what: format!("it cannot be built again: {e}"),
            })?;
        let built = Pdb::from_bytes(&built[..]).expect("the generator writes valid files");
        if built.encoding() != self.encoding() {
            return Err(differs(
                pattern,
                format!(
                    "its encoding is {}, the build's is {}",
                    self.encoding().name(),
                    built.encoding().name()
                ),
            ));
        }
        if built.table() == self.table() {
            return Ok(());
        }
        let entries = pattern.entries();
        let differing = (0..entries).filter(|&i| built.entry(i) != self.entry(i));
        let count = differing.clone().count();
        let first = differing.min().unwrap_or(0);
        Err(differs(
            pattern,
            format!(
                "{count} of its {entries} entries differ from the table built again (the first \
                 is entry {first}: stored {}, built {})",
                self.entry(first),
                built.entry(first)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::Goal;

    #[test]
    fn every_line_parses_and_names_one_table() {
        let mut names = std::collections::HashSet::new();
        for line in DIGESTS.lines().filter(|l| !l.trim().is_empty()) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields.len(), 5, "{line}");
            assert!(names.insert((fields[0], fields[1])), "listed twice: {line}");
            assert!(matches!(fields[1], "1" | "2" | "3"), "{line}");
            assert!(fields[2].parse::<u64>().is_ok(), "{line}");
            assert!(u32::from_str_radix(fields[3], 16).is_ok(), "{line}");
            assert!(parse_hex(fields[4]).is_some(), "{line}");
        }
        assert!(names.len() >= 4, "digests.txt lists {} tables", names.len());
    }

    #[test]
    fn hand_given_patterns_have_no_digest() {
        let pattern = Pattern::new(4, Goal::BlankLast, vec![1, 6, 11]).unwrap();
        assert_eq!(known_table(&pattern), None);
    }
}
