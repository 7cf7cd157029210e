//! Load generator for `make bench`: N concurrent clients post seeded boards to `/api/suggest` of
//! a running `clue-db serve` for a fixed time, each on one kept-alive connection, and it prints
//! requests per second and latency quantiles.
//!
//! `cargo run --release -p serve --example load -- URL [--clients 8] [--seconds 10]
//!  [--boards 500] [--seed 1] [--strategy relatedness] [--idle 300] [--server-pid PID]`
//!
//! `--idle N` holds N more connections for the whole run, each having sent half a request head
//! and nothing more (the attack of issue 22): when the server closes one (its head timeout, or
//! to make room), another is opened in its place. `--server-pid` prints the server's peak
//! memory (`VmHWM` of `/proc/PID/status`) at the end.
//!
//! Loopback only: it refuses any other address, so it cannot load someone else's server.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use query::game::{Board, Role, game_seed};
use serve::client::{self, Connection};

struct Args {
    addr: SocketAddr,
    clients: usize,
    seconds: f64,
    boards: usize,
    seed: u64,
    strategy: String,
    idle: usize,
    server_pid: Option<u32>,
}

fn parse_args() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let mut url = None;
    let mut a = Args {
        addr: "127.0.0.1:0".parse()?,
        clients: 8,
        seconds: 10.0,
        boards: 500,
        seed: 1,
        strategy: "relatedness".into(),
        idle: 0,
        server_pid: None,
    };
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--clients" => a.clients = value("--clients")?.parse().context("--clients")?,
            "--seconds" => a.seconds = value("--seconds")?.parse().context("--seconds")?,
            "--boards" => a.boards = value("--boards")?.parse().context("--boards")?,
            "--seed" => a.seed = value("--seed")?.parse().context("--seed")?,
            "--strategy" => a.strategy = value("--strategy")?,
            "--idle" => a.idle = value("--idle")?.parse().context("--idle")?,
            "--server-pid" => {
                a.server_pid = Some(value("--server-pid")?.parse().context("--server-pid")?)
            }
            other if !other.starts_with("--") && url.is_none() => url = Some(other.to_string()),
            other => bail!("unknown argument {other:?}"),
        }
    }
    let url = url.context("give the server's URL (as `clue-db serve` prints it)")?;
    let hostport = url
        .strip_prefix("http://")
        .context("the URL must start with http://")?
        .split('/')
        .next()
        .unwrap_or("");
    a.addr = hostport
        .parse()
        .with_context(|| format!("{hostport:?} is not an IP address and port"))?;
    if !a.addr.ip().is_loopback() {
        bail!(
            "{} is not a loopback address: the load generator only loads this machine",
            a.addr
        );
    }
    if a.clients == 0 || a.boards == 0 || !(a.seconds > 0.0 && a.seconds <= 600.0) {
        bail!("--clients and --boards must be 1 or more, --seconds in (0, 600]");
    }
    if a.idle > 10_000 {
        bail!("--idle {}: at most 10,000", a.idle);
    }
    Ok(a)
}

/// The value at rank ⌈p·n⌉ of sorted samples (the rule of `clue-db bench-suggest`).
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let rank = ((p * n as f64).ceil() as usize).clamp(1, n.max(1));
    sorted.get(rank - 1).copied().unwrap_or(f64::NAN)
}

/// Half a request head: the server waits for the rest until its head timeout.
const HALF_HEAD: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n";

fn open_half(addr: SocketAddr) -> Option<TcpStream> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    s.write_all(HALF_HEAD).ok()?;
    s.set_nonblocking(true).ok()?;
    Some(s)
}

/// What the idle connections went through.
struct Held {
    /// Open with half a head sent when the working clients started.
    at_start: usize,
    /// Opened again after the server closed one (or refused one).
    reopened: usize,
}

/// Holds `n` half-sent connections until `stop`, replacing each one the server closes.
fn hold_idle(
    addr: SocketAddr,
    n: usize,
    ready: std::sync::mpsc::Sender<usize>,
    stop: Arc<AtomicBool>,
) -> Held {
    let mut conns: Vec<Option<TcpStream>> = (0..n).map(|_| open_half(addr)).collect();
    let at_start = conns.iter().filter(|c| c.is_some()).count();
    let _ = ready.send(at_start);
    let mut reopened = 0;
    let mut buf = [0u8; 512];
    while !stop.load(Ordering::Relaxed) {
        for c in &mut conns {
            let alive = match c {
                Some(s) => matches!(s.read(&mut buf), Err(e) if e.kind() == ErrorKind::WouldBlock),
                None => false,
            };
            if !alive {
                *c = open_half(addr);
                reopened += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Held { at_start, reopened }
}

/// A line of `/proc/PID/status` (`VmHWM`, `VmRSS`) in MB.
fn proc_mb(pid: u32, key: &str) -> Result<f64> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .with_context(|| format!("{path} has no {key} line"))?;
    Ok(kb / 1024.0)
}

fn main() -> Result<()> {
    let a = parse_args()?;
    let terms = client::get(a.addr, "/api/terms")
        .with_context(|| format!("reaching {}", a.addr))?
        .json()?;
    let terms: Vec<String> = serde_json::from_value(terms["terms"].clone())
        .context("reading the covered terms from /api/terms")?;
    let bodies: Vec<Vec<u8>> = (0..a.boards)
        .map(|i| {
            let req = Board::random(&terms, game_seed(a.seed, i))?.request_for(Role::Red);
            Ok(serde_json::json!({
                "pos": req.pos, "neg": req.neg, "neutral": req.neutral, "assassin": req.assassin,
                "strategy": a.strategy,
            })
            .to_string()
            .into_bytes())
        })
        .collect::<Result<_>>()?;
    let peak_before = a.server_pid.map(|pid| proc_mb(pid, "VmHWM")).transpose()?;
    let stop = Arc::new(AtomicBool::new(false));
    let holder = (a.idle > 0).then(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        let (addr, n, stop) = (a.addr, a.idle, stop.clone());
        let h = std::thread::spawn(move || hold_idle(addr, n, tx, stop));
        // The working clients start once the idle connections are all open.
        let _ = rx.recv();
        h
    });
    let deadline = Instant::now() + Duration::from_secs_f64(a.seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..a.clients)
        .map(|c| {
            let bodies = bodies.clone();
            let addr = a.addr;
            std::thread::spawn(move || -> Result<(Vec<f64>, usize, usize)> {
                let open = || Connection::open(addr, Duration::from_secs(30));
                let mut conn = open()?;
                let (mut ms, mut errors, mut reconnects) = (Vec::new(), 0usize, 0usize);
                let mut i = c;
                while Instant::now() < deadline {
                    let t = Instant::now();
                    let body = &bodies[i % bodies.len()];
                    let send = |conn: &mut Connection| {
                        conn.send("POST", "/api/suggest", Some("application/json"), body)
                    };
                    // A kept-alive connection the server closed between two requests (to make
                    // room at its cap) is opened again, as a browser does; the time counts.
                    let r = match send(&mut conn) {
                        Ok(r) => r,
                        Err(_) => {
                            reconnects += 1;
                            conn = open()?;
                            send(&mut conn)?
                        }
                    };
                    ms.push(t.elapsed().as_secs_f64() * 1e3);
                    errors += usize::from(r.status != 200);
                    i += a.clients;
                }
                Ok((ms, errors, reconnects))
            })
        })
        .collect();
    let mut all = Vec::new();
    let (mut errors, mut reconnects) = (0, 0);
    for w in workers {
        let (ms, e, r) = w
            .join()
            .map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
        all.extend(ms);
        errors += e;
        reconnects += r;
    }
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let held = match holder {
        Some(h) => Some(
            h.join()
                .map_err(|_| anyhow::anyhow!("the idle holder panicked"))?,
        ),
        None => None,
    };
    all.sort_by(f64::total_cmp);
    if all.is_empty() {
        bail!("no request completed");
    }
    println!(
        "/api/suggest ({}): {} clients for {:.1} s, {} boards (seed {}), kept-alive connections{}",
        a.strategy,
        a.clients,
        secs,
        a.boards,
        a.seed,
        if a.idle > 0 {
            format!(", beside {} idle half-sent ones", a.idle)
        } else {
            String::new()
        }
    );
    println!(
        "{:>9} {:>9} {:>10} {:>9} {:>9} {:>7}",
        "requests", "req/s", "median ms", "p95 ms", "max ms", "errors"
    );
    println!(
        "{:>9} {:>9.1} {:>10.2} {:>9.2} {:>9.2} {:>7}",
        all.len(),
        all.len() as f64 / secs,
        nearest_rank(&all, 0.5),
        nearest_rank(&all, 0.95),
        all[all.len() - 1],
        errors
    );
    if reconnects > 0 {
        println!(
            "the clients opened a new connection {reconnects} times (the server closed a kept-alive one between requests)"
        );
    }
    if let Some(held) = held {
        println!(
            "idle connections: {} of {} open with half a head when the clients started; {} opened again after the server closed them (its head timeout)",
            held.at_start, a.idle, held.reopened
        );
    }
    if let (Some(pid), Some(before)) = (a.server_pid, peak_before) {
        println!(
            "server memory: peak {:.1} MB (VmHWM; {before:.1} MB before this run), now {:.1} MB (VmRSS), from /proc/{pid}/status",
            proc_mb(pid, "VmHWM")?,
            proc_mb(pid, "VmRSS")?
        );
    }
    if errors > 0 {
        bail!("{errors} requests were not answered with 200");
    }
    Ok(())
}
