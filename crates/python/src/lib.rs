//! The native half of the `npuzzle` Python package (`npuzzle._npuzzle`):
//! thin wrappers over the `npuzzle` crate. `python/npuzzle/__init__.py`
//! adds the NumPy side; `_npuzzle.pyi` types this module.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::Duration;

use npuzzle::{Board, Error, ErrorKind, Goal, Partition, Waited};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyMemoryError, PyOSError, PyOverflowError, PyRuntimeError, PyTypeError, PyUserWarning,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple,
};

/// How often a waiting call looks for Ctrl-C (Python's signal handlers run
/// only when asked, on the main thread): with the engine's own reaction
/// (a millisecond or so), a Ctrl-C is answered well within 100 ms.
const SIGNAL_CHECK: Duration = Duration::from_millis(20);

create_exception!(
    _npuzzle,
    TablesError,
    PyRuntimeError,
    "Pattern databases missing, damaged or not usable now; the message says what to do."
);
create_exception!(
    _npuzzle,
    UnsolvableError,
    PyValueError,
    "The board cannot reach the goal."
);
create_exception!(
    _npuzzle,
    NodeLimitError,
    PyRuntimeError,
    "The search reached its node limit first."
);
create_exception!(
    _npuzzle,
    TimeLimitError,
    PyRuntimeError,
    "The search had no answer when its time budget ran out."
);

/// The call that builds the tables, in Python's words.
fn build_call(e: &npuzzle::TablesError) -> String {
    format!(
        "npuzzle.build_tables({:?}, {:?}, size={}, goal={:?}) or the command `{}`",
        e.dir.display().to_string(),
        e.partition,
        e.size,
        e.goal.name(),
        e.build_command()
    )
}

fn to_py(error: Error) -> PyErr {
    let message = match &error {
        Error::Tables(e) => e.message_with(&build_call(e)),
        Error::NodeLimit { .. } => {
            format!("{error} (the max_nodes keyword argument of npuzzle.Solver)")
        }
        Error::TimeLimit { .. } => {
            format!("{error} (the max_seconds keyword argument of npuzzle.Solver)")
        }
        _ => error.to_string(),
    };
    exception_of(error.kind(), message)
}

/// The Python exception of each kind of failure (ARCHITECTURE.md has every
/// door's table).
fn exception_of(kind: ErrorKind, message: String) -> PyErr {
    match kind {
        ErrorKind::InvalidBoard | ErrorKind::InvalidArgument | ErrorKind::WrongSize => {
            PyValueError::new_err(message)
        }
        ErrorKind::Unsolvable => UnsolvableError::new_err(message),
        ErrorKind::Tables => TablesError::new_err(message),
        ErrorKind::NodeLimit => NodeLimitError::new_err(message),
        ErrorKind::TimeLimit => TimeLimitError::new_err(message),
        ErrorKind::OutOfMemory => PyMemoryError::new_err(message),
        ErrorKind::Io => PyOSError::new_err(message),
        ErrorKind::Stopped | ErrorKind::Internal => PyRuntimeError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// An option given by name, with the engine's message for an unknown one.
fn named<T: std::str::FromStr<Err = npuzzle::UnknownName>>(name: &str) -> PyResult<T> {
    name.parse()
        .map_err(|e: npuzzle::UnknownName| PyValueError::new_err(e.to_string()))
}

fn goal_arg(goal: &str) -> PyResult<Goal> {
    named(goal)
}

/// A board from a string in any form `npuzzle solve` reads, or from a
/// sequence of integers (a list, a tuple, a NumPy row), 0 for the blank.
/// Not a string nor a sequence of integers (an unordered collection among
/// them) is a `TypeError`; the right type with wrong values is a
/// `ValueError` naming the value.
fn board_arg(board: &Bound<'_, PyAny>) -> PyResult<Board> {
    if board.is_instance_of::<PyString>() {
        let text: String = board.extract()?;
        return npuzzle::parse_board(&text).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    let not_a_board = |why: &str| {
        PyTypeError::new_err(format!(
            "a board is a string or a sequence of integers, 0 for the blank, not {}{why}",
            type_name(board)
        ))
    };
    if !board.is_instance_of::<PyList>()
        && !board.is_instance_of::<PyTuple>()
        && is_unordered(board)?
    {
        return Err(not_a_board(": its order is not the board's"));
    }
    let items = board
        .try_iter()
        .map_err(|_| not_a_board(""))?
        .collect::<PyResult<Vec<_>>>()?;
    let cells = items.len();
    let mut tiles = Vec::with_capacity(cells);
    for (index, item) in items.iter().enumerate() {
        let not_a_tile = || {
            PyTypeError::new_err(format!(
                "a board's tiles are integers, 0 for the blank, not {} (index {index})",
                type_name(item)
            ))
        };
        if item.is_instance_of::<PyBool>() || item.is_instance_of::<PyFloat>() {
            return Err(not_a_tile());
        }
        let tile = match item.extract::<i64>() {
            Ok(tile) => u16::try_from(tile).ok().filter(|&t| usize::from(t) < cells),
            // An integer past 64 bits: out of range like any other.
            Err(e) if e.is_instance_of::<PyOverflowError>(item.py()) => None,
            Err(_) => return Err(not_a_tile()),
        };
        match tile {
            Some(tile) => tiles.push(tile),
            None => {
                return Err(PyValueError::new_err(format!(
                    "tile {} (index {index}) is out of range: a board of {cells} cells has \
                     tiles 0 to {}",
                    item.repr()
                        .map_or_else(|_| "?".to_string(), |r| r.to_string()),
                    cells.saturating_sub(1)
                )))
            }
        }
    }
    Board::from_tiles(tiles).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// Whether `value` is a collection without an order of its own: a set, a
/// frozenset, a dict, or any `collections.abc` Set or Mapping.
fn is_unordered(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    if value.is_instance_of::<PySet>()
        || value.is_instance_of::<PyFrozenSet>()
        || value.is_instance_of::<PyDict>()
    {
        return Ok(true);
    }
    let abc = value.py().import("collections.abc")?;
    Ok(value.is_instance(&abc.getattr("Set")?)? || value.is_instance(&abc.getattr("Mapping")?)?)
}

/// An integer argument: a Python `int`, not a `bool` (`size=True` is a
/// mistake, not 1), of any magnitude so that the range check names it.
#[derive(Clone, Copy)]
struct Int(i128);

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(value: Borrowed<'a, 'py, PyAny>) -> PyResult<Int> {
        if value.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "give a whole number, not {}",
                value.repr()?
            )));
        }
        match value.extract::<i128>() {
            Ok(value) => Ok(Int(value)),
            // Past i128 either way: out of every range asked for.
            Err(_) if value.is_instance_of::<PyInt>() => {
                let negative = value.lt(0)?;
                Ok(Int(if negative { i128::MIN } else { i128::MAX }))
            }
            Err(error) => Err(error),
        }
    }
}

impl std::fmt::Display for Int {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            i128::MAX => f.write_str("a number past 2^127"),
            i128::MIN => f.write_str("a number below -2^127"),
            value => write!(f, "{value}"),
        }
    }
}

/// Argument `name` as a `T` when given (None: its default): a
/// `TypeError` that names the argument otherwise.
fn arg<T>(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<T>>
where
    T: for<'a, 'py> FromPyObject<'a, 'py, Error = PyErr>,
{
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    value.extract().map(Some).map_err(|e: PyErr| {
        let py = value.py();
        if e.is_instance_of::<PyTypeError>(py) {
            PyTypeError::new_err(format!("{name}: {}", e.value(py)))
        } else {
            e
        }
    })
}

/// `value` of argument `name` as a count from 0 to 2^32 - 1 (a depth, a
/// bound, a side): a `ValueError` naming both otherwise.
fn small_count(name: &str, value: Int) -> PyResult<u32> {
    u32::try_from(value.0).map_err(|_| {
        PyValueError::new_err(format!(
            "{name}: {value} is out of range: give a whole number from 0 to 2^32 - 1"
        ))
    })
}

/// `value` of argument `name` as a count from 0 to 2^64 - 1: a
/// `ValueError` naming both otherwise (negative included).
fn count(name: &str, value: Int) -> PyResult<u64> {
    u64::try_from(value.0).map_err(|_| {
        PyValueError::new_err(format!(
            "{name}: {value} is out of range: give a whole number from 0 to 2^64 - 1"
        ))
    })
}

/// A thread count: as [`count`], and one the machine can index.
fn jobs_arg(jobs: Int) -> PyResult<usize> {
    let jobs = count("jobs", jobs)?;
    usize::try_from(jobs)
        .map_err(|_| PyValueError::new_err(format!("jobs: {jobs} is out of range")))
}

/// A board side checked against what the engine takes (taken as i128 so
/// that a negative or huge side gets this message too).
/// Seconds of a wall-clock budget: a real number (booleans refused, as
/// for sizes); the range is the engine's.
fn seconds_arg(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a number of seconds, not a bool"
        )));
    }
    let seconds: f64 = value.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} must be a number of seconds, not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "that".to_string(), |n| n.to_string())
        ))
    })?;
    Ok(Some(seconds))
}

/// A memory budget for A*+IDA*: bytes as a whole number, or text as
/// `--memory` reads it ("2G"); booleans refused. The range is the
/// engine's (`SolverBuilder::build` refuses the rest).
fn memory_arg(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "memory must be bytes (an int) or a size such as \"2G\", not a bool",
        ));
    }
    if let Ok(text) = value.extract::<String>() {
        return npuzzle::memory_size(&text)
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("memory {e}")));
    }
    let Ok(bytes) = value.extract::<Int>() else {
        return Err(PyTypeError::new_err(format!(
            "memory must be bytes (an int) or a size such as \"2G\", not {}",
            value
                .get_type()
                .name()
                .map_or_else(|_| "that".to_string(), |n| n.to_string())
        )));
    };
    // In range of u64, the engine's own check applies (as for C).
    u64::try_from(bytes.0).map(Some).map_err(|_| {
        PyValueError::new_err(format!(
            "memory {bytes} is out of range: give 1K to 1024T ({} to {} bytes), or a size \
             such as \"2G\"",
            npuzzle::MIN_MEMORY,
            npuzzle::MAX_MEMORY
        ))
    })
}

fn size_arg(size: Int) -> PyResult<usize> {
    let size = size.0;
    let side = usize::try_from(size).unwrap_or(0);
    if !(npuzzle::MIN_SIZE..=npuzzle::MAX_SIZE).contains(&side) {
        return Err(PyValueError::new_err(format!(
            "size {size} is out of range: n must be from {} to {} (boards of {}x{} to {}x{})",
            npuzzle::MIN_SIZE,
            npuzzle::MAX_SIZE,
            npuzzle::MIN_SIZE,
            npuzzle::MIN_SIZE,
            npuzzle::MAX_SIZE,
            npuzzle::MAX_SIZE
        )));
    }
    Ok(side)
}

/// A directory checked for what no file system takes: a NUL character
/// (shown escaped, as Python's repr shows it).
fn dir_arg(py: Python<'_>, what: &str, dir: PathBuf) -> PyResult<PathBuf> {
    let text = dir.to_string_lossy();
    if text.contains('\0') {
        let shown = PyString::new(py, &text)
            .repr()
            .map_or_else(|_| format!("{text:?}"), |r| r.to_string());
        return Err(PyValueError::new_err(format!(
            "{what} {shown} contains a NUL character, which no path can hold"
        )));
    }
    Ok(dir)
}

fn open_tables(
    py: Python<'_>,
    pdb_dir: PathBuf,
    partition: Option<&str>,
    size: Int,
    goal: &str,
) -> PyResult<npuzzle::Tables> {
    let pdb_dir = dir_arg(py, "pdb_dir", pdb_dir)?;
    let size = size_arg(size)?;
    let goal = goal_arg(goal)?;
    let name = partition.unwrap_or_else(|| Partition::default_name(size));
    let partition =
        Partition::parse(name, size, goal).map_err(|e| PyValueError::new_err(e.to_string()))?;
    npuzzle::Tables::open_partition(pdb_dir, &partition).map_err(to_py)
}

/// A solution: optimal unless `optimal` says otherwise.
#[pyclass(frozen, module = "npuzzle")]
struct Solution {
    /// The number of moves.
    #[pyo3(get)]
    length: usize,
    /// The moves as letters U D L R, the direction each tile slides.
    #[pyo3(get)]
    moves: String,
    /// Whether no shorter solution exists.
    #[pyo3(get)]
    optimal: bool,
    /// The search: idastar, astar, bfs or reduction.
    #[pyo3(get)]
    algorithm: String,
    /// The heuristic that guided it, if any.
    #[pyo3(get)]
    heuristic: Option<String>,
    /// The tables' partition, for searches over tables.
    #[pyo3(get)]
    partition: Option<String>,
    /// Nodes the search expanded (None: no search ran).
    #[pyo3(get)]
    expanded: Option<u64>,
    /// Of `expanded`, those of A*+IDA*'s best-first phase (0 without
    /// `memory`; None: no search ran).
    #[pyo3(get)]
    best_first_expanded: Option<u64>,
    /// Children it generated.
    #[pyo3(get)]
    generated: Option<u64>,
    /// The heuristic implementation that ran (None: no search ran).
    #[pyo3(get)]
    strategy: Option<String>,
    /// The heuristic value of the start board.
    #[pyo3(get)]
    initial_estimate: Option<u32>,
    /// For solutions that are not optimal: a lower bound on the optimal length.
    #[pyo3(get)]
    lower_bound: Option<u64>,
    /// For solutions that are not optimal: at most this many percent over
    /// optimal (None: no guarantee, or optimal).
    #[pyo3(get)]
    within: Option<u32>,
    /// For solutions that are not optimal: why.
    #[pyo3(get)]
    note: Option<String>,
    /// Time spent, in seconds.
    #[pyo3(get)]
    seconds: f64,
}

impl From<npuzzle::Solution> for Solution {
    fn from(s: npuzzle::Solution) -> Solution {
        Solution {
            length: s.length(),
            moves: s.moves_text(),
            optimal: s.optimal,
            algorithm: s.algorithm.to_string(),
            heuristic: s.heuristic.map(str::to_string),
            partition: s.partition.clone(),
            expanded: s.stats.map(|st| st.expanded),
            best_first_expanded: s.stats.map(|st| st.best_first),
            generated: s.stats.map(|st| st.generated),
            strategy: s.strategy().map(str::to_string),
            initial_estimate: s.initial_estimate,
            lower_bound: s.lower_bound,
            within: s.within,
            note: s.note.clone(),
            seconds: s.elapsed.as_secs_f64(),
        }
    }
}

#[pymethods]
impl Solution {
    fn __repr__(&self) -> String {
        format!(
            "Solution(length={}, optimal={}, moves='{}', expanded={})",
            self.length,
            if self.optimal { "True" } else { "False" },
            self.moves,
            self.expanded
                .map_or_else(|| "None".to_string(), |e| e.to_string())
        )
    }

    fn __len__(&self) -> usize {
        self.length
    }

    /// Pickled field by field, so that solutions cross process boundaries
    /// (`multiprocessing`, `concurrent.futures`).
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (SolutionState, f64))> {
        let restore = py
            .import("npuzzle._npuzzle")?
            .getattr("_restore_solution")?;
        Ok((restore, (self.state(), self.seconds)))
    }

    /// Equal when every field but the time is.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Solution>()
            .is_ok_and(|other| self.state() == other.get().state())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        self.state().hash(&mut hasher);
        hasher.finish()
    }
}

impl Solution {
    fn state(&self) -> SolutionState {
        (
            self.length,
            self.moves.clone(),
            self.optimal,
            self.algorithm.clone(),
            self.heuristic.clone(),
            self.partition.clone(),
            (
                self.expanded,
                self.generated,
                self.initial_estimate,
                self.strategy.clone(),
                self.best_first_expanded,
            ),
            (self.lower_bound, self.within, self.note.clone()),
        )
    }
}

/// A solution's fields but its time, as `Solution.__reduce__` gives them.
type SolutionState = (
    usize,
    String,
    bool,
    String,
    Option<String>,
    Option<String>,
    (
        Option<u64>,
        Option<u64>,
        Option<u32>,
        Option<String>,
        Option<u64>,
    ),
    (Option<u64>, Option<u32>, Option<String>),
);

/// What a pass gives Python: (moves from the node to the goal or None,
/// the least f above the bound, nodes expanded, whether `stop` ended it,
/// the least estimate met).
type PassTuple = (Option<String>, u32, u64, bool, u32);

impl Solver {
    #[allow(clippy::too_many_arguments)]
    fn passes(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        prefixes: Vec<&str>,
        bound: Int,
        max_nodes: Option<Int>,
        stop: Option<PyRef<'_, StopFlag>>,
        open_node: bool,
    ) -> PyResult<Vec<PassTuple>> {
        let bound = small_count("bound", bound)?;
        let max_nodes = max_nodes.map(|n| count("max_nodes", n)).transpose()?;
        let board = board_arg(board)?;
        let prefixes = prefixes
            .into_iter()
            .map(|p| npuzzle::Move::parse_sequence(p, npuzzle::Notation::Tile))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let from_node = if open_node {
            npuzzle::PassFrom::Open
        } else {
            npuzzle::PassFrom::Frontier
        };
        // The caller's flag, else one of its own: Ctrl-C sets it.
        let stop = stop.map_or_else(
            || Arc::new(AtomicBool::new(false)),
            |flag| Arc::clone(&flag.inner),
        );
        let (solver, flag) = (self.inner.clone(), Arc::clone(&stop));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let outcomes =
                solver.passes(&board, &prefixes, from_node, bound, max_nodes, Some(flag));
            let _ = tx.send(outcomes);
        });
        let outcomes = wait_stoppably(py, rx, &stop, "search")?.map_err(to_py)?;
        let text = |m: &[npuzzle::Move]| npuzzle::Move::format_sequence(m, npuzzle::Notation::Tile);
        Ok(outcomes
            .into_iter()
            .map(|o| {
                (
                    o.moves.as_deref().map(text),
                    o.next_bound,
                    o.expanded,
                    o.stopped,
                    o.closest,
                )
            })
            .collect())
    }
}

/// A pickled solution back (see `Solution.__reduce__`).
#[pyfunction]
fn _restore_solution(state: SolutionState, seconds: f64) -> Solution {
    let (length, moves, optimal, algorithm, heuristic, partition, stats, bounds) = state;
    let (expanded, generated, initial_estimate, strategy, best_first_expanded) = stats;
    let (lower_bound, within, note) = bounds;
    Solution {
        length,
        moves,
        optimal,
        algorithm,
        heuristic,
        partition,
        expanded,
        best_first_expanded,
        generated,
        strategy,
        initial_estimate,
        lower_bound,
        within,
        note,
        seconds,
    }
}

/// `Tables(pdb_dir, partition, size, goal)`'s arguments.
type TablesArgs = (PathBuf, String, usize, &'static str);

/// The tables of one partition, for lookups.
#[pyclass(frozen, module = "npuzzle")]
struct Tables {
    inner: npuzzle::Tables,
}

#[pymethods]
impl Tables {
    #[new]
    #[pyo3(signature = (pdb_dir, partition=None, size=Int(4), goal="blank-last"))]
    fn new(
        py: Python<'_>,
        pdb_dir: PathBuf,
        partition: Option<&str>,
        size: Int,
        goal: &str,
    ) -> PyResult<Tables> {
        Ok(Tables {
            inner: open_tables(py, pdb_dir, partition, size, goal)?,
        })
    }

    /// Pickled as where they are and which: the copy opens them again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, TablesArgs)> {
        Ok((
            py.get_type::<Tables>().into_any(),
            (
                self.inner.dir().to_path_buf(),
                self.inner.partition().name().to_string(),
                self.inner.size(),
                self.inner.goal().name(),
            ),
        ))
    }

    /// The heuristic value: what `npuzzle pdb lookup` prints last.
    fn lookup(&self, board: &Bound<'_, PyAny>) -> PyResult<u32> {
        self.inner.heuristic(&board_arg(board)?).map_err(to_py)
    }

    /// Each table's value, in partition order.
    fn values(&self, board: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        Ok(self.inner.lookup(&board_arg(board)?).map_err(to_py)?.values)
    }

    #[getter]
    fn partition(&self) -> String {
        self.inner.partition().name().to_string()
    }

    #[getter]
    fn size(&self) -> usize {
        self.inner.size()
    }

    #[getter]
    fn goal(&self) -> String {
        self.inner.goal().to_string()
    }
}

/// The engine of `npuzzle solve`, with its options and policy; the
/// package's `npuzzle.Solver` holds one.
#[pyclass(frozen, name = "_Solver", module = "npuzzle")]
struct Solver {
    inner: npuzzle::Solver,
    size: usize,
}

/// Turns the engine's notes into Python warnings; information (tables
/// being unpacked) is not a warning and is left out.
fn warn_notes(py: Python<'_>, solver: &npuzzle::Solver) -> PyResult<()> {
    for note in solver.take_notes() {
        if matches!(note, npuzzle::Note::Unpacking { .. }) {
            continue;
        }
        let text = note.message_with(|e| e.message_with(&build_call(e)));
        PyErr::warn(
            py,
            &py.get_type::<PyUserWarning>(),
            &std::ffi::CString::new(text.replace('\0', " ")).unwrap_or_default(),
            1,
        )?;
    }
    Ok(())
}

impl Solver {
    /// The solver for `jobs` threads (0: the solver's own count).
    fn with_jobs(&self, jobs: usize) -> PyResult<npuzzle::Solver> {
        if jobs == 0 {
            return Ok(self.inner.clone());
        }
        self.inner.with_threads(jobs).map_err(to_py)
    }

    /// Answers for many boards, in order, checking for Ctrl-C between them.
    fn answers(
        &self,
        py: Python<'_>,
        boards: Vec<Board>,
        jobs: usize,
    ) -> PyResult<Vec<Result<npuzzle::Solution, Error>>> {
        let solver = self.with_jobs(jobs)?;
        fn itself(board: &Board) -> Option<&Board> {
            Some(board)
        }
        let mut stream = solver.answers(boards, itself);
        let mut answers = Vec::new();
        loop {
            match py.detach(|| stream.next_within(SIGNAL_CHECK)) {
                Waited::Ready(answered) => {
                    answers.push(answered.result.expect("every item is a board"))
                }
                Waited::Done => break,
                // Ctrl-C: dropping the stream stops its searches.
                Waited::Pending => py.check_signals()?,
            }
        }
        warn_notes(py, &solver)?;
        Ok(answers)
    }
}

/// A flag another thread sets to end a running `Solver.search_pass`
/// within milliseconds.
#[pyclass(module = "npuzzle")]
struct StopFlag {
    inner: Arc<AtomicBool>,
}

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> StopFlag {
        StopFlag {
            inner: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Ends the passes that use this flag.
    fn set(&self) {
        self.inner.store(true, Ordering::Relaxed);
    }

    /// Whether it is set.
    fn is_set(&self) -> bool {
        self.inner.load(Ordering::Relaxed)
    }
}

#[pymethods]
impl Solver {
    #[new]
    #[pyo3(signature = (pdb_dir=None, partition=None, size=None, goal=None, max_nodes=None,
        reflection=None, jobs=None, algorithm=None, heuristic=None, fast=None, within=None,
        max_seconds=None, memory=None, anytime=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        pdb_dir: Option<PathBuf>,
        partition: Option<&Bound<'_, PyAny>>,
        size: Option<&Bound<'_, PyAny>>,
        goal: Option<&Bound<'_, PyAny>>,
        max_nodes: Option<&Bound<'_, PyAny>>,
        reflection: Option<&Bound<'_, PyAny>>,
        jobs: Option<&Bound<'_, PyAny>>,
        algorithm: Option<&Bound<'_, PyAny>>,
        heuristic: Option<&Bound<'_, PyAny>>,
        fast: Option<&Bound<'_, PyAny>>,
        within: Option<&Bound<'_, PyAny>>,
        max_seconds: Option<&Bound<'_, PyAny>>,
        memory: Option<&Bound<'_, PyAny>>,
        anytime: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Solver> {
        let size = size_arg(arg("size", size)?.unwrap_or(Int(4)))?;
        let partition: Option<String> = arg("partition", partition)?;
        let within: Option<Int> = arg("within", within)?;
        // A partition named is required for boards of side `size`, and
        // opened now. A directory alone is where `npuzzle solve --pdb-dir`
        // looks: its policy applies, and tables are opened when a board
        // needs them (a side without them is solved another way, with a
        // warning).
        let options = npuzzle::Options {
            pdb_dir: pdb_dir.map(|dir| dir_arg(py, "pdb_dir", dir)).transpose()?,
            goal: Some(arg("goal", goal)?.unwrap_or_else(|| "blank-last".to_string())),
            partition_size: partition.as_ref().map(|_| size),
            open_tables: partition.as_ref().map(|_| size),
            partition,
            algorithm: arg("algorithm", algorithm)?,
            heuristic: arg("heuristic", heuristic)?,
            fast: arg("fast", fast)?.unwrap_or(false),
            within: within
                .map(|w| i64::try_from(w.0).unwrap_or(if w.0 < 0 { i64::MIN } else { i64::MAX })),
            reflection: arg("reflection", reflection)?,
            max_nodes: arg::<Int>("max_nodes", max_nodes)?
                .map(|n| count("max_nodes", n))
                .transpose()?,
            max_seconds: seconds_arg("max_seconds", max_seconds)?,
            anytime: seconds_arg("anytime", anytime)?,
            memory: memory_arg(memory)?,
            threads: Some(jobs_arg(arg("jobs", jobs)?.unwrap_or(Int(0)))?).filter(|&jobs| jobs > 0),
            ..npuzzle::Options::default()
        };
        let builder = options.builder().map_err(to_py)?;
        let inner = builder.build().map_err(to_py)?;
        Ok(Solver { inner, size })
    }

    /// Solves one board (the search on all the solver's threads, GIL
    /// released; Ctrl-C stops it).
    fn solve(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Solution> {
        let board = board_arg(board)?;
        let stop = Arc::new(AtomicBool::new(false));
        let (solver, flag) = (self.inner.clone(), Arc::clone(&stop));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let run = npuzzle::Run {
                stop: Some(flag),
                ..npuzzle::Run::default()
            };
            let _ = tx.send(solver.solve_with(&board, &run));
        });
        let answer = wait_stoppably(py, rx, &stop, "search")?;
        warn_notes(py, &self.inner)?;
        answer.map(Solution::from).map_err(to_py)
    }

    /// Solves many boards, `jobs` at a time (0: the solver's threads), GIL
    /// released; Ctrl-C stops between boards. Unsolvable boards give None.
    #[pyo3(signature = (boards, jobs=Int(0)))]
    fn solve_many(
        &self,
        py: Python<'_>,
        boards: &Bound<'_, PyAny>,
        jobs: Int,
    ) -> PyResult<Vec<Option<Solution>>> {
        let jobs = jobs_arg(jobs)?;
        let mut parsed = Vec::new();
        for (index, board) in boards.try_iter()?.enumerate() {
            parsed.push(
                board_arg(&board?).map_err(|e| {
                    PyValueError::new_err(format!("boards[{index}]: {}", e.value(py)))
                })?,
            );
        }
        self.answers(py, parsed, jobs)?
            .into_iter()
            .enumerate()
            .map(|(index, answer)| match answer {
                Ok(solution) => Ok(Some(Solution::from(solution))),
                Err(Error::Unsolvable { .. }) => Ok(None),
                Err(e) => {
                    let e = to_py(e);
                    Err(PyErr::from_type(
                        e.get_type(py),
                        format!("boards[{index}]: {}", e.value(py)),
                    ))
                }
            })
            .collect()
    }

    /// Optimal lengths of `rows` boards of `width` tiles packed in `tiles`
    /// (one byte per tile), as little-endian int32 (-1: unsolvable). The
    /// NumPy-facing `Solver.distances` calls this.
    #[pyo3(signature = (tiles, width, jobs=Int(0)))]
    fn _distances<'py>(
        &self,
        py: Python<'py>,
        tiles: &[u8],
        width: usize,
        jobs: Int,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let jobs = jobs_arg(jobs)?;
        if width == 0 || !tiles.len().is_multiple_of(width) {
            return Err(PyValueError::new_err(
                "rows of equal, non-zero width are needed",
            ));
        }
        let boards = tiles
            .chunks(width)
            .enumerate()
            .map(|(row, chunk)| {
                Board::from_tiles(chunk.iter().map(|&t| t as u16).collect())
                    .map_err(|e| PyValueError::new_err(format!("row {row}: {e}")))
            })
            .collect::<PyResult<Vec<Board>>>()?;
        let answers = self.answers(py, boards, jobs)?;
        let mut out = Vec::with_capacity(4 * answers.len());
        for (row, answer) in answers.into_iter().enumerate() {
            let length = match answer {
                Ok(solution) if solution.optimal => solution.length() as i32,
                Ok(solution) => {
                    return Err(NodeLimitError::new_err(format!(
                        "row {row}: no optimal solution within the budget ({}); a {}-move \
                         solution was found",
                        solution.note.as_deref().unwrap_or_default(),
                        solution.length()
                    )))
                }
                Err(Error::Unsolvable { .. }) => -1,
                Err(e) => {
                    let e = to_py(e);
                    return Err(PyErr::from_type(
                        e.get_type(py),
                        format!("row {row}: {}", e.value(py)),
                    ));
                }
            };
            out.extend_from_slice(&length.to_le_bytes());
        }
        Ok(PyBytes::new(py, &out))
    }

    /// The heuristic value of a board over its side's tables (see `Tables.lookup`).
    fn lookup(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<u32> {
        let board = board_arg(board)?;
        let value = py.detach(|| self.inner.lookup(&board));
        value.map(|lookup| lookup.value).map_err(to_py)
    }

    /// The subtrees of one IDA* iteration at `depth` below `board` (None:
    /// where the local search splits a board of its side) for `bound`
    /// (None: the board's estimate), over the side's tables:
    /// (nodes as (moves, estimate), lowest estimate first, least f cut
    /// above them, a solution above the depth or None, the board's
    /// estimate, nodes expanded). For `npuzzle.distributed.solve`, which
    /// puts first the subtrees whose passes came nearest the goal in the
    /// last iteration, as the local search does.
    #[pyo3(signature = (board, depth=None, bound=None))]
    #[allow(clippy::type_complexity)]
    fn frontier(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        depth: Option<Int>,
        bound: Option<Int>,
    ) -> PyResult<(Vec<(String, u32)>, u32, Option<String>, u32, u64)> {
        let depth = depth.map(|d| small_count("depth", d)).transpose()?;
        let bound = bound.map(|b| small_count("bound", b)).transpose()?;
        let board = board_arg(board)?;
        let frontier = py
            .detach(|| self.inner.frontier(&board, depth, bound))
            .map_err(to_py)?;
        let text = |moves: &[npuzzle::Move]| {
            npuzzle::Move::format_sequence(moves, npuzzle::Notation::Tile)
        };
        Ok((
            frontier.nodes.iter().map(|(m, h)| (text(m), *h)).collect(),
            frontier.least_cut,
            frontier.goal.as_deref().map(text),
            frontier.root_estimate,
            frontier.expanded,
        ))
    }

    /// The open nodes of A*+IDA*'s best-first phase below `board` within
    /// `memory` (bytes, or a size such as "2G"), over the side's tables:
    /// (nodes as (moves, estimate), by f then estimate, every one whatever
    /// the bound; the answer if the phase reached it, else None; the
    /// board's estimate; nodes expanded). Search below a node with
    /// `search_pass(..., open_node=True)`. Ctrl-C stops it.
    #[pyo3(signature = (board, memory))]
    #[allow(clippy::type_complexity)]
    fn open_frontier(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        memory: &Bound<'_, PyAny>,
    ) -> PyResult<(Vec<(String, u32)>, Option<String>, u32, u64)> {
        let memory = memory_arg(Some(memory))?.ok_or_else(|| {
            PyTypeError::new_err("memory must be bytes (an int) or a size such as \"2G\", not None")
        })?;
        let board = board_arg(board)?;
        let stop = Arc::new(AtomicBool::new(false));
        let (solver, flag) = (self.inner.clone(), Arc::clone(&stop));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(solver.open_frontier(&board, memory, Some(flag)));
        });
        let frontier = wait_stoppably(py, rx, &stop, "search")?.map_err(to_py)?;
        let text = |moves: &[npuzzle::Move]| {
            npuzzle::Move::format_sequence(moves, npuzzle::Notation::Tile)
        };
        Ok((
            frontier.nodes.iter().map(|(m, h)| (text(m), *h)).collect(),
            frontier.goal.as_deref().map(text),
            frontier.root_estimate,
            frontier.expanded,
        ))
    }

    /// One IDA* pass bounded by `bound` below the node the moves `prefix`
    /// lead to from `board` (a node of `frontier`, or with `open_node` of
    /// `open_frontier`): (moves from that node to the goal or None, the
    /// least f above the bound, nodes expanded, whether `stop` ended it,
    /// the least estimate met: how near the goal the pass came).
    #[pyo3(signature = (board, prefix, bound, max_nodes=None, stop=None, open_node=false))]
    #[allow(clippy::too_many_arguments)]
    fn search_pass(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        prefix: &str,
        bound: Int,
        max_nodes: Option<Int>,
        stop: Option<PyRef<'_, StopFlag>>,
        open_node: bool,
    ) -> PyResult<PassTuple> {
        let mut outcomes =
            self.passes(py, board, vec![prefix], bound, max_nodes, stop, open_node)?;
        Ok(outcomes.pop().expect("one pass is made"))
    }

    /// `search_pass` below each of `prefixes` in order, until one finds a
    /// solution or `stop` ends one: a tuple per pass made. One call for a
    /// run of passes: the tables' heuristic is set up once, not per pass.
    /// `max_nodes` bounds them together.
    #[pyo3(signature = (board, prefixes, bound, max_nodes=None, stop=None, open_node=false))]
    #[allow(clippy::too_many_arguments)]
    fn search_passes(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        prefixes: Vec<String>,
        bound: Int,
        max_nodes: Option<Int>,
        stop: Option<PyRef<'_, StopFlag>>,
        open_node: bool,
    ) -> PyResult<Vec<PassTuple>> {
        let prefixes = prefixes.iter().map(String::as_str).collect();
        self.passes(py, board, prefixes, bound, max_nodes, stop, open_node)
    }

    /// The best lower bound on a board's distance without a search.
    fn lower_bound(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<u64> {
        let board = board_arg(board)?;
        Ok(py.detach(|| self.inner.lower_bound(&board)))
    }

    /// The side of the boards the named tables are for.
    #[getter]
    fn size(&self) -> usize {
        self.size
    }

    /// The tables open for boards of side `size` as (partition, directory),
    /// or None when there are none (not asked for and not built).
    fn tables_for(&self, size: Int) -> PyResult<Option<(String, PathBuf)>> {
        let size = small_count("size", size)? as usize;
        Ok(self
            .inner
            .opened_tables(size)
            .map(|t| (t.partition().name().to_string(), t.dir().to_path_buf())))
    }

    #[getter]
    fn goal(&self) -> String {
        self.inner.goal().to_string()
    }

    /// The thread count of `solve` and the default of `solve_many`.
    #[getter]
    fn jobs(&self) -> usize {
        self.inner.threads()
    }
}

/// Builds the tables of `partition` into `pdb_dir` (kept when intact),
/// after checking that memory and disk suffice. Ctrl-C stops it within a
/// fraction of a second (`KeyboardInterrupt`); tables finished stay.
#[pyfunction]
#[pyo3(signature = (pdb_dir, partition=None, size=Int(4), goal="blank-last", threads=Int(0)))]
fn build_tables(
    py: Python<'_>,
    pdb_dir: PathBuf,
    partition: Option<&str>,
    size: Int,
    goal: &str,
    threads: Int,
) -> PyResult<()> {
    let threads = usize::try_from(count("threads", threads)?).unwrap_or(usize::MAX);
    let pdb_dir = dir_arg(py, "pdb_dir", pdb_dir)?;
    let size = size_arg(size)?;
    let goal = goal_arg(goal)?;
    let name = partition.unwrap_or_else(|| Partition::default_name(size));
    let partition =
        Partition::parse(name, size, goal).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let stop = Arc::new(AtomicBool::new(false));
    let options = npuzzle::BuildOptions {
        threads: if threads == 0 {
            npuzzle::cores()
        } else {
            threads
        },
        stop: Some(Arc::clone(&stop)),
        ..npuzzle::BuildOptions::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let built = npuzzle::build_tables_with(&pdb_dir, &partition, &options, &mut |_| {});
        let _ = tx.send(built.map(|_| ()));
    });
    wait_stoppably(py, rx, &stop, "build")?.map_err(to_py)
}

/// Waits for the answer of work running on another thread, without the
/// GIL, looking for Ctrl-C every few milliseconds: on one, sets `stop`,
/// waits for the work to end (within milliseconds, so that no thread goes
/// on working after Python does) and raises the interrupt.
fn wait_stoppably<T: Send>(
    py: Python<'_>,
    rx: std::sync::mpsc::Receiver<Result<T, Error>>,
    stop: &AtomicBool,
    what: &str,
) -> PyResult<Result<T, Error>> {
    // A receiver is not shared between threads: it goes to the wait
    // without the GIL and comes back.
    let mut rx = rx;
    loop {
        let (waited, back) = py.detach(move || (rx.recv_timeout(SIGNAL_CHECK), rx));
        rx = back;
        match waited {
            Ok(answer) => return Ok(answer),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    let _ = py.detach(move || rx.recv());
                    return Err(interrupt);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Ok(Err(Error::Internal(format!("the {what} thread ended"))))
            }
        }
    }
}

/// A uniformly random board of side `size` that can reach `goal`, as a
/// list of tiles (0 the blank); the same `seed` gives the same board.
#[pyfunction]
#[pyo3(signature = (size=Int(4), seed=None, goal="blank-last"))]
fn random_board(size: Int, seed: Option<Int>, goal: &str) -> PyResult<Vec<u16>> {
    let goal = goal_arg(goal)?;
    let size = size_arg(size)?;
    let seed = seed.map(|seed| count("seed", seed)).transpose()?;
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut rng = npuzzle::SplitMix64::new(seed);
    Ok(npuzzle::random_board(size, goal, &mut rng).tiles().to_vec())
}

/// Whether `board` can reach `goal` (the parity rule: no search).
#[pyfunction]
#[pyo3(signature = (board, goal="blank-last"))]
fn is_solvable(board: &Bound<'_, PyAny>, goal: &str) -> PyResult<bool> {
    let goal = goal_arg(goal)?;
    Ok(board_arg(board)?.is_solvable(goal))
}

/// The board after `moves` (letters U D L R: the direction each tile
/// slides, or the blank's with `notation="blank"`), as a list of tiles.
#[pyfunction]
#[pyo3(signature = (board, moves, notation="tile"))]
fn apply_moves(board: &Bound<'_, PyAny>, moves: &str, notation: &str) -> PyResult<Vec<u16>> {
    let notation: npuzzle::Notation = named(notation)?;
    let mut board = board_arg(board)?;
    let moves = npuzzle::Move::parse_sequence(moves, notation)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    for (index, &m) in moves.iter().enumerate() {
        if !board.apply(m) {
            return Err(PyValueError::new_err(format!(
                "move {} ({}) leaves the board: no tile can slide that way",
                index + 1,
                m.letter(notation)
            )));
        }
    }
    Ok(board.tiles().to_vec())
}

#[pymodule]
fn _npuzzle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(random_board, m)?)?;
    m.add_function(wrap_pyfunction!(is_solvable, m)?)?;
    m.add_function(wrap_pyfunction!(apply_moves, m)?)?;
    m.add_class::<Solution>()?;
    m.add_class::<Tables>()?;
    m.add_class::<Solver>()?;
    m.add_class::<StopFlag>()?;
    m.add_function(wrap_pyfunction!(build_tables, m)?)?;
    m.add_function(wrap_pyfunction!(_restore_solution, m)?)?;
    m.add("TablesError", m.py().get_type::<TablesError>())?;
    m.add("UnsolvableError", m.py().get_type::<UnsolvableError>())?;
    m.add("NodeLimitError", m.py().get_type::<NodeLimitError>())?;
    m.add("TimeLimitError", m.py().get_type::<TimeLimitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
