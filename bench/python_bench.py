#!/usr/bin/env python3
"""Times the Python package against the CLI on the same machine, in one run:
Korf's 100 through Solver.solve_many vs `npuzzle solve --file`, and the
optimal lengths of random 15-puzzle boards through Solver.distances.

    target/python-venv/bin/python bench/python_bench.py [--pdb-dir data] [--random 100000]

Run by `cargo xtask bench` when the package is installed (cargo xtask python).
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

import npuzzle

REPO = pathlib.Path(__file__).resolve().parents[1]


def korf100():
    boards, lengths = [], []
    for line in (REPO / "bench" / "korf100_goal_blank_last.txt").read_text().splitlines():
        fields = line.split()
        if fields and not line.startswith("#"):
            lengths.append(int(fields[1]))
            boards.append([int(t) for t in fields[2:]])
    return boards, lengths


def random_solvable_boards(count, seed):
    """Uniformly random solvable boards for the goal 1..15 0."""
    rng = np.random.default_rng(seed)
    boards = np.array([rng.permutation(16) for _ in range(count)], dtype=np.uint8)
    for row in boards:
        inversions = sum(1 for i in range(16) for j in range(i + 1, 16)
                         if row[i] and row[j] and row[i] > row[j])
        blank_row_from_bottom = 4 - int(np.where(row == 0)[0][0]) // 4
        if (inversions + blank_row_from_bottom) % 2 == 1:
            continue  # not solvable: swap two tiles
        a, b = [i for i in range(16) if row[i]][:2]
        row[a], row[b] = row[b], row[a]
    return boards


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdb-dir", default=str(REPO / "data"))
    parser.add_argument("--random", type=int, default=100_000)
    parser.add_argument("--npuzzle", default=os.environ.get(
        "NPUZZLE_BIN", str(REPO / "target" / "release" / "npuzzle")))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    boards, lengths = korf100()
    solver = npuzzle.Solver(args.pdb_dir)
    text = "".join(" ".join(map(str, b)) + "\n" for b in boards)
    py_times, cli_times = [], []
    for _ in range(args.rounds):
        started = time.perf_counter()
        solutions = solver.solve_many(boards)
        py_times.append(time.perf_counter() - started)
        assert [s.length for s in solutions] == lengths, "a length differs from the optimum"
        started = time.perf_counter()
        subprocess.run([args.npuzzle, "solve", "--pdb-dir", args.pdb_dir, "--no-moves"],
                       input=text, text=True, check=True, capture_output=True)
        cli_times.append(time.perf_counter() - started)
    py, cli = statistics.median(py_times), statistics.median(cli_times)
    print(f"Korf's 100: solve_many {py:.3f} s, npuzzle solve (whole process) {cli:.3f} s "
          f"(median of {args.rounds}, alternated); ratio {py / cli:.2f}; all 100 lengths optimal")

    if args.random:
        batch = random_solvable_boards(args.random, seed=1)
        started = time.perf_counter()
        found = solver.distances(batch)
        elapsed = time.perf_counter() - started
        assert (found >= 0).all()
        print(f"{args.random:,} random boards labelled in one distances() call: {elapsed:.1f} s "
              f"({elapsed / args.random * 1e3:.2f} ms per board), mean length {found.mean():.2f}, "
              f"max {found.max()}")


if __name__ == "__main__":
    sys.exit(main())
