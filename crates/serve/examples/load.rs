//! Load generator for `make bench`: N concurrent clients post seeded boards to `/api/suggest` of
//! a running `clue-db serve` for a fixed time, each on one kept-alive connection, and it prints
//! requests per second and latency quantiles.
//!
//! `cargo run --release -p serve --example load -- URL [--clients 8] [--seconds 10]
//!  [--boards 500] [--seed 1] [--strategy relatedness] [--idle 300] [--half-bodies 600]
//!  [--server-pid PID]`
//!
//! `--idle N` holds N more connections for the whole run, each having sent half a request head
//! and nothing more (the attack of issue 22); `--half-bodies N` holds N whose head announced
//! `Content-Length: 1000` and which sent part of that body and nothing more (issue 46, item 5).
//! When the server closes one (its timeouts, or to make room), another is opened in its place.
//! `--server-pid` prints the server's peak memory (`VmHWM` of `/proc/PID/status`) at the end.
//!
//! The table counts every request the clients tried: those answered 200 (the success rate),
//! and the latency of those; a request that failed (another status, or no answer on a new
//! connection either) is an error, and any error fails the run once the table is printed. The
//! boards are drawn from the covered terms the server takes as cards (a term it answers 422
//! alone is left out, and named).
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
    half_bodies: usize,
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
        half_bodies: 0,
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
            "--half-bodies" => {
                a.half_bodies = value("--half-bodies")?.parse().context("--half-bodies")?
            }
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
    if a.idle > 10_000 || a.half_bodies > 10_000 {
        bail!("--idle and --half-bodies: at most 10,000 each");
    }
    Ok(a)
}

/// Half a request head: the server waits for the rest until its head timeout.
const HALF_HEAD: &[u8] = b"GET / HTTP/1.1\r\nHost: x\r\n";

/// A whole head (its `Host` the server's own, so the server goes on to read the body) announcing
/// a body of 1,000 bytes, and the first bytes of that body: the server waits for the rest until
/// its body deadline.
fn half_body(addr: SocketAddr) -> Vec<u8> {
    format!(
        "POST /api/suggest HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 1000\r\n\r\n{{\"pos\": [\"apple\", "
    )
    .into_bytes()
}

fn open_half(addr: SocketAddr, sent: &[u8]) -> Option<TcpStream> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    s.write_all(sent).ok()?;
    s.set_nonblocking(true).ok()?;
    Some(s)
}

/// What the held connections went through.
struct Held {
    /// Open with their bytes sent when the working clients started.
    at_start: usize,
    /// Opened again after the server closed one (or refused one).
    reopened: usize,
}

/// Holds `n` connections that sent `sent` and nothing more until `stop`, replacing each one the
/// server closes.
fn hold(
    addr: SocketAddr,
    n: usize,
    sent: Vec<u8>,
    ready: std::sync::mpsc::Sender<usize>,
    stop: Arc<AtomicBool>,
) -> Held {
    let mut conns: Vec<Option<TcpStream>> = (0..n).map(|_| open_half(addr, &sent)).collect();
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
                *c = open_half(addr, &sent);
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

/// The covered terms the server takes as cards, and those it does not: a stored term whose
/// normal form is another word (`g-spot`, read as `g spot`) is answered 422, an error of the
/// database's and not of the load, which would otherwise fail some boards. Asked 25 at a time,
/// then one by one in a batch refused.
fn cards(addr: SocketAddr, terms: Vec<String>) -> Result<(Vec<String>, Vec<String>)> {
    let takes = |words: &[String]| -> Result<bool> {
        let r = client::post_json(
            addr,
            "/api/suggest",
            &serde_json::json!({"pos": words, "top": 1}),
        )
        .context("POST /api/suggest")?;
        match r.status {
            200 => Ok(true),
            422 => Ok(false),
            s => bail!("POST /api/suggest answered {s}: {}", r.text()),
        }
    };
    let (mut kept, mut left) = (Vec::new(), Vec::new());
    for batch in terms.chunks(25) {
        if takes(batch)? {
            kept.extend_from_slice(batch);
            continue;
        }
        for t in batch {
            if takes(std::slice::from_ref(t))? {
                kept.push(t.clone());
            } else {
                left.push(t.clone());
            }
        }
    }
    Ok((kept, left))
}

fn main() -> Result<()> {
    let a = parse_args()?;
    let terms = client::get(a.addr, "/api/terms")
        .with_context(|| format!("reaching {}", a.addr))?
        .json()?;
    let terms: Vec<String> = serde_json::from_value(terms["terms"].clone())
        .context("reading the covered terms from /api/terms")?;
    let (terms, left) = cards(a.addr, terms)?;
    if !left.is_empty() {
        println!(
            "{} covered terms left out of the boards, the server answering 422 for them alone: {}",
            left.len(),
            left.join(", ")
        );
    }
    let boards: Vec<Vec<u8>> = (0..a.boards)
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
    // The working clients start once the held connections are all open.
    let holder = |n: usize, sent: Vec<u8>| {
        (n > 0).then(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            let (addr, stop) = (a.addr, stop.clone());
            let h = std::thread::spawn(move || hold(addr, n, sent, tx, stop));
            let _ = rx.recv();
            h
        })
    };
    let idle = holder(a.idle, HALF_HEAD.to_vec());
    let bodies = holder(a.half_bodies, half_body(a.addr));
    let deadline = Instant::now() + Duration::from_secs_f64(a.seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..a.clients)
        .map(|c| {
            let boards = boards.clone();
            let addr = a.addr;
            std::thread::spawn(move || -> (Vec<f64>, usize, Vec<String>, usize) {
                let open = || Connection::open(addr, Duration::from_secs(30)).ok();
                let mut conn = open();
                let (mut ms, mut tried, mut errors, mut reconnects) =
                    (Vec::new(), 0usize, Vec::new(), 0usize);
                let mut i = c;
                while Instant::now() < deadline {
                    let t = Instant::now();
                    let body = &boards[i % boards.len()];
                    let send = |conn: &mut Connection| {
                        conn.send("POST", "/api/suggest", Some("application/json"), body)
                    };
                    // A kept-alive connection the server closed between two requests (to make
                    // room at its cap) is opened again, as a browser does; the time counts. No
                    // answer on a new connection either is an error.
                    let mut answer = conn.as_mut().map(send).and_then(Result::ok);
                    if answer.is_none() {
                        reconnects += 1;
                        conn = open();
                        answer = conn.as_mut().map(send).and_then(Result::ok);
                    }
                    tried += 1;
                    match answer {
                        Some(r) if r.status == 200 => ms.push(t.elapsed().as_secs_f64() * 1e3),
                        Some(r) => errors.push(r.status.to_string()),
                        None => {
                            errors.push("no answer".to_string());
                            conn = None;
                        }
                    }
                    i += a.clients;
                }
                (ms, tried, errors, reconnects)
            })
        })
        .collect();
    let mut all = Vec::new();
    let (mut tried, mut failed, mut reconnects) = (0, Vec::new(), 0);
    for w in workers {
        let (ms, t, e, r) = w
            .join()
            .map_err(|_| anyhow::anyhow!("a client thread panicked"))?;
        all.extend(ms);
        tried += t;
        failed.extend(e);
        reconnects += r;
    }
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let join = |h: Option<std::thread::JoinHandle<Held>>| {
        h.map(|h| {
            h.join()
                .map_err(|_| anyhow::anyhow!("a holder of connections panicked"))
        })
        .transpose()
    };
    let (idle, bodies) = (join(idle)?, join(bodies)?);
    all.sort_by(f64::total_cmp);
    let errors = failed.len();
    let mut beside = Vec::new();
    if a.idle > 0 {
        beside.push(format!("{} idle half-sent ones", a.idle));
    }
    if a.half_bodies > 0 {
        beside.push(format!(
            "{} sending half of a 1,000-byte body",
            a.half_bodies
        ));
    }
    println!(
        "/api/suggest ({}): {} clients for {:.1} s, {} boards (seed {}), kept-alive connections{}",
        a.strategy,
        a.clients,
        secs,
        a.boards,
        a.seed,
        if beside.is_empty() {
            String::new()
        } else {
            format!(", beside {}", beside.join(" and "))
        }
    );
    // Quantiles of the requests answered 200: what a client the server serves waits.
    let q = |p: f64| latency::nearest_rank(&all, p).map_or("-".to_string(), |v| format!("{v:.2}"));
    println!(
        "{:>9} {:>8} {:>9} {:>10} {:>9} {:>9} {:>7}",
        "requests", "ok %", "ok/s", "median ms", "p95 ms", "max ms", "errors"
    );
    println!(
        "{:>9} {:>8.2} {:>9.1} {:>10} {:>9} {:>9} {:>7}",
        tried,
        100.0 * all.len() as f64 / tried.max(1) as f64,
        all.len() as f64 / secs,
        q(0.5),
        q(0.95),
        q(1.0),
        errors
    );
    if reconnects > 0 {
        println!(
            "the clients opened a new connection {reconnects} times (the server closed a kept-alive one between requests, or refused one)"
        );
    }
    for (held, what) in [
        (idle, "idle connections with half a head"),
        (bodies, "connections with half a body"),
    ] {
        if let Some(held) = held {
            println!(
                "{what}: {} open when the clients started; {} opened again after the server closed them",
                held.at_start, held.reopened
            );
        }
    }
    if let (Some(pid), Some(before)) = (a.server_pid, peak_before) {
        println!(
            "server memory: peak {:.1} MB (VmHWM; {before:.1} MB before this run), now {:.1} MB (VmRSS), from /proc/{pid}/status",
            proc_mb(pid, "VmHWM")?,
            proc_mb(pid, "VmRSS")?
        );
    }
    if errors > 0 {
        // What the failures were: `503` ×40, `no answer` ×2.
        failed.sort();
        let mut kinds: Vec<(String, usize)> = Vec::new();
        for f in failed {
            match kinds.last_mut() {
                Some((k, n)) if *k == f => *n += 1,
                _ => kinds.push((f, 1)),
            }
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
        bail!(
            "{errors} of {tried} requests were not answered with 200: {}",
            kinds.join(", ")
        );
    }
    Ok(())
}
