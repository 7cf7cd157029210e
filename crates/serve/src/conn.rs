//! The connection loop: accepts, caps and times out connections, and shuts down with a deadline.
//!
//! `axum::serve` has neither timeouts nor a cap, so a client that opens connections and sends
//! half a request head held each one forever, and about a thousand of them (the usual limit of
//! open files) stopped the server; its graceful shutdown also waited forever for such a client.
//! Here each connection is hyper's HTTP/1 with a header-read timer (which also bounds the idle
//! time between requests on a kept-alive connection), the body is read under its own deadline
//! (`api::read_body`), and the number of connections is capped below the open-file limit. At
//! the cap, the connection with no request in flight (idle, or still sending its head) that has
//! been so the longest is closed to make room, so a real client is answered however many idle
//! connections others hold (a client at work has just finished a request: it is the last one
//! chosen); only when every connection has a request in flight is a new one refused with 503.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::Write;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::http::{Request, Response};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

/// The limits of the connection loop (see [`crate::Config`] for what each bounds).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub head_timeout: Duration,
    pub max_connections: usize,
    pub shutdown_grace: Duration,
}

/// The most bytes of a request head (hyper's smallest allowed buffer is 8 KiB): a browser's
/// head is under 2 KiB.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Raises the soft limit of open files to the hard one (at most 65,536) and returns the soft
/// limit in force, `None` where it cannot be read. Each connection is one open file.
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct it is given, which lives on this stack.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
            return None;
        }
        let want = lim.rlim_max.min(65_536);
        if lim.rlim_cur < want {
            let raised = libc::rlimit {
                rlim_cur: want,
                rlim_max: lim.rlim_max,
            };
            // SAFETY: setrlimit only reads the struct it is given; failure leaves the limit.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                lim = raised;
            }
        }
        #[allow(clippy::unnecessary_cast)] // `rlim_t` is not `u64` on every Unix.
        Some(lim.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    None
}

/// The connection cap in force: `wanted`, lowered so that the connections leave open files for
/// the rest of the process (the database per worker thread, the runtime's own).
pub(crate) fn connection_cap(wanted: usize, open_file_limit: Option<u64>) -> usize {
    let Some(limit) = open_file_limit else {
        return wanted.max(1);
    };
    let reserve = (limit / 4).clamp(16, 64);
    let room = usize::try_from(limit.saturating_sub(reserve)).unwrap_or(usize::MAX);
    wanted.min(room).max(1)
}

const IDLE: u8 = 0;
const BUSY: u8 = 1;
const CLOSING: u8 = 2;

/// Orders the connections' last activity (opened, or a request finished).
static TICK: AtomicU64 = AtomicU64::new(0);

fn tick() -> u64 {
    TICK.fetch_add(1, Ordering::Relaxed)
}

/// One connection: whether a request is in flight, and how to close it from outside.
struct ConnState {
    /// `IDLE` (no request in flight: between requests, or still reading a head), `BUSY` (from
    /// the parsed head until the answer's last byte is handed to the socket), `CLOSING`.
    state: AtomicU8,
    /// The [`TICK`] of its opening or of its last finished request.
    active: AtomicU64,
    close: Notify,
}

impl ConnState {
    /// Marks a request in flight; false when the connection is being closed.
    fn begin(&self) -> bool {
        self.state
            .compare_exchange(IDLE, BUSY, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    fn end(&self) {
        self.active.store(tick(), Ordering::Relaxed);
        let _ = self
            .state
            .compare_exchange(BUSY, IDLE, Ordering::AcqRel, Ordering::Acquire);
    }

    /// Closes the connection if no request is in flight; true if it did.
    fn close_if_idle(&self) -> bool {
        let closed = self
            .state
            .compare_exchange(IDLE, CLOSING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if closed {
            self.close.notify_one();
        }
        closed
    }
}

/// The open connections.
#[derive(Default)]
struct Conns {
    inner: Mutex<ConnsInner>,
    /// Signalled each time a connection is removed.
    removed: Notify,
}

#[derive(Default)]
struct ConnsInner {
    next: u64,
    live: HashMap<u64, Arc<ConnState>>,
}

impl Conns {
    fn lock(&self) -> MutexGuard<'_, ConnsInner> {
        // The map stays consistent whatever panicked while it was held.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn len(&self) -> usize {
        self.lock().live.len()
    }

    fn add(&self) -> (u64, Arc<ConnState>) {
        let mut g = self.lock();
        let id = g.next;
        g.next += 1;
        let st = Arc::new(ConnState {
            state: AtomicU8::new(IDLE),
            active: AtomicU64::new(tick()),
            close: Notify::new(),
        });
        g.live.insert(id, st.clone());
        (id, st)
    }

    fn remove(&self, id: u64) {
        self.lock().live.remove(&id);
        self.removed.notify_waiters();
    }

    /// Closes the connection that has had no request in flight for the longest (idle since
    /// its last answer, or still sending its first head since it opened); false if every one
    /// has a request in flight.
    fn close_longest_idle(&self) -> bool {
        let mut g = self.lock();
        loop {
            let Some((id, st)) = g
                .live
                .iter()
                .filter(|(_, st)| st.state.load(Ordering::Acquire) == IDLE)
                .min_by_key(|(_, st)| st.active.load(Ordering::Relaxed))
                .map(|(id, st)| (*id, st.clone()))
            else {
                return false;
            };
            // It may have started a request since: then look again.
            if st.close_if_idle() {
                // Removed now, so that the room is counted at once; its task removes nothing.
                g.live.remove(&id);
                return true;
            }
        }
    }

    /// Closes every connection with no request in flight (at shutdown).
    fn close_all_idle(&self) {
        let mut g = self.lock();
        g.live.retain(|_, st| !st.close_if_idle());
        drop(g);
        self.removed.notify_waiters();
    }

    /// Resolves once no connection is left.
    async fn all_closed(&self) {
        loop {
            let mut removed = pin!(self.removed.notified());
            removed.as_mut().enable();
            if self.len() == 0 {
                return;
            }
            removed.await;
        }
    }
}

/// The answer to a connection over the cap when every connection has a request in flight.
fn full_answer() -> String {
    let body = r#"{"error":"the server is at its cap of connections, all of them busy: try again shortly"}"#;
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Serves `router` on `listener` until `stop` resolves, then closes idle connections at once
/// and gives those with a request in flight `limits.shutdown_grace` to finish (a second `stop`
/// ends the wait at once). Returns how many connections were still open at the deadline.
pub(crate) async fn serve<F>(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: impl Fn() -> F,
) -> usize
where
    F: Future<Output = ()>,
{
    let conns = Arc::new(Conns::default());
    let (stopping_tx, stopping) = watch::channel(false);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.head_timeout)
        .max_buf_size(MAX_HEAD_BYTES);
    let service = TowerToHyperService::new(router);
    let full = full_answer();
    {
        let mut first_stop = pin!(stop());
        loop {
            let stream = tokio::select! {
                _ = &mut first_stop => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        // Out of open files (or a connection reset before it was accepted):
                        // make room if a connection is idle, and do not spin.
                        conns.close_longest_idle();
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                },
            };
            if conns.len() >= limits.max_connections && !conns.close_longest_idle() {
                // A fresh socket's send buffer is empty: this write does not wait.
                if let Ok(stream) = stream.into_std() {
                    let _ = (&stream).write(full.as_bytes());
                }
                continue;
            }
            let _ = stream.set_nodelay(true);
            let (id, st) = conns.add();
            let conn = builder.serve_connection(
                TokioIo::new(stream),
                Tracked {
                    inner: service.clone(),
                    state: st.clone(),
                },
            );
            let (conns, mut stopping) = (conns.clone(), stopping.clone());
            tokio::spawn(async move {
                let mut conn = pin!(conn);
                let mut shutting = false;
                loop {
                    tokio::select! {
                        // An error is the client's (gone, too slow, a malformed head): hyper
                        // has answered what it could; nothing to report.
                        _ = conn.as_mut() => break,
                        _ = st.close.notified() => break,
                        _ = stopping.changed(), if !shutting => {
                            shutting = true;
                            // Finish the request in flight, then close; idle: close now.
                            if st.close_if_idle() {
                                break;
                            }
                            conn.as_mut().graceful_shutdown();
                        }
                    }
                }
                conns.remove(id);
            });
        }
    }
    drop(listener);
    let _ = stopping_tx.send(true);
    conns.close_all_idle();
    tokio::select! {
        _ = tokio::time::timeout(limits.shutdown_grace, conns.all_closed()) => {}
        _ = stop() => {}
    }
    conns.len()
}

/// The router, marking its connection busy from a parsed head until the answer is sent.
#[derive(Clone)]
struct Tracked {
    inner: TowerToHyperService<Router>,
    state: Arc<ConnState>,
}

impl hyper::service::Service<Request<Incoming>> for Tracked {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        if !self.state.begin() {
            // Closed to make room while its head arrived: the connection is going away.
            return Box::pin(async {
                Ok(Response::builder()
                    .status(503)
                    .header("connection", "close")
                    .body(Body::empty())
                    .unwrap_or_default())
            });
        }
        let fut = self.inner.call(req);
        let busy = Busy(self.state.clone());
        Box::pin(async move {
            let response = fut.await?;
            // The connection stays busy until hyper drops the body, after its last byte.
            Ok(response.map(|body| Body::new(BusyBody { body, _busy: busy })))
        })
    }
}

/// Marks the connection idle when dropped.
struct Busy(Arc<ConnState>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// An answer's body, holding its connection busy while hyper writes it.
struct BusyBody {
    body: Body,
    _busy: Busy,
}

impl HttpBody for BusyBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_at_the_cap_is_whole_json() {
        let full = full_answer();
        let r = crate::client::read_response(&mut full.as_bytes()).unwrap();
        assert_eq!(r.status, 503);
        assert!(r.json().unwrap()["error"].is_string());
        assert_eq!(
            r.body.len(),
            full.len() - full.find("\r\n\r\n").unwrap() - 4
        );
    }

    #[test]
    fn the_cap_leaves_open_files_for_the_rest_of_the_process() {
        assert_eq!(connection_cap(512, None), 512);
        assert_eq!(connection_cap(512, Some(20_000)), 512);
        assert_eq!(connection_cap(512, Some(1024)), 512);
        assert_eq!(connection_cap(5000, Some(1024)), 960);
        assert_eq!(connection_cap(512, Some(64)), 48);
        assert_eq!(connection_cap(512, Some(10)), 1);
        assert_eq!(connection_cap(0, None), 1);
    }

    #[test]
    fn only_idle_connections_are_closed_to_make_room_the_longest_idle_first() {
        let conns = Conns::default();
        let (_, a) = conns.add();
        let (_, b) = conns.add();
        let (_, c) = conns.add();
        let (_, d) = conns.add();
        assert!(a.begin(), "a has a request in flight");
        // b, older than c and d, has just answered a request: they have been idle longer.
        assert!(b.begin());
        b.end();
        assert!(conns.close_longest_idle());
        assert_eq!(
            c.state.load(Ordering::Acquire),
            CLOSING,
            "c: idle the longest"
        );
        assert!(!c.begin(), "a closing connection takes no request");
        assert!(conns.close_longest_idle());
        assert_eq!(d.state.load(Ordering::Acquire), CLOSING, "d: next");
        assert_eq!(conns.len(), 2);
        assert!(b.begin());
        assert!(!conns.close_longest_idle(), "every one is busy");
        b.end();
        conns.close_all_idle();
        assert_eq!(conns.len(), 1, "a, busy, is left to finish");
        assert_eq!(a.state.load(Ordering::Acquire), BUSY);
    }
}
