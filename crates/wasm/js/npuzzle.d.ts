// Types of npuzzle.js, the npuzzle engine in WebAssembly (docs/javascript.md).

/** A board: text in any format `npuzzle solve` reads ("8 1 3 4 0 2 7 6 5",
 * rows split by "/" or new lines, algs4 with the size first), or the tiles
 * in row order, 0 for the blank. */
export type Board = string | ArrayLike<number | bigint>;

/** The goal: tiles in order then the blank, or the blank first. */
export type Goal = "blank-last" | "blank-first";

/** Moves named by the direction the tile moves ("tile") or the blank moves ("blank"). */
export type Notation = "tile" | "blank";

/** A whole number from 0 to 2^64 - 1. */
export type Whole = number | bigint;

export interface LoadOptions {
  /** Where npuzzle.wasm is: a URL or path, its bytes, or a compiled module.
   * Default: the file beside npuzzle.js (read from disk in Node). */
  wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
}

export interface SolveOptions {
  /** Expanded nodes the search may take (default: none). */
  maxNodes?: Whole;
  /** Wall-clock seconds the search may take, 0.001 to 1e6 (default: none):
   * optimal and `within` searches then throw TimeLimitError; near-optimal
   * ones answer from where the beam got. */
  maxSeconds?: number;
  /** Of maxSeconds, how much went on this answer before (beams run in
   * other workers): the budget ends that much sooner, and the note names
   * the whole of it. */
  spentSeconds?: number;
  /** At most this many percent over optimal, sooner (0: optimal; at most 1000). */
  within?: number;
  /** Straight to the reduction: fast, about twice Manhattan. */
  fast?: boolean;
  goal?: Goal;
  notation?: Notation;
  /** Outcomes of `beam` for the same board and options, run elsewhere. */
  beams?: BeamOutcome[];
  /** Seconds for a shorter near-optimal answer (5x5 without tables to
   * 10x10), 0.001 to 1e6: wider beams after the default one, the shortest
   * answer kept, its note saying how long it searched and what that gained.
   * Not with `fast` or `within`; beams run elsewhere are not used with it. */
  anytime?: number;
}

export interface HintOptions {
  maxNodes?: Whole;
  maxSeconds?: number;
  spentSeconds?: number;
  /** A move of a solution at most this many percent over optimal, sooner. */
  within?: number;
  goal?: Goal;
  notation?: Notation;
  beams?: BeamOutcome[];
}

/** One of the beams a 6x6 to 8x8 solve runs: pass it back as it came. */
export interface BeamOutcome {
  attempt: number;
  ending: "solved" | "stalled" | "ended";
  /** The blank's moves. */
  moves: string;
  expanded: number;
  generated: number;
}

/** A beam of a board's solve that another worker may run. */
export interface ScheduledBeam {
  attempt: number;
  /** Whether the solve always runs it; else only when every beam before
   * it stalled. */
  always: boolean;
}

export interface TableOptions {
  /** The board side the tables are for (default 4). */
  size?: number;
  goal?: Goal;
}

/** An answer, with the names of `npuzzle solve --json` in camelCase. */
export interface Solution {
  type: "solution";
  board: number[];
  size: number;
  goal: Goal;
  solvable: true;
  /** Whether no shorter solution exists. */
  optimal: boolean;
  length: number;
  /** One letter a move: U, D, L, R. */
  moves: string;
  notation: Notation;
  /** idastar, astar, bfs, beam or reduction. */
  algorithm: string;
  heuristic: string | null;
  partition: string | null;
  reflection: boolean | null;
  strategy: string | null;
  expanded: number | null;
  /** Of `expanded`, the nodes A*+IDA*'s best-first phase expanded. */
  bestFirstExpanded: number | null;
  generated: number | null;
  initialEstimate: number | null;
  /** Deprecated names of `expanded` and `initialEstimate`. */
  nodes: number | null;
  h0: number | null;
  /** For answers that are not optimal: a lower bound on the optimal length. */
  lowerBound: number | null;
  within: number | null;
  /** For answers that are not optimal: why. */
  note: string | null;
  seconds: number;
  /** What the engine told on the way (tables missing for the side...). */
  notes: string[];
  /** The command line's keys for boards read from files and sets: null here. */
  file: null;
  line: null;
  id: null;
  expected: null;
  agrees: null;
  resumed: null;
}

export interface Hint extends Solution {
  /** The first move of the solution; null on a solved board. */
  move: string | null;
}

export interface Check {
  type: "check";
  board: number[];
  size: number;
  goal: Goal;
  solvable: boolean;
  solved: boolean;
  /** The exact distance, when a small search (200,000 nodes) finds it. */
  distance: number | null;
  lowerBound: number | null;
  /** The length of a known solution, not always optimal. */
  upperBound: number | null;
}

export interface TablesUsed {
  type: "tables";
  partition: string;
  size: number;
  goal: Goal;
  files: string[];
}

export class NpuzzleError extends Error {
  /** invalid, unsolvable, node_limit, time_limit, tables, internal or load. */
  kind: string;
}
export class UnsolvableError extends NpuzzleError {}
export class NodeLimitError extends NpuzzleError {}
export class TimeLimitError extends NpuzzleError {}
export class TablesError extends NpuzzleError {}

/** The table set 4x4 boards get in the browser: "6-6-3". */
export const BROWSER_PARTITION: string;

export class Engine {
  /** The compiled module, for `load({ wasm: engine.module })` elsewhere. */
  readonly module: WebAssembly.Module;
  solve(board: Board, options?: SolveOptions): Solution;
  hint(board: Board, options?: HintOptions): Hint;
  /** The beams of the board's solve that other workers may run, in the
   * order the solve takes them; empty when it takes none from elsewhere. */
  beamSchedule(board: Board, options?: Omit<SolveOptions, "notation" | "beams">): ScheduledBeam[];
  /** Beam `attempt` of those `beamSchedule` lists, for another worker;
   * null for a beam it does not list. */
  beam(board: Board, attempt: number, options?: Omit<SolveOptions, "notation" | "beams">): BeamOutcome | null;
  check(board: Board, options?: { goal?: Goal }): Check;
  /** A uniformly random solvable board; the same seed gives the board of
   * `npuzzle random --seed` and Python's `random_board`. */
  random(size?: number, seed?: Whole, options?: { goal?: Goal }): number[];
  tableFiles(partition?: string, options?: TableOptions): string[];
  buildTable(partition: string, index: number, options?: TableOptions): Uint8Array;
  buildTables(
    partition?: string,
    options?: TableOptions & { onTable?: (table: { index: number; count: number; file: string }) => void },
  ): Uint8Array[];
  useTables(images: Iterable<Uint8Array | ArrayBuffer>, partition?: string, options?: TableOptions): TablesUsed;
}

export function load(options?: LoadOptions): Promise<Engine>;
