"""The wheel of `cargo xtask wheel` installs without Rust: into a fresh
virtual environment, no cargo or rustc on the PATH, nothing from the
package index, and it solves a board. `cargo xtask python` (and `test`)
builds the wheel and names it in NPUZZLE_WHEEL."""

import os
import pathlib
import re
import subprocess
import venv
import zipfile

import pytest

WHEEL = os.environ.get("NPUZZLE_WHEEL")
pytestmark = pytest.mark.skipif(not WHEEL, reason="NPUZZLE_WHEEL unset: run through `cargo xtask python`")

# One of the two 3x3 boards farthest from the goal (31 moves; the test
# checks it against breadth-first search).
BOARD = (8, 6, 7, 2, 5, 4, 3, 0, 1)
OPTIMAL = 31


def test_the_wheel_is_abi3_for_python_3_9_and_up_with_its_types():
    name = pathlib.Path(WHEEL).name
    assert re.fullmatch(r"npuzzle-[^-]+-cp39-abi3-[^-]+\.whl", name), name
    with zipfile.ZipFile(WHEEL) as wheel:
        files = set(wheel.namelist())
        metadata = wheel.read(next(f for f in files if f.endswith(".dist-info/METADATA"))).decode()
    for needed in ("npuzzle/__init__.py", "npuzzle/_npuzzle.pyi", "npuzzle/py.typed", "npuzzle/_npuzzle.abi3.so"):
        assert needed in files, sorted(files)
    assert "Requires-Python: >=3.9" in metadata, metadata


def path_without_rust(shadow):
    """One folder of links to every program on the PATH but Rust's, so a
    machine whose cargo shares /usr/bin with sh still runs sh."""
    shadow.mkdir()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            program = os.path.join(folder, name)
            link = shadow / name
            if RUST_TOOL.match(name) or link.exists() or not os.access(program, os.X_OK):
                continue
            link.symlink_to(program)
    return shadow


RUST_TOOL = re.compile(r"(cargo|rustc|rustup|rustdoc|rust-gdb|rust-lldb)([-.].*)?$")


def test_the_wheel_installs_without_rust_and_solves_a_board(tmp_path, distances):
    assert distances[BOARD] == OPTIMAL
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    env = {
        "PATH": os.pathsep.join([str(env_dir / "bin"), str(path_without_rust(tmp_path / "tools"))]),
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "NPUZZLE_CACHE_DIR": str(tmp_path / "npuzzle-cache"),
        "NPUZZLE_PDB_DIR": str(tmp_path / "no-tables"),
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    probe = subprocess.run(["sh", "-c", "command -v cargo rustc"], env=env, capture_output=True, text=True)
    assert probe.stdout == "", probe.stdout
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--quiet", WHEEL],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert install.returncode == 0, install.stderr
    program = (
        "import npuzzle, sys\n"
        "s = npuzzle.Solver().solve(sys.argv[1])\n"
        "print(npuzzle.__file__)\n"
        "print(s.length, s.optimal, s.moves)\n"
    )
    run = subprocess.run(
        [python, "-c", program, " ".join(map(str, BOARD))],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    where, answer = run.stdout.splitlines()
    assert pathlib.Path(where).is_relative_to(env_dir), where
    length, optimal, moves = answer.split(" ", 2)
    assert (int(length), optimal) == (OPTIMAL, "True"), answer
