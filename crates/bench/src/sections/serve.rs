//! Section 4: `clue-db serve` under load. The server is started on a free loopback port, then
//! the load generator `crates/serve/examples/load.rs` posts seeded boards to `/api/suggest` from
//! concurrent kept-alive clients, once per strategy, then once more beside idle connections that
//! sent half a request head (issue 22's attack), with the server's peak memory, and once more
//! beside connections that sent a whole head and half its body (issue 46, item 5). The server
//! is ended when the section ends, however it ends.

use super::{Ctx, STRATEGIES, section};
use crate::proc;
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// How long the server may take to say its URL.
pub const START_LIMIT: Duration = Duration::from_secs(10);

/// The URL in what `clue-db serve` printed (`clue-db serve: http://127.0.0.1:PORT/ (…)`).
pub fn url_in(said: &str) -> Option<&str> {
    let at = said.find("http://")?;
    let url = &said[at..];
    let end = url.find(char::is_whitespace).unwrap_or(url.len());
    Some(&url[..end])
}

pub fn run(ctx: &Ctx, db: &Path) -> Result<()> {
    let s = &ctx.settings;
    section(&format!(
        "4. Serve: `clue-db serve`, POST /api/suggest under concurrent clients, then beside {} \
         idle half-sent connections, then beside {} sending half a body",
        s.idle, s.half_bodies
    ));
    let load = ctx.example("load", "serve")?;
    let log = ctx.tmp("serve.log");
    let out = std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
    let mut cmd = ctx.clue_db();
    cmd.args(["serve", "--port", "0", "--db"])
        .arg(db)
        .stdout(out.try_clone()?)
        .stderr(out);
    // Dropped at the end of the section, also on an error: the server is ended then.
    let server = proc::spawn(&mut cmd)?;
    let t = Instant::now();
    let url = loop {
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(u) = url_in(&said) {
            break u.to_string();
        }
        if server.has_ended() {
            bail!("{} exited:\n{}", server.shown, proc::tail(&log, 20));
        }
        if t.elapsed() > START_LIMIT {
            bail!(
                "{} printed no URL in {} s:\n{}",
                server.shown,
                START_LIMIT.as_secs(),
                proc::tail(&log, 20)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    println!(
        "machine: {} cores; server and clients on this machine, over loopback",
        ctx.cores
    );
    let generator = |strategy: &str| {
        let mut c = Command::new(&load);
        c.arg(&url)
            .args(["--clients", &s.clients.to_string()])
            .args(["--seconds", &s.seconds.to_string()])
            .args(["--seed", &s.seed.to_string(), "--strategy", strategy]);
        c
    };
    for strategy in STRATEGIES {
        proc::run(&mut generator(strategy), &ctx.tmp("load.log"))?;
    }
    println!(
        "\nbeside {} idle connections with half a request head sent (the server's head timeout \
         is 10 s):",
        s.idle
    );
    let mut c = generator(STRATEGIES[0]);
    c.args(["--idle", &s.idle.to_string()])
        .args(["--server-pid", &server.pid().to_string()]);
    proc::run(&mut c, &ctx.tmp("load.log"))?;
    println!(
        "\nbeside {} connections that sent a head announcing a body of 1,000 bytes and part of \
         it (the server's body deadline is 10 s):",
        s.half_bodies
    );
    let mut c = generator(STRATEGIES[0]);
    c.args(["--half-bodies", &s.half_bodies.to_string()]);
    proc::run(&mut c, &ctx.tmp("load.log"))?;
    drop(server);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_found_in_what_the_server_said() {
        assert_eq!(
            url_in(
                "clue-db serve: http://127.0.0.1:43117/ (db.sqlite, 400 covered terms; Ctrl-C stops)\n"
            ),
            Some("http://127.0.0.1:43117/")
        );
        assert_eq!(url_in("http://[::1]:80/\n"), Some("http://[::1]:80/"));
        assert_eq!(url_in("starting…"), None);
    }
}
