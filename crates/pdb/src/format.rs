//! The pattern database file format, version 1 (specified in
//! `docs/pdb-format.md`).
//!
//! Bespoke rather than a general container so that opening is constant
//! time: a fixed 4096-byte little-endian header a person can recognise in a
//! hex dump, then the table, page-aligned, usable in place from a memory map.
//! The header has its own CRC, checked at every open; the table's CRC is
//! checked on demand (`Pdb::verify`) and whenever a compressed file is
//! unpacked.

use std::fmt;

use npuzzle_board::Goal;
#[cfg(feature = "parallel")]
use rayon::prelude::*;

use crate::pattern::{IndexScheme, Pattern, PatternError};
#[cfg(feature = "generate")]
use crate::regions::Regions;

/// The byte value of a placement never reached, in the generator and in the
/// byte encoding.
pub const UNREACHED: u8 = u8::MAX;

/// The label at the start of every table file.
pub const MAGIC: [u8; 16] = *b"npuzzle-pdb\0\0\0\0\0";
/// Written as a little-endian u32; reads back differently on a big-endian host.
pub const ENDIAN_MARKER: u32 = 0x0A0B_0C0D;
/// The format version of tables indexed by placement (index scheme 1).
pub const FORMAT_VERSION: u16 = 1;
/// The format version that added zero-aware tables (index scheme 2). Tables
/// of scheme 1 keep version 1, so readers written for it still read them.
pub const FORMAT_VERSION_ZERO_AWARE: u16 = 2;
/// The format version of zero-aware tables keyed by region (index scheme
/// 3), which the generator builds since.
pub const FORMAT_VERSION_REGIONS: u16 = 3;
/// The newest version this library reads.
pub const NEWEST_FORMAT_VERSION: u16 = FORMAT_VERSION_REGIONS;
/// The header's size and the table's offset: one page.
pub const HEADER_LEN: usize = 4096;
/// Placement rank of the pattern tiles in tile order, mixed radix with the
/// last tile least significant; value = least cost over the blank's regions.
pub const INDEX_RANK_MIN_REGION: u8 = 1;
/// Placement rank times the free cells plus the blank's slot among them;
/// value = the abstract distance with the blank in that cell's region.
pub const INDEX_RANK_BLANK: u8 = 2;
/// Cell set, order of the tiles on it and region of the blank (see
/// `regions`); value = the abstract distance with the blank in that region.
pub const INDEX_SET_ORDER_REGION: u8 = 3;

/// The nibble of a placement never reached (it cannot occur on a board that
/// can reach the goal); the byte encoding uses 255.
pub const NIBBLE_UNREACHED: u8 = 15;

/// How a table entry holds a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// One byte per placement: the value itself (255: never reached).
    Byte,
    /// Four bits per placement, low nibble first: (value - Manhattan distance
    /// of the pattern tiles) / 2, 15 for never reached. The two always have
    /// the same parity, and the excess is small, so this halves the table at
    /// the cost of a Manhattan sum that search keeps anyway.
    NibbleExcess,
}

impl Encoding {
    /// The encoding's code in the header.
    pub fn code(self) -> u8 {
        match self {
            Encoding::Byte => 1,
            Encoding::NibbleExcess => 2,
        }
    }

    fn from_code(code: u8) -> Option<Encoding> {
        match code {
            1 => Some(Encoding::Byte),
            2 => Some(Encoding::NibbleExcess),
            _ => None,
        }
    }

    /// A short description, for people.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Byte => "u8 value",
            Encoding::NibbleExcess => "u4 excess over Manhattan / 2",
        }
    }

    /// The bytes a table of `entries` entries takes.
    pub fn table_len(self, entries: u64) -> u64 {
        match self {
            Encoding::Byte => entries,
            Encoding::NibbleExcess => entries.div_ceil(2),
        }
    }
}

/// How the table was made: kept in the header for the record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BuildInfo {
    pub(crate) states: u64,
    pub(crate) successors: u64,
    pub(crate) milliseconds: u64,
    pub(crate) threads: u32,
    pub(crate) generator: String,
}

impl BuildInfo {
    /// Abstract states the generator reached.
    pub fn states(&self) -> u64 {
        self.states
    }
    /// Successors it generated.
    pub fn successors(&self) -> u64 {
        self.successors
    }
    /// How long the build took, in milliseconds.
    pub fn milliseconds(&self) -> u64 {
        self.milliseconds
    }
    /// The threads it ran on.
    pub fn threads(&self) -> u32 {
        self.threads
    }
    /// The program that built it (`npuzzle 0.1.0`).
    pub fn generator(&self) -> &str {
        &self.generator
    }
}

/// Everything the header says; read through its methods, so the format can
/// grow fields without breaking callers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Header {
    pub(crate) version: u16,
    pub(crate) pattern: Pattern,
    pub(crate) encoding: Encoding,
    pub(crate) max_value: u8,
    pub(crate) entries: u64,
    pub(crate) table_len: u64,
    pub(crate) table_offset: u64,
    pub(crate) table_crc: u32,
    pub(crate) build: BuildInfo,
}

/// Why bytes are not a usable table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PdbError {
    /// Shorter (or longer) than the header says (`len` bytes, `needed`
    /// promised).
    #[allow(missing_docs)]
    Truncated { len: u64, needed: u64 },
    /// Not a pattern database file at all.
    Foreign,
    /// Written on a machine of the other byte order.
    Endianness,
    /// A format version this library does not read.
    #[allow(missing_docs)]
    Version { found: u16, supported: u16 },
    /// The header does not match its CRC.
    #[allow(missing_docs)]
    HeaderChecksum { stored: u32, computed: u32 },
    /// The table does not match its CRC.
    #[allow(missing_docs)]
    TableChecksum { stored: u32, computed: u32 },
    /// Header fields that contradict each other.
    #[allow(missing_docs)]
    Malformed { what: String },
    /// A good table, but not the one asked for (or a board of another size).
    #[allow(missing_docs)]
    Mismatch { what: String },
    /// Values no pattern database can hold (a file whose bytes were
    /// replaced and its CRCs recomputed).
    #[allow(missing_docs)]
    Implausible { what: String },
    /// Checksums that match, but values other than those npuzzle's
    /// generator writes for the pattern (its shipped digest, or the table
    /// built again, says so).
    #[allow(missing_docs)]
    NotAsBuilt { pattern: String, what: String },
    /// A search found a solution that the table's values contradict: a
    /// value above the moves of the pattern's tiles in that solution.
    #[allow(missing_docs)]
    Contradicted { what: String },
}

impl fmt::Display for PdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PdbError::Truncated { len, needed } if len > needed => write!(
                f,
                "the file is too long: {len} bytes where the header promises {needed}"
            ),
            PdbError::Truncated { len, needed } => write!(
                f,
                "the file is truncated: {len} bytes where the header promises {needed}"
            ),
            PdbError::Foreign => {
                f.write_str("not an npuzzle pattern database (no npuzzle-pdb label)")
            }
            PdbError::Endianness => f.write_str("the file was written with another byte order"),
            PdbError::Version { found, supported } => write!(
                f,
                "format version {found}, but this npuzzle reads versions {FORMAT_VERSION} to \
                 {supported}"
            ),
            PdbError::HeaderChecksum { stored, computed } => write!(
                f,
                "the header is corrupt (CRC {computed:08x}, header says {stored:08x})"
            ),
            PdbError::TableChecksum { stored, computed } => write!(
                f,
                "the table is corrupt (CRC {computed:08x}, header says {stored:08x})"
            ),
            PdbError::Malformed { what } => write!(f, "the header is inconsistent: {what}"),
            PdbError::Mismatch { what } => write!(f, "it is not the table wanted: {what}"),
            PdbError::Implausible { what } => write!(
                f,
                "its values are not a pattern database's, although its checksums match: {what}"
            ),
            PdbError::NotAsBuilt { pattern, what } => write!(
                f,
                "its values are not those npuzzle builds for pattern {pattern}, although its \
                 checksums match: {what}"
            ),
            PdbError::Contradicted { what } => write!(
                f,
                "its values are false, although its checksums match: {what}"
            ),
        }
    }
}

impl std::error::Error for PdbError {}

fn malformed(what: impl Into<String>) -> PdbError {
    PdbError::Malformed { what: what.into() }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

const HEADER_CRC_AT: usize = 60;

fn header_crc(header: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&header[..HEADER_CRC_AT]);
    hasher.update(&[0; 4]);
    hasher.update(&header[HEADER_CRC_AT + 4..HEADER_LEN]);
    hasher.finalize()
}

impl Header {
    /// Encodes the header; `table_crc` must be that of the table that follows.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; HEADER_LEN];
        b[0..16].copy_from_slice(&MAGIC);
        b[16..20].copy_from_slice(&ENDIAN_MARKER.to_le_bytes());
        b[20..22].copy_from_slice(&self.version.to_le_bytes());
        b[22..24].copy_from_slice(&(HEADER_LEN as u16).to_le_bytes());
        b[24] = self.pattern.size() as u8;
        b[25] = match self.pattern.goal() {
            Goal::BlankLast => 0,
            Goal::BlankFirst => 1,
        };
        b[26] = self.pattern.tiles().len() as u8;
        b[27] = self.pattern.index_scheme().code();
        b[28] = self.encoding.code();
        b[29] = self.max_value;
        b[32..40].copy_from_slice(&self.entries.to_le_bytes());
        b[40..48].copy_from_slice(&self.table_len.to_le_bytes());
        b[48..56].copy_from_slice(&self.table_offset.to_le_bytes());
        b[56..60].copy_from_slice(&self.table_crc.to_le_bytes());
        b[64..64 + self.pattern.tiles().len()].copy_from_slice(self.pattern.tiles());
        b[128..136].copy_from_slice(&self.build.states.to_le_bytes());
        b[136..144].copy_from_slice(&self.build.successors.to_le_bytes());
        b[144..152].copy_from_slice(&self.build.milliseconds.to_le_bytes());
        b[152..156].copy_from_slice(&self.build.threads.to_le_bytes());
        let generator = self.build.generator.as_bytes();
        let len = generator.len().min(32);
        b[160..160 + len].copy_from_slice(&generator[..len]);
        let crc = header_crc(&b);
        b[HEADER_CRC_AT..HEADER_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes and checks a header: label, byte order, version, CRC and the
    /// consistency of its fields. Reads `HEADER_LEN` bytes, nothing more.
    pub fn parse(bytes: &[u8]) -> Result<Header, PdbError> {
        if bytes.len() < 16 || bytes[..16] != MAGIC {
            return Err(PdbError::Foreign);
        }
        if bytes.len() < HEADER_LEN {
            return Err(PdbError::Truncated {
                len: bytes.len() as u64,
                needed: HEADER_LEN as u64,
            });
        }
        if u32_at(bytes, 16) != ENDIAN_MARKER {
            return Err(PdbError::Endianness);
        }
        let version = u16_at(bytes, 20);
        if !(FORMAT_VERSION..=NEWEST_FORMAT_VERSION).contains(&version) {
            return Err(PdbError::Version {
                found: version,
                supported: NEWEST_FORMAT_VERSION,
            });
        }
        let stored = u32_at(bytes, HEADER_CRC_AT);
        let computed = header_crc(bytes);
        if stored != computed {
            return Err(PdbError::HeaderChecksum { stored, computed });
        }
        if u16_at(bytes, 22) as usize != HEADER_LEN {
            return Err(malformed("header length is not 4096"));
        }
        let size = bytes[24] as usize;
        let goal = match bytes[25] {
            0 => Goal::BlankLast,
            1 => Goal::BlankFirst,
            other => return Err(malformed(format!("unknown goal code {other}"))),
        };
        let k = bytes[26] as usize;
        let scheme = match (bytes[27], version) {
            (INDEX_RANK_MIN_REGION, _) => IndexScheme::Placement,
            (INDEX_RANK_BLANK, FORMAT_VERSION_ZERO_AWARE) => IndexScheme::PlacementAndCell,
            (INDEX_SET_ORDER_REGION, FORMAT_VERSION_REGIONS) => IndexScheme::PlacementAndRegion,
            (scheme, _) => {
                return Err(malformed(format!(
                    "unknown index scheme {scheme} for version {version}"
                )))
            }
        };
        let encoding = Encoding::from_code(bytes[28])
            .ok_or_else(|| malformed(format!("unknown entry encoding {}", bytes[28])))?;
        if k == 0 || k > 64 {
            return Err(malformed(format!("{k} pattern tiles")));
        }
        let tiles = bytes[64..64 + k].to_vec();
        let pattern = Pattern::new(size, goal, tiles)
            .and_then(|p| p.with_index_scheme(scheme))
            .map_err(|e: PatternError| malformed(format!("bad pattern: {e}")))?;
        let entries = u64_at(bytes, 32);
        let table_len = u64_at(bytes, 40);
        let table_offset = u64_at(bytes, 48);
        if entries != pattern.entries() {
            return Err(malformed(format!(
                "{entries} entries for a pattern with {} placements{}",
                pattern.placements(),
                match scheme {
                    IndexScheme::PlacementAndCell =>
                        format!(" and {} free cells", pattern.free_cells()),
                    IndexScheme::PlacementAndRegion =>
                        format!(", {} with the blank's region", pattern.entries()),
                    _ => String::new(),
                }
            )));
        }
        if table_len != encoding.table_len(entries) {
            return Err(malformed(format!(
                "table length {table_len} for {entries} entries"
            )));
        }
        if table_offset != HEADER_LEN as u64 {
            return Err(malformed(format!("table offset {table_offset}")));
        }
        let generator_bytes = &bytes[160..192];
        let end = generator_bytes.iter().position(|&b| b == 0).unwrap_or(32);
        Ok(Header {
            version,
            pattern,
            encoding,
            max_value: bytes[29],
            entries,
            table_len,
            table_offset,
            table_crc: u32_at(bytes, 56),
            build: BuildInfo {
                states: u64_at(bytes, 128),
                successors: u64_at(bytes, 136),
                milliseconds: u64_at(bytes, 144),
                threads: u32_at(bytes, 152),
                generator: String::from_utf8_lossy(&generator_bytes[..end]).into_owned(),
            },
        })
    }

    /// The length of the whole file.
    pub fn file_len(&self) -> u64 {
        self.table_offset + self.table_len
    }

    /// The format version of the file.
    pub fn version(&self) -> u16 {
        self.version
    }
    /// The tiles the table abstracts over, with the board size and goal.
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }
    /// How entries hold values.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }
    /// The largest value in the table.
    pub fn max_value(&self) -> u8 {
        self.max_value
    }
    /// Table entries: one per placement of the pattern tiles.
    pub fn entries(&self) -> u64 {
        self.entries
    }
    /// The table's length in bytes.
    pub fn table_len(&self) -> u64 {
        self.table_len
    }
    /// Where the table starts in the file.
    pub fn table_offset(&self) -> u64 {
        self.table_offset
    }
    /// The CRC-32 of the table.
    pub fn table_crc(&self) -> u32 {
        self.table_crc
    }
    /// How the table was made.
    pub fn build(&self) -> &BuildInfo {
        &self.build
    }
}

/// Encodes per-placement values (from the generator) as a table, in the
/// smallest encoding that holds them: returns the encoding and the bytes.
#[cfg(feature = "generate")]
pub fn encode_table(pattern: &Pattern, values: Vec<u8>) -> (Encoding, Vec<u8>) {
    let excesses = excesses(pattern, &values);
    if excesses.par_iter().any(|&e| e > NIBBLE_UNREACHED) {
        return (Encoding::Byte, values);
    }
    let packed = excesses
        .par_chunks(2)
        .map(|pair| pair[0] | pair.get(1).map_or(0, |high| high << 4))
        .collect();
    (Encoding::NibbleExcess, packed)
}

/// (value - Manhattan distance) / 2 per placement; 255 where that is not a
/// small whole number, `NIBBLE_UNREACHED` where the value was never reached.
#[cfg(feature = "generate")]
fn excesses(pattern: &Pattern, values: &[u8]) -> Vec<u8> {
    if let Some(regions) = pattern.regions() {
        return region_excesses(pattern, &regions, values);
    }
    if pattern.is_zero_aware() {
        return zero_aware_excesses(pattern, values);
    }
    let k = pattern.tiles().len();
    // Ranks sharing all digits but the last form a group: the last tile runs
    // over the free cells in order, so one unrank serves the whole group.
    let group = pattern.cells() - (k - 1);
    let n = pattern.size();
    let last_tile = pattern.tiles()[k - 1];
    let home = pattern.goal().cell_of(n, last_tile as u16);
    map_groups(values, group, k, |g, out, values, placement| {
        pattern.unrank(g * group as u64, placement);
        let prefix = pattern.manhattan(&placement[..k - 1]);
        let mut free = !placement[..k - 1].iter().fold(0u64, |m, &c| m | 1 << c);
        for (e, &value) in out.iter_mut().zip(values) {
            let cell = free.trailing_zeros() as usize;
            free &= free - 1;
            let last = ((cell / n).abs_diff(home / n) + (cell % n).abs_diff(home % n)) as u32;
            *e = excess(value, prefix + last);
        }
    })
}

/// Maps `values`, in groups of `group` entries, to a table of the same
/// length: `f(group index, out, values, placement buffer of k cells)` fills
/// each group's part, in parallel.
#[cfg(feature = "generate")]
fn map_groups(
    values: &[u8],
    group: usize,
    k: usize,
    f: impl Fn(u64, &mut [u8], &[u8], &mut [u8]) + Sync,
) -> Vec<u8> {
    let mut out = vec![0u8; values.len()];
    out.par_chunks_mut(group * 4096)
        .zip(values.par_chunks(group * 4096))
        .enumerate()
        .for_each(|(chunk, (out, values))| {
            let mut placement = vec![0u8; k];
            for (g, (out, values)) in out.chunks_mut(group).zip(values.chunks(group)).enumerate() {
                f((chunk * 4096 + g) as u64, out, values, &mut placement);
            }
        });
    out
}

/// The excess of a value over a Manhattan distance, as `excesses` gives it.
#[cfg(feature = "generate")]
#[inline(always)]
fn excess(value: u8, manhattan: u32) -> u8 {
    if value == UNREACHED {
        return NIBBLE_UNREACHED;
    }
    let twice = (value as u32).wrapping_sub(manhattan);
    // 15 is the unreached mark, so a reached excess must be below it.
    if twice.is_multiple_of(2) && twice / 2 < NIBBLE_UNREACHED as u32 {
        (twice / 2) as u8
    } else {
        255
    }
}

/// `excesses` for a zero-aware table: all entries of a placement share its
/// Manhattan distance.
#[cfg(feature = "generate")]
fn zero_aware_excesses(pattern: &Pattern, values: &[u8]) -> Vec<u8> {
    let k = pattern.tiles().len();
    map_groups(
        values,
        pattern.free_cells(),
        k,
        |rank, out, values, placement| {
            pattern.unrank(rank, placement);
            let manhattan = pattern.manhattan(placement);
            for (e, &v) in out.iter_mut().zip(values) {
                *e = excess(v, manhattan);
            }
        },
    )
}

/// `excesses` for a scheme-3 table: set by set, in parallel; the regions of
/// a placement share its Manhattan distance.
#[cfg(feature = "generate")]
fn region_excesses(pattern: &Pattern, regions: &Regions, values: &[u8]) -> Vec<u8> {
    let distances = pattern.distances();
    let mut out = vec![0u8; values.len()];
    regions.fill_by_set(&mut out, |set, first, out| {
        let values = &values[first..first + out.len()];
        let per_placement = regions.regions_of(set);
        regions.for_each_scored_placement(set, &distances, |order, _, manhattan| {
            let at = order as usize * per_placement;
            for r in at..at + per_placement {
                out[r] = excess(values[r], manhattan);
            }
        });
    });
    out
}

/// CRC-32 of a table, its slices hashed in parallel and combined (with the
/// `parallel` feature): the check at every open of a cached table must cost
/// little.
#[cfg(feature = "parallel")]
pub fn table_crc(table: &[u8]) -> u32 {
    table
        .par_chunks(4 << 20)
        .map(|chunk| {
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(chunk);
            hasher
        })
        .reduce(crc32fast::Hasher::new, |mut left, right| {
            left.combine(&right);
            left
        })
        .finalize()
}

/// CRC-32 of a table, on the calling thread (without the `parallel` feature).
#[cfg(not(feature = "parallel"))]
pub fn table_crc(table: &[u8]) -> u32 {
    crc32fast::hash(table)
}
