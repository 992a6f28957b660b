"""Fixtures shared by the browser tests: the browser, the npuzzle binary's
tables, and the static site (`cargo xtask web`) served by a plain static
file server."""

import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

REPO = pathlib.Path(__file__).resolve().parents[2]
NPUZZLE = os.environ.get("NPUZZLE_BIN", str(REPO / "target" / "release" / "npuzzle"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Playwright runs Chromium headless; background networking off, so that
# the network a test sees is the page's alone.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# The page's files, as `cargo xtask web` copies them into the site.
ASSETS = REPO / "crates" / "cli" / "assets"


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


@pytest.fixture(scope="session")
def playwright():
    """One Playwright for the session (its sync API runs once per thread)."""
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def tables_663(tmp_path_factory):
    """The 6-6-3 tables, built by `npuzzle pdb build`: the 4x4 truth."""
    tables = tmp_path_factory.mktemp("pdb-663")
    subprocess.run(
        [NPUZZLE, "pdb", "build", "--partition", "6-6-3", "--out", str(tables)],
        check=True,
        capture_output=True,
    )
    return tables


@pytest.fixture(scope="session")
def optimal_4x4(tables_663):
    """The optimal length of a 4x4 board (blank-last), by `npuzzle solve`."""
    import json

    def length(board):
        out = subprocess.run(
            [NPUZZLE, "solve", "--pdb-dir", str(tables_663), "--partition", "6-6-3", "--json",
             " ".join(map(str, board))],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        record = json.loads(out.splitlines()[0])
        assert record["type"] == "solution" and record["optimal"], record
        return record["length"]

    return length


@pytest.fixture(scope="session")
def web_dir():
    """The static site `cargo xtask web` built (`cargo xtask browser` builds
    it and names it in NPUZZLE_WEB_DIR). A missing or stale site fails the
    tests that need it, saying what to run: none is skipped silently."""
    name = os.environ.get("NPUZZLE_WEB_DIR")
    if not name:
        pytest.fail("NPUZZLE_WEB_DIR is not set: build the static site with `cargo xtask web` "
                    "and run NPUZZLE_WEB_DIR=target/web pytest tests/browser, or run "
                    "`cargo xtask browser`, which does both", pytrace=False)
    site = pathlib.Path(name).resolve()
    missing = [f for f in ["index.html", "app.js", "worker.js", "npuzzle.js", "npuzzle.wasm",
                           "sw.js", "manifest.webmanifest"] if not (site / f).is_file()]
    if missing:
        pytest.fail(f"NPUZZLE_WEB_DIR={site} lacks {', '.join(missing)}: build the site with "
                    "`cargo xtask web`", pytrace=False)
    stale = [p.name for p in ASSETS.iterdir()
             if p.is_file() and p.name != "sw.js"
             and (not (site / p.name).is_file() or (site / p.name).read_bytes() != p.read_bytes())]
    if stale:
        pytest.fail(f"NPUZZLE_WEB_DIR={site} is older than crates/cli/assets ({', '.join(stale)}): "
                    "build it again with `cargo xtask web`", pytrace=False)
    return site


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StaticSite:
    """The site served by `python3 -m http.server` from a subfolder
    (/npuzzle/): every path of the page must be relative."""

    def __init__(self, url, log):
        self.url = url
        self.log = log

    def requests(self):
        """The paths asked of the server so far."""
        paths = []
        for line in self.log.read_text(errors="replace").splitlines():
            # 127.0.0.1 - - [date] "GET /npuzzle/app.js HTTP/1.1" 200 -
            if '"' in line:
                request = line.split('"')[1].split()
                if len(request) >= 2:
                    paths.append(request[1])
        return paths


@pytest.fixture(scope="session")
def static_site(web_dir, tmp_path_factory):
    yield from serve_copy(web_dir, tmp_path_factory.mktemp("static"))


@pytest.fixture
def own_static_site(web_dir, tmp_path):
    """A copy of the site for one test, which may change its files."""
    yield from serve_copy(web_dir, tmp_path)


def serve_copy(web_dir, root):
    """Serves a copy of the site in root/npuzzle; yields its StaticSite (the
    copy is at `site.folder`)."""
    shutil.copytree(web_dir, root / "npuzzle")
    log = root / "server.log"
    port = free_port()
    with open(log, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(root),
             str(port)],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    url = f"http://127.0.0.1:{port}/npuzzle/"
    deadline = time.monotonic() + 10
    while True:
        try:
            urllib.request.urlopen(url + "index.html", timeout=1).read()
            break
        except OSError:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the static server did not start"
            time.sleep(0.1)
    site = StaticSite(url, log)
    site.folder = root / "npuzzle"
    yield site
    process.terminate()
    process.wait(timeout=10)


def refused_links_keep_the_board(page, kept):
    """Links that hold no board are refused for what they are (not for a size
    they lack) and leave the board `kept` on screen; a size=2 link deals a
    2x2 board, as a typed 2x2 board is taken. Both pages, served and static."""
    message = page.locator("#message")
    for link, said in [("board=abc", "abc"), ("board=", "names no tiles"),
                       ("board=<b>x</b>", "is not a tile number")]:
        page.evaluate("(link) => { window.location.hash = link; }", link)
        expect(message).to_contain_text(said)
        expect(message).to_contain_text("not loaded")
        expect(message).not_to_contain_text("too big")
        expect(page.locator("#board")).to_have_attribute("data-tiles", ",".join(map(str, kept)))
    page.evaluate("window.location.hash = 'size=2'")
    # Four cells (a dealt 2x2 board may be the solved one, blank shown).
    expect(page.locator("#board")).to_have_attribute("data-tiles", re.compile(r"^\d,\d,\d,\d$"))
