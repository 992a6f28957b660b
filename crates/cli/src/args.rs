//! The command line's arguments, as clap reads them: one type per
//! command, shared pieces (`SearchArgs`, `GoalArg`) flattened in.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use npuzzle::{Algorithm, HeuristicKind, Partition};
use npuzzle_board::{Goal, Notation};

#[derive(Parser)]
#[command(
    name = "npuzzle",
    version,
    about = "Solve sliding-tile puzzles optimally."
)]
#[command(
    long_about = "Solve sliding-tile puzzles (8-puzzle, 15-puzzle, any n x n) optimally.\n\n\
Boards are n*n numbers, 0 for the blank, separated by spaces, commas or '/' \
between rows; or the algs4 form: n, then the n*n numbers."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Solve boards optimally and print the moves.
    #[command(long_about = "Solve boards optimally and print the moves.\n\n\
Moves are letters U, D, L, R naming the direction the TILE slides into the blank \
(the speed-solvers' convention); --notation blank names the blank's direction instead.\n\n\
Boards come from the arguments (one board), from --file (one board per line, '#' comments \
and blank lines skipped, algs4 blocks allowed), or from standard input when neither is given.")]
    Solve(SolveArgs),
    /// Solve one board and play the solution in the terminal.
    Play(PlayArgs),
    /// Say whether a board is valid and solvable, and why not.
    Check(CheckArgs),
    /// Print uniformly random solvable boards, one per line.
    Random(RandomArgs),
    /// Play the picture puzzle in the browser, with an optimal coach.
    #[command(
        long_about = "Play the picture puzzle in the browser, with an optimal coach.\n\n\
Serves the game and its HTTP API (docs/serve-api.md) on http://127.0.0.1:8015/ by default. \
The page is built into the binary: it works offline. Tables are opened once and shared by \
all requests; every search has a node budget, and heavy work past its bounds is answered \
503 at once."
    )]
    Serve(ServeArgs),
    /// Build, inspect, verify and query pattern databases.
    Pdb {
        #[command(subcommand)]
        command: PdbCommand,
    },
    /// Print the shell completion script for SHELL.
    #[command(long_about = "Print the shell completion script for SHELL.\n\n\
Install it where the shell looks for completions, for example:\n  \
bash: npuzzle completions bash > ~/.local/share/bash-completion/completions/npuzzle\n  \
zsh:  npuzzle completions zsh > ~/.zfunc/_npuzzle (with ~/.zfunc in $fpath)\n  \
fish: npuzzle completions fish > ~/.config/fish/completions/npuzzle.fish")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the manual pages (npuzzle.1, npuzzle-solve.1, ...) into a
    /// directory: what `cargo xtask man` runs.
    #[command(hide = true)]
    Man {
        /// The directory to write the pages into (made if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

/// How a board is searched: shared by `solve` and `play`.
#[derive(Args, Clone)]
pub struct SearchArgs {
    #[command(flatten)]
    pub goal: GoalArg,
    /// The search algorithm [default: idastar]. Given, it runs as asked
    /// (no fallback to --fast).
    #[arg(long, short, value_enum)]
    pub algorithm: Option<AlgorithmArg>,
    /// Solve fast but not optimally, any size up to 127x127: place the
    /// board's lines (a row, then a column) until a core of 5x5 or less
    /// remains, searched optimally within 100,000 nodes, else weighted.
    #[arg(long)]
    pub fast: bool,
    /// Accept a solution up to PCT percent longer than optimal, found far
    /// sooner: weighted IDA* (over the tables where built), whose answer is
    /// guaranteed at most 1 + PCT/100 times the optimal length [default: 0,
    /// optimal].
    #[arg(long, value_name = "PCT", value_parser = whole_percent)]
    pub within: Option<u32>,
    /// The heuristic guiding A* and IDA* [default: pdb for 4x4 and 5x5 when
    /// their tables are built, linear-conflict otherwise].
    #[arg(long = "heuristic", value_enum)]
    pub heuristic: Option<HeuristicArg>,
    /// With --heuristic pdb: the partition whose tables to use (7z-8, 7-8,
    /// L7-8, S7-8, 6-6-3, 5-5-5 for 4x4; 6z-6z-6z-6z, 6-6-6-6 for 5x5; 8 for 3x3; tile lists
    /// such as "1,2,3;4,5,6"; z marks a zero-aware table), or a catalogue
    /// (partitions joined by +, or a name: duo, trio for 4x4; duo, septet,
    /// compound for 5x5) whose largest sum is used.
    #[arg(long, visible_alias = "catalogue")]
    pub partition: Option<String>,
    /// Directory of the pattern databases [default: $NPUZZLE_PDB_DIR, else
    /// ./data, else the user data directory (~/.local/share/npuzzle)].
    #[arg(long)]
    pub pdb_dir: Option<PathBuf>,
    /// With --heuristic pdb: skip the second lookup of the board mirrored
    /// about its main diagonal (for comparisons; it only costs nodes).
    #[arg(long)]
    pub no_reflection: bool,
    /// Give up after this many nodes. BFS and A*: boards kept in memory
    /// [default: as many as fit in about 1 GB]. IDA*: nodes expanded
    /// [default: none; for boards solved without tables, the optimal
    /// attempt gives way to --fast after 3,000,000].
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// Give up after S seconds of wall-clock time a board (decimals
    /// allowed, such as 0.5) [default: none]. Optimal and --within
    /// searches with no answer by then report so (--within keeps its last
    /// finished stage, with a weaker guarantee); the beam answers from the
    /// board nearest the goal it reached, finished by the reduction.
    #[arg(long, value_name = "S", value_parser = seconds_budget)]
    pub max_seconds: Option<std::time::Duration>,
    /// Spend up to S seconds a board for a shorter answer where the beam
    /// answers (5x5 without tables to 10x10): after the default beam
    /// (however long it takes), beams twice as wide each until S seconds
    /// have passed; the shortest answer is printed, never longer than the
    /// default's, its note saying how long it searched and what that
    /// gained. A beam may keep up to 1 GiB of history [default: none, the
    /// default beam's answer in a few seconds]
    #[arg(long, value_name = "S", value_parser = seconds_budget,
          conflicts_with_all = ["fast", "within", "algorithm", "heuristic"])]
    pub anytime: Option<std::time::Duration>,
    /// Optimal searches of boards up to 5x5: run A*+IDA* with SIZE of
    /// memory (such as 2G or 500M; K, M, G, T are powers of 1024; tables
    /// not counted): the positions nearest the start are kept and
    /// expanded once each, and IDA* searches below them [default: plain
    /// IDA*, which keeps nothing].
    #[arg(long, value_name = "SIZE", value_parser = npuzzle::memory_size)]
    pub memory: Option<u64>,
    /// Threads: boards of a batch solved at once, or the threads sharing the
    /// search of a single board [default: one per core; at most 256].
    #[arg(long, short)]
    pub jobs: Option<usize>,
}

#[derive(Args)]
pub struct SolveArgs {
    /// The board: n*n numbers (one argument or several); or board files
    /// (one board per line, or algs4 files).
    pub board: Vec<String>,
    /// Read boards from this file ('-' for standard input); repeat for more.
    #[arg(long, short)]
    pub file: Vec<String>,
    /// Read instance-set lines: "id optimal-length tiles..." (as in bench/),
    /// or the Princeton list's "file n expected computed tiles...", and
    /// check every answer against the known length.
    #[arg(long)]
    pub set: bool,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Print every board of the solution (algs4 style).
    #[arg(long)]
    pub boards: bool,
    /// Write moves by the direction the tile moves (default) or the blank moves.
    #[arg(long, value_enum, default_value_t = NotationArg::Tile)]
    pub notation: NotationArg,
    /// Output: text, json (JSON Lines, one record per board, then a summary;
    /// see docs/solve-output.schema.json) or algs4 (exactly what the
    /// Princeton Solver prints).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub format: FormatArg,
    /// The same as --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// One line per board, "FILE: MOVES" (-1: unsolvable), as the Princeton
    /// PuzzleChecker prints.
    #[arg(long)]
    pub check: bool,
    /// Leave the moves out of the output (lengths and figures only): for
    /// big boards, whose solutions run to millions of moves.
    #[arg(long)]
    pub no_moves: bool,
    /// Also write the solution as a self-contained animated SVG (one board).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Keep one board's optimal search in FILE as it goes (once a minute,
    /// and when it ends unsolved), and go on from there when FILE holds an
    /// earlier run of the same search: a search of hours can be split
    /// across runs (with --max-seconds). Removed once solved.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The board: n*n numbers (one argument or several), or a board file.
    #[arg(required = true)]
    pub board: Vec<String>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Milliseconds between moves.
    #[arg(long, default_value_t = 300)]
    pub delay: u64,
}

#[derive(Args)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8015)]
    pub port: u16,
    /// The address to listen on. The default serves this machine only;
    /// 0.0.0.0 exposes the game (and the solver's CPU) to the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Another name the Host header may give (a DNS name or address of
    /// this machine); repeat for more. Requests naming any other host are
    /// refused (DNS rebinding); 127.0.0.1, localhost, [::1] and the
    /// --host address are always taken.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Connections held open at once (within the process's descriptor
    /// limit); more are closed at once. A client has 5 s to send a
    /// request's headers, 5 s for its body, and 5 s to start the next
    /// request on a kept-alive connection.
    #[arg(long, default_value_t = 16_384)]
    pub max_connections: usize,
    /// Open the page in the default browser.
    #[arg(long)]
    pub open: bool,
    /// Directory of the pattern databases [default: $NPUZZLE_PDB_DIR, else
    /// ./data, else the user data directory (~/.local/share/npuzzle)].
    #[arg(long)]
    pub pdb_dir: Option<PathBuf>,
    /// The 4x4 tables to use (7z-8, 7-8, 6-6-3, 5-5-5, tile lists, or a
    /// catalogue such as duo).
    #[arg(long, visible_alias = "catalogue")]
    pub partition: Option<String>,
    /// Expanded nodes a request may take before it is answered "too hard for
    /// this request" (the 80-move boards take about 4 to 6 million).
    #[arg(long, default_value_t = 20_000_000)]
    pub max_nodes: u64,
    /// The most seconds a request's `anytime` may give a 5x5 to 8x8 board
    /// for a shorter answer (within --max-nodes too); more is cut to it.
    #[arg(long, value_name = "S", value_parser = seconds_budget, default_value = "60")]
    pub max_anytime: std::time::Duration,
    /// Heavy requests (solves, and boards past 4x4) queued or running at
    /// once; more are answered 503 at once. Hints and checks of boards up
    /// to 4x4 have their own threads and queue.
    #[arg(long, default_value_t = 64)]
    pub queue: usize,
    /// Heavy requests one client address may have queued or running at
    /// once; more are answered 503 at once.
    #[arg(long, default_value_t = 2)]
    pub per_client: usize,
    /// Solver threads in each of the three pools [default: one per core].
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
    Algs4,
}

#[derive(Args, Clone)]
pub struct GoalArg {
    /// The solved position: blank-last is 1 2 ... 0, blank-first is 0 1 2 ...
    #[arg(long, value_enum, default_value_t = GoalName::BlankLast)]
    pub goal: GoalName,
}

#[derive(Args)]
pub struct CheckArgs {
    /// The board: n*n numbers (one argument or several); or board files,
    /// each board checked.
    #[arg(required = true)]
    pub board: Vec<String>,
    #[command(flatten)]
    pub goal: GoalArg,
}

#[derive(Args)]
pub struct RandomArgs {
    /// The side n of the n x n boards.
    #[arg(long, short, default_value_t = 4)]
    pub size: usize,
    /// How many boards.
    #[arg(long, short, default_value_t = 1)]
    pub count: usize,
    /// Seed, for reproducible boards (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub goal: GoalArg,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum GoalName {
    BlankLast,
    BlankFirst,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlgorithmArg {
    Bfs,
    Astar,
    Idastar,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HeuristicArg {
    Hamming,
    Manhattan,
    LinearConflict,
    Pdb,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum NotationArg {
    Tile,
    Blank,
}

impl GoalArg {
    pub fn goal(&self) -> Goal {
        match self.goal {
            GoalName::BlankLast => Goal::BlankLast,
            GoalName::BlankFirst => Goal::BlankFirst,
        }
    }
}

impl From<AlgorithmArg> for Algorithm {
    fn from(a: AlgorithmArg) -> Algorithm {
        match a {
            AlgorithmArg::Bfs => Algorithm::Bfs,
            AlgorithmArg::Astar => Algorithm::AStar,
            AlgorithmArg::Idastar => Algorithm::IdaStar,
        }
    }
}

impl From<HeuristicArg> for HeuristicKind {
    fn from(h: HeuristicArg) -> HeuristicKind {
        match h {
            HeuristicArg::Hamming => HeuristicKind::Hamming,
            HeuristicArg::Manhattan => HeuristicKind::Manhattan,
            HeuristicArg::LinearConflict => HeuristicKind::LinearConflict,
            HeuristicArg::Pdb => HeuristicKind::Pdb,
        }
    }
}

impl From<NotationArg> for Notation {
    fn from(n: NotationArg) -> Notation {
        match n {
            NotationArg::Tile => Notation::Tile,
            NotationArg::Blank => Notation::Blank,
        }
    }
}

#[derive(Subcommand)]
pub enum PdbCommand {
    /// Build the tables of a partition into a directory (what `cargo xtask build-pdb` runs).
    Build(BuildArgs),
    /// Print a table's header and its value histogram.
    Info {
        /// A table file (.pdb.zst, or an unpacked .pdb).
        file: PathBuf,
        /// Also count the placements of each value (reads the whole table).
        #[arg(long)]
        histogram: bool,
    },
    /// Check tables completely: header, length, CRC, and values proven
    /// exact (a named partition's table against the digest of npuzzle's
    /// build; any other built again and compared, as long as its build).
    Verify {
        /// Table files (.pdb.zst or .pdb).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a board's value in each table of a partition, and their sum.
    Lookup(LookupArgs),
    /// List the table files a partition or catalogue needs, which are built
    /// and what they take; exit 1 if some are missing.
    Files(FilesArgs),
}

#[derive(Args)]
pub struct FilesArgs {
    #[command(flatten)]
    pub which: PartitionArgs,
    /// Directory of the pattern databases [default: $NPUZZLE_PDB_DIR, else
    /// ./data, else the user data directory].
    #[arg(long)]
    pub pdb_dir: Option<PathBuf>,
}

#[derive(Args)]
pub struct PartitionArgs {
    /// Board side the tables are for.
    #[arg(long, default_value_t = 4)]
    pub size: usize,
    #[command(flatten)]
    pub goal: GoalArg,
    /// 7z-8, 7-8, L7-8, S7-8, 6-6-3 or 5-5-5 (4x4), 8 (3x3), 6-6-6-6 or
    /// B6-6-6-6 (5x5), 5-5-5-5-5-5-5 (6x6), 5-5-5-5-4-5-5-4-5-5 (7x7), or tile lists such as
    /// "1,2,3,4;5,6,7"; a z after a
    /// part ("7z-8") or before a tile list makes that table zero-aware.
    /// Partitions joined by + (or a catalogue name: duo, trio for 4x4; duo,
    /// septet, compound for 5x5) give the largest of their sums [default:
    /// 3 for 2x2, 8 for 3x3, 7-8 for 4x4, 6z-6z-6z-6z for 5x5,
    /// 5-5-5-5-5-5-5 for 6x6, 5-5-5-5-4-5-5-4-5-5 for 7x7; none past 7x7].
    #[arg(long, visible_alias = "catalogue")]
    pub partition: Option<String>,
}

impl PartitionArgs {
    pub fn partition(&self) -> Result<Partition, String> {
        let name = match &self.partition {
            Some(name) => name.clone(),
            None if Partition::has_default(self.size) => {
                Partition::default_name(self.size).to_string()
            }
            None => {
                return Err(format!(
                    "npuzzle has no default tables for {n}x{n} boards: name the tiles of \
                     each table with --partition (for example \"1,2,3,4,5;6,7,8,9,10\")",
                    n = self.size
                ))
            }
        };
        Partition::parse(&name, self.size, self.goal.goal()).map_err(|e| e.to_string())
    }
}

#[derive(Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub which: PartitionArgs,
    /// Directory for the tables [default: $NPUZZLE_PDB_DIR, else ./data when
    /// it is a writable directory, else the user data directory
    /// (~/.local/share/npuzzle on Linux)].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: one per core; at most 256).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Rebuild even when valid files exist.
    #[arg(long)]
    pub force: bool,
    /// zstd compression level for the files on disk, 1 (fastest) to 19
    /// (smallest); zstd's levels past 19 take far more memory.
    #[arg(long, default_value_t = 9,
          value_parser = clap::value_parser!(i32).range(LEVELS))]
    pub level: i32,
}

#[derive(Args)]
pub struct LookupArgs {
    /// The board: n*n numbers.
    #[arg(required = true)]
    pub board: Vec<String>,
    #[command(flatten)]
    pub which: PartitionArgs,
    /// Directory holding the tables.
    #[arg(long)]
    pub pdb_dir: Option<PathBuf>,
}

/// The zstd levels `pdb build --level` takes: zstd's standard ones (its
/// command line needs --ultra past 19, whose levels take hundreds of MB).
const LEVELS: std::ops::RangeInclusive<i64> = 1..=19;

/// `--max-seconds`: seconds from 0.001 to 10^6.
fn seconds_budget(text: &str) -> Result<std::time::Duration, String> {
    let seconds = text
        .trim()
        .parse::<f64>()
        .map_err(|_| "give seconds from 0.001 to 1000000, such as 10 or 0.5".to_string())?;
    npuzzle::time_budget(seconds)
}

/// `--within`: a whole percent, said so for "nan", "2.5" or "-1" too.
fn whole_percent(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|percent| *percent <= 1000)
        .ok_or_else(|| "give a whole percent from 0 (optimal) to 1000, such as 5".to_string())
}
