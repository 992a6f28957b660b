//! Where tables live and how they are opened from files (the `native`
//! feature): the search order of directories, the default build
//! directory, the complete sets in a directory, and opening one
//! partition's tables mapped and checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use npuzzle_board::Goal;
use npuzzle_pdb::file;
use npuzzle_pdb::{OpenError, Partition, Pattern};

use crate::error::{Error, TablesProblem};
use crate::tables::{puzzle_of, tables_error, Tables};

/// Where tables are looked for, in order: `explicit` (a front end's
/// `--pdb-dir`), else `$NPUZZLE_PDB_DIR`, else `./data`, else the user data
/// directory (`~/.local/share/npuzzle` on Linux).
pub fn search_dirs(explicit: Option<&Path>) -> Vec<PathBuf> {
    if let Some(dir) = explicit {
        return vec![dir.to_path_buf()];
    }
    if let Some(dir) = std::env::var_os("NPUZZLE_PDB_DIR").filter(|d| !d.is_empty()) {
        return vec![PathBuf::from(dir)];
    }
    let mut dirs = vec![PathBuf::from("data")];
    dirs.extend(file::user_data_dir());
    dirs
}

/// The directory among `dirs` that holds the first table of `partition`:
/// anything under its name counts (a FIFO, a device, a symbolic link loop),
/// so that opening it says what is wrong rather than that it is missing.
pub fn find_dir(dirs: &[PathBuf], partition: &Partition) -> Option<PathBuf> {
    let name = file::file_name(&partition.patterns()[0]);
    dirs.iter()
        .find(|d| std::fs::symlink_metadata(d.join(&name)).is_ok())
        .cloned()
}

/// The complete sets of tables for boards of side `size` and `goal` in
/// `dir`, by partition name: the named partitions, each also with any of
/// its parts zero-aware (`7z-8`), the named catalogues, and the sets of
/// tiles given by hand (`1,2,5,6;3,4,7,8`) that the files there cover.
pub fn sets_in(dir: &Path, size: usize, goal: Goal) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let present: std::collections::HashSet<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .collect();
    let mut names: Vec<String> = Vec::new();
    for name in npuzzle_pdb::known_partitions(size) {
        let parts: Vec<&str> = name.split('-').collect();
        for mask in 0..1u32 << parts.len() {
            let variant: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(i, part)| {
                    let z = if mask >> i & 1 == 1 { "z" } else { "" };
                    format!("{part}{z}")
                })
                .collect();
            names.push(variant.join("-"));
        }
    }
    names.extend(
        npuzzle_pdb::known_catalogues(size)
            .into_iter()
            .map(|(name, _, _)| name.to_string()),
    );
    let built = |name: &str| {
        Partition::parse(name, size, goal).ok().filter(|partition| {
            partition
                .patterns()
                .iter()
                .all(|pattern| present.contains(&file::file_name(pattern)))
        })
    };
    let sets: Vec<(String, Partition)> = names
        .into_iter()
        .filter_map(|name| built(&name).map(|partition| (name, partition)))
        .collect();
    // A partition that only a built catalogue holds is a part of that set,
    // not a set of its own: unless it is one a solver takes by itself.
    let in_catalogue = |partition: &Partition| {
        sets.iter().any(|(_, other)| {
            other.groups().len() > 1
                && partition
                    .patterns()
                    .iter()
                    .all(|p| other.patterns().contains(p))
        })
    };
    let taken_alone = Partition::strongest_first(size);
    let mut listed: Vec<String> = sets
        .iter()
        .filter(|(name, partition)| {
            partition.groups().len() > 1
                || taken_alone.contains(&name.as_str())
                || !in_catalogue(partition)
        })
        .map(|(name, _)| name.clone())
        .collect();
    let named = |partition: &Partition| {
        sets.iter().any(|(_, other)| {
            other.groups().len() == 1 && same_tables(other.patterns(), partition.patterns())
        })
    };
    listed.extend(
        hand_given_sets(&present, size, goal)
            .into_iter()
            .filter(|partition| !named(partition))
            .map(|partition| partition.name().to_string()),
    );
    listed
}

/// Whether two lists of patterns name the same table files.
fn same_tables(a: &[Pattern], b: &[Pattern]) -> bool {
    a.len() == b.len() && a.iter().all(|pattern| b.contains(pattern))
}

/// At most this many sets given by hand are listed from one directory,
/// found in at most this many steps (a directory of many overlapping
/// small tables could otherwise hold millions of ways to cover the tiles).
const MAX_HAND_GIVEN_SETS: usize = 32;
const MAX_COVER_STEPS: usize = 100_000;

/// The additive partitions whose every table is one of the files
/// `present`: tile sets that cover the tiles once each.
fn hand_given_sets(
    present: &std::collections::HashSet<String>,
    size: usize,
    goal: Goal,
) -> Vec<Partition> {
    if size > npuzzle_pdb::MAX_PDB_SIZE {
        return Vec::new();
    }
    let prefix = format!("{size}x{size}-{goal}-");
    // Each table file as its tile set's bits and its part of a name.
    let mut parts: Vec<(u64, String)> = present
        .iter()
        .filter_map(|name| {
            let label = name.strip_prefix(&prefix)?.strip_suffix(".pdb.zst")?;
            let (zero_aware, tiles) = match label.strip_prefix("zero-aware-") {
                Some(tiles) => ("z", tiles),
                None => ("", label),
            };
            let tiles: Vec<u8> = tiles
                .split('.')
                .map(|tile| tile.parse().ok())
                .collect::<Option<_>>()?;
            let mut bits = 0u64;
            for &tile in &tiles {
                if tile == 0 || usize::from(tile) >= size * size || bits >> tile & 1 == 1 {
                    return None;
                }
                bits |= 1 << tile;
            }
            let text: Vec<String> = tiles.iter().map(u8::to_string).collect();
            Some((bits, format!("{zero_aware}{}", text.join(","))))
        })
        .collect();
    parts.sort();
    let all = (u64::MAX >> (64 - size * size)) & !1;
    let mut covers = Vec::new();
    let reachable = parts.iter().fold(0, |bits, (part, _)| bits | part);
    if reachable & all == all {
        cover(&parts, all, 0, &mut Vec::new(), &mut covers, &mut {
            MAX_COVER_STEPS
        });
    }
    covers
        .into_iter()
        .filter_map(|chosen| {
            let partition = Partition::parse(&chosen.join(";"), size, goal).ok()?;
            let wanted = partition.patterns().iter().map(file::file_name);
            wanted
                .into_iter()
                .all(|name| present.contains(&name))
                .then_some(partition)
        })
        .collect()
}

/// Every way (up to [`MAX_HAND_GIVEN_SETS`], within `steps`) to cover the tiles of `all`
/// not yet in `covered` with disjoint `parts`, the lowest tile first.
fn cover(
    parts: &[(u64, String)],
    all: u64,
    covered: u64,
    chosen: &mut Vec<String>,
    covers: &mut Vec<Vec<String>>,
    steps: &mut usize,
) {
    if covers.len() >= MAX_HAND_GIVEN_SETS || *steps == 0 {
        return;
    }
    *steps -= 1;
    let left = all & !covered;
    if left == 0 {
        if chosen.len() > 1 {
            covers.push(chosen.clone());
        }
        return;
    }
    let lowest = left & left.wrapping_neg();
    for (bits, text) in parts {
        if bits & lowest != 0 && bits & covered == 0 {
            chosen.push(text.clone());
            cover(parts, all, covered | bits, chosen, covers, steps);
            chosen.pop();
        }
    }
}

/// The strongest complete set in `dirs` (see `sets_in`), with its
/// directory: the first of [`Partition::strongest_first`] built, else the
/// one with the most table entries (more entries, a stronger estimate),
/// the earlier directory and then the earlier listed breaking ties.
pub fn strongest_built(dirs: &[PathBuf], size: usize, goal: Goal) -> Option<(Partition, PathBuf)> {
    let listed = Partition::strongest_first(size).iter().find_map(|name| {
        let partition = Partition::parse(name, size, goal).ok()?;
        let dir = dirs.iter().find(|dir| {
            partition
                .patterns()
                .iter()
                .all(|pattern| dir.join(file::file_name(pattern)).is_file())
        })?;
        Some((partition, dir.clone()))
    });
    listed.or_else(|| {
        dirs.iter()
            .flat_map(|dir| {
                sets_in(dir, size, goal)
                    .into_iter()
                    .filter_map(move |name| {
                        let partition = Partition::parse(&name, size, goal).ok()?;
                        let entries: u64 = partition
                            .distinct_patterns()
                            .iter()
                            .map(|p| p.entries())
                            .sum();
                        Some((entries, partition, dir))
                    })
            })
            .enumerate()
            .min_by_key(|(order, (entries, _, _))| (std::cmp::Reverse(*entries), *order))
            .map(|(_, (_, partition, dir))| (partition, dir.clone()))
    })
}

/// Whether a file can be created in `dir` (an existing directory).
pub fn writable(dir: &Path) -> bool {
    dir.is_dir() && tempfile::tempfile_in(dir).is_ok()
}

/// Where a build writes when no directory is named: `$NPUZZLE_PDB_DIR`,
/// else `./data` when it is a writable directory, else the user data
/// directory.
pub fn default_build_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NPUZZLE_PDB_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("data");
    if writable(&local) {
        return local;
    }
    file::user_data_dir().unwrap_or(local)
}

impl Tables {
    /// Opens the default tables of the 15-puzzle (partition 7-8, goal
    /// blank-last: `cargo xtask build-pdb` or `npuzzle pdb build`) in `dir`.
    pub fn open(dir: impl AsRef<Path>) -> Result<Tables, Error> {
        let partition = Partition::parse(Partition::default_name(4), 4, Goal::BlankLast)?;
        Tables::open_partition(dir, &partition)
    }

    /// Opens the tables of `partition` in `dir`, checking each completely
    /// (header, and table CRC).
    pub fn open_partition(dir: impl AsRef<Path>, partition: &Partition) -> Result<Tables, Error> {
        let mut notes = Vec::new();
        let tables = Tables::open_noting(dir.as_ref(), partition, &mut |note| notes.push(note))?;
        Ok(Tables { notes, ..tables })
    }

    /// Finds the tables of `partition` in the directories of
    /// [`search_dirs`]`(explicit)` and opens them; what happens to their
    /// unpacked copies on the way (a damaged one replaced) goes to `note`.
    pub fn find(
        explicit: Option<&Path>,
        partition: &Partition,
        note: &mut dyn FnMut(String),
    ) -> Result<Tables, Error> {
        let dirs = search_dirs(explicit);
        let Some(dir) = find_dir(&dirs, partition) else {
            // A build without a directory named writes to the default one.
            let build_dir = match &dirs[..] {
                [only] => only.clone(),
                _ => default_build_dir(),
            };
            let (size, goal) = puzzle_of(partition);
            let built = dirs
                .iter()
                .flat_map(|dir| {
                    sets_in(dir, size, goal)
                        .into_iter()
                        .map(move |name| (name, dir.clone()))
                })
                .collect();
            return Err(tables_error(
                partition,
                &build_dir,
                TablesProblem::Missing {
                    file: file::file_name(&partition.patterns()[0]),
                    looked_in: dirs.into(),
                    built,
                },
            ));
        };
        Tables::open_noting(&dir, partition, note)
    }

    /// [`Tables::find`], telling `unpacking` first when the tables must be
    /// unpacked (the first open after a build), with the directory and bytes.
    pub fn find_telling(
        explicit: Option<&Path>,
        partition: &Partition,
        note: &mut dyn FnMut(String),
        unpacking: &mut dyn FnMut(&Path, u64),
    ) -> Result<Tables, Error> {
        if let Some(dir) = find_dir(&search_dirs(explicit), partition) {
            let bytes = Tables::bytes_to_unpack(&dir, partition);
            if bytes > 0 {
                unpacking(&dir, bytes);
            }
        }
        Tables::find(explicit, partition, note)
    }

    /// The bytes of `partition`'s tables in `dir` that have no unpacked
    /// copy yet: opening them unpacks that much first (once).
    pub fn bytes_to_unpack(dir: &Path, partition: &Partition) -> u64 {
        partition
            .distinct_patterns()
            .into_iter()
            .map(|pattern| dir.join(file::file_name(pattern)))
            .filter(|packed| !file::cache_paths(packed).iter().any(|p| p.is_file()))
            .filter_map(|packed| file::read_packed_header(&packed).ok())
            .map(|(header, _)| header.file_len())
            .sum()
    }

    fn open_noting(
        dir: &Path,
        partition: &Partition,
        note: &mut dyn FnMut(String),
    ) -> Result<Tables, Error> {
        let damaged =
            |e: OpenError| tables_error(partition, dir, TablesProblem::Damaged(Arc::new(e)));
        // Checking the tables runs in parallel, in a pool that a child of
        // `fork` starts again (see `pool`).
        let mut notes = Vec::new();
        let opened = crate::pool::in_engine_pool(|| {
            file::open_partition_noting(dir, partition, &mut |text| notes.push(text))
        });
        for text in notes {
            note(text);
        }
        let tables = opened.map_err(damaged)?;
        Tables::from_set(tables, partition, dir)
    }
}

/// How `npuzzle pdb verify` proved a table's values exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// A named partition's table: its BLAKE3 digest is the one shipped.
    ShippedDigest,
    /// Another pattern's: built again and compared entry by entry.
    BuiltAgain,
}

/// Checks a table file completely and proves its values exact
/// ([`file::verify`]), saying how.
pub fn verify_exact(path: &Path) -> Result<(npuzzle_pdb::Header, Exactness), OpenError> {
    let header = file::verify(path)?;
    let how = match npuzzle_pdb::known_table(header.pattern()) {
        Some(_) => Exactness::ShippedDigest,
        None => Exactness::BuiltAgain,
    };
    Ok((header, how))
}
