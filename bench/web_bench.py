#!/usr/bin/env python3
"""The figures of the engine in WebAssembly, in headless Chromium: the bench
section "web" (`cargo xtask bench --only web`) runs this with the site that
`cargo xtask web` built, the release npuzzle and Chromium, and prints the
section's Markdown.

Everything the engine answers here is replayed to the goal, and compared
with the command line's answer on the same board (lengths, and nodes where
the search is the same). Times are wall-clock in one run: compare ratios.
"""

import gzip
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ["NPUZZLE_WEB_DIR"])
NPUZZLE = os.environ["NPUZZLE_BIN"]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
QUICK = os.environ.get("NPUZZLE_BENCH_QUICK") == "1"
# Chromium as this machine allows it: no sandbox as root, no background
# connections (the network is closed).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# The page-ready timer: a page of the site's origin that opens the game in
# a window of its own, cold, then reloads it from the service worker's
# cache, and posts the times (ms from asking to the board drawn and the
# engine loaded). A window, not a frame: a frame loads faster than a page
# the user opens (about 70 ms here).
READY_PATH = "bench-ready.html"
READY_PAGE = """<!doctype html><meta charset="utf-8"><title>page ready</title><body><script>
let game = null;
const ready = () => {
  // Between two documents, the window's may be missing or empty.
  const page = game?.document;
  return page?.documentElement?.dataset.engineState === "ready" &&
    page.querySelectorAll("#board .tile").length > 0;
};
const until = (test) => new Promise((done) => {
  const look = () => (test() ? done() : setTimeout(look, 1));
  look();
});
const pause = (ms) => new Promise((done) => setTimeout(done, ms));
(async () => {
  let asked = performance.now();
  game = window.open("./", "game");
  await until(ready);
  const cold = performance.now() - asked;
  await until(() => game.navigator.serviceWorker.controller !== null);
  const warm = [];
  for (let i = 0; i < RUNS; i++) {
    await pause(500);
    const before = game.document;
    asked = performance.now();
    game.location.reload();
    await until(() => game.document !== before && ready());
    warm.push(performance.now() - asked);
  }
  await fetch("bench-ready", { method: "POST", body: JSON.stringify({ cold, warm }) });
})();
</script>"""
# The timer's page stays behind the game's window: its timers must not be
# slowed as a background page's are.
READY_FLAGS = ["--disable-popup-blocking", "--disable-background-timer-throttling",
               "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"]


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript",
                      ".webmanifest": "application/manifest+json"}

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.split("?")[0] != "/" + READY_PATH:
            return super().do_GET()
        body = READY_PAGE.replace("RUNS", str(self.server.ready_runs)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.server.ready_report = json.loads(self.rfile.read(length))
        self.send_response(204)
        self.end_headers()


def serve(directory):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(directory)))
    server.ready_runs = 5
    server.ready_report = None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def cli_records(boards, *args):
    out = subprocess.run([NPUZZLE, "solve", "--json", "--jobs", "1", *args],
                         input="\n".join(" ".join(map(str, b)) for b in boards) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return [r for r in map(json.loads, out.splitlines()) if r["type"] != "summary"]


def replay(tiles, moves):
    n = int(round(len(tiles) ** 0.5))
    board = list(tiles)
    blank = board.index(0)
    for move in moves:
        r, c = divmod(blank, n)
        r, c = {"U": (r + 1, c), "D": (r - 1, c), "L": (r, c + 1), "R": (r, c - 1)}[move]
        assert 0 <= r < n and 0 <= c < n, f"illegal move {move}"
        board[blank], board[r * n + c] = board[r * n + c], 0
        blank = r * n + c
    assert board == list(range(1, n * n)) + [0], "the moves do not reach the goal"


def manhattan(tiles):
    n = int(round(len(tiles) ** 0.5))
    return sum(abs(i // n - (t - 1) // n) + abs(i % n - (t - 1) % n)
               for i, t in enumerate(tiles) if t)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    lines = []
    wasm = (SITE / "npuzzle.wasm").read_bytes()
    lines.append(f"Engine: npuzzle.wasm {len(wasm) / 1e6:.2f} MB raw, "
                 f"{len(gzip.compress(wasm, 9)) / 1e6:.2f} MB gzip (target: at most 1 MB gzip).\n")
    server, base = serve(SITE)
    korf = [list(map(int, l.split()[2:]))
            for l in (ROOT / "bench/korf100_goal_blank_last.txt").read_text().splitlines() if l.strip()]
    eights = []
    for line in (ROOT / "bench/princeton_8puzzle.txt").read_text().splitlines():
        f = line.split()
        if len(f) > 4 and f[1] == "3" and f[2] != "-1":
            eights.append(list(map(int, f[4:])))
    eights += [list(map(int, l.split()[2:]))
               for l in (ROOT / "bench/puzzle8_hardest.txt").read_text().splitlines() if l.strip()]
    if QUICK:
        korf = korf[:10]
    lines += page_ready(server, base)
    lines += page_hints(base)
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context()
        page = context.new_page()
        # A blank page of the site's origin, to import the module into.
        page.route(base + "bench.html", lambda route: route.fulfill(
            body="<!doctype html><title>bench</title>", content_type="text/html"))
        page.goto(base + "bench.html")
        page.evaluate("""async () => {
            const m = await import('./npuzzle.js');
            window.engine = await m.load();
        }""")

        def engine(call, *args):
            return page.evaluate(f"(args) => engine.{call}(...args)", list(args))

        # The node rate, one thread each, on the same boards and nodes.
        # The engine's first searches run in V8's baseline code, before
        # its hot functions are compiled again optimized; an 8-puzzle takes
        # about 1,200 nodes, so the set's first pass times mostly that.
        rows = []
        native = cli_records(eights)
        ours = [engine("solve", b) for b in eights]
        rows.append(rate_row("8-puzzle set, linear conflict, first pass", eights, ours, native))
        again = eights * 20
        native = cli_records(again)
        ours = page.evaluate("(boards) => boards.map((b) => engine.solve(b))", again)
        rows.append(rate_row("the same set 20 times more", again, ours, native))
        started = time.perf_counter()
        images = page.evaluate("""() => {
            window.images = engine.buildTables('6-6-3');
            return images.map((i) => i.length);
        }""")
        built = time.perf_counter() - started
        started = time.perf_counter()
        page.evaluate("() => engine.useTables(images, '6-6-3')")
        checked = time.perf_counter() - started
        subprocess.run([NPUZZLE, "pdb", "build", "--partition", "6-6-3", "--out", tmp],
                       check=True, capture_output=True)
        native = cli_records(korf, "--pdb-dir", tmp, "--partition", "6-6-3")
        ours = [engine("solve", b) for b in korf]
        rows.append(rate_row(f"Korf's {len(korf)}, 6-6-3", korf, ours, native))
        lines.append("### Node rate against the native engine (one thread, same boards)\n")
        lines.append("| boards | nodes (both) | native s | WebAssembly s | ratio (native / wasm time) |")
        lines.append("| --- | ---: | ---: | ---: | ---: |")
        lines += rows
        lines.append("")
        lines.append(f"4x4 tables (6-6-3, {sum(images) / 1e6:.1f} MB) made ready in the page: built in "
                     f"{built:.2f} s, checked and taken in {checked:.2f} s (target: at most 5 s).\n")

        hints = []
        for seed in range(1, 101):
            board = engine("random", 4, seed)
            started = time.perf_counter()
            hint = engine("hint", board)
            hints.append(time.perf_counter() - started)
            assert hint["optimal"], hint
            replay(board, hint["moves"])
        lines.append(f"4x4 first hint over 100 random boards (seeds 1 to 100), tables ready: "
                     f"p50 {percentile(hints, 0.5) * 1000:.0f} ms, p99 {percentile(hints, 0.99) * 1000:.0f} ms, "
                     f"worst {max(hints) * 1000:.0f} ms (targets: 100 ms and 1 s).\n")

        lines.append("### 5x5 to 8x8: what the page answers, beside the command line (no tables)\n")
        lines.append("The page's time: a solve asked of the game's worker (worker.js), which on 6x6 "
                     "to 8x8 runs the pair of beams on two workers; the command line's with `--jobs 1` "
                     "(one board per thread).\n")
        lines.append("| size | boards | page length / Manhattan | CLI length / Manhattan | same answers "
                     "| page mean s | page worst s | CLI mean s | CLI worst s |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        # The game's worker, as app.js starts it.
        page.evaluate("""() => new Promise((resolve, reject) => {
            window.coach = new Worker('./worker.js', { type: 'module' });
            window.asked = new Map();
            coach.onmessage = (event) => {
                const m = event.data;
                if (m.type === 'ready') resolve();
                else if (m.type === 'fatal') reject(new Error(m.message));
                else if (asked.has(m.id)) { asked.get(m.id)(m); asked.delete(m.id); }
            };
            coach.postMessage({ op: 'init', module: null });
        })""")

        def page_solve(board):
            reply = page.evaluate("""(board) => new Promise((resolve) => {
                const id = asked.size + Math.random();
                asked.set(id, resolve);
                coach.postMessage({ id, op: 'solve', board, goal: 'blank-last' });
            })""", board)
            assert reply["ok"], reply
            return reply["record"]

        count = 4 if QUICK else 20
        empty = Path(tmp) / "none"
        empty.mkdir()
        for size in (5, 6, 7, 8):
            boards = [engine("random", size, seed) for seed in range(1, count + 1)]
            native = cli_records(boards, "--pdb-dir", str(empty))
            ours, seconds = [], []
            for board in boards:
                started = time.perf_counter()
                ours.append(page_solve(board))
                seconds.append(time.perf_counter() - started)
                replay(board, ours[-1]["moves"])
            same = sum(a["length"] == b["length"] and a["expanded"] == b["expanded"]
                       for a, b in zip(ours, native))
            ratio = lambda records: statistics.mean(r["length"] / manhattan(b) for r, b in zip(records, boards))
            cli_seconds = [r["seconds"] for r in native]
            lines.append(f"| {size}x{size} | {count} | {ratio(ours):.3f} | {ratio(native):.3f} | {same} of {count} "
                         f"| {statistics.mean(seconds):.2f} | {max(seconds):.2f} "
                         f"| {statistics.mean(cli_seconds):.2f} | {max(cli_seconds):.2f} |")
        lines.append("")
        browser.close()
    server.shutdown()
    print("\n".join(lines))


def page_hints(base):
    """The game's first hint on each 4x4 board of Korf's 100 and the 17 at
    distance 80, on a phone-sized page with its tables ready: the time
    from the board's link to the hint on screen, and whether it is a move
    of a shortest solution or a good move (the shortest then proven in
    the background). The coach's line is checked against the known
    length: exact when it says so, else bounds around it."""
    sets = []
    for name in ("korf100_goal_blank_last.txt", "hard80.txt"):
        rows = [l.split() for l in (ROOT / "bench" / name).read_text().splitlines() if l.strip()]
        sets.append([(int(r[1]), r[2:]) for r in rows])
    if QUICK:
        sets = [sets[0][:10], sets[1][:3]]
    lines = ["### 4x4 hints in the game (phone-sized page, 6-6-3 tables ready)\n",
             "From the board's link to the hint on screen; each board's first hint, asked at once. "
             "A hint is a move of a shortest solution when one is found within 0.5 s, else a "
             "good move (a solution at most 40 % longer), the shortest then proven in the "
             "background (not waited for here).\n",
             "| boards | hints | exact | good move | p50 s | p99 s | worst s |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    every = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True)
        page = context.new_page()
        page.goto(base + "#size=4")
        # The tables built, and the dealt board answered.
        page.wait_for_function("/moves from solved/.test(document.getElementById('coach').textContent)",
                               timeout=120000)
        for name, boards in zip(("Korf's 100", "the 17 at distance 80"), sets):
            seconds, exact = [], 0
            for known, tiles in boards:
                link = ",".join(tiles)
                started = time.perf_counter()
                page.evaluate("(link) => { window.location.hash = 'board=' + link; }", link)
                page.wait_for_function("(link) => document.getElementById('board').dataset.tiles === link",
                                       arg=link)
                page.click("#hint")
                page.wait_for_function("/Hint: slide/.test(document.getElementById('message').textContent)",
                                       timeout=60000)
                seconds.append(time.perf_counter() - started)
                if seconds[-1] > 1:
                    print(f"slow hint: {seconds[-1]:.2f} s on {link}", file=sys.stderr)
                message = page.locator("#message").inner_text()
                coach = page.locator("#coach").inner_text()
                if "shortest solution)" in message:
                    exact += 1
                    assert coach == f"{known} moves from solved", (tiles, coach, known)
                else:
                    assert "not proven shortest" in message, message
                    lower, upper = [int(w) for w in coach.split() if w.isdigit()][:2]
                    assert lower <= known <= upper, (tiles, coach, known)
            every += seconds
            lines.append(f"| {name} | {len(seconds)} | {exact} | {len(seconds) - exact} "
                         f"| {percentile(seconds, 0.5):.2f} | {percentile(seconds, 0.99):.2f} "
                         f"| {max(seconds):.2f} |")
        # The player moves on quickly: six keys 50 ms apart, each to a new
        # position, then Hint; timed from the last key.
        quick = []
        for known, tiles in sets[1]:
            link = ",".join(tiles)
            page.evaluate("(link) => { window.location.hash = 'board=' + link; }", link)
            page.wait_for_function("(link) => document.getElementById('board').dataset.tiles === link",
                                   arg=link)
            board, last = [int(t) for t in tiles], None
            for _ in range(6):
                letter = next(m for m in "ULDR" if m != {"L": "R", "R": "L", "U": "D", "D": "U"}.get(last)
                              and slide(board, m))
                page.keyboard.press({"L": "ArrowLeft", "R": "ArrowRight", "U": "ArrowUp",
                                     "D": "ArrowDown"}[letter])
                board, last = slide(board, letter), letter
                time.sleep(0.05)
            started = time.perf_counter()
            page.click("#hint")
            page.wait_for_function("/Hint: slide/.test(document.getElementById('message').textContent)",
                                   timeout=60000)
            quick.append(time.perf_counter() - started)
        lines.append(f"| the 17, after six quick moves | {len(quick)} | | "
                     f"| {percentile(quick, 0.5):.2f} | {percentile(quick, 0.99):.2f} | {max(quick):.2f} |")
        browser.close()
    lines.append(f"| all | {len(every)} | | | {percentile(every, 0.5):.2f} | {percentile(every, 0.99):.2f} "
                 f"| {max(every):.2f} |")
    lines.append("\nTargets: p99 at most 1 s, worst at most 2 s.\n")
    return lines


def slide(tiles, letter):
    """The board after the tile moves `letter` into the blank, or None."""
    n = int(len(tiles) ** 0.5)
    blank = tiles.index(0)
    row, col = divmod(blank, n)
    source = {"U": (row + 1, col), "D": (row - 1, col), "L": (row, col + 1), "R": (row, col - 1)}[letter]
    if not (0 <= source[0] < n and 0 <= source[1] < n):
        return None
    after = list(tiles)
    cell = source[0] * n + source[1]
    after[blank], after[cell] = after[cell], 0
    return after


def rate_row(what, boards, ours, native):
    for board, a, b in zip(boards, ours, native):
        replay(board, a["moves"])
        assert a["length"] == b["length"], (board, a["length"], b["length"])
        assert a["expanded"] == b["expanded"], (board, a["expanded"], b["expanded"])
    nodes = sum(a["expanded"] for a in ours)
    wasm = sum(a["seconds"] for a in ours)
    cli = sum(b["seconds"] for b in native)
    return f"| {what} | {nodes:,} | {cli:.2f} | {wasm:.2f} | {cli / wasm:.2f} |"


def page_ready(server, base):
    """The page drawn and its engine loaded: cold (nothing cached), then
    again from the service worker's cache. Timed in the browser, with no
    driver attached: timed from Python through Playwright, each load also
    counted the driver's round trips (about 520 ms where the browser's own
    clock said 280)."""
    server.ready_runs = 9
    server.ready_report = None
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = subprocess.Popen([CHROMIUM, *FLAGS, *READY_FLAGS, f"--user-data-dir={profile}",
                                    base + READY_PATH],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while server.ready_report is None and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            browser.kill()
            browser.wait()
    report = server.ready_report
    if report is None:
        return ["Page ready: not measured (the timing page did not report within 2 minutes).\n"]
    warm = report["warm"]
    return [f"Page ready (board drawn, engine loaded), from a local static server, timed in "
            f"Chromium with no driver attached: cold {report['cold']:.0f} ms (target: 1 s); "
            f"from the service worker's cache, median of {len(warm)} "
            f"{statistics.median(warm):.0f} ms (target: 300 ms; fastest {min(warm):.0f}, "
            f"slowest {max(warm):.0f}).\n"]

if __name__ == "__main__":
    sys.exit(main())
