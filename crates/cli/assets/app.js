// npuzzle in the browser: the board, the player's moves, and the coach,
// which asks the engine for optimal solutions: in a Web Worker (worker.js,
// the static site of `cargo xtask web`) or over HTTP (`npuzzle serve`,
// docs/serve-api.md). See "The engine" below.
"use strict";

const $ = (id) => document.getElementById(id);
const boardEl = $("board");

const game = {
  size: 4,
  goal: "blank-last",
  tiles: [],       // tiles[cell] = tile number, 0 the blank
  start: [],       // the position Reset returns to
  moves: 0,
  startedAt: null, // the first move after a shuffle starts the clock
  elapsed: 0,
  plan: null,      // moves of an optimal solution from the current position
  planOptimal: false,
  distance: null,  // { exact, value }
  startDistance: null, // the optimal length from the position dealt, once known
  playing: null,   // { moves, index, timer } while a solution is shown
  picture: "picture.svg", // relative: the site works from a subfolder
  request: 0,      // newest coach request: older answers are dropped
};

// Tiles keyed by number, reused between renders so transitions animate.
let tileEls = new Map();

function goalTiles(n, goal) {
  const cells = n * n;
  return Array.from({ length: cells }, (_, i) =>
    goal === "blank-first" ? i : (i + 1) % cells);
}

function homeOf(tile) {
  const n = game.size;
  return game.goal === "blank-first" ? tile : (tile === 0 ? n * n - 1 : tile - 1);
}

function isSolved() {
  const goal = goalTiles(game.size, game.goal);
  return game.tiles.every((t, i) => t === goal[i]);
}

function blank() {
  return game.tiles.indexOf(0);
}

// --- Rendering -------------------------------------------------------------

function render() {
  const n = game.size;
  const solved = isSolved();
  boardEl.classList.toggle("solved", solved && game.tiles.length > 0);
  boardEl.dataset.state = solved ? "solved" : "playing";
  boardEl.dataset.tiles = game.tiles.join(",");
  // A hint shown is for the position it was asked at.
  delete boardEl.dataset.hint;
  const inner = boardEl.clientWidth - 2 * gap();
  const cell = inner / n;
  const wanted = new Set();
  // The focus on the board stays there when its tile goes (a new board).
  const focusOnBoard = boardEl.contains(document.activeElement);
  const roving = rovingTile();
  game.tiles.forEach((tile, index) => {
    if (tile === 0 && !solved) return;
    wanted.add(tile);
    let el = tileEls.get(tile);
    if (!el) {
      el = document.createElement("div");
      el.className = "tile";
      el.dataset.tile = String(tile);
      el.setAttribute("role", "button");
      const number = document.createElement("span");
      number.className = "number";
      number.textContent = tile === 0 ? "" : String(tile);
      el.appendChild(number);
      el.addEventListener("click", () => clickTile(tile));
      // A click slides; it does not take the focus, so that arrows pressed
      // after it still slide tiles instead of moving the focus.
      el.addEventListener("mousedown", (event) => event.preventDefault());
      // A tile focused by any means holds the board's tab stop.
      el.addEventListener("focus", () => {
        if (focusedTile === tile) return;
        focusedTile = tile;
        for (const [other, each] of tileEls) each.tabIndex = other === tile ? 0 : -1;
      });
      boardEl.appendChild(el);
      tileEls.set(tile, el);
    }
    const home = homeOf(tile);
    el.style.width = `${cell - gap()}px`;
    el.style.height = `${cell - gap()}px`;
    el.style.left = `${gap() + gap() / 2}px`;
    el.style.top = `${gap() + gap() / 2}px`;
    el.style.transform = `translate(${(index % n) * cell}px, ${Math.floor(index / n) * cell}px)`;
    el.style.backgroundImage = `url("${game.picture}")`;
    el.style.backgroundSize = `${inner}px ${inner}px`;
    el.style.backgroundPosition =
      `${-(home % n) * cell - gap() / 2}px ${-Math.floor(home / n) * cell - gap() / 2}px`;
    el.querySelector(".number").style.fontSize = `${Math.max(11, cell * 0.2)}px`;
    el.classList.remove("hint");
    const slide = slideOf(tile);
    el.setAttribute("aria-label", `${tile === 0 ? "the last piece" : `tile ${tile}`}, ` +
      `row ${Math.floor(index / n) + 1}, column ${(index % n) + 1}` +
      (slide ? `: slides ${WORDS[slide]}` : ""));
    el.tabIndex = tile === roving ? 0 : -1;
  });
  for (const [tile, el] of tileEls) {
    if (!wanted.has(tile)) { el.remove(); tileEls.delete(tile); }
  }
  if (focusOnBoard && !boardEl.contains(document.activeElement)) tileEls.get(roving)?.focus();
  $("moves").textContent = String(game.moves);
  renderTimer();
  $("board-text").placeholder = rowsText(game.tiles, n);
}

function gap() {
  return parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--gap")) || 3;
}

function rowsText(tiles, n) {
  const rows = [];
  for (let r = 0; r < n; r++) rows.push(tiles.slice(r * n, r * n + n).join(" "));
  return rows.join(" / ");
}

function renderTimer() {
  const total = game.elapsed + (game.startedAt ? Date.now() - game.startedAt : 0);
  const s = Math.floor(total / 1000);
  $("timer").textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
setInterval(renderTimer, 250);

// The message under the board; `kind` is "error" or "good".
function say(text, kind) {
  const el = $("message");
  el.textContent = text || "\u00a0";
  el.classList.toggle("error", kind === true || kind === "error");
  el.classList.toggle("good", kind === "good");
}

// The coach's one line, in plain words; `details` (what the coach knows
// and how) goes behind the "why?" toggle.
function showCoach(text, kind, details) {
  const el = $("coach");
  el.textContent = text || "\u00a0";
  el.title = text || "";
  el.className = `coach ${kind || ""}`;
  el.dataset.distance = game.distance && game.distance.exact ? String(game.distance.value) : "";
  el.dataset.bound = game.distance && !game.distance.exact ? String(game.distance.value) : "";
  const more = $("coach-more");
  more.hidden = !details;
  $("coach-details").textContent = details || "";
  if (!details) showDetails(false);
}

function showDetails(open) {
  $("coach-more").setAttribute("aria-expanded", String(open));
  $("coach-details").hidden = !open;
}

// --- Moves -----------------------------------------------------------------

// The cell of the tile that a move letter (tile notation) slides into the
// blank, or -1 if there is none.
function sourceOf(letter) {
  const n = game.size, b = blank(), r = Math.floor(b / n), c = b % n;
  switch (letter) {
    case "L": return c + 1 < n ? b + 1 : -1;
    case "R": return c > 0 ? b - 1 : -1;
    case "U": return r + 1 < n ? b + n : -1;
    case "D": return r > 0 ? b - n : -1;
  }
  return -1;
}

// The letter that slides the tile at `cell` (next to the blank) into it.
function letterFor(cell) {
  const n = game.size, b = blank();
  if (cell === b + 1 && cell % n !== 0) return "L";
  if (cell === b - 1 && b % n !== 0) return "R";
  if (cell === b + n) return "U";
  if (cell === b - n) return "D";
  return null;
}

function inverse(letter) {
  return { L: "R", R: "L", U: "D", D: "U" }[letter];
}

// Applies one move; `byPlayer` counts it and keeps the coach up to date.
function apply(letter, byPlayer) {
  const from = sourceOf(letter);
  if (from < 0) return false;
  const b = blank();
  game.tiles[b] = game.tiles[from];
  game.tiles[from] = 0;
  if (byPlayer) {
    if (!game.startedAt && game.moves === 0) game.startedAt = Date.now();
    game.moves += 1;
    if (game.plan && game.plan[0] === letter) {
      game.plan = game.plan.slice(1);
    } else {
      game.plan = null;
    }
  }
  return true;
}

function afterPlayerMoves() {
  stopPlaying(true);
  render();
  if (isSolved()) {
    if (game.startedAt) { game.elapsed += Date.now() - game.startedAt; game.startedAt = null; }
    renderTimer();
    game.distance = { exact: true, value: 0 };
    showCoach("Solved!", "solved");
    say(solvedText(), "good");
    return;
  }
  say("");
  coach();
}

// What the player is told on solving: the moves and time, and how that
// compares with the shortest solution when it is known.
function solvedText() {
  if (game.moves === 0) return "";
  const done = `Solved in ${game.moves} moves and ${$("timer").textContent}`;
  const best = game.startDistance;
  if (best === null) return `${done}.`;
  if (game.moves <= best) return `${done}: optimal!`;
  return `${done} (the shortest solution has ${best}).`;
}

const WORDS = { L: "left", R: "right", U: "up", D: "down" };

/** The way `tile` slides when clicked (with the tiles between it and the
 * blank), or null when it is not in the blank's row or column. */
function slideOf(tile) {
  const n = game.size, b = blank(), cell = game.tiles.indexOf(tile);
  if (tile === 0 || cell < 0 || isSolved()) return null;
  if (Math.floor(cell / n) === Math.floor(b / n)) return cell > b ? "L" : "R";
  if (cell % n === b % n) return cell > b ? "U" : "D";
  return null;
}

function clickTile(tile) {
  if (swiped) { swiped = false; return; }
  if (game.playing) stopPlaying(true);
  const letter = slideOf(tile);
  if (!letter) return;
  const n = game.size, b = blank(), cell = game.tiles.indexOf(tile);
  // Slide the tiles between, nearest to the blank first.
  const count = letter === "L" || letter === "R" ? Math.abs(cell - b) : Math.abs(cell - b) / n;
  for (let i = 0; i < count; i++) apply(letter, true);
  afterPlayerMoves();
}

// Keyboard play on the board itself: one tile is in the tab order (a
// roving tab index); arrows move the focus between tiles, Enter or Space
// slides the focused one. Arrows pressed elsewhere move a tile into the
// blank, as before.
let focusedTile = null;

/** The tile that holds the board's tab stop: the one last focused, else
 * one next to the blank. */
function rovingTile() {
  if (focusedTile !== null && game.tiles.includes(focusedTile) &&
      (focusedTile !== 0 || isSolved())) return focusedTile;
  const movable = game.tiles.find((tile) => slideOf(tile));
  return movable === undefined ? game.tiles[0] : movable;
}

/** Moves the focus from `tile` to the next tile `key`'s way (over the
 * blank), if there is one. */
function roveFrom(tile, key) {
  const n = game.size;
  const step = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }[key];
  let cell = game.tiles.indexOf(tile);
  let row = Math.floor(cell / n), col = cell % n;
  for (;;) {
    row += step[0];
    col += step[1];
    if (row < 0 || col < 0 || row >= n || col >= n) return;
    cell = row * n + col;
    const next = game.tiles[cell];
    if (next !== 0 || isSolved()) {
      focusTile(next);
      return;
    }
  }
}

function focusTile(tile) {
  focusedTile = tile;
  for (const [other, el] of tileEls) el.tabIndex = other === tile ? 0 : -1;
  tileEls.get(tile)?.focus();
}

const KEYS = {
  ArrowLeft: "L", ArrowRight: "R", ArrowUp: "U", ArrowDown: "D",
  a: "L", d: "R", w: "U", s: "D", A: "L", D: "R", W: "U", S: "D",
};

document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" ||
      target.tagName === "SELECT")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if ($("board-dialog").open) return;
  if (event.key === "h" || event.key === "H") { hint(); event.preventDefault(); return; }
  const onTile = target?.classList?.contains("tile") && target.matches(":focus-visible");
  if (onTile && event.key.startsWith("Arrow")) {
    event.preventDefault();
    roveFrom(Number(target.dataset.tile), event.key);
    return;
  }
  if (onTile && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    focusedTile = Number(target.dataset.tile);
    clickTile(focusedTile);
    return;
  }
  const letter = KEYS[event.key];
  if (!letter) return;
  event.preventDefault();
  if (game.playing) stopPlaying(true);
  if (apply(letter, true)) afterPlayerMoves();
});

// A swipe on the board slides the tile next to the blank that way.
let touchStart = null;
let swiped = false;
boardEl.addEventListener("touchstart", (event) => {
  const t = event.changedTouches[0];
  touchStart = { x: t.clientX, y: t.clientY };
  swiped = false;
}, { passive: true });
boardEl.addEventListener("touchend", (event) => {
  if (!touchStart) return;
  const t = event.changedTouches[0];
  const dx = t.clientX - touchStart.x, dy = t.clientY - touchStart.y;
  touchStart = null;
  const reach = Math.max(Math.abs(dx), Math.abs(dy));
  if (reach < 24) return;
  const letter = Math.abs(dx) > Math.abs(dy) ? (dx < 0 ? "L" : "R") : (dy < 0 ? "U" : "D");
  swiped = true;
  event.preventDefault();
  if (game.playing) stopPlaying(true);
  if (apply(letter, true)) afterPlayerMoves();
});

// --- The engine --------------------------------------------------------------

// Who answers the coach's questions (index.html says): "wasm", the engine
// in a Web Worker (worker.js: the static site of `cargo xtask web`), or
// "server", the HTTP API of `npuzzle serve` (docs/serve-api.md), which
// serves this page with its meta tag rewritten. Both give the same calls
// and the same records (in JavaScript's names: lowerBound, upperBound):
//
//   engine.random(size, goal)  -> { board, size, goal }
//   engine.check(board, goal)  -> { solvable, solved, board, size, distance, lowerBound, upperBound }
//   engine.hint(board, goal), engine.solve(board, goal)
//                              -> { type: "solution", moves, length, optimal, lowerBound, ... },
//                                 { type: "unsolvable" } or { type: "refused", reason }
//   engine.cancel(force)       questions still unanswered are dropped (they reject
//                              with a Cancelled error); a search running is stopped:
//                              always with `force` (a new board), else only a long one
const MODE = (document.querySelector('meta[name="npuzzle-engine"]')?.content || "server").trim();

class Cancelled extends Error {
  constructor() { super("the question was dropped for a newer one"); this.name = "Cancelled"; }
}

/** A record in JavaScript's names (the server's are snake_case). */
function camel(record) {
  if (!record || typeof record !== "object") return record;
  const out = {};
  for (const [key, value] of Object.entries(record)) {
    out[key.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = value;
  }
  return out;
}

function serverEngine() {
  const running = new Set();
  async function api(path, body) {
    const controller = new AbortController();
    running.add(controller);
    try {
      const response = await fetch(path, {
        signal: controller.signal,
        ...(body === undefined ? {} : {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }),
      });
      let record;
      try { record = await response.json(); } catch { record = null; }
      if (!record) throw new Error(`the server answered ${response.status}`);
      if (record.type === "error") throw new Error(record.error);
      return camel(record);
    } catch (error) {
      if (error.name === "AbortError") throw new Cancelled();
      throw error;
    } finally {
      running.delete(controller);
    }
  }
  // Paths without a leading "/": the page works from a subfolder too.
  return {
    mode: "server",
    random: (size, goal) => api(`api/random?size=${size}&goal=${goal}`),
    check: (board, goal) => api("api/check", { board, goal }),
    hint: (board, goal) => api("api/hint", { board, goal }),
    solve: (board, goal, anytime) => api("api/solve", { board, goal, anytime }),
    // A request aborted is a search the server stops (the client hung up).
    cancel() {
      for (const controller of running) controller.abort();
      running.clear();
    },
  };
}

// Solutions known, as the server keeps them: every position along a
// solution found is answered from it (the rest of its moves), with no
// search, so a player who follows the hints keeps to one plan.
const KNOWN_MAX = 100000;

function knownKey(tiles, goal) {
  return `${goal}:${tiles.join(",")}`;
}

/** The tiles after `letter` (tile notation) on a board of side `n`. */
function slid(tiles, n, letter) {
  const b = tiles.indexOf(0), r = Math.floor(b / n), c = b % n;
  const from = { L: c + 1 < n ? b + 1 : -1, R: c > 0 ? b - 1 : -1,
    U: r + 1 < n ? b + n : -1, D: r > 0 ? b - n : -1 }[letter];
  if (from === undefined || from < 0) return null;
  const after = tiles.slice();
  after[b] = after[from];
  after[from] = 0;
  return after;
}

/** Manhattan distance plus linear conflicts: the engine's lower bound for
 * boards without tables (what its check answers past 4x4). */
function lowerBound(tiles, goal) {
  const cells = tiles.length, n = Math.round(Math.sqrt(cells));
  const home = (t) => (goal === "blank-first" ? t : t - 1);
  const longest = (seq) => {
    const tails = [];
    for (const x of seq) {
      let lo = 0, hi = tails.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (tails[mid] < x) lo = mid + 1; else hi = mid; }
      tails[lo] = x;
    }
    return tails.length;
  };
  let bound = 0;
  for (let i = 0; i < cells; i++) {
    const t = tiles[i];
    if (t === 0) continue;
    const h = home(t);
    bound += Math.abs(Math.floor(h / n) - Math.floor(i / n)) + Math.abs((h % n) - (i % n));
  }
  for (let line = 0; line < n; line++) {
    const row = [], col = [];
    for (let k = 0; k < n; k++) {
      const a = tiles[line * n + k], b = tiles[k * n + line];
      if (a !== 0 && Math.floor(home(a) / n) === line) row.push(home(a) % n);
      if (b !== 0 && home(b) % n === line) col.push(Math.floor(home(b) / n));
    }
    bound += 2 * (row.length - longest(row)) + 2 * (col.length - longest(col));
  }
  return bound;
}

function wasmEngine(hooks) {
  let worker = null;
  let module = null;     // the compiled engine, handed to each new worker
  let sent = Promise.resolve(); // the worker's "init" posted: questions follow it
  let fatal = null;      // why the engine cannot start, once known
  let ready = false;
  let preparing = false; // tables being built: kept as they come, worth finishing
  let nextId = 0;
  const pending = new Map(); // id -> { resolve, reject, long }
  const known = new Map();   // position -> { record, index }: solutions found
  const checked = new Map(); // position -> check record (past 4x4, seconds each)
  const asking = new Map();  // op and position -> the answer under way

  function start() {
    ready = false;
    preparing = false;
    // The first worker and compile were started by the page's head.
    const head = window.npuzzleStart;
    window.npuzzleStart = null;
    try {
      worker = head ? head.worker : new Worker("worker.js", { type: "module" });
      root.dataset.workers = String(Number(root.dataset.workers || 0) + 1);
    } catch (error) {
      fail(error.message);
      return;
    }
    const onError = (event) => {
      event.preventDefault();
      if (ready) {
        // A worker that ran and stopped: the questions asked are lost, a
        // new worker takes the next ones.
        const lost = [...pending.values()];
        pending.clear();
        worker.terminate();
        worker = null;
        for (const p of lost) p.reject(new Error(`the coach stopped (${event.message || "worker error"})`));
      } else {
        fail(event.message || "its Web Worker (worker.js) did not load");
      }
    };
    worker.addEventListener("message", (event) => receive(event.data));
    worker.addEventListener("error", onError);
    if (!head) {
      worker.postMessage({ op: "init", module });
      sent = Promise.resolve();
      return;
    }
    worker.onmessage = worker.onerror = null;
    for (const event of head.early) {
      if (event.type === "error") onError(event);
      else receive(event.data);
    }
    if (!worker) return; // it failed to load
    const started = worker;
    sent = head.compiled.then((compiled) => started.postMessage({ op: "init", module: compiled }));
  }

  function fail(message) {
    fatal = message;
    if (worker) worker.terminate();
    worker = null;
    const lost = [...pending.values()];
    pending.clear();
    for (const p of lost) p.reject(new Error(message));
    hooks.onFatal(message);
  }

  function receive(message) {
    if (message.type === "ready") {
      ready = true;
      if (message.module) module = message.module;
      hooks.onReady();
    } else if (message.type === "fatal") {
      fail(message.message);
    } else if (message.type === "progress") {
      preparing = true;
      hooks.onProgress(message);
    } else if (message.type === "tables") {
      preparing = false;
      hooks.onTables(message);
    } else {
      const p = pending.get(message.id);
      if (!p) return;
      pending.delete(message.id);
      if (message.ok) {
        p.resolve(message.record);
      } else {
        const error = new Error(message.error.message);
        error.name = message.error.name;
        p.reject(error);
      }
    }
  }

  function ask(op, fields, long) {
    if (fatal) return Promise.reject(new Error(fatal));
    if (!worker) start();
    if (fatal) return Promise.reject(new Error(fatal));
    return new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject, long });
      const asked = worker;
      sent.then(() => asked.postMessage({ id, op, ...fields }));
    });
  }

  function remember(record, goal) {
    if (!record || record.type !== "solution" || !Array.isArray(record.board)) return;
    const n = record.size;
    let tiles = record.board.slice();
    for (let i = 0; i <= record.moves.length && tiles; i++) {
      const key = knownKey(tiles, goal);
      const old = known.get(key);
      const left = record.moves.length - i;
      if (!old || (record.optimal && !old.record.optimal) ||
          old.record.moves.length - old.index > left) {
        known.delete(key);
        known.set(key, { record, index: i });
      }
      if (i < record.moves.length) tiles = slid(tiles, n, record.moves[i]);
    }
    while (known.size > KNOWN_MAX) known.delete(known.keys().next().value);
  }

  function recall(tiles, goal) {
    const entry = known.get(knownKey(tiles, goal));
    if (!entry) return null;
    const { record, index } = entry;
    const moves = record.moves.slice(index);
    const bound = record.optimal ? null
      : Math.max(index === 0 ? record.lowerBound || 0 : 0, lowerBound(tiles, goal));
    return {
      ...record, board: tiles.slice(), length: moves.length, moves, move: moves[0] || null,
      lowerBound: bound, initialEstimate: index === 0 ? record.initialEstimate : null,
      expanded: 0, generated: 0, seconds: 0, note: "the best solution known",
    };
  }

  const isLong = (board) => !Array.isArray(board) || board.length > 16;

  async function solution(op, board, goal, anytime) {
    // Time given for a shorter answer than those known searches.
    const found = anytime ? null : recall(board, goal);
    // A 4x4 solution to play is a shortest one: proven if not yet.
    if (found && !found.optimal && op === "solve" && board.length === 16) {
      return prove(board, goal);
    }
    if (found) return found;
    // A hint asked while the coach's question on the same position is
    // under way waits for that answer instead of a second search.
    const key = `${op}:${knownKey(board, goal)}${anytime ? `:${anytime}` : ""}`;
    if (asking.has(key)) return asking.get(key);
    const fields = { board: board.slice(), goal, ...(anytime ? { anytime } : {}) };
    let asked;
    if (op === "hint" && board.length === 16) {
      fields.exactSeconds = hooks.exactSeconds();
      asked = askLatest(op, fields);
    } else {
      asked = ask(op, fields, isLong(board));
    }
    const answer = asked.then((record) => {
      remember(record, goal);
      return record;
    });
    asking.set(key, answer);
    const forget = () => asking.delete(key);
    answer.then(forget, forget);
    return answer;
  }

  // 4x4 hints take up to 0.5 s each: one at a time goes to the worker, and
  // of those asked meanwhile only the newest waits (the older ones are for
  // positions the player left). The worker counts the wait against the
  // hint's search for a shortest solution (askedAt), so the position on
  // screen is answered within a second of being asked.
  let hintInFlight = false;
  let heldHint = null; // { op, fields, resolve, reject }

  function askLatest(op, fields) {
    fields.askedAt = performance.timeOrigin + performance.now();
    if (!hintInFlight) return sendHint(op, fields);
    if (heldHint) {
      heldHint.reject(new Cancelled());
      root.dataset.hintsDropped = String(Number(root.dataset.hintsDropped || 0) + 1);
    }
    return new Promise((resolve, reject) => {
      heldHint = { op, fields, resolve, reject };
    });
  }

  function sendHint(op, fields) {
    hintInFlight = true;
    const answer = ask(op, fields, false);
    const next = () => {
      hintInFlight = false;
      const held = heldHint;
      heldHint = null;
      if (held) sendHint(held.op, held.fields).then(held.resolve, held.reject);
    };
    answer.then(next, next);
    return answer;
  }

  // The prover: another worker that searches a 4x4 position's shortest
  // solution after the coach answered it with a good move (seconds, up to
  // a minute on the hardest boards), ended when the player leaves the
  // position. It takes the tables the first worker kept in IndexedDB.
  let prover = null; // { worker, key, promise, reject }

  function prove(board, goal) {
    const key = knownKey(board, goal);
    const found = recall(board, goal);
    if (found && found.optimal) return Promise.resolve(found);
    if (prover && prover.key === key) return prover.promise;
    stopProving();
    let worker;
    try {
      worker = new Worker("worker.js", { type: "module" });
    } catch (error) {
      return Promise.reject(error);
    }
    root.dataset.provers = String(Number(root.dataset.provers || 0) + 1);
    const started = { worker, key };
    started.promise = new Promise((resolve, reject) => {
      started.reject = reject;
      worker.addEventListener("message", (event) => {
        const message = event.data;
        if (message.type === "fatal") reject(new Error(message.message));
        if (message.id !== 1) return;
        if (!message.ok) {
          const error = new Error(message.error.message);
          error.name = message.error.name;
          reject(error);
          return;
        }
        remember(message.record, goal);
        resolve(message.record);
      });
      worker.addEventListener("error", (event) => {
        event.preventDefault();
        reject(new Error(`the coach stopped (${event.message || "worker error"})`));
      });
    });
    const done = () => {
      if (prover !== started) return;
      worker.terminate();
      prover = null;
    };
    started.promise.then(done, done);
    worker.postMessage({ op: "init", module });
    worker.postMessage({ id: 1, op: "hint", board: board.slice(), goal, exactSeconds: null });
    prover = started;
    return started.promise;
  }

  /** Ends the prover, unless it works on `keep` (a position key). */
  function stopProving(keep) {
    if (!prover || prover.key === keep) return;
    prover.worker.terminate();
    prover.reject(new Cancelled());
    prover = null;
  }

  return {
    mode: "wasm",
    get ready() { return ready; },
    start() { if (!worker && !fatal) start(); },
    random: (size, goal) => ask("random", { size, goal }, false),
    async check(board, goal) {
      const found = Array.isArray(board) ? recall(board, goal) : null;
      if (found) {
        return {
          type: "check", board: board.slice(), size: found.size, goal, solvable: true,
          solved: found.length === 0, distance: found.optimal ? found.length : null,
          lowerBound: found.optimal ? found.length : found.lowerBound, upperBound: found.length,
        };
      }
      const key = Array.isArray(board) ? knownKey(board, goal) : null;
      if (key && checked.has(key)) return checked.get(key);
      const record = await ask("check", { board: Array.isArray(board) ? board.slice() : board, goal },
        isLong(board));
      if (key && isLong(board)) {
        checked.set(key, record);
        if (checked.size > 1000) checked.delete(checked.keys().next().value);
      }
      return record;
    },
    hint: (board, goal) => solution("hint", board, goal),
    solve: (board, goal, anytime) => solution("solve", board, goal, anytime),
    prove,
    stopProving: (board, goal) => stopProving(board ? knownKey(board, goal) : undefined),
    cancel(force) {
      if (force && heldHint) {
        heldHint.reject(new Cancelled());
        heldHint = null;
      }
      if (!worker || pending.size === 0) return;
      const long = [...pending.values()].some((p) => p.long);
      if (!force && (preparing || !long)) return;
      // The engine's calls are synchronous: the one way to stop a search
      // is to end its worker. The next one starts with the compiled
      // engine, and takes the tables kept in IndexedDB.
      worker.terminate();
      worker = null;
      const dropped = [...pending.values()];
      pending.clear();
      for (const p of dropped) p.reject(new Cancelled());
      start();
    },
  };
}

// The engine when it cannot start: boards are dealt here, and the coach
// is silent.
function localRandom(size, goal) {
  const cells = size * size;
  const tiles = Array.from({ length: cells }, (_, i) => i);
  for (let i = cells - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  // Solvable when the permutation's parity matches the blank's distance
  // from its place: else swap two tiles (not the blank).
  const home = (t) => (goal === "blank-first" ? t : (t === 0 ? cells - 1 : t - 1));
  const place = tiles.map(home);
  let parity = 0;
  const seen = new Array(cells).fill(false);
  for (let i = 0; i < cells; i++) {
    if (seen[i]) continue;
    let length = 0;
    for (let j = i; !seen[j]; j = place[j]) { seen[j] = true; length++; }
    parity ^= (length - 1) & 1;
  }
  const b = tiles.indexOf(0), h = home(0);
  const blankParity = (Math.abs(Math.floor(b / size) - Math.floor(h / size)) +
    Math.abs((b % size) - (h % size))) & 1;
  if (parity !== blankParity) {
    const [i, j] = [0, 1, 2].filter((k) => tiles[k] !== 0).slice(0, 2);
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  return { board: tiles, size, goal };
}

const root = document.documentElement;
root.dataset.engine = MODE;
root.dataset.engineState = "starting";

const engine = MODE === "wasm" ? wasmEngine({
  onReady() {
    root.dataset.engineState = "ready";
  },
  onFatal(message) {
    root.dataset.engineState = "failed";
    const status = $("engine-status");
    status.textContent = location.protocol === "file:"
      ? "This page was opened from a file, and the browser does not let such a page start " +
        "the coach (a Web Worker running WebAssembly). Serve the folder instead: run " +
        "`python3 -m http.server` in it and open http://localhost:8000/ " +
        `(the browser said: ${message})`
      : `The coach could not start: ${message}. Reload the page; if it stays, serve the ` +
        "folder with a static file server (for example `python3 -m http.server` in it).";
    status.hidden = false;
    noCoach();
  },
  onProgress(message) {
    root.dataset.tablesProgress = `${message.step}/${message.count}`;
    // Tables asked for by a 4x4 board that was then refused: the line
    // describes the board on screen.
    if (game.size !== 4) return;
    game.distance = null;
    showCoach(message.text, "busy",
      "The first 4x4 game builds the coach's tables (a few seconds, once): they are kept " +
      "in this browser, so the next games, and games offline, start at once.");
  },
  /** How long a 4x4 hint looks for a shortest solution before it gives a
   * good move (the worker's default; a test may set
   * window.npuzzleExactSeconds to see the good move at once). */
  exactSeconds() {
    const seconds = window.npuzzleExactSeconds;
    return typeof seconds === "number" ? seconds : undefined;
  },
  onTables(message) {
    root.dataset.tablesProgress = "";
    root.dataset.tables = message.source;
    if (message.source === "built") {
      root.dataset.tablesBuilt = String(Number(root.dataset.tablesBuilt || 0) + 1);
      // A kept copy the engine refused (damaged, partial): built again.
      if (message.rebuilt) root.dataset.tablesRebuilt = "true";
    }
  },
}) : serverEngine();

if (MODE !== "wasm") root.dataset.engineState = "ready";

function cancelled(error) {
  return error instanceof Cancelled;
}

/** Whether the coach cannot start (the notice at the top says why): the
 * game is then played without it. */
function noCoach() {
  if (root.dataset.engineState !== "failed") return false;
  game.distance = null;
  showCoach("No coach: see the note at the top", "bound");
  return true;
}

/** A new question about the position: older answers are dropped, and a
 * long search for them is stopped. */
function newRequest() {
  engine.cancel(false);
  engine.stopProving?.(game.tiles, game.goal);
  return ++game.request;
}

/** A new board: whatever the engine is doing is dropped. */
function newBoard() {
  engine.cancel(true);
  engine.stopProving?.();
  return ++game.request;
}

/** A 4x4 position the coach answered with a good move: its shortest
 * solution is searched in the background, and the coach's line (and a
 * hint shown) updated when it is proven, if the player is still there. */
async function proveInBackground(id) {
  if (!engine.prove || game.size !== 4 || !game.plan || game.planOptimal) return;
  try {
    const record = await engine.prove(game.tiles.slice(), game.goal);
    if (id !== game.request) return;
    const hinted = boardEl.dataset.hint;
    if (!takeSolution(record)) return;
    if (hinted) showHint();
  } catch (error) {
    if (id !== game.request || cancelled(error)) return;
    // The good move stands; the proof is tried again at the next position.
    say(`The coach could not prove the shortest solution: ${error.message}`, true);
  }
}

/** What the coach says while it searches: boards past 4x4 take seconds in
 * the browser. */
function thinking() {
  return MODE === "wasm" && game.size > 4 ? "Searching (seconds on a big board)\u2026"
    : "Thinking\u2026";
}

// Asks how far the position is from solved, and keeps the plan for hints.
async function coach() {
  const id = newRequest();
  const tiles = game.tiles.slice();
  if (game.plan && game.planOptimal) {
    showDistance(game.plan.length);
    return;
  }
  game.plan = null;
  game.distance = null;
  if (noCoach()) return;
  showCoach(thinking());
  try {
    if (game.size <= 4) {
      const record = await engine.hint(tiles, game.goal);
      if (id !== game.request) return;
      if (takeSolution(record)) proveInBackground(id);
    } else {
      const record = await engine.check(tiles, game.goal);
      if (id !== game.request) return;
      if (record.distance !== null) {
        showDistance(record.distance);
      } else {
        showBound(record.lowerBound, record.upperBound);
      }
    }
  } catch (error) {
    if (id !== game.request || cancelled(error)) return;
    showCoach("");
    say(error.message, true);
  }
}

// Shows what is known when the exact distance is not: a lower bound, and
// the length of a solution found.
function showBound(lower, known) {
  game.distance = { exact: false, value: lower };
  const n = game.size;
  if (n === 4 && known && engine.prove) {
    // The prover is at work (proveInBackground).
    showCoach(`${lower} to ${known} moves (proving\u2026)`,
      "bound",
      "The shortest solution of this board takes the coach more than a second to find " +
      `(up to a minute on the hardest boards). Meanwhile: no solution has fewer than ` +
      `${lower} moves, one of ${known} moves is known, and hints are its moves: good moves, ` +
      "not proven shortest. The line changes when the shortest is proven.");
    return;
  }
  showCoach(known ? `About ${known} moves from solved (at least ${lower})`
    : `At least ${lower} moves from solved`, "bound",
    `The shortest solution of a ${n}x${n} board can take too long to find, so the coach ` +
    `gives a lower bound: no solution has fewer than ${lower} moves` +
    (known ? `. The best solution found has ${known} moves; Hint and Solve follow it.` : "."));
}

// Shows an exact distance to solved.
function showDistance(d) {
  game.distance = { exact: true, value: d };
  if (game.moves === 0 && sameTiles(game.tiles, game.start)) game.startDistance = d;
  showCoach(d === 0 ? "Solved!" : distanceText(d), d === 0 ? "solved" : "exact",
    d === 0 ? "" : `The shortest solution from here has exactly ${d} moves: ` +
      "every hint is a move of one of them.");
}

function sameTiles(a, b) {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function distanceText(d) {
  return d === 0 ? "Solved!" : d === 1 ? "1 move from solved" : `${d} moves from solved`;
}

// Reads a solution record: the coach's distance and the plan for hints.
function takeSolution(record) {
  if (record.type === "solution") {
    game.plan = record.moves.split("");
    game.planOptimal = record.optimal;
    if (record.optimal) {
      showDistance(record.length);
    } else {
      showBound(record.lowerBound, record.length);
    }
    return true;
  }
  if (record.type === "refused") {
    showCoach("Too hard to solve here", "bound", record.reason);
    say("This position is too hard for the server's search budget.", true);
  } else if (record.type === "unsolvable") {
    showCoach("This board cannot be solved", "bound", UNSOLVABLE);
  }
  return false;
}

const UNSOLVABLE = "No series of slides turns this board into the picture: it is the " +
  "picture with two tiles swapped, in effect, and slides never undo a swap. (Each slide " +
  "changes both the order of the tiles and the blank's place by one step, so their parities " +
  "stay in step; here they are out of step.)";

async function hint() {
  if (isSolved() || game.tiles.length === 0) return;
  if (!game.plan) {
    if (noCoach()) return;
    const id = newRequest();
    // What the coach knows of this position stays on its line meanwhile.
    if (game.distance) say(thinking()); else showCoach(thinking());
    try {
      const record = await engine.hint(game.tiles.slice(), game.goal);
      // An answer for a position the player has left is dropped.
      if (id !== game.request) return;
      if (!takeSolution(record)) return;
      proveInBackground(id);
    } catch (error) {
      if (id !== game.request || cancelled(error)) return;
      say(error.message, true);
      return;
    }
  }
  showHint();
}

/** Marks the plan's next move on the board and says it. */
function showHint() {
  if (!game.plan || game.plan.length === 0) return;
  const letter = game.plan[0];
  const cell = sourceOf(letter);
  const tile = game.tiles[cell];
  const el = tileEls.get(tile);
  if (el) el.classList.add("hint");
  say(`Hint: slide ${tile} ${WORDS[letter]}` +
    (game.planOptimal ? " (a move of a shortest solution)" : " (a good move, not proven shortest)"));
  boardEl.dataset.hint = letter;
}

// --- The solution player ---------------------------------------------------

async function solve() {
  if (isSolved()) return;
  stopPlaying(true);
  if (noCoach()) return;
  const id = newRequest();
  const anytime = game.size >= 5 ? Number($("think").value) || undefined : undefined;
  say(anytime ? `Solving\u2026 (up to ${anytime} s, for a shorter solution)`
    : MODE === "wasm" && game.size > 4 ? "Solving\u2026 (seconds on a big board)"
      : engine.prove && game.size === 4 && !game.planOptimal
        ? "Solving\u2026 (up to a minute on the hardest 4x4 boards)" : "Solving\u2026");
  let record;
  try {
    record = await engine.solve(game.tiles.slice(), game.goal, anytime);
  } catch (error) {
    if (id !== game.request || cancelled(error)) return;
    say(error.message, true);
    return;
  }
  if (id !== game.request) return;
  if (!takeSolution(record)) return;
  const moves = record.moves.split("");
  say(record.optimal
    ? `A shortest solution: ${moves.length} moves.`
    : anytime ? `A ${moves.length}-move solution, the shortest found in ` +
        `${Math.round(record.seconds)} s (the shortest of all would take too long to find).`
      : `A ${moves.length}-move solution (the shortest would take too long to find).`);
  game.playing = { moves, index: 0, timer: null, paused: false };
  $("player").hidden = false;
  updateProgress();
  play();
}

function delay() {
  return Math.round(1000 / Math.pow(1.6, Number($("speed").value) - 1));
}

function play() {
  const p = game.playing;
  if (!p) return;
  p.paused = false;
  $("play").textContent = "Pause";
  clearTimeout(p.timer);
  const tick = () => {
    if (!game.playing || p.paused) return;
    if (!stepForward()) { p.paused = true; $("play").textContent = "Play"; return; }
    p.timer = setTimeout(tick, delay());
  };
  p.timer = setTimeout(tick, delay());
}

function pause() {
  const p = game.playing;
  if (!p) return;
  p.paused = true;
  clearTimeout(p.timer);
  $("play").textContent = "Play";
}

function stepForward() {
  const p = game.playing;
  if (!p || p.index >= p.moves.length) return false;
  apply(p.moves[p.index], false);
  p.index += 1;
  game.plan = p.moves.slice(p.index);
  render();
  updateProgress();
  if (isSolved()) {
    if (game.startedAt) { game.elapsed += Date.now() - game.startedAt; game.startedAt = null; }
    game.distance = { exact: true, value: 0 };
    showCoach("Solved!", "solved");
  } else if (game.planOptimal) {
    showDistance(game.plan.length);
  }
  return p.index < p.moves.length;
}

function stepBack() {
  const p = game.playing;
  if (!p || p.index === 0) return;
  pause();
  p.index -= 1;
  apply(inverse(p.moves[p.index]), false);
  game.plan = p.moves.slice(p.index);
  render();
  updateProgress();
  if (game.planOptimal) showDistance(game.plan.length);
}

function updateProgress() {
  const p = game.playing;
  $("progress").textContent = p ? `move ${p.index} of ${p.moves.length}` : "";
  $("progress").dataset.index = p ? String(p.index) : "";
}

function stopPlaying(hide) {
  if (!game.playing) return;
  clearTimeout(game.playing.timer);
  game.playing = null;
  if (hide) $("player").hidden = true;
}

// --- Positions ---------------------------------------------------------------

function setPosition(tiles, size, goal) {
  newBoard();
  stopPlaying(true);
  if (size !== game.size) {
    for (const el of tileEls.values()) el.remove();
    tileEls = new Map();
  }
  game.size = size;
  $("think-label").hidden = size < 5;
  game.goal = goal || game.goal;
  game.tiles = tiles.slice();
  game.start = tiles.slice();
  game.moves = 0;
  game.elapsed = 0;
  game.startedAt = null;
  game.plan = null;
  game.startDistance = null;
  $("size").value = String(size);
  render();
  say("");
  if (isSolved()) {
    game.distance = { exact: true, value: 0 };
    showCoach("Solved!", "solved");
  } else {
    coach();
  }
}

async function shuffle() {
  const id = newBoard();
  stopPlaying(true);
  const size = Number($("size").value);
  let record;
  try {
    record = await engine.random(size, game.goal);
  } catch (error) {
    if (id !== game.request || cancelled(error)) return;
    if (root.dataset.engineState !== "failed") { say(error.message, true); return; }
    // No engine: a board dealt here, to play without the coach.
    record = localRandom(size, game.goal);
  }
  if (id !== game.request) return;
  setPosition(record.board, record.size, record.goal);
}

// Sets the board `text` names; on a problem, says it (where `tell` says)
// and keeps the current board. True when set, false on a problem, null
// when a newer board came first.
async function setBoardFromText(text, goal, tell) {
  const report = tell || ((message) => say(message, true));
  const id = newBoard();
  try {
    const record = await engine.check(text, goal || game.goal);
    if (id !== game.request) return null;
    if (!record.solvable) {
      report("That board cannot be solved: no series of slides turns it into the picture " +
        "(it is the picture with two tiles swapped, in effect).");
      return false;
    }
    setPosition(record.board, record.size, record.goal);
    return true;
  } catch (error) {
    if (id !== game.request || cancelled(error)) return null;
    report(error.message);
    return false;
  }
}

function dialogSay(text, error) {
  const el = $("board-dialog-message");
  el.textContent = text || "\u00a0";
  el.classList.toggle("error", !!error);
}

function openBoardDialog() {
  $("board-text").value = "";
  $("board-text").placeholder = rowsText(game.tiles, game.size);
  dialogSay("");
  $("board-dialog").showModal();
}

async function setBoardFromDialog() {
  const ok = await setBoardFromText($("board-text").value, game.goal,
    (message) => dialogSay(message, true));
  if (ok) $("board-dialog").close();
}

// Loads the position a link names (#board=...&goal=..., or #size=N): at
// start, and when the link changes in an open tab. A bad link says why and
// keeps the board on screen (a first visit gets a shuffled one).
async function loadFromHash(first) {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const goal = params.get("goal") || "blank-last";
  if (params.has("board")) {
    if (!params.get("board").trim()) {
      if (first) await shuffle();
      say("The link's board was not loaded: the link names no tiles (board=1,2,3,...).", true);
      return;
    }
    let problem = null;
    const ok = await setBoardFromText(params.get("board"), goal,
      (message) => { problem = message; });
    if (ok !== false) return;
    if (first) await shuffle();
    say(`The link's board was not loaded: ${problem}`, true);
    return;
  }
  if (params.get("size")) {
    $("size").value = params.get("size");
    if ($("size").value !== params.get("size")) {
      if (first) await shuffle();
      say(`The link asks for size ${params.get("size")}; the game has 2x2 to 8x8.`, true);
      return;
    }
    await shuffle();
    return;
  }
  if (first) await shuffle();
}

function share() {
  const url = new URL(window.location.href);
  url.hash = `board=${game.tiles.join(",")}` + (game.goal !== "blank-last" ? `&goal=${game.goal}` : "");
  history.replaceState(null, "", url);
  const text = url.toString();
  const tell = (message) => { say(message); dialogSay(message); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(() => tell(`Link copied: ${text}`),
      () => tell(`Link: ${text}`));
  } else {
    tell(`Link: ${text}`);
  }
}

function loadPicture(file) {
  if (!file) return;
  const reader = new FileReader();
  reader.onload = () => {
    const image = new Image();
    image.onload = () => {
      // Crop the middle square and scale it once, here in the browser.
      const side = Math.min(image.naturalWidth, image.naturalHeight);
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1024;
      canvas.getContext("2d").drawImage(image,
        (image.naturalWidth - side) / 2, (image.naturalHeight - side) / 2, side, side,
        0, 0, 1024, 1024);
      game.picture = canvas.toDataURL("image/jpeg", 0.92);
      $("preview").src = game.picture;
      render();
      say(`Picture: ${file.name}`);
    };
    image.onerror = () => say(`${file.name} is not an image this browser can read.`, true);
    image.src = reader.result;
  };
  reader.readAsDataURL(file);
}

// --- Wiring ----------------------------------------------------------------

$("shuffle").addEventListener("click", shuffle);
$("reset").addEventListener("click", () => setPosition(game.start, game.size, game.goal));
$("size").addEventListener("change", shuffle);
$("numbers").addEventListener("change", (e) =>
  boardEl.classList.toggle("hide-numbers", !e.target.checked));
$("picture").addEventListener("change", (e) => loadPicture(e.target.files[0]));
$("hint").addEventListener("click", hint);
$("solve").addEventListener("click", solve);
$("play").addEventListener("click", () => (game.playing && !game.playing.paused ? pause() : play()));
$("step").addEventListener("click", () => { pause(); stepForward(); });
$("back").addEventListener("click", stepBack);
$("open-board").addEventListener("click", openBoardDialog);
$("set-board").addEventListener("click", setBoardFromDialog);
$("share").addEventListener("click", share);
$("coach-more").addEventListener("click", () =>
  showDetails($("coach-more").getAttribute("aria-expanded") !== "true"));
$("picture").parentElement.addEventListener("keydown", (event) => {
  if (event.key === "Enter" || event.key === " ") { $("picture").click(); event.preventDefault(); }
});
window.addEventListener("resize", render);
window.addEventListener("hashchange", () => loadFromHash(false));

// The static site keeps its files for offline play (sw.js); `npuzzle
// serve`'s page needs its server anyway. A page opened from a file has no
// service worker.
async function keepOffline() {
  if (MODE !== "wasm" || !("serviceWorker" in navigator) ||
      !/^https?:$/.test(window.location.protocol)) return;
  let registration;
  try {
    registration = await navigator.serviceWorker.register("sw.js");
  } catch (error) {
    console.warn(`npuzzle: the game will not be kept for offline play: ${error.message}`);
    return;
  }
  // A new build, installed beside the one this page runs (sw.js), is
  // offered; taken, it replaces the old one and the page loads again.
  const offer = (worker) => {
    if (!worker || !navigator.serviceWorker.controller) return; // the first build
    if (worker.state === "installed") showUpdate(worker);
    else worker.addEventListener("statechange", () => {
      if (worker.state === "installed") showUpdate(worker);
    });
  };
  offer(registration.waiting || registration.installing);
  registration.addEventListener("updatefound", () => offer(registration.installing));
  // Another build took over (here, or Reload in another tab): this page
  // loads again, so that it never starts a worker of that build.
  const controlled = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (controlled || updateTaken) window.location.reload();
  });
  // Looked for at each visit (the browser also does) and hourly while the
  // page stays open.
  setInterval(() => registration.update().catch(() => {}), 3600 * 1000);
}
window.addEventListener("load", keepOffline);

let updateTaken = false;

function showUpdate(worker) {
  root.dataset.update = "ready";
  $("update").hidden = false;
  $("reload").onclick = () => {
    updateTaken = true;
    $("reload").disabled = true;
    worker.postMessage({ type: "update" });
  };
}

// Asks the browser to keep the offline site and the coach's tables: storage
// not marked persistent may be evicted when the device runs short. The
// answer is in data-storage-persisted ("true", or "false" when refused).
async function keepStorage() {
  if (MODE !== "wasm" || !navigator.storage || !navigator.storage.persist) return;
  try {
    const kept = (await navigator.storage.persisted()) || (await navigator.storage.persist());
    root.dataset.storagePersisted = String(kept);
  } catch {
    root.dataset.storagePersisted = "false";
  }
}
window.addEventListener("load", keepStorage);

// A test or a curious user can read the state here.
window.npuzzle = { game, apply, render, sourceOf, engine };

if (engine.start) engine.start();
loadFromHash(true);
