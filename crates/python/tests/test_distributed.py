"""Labelling on a local Dask cluster: the labels equal solve_many's and
breadth-first truth, every row is written exactly once even when a worker
is killed mid-job, reruns label only the rows no part holds whatever the
chunk size, another job's directory is refused, and bad input is refused
before any task. The split search gives Korf's optimal lengths."""

import asyncio
import hashlib
import json
import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster

import npuzzle
from npuzzle import distributed as nd


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with Client(cluster) as client:
        yield client
    cluster.close()


def parts_of(dest):
    tables = [pq.read_table(p) for p in sorted(pathlib.Path(dest).glob("part-*.parquet"))]
    return pa.concat_tables(tables) if tables else None


def write_part(path, table):
    """Writes a part as the labeller does, with its digest beside it."""
    pq.write_table(table, path)
    (path.parent / f"_{path.name}.sha256").write_text(hashlib.sha256(path.read_bytes()).hexdigest() + "\n")


def random_boards(count, seed, size=3):
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        tiles = list(range(size * size))
        rng.shuffle(tiles)
        boards.append(tiles)
    return np.array(boards)


def test_labels_equal_breadth_first_truth_and_solve_many(client, pdb_dir, distances, tmp_path):
    # 3x3 boards, solvable or not, from a Parquet file with a board column.
    boards = random_boards(300, seed=1)
    source = tmp_path / "boards.parquet"
    pq.write_table(pa.table({"board": pa.array(boards.tolist())}), source)
    written = nd.label(source, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", chunk_rows=64, client=client, progress=False)
    assert written == 300
    table = parts_of(tmp_path / "out")
    assert len(list((tmp_path / "out").glob("part-*.parquet"))) == 5
    labelled = table.column("board").to_pylist()
    assert sorted(map(tuple, labelled)) == sorted(map(tuple, boards.tolist()))
    lengths = dict(zip(map(tuple, labelled), table.column("length").to_pylist()))
    for board in boards.tolist():
        assert lengths[tuple(board)] == distances.get(tuple(board), -1)
    # The same through solve_many on 4x4 boards, with moves, from CSV.
    solver = npuzzle.Solver(pdb_dir, partition="5-5-5")
    four = [npuzzle.random_board(4, seed=s) for s in range(12)]
    csv = tmp_path / "four.csv"
    csv.write_text("tiles\n" + "".join(",".join(map(str, b)) + "\n" for b in four))
    nd.label(csv, tmp_path / "four", pdb_dir=pdb_dir, partition="5-5-5", chunk_rows=5, moves=True, client=client, progress=False)
    table = parts_of(tmp_path / "four")
    expected = solver.solve_many(four)
    assert table.column("length").to_pylist() == [s.length for s in expected]
    assert table.column("moves").to_pylist() == [s.moves for s in expected]


def test_a_killed_worker_loses_no_row_and_duplicates_none(client, pdb_dir, tmp_path):
    boards = np.array([npuzzle.random_board(4, seed=100 + s) for s in range(120)])
    source = tmp_path / "boards.npy"
    np.save(source, boards)
    dest = tmp_path / "out"
    result = {}

    def run():
        result["written"] = nd.label(source, dest, pdb_dir=pdb_dir, partition="5-5-5", chunk_rows=4, client=client, progress=False)

    job = threading.Thread(target=run)
    job.start()
    # Kill one worker process once the job is under way.
    deadline = time.time() + 60
    while not list(dest.glob("part-*.parquet")) and time.time() < deadline:
        time.sleep(0.05)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    job.join(timeout=120)
    assert not job.is_alive()
    assert result["written"] == 120
    table = parts_of(dest)
    assert table.num_rows == 120
    labelled = [tuple(b) for b in table.column("board").to_pylist()]
    assert sorted(labelled) == sorted(map(tuple, boards.tolist()))
    assert_each_row_once(dest, boards)
    solver = npuzzle.Solver(pdb_dir, partition="5-5-5")
    truth = solver.distances(boards)
    lengths = dict(zip(labelled, table.column("length").to_pylist()))
    assert [lengths[tuple(b)] for b in boards.tolist()] == truth.tolist()
    assert not list(dest.glob(".*tmp*")), "a temporary part was left behind"
    # A rerun finds every part written and does nothing.
    assert nd.label(source, dest, pdb_dir=pdb_dir, partition="5-5-5", chunk_rows=4, client=client, progress=False) == 0


def test_bad_input_is_refused_before_any_task(client, pdb_dir, tmp_path):
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((3, 10), dtype=np.int64))
    with pytest.raises(ValueError, match="rows have 10 tiles, a 4x4 board has 16"):
        nd.label(wrong, tmp_path / "out", pdb_dir=pdb_dir, partition="5-5-5", client=client)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="no boards in it"):
        nd.label(empty, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2,3,4,5,6,7,8,0\n1,2,3,4,5,6,7,8,0\n1,2,3,4,5,6,7,8,8\n")
    with pytest.raises(ValueError, match="row 2 is not a board"):
        nd.label(bad, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", chunk_rows=1, client=client)
    text = tmp_path / "text.csv"
    text.write_text("1,2,3,4,5,6,7,8,0\n1,2,x,4,5,6,7,8,0\n")
    with pytest.raises(ValueError, match="text.csv: could not convert"):
        nd.label(text, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    with pytest.raises(ValueError, match="not a board file"):
        nd.label(tmp_path / "boards.txt", tmp_path / "out", client=client)
    three = tmp_path / "three.npy"
    np.save(three, random_boards(4, seed=5))
    with pytest.raises(npuzzle.TablesError):
        nd.label(three, tmp_path / "out", pdb_dir=tmp_path, size=3, partition="8", client=client)
    assert not list((tmp_path / "out").glob("part-*"))


def test_the_command_line_labels_a_file(pdb_dir, tmp_path):
    boards = random_boards(40, seed=3)
    np.save(tmp_path / "boards.npy", boards)
    run = subprocess.run(
        [sys.executable, "-m", "npuzzle.distributed", "label", str(tmp_path / "boards.npy"), str(tmp_path / "out"),
         "--pdb-dir", str(pdb_dir), "--size", "3", "--partition", "8", "--chunk-rows", "16"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "40 boards labelled" in run.stdout
    assert parts_of(tmp_path / "out").num_rows == 40


def assert_each_row_once(dest, boards, distances=None):
    """The parts of `dest` hold each source row once, with its board (and
    its breadth-first length when `distances` is given)."""
    table = parts_of(dest)
    assert table.num_rows == len(boards), f"{table.num_rows} rows for {len(boards)} boards"
    rows = table.column("row").to_pylist()
    assert sorted(rows) == list(range(len(boards))), "a row is missing or written twice"
    labelled = table.column("board").to_pylist()
    for row, board in zip(rows, labelled):
        assert board == boards[row].tolist(), row
    if distances is not None:
        for board, length in zip(labelled, table.column("length").to_pylist()):
            assert length == distances.get(tuple(board), -1), board


def label_tasks(client):
    """How many labelling tasks the scheduler has been given (each enters
    the state waiting when given)."""
    return client.run_on_scheduler(
        lambda dask_scheduler: dask_scheduler.task_prefixes["label_chunk"].state_counts["waiting"]
        if "label_chunk" in dask_scheduler.task_prefixes else 0
    )


def test_a_rerun_labels_the_missing_rows_once_whatever_the_chunk_size(client, pdb_dir, distances, tmp_path):
    boards = random_boards(100, seed=11)
    source = tmp_path / "boards.npy"
    np.save(source, boards)
    dest = tmp_path / "out"
    options = dict(pdb_dir=pdb_dir, size=3, partition="8", client=client, progress=False)
    assert nd.label(source, dest, chunk_rows=30, **options) == 100
    names = sorted(p.name for p in dest.glob("part-*.parquet"))
    # An interrupted run: one part missing; the rerun cuts other chunks.
    (dest / names[1]).unlink()
    assert nd.label(source, dest, chunk_rows=50, **options) == 30
    assert_each_row_once(dest, boards, distances)
    assert names == [
        "part-000000000000-000000000029.parquet",
        "part-000000000030-000000000059.parquet",
        "part-000000000060-000000000089.parquet",
        "part-000000000090-000000000099.parquet",
    ]
    # Two neighbouring parts and the last gone, chunks smaller than a gap.
    for name in sorted(p.name for p in dest.glob("part-*.parquet"))[1:3] + [names[-1]]:
        (dest / name).unlink()
    before = label_tasks(client)
    assert nd.label(source, dest, chunk_rows=7, **options) == 70
    assert label_tasks(client) == before + 10
    assert_each_row_once(dest, boards, distances)
    # Nothing missing: no task.
    before = label_tasks(client)
    assert nd.label(source, dest, chunk_rows=1, **options) == 0
    assert label_tasks(client) == before


def test_another_job_into_the_same_directory_is_refused(client, pdb_dir, tmp_path):
    first, other = random_boards(40, seed=21), random_boards(40, seed=22)
    np.save(tmp_path / "a.npy", first)
    np.save(tmp_path / "b.npy", other)
    dest = tmp_path / "out"
    options = dict(pdb_dir=pdb_dir, size=3, partition="8", client=client, progress=False)
    assert nd.label(tmp_path / "a.npy", dest, chunk_rows=30, **options) == 40
    held = sorted(p.name for p in dest.glob("part-*"))
    before = label_tasks(client)
    with pytest.raises(ValueError, match=r"holds the labels of other boards: its _npuzzle_job.json records 40 boards from .*a\.npy"):
        nd.label(tmp_path / "b.npy", dest, chunk_rows=30, **options)
    # One board changed is another job too.
    changed = first.copy()
    changed[7] = other[0]
    np.save(tmp_path / "changed.npy", changed)
    with pytest.raises(ValueError, match="holds the labels of other boards"):
        nd.label(tmp_path / "changed.npy", dest, chunk_rows=30, **options)
    # So are the same boards labelled for another goal, or with moves.
    npuzzle.build_tables(tmp_path / "first", "8", size=3, goal="blank-first")
    with pytest.raises(ValueError, match="labelled with goal 'blank-last', not 'blank-first'"):
        nd.label(tmp_path / "a.npy", dest, goal="blank-first", **{**options, "pdb_dir": tmp_path / "first"})
    with pytest.raises(ValueError, match="labelled with moves False, not True"):
        nd.label(tmp_path / "a.npy", dest, moves=True, **options)
    assert label_tasks(client) == before
    assert sorted(p.name for p in dest.glob("part-*")) == held
    assert_each_row_once(dest, first)
    # The same boards from another file (a copy, as CSV) are the same job.
    csv = tmp_path / "copy.csv"
    csv.write_text("".join(",".join(map(str, b)) + "\n" for b in first.tolist()))
    assert nd.label(csv, dest, chunk_rows=13, **options) == 0
    # A directory of parts npuzzle did not record, or whose parts overlap
    # or disagree with their names, is refused before any task.
    old = tmp_path / "old"
    old.mkdir()
    pq.write_table(pq.read_table(dest / held[0]), old / "part-00000.parquet")
    with pytest.raises(ValueError, match="holds parts but no _npuzzle_job.json"):
        nd.label(tmp_path / "a.npy", old, **options)
    rows = pq.read_table(dest / held[0])
    write_part(dest / "part-000000000000-000000000009.parquet", rows.slice(0, 10))
    with pytest.raises(ValueError, match="part-000000000000-000000000009.parquet and part-000000000000-000000000029"
                       ".parquet both hold row 0"):
        nd.label(tmp_path / "a.npy", dest, **options)
    write_part(dest / "part-000000000000-000000000009.parquet", rows.slice(0, 5))
    with pytest.raises(ValueError, match="holds 5 rows, its name says 10"):
        nd.label(tmp_path / "a.npy", dest, **options)
    (dest / "part-000000000000-000000000009.parquet").unlink()
    (dest / "part-junk.parquet").write_text("")
    with pytest.raises(ValueError, match="part-junk.parquet is not a part of this job"):
        nd.label(tmp_path / "a.npy", dest, **options)
    (dest / "part-junk.parquet").unlink()
    # Rows 0-9 copied under the name of rows 30-39: its row column tells.
    write_part(dest / held[1], rows.slice(0, 10))
    with pytest.raises(ValueError, match=f"{held[1]} holds other rows than its name says"):
        nd.label(tmp_path / "a.npy", dest, **options)
    assert label_tasks(client) == before


def test_parquet_cell_columns_are_taken_by_name(client, pdb_dir, distances, tmp_path):
    boards = random_boards(20, seed=31)
    source = tmp_path / "cells.parquet"
    # Columns c8 ... c0 in the file, and a column that is no cell.
    columns = {f"c{i}": pa.array(boards[:, i]) for i in reversed(range(9))}
    columns["id"] = pa.array(range(20))
    pq.write_table(pa.table(columns), source)
    options = dict(pdb_dir=pdb_dir, size=3, partition="8", client=client, progress=False)
    assert nd.label(source, tmp_path / "out", chunk_rows=8, **options) == 20
    assert_each_row_once(tmp_path / "out", boards, distances)
    # Floats that hold whole numbers are tiles.
    floats = tmp_path / "floats.parquet"
    pq.write_table(pa.table({f"c{i}": pa.array(boards[:, i].astype(np.float64)) for i in range(9)}), floats)
    assert nd.label(floats, tmp_path / "floats", **options) == 20
    assert_each_row_once(tmp_path / "floats", boards, distances)


def bad_parquet_files(tmp_path):
    """(file, what the refusal says) for Parquet boards that are no boards."""
    boards = random_boards(6, seed=41)
    cells = {f"c{i}": boards[:, i].tolist() for i in range(9)}

    def write(name, columns, schema=None):
        path = tmp_path / name
        pq.write_table(pa.table(columns, schema=schema), path)
        return path

    with_null = dict(cells, c4=cells["c4"][:3] + [None] + cells["c4"][4:])
    fraction = dict(cells, c2=[float(t) for t in cells["c2"]])
    fraction["c2"][5] = 2.5
    missing = {k: v for k, v in cells.items() if k != "c3"}
    lists = boards.tolist()
    return [
        (write("null.parquet", with_null), r"row 3, column c4: no tile \(null\)"),
        (write("fraction.parquet", fraction), r"row 5, c2: 2.5 is not a tile number"),
        (write("missing.parquet", missing), "cell columns c0 to c8: c3 is missing"),
        (write("spelled.parquet", dict(cells, c03=cells["c3"])), "cell column c3 and c03: write it as c3"),
        (write("both.parquet", dict(cells, board=lists)), "both a column board and cell columns"),
        (write("none.parquet", {"x": [1], "y": [2]}), "no column board and no cell columns c0, c1, ...: the file has x, y"),
        (write("text.parquet", dict(cells, c1=[str(t) for t in cells["c1"]])), "column c1 holds string, not tile numbers"),
        (write("nullboard.parquet", {"board": lists[:2] + [None] + lists[3:]}), r"row 2, column board: no board \(null\)"),
        (write("nulltile.parquet", {"board": lists[:1] + [lists[1][:4] + [None] + lists[1][5:]] + lists[2:]}),
         r"row 1, column board, tile 4: no tile \(null\)"),
        (write("ragged.parquet", {"board": lists[:4] + [lists[4][:8]] + lists[5:]}), "row 4 has 8 tiles, row 0 has 9"),
        (write("floatboard.parquet", {"board": [[t + 0.5 for t in b] for b in lists]}), r"row 0, tile 0: \d\.5 is not a tile number"),
        (write("big.parquet", {"board": lists[:2] + [[9] + lists[2][1:]] + lists[3:]}),
         "row 2, tile 0: 9 is not a tile: a board of 9 cells has 0 to 8"),
    ]


def test_bad_boards_are_clear_errors_before_any_task(client, pdb_dir, tmp_path):
    before = label_tasks(client)
    for path, says in bad_parquet_files(tmp_path):
        with pytest.raises(ValueError, match=says):
            nd.label(path, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    floats = tmp_path / "floats.npy"
    array = random_boards(3, seed=42).astype(np.float32)
    array[1, 6] = np.nan
    np.save(floats, array)
    with pytest.raises(ValueError, match=r"row 1, column 6: nan is not a tile number"):
        nd.label(floats, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    csv = tmp_path / "floats.csv"
    csv.write_text("1,2,3,4,5,6,7,8,0\n1.0,2,3,4,5,6,7,0,8.5\n")
    with pytest.raises(ValueError, match=r"row 1, column 8: 8.5 is not a tile number"):
        nd.label(csv, tmp_path / "out", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    np.save(tmp_path / "ok.npy", random_boards(3, seed=43))
    for bad, says in [
        (dict(chunk_rows=0), "chunk_rows 0 is out of range"),
        (dict(chunk_rows=2.5), "chunk_rows 2.5 is out of range"),
        (dict(size="3"), "size '3' is not a board side"),
        (dict(goal="up"), "up"),
    ]:
        with pytest.raises(ValueError, match=says):
            nd.label(tmp_path / "ok.npy", tmp_path / "out", **{**dict(pdb_dir=pdb_dir, size=3, partition="8", client=client), **bad})
    # A destination that cannot be a directory.
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="file: not a directory"):
        nd.label(tmp_path / "ok.npy", tmp_path / "file", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    with pytest.raises(OSError, match="cannot write the output directory"):
        nd.label(tmp_path / "ok.npy", tmp_path / "file" / "out", pdb_dir=pdb_dir, size=3, partition="8", client=client)
    assert not (tmp_path / "out").exists()
    assert label_tasks(client) == before


def label_command(*args):
    return subprocess.run(
        [sys.executable, "-m", "npuzzle.distributed", "label", *map(str, args)],
        capture_output=True, text=True, timeout=180,
    )


def test_the_command_line_refuses_bad_input_in_one_line_with_status_2(pdb_dir, tmp_path):
    boards = random_boards(40, seed=51)
    np.save(tmp_path / "a.npy", boards)
    np.save(tmp_path / "b.npy", random_boards(40, seed=52))
    tables = ["--pdb-dir", pdb_dir, "--size", "3", "--partition", "8"]
    run = label_command(tmp_path / "a.npy", tmp_path / "out", *tables, "--chunk-rows", "30")
    assert run.returncode == 0, run.stderr
    cases = [(tmp_path / "b.npy", tmp_path / "out", "holds the labels of other boards")]
    cases += [(path, tmp_path / "never", says.replace("\\", "")) for path, says in bad_parquet_files(tmp_path)[:3]]
    cases += [(tmp_path / "a.npy", tmp_path / "a.npy", "not a directory")]
    for source, dest, says in cases:
        run = label_command(source, dest, *tables)
        assert run.returncode == 2, (source, run.stderr)
        assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1, run.stderr
        assert run.stderr.startswith("npuzzle.distributed: ") and says in run.stderr, run.stderr
    assert not (tmp_path / "never").exists()
    assert_each_row_once(tmp_path / "out", boards)


def test_the_labellers_own_files_are_regular_files_or_refused_at_once(pdb_dir, tmp_path):
    """A job record or part that is a FIFO, a link (to /dev/zero, or to a
    good part) or a directory is refused in one line, never read."""
    np.save(tmp_path / "a.npy", random_boards(40, seed=61))
    tables = ["--pdb-dir", pdb_dir, "--size", "3", "--partition", "8"]

    def refused(dest, says):
        run = label_command(tmp_path / "a.npy", dest, *tables, "--chunk-rows", "20")
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr and run.stderr.count("\n") == 1, run.stderr
        assert says in run.stderr, run.stderr

    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / nd.JOB_FILE)
    refused(fifo, f"{nd.JOB_FILE}: is a FIFO (named pipe), not a job record npuzzle wrote: remove it")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / nd.JOB_FILE).symlink_to("/dev/zero")
    refused(linked, f"{nd.JOB_FILE}: is a symbolic link, not a job record npuzzle wrote: remove it")
    good = tmp_path / "good"
    run = label_command(tmp_path / "a.npy", good, *tables, "--chunk-rows", "20")
    assert run.returncode == 0, run.stderr
    first = "part-000000000000-000000000019.parquet"
    kept = (good / first).read_bytes()
    (good / first).unlink()
    os.mkfifo(good / first)
    refused(good, f"{first}: is a FIFO (named pipe), not a part npuzzle wrote")
    (good / first).unlink()
    (good / first).mkdir()
    refused(good, f"{first}: is a directory, not a part npuzzle wrote")
    (good / first).rmdir()
    (tmp_path / "elsewhere.parquet").write_bytes(kept)
    (good / first).symlink_to(tmp_path / "elsewhere.parquet")
    refused(good, f"{first}: is a symbolic link, not a part npuzzle wrote")
    (good / first).unlink()
    (good / first).write_bytes(kept)
    run = label_command(tmp_path / "a.npy", good, *tables)
    assert run.returncode == 0 and "0 boards labelled" in run.stdout, run.stderr


def verify_command(*args):
    return subprocess.run(
        [sys.executable, "-m", "npuzzle.distributed", "verify", *map(str, args)],
        capture_output=True, text=True, timeout=180,
    )


def test_changed_labels_are_refused_and_verify_finds_wrong_ones(pdb_dir, distances, tmp_path):
    boards = random_boards(60, seed=71)
    np.save(tmp_path / "a.npy", boards)
    tables = ["--pdb-dir", pdb_dir, "--size", "3", "--partition", "8"]
    dest = tmp_path / "out"
    assert label_command(tmp_path / "a.npy", dest, *tables, "--chunk-rows", "30").returncode == 0
    run = verify_command(dest, "--sample", "100", "--pdb-dir", pdb_dir, "--partition", "8")
    assert run.returncode == 0 and "60 rows checked" in run.stdout and "every label agrees" in run.stdout, run.stderr
    # A fresh seed each run unless one is given, printed to pick the same
    # rows again.
    seeds = {re.search(r"seed (\d+)", verify_command(dest, "--sample", "3", "--pdb-dir", pdb_dir, "--partition",
                                                      "8").stdout).group(1) for _ in range(3)}
    assert len(seeds) == 3, seeds
    again = verify_command(dest, "--sample", "3", "--seed", "7", "--pdb-dir", pdb_dir, "--partition", "8")
    assert "Sampling with seed 7 " in again.stdout, again.stdout
    # Every length +2, same name, same rows: the rerun refuses the part.
    name = "part-000000000030-000000000059.parquet"
    table = pq.read_table(dest / name)
    lengths = pa.compute.add(table.column("length"), 2)
    changed = table.set_column(table.column_names.index("length"), "length", lengths)
    pq.write_table(changed, dest / name)
    run = label_command(tmp_path / "a.npy", dest, *tables)
    assert run.returncode == 2, run.stdout
    assert f"{name} changed since npuzzle wrote it" in run.stderr, run.stderr
    assert "run the same label command again" in run.stderr, run.stderr
    # Its digest rewritten to match: only re-solving tells.
    write_part(dest / name, changed)
    run = verify_command(dest, "--sample", "5", "--pdb-dir", pdb_dir, "--partition", "8")
    assert run.returncode == 1, run.stdout
    wrong = [line for line in run.stdout.splitlines() if name in line]
    assert len(wrong) == 5, run.stdout
    for line in wrong:
        row, label, solved = map(int, re.search(r"row (\d+): labelled (-?\d+), solved (-?\d+)", line).groups())
        assert 30 <= row < 60 and label == solved + 2 == distances.get(tuple(boards[row]), -1) + 2, line
    assert "5 of 10 rows checked disagree" in run.stderr, run.stderr
    # Two rows' boards and lengths swapped, digest rewritten: verify and
    # the rerun compare every row's board with the source, naming the row.
    swapped = pq.read_table(dest / name).to_pydict()
    for column in ("board", "length"):
        swapped[column][0], swapped[column][1] = swapped[column][1], swapped[column][0]
    write_part(dest / name, pa.table(swapped, schema=table.schema))
    for run in (verify_command(dest, "--sample", "5", "--pdb-dir", pdb_dir, "--partition", "8"),
                label_command(tmp_path / "a.npy", dest, *tables)):
        assert run.returncode == 2, run.stdout
        assert f"{name}: row 30: board is not the source's row 30" in run.stderr, run.stderr
    # Removed as the message says and labelled again: all agree.
    (dest / name).unlink()
    (dest / f"_{name}.sha256").unlink()
    run = label_command(tmp_path / "a.npy", dest, *tables)
    assert run.returncode == 0 and "30 boards labelled" in run.stdout, run.stderr
    assert verify_command(dest, "--pdb-dir", pdb_dir, "--partition", "8").returncode == 0
    # A part without its digest is not trusted either.
    (dest / f"_{name}.sha256").unlink()
    run = label_command(tmp_path / "a.npy", dest, *tables)
    assert run.returncode == 2 and f"{name} has no recorded digest" in run.stderr, run.stderr
    # Moves are replayed too.
    moved = tmp_path / "moved"
    assert label_command(tmp_path / "a.npy", moved, *tables, "--moves").returncode == 0
    assert verify_command(moved, "--sample", "10", "--pdb-dir", pdb_dir, "--partition", "8").returncode == 0
    with pytest.raises(ValueError, match="sample 0 is out of range"):
        nd.verify(moved, sample=0)
    with pytest.raises(ValueError, match="no _npuzzle_job.json there"):
        nd.verify(tmp_path)


def test_progress_is_one_line_per_step_when_not_on_a_terminal(pdb_dir, tmp_path):
    np.save(tmp_path / "boards.npy", random_boards(40, seed=61))
    run = label_command(tmp_path / "boards.npy", tmp_path / "out", "--pdb-dir", pdb_dir, "--size", "3",
                        "--partition", "8", "--chunk-rows", "10")
    assert run.returncode == 0, run.stderr
    progress = [line for line in run.stderr.splitlines(keepends=True) if "labelled" in line]
    assert progress == [f"labelled {n}/4 parts\n" for n in range(1, 5)], run.stderr
    assert "\r" not in run.stderr


def test_the_docs_local_cluster_snippets_run_as_scripts(pdb_dir, tmp_path):
    # Saved as a file and run, each Python block that labels or solves
    # (starting a local cluster) must run: whole, and guarded with `if
    # __name__ == "__main__":` (Dask starts its workers by importing the
    # script). Tables: 5-5-5 for the docs' 7-8; the solve blocks' boards
    # give way to easy ones.
    text = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "distributed.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S)
              if re.search(r"distributed\.(label|solve)\(", b)]
    assert len(blocks) == 3, blocks
    data = tmp_path / "data"
    data.mkdir()
    for table in pathlib.Path(pdb_dir).iterdir():
        (data / table.name).symlink_to(table)
    boards = np.array([npuzzle.random_board(4, seed=s) for s in range(6)])
    pq.write_table(pa.table({"board": pa.array(boards.tolist())}), tmp_path / "boards.parquet")
    for number, block in enumerate(blocks):
        block = block.replace("0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1", "1 2 3 4 5 6 7 8 9 10 11 12 0 13 14 15")
        block = block.replace("1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15")
        block = block.replace('partition="7-8"', 'partition="5-5-5"')
        script = tmp_path / f"snippet{number}.py"
        script.write_text(block)
        run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, cwd=tmp_path)
        assert run.returncode == 0, (block, run.stderr[-3000:])
    assert_each_row_once(tmp_path / "labels", boards)


def test_the_command_line_solves_a_board_and_refuses_bad_ones(pdb_dir):
    # Korf's #1 (57 moves) for the goal with the blank last, on a local
    # cluster the command starts.
    board = "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2"
    command = [sys.executable, "-m", "npuzzle.distributed", "solve", "--pdb-dir", str(pdb_dir), "--partition", "5-5-5"]
    run = subprocess.run(command + [board, "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["length"] == 57 and len(record["moves"]) == 57
    assert replay_ok([int(t) for t in board.split()], record["moves"], 4)
    assert record["expanded"] > 0 and record["runs_retried"] == 0
    # As `npuzzle`: bad input exits with 2, a board that cannot reach the
    # goal with 1.
    for bad, says, status in [
        ("1 2 3 4 5", "5 numbers do not make a square board", 2),
        ("1 2 x 4", "'x' is not a tile number", 2),
        ("1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 0", "cannot reach the goal", 1),
        ("1 1 3 4 5 6 7 8 9 10 11 12 13 15 14 0", "tile 1 appears more than once", 2),
    ]:
        run = subprocess.run(command + bad.split(), capture_output=True, text=True, timeout=60)
        assert run.returncode == status and says in run.stderr and "Traceback" not in run.stderr, (bad, run.stderr)


def korf_easiest(count: int) -> list:
    """The easiest of Korf's 100 (goal blank last): (length, tiles)."""
    lines = (pathlib.Path(__file__).resolve().parents[3] / "bench" / "korf100_goal_blank_last.txt").read_text().splitlines()
    entries = ((int(f[1]), [int(t) for t in f[2:]]) for f in (l.split() for l in lines) if f and not f[0].startswith("#"))
    return sorted(entries, key=lambda e: e[0])[:count]


def test_the_split_search_gives_the_known_optimal_lengths(client, pdb_dir):
    entries = korf_easiest(4)
    local = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=1)
    for length, board in entries:
        split = nd.solve(board, pdb_dir=pdb_dir, partition="5-5-5", client=client)
        assert split.length == length
        assert replay_ok(board, split.moves, 4)
        alone = local.solve(board)
        # The iterations before the last expand the same nodes as alone; in
        # the last, tasks beside the one that finds stop within 0.1 s (or
        # find another solution first).
        assert alone.expanded // 2 <= split.expanded <= alone.expanded * 1.5 + 100_000, (split, alone.expanded)
    # A board shallower than the split depth is answered from the frontier.
    near = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15]
    assert nd.solve(near, pdb_dir=pdb_dir, partition="5-5-5", client=client).length == 1
    with pytest.raises(ValueError, match="depth 13 is out of range"):
        nd.solve(near, pdb_dir=pdb_dir, partition="5-5-5", client=client, depth=13)


def test_the_split_search_costs_few_nodes_more_than_the_local_search(client, pdb_dir):
    # An 80-move board over 6-6-3: about 115 million nodes, a few hundred
    # tasks. The driver hands out neighbouring subtrees of about 0.1 s each,
    # so when one task finds the solution the other worker has spent at
    # most about a task on subtrees the local search never enters.
    board = hard80_board(14)
    split = nd.solve(board, pdb_dir=pdb_dir, partition="6-6-3", client=client)
    assert split.length == 80
    assert replay_ok(board, split.moves, 4)
    alone = npuzzle.Solver(pdb_dir, partition="6-6-3", jobs=1).solve(board)
    print(f"split {split.expanded:,} nodes against {alone.expanded:,} alone")
    assert alone.expanded * 0.8 <= split.expanded <= alone.expanded * 1.1, (split, alone.expanded)


def test_the_split_search_gives_optimal_lengths_on_5x5_boards(client, tmp_path):
    # Small tables (six of four tiles, built in about a second); boards from
    # seeded random walks, 46 to 58 moves away. Truth: the local search with
    # linear conflict, which needs no tables.
    partition = "1,2,5,6;3,4,8,9;7,11,12,13;10,14,15,19;16,17,20,21;18,22,23,24"
    npuzzle.build_tables(tmp_path, partition, size=5)
    truth = npuzzle.Solver(size=5, heuristic="linear-conflict", jobs=1)
    rng = random.Random(5)
    for _ in range(4):
        board = random_walk(rng, list(range(1, 25)) + [0], 80)
        split = nd.solve(board, pdb_dir=tmp_path, size=5, partition=partition, client=client)
        assert split.length == truth.solve(board).length
        assert replay_ok(board, split.moves, 5)


def random_walk(rng, board, steps):
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}
    last = None
    for _ in range(steps):
        while True:
            move = rng.choice("UDLR")
            if move == back.get(last):
                continue
            try:
                board, last = npuzzle.apply_moves(board, move), move
                break
            except ValueError:
                pass  # off the board
    return board


def hard80_board(number):
    fields = (pathlib.Path(__file__).resolve().parents[3] / "bench" / "hard80.txt").read_text().splitlines()[number - 1].split()
    assert fields[0] == str(number)
    return [int(t) for t in fields[2:]]


def split_queues(client):
    """The split search's run queues on the scheduler and their lengths."""
    return client.run_on_scheduler(
        lambda dask_scheduler: {
            name: queue.qsize()
            for name, queue in dask_scheduler.extensions["queues"].queues.items()
            if name.startswith("npuzzle-split-runs-")
        }
    )


def test_the_split_search_leaves_no_queue_behind(client, pdb_dir):
    # The last iteration ends at its solution with runs still queued: the
    # scheduler must drop them with the queue, or a long-lived cluster
    # keeps every search's leftovers.
    nd.solve(hard80_board(14), pdb_dir=pdb_dir, partition="6-6-3", client=client)
    deadline = time.time() + 10
    while split_queues(client) and time.time() < deadline:
        time.sleep(0.05)
    assert split_queues(client) == {}


def search_while(client, pdb_dir, board, act):
    """The split search of `board` over 6-6-3, run in a thread while
    `act(name, size)` sees each run queue on the scheduler."""
    result = {}
    job = threading.Thread(
        target=lambda: result.update(split=nd.solve(board, pdb_dir=pdb_dir, partition="6-6-3", client=client))
    )
    job.start()
    deadline = time.time() + 60
    while job.is_alive() and time.time() < deadline:
        for name, size in split_queues(client).items():
            act(name, size)
        time.sleep(0.01)
    job.join(timeout=180)
    assert not job.is_alive()
    return result["split"]


def test_runs_a_lost_worker_took_are_searched_again(client, pdb_dir):
    # A worker lost mid-run has taken its run from the iteration's queue and
    # never reports it. Take one so from every iteration that queues enough
    # runs (the last may end at its solution first; the one before cannot):
    # the driver must search them again, or the bound could pass a solution.
    from distributed import Queue

    taken = set()

    def take_a_run(name, size):
        # More items than the two end marks: the queue's head was a run
        # when its size was read.
        if size > 3 and name not in taken:
            queue = Queue(name, client=client)
            try:
                run = queue.get(timeout=1)
            except (asyncio.TimeoutError, TimeoutError):
                run = None  # the workers emptied it since
            else:
                if run is None:
                    # The workers took the runs since: the end mark goes
                    # back, and this queue may be tried again.
                    queue.put(None)
            queue.close()
            if run is not None:
                taken.add(name)

    board = hard80_board(14)
    split = search_while(client, pdb_dir, board, take_a_run)
    assert len(taken) >= 2, "fewer than two iterations queued enough runs to take one"
    assert split.length == 80 and replay_ok(board, split.moves, 4)
    assert split.runs_retried >= 1, split


def test_a_stopped_run_is_not_taken_as_searched():
    # Runs [0, 2), [2, 5), [5, 6): the first searched to its end, the second
    # stopped by the event after one subtree, the third never reported.
    sizes = nd._Sizes()
    tally = nd._Tally([(0, 2), (2, 5), (5, 6)], 6, least_cut=99)
    tally.take(0, (None, 90, [5, 6], [20, 21], 0.1, True), sizes, [1.0] * 6)
    tally.take(2, (None, 88, [3], [30], 0.1, False), sizes, [1.0] * 6)
    assert tally.unsearched() == [(2, 5), (5, 6)]
    assert (tally.found, tally.next_bound, tally.expanded) == (None, 90, 14)
    tally.take(2, (None, 92, [4, 4, 4], [22, 23, 24], 0.1, True), sizes, [1.0] * 6)
    tally.take(5, ("UL", 94, [7], [0], 0.1, True), sizes, [1.0] * 6)
    assert tally.unsearched() == [] and tally.found == "UL"
    assert tally.counts == [5, 6, 4, 4, 4, 7] and tally.expanded == 33
    # The search again's report replaces the stopped one's.
    assert tally.closest == [20, 21, 22, 23, 24, 0]


def test_a_finder_lost_before_it_reports_leaves_the_search_optimal(client, pdb_dir):
    # A worker that finds a solution sets the iteration's event, then is
    # lost before it reports: the others stop mid-run with nothing found.
    # Set an iteration's event the same way: the driver must search the
    # stopped runs again, not take their partial reports as searched. Every
    # iteration that queues enough runs is signalled, as an early one can
    # end before its event is set (the last runs for seconds).
    from distributed import Event

    signalled = set()

    def signal(name, size):
        if size > 3 and name not in signalled:
            signalled.add(name)
            Event(name.replace("npuzzle-split-runs-", "npuzzle-split-found-"), client=client).set()

    board = hard80_board(14)
    split = search_while(client, pdb_dir, board, signal)
    assert signalled, "no iteration queued enough runs"
    assert split.length == 80 and replay_ok(board, split.moves, 4)
    assert split.runs_retried >= 1, split


def test_a_killed_worker_leaves_the_split_search_optimal(pdb_dir):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as own:
        killed = []

        def kill_a_worker(name, size):
            if size > 3 and not killed:
                killed.append(sorted(own.run(os.getpid).values())[0])
                os.kill(killed[0], signal.SIGKILL)

        board = hard80_board(13)
        split = search_while(own, pdb_dir, board, kill_a_worker)
        assert killed, "no iteration queued enough runs"
        assert split.length == 80 and replay_ok(board, split.moves, 4)


def replay_ok(board, moves, n):
    tiles = list(board)
    blank = tiles.index(0)
    step = {"U": n, "D": -n, "L": 1, "R": -1}
    for move in moves:
        source = blank + step[move]
        tiles[blank], tiles[source] = tiles[source], 0
        blank = source
    return tiles == list(range(1, n * n)) + [0]


def passes_in_order(solver, board, nodes, bound, **options):
    """Searches below `nodes` ((prefix, h) pairs) one after another until
    one finds the goal, as the local split search does: the moves found
    (prefix included) or None, the least f cut off, the nodes expanded, how
    near each node's search came, and each pass's answer."""
    found, least_cut, expanded, came_near, answers = None, 2**32 - 1, 0, {}, []
    for prefix, h in nodes:
        answers.append(solver.search_pass(board, prefix, bound, **options))
        moves, below, spent, stopped, near = answers[-1]
        assert not stopped and near <= h
        expanded += spent
        came_near[prefix] = near
        if moves is not None:
            found = prefix + moves
            break
        least_cut = min(least_cut, below)
    return found, least_cut, expanded, came_near, answers


def test_frontier_and_passes_in_order_are_the_local_search(pdb_dir):
    # The units the split search hands out, run one after another in the
    # local search's order (those whose passes came nearest the goal in the
    # last iteration first, then the frontier's), expand exactly the local
    # search's nodes, at the depth the local search splits a 4x4 board.
    solver = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=1)
    board = [npuzzle.random_board(4, seed=7)][0]
    bound, total, came_near, reordered = None, 0, {}, False
    while True:
        nodes, cut, shallow, estimate, above = solver.frontier(board, bound=bound)
        bound = estimate if bound is None else bound
        total += above
        assert shallow is None
        ordered = sorted(nodes, key=lambda node: (came_near.get(node[0], node[1]), node[1]))
        reordered |= ordered != nodes
        found, least_cut, expanded, came_near, _ = passes_in_order(solver, board, ordered, bound)
        total += expanded
        if found:
            break
        bound = min(cut, least_cut)
    alone = solver.solve(board)
    assert (len(found), total) == (alone.length, alone.expanded)
    assert replay_ok(board, found, 4)
    # The test means something only if the last iterations' order differs
    # from the frontier's.
    assert reordered
    with pytest.raises(ValueError):
        solver.search_pass(board, "UXD", bound)
    # A path off the board names no node: refused with the move, in both
    # calls (once an empty subtree with no error).
    with pytest.raises(ValueError, match=r"move \d+ \('D'\) runs off the board"):
        solver.search_pass(board, "DDDD", bound)
    with pytest.raises(ValueError, match=r"prefix 2 \(UUUU\): move \d+ \('U'\) runs off"):
        solver.search_passes(board, ["", "UUUU"], bound)
    # A set stop flag ends a pass at once, saying so.
    flag = npuzzle.StopFlag()
    flag.set()
    moves, _, expanded, stopped, _ = solver.search_pass(board, nodes[0][0], bound + 20, stop=flag)
    assert stopped and moves is None and expanded <= 1
    # Units that would exhaust memory are refused, not attempted.
    with pytest.raises(ValueError, match="bound 4294967295 is out of range"):
        solver.search_pass(board, "", 2**32 - 1)
    with pytest.raises(ValueError, match="depth 60 is out of range"):
        solver.frontier(board, 60)


def test_open_frontier_and_passes_in_order_are_the_local_hybrid(pdb_dir):
    # A*+IDA* spread as the split search is: the open nodes of the
    # best-first phase, searched one after another in the local order (by
    # f, then by how near the goal each came in the last iteration), give
    # the local A*+IDA*'s moves and expand exactly its nodes.
    local = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=1, memory="1M")
    solver = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=1)
    for seed in (7, 8):
        board = npuzzle.random_board(4, seed=seed)
        kept, shallow, estimate, best_first = solver.open_frontier(board, "1M")
        assert shallow is None and best_first > 0 and len(kept) > 100
        f = [len(moves) + h for moves, h in kept]
        assert f == sorted(f) and min(f) >= estimate
        bound, total, came_near = min(f), best_first, {}
        while True:
            within = [node for node in kept if len(node[0]) + node[1] <= bound]
            ordered = sorted(within, key=lambda node: (came_near.get(node[0], node[1]), node[1]))
            found, least_cut, expanded, came_near, singles = passes_in_order(
                solver, board, ordered, bound, open_node=True
            )
            total += expanded
            # One call for the whole run: the same passes, to the same end.
            assert solver.search_passes(board, [p for p, _ in ordered], bound, open_node=True) == singles
            if found:
                break
            bound = min(least_cut, min((x for x in f if x > bound), default=2**32 - 1))
        alone = local.solve(board)
        assert (found, total) == (alone.moves, alone.expanded), seed
        assert replay_ok(board, found, 4)
    # A budget that holds the whole search answers from the best-first phase.
    near = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15]
    assert solver.open_frontier(near, "1M")[:2] == ([], "L")
    for bad, says in [(0, "memory 0 bytes is out of range"), ("2X", "memory .*not a size")]:
        with pytest.raises(ValueError, match=says):
            solver.open_frontier(board, bad)
    for bad in (True, None):
        with pytest.raises(TypeError, match="memory must be bytes"):
            solver.open_frontier(board, bad)


def test_the_split_search_over_open_nodes_is_optimal(client, pdb_dir):
    # `memory`: the driver's best-first phase, then its open nodes as the
    # tasks' subtrees; optimal, the moves replayed, the best-first nodes
    # counted within the total. Through the command line too.
    entries = korf_easiest(3)
    for length, board in entries:
        split = nd.solve(board, pdb_dir=pdb_dir, partition="5-5-5", client=client, memory="64K")
        assert split.length == length and replay_ok(board, split.moves, 4)
        assert 0 < split.best_first < split.expanded, split
    with pytest.raises(ValueError, match="depth and memory exclude each other"):
        nd.solve(entries[0][1], pdb_dir=pdb_dir, partition="5-5-5", client=client, memory="4M", depth=8)
    board = "13 6 8 12 15 14 0 10 11 7 4 5 9 1 3 2"
    command = [sys.executable, "-m", "npuzzle.distributed", "solve", "--pdb-dir", str(pdb_dir), "--partition", "5-5-5"]
    run = subprocess.run(command + [board, "--memory", "64K", "--json"], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["length"] == 57 and replay_ok([int(t) for t in board.split()], record["moves"], 4)
    assert 0 < record["best_first"] < record["expanded"]
    run = subprocess.run(command + [board, "--memory", "lots"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "memory" in run.stderr and "Traceback" not in run.stderr, run.stderr
