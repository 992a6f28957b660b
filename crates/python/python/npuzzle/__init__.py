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
    """The solver of ``npuzzle solve``, with its options and policy.

    ``Solver(pdb_dir=None, partition=None, size=4, goal="blank-last",
    max_nodes=None, reflection=True, jobs=0, algorithm=None,
    heuristic=None, fast=False)``. Naming ``pdb_dir`` or ``partition``
    asks for the tables of ``partition`` (default: 7-8 for 4x4) for boards
    of side ``size``: they are opened at once, and :class:`TablesError`
    says how to build them when they are missing or damaged. With neither,
    tables are looked for as the command line does ($NPUZZLE_PDB_DIR,
    ./data, the user data directory), and a side without them is solved
    another way with a warning (``Solution.optimal`` tells).
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
            raise ValueError(f"tiles must be integers, not {array.dtype}")
        low, high = int(array.min()), int(array.max())
        if low < 0 or high >= cells:
            bad = low if low < 0 else high
            row = int(np.argwhere(array == bad)[0][0])
            raise ValueError(f"row {row}: {bad} is not a tile of a {side}x{side} board")
        if cells > 256:
            raise ValueError(f"distances takes boards up to 16x16, not {side}x{side}")
        packed = np.ascontiguousarray(array, dtype=np.uint8).tobytes()
        lengths = self._distances(packed, cells, jobs)
        return np.frombuffer(lengths, dtype="<i4").astype(np.int32)
