#!/usr/bin/env python3
"""Solves boards and labels a NumPy batch with the npuzzle package.

    cargo xtask python                      # builds and installs it into target/python-venv
    target/python-venv/bin/python examples/python/solve.py data [PARTITION]
"""

import sys

import numpy as np

import npuzzle

pdb_dir = sys.argv[1] if len(sys.argv) > 1 else "data"
partition = sys.argv[2] if len(sys.argv) > 2 else None  # None: 7-8
solver = npuzzle.Solver(pdb_dir, partition=partition)

solution = solver.solve("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1")
print(solution.length, solution.moves)  # 80 UUULDLDDRR...

boards = np.array([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15],
                   [2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0]])
print(solver.distances(boards))  # [ 1 -1]: -1 is unsolvable
print(npuzzle.Tables(pdb_dir, partition=partition).lookup(boards[0]))  # the heuristic
