//! `cargo xtask web`: the static, installable, offline site (the game, its
//! worker, the engine's `.wasm`, the service worker, the manifest) and the
//! JavaScript door (`npuzzle.js`, `npuzzle.d.ts`), in one folder that any
//! static file server serves.
//!
//! The engine is compiled for `wasm32-unknown-unknown` with rustup's target
//! where it is installed; else with Debian's Rust for the web
//! (`rustc-web`, std built from `rust-web-src` with `-Zbuild-std`),
//! installed with apt-get when run as root.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace::{root, run, target_dir};

const TARGET: &str = "wasm32-unknown-unknown";

/// Debian's packages for compiling Rust to WebAssembly without rustup;
/// `lld-22` provides the `rust-lld` linker the target names.
const DEBIAN_PACKAGES: [&str; 5] = [
    "rustc-web",
    "cargo-web",
    "rust-web-src",
    "rust-web-llvm",
    "lld-22",
];

/// The page's files, shared with `npuzzle serve` (crates/cli/assets).
const PAGE: &str = "crates/cli/assets";
/// The JavaScript door (crates/wasm/js).
const DOOR: &str = "crates/wasm/js";

/// How the engine is compiled here.
enum Toolchain {
    /// rustup's target is installed: plain `cargo build --target`.
    Rustup,
    /// Debian's rustc-web, with std built from its source.
    Debian { cargo: PathBuf, rustc: PathBuf },
}

fn rustup_has_target() -> bool {
    Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| {
            o.status.success()
                && String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .any(|l| l == TARGET)
        })
}

/// Debian's rustc-web, if its compiler, std source and linker are there.
fn debian_toolchain() -> Option<Toolchain> {
    let rustc = PathBuf::from("/usr/bin/rustc");
    let cargo = PathBuf::from("/usr/bin/cargo");
    let std_source = Path::new("/usr/lib/rustlib/src/rust/library/std");
    let linker = Path::new("/usr/bin/rust-lld");
    (rustc.is_file() && cargo.is_file() && std_source.is_dir() && linker.exists())
        .then_some(Toolchain::Debian { cargo, rustc })
}

/// Whether a Rust compiler for WebAssembly is installed (rustup's target
/// or Debian's rustc-web).
pub fn compiler_available() -> bool {
    rustup_has_target() || debian_toolchain().is_some()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == b"0")
}

/// The toolchain to use, installing Debian's when run as root and nothing
/// else is there.
fn toolchain() -> Result<Toolchain, String> {
    if rustup_has_target() {
        return Ok(Toolchain::Rustup);
    }
    if let Some(found) = debian_toolchain() {
        return Ok(found);
    }
    let install = format!("apt-get install {}", DEBIAN_PACKAGES.join(" "));
    let rustup = format!("rustup target add {TARGET}");
    if !is_root() || Command::new("apt-get").arg("--version").output().is_err() {
        return Err(format!(
            "web: no Rust compiler for {TARGET} here: `{rustup}`, or on Debian (as root) \
             `{install}`"
        ));
    }
    // rustup may add the target where it can download it.
    if Command::new("rustup")
        .args(["target", "add", TARGET])
        .status()
        .is_ok_and(|s| s.success())
    {
        return Ok(Toolchain::Rustup);
    }
    eprintln!("xtask: installing Debian's Rust for WebAssembly: {install}");
    run(
        Command::new("apt-get").args(["update", "-qq"]),
        "apt-get update",
    )?;
    run(
        Command::new("apt-get")
            .args(["install", "-y", "-qq"])
            .args(DEBIAN_PACKAGES)
            .env("DEBIAN_FRONTEND", "noninteractive"),
        &install,
    )?;
    debian_toolchain().ok_or_else(|| {
        format!("web: `{install}` ran, but /usr/bin/rustc, its std source or rust-lld is missing")
    })
}

/// Compiles the engine; returns the `.wasm`.
fn compile_engine() -> Result<PathBuf, String> {
    let toolchain = toolchain()?;
    // A target directory of its own: Debian's compiler is another version
    // than the native build's, and would rebuild everything each time.
    let out = target_dir().join("wasm");
    let mut command = match &toolchain {
        Toolchain::Rustup => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            Command::new(cargo)
        }
        Toolchain::Debian { cargo, rustc } => {
            let mut command = Command::new(cargo);
            command
                .env("RUSTC", rustc)
                // -Zbuild-std on a stable compiler: std is compiled from
                // the source Debian ships, for this target alone.
                .env("RUSTC_BOOTSTRAP", "1")
                .env_remove("RUSTUP_TOOLCHAIN")
                .arg("-Zbuild-std=std,panic_abort");
            command
        }
    };
    eprintln!(
        "xtask: compiling the engine for {TARGET} (the first time takes a few minutes, \
         std included)"
    );
    run(
        command
            .args(["build", "--target", TARGET, "--profile", "web"])
            .args(["--package", "npuzzle-wasm", "--target-dir"])
            .arg(&out)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .current_dir(root()),
        "cargo build --target wasm32-unknown-unknown",
    )?;
    Ok(out.join(TARGET).join("web").join("npuzzle_wasm.wasm"))
}

/// The files of the site, with their contents: the page, the door, the
/// engine; the service worker stamped with the build and its file list.
fn site_files(wasm: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let read = |path: &Path| fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in [PAGE, DOOR] {
        let dir = root().join(dir);
        let mut entries: Vec<PathBuf> = fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| format!("{}: not a UTF-8 name", path.display()))?
                .to_string();
            files.push((name, read(&path)?));
        }
    }
    files.push(("npuzzle.wasm".to_string(), read(wasm)?));
    // The service worker caches every file; its stamp changes with any of
    // them, so a new build replaces the cached copies.
    let mut hasher = crc32fast::Hasher::new();
    for (name, bytes) in &files {
        hasher.update(name.as_bytes());
        hasher.update(bytes);
    }
    let stamp = format!("{:08x}", hasher.finalize());
    let mut names: Vec<String> = files
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| name != "sw.js")
        .collect();
    names.sort();
    let list = names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ");
    for (name, bytes) in &mut files {
        if name == "sw.js" {
            let text = String::from_utf8_lossy(bytes)
                .replace("\"__NPUZZLE_BUILD__\"", &format!("\"{stamp}\""))
                .replace("[/* __NPUZZLE_FILES__ */]", &format!("[{list}]"));
            *bytes = text.into_bytes();
        }
    }
    Ok(files)
}

/// `cargo xtask web [--out DIR]`: builds the site into DIR (default
/// target/web) and prints its path.
pub fn run_web(args: &[String]) -> Result<(), String> {
    let out = match args {
        [] => target_dir().join("web"),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => return Err("web: usage: cargo xtask web [--out DIR]".to_string()),
    };
    build_site(&out)?;
    println!("{}", out.display());
    Ok(())
}

/// The JavaScript door's tests (tests/node) under Node, against the
/// test profile's `npuzzle`, over the site built into target/web.
pub fn node_tests() -> Result<(), String> {
    let site = target_dir().join("web");
    build_site(&site)?;
    let npuzzle = crate::workspace::test_npuzzle()?;
    // The command line compared against sees no tables but those a test
    // names: tables the user built into ./data would make it search
    // optimally where the engine in WebAssembly has none.
    let no_tables = target_dir().join("ci/no-tables");
    std::fs::create_dir_all(&no_tables).map_err(|e| format!("{}: {e}", no_tables.display()))?;
    run(
        Command::new("node")
            .arg("--test")
            .arg(root().join("tests/node"))
            .env("NPUZZLE_WEB_DIR", &site)
            .env("NPUZZLE_BIN", &npuzzle)
            .env("NPUZZLE_PDB_DIR", &no_tables)
            .current_dir(root()),
        "node --test tests/node",
    )
}

/// Builds the site into `out`.
pub fn build_site(out: &Path) -> Result<(), String> {
    let out = out.to_path_buf();
    let started = std::time::Instant::now();
    let wasm = compile_engine()?;
    let files = site_files(&wasm)?;
    // Written beside, then swapped in: a server never serves half a site.
    let staging = out.with_extension("partial");
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging).map_err(|e| format!("{}: {e}", staging.display()))?;
    for (name, bytes) in &files {
        let path = staging.join(name);
        fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let _ = fs::remove_dir_all(&out);
    fs::rename(&staging, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    let wasm_bytes = files
        .iter()
        .find(|(n, _)| n == "npuzzle.wasm")
        .map_or(0, |(_, b)| b.len());
    eprintln!(
        "xtask: the site is built ({} files, engine {:.1} MB) in {:.0} s; serve the folder \
         with any static server, for example: python3 -m http.server -d {} 8000",
        files.len(),
        wasm_bytes as f64 / 1e6,
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_worker_is_stamped_with_the_build_and_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let wasm = dir.path().join("engine.wasm");
        fs::write(&wasm, b"\0asm").unwrap();
        let files = site_files(&wasm).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        for wanted in [
            "index.html",
            "app.js",
            "npuzzle.js",
            "npuzzle.wasm",
            "sw.js",
        ] {
            assert!(names.contains(&wanted), "{names:?}");
        }
        let sw = files.iter().find(|(n, _)| n == "sw.js").unwrap();
        let sw = String::from_utf8_lossy(&sw.1);
        assert!(!sw.contains("__NPUZZLE_BUILD__"), "{sw}");
        assert!(!sw.contains("__NPUZZLE_FILES__"), "{sw}");
        assert!(sw.contains("\"npuzzle.wasm\""), "{sw}");
        // Another engine, another stamp.
        fs::write(&wasm, b"\0asm\x01").unwrap();
        let again = site_files(&wasm).unwrap();
        let again = String::from_utf8_lossy(&again.iter().find(|(n, _)| n == "sw.js").unwrap().1)
            .to_string();
        assert_ne!(sw, again);
    }
}
