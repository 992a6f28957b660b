"""Label many boards with their optimal lengths on a Dask cluster, and
split one hard search over it.

``label(source, dest, ...)`` reads boards from a Parquet, CSV or NumPy file,
checks them all, splits them into chunks, solves each chunk as one Dask
task, and writes one Parquet part per chunk into ``dest``
(``part-FIRST-LAST.parquet``, by source row) with the columns ``row`` (the
source row), ``board`` (the tiles, row by row), ``length`` (the optimal
length, -1 for an unsolvable board) and, when asked, ``moves``.

``solve(board, ...)`` solves one board optimally with its IDA* iterations
split over the workers (see the function). ``python -m
npuzzle.distributed label|solve`` runs either from the shell.

Each worker process opens the tables once and keeps them (they are
memory-mapped, so the processes of one machine share them). ``dest``
records its job (``_npuzzle_job.json``: the boards' fingerprint and the
options that change the labels); a rerun of the same job labels only the
source rows no part holds, whatever its chunk size, and another job's
directory is refused. A part is written under a temporary name and
renamed, so a worker killed mid-task leaves nothing half-written, and the
task Dask retries elsewhere writes the same part: every row is labelled
once. See docs/distributed.md.

Dask rather than Ray: it is pure Python (``pip install npuzzle[dask]``), a
local cluster starts in about a second, and its scheduler retries the tasks
of a lost worker by itself.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import json
import math
import os
import pathlib
import re
import stat
import sys
import time
import uuid
import warnings
from typing import Any, Optional, Union

import numpy as np

import npuzzle

PathLike = Union[str, os.PathLike]

# A worker process's solvers, by their options: opened once per process.
_SOLVERS: dict = {}

# The record of what an output directory holds. Its leading underscore keeps
# Parquet dataset readers (pyarrow, pandas, Spark) from taking it for data.
JOB_FILE = "_npuzzle_job.json"
_JOB_VERSION = 1

# A part's name holds its first and last source rows (0-based, inclusive),
# zero-padded so that the names sort in row order.
_PART = re.compile(r"part-(\d{12})-(\d{12})\.parquet")

# Rows checked, converted and hashed at a time, so that a memory-mapped
# source of any size is read in bounded memory.
_BLOCK_ROWS = 1 << 20

# The files the labeller reads back are its own: at most this big (a job
# record is under 1 kB; a part of 10,000 rows with moves about 2 MB).
_MAX_RECORD_BYTES = 1 << 20
_MAX_PART_BYTES = 1 << 32
_MAX_DIGEST_BYTES = 1 << 10

# Parquet cell columns: c0, c1, ... c{n*n-1}, taken by name.
_CELL = re.compile(r"c(\d+)")


def read_boards(source: PathLike, size: Optional[int] = None) -> np.ndarray:
    """The boards of a file, checked, as a (count, cells) array of unsigned
    integers (uint8 up to 16x16).

    Parquet: a column ``board`` of integer lists, or one integer column per
    cell named ``c0``, ``c1``, ... ``c{n*n-1}`` (taken by name, in any file
    order; other columns are ignored). CSV: one board per line, tiles
    separated by commas (a header line is skipped). NumPy (``.npy``): a 2-D
    integer array. Floats that hold whole numbers are taken as integers.

    Raises ValueError naming the row (0-based, in file order) and the
    column of the first bad value: a null, a fraction, a number that is no
    tile, a row that is not a board, or rows of another length than
    ``size`` * ``size`` when ``size`` is given.
    """
    path = pathlib.Path(source)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        try:
            values = np.load(path, mmap_mode="r", allow_pickle=False)
        except ValueError as e:
            raise ValueError(f"{path}: not a NumPy array of boards: {e}") from None
        column = "column {}".format
    elif suffix in (".parquet", ".pq"):
        values, column = _parquet_values(path)
    elif suffix == ".csv":
        values = _csv_values(path)
        column = "column {}".format
    else:
        raise ValueError(f"{path}: not a board file npuzzle can read: use .parquet, .csv or .npy")
    if values.ndim != 2:
        raise ValueError(f"{path}: expected one board per row, got an array of shape {values.shape}")
    rows, cells = values.shape
    if rows == 0 or cells == 0:
        raise ValueError(f"{path}: no boards in it")
    if size is not None and cells != size * size:
        raise ValueError(f"{path}: rows have {cells} tiles, a {size}x{size} board has {size * size}")
    if values.dtype.kind not in "iuf":
        raise ValueError(f"{path}: tiles must be integers, not {values.dtype}")
    if cells > 256:
        raise ValueError(f"{path}: rows have {cells} tiles: npuzzle labels boards up to 16x16 (256 tiles)")
    boards = np.empty((rows, cells), dtype=np.uint8)
    goal = np.arange(cells)
    for start in range(0, rows, _BLOCK_ROWS):
        block = np.asarray(values[start : start + _BLOCK_ROWS])
        if block.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(block) | (block != np.floor(block))
            _refuse_first(bad, block, start, path, column, "is not a tile number")
        bad = (block < 0) | (block >= cells)
        _refuse_first(bad, block, start, path, column, f"is not a tile: a board of {cells} cells has 0 to {cells - 1}")
        boards[start : start + len(block)] = block
        chunk = boards[start : start + len(block)]
        wrong = np.flatnonzero((np.sort(chunk, axis=1) != goal).any(axis=1))
        if len(wrong):
            row = start + int(wrong[0])
            raise ValueError(
                f"{path}: row {row} is not a board: its tiles must be 0 to {cells - 1}, each once "
                f"(got {boards[row].tolist()})"
            )
    return boards


def _refuse_first(bad: np.ndarray, block: np.ndarray, start: int, path, column, why: str) -> None:
    if bad.any():
        row, cell = (int(i) for i in np.argwhere(bad)[0])
        value = block[row, cell]
        shown = int(value) if block.dtype.kind in "iu" else float(value)
        raise ValueError(f"{path}: row {start + row}, {column(cell)}: {shown!r} {why}")


def _csv_values(path: pathlib.Path) -> np.ndarray:
    with open(path) as f:
        first = f.readline()
    header = any(ch.isalpha() for ch in first)

    def load(dtype):
        # An empty file is refused as such by read_boards, not warned about.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2, skiprows=int(header))

    try:
        return load(np.int64)
    except (ValueError, OverflowError) as e:
        try:
            # Whole numbers written as floats ("3.0"); read_boards refuses
            # the others.
            return load(np.float64)
        except ValueError:
            raise ValueError(f"{path}: {e}") from None


def _parquet_values(path: pathlib.Path) -> tuple:
    """A Parquet file's tiles (no nulls, numbers) and the name of a cell's
    column for messages."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except pa.ArrowException as e:
        raise ValueError(f"{path}: not a Parquet file npuzzle can read: {e}") from None
    names = table.column_names
    cells: dict = {}
    for name in names:
        match = _CELL.fullmatch(name)
        if match:
            cells.setdefault(int(match.group(1)), []).append(name)

    def numeric(kind, name: str) -> None:
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise ValueError(f"{path}: column {name} holds {kind}, not tile numbers")

    def first_null(array) -> int:
        return int(np.flatnonzero(pc.is_null(array).to_numpy(zero_copy_only=False))[0])

    if "board" in names:
        if cells:
            raise ValueError(
                f"{path}: both a column board and cell columns ({', '.join(sorted(sum(cells.values(), [])))}): "
                "keep one or the other"
            )
        column = table.column("board")
        kind = column.type
        if not (pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)):
            raise ValueError(f"{path}: column board holds {kind}, not lists of tiles")
        numeric(kind.value_type, "board")
        column = column.combine_chunks() if table.num_rows else pa.array([], type=kind)
        if column.null_count:
            raise ValueError(f"{path}: row {first_null(column)}, column board: no board (null)")
        lengths = pc.list_value_length(column).to_numpy(zero_copy_only=False)
        if len(lengths) and (lengths != lengths[0]).any():
            row = int(np.flatnonzero(lengths != lengths[0])[0])
            raise ValueError(f"{path}: row {row} has {lengths[row]} tiles, row 0 has {lengths[0]}")
        width = int(lengths[0]) if len(lengths) else 0
        flat = column.flatten()
        if flat.null_count:
            row, cell = divmod(first_null(flat), width)
            raise ValueError(f"{path}: row {row}, column board, tile {cell}: no tile (null)")
        values = flat.to_numpy(zero_copy_only=False).reshape(len(column), width)
        return values, "tile {}".format
    if not cells:
        raise ValueError(
            f"{path}: no column board and no cell columns c0, c1, ...: the file has {', '.join(names) or 'none'}"
        )
    for index, spelled in sorted(cells.items()):
        if len(spelled) > 1 or spelled[0] != f"c{index}":
            raise ValueError(f"{path}: cell column {' and '.join(spelled)}: write it as c{index}")
    missing = sorted(set(range(max(cells) + 1)) - set(cells))
    if missing:
        raise ValueError(f"{path}: cell columns c0 to c{max(cells)}: c{missing[0]} is missing")
    arrays = []
    for index in range(len(cells)):
        name = f"c{index}"
        column = table.column(name)
        numeric(column.type, name)
        if column.null_count:
            raise ValueError(f"{path}: row {first_null(column)}, column {name}: no tile (null)")
        arrays.append(column.to_numpy())
    values = np.column_stack(arrays) if table.num_rows else np.zeros((0, len(arrays)))
    return values, "c{}".format


def _fingerprint(boards: np.ndarray) -> str:
    """sha256 of the boards as little-endian 16-bit tiles, after their
    shape: the same boards give the same value whatever file held them."""
    digest = hashlib.sha256(b"npuzzle boards 1\0")
    digest.update(np.array(boards.shape, dtype="<u8").tobytes())
    for start in range(0, len(boards), _BLOCK_ROWS):
        digest.update(np.ascontiguousarray(boards[start : start + _BLOCK_ROWS], dtype="<u2").tobytes())
    return digest.hexdigest()


def _solver(options: dict) -> npuzzle.Solver:
    key = tuple(sorted(options.items()))
    solver = _SOLVERS.get(key)
    if solver is None:
        solver = npuzzle.Solver(**options)
        _SOLVERS[key] = solver
    return solver


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _read_own_file(path: pathlib.Path, what: str, limit: int) -> bytes:
    """The bytes of a file the labeller wrote (the job record, a part, a
    part's digest), read without following a symbolic link or blocking on a
    FIFO or device: anything but a regular file of at most `limit` bytes is
    refused in one line. The same rule as the tables' (npuzzle-pdb)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise ValueError(f"{path}: is a symbolic link, not {what} npuzzle wrote: remove it") from None
        raise ValueError(f"{path}: cannot read {what}: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"{path}: is {_file_kind(mode)}, not {what} npuzzle wrote: remove it")
        data = b""
        while len(data) <= limit:
            chunk = os.read(fd, limit + 1 - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(f"{path}: more than {limit} bytes, too big for {what}: remove it")
    return data


def _digest_name(part: str) -> str:
    """The file beside a part that keeps its SHA-256, written with it (its
    leading underscore keeps dataset readers from taking it for data)."""
    return f"_{part}.sha256"


def _relabel_hint(name: str) -> str:
    return f"remove it (and {_digest_name(name)}) and run the same label command again: only its rows are labelled again"


def _part_name(first: int, last: int) -> str:
    return f"part-{first:012d}-{last:012d}.parquet"


def _label_chunk(boards: np.ndarray, first: int, dest: str, options: dict, moves: bool, jobs: int) -> int:
    """Solves the chunk of source rows from `first` and writes its part;
    the number of rows written (0: a run of this task before wrote it)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = pathlib.Path(dest) / _part_name(first, first + len(boards) - 1)
    if os.path.lexists(path):
        return 0
    solver = _solver(options)
    columns: dict[str, Any] = {
        "row": pa.array(np.arange(first, first + len(boards), dtype=np.int64)),
        "board": pa.array(boards.tolist(), type=pa.list_(pa.int16())),
    }
    if moves:
        solutions = solver.solve_many(boards.tolist(), jobs=jobs)
        columns["length"] = pa.array([-1 if s is None else s.length for s in solutions], type=pa.int32())
        columns["moves"] = pa.array([None if s is None else s.moves for s in solutions], type=pa.string())
    else:
        columns["length"] = pa.array(solver.distances(boards, jobs=jobs), type=pa.int32())
    temporary = path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex}")
    pq.write_table(pa.table(columns), temporary)
    # The digest first: a part is never there without it.
    digest = hashlib.sha256(temporary.read_bytes()).hexdigest()
    kept = path.with_name(_digest_name(path.name))
    kept_temporary = kept.with_name(f".{kept.name}.tmp-{uuid.uuid4().hex}")
    kept_temporary.write_text(digest + "\n")
    os.replace(kept_temporary, kept)
    os.replace(temporary, path)
    return len(boards)


def _parts(dest: pathlib.Path, rows: int, source: np.ndarray) -> list:
    """The parts in `dest` as sorted (first, last, name), checked: each is
    a regular file whose SHA-256 is the one recorded when it was written,
    names rows of the source, holds exactly the rows its name says (its
    `row` column) with the source's boards, and no two hold the same row."""
    parts = []
    for path in dest.glob("part-*"):
        first, last, table = _read_part(dest, path, rows)
        _check_boards(dest, path.name, table, first, source)
        parts.append((first, last, path.name))
    parts.sort()
    for (_, last, name), (first, _, after) in zip(parts, parts[1:]):
        if first <= last:
            raise ValueError(f"{dest}: {name} and {after} both hold row {first}: remove one of them")
    return parts


def _read_part(dest: pathlib.Path, path: pathlib.Path, rows: int) -> tuple:
    """A part's first and last rows and its table, checked (see `_parts`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    match = _PART.fullmatch(path.name)
    if match is None:
        raise ValueError(
            f"{dest}: {path.name} is not a part of this job (parts are named part-FIRST-LAST.parquet "
            "by their source rows): move it away"
        )
    first, last = int(match.group(1)), int(match.group(2))
    if last < first or last >= rows:
        raise ValueError(f"{dest}: {path.name} names rows the source ({rows} boards) does not have")
    data = _read_own_file(path, "a part", _MAX_PART_BYTES)
    digest_path = path.with_name(_digest_name(path.name))
    if not os.path.lexists(digest_path):
        raise ValueError(
            f"{dest}: {path.name} has no recorded digest ({digest_path.name}), so its labels cannot be "
            f"trusted: {_relabel_hint(path.name)}"
        )
    recorded = _read_own_file(digest_path, "a part's digest", _MAX_DIGEST_BYTES).decode("ascii", "replace").strip()
    if hashlib.sha256(data).hexdigest() != recorded:
        raise ValueError(
            f"{dest}: {path.name} changed since npuzzle wrote it (its SHA-256 is not the one in "
            f"{digest_path.name}): {_relabel_hint(path.name)}"
        )
    # Read on this thread: a dataset scan's pool thread can drop the last
    # reference to `data` during interpreter shutdown, which aborts the
    # process (apache/arrow#34314).
    try:
        with pq.ParquetFile(pa.BufferReader(data)) as reader:
            table = reader.read(use_threads=False)
    except pa.ArrowException as e:
        raise ValueError(f"{dest}: {path.name} is not a Parquet file npuzzle can read ({e}): remove it") from None
    if table.num_rows != last - first + 1:
        raise ValueError(f"{dest}: {path.name} holds {table.num_rows} rows, its name says {last - first + 1}: remove it")
    if "row" not in table.column_names:
        raise ValueError(f"{dest}: {path.name} has no row column: remove it")
    held_rows = table.column("row").to_numpy(zero_copy_only=False)
    if not np.array_equal(held_rows, np.arange(first, last + 1)):
        raise ValueError(
            f"{dest}: {path.name} holds other rows than its name says (a part copied or renamed): remove it"
        )
    _check_columns(dest, path.name, table, first)
    return first, last, table


def _check_columns(dest: pathlib.Path, name: str, table: Any, first: int) -> None:
    """Refuses a part whose board or length column is not what the
    labeller writes, naming the part, the row and the field."""
    import pyarrow as pa

    def refuse(index: int, field: str, why: str) -> None:
        raise ValueError(f"{dest}: {name}: row {first + index}: {field} {why}: {_relabel_hint(name)}")

    for field in ("board", "length"):
        if field not in table.column_names:
            raise ValueError(f"{dest}: {name} has no {field} column: {_relabel_hint(name)}")
    length = table.column("length")
    if pa.types.is_floating(length.type):
        values = length.to_numpy(zero_copy_only=False)
        fractional = np.flatnonzero(np.isnan(values) | (values != np.floor(values)))
        if len(fractional):
            index = int(fractional[0])
            refuse(index, "length", f"{values[index]} is not a whole number")
    if not pa.types.is_integer(length.type):
        raise ValueError(
            f"{dest}: {name}: the length column is of type {length.type}, not integers: {_relabel_hint(name)}"
        )
    if length.null_count:
        refuse(int(np.flatnonzero(length.is_null().to_numpy(zero_copy_only=False))[0]), "length", "is null")
    lengths = length.to_numpy()
    if (lengths < -1).any():
        index = int(np.flatnonzero(lengths < -1)[0])
        refuse(index, "length", f"{int(lengths[index])} is not a length (-1 marks an unsolvable board)")
    boards = table.column("board")
    if not (pa.types.is_list(boards.type) and pa.types.is_integer(boards.type.value_type)):
        raise ValueError(
            f"{dest}: {name}: the board column is of type {boards.type}, not lists of tiles: {_relabel_hint(name)}"
        )
    if boards.null_count:
        refuse(int(np.flatnonzero(boards.is_null().to_numpy(zero_copy_only=False))[0]), "board", "is null")


def _check_boards(dest: pathlib.Path, name: str, table: Any, first: int, source: np.ndarray) -> None:
    """Refuses a part whose boards are not the source rows its row column
    names (rows swapped or edited in a part), naming the first such row."""
    import pyarrow.compute as pc

    boards = table.column("board")
    cells = source.shape[1]
    sizes = pc.list_value_length(boards).to_numpy(zero_copy_only=False)
    if (sizes != cells).any():
        index = int(np.flatnonzero(sizes != cells)[0])
        raise ValueError(
            f"{dest}: {name}: row {first + index}: board has {int(sizes[index])} tiles, the source's "
            f"boards {cells}: {_relabel_hint(name)}"
        )
    held = pc.list_flatten(boards).to_numpy(zero_copy_only=False).reshape(-1, cells)
    differ = np.flatnonzero((held != source[first : first + len(held)]).any(axis=1))
    if len(differ):
        raise ValueError(
            f"{dest}: {name}: row {first + int(differ[0])}: board is not the source's row {first + int(differ[0])} "
            f"(rows swapped or edited): {_relabel_hint(name)}"
        )


def _missing(parts: list, rows: int) -> list:
    """The ranges [start, end) of source rows no part holds."""
    gaps, start = [], 0
    for first, last, _ in parts:
        if first > start:
            gaps.append((start, first))
        start = last + 1
    if start < rows:
        gaps.append((start, rows))
    return gaps


def _claim(dest: pathlib.Path, job: dict) -> None:
    """Makes `dest` the directory of `job`, or refuses it when it holds
    another job's rows; the record is written under a temporary name and
    renamed."""
    if dest.exists() and not dest.is_dir():
        raise ValueError(f"{dest}: not a directory")
    record = dest / JOB_FILE
    if os.path.lexists(record):
        held = _read_job(record)
        if (held.get("rows"), held.get("cells"), held.get("boards_sha256")) != (
            job["rows"],
            job["cells"],
            job["boards_sha256"],
        ):
            def fingerprint(value):
                return str(value)[:12] if value is not None else "none"

            raise ValueError(
                f"{dest} holds the labels of other boards: its {JOB_FILE} records {held.get('rows')} boards "
                f"from {held.get('source')} (fingerprint {fingerprint(held.get('boards_sha256'))}), these are "
                f"{job['rows']} from {job['source']} (fingerprint {fingerprint(job['boards_sha256'])}): "
                "label into another directory, or empty it"
            )
        for key in ("size", "goal", "moves"):
            if held.get(key) != job[key]:
                raise ValueError(
                    f"{dest} holds a job labelled with {key} {held.get(key)!r}, not {job[key]!r} (its {JOB_FILE}): "
                    "rerun it with the same options, or label into another directory"
                )
    elif dest.is_dir() and any(dest.glob("part-*")):
        raise ValueError(
            f"{dest} holds parts but no {JOB_FILE}: not a job npuzzle can resume; label into another directory"
        )
    try:
        dest.mkdir(parents=True, exist_ok=True)
        temporary = dest / f".{JOB_FILE}.tmp-{uuid.uuid4().hex}"
        temporary.write_text(json.dumps(job, indent=1) + "\n")
        os.replace(temporary, record)
    except OSError as e:
        raise OSError(f"{dest}: cannot write the output directory: {e.strerror or e}") from None


def _read_job(record: pathlib.Path) -> dict:
    """The job record at `record`, checked as one npuzzle wrote."""
    data = _read_own_file(record, "a job record", _MAX_RECORD_BYTES)
    try:
        held = json.loads(data)
        if not isinstance(held, dict) or held.get("npuzzle_job") != _JOB_VERSION:
            raise ValueError("not version 1 of the record")
    except ValueError as e:
        raise ValueError(f"{record}: not a job record npuzzle can read ({e}): label into another directory") from None
    return held


@contextlib.contextmanager
def _client(client: Any):
    """The given client, else the current one, else a local cluster with a
    worker process per core, closed on leaving."""
    from distributed import Client, LocalCluster, get_client

    if client is not None:
        yield client
        return
    try:
        yield get_client()
        return
    except ValueError:
        pass
    # No dashboard; the scheduler's HTTP server on a free port, where the
    # default one (8787) warns when another cluster holds it.
    with LocalCluster(
        processes=True, threads_per_worker=1, dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"}
    ) as own, Client(own) as started:
        yield started


def label(
    source: PathLike,
    dest: PathLike,
    pdb_dir: Optional[PathLike] = None,
    size: int = 4,
    goal: str = "blank-last",
    partition: Optional[str] = None,
    chunk_rows: int = 10_000,
    moves: bool = False,
    client: Any = None,
    jobs: int = 1,
    progress: bool = True,
) -> int:
    """Labels the boards of ``source`` into Parquet parts in ``dest``.

    ``dest`` records its job in ``_npuzzle_job.json``: the boards'
    fingerprint and the options that change the labels (``size``,
    ``goal``, ``moves``). A rerun with the same boards and options labels
    only the rows no part holds, whatever ``chunk_rows`` was; a directory
    of another job is refused. Every check (the file, its boards, the
    options, the tables, ``dest``) runs before any task.

    ``client`` is a ``distributed.Client``; None uses the current one, or
    starts a local cluster with a worker process per core. ``jobs`` is the
    threads per task (1 suits a worker per core). Returns the number of
    rows this call labelled.
    """
    from distributed import as_completed

    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, int) or chunk_rows < 1:
        raise ValueError(f"chunk_rows {chunk_rows!r} is out of range: give a whole number, 1 or more")
    if isinstance(size, bool) or not isinstance(size, int):
        raise ValueError(f"size {size!r} is not a board side: give a whole number such as 4")
    boards = read_boards(source, size)
    options = {"size": size, "goal": goal, "jobs": max(int(jobs), 1)}
    if pdb_dir is not None:
        options["pdb_dir"] = os.fspath(pdb_dir)
    if partition is not None:
        options["partition"] = partition
    # The options and tables are checked here, where an error reaches the
    # caller at once.
    _solver(options)
    rows = len(boards)
    job = {
        "npuzzle_job": _JOB_VERSION,
        "rows": rows,
        "cells": boards.shape[1],
        "boards_sha256": _fingerprint(boards),
        "size": size,
        "goal": goal,
        "moves": bool(moves),
        "source": os.path.abspath(source),
    }
    dest = pathlib.Path(dest)
    _claim(dest, job)
    gaps = _missing(_parts(dest, rows, boards), rows)
    chunks = [(start, min(start + chunk_rows, end)) for begin, end in gaps for start in range(begin, end, chunk_rows)]
    if not chunks:
        return 0
    with _client(client) as client:
        futures = [
            client.submit(
                _label_chunk,
                np.ascontiguousarray(boards[start:end]),
                start,
                os.fspath(dest),
                options,
                bool(moves),
                jobs,
                pure=False,
                retries=3,
            )
            for start, end in chunks
        ]
        bar = _progress_bar(len(futures), progress)
        for future in as_completed(futures):
            future.result()
            bar(1)
        bar(0, done=True)
    # A task rerun after its worker died finds its part written; every
    # part of the job must be there once.
    left = _missing(_parts(dest, rows, boards), rows)
    if left:
        raise RuntimeError(f"{dest}: rows {left[0][0]} to {left[0][1] - 1} were not written: rerun to label them")
    return sum(end - start for start, end in chunks)


def verify(
    dest: PathLike,
    sample: int = 100,
    pdb_dir: Optional[PathLike] = None,
    partition: Optional[str] = None,
    seed: Optional[int] = None,
    jobs: int = 0,
) -> tuple:
    """Re-solves up to ``sample`` rows of each part in ``dest`` (chosen at
    random from ``seed``, a fresh one each call when None; every row of a
    smaller part) and compares them with their labels: returns
    ``(rows_checked, disagreements)``, each disagreement ``(part, row,
    label, solved)``. Where the job kept moves, each sampled row's moves
    are replayed too (``solved`` is then "moves do not reach the goal"
    when they do not). The parts are first checked as a rerun checks them
    (regular files, digests, rows, columns), and every row's board against
    the source row it labels (the source must be where the job recorded
    it, unchanged). Runs here, ``jobs`` boards at a time (0: one per core).
    """
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
        raise ValueError(f"sample {sample!r} is out of range: give a whole number, 1 or more")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"seed {seed!r} is out of range: give a whole number, 0 or more")
    dest = pathlib.Path(dest)
    record = dest / JOB_FILE
    if not os.path.lexists(record):
        raise ValueError(f"{dest}: no {JOB_FILE} there: not a directory npuzzle.distributed labelled")
    job = _read_job(record)
    options = {"size": job.get("size"), "goal": job.get("goal"), "jobs": max(int(jobs), 0) or (os.cpu_count() or 1)}
    if pdb_dir is not None:
        options["pdb_dir"] = os.fspath(pdb_dir)
    if partition is not None:
        options["partition"] = partition
    solver = _solver(options)
    rows = job.get("rows")
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 0:
        raise ValueError(f"{record}: rows {rows!r} is not a count of boards: label into another directory")
    source = job.get("source")
    if not isinstance(source, str):
        raise ValueError(f"{record}: source {source!r} is not a path: label into another directory")
    try:
        boards_of_source = read_boards(source, job.get("size"))
    except OSError as e:
        raise ValueError(
            f"{record}: the source {source} cannot be read ({e}): the labels are checked against the boards "
            "they label; put the source back there"
        ) from None
    if _fingerprint(boards_of_source) != job.get("boards_sha256"):
        raise ValueError(
            f"{record}: the source {source} holds other boards than the ones labelled (changed since): "
            "put the labelled source back there, or label the new one into another directory"
        )
    parts = sorted(dest.glob("part-*"))
    random = np.random.default_rng(seed)
    checked, disagreements = 0, []
    for path in parts:
        first, _, table = _read_part(dest, path, rows)
        _check_boards(dest, path.name, table, first, boards_of_source)
        picked = np.sort(random.choice(table.num_rows, size=min(sample, table.num_rows), replace=False))
        boards = np.array([table.column("board")[int(i)].as_py() for i in picked], dtype=np.int64)
        labels = table.column("length").to_numpy()[picked]
        solved = solver.distances(boards, jobs=jobs)
        moves = table.column("moves") if "moves" in table.column_names else None
        for index, board, label, length in zip(picked, boards, labels, solved):
            row = int(table.column("row")[int(index)].as_py())
            if int(label) != int(length):
                disagreements.append((path.name, row, int(label), int(length)))
                continue
            kept = None if moves is None else moves[int(index)].as_py()
            if kept is not None and not _moves_reach_goal(board.tolist(), kept, job.get("goal"), int(label)):
                disagreements.append((path.name, row, int(label), "moves do not reach the goal"))
        checked += len(picked)
    return checked, disagreements


def _moves_reach_goal(board: list, moves: str, goal: str, length: int) -> bool:
    try:
        reached = npuzzle.apply_moves(board, moves)
    except ValueError:
        return False
    cells = len(board)
    solved = list(range(1, cells)) + [0] if goal == "blank-last" else list(range(cells))
    return reached == solved and len(moves.replace(" ", "")) == length


# How long a task's watcher waits for another task's solution at a time.
_WATCH_SECONDS = 0.1

# A run's intended length: long enough that taking it from the queue (a
# round trip to the scheduler, about a millisecond) is small against it,
# short enough that the runs the other workers search after the one holding
# the solution cost few nodes.
_RUN_SECONDS = 0.1

# Queue requests a second the scheduler answers with room to spare (about
# 4,000 measured on 2 cores shared with the workers): on a large cluster the
# runs grow so that the workers ask for fewer than this together.
_QUEUE_GETS_PER_SECOND = 2000

# How long a worker waits on an empty queue before it leaves (the driver
# puts every run, then one end mark per worker, as soon as the workers
# start; this only ends a task that took over from a lost worker after the
# end marks were taken).
_QUEUE_WAIT_SECONDS = 10.0

# An IDA* iteration's growth in nodes when the bound rises by 2, until two
# iterations are measured (the 15- and 24-puzzles with additive tables grow
# by 4 to 8).
_DEFAULT_GROWTH = 6.0

_UNBOUNDED = 2**32 - 1


class _Watch:
    """A stop flag for the native passes, set by a thread as soon as the
    iteration's distributed Event says a solution is found."""

    def __init__(self, found_event: str):
        import threading

        from distributed import Event

        self.event = Event(found_event)
        self.stop = npuzzle.StopFlag()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        try:
            while not self._done.is_set():
                if self.event.wait(timeout=_WATCH_SECONDS):
                    self.stop.set()
                    return
        except Exception:
            # The cluster is closing (its connections gone): the task has
            # ended or is being cancelled; there is nothing left to stop.
            return

    def close(self) -> None:
        self._done.set()


def _search_run(solver, board: list, prefixes: list, bound: int, watch: _Watch, open_nodes: bool) -> tuple:
    """Passes below `prefixes` in order (open nodes of A*+IDA*'s best-first
    phase when `open_nodes`) until a solution, the end, or the stop flag:
    (moves or None, least f above the bound, nodes expanded per subtree
    searched, the least estimate each met, seconds, whether the run is
    searched to its end or its solution)."""
    import time

    next_bound, counts, closest = _UNBOUNDED, [], []
    started = time.perf_counter()
    # One native call for the run: a pass below an open node of A*+IDA*
    # is often a few nodes, against a set-up of the heuristic per call.
    outcomes = solver.search_passes(board, prefixes, bound, stop=watch.stop, open_node=open_nodes)
    for prefix, (moves, below, nodes, stopped, near) in zip(prefixes, outcomes):
        counts.append(nodes)
        closest.append(near)
        if stopped:
            return None, next_bound, counts, closest, time.perf_counter() - started, False
        if moves is not None:
            watch.event.set()
            return prefix + moves, bound, counts, closest, time.perf_counter() - started, True
        next_bound = min(next_bound, below)
    return None, next_bound, counts, closest, time.perf_counter() - started, True


def _drain(board: list, queue_name: str, bound: int, options: dict, found_event: str, open_nodes: bool) -> list:
    """A worker's share of one iteration: takes runs of subtrees from the
    iteration's queue, in the driver's order, until an end mark, a solution
    or another task's solution: (start, *the run's outcome) per run taken
    (see :func:`_search_run`)."""
    import asyncio

    from distributed import Queue

    solver = _solver(options)
    queue = Queue(queue_name)
    watch = _Watch(found_event)
    results = []
    try:
        while not watch.stop.is_set():
            try:
                run = queue.get(timeout=_QUEUE_WAIT_SECONDS)
            except (asyncio.TimeoutError, TimeoutError):
                break
            if run is None:
                break
            start, prefixes = run
            outcome = _search_run(solver, board, prefixes, bound, watch, open_nodes)
            results.append((start, *outcome))
            if outcome[0] is not None:
                break
        return results
    finally:
        watch.close()
        # The scheduler drops the queue, and the runs a solution left in
        # it, when every task that opened it has let go.
        queue.close()


def _passes(board: list, prefixes: list, bound: int, options: dict, found_event: str, open_nodes: bool) -> tuple:
    """One run of subtrees as a task of its own (for runs a lost worker took
    from the queue): as :func:`_search_run`."""
    watch = _Watch(found_event)
    try:
        if watch.event.is_set():
            return None, _UNBOUNDED, [], [], 0.0, False
        return _search_run(_solver(options), board, prefixes, bound, watch, open_nodes)
    finally:
        watch.close()


class SplitSolution:
    """What :func:`solve` found: the moves (tile directions), their count,
    nodes expanded in all (``best_first`` of them by A*+IDA*'s best-first
    phase, 0 without ``memory``), the iterations, and the runs of subtrees
    searched again because the worker that took them was lost."""

    def __init__(self, moves: str, expanded: int, iterations: int, runs_retried: int = 0, best_first: int = 0):
        self.moves = moves
        self.length = len(moves)
        self.expanded = expanded
        self.iterations = iterations
        self.runs_retried = runs_retried
        self.best_first = best_first

    def __repr__(self) -> str:
        return (
            f"SplitSolution(length={self.length}, expanded={self.expanded}, iterations={self.iterations}, "
            f"runs_retried={self.runs_retried}, best_first={self.best_first})"
        )


class _Sizes:
    """Estimates of the subtrees' sizes in nodes, from the previous
    iteration's counts (times the iterations' growth) or, for a subtree not
    searched before, from its slack under the bound; and the workers' node
    rate, from the tasks' reports."""

    def __init__(self) -> None:
        self.previous: dict = {}
        self.totals: list = []
        self.nodes = 0
        self.seconds = 0.0
        # This iteration's nodes, measured against estimated; their ratio
        # in the last iteration corrects the next one's estimates.
        self.measured = 0.0
        self.estimated = 0.0
        self.scale = 1.0

    def growth(self) -> float:
        if len(self.totals) >= 2 and self.totals[-2] > 0:
            return min(max(self.totals[-1] / self.totals[-2], 1.0), 100.0)
        return _DEFAULT_GROWTH

    def estimates(self, prefixes: list, slacks: list) -> list:
        growth = self.growth()
        return [
            self.previous[p] * growth if p in self.previous else growth ** (slack / 2)
            for p, slack in zip(prefixes, slacks)
        ]

    def run_nodes(self, workers: int) -> float:
        """Nodes a run should hold: `_RUN_SECONDS` at the measured rate, or
        longer when `workers` would ask the queue too often."""
        rate = self.nodes / self.seconds if self.seconds > 0 else 1e6
        return rate * max(_RUN_SECONDS, workers / _QUEUE_GETS_PER_SECOND)

    def report(self, counts: list, estimates: list, seconds: float) -> None:
        self.nodes += sum(counts)
        self.seconds += seconds
        self.measured += sum(counts)
        self.estimated += sum(estimates)

    def runs(self, estimates: list, workers: int) -> list:
        """Contiguous runs of subtrees of about `run_nodes` each, their
        estimates corrected by the last iteration's error."""
        scale = self.scale
        want = self.run_nodes(workers)
        runs, start, held = [], 0, 0.0
        for index, estimate in enumerate(estimates):
            if index > start and held + estimate * scale > want:
                runs.append((start, index))
                start, held = index, 0.0
            held += estimate * scale
        if start < len(estimates):
            runs.append((start, len(estimates)))
        return runs

    def end_iteration(self, prefixes: list, counts: list) -> None:
        self.previous = dict(zip(prefixes, counts))
        self.totals.append(sum(counts))
        if self.estimated > 0 and self.measured > 0:
            self.scale = self.measured / self.estimated
        self.measured = self.estimated = 0.0


class _Tally:
    """One iteration's reports: nodes per subtree, the solution if one was
    reported, the next bound, and which runs were searched to their end
    (a run a stop flag ended counts as unsearched: its bound and nodes
    below the stop are unknown)."""

    def __init__(self, runs: list, subtrees: int, least_cut: int):
        self.runs = runs
        self.counts = [0] * subtrees
        self.closest: list = [None] * subtrees
        self.expanded = 0
        self.found: Optional[str] = None
        self.next_bound = least_cut
        self.searched: set = set()

    def take(self, start: int, outcome: tuple, sizes: "_Sizes", estimates: list) -> None:
        moves, below, counts, closest, seconds, complete = outcome
        self.counts[start : start + len(counts)] = counts
        self.closest[start : start + len(closest)] = closest
        self.expanded += sum(counts)
        sizes.report(counts, estimates[start : start + len(counts)], seconds)
        if moves is not None and self.found is None:
            self.found = moves
        if complete:
            self.next_bound = min(self.next_bound, below)
            self.searched.add(start)

    def unsearched(self) -> list:
        return [(start, end) for start, end in self.runs if start not in self.searched]


def solve(
    board: Any,
    pdb_dir: Optional[PathLike] = None,
    size: Optional[int] = None,
    goal: str = "blank-last",
    partition: Optional[str] = None,
    client: Any = None,
    depth: Optional[int] = None,
    memory: Union[int, str, None] = None,
) -> SplitSolution:
    """Solves one board optimally with IDA* whose iterations are split into
    the subtrees at ``depth`` below the board (None: where the local search
    splits a board of its size, 8 moves up to 4x4 and 12 beyond, so that
    one worker expands the local search's nodes), searched on the workers
    under the iteration's bound. The driver cuts the subtrees, in the local
    search's order (most promising first), into runs of about 0.1 s of work
    and puts them on a Dask queue; one task per worker takes the next run
    whenever it is free, so the workers search neighbouring subtrees. The
    first solution found stops the others, and the next bound is the least
    of the runs' reports. The driver needs the tables too (it computes the
    frontier). ``client`` as for :func:`label`.

    With ``memory`` (bytes, or a size such as "2G"), A*+IDA*: the driver
    first expands the positions nearest the board best first, each once,
    within that memory (as ``npuzzle solve --memory``), and the nodes it
    leaves open are the subtrees, searched as above; the pruning of
    duplicate moves starts afresh below each. Not with ``depth``.
    """
    if memory is not None and depth is not None:
        raise ValueError("depth and memory exclude each other: the open nodes of the best-first phase are the subtrees")
    tiles, size = _tiles(board, size)
    options = {"size": size, "goal": goal, "jobs": 1}
    if pdb_dir is not None:
        options["pdb_dir"] = os.fspath(pdb_dir)
    if partition is not None:
        options["partition"] = partition
    # The board, the tables and the depth are checked here, before any
    # cluster starts.
    solver = _solver(options)
    if memory is None:
        solver.frontier(tiles, depth, None)
        open_nodes = None
    else:
        # The best-first phase runs before any cluster starts.
        open_nodes = solver.open_frontier(tiles, memory)
    with _client(client) as client:
        return _split_search(tiles, options, solver, client, depth, open_nodes)


def _split_search(
    tiles: list, options: dict, solver, client: Any, depth: Optional[int], open_nodes: Optional[tuple]
) -> SplitSolution:
    from distributed import Event, Queue

    workers = max(len(client.scheduler_info().get("workers", {})), 1)
    sizes = _Sizes()
    bound, expanded, iterations, runs_retried, best_first = None, 0, 0, 0, 0
    if open_nodes is not None:
        kept, shallow, _, best_first = open_nodes
        expanded = best_first
        if shallow is not None:
            return SplitSolution(shallow, expanded, 1, 0, best_first)
        bound = min(len(moves) + h for moves, h in kept)
    # How near the goal each subtree's pass came in the last iteration.
    came_near: dict = {}
    while True:
        iterations += 1
        if open_nodes is None:
            nodes, least_cut, shallow, estimate, above = solver.frontier(tiles, depth, bound)
            bound = estimate if bound is None else bound
            expanded += above
            if shallow is not None:
                return SplitSolution(shallow, expanded, iterations, runs_retried)
        else:
            # The open nodes within the bound, in the best-first order; the
            # least f above it is a candidate next bound.
            nodes = [node for node in kept if len(node[0]) + node[1] <= bound]
            least_cut = min((len(m) + h for m, h in kept if len(m) + h > bound), default=_UNBOUNDED)
        # The local split search's order: the subtrees whose passes came
        # nearest the goal under the last bound first, then by estimate
        # (the frontier's order, which the stable sort keeps among ties).
        nodes.sort(key=lambda node: (came_near.get(node[0], node[1]), node[1]))
        prefixes = [moves for moves, _ in nodes]
        estimates = sizes.estimates(prefixes, [bound - len(m) - h for m, h in nodes])
        runs = sizes.runs(estimates, workers)
        tag = uuid.uuid4().hex
        queue = Queue(f"npuzzle-split-runs-{tag}")
        event_name = f"npuzzle-split-found-{tag}"
        # The tasks start while the runs go on the queue, in order.
        futures = [
            client.submit(
                _drain, tiles, queue.name, bound, options, event_name, open_nodes is not None, pure=False, retries=3
            )
            for _ in range(workers)
        ]
        for start, end in runs:
            queue.put((start, prefixes[start:end]))
        for _ in range(workers):
            queue.put(None)
        tally = _Tally(runs, len(prefixes), least_cut)
        # Every task reports every run it took, so the node count is the
        # work done.
        for results in client.gather(futures):
            for start, *outcome in results:
                tally.take(start, tuple(outcome), sizes, estimates)
        # Runs a lost worker took from the queue (Dask reran its task, but
        # the runs were gone), or that stopped for a solution whose finder
        # was lost before it reported: searched again, each as a task, the
        # event cleared, until every run is searched or a solution reported.
        while tally.found is None and tally.unsearched():
            lost = tally.unsearched()
            runs_retried += len(lost)
            Event(event_name).clear()
            retried = [
                client.submit(
                    _passes,
                    tiles,
                    prefixes[start:end],
                    bound,
                    options,
                    event_name,
                    open_nodes is not None,
                    pure=False,
                    retries=3,
                )
                for start, end in lost
            ]
            for (start, _), outcome in zip(lost, client.gather(retried)):
                tally.take(start, outcome, sizes, estimates)
        expanded += tally.expanded
        found, next_bound = tally.found, tally.next_bound
        queue.close()
        Event(event_name).clear()
        if found is not None:
            return SplitSolution(found, expanded, iterations, runs_retried, best_first)
        if next_bound >= _UNBOUNDED:
            raise RuntimeError("the split search ran out of nodes without a solution: a bug, please report the board")
        sizes.end_iteration(prefixes, tally.counts)
        came_near = {prefix: near for prefix, near in zip(prefixes, tally.closest) if near is not None}
        bound = next_bound


def _tiles(board: Any, size: Optional[int]) -> tuple:
    """The board's tiles and side, checked for shape (the solver checks
    the tiles themselves)."""
    fields = board.replace("/", " ").split() if isinstance(board, str) else list(board)
    tiles = []
    for field in fields:
        try:
            tiles.append(int(field))
        except (TypeError, ValueError):
            raise ValueError(f"{field!r} is not a tile number") from None
    side = size or math.isqrt(len(tiles))
    if side < 2 or side * side != len(tiles):
        expected = f"a {size}x{size} board has {size * size}" if size else "give n*n numbers (4, 9, 16, 25, ...)"
        raise ValueError(f"{len(tiles)} numbers do not make a square board: {expected}")
    return tiles, side


def _progress_bar(total: int, shown: bool, stream: Any = None):
    """Progress on `stream` (stderr): on a terminal, tqdm when installed,
    else one counter line rewritten in place; elsewhere (a pipe, a log
    file), a line ending in a newline at each percent reached."""
    stream = sys.stderr if stream is None else stream
    if not shown or total == 0:
        return lambda step, done=False: None
    count = [0]
    if not _is_terminal(stream):
        shown_percent = [-1]

        def line(step: int, done: bool = False) -> None:
            count[0] += step
            percent = count[0] * 100 // total
            if step and percent != shown_percent[0]:
                shown_percent[0] = percent
                print(f"labelled {count[0]}/{total} parts", file=stream, flush=True)

        return line
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="part", file=stream)

        def tick(step: int, done: bool = False) -> None:
            bar.update(step)
            if done:
                bar.close()

        return tick
    except ImportError:

        def counter(step: int, done: bool = False) -> None:
            count[0] += step
            end = "\n" if done else ""
            print(f"\rlabelled {count[0]}/{total} parts", end=end, file=stream, flush=True)

        return counter


def _is_terminal(stream: Any) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m npuzzle.distributed",
        description="Label boards with their optimal lengths, or solve one hard board, on a Dask cluster.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def common(command: argparse.ArgumentParser, size: Optional[int]) -> None:
        command.add_argument("--pdb-dir", help="the tables' directory, the same path on every worker")
        command.add_argument("--size", type=int, default=size, help="the board's side" + (
            "" if size else " (default: from the count of numbers)"))
        command.add_argument("--goal", default="blank-last", choices=["blank-last", "blank-first"])
        command.add_argument("--partition")
        command.add_argument("--scheduler", help="a Dask scheduler's address (default: a local cluster)")

    run = commands.add_parser("label", help="label a file of boards into Parquet parts")
    run.add_argument("source", help="boards: .parquet, .csv or .npy")
    run.add_argument("dest", help="directory for the Parquet parts")
    common(run, 4)
    run.add_argument("--chunk-rows", type=int, default=10_000)
    run.add_argument("--moves", action="store_true", help="also write each board's moves")
    check = commands.add_parser("verify", help="re-solve a sample of each part's rows and report labels that disagree")
    check.add_argument("dest", help="a directory the label command wrote")
    check.add_argument("--sample", type=int, default=100, help="rows re-solved per part (default: 100)")
    check.add_argument("--seed", type=int, help="the seed of the rows picked (default: a fresh one, printed)")
    check.add_argument("--pdb-dir", help="the tables' directory")
    check.add_argument("--partition")
    split = commands.add_parser("solve", help="solve one board optimally, its search split over the workers")
    split.add_argument("board", nargs="+", help="the tiles row by row, 0 for the blank (one argument or several)")
    common(split, None)
    split.add_argument("--json", action="store_true", help="print one JSON record")
    split.add_argument(
        "--memory",
        metavar="SIZE",
        help="A*+IDA*: expand the positions nearest the board once each within SIZE (such as 2G) on the "
        "driver, and split the search at the nodes left open (default: plain IDA*, split at a fixed depth)",
    )
    args = parser.parse_args(argv)
    # Run as `python -m`, this file is `__main__`, whose functions Dask
    # would pickle by value (with this process's open solvers): the tasks
    # must name the importable module's.
    from npuzzle import distributed

    try:
        if args.command == "verify":
            seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
            print(f"Sampling with seed {seed} (--seed {seed} picks the same rows again)")
            checked, disagreements = distributed.verify(
                args.dest, sample=args.sample, pdb_dir=args.pdb_dir, partition=args.partition, seed=seed
            )
            for part, row, label, solved in disagreements:
                print(f"{args.dest}: {part}: row {row}: labelled {label}, solved {solved}")
            if disagreements:
                print(
                    f"{len(disagreements)} of {checked} rows checked disagree: remove the parts named "
                    "(and their _*.sha256) and run the same label command again",
                    file=sys.stderr,
                )
                return 1
            print(f"{checked} rows checked in {args.dest}: every label agrees")
            return 0
        client = None
        if args.scheduler:
            from distributed import Client

            client = Client(args.scheduler)
        if args.command == "label":
            written = distributed.label(
                args.source,
                args.dest,
                pdb_dir=args.pdb_dir,
                size=args.size,
                goal=args.goal,
                partition=args.partition,
                chunk_rows=args.chunk_rows,
                moves=args.moves,
                client=client,
            )
            print(f"{written} boards labelled into {args.dest}")
            return 0
        started = time.time()
        found = distributed.solve(
            " ".join(args.board),
            pdb_dir=args.pdb_dir,
            size=args.size,
            goal=args.goal,
            partition=args.partition,
            client=client,
            memory=args.memory,
        )
    except (npuzzle.TablesError, npuzzle.UnsolvableError) as e:
        # As `npuzzle`: tables missing or damaged, or a board that cannot
        # reach the goal, exit with 1.
        print(f"npuzzle.distributed: {e}", file=sys.stderr)
        return 1
    except (ValueError, OSError) as e:
        print(f"npuzzle.distributed: {e}", file=sys.stderr)
        return 2
    seconds = time.time() - started
    if args.json:
        record = {
            "length": found.length,
            "moves": found.moves,
            "expanded": found.expanded,
            "best_first": found.best_first,
            "iterations": found.iterations,
            "runs_retried": found.runs_retried,
            "seconds": round(seconds, 3),
        }
        print(json.dumps(record))
    else:
        print(f"Minimum number of moves = {found.length}")
        print(f"Moves: {found.moves}")
        iterations = f"{found.iterations} iteration" + ("s" if found.iterations != 1 else "")
        best_first = f" ({found.best_first} best first)" if found.best_first else ""
        print(f"Nodes: {found.expanded} expanded{best_first} in {iterations}, {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
