// npuzzle.js: the npuzzle engine (WebAssembly) for web pages, workers and
// Node 18 or later. The engine is the one behind every door of npuzzle
// (command line, server, Rust, C, Python): the same policy per board size,
// the same answers and node counts. See docs/javascript.md.
//
//   import { load } from "./npuzzle.js";
//   const engine = await load();
//   engine.solve("8 1 3 4 0 2 7 6 5");   // { length: 14, moves: "LURRDDLURULDLU", optimal: true, ... }

/** The base of every error the engine throws; `kind` says which. */
export class NpuzzleError extends Error {
  constructor(message, kind) {
    super(message);
    this.name = "NpuzzleError";
    this.kind = kind;
  }
}

/** A board that cannot reach the goal (the parity rule). */
export class UnsolvableError extends NpuzzleError {
  constructor(message) {
    super(message, "unsolvable");
    this.name = "UnsolvableError";
  }
}

/** `maxNodes` reached before a solution. */
export class NodeLimitError extends NpuzzleError {
  constructor(message) {
    super(message, "node_limit");
    this.name = "NodeLimitError";
  }
}

/** `maxSeconds` ran out before an answer (optimal and `within` searches;
 * near-optimal ones answer from where they got). */
export class TimeLimitError extends NpuzzleError {
  constructor(message) {
    super(message, "time_limit");
    this.name = "TimeLimitError";
  }
}

/** Tables damaged, partial or unusable: build them again. */
export class TablesError extends NpuzzleError {
  constructor(message) {
    super(message, "tables");
    this.name = "TablesError";
  }
}

const ERRORS = {
  unsolvable: UnsolvableError,
  node_limit: NodeLimitError,
  time_limit: TimeLimitError,
  tables: TablesError,
};

/** The table set 4x4 boards get in the browser: 6 MB, built in seconds. */
export const BROWSER_PARTITION = "6-6-3";

const isNode = typeof process !== "undefined" && process.versions != null &&
  process.versions.node != null && typeof window === "undefined";

/** The compiled module from a URL, a path (Node), bytes or a module. */
async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return compileBytes(source, "the bytes given");
  }
  const url = source instanceof URL ? source : new URL(String(source), import.meta.url);
  if (url.protocol === "file:" && isNode) {
    const { readFile } = await import("node:fs/promises");
    let bytes;
    try {
      bytes = await readFile(url);
    } catch (e) {
      throw new NpuzzleError(`cannot load the engine from ${url.pathname} (${e.message}): ` +
        "give load({ wasm }) the path of npuzzle.wasm, beside npuzzle.js by default", "load");
    }
    return compileBytes(bytes, url.pathname);
  }
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    const hint = url.protocol === "file:"
      ? "this browser does not let a page opened from a file load it: serve the folder " +
        "(for example `python3 -m http.server` in it) and open http://localhost:8000/"
      : "is the file beside npuzzle.js?";
    throw new NpuzzleError(`cannot load the engine from ${url.href} (${e.message}): ${hint}`,
      "load");
  }
  if (!response.ok) {
    throw new NpuzzleError(
      `cannot load the engine from ${url.href}: the server answered ${response.status}`, "load");
  }
  if (WebAssembly.compileStreaming &&
      (response.headers.get("content-type") || "").startsWith("application/wasm")) {
    return WebAssembly.compileStreaming(response);
  }
  return compileBytes(await response.arrayBuffer(), url.href);
}

async function compileBytes(bytes, where) {
  try {
    return await WebAssembly.compile(bytes);
  } catch (e) {
    throw new NpuzzleError(`${where} is not a WebAssembly module (${e.message}): ` +
      "give load({ wasm }) the npuzzle.wasm that cargo xtask web built", "load");
  }
}

/** The exports the engine has; a module without them is not npuzzle's. */
const EXPORTS = ["memory", "npuzzle_input", "npuzzle_call", "npuzzle_stage_table",
  "npuzzle_output_ptr", "npuzzle_output_len"];

/**
 * Loads the engine. `options.wasm`: where `npuzzle.wasm` is (a URL or
 * path, its bytes, or a compiled `WebAssembly.Module`); by default the file
 * beside this module (in Node, read from disk).
 */
export async function load(options = {}) {
  options = optionsOf(options, ["wasm"]);
  const module = await compile(options.wasm ?? new URL("./npuzzle.wasm", import.meta.url));
  const names = WebAssembly.Module.exports(module).map((e) => e.name);
  const missing = EXPORTS.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new NpuzzleError(`the module given is not npuzzle's engine (it lacks ${missing.join(", ")}): ` +
      "give load({ wasm }) the npuzzle.wasm that cargo xtask web built", "load");
  }
  return new Engine(module);
}

/** `options` as an object with only the names `allowed` (null: none). */
function optionsOf(options, allowed) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object") {
    throw new TypeError(`options: give an object such as { ${allowed[0]}: ... }, not a ${typeof options}`);
  }
  for (const name of Object.keys(options)) {
    if (!allowed.includes(name)) {
      throw new TypeError(`unknown option '${name}': the options here are ${allowed.join(", ")}`);
    }
  }
  return options;
}

function stringOption(name, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new TypeError(`${name}: give a string, not a ${typeof value}`);
  return value;
}

function withinOf(value) {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 1000) {
    throw new RangeError(`within: ${String(value)} is not a whole percent from 0 (optimal) to 1000`);
  }
  return value;
}

/** Outcomes of `beam`, passed back as they came. */
function beamsOf(value) {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((b) => b !== null && typeof b === "object")) {
    throw new TypeError("beams: give the outcomes engine.beam returned, in an array");
  }
  return value;
}

function fastOf(value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw new TypeError(`fast: give true or false, not ${String(value)}`);
  return value;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A board as the engine takes it: text in any of the command line's
 * formats, or a list of tiles (0 the blank). */
function boardField(board) {
  if (typeof board === "string") return board;
  const listed = Array.isArray(board) ||
    (ArrayBuffer.isView(board) && !(board instanceof DataView)) ||
    (board !== null && typeof board === "object" && Number.isSafeInteger(board.length) &&
      board.length >= 0);
  if (!listed) {
    throw new TypeError(
      "board: give a string (\"8 1 3 4 0 2 7 6 5\") or an array of tiles, 0 the blank");
  }
  return Array.from(board, (tile, i) => {
    if (typeof tile === "bigint" && tile >= 0n) return tile;
    if (typeof tile === "number" && Number.isInteger(tile) && tile >= 0) {
      return Number.isSafeInteger(tile) ? tile : BigInt(tile);
    }
    const shown = typeof tile === "bigint" ? `${tile}n` : String(tile);
    throw new NpuzzleError(`tile number ${i + 1} of the list (${shown}) is not a whole number ` +
      "from 0 up (such as 0, 7, 15)", "invalid");
  });
}

function goalOf(options) {
  return stringOption("goal", options.goal);
}

/** A whole number from 0 to 2^64 - 1, as a BigInt, or an error naming it. */
function wholeNumber(name, value) {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "bigint") {
    if (value >= 0n && value < (1n << 64n)) return value;
  } else if (Number.isInteger(value) && value >= 0 && value < 2 ** 64) {
    return BigInt(value);
  }
  if (typeof value === "string") {
    throw new TypeError(`${name}: ${JSON.stringify(value)} is text, not a number: give a ` +
      "whole number from 0 to 2^64 - 1 without quotes");
  }
  const shown = typeof value === "bigint" ? `${value}n` : String(value);
  throw new RangeError(`${name}: ${shown} is not a whole number from 0 to 2^64 - 1`);
}

/** A wall-clock budget in seconds, 0.001 to 10^6. */
function secondsOf(value, name = "maxSeconds") {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && value >= 0.001 && value <= 1e6) return value;
  const shown = typeof value === "bigint" ? `${value}n` : String(value);
  throw new RangeError(
    `${name}: ${shown} is not a number of seconds from 0.001 to 1000000, such as 10 or 0.5`,
  );
}

/** Of `maxSeconds`, seconds already spent on this answer elsewhere. */
function spentOf(value, maxSeconds) {
  if (value === undefined || value === null) return undefined;
  if (maxSeconds === undefined) throw new TypeError("spentSeconds: give maxSeconds too");
  if (typeof value === "number" && value >= 0 && Number.isFinite(value)) return value;
  const shown = typeof value === "bigint" ? `${value}n` : String(value);
  throw new RangeError(`spentSeconds: ${shown} is not a number of seconds of 0 or more`);
}

/** A request as JSON: BigInts (in fields or tiles) are written as the whole
 * numbers they are, which JSON.stringify cannot do. */
function requestText(request) {
  const big = [];
  const tag = `__npuzzle_${Math.random().toString(36).slice(2)}_`;
  const text = JSON.stringify(request, (_, v) => {
    if (typeof v !== "bigint") return v;
    big.push(v);
    return `${tag}${big.length - 1}`;
  });
  return big.length === 0 ? text
    : text.replace(new RegExp(`"${tag}(\\d+)"`, "g"), (_, i) => big[Number(i)].toString());
}

/** An engine record in JavaScript's names (camelCase). */
function camel(record) {
  const out = {};
  for (const [key, value] of Object.entries(record)) {
    out[key.replace(/_([a-z])/g, (_, c) => c.toUpperCase())] = value;
  }
  return out;
}

/** The engine: one WebAssembly instance and the tables given to it. */
export class Engine {
  #module;
  #instance;
  /** Tables given with useTables, given again if the instance is renewed. */
  #tables = [];
  /** A call is running: another one now would overwrite its request. */
  #busy = false;

  constructor(module) {
    this.#module = module;
    this.#start();
  }

  /** The compiled module: give it to `load({ wasm })` in another worker
   * to start an engine there without fetching or compiling again. */
  get module() {
    return this.#module;
  }

  #start() {
    this.#instance = new WebAssembly.Instance(this.#module, {
      npuzzle: { now_ms: () => performance.now() },
    });
  }

  #put(bytes) {
    const exports = this.#instance.exports;
    const pointer = exports.npuzzle_input(bytes.length);
    new Uint8Array(exports.memory.buffer, pointer, bytes.length).set(bytes);
  }

  #output() {
    const exports = this.#instance.exports;
    const pointer = exports.npuzzle_output_ptr();
    const length = exports.npuzzle_output_len();
    return new Uint8Array(exports.memory.buffer, pointer, length).slice();
  }

  /** One request, with table images staged first: the JSON answer, the
   * binary answer, or a thrown error. A call made while another runs (from
   * the engine's clock import, the one way back into JavaScript) is
   * refused: the instance holds one request and one answer at a time. */
  #call(json, images = []) {
    if (this.#busy) {
      throw new NpuzzleError("this engine is already answering a call (this one was made " +
        "from inside it, such as from a patched performance.now): call it after that one " +
        "returns, or load another engine", "busy");
    }
    this.#busy = true;
    let status;
    try {
      for (const image of images) {
        this.#put(image);
        this.#instance.exports.npuzzle_stage_table();
      }
      this.#put(encoder.encode(json));
      status = this.#instance.exports.npuzzle_call();
    } catch (e) {
      this.#busy = false;
      // A trap (a bug, or memory exhausted), or an exception thrown through
      // the engine by its clock import, leaves the instance in an unknown
      // state: a new one starts with the same tables.
      this.#start();
      for (const set of this.#tables) this.#give(set);
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      throw new NpuzzleError(
        `the engine stopped on this request (${e.message}); it has been restarted with ` +
        "the tables it had: if the request was not too large for memory, please report it",
        "internal");
    }
    this.#busy = false;
    const output = this.#output();
    if (status === 2) return output;
    const record = JSON.parse(decoder.decode(output));
    if (status === 1) {
      const Kind = ERRORS[record.kind];
      throw Kind ? new Kind(record.error) : new NpuzzleError(record.error, record.kind);
    }
    return record;
  }

  #give(set) {
    return this.#call(requestText({
      op: "use_tables", partition: set.partition, size: set.size, goal: set.goal,
    }), set.images);
  }

  /**
   * Solves a board with the command line's policy for its size: optimal
   * for 3x3, and for 4x4 once tables are given (useTables); near-optimal
   * past that. Options: maxNodes, maxSeconds (a wall-clock budget;
   * spentSeconds: how much of it went on this answer before, in beams
   * run elsewhere),
   * within (percent over optimal allowed), fast, goal ("blank-last" or
   * "blank-first"), notation ("tile" or "blank"), anytime (seconds for a
   * shorter near-optimal answer, as `npuzzle solve --anytime`, on this
   * engine's one thread).
   */
  solve(board, options = {}) {
    options = optionsOf(options, [
      "maxNodes", "maxSeconds", "spentSeconds", "within", "fast", "goal", "notation", "beams",
      "anytime",
    ]);
    return camel(this.#call(requestText({
      op: "solve",
      board: boardField(board),
      goal: goalOf(options),
      notation: stringOption("notation", options.notation),
      max_nodes: wholeNumber("maxNodes", options.maxNodes),
      max_seconds: secondsOf(options.maxSeconds),
      spent_seconds: spentOf(options.spentSeconds, options.maxSeconds),
      anytime: secondsOf(options.anytime, "anytime"),
      within: withinOf(options.within),
      fast: fastOf(options.fast),
      beams: beamsOf(options.beams),
    })));
  }

  /**
   * Two cores for one 6x6 to 8x8 board: its solve runs frame-weighted
   * beams that other engines, in other workers, can run at the same time.
   * `beamSchedule(board, options)` lists them in the order the solve takes
   * them, `{attempt, always}` (always: it always runs; else only when
   * every beam before it stalled), and is empty when the board's solve
   * takes none from elsewhere. `beam(board, attempt, options)` there
   * gives that beam's outcome (null for a beam the schedule does not
   * list); `solve(board, { ...options, beams })` here then runs only the
   * rest. Same answer, about 1.6 times sooner.
   */
  beamSchedule(board, options = {}) {
    options = optionsOf(options, ["maxNodes", "maxSeconds", "within", "fast", "goal"]);
    return this.#call(requestText({
      op: "beam_schedule",
      board: boardField(board),
      goal: goalOf(options),
      max_nodes: wholeNumber("maxNodes", options.maxNodes),
      max_seconds: secondsOf(options.maxSeconds),
      within: withinOf(options.within),
      fast: fastOf(options.fast),
    })).beams;
  }

  /** Beam `attempt` of those `beamSchedule` lists (see there). */
  beam(board, attempt, options = {}) {
    options = optionsOf(options, ["maxNodes", "maxSeconds", "within", "fast", "goal"]);
    if (!Number.isInteger(attempt) || attempt < 0) {
      throw new RangeError(
        `attempt: ${String(attempt)} is not one of the beams; give one engine.beamSchedule lists`);
    }
    return this.#call(requestText({
      op: "beam",
      board: boardField(board),
      attempt,
      goal: goalOf(options),
      max_nodes: wholeNumber("maxNodes", options.maxNodes),
      max_seconds: secondsOf(options.maxSeconds),
      within: withinOf(options.within),
      fast: fastOf(options.fast),
    })).outcome;
  }

  /**
   * The best next move: the solution record of `solve`, with `move` its
   * first move (null on a solved board); `optimal` says whether `length`
   * is the distance to the goal or an upper bound (then `lowerBound`).
   */
  hint(board, options = {}) {
    options = optionsOf(options, [
      "maxNodes", "maxSeconds", "spentSeconds", "within", "goal", "notation", "beams",
    ]);
    return camel(this.#call(requestText({
      op: "hint",
      board: boardField(board),
      goal: goalOf(options),
      notation: stringOption("notation", options.notation),
      max_nodes: wholeNumber("maxNodes", options.maxNodes),
      max_seconds: secondsOf(options.maxSeconds),
      spent_seconds: spentOf(options.spentSeconds, options.maxSeconds),
      within: withinOf(options.within),
      beams: beamsOf(options.beams),
    })));
  }

  /** Whether the board can be solved, whether it is, and its distance
   * when a small search finds it (else bounds). Throws for what is not a
   * board, with the command line's message. */
  check(board, options = {}) {
    options = optionsOf(options, ["goal"]);
    return camel(this.#call(requestText({
      op: "check", board: boardField(board), goal: goalOf(options),
    })));
  }

  /** A uniformly random solvable board of side `size`, as an array; the
   * same seed gives the board `npuzzle random --seed` and Python's
   * `random_board` give. Without a seed, a random one. */
  random(size = 4, seed = undefined, options = {}) {
    options = optionsOf(options, ["goal"]);
    if (size === undefined || size === null) size = 4;
    if (seed === undefined || seed === null) {
      const words = new Uint32Array(2);
      globalThis.crypto.getRandomValues(words);
      seed = (BigInt(words[0]) << 32n) | BigInt(words[1]);
    }
    return this.#call(requestText({
      op: "random",
      size: wholeNumber("size", size),
      seed: wholeNumber("seed", seed),
      goal: goalOf(options),
    })).board;
  }

  /** The file names of a table set's tables, in build order. */
  tableFiles(partition = BROWSER_PARTITION, options = {}) {
    options = optionsOf(options, ["size", "goal"]);
    return this.#call(requestText({
      op: "table_files",
      partition: stringOption("partition", partition),
      size: wholeNumber("size", options.size ?? 4),
      goal: goalOf(options),
    })).files;
  }

  /** Builds one table of a set (`index` into tableFiles): its file image,
   * the bytes `npuzzle pdb build` unpacks (docs/pdb-format.md). */
  buildTable(partition, index, options = {}) {
    options = optionsOf(options, ["size", "goal"]);
    return this.#call(requestText({
      op: "build_table",
      partition: stringOption("partition", partition),
      size: wholeNumber("size", options.size ?? 4),
      goal: goalOf(options),
      index: wholeNumber("index", index),
    }));
  }

  /** Builds every table of a set: their file images, in tableFiles order.
   * `options.onTable({ index, count, file })` is called before each. */
  buildTables(partition = BROWSER_PARTITION, options = {}) {
    const { onTable, ...rest } = optionsOf(options, ["size", "goal", "onTable"]);
    const files = this.tableFiles(partition, rest);
    return files.map((file, index) => {
      onTable?.({ index, count: files.length, file });
      return this.buildTable(partition, index, rest);
    });
  }

  /** Uses tables (file images, from buildTables or unpacked by `npuzzle
   * pdb build`) for boards of their side: each is checked (header, the
   * CRC and BLAKE3 digest npuzzle's build has, the table's CRC, sampled
   * values) and a damaged, partial or foreign set throws TablesError,
   * leaving the engine as it was. The images are copied. */
  useTables(images, partition = BROWSER_PARTITION, options = {}) {
    options = optionsOf(options, ["size", "goal"]);
    const listed = images !== null && typeof images === "object" &&
      typeof images[Symbol.iterator] === "function" && !ArrayBuffer.isView(images);
    if (!listed) {
      throw new TypeError("images: give a list of table images (Uint8Arrays), as buildTables returns");
    }
    const copies = Array.from(images, (image, i) => {
      if (image instanceof ArrayBuffer) return new Uint8Array(image.slice(0));
      if (ArrayBuffer.isView(image) && !(image instanceof DataView)) {
        return new Uint8Array(image.buffer, image.byteOffset, image.byteLength).slice();
      }
      throw new TypeError(`images: item ${i + 1} is not a table image (a Uint8Array or ArrayBuffer)`);
    });
    const set = {
      images: copies,
      partition: stringOption("partition", partition),
      size: wholeNumber("size", options.size ?? 4),
      goal: goalOf(options) ?? "blank-last",
    };
    const record = this.#give(set);
    this.#tables = this.#tables.filter((t) => !(t.size === set.size && t.goal === set.goal));
    this.#tables.push(set);
    return camel(record);
  }
}
