"""Optimal sliding-tile puzzle solutions over npuzzle's pattern databases.

The same engine as ``npuzzle solve``: build the tables once (``npuzzle pdb
build`` or :func:`build_tables`), then::

    import npuzzle
    solver = npuzzle.Solver("data")                 # the 7-8 tables of the 15-puzzle
    solution = solver.solve("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")
    solution.length, solution.moves                 # 80, 'UUULDLDDRR...'
    solver.distances([[0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1]])
    npuzzle.Solver().solve("8 1 3 4 0 2 7 6 5")     # 3x3: no tables needed

Boards are strings in any form ``npuzzle solve`` reads, or sequences of
integers (lists, tuples, NumPy rows), 0 for the blank. Moves are letters
U D L R naming the direction each tile slides.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Sequence, Union

from ._npuzzle import (
    NodeLimitError,
    Solution,
    StopFlag,
    Tables,
    TablesError,
    TimeLimitError,
    UnsolvableError,
    __version__,
    apply_moves,
    build_tables,
    is_solvable,
    random_board,
)
from ._npuzzle import _Solver

__all__ = [
    "NodeLimitError",
    "Solution",
    "Solver",
    "StopFlag",
    "Tables",
    "TablesError",
    "TimeLimitError",
    "UnsolvableError",
    "__version__",
    "apply_moves",
    "build_tables",
    "is_solvable",
    "random_board",
]

Board = Union[str, Sequence[int]]


class Solver:
    """The solver of ``npuzzle solve``, with its options and policy.

    Naming ``partition`` asks for its tables for boards of side ``size``:
    they are opened at once, and :class:`TablesError` says how to build
    them when they are missing or damaged. Without it, tables are looked
    for when a board needs them, as ``npuzzle solve`` does: in ``pdb_dir``
    when given, else $NPUZZLE_PDB_DIR, ./data, the user data directory; a
    side without them is solved another way with a warning
    (``Solution.optimal`` tells).

    ``goal`` is ``"blank-last"`` (1 2 ... 0) or ``"blank-first"`` (0 1 2
    ...); ``max_nodes`` bounds each search; ``jobs`` is the thread count
    (0: one per core); ``algorithm`` (``"idastar"``, ``"astar"``,
    ``"bfs"``) and ``heuristic`` (``"pdb"``, ``"linear-conflict"``,
    ``"manhattan"``, ``"hamming"``) run exactly that search; ``fast``
    answers by reduction, not optimally; ``within`` (a percentage) accepts
    solutions up to that much longer than optimal, found far sooner, with
    the bound guaranteed (``Solution.within``); ``max_seconds`` is a
    wall-clock budget a board (optimal and ``within`` searches with no
    answer by then raise :class:`TimeLimitError`; near-optimal answers
    of large boards come from where the beam got); ``memory`` (bytes, or
    a size such as ``"2G"``) runs optimal searches of boards up to 5x5 as
    A*+IDA* within that memory, as ``npuzzle solve --memory``;
    ``anytime`` (seconds) spends up to that long a board for a shorter
    near-optimal answer (boards the beam answers, 5x5 without tables to
    10x10), as ``npuzzle solve --anytime``: ``Solution.note`` says how
    long it searched and what that gained.
    """

    def __init__(
        self,
        pdb_dir: Optional[Union[str, os.PathLike]] = None,
        partition: Optional[str] = None,
        size: int = 4,
        goal: str = "blank-last",
        max_nodes: Optional[int] = None,
        reflection: bool = True,
        jobs: int = 0,
        algorithm: Optional[str] = None,
        heuristic: Optional[str] = None,
        fast: bool = False,
        within: int = 0,
        max_seconds: Optional[float] = None,
        memory: Optional[Union[int, str]] = None,
        anytime: Optional[float] = None,
    ) -> None:
        self._args = (
            pdb_dir,
            partition,
            size,
            goal,
            max_nodes,
            reflection,
            jobs,
            algorithm,
            heuristic,
            fast,
            within,
            max_seconds,
            memory,
            anytime,
        )
        self._native = _Solver(*self._args)
        self._options = {
            "max_nodes": (max_nodes, None),
            "reflection": (reflection, True),
            "algorithm": (algorithm, None),
            "heuristic": (heuristic, None),
            "fast": (fast, False),
            "within": (within, 0),
            "max_seconds": (max_seconds, None),
            "memory": (memory, None),
            "anytime": (anytime, None),
        }
        self._pdb_dir = None if pdb_dir is None else os.fspath(pdb_dir)

    def __reduce__(self) -> tuple:
        # Pickled as its options: the copy opens its own tables (for
        # multiprocessing, or a bound method such as ``solver.solve``).
        return (Solver, self._args)

    def __repr__(self) -> str:
        opened = self._native.tables_for(self.size)
        if opened is not None:
            partition, directory = opened
            tables = f"pdb_dir={os.fspath(directory)!r}, partition={partition!r}"
        elif self._pdb_dir is not None:
            tables = f"pdb_dir={self._pdb_dir!r}, tables not opened yet"
        else:
            tables = "tables looked for when needed"
        options = "".join(
            f", {name}={value!r}" for name, (value, default) in self._options.items() if value != default
        )
        return (
            f"npuzzle.Solver({tables}, size={self.size}, goal={self.goal!r}, "
            f"jobs={self.jobs}{options})"
        )

    def solve(self, board: Board) -> Solution:
        """Solves one board, the search split over the solver's threads.

        The GIL is released and Ctrl-C stops the search
        (``KeyboardInterrupt``). Raises :class:`UnsolvableError` for a
        board that cannot reach the goal, :class:`NodeLimitError` past
        ``max_nodes``, :class:`TimeLimitError` past ``max_seconds``,
        :class:`TablesError` for tables asked for but missing, damaged
        or not usable now (the message says what to do), and
        ``TypeError``/``ValueError`` for what is not a board.
        """
        return self._native.solve(board)

    def solve_many(self, boards: Iterable[Board], jobs: int = 0) -> list[Optional[Solution]]:
        """Solves many boards, ``jobs`` at a time (0: the solver's threads).

        Answers come in the boards' order; None where a board is
        unsolvable. The GIL is released; Ctrl-C stops the searches under
        way (``KeyboardInterrupt``).
        """
        return self._native.solve_many(boards, jobs)

    def distances(self, boards: Any, jobs: int = 0) -> Any:
        """Optimal lengths of many boards, as a NumPy array of int32.

        ``boards`` is anything ``numpy.asarray`` turns into integers of shape
        (k, n*n), one board per row. Unsolvable boards get -1; a row that is
        not a board raises ValueError naming the row. The boards are solved
        ``jobs`` at a time (0: one per core) with the GIL released.
        """
        try:
            import numpy as np
        except ImportError as e:  # pragma: no cover - numpy is a test dependency
            raise ImportError("Solver.distances needs NumPy: pip install numpy") from e
        array = np.asarray(boards)
        cells = array.shape[1] if array.ndim == 2 else 0
        side = int(round(cells ** 0.5))
        if array.ndim != 2 or side < 2 or side * side != cells:
            raise ValueError(
                f"boards must have shape (k, n*n), one board of n*n tiles per row "
                f"(k, {self.size * self.size}) for {self.size}x{self.size}), not {array.shape}"
            )
        if array.shape[0] == 0:
            return np.zeros(0, dtype=np.int32)
        if not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"tiles must be integers, not {array.dtype}")
        low, high = int(array.min()), int(array.max())
        if low < 0 or high >= cells:
            bad = low if low < 0 else high
            row = int(np.argwhere(array == bad)[0][0])
            raise ValueError(f"row {row}: {bad} is not a tile of a {side}x{side} board")
        if cells > 256:
            raise ValueError(f"distances takes boards up to 16x16, not {side}x{side}")
        packed = np.ascontiguousarray(array, dtype=np.uint8).tobytes()
        lengths = self._native._distances(packed, cells, jobs)
        return np.frombuffer(lengths, dtype="<i4").astype(np.int32)

    def lookup(self, board: Board) -> int:
        """The tables' value for the board (a lower bound), as ``npuzzle pdb lookup``."""
        return self._native.lookup(board)

    def lower_bound(self, board: Board) -> int:
        """The best lower bound on the board's distance without a search."""
        return self._native.lower_bound(board)

    def frontier(
        self, board: Board, depth: Optional[int] = None, bound: Optional[int] = None
    ) -> tuple:
        """The subtrees one IDA* iteration over the tables splits into at
        ``depth`` below ``board`` (None: where the local search splits a
        board of its size, 8 moves up to 4x4 and 12 beyond) for ``bound``
        (None: the board's estimate):
        ``(nodes, least_cut, goal, estimate, expanded)``, ``nodes`` a list of
        (moves from the board, estimate), lowest estimate first (ties in
        the order the levels generate them). The units of
        :func:`npuzzle.distributed.solve`, which puts first the subtrees
        whose passes came nearest the goal in the last iteration (the
        ``closest`` of :meth:`search_pass`), as the local search does."""
        return self._native.frontier(board, depth, bound)

    def open_frontier(self, board: Board, memory: Union[int, str]) -> tuple:
        """The open nodes of A*+IDA*'s best-first phase below ``board``
        within ``memory`` (bytes, or a size such as "2G", as ``npuzzle
        solve --memory``): ``(nodes, goal, estimate, expanded)``, ``nodes``
        every open node as (moves from the board, estimate), by f (the
        moves' count plus the estimate), then estimate, whatever the bound;
        ``goal`` the answer when the phase reached it, else None. The
        units of :func:`npuzzle.distributed.solve` with ``memory``, each
        searched by :meth:`search_pass` with ``open_node=True``. Ctrl-C
        ends it (``KeyboardInterrupt``)."""
        return self._native.open_frontier(board, memory)

    def search_pass(
        self,
        board: Board,
        prefix: str,
        bound: int,
        max_nodes: Optional[int] = None,
        stop: Optional[StopFlag] = None,
        open_node: bool = False,
    ) -> tuple:
        """One IDA* pass bounded by ``bound`` below the node the moves
        ``prefix`` lead to from ``board`` (a node of :meth:`frontier`, or
        with ``open_node`` of :meth:`open_frontier`, below which the
        pruning of duplicate moves starts afresh): ``(moves, next_bound,
        expanded, stopped, closest)``, ``moves`` the rest of a solution or
        None, ``closest`` the least estimate the pass met (how near the
        goal it came; a split search puts the subtrees that came nearest
        first in the next iteration); setting ``stop`` from another thread
        ends the pass within milliseconds. Ctrl-C ends it too
        (``KeyboardInterrupt``), setting ``stop`` when one is given."""
        return self._native.search_pass(board, prefix, bound, max_nodes, stop, open_node)

    def search_passes(
        self,
        board: Board,
        prefixes: Sequence[str],
        bound: int,
        max_nodes: Optional[int] = None,
        stop: Optional[StopFlag] = None,
        open_node: bool = False,
    ) -> list:
        """:meth:`search_pass` below each of ``prefixes`` in order, until one
        finds a solution or ``stop`` ends one: a tuple per pass made, as
        :meth:`search_pass` gives. One call for a run of passes sets the
        tables' heuristic up once, not once a pass (about 0.1 ms each with
        7-8), which is most of the cost of A*+IDA*'s many small open nodes.
        ``max_nodes`` bounds the passes together."""
        return self._native.search_passes(board, list(prefixes), bound, max_nodes, stop, open_node)

    @property
    def size(self) -> int:
        """The side of the boards the named tables are for."""
        return self._native.size

    @property
    def goal(self) -> str:
        """The solved position: ``"blank-last"`` or ``"blank-first"``."""
        return self._native.goal

    @property
    def jobs(self) -> int:
        """The thread count of ``solve`` and the default of ``solve_many``."""
        return self._native.jobs
