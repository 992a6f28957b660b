//! Where searches run, and escalation between the pools.
//!
//! Searches run on three small thread pools outside tokio. Hints and
//! checks of boards up to 4x4 (light work: a random 4x4 board takes a few
//! milliseconds) have a pool and a queue of their own, so that no amount of
//! heavy work makes a player wait. Heavy work (solves, boards past 4x4)
//! first gets a short search on the quick pool; only a board that needs
//! more moves on to the long pool, whose threads run at a lower priority
//! still. Each search has a node budget and a deadline to start by, and
//! stops when its client goes; heavy work is bounded per client address and
//! in all, and past either bound is refused at once, never queued.

use std::collections::HashMap;
use std::net::IpAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use npuzzle::{Board, Goal, Run, Solver, CHECK_NODES};
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

use crate::output::Answer;
use crate::serve::cache::Cache;

/// A request's wall-clock budgets: for its search, and for a shorter
/// near-optimal answer (`SolverBuilder::anytime`), both cut to the
/// server's caps.
#[derive(Clone, Copy, Debug, Default)]
pub struct Time {
    pub max_time: Option<Duration>,
    pub anytime: Option<Duration>,
}

/// A search not started this long after it was queued is dropped, and its
/// client told the server is busy. A running one is bounded by its node
/// budget, and stopped when its client goes.
const QUEUE_DEADLINE: Duration = Duration::from_secs(60);
/// Hints and checks of boards up to this side are light work.
const LIGHT_SIDE: usize = 4;
/// Light searches queued or running at once.
const LIGHT_QUEUE: usize = 256;
/// Expanded nodes of the first, quick attempt at every board.
pub const QUICK_NODES: u64 = 2_000_000;
/// Heavy work's threads run this much nicer than the light pool's: the
/// quick pool's a little, the long pool's more.
const QUICK_POOL_NICENESS: i32 = 5;
const LONG_POOL_NICENESS: i32 = 10;

/// Why a search was not run: the server answers 503 for `Busy` (ask again
/// in a moment), 500 for `Failed`.
pub enum Refusal {
    /// Over a bound, or waited too long for a thread: why, for the client.
    Busy(String),
    /// The search panicked; the server goes on.
    Failed,
}

/// What the pools are given.
pub struct Settings {
    /// The engine, one per goal (blank-last, blank-first).
    pub solvers: [Solver; 2],
    /// Threads of each pool.
    pub threads: usize,
    /// Heavy searches queued or running at once.
    pub queue: usize,
    /// Heavy searches one client address may have queued or running.
    pub per_client: usize,
    /// The node budget of a request.
    pub max_nodes: u64,
    /// The most time a request may give for a shorter near-optimal answer.
    pub max_anytime: Duration,
}

/// The engine, the pools that run it, their bounds and the answer cache.
pub struct Pools {
    /// The engine, one per goal; each opens a side's tables once.
    solvers: [Solver; 2],
    /// Light work: hints and checks of boards up to 4x4.
    light: rayon::ThreadPool,
    /// Heavy work's first attempt.
    quick: rayon::ThreadPool,
    /// Heavy work the quick attempt left unsolved.
    long: rayon::ThreadPool,
    /// Permits for light searches queued or running; none left: refused.
    light_queue: Arc<Semaphore>,
    /// Permits for heavy searches queued or running; none left: refused.
    heavy_queue: Arc<Semaphore>,
    /// Heavy searches each client address has queued or running.
    heavy_by_client: Mutex<HashMap<IpAddr, usize>>,
    /// The most of them one address may have.
    per_client: usize,
    max_nodes: u64,
    max_anytime: Duration,
    /// Solutions of positions seen, and of every position along them.
    cache: Cache,
}

/// Which bound a search counts against.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lane {
    Light,
    Heavy,
}

/// Which pool runs a search.
#[derive(Clone, Copy)]
enum Pool {
    Light,
    Quick,
    Long,
}

/// A place in a lane, given back when dropped.
struct Slot {
    _permit: OwnedSemaphorePermit,
    /// A heavy slot's client, whose count it holds.
    client: Option<(Arc<Pools>, IpAddr)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some((pools, client)) = &self.client {
            let mut counts = pools
                .heavy_by_client
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if let Some(count) = counts.get_mut(client) {
                *count -= 1;
                if *count == 0 {
                    counts.remove(client);
                }
            }
        }
    }
}

/// Stops a search when its request is done with it: answered, timed out,
/// or dropped because the client went away.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A pool of `threads` named threads; `nice` lowers their priority.
fn pool(name: &'static str, threads: usize, nice: i32) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(move |_| {
            if nice != 0 {
                // Linux applies a thread id's priority to that thread only.
                // Failing leaves the thread at normal priority: still correct.
                let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), nice);
            }
        })
        .build()
        .map_err(|e| format!("cannot start the solver threads: {e}"))
}

impl Pools {
    /// Starts the pools; an error says why their threads could not start.
    pub fn new(settings: Settings) -> Result<Pools, String> {
        let threads = settings.threads;
        Ok(Pools {
            solvers: settings.solvers,
            light: pool("light", threads, 0)?,
            quick: pool("quick", threads, QUICK_POOL_NICENESS)?,
            long: pool("long", threads, LONG_POOL_NICENESS)?,
            light_queue: Arc::new(Semaphore::new(LIGHT_QUEUE)),
            heavy_queue: Arc::new(Semaphore::new(settings.queue)),
            heavy_by_client: Mutex::new(HashMap::new()),
            per_client: settings.per_client,
            max_nodes: settings.max_nodes,
            max_anytime: settings.max_anytime,
            cache: Cache::default(),
        })
    }

    /// The node budget of a request that names none.
    pub fn max_nodes(&self) -> u64 {
        self.max_nodes
    }

    /// The most a request's `anytime` may be.
    pub fn max_anytime(&self) -> Duration {
        self.max_anytime
    }

    pub fn solver(&self, goal: Goal) -> &Solver {
        &self.solvers[usize::from(goal == Goal::BlankFirst)]
    }

    /// The engine's answer within `budget` expanded nodes and `time`, on
    /// this thread; `stop` ends the search early.
    pub fn search(
        &self,
        goal: Goal,
        board: &Board,
        budget: u64,
        time: Time,
        stop: &Arc<AtomicBool>,
    ) -> Answer {
        let started = Instant::now();
        let run = Run {
            max_nodes: Some(budget),
            max_time: time.max_time,
            anytime: time.anytime,
            stop: Some(Arc::clone(stop)),
            here: true,
            ..Run::default()
        };
        let result = self.solver(goal).solve_with(board, &run);
        Answer::of(result, started.elapsed().as_secs_f64())
    }

    /// A place for a search in `lane`, or a refusal at once: light work
    /// within its queue; heavy work within the client's share and the queue.
    fn admit(self: &Arc<Self>, lane: Lane, client: IpAddr) -> Result<Slot, Refusal> {
        if lane == Lane::Light {
            let permit = Arc::clone(&self.light_queue)
                .try_acquire_owned()
                .map_err(|_| Refusal::Busy("its queue of hints is full".to_string()))?;
            return Ok(Slot {
                _permit: permit,
                client: None,
            });
        }
        let mut counts = self
            .heavy_by_client
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let count = counts.get(&client).copied().unwrap_or(0);
        if count >= self.per_client {
            return Err(Refusal::Busy(format!(
                "this address already has {count} searches queued or running, the most one \
                 client may have (npuzzle serve --per-client)"
            )));
        }
        let permit = Arc::clone(&self.heavy_queue)
            .try_acquire_owned()
            .map_err(|_| {
                Refusal::Busy("its queue of searches is full (npuzzle serve --queue)".to_string())
            })?;
        counts.insert(client, count + 1);
        Ok(Slot {
            _permit: permit,
            client: Some((Arc::clone(self), client)),
        })
    }

    /// Runs `work` on `pool`, off the async threads. Work whose client
    /// went away, or not started within QUEUE_DEADLINE, is skipped; running,
    /// it is stopped through the flag it is given when its client goes. A
    /// panic becomes a refusal instead of taking the server down.
    async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        pool: Pool,
        work: impl FnOnce(&Pools, &Arc<AtomicBool>) -> T + Send + 'static,
    ) -> Result<T, Refusal> {
        let deadline = Instant::now() + QUEUE_DEADLINE;
        let (tx, rx) = oneshot::channel();
        let pools = Arc::clone(self);
        let stop = Arc::new(AtomicBool::new(false));
        // Dropped with this future: when the client hangs up, too.
        let _stop = StopOnDrop(Arc::clone(&stop));
        let pool = match pool {
            Pool::Light => &self.light,
            Pool::Quick => &self.quick,
            Pool::Long => &self.long,
        };
        pool.spawn(move || {
            if tx.is_closed() || stop.load(Ordering::Relaxed) {
                return;
            }
            if Instant::now() > deadline {
                let _ = tx.send(None);
                return;
            }
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(&pools, &stop)));
            let _ = tx.send(Some(result));
        });
        match rx.await {
            Ok(None) => Err(Refusal::Busy(format!(
                "this search waited {} s for a thread",
                QUEUE_DEADLINE.as_secs()
            ))),
            Ok(Some(Ok(value))) => Ok(value),
            _ => Err(Refusal::Failed),
        }
    }

    /// The answer for a board: from the cache, else a quick search, else a
    /// long one within `max_nodes`. A hint of a board up to 4x4 is light
    /// work until its quick search runs out; the rest is heavy.
    pub async fn answer(
        self: &Arc<Self>,
        board: &Board,
        goal: Goal,
        max_nodes: u64,
        time: Time,
        hint: bool,
        client: IpAddr,
    ) -> Result<Answer, Refusal> {
        let started = Instant::now();
        if !board.is_solvable(goal) {
            return Ok(Answer::Unsolvable);
        }
        // Time given for a shorter answer than the one known searches.
        if let Some(mut known) = self.cache.get(goal, board, self.solver(goal)) {
            if known.optimal || time.anytime.is_none() {
                known.elapsed = started.elapsed();
                return Ok(Answer::Solved(known));
            }
        }
        let beamed = self.solver(goal).answers_near_optimally(board);
        if beamed && time.anytime.is_some() {
            let slot = self.admit(Lane::Heavy, client)?;
            let searched = board.clone();
            let answer = self
                .run(Pool::Long, move |pools, stop| {
                    pools.search(goal, &searched, max_nodes, time, stop)
                })
                .await?;
            drop(slot);
            if let Answer::Solved(solved) = &answer {
                self.cache.remember(goal, board, solved);
            }
            return Ok(answer);
        }
        let light = hint && board.size() <= LIGHT_SIDE;
        let mut slot = self.admit(if light { Lane::Light } else { Lane::Heavy }, client)?;
        // Boards the plan answers near-optimally (far from solved, 5x5
        // and up): the beam and the reduction answer within the short
        // budget; the others get an optimal search's.
        let quick_nodes = if beamed { CHECK_NODES } else { QUICK_NODES }.min(max_nodes);
        let searched = board.clone();
        let first = self
            .run(
                if light { Pool::Light } else { Pool::Quick },
                move |pools, stop| pools.search(goal, &searched, quick_nodes, time, stop),
            )
            .await?;
        let answer = match first {
            // Only searches with tables stop at the budget; the others
            // already fell back to the reduction.
            Answer::Refused { nodes: Some(_), .. } if max_nodes > quick_nodes => {
                if light {
                    drop(slot);
                    slot = self.admit(Lane::Heavy, client)?;
                }
                let searched = board.clone();
                let left = Time {
                    max_time: time
                        .max_time
                        .map(|budget| budget.saturating_sub(started.elapsed())),
                    anytime: None,
                };
                self.run(Pool::Long, move |pools, stop| {
                    pools.search(goal, &searched, max_nodes, left, stop)
                })
                .await?
            }
            answer => answer,
        };
        drop(slot);
        Ok(match answer {
            Answer::Refused {
                nodes: Some(limit),
                seconds,
                ..
            } => Answer::Refused {
                reason: format!(
                    "too hard for this request: no solution within {limit} expanded nodes, {}; \
                     the command line has no limit: npuzzle solve \"{}\"",
                    if max_nodes < self.max_nodes {
                        "the request's own max_nodes"
                    } else {
                        "the server's budget (npuzzle serve --max-nodes)"
                    },
                    board.to_line()
                ),
                nodes: Some(limit),
                seconds,
            },
            Answer::Solved(solved) => {
                self.cache.remember(goal, board, &solved);
                Answer::Solved(solved)
            }
            other => other,
        })
    }

    /// The answer `/api/check` reports for a solvable board: from the
    /// cache, else a search of at most CHECK_NODES (and `max_nodes`),
    /// light work up to 4x4.
    pub async fn check(
        self: &Arc<Self>,
        board: &Board,
        goal: Goal,
        max_nodes: u64,
        time: Time,
        client: IpAddr,
    ) -> Result<Answer, Refusal> {
        if let Some(known) = self.cache.get(goal, board, self.solver(goal)) {
            return Ok(Answer::Solved(known));
        }
        let light = board.size() <= LIGHT_SIDE;
        let _slot = self.admit(if light { Lane::Light } else { Lane::Heavy }, client)?;
        let budget = CHECK_NODES.min(max_nodes);
        let searched = board.clone();
        let pool = if light { Pool::Light } else { Pool::Quick };
        let answer = self
            .run(pool, move |pools, stop| {
                pools.search(goal, &searched, budget, time, stop)
            })
            .await?;
        if let Answer::Solved(solved) = &answer {
            self.cache.remember(goal, board, solved);
        }
        Ok(answer)
    }
}
