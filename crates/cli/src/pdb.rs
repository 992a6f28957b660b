//! `npuzzle pdb ...`: build, inspect, verify and query pattern databases.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use npuzzle::table_file::{self as file, Header, TableFile, HEADER_LEN};
use npuzzle::{parse_board, BuildEvent, BuildOptions, OpenError, Tables};

use crate::args::{BuildArgs, FilesArgs, GoalArg, LookupArgs, PartitionArgs, PdbCommand};
use crate::remedy::{build_hint, error_message, explain};
use crate::status::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// How to rebuild a table given by path, whose partition we may not know.
const REBUILD_AS_BUILT: &str =
    "npuzzle pdb build --force (with the --size, --goal and --partition it was built with)";

pub fn run(command: &PdbCommand, out: &mut impl Write) -> io::Result<u8> {
    match command {
        PdbCommand::Build(args) => build(args, out),
        PdbCommand::Info { file, histogram } => info(file, *histogram, out),
        PdbCommand::Verify { files } => verify(files, out),
        PdbCommand::Lookup(args) => lookup(args, out),
        PdbCommand::Files(args) => files(args, out),
    }
}

fn build(args: &BuildArgs, out: &mut impl Write) -> io::Result<u8> {
    let partition = match args.which.partition() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let dir = args.out.clone().unwrap_or_else(npuzzle::default_build_dir);
    if let Err(e) = crate::input::check_directory("--out", &dir) {
        eprintln!("npuzzle: {e}");
        return Ok(EXIT_BAD_INPUT);
    }
    let threads =
        match npuzzle::check_threads("--threads", args.threads.unwrap_or(npuzzle::cores())) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("npuzzle: {e}");
                return Ok(EXIT_BAD_INPUT);
            }
        };
    let options = BuildOptions {
        threads,
        force: args.force,
        level: args.level,
        stop: None,
    };
    let terminal = io::stderr().is_terminal();
    let mut progress = ProgressBar::hidden();
    let mut written: io::Result<()> = Ok(());
    let mut print = |line: String| {
        if written.is_ok() {
            written = writeln!(out, "{line}").and_then(|()| out.flush());
        }
    };
    let report = npuzzle::build_tables_with(&dir, &partition, &options, &mut |event| match event {
        BuildEvent::UpToDate { path, .. } => print(format!(
            "{}: up to date (verified); --force rebuilds it",
            path.display()
        )),
        BuildEvent::Replacing { path, why } => print(format!("{}: {why}", path.display())),
        BuildEvent::Started { pattern } => {
            progress = if terminal {
                pattern_bar(pattern, pattern.entries())
            } else {
                ProgressBar::hidden()
            };
        }
        BuildEvent::Level { level, .. } => {
            progress.set_length(level.space.max(1));
            progress.set_position(level.total);
            progress.set_message(format!(
                "depth {}: {} states",
                level.depth,
                group_digits(level.total)
            ))
        }
        BuildEvent::Writing { .. } => {
            progress.set_position(progress.length().unwrap_or(0));
            progress.set_message("compressing")
        }
        BuildEvent::Built {
            path,
            header,
            packed_bytes,
            elapsed,
        } => {
            progress.finish_and_clear();
            print(built_line(path, header, packed_bytes, elapsed))
        }
        _ => {}
    });
    progress.finish_and_clear();
    written?;
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("npuzzle: {}", error_message(&e));
            return Ok(EXIT_FAILED);
        }
    };
    writeln!(
        out,
        "built {} of {} tables for {} ({}x{}, goal {}) in {:.1} s with {threads} threads: \
         {} states; {} on disk, {} to map{}",
        report.built,
        report.tables,
        partition.name(),
        args.which.size,
        args.which.size,
        args.which.goal.goal(),
        report.elapsed.as_secs_f64(),
        group_digits(report.states),
        megabytes(report.disk_bytes),
        megabytes(report.mapped_bytes),
        crate::output::peak_rss_megabytes()
            .map(|mb| format!("; peak memory {:.2} GB", mb * 1048576.0 / 1e9))
            .unwrap_or_default()
    )?;
    Ok(EXIT_OK)
}

/// A terminal's bar for one pattern's build: states reached out of all,
/// the search's share done.
fn pattern_bar(pattern: &impl std::fmt::Display, entries: u64) -> ProgressBar {
    let bar = ProgressBar::new(entries.max(1));
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {prefix} [{elapsed}] {bar:24} {percent:>3}% (about {eta} \
             left) {wide_msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(format!("pattern {pattern}"));
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// What a table just built is, in `pdb info`'s words.
fn built_line(path: &Path, header: &Header, packed_bytes: u64, elapsed: Duration) -> String {
    format!(
        "{}: pattern {}, {} states, {} entries ({}), max value {}, {:.1} s ({:.1} s \
         searching, as `pdb info` says), {} on disk, {} unpacked",
        path.display(),
        header.pattern(),
        group_digits(header.build().states()),
        group_digits(header.entries()),
        header.encoding().name(),
        header.max_value(),
        elapsed.as_secs_f64(),
        header.build().milliseconds() as f64 / 1000.0,
        megabytes(packed_bytes),
        megabytes(header.file_len()),
    )
}

fn open_any(path: &Path) -> Result<TableFile, OpenError> {
    if file::is_packed(path) {
        file::open_noting(path, &mut |note| eprintln!("npuzzle: {note}"))
    } else {
        file::open_unpacked(path).map(|pdb| pdb.map_bytes(file::TableBytes::mapped))
    }
}

fn info(path: &Path, histogram: bool, out: &mut impl Write) -> io::Result<u8> {
    let pdb = match open_any(path) {
        Ok(pdb) => pdb,
        Err(e) => {
            eprintln!("npuzzle: {}", explain(&e, REBUILD_AS_BUILT));
            return Ok(EXIT_FAILED);
        }
    };
    let h = pdb.header();
    let p = h.pattern();
    writeln!(out, "file:        {}", path.display())?;
    writeln!(
        out,
        "format:      npuzzle-pdb version {}, little-endian",
        h.version()
    )?;
    writeln!(out, "puzzle:      {n}x{n}, goal {}", p.goal(), n = p.size())?;
    writeln!(out, "pattern:     {} ({} tiles)", p, p.tiles().len())?;
    writeln!(
        out,
        "index:       placement rank (k-permutation), least value over blank regions"
    )?;
    writeln!(
        out,
        "entries:     {} ({})",
        group_digits(h.entries()),
        h.encoding().name()
    )?;
    writeln!(
        out,
        "table:       {} at offset {}, CRC-32 {:08x}",
        megabytes(h.table_len()),
        h.table_offset(),
        h.table_crc()
    )?;
    writeln!(out, "max value:   {}", h.max_value())?;
    writeln!(
        out,
        "built by:    {}, {} threads, {:.1} s searching, {} states, {} successors",
        h.build().generator(),
        h.build().threads(),
        h.build().milliseconds() as f64 / 1000.0,
        group_digits(h.build().states()),
        group_digits(h.build().successors())
    )?;
    if !histogram {
        writeln!(
            out,
            "histogram:   --histogram counts the placements of each value"
        )?;
        return Ok(EXIT_OK);
    }
    out.flush()?;
    writeln!(out, "histogram (value: placements):")?;
    let histogram = pdb.histogram();
    let mut weighted = 0u64;
    let mut counted = 0u64;
    for (value, &count) in histogram
        .iter()
        .enumerate()
        .take(255)
        .filter(|(_, &c)| c > 0)
    {
        writeln!(out, "  {value:>3}: {count}")?;
        weighted += value as u64 * count;
        counted += count;
    }
    if histogram[255] > 0 {
        writeln!(
            out,
            "  never reached: {} (impossible on boards that reach the goal)",
            histogram[255]
        )?;
    }
    writeln!(
        out,
        "mean value:  {:.3}",
        weighted as f64 / counted.max(1) as f64
    )?;
    Ok(EXIT_OK)
}

fn verify(paths: &[PathBuf], out: &mut impl Write) -> io::Result<u8> {
    let mut code = EXIT_OK;
    for path in paths {
        match npuzzle::verify_exact(path) {
            Ok((header, exactness)) => writeln!(
                out,
                "{}: ok (pattern {}, {} entries, CRC-32 {:08x}; values exact: {})",
                path.display(),
                header.pattern(),
                group_digits(header.entries()),
                header.table_crc(),
                match exactness {
                    npuzzle::Exactness::ShippedDigest => "the digest of npuzzle's build",
                    npuzzle::Exactness::BuiltAgain => "built again and compared",
                }
            )?,
            Err(e) => {
                eprintln!("npuzzle: {}", explain(&e, REBUILD_AS_BUILT));
                code = EXIT_FAILED;
            }
        }
    }
    Ok(code)
}

fn files(args: &FilesArgs, out: &mut impl Write) -> io::Result<u8> {
    let partition = match args.which.partition() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if let Err(e) = crate::input::check_pdb_dir(args.pdb_dir.as_deref()) {
        eprintln!("npuzzle: {e}");
        return Ok(EXIT_BAD_INPUT);
    }
    let dirs = npuzzle::search_dirs(args.pdb_dir.as_deref());
    // Not built anywhere: where a build without --out writes, and where
    // `solve` then finds them (as its message says too).
    let dir = npuzzle::find_dir(&dirs, &partition).unwrap_or_else(|| match &dirs[..] {
        [only] => only.clone(),
        _ => npuzzle::default_build_dir(),
    });
    let (mut mapped, mut missing) = (0u64, 0);
    for pattern in partition.distinct_patterns() {
        let name = file::file_name(pattern);
        let path = dir.join(&name);
        let size = HEADER_LEN as u64 + pattern.entries().div_ceil(2);
        match file::read_packed_header(&path) {
            Ok((header, _)) if header.pattern().has_values_of(pattern) => {
                mapped += header.file_len();
                let seconds = header.build().milliseconds() as f64 / 1e3;
                writeln!(
                    out,
                    "{}: {} to map, built in {seconds:.1} s",
                    path.display(),
                    megabytes(header.file_len())
                )?;
            }
            Err(e)
                if matches!(
                    e.problem(),
                    file::Problem::NotAFile | file::Problem::Special(_)
                ) =>
            {
                missing += 1;
                writeln!(out, "{}: {}", path.display(), e.problem())?;
            }
            _ => {
                missing += 1;
                writeln!(
                    out,
                    "{}: missing ({} to map once built)",
                    path.display(),
                    megabytes(size)
                )?;
            }
        }
    }
    if missing > 0 {
        let goal = args.which.goal.goal();
        writeln!(
            out,
            "{missing} missing; build them with: {}",
            build_hint(partition.name(), args.which.size, goal, &dir)
        )?;
        return Ok(EXIT_FAILED);
    }
    writeln!(out, "{} mapped in all", megabytes(mapped))?;
    Ok(EXIT_OK)
}

fn lookup(args: &LookupArgs, out: &mut impl Write) -> io::Result<u8> {
    let board = match parse_board(&args.board.join(" ")) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    let which = PartitionArgs {
        size: board.size(),
        goal: GoalArg {
            goal: args.which.goal.goal,
        },
        partition: args.which.partition.clone(),
    };
    let partition = match which.partition() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("npuzzle: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if let Err(e) = crate::input::check_pdb_dir(args.pdb_dir.as_deref()) {
        eprintln!("npuzzle: {e}");
        return Ok(EXIT_BAD_INPUT);
    }
    let note = &mut |note: String| eprintln!("npuzzle: {note}");
    let tables = match Tables::find(args.pdb_dir.as_deref(), &partition, note) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("npuzzle: {}", error_message(&e));
            return Ok(EXIT_FAILED);
        }
    };
    let lookup = match tables.lookup(&board) {
        Ok(lookup) => lookup,
        Err(e) => {
            eprintln!("npuzzle: {}", error_message(&e));
            return Ok(EXIT_FAILED);
        }
    };
    for (pdb, value) in tables.tables().iter().zip(&lookup.values) {
        writeln!(out, "{}: {value}", pdb.pattern())?;
    }
    if lookup.partition_sums.len() > 1 {
        for (part, (sum, reflected)) in lookup.partition_sums.iter().enumerate() {
            writeln!(
                out,
                "partition {}: sum {sum}, reflected {reflected}",
                part + 1
            )?;
        }
    }
    writeln!(out, "sum: {}", lookup.sum)?;
    writeln!(out, "reflected sum: {}", lookup.reflected_sum)?;
    writeln!(out, "heuristic: {}", lookup.value)?;
    Ok(EXIT_OK)
}

/// 1234567 -> "1,234,567".
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
