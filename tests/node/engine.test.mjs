// The WebAssembly engine through npuzzle.js under Node, against the command
// line on the same boards: equal lengths, equal node counts where the
// search is the same, every move list replayed to the goal here, and the
// command line's messages for bad boards. Run by `cargo xtask test` (the
// web stage) with NPUZZLE_WEB_DIR (the site `cargo xtask web` built) and
// NPUZZLE_BIN (the release npuzzle).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const web = process.env.NPUZZLE_WEB_DIR;
const bin = process.env.NPUZZLE_BIN;
if (!web || !bin) {
  throw new Error("set NPUZZLE_WEB_DIR (cargo xtask web) and NPUZZLE_BIN (the release npuzzle)");
}
const root = new URL("../../", import.meta.url);
const npuzzle = await import(pathToFileURL(join(web, "npuzzle.js")).href);
const engine = await npuzzle.load();

/** The goal board, blank last. */
function goal(size) {
  return Array.from({ length: size * size }, (_, i) => (i + 1) % (size * size));
}

/** The board after `moves` (tile notation: the direction the tile moves),
 * each move checked to be legal. Written here, apart from the engine. */
function replay(tiles, moves) {
  const size = Math.round(Math.sqrt(tiles.length));
  const board = [...tiles];
  let blank = board.indexOf(0);
  for (const [i, move] of [...moves].entries()) {
    const row = Math.floor(blank / size);
    const col = blank % size;
    // The tile moves into the blank: it stands on the far side of it.
    const from = { U: [row + 1, col], D: [row - 1, col], L: [row, col + 1], R: [row, col - 1] }[move];
    assert.ok(from, `move ${i + 1} '${move}' is not U, D, L or R`);
    const [r, c] = from;
    assert.ok(r >= 0 && r < size && c >= 0 && c < size, `move ${i + 1} '${move}' leaves the board`);
    const cell = r * size + c;
    board[blank] = board[cell];
    board[cell] = 0;
    blank = cell;
  }
  return board;
}

function tilesOf(text) {
  return text.trim().split(/\s+/).map(Number);
}

/** The command line's JSON records for `boards`, one thread. */
function cliRecords(boards, args = []) {
  const out = execFileSync(bin, ["solve", "--json", "--jobs", "1", ...args], {
    input: boards.map((b) => b.join(" ")).join("\n") + "\n",
    maxBuffer: 1 << 28,
  });
  return out.toString().trim().split("\n").map((line) => JSON.parse(line))
    .filter((record) => record.type !== "summary");
}

function check(answer, board, expected) {
  assert.equal(answer.length, expected.length, `length of ${board.join(" ")}`);
  assert.equal(answer.optimal, expected.optimal, `optimal for ${board.join(" ")}`);
  assert.deepEqual(replay(board, answer.moves), goal(Math.sqrt(board.length)),
    `the moves of ${board.join(" ")} reach the goal`);
  if (answer.heuristic === expected.heuristic && answer.strategy === expected.strategy) {
    assert.equal(answer.expanded, expected.expanded, `expanded nodes of ${board.join(" ")}`);
    assert.equal(answer.generated, expected.generated, `generated nodes of ${board.join(" ")}`);
  }
}

// The held 8-puzzles: the Princeton files' 3x3 boards (their expected
// lengths are independent truth) and the two at distance 31.
function heldEightPuzzles() {
  const boards = [];
  for (const line of readFileSync(new URL("bench/princeton_8puzzle.txt", root), "utf8").split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== "3" || fields[2] === "-1") continue;
    boards.push({ tiles: fields.slice(4).map(Number), known: Number(fields[2]) });
  }
  for (const line of readFileSync(new URL("bench/puzzle8_hardest.txt", root), "utf8").split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 11) continue;
    boards.push({ tiles: fields.slice(2).map(Number), known: Number(fields[1]) });
  }
  return boards;
}

test("every held 8-puzzle: the known optimal length, the command line's nodes", () => {
  const held = heldEightPuzzles();
  assert.ok(held.length >= 30, `${held.length} boards`);
  const expected = cliRecords(held.map((b) => b.tiles));
  for (const [i, { tiles, known }] of held.entries()) {
    const answer = engine.solve(tiles);
    assert.equal(answer.length, known, `${tiles.join(" ")}: known ${known}`);
    assert.equal(answer.optimal, true);
    assert.equal(answer.heuristic, expected[i].heuristic);
    check(answer, tiles, expected[i]);
  }
});

test("30 of Korf's 100 over 6-6-3 built by the engine: the command line's lengths and nodes", () => {
  const dir = mkdtempSync(join(tmpdir(), "npuzzle-node-"));
  try {
    execFileSync(bin, ["pdb", "build", "--partition", "6-6-3", "--out", dir, "--threads", "2"],
      { stdio: ["ignore", "ignore", "inherit"] });
    const built = engine.buildTables("6-6-3");
    engine.useTables(built, "6-6-3");
    // The tables the command line unpacked are the same tables: the engine
    // takes them too, and their tables (past the header) are equal.
    const cache = join(dir, "cache");
    const files = readdirSync(cache).filter((f) => f.endsWith(".pdb")).sort();
    assert.equal(files.length, 3, files.join(", "));
    const names = engine.tableFiles("6-6-3").map((f) => f.replace(/\.zst$/, ""));
    for (const [index, name] of names.entries()) {
      const theirs = readFileSync(join(cache, name));
      const offset = Number(new DataView(theirs.buffer, theirs.byteOffset).getBigUint64(48, true));
      assert.ok(offset > 0 && offset <= 4096, `table offset ${offset}`);
      assert.ok(Buffer.from(built[index].subarray(offset)).equals(theirs.subarray(offset)),
        `${name}: the engine's table equals the command line's`);
    }

    const korf = readFileSync(new URL("bench/korf100_goal_blank_last.txt", root), "utf8")
      .trim().split("\n").slice(0, 30).map((line) => {
        const fields = line.trim().split(/\s+/).map(Number);
        return { tiles: fields.slice(2), known: fields[1] };
      });
    const expected = cliRecords(korf.map((b) => b.tiles), ["--pdb-dir", dir, "--partition", "6-6-3"]);
    let expanded = 0;
    for (const [i, { tiles, known }] of korf.entries()) {
      const answer = engine.solve(tiles);
      assert.equal(answer.length, known, `Korf ${i + 1}: known ${known}`);
      assert.equal(answer.partition, "6-6-3");
      assert.equal(answer.strategy, expected[i].strategy, `Korf ${i + 1}: the same strategy`);
      check(answer, tiles, expected[i]);
      expanded += answer.expanded;
    }
    assert.ok(expanded > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The size is the build's, not the machine's: a regression (a generic
// search compiled in for every heuristic) shows here, not in a bench.
test("the engine is at most 1 MB gzip, the page's budget", () => {
  const gzipped = gzipSync(readFileSync(join(web, "npuzzle.wasm")), { level: 9 }).length;
  assert.ok(gzipped <= 1_000_000, `npuzzle.wasm is ${gzipped} bytes gzip, over 1 MB`);
});

test("bad boards get the command line's message", () => {
  for (const text of ["1 2 3", "1 2 2 0", "1 2 3 4 5 6 7 8 9", "3 1 2 3 4 5 6 7 8 0 9"]) {
    const cli = spawnSync(bin, ["solve", text]);
    assert.notEqual(cli.status, 0, text);
    const said = cli.stderr.toString().trim().replace(/^npuzzle: /, "");
    assert.throws(() => engine.solve(text), (e) => {
      assert.ok(e instanceof npuzzle.NpuzzleError, String(e));
      assert.equal(e.kind, "invalid");
      assert.equal(e.message, said, text);
      return true;
    });
  }
  assert.throws(() => engine.solve("1 2 3 4 5 6 8 7 0"), npuzzle.UnsolvableError);
  assert.throws(() => engine.solve({ tiles: [1, 0] }), TypeError);
  assert.throws(() => engine.solve("1 2 3 0", { maxNodes: -5 }), RangeError);
  for (const bad of [-1, 0, NaN, Infinity, 1e7, "10", 1n]) {
    assert.throws(() => engine.solve("1 2 3 0", { maxSeconds: bad }), /maxSeconds: .* from 0.001 to 1000000/);
  }
  assert.throws(() => engine.random(4, 1.5), RangeError);
  // A number written as text is named as text, not as a number it is not.
  assert.throws(() => engine.random("4"), (e) => {
    assert.ok(e instanceof TypeError, String(e));
    assert.equal(e.message,
      'size: "4" is text, not a number: give a whole number from 0 to 2^64 - 1 without quotes');
    return true;
  });
});

test("a time budget: 8x8 answers from where the beam got", () => {
  const board = engine.random(8, 9);
  const found = engine.solve(board, { maxSeconds: 0.05 });
  assert.match(found.note, /time budget of 0.05 s ran out first/);
  assert.deepEqual(replay(board, found.moves), goal(8));
  // A budget the beams spent in other workers: the solve ends at once and
  // names the whole budget.
  const late = engine.solve(board, { maxSeconds: 60, spentSeconds: 60 });
  assert.match(late.note, /time budget of 60 s ran out first/);
  assert.deepEqual(replay(board, late.moves), goal(8));
  assert.throws(() => engine.solve(board, { spentSeconds: 1 }), /spentSeconds: give maxSeconds too/);
  for (const bad of [-1, NaN, Infinity, "1", 1n]) {
    assert.throws(() => engine.hint(board, { maxSeconds: 1, spentSeconds: bad }),
      /spentSeconds: .* of 0 or more/);
  }
});

test("time for a shorter answer: never longer than its first, the note says so", () => {
  const board = engine.random(6, 3);
  const found = engine.solve(board, { anytime: 1 });
  assert.match(found.note, /beam searched .* of the 1 s given: \d+ moves/);
  const first = Number(found.note.match(/given: (\d+) moves/)[1]);
  assert.ok(found.length <= first, found.note);
  assert.deepEqual(replay(board, found.moves), goal(6));
  assert.throws(() => engine.solve(board, { anytime: 0 }), /anytime: 0 is not a number of seconds/);
  assert.throws(() => engine.solve(board, { anytime: 1, fast: true }), /anytime gives the beam time/);
});

test("random boards are the command line's for the same seed", () => {
  for (const [size, seed] of [[3, 1], [4, 7], [5, 99], [8, 2n ** 64n - 1n]]) {
    const cli = execFileSync(bin, ["random", "--size", String(size), "--seed", String(seed), "--count", "1"]);
    assert.deepEqual(engine.random(size, seed), tilesOf(cli.toString()), `size ${size} seed ${seed}`);
  }
});

test("a hint is the first move of an optimal solution; a check finds near distances", () => {
  const hint = engine.hint("8 1 3 4 0 2 7 6 5");
  assert.equal(hint.move, hint.moves[0]);
  assert.equal(hint.length, 14);
  assert.equal(engine.hint("1 2 3 4 5 6 7 8 0").move, null);
  const check = engine.check("1 2 3 4 5 6 7 0 8");
  assert.equal(check.distance, 1);
  assert.equal(engine.check([1, 2, 3, 4, 5, 6, 8, 7, 0]).solvable, false);
});

test("a damaged or partial table set is refused and the engine keeps working", () => {
  const images = engine.buildTables("5-5-5");
  const damaged = images.map((image) => image.slice());
  damaged[2][damaged[2].length - 7] ^= 0x40;
  assert.throws(() => engine.useTables(damaged, "5-5-5"), npuzzle.TablesError);
  assert.throws(() => engine.useTables(images.slice(1), "5-5-5"), npuzzle.TablesError);
  assert.equal(engine.solve("8 1 3 4 0 2 7 6 5").length, 14);
});

test("5x5 to 8x8 get the command line's near-optimal answers", () => {
  for (const size of [5, 6]) {
    const board = engine.random(size, 3);
    const [expected] = cliRecords([board]);
    const answer = engine.solve(board);
    assert.equal(answer.algorithm, expected.algorithm);
    check(answer, board, expected);
  }
});

test("a 6x6 board's pair of beams on two threads gives the command line's answer", async () => {
  const { Worker } = await import("node:worker_threads");
  const board = engine.random(6, 5);
  const [expected] = cliRecords([board]);
  // One board on the command line: its search may take two threads.
  const twoThreads = JSON.parse(execFileSync(bin, ["solve", "--json", "--jobs", "2", board.join(" ")])
    .toString().trim().split("\n")[0]);
  const helper = new Worker(`
    const { parentPort, workerData } = require("node:worker_threads");
    import(workerData.module).then(async (npuzzle) => {
      const engine = await npuzzle.load();
      parentPort.postMessage(engine.beam(workerData.board, 1));
    });`, { eval: true, workerData: { module: pathToFileURL(join(web, "npuzzle.js")).href, board } });
  const theirs = new Promise((resolve, reject) => {
    helper.once("message", resolve);
    helper.once("error", reject);
  });
  // The engine's schedule: the two beams that always run, then those that
  // run only when every beam before stalled.
  const schedule = engine.beamSchedule(board);
  assert.deepEqual(schedule.map((beam) => beam.always), [true, true, false, false]);
  const mine = engine.beam(board, schedule[0].attempt);
  const second = await theirs;
  await helper.terminate();
  assert.deepEqual([mine.attempt, second.attempt], [0, 1]);
  const answer = engine.solve(board, { beams: [mine, second] });
  check(answer, board, expected);
  assert.equal(answer.moves, engine.solve(board).moves);
  assert.equal(twoThreads.moves, expected.moves);
  assert.equal(twoThreads.expanded, expected.expanded);
  // Boards whose solve runs no pair, and misuse.
  assert.deepEqual(engine.beamSchedule(goal(3)), []);
  assert.deepEqual(engine.beamSchedule(engine.random(5, 5)), []);
  assert.deepEqual(engine.beamSchedule(board, { maxNodes: 1000 }), []);
  assert.equal(engine.beam(goal(3), 0), null);
  assert.equal(engine.beam(board, schedule.length), null);
  assert.throws(() => engine.beam(board, 1.5),
    /attempt: 1.5 is not one of the beams; give one engine.beamSchedule lists/);
  assert.throws(() => engine.solve(board, { beams: "all" }), /beams: give the outcomes engine.beam returned/);
  assert.throws(() => engine.solve(board, { beams: [{ ...mine, ending: "won" }] }),
    /beams: ending "won" is not one/);
});

test("misuse is refused in one line, and the engine keeps its tables", async () => {
  const tables = engine.buildTables("5-5-5");
  engine.useTables(tables, "5-5-5");
  const korf3 = "1 15 10 13 0 11 4 7 12 6 5 3 14 8 9 2";
  assert.equal(engine.solve(korf3).length, 59);
  // Out of time, an optimal search over the tables throws.
  const hard = "0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1";
  assert.throws(() => engine.solve(hard, { maxSeconds: 0.05 }), (e) => {
    assert.ok(e instanceof npuzzle.TimeLimitError, String(e));
    assert.equal(e.kind, "time_limit");
    assert.match(e.message, /time budget of 0.05 s/);
    return true;
  });
  // Options: unknown names, wrong types and ranges.
  assert.throws(() => engine.solve(korf3, { maxnodes: 5 }), /unknown option 'maxnodes'/);
  assert.throws(() => engine.hint(korf3, { fast: true }), /unknown option 'fast'/);
  assert.equal(engine.hint(korf3, { within: 40 }).move.length, 1);
  assert.throws(() => engine.solve(korf3, { within: 1.5 }), RangeError);
  assert.throws(() => engine.solve(korf3, { within: NaN }), RangeError);
  assert.throws(() => engine.solve(korf3, { within: "\u000020" }), RangeError);
  assert.throws(() => engine.solve(korf3, { fast: 1 }), TypeError);
  assert.throws(() => engine.solve(korf3, { goal: 4 }), TypeError);
  assert.equal(engine.solve("8 1 3 4 0 2 7 6 5", { maxNodes: 1e16 }).length, 14);
  assert.equal(engine.solve("8 1 3 4 0 2 7 6 5", null).length, 14);
  // Boards: NaN tiles get the engine's words, array-likes are boards.
  assert.throws(() => engine.solve([1, 2, NaN, 0]), (e) => e.kind === "invalid" && /tile number 3/.test(e.message));
  assert.equal(engine.solve({ length: 4, 0: 1, 1: 2, 2: 0, 3: 3 }).length, 1);
  assert.throws(() => engine.solve(new DataView(new ArrayBuffer(4))), TypeError);
  // Tables: one image instead of a list, a typo in the set's name, an
  // empty list, an image that is not a table: refused, the tables kept.
  assert.throws(() => engine.useTables(tables[0], "5-5-5"), TypeError);
  assert.throws(() => engine.useTables(tables, "5-5-6"), (e) => e.kind === "invalid");
  assert.throws(() => engine.useTables([], "5-5-5"), npuzzle.TablesError);
  assert.throws(() => engine.useTables([tables[0], tables[1], new Uint8Array(7)], "5-5-5"),
    (e) => e instanceof npuzzle.TablesError && /image 3 of 3/.test(e.message));
  const answer = engine.solve(korf3);
  assert.equal(answer.length, 59);
  assert.equal(answer.partition, "5-5-5");
  // Loading something else than the engine says so.
  await assert.rejects(npuzzle.load({ wasm: "/nonexistent/npuzzle.wasm" }),
    (e) => e.kind === "load" && /nonexistent/.test(e.message));
  await assert.rejects(npuzzle.load({ wasm: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }),
    (e) => e.kind === "load" && /not npuzzle's engine/.test(e.message));
});

test("a call from inside another is refused, and neither returns the other's record", () => {
  const original = performance.now;
  const nearBoard = "1 2 3 4 5 6 7 8 9 10 11 12 13 0 14 15";
  const before = engine.solve(nearBoard);
  const outerBoard = "8 1 3 4 0 2 7 6 5";
  const innerBoard = "1 2 3 4 5 6 0 7 8";
  let refused = null;
  let caughtAll = true;
  try {
    // The clock import is the engine's one way back into JavaScript.
    performance.now = function patched() {
      if (refused === null) {
        try {
          engine.solve(innerBoard);
          refused = false;
        } catch (error) {
          refused = error;
        }
      }
      return original.call(performance);
    };
    const record = engine.solve(outerBoard, { maxSeconds: 5 });
    assert.deepEqual(record.board, [8, 1, 3, 4, 0, 2, 7, 6, 5]);
    assert.deepEqual(replay(record.board, record.moves), goal(3));
    assert.ok(refused instanceof npuzzle.NpuzzleError, `inner call: ${refused}`);
    assert.equal(refused.kind, "busy");
    assert.match(refused.message, /already answering a call/);
    // Not caught inside: the outer call fails with the inner's error, and
    // the engine starts again with its tables.
    refused = null;
    caughtAll = false;
    performance.now = function throwing() {
      engine.solve(innerBoard);
      return original.call(performance);
    };
    assert.throws(() => engine.solve(outerBoard, { maxSeconds: 5 }),
      (error) => error.kind === "busy");
  } finally {
    performance.now = original;
  }
  assert.equal(caughtAll, false);
  const after = engine.solve(innerBoard);
  assert.deepEqual(after.board, [1, 2, 3, 4, 5, 6, 0, 7, 8]);
  assert.equal(after.length, 2);
  // The 4x4 tables given before (by the tests above) are in use after the
  // restart as they were before it.
  const near = engine.solve(nearBoard);
  assert.equal(near.length, 2);
  assert.equal(near.heuristic, before.heuristic);
  assert.equal(near.partition, before.partition);
});
