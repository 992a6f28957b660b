//! `cargo xtask digests`: builds every table of every named partition and
//! catalogue in memory and writes their digests into
//! `crates/pdb/digests.txt`, which the program ships to recognise the
//! tables it builds (see `crates/pdb/src/known.rs`). The work is the
//! `digests` example of npuzzle-pdb, built in release: xtask itself
//! compiles no table generator.

use std::process::Command;

use crate::workspace::{cargo, root, run as run_command};

pub fn run(args: &[String]) -> Result<(), String> {
    let mut command = Command::new(cargo());
    command
        .args(["run", "--release", "--quiet", "--package", "npuzzle-pdb"])
        .args([
            "--features",
            "generate,digest",
            "--example",
            "digests",
            "--",
        ])
        .args(args);
    if !args.iter().any(|a| a == "--out") {
        command
            .arg("--out")
            .arg(root().join("crates/pdb/digests.txt"));
    }
    run_command(command.current_dir(root()), "the digests example")
}
