//! `cargo xtask bench`: solves the standard sets and writes a report.

pub fn run(_args: &[String]) -> Result<(), String> {
    Err("bench is not written yet".to_string())
}
