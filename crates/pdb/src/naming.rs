//! File names of tables: the same everywhere, so any tool finds them.

use crate::pattern::Pattern;

/// The packed (zstd) file's name for `pattern`: `NxN-GOAL-TILES.pdb.zst`.
pub fn file_name(pattern: &Pattern) -> String {
    format!("{}.zst", unpacked_file_name(pattern))
}

/// The unpacked file's name for `pattern`: `NxN-GOAL-TILES.pdb`, found in
/// `cache/` beside the packed file once a solver has opened it.
pub fn unpacked_file_name(pattern: &Pattern) -> String {
    format!(
        "{n}x{n}-{}-{}.pdb",
        pattern.goal(),
        pattern.label(),
        n = pattern.size()
    )
}
