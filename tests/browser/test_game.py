"""The game as a player meets it: `npuzzle serve` driven in Debian's headless
Chromium through Playwright (the browser: conftest.py). The same page is the
static site's, with the engine in a Web Worker: test_static.py. Every distance the coach shows on a 3x3 board is
checked against a breadth-first search written here; 4x4 boards against known
optimal lengths. Screenshots of each step go to $SCREENSHOT_DIR (default
target/browser-screenshots) for a person to look at."""

import collections
import os
import re
import pathlib
import struct
import subprocess
import zlib

import pytest
from playwright.sync_api import expect
from conftest import refused_links_keep_the_board

# The coach on a board too big for exact distances: "At least M moves
# from solved", or "About N moves from solved (at least M)".
AT_LEAST = re.compile("at least", re.IGNORECASE)

REPO = pathlib.Path(__file__).resolve().parents[2]
NPUZZLE = os.environ.get("NPUZZLE_BIN", str(REPO / "target" / "release" / "npuzzle"))
SHOTS = pathlib.Path(os.environ.get("SCREENSHOT_DIR", REPO / "target" / "browser-screenshots"))
# Korf's instance 55 with the blank-last goal: 41 moves, the shortest of the 100.
KORF_55 = [5, 10, 14, 4, 6, 12, 11, 1, 9, 0, 15, 7, 13, 2, 8, 3]
STEP = {"U": 1, "D": -1, "L": 1, "R": -1}  # tile notation: where the tile comes from


def neighbour(tiles, letter):
    """The board after `letter` (the direction the tile slides), or None."""
    n = int(len(tiles) ** 0.5)
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


@pytest.fixture(scope="session")
def distances():
    """Every solvable 3x3 board's distance to 1 2 3 4 5 6 7 8 0, by BFS."""
    goal = (1, 2, 3, 4, 5, 6, 7, 8, 0)
    seen = {goal: 0}
    queue = collections.deque([goal])
    while queue:
        board = queue.popleft()
        for letter in "UDLR":
            after = neighbour(board, letter)
            if after is not None and after not in seen:
                seen[after] = seen[board] + 1
                queue.append(after)
    assert len(seen) == 181440
    return seen


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    tables = tmp_path_factory.mktemp("pdb")
    subprocess.run(
        [NPUZZLE, "pdb", "build", "--partition", "6-6-3", "--out", str(tables)],
        check=True,
        capture_output=True,
    )
    process = subprocess.Popen(
        [NPUZZLE, "serve", "--port", "0", "--pdb-dir", str(tables), "--partition", "6-6-3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert "http://" in line, line + process.stderr.read()
    url = line.split("http://")[1].split()[0]
    yield "http://" + url.rstrip("/")
    process.terminate()
    _, stderr = process.communicate(timeout=10)
    assert "panicked" not in stderr, stderr


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 760, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert not errors, errors


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def tiles(page):
    return tuple(int(t) for t in page.locator("#board").get_attribute("data-tiles").split(","))


def wait_distance(page, expected=None):
    """Waits for the coach's exact distance and returns it."""
    coach = page.locator("#coach")
    if expected is not None:
        expect(coach).to_have_attribute("data-distance", str(expected))
        return expected
    # Read in the same step as it is seen: a later answer may clear it.
    distance = page.wait_for_function(
        "() => { const d = document.getElementById('coach').dataset.distance || '';"
        " return /^\\d+$/.test(d) ? d : false; }",
        timeout=30000,
    )
    return int(distance.json_value())


def moves(page):
    return int(page.locator("#moves").inner_text())


def test_play_a_3x3_board_with_the_coach(page, server, distances):
    page.goto(server + "/#size=3")
    expect(page.locator("#board .tile")).to_have_count(8)
    board = tiles(page)
    assert wait_distance(page) == distances[board]
    shot(page, "01-3x3-shuffled")

    # Keys: an arrow and a WASD key slide a tile into the blank.
    for key, letter in [("ArrowLeft", "L"), ("ArrowRight", "R"), ("ArrowUp", "U"),
                        ("ArrowDown", "D"), ("a", "L"), ("d", "R"), ("w", "U"), ("s", "D")]:
        after = neighbour(tiles(page), letter)
        if after is None:
            continue
        before_moves = moves(page)
        page.keyboard.press(key)
        assert tiles(page) == after, key
        assert moves(page) == before_moves + 1
        if after == (1, 2, 3, 4, 5, 6, 7, 8, 0):
            break
        assert wait_distance(page, distances[after]) == distances[after]

    # A click on a tile two cells from the blank slides both tiles.
    board = tiles(page)
    blank = board.index(0)
    row, col = divmod(blank, 3)
    target = row * 3 + (2 - col) if col != 1 else (2 - row) * 3 + col if row != 1 else None
    if target is not None and target != blank:
        distance_cells = abs(target - blank) if target // 3 == row else abs(target - blank) // 3
        tile = board[target]
        before_moves = moves(page)
        page.locator(f'#board .tile[data-tile="{tile}"]').click()
        assert moves(page) == before_moves + distance_cells
        assert tiles(page)[blank] != 0
        assert tiles(page).index(0) == target
    # A tile off the blank's row and column does not move.
    board = tiles(page)
    blank = board.index(0)
    off = next(i for i in range(9) if i // 3 != blank // 3 and i % 3 != blank % 3)
    page.locator(f'#board .tile[data-tile="{board[off]}"]').click()
    assert tiles(page) == board

    # The hint is an optimal move; following it brings the goal one closer.
    board = tiles(page)
    distance = wait_distance(page, distances[board])
    page.click("#hint")
    expect(page.locator("#board .tile.hint")).to_have_count(1)
    letter = page.locator("#board").get_attribute("data-hint")
    after = neighbour(board, letter)
    assert distances[after] == distance - 1
    expect(page.locator("#message")).to_contain_text("Hint: slide")
    shot(page, "02-3x3-hint")
    hinted = page.locator("#board .tile.hint").get_attribute("data-tile")
    page.locator(f'#board .tile[data-tile="{hinted}"]').click()
    assert tiles(page) == after
    if distance > 1:
        wait_distance(page, distance - 1)

    # Solve: the animation ends on the goal, in the optimal number of moves.
    board = tiles(page)
    if board != (1, 2, 3, 4, 5, 6, 7, 8, 0):
        page.locator("#speed").fill("10")
        page.click("#solve")
        expect(page.locator("#board")).to_have_attribute("data-state", "solved", timeout=30000)
        expect(page.locator("#progress")).to_have_text(
            f"move {distances[board]} of {distances[board]}")
    expect(page.locator("#coach")).to_have_text("Solved!")
    shot(page, "03-3x3-solved")


def test_a_shared_4x4_position_is_solved_with_play_pause_and_step(page, server):
    page.goto(server + "/#board=" + ",".join(map(str, KORF_55)))
    expect(page.locator("#board .tile")).to_have_count(15)
    assert tiles(page) == tuple(KORF_55)
    assert wait_distance(page, 41) == 41
    shot(page, "04-4x4-shared-position")
    page.locator("#speed").fill("1")
    page.click("#solve")
    expect(page.locator("#player")).to_be_visible()
    page.click("#play")  # pause
    expect(page.locator("#play")).to_have_text("Play")
    index = int(page.locator("#progress").get_attribute("data-index"))
    page.click("#step")
    page.click("#step")
    assert int(page.locator("#progress").get_attribute("data-index")) == index + 2
    page.click("#back")
    assert int(page.locator("#progress").get_attribute("data-index")) == index + 1
    wait_distance(page, 41 - (index + 1))
    shot(page, "05-4x4-paused-mid-solution")
    page.locator("#speed").fill("10")
    page.click("#play")
    expect(page.locator("#board")).to_have_attribute("data-state", "solved", timeout=30000)
    expect(page.locator("#progress")).to_have_text("move 41 of 41")
    assert moves(page) == 0  # the solution's moves are not the player's
    shot(page, "06-4x4-solved")


def test_shuffle_every_size_and_the_coach_labels_bounds(page, server):
    page.goto(server + "/")
    for size in [4, 3, 5, 6, 8]:
        page.select_option("#size", str(size))
        expect(page.locator("#board .tile")).to_have_count(size * size - 1)
        coach = page.locator("#coach")
        if size <= 4:
            wait_distance(page)
        else:
            expect(coach).to_contain_text(AT_LEAST, timeout=30000)
        shot(page, f"07-shuffled-{size}x{size}")
    # Shuffle gives another board; Reset returns to it after moves.
    first = tiles(page)
    page.click("#shuffle")
    expect(page.locator("#board")).not_to_have_attribute("data-tiles", ",".join(map(str, first)))
    start = tiles(page)
    for key in ["ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"]:
        page.keyboard.press(key)
    assert moves(page) > 0
    page.click("#reset")
    assert tiles(page) == start and moves(page) == 0


def png(width, height):
    """A small PNG, wider than high, in stripes: the page crops its middle."""
    rows = b""
    for y in range(height):
        row = b"\x00"
        for x in range(width):
            row += bytes(((x * 255) // width, (y * 255) // height, 160 if x < width // 2 else 40))
        rows += row

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def test_picture_numbers_and_a_phone_sized_window(browser, server, tmp_path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server + "/#size=4")
    expect(page.locator("#board .tile")).to_have_count(15)
    wait_distance(page)
    board_box = page.locator("#board").bounding_box()
    assert board_box["width"] <= 390 and board_box["x"] >= 0
    shot(page, "08-phone")
    # Tap a tile next to the blank.
    board = tiles(page)
    letter = next(l for l in "LRUD" if neighbour(board, l) is not None)
    source = [i for i in range(16) if neighbour(board, letter)[i] == 0][0]
    page.locator(f'#board .tile[data-tile="{board[source]}"]').tap()
    assert tiles(page) == neighbour(board, letter)
    picture = tmp_path / "stripes.png"
    picture.write_bytes(png(300, 200))
    page.set_input_files("#picture", str(picture))
    expect(page.locator("#message")).to_contain_text("Picture: stripes.png")
    style = page.locator("#board .tile").first.get_attribute("style")
    assert 'url("data:image/jpeg' in style
    shot(page, "09-phone-own-picture")
    page.uncheck("#numbers")
    expect(page.locator("#board .tile .number").first).to_be_hidden()
    shot(page, "10-phone-no-numbers")
    page.set_input_files("#picture", {"name": "notes.txt", "mimeType": "image/png",
                                      "buffer": b"not an image"})
    expect(page.locator("#message")).to_contain_text("not an image")
    context.close()


def test_typed_boards_and_links(page, server, distances):
    page.goto(server + "/#size=3")
    expect(page.locator("#board .tile")).to_have_count(8)
    page.click("#open-board")
    expect(page.locator("#board-dialog")).to_be_visible()
    page.fill("#board-text", "8 1 3\n4 0 2\n7 6 5")
    page.click("#set-board")
    expect(page.locator("#board-dialog")).to_be_hidden()
    expect(page.locator("#board")).to_have_attribute("data-tiles", "8,1,3,4,0,2,7,6,5")
    wait_distance(page, distances[(8, 1, 3, 4, 0, 2, 7, 6, 5)])
    page.click("#open-board")
    page.fill("#board-text", "1 2 3 4 5 6 8 7 0")
    page.click("#set-board")
    expect(page.locator("#board-dialog-message")).to_contain_text("cannot be solved")
    page.fill("#board-text", "1 2 x 0")
    page.click("#set-board")
    expect(page.locator("#board-dialog-message")).to_contain_text("x")
    expect(page.locator("#board-dialog-message")).to_have_class(__import__("re").compile("error"))
    # Text that holds no board is refused for that, not for a size it lacks.
    for text in ["hello", ""]:
        page.fill("#board-text", text)
        page.click("#set-board")
        expect(page.locator("#board-dialog-message")).to_have_class(__import__("re").compile("error"))
        expect(page.locator("#board-dialog-message")).not_to_contain_text("too big")
        expect(page.locator("#board-dialog-message")).not_to_contain_text("0x0")
    assert tiles(page) == (8, 1, 3, 4, 0, 2, 7, 6, 5)
    page.click("#share")
    expect(page.locator("#message")).to_contain_text("board=8,1,3,4,0,2,7,6,5")
    page.click("#close-board")
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    expect(page.locator("#board")).to_have_attribute("data-tiles", "8,1,3,4,0,2,7,6,5")
    shot(page, "11-typed-board")

    # A link opened in the tab that has the game loads it (hashchange).
    page.evaluate("window.location.hash = 'board=1,2,3,4,5,6,0,7,8'")
    expect(page.locator("#board")).to_have_attribute("data-tiles", "1,2,3,4,5,6,0,7,8")
    wait_distance(page, 2)
    # A bad or unsolvable link says why and keeps the board.
    page.evaluate("window.location.hash = 'board=1,2,3,4,5,6,8,7,0'")
    expect(page.locator("#message")).to_contain_text("cannot be solved")
    assert tiles(page) == (1, 2, 3, 4, 5, 6, 0, 7, 8)
    page.evaluate("window.location.hash = 'board=1,2,x'")
    expect(page.locator("#message")).to_contain_text("not loaded")
    assert tiles(page) == (1, 2, 3, 4, 5, 6, 0, 7, 8)
    refused_links_keep_the_board(page, (1, 2, 3, 4, 5, 6, 0, 7, 8))
    page.evaluate("window.location.hash = 'board=1,2,3,4,5,6,0,7,8'")
    expect(page.locator("#board")).to_have_attribute("data-tiles", "1,2,3,4,5,6,0,7,8")
    wait_distance(page, 2)
    # Solved in the fewest moves: the player is told so.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#message")).to_contain_text("Solved in 2 moves")
    expect(page.locator("#message")).to_contain_text("optimal!")
    # In more: told the shortest.
    page.evaluate("window.location.hash = 'board=1,2,3,4,5,6,7,0,8'")
    expect(page.locator("#board")).to_have_attribute("data-tiles", "1,2,3,4,5,6,7,0,8")
    wait_distance(page, 1)
    for key in ["ArrowRight", "ArrowLeft", "ArrowLeft"]:
        page.keyboard.press(key)
    expect(page.locator("#message")).to_contain_text("Solved in 3 moves")
    expect(page.locator("#message")).to_contain_text("the shortest solution has 1")
    # A first visit with a bad link still gets a board, and the error.
    page.goto("about:blank")
    page.goto(server + "/#board=1,2,3,4,5,6,8,7,0")
    expect(page.locator("#board .tile")).to_have_count(15)
    expect(page.locator("#message")).to_contain_text("not loaded")


VIEWPORTS = [(1366, 768), (1280, 720), (390, 844), (844, 390)]


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_every_control_fits_the_screen(browser, server, width, height):
    """At laptop, phone and landscape-phone sizes every control is on
    screen without scrolling, with the solution player showing too."""
    touch = width < 900
    context = browser.new_context(viewport={"width": width, "height": height},
                                  is_mobile=touch, has_touch=touch)
    page = context.new_page()
    page.goto(server + "/#size=5")
    expect(page.locator("#coach")).to_contain_text(AT_LEAST, timeout=30000)
    page.click("#solve")
    expect(page.locator("#player")).to_be_visible()
    page.click("#play")
    shot(page, f"12-fits-{width}x{height}")
    controls = page.locator("button, select, input[type=range], input[type=checkbox], label.file")
    checked = 0
    for i in range(controls.count()):
        control = controls.nth(i)
        if not control.is_visible():
            continue
        box = control.bounding_box()
        name = control.get_attribute("id") or control.inner_text()
        assert box["x"] >= 0 and box["y"] >= 0, (name, box)
        assert box["x"] + box["width"] <= width + 0.5, (name, box)
        assert box["y"] + box["height"] <= height + 0.5, (name, box)
        checked += 1
    assert checked >= 12
    board = page.locator("#board").bounding_box()
    assert board["y"] + board["height"] <= height and board["x"] + board["width"] <= width
    # The coach's line has one height whatever it says: the board stays put.
    before = page.locator("#board").bounding_box()
    page.click("#coach-more")
    expect(page.locator("#coach-details")).to_be_visible()
    assert page.locator("#board").bounding_box() == before
    context.close()


def test_one_lower_bound_and_swipes(browser, server):
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(server + "/#size=5")
    coach = page.locator("#coach")
    expect(coach).to_contain_text(AT_LEAST, timeout=30000)
    bound = coach.get_attribute("data-bound")
    assert bound
    # Hint asks another endpoint: the same lower bound.
    page.click("#hint")
    expect(page.locator("#message")).to_contain_text("Hint: slide")
    assert coach.get_attribute("data-bound") == bound
    # A swipe slides the tile next to the blank that way.
    board = tiles(page)
    letter = next(l for l in "LRUD" if neighbour(board, l) is not None)
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
    assert tiles(page) == neighbour(board, letter)
    assert moves(page) == 1
    context.close()
