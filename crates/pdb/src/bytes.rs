//! The bytes behind an opened table, whichever edge they came from.

use std::sync::Arc;

/// The bytes of an opened table: mapped from an unpacked file (the `mmap`
/// feature), or held in memory (unpacked from a packed file, built, or
/// given by a host such as a browser). Shared, so that partitions of a
/// catalogue holding the same table hold it once.
#[derive(Clone)]
pub enum TableBytes {
    /// Mapped from the unpacked cache file.
    #[cfg(feature = "mmap")]
    Mapped(Arc<memmap2::Mmap>),
    /// Held in memory.
    Owned(Arc<Vec<u8>>),
}

impl TableBytes {
    /// Bytes mapped from a cache file.
    #[cfg(feature = "mmap")]
    pub fn mapped(map: memmap2::Mmap) -> TableBytes {
        TableBytes::Mapped(Arc::new(map))
    }
}

impl AsRef<[u8]> for TableBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            #[cfg(feature = "mmap")]
            TableBytes::Mapped(map) => map,
            TableBytes::Owned(bytes) => bytes,
        }
    }
}
