//! Section "thread-rate": the node rate of one search thread, and what a
//! read that misses the cache costs on this machine.

use std::fmt::Write as _;
use std::time::Instant;

use super::context::Ctx;

use super::strategies::strategies;

use super::runs::first_record;

use super::sets::BOARD_80;

/// Nanoseconds per read when each read's address is the value the one
/// before it read, over `bytes` of memory visited in one random cycle of
/// cache lines: the latency a lookup that misses the caches pays, where
/// the bytes exceed them.
fn read_latency_ns(bytes: usize) -> f64 {
    const WORDS_PER_LINE: usize = 8;
    let lines = bytes / 64;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Sattolo's shuffle: one cycle through every line.
    let mut order: Vec<usize> = (0..lines).collect();
    for i in (1..lines).rev() {
        order.swap(i, (random() % i as u64) as usize);
    }
    let mut next = vec![0usize; lines * WORDS_PER_LINE];
    for k in 0..lines {
        next[order[k] * WORDS_PER_LINE] = order[(k + 1) % lines] * WORDS_PER_LINE;
    }
    let steps = 2_000_000;
    let started = Instant::now();
    let mut at = 0;
    for _ in 0..steps {
        at = next[at];
    }
    std::hint::black_box(at);
    started.elapsed().as_nanos() as f64 / steps as f64
}

/// The node rate of one search thread, and what a lookup that misses the cache costs.
pub fn run(ctx: &Ctx, report: &mut String) -> Result<(), String> {
    let npuzzle = &ctx.npuzzle;
    let mut rates = Vec::new();
    let mut records = Vec::new();
    for _ in 0..7 {
        let record = first_record(
            npuzzle,
            &["--no-moves", "--jobs", "1", "--partition", "7-8", BOARD_80],
        )?;
        let expanded = record["expanded"].as_f64().unwrap_or(0.0);
        let generated = record["generated"].as_f64().unwrap_or(0.0);
        let seconds = record["seconds"].as_f64().unwrap_or(f64::INFINITY);
        rates.push((expanded / seconds, generated / seconds));
        records.push(record);
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let _ = writeln!(
        report,
        "## One search thread\n\n\
         Node rate of one search thread (the 80-move board, `--jobs 1 --partition 7-8`, search \
         time only, 7 runs; strategy {}): median {:.2e} expanded/s ({:.2e} generated/s), best {:.2e} \
         expanded/s, worst {:.2e}. The spread is the machine's: the same binary on the same \
         board.\n",
        strategies(&records),
        rates[3].0,
        rates[3].1,
        rates[6].0,
        rates[0].0
    );
    let read_latencies: Vec<(usize, f64)> = [1usize, 8, 256]
        .into_iter()
        .map(|mb| (mb, read_latency_ns(mb << 20)))
        .collect();
    let _ = writeln!(
        report,
        "What a lookup that leaves the cache costs here: a dependent random read takes {} \
         (pointer chasing in this process). The 7-8 tables span 288 MB, so about half of the \
         search's lookups, those whose rank changes in a digit of high place value, wait \
         the longest of these; most of a node's time goes to them.\n",
        read_latencies
            .iter()
            .map(|(mb, ns)| format!("{ns:.0} ns over {mb} MB"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}
