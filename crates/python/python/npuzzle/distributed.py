"""Label many boards with their optimal lengths on a Dask cluster, and
split one hard search over it.

``label(source, dest, ...)`` reads boards from a Parquet, CSV or NumPy file,
splits them into chunks, solves each chunk as one Dask task, and writes one
Parquet part per chunk into ``dest`` (``part-00000.parquet``, ...) with the
columns ``board`` (the tiles, row by row), ``length`` (the optimal length,
-1 for an unsolvable board) and, when asked, ``moves``.

``solve(board, ...)`` solves one board optimally with its IDA* iterations
split over the workers (see the function). ``python -m
npuzzle.distributed label|solve`` runs either from the shell.

Each worker process opens the tables once and keeps them (they are
memory-mapped, so the processes of one machine share them). A part is
written under a temporary name and renamed, so a worker killed mid-task
leaves nothing half-written, and the task Dask retries elsewhere writes the
same part: no row is lost or written twice. A rerun skips the parts already
there. See docs/distributed.md.

Dask rather than Ray: it is pure Python (``pip install npuzzle[dask]``), a
local cluster starts in about a second, and its scheduler retries the tasks
of a lost worker by itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import pathlib
import sys
import time
import uuid
from typing import Any, Optional, Union

import numpy as np

import npuzzle

PathLike = Union[str, os.PathLike]

# A worker process's solvers, by their options: opened once per process.
_SOLVERS: dict = {}


def read_boards(source: PathLike) -> np.ndarray:
    """The boards of a file as a (count, cells) array of integers.

    Parquet: a column ``board`` of integer lists, or one integer column per
    cell. CSV: one board per line, tiles separated by commas (a header line
    is skipped). NumPy (``.npy``): a 2-D integer array.
    """
    path = pathlib.Path(source)
    suffix = path.suffix.lower()
    if suffix == ".npy":
        boards = np.load(path, mmap_mode="r")
    elif suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        if "board" in table.column_names:
            boards = np.array(table.column("board").to_pylist())
        else:
            boards = np.column_stack([table.column(c).to_numpy() for c in table.column_names])
    elif suffix == ".csv":
        with open(path) as f:
            first = f.readline()
        header = any(ch.isalpha() for ch in first)
        try:
            boards = np.loadtxt(path, delimiter=",", dtype=np.int64, ndmin=2, skiprows=int(header))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
    else:
        raise ValueError(f"{path}: not a board file npuzzle can read: use .parquet, .csv or .npy")
    boards = np.asarray(boards)
    if boards.ndim != 2:
        raise ValueError(f"{path}: expected one board per row, got an array of shape {boards.shape}")
    if boards.size == 0:
        raise ValueError(f"{path}: no boards in it")
    return boards


def _check_tiles(boards: np.ndarray, source: PathLike) -> None:
    """Refuses, naming the first bad row (0-based, in file order), rows that
    are not a permutation of 0 .. n*n-1."""
    cells = boards.shape[1]
    bad = np.flatnonzero((np.sort(boards, axis=1) != np.arange(cells)).any(axis=1))
    if len(bad):
        row = int(bad[0])
        raise ValueError(
            f"{source}: row {row} is not a board: its tiles must be 0 to {cells - 1}, each once "
            f"(got {boards[row].tolist()})"
        )


def _solver(options: dict) -> npuzzle.Solver:
    key = tuple(sorted(options.items()))
    solver = _SOLVERS.get(key)
    if solver is None:
        solver = npuzzle.Solver(**options)
        _SOLVERS[key] = solver
    return solver


def _part_path(dest: pathlib.Path, index: int) -> pathlib.Path:
    return dest / f"part-{index:05d}.parquet"


def _label_chunk(boards: np.ndarray, part: str, options: dict, moves: bool, jobs: int) -> int:
    """Solves one chunk and writes its part; the number of rows written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = pathlib.Path(part)
    if path.exists():
        return 0
    solver = _solver(options)
    columns: dict[str, Any] = {"board": pa.array(boards.tolist(), type=pa.list_(pa.int16()))}
    if moves:
        solutions = solver.solve_many(boards.tolist(), jobs=jobs)
        columns["length"] = pa.array([-1 if s is None else s.length for s in solutions], type=pa.int32())
        columns["moves"] = pa.array([None if s is None else s.moves for s in solutions], type=pa.string())
    else:
        columns["length"] = pa.array(solver.distances(boards, jobs=jobs), type=pa.int32())
    temporary = path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex}")
    pq.write_table(pa.table(columns), temporary)
    os.replace(temporary, path)
    return len(boards)


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
    with LocalCluster(processes=True, threads_per_worker=1, dashboard_address=None) as own, Client(own) as started:
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

    ``client`` is a ``distributed.Client``; None uses the current one, or
    starts a local cluster with a worker process per core. ``jobs`` is the
    threads per task (1 suits a worker per core). Parts already in
    ``dest`` are skipped. Returns the number of rows in the parts this
    call wrote.
    """
    from distributed import as_completed

    if chunk_rows < 1:
        raise ValueError(f"chunk_rows {chunk_rows} is out of range: give 1 or more")
    boards = read_boards(source)
    if boards.shape[1] != size * size:
        raise ValueError(
            f"{source}: rows have {boards.shape[1]} tiles, a {size}x{size} board has {size * size}"
        )
    _check_tiles(boards, source)
    dest = pathlib.Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    options = {"size": size, "goal": goal, "jobs": max(jobs, 1)}
    if pdb_dir is not None:
        options["pdb_dir"] = os.fspath(pdb_dir)
    if partition is not None:
        options["partition"] = partition
    # The options are checked here, where an error reaches the caller at once.
    _solver(options)
    with _client(client) as client:
        futures = []
        # The rows of the parts missing at the start: when every task is
        # done, each of those parts exists (a task rerun after its worker
        # died may find its part already written and report nothing).
        missing_rows = 0
        for index, start in enumerate(range(0, len(boards), chunk_rows)):
            part = _part_path(dest, index)
            if part.exists():
                continue
            chunk = np.ascontiguousarray(boards[start : start + chunk_rows])
            missing_rows += len(chunk)
            futures.append(
                client.submit(
                    _label_chunk, chunk, os.fspath(part), options, moves, jobs, pure=False, retries=3
                )
            )
        bar = _progress_bar(len(futures), progress)
        for future in as_completed(futures):
            future.result()
            bar(1)
        bar(0, done=True)
        return missing_rows


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


def _search_run(solver, board: list, prefixes: list, bound: int, watch: _Watch) -> tuple:
    """Passes below `prefixes` in order until a solution, the end, or the
    stop flag: (moves or None, least f above the bound, nodes expanded per
    subtree searched, the least estimate each met, seconds, whether the run
    is searched to its end or its solution)."""
    import time

    next_bound, counts, closest = _UNBOUNDED, [], []
    started = time.perf_counter()
    for prefix in prefixes:
        moves, below, nodes, stopped, near = solver.search_pass(board, prefix, bound, stop=watch.stop)
        counts.append(nodes)
        closest.append(near)
        if stopped:
            return None, next_bound, counts, closest, time.perf_counter() - started, False
        if moves is not None:
            watch.event.set()
            return prefix + moves, bound, counts, closest, time.perf_counter() - started, True
        next_bound = min(next_bound, below)
    return None, next_bound, counts, closest, time.perf_counter() - started, True


def _drain(board: list, queue_name: str, bound: int, options: dict, found_event: str) -> list:
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
            outcome = _search_run(solver, board, prefixes, bound, watch)
            results.append((start, *outcome))
            if outcome[0] is not None:
                break
        return results
    finally:
        watch.close()
        # The scheduler drops the queue, and the runs a solution left in
        # it, when every task that opened it has let go.
        queue.close()


def _passes(board: list, prefixes: list, bound: int, options: dict, found_event: str) -> tuple:
    """One run of subtrees as a task of its own (for runs a lost worker took
    from the queue): as :func:`_search_run`."""
    watch = _Watch(found_event)
    try:
        if watch.event.is_set():
            return None, _UNBOUNDED, [], [], 0.0, False
        return _search_run(_solver(options), board, prefixes, bound, watch)
    finally:
        watch.close()


class SplitSolution:
    """What :func:`solve` found: the moves (tile directions), their count,
    nodes expanded in all, the iterations, and the runs of subtrees searched
    again because the worker that took them was lost."""

    def __init__(self, moves: str, expanded: int, iterations: int, runs_retried: int = 0):
        self.moves = moves
        self.length = len(moves)
        self.expanded = expanded
        self.iterations = iterations
        self.runs_retried = runs_retried

    def __repr__(self) -> str:
        return (
            f"SplitSolution(length={self.length}, expanded={self.expanded}, iterations={self.iterations}, "
            f"runs_retried={self.runs_retried})"
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
    """
    tiles, size = _tiles(board, size)
    options = {"size": size, "goal": goal, "jobs": 1}
    if pdb_dir is not None:
        options["pdb_dir"] = os.fspath(pdb_dir)
    if partition is not None:
        options["partition"] = partition
    # The board, the tables and the depth are checked here, before any
    # cluster starts.
    solver = _solver(options)
    solver.frontier(tiles, depth, None)
    with _client(client) as client:
        return _split_search(tiles, options, solver, client, depth)


def _split_search(
    tiles: list, options: dict, solver, client: Any, depth: Optional[int]
) -> SplitSolution:
    from distributed import Event, Queue

    workers = max(len(client.scheduler_info().get("workers", {})), 1)
    sizes = _Sizes()
    bound, expanded, iterations, runs_retried = None, 0, 0, 0
    # How near the goal each subtree's pass came in the last iteration.
    came_near: dict = {}
    while True:
        iterations += 1
        nodes, least_cut, shallow, estimate, above = solver.frontier(tiles, depth, bound)
        bound = estimate if bound is None else bound
        expanded += above
        if shallow is not None:
            return SplitSolution(shallow, expanded, iterations, runs_retried)
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
            client.submit(_drain, tiles, queue.name, bound, options, event_name, pure=False, retries=3)
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
                client.submit(_passes, tiles, prefixes[start:end], bound, options, event_name, pure=False, retries=3)
                for start, end in lost
            ]
            for (start, _), outcome in zip(lost, client.gather(retried)):
                tally.take(start, outcome, sizes, estimates)
        expanded += tally.expanded
        found, next_bound = tally.found, tally.next_bound
        queue.close()
        Event(event_name).clear()
        if found is not None:
            return SplitSolution(found, expanded, iterations, runs_retried)
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


def _progress_bar(total: int, shown: bool):
    """A progress bar on stderr: tqdm when installed, else a counter line."""
    if not shown or total == 0:
        return lambda step, done=False: None
    try:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="part", file=sys.stderr)

        def tick(step: int, done: bool = False) -> None:
            bar.update(step)
            if done:
                bar.close()

        return tick
    except ImportError:
        count = [0]

        def tick(step: int, done: bool = False) -> None:
            count[0] += step
            end = "\n" if done else ""
            print(f"\rlabelled {count[0]}/{total} parts", end=end, file=sys.stderr, flush=True)

        return tick


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
    split = commands.add_parser("solve", help="solve one board optimally, its search split over the workers")
    split.add_argument("board", nargs="+", help="the tiles row by row, 0 for the blank (one argument or several)")
    common(split, None)
    split.add_argument("--json", action="store_true", help="print one JSON record")
    args = parser.parse_args(argv)
    client = None
    if args.scheduler:
        from distributed import Client

        client = Client(args.scheduler)
    # Run as `python -m`, this file is `__main__`, whose functions Dask
    # would pickle by value (with this process's open solvers): the tasks
    # must name the importable module's.
    from npuzzle import distributed

    try:
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
        )
    except (ValueError, OSError, npuzzle.TablesError) as e:
        print(f"npuzzle.distributed: {e}", file=sys.stderr)
        return 1
    seconds = time.time() - started
    if args.json:
        record = {
            "length": found.length,
            "moves": found.moves,
            "expanded": found.expanded,
            "iterations": found.iterations,
            "runs_retried": found.runs_retried,
            "seconds": round(seconds, 3),
        }
        print(json.dumps(record))
    else:
        print(f"Minimum number of moves = {found.length}")
        print(f"Moves: {found.moves}")
        iterations = f"{found.iterations} iteration" + ("s" if found.iterations != 1 else "")
        print(f"Nodes: {found.expanded} expanded in {iterations}, {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
