//! The connection loop: accepts, caps and times out connections, and shuts down with a deadline.
//!
//! `axum::serve` has neither timeouts nor a cap, so a client that opens connections and sends
//! half a request head held each one forever, and about a thousand of them (the usual limit of
//! open files) stopped the server; its graceful shutdown also waited forever for such a client.
//! Here each connection is hyper's HTTP/1 with a header-read timer (which also bounds the idle
//! time between requests on a kept-alive connection), the body is read under its own deadline
//! (`api::read_body`), and the number of connections is capped below the open-file limit. At
//! the cap, the connection that has waited for its client the longest (idle, still sending its
//! head, or still sending its body) is closed to make room, so a real client is answered
//! however many such connections others hold (a client at work has just finished a request, or
//! just sent its head: it is the last one chosen); only when every connection has a whole
//! request in flight is a new one refused with 503. (Before issue 46, a connection waiting for
//! its body counted as in flight: 600 of them, reopened before their deadline, had nearly every
//! normal request answered 503.)

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
const BODY: u8 = 1;
const BUSY: u8 = 2;
const CLOSING: u8 = 3;

/// Orders the connections' last activity (opened, a head parsed, or a request finished).
static TICK: AtomicU64 = AtomicU64::new(0);

fn tick() -> u64 {
    TICK.fetch_add(1, Ordering::Relaxed)
}

/// One connection: whether it waits for its client or a request is in flight, and how to close
/// it from outside.
struct ConnState {
    /// `IDLE` (no request: between requests, or still reading a head), `BODY` (a head parsed,
    /// its body not all received), `BUSY` (from the whole request until the answer's last byte
    /// is handed to the socket), `CLOSING`.
    state: AtomicU8,
    /// The [`TICK`] of its opening, of its last parsed head or of its last finished request.
    active: AtomicU64,
    close: Notify,
}

impl ConnState {
    /// Marks a request begun: `BUSY` when it has no body to wait for (`whole`), else `BODY`;
    /// false when the connection is being closed.
    fn begin(&self, whole: bool) -> bool {
        let begun = self
            .state
            .compare_exchange(
                IDLE,
                if whole { BUSY } else { BODY },
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok();
        if begun {
            self.active.store(tick(), Ordering::Relaxed);
        }
        begun
    }

    /// Marks the request's body all received: from now on it is in flight.
    fn received(&self) {
        let _ = self
            .state
            .compare_exchange(BODY, BUSY, Ordering::AcqRel, Ordering::Acquire);
    }

    fn end(&self) {
        self.active.store(tick(), Ordering::Relaxed);
        let _ = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                matches!(s, BODY | BUSY).then_some(IDLE)
            });
    }

    /// Closes the connection if its state is one of `from`; true if it did.
    fn close_if(&self, from: &[u8]) -> bool {
        let closed = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                from.contains(&s).then_some(CLOSING)
            })
            .is_ok();
        if closed {
            self.close.notify_one();
        }
        closed
    }

    /// Closes the connection if no request is in flight or begun (at shutdown: a body on its
    /// way gets the grace period); true if it did.
    fn close_if_idle(&self) -> bool {
        self.close_if(&[IDLE])
    }

    /// Whether it waits for its client: idle, or a head or a body still arriving.
    fn waiting(&self) -> bool {
        matches!(self.state.load(Ordering::Acquire), IDLE | BODY)
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

    /// Closes the connection that has waited for its client the longest: idle since its last
    /// answer, still sending its first head since it opened, or still sending a body since its
    /// head; false if every one has a whole request in flight.
    fn close_longest_waiting(&self) -> bool {
        let mut g = self.lock();
        loop {
            let Some((id, st)) = g
                .live
                .iter()
                .filter(|(_, st)| st.waiting())
                .min_by_key(|(_, st)| st.active.load(Ordering::Relaxed))
                .map(|(id, st)| (*id, st.clone()))
            else {
                return false;
            };
            // It may have moved on since: then look again.
            if st.close_if(&[IDLE, BODY]) {
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
        .max_buf_size(MAX_HEAD_BYTES)
        // The buffer's size is checked only between reads: a head that arrived in one read
        // passed up to ~114 KB. The head's own size is checked once parsed.
        .max_header_size(MAX_HEAD_BYTES);
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
                        conns.close_longest_waiting();
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                },
            };
            if conns.len() >= limits.max_connections && !conns.close_longest_waiting() {
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

/// The router, marking its connection's request begun at a parsed head, in flight once its body
/// is all received, and over once the answer is sent.
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
        if !self.state.begin(req.body().is_end_stream()) {
            // Closed to make room while its head arrived: the connection is going away.
            return Box::pin(async {
                Ok(Response::builder()
                    .status(503)
                    .header("connection", "close")
                    .body(Body::empty())
                    .unwrap_or_default())
            });
        }
        let state = self.state.clone();
        let fut = self.inner.call(req.map(|body| Received { body, state }));
        let busy = Busy(self.state.clone());
        Box::pin(async move {
            let response = fut.await?;
            // The connection stays busy until hyper drops the body, after its last byte.
            Ok(response.map(|body| Body::new(BusyBody { body, _busy: busy })))
        })
    }
}

/// A request's body, marking its request in flight once it has all arrived.
struct Received {
    body: Incoming,
    state: Arc<ConnState>,
}

impl HttpBody for Received {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        // Its end, or an error, which ends it too.
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || self.body.is_end_stream() {
            self.state.received();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
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
    use crate::client::Connection;
    use std::io::Read;
    use std::net::SocketAddr;

    /// [`serve`] on a free loopback port in its own thread with a small router (`GET /`, and
    /// `POST /body` which reads its body), until dropped.
    struct Running {
        addr: SocketAddr,
        stop: Option<watch::Sender<bool>>,
        thread: Option<std::thread::JoinHandle<()>>,
    }

    impl Running {
        fn start(max_connections: usize) -> Running {
            let (stop_tx, stop_rx) = watch::channel(false);
            let (addr_tx, addr_rx) = std::sync::mpsc::channel();
            let thread = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                    addr_tx.send(listener.local_addr().unwrap()).unwrap();
                    let router = Router::new()
                        .route("/", axum::routing::get(|| async { "ok" }))
                        .route(
                            "/body",
                            axum::routing::post(|b: Bytes| async move { b.len().to_string() }),
                        );
                    let limits = Limits {
                        // Longer than any test: only the server's own choices close connections.
                        head_timeout: Duration::from_secs(600),
                        max_connections,
                        shutdown_grace: Duration::from_millis(100),
                    };
                    let stop = move || {
                        let mut rx = stop_rx.clone();
                        async move {
                            let _ = rx.wait_for(|s| *s).await;
                        }
                    };
                    serve(listener, router, limits, stop).await;
                });
            });
            Running {
                addr: addr_rx.recv().unwrap(),
                stop: Some(stop_tx),
                thread: Some(thread),
            }
        }

        fn open(&self) -> Connection {
            Connection::open(self.addr, Duration::from_secs(20)).unwrap()
        }

        /// A connection whose head the server has parsed (it asked for the body with `100
        /// Continue`) and which sent 10 of the 1,000 bytes its head announced.
        fn half_body(&self) -> Connection {
            let mut c = self.open();
            c.write_raw(
                b"POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n",
            )
            .unwrap();
            let r = c.read_response().unwrap();
            assert_eq!(r.status, 100, "{}", r.text());
            c.write_raw(b"0123456789").unwrap();
            c
        }
    }

    impl Drop for Running {
        fn drop(&mut self) {
            if let Some(stop) = self.stop.take() {
                let _ = stop.send(true);
            }
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }

    /// Whether the server has closed `c` (it reads the end of the stream, or a reset).
    fn closed_by_server(c: &mut Connection) -> bool {
        matches!(c.read_until_closed(), Ok(None))
    }

    #[test]
    fn a_body_still_arriving_is_closed_to_make_room_a_whole_request_never() {
        let conns = Conns::default();
        let (_, a) = conns.add();
        let (_, b) = conns.add();
        let (_, c) = conns.add();
        // a's head is parsed, its body on its way; b's whole request is in flight; c, opened
        // before a's head arrived, has sent nothing since.
        assert!(a.begin(false));
        assert!(b.begin(false));
        b.received();
        assert!(conns.close_longest_waiting());
        assert_eq!(
            c.state.load(Ordering::Acquire),
            CLOSING,
            "c: waited longest"
        );
        assert!(conns.close_longest_waiting());
        assert_eq!(a.state.load(Ordering::Acquire), CLOSING, "a: its body");
        assert!(!conns.close_longest_waiting(), "b's request is in flight");
        assert_eq!(b.state.load(Ordering::Acquire), BUSY);
        // At shutdown a body on its way is given the grace period, as a request in flight.
        let (_, d) = conns.add();
        assert!(d.begin(false));
        conns.close_all_idle();
        assert_eq!(d.state.load(Ordering::Acquire), BODY);
        d.end();
        assert_eq!(d.state.load(Ordering::Acquire), IDLE);
    }

    #[test]
    fn half_sent_bodies_are_closed_to_make_room_the_oldest_first() {
        // Issue 46, item 5: connections waiting for a body counted as in flight and were never
        // closed, so 600 of them (more than the cap) had every normal request answered 503.
        let server = Running::start(4);
        let mut bodies: Vec<Connection> = (0..4).map(|_| server.half_body()).collect();
        // Kept open, so that each new connection finds the server at its cap.
        let mut normal = server.open();
        let r = normal.send("GET", "/", None, b"").unwrap();
        assert_eq!(r.status, 200, "a normal request at the cap: {}", r.text());
        assert!(closed_by_server(&mut bodies[0]), "the oldest half body");
        // And again: the next oldest goes (the normal connection has just had its answer); a
        // whole body is still read and answered.
        let mut second = server.open();
        let r = second.send("POST", "/body", None, b"abc").unwrap();
        assert_eq!((r.status, r.text()), (200, "3".to_string()));
        assert!(closed_by_server(&mut bodies[1]), "the next oldest");
        // The two youngest were left: each still takes the rest of its body and is answered.
        for c in &mut bodies[2..] {
            c.write_raw(&[b'x'; 990]).unwrap();
            let r = c.read_response().unwrap();
            assert_eq!((r.status, r.text()), (200, "1000".to_string()));
        }
    }

    #[test]
    fn a_head_over_the_cap_is_refused_however_it_arrives() {
        // Issue 46: hyper checks its buffer's size only between reads, so a head sent at once
        // passed up to ~114 KB under a 64 KiB cap.
        let server = Running::start(8);
        let head = |n: usize| {
            format!(
                "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: {}\r\n\r\n",
                "a".repeat(n)
            )
        };
        let fits = head(MAX_HEAD_BYTES - 100);
        assert!(fits.len() <= MAX_HEAD_BYTES);
        let mut c = server.open();
        c.write_raw(fits.as_bytes()).unwrap();
        assert_eq!(
            c.read_response().unwrap().status,
            200,
            "a head under the cap"
        );
        for size in [MAX_HEAD_BYTES + 1, 80 * 1024, 110 * 1024, 200 * 1024] {
            let over = head(size);
            let mut c = std::net::TcpStream::connect(server.addr).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            // The server may close before it has read it all (and a reset may then take its
            // answer): what counts is that it never answers the request.
            let _ = std::io::Write::write_all(&mut c, over.as_bytes());
            let mut said = Vec::new();
            let _ = c.read_to_end(&mut said);
            let said = String::from_utf8_lossy(&said);
            assert!(
                said.is_empty() || said.starts_with("HTTP/1.1 431"),
                "a head of {} bytes: {}",
                over.len(),
                said.lines().next().unwrap_or_default()
            );
        }
    }

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
        assert!(a.begin(true), "a has a request in flight");
        // b, older than c and d, has just answered a request: they have been idle longer.
        assert!(b.begin(true));
        b.end();
        assert!(conns.close_longest_waiting());
        assert_eq!(
            c.state.load(Ordering::Acquire),
            CLOSING,
            "c: idle the longest"
        );
        assert!(!c.begin(true), "a closing connection takes no request");
        assert!(conns.close_longest_waiting());
        assert_eq!(d.state.load(Ordering::Acquire), CLOSING, "d: next");
        assert_eq!(conns.len(), 2);
        assert!(b.begin(true));
        assert!(!conns.close_longest_waiting(), "every one is busy");
        b.end();
        conns.close_all_idle();
        assert_eq!(conns.len(), 1, "a, busy, is left to finish");
        assert_eq!(a.state.load(Ordering::Acquire), BUSY);
    }
}
