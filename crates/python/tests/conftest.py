"""Fixtures shared by the package's tests."""

import collections

import pytest

import npuzzle


@pytest.fixture(scope="session", autouse=True)
def own_user_directories(tmp_path_factory):
    """The session's own user cache and data directories (the XDG ones and
    NPUZZLE_CACHE_DIR; HOME stays, for the tools that live there): no test
    sees the tables or unpacked copies of the user who runs it."""
    root = tmp_path_factory.mktemp("user")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(root / "cache"))
        patch.setenv("XDG_DATA_HOME", str(root / "data"))
        patch.setenv("XDG_CONFIG_HOME", str(root / "config"))
        patch.setenv("NPUZZLE_CACHE_DIR", str(root / "npuzzle-cache"))
        yield root


@pytest.fixture(scope="session")
def pdb_dir(tmp_path_factory):
    """Small tables: 5-5-5 and 6-6-3 for 4x4, the complete 3x3 table."""
    directory = tmp_path_factory.mktemp("pdb")
    npuzzle.build_tables(directory, "5-5-5")
    npuzzle.build_tables(directory, "6-6-3")
    npuzzle.build_tables(directory, "8", size=3)
    return directory


@pytest.fixture(scope="session")
def distances():
    """Every solvable 3x3 board's distance to 1 2 ... 8 0, by breadth-first
    search: the independent truth for optimal lengths."""
    start = (1, 2, 3, 4, 5, 6, 7, 8, 0)
    distance = {start: 0}
    queue = collections.deque([start])
    while queue:
        board = queue.popleft()
        blank = board.index(0)
        for source in (blank - 3, blank + 3, blank - 1, blank + 1):
            if not 0 <= source < 9 or (abs(source - blank) == 1 and source // 3 != blank // 3):
                continue
            tiles = list(board)
            tiles[blank], tiles[source] = tiles[source], 0
            after = tuple(tiles)
            if after not in distance:
                distance[after] = distance[board] + 1
                queue.append(after)
    return distance
