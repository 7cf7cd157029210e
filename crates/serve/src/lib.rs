//! `clue-db serve`: a local web app over the query engine. Play mode (clue-db is the
//! spymaster, a person guesses), assist mode (a person's real board, live suggestions) and the
//! JSON API under `/api/` that the page uses (`api.rs` documents each route; the README has
//! examples). The page's HTML, CSS and JS are compiled in (`static/`): nothing is fetched at run
//! time, from the disk or the internet.
//!
//! Start reading at [`Server::bind`], then `api.rs` (routes), `engine.rs` (the one adapter to
//! the query engine) and `game.rs` (play-mode rules).

mod api;
pub mod client;
mod conn;
pub mod engine;
pub mod game;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use tokio::sync::Semaphore;

pub use api::{MAX_BODY, MAX_TOP, MAX_WORDS};

/// Where to listen and what to serve.
#[derive(Debug, Clone)]
pub struct Config {
    pub db: PathBuf,
    /// 127.0.0.1 unless the user asks otherwise: the server has no authentication.
    pub host: IpAddr,
    /// 0 picks a free port.
    pub port: u16,
    /// How long a client may take to send a request's head, counted from its connection or its
    /// previous answer: so also how long a kept-alive connection may stay idle.
    pub head_timeout: Duration,
    /// How long a client may take to send a request's body, counted from its head.
    pub body_timeout: Duration,
    /// The most connections open at once (lowered to fit the limit of open files).
    pub max_connections: usize,
    /// How long Ctrl-C or SIGTERM waits for the requests in flight before it closes them.
    pub shutdown_grace: Duration,
    /// Word lists read from their files (the editions' cards), offered for a new game when the
    /// database stored no list (one built before lists were stored; otherwise the file's own
    /// lists are offered, and a rebuilt file brings its own), each normalised and without
    /// repeats; boards are drawn from those of their words the strategy can score.
    pub lists: Vec<(String, Vec<String>)>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            db: PathBuf::from("db/clues.sqlite"),
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 8080,
            head_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(5),
            lists: Vec::new(),
        }
    }
}

/// A server bound to its port with its database open, not yet serving.
pub struct Server {
    listener: std::net::TcpListener,
    state: Arc<api::AppState>,
    addr: SocketAddr,
    limits: conn::Limits,
}

impl Server {
    /// Opens the database (a missing file, or one that is not a clue-db database, is an error
    /// naming it) and binds the port. Nothing is served until [`Server::run`].
    pub fn bind(config: &Config) -> Result<Server> {
        // The store's errors name the file.
        let engine = engine::Engine::open(&config.db).context("clue-db serve needs a database")?;
        let listener = std::net::TcpListener::bind((config.host, config.port))
            .with_context(|| format!("listening on {}:{}", config.host, config.port))?;
        listener
            .set_nonblocking(true)
            .context("making the listening socket non-blocking")?;
        let addr = listener.local_addr().context("reading the bound address")?;
        let max_connections =
            conn::connection_cap(config.max_connections, conn::raise_open_file_limit());
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        let state = Arc::new(api::AppState {
            engine,
            games: game::Games::new(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1),
            ),
            // Queries are CPU-bound: a few more than the cores keeps them busy while SQLite waits.
            permits: Semaphore::new(workers * 2),
            body_timeout: config.body_timeout,
            addr,
            loopback: addr.ip().is_loopback(),
            max_connections,
            lists: config.lists.clone(),
        });
        Ok(Server {
            listener,
            state,
            addr,
            limits: conn::Limits {
                head_timeout: config.head_timeout,
                max_connections,
                shutdown_grace: config.shutdown_grace,
            },
        })
    }

    /// The address bound (the real port when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL.
    pub fn url(&self) -> String {
        let host = match self.addr.ip() {
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// How many covered terms the database has.
    pub fn terms(&self) -> usize {
        self.state.engine.current().terms().len()
    }

    /// Whether only this machine can reach the server (it is bound to a loopback address).
    /// The server has no authentication: the caller warns when this is false.
    pub fn is_loopback(&self) -> bool {
        self.state.loopback
    }

    /// Serves until Ctrl-C or SIGTERM, then closes idle connections at once and gives the
    /// requests in flight [`Config::shutdown_grace`] to finish (a second signal ends that wait).
    pub fn run(self) -> Result<()> {
        self.run_until(shutdown)
    }

    /// Serves until `stop()` resolves, then shuts down as [`Server::run`] does (the wait for
    /// requests in flight ends early if a second `stop()` resolves). Returns once every
    /// connection is closed, or the grace period is over.
    pub fn run_until<F>(self, stop: impl Fn() -> F) -> Result<()>
    where
        F: std::future::Future<Output = ()>,
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the async runtime")?;
        let Server {
            listener,
            state,
            limits,
            ..
        } = self;
        let left = runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)
                .context("handing the socket to the runtime")?;
            anyhow::Ok(conn::serve(listener, api::router(state), limits, stop).await)
        })?;
        if left > 0 {
            eprintln!(
                "clue-db serve: closed {left} connection(s) whose request was still running after {} s",
                limits.shutdown_grace.as_secs_f64()
            );
        }
        // A query still running on the blocking pool is not waited for past the grace period.
        runtime.shutdown_timeout(Duration::from_millis(500));
        Ok(())
    }
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// Opens `url` in the desktop's browser (`xdg-open`, `open` on macOS); an error says why not,
/// and the caller only warns: the URL is printed anyway. An opener that runs and fails (no
/// browser: `xdg-open` exits 3) is told to `failed` when it exits, with what ran and how it
/// ended, so that the caller says it as it says the error.
pub fn open_browser(url: &str, failed: impl FnOnce(String) + Send + 'static) -> Result<()> {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let mut child = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("running {opener} {url}"))?;
    // Reaped in the background, so it leaves no zombie behind.
    let url = url.to_string();
    std::thread::spawn(move || {
        if let Ok(status) = child.wait()
            && !status.success()
        {
            failed(format!("{opener} {url}: {status}"));
        }
    });
    Ok(())
}
