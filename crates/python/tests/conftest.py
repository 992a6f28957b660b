"""Fixtures shared by the package's tests."""

import pytest

import npuzzle


@pytest.fixture(scope="session")
def pdb_dir(tmp_path_factory):
    """Small tables: 5-5-5 and 6-6-3 for 4x4, the complete 3x3 table."""
    directory = tmp_path_factory.mktemp("pdb")
    npuzzle.build_tables(directory, "5-5-5")
    npuzzle.build_tables(directory, "6-6-3")
    npuzzle.build_tables(directory, "8", size=3)
    return directory
