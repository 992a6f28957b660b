//! Section "docs": the docs' shell blocks against the real tables.

use std::fmt::Write as _;
use std::time::Instant;

use super::context::Ctx;

use super::integration::integration_test;

/// Runs the docs' shell blocks with the real tables, those marked for the
/// bench too (the 7-8 build and solve of the README's quick start).
pub fn run(_ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let started = Instant::now();
    let printed = integration_test(
        "docs::every_shell_block",
        &[("NPUZZLE_DOCS_FULL", "1".as_ref())],
    )?;
    let ran = printed
        .lines()
        .find_map(|line| line.strip_prefix("docs: "))
        .unwrap_or("the commands ran");
    let _ = writeln!(
        report,
        "## The docs' examples with the full tables\n\nEvery shell block of README.md and \
         docs/, those marked for the bench included, run as written against data/: {ran}, \
         all as their comments say, in {:.0} s.\n",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
