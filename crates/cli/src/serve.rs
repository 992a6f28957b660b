//! `npuzzle serve`: the picture puzzle in the browser, coached by the optimal
//! solver. The page, its script, styles and picture are compiled in, so an
//! installed binary serves them offline.
//!
//! Requests are answered on tokio; searches run on three small thread pools
//! outside it. Hints and checks of boards up to 4x4 (light work: a random
//! 4x4 board takes a few milliseconds) have a pool and a queue of their
//! own, so that no amount of heavy work makes a player wait. Heavy work
//! (solves, boards past 4x4) first gets a short search on the quick pool;
//! only a board that needs more moves on to the long pool, whose threads
//! run at a lower priority still. Each search has a node budget and a
//! deadline to start by, and stops when its client goes; heavy work is bounded per
//! client address and in all, and past either bound is answered 503 with
//! Retry-After at once, never queued.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http_body_util::BodyExt;
use npuzzle::{random_board, Board, Goal, Move, Notation, Run, Solver, SplitMix64};
use npuzzle_board::Known;
use serde::{Deserialize, Serialize};
use tokio::sync::{oneshot, OwnedSemaphorePermit, Semaphore};

use crate::input::Input;
use crate::output::{json_record, Answer};
use crate::{ServeArgs, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

/// Board sides the server takes.
pub const SIDES: std::ops::RangeInclusive<usize> = 2..=8;
/// Largest request body: a board of 64 numbers needs a few hundred bytes.
const MAX_BODY: usize = 64 * 1024;
/// A client has this long to send a request's headers, and, on a kept-alive
/// connection, to start its next request.
const HEADER_TIMEOUT: Duration = Duration::from_secs(5);
/// A client has this long to send a request's whole body, from the end of
/// its headers, however it trickles.
const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// A search not started this long after it was queued is dropped, and its
/// client told the server is busy. A running one is bounded by its node
/// budget, and stopped when its client goes.
const QUEUE_DEADLINE: Duration = Duration::from_secs(60);
/// What a 503's Retry-After asks a client to wait, in seconds.
const RETRY_AFTER_SECONDS: u32 = 1;
/// Hints and checks of boards up to this side are light work.
const LIGHT_SIDE: usize = 4;
/// Light searches queued or running at once.
const LIGHT_QUEUE: usize = 256;
/// Expanded nodes of the first, quick attempt at every board.
const QUICK_NODES: u64 = 2_000_000;
/// Expanded nodes `/api/check` spends looking for the exact distance.
const CHECK_NODES: u64 = 200_000;
/// Positions kept with their optimal solutions (about 10 MB at most).
const CACHE_ENTRIES: usize = 100_000;
/// Heavy work's threads run this much nicer than the light pool's: the
/// quick pool's a little, the long pool's more.
const QUICK_POOL_NICENESS: i32 = 5;
const LONG_POOL_NICENESS: i32 = 10;

/// The embedded page.
const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");
const PICTURE_SVG: &str = include_str!("../assets/picture.svg");

/// Optimal solutions by (goal, tiles).
/// A position's solution, and whether it is optimal (else the best one
/// known: the reduction's).
type SolutionCache = HashMap<(Goal, Vec<u16>), (Arc<[Move]>, bool)>;

/// Solutions longer than this are not kept: each position along one keeps
/// its own tail.
const LONGEST_KEPT: usize = 2_000;

/// What every handler shares.
struct Server {
    /// The engine, one per goal; each opens a side's tables once.
    solvers: [Solver; 2],
    /// Light work: hints and checks of boards up to 4x4.
    light: rayon::ThreadPool,
    /// Heavy work's first attempt.
    quick: rayon::ThreadPool,
    /// Heavy work the quick attempt left unsolved.
    long: rayon::ThreadPool,
    /// Permits for light searches queued or running; none left: 503.
    light_queue: Arc<Semaphore>,
    /// Permits for heavy searches queued or running; none left: 503.
    heavy_queue: Arc<Semaphore>,
    /// Heavy searches each client address has queued or running.
    heavy_by_client: Mutex<HashMap<IpAddr, usize>>,
    /// The most of them one address may have.
    per_client: usize,
    max_nodes: u64,
    /// Optimal solutions of positions seen, and of every position along them.
    cache: Mutex<SolutionCache>,
    seed: Mutex<SplitMix64>,
    /// Host names (without port) requests may give.
    hosts: Vec<String>,
}

/// An answer the API sends: a status and a JSON body.
struct Reply {
    status: StatusCode,
    body: String,
    /// Seconds a refused client should wait before asking again.
    retry_after: Option<u32>,
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let mut response = (self.status, self.body).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// The error record of `npuzzle solve --json`, with its status.
fn error_reply(status: StatusCode, message: impl Into<String>) -> Reply {
    #[derive(Serialize)]
    struct ErrorRecord {
        #[serde(rename = "type")]
        kind: &'static str,
        file: Option<String>,
        line: Option<usize>,
        id: Option<String>,
        expected: Option<u32>,
        error: String,
    }
    let record = ErrorRecord {
        kind: "error",
        file: None,
        line: None,
        id: None,
        expected: None,
        error: message.into(),
    };
    Reply {
        status,
        body: serde_json::to_string(&record).unwrap_or_default(),
        retry_after: None,
    }
}

fn ok_reply(body: String) -> Reply {
    Reply {
        status: StatusCode::OK,
        body,
        retry_after: None,
    }
}

/// 503: the server will not take this work now; ask again in a second.
fn busy(why: &str) -> Reply {
    Reply {
        retry_after: Some(RETRY_AFTER_SECONDS),
        ..error_reply(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the server is busy: {why}; try again in a moment (Retry-After)"),
        )
    }
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
    client: Option<(Arc<Server>, IpAddr)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some((server, client)) = &self.client {
            let mut counts = server
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

/// The body of `/api/solve`, `/api/hint` and `/api/check`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardRequest {
    /// The CLI's formats as text, or the tiles as numbers.
    board: BoardField,
    #[serde(default)]
    goal: Option<String>,
    #[serde(default)]
    notation: Option<String>,
    /// At most the server's own budget.
    #[serde(default)]
    max_nodes: Option<u64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum BoardField {
    Text(String),
    Tiles(Vec<serde_json::Number>),
}

/// A request, checked: what a search needs.
struct Task {
    board: Board,
    goal: Goal,
    notation: Notation,
    max_nodes: u64,
}

impl Server {
    /// Whether a Host header value (`name` or `name:port`) names this server.
    fn allows_host(&self, host: &str) -> bool {
        let name = match host.rsplit_once(':') {
            // An IPv6 address is bracketed: its colons are inside.
            Some((name, port)) if !port.contains(']') && port.parse::<u16>().is_ok() => name,
            _ => host,
        };
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(name))
    }

    fn solver(&self, goal: Goal) -> &Solver {
        &self.solvers[usize::from(goal == Goal::BlankFirst)]
    }

    /// The engine's answer within `budget` expanded nodes, on this thread;
    /// `stop` ends the search early.
    fn search(&self, goal: Goal, board: &Board, budget: u64, stop: &Arc<AtomicBool>) -> Answer {
        let started = Instant::now();
        let run = Run {
            max_nodes: Some(budget),
            stop: Some(Arc::clone(stop)),
            here: true,
        };
        let result = self.solver(goal).solve_with(board, &run);
        crate::solve::answer(result, started.elapsed().as_secs_f64())
    }

    /// A place for a search in `lane`, or a 503 at once: light work within
    /// its queue; heavy work within the client's share and the queue.
    fn admit(self: &Arc<Self>, lane: Lane, client: IpAddr) -> Result<Slot, Reply> {
        if lane == Lane::Light {
            let permit = Arc::clone(&self.light_queue)
                .try_acquire_owned()
                .map_err(|_| busy("its queue of hints is full"))?;
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
            return Err(busy(&format!(
                "this address already has {count} searches queued or running, the most one \
                 client may have (npuzzle serve --per-client)"
            )));
        }
        let permit = Arc::clone(&self.heavy_queue)
            .try_acquire_owned()
            .map_err(|_| busy("its queue of searches is full (npuzzle serve --queue)"))?;
        counts.insert(client, count + 1);
        Ok(Slot {
            _permit: permit,
            client: Some((Arc::clone(self), client)),
        })
    }

    /// Reads a request body, or says what is wrong with it.
    fn task(&self, body: &[u8]) -> Result<Task, Reply> {
        let bad = |message: String| error_reply(StatusCode::BAD_REQUEST, message);
        let request: BoardRequest = serde_json::from_slice(body).map_err(|e| {
            bad(format!(
                "the request body is not the JSON this endpoint takes ({e}); send \
                 {{\"board\": \"8 1 3 4 0 2 7 6 5\"}}"
            ))
        })?;
        let text = match request.board {
            BoardField::Text(text) => text,
            BoardField::Tiles(tiles) => {
                // A number JSON stores as a float (-0, 1e0, past 2^64) is
                // named by its place: its own text is gone by now.
                let mut text = Vec::with_capacity(tiles.len());
                for (place, tile) in tiles.iter().enumerate() {
                    match tile.as_u64() {
                        Some(tile) => text.push(tile.to_string()),
                        None => {
                            return Err(bad(format!(
                                "board: tile number {} of the list is not a whole number from \
                                 0 up written as digits (such as 0, 7, 15)",
                                place + 1
                            )))
                        }
                    }
                }
                text.join(" ")
            }
        };
        let board = npuzzle_board::parse_board(&text).map_err(|e| bad(format!("board: {e}")))?;
        if !SIDES.contains(&board.size()) {
            let n = board.size();
            return Err(bad(format!(
                "board: {n}x{n} is too big for the server, which takes {}x{} to {}x{} \
                 (the command line takes more: npuzzle solve)",
                SIDES.start(),
                SIDES.start(),
                SIDES.end(),
                SIDES.end()
            )));
        }
        let goal = match request.goal.as_deref() {
            None => Goal::BlankLast,
            Some(name) => Goal::from_name(name).ok_or_else(|| {
                bad(format!(
                    "goal: \"{name}\" is not one; use \"blank-last\" or \"blank-first\""
                ))
            })?,
        };
        let notation = match request.notation.as_deref() {
            None | Some("tile") => Notation::Tile,
            Some("blank") => Notation::Blank,
            Some(other) => {
                return Err(bad(format!(
                    "notation: \"{other}\" is not one; use \"tile\" or \"blank\""
                )))
            }
        };
        let max_nodes = request
            .max_nodes
            .map_or(self.max_nodes, |n| n.min(self.max_nodes));
        Ok(Task {
            board,
            goal,
            notation,
            max_nodes,
        })
    }

    /// Runs `work` on `pool`, off the async threads. Work whose client
    /// went away, or not started within QUEUE_DEADLINE, is skipped; running,
    /// it is stopped through the flag it is given when its client goes. A
    /// panic becomes a 500 instead of taking the server down.
    async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        pool: Pool,
        work: impl FnOnce(&Server, &Arc<AtomicBool>) -> T + Send + 'static,
    ) -> Result<T, Reply> {
        let deadline = Instant::now() + QUEUE_DEADLINE;
        let (tx, rx) = oneshot::channel();
        let server = Arc::clone(self);
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
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(&server, &stop)));
            let _ = tx.send(Some(result));
        });
        match rx.await {
            Ok(None) => Err(busy(&format!(
                "this search waited {} s for a thread",
                QUEUE_DEADLINE.as_secs()
            ))),
            Ok(Some(Ok(value))) => Ok(value),
            _ => Err(error_reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error while solving this board; the server goes on",
            )),
        }
    }

    /// The answer for a task: from the cache, else a quick search, else a
    /// long one within the budget. A hint of a board up to 4x4 is light
    /// work until its quick search runs out; the rest is heavy.
    async fn answer(
        self: &Arc<Self>,
        task: &Task,
        hint: bool,
        client: IpAddr,
    ) -> Result<Answer, Reply> {
        let started = Instant::now();
        if !task.board.is_solvable(task.goal) {
            return Ok(Answer::Unsolvable);
        }
        if let Some(mut known) = self.cached(task.goal, &task.board) {
            known.elapsed = started.elapsed();
            return Ok(Answer::Solved(known));
        }
        let light = hint && task.board.size() <= LIGHT_SIDE;
        let mut slot = self.admit(if light { Lane::Light } else { Lane::Heavy }, client)?;
        // Boards of 5x5 and up without tables open: a random one is out of
        // reach of optimal search anyway, so the attempt before the
        // reduction is kept short (near-solved boards still get theirs).
        let size = task.board.size();
        let untabled = size >= 5 && self.solver(task.goal).opened_tables(size).is_none();
        let quick_nodes = if untabled { CHECK_NODES } else { QUICK_NODES }.min(task.max_nodes);
        let (board, goal) = (task.board.clone(), task.goal);
        let first = self
            .run(
                if light { Pool::Light } else { Pool::Quick },
                move |server, stop| server.search(goal, &board, quick_nodes, stop),
            )
            .await?;
        let answer = match first {
            // Only searches with tables stop at the budget; the others
            // already fell back to the reduction.
            Answer::Refused { nodes: Some(_), .. } if task.max_nodes > quick_nodes => {
                if light {
                    drop(slot);
                    slot = self.admit(Lane::Heavy, client)?;
                }
                let (board, goal, budget) = (task.board.clone(), task.goal, task.max_nodes);
                self.run(Pool::Long, move |server, stop| {
                    server.search(goal, &board, budget, stop)
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
                    if task.max_nodes < self.max_nodes {
                        "the request's own max_nodes"
                    } else {
                        "the server's budget (npuzzle serve --max-nodes)"
                    },
                    task.board.to_line()
                ),
                nodes: Some(limit),
                seconds,
            },
            Answer::Solved(solved) => {
                self.remember(task.goal, &task.board, &solved);
                Answer::Solved(solved)
            }
            other => other,
        })
    }

    /// The solution kept for a position, if any.
    fn cached(&self, goal: Goal, board: &Board) -> Option<npuzzle::Solution> {
        let (moves, optimal) = {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            cache.get(&(goal, board.tiles().to_vec())).cloned()?
        };
        let mut known = npuzzle::Solution::known_optimal(moves.to_vec());
        if !optimal {
            known.optimal = false;
            known.algorithm = "reduction";
            known.lower_bound = Some(self.solver(goal).lower_bound(board));
            known.note = Some("the best solution known".to_string());
        }
        Some(known)
    }

    /// Keeps a solution and, for free, those of the positions along it: a
    /// player who follows the hints asks for them next, and gets the same
    /// plan. A non-optimal one never replaces an optimal one.
    fn remember(&self, goal: Goal, board: &Board, solution: &npuzzle::Solution) {
        let (moves, optimal) = (&solution.moves, solution.optimal);
        if !optimal && moves.len() > LONGEST_KEPT {
            return;
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() + moves.len() > CACHE_ENTRIES {
            cache.clear();
        }
        let mut walk = board.walk(moves);
        for step in 0..moves.len() {
            let key = (goal, walk.board().tiles().to_vec());
            if optimal || !cache.get(&key).is_some_and(|(_, kept)| *kept) {
                cache.insert(key, (Arc::from(&moves[step..]), optimal));
            }
            if walk.advance().is_err() {
                break;
            }
        }
    }
}

/// The `--json` record for an answer about a board sent to the API.
fn record(task: &Task, answer: &Answer) -> Reply {
    let input = Input {
        file: None,
        item: npuzzle_board::BatchItem {
            line: 0,
            board: Ok(task.board.clone()),
            known: None::<Known>,
        },
    };
    match json_record(&input, answer, task.goal.name(), task.notation, true) {
        Ok(body) => ok_reply(body),
        Err(e) => error_reply(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn solve(
    State(server): State<Arc<Server>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> Reply {
    solution(&server, client.ip(), &body, false).await
}

/// A hint is the first move of an optimal solution: the answer is the
/// solution's record, whose `moves` start with it.
async fn hint(
    State(server): State<Arc<Server>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> Reply {
    solution(&server, client.ip(), &body, true).await
}

async fn solution(server: &Arc<Server>, client: IpAddr, body: &[u8], hint: bool) -> Reply {
    let task = match server.task(body) {
        Ok(task) => task,
        Err(reply) => return reply,
    };
    match server.answer(&task, hint, client).await {
        Ok(answer) => record(&task, &answer),
        Err(reply) => reply,
    }
}

/// What `/api/check` says of a board.
#[derive(Serialize)]
struct CheckRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    board: Vec<u16>,
    size: usize,
    goal: &'static str,
    solvable: bool,
    solved: bool,
    /// The exact number of moves to the goal, when found within the check's
    /// small budget.
    distance: Option<usize>,
    /// A lower bound on it (linear conflict, or the tables' estimate).
    lower_bound: Option<u64>,
    /// The length of a known solution, not always optimal: an upper bound.
    upper_bound: Option<usize>,
}

async fn check(
    State(server): State<Arc<Server>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> Reply {
    let task = match server.task(&body) {
        Ok(task) => task,
        Err(reply) => return reply,
    };
    let (board, goal) = (&task.board, task.goal);
    let solvable = board.is_solvable(goal);
    let mut record = CheckRecord {
        kind: "check",
        board: board.tiles().to_vec(),
        size: board.size(),
        goal: goal.name(),
        solvable,
        solved: board.is_goal(goal),
        distance: None,
        lower_bound: None,
        upper_bound: None,
    };
    if solvable {
        let bound = server.solver(goal).lower_bound(board);
        record.lower_bound = Some(bound);
        let answer = match server.cached(goal, board) {
            Some(known) => Answer::Solved(known),
            None => {
                let light = board.size() <= LIGHT_SIDE;
                let lane = if light { Lane::Light } else { Lane::Heavy };
                let _slot = match server.admit(lane, client.ip()) {
                    Ok(slot) => slot,
                    Err(reply) => return reply,
                };
                let budget = CHECK_NODES.min(task.max_nodes);
                let board = board.clone();
                let searched = board.clone();
                let pool = if light { Pool::Light } else { Pool::Quick };
                match server
                    .run(pool, move |server, stop| {
                        server.search(goal, &searched, budget, stop)
                    })
                    .await
                {
                    Ok(Answer::Solved(solved)) => {
                        server.remember(goal, &board, &solved);
                        Answer::Solved(solved)
                    }
                    Ok(answer) => answer,
                    Err(reply) => return reply,
                }
            }
        };
        if let Answer::Solved(solved) = answer {
            record.upper_bound = Some(solved.moves.len());
            if solved.optimal {
                record.distance = Some(solved.moves.len());
                record.lower_bound = Some(solved.moves.len() as u64);
            } else if let Some(h0) = solved.initial_estimate {
                record.lower_bound = Some(bound.max(u64::from(h0)));
            }
        }
    }
    match serde_json::to_string(&record) {
        Ok(body) => ok_reply(body),
        Err(e) => error_reply(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RandomQuery {
    size: Option<String>,
    goal: Option<String>,
}

#[derive(Serialize)]
struct RandomRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    board: Vec<u16>,
    size: usize,
    goal: &'static str,
}

/// A uniformly random solvable board.
async fn random(
    State(server): State<Arc<Server>>,
    query: Result<Query<RandomQuery>, axum::extract::rejection::QueryRejection>,
) -> Reply {
    let bad = |message: String| error_reply(StatusCode::BAD_REQUEST, message);
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => {
            // serde's words name the parameter: "unknown field `sise`".
            let detail = rejection.body_text();
            let detail = detail
                .strip_prefix("Failed to deserialize query string: ")
                .unwrap_or(&detail)
                .replace("field", "parameter");
            return bad(format!(
                "the query is not one this endpoint takes ({detail}): use ?size=4&goal=blank-last"
            ));
        }
    };
    let size = match query.size.as_deref().map(str::parse::<usize>) {
        None => 4,
        Some(Ok(n)) if SIDES.contains(&n) => n,
        _ => {
            return bad(format!(
                "size: \"{}\" is not a side from {} to {}",
                query.size.unwrap_or_default(),
                SIDES.start(),
                SIDES.end()
            ))
        }
    };
    let goal = match query.goal.as_deref() {
        None => Goal::BlankLast,
        Some(name) => match Goal::from_name(name) {
            Some(goal) => goal,
            None => {
                return bad(format!(
                    "goal: \"{name}\" is not one; use \"blank-last\" or \"blank-first\""
                ))
            }
        },
    };
    let board = {
        let mut rng = server.seed.lock().unwrap_or_else(|e| e.into_inner());
        random_board(size, goal, &mut rng)
    };
    let record = RandomRecord {
        kind: "random",
        board: board.tiles().to_vec(),
        size,
        goal: goal.name(),
    };
    ok_reply(serde_json::to_string(&record).unwrap_or_default())
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

async fn not_found() -> Reply {
    error_reply(
        StatusCode::NOT_FOUND,
        "no such page; the API is /api/solve, /api/hint, /api/check (POST) and /api/random (GET)",
    )
}

/// The refusals axum makes itself (wrong method, body too large, bad
/// headers) as error records too, so that every answer a client gets from
/// the API is JSON.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !status.is_client_error() || is_json {
        return response;
    }
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            "wrong method: /api/solve, /api/hint and /api/check take POST, /api/random GET"
                .to_string()
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            format!("the request body is over the limit of {MAX_BODY} bytes")
        }
        other => format!("the request was refused: {other}"),
    };
    let mut reply = error_reply(status, message).into_response();
    if let Some(allow) = response.headers().get(header::ALLOW) {
        reply.headers_mut().insert(header::ALLOW, allow.clone());
    }
    reply
}

/// Refuses requests that do not name this server in their Host header
/// (DNS rebinding: a page of another site resolving its name to this
/// machine) and API posts that are not JSON (a cross-site form or
/// `text/plain` post needs no preflight; a JSON one does, and gets none).
async fn check_request(
    State(server): State<Arc<Server>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let host = hosts.next().and_then(|h| h.to_str().ok()).unwrap_or("");
    // Two Host headers: proxies and this server could each read another.
    if hosts.next().is_some() {
        return error_reply(
            StatusCode::BAD_REQUEST,
            "the request has more than one Host header; send one",
        )
        .into_response();
    }
    if !server.allows_host(host) {
        return error_reply(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "the Host header {host:?} does not name this server; open it as \
                 http://127.0.0.1:PORT/, or start it with --allow-host NAME"
            ),
        )
        .into_response();
    }
    // An absolute-form target (POST http://name/...) names the server too,
    // and takes precedence over Host: it must name this one as well.
    if let Some(authority) = request.uri().authority() {
        if !server.allows_host(authority.as_str()) {
            return error_reply(
                StatusCode::MISDIRECTED_REQUEST,
                format!(
                    "the request's target names the host {:?}, not this server; send the \
                     path alone (POST /api/hint), or start it with --allow-host NAME",
                    authority.as_str()
                ),
            )
            .into_response();
        }
    }
    if request.method() == axum::http::Method::POST {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
            });
        if !json {
            return error_reply(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the API takes JSON: send the header Content-Type: application/json",
            )
            .into_response();
        }
    }
    next.run(request).await
}

fn too_large() -> Response {
    error_reply(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body is over the limit of {MAX_BODY} bytes"),
    )
    .into_response()
}

/// Refuses a declared body length over the limit before anything else.
async fn refuse_large(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large();
    }
    next.run(request).await
}

/// Reads a request's whole body before it is handled: a body not all in
/// within BODY_TIMEOUT (however it trickles) is answered 408 and the
/// connection closed; one past the limit (sent without a length) 413.
async fn read_body(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let (parts, body) = request.into_parts();
    let read = http_body_util::Limited::new(body, MAX_BODY).collect();
    match tokio::time::timeout(BODY_TIMEOUT, read).await {
        Ok(Ok(collected)) => {
            let request =
                axum::extract::Request::from_parts(parts, Body::from(collected.to_bytes()));
            next.run(request).await
        }
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => too_large(),
        Ok(Err(e)) => error_reply(
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {e}"),
        )
        .into_response(),
        Err(_) => {
            let mut response = error_reply(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body was not all sent within {} s",
                    BODY_TIMEOUT.as_secs()
                ),
            )
            .into_response();
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            response
        }
    }
}

fn router(server: Arc<Server>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .route(
            "/picture.svg",
            get(|| async { asset("image/svg+xml", PICTURE_SVG) }),
        )
        .route("/api/solve", post(solve))
        .route("/api/hint", post(hint))
        .route("/api/check", post(check))
        .route("/api/random", get(random))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(read_body))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&server),
            check_request,
        ))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn(refuse_large))
        .layer(axum::middleware::map_response(json_errors))
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(
            |_: Box<dyn std::any::Any + Send>| {
                error_reply(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal error; the server goes on",
                )
                .into_response()
            },
        ))
        .with_state(server)
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

pub fn run(args: &ServeArgs) -> u8 {
    match serve(args) {
        Ok(()) => EXIT_OK,
        Err((code, message)) => {
            eprintln!("npuzzle: {message}");
            code
        }
    }
}

fn serve(args: &ServeArgs) -> Result<(), (u8, String)> {
    let bad = |message: String| (EXIT_BAD_INPUT, message);
    let threads = npuzzle::check_threads("--threads", args.threads.unwrap_or_else(npuzzle::cores))
        .map_err(|e| bad(e.to_string()))?;
    if args.queue == 0 {
        return Err(bad("--queue must be at least 1".to_string()));
    }
    if args.per_client == 0 {
        return Err(bad("--per-client must be at least 1".to_string()));
    }
    if let Some(name) = &args.partition {
        npuzzle::Partition::parse(name, 4, Goal::BlankLast)
            .map_err(|e| bad(format!("--partition {name}: {e} (it names 4x4 tables)")))?;
    }
    let solver = |goal: Goal| -> Result<Solver, (u8, String)> {
        let mut builder = Solver::builder()
            .goal(goal)
            .threads(1)
            .reduction_effort(npuzzle::Effort::Quick)
            .on_note(|note| eprintln!("npuzzle: {}", crate::remedy::note_message(note)));
        if let Some(dir) = &args.pdb_dir {
            builder = builder.pdb_dir(dir);
        }
        if let Some(name) = &args.partition {
            builder = builder.partition_for(4, name.as_str());
        }
        builder.build().map_err(|e| bad(e.to_string()))
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let server = Arc::new(Server {
        solvers: [solver(Goal::BlankLast)?, solver(Goal::BlankFirst)?],
        light: pool("light", threads, 0).map_err(|e| (EXIT_FAILED, e))?,
        quick: pool("quick", threads, QUICK_POOL_NICENESS).map_err(|e| (EXIT_FAILED, e))?,
        long: pool("long", threads, LONG_POOL_NICENESS).map_err(|e| (EXIT_FAILED, e))?,
        light_queue: Arc::new(Semaphore::new(LIGHT_QUEUE)),
        heavy_queue: Arc::new(Semaphore::new(args.queue)),
        heavy_by_client: Mutex::new(HashMap::new()),
        per_client: args.per_client,
        max_nodes: args.max_nodes,
        cache: Mutex::new(HashMap::new()),
        seed: Mutex::new(SplitMix64::new(seed)),
        hosts: allowed_hosts(args),
    });
    // Open the 4x4 tables now: the first player should not wait for them,
    // and a problem with them is best seen at start-up.
    let probe = Goal::BlankLast.board(4);
    if let Answer::Refused {
        reason,
        nodes: None,
        ..
    } = server.search(
        Goal::BlankLast,
        &probe,
        QUICK_NODES,
        &Arc::new(AtomicBool::new(false)),
    ) {
        eprintln!("npuzzle: 4x4 boards will be refused: {reason}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| (EXIT_FAILED, format!("cannot start the server: {e}")))?;
    runtime.block_on(async {
        let address = SocketAddr::new(args.host, args.port);
        let listener = tokio::net::TcpListener::bind(address).await.map_err(|e| {
            (
                EXIT_FAILED,
                format!(
                    "cannot listen on {address}: {e}{}",
                    if e.kind() == std::io::ErrorKind::AddrInUse {
                        " (another program uses it: choose another with --port, or --port 0 for any free one)"
                    } else {
                        ""
                    }
                ),
            )
        })?;
        let bound = listener
            .local_addr()
            .map_err(|e| (EXIT_FAILED, format!("cannot listen: {e}")))?;
        let url = format!("http://{bound}/");
        println!("npuzzle: serving the puzzle on {url} (Ctrl-C stops)");
        if !args.host.is_loopback() {
            println!(
                "npuzzle: listening on {} : other machines can reach it",
                args.host
            );
        }
        if args.open {
            if let Err(e) = webbrowser::open(&url) {
                eprintln!("npuzzle: cannot open a browser ({e}); open {url} yourself");
            }
        }
        let app = router(server);
        let connections = Arc::new(Semaphore::new(connection_cap(args.max_connections)));
        let stop = tokio::signal::ctrl_c();
        tokio::pin!(stop);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    // Out of file descriptors and the like: wait, go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                _ = &mut stop => return Ok(()),
            };
            // Past the cap, a connection is closed at once.
            let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
                continue;
            };
            let app = app.clone();
            tokio::spawn(async move {
                let _permit = permit;
                let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    tower::ServiceExt::oneshot(app.clone(), request)
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                let _ = connection.await;
            });
        }
    })
}

/// The connections the server holds at once: `wanted`, within what the
/// process may open (its descriptor limit raised to the hard one first),
/// less a margin for the tables and the threads.
fn connection_cap(wanted: usize) -> usize {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    // None is no limit.
    let raised = match (limit.current, limit.maximum) {
        (Some(current), Some(maximum)) if current < maximum => Some(maximum),
        (Some(current), None) => Some(current.max(1 << 16)),
        _ => None,
    };
    if let Some(raised) = raised {
        limit.current = Some(raised);
        let _ = setrlimit(Resource::Nofile, limit);
    }
    let open = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    let room = usize::try_from(open.saturating_sub(128)).unwrap_or(usize::MAX);
    wanted.clamp(1, room.max(1))
}

/// The host names requests may give: loopback names, the listening
/// address, and --allow-host.
fn allowed_hosts(args: &ServeArgs) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "[::1]".to_string(),
    ];
    hosts.push(match args.host {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    });
    hosts.extend(args.allow_host.iter().cloned());
    hosts
}
