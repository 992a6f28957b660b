//! The heuristic strategies that `npuzzle solve --json` records name.

use std::collections::BTreeSet;

use serde_json::Value;

/// The heuristic strategy a `npuzzle solve --json` record names, `-` when
/// it names none.
pub fn strategy(record: &Value) -> &str {
    record["strategy"].as_str().unwrap_or("-")
}

/// The strategies of several records, each once, `-` for none.
pub fn strategies<'a>(records: impl IntoIterator<Item = &'a Value>) -> String {
    join_strategies(records.into_iter().map(strategy))
}

/// Distinct strategies, sorted and joined; `-` for none.
pub fn join_strategies<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: BTreeSet<&str> = names.into_iter().collect();
    if names.is_empty() {
        return "-".to_string();
    }
    let known: Vec<&str> = names.iter().copied().filter(|n| *n != "-").collect();
    if known.is_empty() {
        "-".to_string()
    } else {
        known.join(", ")
    }
}

/// What the sections on `npuzzle serve` say of the strategy: its answers
/// do not name it.
pub const SERVER_STRATEGY: &str =
    "Strategy: - (the server's answers do not name the heuristic strategy).";
