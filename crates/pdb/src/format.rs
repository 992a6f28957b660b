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
use rayon::prelude::*;

use crate::generate::UNREACHED;
use crate::pattern::{Pattern, PatternError};

pub const MAGIC: [u8; 16] = *b"npuzzle-pdb\0\0\0\0\0";
/// Written as a little-endian u32; reads back differently on a big-endian host.
pub const ENDIAN_MARKER: u32 = 0x0A0B_0C0D;
pub const FORMAT_VERSION: u16 = 1;
/// The header's size and the table's offset: one page.
pub const HEADER_LEN: usize = 4096;
/// Placement rank of the pattern tiles in tile order, mixed radix with the
/// last tile least significant; value = least cost over the blank's regions.
pub const INDEX_RANK_MIN_REGION: u8 = 1;

/// The nibble of a placement never reached (it cannot occur on a board that
/// can reach the goal); the byte encoding uses 255.
pub const NIBBLE_UNREACHED: u8 = 15;

/// How a table entry holds a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Byte => "u8 value",
            Encoding::NibbleExcess => "u4 excess over Manhattan / 2",
        }
    }

    pub fn table_len(self, entries: u64) -> u64 {
        match self {
            Encoding::Byte => entries,
            Encoding::NibbleExcess => entries.div_ceil(2),
        }
    }
}

/// How the table was made: kept in the header for the record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildInfo {
    pub states: u64,
    pub successors: u64,
    pub milliseconds: u64,
    pub threads: u32,
    pub generator: String,
}

/// Everything the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u16,
    pub pattern: Pattern,
    pub encoding: Encoding,
    pub max_value: u8,
    pub entries: u64,
    pub table_len: u64,
    pub table_offset: u64,
    pub table_crc: u32,
    pub build: BuildInfo,
}

/// Why bytes are not a usable table. Each message says what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PdbError {
    Truncated { len: u64, needed: u64 },
    Foreign,
    Endianness,
    Version { found: u16, supported: u16 },
    HeaderChecksum { stored: u32, computed: u32 },
    TableChecksum { stored: u32, computed: u32 },
    Malformed { what: String },
    Mismatch { what: String },
}

impl fmt::Display for PdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
                "format version {found}, but this npuzzle reads version {supported}"
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
        b[27] = INDEX_RANK_MIN_REGION;
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
        if version != FORMAT_VERSION {
            return Err(PdbError::Version {
                found: version,
                supported: FORMAT_VERSION,
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
        if bytes[27] != INDEX_RANK_MIN_REGION {
            return Err(malformed(format!("unknown index scheme {}", bytes[27])));
        }
        let encoding = Encoding::from_code(bytes[28])
            .ok_or_else(|| malformed(format!("unknown entry encoding {}", bytes[28])))?;
        if k == 0 || k > 64 {
            return Err(malformed(format!("{k} pattern tiles")));
        }
        let tiles = bytes[64..64 + k].to_vec();
        let pattern = Pattern::new(size, goal, tiles)
            .map_err(|e: PatternError| malformed(format!("bad pattern: {e}")))?;
        let entries = u64_at(bytes, 32);
        let table_len = u64_at(bytes, 40);
        let table_offset = u64_at(bytes, 48);
        if entries != pattern.placements() {
            return Err(malformed(format!(
                "{entries} entries for a pattern with {} placements",
                pattern.placements()
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
}

/// Encodes per-placement values (from the generator) as a table, in the
/// smallest encoding that holds them: returns the encoding and the bytes.
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
fn excesses(pattern: &Pattern, values: &[u8]) -> Vec<u8> {
    let k = pattern.tiles().len();
    // Ranks sharing all digits but the last form a group: the last tile runs
    // over the free cells in order, so one unrank serves the whole group.
    let group = pattern.cells() - (k - 1);
    let n = pattern.size();
    let last_tile = pattern.tiles()[k - 1];
    let home = pattern.goal().cell_of(n, last_tile as u16);
    let mut out = vec![0u8; values.len()];
    out.par_chunks_mut(group * 4096)
        .zip(values.par_chunks(group * 4096))
        .enumerate()
        .for_each(|(chunk, (out, values))| {
            let mut placement = vec![0u8; k];
            let first_rank = (chunk * group * 4096) as u64;
            for (g, (out, values)) in out.chunks_mut(group).zip(values.chunks(group)).enumerate() {
                pattern.unrank(first_rank + (g * group) as u64, &mut placement);
                let prefix = pattern.manhattan(&placement[..k - 1]);
                let mut free = !placement[..k - 1].iter().fold(0u64, |m, &c| m | 1 << c);
                for (excess, &value) in out.iter_mut().zip(values) {
                    let cell = free.trailing_zeros() as usize;
                    free &= free - 1;
                    if value == UNREACHED {
                        *excess = NIBBLE_UNREACHED;
                        continue;
                    }
                    let last =
                        ((cell / n).abs_diff(home / n) + (cell % n).abs_diff(home % n)) as u32;
                    let twice = (value as u32).wrapping_sub(prefix + last);
                    // 15 is the unreached mark, so a reached excess must be below it.
                    *excess = if twice.is_multiple_of(2) && twice / 2 < NIBBLE_UNREACHED as u32 {
                        (twice / 2) as u8
                    } else {
                        255
                    };
                }
            }
        });
    out
}

/// CRC-32 of a table, its slices hashed in parallel and combined: the check
/// at every open of a cached table must cost little.
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
