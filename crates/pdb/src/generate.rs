//! Building a table: breadth-first search backwards from the goal over the
//! abstract space of a pattern.
//!
//! An abstract state is a placement of the pattern tiles plus the region of
//! free cells the blank is in. Moving the blank within its region moves only
//! non-pattern tiles, which cost nothing (Korf and Felner's additive rule), so
//! a whole region is one state, named by its lowest cell. A move of a pattern
//! tile into the blank's region costs one and leaves the blank on the tile's
//! old cell. Moves are reversible, so searching from the goal outward gives
//! every state's distance to it; a placement's value is the least over its
//! regions, which is the first time breadth-first search meets it.
//!
//! Every state has a two-bit code, shared by the threads: 0 while it is
//! unreached, 3 once expanded, and in between 1 or 2 for the frontier and
//! the level being found, which swap roles from one level to the next. A
//! state turns from frontier to expanded as its batch is expanded, so no
//! level needs a pass of its own, and the three bit sets (visited, current,
//! next) this replaced took half as much memory again. Each state is
//! expanded once, with no lock and no per-state allocation.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::pattern::{IndexScheme, Pattern};
use crate::regions::{Geometry, Regions};

/// A table entry never reached: no placement of a solvable board has it.
pub use crate::format::UNREACHED;

/// Two bits per state (see the module comment), 32 states to a word.
struct StateCodes {
    words: Vec<AtomicU64>,
}

/// The low bit of each state's field in a word.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;
const STATES_PER_WORD: u64 = 32;

impl StateCodes {
    fn new(states: u64) -> StateCodes {
        let words = states.div_ceil(STATES_PER_WORD) as usize;
        let mut words: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
        // The allocator hands out lazily mapped zero pages; writing each page
        // once now spares a copy-on-write fault (and a cross-core TLB flush)
        // the first time a level writes it.
        words
            .par_chunks_mut(512)
            .for_each(|page| *page[0].get_mut() = 0);
        StateCodes { words }
    }

    /// The code of the states first reached at `depth` until they are
    /// expanded.
    fn code(depth: u32) -> u64 {
        (depth % 2 + 1) as u64
    }

    /// Expanded states, of any depth.
    const EXPANDED: u64 = 3;

    /// The low bits of the fields of `word` that hold `code`.
    #[inline(always)]
    fn matching(word: u64, code: u64) -> u64 {
        let differ = word ^ (LOW_BITS * code);
        !(differ | (differ >> 1)) & LOW_BITS
    }

    fn set(&self, state: u64, code: u64) {
        let shift = 2 * (state % STATES_PER_WORD);
        self.words[(state / STATES_PER_WORD) as usize].fetch_or(code << shift, Ordering::Relaxed);
    }
}

/// States per bucket, as a power of two: 2^24 states' codes are 4 MiB,
/// which phase 2 keeps in cache while it marks a bucket.
const BUCKET_BITS: u32 = 24;
/// Frontier states expanded per batch: at about five successors each and
/// twelve bytes per successor, some 120 MB of buckets.
const BATCH_STATES: u64 = 2 << 20;
/// Code words counted at a time while cutting batches (at most 32,768
/// states): the grain of the split of a batch among phase-1 tasks.
const SCAN_WORDS: usize = 1 << 10;
/// Phase-1 tasks per batch: several per core, for balance over an uneven
/// frontier.
const PHASE1_TASKS: usize = 16;

/// One phase-1 task's successors: appended as found, then grouped by
/// bucket (a counting sort) as offsets within the bucket. Kept from batch to
/// batch, so memory is allocated once and stays bounded by the batch size.
struct Buckets {
    found: Vec<u64>,
    grouped: Vec<u32>,
    /// `grouped[starts[b]..starts[b + 1]]` belong to bucket b.
    starts: Vec<usize>,
}

impl Buckets {
    fn new(buckets: usize) -> Buckets {
        Buckets {
            found: Vec::new(),
            grouped: Vec::new(),
            starts: vec![0; buckets + 1],
        }
    }

    fn clear(&mut self) {
        self.found.clear();
    }

    #[inline(always)]
    fn push(&mut self, state: u64) {
        self.found.push(state);
    }

    fn group(&mut self) {
        let buckets = self.starts.len() - 1;
        self.starts.iter_mut().for_each(|s| *s = 0);
        for &state in &self.found {
            self.starts[(state >> BUCKET_BITS) as usize + 1] += 1;
        }
        for b in 0..buckets {
            self.starts[b + 1] += self.starts[b];
        }
        self.grouped.resize(self.found.len(), 0);
        let mut fill = self.starts.clone();
        for &state in &self.found {
            let b = (state >> BUCKET_BITS) as usize;
            self.grouped[fill[b]] = state as u32 & ((1 << BUCKET_BITS) - 1);
            fill[b] += 1;
        }
    }

    fn bucket(&self, b: usize) -> &[u32] {
        &self.grouped[self.starts[b]..self.starts[b + 1]]
    }

    fn len(&self) -> u64 {
        self.found.len() as u64
    }
}

/// For boards of at most 16 cells: for every set of free cells, the lowest
/// cell of each cell's region, four bits per cell (512 KiB, cache-resident),
/// replacing a flood fill per successor by one load.
struct CanonicalTable {
    lowest: Vec<u64>,
}

impl CanonicalTable {
    fn new(geometry: &Geometry) -> CanonicalTable {
        let free_sets = 1usize << (geometry.n * geometry.n);
        let lowest = (0..free_sets as u64)
            .into_par_iter()
            .map(|free| {
                let mut packed = 0u64;
                let mut left = free;
                while left != 0 {
                    let region = geometry.region(free, left.trailing_zeros());
                    let low = region.trailing_zeros() as u64;
                    let mut cells = region;
                    while cells != 0 {
                        packed |= low << (4 * cells.trailing_zeros());
                        cells &= cells - 1;
                    }
                    left &= !region;
                }
                packed
            })
            .collect();
        CanonicalTable { lowest }
    }

    #[inline(always)]
    fn lowest(&self, free: u64, seed: u8) -> u32 {
        ((self.lowest[free as usize] >> (4 * seed)) & 0xF) as u32
    }
}

/// Generates the successors of frontier states.
struct Expander<'a> {
    geometry: &'a Geometry,
    table: Option<CanonicalTable>,
    pattern: &'a Pattern,
    slot_bits: u32,
}

impl Expander<'_> {
    /// The lowest cell of the region of `free` that holds `seed`.
    #[inline(always)]
    fn lowest(&self, free: u64, seed: u8) -> u32 {
        match &self.table {
            Some(t) => t.lowest(free, seed),
            None => self.geometry.region(free, seed as u32).trailing_zeros(),
        }
    }

    /// Files the successors of the states in `words` (which start at word
    /// `first_word` of the codes) whose code is `code` into `out`.
    fn expand(&self, first_word: usize, words: &[AtomicU64], code: u64, out: &mut Buckets) {
        let ranker = self.pattern.ranker();
        let k = self.pattern.tiles().len();
        let slots = 1u64 << self.slot_bits;
        let mut placement = [0u8; 64];
        let placement = &mut placement[..k];
        // Per placement: the cells of the tiles before each tile, and each
        // cell's digit weight (0 where no pattern tile stands).
        let mut before = [0u64; 64];
        let mut weight_at = [0u64; 64];
        let mut occupied = 0u64;
        let mut last_rank = u64::MAX;
        for (w, word) in words.iter().enumerate() {
            let codes = word.load(Ordering::Relaxed);
            let mut bits = StateCodes::matching(codes, code);
            if bits != 0 {
                // Only this task reads or writes these words until the
                // batch is expanded; expanded states are never expanded
                // again.
                word.store(
                    codes | (bits * (StateCodes::EXPANDED ^ code)),
                    Ordering::Relaxed,
                );
            }
            while bits != 0 {
                let state =
                    (first_word + w) as u64 * STATES_PER_WORD + bits.trailing_zeros() as u64 / 2;
                bits &= bits - 1;
                let placement_rank = state >> self.slot_bits;
                if placement_rank != last_rank {
                    last_rank = placement_rank;
                    for &c in placement.iter() {
                        weight_at[c as usize] = 0;
                    }
                    ranker.unrank(placement_rank, placement);
                    occupied = 0;
                    for (i, &c) in placement.iter().enumerate() {
                        before[i] = occupied;
                        occupied |= 1 << c;
                        weight_at[c as usize] = ranker.weight(i);
                    }
                }
                let free = self.geometry.all & !occupied;
                let mut seed = free;
                for _ in 0..(state & (slots - 1)) {
                    seed &= seed - 1;
                }
                let region = self.geometry.region(free, seed.trailing_zeros());
                for (i, &from) in placement.iter().enumerate() {
                    let mut targets = self.geometry.adjacent[from as usize] & region;
                    while targets != 0 {
                        let to = targets.trailing_zeros() as u8;
                        targets &= targets - 1;
                        let child_free = free ^ (1u64 << to) ^ (1u64 << from);
                        let lowest = self.lowest(child_free, from);
                        let slot = (child_free & ((1u64 << lowest) - 1)).count_ones() as u64;
                        let child_rank = placement_rank.wrapping_add(rank_change(
                            from,
                            to,
                            before[i],
                            occupied,
                            ranker.weight(i),
                            &weight_at,
                        ));
                        out.push((child_rank << self.slot_bits) + slot);
                    }
                }
            }
        }
    }
}

/// How a placement's rank changes when the tile with digit weight `weight`,
/// whose predecessors stand on `before`, moves from `from` to the adjacent
/// cell `to` (as a wrapping difference). Its own digit changes by the cells
/// crossed that earlier tiles do not hold; each later tile standing between
/// the two cells sees one more (or one fewer) earlier tile below it.
#[inline(always)]
fn rank_change(
    from: u8,
    to: u8,
    before: u64,
    occupied: u64,
    weight: u64,
    weight_at: &[u64; 64],
) -> u64 {
    let (low, high) = if to > from { (from, to) } else { (to, from) };
    let between = ((1u64 << high) - 1) & !((2u64 << low) - 1);
    let own = (high - low) as u64 - (before & between).count_ones() as u64;
    let mut later = occupied & between & !before;
    let mut later_weights = 0u64;
    while later != 0 {
        later_weights += weight_at[later.trailing_zeros() as usize];
        later &= later - 1;
    }
    let change = own * weight + later_weights;
    if to > from {
        change
    } else {
        change.wrapping_neg()
    }
}

/// Renumbers a zero-aware table indexed by (placement, slot of a region's
/// lowest cell) in index scheme 3, set by set in parallel.
fn by_region(pattern: &Pattern, values: &[u8]) -> Vec<u8> {
    let regions = Regions::of(pattern.size(), pattern.tiles().len());
    let free_cells = pattern.free_cells() as u64;
    let mut out = vec![0u8; regions.entries() as usize];
    regions
        .split_by_set(&mut out)
        .into_par_iter()
        .enumerate()
        .for_each(|(set, out)| {
            let lowest = regions.lowest_cells(set);
            let mut entries = out.iter_mut();
            regions.for_each_placement(set, |_, placement| {
                let base = pattern.rank(placement) * free_cells;
                for &cell in &lowest {
                    let below = placement.iter().filter(|&&c| c < cell).count() as u64;
                    let slot = cell as u64 - below;
                    *entries.next().expect("one entry per region") = values[(base + slot) as usize];
                }
            });
        });
    out
}

/// Turns a zero-aware table indexed by (placement, slot of a region's lowest
/// cell) into one indexed by (placement, slot of the blank's cell): every
/// free cell takes the value of its region, so a lookup needs no flood fill.
/// In place: a region's lowest cell comes first and keeps its value.
fn spread_over_regions(pattern: &Pattern, geometry: &Geometry, values: &mut [u8]) {
    let free_cells = pattern.free_cells();
    let k = pattern.tiles().len();
    values
        .par_chunks_mut(free_cells * 4096)
        .enumerate()
        .for_each(|(chunk, values)| {
            let mut placement = [0u8; 64];
            for (r, slots) in values.chunks_mut(free_cells).enumerate() {
                pattern.unrank((chunk * 4096 + r) as u64, &mut placement[..k]);
                let occupied = placement[..k].iter().fold(0u64, |m, &c| m | 1 << c);
                let free = geometry.all & !occupied;
                // One flood fill per region (most placements have one).
                let mut left = free;
                while left != 0 {
                    let region = geometry.region(free, left.trailing_zeros());
                    left &= !region;
                    let slot_of = |cell: u32| (free & ((1u64 << cell) - 1)).count_ones() as usize;
                    let value = slots[slot_of(region.trailing_zeros())];
                    let mut rest = region & (region - 1);
                    while rest != 0 {
                        slots[slot_of(rest.trailing_zeros())] = value;
                        rest &= rest - 1;
                    }
                }
            }
        });
}

/// One finished breadth-first level, for progress reports.
#[derive(Clone, Copy, Debug)]
pub struct Level {
    /// The level: moves from the goal.
    pub depth: u32,
    /// States first reached at this depth.
    pub states: u64,
    /// States reached so far.
    pub total: u64,
    /// The size of the abstract space (placements x free cells).
    pub space: u64,
    /// Time since the build started.
    pub elapsed: Duration,
}

/// The abstract space of `pattern`: placements times a power-of-two field
/// for the blank's region.
fn space_of(pattern: &Pattern) -> (u32, u64) {
    let free = pattern.cells() - pattern.tiles().len();
    let slot_bits = (free as u64).next_power_of_two().trailing_zeros();
    (slot_bits, pattern.placements() << slot_bits)
}

/// The memory a build of `pattern` needs at its peak, in bytes: during the
/// search a byte per entry, two bits per abstract state and the successor
/// buckets; afterwards the values, their excesses and the
/// encoded table twice (the table and the file image).
pub fn memory_needed(pattern: &Pattern) -> u64 {
    let entries = pattern.entries();
    let searched = search_entries(pattern);
    let (_, space) = space_of(pattern);
    let buckets = 12 * 5 * BATCH_STATES + PHASE1_TASKS as u64 * 8 * (space >> BUCKET_BITS);
    let search = searched + space.div_ceil(4) + buckets;
    let encode = 2 * entries + entries;
    search.max(encode).max(searched + entries)
}

/// Values the search keeps: one per placement, or, zero-aware, one per
/// placement and free cell (a region's value at its lowest cell), turned
/// into the table's numbering at the end.
fn search_entries(pattern: &Pattern) -> u64 {
    if pattern.is_zero_aware() {
        pattern.placements() * pattern.free_cells() as u64
    } else {
        pattern.placements()
    }
}

/// Why a table could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Distances reach the byte that marks "never reached".
    TooDeep,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "distances in this pattern's space exceed 254 moves, which the format cannot \
             store; use smaller patterns",
        )
    }
}

impl std::error::Error for BuildError {}

/// A finished table: one value per entry.
pub struct Built {
    /// The value of each placement rank, or zero-aware, of each placement
    /// rank and blank cell (`rank * free cells + slot`; `UNREACHED`: never
    /// reached).
    pub values: Vec<u8>,
    /// Abstract states reached (placement and blank region).
    pub states: u64,
    /// The largest value.
    pub max_value: u8,
    /// Successors generated over the whole search.
    pub successors: u64,
    /// How long the search took.
    pub elapsed: Duration,
}

/// Runs the search for `pattern` on the current rayon pool, calling
/// `on_level` after each level.
pub fn build(pattern: &Pattern, on_level: impl Fn(&Level) + Sync) -> Result<Built, BuildError> {
    build_in_batches(pattern, BATCH_STATES, on_level)
}

/// `build`, expanding about `batch_states` frontier states at a time (tests
/// cut small levels into many batches).
fn build_in_batches(
    pattern: &Pattern,
    batch_states: u64,
    on_level: impl Fn(&Level) + Sync,
) -> Result<Built, BuildError> {
    let started = Instant::now();
    let n = pattern.size();
    let cells = n * n;
    let ranker = pattern.ranker();
    // A state is (placement rank, index of its region's lowest cell among the
    // free cells); the index gets a power-of-two field so that splitting a
    // state needs no division.
    let (slot_bits, space) = space_of(pattern);
    let geometry = Geometry::new(n);

    // Zero-aware: a value per (placement, region), at the region's slot
    // (spread to every cell of the region at the end); otherwise the least
    // over the regions, per placement.
    let zero_aware = pattern.is_zero_aware();
    let free_cells = pattern.free_cells() as u64;
    let values: Vec<AtomicU8> = (0..search_entries(pattern))
        .into_par_iter()
        .map(|_| AtomicU8::new(UNREACHED))
        .collect();
    let value_index = |state: u64| {
        let rank = state >> slot_bits;
        if zero_aware {
            rank * free_cells + (state & ((1 << slot_bits) - 1))
        } else {
            rank
        }
    };
    let codes = StateCodes::new(space);

    let goal = pattern.goal_placement();
    let occupied = goal.iter().fold(0u64, |m, &c| m | 1 << c);
    let free = geometry.all & !occupied;
    let blank = pattern.goal().cell_of(n, 0) as u32;
    let region = geometry.region(free, blank);
    let start = (ranker.rank(&goal) << slot_bits)
        + (free & ((1u64 << region.trailing_zeros()) - 1)).count_ones() as u64;
    codes.set(start, StateCodes::code(0));
    values[value_index(start) as usize].store(0, Ordering::Relaxed);

    let mut total = 1u64;
    let mut depth = 0u32;
    on_level(&Level {
        depth,
        states: 1,
        total,
        space,
        elapsed: started.elapsed(),
    });
    let expander = Expander {
        geometry: &geometry,
        table: (cells <= 16).then(|| CanonicalTable::new(&geometry)),
        pattern,
        slot_bits,
    };
    let buckets = space.div_ceil(1 << BUCKET_BITS) as usize;
    // One bucket set per phase-1 task, kept from batch to batch so that
    // their memory is allocated (and faulted in) once.
    let mut pool: Vec<Buckets> = (0..PHASE1_TASKS).map(|_| Buckets::new(buckets)).collect();
    let mut successors = 0u64;
    let mut scanned: Vec<(usize, u64)> = Vec::new();
    loop {
        if depth + 1 >= UNREACHED as u32 {
            return Err(BuildError::TooDeep);
        }
        let next_depth = (depth + 1) as u8;
        let (code, next_code) = (StateCodes::code(depth), StateCodes::code(depth + 1));
        let mut reached = 0u64;
        let mut start = 0;
        while start < codes.words.len() {
            // A batch holds about `batch_states` frontier states, so that the
            // buckets stay around a hundred megabytes.
            let mut end = start;
            let mut in_batch = 0u64;
            // (end word, frontier states up to it) of each scanned stretch.
            scanned.clear();
            while end < codes.words.len() && in_batch < batch_states {
                let stop = (end + SCAN_WORDS).min(codes.words.len());
                in_batch += codes.words[end..stop]
                    .iter()
                    .map(|w| StateCodes::matching(w.load(Ordering::Relaxed), code).count_ones())
                    .sum::<u32>() as u64;
                end = stop;
                scanned.push((end, in_batch));
            }
            if in_batch == 0 {
                start = end;
                continue;
            }
            // Phase 1 reads the frontier and files each successor under the
            // bucket of its range; phase 2 gives each bucket to one thread,
            // which marks its states with plain loads and stores. No locked
            // read-modify-write touches memory at random, and a bucket's slice
            // of the codes stays in cache while it is worked on.
            //
            // Tasks get equal shares of the frontier states, not of the
            // words: the frontier can be dense in a few stretches, and each
            // task's buckets keep their largest size for the whole build.
            let task_start = |task: usize| match task {
                0 => start,
                PHASE1_TASKS => end,
                _ => {
                    let share = in_batch * task as u64 / PHASE1_TASKS as u64;
                    scanned
                        .iter()
                        .find(|&&(_, states)| states >= share)
                        .map_or(end, |&(word, _)| word)
                }
            };
            pool.par_iter_mut().enumerate().for_each(|(task, out)| {
                out.clear();
                let (first, last) = (task_start(task), task_start(task + 1));
                expander.expand(first, &codes.words[first..last], code, out);
                out.group();
            });
            successors += pool.iter().map(Buckets::len).sum::<u64>();
            reached += (0..buckets)
                .into_par_iter()
                .map(|b| {
                    let base = (b as u64) << BUCKET_BITS;
                    let mut fresh = 0u64;
                    for list in pool.iter().map(|f| f.bucket(b)) {
                        for &offset in list {
                            let state = base + offset as u64;
                            let word = &codes.words[(state / STATES_PER_WORD) as usize];
                            let shift = 2 * (state % STATES_PER_WORD);
                            let seen = word.load(Ordering::Relaxed);
                            if (seen >> shift) & 3 == 0 {
                                word.store(seen | (next_code << shift), Ordering::Relaxed);
                                fresh += 1;
                                // Breadth-first order: the first time a state
                                // (or, not zero-aware, any region of its
                                // placement) is reached gives its value.
                                let value = &values[value_index(state) as usize];
                                if value.load(Ordering::Relaxed) == UNREACHED {
                                    value.store(next_depth, Ordering::Relaxed);
                                }
                            }
                        }
                    }
                    fresh
                })
                .sum::<u64>();
            start = end;
        }
        if reached == 0 {
            break;
        }
        depth += 1;
        total += reached;
        on_level(&Level {
            depth,
            states: reached,
            total,
            space,
            elapsed: started.elapsed(),
        });
    }
    drop(codes);
    let mut values: Vec<u8> = values.into_iter().map(AtomicU8::into_inner).collect();
    match pattern.index_scheme() {
        IndexScheme::PlacementAndCell => spread_over_regions(pattern, &geometry, &mut values),
        IndexScheme::PlacementAndRegion => values = by_region(pattern, &values),
        _ => {}
    }
    Ok(Built {
        values,
        states: total,
        max_value: depth as u8,
        successors,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use npuzzle_board::Goal;
    use std::collections::{HashMap, VecDeque};

    /// Independent truth: 0-1 BFS over the full concrete abstract space
    /// (placement and exact blank cell, blank moves cost 0, tile moves 1).
    fn brute_force(pattern: &Pattern) -> Vec<u8> {
        let n = pattern.size();
        let goal = pattern.goal_placement();
        let blank = pattern.goal().cell_of(n, 0) as u8;
        let mut dist: HashMap<(Vec<u8>, u8), u8> = HashMap::new();
        let mut deque = VecDeque::from([(goal.clone(), blank, 0u8)]);
        while let Some((placement, blank, d)) = deque.pop_front() {
            if dist.contains_key(&(placement.clone(), blank)) {
                continue;
            }
            dist.insert((placement.clone(), blank), d);
            let (row, col) = (blank as usize / n, blank as usize % n);
            let mut neighbours = Vec::new();
            if row > 0 {
                neighbours.push(blank - n as u8);
            }
            if row + 1 < n {
                neighbours.push(blank + n as u8);
            }
            if col > 0 {
                neighbours.push(blank - 1);
            }
            if col + 1 < n {
                neighbours.push(blank + 1);
            }
            for cell in neighbours {
                let mut p = placement.clone();
                match p.iter().position(|&c| c == cell) {
                    Some(i) => {
                        p[i] = blank;
                        deque.push_back((p, cell, d + 1));
                    }
                    None => deque.push_front((p, cell, d)),
                }
            }
        }
        let mut values = vec![UNREACHED; pattern.entries() as usize];
        let regions = pattern.regions();
        for ((placement, blank), d) in dist {
            let r = pattern.rank(&placement) as usize;
            match pattern.index_scheme() {
                IndexScheme::Placement => values[r] = values[r].min(d),
                IndexScheme::PlacementAndCell => {
                    let below = placement.iter().filter(|&&c| c < blank).count();
                    values[r * pattern.free_cells() + blank as usize - below] = d;
                }
                _ => {
                    let index = regions.as_ref().unwrap().index(&placement, blank) as usize;
                    // Every cell of a region has the region's distance.
                    assert!(values[index] == UNREACHED || values[index] == d);
                    values[index] = d;
                }
            }
        }
        values
    }

    /// The same truth in flat arrays, for a pattern big enough that the
    /// generator cuts its levels into several batches and buckets: 0-1 BFS
    /// over (placement rank, blank cell); the distance of each pair.
    fn brute_force_flat(pattern: &Pattern) -> Vec<u8> {
        let n = pattern.size();
        let cells = n * n;
        let k = pattern.tiles().len();
        let mut dist = vec![UNREACHED; pattern.placements() as usize * cells];
        let goal = pattern.goal_placement();
        let start = pattern.rank(&goal) as usize * cells + pattern.goal().cell_of(n, 0);
        dist[start] = 0;
        let mut deque = VecDeque::from([start]);
        let mut placement = vec![0u8; k];
        while let Some(state) = deque.pop_front() {
            let (rank, blank) = (state / cells, state % cells);
            let d = dist[state];
            pattern.unrank(rank as u64, &mut placement);
            let (row, col) = (blank / n, blank % n);
            let neighbours = [
                (row > 0).then(|| blank - n),
                (row + 1 < n).then(|| blank + n),
                (col > 0).then(|| blank - 1),
                (col + 1 < n).then(|| blank + 1),
            ];
            for cell in neighbours.into_iter().flatten() {
                let (next, cost) = match placement.iter().position(|&c| c as usize == cell) {
                    Some(i) => {
                        let mut moved = placement.clone();
                        moved[i] = blank as u8;
                        (pattern.rank(&moved) as usize * cells + cell, 1)
                    }
                    None => (rank * cells + cell, 0),
                };
                if d + cost < dist[next] {
                    dist[next] = d + cost;
                    if cost == 0 {
                        deque.push_front(next);
                    } else {
                        deque.push_back(next);
                    }
                }
            }
        }
        dist
    }

    /// Levels cut into many batches, each split among the tasks by
    /// frontier states: both kinds of table equal the brute force.
    #[test]
    fn tables_built_in_many_batches_equal_brute_force() {
        let plain = Pattern::new(4, Goal::BlankLast, vec![1, 2, 5, 6, 9]).unwrap();
        let dist = brute_force_flat(&plain);
        let cells = 16;
        let batches = std::sync::atomic::AtomicU64::new(0);
        let built = build_in_batches(&plain, 5_000, |level| {
            batches.fetch_max(level.states / 5_000, Ordering::Relaxed);
        })
        .unwrap();
        assert!(batches.into_inner() >= 10, "some level takes many batches");
        for (rank, value) in built.values.iter().enumerate() {
            let least = dist[rank * cells..(rank + 1) * cells].iter().min().unwrap();
            assert_eq!(value, least, "placement {rank}");
        }
        let zero_aware = plain.clone().zero_aware(true).unwrap();
        let regions = zero_aware.regions().unwrap();
        let built = build_in_batches(&zero_aware, 5_000, |_| {}).unwrap();
        assert_eq!(built.values.len() as u64, regions.entries());
        let mut placement = [0u8; 5];
        for rank in 0..zero_aware.placements() as usize {
            zero_aware.unrank(rank as u64, &mut placement);
            for cell in (0..cells as u8).filter(|c| !placement.contains(c)) {
                assert_eq!(
                    built.values[regions.index(&placement, cell) as usize],
                    dist[rank * cells + cell as usize],
                    "{rank} {cell}"
                );
            }
        }
    }

    #[test]
    fn tables_equal_brute_force_on_small_patterns() {
        for (size, tiles) in [
            (2, vec![1, 2]),
            (2, vec![1, 2, 3]),
            (3, vec![1, 2, 3]),
            (3, vec![8, 5]),
            (3, vec![1, 2, 3, 4, 5, 6, 7, 8]),
            (4, vec![1, 2, 3]),
            (4, vec![15, 11]),
        ] {
            let schemes = [
                IndexScheme::Placement,
                IndexScheme::PlacementAndCell,
                IndexScheme::PlacementAndRegion,
            ];
            for (goal, scheme) in Goal::ALL
                .into_iter()
                .flat_map(|g| schemes.map(|scheme| (g, scheme)))
            {
                let pattern = Pattern::new(size, goal, tiles.clone())
                    .unwrap()
                    .with_index_scheme(scheme)
                    .unwrap();
                let truth = brute_force(&pattern);
                assert_eq!(
                    build(&pattern, |_| {}).unwrap().values,
                    truth,
                    "{pattern} {goal} {scheme:?}"
                );
                let in_batches = build_in_batches(&pattern, 3, |_| {}).unwrap();
                assert_eq!(
                    in_batches.values, truth,
                    "{pattern} {goal} {scheme:?}, small batches"
                );
            }
        }
    }
}
