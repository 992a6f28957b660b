//! Section "web": the engine in WebAssembly in headless Chromium
//! (bench/web_bench.py, Playwright): the `.wasm`'s size, the page ready
//! cold and from the service worker, the node rate against the native
//! engine on the same boards, 4x4 tables and hints, and 5x5 to 8x8 beside
//! the command line. Every answer is replayed to the goal.

use std::fmt::Write as _;
use std::process::Command;

use super::context::Ctx;
use crate::stages;
use crate::workspace::{root, target_dir};

pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let host = stages::Host::current();
    if let Some(missing) = stages::web_missing(&host)
        .or_else(|| stages::python_missing(&host))
        .or_else(|| stages::browser_missing(&host))
    {
        return Err(format!("the web section cannot run: {missing}"));
    }
    let site = target_dir().join("web");
    crate::web::build_site(&site)?;
    let python = crate::python::python_venv(&["playwright>=1.40,<2"])?;
    let output = Command::new(python)
        .arg(root().join("bench/web_bench.py"))
        .env("NPUZZLE_WEB_DIR", &site)
        .env("NPUZZLE_BIN", &ctx.npuzzle)
        .env("CHROMIUM", &host.chromium)
        .env("NPUZZLE_BENCH_QUICK", if ctx.quick { "1" } else { "0" })
        .output()
        .map_err(|e| format!("cannot run bench/web_bench.py: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "bench/web_bench.py failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let _ = writeln!(
        report,
        "## The engine in WebAssembly (the static site, headless Chromium)\n\n{}",
        String::from_utf8_lossy(&output.stdout).trim_end()
    );
    let _ = writeln!(report);
    Ok(())
}
