"""The Python package as a user meets it: tables built with build_tables,
solutions checked against breadth-first truth and known optimal lengths,
every solution replayed, NumPy batches, errors, the GIL and the stubs."""

import ast
import os
import pathlib
import random
import subprocess
import threading

import numpy as np
import pytest

import npuzzle

REPO = pathlib.Path(__file__).resolve().parents[3]
GOAL_4 = tuple(list(range(1, 16)) + [0])


@pytest.fixture(scope="session")
def solver(pdb_dir):
    return npuzzle.Solver(pdb_dir, partition="5-5-5")


def replay(board, moves):
    """Applies moves (the direction each tile slides) and returns the board."""
    tiles = list(board)
    n = int(len(tiles) ** 0.5)
    blank = tiles.index(0)
    step = {"U": n, "D": -n, "L": 1, "R": -1}
    for move in moves:
        source = blank + step[move]
        assert 0 <= source < len(tiles), f"{move} leaves the board"
        if move in "LR":
            assert source // n == blank // n, f"{move} leaves the row"
        tiles[blank], tiles[source] = tiles[source], 0
        blank = source
    return tuple(tiles)


def goal(n):
    return tuple(list(range(1, n * n)) + [0])


def random_walk(n, steps, rng):
    tiles = list(goal(n))
    blank = len(tiles) - 1
    for _ in range(steps):
        options = [b for b in (blank - n, blank + n) if 0 <= b < len(tiles)]
        options += [b for b in (blank - 1, blank + 1) if 0 <= b < len(tiles) and b // n == blank // n]
        source = rng.choice(options)
        tiles[blank], tiles[source] = tiles[source], 0
        blank = source
    return tiles


def test_3x3_solutions_are_optimal_against_breadth_first_search(pdb_dir, distances):
    truth = distances
    assert len(truth) == 181440
    solver = npuzzle.Solver(pdb_dir, partition="8", size=3)
    boards = random.Random(1).sample(sorted(truth), 400)
    solutions = solver.solve_many(boards, jobs=2)
    for board, solution in zip(boards, solutions):
        assert solution.length == truth[board] == len(solution.moves)
        assert replay(board, solution.moves) == goal(3)


def test_memory_runs_a_star_ida_star_with_the_same_lengths(pdb_dir, distances):
    """``memory`` is ``--memory``: A*+IDA*, optimal at any budget."""
    truth = distances
    boards = random.Random(2).sample(sorted(truth), 60)
    for memory in (1024, "64K", "1M"):
        solver = npuzzle.Solver(pdb_dir, partition="8", size=3, memory=memory)
        for board, solution in zip(boards, solver.solve_many(boards, jobs=2)):
            assert solution.length == truth[board] and solution.optimal
            assert replay(board, solution.moves) == goal(3)
    rng = random.Random(3)
    walked = [random_walk(4, 60, rng) for _ in range(3)]
    plain = npuzzle.Solver(pdb_dir, partition="5-5-5").solve_many(walked)
    kept = npuzzle.Solver(pdb_dir, partition="5-5-5", memory="8M").solve_many(walked)
    for board, p, k in zip(walked, plain, kept):
        assert k.length == p.length and k.optimal
        assert replay(board, k.moves) == goal(4)
        # The best-first phase's nodes, counted within the total.
        assert p.best_first_expanded == 0 and 0 < k.best_first_expanded <= k.expanded
    assert "memory='8M'" in repr(npuzzle.Solver(memory="8M"))
    for bad in (0, 1023, -1, 2**50 + 1, 2**70, "1023", "2X", "-1G", "nan"):
        with pytest.raises(ValueError, match="memory .*(out of range|not a size)"):
            npuzzle.Solver(memory=bad)
    for bad in (True, 1.5, [1]):
        with pytest.raises(TypeError, match="memory must be bytes"):
            npuzzle.Solver(memory=bad)


def test_4x4_known_optimal_lengths(solver):
    lines = (REPO / "bench" / "korf100_goal_blank_last.txt").read_text().splitlines()
    entries = []
    for line in lines:
        fields = line.split()
        if fields and not line.startswith("#"):
            entries.append((int(fields[1]), [int(t) for t in fields[2:]]))
    easiest = sorted(entries, key=lambda e: e[0])[:6]
    solutions = solver.solve_many([board for _, board in easiest])
    for (length, board), solution in zip(easiest, solutions):
        assert solution.length == length
        assert replay(board, solution.moves) == GOAL_4
        assert solution.initial_estimate == solver.lookup(board) <= length
    one = solver.solve(" ".join(map(str, easiest[0][1])))
    assert one.length == easiest[0][0]


def test_within_keeps_its_guarantee_on_3x3_boards(pdb_dir, distances):
    # Linear conflict, the 3x3 default: over the exact "8" table a weighted
    # search finds only optimal answers.
    solver = npuzzle.Solver(pdb_dir, size=3, within=50)
    assert "within=50" in repr(solver)
    boards = random.Random(2).sample(sorted(distances), 300)
    longer = 0
    for board, solution in zip(boards, solver.solve_many(boards, jobs=2)):
        optimal = distances[board]
        assert solution.length * 100 <= optimal * 150
        assert replay(board, solution.moves) == goal(3)
        if solution.length > optimal:
            longer += 1
            assert not solution.optimal and solution.within == 50
            assert solution.lower_bound <= optimal
    assert longer > 0
    with pytest.raises(ValueError, match="within 1001 is out of range"):
        npuzzle.Solver(pdb_dir, partition="8", size=3, within=1001)


def test_lookup_equals_the_cli(pdb_dir, solver):
    binary = os.environ.get("NPUZZLE_BIN", str(REPO / "target" / "release" / "npuzzle"))
    assert pathlib.Path(binary).is_file(), f"{binary}: build it with cargo build --release"
    tables = npuzzle.Tables(pdb_dir, partition="5-5-5")
    rng = random.Random(2)
    boards = [random_walk(4, 200, rng) for _ in range(10)]
    boards.append([0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1])
    for board in boards:
        out = subprocess.run(
            [binary, "pdb", "lookup", "--partition", "5-5-5", "--pdb-dir", str(pdb_dir)]
            + [str(t) for t in board],
            capture_output=True, text=True, check=True,
        ).stdout
        cli = int(out.strip().splitlines()[-1].removeprefix("heuristic: "))
        assert tables.lookup(board) == cli == solver.lookup(board)
        assert len(tables.values(board)) == 3
    assert (tables.partition, tables.size, tables.goal) == ("5-5-5", 4, "blank-last")


def test_distances_of_a_numpy_batch(solver):
    rng = random.Random(3)
    boards = [random_walk(4, 30 + i, rng) for i in range(40)]
    unsolvable = list(GOAL_4)
    unsolvable[0], unsolvable[1] = unsolvable[1], unsolvable[0]
    boards.append(unsolvable)
    array = np.array(boards, dtype=np.int64)
    lengths = solver.distances(array, jobs=2)
    assert lengths.dtype == np.int32 and lengths.shape == (41,)
    assert lengths[-1] == -1
    solutions = solver.solve_many(boards[:-1])
    assert list(lengths[:-1]) == [s.length for s in solutions]
    assert solver.solve_many([unsolvable]) == [None]
    assert solver.distances(np.zeros((0, 16), dtype=np.uint8)).shape == (0,)


def test_bad_input_is_refused_with_a_clear_message(pdb_dir, solver):
    with pytest.raises(ValueError, match=r"shape \(k, n\*n\)"):
        solver.distances(np.zeros((3, 10), dtype=np.uint8))
    bad = np.array([list(GOAL_4), [1] * 16], dtype=np.uint8)
    with pytest.raises(ValueError, match="row 1"):
        solver.distances(bad)
    with pytest.raises(ValueError, match="row 0: 16 is not a tile"):
        solver.distances(np.array([list(range(1, 17))]))
    with pytest.raises(TypeError, match="tiles must be integers"):
        solver.distances(np.zeros((1, 16)))
    with pytest.raises(ValueError, match=r"boards\[1\]"):
        solver.solve_many([GOAL_4, [1, 2, 3]])
    # A 3x3 board on a solver of 4x4 tables: the engine's policy, no tables.
    assert solver.solve("1 2 3 4 5 6 7 8 0").length == 0
    assert solver.solve("8 1 3 4 0 2 7 6 5").optimal
    with pytest.raises(npuzzle.UnsolvableError):
        solver.solve([2, 1] + list(range(3, 16)) + [0])
    # The message names this door's way to raise the limit, no CLI flag.
    for algorithm in ("idastar", "astar"):
        with pytest.raises(npuzzle.NodeLimitError, match="max_nodes keyword") as raised:
            npuzzle.Solver(pdb_dir, partition="5-5-5", max_nodes=5, algorithm=algorithm).solve(
                [0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1])
        assert "--" not in str(raised.value)
    # Tables named for a search that runs without them: the engine's rule,
    # the same as the command line's.
    for options in ({"fast": True}, {"algorithm": "bfs"}, {"heuristic": "manhattan"}):
        with pytest.raises(ValueError, match="partition 5-5-5 names tables, but"):
            npuzzle.Solver(pdb_dir, partition="5-5-5", **options)
    # A wall-clock budget: an optimal search out of time says so; a value
    # that is not seconds is refused by type or range.
    with pytest.raises(npuzzle.TimeLimitError, match="max_seconds keyword"):
        npuzzle.Solver(pdb_dir, heuristic="manhattan", max_seconds=0.05).solve(
            [0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1])
    assert npuzzle.Solver(max_seconds=60).solve("8 1 3 4 0 2 7 6 5").length == 14
    for bad in (-1, 0, float("nan"), float("inf"), 10**7):
        with pytest.raises(ValueError, match="max_seconds: .* out of range"):
            npuzzle.Solver(max_seconds=bad)
    for bad in (True, "10", [1]):
        with pytest.raises(TypeError, match="max_seconds must be a number"):
            npuzzle.Solver(max_seconds=bad)
    # Time for a shorter near-optimal answer: never longer than its first,
    # the note saying how long it searched; not with fast.
    big = npuzzle.random_board(6, seed=3)
    improved = npuzzle.Solver(pdb_dir, anytime=2).solve(big)
    first = int(improved.note.split("given: ")[1].split()[0])
    assert improved.length <= first
    assert "of the 2 s given" in improved.note
    assert npuzzle.apply_moves(big, improved.moves) == list(range(1, 36)) + [0]
    with pytest.raises(ValueError, match="anytime: .* out of range"):
        npuzzle.Solver(anytime=0)
    with pytest.raises(TypeError, match="anytime must be a number"):
        npuzzle.Solver(anytime="2")
    with pytest.raises(ValueError, match="anytime gives the beam time"):
        npuzzle.Solver(anytime=2, fast=True)
    with pytest.raises(npuzzle.TablesError, match="npuzzle pdb build"):
        npuzzle.Solver(pdb_dir / "nowhere", partition="5-5-5")
    with pytest.raises(npuzzle.TablesError, match=r"npuzzle.build_tables\("):
        npuzzle.Solver(pdb_dir / "nowhere", partition="5-5-5")
    with pytest.raises(ValueError, match="out of range: give 1 to 256"):
        solver.solve_many([GOAL_4], jobs=10**9)
    with pytest.raises(ValueError, match="out of range"):
        npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=100000)
    with pytest.raises(MemoryError, match="needs about"):
        npuzzle.build_tables(pdb_dir / "huge", "1,2,3,4,5,6,7,8,9,10,11,12")
    with pytest.raises(ValueError, match='is not a goal: use "blank-last" or "blank-first"'):
        npuzzle.Tables(pdb_dir, goal="sideways")
    with pytest.raises(ValueError, match="no partition named"):
        npuzzle.Tables(pdb_dir, partition="9-9")


def test_solve_many_releases_the_gil(solver):
    rng = random.Random(4)
    boards = [random_walk(4, 400, rng) for _ in range(30)]
    done = threading.Event()
    worker = threading.Thread(target=lambda: (solver.solve_many(boards, jobs=1), done.set()))
    ticks = 0
    worker.start()
    while not done.is_set():
        ticks += 1
    worker.join()
    assert ticks > 1000, f"the main thread ran only {ticks} times during the solve"


def test_stubs_name_exactly_what_the_module_has():
    from npuzzle import _npuzzle

    stub = ast.parse((pathlib.Path(npuzzle.__file__).parent / "_npuzzle.pyi").read_text())
    stubbed = {
        node.name for node in stub.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))
    } | {
        node.target.id for node in stub.body if isinstance(node, ast.AnnAssign)
    }
    native = {name for name in dir(_npuzzle) if not name.startswith("__") or name == "__version__"}
    assert stubbed == native
    for node in stub.body:
        if isinstance(node, ast.ClassDef) and node.name in {"Solution", "Tables", "_Solver"}:
            methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
            cls = getattr(_npuzzle, node.name)
            public = {m for m in dir(cls) if not m.startswith("__")} | (methods & {"__init__", "__len__"})
            assert methods == public, node.name
    assert (pathlib.Path(npuzzle.__file__).parent / "py.typed").exists()


def cli_records(args, stdin):
    binary = os.environ.get("NPUZZLE_BIN", str(REPO / "target" / "release" / "npuzzle"))
    out = subprocess.run(
        [binary, "solve", "--json", "--jobs", "1"] + args,
        input=stdin, capture_output=True, text=True, check=True,
    ).stdout
    import json
    return [json.loads(line) for line in out.splitlines() if '"summary"' not in line]


def test_the_same_answers_and_nodes_as_the_command_line(pdb_dir, monkeypatch):
    """One thread each: the same lengths and expanded nodes, over tables,
    over a catalogue, and by the size policy without tables."""
    rng = random.Random(5)
    boards = [random_walk(4, 40 + 7 * i, rng) for i in range(8)]
    text = "\n".join(" ".join(map(str, b)) for b in boards)
    for partition in ["5-5-5", "6-6-3", "5-5-5+6-6-3"]:
        records = cli_records(["--partition", partition, "--pdb-dir", str(pdb_dir)], text)
        solver = npuzzle.Solver(pdb_dir, partition=partition, jobs=1)
        for record, solution in zip(records, solver.solve_many(boards, jobs=1)):
            assert (record["length"], record["expanded"]) == (solution.length, solution.expanded)
            assert record["partition"] == solution.partition == partition
            assert record["strategy"] == solution.strategy and solution.strategy
            assert record["initial_estimate"] == solution.initial_estimate
    # No tables anywhere: 3x3 and 5x5 boards by the policy, as the CLI does.
    empty = pdb_dir / "empty"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("NPUZZLE_PDB_DIR", str(empty))
    small = [random_walk(3, 30 + i, rng) for i in range(5)] + [random_walk(5, 25, rng)]
    records = cli_records([], "\n".join(" ".join(map(str, b)) for b in small))
    with pytest.warns(UserWarning, match="no pattern databases for 5x5"):
        answers = npuzzle.Solver(jobs=1).solve_many(small)
    for board, record, solution in zip(small, records, answers):
        assert (record["length"], record["expanded"], record["optimal"], record["strategy"]) == (
            solution.length, solution.expanded, solution.optimal, solution.strategy)
        assert replay(board, solution.moves) == goal(int(len(board) ** 0.5))


def test_solution_fields_are_the_records_keys_with_its_values(pdb_dir):
    """Each field of a Solution is a key of the command line's solution
    record (docs/solve-output.schema.json), with the same value for the
    same search; the other keys are the command line's own."""
    import json
    schema = json.loads((REPO / "docs" / "solve-output.schema.json").read_text())
    keys = set(schema["$defs"]["solution"]["properties"])
    fields = {name for name in dir(npuzzle.Solution) if not name.startswith("_")}
    assert fields <= keys, f"fields the record lacks: {sorted(fields - keys)}"
    rng = random.Random(11)
    boards = [random_walk(4, 60, rng), random_walk(6, 40, rng)]
    for board in boards:
        record = cli_records(["--pdb-dir", str(pdb_dir)], " ".join(map(str, board)))[0]
        solution = npuzzle.Solver(pdb_dir, jobs=1).solve(board)
        for field in sorted(fields - {"seconds"}):
            assert getattr(solution, field) == record[field], (field, board)


def test_a_directory_alone_solves_what_the_command_line_solves(tmp_path):
    """``Solver(pdb_dir=DIR)`` is ``npuzzle solve --pdb-dir DIR``: a 3x3
    board needs no tables, and a 4x4 board without them is solved the
    command line's way, with a warning; only a named partition is required."""
    empty = tmp_path / "empty"
    empty.mkdir()
    small = "8 1 3 4 0 2 7 6 5"
    four = " ".join(map(str, random_walk(4, 40, random.Random(8))))
    records = cli_records(["--pdb-dir", str(empty)], small + "\n" + four)
    solver = npuzzle.Solver(pdb_dir=empty, jobs=1)
    answers = [solver.solve(small)]
    with pytest.warns(UserWarning, match="no pattern databases for 4x4"):
        answers.append(solver.solve(four))
    for record, solution in zip(records, answers):
        assert (record["length"], record["expanded"], record["optimal"], record["strategy"]) == (
            solution.length, solution.expanded, solution.optimal, solution.strategy)
    assert answers[0].optimal and answers[0].length == 14
    with pytest.raises(npuzzle.TablesError, match="5-5-5"):
        npuzzle.Solver(pdb_dir=empty, partition="5-5-5")


def test_big_boards_are_answered_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("NPUZZLE_PDB_DIR", str(tmp_path))
    rng = random.Random(6)
    board = random_walk(20, 2000, rng)
    solution = npuzzle.Solver().solve(board)
    assert not solution.optimal and solution.algorithm == "reduction"
    assert "15x15" in solution.note and solution.lower_bound <= solution.length
    assert replay(board, solution.moves) == goal(20)


SHARED_FRESH = r'''
import random, sys, threading, npuzzle
pdb_dir, rounds = sys.argv[1], int(sys.argv[2])
rng = random.Random(97)
boards = []
for _ in range(8):
    tiles = list(range(1, 16)) + [0]
    blank = 15
    for _ in range(40):
        options = [b for b in (blank - 4, blank + 4) if 0 <= b < 16]
        options += [b for b in (blank - 1, blank + 1) if 0 <= b < 16 and b // 4 == blank // 4]
        source = rng.choice(options)
        tiles[blank], tiles[source] = tiles[source], 0
        blank = source
    boards.append(tiles)
lengths = None
for options in ({}, {"memory": "16M", "jobs": 2}):
    for _ in range(rounds):
        # The tables open with the first board, in whichever thread asks.
        solver = npuzzle.Solver(pdb_dir, **options)
        answers = [None] * len(boards)
        def solve(index):
            answers[index] = solver.solve(boards[index]).length
        threads = [threading.Thread(target=solve, args=(i,)) for i in range(len(boards))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        lengths = lengths or answers
        assert answers == lengths and None not in answers, (answers, lengths)
print("lengths", *lengths, flush=True)
'''


def test_threads_sharing_a_fresh_solver_all_get_their_answers(pdb_dir, solver):
    """Eight threads share a solver whose tables are not open yet (the
    default options, then A*+IDA* on two threads), 50 new solvers each: all
    get the same optimal lengths, and nothing hangs (a child process,
    killed at the timeout)."""
    import sys

    child = subprocess.run(
        [sys.executable, "-c", SHARED_FRESH, str(pdb_dir), "50"],
        capture_output=True, text=True, timeout=300,
    )
    assert child.returncode == 0, child.stderr
    lengths = [int(n) for n in child.stdout.split()[1:]]
    assert len(lengths) == 8
    rng = random.Random(97)
    for length in lengths:
        board = random_walk(4, 40, rng)
        assert solver.solve(board).length == length


INTERRUPTED = r'''
import signal, sys, time, npuzzle
# Ctrl-C's default, whatever was inherited: a shell that starts the suite in
# the background has SIGINT ignored, and Python then installs no handler.
signal.signal(signal.SIGINT, signal.default_int_handler)
solver = npuzzle.Solver(sys.argv[1], partition="5-5-5", jobs=1)
hard = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"   # minutes over 5-5-5
for call in ("solve", "solve_many", "distances", "build_tables"):
    started = time.monotonic()
    print("start", call, flush=True)
    try:
        if call == "solve":
            solver.solve(hard)
        elif call == "solve_many":
            solver.solve_many([hard, hard], jobs=2)
        elif call == "build_tables":
            # 8 tiles: half a minute or more.
            npuzzle.build_tables(sys.argv[2], "1,2,3,4,5,6,7,8", threads=1)
        else:
            solver.distances([[int(t) for t in hard.split()]] * 2, jobs=2)
        print("finished", call, flush=True)
    except KeyboardInterrupt:
        print("interrupted", call, time.monotonic() - started, flush=True)
    # The solver is usable afterwards.
    assert solver.solve("1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15").length == 1
print("done", flush=True)
'''


def test_ctrl_c_stops_every_search_call(pdb_dir, tmp_path):
    """A real SIGINT during solve, solve_many, distances and build_tables
    raises KeyboardInterrupt at once (the searches and the generator check
    a stop flag), the solver goes on working, and the stopped build leaves
    no table under a real name."""
    import signal
    import sys
    import time

    building = tmp_path / "interrupted-build"
    building.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED, str(pdb_dir), str(building)],
        stdout=subprocess.PIPE, text=True,
    )
    # A search that ignores the signal would run for minutes: the timer
    # turns that into a failure instead of a hang.
    killer = threading.Timer(120, child.kill)
    killer.start()
    latencies = []
    try:
        for _ in range(4):
            line = child.stdout.readline()
            assert line.startswith("start"), line
            time.sleep(1.0)
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            assert line.startswith("interrupted"), line
            latencies.append(time.monotonic() - sent)
        assert child.stdout.readline().strip() == "done"
        assert child.wait(timeout=30) == 0
    finally:
        killer.cancel()
        child.kill()
    assert not list(building.glob("*.pdb.zst")), list(building.iterdir())
    print(f"Ctrl-C answered after {', '.join(f'{s * 1000:.0f} ms' for s in latencies)}")


def test_types_repr_help_and_helpers(pdb_dir, solver):
    """Python's conventions: TypeError for what is not a board, a repr that
    shows the tables and options, a help() with the real signature, and the
    helpers a Python user expects."""
    for not_a_board in (None, 42, 4.5, {"a": 1}):
        with pytest.raises(TypeError, match="a board is a string or a sequence of integers"):
            solver.solve(not_a_board)
    # Bytes are tiles, as bytearray's are: these are character codes.
    with pytest.raises(ValueError, match=r"tile 49 \(index 0\) is out of range"):
        solver.solve(b"1 2 3 0")
    with pytest.raises(TypeError, match="tiles are integers"):
        solver.solve([1.0, 2, 3, 0])
    with pytest.raises(TypeError):
        npuzzle.is_solvable(None)
    with pytest.raises(ValueError, match="not a tile number"):
        solver.solve("1 2 x 0")

    text = repr(solver)
    assert text.startswith("npuzzle.Solver(pdb_dir=")
    assert "partition='5-5-5'" in text and "size=4" in text and "goal='blank-last'" in text
    assert "max_nodes=5" in repr(npuzzle.Solver(pdb_dir, partition="5-5-5", max_nodes=5))
    assert "tables looked for when needed" in repr(npuzzle.Solver())

    import pydoc
    page = pydoc.render_doc(npuzzle.Solver, renderer=pydoc.plaintext)
    assert "class Solver(builtins.object)" in page
    assert "pdb_dir" in page and "solve_many(self, boards" in page

    # random_board: reproducible, solvable, every size.
    first = npuzzle.random_board(4, seed=7)
    assert first == npuzzle.random_board(4, seed=7)
    assert sorted(first) == list(range(16))
    assert npuzzle.is_solvable(first)
    assert npuzzle.is_solvable(npuzzle.random_board(5, seed=1, goal="blank-first"), goal="blank-first")
    assert len(npuzzle.random_board(127, seed=1)) == 127 * 127
    with pytest.raises(ValueError, match="out of range"):
        npuzzle.random_board(1)
    # Numbers past any range, either sign, are ValueErrors naming the argument.
    with pytest.raises(ValueError, match="jobs: a number past 2\\^127 is out of range"):
        npuzzle.Solver(jobs=2**200)
    with pytest.raises(ValueError, match="seed: a number below -2\\^127 is out of range"):
        npuzzle.random_board(3, seed=-(2**200))
    inner = npuzzle.Solver(size=3)._native
    for call, name in [
        (lambda: inner.frontier("1 2 3 4 5 6 7 0 8", depth=-1), "depth"),
        (lambda: inner.frontier("1 2 3 4 5 6 7 0 8", bound=2**40), "bound"),
        (lambda: inner.search_pass("1 2 3 4 5 6 7 0 8", "", -3), "bound"),
        (lambda: inner.tables_for(2**70), "size"),
    ]:
        with pytest.raises(ValueError, match=f"{name}: .* is out of range"):
            call()
    # is_solvable: the parity rule, both goals.
    swapped = [2, 1] + list(range(3, 16)) + [0]
    assert not npuzzle.is_solvable(swapped)
    assert npuzzle.is_solvable("1 2 3 4 5 6 7 8 0")
    assert not npuzzle.is_solvable(list(range(1, 16)) + [0], goal="blank-first")
    # apply_moves replays a solution to the goal; a move off the board is named.
    board = npuzzle.random_board(4, seed=3)
    solution = solver.solve(board)
    assert npuzzle.apply_moves(board, solution.moves) == list(range(1, 16)) + [0]
    assert npuzzle.apply_moves("1 2 3 4 5 6 7 0 8", "L") == [1, 2, 3, 4, 5, 6, 7, 8, 0]
    assert npuzzle.apply_moves("1 2 3 4 5 6 7 0 8", "R", notation="blank") == [1, 2, 3, 4, 5, 6, 7, 8, 0]
    with pytest.raises(ValueError, match="move 3 .* leaves the board"):
        npuzzle.apply_moves("1 2 3 4 5 6 7 8 0", "DDD")
    with pytest.raises(ValueError):
        npuzzle.apply_moves("1 2 3 4 5 6 7 8 0", "X")


def run_script(script, *args, timeout=60, env=None):
    """Runs `script` (Python code, or the path of a file of it) in a fresh
    interpreter, in its own process group, and
    kills the whole group (children of a fork included) if it has not ended
    after `timeout` seconds: a hang fails the test instead of the suite."""
    import signal
    import sys

    child = subprocess.Popen(
        [sys.executable, *(["-c", script] if isinstance(script, str) else [script]),
         *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, env=env,
    )
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        pytest.fail(f"hung for {timeout} s\nstdout:\n{out}\nstderr:\n{err}")
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert child.returncode == 0, f"exit {child.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    return out


def isolated_env(tmp_path):
    """The environment with no user tables or cache to find."""
    env = dict(os.environ)
    for name in ("NPUZZLE_PDB_DIR", "NPUZZLE_CACHE_DIR", "HOME"):
        (tmp_path / name).mkdir(exist_ok=True)
        env[name] = str(tmp_path / name)
    return env


FORKED = r'''
import os, sys, traceback, npuzzle
pdb_dir = sys.argv[1]
solver = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=2)
board = "5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12"   # 9 moves
small = "8 1 3 4 0 2 7 6 5"
# The parent's thread pools start: the child has none of their threads.
assert solver.solve(board).length == 9
assert solver.solve(small).length == solver.solve_many([small], jobs=2)[0].length
pid = os.fork()
if pid == 0:
    try:
        assert solver.solve(board).length == 9
        assert solver.solve(small).length == solver.solve_many([small, board], jobs=2)[0].length
        # Tables opened in the child (their check runs in parallel).
        fresh = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=2)
        assert fresh.solve(board).length == 9
        assert npuzzle.Tables(pdb_dir, partition="5-5-5").lookup(board) <= 9
        os._exit(0)
    except BaseException:
        traceback.print_exc()
        os._exit(1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
# The parent's solver goes on working.
assert solver.solve(board).length == 9
print("ok")
'''


def test_a_solver_used_before_fork_works_in_the_child(pdb_dir, tmp_path):
    """os.fork() after a Solver(jobs=2) has solved: the child's solves (the
    parent's solver, a new one, new tables) answer instead of waiting
    forever for the parent's threads."""
    assert run_script(FORKED, pdb_dir, env=isolated_env(tmp_path)).strip() == "ok"


POOLED = r'''
import multiprocessing, sys, npuzzle
pdb_dir = sys.argv[1]
solver = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=2)
boards = ["5 1 2 3 9 6 7 4 13 10 11 8 0 14 15 12", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15",
          "8 1 3 4 0 2 7 6 5"]
# solve starts the solver's thread pool, which the workers do not inherit.
expected = [solver.solve(board).length for board in boards]

def length(board):
    return solver.solve(board).length     # the solver the worker inherited

if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert pool.map(length, boards) == expected
        # The bound method is pickled (the solver as its options) and the
        # solutions come back pickled.
        solutions = pool.map(solver.solve, boards)
    assert [s.length for s in solutions] == expected
    assert all(npuzzle.apply_moves(b, s.moves) == npuzzle.apply_moves(b, solver.solve(b).moves)
               for b, s in zip(boards, solutions))
    print("ok")
'''


def test_a_fork_pool_maps_the_parents_solver(pdb_dir, tmp_path):
    """multiprocessing with the fork start method over a solver the parent
    has used: the workers answer, both through the inherited solver and
    through solver.solve itself (pickled)."""
    script = tmp_path / "pooled.py"
    script.write_text(POOLED)
    out = run_script(script, pdb_dir, env=isolated_env(tmp_path))
    assert out.strip() == "ok"


def test_solutions_pickle():
    import pickle

    solver = npuzzle.Solver(size=3)
    for solution in (solver.solve("8 1 3 4 0 2 7 6 5"),
                     npuzzle.Solver(fast=True).solve(npuzzle.random_board(20, seed=1))):
        copy = pickle.loads(pickle.dumps(solution))
        fields = [f for f in dir(solution) if not f.startswith("_")]
        assert [getattr(copy, f) for f in fields] == [getattr(solution, f) for f in fields]
        assert repr(copy) == repr(solution)


BIG_INTERRUPTED = r'''
import signal, sys, time, npuzzle
signal.signal(signal.SIGINT, signal.default_int_handler)
pdb_dir = sys.argv[1]
big = npuzzle.random_board(127, seed=1)       # seconds of reduction
hard = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"   # minutes over 5-5-5
solver = npuzzle.Solver()
split = npuzzle.Solver(pdb_dir, partition="5-5-5", jobs=2)
calls = {
    "solve split": lambda: split.solve(hard),
    "solve": lambda: solver.solve(big),
    "solve fast": lambda: npuzzle.Solver(fast=True, jobs=2).solve(big),
    "solve_many": lambda: solver.solve_many([big, big], jobs=2),
    "search_pass": lambda: split.search_pass(hard, "", 78),
}
for name, call in calls.items():
    print("start", name, flush=True)
    try:
        call()
        print("finished", name, flush=True)
    except KeyboardInterrupt:
        print("interrupted", name, flush=True)
assert solver.solve("1 2 3 4 5 6 7 8 0").length == 0
print("done", flush=True)
'''


def test_ctrl_c_stops_the_reduction_and_the_split_search(pdb_dir, tmp_path):
    """A SIGINT one second into the reduction of a 127x127 board (seconds
    of work), a search split over two threads or a split search's pass
    raises KeyboardInterrupt within a bound far below what the work takes;
    the latencies are printed."""
    import signal
    import sys
    import time

    child = subprocess.Popen(
        [sys.executable, "-c", BIG_INTERRUPTED, str(pdb_dir)],
        stdout=subprocess.PIPE, text=True, env=isolated_env(tmp_path),
    )
    killer = threading.Timer(120, child.kill)
    killer.start()
    latencies = {}
    try:
        for _ in range(5):
            line = child.stdout.readline()
            assert line.startswith("start"), line
            name = line.split(maxsplit=1)[1].strip()
            time.sleep(1.0)
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            line = child.stdout.readline()
            latencies[name] = time.monotonic() - sent
            assert line.strip() == f"interrupted {name}", line
            # Generous: it detects a call that runs to its end (the 127x127
            # reduction takes 7 s and more), not a speed.
            assert latencies[name] < 3.0, latencies
        assert child.stdout.readline().strip() == "done"
        assert child.wait(timeout=30) == 0
    finally:
        killer.cancel()
        child.kill()
    print("Ctrl-C answered after " + ", ".join(f"{k}: {v * 1000:.0f} ms" for k, v in latencies.items()))


def test_refusals_name_the_value(pdb_dir, solver):
    import re

    with pytest.raises(ValueError, match=r"tile 1180591620717411303424 \(index 0\) is out of range: "
                                         r"a board of 4 cells has tiles 0 to 3"):
        solver.solve([2**70, 1, 2, 3])
    with pytest.raises(ValueError, match=r"tile -1 \(index 3\) is out of range"):
        solver.solve([1, 2, 3, -1])
    with pytest.raises(ValueError, match=r"tile 70000 \(index 0\) is out of range"):
        npuzzle.is_solvable([70000, 1, 2, 0])
    with pytest.raises(TypeError, match=r"not str \(index 1\)"):
        solver.solve([1, "2", 3, 0])
    # Unordered collections have no board order.
    for unordered in ({1, 2, 3, 0}, frozenset({1, 2, 3, 0}), {1: 0, 2: 0, 3: 0, 0: 0},
                      {1: 0, 2: 0, 3: 0, 0: 0}.keys()):
        with pytest.raises(TypeError, match=f"not {type(unordered).__name__}: its order"):
            solver.solve(unordered)
    # The repr shows Python values.
    assert repr(solver.solve(GOAL_4)).endswith("expanded=0)")
    reduced = npuzzle.Solver(fast=True).solve(npuzzle.random_board(20, seed=1))
    assert reduced.expanded is None and repr(reduced).endswith("expanded=None)")
    # Board sides outside 2..127 are refused at construction.
    for size in (-1, 0, 1, 128, 300, 2**70):
        message = f"size {size} is out of range: n must be from 2 to 127"
        with pytest.raises(ValueError, match=message):
            npuzzle.Solver(size=size)
        with pytest.raises(ValueError, match=message):
            npuzzle.Tables(pdb_dir, size=size)
        with pytest.raises(ValueError, match=message):
            npuzzle.build_tables(pdb_dir / "never", size=size)
    assert not (pdb_dir / "never").exists()
    # A NUL in a path is refused, shown escaped.
    for call in (lambda d: npuzzle.Solver(d), lambda d: npuzzle.Tables(d),
                 lambda d: npuzzle.build_tables(d, "8", size=3)):
        with pytest.raises(ValueError, match=re.escape(r"pdb_dir 'da\x00ta' contains a NUL")):
            call("da\x00ta")


def test_out_of_range_counts_raise_value_error_and_bools_are_not_numbers():
    solver = npuzzle.Solver(size=3)
    for name, call in (
        ("jobs", lambda: npuzzle.Solver(jobs=-1)),
        ("max_nodes", lambda: npuzzle.Solver(max_nodes=-5)),
        ("seed", lambda: npuzzle.random_board(3, seed=-1)),
        ("seed", lambda: npuzzle.random_board(3, seed=2**64)),
        ("jobs", lambda: solver.solve_many(["8 1 3 4 0 2 7 6 5"], jobs=-2)),
    ):
        with pytest.raises(ValueError, match=rf"^{name}: -?\d+ is out of range"):
            call()
    for call in (
        lambda: npuzzle.random_board(True, seed=1),
        lambda: npuzzle.Solver(size=True),
        lambda: npuzzle.Solver(jobs=False),
        lambda: npuzzle.build_tables("unused", "5-5-5", size=True),
    ):
        with pytest.raises(TypeError, match="give a whole number, not (True|False)"):
            call()
    # The engine's range, whatever the sign.
    with pytest.raises(ValueError, match=r"^within -1 is out of range: give 0 \(optimal\) to 1000"):
        npuzzle.Solver(within=-1)
    # A wrong type names its argument; None is the default.
    for name, value in (("within", 2.5), ("jobs", 1.5), ("size", "4"), ("max_nodes", 1.0),
                        ("fast", 1), ("reflection", "yes"), ("goal", 3), ("algorithm", 1),
                        ("heuristic", b"pdb"), ("partition", 8)):
        with pytest.raises(TypeError, match=rf"^{name}: "):
            npuzzle.Solver(**{name: value})
    assert npuzzle.Solver(goal=None, fast=None, within=None, jobs=None).solve(
        "8 1 3 4 0 2 7 6 5").length == 14


def test_bytes_and_bytearray_are_boards_alike_and_solutions_equal_by_value():
    solver = npuzzle.Solver(size=3)
    tiles = [8, 1, 3, 4, 0, 2, 7, 6, 5]
    from_bytes = solver.solve(bytes(tiles))
    from_bytearray = solver.solve(bytearray(tiles))
    assert from_bytes.length == 14
    assert from_bytes == from_bytearray == solver.solve(tiles)
    assert hash(from_bytes) == hash(from_bytearray)
    assert from_bytes != solver.solve("1 2 3 4 5 6 7 0 8")
    assert from_bytes != "not a solution"
    assert len({from_bytes, from_bytearray}) == 1


def test_tables_pickle_as_where_they_are(pdb_dir):
    import pickle

    tables = npuzzle.Tables(pdb_dir, partition="5-5-5")
    copy = pickle.loads(pickle.dumps(tables))
    board = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1"
    assert copy.values(board) == tables.values(board)
    assert copy.lookup(board) == tables.lookup(board)
