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

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Mutex, Once};

use npuzzle::{Board, Error, ErrorKind, Goal, Partition, Run, Solution, Solver};

/// What a call did.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum npuzzle_status {
    /// Done.
    NPUZZLE_OK = 0,
    /// A null pointer, a bad UTF-8 string, an unknown name or option, or a
    /// handle that is not open (closed already, or never opened).
    NPUZZLE_INVALID_ARGUMENT = 1,
    /// The tiles are not a board (not a permutation of 0..n*n-1, or n*n is
    /// not a square from 2x2 up).
    NPUZZLE_INVALID_BOARD = 2,
    /// The board is of another size than the tables.
    NPUZZLE_WRONG_SIZE = 3,
    /// The board cannot reach the goal.
    NPUZZLE_UNSOLVABLE = 4,
    /// Tables missing, damaged or not usable now: the message says what to
    /// do (most often, rebuild them).
    NPUZZLE_TABLES = 5,
    /// The move buffer is too small: `*length` holds the moves needed, and
    /// the buffer needs one byte more for the NUL.
    NPUZZLE_BUFFER_TOO_SMALL = 6,
    /// The node limit was reached first.
    NPUZZLE_NODE_LIMIT = 7,
    /// A bug in npuzzle (a caught panic): please report the message.
    NPUZZLE_INTERNAL = 8,
    /// The time budget (`max_seconds`) ran out before an answer.
    NPUZZLE_TIME_LIMIT = 9,
}

use npuzzle_status::*;

/// `max_nodes` of `npuzzle_options`: no limit.
pub const NPUZZLE_NO_LIMIT: u64 = u64::MAX;

/// The options of `npuzzle solve`, for `npuzzle_open_with`. Fill it with
/// `npuzzle_options_init` first, then change what you need; strings may be
/// NULL (the default) and are copied by `npuzzle_open_with`.
#[repr(C)]
pub struct npuzzle_options {
    /// Directory of the tables; NULL: $NPUZZLE_PDB_DIR, else ./data, else
    /// the user data directory.
    pub pdb_dir: *const c_char,
    /// Partition or catalogue ("7-8", "septet", "1,2,3;4,5,6", "7z-8+L7-8");
    /// NULL: each side's default.
    pub partition: *const c_char,
    /// The board side `partition` is for; 0: every side.
    pub partition_size: u32,
    /// "blank-last" (1 2 ... 0, the default) or "blank-first" (0 1 2 ...).
    pub goal: *const c_char,
    /// "idastar", "astar" or "bfs" (run exactly as asked); NULL: the policy.
    pub algorithm: *const c_char,
    /// "pdb", "linear-conflict", "manhattan" or "hamming"; NULL: the policy.
    pub heuristic: *const c_char,
    /// Nonzero: the reflected lookup too (default 1).
    pub reflection: i32,
    /// Nonzero: fast, not optimal (the reduction).
    pub fast: i32,
    /// Nodes each search may expand; `NPUZZLE_NO_LIMIT` (default): none.
    pub max_nodes: u64,
    /// Threads sharing one board's search; 0 (default): one per core.
    pub threads: u32,
    /// Nonzero: open the tables of `partition` for `partition_size` now and
    /// fail if they are missing; else a side without its default tables is
    /// solved another way (not optimal past a node budget).
    pub require_tables: i32,
    /// Accept solutions up to this many percent longer than optimal, found
    /// far sooner (weighted IDA*; guaranteed); 0 (default): optimal.
    pub within: u32,
    /// Wall-clock seconds each search may take (0.001 to 1e6); 0
    /// (default): no limit. Optimal and weighted searches with no answer
    /// by then fail with `NPUZZLE_TIME_LIMIT`; near-optimal ones answer
    /// from where the beam got.
    pub max_seconds: f64,
    /// Optimal searches of boards up to 5x5: run A*+IDA* keeping positions
    /// in at most this many bytes (1024 to 2^50, at most the memory free;
    /// tables not counted), as `npuzzle solve --memory`; 0 (default):
    /// plain IDA*.
    pub memory: u64,
    /// Seconds each board the beam answers (5x5 without tables to 10x10)
    /// may spend on wider beams for a shorter answer (0.001 to 1e6), as
    /// `npuzzle solve --anytime`; the info's note says how long it
    /// searched and what that gained. 0 (default): the default beam. A
    /// value out of range is refused, the message naming it `anytime`.
    pub anytime_seconds: f64,
}

/// What a solution is, beside its moves (`npuzzle_solve_with`).
#[repr(C)]
pub struct npuzzle_info {
    /// The number of moves.
    pub length: usize,
    /// 1 if no shorter solution exists, 0 if not optimal.
    pub optimal: i32,
    /// Nodes the search expanded (0: no search ran).
    pub expanded: u64,
    /// Children it generated.
    pub generated: u64,
    /// The heuristic value of the start board (0 when no search ran).
    pub initial_estimate: u32,
    /// A lower bound on the optimal length (the length itself when optimal).
    pub lower_bound: u64,
    /// Seconds spent on this board.
    pub seconds: f64,
    /// Why the solution is not optimal (a NUL-terminated sentence), or
    /// NULL when it is. Valid until the next call on this thread.
    pub note: *const c_char,
    /// For a solution that is not optimal: at most this many percent over
    /// optimal (0: no guarantee, or optimal).
    pub within: u32,
}

/// A solver. Opaque: create with `npuzzle_open` or `npuzzle_open_with`,
/// free with `npuzzle_close`. One handle may be used from several threads
/// at once. A closed handle is refused (`NPUZZLE_INVALID_ARGUMENT`), and
/// closing it again does nothing.
pub struct npuzzle_solver {
    _private: [u8; 0],
}

/// An open solver: the engine, and for `npuzzle_open` handles the side
/// their tables are for.
struct Handle {
    solver: Solver,
    size: Option<usize>,
}

/// The open handles by address: a handle is an id, never dereferenced, so
/// a closed or foreign one is refused instead of touched.
fn handles() -> &'static Mutex<HashMap<usize, Arc<Handle>>> {
    static HANDLES: std::sync::OnceLock<Mutex<HashMap<usize, Arc<Handle>>>> =
        std::sync::OnceLock::new();
    HANDLES.get_or_init(|| Mutex::new(HashMap::new()))
}

fn register(handle: Handle) -> *mut npuzzle_solver {
    // Ids are never reused, so a stale handle cannot reach a newer solver.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) * 16;
    handles()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(id, Arc::new(handle));
    id as *mut npuzzle_solver
}

fn lookup_handle(solver: *const npuzzle_solver) -> Result<Arc<Handle>, (npuzzle_status, String)> {
    if solver.is_null() {
        return Err((
            NPUZZLE_INVALID_ARGUMENT,
            "solver is a null pointer".to_string(),
        ));
    }
    handles()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&(solver as usize))
        .cloned()
        .ok_or_else(|| {
            (
                NPUZZLE_INVALID_ARGUMENT,
                "solver is not an open handle (closed already, or not from npuzzle_open)"
                    .to_string(),
            )
        })
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    /// The note of the last `npuzzle_solve_with` on this thread.
    static LAST_NOTE: RefCell<CString> = RefCell::new(CString::default());
    /// The strategy of the last solve on this thread (a static string).
    static LAST_STRATEGY: Cell<&'static CStr> = const { Cell::new(c"") };
    /// Inside a call: a panic is reported through the status, not printed.
    static IN_CALL: Cell<bool> = const { Cell::new(false) };
}

/// Keeps panics inside calls off the host program's stderr; other panics
/// of the process print as before.
fn quiet_panics_in_calls() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_CALL.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

fn set_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

fn fail(status: npuzzle_status, message: &str) -> npuzzle_status {
    set_error(message);
    status
}

/// The C status of each kind of failure (ARCHITECTURE.md has every
/// door's table).
fn status_of(kind: ErrorKind) -> npuzzle_status {
    match kind {
        ErrorKind::InvalidBoard => NPUZZLE_INVALID_BOARD,
        ErrorKind::InvalidArgument => NPUZZLE_INVALID_ARGUMENT,
        ErrorKind::WrongSize => NPUZZLE_WRONG_SIZE,
        ErrorKind::Unsolvable => NPUZZLE_UNSOLVABLE,
        ErrorKind::Tables => NPUZZLE_TABLES,
        ErrorKind::NodeLimit => NPUZZLE_NODE_LIMIT,
        ErrorKind::TimeLimit => NPUZZLE_TIME_LIMIT,
        ErrorKind::OutOfMemory | ErrorKind::Io | ErrorKind::Stopped | ErrorKind::Internal => {
            NPUZZLE_INTERNAL
        }
        _ => NPUZZLE_INTERNAL,
    }
}

/// Runs `body`, turning a panic into `NPUZZLE_INTERNAL` and recording the
/// message of any failure.
fn guarded(body: impl FnOnce() -> Result<(), (npuzzle_status, String)>) -> npuzzle_status {
    quiet_panics_in_calls();
    IN_CALL.with(|c| c.set(true));
    let result = catch_unwind(AssertUnwindSafe(body));
    IN_CALL.with(|c| c.set(false));
    match result {
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

/// The message for C callers: table errors with the command that builds
/// them, node limits with the argument that sets the limit.
fn from_error(error: Error) -> (npuzzle_status, String) {
    let message = match &error {
        Error::Tables(e) => e.message_with(&e.build_command()),
        Error::NodeLimit { .. } => format!(
            "{error} (max_nodes: the argument of npuzzle_solve, or npuzzle_options.max_nodes)"
        ),
        Error::TimeLimit { .. } => format!("{error} (npuzzle_options.max_seconds)"),
        other => other.to_string(),
    };
    (status_of(error.kind()), message)
}

/// Reads a C string argument.
///
/// # Safety
/// `text` is null or points to a NUL-terminated string.
unsafe fn text_arg<'a>(
    text: *const c_char,
    what: &str,
) -> Result<&'a str, (npuzzle_status, String)> {
    // SAFETY: null or NUL-terminated, as the caller promises.
    unsafe { optional_text(text, what) }?.ok_or_else(|| {
        (
            NPUZZLE_INVALID_ARGUMENT,
            format!("{what} is a null pointer"),
        )
    })
}

/// Reads an optional C string argument (NULL: None).
///
/// # Safety
/// `text` is null or points to a NUL-terminated string.
unsafe fn optional_text<'a>(
    text: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, (npuzzle_status, String)> {
    if text.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null and NUL-terminated, as the caller promises.
    unsafe { CStr::from_ptr(text) }
        .to_str()
        .map(Some)
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

/// Reads a board argument of 16-bit tiles (boards up to 127x127).
///
/// # Safety
/// `tiles` is null or points to `len` readable `u16`s.
unsafe fn board_arg16(tiles: *const u16, len: usize) -> Result<Board, (npuzzle_status, String)> {
    if tiles.is_null() {
        return Err((
            NPUZZLE_INVALID_ARGUMENT,
            "tiles is a null pointer".to_string(),
        ));
    }
    // SAFETY: `len` readable u16s, as the caller promises.
    let tiles = unsafe { std::slice::from_raw_parts(tiles, len) };
    Board::from_tiles(tiles.to_vec()).map_err(|e| (NPUZZLE_INVALID_BOARD, e.to_string()))
}

fn invalid(message: String) -> (npuzzle_status, String) {
    (NPUZZLE_INVALID_ARGUMENT, message)
}

/// Writes `handle` to `*out`, or NULL first so that a failure leaves NULL.
///
/// # Safety
/// `out` is null or valid.
unsafe fn open_into(
    out: *mut *mut npuzzle_solver,
    open: impl FnOnce() -> Result<Handle, (npuzzle_status, String)>,
) -> npuzzle_status {
    guarded(|| {
        if out.is_null() {
            return Err(invalid("out is a null pointer".to_string()));
        }
        // SAFETY: `out` is valid, as the caller promises.
        unsafe { *out = ptr::null_mut() };
        let handle = register(open()?);
        // SAFETY: as above.
        unsafe { *out = handle };
        Ok(())
    })
}

/// Opens the tables of `partition` (NULL: the default for the size, "7-8"
/// for 4x4) for boards of side `size` and the goal `1 2 ... 0` from the
/// directory `pdb_dir`, where `npuzzle pdb build` wrote them; fails if they
/// are missing. Boards of other sizes get the defaults of
/// `npuzzle_options_init`. On success `*out` holds a handle for
/// `npuzzle_close`; on failure NULL.
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
    // SAFETY: the caller's promises are passed on.
    unsafe {
        open_into(out, || {
            let dir = text_arg(pdb_dir, "pdb_dir")?;
            let size = size as usize;
            let name = match optional_text(partition, "partition")? {
                Some(name) => name,
                None if Partition::has_default(size) => Partition::default_name(size),
                None => {
                    return Err(invalid(format!(
                        "npuzzle has no default tables for {size}x{size} boards: name a \
                         partition (tiles lists such as \"1,2,3;4,5,6\"), or open the solver \
                         with npuzzle_open_with, which needs no tables"
                    )))
                }
            };
            Partition::parse(name, size, Goal::BlankLast).map_err(|e| invalid(e.to_string()))?;
            let solver = Solver::builder()
                .pdb_dir(dir)
                .partition_for(size, name)
                .open_tables_now(size)
                .build()
                .map_err(from_error)?;
            Ok(Handle {
                solver,
                size: Some(size),
            })
        })
    }
}

/// Fills `options` with the defaults of `npuzzle solve`.
///
/// # Safety
/// `options` is a valid pointer (or NULL: nothing happens).
#[no_mangle]
pub unsafe extern "C" fn npuzzle_options_init(options: *mut npuzzle_options) {
    if options.is_null() {
        return;
    }
    // SAFETY: valid, as the caller promises.
    unsafe {
        options.write(npuzzle_options {
            pdb_dir: ptr::null(),
            partition: ptr::null(),
            partition_size: 0,
            goal: ptr::null(),
            algorithm: ptr::null(),
            heuristic: ptr::null(),
            reflection: 1,
            fast: 0,
            max_nodes: NPUZZLE_NO_LIMIT,
            threads: 0,
            require_tables: 0,
            within: 0,
            max_seconds: 0.0,
            memory: 0,
            anytime_seconds: 0.0,
        })
    };
}

/// A solver with the options of `npuzzle solve` (see `npuzzle_options`),
/// answering boards of every size from 2x2 to 127x127 with its policy.
/// On success `*out` holds a handle for `npuzzle_close`; on failure NULL.
///
/// # Safety
/// `options` points to options filled by `npuzzle_options_init` (strings
/// NUL-terminated or NULL), `out` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn npuzzle_open_with(
    options: *const npuzzle_options,
    out: *mut *mut npuzzle_solver,
) -> npuzzle_status {
    // SAFETY: the caller's promises are passed on.
    unsafe {
        open_into(out, || {
            if options.is_null() {
                return Err(invalid("options is a null pointer".to_string()));
            }
            let o = &*options;
            let size = (o.partition_size > 0).then_some(o.partition_size as usize);
            if o.require_tables != 0 && size.is_none() {
                return Err(invalid(
                    "require_tables needs partition_size: the side whose tables to open"
                        .to_string(),
                ));
            }
            // 0 is "none" for every number here.
            let seconds = |value: f64| (value != 0.0).then_some(value);
            let text = |value, field| optional_text(value, field).map(|t| t.map(str::to_string));
            let options = npuzzle::Options {
                pdb_dir: optional_text(o.pdb_dir, "pdb_dir")?.map(Into::into),
                goal: text(o.goal, "goal")?,
                partition: text(o.partition, "partition")?,
                partition_size: size,
                open_tables: size.filter(|_| o.require_tables != 0),
                algorithm: text(o.algorithm, "algorithm")?,
                heuristic: text(o.heuristic, "heuristic")?,
                fast: o.fast != 0,
                within: Some(i64::from(o.within)),
                reflection: Some(o.reflection != 0),
                max_nodes: (o.max_nodes != NPUZZLE_NO_LIMIT).then_some(o.max_nodes),
                max_seconds: seconds(o.max_seconds),
                anytime: seconds(o.anytime_seconds),
                memory: (o.memory > 0).then_some(o.memory),
                threads: (o.threads > 0).then_some(o.threads as usize),
                ..npuzzle::Options::default()
            };
            let builder = options.builder().map_err(from_error)?;
            let solver = builder.build().map_err(from_error)?;
            Ok(Handle { solver, size: None })
        })
    }
}

/// Writes the heuristic value of the board (`len` tiles, row by row, 0 for
/// the blank) to `*value`: a lower bound on its solution length, the number
/// `npuzzle pdb lookup` prints last, over the tables of the board's side.
///
/// # Safety
/// `solver` comes from `npuzzle_open` (open or closed), `tiles` points to
/// `len` bytes and `value` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn npuzzle_lookup(
    solver: *const npuzzle_solver,
    tiles: *const u8,
    len: usize,
    value: *mut u32,
) -> npuzzle_status {
    guarded(|| {
        let handle = lookup_handle(solver)?;
        if value.is_null() {
            return Err(invalid("value is a null pointer".to_string()));
        }
        // SAFETY: `len` readable bytes, as the caller promises.
        let board = unsafe { board_arg(tiles, len) }?;
        if let Some(size) = handle.size.filter(|&s| s != board.size()) {
            return Err(from_error(Error::WrongSize {
                board: board.size(),
                tables: size,
            }));
        }
        let h = handle.solver.lookup(&board).map_err(from_error)?.value;
        // SAFETY: `value` is valid, as the caller promises.
        unsafe { *value = h };
        Ok(())
    })
}

/// Solves a board and copies its moves as letters `U D L R` (the direction
/// each tile slides) and a NUL into `moves` (`capacity` bytes).
///
/// # Safety
/// `moves` points to `capacity` writable bytes or is NULL with `capacity` 0.
unsafe fn solve_into(
    handle: &Handle,
    board: &Board,
    max_nodes: Option<u64>,
    moves: *mut c_char,
    capacity: usize,
) -> Result<(Solution, String), (npuzzle_status, String)> {
    if moves.is_null() && capacity > 0 {
        return Err(invalid("moves is a null pointer".to_string()));
    }
    LAST_STRATEGY.with(|last| last.set(c""));
    let run = Run {
        max_nodes,
        ..Run::default()
    };
    let solution = handle.solver.solve_with(board, &run).map_err(from_error)?;
    LAST_STRATEGY.with(|last| last.set(static_c_name(solution.strategy().unwrap_or(""))));
    let text = solution.moves_text();
    if text.len() < capacity {
        // SAFETY: `capacity` writable bytes at `moves`, as the caller promises.
        unsafe {
            ptr::copy_nonoverlapping(text.as_ptr(), moves.cast::<u8>(), text.len());
            *moves.add(text.len()) = 0;
        }
    }
    Ok((solution, text))
}

fn too_small(length: usize, capacity: usize) -> (npuzzle_status, String) {
    (
        NPUZZLE_BUFFER_TOO_SMALL,
        format!(
            "the solution has {length} moves; the buffer holds {capacity} bytes and needs {} \
             (the moves and a NUL)",
            length + 1
        ),
    )
}

/// Solves the board (optimally where `npuzzle solve` does). The moves go to
/// `moves` as letters `U D L R` (the direction each tile slides) followed
/// by a NUL; `*length` gets the number of moves, also when the buffer is
/// too small (`NPUZZLE_BUFFER_TOO_SMALL`: call again with `*length + 1`
/// bytes). `expanded` may be NULL; else it gets the nodes the search
/// expanded. `max_nodes` is the most nodes the search may expand, 0
/// included, as in every door of npuzzle; `NPUZZLE_NO_LIMIT` keeps the
/// solver's limit (none unless set with `npuzzle_open_with`).
///
/// # Safety
/// `solver` comes from `npuzzle_open` (open or closed), `tiles` points to
/// `len` bytes, `moves` to `capacity` writable bytes (or is NULL with
/// `capacity` 0), `length` is valid and `expanded` valid or NULL.
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
        let handle = lookup_handle(solver)?;
        if length.is_null() {
            return Err(invalid("length is a null pointer".to_string()));
        }
        // SAFETY: `len` readable bytes, as the caller promises.
        let board = unsafe { board_arg(tiles, len) }?;
        // Boards of other sizes than the tables opened get the defaults,
        // as the header says and npuzzle_solve_with does.
        let limit = if max_nodes == NPUZZLE_NO_LIMIT {
            handle.solver.max_nodes()
        } else {
            Some(max_nodes)
        };
        // SAFETY: as the caller promises.
        let (solution, text) = unsafe { solve_into(&handle, &board, limit, moves, capacity) }?;
        // SAFETY: valid pointers, as the caller promises.
        unsafe {
            *length = text.len();
            if !expanded.is_null() {
                *expanded = solution.expanded();
            }
        }
        if text.len() >= capacity {
            return Err(too_small(text.len(), capacity));
        }
        Ok(())
    })
}

/// Solves the board (`len` 16-bit tiles, row by row, 0 for the blank:
/// boards up to 127x127) as `npuzzle_solve` does, with the solver's node
/// limit, and fills `*info` (the length also when the buffer is too small).
///
/// # Safety
/// `solver` comes from `npuzzle_open` or `npuzzle_open_with` (open or
/// closed), `tiles` points to `len` `uint16_t`s, `moves` to `capacity`
/// writable bytes (or is NULL with `capacity` 0), `info` is valid.
#[no_mangle]
pub unsafe extern "C" fn npuzzle_solve_with(
    solver: *const npuzzle_solver,
    tiles: *const u16,
    len: usize,
    moves: *mut c_char,
    capacity: usize,
    info: *mut npuzzle_info,
) -> npuzzle_status {
    guarded(|| {
        let handle = lookup_handle(solver)?;
        if info.is_null() {
            return Err(invalid("info is a null pointer".to_string()));
        }
        // SAFETY: `len` readable u16s, as the caller promises.
        let board = unsafe { board_arg16(tiles, len) }?;
        let limit = handle.solver.max_nodes();
        // SAFETY: as the caller promises.
        let (solution, text) = unsafe { solve_into(&handle, &board, limit, moves, capacity) }?;
        let lower_bound = if solution.optimal {
            text.len() as u64
        } else {
            solution.lower_bound.unwrap_or(0)
        };
        let note = match &solution.note {
            Some(why) if !solution.optimal => LAST_NOTE.with(|last| {
                *last.borrow_mut() = CString::new(why.replace('\0', " ")).unwrap_or_default();
                last.borrow().as_ptr()
            }),
            _ => ptr::null(),
        };
        // SAFETY: `info` is valid, as the caller promises.
        unsafe {
            info.write(npuzzle_info {
                length: text.len(),
                optimal: i32::from(solution.optimal),
                expanded: solution.expanded(),
                generated: solution.generated(),
                initial_estimate: solution.initial_estimate.unwrap_or(0),
                lower_bound,
                seconds: solution.elapsed.as_secs_f64(),
                note,
                within: solution.within.unwrap_or(0),
            })
        };
        if text.len() >= capacity {
            return Err(too_small(text.len(), capacity));
        }
        Ok(())
    })
}

/// `name` as a NUL-terminated string that lives as long as the program:
/// each name is copied once (the engine has a handful).
fn static_c_name(name: &'static str) -> &'static CStr {
    static NAMES: std::sync::OnceLock<Mutex<HashMap<&'static str, &'static CStr>>> =
        std::sync::OnceLock::new();
    let mut names = NAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    names.entry(name).or_insert_with(|| {
        let owned = CString::new(name.replace('\0', " ")).unwrap_or_default();
        Box::leak(owned.into_boxed_c_str())
    })
}

/// The heuristic strategy of the last successful `npuzzle_solve` or
/// `npuzzle_solve_with` on this thread: the implementation that ran (an
/// estimate such as "linear-conflict", or a way of reading the tables),
/// the name the command line prints and its JSON calls `strategy`. Empty
/// when no search ran (the reduction) or the last solve failed. The string
/// is static: it stays valid, and must not be freed.
#[no_mangle]
pub extern "C" fn npuzzle_last_strategy() -> *const c_char {
    LAST_STRATEGY.with(Cell::get).as_ptr()
}

/// The message of the last failed call on this thread (empty after a
/// success). Valid until the next call on this thread; do not free it.
#[no_mangle]
pub extern "C" fn npuzzle_last_error() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// Frees a handle from `npuzzle_open` or `npuzzle_open_with`. NULL, or a
/// handle closed already, does nothing.
///
/// Calls still running on it from other threads finish first.
#[no_mangle]
pub extern "C" fn npuzzle_close(solver: *mut npuzzle_solver) {
    let removed = handles()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&(solver as usize));
    // The solver is freed here, or when the last call running on it ends.
    drop(removed);
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The C status of every kind of failure, as ARCHITECTURE.md gives it.
    #[test]
    fn every_error_kind_has_its_status() {
        let table = [
            (ErrorKind::InvalidBoard, NPUZZLE_INVALID_BOARD),
            (ErrorKind::InvalidArgument, NPUZZLE_INVALID_ARGUMENT),
            (ErrorKind::WrongSize, NPUZZLE_WRONG_SIZE),
            (ErrorKind::Unsolvable, NPUZZLE_UNSOLVABLE),
            (ErrorKind::Tables, NPUZZLE_TABLES),
            (ErrorKind::NodeLimit, NPUZZLE_NODE_LIMIT),
            (ErrorKind::TimeLimit, NPUZZLE_TIME_LIMIT),
            (ErrorKind::OutOfMemory, NPUZZLE_INTERNAL),
            (ErrorKind::Io, NPUZZLE_INTERNAL),
            (ErrorKind::Stopped, NPUZZLE_INTERNAL),
            (ErrorKind::Internal, NPUZZLE_INTERNAL),
        ];
        assert_eq!(table.len(), ErrorKind::ALL.len());
        for ((kind, status), listed) in table.into_iter().zip(ErrorKind::ALL) {
            assert_eq!(kind, listed);
            assert_eq!(status_of(kind), status, "{kind}");
        }
    }

    /// Each field of `npuzzle_info` is a key of the command line's solution
    /// record (docs/solve-output.schema.json), so that one name means one
    /// thing in every door.
    #[test]
    fn info_fields_are_the_records_keys() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let schema = std::fs::read_to_string(root.join("../../docs/solve-output.schema.json"));
        let schema: serde_json::Value = serde_json::from_str(&schema.unwrap()).unwrap();
        let keys = schema["$defs"]["solution"]["properties"]
            .as_object()
            .unwrap();
        let header = std::fs::read_to_string(root.join("include/npuzzle.h")).unwrap();
        let end = header
            .find("} npuzzle_info;")
            .expect("the header defines npuzzle_info");
        let start = header[..end].rfind("typedef struct {").unwrap();
        let fields: Vec<&str> = header[start..end]
            .lines()
            .skip(1)
            .map(str::trim)
            .filter(|line| !line.starts_with("//") && line.ends_with(';'))
            .map(|line| {
                let name = line.trim_end_matches(';').rsplit([' ', '*']).next();
                name.unwrap()
            })
            .collect();
        assert!(fields.len() >= 9, "{fields:?}");
        for field in fields {
            assert!(
                keys.contains_key(field),
                "npuzzle_info.{field} is not a record key"
            );
        }
    }

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
