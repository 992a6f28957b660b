"""The static site (`cargo xtask web`: the page, its Web Worker and the engine
as WebAssembly) served by a plain static file server from a subfolder, with
no npuzzle process: played in Debian's headless Chromium, online then
offline (the service worker), on a phone, installed, with damaged tables and
cancelled searches. 3x3 distances are checked against a breadth-first search
written here, 4x4 ones against `npuzzle solve` over tables it builds.
Screenshots go to $SCREENSHOT_DIR (default target/browser-screenshots)."""

import collections
import json
import os
import pathlib
import re
import struct
import subprocess
import time

import axe_playwright_python
import pytest
from playwright.sync_api import expect

from conftest import CHROMIUM, CHROMIUM_ARGS, NPUZZLE, REPO, refused_links_keep_the_board

SHOTS = pathlib.Path(os.environ.get("SCREENSHOT_DIR", REPO / "target" / "browser-screenshots"))
GOAL_3 = (1, 2, 3, 4, 5, 6, 7, 8, 0)
GOAL_4 = tuple(range(1, 16)) + (0,)
# Korf's instance 55 with the blank-last goal: 41 moves.
KORF_55 = (5, 10, 14, 4, 6, 12, 11, 1, 9, 0, 15, 7, 13, 2, 8, 3)
AT_LEAST = re.compile("at least", re.IGNORECASE)
DIGITS = re.compile(r"^\d+$")
TABLES = ["4x4-blank-last-4.7.8.11.12.15.pdb.zst", "4x4-blank-last-5.6.9.10.13.14.pdb.zst",
          "4x4-blank-last-1.2.3.pdb.zst"]

# Every text the coach's line shows, in order (the page's own line, read by
# the tests: "Preparing the 4x4 coach: table 2 of 3..." passes quickly).
RECORD_COACH = """
window.__coachTexts = [];
document.addEventListener("DOMContentLoaded", () => {
  const coach = document.getElementById("coach");
  new MutationObserver(() => window.__coachTexts.push(coach.textContent))
    .observe(coach, { childList: true, characterData: true, subtree: true });
});
"""


def neighbour(tiles, letter):
    """The board after `letter` (the direction the tile slides), or None."""
    n = int(round(len(tiles) ** 0.5))
    blank = tiles.index(0)
    row, col = divmod(blank, n)
    source = {
        "L": blank + 1 if col + 1 < n else None,
        "R": blank - 1 if col > 0 else None,
        "U": blank + n if row + 1 < n else None,
        "D": blank - n if row > 0 else None,
    }[letter]
    if source is None:
        return None
    after = list(tiles)
    after[blank], after[source] = after[source], 0
    return tuple(after)


@pytest.fixture(scope="module")
def distances():
    """Every solvable 3x3 board's distance to 1 2 3 4 5 6 7 8 0, by BFS."""
    seen = {GOAL_3: 0}
    queue = collections.deque([GOAL_3])
    while queue:
        board = queue.popleft()
        for letter in "UDLR":
            after = neighbour(board, letter)
            if after is not None and after not in seen:
                seen[after] = seen[board] + 1
                queue.append(after)
    assert len(seen) == 181440
    return seen


class Session:
    """A browser context and its page, with the page's errors kept."""

    def __init__(self, context):
        self.context = context
        self.errors = []
        context.add_init_script(RECORD_COACH)
        self.page = context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def close(self):
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def session(browser):
    session = Session(browser.new_context(viewport={"width": 760, "height": 1000}))
    yield session
    session.close()


@pytest.fixture
def phone(browser):
    session = Session(browser.new_context(viewport={"width": 390, "height": 844},
                                          device_scale_factor=2, is_mobile=True, has_touch=True))
    yield session
    session.close()


def shot(page, name, full_page=True):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def tiles(page):
    return tuple(int(t) for t in page.locator("#board").get_attribute("data-tiles").split(","))


def dataset(page, name):
    return page.evaluate(f"document.documentElement.dataset.{name} ?? null")


def wait_distance(page, expected=None, timeout=30000):
    """Waits for the coach's exact distance and returns it."""
    coach = page.locator("#coach")
    expect(coach).to_have_attribute("data-distance", DIGITS if expected is None else str(expected),
                                    timeout=timeout)
    return int(coach.get_attribute("data-distance"))


def wait_offline_ready(page):
    """Waits until the service worker controls the page (all files kept)."""
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=30000)


def follow_hint(page, board, distance):
    """Asks a hint, checks the tile is marked, plays it; returns the board."""
    page.click("#hint")
    expect(page.locator("#message")).to_contain_text("Hint: slide")
    expect(page.locator("#board .tile.hint")).to_have_count(1)
    letter = page.locator("#board").get_attribute("data-hint")
    after = neighbour(board, letter)
    assert after is not None, (board, letter)
    hinted = page.locator("#board .tile.hint").get_attribute("data-tile")
    page.locator(f'#board .tile[data-tile="{hinted}"]').click()
    assert tiles(page) == after
    return after


def solve_to_the_end(page, distance, goal):
    """Solve: the animation ends on the goal, in `distance` moves."""
    page.locator("#speed").fill("10")
    page.click("#solve")
    expect(page.locator("#board")).to_have_attribute("data-state", "solved", timeout=60000)
    expect(page.locator("#progress")).to_have_text(f"move {distance} of {distance}")
    assert tiles(page) == goal
    expect(page.locator("#coach")).to_have_text("Solved!")


def play_3x3(page, distances, name):
    expect(page.locator("#board .tile")).to_have_count(8)
    board = tiles(page)
    distance = wait_distance(page, distances[board])
    if distance >= 2:
        board = follow_hint(page, board, distance)
        distance = wait_distance(page, distance - 1)
        assert distances[board] == distance
    shot(page, f"static-{name}-3x3")
    if distance > 0:
        solve_to_the_end(page, distance, GOAL_3)


def play_4x4(page, optimal_4x4, name, timeout=30000):
    expect(page.locator("#board .tile")).to_have_count(15)
    board = tiles(page)
    distance = wait_distance(page, timeout=timeout)
    assert distance == optimal_4x4(board), board
    after = follow_hint(page, board, distance)
    assert optimal_4x4(after) == distance - 1, (board, after)
    wait_distance(page, distance - 1)
    shot(page, f"static-{name}-4x4")
    solve_to_the_end(page, distance - 1, GOAL_4)
    return board


def test_3x3_and_4x4_are_coached_optimally_online_then_offline(session, static_site, distances,
                                                             optimal_4x4):
    page = session.page
    started = time.monotonic()
    page.goto(static_site.url + "#size=3")
    wait_distance(page)
    timings = {"page and first 3x3 distance, cold (s)": time.monotonic() - started}
    assert dataset(page, "engine") == "wasm"
    play_3x3(page, distances, "online")

    # The first 4x4 board: the tables are built here, with progress shown.
    started = time.monotonic()
    page.select_option("#size", "4")
    wait_distance(page, timeout=60000)
    timings["first 4x4 distance, tables built (s)"] = time.monotonic() - started
    texts = page.evaluate("window.__coachTexts")
    for step in (1, 2, 3):
        assert f"Preparing the 4x4 coach: table {step} of 3\u2026" in texts, texts
    assert dataset(page, "tables") == "built"
    play_4x4(page, optimal_4x4, "online")

    # A search cancelled by a size change: the new worker takes the tables
    # kept in IndexedDB.
    page.select_option("#size", "6")
    expect(page.locator("#coach")).to_contain_text(AT_LEAST, timeout=30000)
    workers = int(dataset(page, "workers"))
    page.click("#solve")
    expect(page.locator("#message")).to_contain_text("Solving")
    page.select_option("#size", "4")
    expect(page.locator("#board .tile")).to_have_count(15)
    assert wait_distance(page, timeout=5000) == optimal_4x4(tiles(page))
    assert int(dataset(page, "workers")) == workers + 1
    assert dataset(page, "tables") == "stored"

    # Offline: the page, its worker and the engine come from the service
    # worker; the tables from IndexedDB, not built again.
    wait_offline_ready(page)
    asked = len(static_site.requests())
    session.context.set_offline(True)
    started = time.monotonic()
    page.reload()
    wait_distance(page)
    timings["page and first 3x3 distance, offline (s)"] = time.monotonic() - started
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    play_3x3(page, distances, "offline")
    started = time.monotonic()
    page.select_option("#size", "4")
    play_4x4(page, optimal_4x4, "offline")
    timings["first 4x4 game offline: distance, hint, solve (s)"] = time.monotonic() - started
    assert dataset(page, "tables") == "stored"
    assert dataset(page, "tablesBuilt") is None
    # Nothing but the browser's update check of sw.js reached the server.
    later = [path for path in static_site.requests()[asked:] if not path.endswith("/sw.js")]
    assert later == [], later
    session.context.set_offline(False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "static-timings.json").write_text(json.dumps(timings, indent=2) + "\n")


def swipe(page, letter):
    """A swipe on the board, as touch events, in the direction `letter`."""
    dx, dy = {"L": (-60, 0), "R": (60, 0), "U": (0, -60), "D": (0, 60)}[letter]
    page.evaluate(
        """([dx, dy]) => {
          const board = document.getElementById("board");
          const r = board.getBoundingClientRect();
          const x = r.left + r.width / 2, y = r.top + r.height / 2;
          const touch = (cx, cy) => new Touch({identifier: 1, target: board, clientX: cx, clientY: cy});
          board.dispatchEvent(new TouchEvent("touchstart", {bubbles: true, cancelable: true,
            touches: [touch(x, y)], changedTouches: [touch(x, y)]}));
          board.dispatchEvent(new TouchEvent("touchend", {bubbles: true, cancelable: true,
            touches: [], changedTouches: [touch(x + dx, y + dy)]}));
        }""",
        [dx, dy],
    )


def test_a_phone_offline_swipes_and_is_coached(phone, static_site, optimal_4x4):
    page = phone.page
    page.goto(static_site.url + "#size=4")
    wait_distance(page, timeout=60000)
    wait_offline_ready(page)
    phone.context.set_offline(True)
    page.reload()
    expect(page.locator("#board .tile")).to_have_count(15)
    board = tiles(page)
    assert wait_distance(page) == optimal_4x4(board)
    box = page.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390

    letter = next(l for l in "LRUD" if neighbour(board, l) is not None)
    swipe(page, letter)
    after = neighbour(board, letter)
    assert tiles(page) == after
    assert int(page.locator("#moves").inner_text()) == 1
    assert wait_distance(page) == optimal_4x4(after)

    page.click("#hint")
    expect(page.locator("#message")).to_contain_text("Hint: slide")
    expect(page.locator("#board .tile.hint")).to_have_count(1)
    # The coach's line is read whole: not cut by the phone's width.
    assert page.evaluate("""(() => { const c = document.getElementById("coach");
                                      return c.scrollWidth <= c.clientWidth; })()""")
    style = page.locator("#board .tile").first.get_attribute("style")
    assert 'url("picture.svg")' in style
    shot(page, "static-phone-offline", full_page=False)
    phone.context.set_offline(False)


def test_play_for_everyone_on_a_phone(phone, static_site):
    """Touch targets of 44 pixels, the coach's line announced, keyboard help
    hidden on a touch screen, reduced motion honoured, and persistent
    storage asked for."""
    page = phone.page
    page.goto(static_site.url + "#board=1,2,3,4,5,6,0,7,8")
    wait_distance(page, 2)
    expect(page.locator("html")).to_have_attribute("data-storage-persisted", re.compile("^(true|false)$"))
    coach = page.locator("#coach")
    assert coach.get_attribute("aria-live") == "polite"
    # The timer changes four times a second: it is never announced.
    assert page.evaluate("document.querySelectorAll('[aria-live] #timer').length") == 0
    small = page.evaluate("""(() => [...document.querySelectorAll('button, select, label.check')]
        .filter((el) => el.offsetParent !== null && !el.closest('dialog') && el.id !== 'coach-more')
        .map((el) => [el.id || el.textContent.trim(), el.getBoundingClientRect().height])
        .filter(([, h]) => h < 44))()""")
    assert small == [], small
    # The "why?" toggle keeps the coach's line one line high; its target
    # reaches 44 pixels: a tap 15 pixels above its middle still lands on it.
    page.click("#hint")
    page.evaluate("document.getElementById('coach-more').hidden = false")
    box = page.locator("#coach-more").bounding_box()
    assert page.evaluate("""([x, y]) => document.elementFromPoint(x, y)?.id""",
                         [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 - 15]) == "coach-more"
    expect(page.locator(".keys")).to_be_hidden()
    duration = "getComputedStyle(document.querySelector('#board .tile')).transitionDuration"
    assert page.evaluate(duration) != "0s"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(duration) == "0s"


AXE = pathlib.Path(axe_playwright_python.__file__).parent / "axe.min.js"


def serious_violations(page):
    """axe-core's scan of the page as it is: the rules broken with a serious
    or critical impact, with the elements that break them."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


def focused_tile(page):
    return page.evaluate("document.activeElement?.dataset?.tile ?? null")


def test_keyboard_play_and_an_accessibility_scan(session, phone, static_site):
    page = session.page
    page.goto(f"{static_site.url}#board=8,1,3,4,0,2,7,6,5")
    wait_distance(page, 14)
    # One tile is in the tab order: Tab reaches it.
    assert page.evaluate("document.querySelectorAll('#board .tile[tabindex=\"0\"]').length") == 1
    for _ in range(30):
        page.keyboard.press("Tab")
        if focused_tile(page) is not None:
            break
    start = focused_tile(page)
    assert start is not None, "Tab never reached a tile"
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert re.match(r"tile \d, row \d, column \d", label), label
    # Arrows move the focus, over the blank, and never the tiles.
    board = tiles(page)
    seen = {start}
    for key in ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowRight", "ArrowDown", "ArrowDown"]:
        page.keyboard.press(key)
        seen.add(focused_tile(page))
    assert tiles(page) == board
    assert len(seen) >= 3, seen
    assert page.evaluate("document.querySelectorAll('#board .tile[tabindex=\"0\"]').length") == 1
    # Enter slides the focused tile when it can move: tile 1 (above the
    # blank) slides down.
    page.locator('#board .tile[data-tile="1"]').focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert focused_tile(page) == "1"
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label == "tile 1, row 1, column 2: slides down", label
    page.keyboard.press("Enter")
    assert tiles(page) == (8, 0, 3, 4, 1, 2, 7, 6, 5)
    assert focused_tile(page) == "1"
    wait_distance(page, 15)
    # Arrows elsewhere still slide a tile into the blank.
    page.locator("#hint").focus()
    page.keyboard.press("ArrowUp")
    assert tiles(page) == (8, 1, 3, 4, 0, 2, 7, 6, 5)
    # A click slides without taking the focus: arrows after it still slide.
    page.locator('#board .tile[data-tile="1"]').click()
    assert tiles(page) == (8, 0, 3, 4, 1, 2, 7, 6, 5)
    assert focused_tile(page) is None
    page.keyboard.press("ArrowUp")
    assert tiles(page) == (8, 1, 3, 4, 0, 2, 7, 6, 5)
    # A tile focused otherwise (a screen reader) holds the tab stop; a new
    # board keeps the focus on the board.
    page.locator('#board .tile[data-tile="7"]').focus()
    assert page.evaluate("document.querySelector('#board .tile[data-tile=\"7\"]').tabIndex") == 0
    assert page.evaluate("document.querySelectorAll('#board .tile[tabindex=\"0\"]').length") == 1
    page.evaluate("window.location.hash = 'board=1,2,3,4,5,6,7,0,8'")
    expect(page.locator("#board")).to_have_attribute("data-tiles", "1,2,3,4,5,6,7,0,8")
    assert focused_tile(page) is not None

    # The hint is said where it is written: the message line is a status.
    assert page.get_attribute("#message", "role") == "status"
    violations = serious_violations(page)
    assert violations == [], violations
    page.click("#open-board")
    assert serious_violations(page) == []
    page.keyboard.press("Escape")
    phone.page.goto(f"{static_site.url}#size=4")
    expect(phone.page.locator("#coach")).to_contain_text("moves from solved", timeout=60000)
    phone.page.click("#hint")
    assert serious_violations(phone.page) == []
    # The coach's line when it gives bounds (its accent colour).
    page.goto(f"{static_site.url}#size=8")
    expect(page.locator("#coach")).to_contain_text(AT_LEAST, timeout=60000)
    assert serious_violations(page) == []


def test_an_update_is_whole_and_offered(session, own_static_site):
    """A new build is offered, not mixed in: the open page, and a reload of
    it, keep the old files (worker.js and the engine with them) until the
    player takes the notice; then one version runs and the old cache is
    gone."""
    site = own_static_site
    page = session.page
    page.goto(site.url)
    wait_offline_ready(page)
    wait_distance(page)
    expect(page.locator("#update")).to_be_hidden()
    # The next build: another stamp, and a changed page and worker.
    sw = (site.folder / "sw.js").read_text()
    build = re.search(r'const BUILD = "([^"]+)"', sw).group(1)
    (site.folder / "sw.js").write_text(sw.replace(build, "next-build"))
    for name in ("app.js", "worker.js"):
        with open(site.folder / name, "a") as f:
            f.write("\nself.npuzzleBuild = 'next';\n")
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    expect(page.locator("#update")).to_be_visible(timeout=30000)
    expect(page.locator("#update")).to_contain_text("new version")
    assert dataset(page, "update") == "ready"
    shot(page, "static-update-offered", full_page=False)
    fetched = "(name) => fetch(name).then((r) => r.text())"
    assert "npuzzleBuild" not in page.evaluate(fetched, "worker.js")
    # A plain reload keeps the old build whole, and the offer stands.
    page.reload()
    wait_distance(page)
    assert page.evaluate("self.npuzzleBuild ?? null") is None
    assert "npuzzleBuild" not in page.evaluate(fetched, "worker.js")
    assert "npuzzleBuild" not in page.evaluate(fetched, "app.js")
    expect(page.locator("#update")).to_be_visible(timeout=30000)
    # Taken in another tab: this one loads again too, on the new build,
    # instead of running the old page with the new files.
    other = page.context.new_page()
    other.goto(site.url)
    expect(other.locator("#update")).to_be_visible(timeout=30000)
    with page.expect_navigation(timeout=30000):
        with other.expect_navigation():
            other.click("#reload")
    for each in (other, page):
        wait_distance(each)
        assert each.evaluate("self.npuzzleBuild ?? null") == "next"
        expect(each.locator("#update")).to_be_hidden()
    other.close()
    assert "npuzzleBuild" in page.evaluate(fetched, "worker.js")
    caches = page.evaluate("caches.keys()")
    assert caches == ["npuzzle-site-next-build"], caches
    expect(page.locator("#update")).to_be_hidden()


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_site_is_installable(playwright, static_site, web_dir, tmp_path):
    # A profile of its own: Chromium installs no app from an incognito
    # context (a new_context() is one).
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(static_site.url)
        wait_offline_ready(page)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["url"] == static_site.url + "manifest.webmanifest"
        assert manifest["errors"] == [], manifest["errors"]
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors

        data = json.loads(manifest["data"])
        assert data["start_url"] == "./" and data["scope"] == "./"
        assert data["display"] == "standalone"
        assert data["short_name"] and data["name"]
        assert data["theme_color"] and data["background_color"]
        sizes = {}
        for icon in data["icons"]:
            assert not icon["src"].startswith("/"), icon
            if icon["type"] == "image/png":
                size = png_size((web_dir / icon["src"]).read_bytes())
                assert icon["sizes"] == f"{size[0]}x{size[1]}", icon
                sizes[size] = icon["src"]
        assert (192, 192) in sizes and (512, 512) in sizes, sizes
        assert any(icon["type"] == "image/svg+xml" for icon in data["icons"])
        # A maskable icon: Android crops it to its launcher's shape.
        assert any(icon.get("purpose") == "maskable" and icon["sizes"] == "512x512"
                   for icon in data["icons"]), data["icons"]
        head = page.evaluate("""[...document.querySelectorAll("link, meta[name=theme-color]")]
                                .map(e => e.outerHTML).join("\\n")""")
        assert 'rel="manifest"' in head and 'rel="apple-touch-icon"' in head
        assert 'name="theme-color"' in head

        # The service worker keeps the page and every file of the site.
        kept = page.evaluate("""(async () => {
          const names = [];
          for (const key of await caches.keys()) {
            const cache = await caches.open(key);
            for (const request of await cache.keys()) names.push(new URL(request.url).pathname);
          }
          return names;
        })()""")
        files = sorted(p.name for p in web_dir.iterdir() if p.is_file() and p.name != "sw.js")
        for name in ["", *files]:
            assert "/npuzzle/" + name in kept, (name, kept)
    finally:
        context.close()


IDB = """
const db = () => new Promise((resolve, reject) => {
  const request = indexedDB.open("npuzzle");
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});
const get = async (key) => {
  const base = await db();
  const value = await new Promise((resolve, reject) => {
    const request = base.transaction("tables").objectStore("tables").get(key);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  base.close();
  return value;
};
const put = async (key, value) => {
  const base = await db();
  await new Promise((resolve, reject) => {
    const transaction = base.transaction("tables", "readwrite");
    const store = transaction.objectStore("tables");
    if (value === undefined) store.delete(key); else store.put(value, key);
    transaction.oncomplete = resolve;
    transaction.onerror = () => reject(transaction.error);
  });
  base.close();
};
const digest = async (value) => value ? Array.from(new Uint8Array(
  await crypto.subtle.digest("SHA-256", value))).map((b) => b.toString(16).padStart(2, "0")).join("")
  : null;
"""


def stored_digest(page, file):
    return page.evaluate(f"""(async () => {{ {IDB}
      return digest(await get("6-6-3/{file}")); }})()""")


def tamper(page, file, how):
    """Damages a stored table: "flip" a byte, "truncate" it, or "delete" it."""
    page.evaluate(f"""(async () => {{ {IDB}
      const key = "6-6-3/{file}";
      const value = await get(key);
      if ("{how}" === "delete") return put(key, undefined);
      const copy = "{how}" === "truncate" ? value.slice(0, value.length >> 1) : value.slice();
      if ("{how}" === "flip") copy[copy.length >> 1] ^= 0x5a;
      await put(key, copy);
    }})()""")


def test_damaged_tables_are_built_again_never_used(session, static_site, optimal_4x4):
    page = session.page
    link = static_site.url + "#board=" + ",".join(map(str, KORF_55))
    page.goto(link)
    wait_distance(page, 41, timeout=60000)
    assert dataset(page, "tables") == "built"
    page.reload()
    wait_distance(page, 41)
    assert dataset(page, "tables") == "stored"
    digests = {file: stored_digest(page, file) for file in TABLES}
    assert all(digests.values()), digests

    for file, how in [(TABLES[1], "flip"), (TABLES[0], "truncate")]:
        tamper(page, file, how)
        damaged = stored_digest(page, file)
        assert damaged != digests[file]
        page.reload()
        wait_distance(page, 41, timeout=60000)
        assert dataset(page, "tables") == "built", how
        assert dataset(page, "tablesRebuilt") == "true", how
        # Kept again: a new copy (a table's header records its build), which
        # the engine takes on the next visit.
        assert stored_digest(page, file) not in (damaged, None), how
        after = follow_hint(page, KORF_55, 41)
        assert optimal_4x4(after) == 40
        wait_distance(page, 40)
        page.reload()
        wait_distance(page, 41)
        assert dataset(page, "tables") == "stored", how
        digests = {file: stored_digest(page, file) for file in TABLES}

    # A partial set: the missing table is built; the set is then checked.
    tamper(page, TABLES[2], "delete")
    assert stored_digest(page, TABLES[2]) is None
    page.reload()
    wait_distance(page, 41, timeout=60000)
    assert dataset(page, "tables") == "built"
    texts = page.evaluate("window.__coachTexts")
    assert "Preparing the 4x4 coach: table 3 of 3\u2026" in texts, texts
    assert "Preparing the 4x4 coach: table 1 of 3\u2026" not in texts, texts
    assert stored_digest(page, TABLES[2]) is not None
    for file in TABLES[:2]:
        assert stored_digest(page, file) == digests[file]
    after = follow_hint(page, KORF_55, 41)
    assert optimal_4x4(after) == 40
    shot(page, "static-tables-rebuilt")

    # A database of another version, or of ours without the tables store
    # (damaged, foreign), is replaced: built once, then kept again.
    for version, store in [(7, "other"), (1, "other")]:
        page.goto(static_site.url + "#size=3")
        page.reload()
        wait_distance(page)
        page.evaluate("""async ([version, store]) => {
            await new Promise((resolve) => { const r = indexedDB.deleteDatabase("npuzzle");
                r.onsuccess = r.onerror = r.onblocked = resolve; });
            await new Promise((resolve, reject) => { const r = indexedDB.open("npuzzle", version);
                r.onupgradeneeded = () => r.result.createObjectStore(store);
                r.onsuccess = () => { r.result.close(); resolve(); }; r.onerror = reject; });
        }""", [version, store])
        page.goto(link)
        wait_distance(page, 41, timeout=60000)
        assert dataset(page, "tables") == "built", version
        page.reload()
        wait_distance(page, 41)
        assert dataset(page, "tables") == "stored", version


KORF_1 = (13, 6, 8, 12, 15, 14, 0, 10, 11, 7, 4, 5, 9, 1, 3, 2)
HARD_80 = (0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1)


def test_a_slow_4x4_proof_gives_a_good_move_first_then_the_shortest(session, static_site,
                                                                     optimal_4x4):
    """A 4x4 hint not proven in time is a good move, said to be one, with
    bounds around the distance; the shortest is proven in the background
    and replaces it, if the player is still on the position. The page is
    told to give up the exact search at once, so that every board takes
    this path on any machine."""
    page = session.page
    page.add_init_script("window.npuzzleExactSeconds = 0")
    link = ",".join(map(str, KORF_1))
    page.goto(f"{static_site.url}#board={link}")
    coach = page.locator("#coach")
    message = page.locator("#message")
    expect(coach).to_have_attribute("data-distance", "57", timeout=60000)
    # The good move came first: a prover was started for it.
    assert int(dataset(page, "provers")) == 1
    page.click("#hint")
    expect(message).to_contain_text("(a move of a shortest solution)")
    letter = page.locator("#board").get_attribute("data-hint")
    assert optimal_4x4(neighbour(KORF_1, letter)) == 56

    # The 80-move board: its proof takes seconds to a minute, so the
    # good move stands meanwhile, with bounds that hold.
    page.evaluate("(link) => { window.location.hash = 'board=' + link; }",
                  ",".join(map(str, HARD_80)))
    expect(coach).to_contain_text("(proving", timeout=10000)
    line = coach.inner_text()
    lower, upper = [int(w) for w in re.findall(r"\d+", line)][:2]
    assert lower <= 80 <= upper, line
    page.click("#hint")
    expect(message).to_contain_text("(a good move, not proven shortest)")
    hinted = page.locator("#board .tile.hint").get_attribute("data-tile")
    shot(page, "static-4x4-good-move")
    provers = int(dataset(page, "provers"))
    # Played: the proof of the position left is dropped, never shown, and
    # the new position gets its own.
    page.locator(f'#board .tile[data-tile="{hinted}"]').click()
    expect(coach).to_contain_text("(proving", timeout=10000)
    assert int(dataset(page, "provers")) == provers + 1
    page.wait_for_timeout(500)
    assert "80 moves" not in coach.inner_text()

    # Quick moves to new positions, with the search for a shortest solution
    # given its full time again: the questions for positions already left
    # are dropped, and the hint is for the position on screen.
    page.evaluate("window.npuzzleExactSeconds = 0.5")
    keys = {"L": "ArrowLeft", "R": "ArrowRight", "U": "ArrowUp", "D": "ArrowDown"}
    back = {"L": "R", "R": "L", "U": "D", "D": "U"}
    board, last = tiles(page), None
    for _ in range(8):
        letter = next(m for m in "ULDR" if m != back.get(last) and neighbour(board, m))
        page.keyboard.press(keys[letter])
        board, last = neighbour(board, letter), letter
    assert tiles(page) == board
    page.click("#hint")
    expect(message).to_contain_text("Hint: slide")
    assert int(dataset(page, "hintsDropped") or 0) >= 1
    hinted = int(page.locator("#board .tile.hint").get_attribute("data-tile"))
    letter = page.locator("#board").get_attribute("data-hint")
    now = tiles(page)
    after = neighbour(now, letter)
    assert after is not None and now[after.index(0)] == hinted, (now, letter, hinted)

    # Solve on a position not proven yet plays a shortest solution.
    page.evaluate("(link) => { window.location.hash = 'board=' + link; }", link)
    expect(coach).to_have_attribute("data-distance", "57", timeout=60000)
    page.evaluate("(link) => { window.location.hash = 'board=' + link; }",
                  ",".join(map(str, neighbour(KORF_1, "U") or neighbour(KORF_1, "D"))))
    page.locator("#speed").fill("10")
    page.click("#solve")
    expect(page.locator("#board")).to_have_attribute("data-state", "solved", timeout=60000)
    total = page.locator("#progress").inner_text().split()[-1]
    assert int(total) == optimal_4x4(neighbour(KORF_1, "U") or neighbour(KORF_1, "D"))


def test_a_new_board_cancels_a_search(session, static_site, distances):
    page = session.page
    page.goto(static_site.url + "#size=6")
    coach = page.locator("#coach")
    expect(coach).to_contain_text(AT_LEAST, timeout=30000)
    assert dataset(page, "engineState") == "ready"

    # Hint on a 6x6 board: a beam search of seconds, in the worker.
    workers = int(dataset(page, "workers"))
    before = tiles(page)
    bound = coach.get_attribute("data-bound")
    page.click("#hint")
    expect(page.locator("#message")).to_contain_text("Searching")
    # The coach's bound stays while it searches.
    assert coach.get_attribute("data-bound") == bound
    expect(coach).to_contain_text(AT_LEAST)
    # The page does not freeze meanwhile.
    started = time.monotonic()
    page.evaluate("1")
    assert time.monotonic() - started < 0.5
    shot(page, "static-6x6-searching")
    # Shuffle: the search is dropped, its worker ended; the new board is
    # answered at once.
    started = time.monotonic()
    page.click("#shuffle")
    expect(page.locator("#board")).not_to_have_attribute("data-tiles", ",".join(map(str, before)))
    expect(coach).to_contain_text(AT_LEAST, timeout=5000)
    assert time.monotonic() - started < 5
    assert int(dataset(page, "workers")) == workers + 1

    # Solve, then another size.
    page.click("#solve")
    expect(page.locator("#message")).to_contain_text("Solving")
    page.select_option("#size", "3")
    expect(page.locator("#board .tile")).to_have_count(8)
    wait_distance(page, distances[tiles(page)], timeout=5000)
    assert int(dataset(page, "workers")) == workers + 2

    # A board from a link, during a search past 4x4, then Reset during one.
    page.select_option("#size", "5")
    expect(coach).to_contain_text(AT_LEAST, timeout=30000)
    page.click("#hint")
    expect(page.locator("#message")).to_contain_text("Searching")
    page.evaluate("window.location.hash = 'board=8,1,3,4,0,2,7,6,5'")
    wait_distance(page, 14, timeout=5000)
    page.select_option("#size", "6")
    expect(coach).to_contain_text(AT_LEAST, timeout=30000)
    start = tiles(page)
    page.keyboard.press("ArrowLeft" if neighbour(start, "L") else "ArrowRight")
    expect(coach).to_contain_text(AT_LEAST, timeout=30000)
    page.click("#solve")
    expect(page.locator("#message")).to_contain_text("Solving")
    page.click("#reset")
    assert tiles(page) == start
    expect(coach).to_contain_text(AT_LEAST, timeout=5000)
    # The dropped searches never answer: no solution is played.
    page.wait_for_timeout(1000)
    expect(page.locator("#player")).to_be_hidden()
    assert tiles(page) == start


ASK_WORKER = """async ([questions]) => {
  const worker = new Worker(new URL("worker.js", location.href), { type: "module" });
  const answers = [];
  await new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      const message = event.data;
      if (message.type === "ready") return resolve();
      if (message.type === "fatal") return reject(new Error(message.message));
    };
    worker.postMessage({ op: "init", module: null });
  });
  for (const [id, question] of questions.entries()) {
    const answer = await new Promise((resolve) => {
      worker.onmessage = (event) => { if (event.data.id === id) resolve(event.data); };
      worker.postMessage({ id, ...question,
        board: question.board === "previous" ? answers.at(-1).record.board : question.board });
    });
    answers.push(answer);
  }
  worker.terminate();
  return answers;
}"""


def test_big_boards_are_answered_within_the_workers_budget(session, static_site):
    page = session.page
    page.goto(static_site.url)
    # 8x8 beams take seconds; with 0.05 s each beam (in this worker and its
    # helper) stops where it got, and the reduction finishes from there.
    answers = page.evaluate(ASK_WORKER, [[
        {"op": "random", "size": 8, "goal": "blank-last"},
        {"op": "solve", "board": "previous", "goal": "blank-last", "maxSeconds": 0.05},
        {"op": "hint", "board": "previous", "goal": "blank-last", "maxSeconds": 0.05},
    ]])
    assert all(a["ok"] for a in answers), answers
    board = tuple(answers[0]["record"]["board"])
    for answer in answers[1:]:
        record = answer["record"]
        assert not record["optimal"]
        assert "the time budget of 0.05 s ran out first" in record["note"], record["note"]
        after = board
        for letter in record["moves"]:
            after = neighbour(after, letter)
            assert after is not None, record["moves"]
        assert after == tuple(range(1, 64)) + (0,)


def test_beams_split_between_two_workers_give_the_command_lines_answer(session, static_site,
                                                                     tmp_path):
    """The worker runs the beams the engine's schedule lists half in its
    helper (two cores here): the answer is the one `npuzzle solve` gives
    running them all on two threads, for a 6x6 and an 8x8 board."""
    page = session.page
    page.goto(static_site.url)
    assert page.evaluate("navigator.hardwareConcurrency") >= 2
    for size in (6, 8):
        answers = page.evaluate(ASK_WORKER, [[
            {"op": "random", "size": size, "goal": "blank-last"},
            {"op": "solve", "board": "previous", "goal": "blank-last", "maxSeconds": 600},
        ]])
        assert all(a["ok"] for a in answers), answers
        board = answers[0]["record"]["board"]
        record = answers[1]["record"]
        expected = json.loads(subprocess.run(
            [NPUZZLE, "solve", "--json", "--pdb-dir", str(tmp_path), " ".join(map(str, board))],
            check=True, capture_output=True, text=True).stdout.splitlines()[0])
        assert record["algorithm"] == expected["algorithm"] == "beam", (record, expected)
        assert record["moves"] == expected["moves"], size


def test_time_for_a_shorter_solution_of_a_big_board(session, static_site):
    page = session.page
    page.goto(static_site.url)
    expect(page.locator("#think-label")).to_be_hidden()
    page.select_option("#size", "6")
    expect(page.locator("#think-label")).to_be_visible()
    # The page offers 20 s and a minute; a second is enough to see the path.
    page.evaluate("""() => {
      const option = document.createElement("option");
      option.value = "1";
      option.textContent = "1 s";
      document.querySelector("#think").append(option);
    }""")
    page.select_option("#think", "1")
    start = tiles(page)
    page.click("#solve")
    expect(page.locator("#message")).to_contain_text("up to 1 s, for a shorter solution")
    expect(page.locator("#message")).to_contain_text("the shortest found in", timeout=60000)
    expect(page.locator("#player")).to_be_visible()
    page.locator("#speed").fill("10")
    expect(page.locator("#board")).to_have_attribute("data-state", "solved", timeout=120000)
    assert start != tiles(page)
    page.select_option("#size", "4")
    expect(page.locator("#think-label")).to_be_hidden()


def test_refused_boards_and_links_name_their_fault(session, static_site, distances):
    """Text or links that hold no board are refused for that (not for a size
    they lack), links take the sizes typed boards do, and a refused 4x4
    board, which starts the 4x4 coach's tables, leaves the coach line to
    the board on screen."""
    page = session.page
    page.goto(static_site.url + "#board=8,1,3,4,0,2,7,6,5")
    distance = distances[(8, 1, 3, 4, 0, 2, 7, 6, 5)]
    wait_distance(page, distance)
    page.click("#open-board")
    message = page.locator("#board-dialog-message")
    page.fill("#board-text", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15")
    page.click("#set-board")
    expect(message).to_have_class(re.compile("error"))
    expect(message).to_contain_text("15")
    expect(page.locator("html")).to_have_attribute("data-tables", "built")
    expect(page.locator("#coach")).to_have_attribute("data-distance", str(distance))
    assert not any("Preparing" in text for text in page.evaluate("window.__coachTexts"))
    for text, said in [("hello", "hello"), ("", "no board"), ("1 2 x 0", "x")]:
        page.fill("#board-text", text)
        page.click("#set-board")
        expect(message).to_have_class(re.compile("error"))
        expect(message).to_contain_text(said)
        expect(message).not_to_contain_text("too big")
        expect(message).not_to_contain_text("0x0")
    page.click("#close-board")
    refused_links_keep_the_board(page, (8, 1, 3, 4, 0, 2, 7, 6, 5))
    page.evaluate("window.location.hash = 'board=1,2,0,3'")
    expect(page.locator("#board")).to_have_attribute("data-tiles", "1,2,0,3")
    wait_distance(page, 1)


def test_a_page_opened_from_a_file_says_to_serve_the_folder(session, web_dir):
    page = session.page
    page.goto((web_dir / "index.html").as_uri())
    status = page.locator("#engine-status")
    expect(status).to_be_visible()
    expect(status).to_contain_text("python3 -m http.server")
    expect(status).to_contain_text("opened from a file")
    # The game is still there, without its coach.
    expect(page.locator("#board .tile")).to_have_count(15)
    expect(page.locator("#coach")).to_contain_text("No coach")
    shot(page, "static-from-a-file")
