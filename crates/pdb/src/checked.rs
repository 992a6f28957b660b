//! Stamps that let later opens of an unpacked copy skip its full checks.
//!
//! Checking a copy in full (the CRC of the whole table, then sampled
//! values) reads every byte: some 50 ms for the 988 MB of the 4x4 `trio`,
//! paid by every process that opens it. After a copy passes, a stamp
//! `NAME.pdb.checked` beside it records the copy's identity as the
//! filesystem reports it (device, inode, length, modification and change
//! times to the nanosecond), the table's CRC from its header and the
//! boot's id. An open whose copy matches its stamp skips the checks; any
//! other runs them in full. A write to the copy moves its change time (the
//! kernel sets it; no program can set it back), a new unpack is a new
//! inode, and a reboot a new boot id, so the copy is checked again after
//! each: once per boot, as its pages come from the disk again.
//!
//! A stamp carries a keyed BLAKE3 code over its text, under a key that
//! only this user can read (`.stamp-key` in the cache directory, 0600), so
//! a stamp written by hand does not vouch for a rewritten copy. Stamps and
//! the key are read only as small regular files, never through a link,
//! without blocking on a FIFO; anything else means "check in full".
//!
//! The change time moves only if the write falls in a later tick of the
//! filesystem's clock than the time recorded. So a copy is stamped only
//! when its last change is [`SETTLED`] or more before its check began,
//! longer than any filesystem's tick: a later write then always moves it.
//! A copy unpacked just now was checked as it was written, and is stamped
//! at a later open.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::temporary::{make_read_only, temporary_for};

/// How long before a check a copy must last have changed to be stamped.
pub const SETTLED: Duration = Duration::from_secs(3);

/// What the filesystem and the kernel say of an open copy: the stamp's
/// text, and whether the copy has settled.
pub(crate) struct Identity {
    stamp: String,
    settled: bool,
}

/// The stamp file of the unpacked copy at `copy`.
pub fn stamp_path(copy: &Path) -> PathBuf {
    let mut name = copy.file_name().unwrap_or_default().to_os_string();
    name.push(".checked");
    copy.with_file_name(name)
}

impl Identity {
    /// The identity of the copy open as `file`, whose header gives
    /// `table_crc`, taken at `now`, before any of its bytes are checked.
    /// None where the platform gives no inode and change time.
    pub(crate) fn of(file: &File, table_crc: u32, now: SystemTime) -> Option<Identity> {
        let (stamp, changed) = identity(file, table_crc)?;
        let settled = now
            .duration_since(UNIX_EPOCH)
            .is_ok_and(|now| now.saturating_sub(changed) >= SETTLED);
        Some(Identity { stamp, settled })
    }

    /// Whether the copy's stamp says it passed its full checks as it is.
    pub(crate) fn is_stamped(&self, copy: &Path) -> bool {
        let Some(key) = read_key(copy) else {
            return false;
        };
        read_small_file(&stamp_path(copy), STAMP_LIMIT)
            .is_some_and(|text| text == signed(&self.stamp, &key).as_bytes())
    }

    /// Records that the copy passed its full checks, if it has settled.
    /// Best effort: a directory that cannot be written keeps no stamp, and
    /// its copies are checked in full at every open.
    pub(crate) fn stamp(&self, copy: &Path) {
        if !self.settled {
            return;
        }
        if let Some(key) = read_key(copy).or_else(|| make_key(copy)) {
            let _ = write_stamp(&stamp_path(copy), &signed(&self.stamp, &key));
        }
    }
}

/// The record beside a copy that its table, with the digest it names, was
/// built again and found equal.
pub fn exact_path(copy: &Path) -> PathBuf {
    let mut name = copy.file_name().unwrap_or_default().to_os_string();
    name.push(".exact");
    copy.with_file_name(name)
}

fn exact_text(digest: &[u8; 32]) -> String {
    format!(
        "npuzzle exact table 1\nblake3 {}\n",
        crate::known::hex(digest)
    )
}

/// Whether the record beside `copy` says a table of this digest was built
/// again and found equal.
pub(crate) fn is_proven_exact(copy: &Path, digest: &[u8; 32]) -> bool {
    let Some(key) = read_key(copy) else {
        return false;
    };
    read_small_file(&exact_path(copy), STAMP_LIMIT)
        .is_some_and(|text| text == signed(&exact_text(digest), &key).as_bytes())
}

/// Records that the table of this digest was built again and found equal.
/// Best effort, like the stamps.
pub(crate) fn record_exact(copy: &Path, digest: &[u8; 32]) {
    if let Some(key) = read_key(copy).or_else(|| make_key(copy)) {
        let _ = write_stamp(&exact_path(copy), &signed(&exact_text(digest), &key));
    }
}

/// The longest stamp read; real ones are some 200 bytes.
const STAMP_LIMIT: u64 = 4096;

/// The stamp's text followed by its keyed code.
fn signed(text: &str, key: &[u8; 32]) -> String {
    let code = blake3::keyed_hash(key, text.as_bytes());
    format!("{text}code {}\n", code.to_hex())
}

/// The key file of the directory holding `copy`.
fn key_path(copy: &Path) -> PathBuf {
    copy.with_file_name(".stamp-key")
}

/// The directory's key: 32 bytes in a regular file of this user's that
/// no one else can read or write.
fn read_key(copy: &Path) -> Option<[u8; 32]> {
    read_key_file(&key_path(copy))
}

/// The key in the file at `path`, on the terms of [`read_key`].
fn read_key_file(path: &Path) -> Option<[u8; 32]> {
    let (bytes, owner, mode) = read_small_file_with_owner(path, 32)?;
    let mine = owner == rustix::process::geteuid().as_raw();
    if !mine || mode & 0o077 != 0 {
        return None;
    }
    bytes.try_into().ok()
}

/// A new key for the directory holding `copy`, unless one appeared
/// meanwhile (then that one, if it is readable).
fn make_key(copy: &Path) -> Option<[u8; 32]> {
    make_key_file(&key_path(copy))
}

/// A new key in the file at `path`, unless one appeared meanwhile.
fn make_key_file(path: &Path) -> Option<[u8; 32]> {
    let mut key = [0u8; 32];
    let mut filled = 0;
    while filled < key.len() {
        filled +=
            rustix::rand::getrandom(&mut key[filled..], rustix::rand::GetRandomFlags::empty())
                .ok()?;
    }
    let dir = path.parent()?;
    // Made 0600 by tempfile; persisted only where no key is yet.
    let mut temporary = temporary_for(dir, ".stamp-key").ok()?;
    temporary.write_all(&key).ok()?;
    match temporary.persist_noclobber(path) {
        Ok(_) => Some(key),
        Err(_) => read_key_file(path),
    }
}

/// A key of this user's, for codes that only the user's own runs can make:
/// the file `name` in `dir` (made with the directory if missing), on the
/// terms of the stamps' key. Its path comes back for messages.
pub fn user_key(dir: &Path, name: &str) -> Result<UserKey, String> {
    let path = dir.join(name);
    if let Some(key) = read_key_file(&path) {
        return Ok(UserKey { key, path });
    }
    fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let existed = fs::symlink_metadata(&path).is_ok();
    let key = make_key_file(&path).ok_or_else(|| match existed {
        true => format!(
            "{} is not a key of this user's (32 bytes, mode 0600, a regular file): \
             remove it, and a new one is made",
            path.display()
        ),
        false => format!(
            "cannot write a key to {}: make {} writable, or set XDG_DATA_HOME to a \
             directory you can write",
            path.display(),
            dir.display()
        ),
    })?;
    Ok(UserKey { key, path })
}

/// A key of the user's (see [`user_key`]).
pub struct UserKey {
    key: [u8; 32],
    path: PathBuf,
}

impl UserKey {
    /// The keyed BLAKE3 code of `bytes`, in hex.
    pub fn code(&self, bytes: &[u8]) -> String {
        blake3::keyed_hash(&self.key, bytes).to_hex().to_string()
    }

    /// Where the key is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The bytes of a regular file of at most `limit` bytes, read without
/// following a link at its name or blocking on a FIFO; None for anything
/// else.
pub(crate) fn read_small_file(path: &Path, limit: u64) -> Option<Vec<u8>> {
    read_small_file_with_owner(path, limit).map(|(bytes, _, _)| bytes)
}

/// [`read_small_file`], with the file's owner and mode.
#[cfg(unix)]
fn read_small_file_with_owner(path: &Path, limit: u64) -> Option<(Vec<u8>, u32, u32)> {
    use rustix::fs::{FileType, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
    let fd = rustix::fs::open(path, flags | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    let small = u64::try_from(stat.st_size).is_ok_and(|size| size <= limit);
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile || !small {
        return None;
    }
    let mut bytes = Vec::new();
    File::from(fd)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    let within = bytes.len() as u64 <= limit;
    within.then_some((bytes, stat.st_uid, stat.st_mode & 0o7777))
}

#[cfg(not(unix))]
fn read_small_file_with_owner(_path: &Path, _limit: u64) -> Option<(Vec<u8>, u32, u32)> {
    None
}

/// Written through a temporary file and renamed, so a reader sees a whole
/// stamp or none; read-only, like the tables, for others sharing the cache.
fn write_stamp(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let mut temporary = temporary_for(dir, &name)?;
    temporary.write_all(text.as_bytes())?;
    make_read_only(temporary.as_file())?;
    temporary.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(unix)]
fn identity(file: &File, table_crc: u32) -> Option<(String, Duration)> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let changed = Duration::new(
        u64::try_from(meta.ctime()).ok()?,
        u32::try_from(meta.ctime_nsec()).ok()?,
    );
    let stamp = format!(
        "npuzzle checked copy 1\ndevice {}\ninode {}\nlength {}\nmodified {}.{:09}\n\
         changed {}.{:09}\ntable crc {table_crc:08x}\nboot {}\n",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        boot_id(),
    );
    Some((stamp, changed))
}

#[cfg(not(unix))]
fn identity(_file: &File, _table_crc: u32) -> Option<(String, Duration)> {
    None
}

/// The kernel's id of this boot (Linux), read once per process; elsewhere
/// none, and stamps last across boots.
fn boot_id() -> &'static str {
    static BOOT_ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BOOT_ID.get_or_init(|| {
        fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|id| id.trim().to_string())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_in(dir: &Path) -> PathBuf {
        let copy = dir.join("table.pdb");
        fs::write(&copy, b"table bytes").unwrap();
        copy
    }

    /// A copy is stamped only once settled, and then matches its stamp.
    #[test]
    fn stamps_settled_copies_only() {
        let dir = tempfile::tempdir().unwrap();
        let copy = copy_in(dir.path());
        let file = File::open(&copy).unwrap();
        let fresh = Identity::of(&file, 7, SystemTime::now()).unwrap();
        assert!(!fresh.settled);
        fresh.stamp(&copy);
        assert!(!stamp_path(&copy).exists());
        let later = SystemTime::now() + SETTLED;
        let settled = Identity::of(&file, 7, later).unwrap();
        settled.stamp(&copy);
        assert!(settled.is_stamped(&copy));
        assert!(Identity::of(&file, 7, later).unwrap().is_stamped(&copy));
        // Another build of the table (another CRC) does not match.
        assert!(!Identity::of(&file, 8, later).unwrap().is_stamped(&copy));
    }

    /// A write to the copy, or a new copy in its place, voids the stamp.
    #[test]
    fn changes_void_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let copy = copy_in(dir.path());
        let later = || SystemTime::now() + SETTLED;
        let identity = |copy: &Path| Identity::of(&File::open(copy).unwrap(), 7, later()).unwrap();
        identity(&copy).stamp(&copy);
        assert!(identity(&copy).is_stamped(&copy));
        // The same length, one byte changed in place.
        std::thread::sleep(Duration::from_millis(20));
        fs::OpenOptions::new()
            .write(true)
            .open(&copy)
            .unwrap()
            .write_all(b"T")
            .unwrap();
        assert!(!identity(&copy).is_stamped(&copy));
        identity(&copy).stamp(&copy);
        assert!(identity(&copy).is_stamped(&copy));
        // The same bytes under a new inode.
        let other = dir.path().join("other.pdb");
        fs::copy(&copy, &other).unwrap();
        fs::rename(&other, &copy).unwrap();
        assert!(!identity(&copy).is_stamped(&copy));
    }

    /// A stamp written by hand, or under another key, vouches for nothing.
    #[test]
    fn forged_stamps_are_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let copy = copy_in(dir.path());
        let later = SystemTime::now() + SETTLED;
        let identity = Identity::of(&File::open(&copy).unwrap(), 7, later).unwrap();
        let stamp = stamp_path(&copy);
        // The identity alone, as stamps were before they were signed.
        fs::write(&stamp, &identity.stamp).unwrap();
        assert!(!identity.is_stamped(&copy));
        // Signed under a key of one's own choosing.
        fs::remove_file(&stamp).unwrap();
        fs::write(&stamp, signed(&identity.stamp, &[7u8; 32])).unwrap();
        assert!(!identity.is_stamped(&copy));
        // The real stamp passes; a key others may read voids it.
        fs::remove_file(&stamp).unwrap();
        identity.stamp(&copy);
        assert!(identity.is_stamped(&copy));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let key = key_path(&copy);
            fs::set_permissions(&key, fs::Permissions::from_mode(0o644)).unwrap();
            assert!(!identity.is_stamped(&copy));
        }
    }

    /// A stamp that is a FIFO, a link to a device or a huge file is no
    /// stamp: read at once, without blocking or reading without end.
    #[cfg(unix)]
    #[test]
    fn odd_stamps_are_no_stamps() {
        let dir = tempfile::tempdir().unwrap();
        let copy = copy_in(dir.path());
        let later = SystemTime::now() + SETTLED;
        let identity = Identity::of(&File::open(&copy).unwrap(), 7, later).unwrap();
        identity.stamp(&copy);
        let stamp = stamp_path(&copy);
        let real = fs::read(&stamp).unwrap();
        fs::remove_file(&stamp).unwrap();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &stamp,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        assert!(!identity.is_stamped(&copy));
        fs::remove_file(&stamp).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &stamp).unwrap();
        assert!(!identity.is_stamped(&copy));
        fs::remove_file(&stamp).unwrap();
        // The real stamp behind a link: not followed either.
        let elsewhere = dir.path().join("elsewhere");
        fs::write(&elsewhere, &real).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &stamp).unwrap();
        assert!(!identity.is_stamped(&copy));
        fs::remove_file(&stamp).unwrap();
        let mut big = real.clone();
        big.resize(1 << 20, b'x');
        fs::write(&stamp, big).unwrap();
        assert!(!identity.is_stamped(&copy));
    }
}
