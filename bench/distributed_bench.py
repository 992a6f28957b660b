"""Labelling throughput through a local Dask cluster against
Solver.distances on the same cores.

    target/python-venv/bin/python bench/distributed_bench.py [BOARDS] [SIZE] [--split]

BOARDS 0 skips the labelling. SIZE 3 (default) builds the complete 3x3 table in a scratch directory;
SIZE 4 uses the 7-8 tables in data/ (cargo xtask build-pdb). With
--split, also one search split over 1 and then 2 workers: the 80-move
board (7-8), and Korf & Felner's #44, #38 and #25 when the septet tables
are in data/.
Prints Markdown (`cargo xtask bench --distributed` runs it)."""

import os
import pathlib
import sys
import tempfile
import time

import numpy as np
from distributed import Client, LocalCluster

import npuzzle
from npuzzle import distributed as nd

REPO = pathlib.Path(__file__).resolve().parents[1]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    count = int(args[0]) if len(args) > 0 else 200_000
    size = int(args[1]) if len(args) > 1 else 3
    if count > 0:
        label_throughput(count, size)
    if "--split" in sys.argv:
        split_search()


def label_throughput(count, size):
    """`npuzzle.distributed.label` against `Solver.distances` on the same cores."""
    scratch = tempfile.mkdtemp()
    if size == 3:
        pdb_dir, partition = scratch, "8"
        npuzzle.build_tables(scratch, "8", size=3)
    else:
        pdb_dir, partition = str(REPO / "data"), "7-8"
    boards = np.array([npuzzle.random_board(size, seed=s) for s in range(count)])
    source = os.path.join(scratch, "boards.npy")
    np.save(source, boards)
    cores = os.cpu_count() or 1
    solver = npuzzle.Solver(pdb_dir, partition=partition, size=size)
    started = time.time()
    solver.distances(boards, jobs=cores)
    local = time.time() - started
    with LocalCluster(n_workers=cores, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        started = time.time()
        nd.label(source, os.path.join(scratch, "out"), pdb_dir=pdb_dir, size=size, partition=partition,
                 chunk_rows=max(count // (8 * cores), 1), client=client, progress=False)
        labelled = time.time() - started
    print(f"- {size}x{size}, {count:,} random boards, {cores} cores: `Solver.distances` {count / local:,.0f} "
          f"boards/s; `npuzzle.distributed.label` on a local Dask cluster of {cores} workers "
          f"{count / labelled:,.0f} boards/s ({local / labelled:.2f} of `distances`' rate, Parquet parts "
          f"written, {labelled:.0f} s)", flush=True)


def split_search():
    """One search over 1 worker, then 2: nodes and seconds."""
    cases = [("the 80-move 15-puzzle", "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1", 4, "blank-last", "7-8")]
    if any((REPO / "data").glob("5x5-blank-first-*")):
        for line in (REPO / "bench" / "korf24_50.txt").read_text().splitlines():
            fields = line.split()
            if fields and fields[0] in ("44", "38", "25"):
                cases.append((f"Korf & Felner #{fields[0]}", " ".join(fields[2:]), 5, "blank-first", "septet"))
    print("\n| board | tables | nodes, 1 worker | nodes, 2 workers | seconds, 1 / 2 workers | speed-up "
          "| local `Solver`, 2 threads: nodes, s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, board, size, goal, partition in cases:
        runs = []
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                started = time.time()
                found = nd.solve(board, pdb_dir=str(REPO / "data"), size=size, goal=goal,
                                 partition=partition, client=client)
                runs.append((found, time.time() - started))
        (one, t1), (two, t2) = runs
        assert one.length == two.length, (one.length, two.length)
        local = npuzzle.Solver(str(REPO / "data"), size=size, goal=goal, partition=partition, jobs=2)
        local.lower_bound([int(t) for t in board.split()])
        started = time.time()
        alone = local.solve(board)
        t_local = time.time() - started
        assert alone.length == one.length, (alone.length, one.length)
        extra = (two.expanded / one.expanded - 1) * 100
        print(f"| {name} ({one.length} moves) | {partition} | {one.expanded:,} | {two.expanded:,} ({extra:+.1f} %) "
              f"| {t1:.1f} / {t2:.1f} | {t1 / t2:.2f} | {alone.expanded:,}, {t_local:.1f} |", flush=True)


if __name__ == "__main__":
    main()
