//! The child processes of `make bench`: each one named in full when it fails (with the end of
//! what it said on stderr), timed from its start to its end, its peak resident memory taken
//! from `wait4` (`ru_maxrss`: this child's alone), and ended when the benchmark is interrupted.
//!
//! The children are started by `posix_spawn` (vfork), and Linux carries the high-water mark of
//! the parent's memory into the child's `ru_maxrss` at `exec`: every peak is at least the
//! harness's own, so the harness keeps nothing large (its generators stream) and says its own
//! peak at the end ([`own_peak_mb`]).

use anyhow::{Context, Result, bail};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The children running now, ended by [`end_children`] on Ctrl-C or SIGTERM.
static RUNNING: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

fn running() -> std::sync::MutexGuard<'static, Vec<libc::pid_t>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A command as a person would type it: the variables it was given, the program, the arguments.
pub fn shown(cmd: &Command) -> String {
    let quote = |s: &OsStr| {
        let s = s.to_string_lossy();
        if s.is_empty() || s.contains([' ', '\t', '\'', '"']) {
            format!("'{}'", s.replace('\'', "'\\''"))
        } else {
            s.into_owned()
        }
    };
    let mut parts: Vec<String> = cmd
        .get_envs()
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_string_lossy(), quote(v?))))
        .filter(|kv| !kv.starts_with("TMPDIR=") && !kv.starts_with("SQLITE_TMPDIR="))
        .collect();
    parts.push(quote(cmd.get_program()));
    parts.extend(cmd.get_args().map(quote));
    parts.join(" ")
}

/// How a child ended, and what it cost.
#[derive(Debug, Clone, Copy)]
pub struct Finished {
    /// Wall time from just before its start to its end.
    pub seconds: f64,
    /// Peak resident memory in MB (`ru_maxrss`, which Linux gives in kB).
    pub peak_mb: f64,
    /// The raw wait status.
    pub status: libc::c_int,
}

impl Finished {
    pub fn success(&self) -> bool {
        libc::WIFEXITED(self.status) && libc::WEXITSTATUS(self.status) == 0
    }

    /// `exit status 1`, `killed by signal 9`.
    pub fn describe(&self) -> String {
        if libc::WIFEXITED(self.status) {
            format!("exit status {}", libc::WEXITSTATUS(self.status))
        } else if libc::WIFSIGNALED(self.status) {
            format!("killed by signal {}", libc::WTERMSIG(self.status))
        } else {
            format!("wait status {}", self.status)
        }
    }
}

/// A running child of the benchmark.
pub struct Child {
    pid: libc::pid_t,
    /// The command, for messages.
    pub shown: String,
    start: Instant,
    reaped: bool,
}

/// Starts `cmd` (its standard streams as the caller set them).
pub fn spawn(cmd: &mut Command) -> Result<Child> {
    let shown = shown(cmd);
    let start = Instant::now();
    // Registered under the lock, so that an interruption sees every child.
    let mut list = running();
    let child = cmd
        .spawn()
        .with_context(|| format!("could not start {shown}"))?;
    let pid = child.id() as libc::pid_t;
    list.push(pid);
    drop(list);
    // The `std::process::Child` is dropped without waiting: [`Child::wait`] reaps it.
    drop(child);
    Ok(Child {
        pid,
        shown,
        start,
        reaped: false,
    })
}

impl Child {
    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// Whether it has ended (it is not reaped: [`Child::wait`] still gives its figures).
    pub fn has_ended(&self) -> bool {
        if self.reaped {
            return true;
        }
        // SAFETY: `siginfo_t` is plain data; WNOWAIT leaves the child to be reaped by `wait`.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                self.pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        r == 0 && unsafe { info.si_pid() } == self.pid
    }

    /// Waits for the end, then reaps the child with its figures.
    pub fn wait(mut self) -> Result<Finished> {
        self.reap(true)?
            .with_context(|| format!("waiting for {}", self.shown))
    }

    /// Waits at most `limit`; past it the child is ended (SIGKILL) and `None` returned.
    pub fn wait_at_most(mut self, limit: Duration) -> Result<Option<Finished>> {
        while self.start.elapsed() < limit {
            if self.has_ended() {
                return self.reap(true);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.end(Duration::ZERO);
        Ok(None)
    }

    /// Asks it to stop (SIGTERM), waits up to `grace`, then kills it (SIGKILL), and reaps it.
    pub fn end(&mut self, grace: Duration) {
        if self.reaped {
            return;
        }
        let t = Instant::now();
        // SAFETY: `pid` is our child, not reaped yet (a zombie at worst), so not reused.
        unsafe { libc::kill(self.pid, libc::SIGTERM) };
        while t.elapsed() < grace && !self.has_ended() {
            std::thread::sleep(Duration::from_millis(20));
        }
        if !self.has_ended() {
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
        let _ = self.reap(true);
    }

    /// Reaps the child once it has ended (blocking or not); `Ok(None)` if it has not.
    fn reap(&mut self, block: bool) -> Result<Option<Finished>> {
        // SAFETY: plain data filled by the kernel.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
        loop {
            let r = unsafe { libc::waitid(libc::P_PID, self.pid as libc::id_t, &mut info, flags) };
            if r == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                bail!("waiting for {}: {e}", self.shown);
            }
        }
        if unsafe { info.si_pid() } != self.pid {
            return Ok(None);
        }
        let seconds = self.start.elapsed().as_secs_f64();
        // Ended but not reaped: out of the list first, so that no signal can reach a reused pid.
        running().retain(|&p| p != self.pid);
        let mut status: libc::c_int = 0;
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let got = loop {
            let r = unsafe { libc::wait4(self.pid, &mut status, 0, &mut usage) };
            if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            break r;
        };
        self.reaped = true;
        if got != self.pid {
            bail!(
                "waiting for {}: {}",
                self.shown,
                std::io::Error::last_os_error()
            );
        }
        Ok(Some(Finished {
            seconds,
            peak_mb: usage.ru_maxrss as f64 / 1024.0,
            status,
        }))
    }
}

impl Drop for Child {
    /// A child left running (an error on the way) is ended with the benchmark's step.
    fn drop(&mut self) {
        self.end(Duration::from_secs(5));
    }
}

/// The last `n` lines of a log file, for an error message.
pub fn tail(log: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Runs `cmd` to its end and fails, naming it, unless it succeeded; its stderr goes to `log`,
/// whose end the error shows. Its stdout is as the caller set it.
pub fn run(cmd: &mut Command, log: &Path) -> Result<Finished> {
    let err = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    cmd.stderr(err);
    let child = spawn(cmd)?;
    let shown = child.shown.clone();
    let done = child.wait()?;
    if !done.success() {
        let said = tail(log, 20);
        bail!(
            "{shown} failed ({}){}{said}",
            done.describe(),
            if said.is_empty() { "" } else { ":\n" }
        );
    }
    Ok(done)
}

/// Runs `cmd` and returns what it printed on stdout, as [`run`] (stderr to `log`).
pub fn output(cmd: &mut Command, log: &Path) -> Result<String> {
    let out_path = log.with_extension("out");
    let out = std::fs::File::create(&out_path)
        .with_context(|| format!("creating {}", out_path.display()))?;
    cmd.stdout(out);
    run(cmd, log)?;
    let text =
        std::fs::read(&out_path).with_context(|| format!("reading {}", out_path.display()))?;
    let _ = std::fs::remove_file(&out_path);
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// On Ctrl-C or SIGTERM: ends every running child (SIGTERM, then SIGKILL after `grace`), and
/// returns once none is left running (they may stay zombies: the process is about to exit).
pub fn end_children(grace: Duration) {
    let list = running().clone();
    for &pid in &list {
        // SAFETY: the list holds only children not yet reaped.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    let t = Instant::now();
    let alive = |pid: libc::pid_t| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                let state = s.rsplit_once(')')?.1.trim_start().chars().next()?;
                Some(state != 'Z' && state != 'X')
            })
            .unwrap_or(false)
    };
    while t.elapsed() < grace && list.iter().any(|&p| alive(p)) {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &pid in &list {
        if alive(pid) {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// The harness's own peak resident memory, MB: a floor under every child's peak.
pub fn own_peak_mb() -> f64 {
    // SAFETY: plain data filled by the kernel.
    let mut own: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut own) };
    own.ru_maxrss as f64 / 1024.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_shown_as_typed() {
        let mut c = Command::new("target/release/clue-db");
        c.args(["read", "--format", "xml", "/tmp/a b.xml"])
            .env("RAYON_NUM_THREADS", "2")
            .env("TMPDIR", "/tmp/x");
        assert_eq!(
            shown(&c),
            "RAYON_NUM_THREADS=2 target/release/clue-db read --format xml '/tmp/a b.xml'"
        );
    }

    #[test]
    fn a_failing_command_is_named_with_what_it_said() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        let mut c = Command::new("sh");
        c.args(["-c", "echo one >&2; echo two >&2; exit 3"]);
        let e = run(&mut c, &log).unwrap_err().to_string();
        assert!(e.starts_with("sh -c 'echo one"), "{e}");
        assert!(e.contains("failed (exit status 3):\none\ntwo"), "{e}");
        let e = run(&mut Command::new("/nonexistent/clue-db"), &log)
            .unwrap_err()
            .to_string();
        assert!(e.contains("could not start /nonexistent/clue-db"), "{e}");
    }

    #[test]
    fn output_and_figures_of_a_child() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        let out = output(Command::new("echo").arg("hello"), &log).unwrap();
        assert_eq!(out, "hello\n");
        let done = run(&mut Command::new("true"), &log).unwrap();
        assert!(done.success());
        assert!(done.peak_mb > 0.0);
    }

    #[test]
    fn a_child_over_its_limit_is_ended() {
        let child = spawn(Command::new("sleep").arg("30")).unwrap();
        let pid = child.pid() as libc::pid_t;
        assert!(!child.has_ended());
        let got = child.wait_at_most(Duration::from_millis(100)).unwrap();
        assert!(got.is_none());
        assert!(!running().contains(&pid));
        // Reaped: the pid is no longer our child.
        assert_eq!(
            unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) },
            -1
        );
    }
}
