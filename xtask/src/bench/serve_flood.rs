//! Section "serve-flood": hints of `npuzzle serve` under a flood of
//! heavy boards.

use std::fmt::Write as _;

use super::context::Ctx;

use super::data::has_default_tables;

use super::integration::integration_test;

use super::strategies::SERVER_STRATEGY;
use crate::workspace::root;

/// Hints of `npuzzle serve` while 24 clients post random 5x5 to 8x8 boards
/// for 30 s (the suite's flood test, on data/'s 7-8 tables when built):
/// the clients sharing one address's share of heavy work, then each with a
/// share of its own (as if from 24 addresses: only --queue bounds them).
pub fn run(_ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let data = root().join("data");
    let tables = if has_default_tables() {
        "the 7-8 tables, hints of uniformly random 4x4 boards"
    } else {
        "the test suite's 6-6-3 tables as data/ has no 7-8, hints of 4x4 boards 30 to 50 \
         random moves from solved"
    };
    let _ = writeln!(
        report,
        "## `npuzzle serve` under a flood of heavy boards\n\n\
         24 clients over loopback post random 5x5 to 8x8 boards to /api/hint and /api/solve \
         for 30 s, each as soon as the last is answered (50 ms after a 503), giving up after \
         8 s, while one more client asks hints one after another ({tables}; --queue 64, one \
         thread per core in each pool). First with the default --per-client 2, which the 24 \
         clients share on loopback, then with --per-client 24, as if each had its own \
         address. {SERVER_STRATEGY}\n"
    );
    for per_client in ["2", "24"] {
        eprintln!("bench: serve under a flood of heavy boards, --per-client {per_client}, 30 s");
        let mut envs: Vec<(&str, &std::ffi::OsStr)> = vec![
            ("NPUZZLE_HEAVY_CLIENTS", "24".as_ref()),
            ("NPUZZLE_HEAVY_SECONDS", "30".as_ref()),
            ("NPUZZLE_HEAVY_PER_CLIENT", per_client.as_ref()),
        ];
        if has_default_tables() {
            envs.push(("NPUZZLE_LOAD_PDB_DIR", data.as_os_str()));
        }
        let stderr = integration_test(
            "serve::hints_answer_while_clients_flood_heavy_boards",
            &envs,
        )?;
        for line in stderr.lines().filter_map(|l| l.strip_prefix("heavy: ")) {
            let _ = writeln!(report, "- {line}");
        }
    }
    let _ = writeln!(report);
    Ok(())
}
