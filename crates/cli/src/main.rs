//! `npuzzle`: the command line. This file dispatches; the arguments are
//! in `args`, each command in its own module, and the work is done by the
//! library crates.

mod args;
mod check;
mod checkpoint;
mod input;
mod output;
mod pdb;
mod random;
mod remedy;
mod serve;
mod show;
mod solve;
mod status;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::args::{Cli, Command};
use crate::status::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

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
        Command::Check(args) => check::run(&args, &mut out),
        Command::Random(args) => random::run(&args, &mut out),
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
