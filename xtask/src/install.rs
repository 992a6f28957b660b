//! `cargo xtask man` and `cargo xtask install-c`: the manual pages and the
//! C library as a system expects them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::workspace::{release_npuzzle, root, run, target_dir};

/// The values of the task's options `NAMES` (each `NAME VALUE` or
/// `NAME=VALUE`) in `args`, in the order of `NAMES`; any other argument is
/// refused.
fn options<const N: usize>(
    args: &[String],
    names: [&str; N],
    task: &str,
) -> Result<[Option<PathBuf>; N], String> {
    let mut values: [Option<PathBuf>; N] = std::array::from_fn(|_| None);
    let mut rest = args.iter();
    'args: while let Some(arg) = rest.next() {
        for (name, value) in names.iter().zip(values.iter_mut()) {
            if arg == name {
                let v = rest
                    .next()
                    .ok_or_else(|| format!("{task}: {name} wants a directory"))?;
                *value = Some(PathBuf::from(v));
                continue 'args;
            } else if let Some(v) = arg.strip_prefix(&format!("{name}=")) {
                *value = Some(PathBuf::from(v));
                continue 'args;
            }
        }
        return Err(format!(
            "{task}: unknown option '{arg}' (only {})",
            names.map(|n| format!("{n} DIR")).join(", ")
        ));
    }
    Ok(values)
}

/// `cargo xtask man [--out DIR]`: the pages of `npuzzle` and each
/// subcommand (default: target/man), written by the release binary from
/// its own command-line definition.
pub fn man(args: &[String]) -> Result<(), String> {
    let [out] = options(args, ["--out"], "man")?;
    let out = out.unwrap_or_else(|| target_dir().join("man"));
    let npuzzle = release_npuzzle()?;
    run(
        Command::new(npuzzle).arg("man").arg("--out").arg(&out),
        "npuzzle man",
    )?;
    println!(
        "manual pages in {dir}: read one with `man -l {dir}/npuzzle.1`; install them by \
         copying them into a man1 directory (e.g. ~/.local/share/man/man1)",
        dir = out.display()
    );
    Ok(())
}

/// `cargo xtask install-c [--prefix DIR] [--built DIR]`: libnpuzzle.a and
/// libnpuzzle.so into DIR/lib, npuzzle.h into DIR/include and npuzzle.pc
/// into DIR/lib/pkgconfig (default DIR: /usr/local). The libraries are
/// built in release, or taken as built in `--built` (a packager's own
/// build, or the test suite's: `target/ci`).
pub fn install_c(args: &[String]) -> Result<(), String> {
    let [prefix, built] = options(args, ["--prefix", "--built"], "install-c")?;
    let prefix = prefix.unwrap_or_else(|| "/usr/local".into());
    let built = match built {
        Some(dir) => dir,
        None => {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            run(
                Command::new(cargo)
                    .args(["build", "--release", "--package", "npuzzle-capi"])
                    .current_dir(root()),
                "cargo build --release --package npuzzle-capi",
            )?;
            target_dir().join("release")
        }
    };
    let lib = prefix.join("lib");
    let include = prefix.join("include");
    let pkgconfig = lib.join("pkgconfig");
    for dir in [&lib, &include, &pkgconfig] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // The .pc file names the prefix as it will be found.
    let prefix = prefix
        .canonicalize()
        .map_err(|e| format!("{}: {e}", prefix.display()))?;
    for name in ["libnpuzzle.a", "libnpuzzle.so"] {
        copy(&built.join(name), &lib.join(name))?;
    }
    copy(
        &root().join("crates/capi/include/npuzzle.h"),
        &include.join("npuzzle.h"),
    )?;
    let pc = pkgconfig.join("npuzzle.pc");
    std::fs::write(&pc, pc_file(&prefix)).map_err(|e| format!("{}: {e}", pc.display()))?;
    println!(
        "installed libnpuzzle.a, libnpuzzle.so, include/npuzzle.h and lib/pkgconfig/npuzzle.pc \
         under {prefix}\nbuild with: cc hello.c $(pkg-config --cflags --libs npuzzle) -o hello\n\
         (pkg-config finds npuzzle.pc with PKG_CONFIG_PATH={pkgconfig} where that is not one \
         of its directories; the program finds libnpuzzle.so with -Wl,-rpath,{lib}, \
         LD_LIBRARY_PATH, or ldconfig)",
        prefix = prefix.display(),
        pkgconfig = prefix.join("lib/pkgconfig").display(),
        lib = prefix.join("lib").display(),
    );
    Ok(())
}

/// npuzzle.pc for a library installed under `prefix`. Static linking
/// (`pkg-config --static`) adds what the Rust standard library needs.
fn pc_file(prefix: &Path) -> String {
    format!(
        "prefix={prefix}\n\
         libdir=${{prefix}}/lib\n\
         includedir=${{prefix}}/include\n\
         \n\
         Name: npuzzle\n\
         Description: Optimal sliding-tile puzzle solutions over pattern databases\n\
         Version: {version}\n\
         Libs: -L${{libdir}} -lnpuzzle\n\
         Libs.private: -lpthread -ldl -lm\n\
         Cflags: -I${{includedir}}\n",
        prefix = prefix.display(),
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// Copies a file, replacing the target (a library in use keeps its old
/// inode instead of being overwritten in place).
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    let _ = std::fs::remove_file(to);
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}
