"""Labelling throughput through a local Dask cluster against
Solver.distances on the same cores.

    target/python-venv/bin/python bench/distributed_bench.py [BOARDS] [SIZE]

SIZE 3 (default) builds the complete 3x3 table in a scratch directory;
SIZE 4 uses the 7-8 tables in data/ (cargo xtask build-pdb)."""

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
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 3
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
    print(f"{size}x{size}, {count:,} random boards, {cores} cores: Solver.distances {count / local:,.0f} boards/s; "
          f"npuzzle.distributed.label on a local Dask cluster of {cores} workers {count / labelled:,.0f} boards/s "
          f"({local / labelled:.2f} of distances' rate, Parquet parts written)")


if __name__ == "__main__":
    main()
