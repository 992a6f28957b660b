//! The socket: binding it, the accept loop, the bound on connections and
//! the deadline for a request's headers. What is served over each
//! connection is the router's business.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// A client has this long to send a request's headers, and, on a kept-alive
/// connection, to start its next request.
const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// Listens on `address`, or says why not (naming --port when it is taken).
pub async fn bind(address: SocketAddr) -> Result<TcpListener, String> {
    TcpListener::bind(address).await.map_err(|e| {
        format!(
            "cannot listen on {address}: {e}{}",
            if e.kind() == std::io::ErrorKind::AddrInUse {
                " (another program uses it: choose another with --port, or --port 0 for any free one)"
            } else {
                ""
            }
        )
    })
}

/// Serves `app` on `listener` until Ctrl-C, holding at most
/// `max_connections` connections (within the descriptor limit) at once.
pub async fn serve(listener: TcpListener, app: Router, max_connections: usize) {
    let connections = Arc::new(Semaphore::new(connection_cap(max_connections)));
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
            _ = &mut stop => return,
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
