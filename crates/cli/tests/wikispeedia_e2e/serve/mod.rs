//! End-to-end tests of `clue-db serve`: the binary serves the Wikispeedia database the other
//! tests here read ([`crate::db`], built once per test process), and the tests talk to it over
//! real HTTP on an ephemeral port (`api`), or drive headless Chromium against it (`browser`);
//! `hostile` holds what a hostile client or page tries (issue 22).

mod api;
mod browser;
mod cdp;
mod hostile;

use crate::common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
/// A running `clue-db serve --port 0`, killed when dropped.
pub struct Served {
    child: Child,
    /// Where to connect (127.0.0.1 when the server listens on every address).
    pub addr: SocketAddr,
    pub url: String,
}

/// How to start a server beyond `--port 0 --db DB`.
#[derive(Default)]
pub struct Start<'a> {
    /// More arguments of `clue-db serve`.
    pub args: &'a [&'a str],
    /// The limit of open files (soft and hard) the server starts under, set by the shell's
    /// `ulimit -n`.
    pub open_files: Option<u32>,
    /// Keep the server's standard error for [`Served::stderr`] (else it is the test's).
    pub stderr: bool,
}

impl Served {
    /// Starts the server on `db` and reads the URL it prints.
    pub fn start(db: &Path) -> Served {
        Served::start_with(db, Start::default())
    }

    /// Starts the server on `db` as `how` says and reads the URL it prints.
    pub fn start_with(db: &Path, how: Start<'_>) -> Served {
        let bin = env!("CARGO_BIN_EXE_clue-db");
        let mut command = match how.open_files {
            Some(n) => {
                let mut c = Command::new("sh");
                c.args(["-c", &format!("ulimit -n {n} && exec \"$0\" \"$@\""), bin]);
                c
            }
            None => Command::new(bin),
        };
        let mut child = command
            .args(["serve", "--port", "0", "--db", common::utf8(db)])
            .args(how.args)
            .current_dir(common::repo_root())
            .stdout(Stdio::piped())
            .stderr(if how.stderr {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
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
        let mut addr: SocketAddr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        } else {
            assert!(addr.ip().is_loopback(), "binds 127.0.0.1 by default: {url}");
        }
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

    /// Sends the server a signal by name (`INT`, `TERM`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .expect("running kill");
        assert!(status.success(), "kill -{name} failed");
    }

    /// Waits for the server to exit (a guard of 60 s against a hang, not a timing) and returns
    /// its exit status and what it wrote to standard error (when kept).
    #[track_caller]
    pub fn wait_exit(&mut self) -> (std::process::ExitStatus, String) {
        let guard = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("polling the server") {
                break status;
            }
            assert!(
                std::time::Instant::now() < guard,
                "the server did not exit within 60 s of the signal"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            std::io::Read::read_to_string(&mut e, &mut err).expect("reading the server's stderr");
        }
        (status, err)
    }

    /// Reads the server's standard error up to the first line containing `needle` (it must have
    /// been started with [`Start::stderr`]).
    pub fn stderr_line(&mut self, needle: &str) -> String {
        let err = self.child.stderr.as_mut().expect("stderr is kept");
        let mut reader = BufReader::new(err);
        loop {
            let mut line = String::new();
            let n = reader
                .read_line(&mut line)
                .expect("reading the server's stderr");
            assert!(n > 0, "the server's stderr ended without {needle:?}");
            if line.contains(needle) {
                return line;
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
