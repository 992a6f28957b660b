//! The native half of the `npuzzle` Python package (`npuzzle._npuzzle`):
//! thin wrappers over the `npuzzle` crate. `python/npuzzle/__init__.py`
//! adds the NumPy side; `_npuzzle.pyi` types this module.

use std::path::PathBuf;

use npuzzle::{Board, Error, Goal, Partition};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

create_exception!(
    _npuzzle,
    TablesError,
    PyRuntimeError,
    "Pattern databases missing or damaged; the message says how to build them."
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

fn to_py(error: Error) -> PyErr {
    let text = error.to_string();
    match error {
        Error::Unsolvable { .. } => UnsolvableError::new_err(text),
        Error::NodeLimit { .. } => NodeLimitError::new_err(text),
        Error::WrongSize { .. } | Error::Partition(_) => PyValueError::new_err(text),
        _ => TablesError::new_err(text),
    }
}

fn goal_arg(goal: &str) -> PyResult<Goal> {
    Goal::from_name(goal).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown goal '{goal}': use 'blank-last' (1 2 ... 0) or 'blank-first' (0 1 2 ...)"
        ))
    })
}

/// A board from a string in any form `npuzzle solve` reads, or from a
/// sequence of integers (a list, a tuple, a NumPy row), 0 for the blank.
fn board_arg(board: &Bound<'_, PyAny>) -> PyResult<Board> {
    if board.is_instance_of::<PyString>() {
        let text: String = board.extract()?;
        return npuzzle::parse_board(&text).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    let mut tiles = Vec::new();
    for item in board.try_iter().map_err(|_| {
        PyValueError::new_err("a board is a string or a sequence of integers, 0 for the blank")
    })? {
        let tile: i64 = item?
            .extract()
            .map_err(|_| PyValueError::new_err("a board's tiles are integers, 0 for the blank"))?;
        let tile = u16::try_from(tile)
            .map_err(|_| PyValueError::new_err(format!("{tile} is not a tile")))?;
        tiles.push(tile);
    }
    Board::from_tiles(tiles).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn open_tables(
    pdb_dir: PathBuf,
    partition: Option<&str>,
    size: usize,
    goal: &str,
) -> PyResult<npuzzle::Tables> {
    let goal = goal_arg(goal)?;
    let name = partition.unwrap_or_else(|| Partition::default_name(size));
    let partition =
        Partition::parse(name, size, goal).map_err(|e| PyValueError::new_err(e.to_string()))?;
    npuzzle::Tables::open_partition(pdb_dir, &partition).map_err(to_py)
}

/// An optimal solution.
#[pyclass(frozen, module = "npuzzle")]
struct Solution {
    /// The number of moves.
    #[pyo3(get)]
    length: usize,
    /// The moves as letters U D L R, the direction each tile slides.
    #[pyo3(get)]
    moves: String,
    /// Nodes the search expanded.
    #[pyo3(get)]
    expanded: u64,
    /// Children it generated.
    #[pyo3(get)]
    generated: u64,
    /// The heuristic value of the start board.
    #[pyo3(get)]
    initial_estimate: u32,
    /// Time spent searching, in seconds.
    #[pyo3(get)]
    seconds: f64,
}

impl From<npuzzle::Solution> for Solution {
    fn from(s: npuzzle::Solution) -> Solution {
        Solution {
            length: s.length(),
            moves: s.moves_text(),
            expanded: s.expanded,
            generated: s.generated,
            initial_estimate: s.initial_estimate,
            seconds: s.elapsed.as_secs_f64(),
        }
    }
}

#[pymethods]
impl Solution {
    fn __repr__(&self) -> String {
        format!(
            "Solution(length={}, moves='{}', expanded={})",
            self.length, self.moves, self.expanded
        )
    }

    fn __len__(&self) -> usize {
        self.length
    }
}

/// The tables of one partition, for lookups.
#[pyclass(frozen, module = "npuzzle")]
struct Tables {
    inner: npuzzle::Tables,
}

#[pymethods]
impl Tables {
    #[new]
    #[pyo3(signature = (pdb_dir, partition=None, size=4, goal="blank-last"))]
    fn new(pdb_dir: PathBuf, partition: Option<&str>, size: usize, goal: &str) -> PyResult<Tables> {
        Ok(Tables {
            inner: open_tables(pdb_dir, partition, size, goal)?,
        })
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

/// An optimal solver over the tables of one partition.
#[pyclass(frozen, subclass, module = "npuzzle")]
struct Solver {
    inner: npuzzle::Solver,
}

#[pymethods]
impl Solver {
    #[new]
    #[pyo3(signature = (pdb_dir, partition=None, size=4, goal="blank-last", max_nodes=None))]
    fn new(
        pdb_dir: PathBuf,
        partition: Option<&str>,
        size: usize,
        goal: &str,
        max_nodes: Option<u64>,
    ) -> PyResult<Solver> {
        let tables = open_tables(pdb_dir, partition, size, goal)?;
        let mut inner = npuzzle::Solver::new(tables).map_err(to_py)?;
        if let Some(limit) = max_nodes {
            inner = inner.with_node_limit(limit);
        }
        Ok(Solver { inner })
    }

    /// Solves one board optimally (the search on all cores, GIL released).
    fn solve(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Solution> {
        let board = board_arg(board)?;
        py.detach(|| self.inner.solve(&board))
            .map(Solution::from)
            .map_err(to_py)
    }

    /// Solves many boards, `jobs` at a time (0: one per core), GIL released.
    /// Unsolvable boards give None.
    #[pyo3(signature = (boards, jobs=0))]
    fn solve_many(
        &self,
        py: Python<'_>,
        boards: &Bound<'_, PyAny>,
        jobs: usize,
    ) -> PyResult<Vec<Option<Solution>>> {
        let mut parsed = Vec::new();
        for (index, board) in boards.try_iter()?.enumerate() {
            parsed.push(
                board_arg(&board?).map_err(|e| {
                    PyValueError::new_err(format!("boards[{index}]: {}", e.value(py)))
                })?,
            );
        }
        let answers = py.detach(|| self.inner.solve_many(&parsed, jobs));
        answers
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
    #[pyo3(signature = (tiles, width, jobs=0))]
    fn _distances<'py>(
        &self,
        py: Python<'py>,
        tiles: &[u8],
        width: usize,
        jobs: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
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
        let answers = py.detach(|| self.inner.solve_many(&boards, jobs));
        let mut out = Vec::with_capacity(4 * boards.len());
        for (row, answer) in answers.into_iter().enumerate() {
            let length = match answer {
                Ok(solution) => solution.length() as i32,
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

    /// The heuristic value of a board (see `Tables.lookup`).
    fn lookup(&self, board: &Bound<'_, PyAny>) -> PyResult<u32> {
        self.inner
            .tables()
            .heuristic(&board_arg(board)?)
            .map_err(to_py)
    }

    #[getter]
    fn size(&self) -> usize {
        self.inner.tables().size()
    }

    #[getter]
    fn goal(&self) -> String {
        self.inner.tables().goal().to_string()
    }
}

/// Builds the tables of `partition` into `pdb_dir` (kept when intact).
#[pyfunction]
#[pyo3(signature = (pdb_dir, partition=None, size=4, goal="blank-last"))]
fn build_tables(
    py: Python<'_>,
    pdb_dir: PathBuf,
    partition: Option<&str>,
    size: usize,
    goal: &str,
) -> PyResult<()> {
    let goal = goal_arg(goal)?;
    let name = partition.unwrap_or_else(|| Partition::default_name(size));
    let partition =
        Partition::parse(name, size, goal).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.detach(|| npuzzle::build_tables(&pdb_dir, &partition))
        .map_err(to_py)
}

#[pymodule]
fn _npuzzle(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Solution>()?;
    m.add_class::<Tables>()?;
    m.add_class::<Solver>()?;
    m.add_function(wrap_pyfunction!(build_tables, m)?)?;
    m.add("TablesError", m.py().get_type::<TablesError>())?;
    m.add("UnsolvableError", m.py().get_type::<UnsolvableError>())?;
    m.add("NodeLimitError", m.py().get_type::<NodeLimitError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
