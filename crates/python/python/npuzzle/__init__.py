"""Optimal sliding-tile puzzle solutions over npuzzle's pattern databases.

Build the tables once (``npuzzle pdb build`` or :func:`build_tables`), then::

    import npuzzle
    solver = npuzzle.Solver("data")                 # the 7-8 tables of the 15-puzzle
    solution = solver.solve("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")
    solution.length, solution.moves                 # 80, 'UUULDLDDRR...'
    solver.distances(boards)                        # NumPy (k, 16) -> optimal lengths

Boards are strings in any form ``npuzzle solve`` reads, or sequences of
integers (lists, tuples, NumPy rows), 0 for the blank. Moves are letters
U D L R naming the direction each tile slides.
"""

from __future__ import annotations

from typing import Any

from ._npuzzle import (
    NodeLimitError,
    Solution,
    Tables,
    TablesError,
    UnsolvableError,
    __version__,
    build_tables,
)
from ._npuzzle import Solver as _NativeSolver

__all__ = [
    "NodeLimitError",
    "Solution",
    "Solver",
    "Tables",
    "TablesError",
    "UnsolvableError",
    "__version__",
    "build_tables",
]


class Solver(_NativeSolver):
    """An optimal solver (IDA* over additive pattern databases).

    ``Solver(pdb_dir, partition=None, size=4, goal="blank-last",
    max_nodes=None)`` opens the tables of ``partition`` (default: 7-8 for
    4x4) from ``pdb_dir`` and raises :class:`TablesError`, with the command
    that builds them, when they are missing or damaged.
    """

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
        cells = self.size * self.size
        if array.ndim != 2 or array.shape[1] != cells:
            raise ValueError(
                f"boards must have shape (k, {cells}) for {self.size}x{self.size} "
                f"tables, not {array.shape}"
            )
        if array.shape[0] == 0:
            return np.zeros(0, dtype=np.int32)
        if not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"tiles must be integers, not {array.dtype}")
        low, high = int(array.min()), int(array.max())
        if low < 0 or high >= cells:
            bad = low if low < 0 else high
            row = int(np.argwhere(array == bad)[0][0])
            raise ValueError(f"row {row}: {bad} is not a tile of a {self.size}x{self.size} board")
        packed = np.ascontiguousarray(array, dtype=np.uint8).tobytes()
        lengths = self._distances(packed, cells, jobs)
        return np.frombuffer(lengths, dtype="<i4").astype(np.int32)
