//! The options of a [`Solver`](crate::Solver), set up with [`SolverBuilder`] and checked
//! once in [`SolverBuilder::build`].

use std::path::PathBuf;
use std::sync::Arc;

use npuzzle_board::{echo, Goal, MAX_SIZE, MIN_SIZE};
use npuzzle_pdb::Partition;
use npuzzle_search::{Algorithm, Effort, HeuristicKind, Strategy};

use crate::note::{Note, NoteSink};
use crate::tables::Tables;
use crate::threads::{cores, MAX_THREADS};

/// The longest wall-clock budget a board may be given (about eleven days).
pub const MAX_SECONDS: f64 = 1e6;

/// A wall-clock budget from seconds as every door takes them: 0.001 to
/// [`MAX_SECONDS`]; the error names the value, for the door to prefix
/// with its own name for the option.
pub fn time_budget(seconds: f64) -> Result<std::time::Duration, String> {
    if (0.001..=MAX_SECONDS).contains(&seconds) {
        return Ok(std::time::Duration::from_secs_f64(seconds));
    }
    // A tiny or huge number as written, not as hundreds of digits.
    let shown = if seconds != 0.0 && !(1e-3..1e7).contains(&seconds.abs()) {
        format!("{seconds:e}")
    } else {
        seconds.to_string()
    };
    Err(format!(
        "{shown} is out of range: give seconds from 0.001 to 1000000, such as 10 or 0.5"
    ))
}

/// A wall-clock budget in a request's `field`, when given, as
/// [`time_budget`] reads it; the message names the field.
pub fn seconds_field(
    seconds: Option<f64>,
    field: &str,
) -> Result<Option<std::time::Duration>, String> {
    seconds
        .map(time_budget)
        .transpose()
        .map_err(|e| format!("{field}: {e}"))
}

/// The least memory budget a solver takes (A*+IDA*): 1 KiB.
pub const MIN_MEMORY: u64 = 1 << 10;

/// The largest memory budget a solver takes: 1024 TiB.
pub const MAX_MEMORY: u64 = 1 << 50;

/// A memory budget in bytes from text as every door takes it: a number
/// with an optional K, M, G or T (powers of 1024) and an optional B or
/// iB, from [`MIN_MEMORY`] to [`MAX_MEMORY`]; the error names the text.
pub fn memory_size(text: &str) -> Result<u64, String> {
    let hint = || format!("{text:?} is not a size: give bytes such as 2G, 500M or 1.5G");
    let lower = text.trim().to_ascii_lowercase();
    let digits = lower.trim_end_matches("ib").trim_end_matches('b');
    let (number, shift) = match digits.char_indices().last() {
        Some((i, 'k')) => (&digits[..i], 10),
        Some((i, 'm')) => (&digits[..i], 20),
        Some((i, 'g')) => (&digits[..i], 30),
        Some((i, 't')) => (&digits[..i], 40),
        _ => (digits, 0),
    };
    let value = number.trim().parse::<f64>().map_err(|_| hint())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < MIN_MEMORY as f64 || bytes > MAX_MEMORY as f64 {
        return Err(format!(
            "{text:?} is out of range: give 1K to 1024T, such as 2G"
        ));
    }
    Ok(bytes as u64)
}

/// The largest `within` percentage a solver takes (at most 11 times optimal).
pub const MAX_WITHIN: u32 = 1000;

/// The options of a [`Solver`](crate::Solver), the same as `npuzzle solve` takes.
#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) pdb_dir: Option<PathBuf>,
    pub(crate) goal: Goal,
    pub(crate) partition: Option<String>,
    pub(crate) partition_size: Option<usize>,
    pub(crate) algorithm: Option<Algorithm>,
    pub(crate) heuristic: Option<HeuristicKind>,
    pub(crate) fast: bool,
    pub(crate) effort: Effort,
    pub(crate) within: u32,
    pub(crate) reflection: bool,
    pub(crate) max_nodes: Option<u64>,
    pub(crate) max_time: Option<std::time::Duration>,
    pub(crate) anytime: Option<std::time::Duration>,
    pub(crate) threads: usize,
    pub(crate) on_note: Option<NoteSink>,
    pub(crate) strategy: Option<Strategy>,
    pub(crate) memory: Option<u64>,
}

impl Config {
    /// Refuses a partition that names no tables of any side (of the side
    /// it is for, when given), or with options that search without tables.
    pub(crate) fn partition_applies(&self) -> Result<(), crate::Error> {
        let Some(name) = &self.partition else {
            return Ok(());
        };
        let without_tables = if self.fast {
            Some("fast".to_string())
        } else if self.algorithm == Some(Algorithm::Bfs) {
            Some("algorithm bfs".to_string())
        } else {
            match self.heuristic {
                Some(h) if h != HeuristicKind::Pdb => Some(format!("heuristic {}", h.name())),
                _ => None,
            }
        };
        if let Some(option) = without_tables {
            return Err(crate::Error::InvalidArgument(format!(
                "partition {} names tables, but {option} searches without them: give one or \
                 the other",
                echo(name)
            )));
        }
        if let Some(size) = self.partition_size {
            Partition::parse(name, size, self.goal)?;
        } else if (MIN_SIZE..=MAX_SIZE).all(|size| Partition::parse(name, size, self.goal).is_err())
        {
            let why = Partition::parse(name, 4, self.goal)
                .err()
                .map_or(String::new(), |e| e.to_string());
            return Err(crate::Error::InvalidArgument(format!(
                "partition {}: not a partition of any board side ({why})",
                echo(name)
            )));
        }
        Ok(())
    }

    /// Refuses fast answers with an option that asks for another search
    /// (which fast answers would silently skip).
    pub(crate) fn fast_applies(&self) -> Result<(), crate::Error> {
        if !self.fast {
            return Ok(());
        }
        let other = if self.within > 0 {
            format!("within {} asks for weighted IDA*", self.within)
        } else if let Some(algorithm) = self.algorithm {
            format!("algorithm {} runs as asked", algorithm.name())
        } else if let Some(heuristic) = self.heuristic {
            format!("heuristic {} runs as asked", heuristic.name())
        } else {
            return Ok(());
        };
        Err(crate::Error::InvalidArgument(format!(
            "fast answers by the reduction, but {other}: give one or the other"
        )))
    }

    /// Refuses time for a shorter answer where no beam runs.
    pub(crate) fn anytime_applies(&self) -> Result<(), crate::Error> {
        let other = if self.fast {
            "fast answers by the reduction"
        } else if self.within > 0 {
            "within answers by weighted IDA*"
        } else if self.algorithm.is_some() {
            "an algorithm given runs as asked"
        } else if self.heuristic.is_some() {
            "a heuristic given runs as asked"
        } else {
            return Ok(());
        };
        Err(crate::Error::InvalidArgument(format!(
            "anytime gives the beam time for a shorter answer, but {other}, without the beam: \
             give one or the other"
        )))
    }
}

/// Every option a door offers, as the doors share them: names as text
/// (goal, algorithm, heuristic, strategy, partition), budgets as numbers,
/// `None` for the command line's default. [`Options::builder`] reads them
/// once, each message naming its field, and [`SolverBuilder::build`]
/// checks every rule between them; a door maps its own syntax onto these
/// fields and nothing more.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// See [`SolverBuilder::pdb_dir`].
    pub pdb_dir: Option<PathBuf>,
    /// `blank-last` or `blank-first`.
    pub goal: Option<String>,
    /// See [`SolverBuilder::partition`].
    pub partition: Option<String>,
    /// The side `partition` is for ([`SolverBuilder::partition_for`]).
    pub partition_size: Option<usize>,
    /// The side whose tables [`SolverBuilder::build`] opens
    /// ([`SolverBuilder::open_tables_now`]).
    pub open_tables: Option<usize>,
    /// `ida*`, `a*` or `bfs` ([`SolverBuilder::algorithm`]).
    pub algorithm: Option<String>,
    /// `pdb`, `linear-conflict`, `manhattan`... ([`SolverBuilder::heuristic`]).
    pub heuristic: Option<String>,
    /// See [`SolverBuilder::strategy`].
    pub strategy: Option<String>,
    /// See [`SolverBuilder::fast`].
    pub fast: bool,
    /// Percent over optimal, 0 to [`MAX_WITHIN`] ([`SolverBuilder::within`];
    /// signed, so that a door passes what its user gave).
    pub within: Option<i64>,
    /// See [`SolverBuilder::reflection`] (default: yes).
    pub reflection: Option<bool>,
    /// See [`SolverBuilder::max_nodes`].
    pub max_nodes: Option<u64>,
    /// Seconds, 0.001 to [`MAX_SECONDS`] ([`SolverBuilder::max_time`]).
    pub max_seconds: Option<f64>,
    /// Seconds, 0.001 to [`MAX_SECONDS`] ([`SolverBuilder::anytime`]).
    pub anytime: Option<f64>,
    /// Bytes, [`MIN_MEMORY`] to [`MAX_MEMORY`] ([`SolverBuilder::memory`];
    /// [`memory_size`] reads `2G`).
    pub memory: Option<u64>,
    /// See [`SolverBuilder::threads`].
    pub threads: Option<usize>,
}

impl Options {
    /// A builder set up with these options, or the first one that is
    /// wrong, named (`goal: "up" is not a goal: ...`).
    pub fn builder(&self) -> Result<SolverBuilder, crate::Error> {
        let invalid = crate::Error::InvalidArgument;
        let mut builder = SolverBuilder::new()
            .goal(npuzzle_board::named_field(self.goal.as_deref(), "goal").map_err(invalid)?)
            .fast(self.fast)
            .within(within_percent(self.within)?)
            .reflection(self.reflection.unwrap_or(true))
            .max_nodes(self.max_nodes)
            .max_time(seconds_field(self.max_seconds, "max_seconds").map_err(invalid)?)
            .anytime(seconds_field(self.anytime, "anytime").map_err(invalid)?);
        if let Some(dir) = &self.pdb_dir {
            builder = builder.pdb_dir(dir);
        }
        if let Some(name) = &self.partition {
            builder = match self.partition_size {
                Some(size) => builder.partition_for(size, name),
                None => builder.partition(name),
            };
        }
        if let Some(size) = self.open_tables {
            builder = builder.open_tables_now(size);
        }
        if let Some(algorithm) = named(self.algorithm.as_deref(), "algorithm")? {
            builder = builder.algorithm(algorithm);
        }
        if let Some(heuristic) = named(self.heuristic.as_deref(), "heuristic")? {
            builder = builder.heuristic(heuristic);
        }
        if let Some(strategy) = named(self.strategy.as_deref(), "strategy")? {
            builder = builder.strategy(strategy);
        }
        if let Some(bytes) = self.memory {
            builder = builder.memory(bytes);
        }
        if let Some(threads) = self.threads {
            builder = builder.threads(threads);
        }
        Ok(builder)
    }
}

/// `within` as a percentage, or the error naming it.
fn within_percent(within: Option<i64>) -> Result<u32, crate::Error> {
    let Some(within) = within else {
        return Ok(0);
    };
    u32::try_from(within)
        .ok()
        .filter(|&percent| percent <= MAX_WITHIN)
        .ok_or_else(|| within_out_of_range(within))
}

/// The error for a `within` percentage past [`MAX_WITHIN`] or below 0.
pub(crate) fn within_out_of_range(within: impl std::fmt::Display) -> crate::Error {
    crate::Error::InvalidArgument(format!(
        "within {within} is out of range: give 0 (optimal) to {MAX_WITHIN} percent"
    ))
}

/// The value of a name given in `field`, the field named in the error.
fn named<T: std::str::FromStr<Err = npuzzle_board::UnknownName>>(
    name: Option<&str>,
    field: &str,
) -> Result<Option<T>, crate::Error> {
    name.map(|name| {
        name.parse()
            .map_err(|e| crate::Error::InvalidArgument(format!("{field}: {e}")))
    })
    .transpose()
}

/// Sets a [`Solver`](crate::Solver) up; every option has the command line's default.
#[must_use]
pub struct SolverBuilder {
    pub(crate) config: Config,
    pub(crate) tables: Vec<Arc<Tables>>,
    pub(crate) open_now: Vec<usize>,
}

impl SolverBuilder {
    /// The directory of the tables (default: `$NPUZZLE_PDB_DIR`, else
    /// `./data`, else the user data directory; see [`crate::search_dirs`]).
    pub fn pdb_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.pdb_dir = Some(dir.into());
        self
    }

    /// The goal (default: blank-last, `1 2 ... 0`).
    pub fn goal(mut self, goal: Goal) -> Self {
        self.config.goal = goal;
        self
    }

    /// The partition or catalogue of every side's tables (`7-8`, `septet`,
    /// `"1,2,3;4,5,6"`, `7z-8+L7-8`...). Tables asked for by name are
    /// required: a board whose side has them missing is refused, never
    /// solved another way.
    pub fn partition(mut self, name: impl Into<String>) -> Self {
        self.config.partition = Some(name.into());
        self.config.partition_size = None;
        self
    }

    /// The partition for boards of side `size` only; other sides get their
    /// default tables.
    pub fn partition_for(mut self, size: usize, name: impl Into<String>) -> Self {
        self.config.partition = Some(name.into());
        self.config.partition_size = Some(size);
        self
    }

    /// The search, run exactly as asked (to the end or the node limit, no
    /// fallback); default: the policy of [`Solver`](crate::Solver).
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.config.algorithm = Some(algorithm);
        self
    }

    /// The heuristic, run exactly as asked (see [`SolverBuilder::algorithm`]).
    pub fn heuristic(mut self, heuristic: HeuristicKind) -> Self {
        self.config.heuristic = Some(heuristic);
        self
    }

    /// Solve fast but not optimally (the reduction), for any size.
    pub fn fast(mut self, fast: bool) -> Self {
        self.config.fast = fast;
        self
    }

    /// How hard the reduction (past optimal search) works at the parts it
    /// searches (default: [`Effort::Thorough`]; [`Effort::Quick`] for
    /// answers within tens of milliseconds, as a game's coach wants).
    pub fn reduction_effort(mut self, effort: Effort) -> Self {
        self.config.effort = effort;
        self
    }

    /// Accept solutions up to `percent` percent longer than optimal
    /// (0, the default: optimal only). The search is weighted IDA*, over
    /// the tables where they are built, and the bound is guaranteed: a
    /// solution is at most `1 + percent / 100` times the optimal length.
    /// Past the board sizes search can take, the reduction answers as
    /// before, with no guarantee. At most [`MAX_WITHIN`].
    pub fn within(mut self, percent: u32) -> Self {
        self.config.within = percent;
        self
    }

    /// The strategy table searches compute the heuristic with, instead of
    /// the one [`npuzzle_search::choose`] picks for the tables (for tests
    /// and comparisons: every strategy gives the same answers and node
    /// counts). A strategy that does not take the tables makes the solve
    /// fail with [`Error::Search`](crate::Error) naming it.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.config.strategy = Some(strategy);
        self
    }

    /// Optimal searches of boards up to 5x5: run A*+IDA*, keeping
    /// positions near the root in at most `bytes` (tables not counted),
    /// each expanded once, and IDA* below them. Default: plain IDA*.
    /// [`build`](Self::build) refuses a budget outside [`MIN_MEMORY`] to
    /// [`MAX_MEMORY`] or above the memory free now.
    pub fn memory(mut self, bytes: u64) -> Self {
        self.config.memory = Some(bytes);
        self
    }

    /// Whether table searches also look the reflected board up (default:
    /// yes; without, more nodes).
    pub fn reflection(mut self, reflection: bool) -> Self {
        self.config.reflection = reflection;
        self
    }

    /// Give up after this many nodes: IDA* expanded nodes; BFS and A*
    /// boards kept (default: IDA* none, BFS and A* what fits in about 1 GB).
    /// `None` restores the default.
    pub fn max_nodes(mut self, limit: Option<u64>) -> Self {
        self.config.max_nodes = limit;
        self
    }

    /// Give up after this much wall-clock time a board (default: none):
    /// optimal and weighted searches end with [`Error::TimeLimit`](crate::Error::TimeLimit)
    /// (a weighted search keeps the answer of its last finished stage);
    /// the beam answers from the board nearest the goal it reached. The
    /// reduction that finishes a near-optimal answer runs to its end.
    pub fn max_time(mut self, budget: Option<std::time::Duration>) -> Self {
        self.config.max_time = budget;
        self
    }

    /// Time for shorter near-optimal answers (default: none): a board the
    /// beam answers (5x5 without tables to 10x10) gets its default beams
    /// (however long they take), then beams twice as wide each until this
    /// much wall-clock time has passed, and the shortest answer stands,
    /// never longer than the default's, its note saying how long it
    /// searched and what that gained. Within [`Self::max_time`] when both
    /// are given; optimal answers and the reduction's are unchanged.
    /// A beam may keep [`ANYTIME_BEAM_BYTES`](crate::ANYTIME_BEAM_BYTES)
    /// of history.
    pub fn anytime(mut self, budget: Option<std::time::Duration>) -> Self {
        self.config.anytime = budget;
        self
    }

    /// Threads: boards solved at once by [`Solver::solve_many`](crate::Solver::solve_many) and
    /// [`Solver::answers`](crate::Solver::answers), or the threads sharing one board's search in
    /// [`Solver::solve`](crate::Solver::solve) (default: one per core; 1 to 256).
    pub fn threads(mut self, threads: usize) -> Self {
        self.config.threads = threads;
        self
    }

    /// Called once for each [`Note`] (they are also kept for
    /// [`Solver::take_notes`](crate::Solver::take_notes)).
    pub fn on_note(mut self, sink: impl Fn(&Note) + Send + Sync + 'static) -> Self {
        self.config.on_note = Some(Arc::new(sink));
        self
    }

    /// Opens the tables of boards of side `size` in [`SolverBuilder::build`]
    /// and fails there if they are missing or damaged, instead of at the
    /// first board.
    pub fn open_tables_now(mut self, size: usize) -> Self {
        self.open_now.push(size);
        self
    }

    /// Tables already open, for boards of their side (their partition
    /// counts as asked for). An `Arc<Tables>` is shared, not copied: many
    /// solvers (other goals' or options') can hold the same tables.
    pub fn tables(mut self, tables: impl Into<Arc<Tables>>) -> Self {
        self.tables.push(tables.into());
        self
    }
}

impl SolverBuilder {
    /// The command line's defaults.
    pub(crate) fn new() -> SolverBuilder {
        SolverBuilder {
            config: Config {
                pdb_dir: None,
                goal: Goal::BlankLast,
                partition: None,
                partition_size: None,
                algorithm: None,
                heuristic: None,
                fast: false,
                effort: Effort::Thorough,
                within: 0,
                reflection: true,
                max_nodes: None,
                max_time: None,
                anytime: None,
                threads: cores().min(MAX_THREADS),
                on_note: None,
                strategy: None,
                memory: None,
            },
            tables: Vec::new(),
            open_now: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    /// Seconds as every door reads them: absent is none, out of range is
    /// refused naming the field and the range.
    #[test]
    fn a_seconds_field_names_the_field() {
        assert_eq!(super::seconds_field(None, "anytime"), Ok(None));
        assert_eq!(
            super::seconds_field(Some(0.5), "anytime"),
            Ok(Some(Duration::from_millis(500)))
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e7, 1e-300, -1e300] {
            let e = super::seconds_field(Some(bad), "max_seconds").unwrap_err();
            assert!(
                e.starts_with("max_seconds: ") && e.contains("from 0.001 to 1000000"),
                "{e}"
            );
            assert!(e.len() < 120, "{e}");
        }
        let e = super::time_budget(1e-300).unwrap_err();
        assert!(e.starts_with("1e-300 is out of range"), "{e}");
        assert!(super::time_budget(-1.0)
            .unwrap_err()
            .starts_with("-1 is out"));
    }

    /// Every door's options: a wrong one is named, with the engine's
    /// message, and the rest reach the solver.
    #[test]
    fn options_name_the_one_that_is_wrong() {
        use crate::{ErrorKind, Options};
        let refused = |options: Options| {
            let e = options
                .builder()
                .and_then(|b| b.build())
                .err()
                .expect("refused");
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
            e.to_string()
        };
        let text = |t: &str| Some(t.to_string());
        for (options, said) in [
            (
                Options {
                    goal: text("up"),
                    ..Options::default()
                },
                "goal: ",
            ),
            (
                Options {
                    algorithm: text("dfs"),
                    ..Options::default()
                },
                "algorithm: ",
            ),
            (
                Options {
                    heuristic: text("x"),
                    ..Options::default()
                },
                "heuristic: ",
            ),
            (
                Options {
                    strategy: text("x"),
                    ..Options::default()
                },
                "strategy: ",
            ),
            (
                Options {
                    max_seconds: Some(0.0),
                    ..Options::default()
                },
                "max_seconds: ",
            ),
            (
                Options {
                    anytime: Some(-1.0),
                    ..Options::default()
                },
                "anytime: ",
            ),
            (
                Options {
                    within: Some(5000),
                    ..Options::default()
                },
                "within 5000",
            ),
            (
                Options {
                    within: Some(-1),
                    ..Options::default()
                },
                "within -1 is out of range: give 0 (optimal) to 1000 percent",
            ),
            (
                Options {
                    memory: Some(1),
                    ..Options::default()
                },
                "memory",
            ),
            (
                Options {
                    threads: Some(0),
                    ..Options::default()
                },
                "threads 0",
            ),
            (
                Options {
                    partition: text("garbage"),
                    ..Options::default()
                },
                "partition garbage",
            ),
            (
                Options {
                    fast: true,
                    within: Some(5),
                    ..Options::default()
                },
                "fast answers by the reduction, but within 5",
            ),
            (
                Options {
                    fast: true,
                    algorithm: text("astar"),
                    ..Options::default()
                },
                "fast answers by the reduction, but algorithm astar",
            ),
            (
                Options {
                    fast: true,
                    heuristic: text("manhattan"),
                    ..Options::default()
                },
                "fast answers by the reduction, but heuristic manhattan",
            ),
            (
                Options {
                    partition: text("7-8"),
                    fast: true,
                    ..Options::default()
                },
                "partition 7-8 names tables, but fast searches",
            ),
        ] {
            let message = refused(options);
            assert!(message.starts_with(said), "{said}: {message}");
        }
        let solver = Options {
            goal: text("blank-first"),
            max_nodes: Some(1000),
            threads: Some(1),
            ..Options::default()
        }
        .builder()
        .and_then(|b| b.build())
        .unwrap();
        assert_eq!(solver.goal(), npuzzle_board::Goal::BlankFirst);
        assert_eq!((solver.max_nodes(), solver.threads()), (Some(1000), 1));
    }

    /// A partition names tables: every door's solver refuses it with an
    /// option that searches without them, or when it fits no side, before
    /// any board is read.
    #[test]
    fn a_partition_with_a_search_without_tables_is_refused() {
        use npuzzle_search::{Algorithm, HeuristicKind};

        use crate::{ErrorKind, Solver};
        let base = || Solver::builder().partition("6-6-3");
        let cases = [
            (base().fast(true), "but fast searches"),
            (
                base().algorithm(Algorithm::Bfs),
                "but algorithm bfs searches",
            ),
            (
                base().heuristic(HeuristicKind::LinearConflict),
                "but heuristic linear-conflict searches",
            ),
            (
                Solver::builder().partition("garbage"),
                "partition garbage: not a partition of any board side",
            ),
            (Solver::builder().partition_for(3, "6-6-3"), "6-6-3"),
        ];
        for (builder, message) in cases {
            let e = builder.build().err().expect("refused");
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
            assert!(e.to_string().contains(message), "{e}");
        }
        assert!(base().heuristic(HeuristicKind::Pdb).build().is_ok());
        assert!(base().algorithm(Algorithm::AStar).build().is_ok());
    }
}
