//! Load generator for `make bench`: N concurrent clients post seeded boards to `/api/suggest` of
//! a running `clue-db serve` for a fixed time, each on one kept-alive connection, and it prints
//! requests per second and latency quantiles.
//!
//! `cargo run --release -p serve --example load -- URL [--clients 8] [--seconds 10]
//!  [--boards 500] [--seed 1] [--strategy relatedness]`
//!
//! Loopback only: it refuses any other address, so it cannot load someone else's server.

use std::net::SocketAddr;
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
    };
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--clients" => a.clients = value("--clients")?.parse().context("--clients")?,
            "--seconds" => a.seconds = value("--seconds")?.parse().context("--seconds")?,
            "--boards" => a.boards = value("--boards")?.parse().context("--boards")?,
            "--seed" => a.seed = value("--seed")?.parse().context("--seed")?,
            "--strategy" => a.strategy = value("--strategy")?,
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
    Ok(a)
}

/// The value at rank ⌈p·n⌉ of sorted samples (the rule of `clue-db bench-suggest`).
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    let rank = ((p * n as f64).ceil() as usize).clamp(1, n.max(1));
    sorted.get(rank - 1).copied().unwrap_or(f64::NAN)
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
    let deadline = Instant::now() + Duration::from_secs_f64(a.seconds);
    let start = Instant::now();
    let workers: Vec<_> = (0..a.clients)
        .map(|c| {
            let bodies = bodies.clone();
            let addr = a.addr;
            std::thread::spawn(move || -> Result<(Vec<f64>, usize)> {
                let mut conn = Connection::open(addr, Duration::from_secs(30))?;
                let (mut ms, mut errors) = (Vec::new(), 0usize);
                let mut i = c;
                while Instant::now() < deadline {
                    let t = Instant::now();
                    let r = conn.send(
                        "POST",
                        "/api/suggest",
                        Some("application/json"),
                        &bodies[i % bodies.len()],
                    )?;
                    ms.push(t.elapsed().as_secs_f64() * 1e3);
                    errors += usize::from(r.status != 200);
                    i += a.clients;
                }
                Ok((ms, errors))
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut errors = 0;
    for w in workers {
        let (ms, e) = w
            .join()
            .map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
        all.extend(ms);
        errors += e;
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort_by(f64::total_cmp);
    if all.is_empty() {
        bail!("no request completed");
    }
    println!(
        "/api/suggest ({}): {} clients for {:.1} s, {} boards (seed {}), kept-alive connections",
        a.strategy, a.clients, secs, a.boards, a.seed
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
    if errors > 0 {
        bail!("{errors} requests were not answered with 200");
    }
    Ok(())
}
