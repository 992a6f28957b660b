"""Fixtures shared by the browser tests."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def own_user_directories(tmp_path_factory):
    """The session's own user cache and data directories (the XDG ones and
    NPUZZLE_CACHE_DIR; HOME stays, for the browser and its driver): the
    server never sees the tables or unpacked copies of the user who runs it."""
    root = tmp_path_factory.mktemp("user")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(root / "cache"))
        patch.setenv("XDG_DATA_HOME", str(root / "data"))
        patch.setenv("NPUZZLE_CACHE_DIR", str(root / "npuzzle-cache"))
        yield root
