//! Read (and, with features, build) the pattern databases of `npuzzle`:
//! additive lower bounds on the moves a sliding-tile puzzle board needs.
//!
//! With default features this crate is light: pure Rust, no C code, no
//! thread pool. It parses and checks the file format over `&[u8]`, ranks
//! tile placements and looks boards up. Features add the rest, each at the
//! edge:
//!
//! | feature | adds | pulls in |
//! | --- | --- | --- |
//! | `mmap` | [`open_unpacked`] and [`Tables::open_unpacked`]: map `*.pdb` files | memmap2 |
//! | `parallel` | the CRC and histogram on all cores | rayon |
//! | `generate` | [`build_file`]: the parallel generator | rayon |
//! | `store` | `file`: packed `*.pdb.zst` files, the unpack cache, atomic writes, BLAKE3 digests | zstd (C), blake3, tempfile, directories, rustix |
//!
//! The common case, looking boards up in tables that `npuzzle pdb build`
//! made and a solver unpacked (`data/cache/*.pdb`), needs only `mmap`:
//!
//! ```no_run
//! # #[cfg(feature = "mmap")] {
//! use npuzzle_board::{parse_board, Goal};
//! use npuzzle_pdb::{Partition, Tables};
//!
//! let partition = Partition::parse("7-8", 4, Goal::BlankLast)?;
//! let tables = Tables::open_unpacked("data".as_ref(), &partition)?;
//! let board = parse_board("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")?;
//! // The number `npuzzle pdb lookup` prints last: 68 for this board.
//! println!("{}", tables.value(&board)?);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Over bytes you hold yourself (a `Vec<u8>`, a static slice, your own map),
//! [`Pdb::from_bytes`] checks the header in O(1) and [`Pdb::verify`] the
//! table's CRC. The format is specified in `docs/pdb-format.md`.
#![warn(missing_docs)]

mod bytes;
#[cfg(feature = "store")]
mod checked;
mod error;
#[cfg(feature = "store")]
pub mod file;
pub mod format;
#[cfg(feature = "generate")]
pub mod generate;
#[cfg(feature = "generate")]
mod image;
mod known;
#[cfg(feature = "mmap")]
mod mapped;
mod naming;
mod pattern;
mod plausible;
pub mod regions;
mod set;
mod table;
#[cfg(feature = "store")]
mod temporary;
#[cfg(feature = "generate")]
pub mod testing;

pub use bytes::TableBytes;
pub use error::{normalize, OpenError, Problem};
pub use format::{BuildInfo, Encoding, Header, PdbError};
#[cfg(feature = "generate")]
pub use image::{build_file, build_file_until};
#[cfg(feature = "digest")]
pub use known::table_digest;
pub use known::{check_known_header, hex, known_table, scheme_code, KnownTable};
#[cfg(feature = "mmap")]
pub use mapped::open_unpacked;
#[cfg(feature = "mmap")]
pub use memmap2::Mmap;
pub use naming::{file_name, unpacked_file_name};
pub use pattern::{
    known_catalogues, known_partitions, IndexScheme, Partition, Pattern, PatternError, Ranker,
    MAX_PDB_SIZE, MAX_PLACEMENTS,
};
pub use plausible::{OPEN_SAMPLES, VERIFY_SAMPLES};
pub use set::{Lookup, Tables};
pub use table::Pdb;
