// The coach of the static site (`cargo xtask web`): the npuzzle engine
// (npuzzle.js, WebAssembly) in a Web Worker, so that a search of seconds
// never freezes the page. app.js starts it and asks it questions:
//
//   page -> worker  {op: "init", module}             a compiled engine, or null
//                   {id, op: "random", size, goal}
//                   {id, op: "check"|"hint"|"solve", board, goal, maxSeconds}
//                                                    (maxSeconds: 5x5 and up; default
//                                                    ANSWER_SECONDS)
//                   {id, op: "solve", board, goal, anytime}
//                                                    (5x5 and up: seconds for a shorter
//                                                    answer, engine.solve's `anytime`)
//                   {id, op: "hint", board, goal, exactSeconds, askedAt}
//                                                    (4x4: see below; exactSeconds null:
//                                                    the shortest solution, however long;
//                                                    askedAt on the shared clock: the wait
//                                                    counts against exactSeconds)
//                   {id, op: "beam", board, goal, attempt, ifStalled, until}
//                                                    (from a parent worker; with
//                                                    ifStalled, only when this worker's
//                                                    beam of that attempt on the board
//                                                    stalled, else null)
//   worker -> page  {type: "ready", module}          the compiled engine, for the next worker
//                   {type: "fatal", message}         the engine cannot start
//                   {type: "progress", text, step, count}   tables being built
//                   {type: "tables", goal, source}   "stored" or "built" (`rebuilt`: a
//                                                    stored copy was refused)
//                   {id, ok: true, record} / {id, ok: false, error: {name, message}}
//
// Questions are answered one at a time, in order. To cancel a search, the
// page ends this worker and starts another (the calls are synchronous).
//
// A board whose solve runs frame-weighted beams that may run elsewhere
// (6x6 to 8x8: engine.beamSchedule lists them, those that always run and
// those that run when every beam before stalled) gets two cores. A helper
// worker (this file again, ended with this one) and this one take the
// beams that always run in turn; the later ones go in turn to the helper
// first (its first beam is the narrower one, done sooner: it starts the
// next as soon as its own stalled) and to this one, which runs its later
// beams once every beam before stalled. The solve then takes the
// outcomes; a helper busy with a beam the answer does not need is ended.
//
// A board of 5x5 and up has ANSWER_SECONDS: each beam gets what is left
// of them (`until`, on the shared clock performance.timeOrigin + now),
// the solve the budget and how much the beams spent, so a beam cut short
// answers from where it got and the reduction finishes from there.
//
// A 4x4 hint is a move of a shortest solution when one is found within
// EXACT_SECONDS (most boards: milliseconds); otherwise a move of a solution
// at most GOOD_WITHIN percent longer, found in milliseconds, and marked
// `provisional`: the page then asks another worker for the shortest
// solution (exactSeconds null), which takes up to a minute on the
// hardest boards, and updates the coach when it is proven.
//
// 4x4 boards are solved optimally over the 6-6-3 tables: the first 4x4
// question loads them from IndexedDB, where an earlier visit kept them;
// the engine checks them (header, CRCs, sampled values) and refuses a
// damaged or partial set, which is then built again (about a second a
// table), kept, and used.

import {
  load,
  BROWSER_PARTITION,
  NodeLimitError,
  TablesError,
  TimeLimitError,
  UnsolvableError,
} from "./npuzzle.js";

const PARTITION = BROWSER_PARTITION;
/** The game's sides, as `npuzzle serve` takes them. */
const SIDES = [2, 8];
/** The wall-clock budget of an answer on 5x5 and up (seconds), so that
 * every board is answered within 10 s: the slowest 8x8 boards take 12 s
 * on a slow 2-core machine without it. A beam cut short answers worse
 * (8 s cut 14 of 20 8x8 boards there, 2.2 times Manhattan against 1.7),
 * so the budget is the promise's, not less. */
const ANSWER_SECONDS = 9.5;
/** How long a 4x4 hint looks for a shortest solution before it answers
 * with a good move (seconds): with the good move's search and the page's
 * work, every hint within 1 s. */
const EXACT_SECONDS = 0.5;
/** The good move's solution is at most this many percent longer than the
 * shortest: at most 9 ms on each of Korf's 100 and the 17 boards at 80
 * natively (40 % allows 4 to 6 moves more on the 80-move boards; 25 %
 * would take up to 0.3 s). */
const GOOD_WITHIN = 40;

let engine = null;
/** The compiled engine, for the helper worker (null: none to share). */
let engineModule = null;
/** The helper worker's answers, by question id. */
let helper = null;
/** In a helper: the outcomes of the beams it ran on the last board. */
let beamsRun = { key: null, outcomes: new Map() };
/** goal -> a promise of the tables in use for 4x4 boards. */
const tables = new Map();

// --- Messages ---------------------------------------------------------------

let queue = Promise.resolve();
self.addEventListener("message", (event) => {
  const message = event.data;
  queue = queue.then(() => handle(message));
});

async function handle(message) {
  if (message.op === "init") {
    await start(message.module);
    return;
  }
  try {
    if (!engine) throw new Error("the engine did not start");
    const record = await answer(message);
    self.postMessage({ id: message.id, ok: true, record });
  } catch (error) {
    self.postMessage({
      id: message.id,
      ok: false,
      error: { name: error.name || "Error", kind: error.kind, message: error.message || String(error) },
    });
  }
}

/** Loads the engine: from the module an earlier worker compiled, else from
 * npuzzle.wasm beside this file (compiled here, and handed to the page so
 * that a restarted worker starts at once, with code already optimized). */
async function start(module) {
  try {
    let compiled = module instanceof WebAssembly.Module ? module : null;
    if (!compiled) compiled = await compileEngine();
    // Without a module, npuzzle.js loads the file itself, and says clearly
    // why it cannot (a page opened from a file, a missing file).
    engine = await load(compiled ? { wasm: compiled } : {});
    engineModule = compiled;
    self.postMessage({ type: "ready", module: compiled });
  } catch (error) {
    self.postMessage({ type: "fatal", message: error.message || String(error) });
  }
}

async function compileEngine() {
  const url = new URL("./npuzzle.wasm", import.meta.url);
  try {
    const response = await fetch(url);
    if (!response.ok) return null;
    if (WebAssembly.compileStreaming &&
        (response.headers.get("content-type") || "").startsWith("application/wasm")) {
      return await WebAssembly.compileStreaming(response);
    }
    return await WebAssembly.compile(await response.arrayBuffer());
  } catch {
    return null;
  }
}

// --- Answers ----------------------------------------------------------------

/** The side of a board as the page sends it (tiles, or text in one of the
 * command line's formats), or null when the text does not say plainly:
 * then the engine's reading names what is wrong with it. */
function sideOf(board) {
  const count = Array.isArray(board) ? board.length : (String(board).match(/\d+/g) || []).length;
  // Fewer numbers than a 2x2 board holds is no board: the engine says why.
  if (count < 4) return null;
  const side = Math.round(Math.sqrt(count));
  if (side * side === count) return side;
  // The algs4 form: the side, then the tiles.
  const rest = Math.round(Math.sqrt(count - 1));
  if (!Array.isArray(board) && rest * rest === count - 1) return rest;
  return null;
}

function checkSide(side) {
  if (side === null || (side >= SIDES[0] && side <= SIDES[1])) return;
  const fault = side > SIDES[1] ? "too big" : "too small";
  throw new Error(`board: ${side}x${side} is ${fault} for the game, which takes ` +
    `${SIDES[0]}x${SIDES[0]} to ${SIDES[1]}x${SIDES[1]} (the command line takes more: npuzzle solve)`);
}

async function answer(message) {
  const goal = message.goal || "blank-last";
  switch (message.op) {
    case "random": {
      checkSide(message.size);
      const board = engine.random(message.size, undefined, { goal });
      return { type: "random", board, size: message.size, goal };
    }
    case "check": {
      const side = sideOf(message.board);
      checkSide(side);
      if (side === 4) await useTables(goal);
      let record = engine.check(message.board, { goal });
      checkSide(record.size);
      if (record.size === 4 && side !== 4 && record.solvable) {
        await useTables(goal);
        record = engine.check(message.board, { goal });
      }
      return record;
    }
    case "hint":
    case "solve": {
      const side = sideOf(message.board);
      checkSide(side);
      if (side === 4) await useTables(goal);
      try {
        if (side === 4 && message.op === "hint" && message.exactSeconds !== null) {
          // The time the question waited in the page counts.
          const waited = message.askedAt === undefined ? 0 : (clock() - message.askedAt) / 1000;
          const exact = (message.exactSeconds ?? EXACT_SECONDS) - Math.max(0, waited);
          return quickHint(message.board, goal, exact >= 0.001 ? exact : 0);
        }
        // Time for a shorter answer: the engine's wider beams, on this
        // worker alone (they are not split between workers).
        const anytime = side !== null && side >= 5 && message.op === "solve"
          ? message.anytime : undefined;
        const budget = side !== null && side >= 5 ? timeBudget(anytime ?? message.maxSeconds) : null;
        const beams = budget !== null && anytime === undefined
          ? await beamOutcomes(message.board, goal, budget.until)
          : undefined;
        const options = {
          goal, beams, ...(anytime ? { anytime } : {}), ...(budget ? budget.options() : {}),
        };
        return message.op === "hint"
          ? engine.hint(message.board, options)
          : engine.solve(message.board, options);
      } catch (error) {
        // The records `npuzzle serve` answers for these.
        if (error instanceof UnsolvableError) return { type: "unsolvable", board: message.board, goal };
        if (error instanceof NodeLimitError) return { type: "refused", reason: error.message };
        throw error;
      }
    }
    case "beam": {
      const key = JSON.stringify([message.board, goal]);
      const mine = beamsRun.key === key ? beamsRun.outcomes : new Map();
      if (message.ifStalled !== undefined && mine.get(message.ifStalled)?.ending !== "stalled") {
        return null;
      }
      const outcome = engine.beam(message.board, message.attempt, { goal, ...secondsUntil(message.until) });
      mine.set(message.attempt, outcome);
      beamsRun = { key, outcomes: mine };
      return outcome;
    }
    default:
      throw new Error(`unknown question ${JSON.stringify(message.op)}`);
  }
}

/** A 4x4 hint within about `exactSeconds`: a move of a shortest solution
 * when one is found by then, else a good move (see the top of this file). */
function quickHint(board, goal, exactSeconds) {
  if (exactSeconds > 0) {
    try {
      return engine.hint(board, { goal, maxSeconds: exactSeconds });
    } catch (error) {
      if (!(error instanceof TimeLimitError)) throw error;
    }
  }
  const record = engine.hint(board, { goal, within: GOOD_WITHIN });
  return record.optimal ? record : { ...record, provisional: true };
}

// --- Time ---------------------------------------------------------------------

/** Milliseconds on a clock that every worker of the page shares. */
function clock() {
  return performance.timeOrigin + performance.now();
}

/** An answer's budget of `seconds` (default ANSWER_SECONDS) from now:
 * `until` on the shared clock, and the solve's options once the beams ran. */
function timeBudget(seconds = ANSWER_SECONDS) {
  const started = clock();
  return {
    until: started + seconds * 1000,
    options: () => ({
      maxSeconds: seconds,
      spentSeconds: Math.max(0, (clock() - started) / 1000),
    }),
  };
}

/** A beam's options for what is left until `until` (none without one). */
function secondsUntil(until) {
  if (until === undefined) return {};
  return { maxSeconds: Math.max(0.001, (until - clock()) / 1000) };
}

// --- Two cores ----------------------------------------------------------------

/** The outcomes of the board's frame-weighted beams that the helper and
 * this worker ran side by side (see the top of this file). Undefined when
 * the board's solve takes none from elsewhere, or when no helper can run
 * (one core, no shared module): the solve then runs them itself. */
async function beamOutcomes(board, goal, until) {
  const schedule = engine.beamSchedule(board, { goal });
  if (schedule.length < 2) return undefined;
  // Ready before this worker turns to a beam: a new worker's script loads
  // through its parent, which a running beam would hold up.
  const started = await startHelper();
  if (!started) return undefined;
  const { mine, theirs } = lanesOf(schedule);
  // The helper's beams, asked at once: each after its first only when its
  // own beam before stalled.
  let settled = 0;
  const asked = theirs.map((beam, k) => {
    const after = k > 0 ? { ifStalled: theirs[k - 1].attempt } : {};
    const answer = ask(started, { op: "beam", board, goal, attempt: beam.attempt, until, ...after })
      .catch(() => null);
    answer.then(() => { settled += 1; });
    return { beam, answer };
  });
  const outcomes = new Map();
  // Whether `beam` is to run: it always does, or every beam before it
  // that ended so far stalled, with the helper's first `awaited` beams
  // among them (a later beam may run while the helper's next is under way).
  const runs = async (beam, awaited) => {
    if (beam.always) return true;
    for (const { beam: earlier, answer } of asked.slice(0, awaited)) {
      const outcome = await answer;
      if (outcome) outcomes.set(earlier.attempt, outcome);
    }
    return [...outcomes].every(([attempt, outcome]) =>
      attempt > beam.attempt || outcome.ending === "stalled");
  };
  for (const [k, beam] of mine.entries()) {
    if (!(await runs(beam, k))) break;
    const outcome = engine.beam(board, beam.attempt, { goal, ...secondsUntil(until) });
    if (outcome === null) break;
    outcomes.set(beam.attempt, outcome);
  }
  for (const [k, { beam, answer }] of asked.entries()) {
    if (!(await runs(beam, k))) break;
    const outcome = await answer;
    if (outcome) outcomes.set(beam.attempt, outcome);
  }
  // A helper still busy with a beam the answer does not need is ended
  // (and another started for the next board).
  if (settled < asked.length) {
    stopHelper();
    startHelper();
  }
  return outcomes.size > 0 ? [...outcomes.values()] : undefined;
}

/** The beams of `schedule` this worker runs (`mine`) and the helper
 * (`theirs`), each in the schedule's order (see the top of this file). */
function lanesOf(schedule) {
  const mine = [];
  const theirs = [];
  schedule.filter((beam) => beam.always)
    .forEach((beam, i) => (i % 2 === 0 ? mine : theirs).push(beam));
  schedule.filter((beam) => !beam.always)
    .forEach((beam, i) => (i % 2 === 0 ? theirs : mine).push(beam));
  return { mine, theirs };
}

/** The helper, started once and ready (its engine loaded), or null where
 * none can run (one core, no shared module, or it failed to start). */
function startHelper() {
  if (helper) return helper.ready;
  if (!engineModule || (navigator.hardwareConcurrency || 1) < 2 || typeof Worker === "undefined") {
    return Promise.resolve(null);
  }
  let worker;
  try {
    worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  } catch {
    engineModule = null;
    return Promise.resolve(null);
  }
  const started = { worker, next: 0, waiting: new Map() };
  const failed = () => {
    for (const waiting of started.waiting.values()) waiting.reject(new Error("the helper stopped"));
    started.waiting.clear();
    if (helper === started) helper = null;
  };
  started.ready = new Promise((resolve) => {
    worker.addEventListener("message", (event) => {
      const { type, id, ok, record, error } = event.data;
      if (type === "ready") return resolve(started);
      if (type === "fatal") {
        // Not tried again: this worker answers alone.
        engineModule = null;
        failed();
        return resolve(null);
      }
      const waiting = started.waiting.get(id);
      if (!waiting) return;
      started.waiting.delete(id);
      if (ok) waiting.resolve(record);
      else waiting.reject(new Error(error.message));
    });
    worker.addEventListener("error", () => {
      failed();
      resolve(null);
    });
  });
  helper = started;
  worker.postMessage({ op: "init", module: engineModule });
  return started.ready;
}

/** The helper's answer to `question`. */
function ask(started, question) {
  const id = started.next++;
  return new Promise((resolve, reject) => {
    started.waiting.set(id, { resolve, reject });
    started.worker.postMessage({ id, ...question });
  });
}

/** Ends the helper, and with it any beam it was running. */
function stopHelper() {
  if (!helper) return;
  helper.worker.terminate();
  for (const waiting of helper.waiting.values()) waiting.reject(new Error("the helper stopped"));
  helper.waiting.clear();
  helper = null;
}

// --- Tables -----------------------------------------------------------------

function useTables(goal) {
  if (!tables.has(goal)) {
    const ready = prepareTables(goal);
    tables.set(goal, ready);
    ready.catch(() => tables.delete(goal));
  }
  return tables.get(goal);
}

/** Gives the engine the 4x4 tables: those kept if the engine takes them,
 * else built (the missing ones, or all when a kept one was refused). */
async function prepareTables(goal) {
  const files = engine.tableFiles(PARTITION, { goal });
  const store = await openStore();
  const keys = files.map((file) => `${PARTITION}/${file}`);
  // Anything kept that is not a table image counts as missing.
  const kept = (store ? await store.getAll(keys) : files.map(() => null))
    .map((image) => image instanceof Uint8Array ? image : null);
  if (kept.every(Boolean)) {
    try {
      engine.useTables(kept, PARTITION, { goal });
      self.postMessage({ type: "tables", goal, source: "stored" });
      return;
    } catch (error) {
      if (!(error instanceof TablesError)) throw error;
      // Damaged: never used; every table is built again.
      return build(goal, files, keys, store, files.map(() => null), true);
    }
  }
  // Missing or partial: a table kept is used only if the whole set,
  // completed, passes the engine's checks.
  try {
    return await build(goal, files, keys, store, kept, false);
  } catch (error) {
    if (!(error instanceof TablesError) || !kept.some(Boolean)) throw error;
    return build(goal, files, keys, store, files.map(() => null), true);
  }
}

async function build(goal, files, keys, store, kept, rebuilt) {
  const images = [];
  for (let index = 0; index < files.length; index++) {
    if (kept[index]) {
      images.push(kept[index]);
      continue;
    }
    self.postMessage({
      type: "progress",
      step: index + 1,
      count: files.length,
      text: `Preparing the 4x4 coach: table ${index + 1} of ${files.length}\u2026`,
    });
    const image = engine.buildTable(PARTITION, index, { goal });
    images.push(image);
    // Kept as soon as built: a worker ended meanwhile (a new board) leaves
    // the tables already built for the next one.
    if (store) await store.put(keys[index], image).catch(() => {});
  }
  engine.useTables(images, PARTITION, { goal });
  self.postMessage({ type: "tables", goal, source: "built", rebuilt });
}

// --- IndexedDB ----------------------------------------------------------------

const DB_NAME = "npuzzle";
const DB_STORE = "tables";

/** The database at our version, its tables store made when new. */
function openDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(DB_STORE);
    request.onsuccess = () => {
      // Another page's upgrade or delete is not held up by this worker.
      request.result.onversionchange = () => request.result.close();
      resolve(request.result);
    };
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("IndexedDB is blocked"));
  });
}

function deleteDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(DB_NAME);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("IndexedDB is blocked"));
  });
}

/** The table store (IndexedDB), or null where there is none (a page opened
 * from a file, storage refused): the tables are then built each visit. A
 * database of another version or without the store (damaged, foreign) is
 * replaced, so that the tables are kept again. */
async function openStore() {
  let db = null;
  try {
    db = await openDatabase();
    if (!db.objectStoreNames.contains(DB_STORE)) throw new Error("no tables store");
  } catch {
    try {
      if (db) db.close();
      await deleteDatabase();
      db = await openDatabase();
    } catch {
      return null;
    }
  }
  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return {
    async getAll(keys) {
      try {
        const store = db.transaction(DB_STORE, "readonly").objectStore(DB_STORE);
        const values = await Promise.all(keys.map((key) => done(store.get(key))));
        return values.map((value) => value instanceof Uint8Array ? value
          : value instanceof ArrayBuffer ? new Uint8Array(value) : null);
      } catch {
        return keys.map(() => null);
      }
    },
    /** Resolves once the write is committed. */
    put(key, image) {
      return new Promise((resolve, reject) => {
        const transaction = db.transaction(DB_STORE, "readwrite");
        transaction.objectStore(DB_STORE).put(image, key);
        transaction.oncomplete = () => resolve();
        transaction.onerror = () => reject(transaction.error);
        transaction.onabort = () => reject(transaction.error);
      });
    },
  };
}
