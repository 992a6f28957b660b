//! Additive pattern databases for the n-puzzle: patterns and their ranking,
//! the parallel generator, the file format and lookups.
//!
//! The library works on bytes: [`build_file`] returns a complete file image
//! and [`Pdb::from_bytes`] reads one from anything that derefs to `[u8]`.
//! Opening files, unpacking and memory-mapping are in [`file`], at the edge.

pub mod file;
pub mod format;
pub mod generate;
mod pattern;
mod table;

use std::time::Instant;

pub use format::{BuildInfo, Encoding, Header, PdbError};
pub use pattern::{known_partitions, Partition, Pattern, PatternError, Ranker, MAX_PDB_SIZE};
pub use table::Pdb;

/// Builds the table of `pattern` on the current rayon pool and returns the
/// whole file image (header and table), ready to be written or used.
pub fn build_file(
    pattern: &Pattern,
    threads: u32,
    on_level: impl Fn(&generate::Level) + Sync,
) -> Vec<u8> {
    let started = Instant::now();
    let built = generate::build(pattern, on_level);
    let (encoding, table) = format::encode_table(pattern, built.values);
    let header = Header {
        version: format::FORMAT_VERSION,
        pattern: pattern.clone(),
        encoding,
        max_value: built.max_value,
        entries: pattern.placements(),
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
    file
}
