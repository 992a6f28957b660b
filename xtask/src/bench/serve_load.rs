//! Section "serve-load": the game's server under load.

use std::fmt::Write as _;

use super::context::Ctx;

use super::integration::integration_test;

use super::strategies::SERVER_STRATEGY;
use crate::workspace::root;

/// The game's server under load: the test suite's load test, pointed at data/.
pub fn run(_ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let data = root().join("data");
    // The load test and the flood of idle connections (the flood of
    // heavy boards has its own section).
    let stderr = integration_test(
        "serve::",
        &[
            ("NPUZZLE_LOAD_PDB_DIR", data.as_os_str()),
            ("NPUZZLE_FLOOD_CONNECTIONS", "10000".as_ref()),
        ],
    )?;
    let _ = writeln!(
        report,
        "## `npuzzle serve` under load (7-8 tables)\n\n\
         Hint requests (`POST /api/hint`, an optimal solution) on fresh random 4x4 boards while \
         three clients solve distance-80 boards, over loopback; then hints while 10,000 idle \
         connections are held open. {SERVER_STRATEGY}\n"
    );
    let measured = |l: &'_ str| -> Option<String> {
        l.strip_prefix("load: ")
            .or_else(|| l.strip_prefix("flood: "))
            .map(str::to_string)
    };
    for line in stderr.lines().filter_map(measured) {
        let _ = writeln!(report, "- {line}");
    }
    let _ = writeln!(report);
    eprintln!("bench: serve load done");
    Ok(())
}
