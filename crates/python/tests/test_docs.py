"""Every Python block of README.md and docs/*.md runs as a script, in a
scratch directory whose data/ holds small tables (6-6-3, the only 4x4 set,
so the engine uses it). A block marked `<!-- docs-test: skip (why) -->` on
the line before its fence is left out."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

import npuzzle

REPO = pathlib.Path(__file__).resolve().parents[3]
FENCE = re.compile(r"^```(\w*)")


def python_blocks():
    files = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
    for path in files:
        lines = path.read_text().splitlines()
        marker = None
        index = 0
        while index < len(lines):
            line = lines[index].strip()
            if line.startswith("<!-- docs-test:"):
                marker = line
            match = FENCE.match(line)
            if match:
                start = index
                index += 1
                body = []
                while not lines[index].strip().startswith("```"):
                    body.append(lines[index])
                    index += 1
                if match.group(1) == "python" and not (marker and "skip" in marker):
                    yield pytest.param("\n".join(body), id=f"{path.name}:{start + 1}")
                marker = None
            elif line:
                marker = marker if line.startswith("<!--") else None
            index += 1


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory):
    directory = tmp_path_factory.mktemp("docs-tables")
    npuzzle.build_tables(directory, "6-6-3")
    return directory


@pytest.mark.parametrize("code", list(python_blocks()))
def test_python_blocks_run_as_written(code, small_tables, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for table in small_tables.iterdir():
        (data / table.name).symlink_to(table)
    # Saved as a script and run, as a reader would.
    script = tmp_path / "snippet.py"
    script.write_text(code + "\n")
    env = {k: v for k, v in os.environ.items() if k != "NPUZZLE_PDB_DIR"}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (code, run.stderr[-3000:])


def test_the_docs_have_python_blocks():
    assert len(list(python_blocks())) >= 2
