//! `npuzzle`: the command line. Argument parsing and output live here; the
//! work is done by the library crates.

mod input;
mod output;
mod pdb;
mod remedy;
mod serve;
mod show;
mod solve;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use npuzzle::{Algorithm, HeuristicKind};
use npuzzle_board::{random_board, Goal, Notation, SplitMix64};

/// Exit status: everything answered.
const EXIT_OK: u8 = 0;
/// Exit status: a search failed (limit reached) or a board is unsolvable (`check`).
const EXIT_FAILED: u8 = 1;
/// Exit status: bad input (a board, a file, an argument).
const EXIT_BAD_INPUT: u8 = 2;

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
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
        command: pdb::PdbCommand,
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
        out: std::path::PathBuf,
    },
}

/// How a board is searched: shared by `solve` and `play`.
#[derive(Args, Clone)]
struct SearchArgs {
    #[command(flatten)]
    goal: GoalArg,
    /// The search algorithm [default: idastar]. Given, it runs as asked
    /// (no fallback to --fast).
    #[arg(long, short, value_enum)]
    algorithm: Option<AlgorithmArg>,
    /// Solve fast but not optimally, any size up to 127x127: place the
    /// board's lines (a row, then a column) until a core of 5x5 or less
    /// remains, searched optimally within 100,000 nodes, else weighted.
    #[arg(long)]
    fast: bool,
    /// Accept a solution up to PCT percent longer than optimal, found far
    /// sooner: weighted IDA* (over the tables where built), whose answer is
    /// guaranteed at most 1 + PCT/100 times the optimal length [default: 0,
    /// optimal].
    #[arg(long, value_name = "PCT", value_parser = whole_percent)]
    within: Option<u32>,
    /// The heuristic guiding A* and IDA* [default: pdb for 4x4 and 5x5 when
    /// their tables are built, linear-conflict otherwise].
    #[arg(long = "heuristic", value_enum)]
    heuristic: Option<HeuristicArg>,
    /// With --heuristic pdb: the partition whose tables to use (7z-8, 7-8,
    /// L7-8, S7-8, 6-6-3, 5-5-5 for 4x4; 6z-6z-6z-6z, 6-6-6-6 for 5x5; 8 for 3x3; tile lists
    /// such as "1,2,3;4,5,6"; z marks a zero-aware table), or a catalogue
    /// (partitions joined by +, or a name: duo, trio for 4x4; duo, septet,
    /// compound for 5x5) whose largest sum is used.
    #[arg(long, visible_alias = "catalogue")]
    partition: Option<String>,
    /// Directory of the pattern databases [default: $NPUZZLE_PDB_DIR, else
    /// ./data, else the user data directory (~/.local/share/npuzzle)].
    #[arg(long)]
    pdb_dir: Option<std::path::PathBuf>,
    /// With --heuristic pdb: skip the second lookup of the board mirrored
    /// about its main diagonal (for comparisons; it only costs nodes).
    #[arg(long)]
    no_reflection: bool,
    /// Give up after this many nodes. BFS and A*: boards kept in memory
    /// [default: as many as fit in about 1 GB]. IDA*: nodes expanded
    /// [default: none; for boards solved without tables, the optimal
    /// attempt gives way to --fast after 3,000,000].
    #[arg(long)]
    max_nodes: Option<u64>,
    /// Give up after S seconds of wall-clock time a board (decimals
    /// allowed, such as 0.5) [default: none]. Optimal and --within
    /// searches with no answer by then report so (--within keeps its last
    /// finished stage, with a weaker guarantee); the beam answers from the
    /// board nearest the goal it reached, finished by the reduction.
    #[arg(long, value_name = "S", value_parser = seconds_budget)]
    max_seconds: Option<std::time::Duration>,
    /// Threads: boards of a batch solved at once, or the threads sharing the
    /// search of a single board [default: one per core; at most 256].
    #[arg(long, short)]
    jobs: Option<usize>,
}

#[derive(Args)]
struct SolveArgs {
    /// The board: n*n numbers (one argument or several); or board files
    /// (one board per line, or algs4 files).
    board: Vec<String>,
    /// Read boards from this file ('-' for standard input); repeat for more.
    #[arg(long, short)]
    file: Vec<String>,
    /// Read instance-set lines: "id optimal-length tiles..." (as in bench/),
    /// or the Princeton list's "file n expected computed tiles...", and
    /// check every answer against the known length.
    #[arg(long)]
    set: bool,
    #[command(flatten)]
    search: SearchArgs,
    /// Print every board of the solution (algs4 style).
    #[arg(long)]
    boards: bool,
    /// Write moves by the direction the tile moves (default) or the blank moves.
    #[arg(long, value_enum, default_value_t = NotationArg::Tile)]
    notation: NotationArg,
    /// Output: text, json (JSON Lines, one record per board, then a summary;
    /// see docs/solve-output.schema.json) or algs4 (exactly what the
    /// Princeton Solver prints).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// The same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// One line per board, "FILE: MOVES" (-1: unsolvable), as the Princeton
    /// PuzzleChecker prints.
    #[arg(long)]
    check: bool,
    /// Leave the moves out of the output (lengths and figures only): for
    /// big boards, whose solutions run to millions of moves.
    #[arg(long)]
    no_moves: bool,
    /// Also write the solution as a self-contained animated SVG (one board).
    #[arg(long, value_name = "FILE")]
    svg: Option<std::path::PathBuf>,
}

#[derive(Args)]
struct PlayArgs {
    /// The board: n*n numbers (one argument or several), or a board file.
    #[arg(required = true)]
    board: Vec<String>,
    #[command(flatten)]
    search: SearchArgs,
    /// Milliseconds between moves.
    #[arg(long, default_value_t = 300)]
    delay: u64,
}

#[derive(Args)]
struct ServeArgs {
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8015)]
    port: u16,
    /// The address to listen on. The default serves this machine only;
    /// 0.0.0.0 exposes the game (and the solver's CPU) to the network.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// Another name the Host header may give (a DNS name or address of
    /// this machine); repeat for more. Requests naming any other host are
    /// refused (DNS rebinding); 127.0.0.1, localhost, [::1] and the
    /// --host address are always taken.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// Connections held open at once (within the process's descriptor
    /// limit); more are closed at once. A client has 5 s to send a
    /// request's headers, 5 s for its body, and 5 s to start the next
    /// request on a kept-alive connection.
    #[arg(long, default_value_t = 16_384)]
    max_connections: usize,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
    /// Directory of the pattern databases [default: $NPUZZLE_PDB_DIR, else
    /// ./data, else the user data directory (~/.local/share/npuzzle)].
    #[arg(long)]
    pdb_dir: Option<std::path::PathBuf>,
    /// The 4x4 tables to use (7z-8, 7-8, 6-6-3, 5-5-5, tile lists, or a
    /// catalogue such as duo).
    #[arg(long, visible_alias = "catalogue")]
    partition: Option<String>,
    /// Expanded nodes a request may take before it is answered "too hard for
    /// this request" (the 80-move boards take about 4 to 6 million).
    #[arg(long, default_value_t = 20_000_000)]
    max_nodes: u64,
    /// Heavy requests (solves, and boards past 4x4) queued or running at
    /// once; more are answered 503 at once. Hints and checks of boards up
    /// to 4x4 have their own threads and queue.
    #[arg(long, default_value_t = 64)]
    queue: usize,
    /// Heavy requests one client address may have queued or running at
    /// once; more are answered 503 at once.
    #[arg(long, default_value_t = 2)]
    per_client: usize,
    /// Solver threads in each of the three pools [default: one per core].
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Algs4,
}

#[derive(Args, Clone)]
struct GoalArg {
    /// The solved position: blank-last is 1 2 ... 0, blank-first is 0 1 2 ...
    #[arg(long, value_enum, default_value_t = GoalName::BlankLast)]
    goal: GoalName,
}

#[derive(Args)]
struct CheckArgs {
    /// The board: n*n numbers (one argument or several); or board files,
    /// each board checked.
    #[arg(required = true)]
    board: Vec<String>,
    #[command(flatten)]
    goal: GoalArg,
}

#[derive(Args)]
struct RandomArgs {
    /// The side n of the n x n boards.
    #[arg(long, short, default_value_t = 4)]
    size: usize,
    /// How many boards.
    #[arg(long, short, default_value_t = 1)]
    count: usize,
    /// Seed, for reproducible boards (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    goal: GoalArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum GoalName {
    BlankLast,
    BlankFirst,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AlgorithmArg {
    Bfs,
    Astar,
    Idastar,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum HeuristicArg {
    Hamming,
    Manhattan,
    LinearConflict,
    Pdb,
}

#[derive(Clone, Copy, ValueEnum)]
enum NotationArg {
    Tile,
    Blank,
}

impl GoalArg {
    fn goal(&self) -> Goal {
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

/// The build targets x86-64-v2: refuse plainly on a CPU without it rather
/// than die of an illegal instruction later.
fn check_cpu() -> Result<(), String> {
    #[cfg(target_arch = "x86_64")]
    {
        let missing: Vec<&str> = [
            ("popcnt", std::is_x86_feature_detected!("popcnt")),
            ("sse4.2", std::is_x86_feature_detected!("sse4.2")),
            ("ssse3", std::is_x86_feature_detected!("ssse3")),
        ]
        .into_iter()
        .filter(|(_, present)| !present)
        .map(|(name, _)| name)
        .collect();
        if !missing.is_empty() {
            return Err(format!(
                "this build needs an x86-64 CPU with {} (2009 or newer); build one for \
                 this CPU with: RUSTFLAGS=\"-C target-cpu=native\" cargo install --locked --path crates/cli",
                missing.join(", ")
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    if let Err(message) = check_cpu() {
        eprintln!("npuzzle: {message}");
        return ExitCode::from(EXIT_FAILED);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let mut out = io::BufWriter::new(io::stdout().lock());
    let result = match cli.command {
        Command::Solve(args) => solve::run(&args, &mut out),
        Command::Play(args) => solve::play(&args, &mut out),
        Command::Check(args) => check(&args, &mut out),
        Command::Random(args) => random(&args, &mut out),
        Command::Serve(args) => Ok(serve::run(&args)),
        Command::Pdb { command } => pdb::run(&command, &mut out),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "npuzzle", &mut out);
            Ok(EXIT_OK)
        }
        Command::Man { out: dir } => man(&dir),
    };
    let result = result.and_then(|code| out.flush().map(|_| code));
    match result {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_OK),
        Err(e) => {
            eprintln!("npuzzle: {e}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// The manual pages of the command and its visible subcommands.
fn man(dir: &std::path::Path) -> io::Result<u8> {
    std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(Cli::command(), dir))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    Ok(EXIT_OK)
}

/// Clap's message, and for a board typed without a subcommand the
/// command that solves it.
fn usage_error(e: clap::Error) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let board_typed = e.kind() == clap::error::ErrorKind::InvalidSubcommand
        && args.first().is_some_and(|first| {
            first.chars().any(|c| c.is_ascii_digit())
                && first
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_whitespace() || ",/".contains(c))
        });
    if !board_typed {
        e.exit();
    }
    let quoted: Vec<String> = args
        .iter()
        .map(|arg| {
            if arg.contains(char::is_whitespace) || arg.contains('/') {
                format!("\"{arg}\"")
            } else {
                arg.clone()
            }
        })
        .collect();
    eprintln!(
        "npuzzle: '{}' is not a command; to solve that board, run:\n  npuzzle solve {}\n\
         (npuzzle --help lists the commands)",
        npuzzle_board::echo(&args[0]),
        quoted.join(" ")
    );
    ExitCode::from(EXIT_BAD_INPUT)
}

/// `npuzzle check`: for each board (arguments or files, as `solve` reads
/// them), whether it is valid and solvable for the goal, and why not.
fn check(args: &CheckArgs, out: &mut impl Write) -> io::Result<u8> {
    let goal = args.goal.goal();
    let sources = match input::sources(&args.board, &[]) {
        Ok(sources) => sources,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let from_files = !matches!(&sources[..], [input::Source::Arguments(_)]);
    let mut status = EXIT_OK;
    let mut boards = 0;
    for item in input::Inputs::new(sources, false) {
        boards += 1;
        let input = match item {
            Ok(input) => input,
            Err(message) => {
                eprintln!("npuzzle: {message}");
                status = EXIT_BAD_INPUT;
                continue;
            }
        };
        let place = match (&input.file, from_files) {
            (Some(file), true) => format!("{file} line {}: ", input.item.line),
            _ => String::new(),
        };
        let board = match &input.item.board {
            Ok(board) => board,
            Err(e) => {
                // The place names the line the error would.
                let (place, e) = match (&input.file, from_files) {
                    (Some(file), true) => {
                        let line = e.line.unwrap_or(input.item.line);
                        let e = npuzzle_board::ParseError {
                            line: None,
                            ..e.clone()
                        };
                        (format!("{file} line {line}: "), e)
                    }
                    _ => (place, e.clone()),
                };
                writeln!(out, "{place}invalid: {e}")?;
                status = EXIT_BAD_INPUT;
                continue;
            }
        };
        let n = board.size();
        if board.is_solvable(goal) {
            writeln!(out, "{place}valid {n}x{n} board, solvable for goal {goal}")?;
            continue;
        }
        let other = Goal::ALL
            .into_iter()
            .find(|&g| g != goal && board.is_solvable(g));
        writeln!(
            out,
            "{place}valid {n}x{n} board, not solvable for goal {goal}: every move flips both \
             the parity of the tile permutation and the parity of the blank's distance to its \
             goal cell, and here they disagree{}",
            match other {
                Some(g) => format!(" (it is solvable for goal {g})"),
                None => String::new(),
            }
        )?;
        if status == EXIT_OK {
            status = EXIT_FAILED;
        }
    }
    if boards == 0 {
        eprintln!("npuzzle: no boards in the input");
        return Ok(EXIT_BAD_INPUT);
    }
    Ok(status)
}

fn random(args: &RandomArgs, out: &mut impl Write) -> io::Result<u8> {
    if !(npuzzle_board::MIN_SIZE..=npuzzle_board::MAX_SIZE).contains(&args.size) {
        eprintln!(
            "npuzzle: --size {} is out of range: n must be from {} to {}",
            args.size,
            npuzzle_board::MIN_SIZE,
            npuzzle_board::MAX_SIZE
        );
        return Ok(EXIT_BAD_INPUT);
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
    });
    let mut rng = SplitMix64::new(seed);
    for _ in 0..args.count {
        let board = random_board(args.size, args.goal.goal(), &mut rng);
        let line: Vec<String> = board.tiles().iter().map(u16::to_string).collect();
        writeln!(out, "{}", line.join(" "))?;
    }
    Ok(EXIT_OK)
}

/// `--within`: a whole percent, said so for "nan", "2.5" or "-1" too.
fn seconds_budget(text: &str) -> Result<std::time::Duration, String> {
    let seconds = text
        .trim()
        .parse::<f64>()
        .map_err(|_| "give seconds from 0.001 to 1000000, such as 10 or 0.5".to_string())?;
    npuzzle::time_budget(seconds)
}

fn whole_percent(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|percent| *percent <= 1000)
        .ok_or_else(|| "give a whole percent from 0 (optimal) to 1000, such as 5".to_string())
}
