//! The digests of every named partition's and catalogue's tables, for
//! `crates/pdb/digests.txt`, which the program ships to recognise the
//! tables it builds (see `src/known.rs`). Run by `cargo xtask digests`
//! (an example here, so that xtask itself needs no table generator).

use std::collections::BTreeMap;
use std::time::Instant;

use npuzzle_board::Goal;
use npuzzle_pdb::{
    build_file, hex, known_catalogues, known_partitions, scheme_code, table_digest, Partition,
    Pattern, Pdb,
};

const USAGE: &str = "usage: cargo xtask digests [--size N]... [--goal blank-last|blank-first]
       [--partition NAME]... --out FILE

Builds the tables of every named partition and catalogue (sizes 2 to 5,
both goals, unless narrowed; up to 4x4 each table of up to 7 tiles also
zero-aware) in memory and adds the ones not yet listed to
crates/pdb/digests.txt (or FILE, to copy in later: the program compiles
the list in). Listed tables are not built again: the test suite builds
the small ones and compares.";

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("digests: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let mut sizes = Vec::new();
    let mut goals = Vec::new();
    let mut only: Vec<String> = Vec::new();
    let mut out: Option<std::path::PathBuf> = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let value = rest.next();
        match (arg.as_str(), value) {
            ("--size", Some(v)) => sizes.push(v.parse::<usize>().map_err(|_| USAGE.to_string())?),
            ("--goal", Some(v)) => goals.push(Goal::from_name(v).ok_or(USAGE)?),
            ("--out", Some(v)) => out = Some(v.into()),
            ("--partition", Some(v)) => only.push(v.clone()),
            _ => return Err(USAGE.to_string()),
        }
    }
    if sizes.is_empty() {
        sizes = vec![2, 3, 4, 5];
    }
    if goals.is_empty() {
        goals = Goal::ALL.to_vec();
    }
    let path = out.ok_or_else(|| USAGE.to_string())?;
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: BTreeMap<(String, String), String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            let key = (
                f.next().unwrap_or("").to_string(),
                f.next().unwrap_or("").to_string(),
            );
            (key, l.to_string())
        })
        .collect();
    // Every distinct table first, then the small ones built first.
    let mut patterns: Vec<(Pattern, &str)> = Vec::new();
    for &size in &sizes {
        for &goal in &goals {
            // The partitions named, else every known one.
            let names: Vec<&str> = if only.is_empty() {
                known_partitions(size)
                    .into_iter()
                    .chain(known_catalogues(size).into_iter().map(|(name, _, _)| name))
                    .collect()
            } else {
                only.iter().map(String::as_str).collect()
            };
            for name in names {
                let partition = Partition::parse(name, size, goal).map_err(|e| e.to_string())?;
                // Each table of up to 7 tiles zero-aware too, as `7z-8` names it.
                let zero_aware = partition
                    .patterns()
                    .iter()
                    .filter(|p| size <= 4 && !p.is_zero_aware() && p.tiles().len() <= 7)
                    .filter_map(|p| p.clone().zero_aware(true).ok());
                for pattern in partition.patterns().iter().cloned().chain(zero_aware) {
                    if !patterns.iter().any(|(p, _)| *p == pattern) {
                        patterns.push((pattern, name));
                    }
                }
            }
        }
    }
    patterns.sort_by_key(|(p, _)| p.entries());
    for (pattern, name) in &patterns {
        let file = npuzzle_pdb::unpacked_file_name(pattern);
        let key = (file.clone(), scheme_code(pattern).to_string());
        if lines.contains_key(&key) {
            continue;
        }
        let started = Instant::now();
        let image = build_file(pattern, 0, |_| {}).map_err(|e| e.to_string())?;
        let pdb = Pdb::from_bytes(&image[..]).map_err(|e| e.to_string())?;
        let line = format!(
            "{file} {} {} {:08x} {}",
            key.1,
            pdb.table().len(),
            pdb.header().table_crc(),
            hex(&table_digest(pdb.table()))
        );
        eprintln!("{line}  ({name}, {:.1} s)", started.elapsed().as_secs_f64());
        lines.insert(key, line);
        let all: Vec<&str> = lines.values().map(String::as_str).collect();
        let temporary = path.with_extension("txt.tmp");
        std::fs::write(&temporary, all.join("\n") + "\n")
            .and_then(|()| std::fs::rename(&temporary, &path))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    println!("{}: {} tables", path.display(), lines.len());
    Ok(())
}
