"""Fuzzes the Python API: random calls with random types and values. Every
call either answers correctly (solutions replay to the goal, 3x3 lengths
are the breadth-first distances, helpers agree with each other) or raises
one of the documented exceptions; nothing else escapes, nothing hangs, the
interpreter never aborts. Interrupted distributed labelling jobs resume
with every row labelled once. `cargo xtask fuzz` runs 100,000 cases
(NPUZZLE_FUZZ_PY_CASES; NPUZZLE_FUZZ_SEED)."""

import collections
import re
import os
import random

import numpy as np
import pytest

import npuzzle

DOCUMENTED = (
    TypeError,
    ValueError,
    npuzzle.TablesError,
    npuzzle.NodeLimitError,
    MemoryError,
    OSError,
)


def junk(rng):
    return rng.choice([
        None, 42, -1, 2**70, 4.5, float("nan"), "", "x", "1 2 3", "1 2 3 0", b"1 2 3 0",
        [], [1], [1, 2, 3, 0], [1.0, 2, 3, 0], [True, 2, 3, 0], ["1", 2, 3, 0], {"a": 1},
        object(), [None] * 4, list(range(16)), [0] * 9, (3, 2, 1, 0), "0 1 2 3 4 5 6 7 8",
        "3\n8 1 3\n4 0 2\n7 6 5", "1 2 3 / 4 5 6 / 7 8 0", np.array([1, 2, 3, 0]),
        np.array([[1, 2], [3, 0]]), np.zeros(4, dtype=np.float32), "\x00", "9" * 400,
    ])


def board(rng):
    """A valid board (list) of side 2 to 5: random for small sides, a
    random walk from the goal for bigger ones."""
    side = rng.choice([2, 3, 3, 4, 4, 5])
    if side <= 3:
        return npuzzle.random_board(side, seed=rng.getrandbits(64))
    tiles = list(range(1, side * side)) + [0]
    blank = side * side - 1
    for _ in range(rng.randrange(30)):
        row, col = divmod(blank, side)
        dr, dc = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1)))
        r, c = row + dr, col + dc
        if 0 <= r < side and 0 <= c < side:
            tiles[blank], tiles[r * side + c] = tiles[r * side + c], 0
            blank = r * side + c
    return tiles


def check_solution(solution, tiles, goal, distances):
    after = npuzzle.apply_moves(tiles, solution.moves)
    n = int(len(tiles) ** 0.5)
    want = list(range(1, n * n)) + [0] if goal == "blank-last" else list(range(n * n))
    assert after == want, (tiles, solution)
    assert solution.length == len(solution.moves)
    if solution.optimal and n == 3 and goal == "blank-last":
        assert solution.length == distances[tuple(tiles)], tiles


def test_fuzz_the_python_api(pdb_dir, distances):
    cases = int(os.environ.get("NPUZZLE_FUZZ_PY_CASES", "2000"))
    rng = random.Random(int(os.environ.get("NPUZZLE_FUZZ_SEED", "1")))
    solvers = [npuzzle.Solver(pdb_dir, partition="6-6-3", max_nodes=300000), npuzzle.Solver()]
    raised = collections.Counter()
    for case in range(cases):
        kind = rng.randrange(10)
        goal = rng.choice(["blank-last", "blank-last", "blank-first"])
        try:
            if kind == 0:
                kwargs = {}
                for name, values in [
                    ("pdb_dir", [None, pdb_dir, str(pdb_dir), "/nonexistent", 3, b"x"]),
                    ("partition", [None, "6-6-3", "5-5-5", "7-8", "junk", 5, ""]),
                    ("size", [4, 3, 5, 0, -1, 2**40, "4"]),
                    ("goal", ["blank-last", "blank-first", "up", None]),
                    ("max_nodes", [None, 0, 1, 1000, -5, 2**70, "x"]),
                    ("jobs", [0, 1, 2, 256, 257, -1, 10**9, 1.5]),
                    ("algorithm", [None, "idastar", "astar", "bfs", "dfs", 3]),
                    ("heuristic", [None, "pdb", "linear-conflict", "manhattan", "hamming", "?"]),
                    ("fast", [False, True, "yes"]),
                ]:
                    if rng.randrange(3) == 0:
                        kwargs[name] = rng.choice(values)
                if kwargs.get("algorithm") or kwargs.get("heuristic"):
                    kwargs["max_nodes"] = 20000
                solver = npuzzle.Solver(**kwargs)
                repr(solver)
                tiles = board(rng)
                try:
                    solution = solver.solve(tiles)
                except npuzzle.UnsolvableError:
                    assert not npuzzle.is_solvable(tiles, goal=solver.goal)
                else:
                    check_solution(solution, tiles, solver.goal, distances)
            elif kind in (1, 2, 3):
                solver = rng.choice(solvers)
                tiles = board(rng) if rng.randrange(4) else junk(rng)
                try:
                    solution = solver.solve(tiles)
                except npuzzle.UnsolvableError:
                    assert not npuzzle.is_solvable(tiles)
                else:
                    check_solution(solution, list(npuzzle.apply_moves(tiles, "")), "blank-last",
                                   distances)
            elif kind == 4:
                solver = rng.choice(solvers)
                boards = [board(rng) if rng.randrange(5) else junk(rng)
                          for _ in range(rng.randrange(5))]
                answers = solver.solve_many(boards, jobs=rng.choice([0, 1, 2, 300]))
                assert len(answers) == len(boards)
                for tiles, solution in zip(boards, answers):
                    if solution is None:
                        assert not npuzzle.is_solvable(tiles)
                    else:
                        check_solution(solution, list(npuzzle.apply_moves(tiles, "")),
                                       "blank-last", distances)
            elif kind == 5:
                side = rng.choice([2, 3])
                rows = [npuzzle.random_board(side, seed=rng.getrandbits(32))
                        for _ in range(rng.randrange(4))]
                data = rng.choice([rows, np.array(rows, dtype=rng.choice(
                    [np.int64, np.uint8, np.int8, np.float64])) if rows else rows, junk(rng)])
                lengths = solvers[1].distances(data)
                for row, length in zip(rows, lengths):
                    if side == 3 and isinstance(data, list):
                        assert length == distances[tuple(row)]
            elif kind == 6:
                size = rng.choice([2, 3, 4, 16, 127, 1, 128, -3, 2**65, "4", None])
                tiles = npuzzle.random_board(size, seed=rng.choice([None, 0, 2**64 - 1, -1]),
                                             goal=goal)
                assert npuzzle.is_solvable(tiles, goal=goal)
            elif kind == 7:
                tiles = board(rng) if rng.randrange(3) else junk(rng)
                moves = "".join(rng.choice("UDLR") for _ in range(rng.randrange(6)))
                moves = rng.choice([moves, moves, "X", "", 5, None, "u d"])
                after = npuzzle.apply_moves(tiles, moves, notation=rng.choice(
                    ["tile", "tile", "blank", "sideways"]))
                assert sorted(after) == sorted(npuzzle.apply_moves(tiles, ""))
            elif kind == 8:
                tables = npuzzle.Tables(rng.choice([pdb_dir, "/nonexistent"]),
                                        partition=rng.choice(["6-6-3", "5-5-5", "7-8", "x"]),
                                        size=rng.choice([4, 3, 0]), goal=goal)
                value = tables.lookup(board(rng) if rng.randrange(3) else junk(rng))
                assert 0 <= value < 200
            else:
                npuzzle.build_tables(rng.choice([pdb_dir, "/nonexistent/x", "/proc"]),
                                     rng.choice(["6-6-3", "junk", "1,2,3,4,5,6,7,8,9,10,11,12",
                                                 "", "3"]),
                                     size=rng.choice([4, 2, 0, 200]),
                                     goal=goal, threads=rng.choice([0, 1, 300, -1]))
        except npuzzle.UnsolvableError:
            raised["UnsolvableError"] += 1
        except DOCUMENTED as e:
            raised[type(e).__name__] += 1
            assert str(e), f"case {case}: an empty {type(e).__name__}"
    print(f"{cases} cases; exceptions: {dict(raised)}")


def test_fuzz_distributed_resume(pdb_dir, distances, tmp_path):
    """Interrupted labelling jobs: random chunk sizes, random parts removed
    between runs, a random chunk size for each rerun. After every run each
    source row is in the parts exactly once, with its board and its
    breadth-first length; a changed source is refused. One case per 500
    Python cases (4 in the normal suite, 200 under `cargo xtask fuzz`)."""
    distributed = pytest.importorskip("distributed")
    from npuzzle import distributed as nd
    import pyarrow as pa
    import pyarrow.parquet as pq

    cases = max(int(os.environ.get("NPUZZLE_FUZZ_PY_CASES", "2000")) // 500, 1)
    rng = random.Random(int(os.environ.get("NPUZZLE_FUZZ_SEED", "1")))
    options = dict(pdb_dir=pdb_dir, size=3, partition="8", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        for case in range(cases):
            count = rng.randrange(1, 80)
            boards = np.array([npuzzle.random_board(3, seed=rng.getrandbits(32)) if rng.randrange(4)
                               else rng.sample(range(9), 9) for _ in range(count)])
            source = tmp_path / f"boards-{case}.npy"
            np.save(source, boards)
            dest = tmp_path / f"out-{case}"
            runs = rng.randrange(2, 5)
            for run in range(runs):
                chunk = rng.choice([1, rng.randrange(1, count + 1), rng.randrange(1, 100)])
                missing = count - sum(pq.read_metadata(p).num_rows for p in dest.glob("part-*.parquet"))
                written = nd.label(source, dest, chunk_rows=chunk, client=client, **options)
                assert written == missing, (case, run, chunk)
                table = pa.concat_tables([pq.read_table(p) for p in dest.glob("part-*.parquet")])
                rows = table.column("row").to_pylist()
                assert sorted(rows) == list(range(count)), (case, run, chunk)
                for row, board, length in zip(rows, table.column("board").to_pylist(),
                                              table.column("length").to_pylist()):
                    assert board == boards[row].tolist(), (case, run, row)
                    assert length == distances.get(tuple(board), -1), (case, run, board)
                # An interrupted run: some parts never written.
                parts = sorted(dest.glob("part-*.parquet"))
                for part in rng.sample(parts, rng.randrange(len(parts) + 1)):
                    part.unlink()
            if rng.randrange(3) == 0:
                other = boards.copy()
                other[rng.randrange(count)] = npuzzle.random_board(3, seed=rng.getrandbits(32))
                if (other != boards).any():
                    np.save(source, other)
                    with pytest.raises(ValueError, match="holds the labels of other boards"):
                        nd.label(source, dest, chunk_rows=rng.randrange(1, 50), client=client, **options)
    print(f"{cases} distributed resume cases")


def test_fuzz_labeller_tampering(pdb_dir, distances, tmp_path):
    """The labeller's own files tampered with at random between runs: a
    byte flipped, cut or added in a part, its digest or the job record;
    labels rewritten (with or without a matching digest); a part, digest or
    job record replaced by a FIFO, a link or a directory; a part removed.
    A rerun never hangs (an alarm), refuses in one line naming the file,
    or succeeds with every row labelled with its breadth-first length,
    except after a forgery with a matching digest, which `verify` finds.
    One case per 200 Python cases (10 in the normal suite, 500 under
    `cargo xtask fuzz`)."""
    distributed = pytest.importorskip("distributed")
    import shutil
    import signal
    from npuzzle import distributed as nd
    import pyarrow as pa
    import pyarrow.parquet as pq

    cases = max(int(os.environ.get("NPUZZLE_FUZZ_PY_CASES", "2000")) // 200, 1)
    rng = random.Random(int(os.environ.get("NPUZZLE_FUZZ_SEED", "1")) ^ 0x7A3)
    options = dict(pdb_dir=pdb_dir, size=3, partition="8", progress=False, chunk_rows=20)
    boards = np.array([npuzzle.random_board(3, seed=seed) for seed in range(60)])
    source = tmp_path / "boards.npy"
    np.save(source, boards)
    pristine = tmp_path / "pristine"
    kinds = collections.Counter()

    def alarm(signum, frame):
        raise TimeoutError("the labeller hung on a tampered file")

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            nd.label(source, pristine, client=client, **options)
            for case in range(cases):
                dest = tmp_path / f"case-{case}"
                shutil.copytree(pristine, dest)
                parts = sorted(dest.glob("part-*.parquet"))
                part = rng.choice(parts)
                digest = dest / f"_{part.name}.sha256"
                target = rng.choice([part, part, part, digest, dest / nd.JOB_FILE])
                kind = rng.choice(["flip", "cut", "append", "relabel", "forge", "fifo", "link",
                                   "directory", "remove", "no-digest", "swap", "nan-length", "short-board"])
                if kind in ("swap", "nan-length", "short-board"):
                    # Rewritten with a matching digest: the part is checked
                    # against the source and its columns' types.
                    import hashlib
                    target = part
                    table = pq.read_table(part)
                    columns = {name: table.column(name).to_pylist() for name in table.column_names}
                    if kind == "swap":
                        i, j = rng.sample(range(len(columns["row"])), 2)
                        for name in ("board", "length"):
                            columns[name][i], columns[name][j] = columns[name][j], columns[name][i]
                        arrays = {name: pa.array(values, type=table.schema.field(name).type)
                                  for name, values in columns.items()}
                    elif kind == "nan-length":
                        lengths = [float(v) for v in columns["length"]]
                        lengths[rng.randrange(len(lengths))] = float("nan")
                        arrays = {name: pa.array(values, type=table.schema.field(name).type)
                                  for name, values in columns.items() if name != "length"}
                        arrays["length"] = pa.array(lengths, type=pa.float64())
                    else:
                        columns["board"][rng.randrange(len(columns["board"]))] = [1, 2, 0]
                        arrays = {name: pa.array(values, type=table.schema.field(name).type)
                                  for name, values in columns.items()}
                    pq.write_table(pa.table(arrays), part)
                    digest.write_text(hashlib.sha256(part.read_bytes()).hexdigest() + "\n")
                elif kind in ("relabel", "forge"):
                    target = part
                    table = pq.read_table(part)
                    lengths = pa.compute.add(table.column("length"), rng.choice([-2, 2, 4])).cast(
                        table.schema.field("length").type)
                    changed = table.set_column(table.column_names.index("length"), "length", lengths)
                    pq.write_table(changed, part)
                    assert kind not in ("swap", "nan-length", "short-board"), f"{where}: taken"
                if kind == "forge":
                        import hashlib
                        digest.write_text(hashlib.sha256(part.read_bytes()).hexdigest() + "\n")
                elif kind == "remove":
                    target = part
                    part.unlink()
                    digest.unlink()
                elif kind == "no-digest":
                    target = digest
                    digest.unlink()
                else:
                    data = bytearray(target.read_bytes())
                    target.unlink()
                    if kind == "flip" and data:
                        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                    elif kind == "cut":
                        del data[rng.randrange(len(data) + 1):]
                    elif kind == "append":
                        data += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
                    if kind == "fifo":
                        os.mkfifo(target)
                    elif kind == "link":
                        (tmp_path / f"elsewhere-{case}").write_bytes(bytes(data))
                        target.symlink_to(rng.choice(["/dev/zero", tmp_path / f"elsewhere-{case}"]))
                    elif kind == "directory":
                        target.mkdir()
                    else:
                        target.write_bytes(bytes(data))
                kinds[kind] += 1
                where = f"case {case}: {kind} {target.name}"
                signal.alarm(60)
                try:
                    nd.label(source, dest, client=client, **options)
                except (ValueError, OSError) as e:
                    message = str(e)
                    assert message and "\n" not in message, f"{where}: {message!r}"
                    assert part.name in message or nd.JOB_FILE in message, f"{where}: {message}"
                    assert kind != "remove", f"{where}: {message}"
                    if kind in ("swap", "nan-length", "short-board"):
                        assert re.search(r": row \d+: (board|length) ", message), f"{where}: {message}"
                    continue
                finally:
                    signal.alarm(0)
                table = pa.concat_tables([pq.read_table(p) for p in sorted(dest.glob("part-*.parquet"))])
                rows = table.column("row").to_pylist()
                assert sorted(rows) == list(range(len(boards))), where
                wrong = [row for row, board, length in zip(rows, table.column("board").to_pylist(),
                                                            table.column("length").to_pylist())
                         if board != boards[row].tolist() or length != distances[tuple(board)]]
                assert kind not in ("swap", "nan-length", "short-board"), f"{where}: taken"
                if kind == "forge":
                    assert wrong, f"{where}: the forgery changed nothing"
                    checked, disagreements = nd.verify(dest, sample=100, pdb_dir=pdb_dir, partition="8")
                    assert {row for _, row, _, _ in disagreements} == set(wrong), where
                else:
                    assert not wrong, f"{where}: rows {wrong} kept wrong labels"
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{cases} labeller tampering cases: {dict(kinds)}")
