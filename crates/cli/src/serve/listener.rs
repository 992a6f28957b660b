//! The socket: binding it, the accept loop, the bound on connections and
//! the deadline for a request's headers. What is served over each
//! connection is the router's business.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
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
                .serve_connection(
                    hyper_util::rt::TokioIo::new(ErrorRecords::new(stream)),
                    service,
                );
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

/// A connection whose responses hyper writes by itself get the error
/// record every other error has. Hyper answers a request it cannot parse
/// (a malformed request line or header, a header folded or with a space
/// before its colon, a conflicting or signed `Content-Length`, a version
/// other than HTTP/1.x, headers too large) with a head and an empty body,
/// before the router sees anything; that head is rewritten here with the
/// record as its body.
struct ErrorRecords<S> {
    inner: S,
    /// A rewritten response not yet all written, and how much of it is.
    pending: Vec<u8>,
    written: usize,
}

impl<S> ErrorRecords<S> {
    fn new(inner: S) -> Self {
        ErrorRecords {
            inner,
            pending: Vec::new(),
            written: 0,
        }
    }
}

impl<S: AsyncWrite + Unpin> ErrorRecords<S> {
    /// Writes what is left of a rewritten response.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.pending.len() {
            let n =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.pending.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ErrorRecords<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ErrorRecords<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        ready!(this.drain(cx))?;
        if let Some(rewritten) = with_error_record(buf) {
            // Taken whole; the rest goes out here or at the flush.
            this.pending = rewritten;
            if let Poll::Ready(Err(e)) = this.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// Hyper's own error response `head` (`HTTP/1.1 4xx ...`, `connection:
/// close`, `content-length: 0`; the router's responses name their
/// content type first) with the error record as its body; None for any
/// other bytes.
fn with_error_record(head: &[u8]) -> Option<Vec<u8>> {
    const EMPTY: &[u8] = b"\r\nconnection: close\r\ncontent-length: 0\r\n";
    let status = head.strip_prefix(b"HTTP/1.1 4")?.get(..2)?;
    if !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let line_end = head.windows(2).position(|w| w == b"\r\n")?;
    if !head[line_end..].starts_with(EMPTY) {
        return None;
    }
    let message = match status {
        b"31" => "the request's headers are too large: send less",
        _ => {
            "the request cannot be read as HTTP/1.1: its request line or a header is malformed \
             (a header folded over lines, or with a space before its colon), its version is \
             not HTTP/1.0 or 1.1, or its Content-Length is not one whole number"
        }
    };
    let body = super::api::error_record(message);
    let mut rewritten = head[..line_end].to_vec();
    rewritten.extend_from_slice(
        format!(
            "\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: {}\r\n",
            body.len()
        )
        .as_bytes(),
    );
    rewritten.extend_from_slice(&head[line_end + EMPTY.len()..]);
    rewritten.extend_from_slice(body.as_bytes());
    Some(rewritten)
}
