//! Building a table: breadth-first search backwards from the goal over the
//! abstract space of a pattern.
//!
//! An abstract state is a placement of the pattern tiles plus the region of
//! free cells the blank is in. Moving the blank within its region moves only
//! non-pattern tiles, which cost nothing (Korf and Felner's additive rule), so
//! a whole region is one state. A move of a pattern tile into the blank's
//! region costs one and leaves the blank on the tile's old cell. Moves are
//! reversible, so searching from the goal outward gives every state's
//! distance to it; a placement's value is the least over its regions, which
//! is the first time breadth-first search meets it.
//!
//! States are numbered by the set of cells the tiles take, then the blank's
//! region, then the order of the tiles on the set (index scheme 3 with the
//! region moved before the order). What a move does to the order depends
//! only on the moving tile's place among the cells before and after, so a
//! level is expanded one (set, region) block at a time: the block's
//! frontier orders go through one precomputed map into one block of the
//! next set, a few kilobytes that stay in cache. The first generator
//! numbered states by placement rank, so successors fell anywhere in a
//! gigabyte of codes, and it sorted them into buckets to keep that local:
//! it took four to five times as long.
//!
//! Every state has a two-bit code, shared by the threads: 0 while it is
//! unreached, 3 once expanded, and in between 1 or 2 for the frontier and
//! the level being found, which swap roles from one level to the next.
//! Threads expand different sets but may reach the same state: a state is
//! claimed by an atomic or after a plain load shows it unreached, and only
//! the thread whose or found it unreached counts it. Each state is expanded
//! once, with no lock and no allocation per state.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::time::Duration;

use npuzzle_board::clock::Instant;

use rayon::prelude::*;

use crate::pattern::{IndexScheme, Pattern};
use crate::regions::{self, Geometry, Regions};

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
    /// `None` when `stop` is set on the way.
    fn new(states: u64, stop: &AtomicBool) -> Option<StateCodes> {
        let words = states.div_ceil(STATES_PER_WORD) as usize;
        let mut words: Vec<AtomicU64> = (0..words).map(|_| AtomicU64::new(0)).collect();
        // The allocator hands out lazily mapped zero pages; writing each page
        // once now spares a copy-on-write fault (and a cross-core TLB flush)
        // the first time a level writes it. A slice at a time, looking for
        // a stop between them.
        for slice in words.chunks_mut(1 << 22) {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            slice
                .par_chunks_mut(512)
                .for_each(|page| *page[0].get_mut() = 0);
        }
        Some(StateCodes { words })
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

    /// Gives an unreached `state` the code `code`; true if this call is the
    /// one that reached it.
    #[inline(always)]
    fn claim(&self, state: u64, code: u64) -> bool {
        let word = &self.words[(state / STATES_PER_WORD) as usize];
        let shift = 2 * (state % STATES_PER_WORD);
        // Most successors were reached before: a plain load spares them the
        // locked or.
        (word.load(Ordering::Relaxed) >> shift) & 3 == 0
            && (word.fetch_or(code << shift, Ordering::Relaxed) >> shift) & 3 == 0
    }

    /// Marks the states of `start..start + len` whose code is `code`
    /// expanded, and lists them in `out` as offsets from `start`.
    fn take_frontier(&self, start: u64, len: u64, code: u64, out: &mut Vec<u32>) {
        out.clear();
        let end = start + len;
        for w in start / STATES_PER_WORD..end.div_ceil(STATES_PER_WORD) {
            let word = &self.words[w as usize];
            let base = w * STATES_PER_WORD;
            let in_range = fields(
                start.saturating_sub(base),
                (end - base).min(STATES_PER_WORD),
            );
            let mut bits = Self::matching(word.load(Ordering::Relaxed), code) & in_range;
            if bits == 0 {
                continue;
            }
            // An or, not a store: other threads may be claiming unreached
            // states of the same word.
            word.fetch_or(bits * (Self::EXPANDED ^ code), Ordering::Relaxed);
            while bits != 0 {
                out.push((base + bits.trailing_zeros() as u64 / 2 - start) as u32);
                bits &= bits - 1;
            }
        }
    }
}

/// The low bits of the fields of a word's states `from..to`.
#[inline(always)]
fn fields(from: u64, to: u64) -> u64 {
    let below = |states: u64| {
        if states >= STATES_PER_WORD {
            u64::MAX
        } else {
            (1u64 << (2 * states)) - 1
        }
    };
    LOW_BITS & below(to) & !below(from)
}

/// How a move renumbers the order of the tiles on a set: `map(from, to)`
/// gives, for each order, the order once the tile at place `from` among the
/// set's cells stands at place `to` among the new set's cells (the tiles in
/// between shift by one place). A tile crosses fewer than n cells, so only
/// places less than n apart get a map.
struct OrderMaps {
    k: usize,
    maps: Vec<Vec<u32>>,
}

impl OrderMaps {
    fn new(regions: &Regions, k: usize, n: usize) -> OrderMaps {
        let maps = (0..k * k)
            .into_par_iter()
            .map(|pair| {
                let (from, to) = (pair / k, pair % k);
                if from.abs_diff(to) >= n {
                    return Vec::new();
                }
                let mut places = [0u8; 32];
                (0..regions.orders())
                    .map(|order| {
                        decode_order(regions, k, order, &mut places[..k]);
                        for place in &mut places[..k] {
                            let p = *place as usize;
                            *place = if p == from {
                                to as u8
                            } else if from < p && p <= to {
                                p as u8 - 1
                            } else if to <= p && p < from {
                                p as u8 + 1
                            } else {
                                p as u8
                            };
                        }
                        encode_order(regions, &places[..k]) as u32
                    })
                    .collect()
            })
            .collect();
        OrderMaps { k, maps }
    }

    /// Bytes the maps of k tiles on an n x n board take.
    fn bytes(k: usize, n: usize, orders: u64) -> u64 {
        let pairs = (0..k * k)
            .filter(|pair| (pair / k).abs_diff(pair % k) < n)
            .count() as u64;
        pairs.saturating_mul(orders).saturating_mul(4)
    }

    #[inline(always)]
    fn map(&self, from: usize, to: usize) -> &[u32] {
        &self.maps[from * self.k + to]
    }
}

/// The place of each tile among its set's cells, for order number `order`
/// (tile i's digit is its place among the first i + 1 tiles).
fn decode_order(regions: &Regions, k: usize, order: u64, places: &mut [u8]) {
    // The places not yet given, as bits: no allocation per order.
    let mut left = (1u64 << k) - 1;
    for i in (0..k).rev() {
        let digit = (order / regions.factorial(i)) % (i as u64 + 1);
        let mut rest = left;
        for _ in 0..digit {
            rest &= rest - 1;
        }
        places[i] = rest.trailing_zeros() as u8;
        left &= !(1u64 << places[i]);
    }
}

/// The order number of tiles at `places` among their set's cells.
fn encode_order(regions: &Regions, places: &[u8]) -> u64 {
    (0..places.len())
        .map(|i| {
            let below = places[..i].iter().filter(|&&p| p < places[i]).count() as u64;
            below * regions.factorial(i)
        })
        .sum()
}

/// One level's expansion, shared by the threads.
struct Expansion<'a> {
    regions: &'a Regions,
    geometry: &'a Geometry,
    maps: &'a OrderMaps,
    codes: &'a StateCodes,
    /// Zero-aware, one per state; otherwise one per (set, order): a
    /// placement, whose value is the first of its regions reached.
    values: &'a [AtomicU8],
    zero_aware: bool,
    orders: u64,
    code: u64,
    next_code: u64,
    next_depth: u8,
}

impl Expansion<'_> {
    /// Expands the frontier of `set`; returns the states it reached first
    /// and the successors it generated.
    fn expand_set(&self, set: usize, frontier: &mut Vec<u32>) -> (u64, u64) {
        let tiles = self.regions.mask(set);
        let free = self.geometry.all & !tiles;
        let first = self.regions.set_entries(set).start;
        let (mut reached, mut successors) = (0u64, 0u64);
        let mut left = free;
        // Regions in the numbering's order: by their lowest cells.
        for label in 0.. {
            if left == 0 {
                break;
            }
            let region = self.geometry.region(free, left.trailing_zeros());
            left &= !region;
            self.codes.take_frontier(
                first + label * self.orders,
                self.orders,
                self.code,
                frontier,
            );
            if frontier.is_empty() {
                continue;
            }
            let mut movers = tiles;
            while movers != 0 {
                let from = movers.trailing_zeros();
                movers &= movers - 1;
                let mut targets = self.geometry.adjacent[from as usize] & region;
                if targets == 0 {
                    continue;
                }
                let place = (tiles & ((1u64 << from) - 1)).count_ones() as usize;
                while targets != 0 {
                    let to = targets.trailing_zeros();
                    targets &= targets - 1;
                    let next_tiles = tiles ^ (1u64 << from) ^ (1u64 << to);
                    let next_set = self.regions.set_rank(next_tiles);
                    let next_place = (next_tiles & ((1u64 << to) - 1)).count_ones() as usize;
                    // The blank is left on `from`.
                    let block = self.regions.set_entries(next_set).start
                        + self.regions.label(next_set, from as u8) * self.orders;
                    let value_base = if self.zero_aware {
                        block
                    } else {
                        next_set as u64 * self.orders
                    };
                    successors += frontier.len() as u64;
                    for &order in frontier.iter() {
                        let next_order = self.maps.map(place, next_place)[order as usize] as u64;
                        if self.codes.claim(block + next_order, self.next_code) {
                            reached += 1;
                            let value = &self.values[(value_base + next_order) as usize];
                            if self.zero_aware || value.load(Ordering::Relaxed) == UNREACHED {
                                value.store(self.next_depth, Ordering::Relaxed);
                            }
                        }
                    }
                }
            }
        }
        (reached, successors)
    }
}

/// Writes a table indexed by placement rank, `width` entries per
/// placement, from values found by set and order. The placements come in
/// rank order, in parallel runs that share the first tiles' cells: a run's
/// (set * k! + order, cells taken) pairs are listed first, then
/// `fill(pairs, entries)` writes its entries. Listing first keeps the
/// gather a tight loop of independent loads, which the core overlaps.
fn by_rank(
    pattern: &Pattern,
    regions: &Regions,
    width: usize,
    fill: impl Fn(&[(u64, u64)], &mut [u8]) + Sync,
) -> Vec<u8> {
    let k = pattern.tiles().len();
    let cells = pattern.cells() as u64;
    let fixed = k.min(4) - 1;
    let runs: u64 = (0..fixed as u64).map(|i| cells - i).product();
    let run = (pattern.placements() / runs) as usize;
    let mut out = vec![0u8; pattern.placements() as usize * width];
    let all = Geometry::new(pattern.size()).all;
    out.par_chunks_mut(run * width)
        .enumerate()
        .for_each_init(Vec::new, |pairs, (r, out)| {
            let mut placement = vec![0u8; k];
            pattern.unrank((r * run) as u64, &mut placement);
            let (mut used, mut order) = (0u64, 0u64);
            for (i, &c) in placement[..fixed].iter().enumerate() {
                order += (used & ((1u64 << c) - 1)).count_ones() as u64 * regions.factorial(i);
                used |= 1u64 << c;
            }
            pairs.clear();
            RankWalk { regions, k, all }.walk(fixed, used, order, pairs);
            fill(pairs, out);
        });
    out
}

/// The placements that extend the first tiles' cells, in rank order.
struct RankWalk<'a> {
    regions: &'a Regions,
    k: usize,
    all: u64,
}

impl RankWalk<'_> {
    /// Places tiles `i..k` on the cells `used` leaves, in increasing order
    /// (which is rank order: each tile's digit counts the cells left to it).
    fn walk(&self, i: usize, used: u64, order: u64, pairs: &mut Vec<(u64, u64)>) {
        let mut free = self.all & !used;
        if i + 1 < self.k {
            while free != 0 {
                let c = free.trailing_zeros();
                free &= free - 1;
                let below = (used & ((1u64 << c) - 1)).count_ones() as u64;
                let order = order + below * self.regions.factorial(i);
                self.walk(i + 1, used | 1u64 << c, order, pairs);
            }
            return;
        }
        // The last tile: with the others on cells x_0 < x_1 < ..., and m of
        // them below it, the colex rank of the set is the sum of C(x_j, j+1)
        // for j < m, C(cell, m+1), and C(x_j, j+2) for j >= m.
        let mut low = [0u64; 33];
        let mut high = [0u64; 33];
        let mut cells = used;
        let mut j = 0;
        while cells != 0 {
            let x = cells.trailing_zeros() as usize;
            cells &= cells - 1;
            low[j + 1] = low[j] + self.regions.binomial(x, j + 1);
            high[j] = self.regions.binomial(x, j + 2);
            j += 1;
        }
        for j in (0..j).rev() {
            high[j] += high[j + 1];
        }
        let orders = self.regions.orders();
        while free != 0 {
            let c = free.trailing_zeros();
            free &= free - 1;
            let m = (used & ((1u64 << c) - 1)).count_ones() as usize;
            let set = low[m] + self.regions.binomial(c as usize, m + 1) + high[m];
            let order = order + m as u64 * self.regions.factorial(i);
            pairs.push((set * orders + order, used | 1u64 << c));
        }
    }
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
    /// The size of the abstract space (placements and regions of the blank).
    pub space: u64,
    /// Time since the build started.
    pub elapsed: Duration,
}

/// Memory the system can still give, in bytes: Linux's `MemAvailable`,
/// `None` where it cannot be read.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

/// The memory a build of `pattern` needs at its peak, in bytes: during the
/// search a byte per value, two bits per abstract state, the set records
/// and the order maps; afterwards the values and the table, then the table
/// encoded twice (the table and the file image).
pub fn memory_needed(pattern: &Pattern) -> u64 {
    let (n, k) = (pattern.size(), pattern.tiles().len());
    let placements = pattern.placements();
    let states = if regions::fits(n, k) {
        Regions::of(n, k).entries()
    } else {
        placements.saturating_mul(pattern.free_cells() as u64)
    };
    let values = if pattern.is_zero_aware() {
        states
    } else {
        placements
    };
    let orders = (1..=k as u64).product();
    let index = Regions::bytes(n, k).saturating_add(OrderMaps::bytes(k, n, orders));
    let search = values + states.div_ceil(4) + index;
    let entries = pattern.entries();
    search.max(values + entries + index).max(3 * entries)
}

/// Why a table could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Distances reach the byte that marks "never reached".
    TooDeep,
    /// The caller's stop flag was set.
    Stopped,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BuildError::TooDeep => {
                "distances in this pattern's space exceed 254 moves, which the format cannot \
                 store; use smaller patterns"
            }
            BuildError::Stopped => "the build was stopped before it finished",
        })
    }
}

impl std::error::Error for BuildError {}

/// A finished table: one value per entry.
pub struct Built {
    /// The value of each entry in the pattern's index scheme (`UNREACHED`:
    /// never reached).
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
    build_until(pattern, on_level, &AtomicBool::new(false))
}

/// [`build`] that ends with [`BuildError::Stopped`] soon after `stop` is
/// set: each cell set's expansion, a small piece of a level, looks first.
pub fn build_until(
    pattern: &Pattern,
    on_level: impl Fn(&Level) + Sync,
    stop: &AtomicBool,
) -> Result<Built, BuildError> {
    let started = Instant::now();
    let (n, k) = (pattern.size(), pattern.tiles().len());
    let geometry = Geometry::new(n);
    let regions = Regions::for_build(n, k);
    let orders = regions.orders();
    let space = regions.entries();
    let zero_aware = pattern.is_zero_aware();
    let count = if zero_aware {
        space
    } else {
        pattern.placements()
    } as usize;
    let values = unreached(count, stop)?;
    let codes = StateCodes::new(space, stop).ok_or(BuildError::Stopped)?;
    let maps = OrderMaps::new(&regions, k, n);
    if stop.load(Ordering::Relaxed) {
        return Err(BuildError::Stopped);
    }

    let goal = pattern.goal_placement();
    let (set, order, label) = regions.locate(&goal, pattern.goal().cell_of(n, 0) as u8);
    let block = regions.set_entries(set).start + label * orders;
    codes.claim(block + order, StateCodes::code(0));
    let value_base = if zero_aware {
        block
    } else {
        set as u64 * orders
    };
    values[(value_base + order) as usize].store(0, Ordering::Relaxed);

    let mut total = 1u64;
    let mut depth = 0u32;
    on_level(&Level {
        depth,
        states: 1,
        total,
        space,
        elapsed: started.elapsed(),
    });
    let mut successors = 0u64;
    loop {
        if depth + 1 >= UNREACHED as u32 {
            return Err(BuildError::TooDeep);
        }
        let expansion = Expansion {
            regions: &regions,
            geometry: &geometry,
            maps: &maps,
            codes: &codes,
            values: &values,
            zero_aware,
            orders,
            code: StateCodes::code(depth),
            next_code: StateCodes::code(depth + 1),
            next_depth: (depth + 1) as u8,
        };
        let (reached, generated) = (0..regions.sets())
            .into_par_iter()
            .with_min_len(4)
            .map_init(Vec::new, |frontier, set| {
                if stop.load(Ordering::Relaxed) {
                    return (0, 0);
                }
                expansion.expand_set(set, frontier)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        if stop.load(Ordering::Relaxed) {
            return Err(BuildError::Stopped);
        }
        successors += generated;
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
    if stop.load(Ordering::Relaxed) {
        return Err(BuildError::Stopped);
    }
    let values: Vec<u8> = values.into_iter().map(AtomicU8::into_inner).collect();
    let values = in_table_order(pattern, &regions, &geometry, values);
    Ok(Built {
        values,
        states: total,
        max_value: depth as u8,
        successors,
        elapsed: started.elapsed(),
    })
}

/// Every entry of a table of `count`, unreached, allocated a slice at a
/// time so that a stop is seen within the fill too (hundreds of megabytes
/// for the bigger patterns).
fn unreached(count: usize, stop: &AtomicBool) -> Result<Vec<AtomicU8>, BuildError> {
    let mut values: Vec<AtomicU8> = Vec::with_capacity(count);
    while values.len() < count {
        if stop.load(Ordering::Relaxed) {
            return Err(BuildError::Stopped);
        }
        let slice = (count - values.len()).min(1 << 24);
        values.extend((0..slice).map(|_| AtomicU8::new(UNREACHED)));
    }
    Ok(values)
}

/// The search's values, ordered by sets and regions, in the order of
/// `pattern`'s index scheme.
fn in_table_order(
    pattern: &Pattern,
    regions: &Regions,
    geometry: &Geometry,
    values: Vec<u8>,
) -> Vec<u8> {
    let orders = regions.orders();
    match pattern.index_scheme() {
        IndexScheme::Placement => by_rank(pattern, regions, 1, |pairs, table| {
            for (entry, &(searched, _)) in table.iter_mut().zip(pairs) {
                *entry = values[searched as usize];
            }
        }),
        IndexScheme::PlacementAndCell => {
            let all = geometry.all;
            by_rank(pattern, regions, pattern.free_cells(), |pairs, table| {
                let width = pattern.free_cells();
                for (entries, &(searched, tiles)) in table.chunks_mut(width).zip(pairs) {
                    let (set, order) = (searched / orders, searched % orders);
                    let first = regions.set_entries(set as usize).start;
                    let mut free = all & !tiles;
                    for entry in entries {
                        let label = regions.label(set as usize, free.trailing_zeros() as u8);
                        free &= free - 1;
                        *entry = values[(first + label * orders + order) as usize];
                    }
                }
            })
        }
        IndexScheme::PlacementAndRegion => {
            // Regions before orders in the search, after them in the table.
            let mut table = vec![0u8; regions.entries() as usize];
            regions.fill_by_set(&mut table, |set, first, table| {
                let count = regions.regions_of(set);
                let searched = &values[first..first + table.len()];
                for (label, block) in searched.chunks(orders as usize).enumerate() {
                    for (order, &value) in block.iter().enumerate() {
                        table[order * count + label] = value;
                    }
                }
            });
            table
        }
    }
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

    /// The same truth in flat arrays, for a pattern with thousands of sets:
    /// 0-1 BFS over (placement rank, blank cell); the distance of each pair.
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

    /// A pattern with many sets and levels, each level spread over both
    /// threads: both kinds of table equal the brute force.
    #[test]
    fn tables_of_a_larger_pattern_equal_brute_force() {
        let plain = Pattern::new(4, Goal::BlankLast, vec![1, 2, 5, 6, 9]).unwrap();
        let dist = brute_force_flat(&plain);
        let cells = 16;
        let built = build(&plain, |_| {}).unwrap();
        for (rank, value) in built.values.iter().enumerate() {
            let least = dist[rank * cells..(rank + 1) * cells].iter().min().unwrap();
            assert_eq!(value, least, "placement {rank}");
        }
        let zero_aware = plain.clone().zero_aware(true).unwrap();
        let regions = zero_aware.regions().unwrap();
        let built = build(&zero_aware, |_| {}).unwrap();
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
            // Region labels kept outside the set records (over 32 cells).
            (6, vec![1, 35]),
            (5, vec![12, 13, 24]),
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
            }
        }
    }
}
