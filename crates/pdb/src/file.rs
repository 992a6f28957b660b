//! The edge: file names, atomic writes, zstd packing, the unpacked cache and
//! the memory map. Everything else in this crate works on bytes.
//!
//! On disk a table is `NxN-GOAL-TILES.pdb.zst`: the file image compressed
//! with zstd (with zstd's own frame checksum). Search needs the raw table in
//! memory, so the first open unpacks it to `cache/NxN-GOAL-TILES.pdb` next
//! to it (written to a temporary name, its CRC checked, then renamed), and
//! every later open maps that file: constant time, shared between processes
//! through the page cache. A cache whose header differs from the packed
//! file's (a rebuilt table) is replaced.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

pub use memmap2::Mmap;

use crate::format::{Header, PdbError, HEADER_LEN};
use npuzzle_board::Goal;

use crate::pattern::{Partition, Pattern};
use crate::table::Pdb;

/// The compressed file's name for `pattern`.
pub fn file_name(pattern: &Pattern) -> String {
    format!(
        "{n}x{n}-{}-{}.pdb.zst",
        pattern.goal(),
        pattern.label(),
        n = pattern.size()
    )
}

/// Where the unpacked copy of `packed` lives.
pub fn cache_path(packed: &Path) -> PathBuf {
    let name = packed
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("table.pdb.zst");
    let raw = name.strip_suffix(".zst").unwrap_or(name);
    packed.with_file_name("cache").join(raw)
}

/// Why a table file cannot be used, and how to make a good one.
#[derive(Debug)]
pub struct OpenError {
    pub path: PathBuf,
    pub problem: Problem,
    /// The command that rebuilds the file.
    pub rebuild: String,
}

#[derive(Debug)]
pub enum Problem {
    Missing,
    Io(io::Error),
    NotZstd(String),
    Pdb(PdbError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.problem {
            Problem::Missing => write!(
                f,
                "{path}: no such pattern database; build it with: {}",
                self.rebuild
            ),
            Problem::Io(e) => write!(
                f,
                "{path}: {e}; if the file is damaged, rebuild it with: {}",
                self.rebuild
            ),
            Problem::NotZstd(e) => write!(
                f,
                "{path}: not a zstd-compressed pattern database ({e}); rebuild it with: {}",
                self.rebuild
            ),
            Problem::Pdb(e) => write!(f, "{path}: {e}; rebuild it with: {}", self.rebuild),
        }
    }
}

impl std::error::Error for OpenError {}

fn fail(path: &Path, problem: Problem, rebuild: &str) -> OpenError {
    OpenError {
        path: path.to_path_buf(),
        problem,
        rebuild: rebuild.to_string(),
    }
}

/// Opens a table file, a missing one told apart from other failures.
fn open_file(path: &Path, rebuild: &str) -> Result<File, OpenError> {
    File::open(path).map_err(|e| {
        let problem = if e.kind() == io::ErrorKind::NotFound {
            Problem::Missing
        } else {
            Problem::Io(e)
        };
        fail(path, problem, rebuild)
    })
}

/// Writes through a temporary file in the same directory, synced and renamed
/// into place: readers see the old file or the whole new one, never a part,
/// and an interrupted write leaves only a `.tmp` file that nothing opens.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temporary = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&temporary)?);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Compresses a file image with zstd into `path`, atomically.
pub fn save_packed(path: &Path, image: &[u8], level: i32) -> io::Result<()> {
    write_atomically(path, |out| {
        let mut encoder = zstd::Encoder::new(out, level)?;
        encoder.include_checksum(true)?;
        encoder.multithread(rayon::current_num_threads() as u32)?;
        encoder.write_all(image)?;
        encoder.finish()?;
        Ok(())
    })
}

/// Writes a raw (unpacked) file image into `path`, atomically.
pub fn save_raw(path: &Path, image: &[u8]) -> io::Result<()> {
    write_atomically(path, |out| out.write_all(image))
}

/// Reads the header of a packed file, unpacking only its first page.
pub fn read_packed_header(path: &Path, rebuild: &str) -> Result<(Header, Vec<u8>), OpenError> {
    let file = open_file(path, rebuild)?;
    let mut decoder = zstd::Decoder::new(file).map_err(|e| fail(path, Problem::Io(e), rebuild))?;
    let mut bytes = vec![0u8; HEADER_LEN];
    let mut filled = 0;
    while filled < HEADER_LEN {
        match decoder.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) => return Err(fail(path, Problem::NotZstd(e.to_string()), rebuild)),
        }
    }
    bytes.truncate(filled);
    let header = Header::parse(&bytes).map_err(|e| fail(path, Problem::Pdb(e), rebuild))?;
    Ok((header, bytes))
}

/// Maps a file read-only, with its pages mapped up front: one call that
/// costs some 20 ms for the 260 MB table from the page cache, where faulting
/// the pages in one by one during search costs ten times that.
fn map(file: &File) -> io::Result<Mmap> {
    // SAFETY: the map is only read. Table files are written once under a
    // temporary name and renamed into place, never modified in place, so
    // the bytes cannot change under us unless another program truncates or
    // rewrites the file in place, which nothing in npuzzle does; a rebuild
    // replaces the file by rename and leaves this mapping on the old inode.
    unsafe { memmap2::MmapOptions::new().populate().map(file) }
}

/// Opens a raw (unpacked) table file by mapping it; O(1) checks only.
pub fn open_raw(path: &Path, rebuild: &str) -> Result<Pdb<Mmap>, OpenError> {
    let file = open_file(path, rebuild)?;
    let bytes = map(&file).map_err(|e| fail(path, Problem::Io(e), rebuild))?;
    Pdb::from_bytes(bytes).map_err(|e| fail(path, Problem::Pdb(e), rebuild))
}

/// Unpacks `packed` into its cache file, checking the table CRC on the way.
fn unpack(packed: &Path, cache: &Path, header: &Header, rebuild: &str) -> Result<(), OpenError> {
    let file = File::open(packed).map_err(|e| fail(packed, Problem::Io(e), rebuild))?;
    let mut decoder =
        zstd::Decoder::new(file).map_err(|e| fail(packed, Problem::Io(e), rebuild))?;
    let mut crc = crc32fast::Hasher::new();
    let mut total = 0u64;
    let mut written_len = 0u64;
    let result = write_atomically(cache, |out| {
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            let n = decoder.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            let chunk = &buffer[..n];
            // The CRC covers the table only, which starts after the header.
            let table_start = (HEADER_LEN as u64).saturating_sub(total).min(n as u64) as usize;
            crc.update(&chunk[table_start..]);
            total += n as u64;
            out.write_all(chunk)?;
        }
        written_len = total;
        if written_len != header.file_len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                PdbError::Truncated {
                    len: written_len,
                    needed: header.file_len(),
                },
            ));
        }
        let computed = crc.clone().finalize();
        if computed != header.table_crc {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                PdbError::TableChecksum {
                    stored: header.table_crc,
                    computed,
                },
            ));
        }
        Ok(())
    });
    result.map_err(|e| {
        match e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<PdbError>())
        {
            Some(pdb) => fail(packed, Problem::Pdb(pdb.clone()), rebuild),
            None if e.kind() == io::ErrorKind::Other
                || e.kind() == io::ErrorKind::UnexpectedEof =>
            {
                fail(packed, Problem::NotZstd(e.to_string()), rebuild)
            }
            None => fail(packed, Problem::Io(e), rebuild),
        }
    })
}

/// Opens a packed table for lookups: maps its cache file, unpacking it first
/// when it is missing or stale. `rebuild` is the command that makes a good
/// file, quoted in every error.
pub fn open(packed: &Path, rebuild: &str) -> Result<Pdb<Mmap>, OpenError> {
    let (header, header_bytes) = read_packed_header(packed, rebuild)?;
    let cache = cache_path(packed);
    if let Ok(pdb) = open_raw(&cache, rebuild) {
        if pdb.bytes()[..HEADER_LEN] == header_bytes[..] {
            return Ok(pdb);
        }
    }
    unpack(packed, &cache, &header, rebuild)?;
    open_raw(&cache, rebuild)
}

/// Checks a packed or raw file completely: header, length and table CRC (for
/// packed files also zstd's frame checksum).
pub fn verify(path: &Path, rebuild: &str) -> Result<Header, OpenError> {
    if is_packed(path) {
        let (header, _) = read_packed_header(path, rebuild)?;
        let file = File::open(path).map_err(|e| fail(path, Problem::Io(e), rebuild))?;
        let mut decoder =
            zstd::Decoder::new(file).map_err(|e| fail(path, Problem::Io(e), rebuild))?;
        let mut image = Vec::with_capacity(header.file_len() as usize);
        decoder
            .read_to_end(&mut image)
            .map_err(|e| fail(path, Problem::NotZstd(e.to_string()), rebuild))?;
        let pdb = Pdb::from_bytes(image).map_err(|e| fail(path, Problem::Pdb(e), rebuild))?;
        pdb.verify()
            .map_err(|e| fail(path, Problem::Pdb(e), rebuild))?;
        Ok(pdb.header().clone())
    } else {
        let pdb = open_raw(path, rebuild)?;
        pdb.verify()
            .map_err(|e| fail(path, Problem::Pdb(e), rebuild))?;
        Ok(pdb.header().clone())
    }
}

/// Whether the file starts with zstd's frame magic.
pub fn is_packed(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| magic == [0x28, 0xB5, 0x2F, 0xFD])
        .unwrap_or(false)
}

/// The rebuild command for a partition, for error messages.
pub fn rebuild_command(partition: &Partition, size: usize, goal: Goal) -> String {
    format!(
        "cargo xtask build-pdb --size {size} --goal {goal} --partition {} --force",
        shell_word(partition.name())
    )
}

fn shell_word(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{word}'")
    }
}

/// Opens every table of `partition` from `dir`, checking that each holds the
/// pattern its name promises.
pub fn open_partition(dir: &Path, partition: &Partition) -> Result<Vec<Pdb<Mmap>>, OpenError> {
    let first = &partition.patterns()[0];
    let rebuild = rebuild_command(partition, first.size(), first.goal());
    partition
        .patterns()
        .iter()
        .map(|pattern| {
            let path = dir.join(file_name(pattern));
            let pdb = open(&path, &rebuild)?;
            pdb.expect_pattern(pattern)
                .map_err(|e| fail(&path, Problem::Pdb(e), &rebuild))?;
            Ok(pdb)
        })
        .collect()
}
