//! Section "soak": `npuzzle serve` under ten minutes of mixed traffic.

use std::fmt::Write as _;

use super::context::Ctx;

use super::integration::integration_test;

use super::strategies::SERVER_STRATEGY;
use crate::workspace::root;

/// `npuzzle serve` under ten minutes of mixed traffic (the suite's soak
/// test, pointed at data/): resident memory and the hints' p99 per minute.
pub fn run(_ctx: &Ctx, report: &mut String) -> Result<(), String> {
    eprintln!("bench: serve soak, 10 minutes");
    let data = root().join("data");
    let stderr = integration_test(
        "serve::serve_under_mixed_traffic_stays_flat",
        &[
            ("NPUZZLE_LOAD_PDB_DIR", data.as_os_str()),
            ("NPUZZLE_SOAK_SECONDS", "600".as_ref()),
        ],
    )?;
    let _ = writeln!(
        report,
        "## `npuzzle serve` soak: 10 minutes of mixed traffic (7-8 tables)\n\n\
         Four clients over loopback: two ask hints on 4x4 boards (timed), one checks 5x5 to \
         8x8 boards and solves a distance-80 board one time in ten, one sends malformed \
         requests, connects and hangs up mid-request, and asks random boards. Each minute: \
         the server's resident memory and the hints' p99 over that minute. {SERVER_STRATEGY}\n"
    );
    for line in stderr.lines().filter_map(|l| l.strip_prefix("soak: ")) {
        let _ = writeln!(report, "- {line}");
    }
    let _ = writeln!(report);
    Ok(())
}
