//! End-to-end tests of `clue-db serve`: the binary serves a Wikispeedia database built by
//! `clue-db pipeline all` (once per test process), and the tests talk to it over real HTTP on an
//! ephemeral port (`api`), or drive headless Chromium against it (`browser`).

#[path = "../common/mod.rs"]
mod common;

mod api;
mod browser;
mod cdp;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::LazyLock;

static BUILT: LazyLock<PathBuf> = LazyLock::new(|| common::wikispeedia_db("serve"));

/// The Wikispeedia database.
pub fn db() -> &'static Path {
    &BUILT
}

/// A running `clue-db serve --port 0`, killed when dropped.
pub struct Served {
    child: Child,
    pub addr: SocketAddr,
    pub url: String,
}

impl Served {
    /// Starts the server on `db` and reads the URL it prints.
    pub fn start(db: &Path) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_clue-db"))
            .args(["serve", "--port", "0", "--db", common::utf8(db)])
            .current_dir(common::repo_root())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting clue-db serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("reading the server's first line");
        // "clue-db serve: http://127.0.0.1:PORT/ (…)"
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in the server's first line: {line:?}"))
            .to_string();
        let addr: SocketAddr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert!(addr.ip().is_loopback(), "binds 127.0.0.1 by default: {url}");
        Served { child, addr, url }
    }

    /// Panics unless the server process is still running (it must survive every bad request).
    #[track_caller]
    pub fn assert_alive(&mut self) {
        assert!(
            self.child.try_wait().expect("polling the server").is_none(),
            "the server exited"
        );
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
