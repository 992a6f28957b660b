//! The integration tests that sections run for their figures.

use std::process::Command;

use crate::workspace::root;

/// Runs the integration tests matching `filter` (release build, output
/// shown) with `envs`; returns what they printed on stderr.
pub fn integration_test(filter: &str, envs: &[(&str, &std::ffi::OsStr)]) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .args([
            "test",
            "--release",
            "--quiet",
            "--package",
            "npuzzle-cli",
            "--test",
            "integration",
            filter,
            "--",
            "--nocapture",
        ])
        .current_dir(root());
    for (name, value) in envs {
        command.env(name, value);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run cargo test: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(format!(
            "the tests {filter} failed:\n{}{stderr}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    Ok(stderr)
}
