//! The edge: file names, atomic writes, zstd packing, the unpacked cache and
//! the memory map. Everything else in this crate works on bytes.
//!
//! On disk a table is `NxN-GOAL-TILES.pdb.zst`: the file image compressed
//! with zstd (with zstd's own frame checksum). Search needs the raw table in
//! memory, so the first open unpacks it to `cache/NxN-GOAL-TILES.pdb` next
//! to it, and later opens map that file, shared between processes through
//! the page cache.
//!
//! Trust: a cache is used only when its header equals the packed file's and
//! its table passes the CRC (in parallel: tens of milliseconds for the
//! 288 MB 7-8 set) and the sampled check of its values; otherwise it is
//! unpacked again. A copy that passed is stamped, and its later opens skip
//! both checks until it changes or the machine reboots (`checked.rs`).
//! Unpacking holds a lock on the cache directory, so processes started
//! together unpack once; it writes a uniquely named temporary file, checks
//! length and CRC, makes it read-only, renames it into place and syncs the
//! directory. When the cache directory cannot be written, the per-user
//! cache directory is tried, then memory.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

pub use memmap2::Mmap;

use crate::checked::Identity;
pub use crate::checked::{exact_path, stamp_path, user_key, UserKey, SETTLED};
use crate::error::{fail, open_file};
pub use crate::error::{normalize, OpenError, Problem};
use crate::format::{Header, PdbError, HEADER_LEN};
pub use crate::mapped::open_unpacked;
use crate::mapped::open_unpacked_file;
pub use crate::naming::file_name;
use crate::naming::unpacked_file_name;
use crate::pattern::{Partition, Pattern};
use crate::table::Pdb;
use crate::temporary::{make_read_only, remove_stale_temporaries, temporary_for};

pub use crate::bytes::TableBytes;

/// A table opened from a file.
pub type TableFile = Pdb<TableBytes>;

/// The unpacked file's name for a packed file's name.
fn raw_name(packed: &Path) -> String {
    let name = packed
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("table.pdb.zst");
    name.strip_suffix(".zst").unwrap_or(name).to_string()
}

/// Where the unpacked copy of `packed` lives first: `cache/` beside it.
pub fn cache_path(packed: &Path) -> PathBuf {
    packed.with_file_name("cache").join(raw_name(packed))
}

/// The per-user cache directory: `$NPUZZLE_CACHE_DIR`, else the platform's
/// (`~/.cache/npuzzle` on Linux).
pub fn user_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("NPUZZLE_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "npuzzle").map(|d| d.cache_dir().to_path_buf())
}

/// The per-user data directory for tables (`~/.local/share/npuzzle` on
/// Linux), where an installed `npuzzle` looks last and builds by default.
pub fn user_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "npuzzle").map(|d| d.data_dir().to_path_buf())
}

/// Every place the unpacked copy of `packed` may live, in order of preference.
pub fn cache_paths(packed: &Path) -> Vec<PathBuf> {
    let mut paths = vec![cache_path(packed)];
    if let Some(dir) = user_cache_dir() {
        let path = dir.join(raw_name(packed));
        if normalize(&path) != normalize(&paths[0]) {
            paths.push(path);
        }
    }
    paths
}

/// An exclusive lock on a directory, held until dropped: writers of the
/// same file name take it, so only one writes at a time.
fn lock_dir(dir: &Path) -> io::Result<File> {
    let handle = File::open(dir)?;
    handle.lock()?;
    Ok(handle)
}

/// Bytes free for an unprivileged writer in the filesystem holding `dir`.
pub fn available_space(dir: &Path) -> io::Result<u64> {
    let stat = rustix::fs::statvfs(dir).map_err(io::Error::from)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Refuses a write of `needed` bytes into `dir` when the filesystem has
/// less room, before anything is written.
pub fn check_room(dir: &Path, needed: u64) -> io::Result<()> {
    let free = available_space(dir)?;
    if free < needed {
        return Err(io::Error::new(
            io::ErrorKind::StorageFull,
            format!(
                "no room: {:.1} MB needed, {:.1} MB free on its filesystem",
                needed as f64 / 1e6,
                free as f64 / 1e6
            ),
        ));
    }
    Ok(())
}

/// A writer that kills the process after a set number of bytes, as a
/// `kill -9` or a power cut would, for testing interrupted writes
/// deterministically (`NPUZZLE_KILL_WRITE_AFTER=N`, tests only).
struct KillAfter<W> {
    inner: W,
    left: Option<u64>,
}

impl<W: Write> Write for KillAfter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(left) = self.left.as_mut() {
            if *left == 0 {
                self.inner.flush()?;
                std::process::abort();
            }
            let n = self.inner.write(&buf[..buf.len().min(*left as usize)])?;
            *left -= n as u64;
            return Ok(n);
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The size of every write but the last: 2 MiB, a huge page.
const BLOCK: usize = 2 << 20;

/// A buffered writer that hands the file whole 2 MiB blocks at offsets
/// that are multiples of 2 MiB. Linux (6.16 and later on ext4, earlier on
/// XFS) then keeps the file in the page cache as 2 MiB folios, which a
/// map of the file gets as huge pages: the guest's page tables hold one
/// entry per 2 MiB instead of per 4 KiB, and the search's lookups, spread
/// over hundreds of megabytes, miss the TLB less. Writes of 1 MiB left the
/// cache in small folios.
struct BlockWriter<W: Write> {
    inner: W,
    block: Vec<u8>,
}

impl<W: Write> BlockWriter<W> {
    fn new(inner: W) -> Self {
        BlockWriter {
            inner,
            block: Vec::with_capacity(BLOCK),
        }
    }
}

impl<W: Write> Write for BlockWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let taken = bytes.len().min(BLOCK - self.block.len());
        self.block.extend_from_slice(&bytes[..taken]);
        if self.block.len() == BLOCK {
            self.inner.write_all(&self.block)?;
            self.block.clear();
        }
        Ok(taken)
    }

    /// Writes the partial block too: only at the end of the file.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.block)?;
        self.block.clear();
        self.inner.flush()
    }
}

fn failure_point() -> Option<u64> {
    std::env::var("NPUZZLE_KILL_WRITE_AFTER").ok()?.parse().ok()
}

/// Writes `path` atomically: under the directory's lock, through a uniquely
/// named temporary file in the same directory, synced, made read-only and
/// renamed into place, then the directory synced. Readers see the old file
/// or the whole new one; an interrupted write leaves a `.NAME.*.tmp` file
/// that the next writer of that name removes. `expected_len`, when known,
/// is checked against the free space first.
pub fn write_atomically(
    path: &Path,
    expected_len: Option<u64>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    write_atomically_unless(path, expected_len, || false, write).map(|_| ())
}

/// [`write_atomically`], unless `done` says, under the lock, that the file
/// is already as wanted (another process wrote it while this one waited):
/// returns whether it wrote.
fn write_atomically_unless(
    path: &Path,
    expected_len: Option<u64>,
    done: impl FnOnce() -> bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<bool> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let _lock = lock_dir(dir)?;
    if done() {
        return Ok(false);
    }
    remove_stale_temporaries(dir, name);
    if let Some(len) = expected_len {
        check_room(dir, len)?;
    }
    let mut temporary = temporary_for(dir, name)?;
    {
        let mut out = KillAfter {
            inner: BlockWriter::new(temporary.as_file_mut()),
            left: failure_point(),
        };
        write(&mut out)?;
        out.inner.flush()?;
    }
    let file = temporary.as_file();
    file.sync_all()?;
    make_read_only(file)?;
    temporary.persist(path).map_err(|e| e.error)?;
    File::open(dir)?.sync_all()?;
    Ok(true)
}

/// Compresses a file image with zstd into `path`, atomically.
pub fn save_packed(path: &Path, image: &[u8], level: i32) -> io::Result<()> {
    // The packed file is far smaller than the image; the image's size bounds it.
    write_atomically(path, Some(image.len() as u64 / 2), |out| {
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
    write_atomically(path, Some(image.len() as u64), |out| out.write_all(image))
}

/// Reads the header of a packed file, unpacking only its first page.
pub fn read_packed_header(path: &Path) -> Result<(Header, Vec<u8>), OpenError> {
    let file = open_file(path)?;
    let mut decoder = zstd::Decoder::new(file).map_err(|e| fail(path, Problem::Io(e)))?;
    let mut bytes = vec![0u8; HEADER_LEN];
    let mut filled = 0;
    while filled < HEADER_LEN {
        match decoder.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) => return Err(fail(path, Problem::NotZstd(e.to_string()))),
        }
    }
    bytes.truncate(filled);
    let header = Header::parse(&bytes).map_err(|e| fail(path, Problem::Pdb(e)))?;
    Ok((header, bytes))
}

/// What became of a look at a cache file.
enum CacheState {
    Good(Box<Pdb<Mmap>>, Trust),
    Absent,
    /// Present but not the packed file's table (another build, or damaged).
    Bad(String),
    /// Something that is not a file stands there: it cannot be replaced.
    Blocked,
}

/// Why an opened table may be used, and what is left to check.
enum Trust {
    /// Its copy's stamp says it passed every check as it is now.
    Stamped,
    /// Its CRC passed; its values are still to be checked, and then the
    /// copy, if one was mapped, stamped where its identity is known.
    Checked {
        copy: Option<PathBuf>,
        identity: Option<Identity>,
    },
}

/// Maps the cache at `path` if it holds exactly the table whose header is
/// `header_bytes`, its CRC checked unless its stamp vouches for it.
fn check_cache(path: &Path, header_bytes: &[u8]) -> CacheState {
    if !path.exists() {
        return CacheState::Absent;
    }
    if !path.is_file() {
        return CacheState::Blocked;
    }
    let now = SystemTime::now();
    let (pdb, file) = match open_unpacked_file(path) {
        Ok(opened) => opened,
        Err(e) => return CacheState::Bad(e.problem().to_string()),
    };
    if pdb.bytes()[..HEADER_LEN] != header_bytes[..] {
        return CacheState::Bad("it holds another build of the table".to_string());
    }
    let identity = Identity::of(&file, pdb.header().table_crc(), now);
    if identity.as_ref().is_some_and(|id| id.is_stamped(path)) {
        return CacheState::Good(Box::new(pdb), Trust::Stamped);
    }
    match pdb.verify() {
        Ok(()) => CacheState::Good(
            Box::new(pdb),
            Trust::Checked {
                copy: Some(path.to_path_buf()),
                identity,
            },
        ),
        Err(e) => CacheState::Bad(e.to_string()),
    }
}

/// Why an unpack failed: the packed file (final) or the place written
/// (another place may do).
enum UnpackError {
    Source(OpenError),
    Target(io::Error),
}

/// Streams the table out of `packed` into `sink`, checking its length and
/// CRC against `header`.
fn decode_checked(packed: &Path, header: &Header, sink: &mut dyn Write) -> Result<(), UnpackError> {
    let file = File::open(packed).map_err(|e| UnpackError::Source(fail(packed, Problem::Io(e))))?;
    let mut decoder =
        zstd::Decoder::new(file).map_err(|e| UnpackError::Source(fail(packed, Problem::Io(e))))?;
    let mut crc = crc32fast::Hasher::new();
    let mut total = 0u64;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = decoder
            .read(&mut buffer)
            .map_err(|e| UnpackError::Source(fail(packed, Problem::NotZstd(e.to_string()))))?;
        if n == 0 {
            break;
        }
        let chunk = &buffer[..n];
        // The CRC covers the table only, which starts after the header.
        let table_start = (HEADER_LEN as u64).saturating_sub(total).min(n as u64) as usize;
        crc.update(&chunk[table_start..]);
        total += n as u64;
        if total > header.file_len() {
            break;
        }
        sink.write_all(chunk).map_err(UnpackError::Target)?;
    }
    let damaged = |e| UnpackError::Source(fail(packed, Problem::Pdb(e)));
    if total != header.file_len() {
        return Err(damaged(PdbError::Truncated {
            len: total,
            needed: header.file_len(),
        }));
    }
    let computed = crc.finalize();
    if computed != header.table_crc {
        return Err(damaged(PdbError::TableChecksum {
            stored: header.table_crc,
            computed,
        }));
    }
    Ok(())
}

/// Unpacks `packed` into the cache file `cache`, unless another process did
/// while this one waited for the lock.
fn unpack_to(
    packed: &Path,
    cache: &Path,
    header: &Header,
    header_bytes: &[u8],
) -> Result<(Pdb<Mmap>, Trust), UnpackError> {
    let mut ready = None;
    let mut source_error = None;
    let already = || match check_cache(cache, header_bytes) {
        CacheState::Good(pdb, trust) => {
            ready = Some((*pdb, trust));
            true
        }
        _ => false,
    };
    let written = write_atomically_unless(cache, Some(header.file_len()), already, |out| {
        decode_checked(packed, header, out).map_err(|e| match e {
            UnpackError::Target(e) => e,
            UnpackError::Source(e) => {
                source_error = Some(e);
                io::Error::other("the packed file is damaged")
            }
        })
    });
    if let Some(e) = source_error {
        return Err(UnpackError::Source(e));
    }
    written.map_err(UnpackError::Target)?;
    if let Some(ready) = ready {
        return Ok(ready);
    }
    // Checked as it was written; stamped at a later open, once settled.
    let pdb = open_unpacked(cache).map_err(|e| match e.problem() {
        Problem::Io(io) => UnpackError::Target(io::Error::new(io.kind(), e.to_string())),
        _ => UnpackError::Source(e),
    })?;
    Ok((
        pdb,
        Trust::Checked {
            copy: Some(cache.to_path_buf()),
            identity: None,
        },
    ))
}

/// Opens a packed table for lookups, saying through `note` (one line each)
/// when a cache was damaged or could not be written where expected.
pub fn open_noting(packed: &Path, note: &mut dyn FnMut(String)) -> Result<TableFile, OpenError> {
    let (pdb, trust) = open_checked_crc(packed, note)?;
    if let Trust::Checked { copy, identity } = trust {
        pdb.check_plausible(crate::OPEN_SAMPLES)
            .map_err(|e| fail(packed, Problem::Pdb(e)))?;
        check_hand_given(&pdb, copy.as_deref(), packed, note)?;
        if let (Some(identity), Some(copy)) = (identity, copy) {
            identity.stamp(&copy);
        }
    }
    Ok(pdb)
}

/// A table of tile sets given by hand has no shipped digest: it is built
/// again and compared, once per content. A record beside its copy
/// (`NAME.pdb.exact`, signed like the stamps) keeps the table's BLAKE3
/// digest, so later full checks (once per boot) read the table once more
/// instead of building it.
fn check_hand_given(
    pdb: &TableFile,
    copy: Option<&Path>,
    packed: &Path,
    note: &mut dyn FnMut(String),
) -> Result<(), OpenError> {
    if crate::known_table(pdb.pattern()).is_some() {
        return Ok(());
    }
    let digest = crate::table_digest(pdb.table());
    if copy.is_some_and(|copy| crate::checked::is_proven_exact(copy, &digest)) {
        return Ok(());
    }
    check_memory_for_proof(pdb.pattern(), packed)?;
    if pdb.header().entries() > 1 << 24 {
        note(format!(
            "{}: building the table again to prove its values exact (once; its tiles were \
             given by hand, so no digest of it ships with npuzzle)",
            normalize(packed).display()
        ));
    }
    pdb.check_exact()
        .map_err(|e| fail(packed, Problem::Pdb(e)))?;
    if let Some(copy) = copy {
        crate::checked::record_exact(copy, &digest);
    }
    Ok(())
}

/// [`open_noting`] up to the CRC, or the copy's stamp in its stead, with
/// what is left to check.
fn open_checked_crc(
    packed: &Path,
    note: &mut dyn FnMut(String),
) -> Result<(TableFile, Trust), OpenError> {
    let (header, header_bytes) = read_packed_header(packed)?;
    crate::check_known_header(&header).map_err(|e| fail(packed, Problem::Pdb(e)))?;
    let mut places = cache_paths(packed);
    let mut blocked = Vec::new();
    // Unusable copies, said once it is known what takes their place.
    let mut unusable: Vec<(PathBuf, String)> = Vec::new();
    for place in &places {
        match check_cache(place, &header_bytes) {
            CacheState::Good(pdb, trust) => {
                for (bad, why) in &unusable {
                    note(format!(
                        "{}: the unpacked table there is not used ({why}); using the copy {} \
                         (remove the unusable one to have it written again)",
                        normalize(bad).display(),
                        normalize(place).display()
                    ));
                }
                return Ok((pdb.map_bytes(TableBytes::mapped), trust));
            }
            CacheState::Absent => {}
            CacheState::Bad(why) => unusable.push((place.clone(), why)),
            CacheState::Blocked => {
                note(format!(
                    "{} is not a file, so the unpacked table cannot go there; remove it to \
                     keep the table beside the packed one (it goes elsewhere meanwhile)",
                    normalize(place).display()
                ));
                blocked.push(place.clone());
            }
        }
    }
    places.retain(|place| !blocked.contains(place));
    for place in &places {
        let why_unusable = unusable
            .iter()
            .find(|(bad, _)| bad == place)
            .map(|(_, why)| why);
        match unpack_to(packed, place, &header, &header_bytes) {
            Ok((pdb, trust)) => {
                if let Some(why) = why_unusable {
                    note(format!(
                        "{}: replaced the unpacked table ({why})",
                        normalize(place).display()
                    ));
                }
                return Ok((pdb.map_bytes(TableBytes::mapped), trust));
            }
            Err(UnpackError::Source(e)) => return Err(e),
            Err(UnpackError::Target(e)) => note(match why_unusable {
                Some(why) => format!(
                    "{}: the unpacked table there is not used ({why}) and cannot be replaced: \
                     {e}; unpacking elsewhere",
                    normalize(place).display()
                ),
                None => format!(
                    "cannot write the unpacked table {}: {e}; trying elsewhere",
                    normalize(place).display()
                ),
            }),
        }
    }
    note(format!(
        "unpacking {} into memory (no cache directory could be written; set \
         NPUZZLE_CACHE_DIR to a writable directory to share one copy between runs)",
        normalize(packed).display()
    ));
    let mut image = Vec::new();
    match decode_checked(packed, &header, &mut image) {
        Ok(()) => {}
        Err(UnpackError::Source(e)) => return Err(e),
        Err(UnpackError::Target(e)) => return Err(fail(packed, Problem::Io(e))),
    }
    let pdb = Pdb::from_bytes(TableBytes::Owned(Arc::new(image)))
        .map_err(|e| fail(packed, Problem::Pdb(e)))?;
    Ok((
        pdb,
        Trust::Checked {
            copy: None,
            identity: None,
        },
    ))
}

/// Opens a packed table for lookups (see [`open_noting`]), silently.
pub fn open(packed: &Path) -> Result<TableFile, OpenError> {
    open_noting(packed, &mut |_| {})
}

/// Checks a packed or raw file completely: header, length, table CRC and
/// sampled values (for packed files also zstd's frame checksum, and the
/// unpacked copies of the same build), and its values proven exact: a
/// named partition's table against its shipped digest, any other built
/// again and compared ([`Pdb::check_exact`]).
pub fn verify(path: &Path) -> Result<Header, OpenError> {
    if !is_packed(path) {
        let pdb = open_unpacked(path)?;
        pdb.verify().map_err(|e| fail(path, Problem::Pdb(e)))?;
        check_values_exact(&pdb, path)?;
        check_name(path, pdb.header(), unpacked_file_name(pdb.pattern()))?;
        return Ok(pdb.header().clone());
    }
    let (header, header_bytes) = read_packed_header(path)?;
    let mut image = Vec::new();
    decode_checked(path, &header, &mut image).map_err(|e| match e {
        UnpackError::Source(e) => e,
        UnpackError::Target(e) => fail(path, Problem::Io(e)),
    })?;
    let pdb = Pdb::from_bytes(&image[..]).map_err(|e| fail(path, Problem::Pdb(e)))?;
    check_values_exact(&pdb, path)?;
    drop(image);
    for cache in cache_paths(path) {
        let Ok(pdb) = open_unpacked(&cache) else {
            continue;
        };
        if pdb.bytes()[..HEADER_LEN] != header_bytes[..] {
            continue; // another build's copy: replaced at the next open
        }
        if let Err(error) = pdb.verify() {
            return Err(fail(
                path,
                Problem::DamagedCache {
                    cache: normalize(&cache),
                    error,
                },
            ));
        }
    }
    check_name(path, &header, file_name(header.pattern()))?;
    Ok(header)
}

/// A table whose name is not the one its header's pattern has: solvers
/// look tables up by name, and refuse this one as not the table wanted.
fn check_name(path: &Path, header: &Header, wanted: String) -> Result<(), OpenError> {
    let name = path.file_name().map(|n| n.to_string_lossy());
    if name.as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    Err(fail(
        path,
        Problem::Pdb(PdbError::Malformed {
            what: format!(
                "its name is not the one its contents have: it holds the table of tiles {} \
                 ({wanted}), and a solver looking for the table its name says refuses it",
                header.pattern()
            ),
        }),
    ))
}

/// The values checked in full and proven exact: a named partition's table
/// by its shipped digest, any other built again and compared.
fn check_values_exact<D: AsRef<[u8]> + Sync>(pdb: &Pdb<D>, path: &Path) -> Result<(), OpenError> {
    let known = pdb
        .check_values_fully()
        .and_then(|()| pdb.check_known_digest())
        .map_err(|e| fail(path, Problem::Pdb(e)))?;
    if !known {
        check_memory_for_proof(pdb.pattern(), path)?;
        pdb.check_exact().map_err(|e| fail(path, Problem::Pdb(e)))?;
    }
    Ok(())
}

/// [`Pdb::check_exact`] builds the table again: refused up front when the
/// machine has less memory available than a build of `pattern` takes
/// (the figure `pdb build` refuses with), rather than left to the
/// allocator to abort the process.
fn check_memory_for_proof(pattern: &Pattern, path: &Path) -> Result<(), OpenError> {
    let needed = crate::generate::memory_needed(pattern);
    match crate::generate::available_memory() {
        Some(available) if available < needed => {
            Err(fail(path, Problem::NoMemoryToProve { needed, available }))
        }
        _ => Ok(()),
    }
}

/// Whether the file starts with zstd's frame magic.
pub fn is_packed(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    open_file(path)
        .map_err(|_| io::Error::other("not a readable file"))
        .and_then(|mut f| f.read_exact(&mut magic))
        .map(|_| magic == [0x28, 0xB5, 0x2F, 0xFD])
        .unwrap_or(false)
}

/// Opens every table of `partition` from `dir`, checking that each holds the
/// pattern its name promises; cache problems are told through `note`. A
/// table that several partitions of a catalogue hold is opened (and mapped)
/// once.
pub fn open_partition_noting(
    dir: &Path,
    partition: &Partition,
    note: &mut dyn FnMut(String),
) -> Result<Vec<TableFile>, OpenError> {
    let mut tables: Vec<TableFile> = Vec::with_capacity(partition.patterns().len());
    for (i, pattern) in partition.patterns().iter().enumerate() {
        if let Some(earlier) = partition.patterns()[..i].iter().position(|p| p == pattern) {
            tables.push(tables[earlier].clone());
            continue;
        }
        let path = dir.join(file_name(pattern));
        let pdb = open_noting(&path, note)?;
        pdb.expect_pattern(pattern)
            .map_err(|e| fail(&path, Problem::Pdb(e)))?;
        tables.push(pdb);
    }
    Ok(tables)
}

/// Opens every table of `partition` from `dir` (see [`open_partition_noting`]).
pub fn open_partition(dir: &Path, partition: &Partition) -> Result<Vec<TableFile>, OpenError> {
    open_partition_noting(dir, partition, &mut |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that records the size of every write it is given.
    struct Recorder {
        bytes: Vec<u8>,
        writes: Vec<usize>,
    }

    impl Write for Recorder {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(bytes);
            self.writes.push(bytes.len());
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Pieces of any size reach the file as whole aligned blocks, in
    /// order, and the tail at the end.
    #[test]
    fn block_writer_hands_over_whole_blocks() {
        let image: Vec<u8> = (0..5 * BLOCK + 12_345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut writer = BlockWriter::new(Recorder {
            bytes: Vec::new(),
            writes: Vec::new(),
        });
        let mut rest = &image[..];
        for piece in [1usize, 999_999, 3 * BLOCK, 17].into_iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (head, tail) = rest.split_at(piece.min(rest.len()));
            writer.write_all(head).unwrap();
            rest = tail;
        }
        writer.flush().unwrap();
        let recorder = writer.inner;
        assert_eq!(recorder.bytes, image);
        let (tail, blocks) = recorder.writes.split_last().unwrap();
        assert_eq!(blocks, [BLOCK; 5]);
        assert_eq!(*tail, 12_345);
    }

    /// A hand-given table too big to prove on this machine is refused with
    /// the figures and what to do, and not called damaged: rebuilding it
    /// would not help.
    #[test]
    fn a_proof_beyond_memory_is_refused_with_the_figures() {
        let error = OpenError::new(
            Path::new("/tables/5x5-blank-first-zero-aware-1.2.3.pdb.zst"),
            Problem::NoMemoryToProve {
                needed: 5_300_000_000,
                available: 2_100_000_000,
            },
        );
        let message = error.to_string();
        for part in [
            "given by hand",
            "5.3 GB",
            "2.1 GB is available",
            "free memory",
        ] {
            assert!(message.contains(part), "{message}");
        }
        assert!(!error.needs_rebuild(), "{message}");
        assert!(crate::generate::available_memory().is_some_and(|bytes| bytes > 0));
    }
}
