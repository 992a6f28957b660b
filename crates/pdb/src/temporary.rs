//! Temporary files that become table files and stamps: their names, their
//! clean-up and their permissions. Both writers (`file.rs` for tables,
//! `checked.rs` for stamps) use these; they use nothing of either.

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// A new temporary file in `dir` for a file to be named `name`:
/// `.NAME.RANDOM.tmp`, the pattern [`remove_stale_temporaries`] clears.
pub(crate) fn temporary_for(dir: &Path, name: &str) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
}

/// Table files are readable by all and writable by none (0444): other
/// users share the cache, and nothing should modify a mapped file in place.
#[cfg(unix)]
pub(crate) fn make_read_only(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(0o444))
}

#[cfg(not(unix))]
pub(crate) fn make_read_only(file: &File) -> io::Result<()> {
    let mut permissions = file.metadata()?.permissions();
    permissions.set_readonly(true);
    file.set_permissions(permissions)
}

/// Removes temporary files left by killed writers of `name` in `dir`. Only
/// called with the directory's lock held, so no live writer owns them.
pub(crate) fn remove_stale_temporaries(dir: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        if file_name.starts_with(&prefix) && file_name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}
