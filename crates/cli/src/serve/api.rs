//! The HTTP API and the page: routes, request parsing and checks (Host,
//! content type, body size and deadline), and the JSON records answered.
//! Searches are the pools' business; this module turns their answers and
//! refusals into replies.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http_body_util::BodyExt;
use npuzzle::records::{BoardRequest, RandomRecord};
use npuzzle::{random_board, Board, Goal, Notation, SplitMix64};
use serde::{Deserialize, Serialize};

use crate::output::{board_record, Answer};
use crate::serve::pools::{Pools, Refusal, Time};

/// Board sides the server takes.
pub const SIDES: std::ops::RangeInclusive<usize> = 2..=8;
/// Largest request body: a board of 64 numbers needs a few hundred bytes.
const MAX_BODY: usize = 64 * 1024;
/// A client has this long to send a request's whole body, from the end of
/// its headers, however it trickles.
const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// What a 503's Retry-After asks a client to wait, in seconds.
const RETRY_AFTER_SECONDS: u32 = 1;

/// The embedded page: the static site's (`cargo xtask web`), whose coach
/// asks this server instead of the engine in a Web Worker.
const INDEX_HTML: &str = include_str!("../../assets/index.html");
const APP_JS: &str = include_str!("../../assets/app.js");
const STYLE_CSS: &str = include_str!("../../assets/style.css");
const PICTURE_SVG: &str = include_str!("../../assets/picture.svg");
const MANIFEST: &str = include_str!("../../assets/manifest.webmanifest");
const ICON_192: &[u8] = include_bytes!("../../assets/icon-192.png");
const ICON_512: &[u8] = include_bytes!("../../assets/icon-512.png");
const ICON_MASKABLE_512: &[u8] = include_bytes!("../../assets/icon-maskable-512.png");

/// The tag by which the page picks its engine: the static site's says
/// "wasm"; this server's page says "server".
const ENGINE_WASM: &str = r#"<meta name="npuzzle-engine" content="wasm">"#;
const ENGINE_SERVER: &str = r#"<meta name="npuzzle-engine" content="server">"#;

/// The page as this server serves it: its coach asks the HTTP API.
static SERVED_INDEX_HTML: LazyLock<String> =
    LazyLock::new(|| served_index(INDEX_HTML).expect("index.html names its engine"));

/// `page` with its engine tag turned to this server's, or None when the
/// page has no such tag (the page would then look for the wasm engine).
fn served_index(page: &str) -> Option<String> {
    page.contains(ENGINE_WASM)
        .then(|| page.replacen(ENGINE_WASM, ENGINE_SERVER, 1))
}

/// What every handler shares.
struct Server {
    /// Where searches run, and the answers kept.
    pools: Arc<Pools>,
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
    Reply {
        status,
        body: error_record(message),
        retry_after: None,
    }
}

/// The error record of `npuzzle solve --json` saying `message`, as JSON.
pub(super) fn error_record(message: impl Into<String>) -> String {
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
    serde_json::to_string(&record).unwrap_or_default()
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

impl From<Refusal> for Reply {
    fn from(refusal: Refusal) -> Reply {
        match refusal {
            Refusal::Busy(why) => busy(&why),
            Refusal::Failed => error_reply(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error while solving this board; the server goes on",
            ),
        }
    }
}

/// A request, checked: what a search needs.
struct Task {
    board: Board,
    goal: Goal,
    notation: Notation,
    max_nodes: u64,
    time: Time,
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

    /// Reads a request body, or says what is wrong with it.
    fn task(&self, body: &[u8]) -> Result<Task, Reply> {
        let bad = |message: String| error_reply(StatusCode::BAD_REQUEST, message);
        // The body of `/api/solve`, `/api/hint` and `/api/check`.
        let request: BoardRequest = npuzzle::records::read_request(body).map_err(|e| {
            bad(format!(
                "the request body is not the JSON this endpoint takes ({e}); send \
                 {{\"board\": \"8 1 3 4 0 2 7 6 5\"}}"
            ))
        })?;
        let board = request
            .board
            .board()
            .map_err(|e| bad(format!("board: {e}")))?;
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
        request.refuse_engine_fields().map_err(bad)?;
        let goal = request.goal().map_err(bad)?;
        let notation = request.notation().map_err(bad)?;
        let max_nodes = request
            .max_nodes
            .map_or(self.pools.max_nodes(), |n| n.min(self.pools.max_nodes()));
        let max_time = request.max_time().map_err(bad)?;
        let anytime = request
            .anytime()
            .map_err(bad)?
            .map(|asked| asked.min(self.pools.max_anytime()));
        Ok(Task {
            board,
            goal,
            notation,
            max_nodes,
            time: Time { max_time, anytime },
        })
    }
}

/// The `--json` record for an answer about a board sent to the API.
fn record(task: &Task, answer: &Answer) -> Reply {
    match board_record(&task.board, answer, task.goal, task.notation, true) {
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
    let answer = server
        .pools
        .answer(
            &task.board,
            task.goal,
            task.max_nodes,
            task.time,
            hint,
            client,
        )
        .await;
    match answer {
        Ok(answer) => record(&task, &answer),
        Err(refusal) => refusal.into(),
    }
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
    let mut record = npuzzle::Check::start(server.pools.solver(goal), board, goal);
    if record.solvable {
        let answer = server
            .pools
            .check(board, goal, task.max_nodes, task.time, client.ip())
            .await;
        match answer {
            Ok(Answer::Solved(solved)) => {
                record.found(solved.moves.len(), solved.optimal, solved.initial_estimate)
            }
            Ok(_) => {}
            Err(refusal) => return refusal.into(),
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
    let goal = match npuzzle::named_field(query.goal.as_deref(), "goal") {
        Ok(goal) => goal,
        Err(message) => return bad(message),
    };
    let board = {
        let mut rng = server.seed.lock().unwrap_or_else(|e| e.into_inner());
        random_board(size, goal, &mut rng)
    };
    ok_reply(serde_json::to_string(&RandomRecord::new(&board, goal, None)).unwrap_or_default())
}

fn asset(content_type: &'static str, body: impl IntoResponse) -> Response {
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
    // Two of a header that is one value (Host, Content-Type): proxies and
    // this server could each read another.
    for (name, said) in [
        (header::HOST, "Host"),
        (header::CONTENT_TYPE, "Content-Type"),
    ] {
        if request.headers().get_all(&name).iter().nth(1).is_some() {
            return error_reply(
                StatusCode::BAD_REQUEST,
                format!("the request has more than one {said} header; send one"),
            )
            .into_response();
        }
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
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
    // One rule for queries: an endpoint that takes none (the POST ones,
    // which take a JSON body) refuses one, as /api/random refuses a
    // parameter it does not know.
    if request.uri().path().starts_with("/api/")
        && request.uri().path() != "/api/random"
        && request.uri().query().is_some()
    {
        return error_reply(
            StatusCode::BAD_REQUEST,
            format!(
                "{} takes no query ({:?}): send the board and options in the JSON body",
                request.uri().path(),
                request.uri().query().unwrap_or("")
            ),
        )
        .into_response();
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

/// The page and the API over `pools`, for requests that name one of
/// `hosts`; `seed` starts the random boards.
pub fn router(pools: Arc<Pools>, hosts: Vec<String>, seed: u64) -> Router {
    let server = Arc::new(Server {
        pools,
        seed: Mutex::new(SplitMix64::new(seed)),
        hosts,
    });
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", SERVED_INDEX_HTML.as_str()) }),
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
        .route(
            "/manifest.webmanifest",
            get(|| async { asset("application/manifest+json", MANIFEST) }),
        )
        .route(
            "/icon-192.png",
            get(|| async { asset("image/png", ICON_192) }),
        )
        .route(
            "/icon-512.png",
            get(|| async { asset("image/png", ICON_512) }),
        )
        .route(
            "/icon-maskable-512.png",
            get(|| async { asset("image/png", ICON_MASKABLE_512) }),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_page_asks_the_server() {
        let page = SERVED_INDEX_HTML.as_str();
        assert!(page.contains(ENGINE_SERVER), "{page}");
        assert!(!page.contains("content=\"wasm\""), "{page}");
        // Nothing else changed.
        assert_eq!(page.replacen(ENGINE_SERVER, ENGINE_WASM, 1), INDEX_HTML);
        assert_eq!(served_index("<html></html>"), None);
    }

    #[test]
    fn the_page_names_its_files_relatively() {
        // The static site works from a subfolder (/npuzzle/): no path of
        // the page starts at the root.
        for (name, text) in [
            ("index.html", INDEX_HTML),
            ("app.js", APP_JS),
            ("manifest.webmanifest", MANIFEST),
            ("worker.js", include_str!("../../assets/worker.js")),
            ("sw.js", include_str!("../../assets/sw.js")),
        ] {
            for needle in ["href=\"/", "src=\"/", "\"/api/", "url(\"/", "\"src\": \"/"] {
                assert!(!text.contains(needle), "{name} has {needle}");
            }
        }
    }
}
