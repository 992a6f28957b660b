//! The C ABI of npuzzle: `include/npuzzle.h` is generated from this file by
//! cbindgen and checked against it by a test.
//!
//! Every function returns an `npuzzle_status`; on failure the thread's last
//! message (`npuzzle_last_error`) says what went wrong and what to do. No
//! panic crosses the boundary: each call runs under `catch_unwind`, and a
//! panic becomes `NPUZZLE_INTERNAL` with its message.
//!
//! `unsafe` here is the C boundary itself: raw pointers from the caller,
//! each use with the promise it relies on.
#![allow(non_camel_case_types)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use npuzzle::{Board, Error, Goal, Partition, Solver, Tables};

/// What a call did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum npuzzle_status {
    /// Done.
    NPUZZLE_OK = 0,
    /// A null pointer, a bad UTF-8 path or an unknown partition name.
    NPUZZLE_INVALID_ARGUMENT = 1,
    /// The tiles are not a board (not a permutation of 0..n*n-1, or n*n is
    /// not a square from 2x2 up).
    NPUZZLE_INVALID_BOARD = 2,
    /// The board is of another size than the tables.
    NPUZZLE_WRONG_SIZE = 3,
    /// The board cannot reach the goal.
    NPUZZLE_UNSOLVABLE = 4,
    /// Tables missing or damaged: rebuild them (see the message).
    NPUZZLE_TABLES = 5,
    /// The move buffer is too small: `*length` holds the moves needed.
    NPUZZLE_BUFFER_TOO_SMALL = 6,
    /// The node limit was reached first.
    NPUZZLE_NODE_LIMIT = 7,
    /// A bug in npuzzle (a caught panic): please report the message.
    NPUZZLE_INTERNAL = 8,
}

use npuzzle_status::*;

/// Open tables and a solver over them. Opaque: create with `npuzzle_open`,
/// free with `npuzzle_close`. One handle may be used from several threads
/// at once.
pub struct npuzzle_solver {
    solver: Solver,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

fn fail(status: npuzzle_status, message: &str) -> npuzzle_status {
    set_error(message);
    status
}

fn status_of(error: &Error) -> npuzzle_status {
    match error {
        Error::Tables(_) | Error::Search(_) => NPUZZLE_TABLES,
        Error::Partition(_) => NPUZZLE_INVALID_ARGUMENT,
        Error::WrongSize { .. } => NPUZZLE_WRONG_SIZE,
        Error::Unsolvable { .. } => NPUZZLE_UNSOLVABLE,
        Error::NodeLimit { .. } => NPUZZLE_NODE_LIMIT,
        _ => NPUZZLE_INTERNAL,
    }
}

/// Runs `body`, turning a panic into `NPUZZLE_INTERNAL` and recording the
/// message of any failure.
fn guarded(body: impl FnOnce() -> Result<(), (npuzzle_status, String)>) -> npuzzle_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            set_error("");
            NPUZZLE_OK
        }
        Ok(Err((status, message))) => fail(status, &message),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            fail(
                NPUZZLE_INTERNAL,
                &format!("internal error in npuzzle (please report it): {what}"),
            )
        }
    }
}

fn from_error(error: Error) -> (npuzzle_status, String) {
    (status_of(&error), error.to_string())
}

/// Reads a C string argument.
///
/// # Safety
/// `text` is null or points to a NUL-terminated string.
unsafe fn text_arg<'a>(
    text: *const c_char,
    what: &str,
) -> Result<&'a str, (npuzzle_status, String)> {
    if text.is_null() {
        return Err((
            NPUZZLE_INVALID_ARGUMENT,
            format!("{what} is a null pointer"),
        ));
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    unsafe { CStr::from_ptr(text) }
        .to_str()
        .map_err(|_| (NPUZZLE_INVALID_ARGUMENT, format!("{what} is not UTF-8")))
}

/// Reads a board argument: `len` tiles, 0 for the blank, row by row.
///
/// # Safety
/// `tiles` is null or points to `len` readable bytes.
unsafe fn board_arg(tiles: *const u8, len: usize) -> Result<Board, (npuzzle_status, String)> {
    if tiles.is_null() {
        return Err((
            NPUZZLE_INVALID_ARGUMENT,
            "tiles is a null pointer".to_string(),
        ));
    }
    // SAFETY: `len` readable bytes, as the caller promises.
    let tiles = unsafe { std::slice::from_raw_parts(tiles, len) };
    Board::from_tiles(tiles.iter().map(|&t| t as u16).collect())
        .map_err(|e| (NPUZZLE_INVALID_BOARD, e.to_string()))
}

/// Opens the tables of `partition` (NULL: the default for the size, "7-8"
/// for 4x4) for boards of side `size` and the goal `1 2 ... 0` from the
/// directory `pdb_dir`, where `npuzzle pdb build` wrote them. On success
/// `*out` holds a handle for `npuzzle_close`.
///
/// # Safety
/// `pdb_dir` is a NUL-terminated string, `partition` one or NULL, and `out`
/// a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn npuzzle_open(
    pdb_dir: *const c_char,
    partition: *const c_char,
    size: u32,
    out: *mut *mut npuzzle_solver,
) -> npuzzle_status {
    guarded(|| {
        if out.is_null() {
            return Err((
                NPUZZLE_INVALID_ARGUMENT,
                "out is a null pointer".to_string(),
            ));
        }
        // SAFETY: `out` is valid, as the caller promises.
        unsafe { *out = ptr::null_mut() };
        // SAFETY: NUL-terminated strings or null, as the caller promises.
        let dir = unsafe { text_arg(pdb_dir, "pdb_dir") }?;
        let size = size as usize;
        let name = if partition.is_null() {
            Partition::default_name(size)
        } else {
            // SAFETY: as above.
            unsafe { text_arg(partition, "partition") }?
        };
        let partition = Partition::parse(name, size, Goal::BlankLast)
            .map_err(|e| (NPUZZLE_INVALID_ARGUMENT, e.to_string()))?;
        let tables = Tables::open_partition(dir, &partition).map_err(from_error)?;
        let solver = Solver::new(tables).map_err(from_error)?;
        let handle = Box::into_raw(Box::new(npuzzle_solver { solver }));
        // SAFETY: `out` is valid, as the caller promises.
        unsafe { *out = handle };
        Ok(())
    })
}

/// Writes the heuristic value of the board (`len` tiles, row by row, 0 for
/// the blank) to `*value`: a lower bound on its solution length, the number
/// `npuzzle pdb lookup` prints last.
///
/// # Safety
/// `solver` comes from `npuzzle_open`, `tiles` points to `len` bytes and
/// `value` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn npuzzle_lookup(
    solver: *const npuzzle_solver,
    tiles: *const u8,
    len: usize,
    value: *mut u32,
) -> npuzzle_status {
    guarded(|| {
        if solver.is_null() || value.is_null() {
            return Err((
                NPUZZLE_INVALID_ARGUMENT,
                "solver or value is a null pointer".to_string(),
            ));
        }
        // SAFETY: a live handle from `npuzzle_open`, as the caller promises.
        let solver = unsafe { &(*solver).solver };
        // SAFETY: `len` readable bytes, as the caller promises.
        let board = unsafe { board_arg(tiles, len) }?;
        let h = solver.tables().heuristic(&board).map_err(from_error)?;
        // SAFETY: `value` is valid, as the caller promises.
        unsafe { *value = h };
        Ok(())
    })
}

/// Solves the board optimally. The moves go to `moves` as letters `U D L R`
/// (the direction each tile slides), at most `capacity` of them, followed by
/// a NUL if there is room; `*length` gets the number of moves, also when
/// the buffer is too small (`NPUZZLE_BUFFER_TOO_SMALL`: call again with a
/// buffer of `*length + 1`). `expanded` may be NULL; else it gets the nodes
/// the search expanded. `max_nodes` 0 means no limit.
///
/// # Safety
/// `solver` comes from `npuzzle_open`, `tiles` points to `len` bytes,
/// `moves` to `capacity` writable bytes (or is NULL with `capacity` 0),
/// `length` is valid and `expanded` valid or NULL.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn npuzzle_solve(
    solver: *const npuzzle_solver,
    tiles: *const u8,
    len: usize,
    max_nodes: u64,
    moves: *mut c_char,
    capacity: usize,
    length: *mut usize,
    expanded: *mut u64,
) -> npuzzle_status {
    guarded(|| {
        if solver.is_null() || length.is_null() || (moves.is_null() && capacity > 0) {
            return Err((
                NPUZZLE_INVALID_ARGUMENT,
                "solver, length or moves is a null pointer".to_string(),
            ));
        }
        // SAFETY: a live handle from `npuzzle_open`, as the caller promises.
        let solver = unsafe { &(*solver).solver };
        // SAFETY: `len` readable bytes, as the caller promises.
        let board = unsafe { board_arg(tiles, len) }?;
        let limit = (max_nodes > 0).then_some(max_nodes);
        let solution = solver.solve_limited(&board, limit).map_err(from_error)?;
        let text = solution.moves_text();
        // SAFETY: valid pointers, as the caller promises.
        unsafe {
            *length = text.len();
            if !expanded.is_null() {
                *expanded = solution.expanded;
            }
        }
        if text.len() > capacity {
            return Err((
                NPUZZLE_BUFFER_TOO_SMALL,
                format!(
                    "the solution has {} moves; the buffer holds {capacity}",
                    text.len()
                ),
            ));
        }
        // SAFETY: `capacity` writable bytes at `moves`, as the caller promises.
        unsafe {
            ptr::copy_nonoverlapping(text.as_ptr(), moves.cast::<u8>(), text.len());
            if text.len() < capacity {
                *moves.add(text.len()) = 0;
            }
        }
        Ok(())
    })
}

/// The message of the last failed call on this thread (empty after a
/// success). Valid until the next call on this thread; do not free it.
#[no_mangle]
pub extern "C" fn npuzzle_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// Frees a handle from `npuzzle_open` (NULL is allowed).
///
/// # Safety
/// `solver` comes from `npuzzle_open` and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn npuzzle_close(solver: *mut npuzzle_solver) {
    if !solver.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: a handle from `npuzzle_open`, freed once, as the caller promises.
            drop(unsafe { Box::from_raw(solver) });
        }));
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The checked-in header is what cbindgen makes of this file now.
    /// `NPUZZLE_BLESS=1 cargo test -p npuzzle-capi` rewrites it.
    #[test]
    fn header_matches_the_code() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).unwrap();
        let mut generated = Vec::new();
        cbindgen::Builder::new()
            .with_config(config)
            .with_src(root.join("src/lib.rs"))
            .generate()
            .expect("cbindgen reads src/lib.rs")
            .write(&mut generated);
        let generated = String::from_utf8(generated).unwrap();
        let path = root.join("include/npuzzle.h");
        if std::env::var_os("NPUZZLE_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "include/npuzzle.h is stale: run NPUZZLE_BLESS=1 cargo test -p npuzzle-capi"
        );
    }
}
