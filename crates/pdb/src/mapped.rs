//! Memory-mapping unpacked table files (the `mmap` feature): the one place
//! with `unsafe` in the crate.

use std::fs::File;
use std::io;
use std::path::Path;

use memmap2::Mmap;

use crate::error::{fail, open_file, OpenError, Problem};
use crate::table::Pdb;

/// Maps a file read-only, with its pages mapped up front: one call that
/// costs some 20 ms for the 260 MB table from the page cache, where faulting
/// the pages in one by one costs ten times that. On Linux the map asks for
/// huge pages first: it gets them where the page cache holds the file in
/// 2 MiB folios (as the table writer leaves it, or as the kernel reads a
/// file into a map that asked), and the search's lookups all over the
/// table then miss the TLB less.
pub(crate) fn map(file: &File) -> io::Result<Mmap> {
    // SAFETY: the map is only read. Table files are written once under a
    // temporary name, made read-only and renamed into place, never modified
    // in place by npuzzle; a rebuild or a new unpack replaces the file by
    // rename and leaves this mapping on the old inode. Another program that
    // truncates or rewrites the file in place (despite its mode) can still
    // change or remove the bytes under the map: docs/pdb-format.md states
    // that risk (a SIGBUS, or values changed after the CRC check).
    #[cfg(target_os = "linux")]
    {
        use memmap2::Advice;
        // SAFETY: as above.
        let map = unsafe { memmap2::MmapOptions::new().map(file) }?;
        // Both are hints: a kernel without them (transparent huge pages
        // off, or older than 5.14) maps small pages, or on demand.
        let _ = map.advise(Advice::HugePage);
        let _ = map.advise(Advice::PopulateRead);
        Ok(map)
    }
    #[cfg(not(target_os = "linux"))]
    // SAFETY: as above.
    unsafe {
        memmap2::MmapOptions::new().populate().map(file)
    }
}

/// Opens an unpacked table file (`*.pdb`) by mapping it: O(1) checks only
/// (the header, and for a named partition's table its CRC against the
/// build's); [`Pdb::verify`] checks the table.
pub fn open_unpacked(path: &Path) -> Result<Pdb<Mmap>, OpenError> {
    open_unpacked_file(path).map(|(pdb, _)| pdb)
}

/// [`open_unpacked`], with the file it mapped, for its metadata.
pub(crate) fn open_unpacked_file(path: &Path) -> Result<(Pdb<Mmap>, File), OpenError> {
    let file = open_file(path)?;
    let bytes = map(&file).map_err(|e| fail(path, Problem::Io(e)))?;
    let pdb = Pdb::from_bytes(bytes)
        .and_then(|pdb| pdb.check_known().map(|()| pdb))
        .map_err(|e| fail(path, Problem::Pdb(e)))?;
    Ok((pdb, file))
}
