//! The Python package: its test environment under target/, its wheel
//! (`cargo xtask wheel`) and its tests (`cargo xtask python`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::stages;
use crate::workspace::{root, run, target_dir, test_npuzzle, TEST_PROFILE};

/// The test virtual environment under target/, made if missing, with
/// `packages` installed from PyPI; returns its python.
pub fn python_venv(packages: &[&str]) -> Result<PathBuf, String> {
    let venv = target_dir().join("python-venv");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        run(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv (on Debian: apt-get install python3-venv)",
        )?;
    }
    pip_install(&python, packages)?;
    Ok(python)
}

/// `pip install --quiet ARGS` in the environment of `python`.
pub fn pip_install(python: &Path, args: &[&str]) -> Result<(), String> {
    // One pip at a time: the suite's stages share one environment.
    static PIP: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = PIP.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(args),
        &format!("pip install {}", args.join(" ")),
    )
}

/// Builds the Python package into a virtual environment under target/ with
/// maturin and runs its tests with pytest.
pub fn python_tests() -> Result<(), String> {
    python_pytest(python_prepare()?)
}

/// What pytest runs against: the test environment's python, the wheel
/// installed into it and the command line the tests call.
pub struct PythonUnderTest {
    python: PathBuf,
    wheel: PathBuf,
    npuzzle: PathBuf,
}

/// Builds and installs the wheel and the command line: the part of the
/// Python stage that compiles (and so holds cargo's lock on target/).
pub fn python_prepare() -> Result<PythonUnderTest, String> {
    if let Some(missing) = stages::python_missing(&stages::Host::current()) {
        return Err(format!("the Python tests cannot run: {missing}"));
    }
    let (python, wheel) = python_package_and_wheel(TEST_PROFILE)?;
    let npuzzle = test_npuzzle()?;
    Ok(PythonUnderTest {
        python,
        wheel,
        npuzzle,
    })
}

/// Runs pytest over crates/python/tests against what [`python_prepare`]
/// built.
pub fn python_pytest(prepared: PythonUnderTest) -> Result<(), String> {
    let PythonUnderTest {
        python,
        wheel,
        npuzzle,
    } = prepared;
    let root = root();
    run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "--durations=10"])
            .arg(root.join("crates/python/tests"))
            .env("NPUZZLE_BIN", &npuzzle)
            .env("NPUZZLE_WHEEL", &wheel)
            .current_dir(&root),
        "pytest",
    )?;
    println!(
        "Python package installed in {venv}: {venv}/bin/python -c 'import npuzzle'",
        venv = target_dir().join("python-venv").display()
    );
    Ok(())
}

/// The test environment's packages: maturin builds the wheel; the tests
/// use the rest.
pub const TEST_PACKAGES: &[&str] = &[
    "maturin>=1.9,<2",
    "pytest",
    "numpy",
    "dask[distributed]",
    "pyarrow",
];

/// Builds the Python package with maturin and installs it into the test
/// environment under target/; returns its python.
pub fn python_package(profile: &str) -> Result<PathBuf, String> {
    python_package_and_wheel(profile).map(|(python, _)| python)
}

/// `python_package`, and the wheel it installed (target/wheels), its
/// engine built in `profile` (the tests': the engine they built already).
pub fn python_package_and_wheel(profile: &str) -> Result<(PathBuf, PathBuf), String> {
    let python = python_venv(TEST_PACKAGES)?;
    let wheels = target_dir().join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    let wheel = build_wheel(&python, &wheels, profile)?;
    pip_install(
        &python,
        &["--force-reinstall", "--no-deps", &wheel.to_string_lossy()],
    )?;
    Ok((python, wheel))
}

/// `cargo xtask wheel [--out DIR]`.
pub fn wheel(args: &[String]) -> Result<(), String> {
    let out = match args {
        [] => target_dir().join("wheels"),
        [flag, dir] if flag == "--out" => PathBuf::from(dir),
        _ => return Err("wheel: usage: cargo xtask wheel [--out DIR]".to_string()),
    };
    if let Some(missing) = stages::python_missing(&stages::Host::current()) {
        return Err(format!(
            "wheel: maturin runs in a virtual environment: {missing}"
        ));
    }
    let python = python_venv(&["maturin>=1.9,<2"])?;
    let wheel = build_wheel(&python, &out, "release")?;
    println!("{}", wheel.display());
    Ok(())
}

/// Builds the abi3 wheel (one for every CPython from 3.9: pyo3's
/// `abi3-py39`) into `out` with the maturin of `python`'s environment, the
/// engine in cargo's `profile`, in the workspace's target directory;
/// returns its path.
pub fn build_wheel(python: &Path, out: &Path, profile: &str) -> Result<PathBuf, String> {
    let maturin = python.with_file_name("maturin");
    eprintln!("xtask: building the Python wheel (the engine in the {profile} profile)");
    run(
        Command::new(maturin)
            .args(["build", "--profile", profile, "--quiet", "--manifest-path"])
            .arg(root().join("crates/python/Cargo.toml"))
            .arg("--out")
            .arg(out)
            .arg("--interpreter")
            .arg(python),
        "maturin build",
    )?;
    // The newest npuzzle wheel there: DIR may hold earlier ones.
    std::fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.extension().is_some_and(|e| e == "whl")
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("npuzzle-"))
        })
        .max_by_key(|path| path.metadata().and_then(|m| m.modified()).ok())
        .ok_or_else(|| format!("maturin made no wheel in {}", out.display()))
}
