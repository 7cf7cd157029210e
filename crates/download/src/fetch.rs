//! HTTP for the dumps site: small texts, and one large file at a time into `NAME.part`,
//! resumed with `Range`, hashed while it streams, renamed to `NAME` only once its SHA-1 is the
//! published one.
//!
//! Politeness (Wikimedia limits each address to a few connections and asks for a User-Agent
//! naming the tool): one request at a time, the User-Agent of [`Options`], exponential backoff
//! with a cap between attempts, and `Retry-After` honoured on 429 and 503. Attempts are bounded:
//! [`Options::max_attempts`] failures in a row without a byte of progress end the download.
//! A failure after some progress (a connection cut mid-body) starts the count again, so a
//! 20 GB file on a flaky line still finishes, from where it stopped each time.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::blocking::{Client, Response};
use reqwest::header::{CONTENT_RANGE, RANGE, RETRY_AFTER};
use sha1::{Digest, Sha1};

use crate::{Activity, Error, Observer, Result};

/// Identifies the tool and how to reach its operator, as the Wikimedia User-Agent policy asks.
pub const DEFAULT_USER_AGENT: &str = concat!(
    "clue-db/",
    env!("CARGO_PKG_VERSION"),
    " (dump download; https://example.invalid/clue-db; contact)"
);

/// How the downloader behaves. [`Default`] is polite enough for dumps.wikimedia.org.
#[derive(Debug, Clone)]
pub struct Options {
    /// Sent with every request.
    pub user_agent: String,
    /// Failures in a row (without progress) before giving up on a URL.
    pub max_attempts: u32,
    /// Refused connections (or host names that do not resolve) in a row before giving up,
    /// within `max_attempts`: nothing listens at the mirror's address (a closed port, a
    /// mistyped `--mirror`, no network), which minutes of waits will not change; one more
    /// attempt lets a mirror that is restarting answer.
    pub max_refused: u32,
    /// Wait after the first failure; doubled after each further one, up to `max_backoff`.
    pub backoff: Duration,
    /// Cap on the exponential backoff.
    pub max_backoff: Duration,
    /// What one second of `Retry-After` lasts: one second, except in tests.
    pub retry_after_unit: Duration,
    /// A server asking (by `Retry-After`) for a longer wait than this is given up on at once,
    /// with its request in the error, rather than waited on for hours.
    pub max_retry_after: Duration,
    /// Limit for connecting, and for each read of a response: a stalled connection fails (and
    /// is resumed) instead of hanging. Not a limit on a whole download.
    pub timeout: Duration,
    /// Longest one file may take, over all its attempts: a mirror that trickles a byte a
    /// minute never times out a read, and would otherwise hold a download for ever. What
    /// arrived stays in the `.part`, and the next run resumes it.
    pub file_deadline: Duration,
    /// Largest file taken when `dumpstatus.json` publishes no size (with a size, the size is
    /// the cap): a mirror that sends for ever must not fill the disk.
    pub max_unpublished_bytes: u64,
    /// Slowest a body may arrive, in bytes per second averaged over [`Options::speed_time`]
    /// (curl's `--speed-limit`); 0 turns the check off. A mirror that sends a byte now and then
    /// never times out a read and would hold a download until its deadline. Below this, the
    /// attempt fails and the next one resumes (`Range`) on a new connection; such a failure
    /// counts as one without progress, so a mirror that only trickles is given up after
    /// [`Options::max_attempts`].
    pub speed_limit: u64,
    /// How long a body may stay below [`Options::speed_limit`] (curl's `--speed-time`).
    pub speed_time: Duration,
    /// Redirects followed for one request, each within the mirror's origin (scheme, host,
    /// port) only; the next one, or one elsewhere, ends the download at once.
    pub max_redirects: usize,
}

/// Default [`Options::file_deadline`]: enwiki's largest file (~25 GB) at 1 MB/s is 7 hours.
pub const DEFAULT_FILE_DEADLINE: Duration = Duration::from_secs(24 * 3600);
/// Default [`Options::max_unpublished_bytes`]: above enwiki's largest file.
pub const DEFAULT_MAX_UNPUBLISHED_BYTES: u64 = 64 << 30;
/// Default [`Options::speed_limit`]: 1 kB/s, far below any usable line (enwiki at this speed
/// would take most of a year), far above a trickle.
pub const DEFAULT_SPEED_LIMIT: u64 = 1_000;
/// Default [`Options::speed_time`]: a minute, so that a short lull of a busy mirror passes.
pub const DEFAULT_SPEED_TIME: Duration = Duration::from_secs(60);

impl Default for Options {
    fn default() -> Self {
        Options {
            user_agent: DEFAULT_USER_AGENT.to_string(),
            max_attempts: 8,
            max_refused: 2,
            backoff: Duration::from_secs(2),
            max_backoff: Duration::from_secs(120),
            retry_after_unit: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(15 * 60),
            timeout: Duration::from_secs(60),
            file_deadline: DEFAULT_FILE_DEADLINE,
            max_unpublished_bytes: DEFAULT_MAX_UNPUBLISHED_BYTES,
            speed_limit: DEFAULT_SPEED_LIMIT,
            speed_time: DEFAULT_SPEED_TIME,
            max_redirects: 5,
        }
    }
}

/// Why one attempt failed.
pub(crate) enum Failure {
    /// Worth another attempt, after `wait` if the server named one (`Retry-After`, seconds).
    Retry {
        message: String,
        retry_after: Option<u64>,
        progressed: bool,
    },
    /// No server can be reached at the address, which waiting will not change: the
    /// connection was refused (nothing listens there), or the host's name does not resolve
    /// (no network: the backoff's eight attempts took four minutes to say so). `hint` says why.
    Refused {
        message: String,
        hint: &'static str,
    },
    Fatal(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Fatal(e)
    }
}

fn retry(message: String) -> Failure {
    Failure::Retry {
        message,
        retry_after: None,
        progressed: false,
    }
}

/// The HTTP side: a client and the rules for retrying.
pub(crate) struct Http {
    client: Client,
    options: Options,
    /// Whether the mirror has answered once: from then on a refused connection or a name that
    /// does not resolve is a passing failure (a mirror restarting, a network coming back after
    /// a laptop's sleep) and gets the backoff's attempts, not the one more of a mirror that is
    /// not there.
    reached: std::sync::atomic::AtomicBool,
}

/// What [`Http::fetch_file`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fetched {
    /// Bytes that were already in `NAME.part` when it started and are kept (0 when it had
    /// to start over).
    pub resumed_from: u64,
    /// Bytes received over the network.
    pub received: u64,
}

impl Http {
    pub fn new(options: Options) -> Result<Http> {
        if options.max_attempts == 0 {
            return Err(Error::Config("max_attempts must be at least 1".into()));
        }
        // reqwest is built without a default TLS crypto provider; install ring's once per
        // process. A second install fails harmlessly when one is already there.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let max_redirects = options.max_redirects;
        // Redirects stay within the mirror's origin (scheme, host and port), as the API
        // client's do: a mirror must not send the download (and our User-Agent) to another
        // host or service, and a loop ends after a few hops. Either is refused at once, not
        // retried (see [`Http::get`]).
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            let Some(first) = attempt.previous().first() else {
                return attempt.follow();
            };
            if attempt.url().origin() != first.origin() {
                let message = format!(
                    "a redirect to another host ({}) is not followed: only redirects within {} are",
                    attempt.url().origin().ascii_serialization(),
                    first.origin().ascii_serialization()
                );
                attempt.error(message)
            } else if attempt.previous().len() > max_redirects {
                attempt.error(format!(
                    "more than {max_redirects} redirects (a redirect loop?)"
                ))
            } else {
                attempt.follow()
            }
        });
        let client = Client::builder()
            .redirect(policy)
            .user_agent(options.user_agent.clone())
            .timeout(options.timeout)
            .connect_timeout(options.timeout)
            .build()
            .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Http {
            client,
            options,
            reached: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Runs `attempt` until it succeeds, fails for good, or has failed
    /// [`Options::max_attempts`] times in a row without progress; waits between attempts.
    fn retrying<T>(
        &self,
        url: &str,
        observer: &dyn Observer,
        mut attempt: impl FnMut() -> std::result::Result<T, Failure>,
    ) -> Result<T> {
        let mut failures = 0u32;
        let mut refused = 0u32;
        loop {
            let (message, retry_after) = match attempt() {
                Ok(v) => return Ok(v),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Refused { message, hint })
                    if !self.reached.load(std::sync::atomic::Ordering::Relaxed) =>
                {
                    refused += 1;
                    if refused >= self.options.max_refused {
                        return Err(Error::GaveUp {
                            url: url.to_string(),
                            attempts: failures + 1,
                            message: format!("{message}: {hint}"),
                        });
                    }
                    (message, None)
                }
                Err(Failure::Refused { message, hint }) => (format!("{message}: {hint}"), None),
                Err(Failure::Retry {
                    message,
                    retry_after,
                    progressed,
                }) => {
                    if progressed {
                        failures = 0;
                    }
                    refused = 0;
                    (message, retry_after)
                }
            };
            failures += 1;
            let gave_up = |message: String| Error::GaveUp {
                url: url.to_string(),
                attempts: failures,
                message,
            };
            if failures >= self.options.max_attempts {
                return Err(gave_up(message));
            }
            let wait = match retry_after {
                Some(secs) => {
                    let wait = self
                        .options
                        .retry_after_unit
                        .saturating_mul(u32::try_from(secs).unwrap_or(u32::MAX));
                    if wait > self.options.max_retry_after {
                        return Err(gave_up(format!(
                            "{message}; the server asks to wait {secs} s (Retry-After), more than \
                             the {} s this waits: try again later",
                            self.options.max_retry_after.as_secs()
                        )));
                    }
                    wait
                }
                None => backoff(self.options.backoff, failures - 1).min(self.options.max_backoff),
            };
            observer.retry(url, &message, wait, failures);
            std::thread::sleep(wait);
        }
    }

    /// Sends a GET and sorts the answer: success as is, 404/410 as [`Error::NotFound`], 429,
    /// 408 and 5xx as worth a retry (with their `Retry-After`), the rest as fatal.
    fn get(&self, url: &str, from: u64) -> std::result::Result<Response, Failure> {
        let mut request = self.client.get(url);
        if from > 0 {
            request = request.header(RANGE, format!("bytes={from}-"));
        }
        // A refused redirect is the mirror's answer, not a passing failure: another attempt
        // gets the same one (a loop retried with backoff took minutes to fail).
        let response = request.send().map_err(|e| {
            if e.is_redirect() {
                Failure::Fatal(Error::Http {
                    url: url.to_string(),
                    message: describe(&e),
                })
            } else if is_refused(&e) {
                Failure::Refused {
                    message: describe(&e),
                    hint: "connection refused, nothing listens there; is --mirror right, and \
                           the mirror up?",
                }
            } else if is_unresolved(&e) {
                Failure::Refused {
                    message: describe(&e),
                    hint: "the host's name does not resolve; is this machine online, and \
                           --mirror right?",
                }
            } else {
                retry(describe(&e))
            }
        })?;
        let status = response.status();
        self.reached
            .store(true, std::sync::atomic::Ordering::Relaxed);
        if status.is_success() || status == StatusCode::RANGE_NOT_SATISFIABLE {
            return Ok(response);
        }
        if matches!(status.as_u16(), 404 | 410) {
            return Err(Failure::Fatal(Error::NotFound {
                url: url.to_string(),
            }));
        }
        if matches!(status.as_u16(), 408 | 429) || status.is_server_error() {
            return Err(Failure::Retry {
                message: format!("HTTP {status}"),
                retry_after: retry_after(&response),
                progressed: false,
            });
        }
        Err(Failure::Fatal(Error::Http {
            url: url.to_string(),
            message: format!("HTTP {status}"),
        }))
    }

    /// A small text (a status file, a checksum list, an index page), at most `cap` bytes.
    pub fn get_text(&self, url: &str, cap: u64, observer: &dyn Observer) -> Result<String> {
        self.retrying(url, observer, || {
            let response = self.get(url, 0)?;
            if response.status() != StatusCode::OK {
                return Err(Failure::Fatal(Error::Http {
                    url: url.to_string(),
                    message: format!("HTTP {} for a plain GET", response.status()),
                }));
            }
            let mut body = Vec::new();
            let mut pace = Pace::new(&self.options);
            let mut buf = vec![0u8; 64 * 1024];
            let mut limited = response.take(cap + 1);
            loop {
                let n = match limited.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(retry(format!("reading the answer: {}", describe(&e)))),
                };
                body.extend_from_slice(&buf[..n]);
                if let Some(slow) = pace.arrived(n) {
                    return Err(retry(format!("{slow} at byte {}", body.len())));
                }
            }
            if body.len() as u64 > cap {
                return Err(Failure::Fatal(Error::Http {
                    url: url.to_string(),
                    message: format!("the answer is larger than {cap} bytes: not what was asked"),
                }));
            }
            String::from_utf8(body).map_err(|_| {
                Failure::Fatal(Error::Http {
                    url: url.to_string(),
                    message: "the answer is not UTF-8 text".into(),
                })
            })
        })
    }

    /// Downloads `url` to `dest` through `dest.part`: resumes what a `.part` already holds,
    /// checks the whole file's SHA-1 against `sha1`, then renames it to `dest`. On a mismatch
    /// the file is moved to `dest.bad` and the error names both sums.
    pub fn fetch_file(
        &self,
        url: &str,
        dest: &Path,
        sha1: &str,
        size: Option<u64>,
        observer: &dyn Observer,
    ) -> Result<Fetched> {
        let name = file_name(dest);
        let part_path = with_suffix(dest, ".part");
        let mut part = Part::open(&part_path, &name, size, observer)?;
        let activity = if part.len > 0 {
            Activity::Resume
        } else {
            Activity::Download
        };
        observer.file_start(&name, activity, size, part.len);
        // A `.part` as long as the published size needs no request, only its check.
        if size != Some(part.len) {
            let deadline = Instant::now() + self.options.file_deadline;
            self.retrying(url, observer, || {
                self.attempt(url, &mut part, size, deadline, observer)
            })?;
        }
        let (received, resumed_from) = (part.received, part.kept);
        part.finish(dest, sha1, observer)?;
        Ok(Fetched {
            resumed_from,
            received,
        })
    }

    /// One GET of the rest of the file, appended to the `.part`.
    fn attempt(
        &self,
        url: &str,
        part: &mut Part,
        size: Option<u64>,
        deadline: Instant,
        observer: &dyn Observer,
    ) -> std::result::Result<(), Failure> {
        let before = part.len;
        let cap = size.unwrap_or(self.options.max_unpublished_bytes);
        let past_deadline = |len: u64| {
            Failure::Fatal(Error::Http {
                url: url.to_string(),
                message: format!(
                    "not complete after {} s (at byte {len}); what arrived is kept in the .part \
                     and the next run resumes it",
                    self.options.file_deadline.as_secs()
                ),
            })
        };
        if Instant::now() > deadline {
            return Err(past_deadline(part.len));
        }
        let mut response = self.get(url, part.len)?;
        match response.status() {
            StatusCode::PARTIAL_CONTENT => {
                let start = content_range(&response).map(|(start, _)| start);
                if start != Some(part.len) {
                    part.restart(observer)?;
                    return Err(retry(format!(
                        "asked for bytes from {before}, the server sent a range starting at {}; \
                         starting over",
                        start.map_or("an unknown byte".to_string(), |s| s.to_string())
                    )));
                }
            }
            StatusCode::RANGE_NOT_SATISFIABLE => {
                // Nothing after our last byte: whole if the server's length is ours, else the
                // `.part` is not a prefix of this file.
                let total = content_range(&response).and_then(|(_, total)| total);
                if total == Some(part.len) || (total.is_none() && size == Some(part.len)) {
                    return Ok(());
                }
                part.restart(observer)?;
                return Err(retry(format!(
                    "the server has no bytes from {before} on (HTTP 416); starting over"
                )));
            }
            StatusCode::OK if part.len > 0 => {
                // The server ignored `Range` and sends the whole file: take it from the start.
                observer.note(&format!(
                    "{url}: the server ignored the range request; downloading from the start"
                ));
                part.restart(observer)?;
            }
            StatusCode::OK => {}
            other => {
                return Err(Failure::Fatal(Error::Http {
                    url: url.to_string(),
                    message: format!("unexpected HTTP {other}"),
                }));
            }
        }
        let mut buf = vec![0u8; 256 * 1024];
        let mut pace = Pace::new(&self.options);
        loop {
            let n = match response.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Failure::Retry {
                        message: format!(
                            "connection lost after byte {}: {}",
                            part.len,
                            describe(&e)
                        ),
                        retry_after: None,
                        progressed: part.len > before,
                    });
                }
            };
            if part.len + n as u64 > cap {
                let published = if size.is_some() {
                    "the size dumpstatus.json publishes"
                } else {
                    "the cap for a file of no published size"
                };
                return Err(Failure::Fatal(Error::Http {
                    url: url.to_string(),
                    message: format!(
                        "the mirror sends more than {cap} bytes, {published}; stopped at byte {}",
                        part.len
                    ),
                }));
            }
            part.write(&buf[..n])?;
            observer.bytes(n as u64);
            if Instant::now() > deadline {
                return Err(past_deadline(part.len));
            }
            if let Some(slow) = pace.arrived(n) {
                return Err(Failure::Retry {
                    message: format!("{slow} at byte {}; resuming on a new connection", part.len),
                    retry_after: None,
                    progressed: false,
                });
            }
        }
        if let Some(size) = size
            && part.len < size
        {
            return Err(Failure::Retry {
                message: format!("the answer ended at byte {} of {size}", part.len),
                retry_after: None,
                progressed: part.len > before,
            });
        }
        Ok(())
    }
}

/// The low-speed check of one response body: at least [`Options::speed_limit`] bytes per
/// second, averaged over each stretch of [`Options::speed_time`] (a stretch ends at the first
/// read past it, so a read blocked up to [`Options::timeout`] counts whole).
struct Pace {
    limit: u64,
    window: Duration,
    start: Instant,
    bytes: u64,
}

impl Pace {
    fn new(options: &Options) -> Pace {
        Pace {
            limit: options.speed_limit,
            window: options.speed_time,
            start: Instant::now(),
            bytes: 0,
        }
    }

    /// Counts `n` more bytes; once a stretch has passed below the limit, says so.
    fn arrived(&mut self, n: usize) -> Option<String> {
        if self.limit == 0 {
            return None;
        }
        self.bytes += n as u64;
        let elapsed = self.start.elapsed();
        if elapsed < self.window {
            return None;
        }
        if (self.bytes as f64) < self.limit as f64 * elapsed.as_secs_f64() {
            return Some(format!(
                "{} bytes in {:.1} s, slower than {} bytes/s (--speed-limit, --speed-time)",
                self.bytes,
                elapsed.as_secs_f64(),
                self.limit
            ));
        }
        self.start = Instant::now();
        self.bytes = 0;
        None
    }
}

/// `NAME.part` being written, and the SHA-1 of what it holds so far.
struct Part {
    path: PathBuf,
    file: File,
    hasher: Sha1,
    len: u64,
    /// Bytes written by this process (received over the network).
    received: u64,
    /// Bytes of an earlier run still at the start of the file: 0 once it starts over (a
    /// server that ignored `Range` was reported as "resumed at" what it sent again).
    kept: u64,
}

impl Part {
    /// Opens (or creates) the `.part` and hashes what it already holds: the one time a
    /// resumed file's bytes are read back, since a SHA-1 state is not kept across runs. A
    /// `.part` longer than the published size cannot be a prefix and is emptied.
    fn open(path: &Path, name: &str, size: Option<u64>, observer: &dyn Observer) -> Result<Part> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let mut part = Part {
            path: path.to_path_buf(),
            file,
            hasher: Sha1::new(),
            len: 0,
            received: 0,
            kept: 0,
        };
        if size.is_some_and(|s| len > s) {
            observer.note(&format!(
                "{}: longer than the published size; starting over",
                path.display()
            ));
            part.truncate()?;
        } else if len > 0 {
            observer.file_start(name, Activity::Hash, Some(len), 0);
            part.hasher = hash_reader(&mut part.file, path, observer)?;
            part.len = len;
            part.kept = len;
            observer.file_end(name);
        }
        part.file
            .seek(SeekFrom::Start(part.len))
            .map_err(|e| Error::io(path, e))?;
        Ok(part)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::write(&self.path, e))?;
        self.hasher.update(bytes);
        self.len += bytes.len() as u64;
        self.received += bytes.len() as u64;
        Ok(())
    }

    fn truncate(&mut self) -> Result<()> {
        self.file
            .set_len(0)
            .and_then(|_| self.file.seek(SeekFrom::Start(0)))
            .map_err(|e| Error::io(&self.path, e))?;
        self.hasher = Sha1::new();
        self.len = 0;
        self.kept = 0;
        Ok(())
    }

    /// Empties the file to take it again from byte 0, and says so.
    fn restart(&mut self, observer: &dyn Observer) -> Result<()> {
        self.truncate()?;
        observer.restart();
        Ok(())
    }

    /// Checks the SHA-1 of what was streamed, then of the file on disk, once it is synced:
    /// renames to `dest` if both are `expected`, to `dest.bad` if not. The second read costs a
    /// pass over the file, and is what makes `VERIFIED` a statement about the bytes the
    /// pipeline will read, whatever else touched the file meanwhile.
    fn finish(self, dest: &Path, expected: &str, observer: &dyn Observer) -> Result<()> {
        let streamed = hex(&self.hasher.finalize());
        // On disk before it is hashed and gets its final name: a crash never leaves a
        // final-name file whose bytes the system had not written yet.
        let synced = self.file.sync_all();
        drop(self.file);
        synced.map_err(|e| Error::write(&self.path, e))?;
        let got = if streamed.eq_ignore_ascii_case(expected) {
            let name = file_name(dest);
            observer.file_start(&name, Activity::Hash, Some(self.len), 0);
            let on_disk = hash_file(&self.path, observer);
            observer.file_end(&name);
            on_disk?
        } else {
            streamed
        };
        if !got.eq_ignore_ascii_case(expected) {
            let bad = with_suffix(dest, ".bad");
            std::fs::rename(&self.path, &bad).map_err(|e| Error::io(&bad, e))?;
            return Err(Error::Checksum {
                file: dest.to_path_buf(),
                expected: expected.to_string(),
                got,
                kept: bad,
            });
        }
        std::fs::rename(&self.path, dest).map_err(|e| Error::io(dest, e))
    }
}

/// The SHA-1 of a file's bytes, reported to `observer` as they are read.
pub(crate) fn hash_file(path: &Path, observer: &dyn Observer) -> Result<String> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(hex(&hash_reader(&mut file, path, observer)?.finalize()))
}

fn hash_reader(file: &mut File, path: &Path, observer: &dyn Observer) -> Result<Sha1> {
    let mut hasher = Sha1::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => return Ok(hasher),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        hasher.update(&buf[..n]);
        observer.bytes(n as u64);
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `PATH` + `suffix` (`x.sql.gz` → `x.sql.gz.part`).
pub(crate) fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// `base * 2^n`, saturating.
fn backoff(base: Duration, n: u32) -> Duration {
    base.saturating_mul(1u32.checked_shl(n.min(20)).unwrap_or(u32::MAX))
}

/// `Retry-After` in seconds. The HTTP-date form is not read (the dumps site sends seconds);
/// it falls back to the backoff.
fn retry_after(response: &Response) -> Option<u64> {
    let v = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    v.trim().parse().ok()
}

/// `Content-Range: bytes START-END/TOTAL` (or `bytes */TOTAL`) as `(START, TOTAL)`; a `*`
/// start is `u64::MAX`, an unknown total `None`.
fn content_range(response: &Response) -> Option<(u64, Option<u64>)> {
    parse_content_range(response.headers().get(CONTENT_RANGE)?.to_str().ok()?)
}

fn parse_content_range(v: &str) -> Option<(u64, Option<u64>)> {
    let (range, total) = v.trim().strip_prefix("bytes ")?.split_once('/')?;
    let start = if range == "*" {
        u64::MAX
    } else {
        range.split_once('-')?.0.trim().parse().ok()?
    };
    Some((start, total.trim().parse().ok()))
}

/// Whether a connection was refused (somewhere in the error's causes).
fn is_refused(e: &(dyn std::error::Error + 'static)) -> bool {
    any_cause(e, |c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::ConnectionRefused)
    })
}

/// Whether the request failed resolving the host's name (hyper's connector says `dns error`;
/// getaddrinfo, "failed to lookup address information").
fn is_unresolved(e: &(dyn std::error::Error + 'static)) -> bool {
    any_cause(e, |c| {
        let said = c.to_string();
        said.starts_with("dns error") || said.contains("failed to lookup address")
    })
}

/// Whether `e` or an error under it (its `source`s) is one `is` knows.
fn any_cause(
    e: &(dyn std::error::Error + 'static),
    is: impl Fn(&(dyn std::error::Error + 'static)) -> bool,
) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if is(c) {
            return true;
        }
        cause = c.source();
    }
    false
}

/// An error with its causes (reqwest's own message is often just "error sending request").
fn describe(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        s.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two writers on one `.part` (issue 22, item 5): the stream this process received hashed
    /// right, but another process truncated the file and wrote its own bytes. The file on disk
    /// is what counts: it is kept aside as `.bad`, never renamed to its final name.
    #[test]
    fn the_sha1_is_taken_over_the_file_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("x.sql.gz");
        let body = b"the bytes the mirror published";
        let expected = hex(&Sha1::digest(body));
        let part_path = with_suffix(&dest, ".part");
        let mut part = Part::open(&part_path, "x.sql.gz", None, &crate::Quiet).unwrap();
        part.write(body).unwrap();
        // Another writer empties the shared `.part` and writes a shorter file.
        std::fs::write(&part_path, b"someone else's").unwrap();
        let err = part.finish(&dest, &expected, &crate::Quiet).unwrap_err();
        let Error::Checksum { got, kept, .. } = err else {
            panic!("{err}")
        };
        assert_eq!(got, hex(&Sha1::digest(b"someone else's")));
        assert!(kept.is_file() && !dest.exists() && !part_path.exists());

        // Untouched, the same bytes pass both checks and get their final name.
        let mut part = Part::open(&part_path, "x.sql.gz", None, &crate::Quiet).unwrap();
        part.write(body).unwrap();
        part.finish(&dest, &expected, &crate::Quiet).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), body);
    }

    /// Before the mirror has answered, a refused connection (or a name that does not resolve)
    /// is given up after one more attempt; once it has answered, it is a passing failure (a
    /// network back after a laptop's sleep) with the backoff's attempts.
    #[test]
    fn an_unreachable_mirror_is_given_up_at_once_only_before_it_answered() {
        let options = Options {
            backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
            ..Options::default()
        };
        let http = Http::new(options).unwrap();
        let refused_then_ok = |n: u32| {
            let mut calls = 0;
            move || {
                calls += 1;
                if calls <= n {
                    Err(Failure::Refused {
                        message: "connect".into(),
                        hint: "no network",
                    })
                } else {
                    Ok(calls)
                }
            }
        };
        let err = http
            .retrying("u", &crate::Quiet, refused_then_ok(3))
            .unwrap_err();
        assert!(
            matches!(&err, Error::GaveUp { attempts: 2, message, .. } if message.ends_with("no network")),
            "{err:?}"
        );
        // A mirror that answers once, then closes its port.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/x", listener.local_addr().unwrap());
        let mirror = std::thread::spawn(move || {
            use std::io::{Read, Write};
            let (mut s, _) = listener.accept().unwrap();
            let _ = s.read(&mut [0u8; 4096]);
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                .unwrap();
        });
        assert!(http.get(&url, 0).is_ok());
        mirror.join().unwrap();
        let err = http
            .retrying(&url, &crate::Quiet, || http.get(&url, 0).map(|_| ()))
            .unwrap_err();
        assert!(
            matches!(err, Error::GaveUp { attempts, .. } if attempts == Options::default().max_attempts),
            "{err:?}"
        );
        assert_eq!(
            http.retrying("u", &crate::Quiet, refused_then_ok(3))
                .unwrap(),
            4
        );
    }

    #[test]
    fn backoff_doubles_and_saturates() {
        let b = Duration::from_millis(100);
        assert_eq!(backoff(b, 0), b);
        assert_eq!(backoff(b, 3), Duration::from_millis(800));
        assert!(backoff(b, 500) >= Duration::from_secs(100_000));
    }

    #[test]
    fn content_range_forms() {
        assert_eq!(
            parse_content_range("bytes 100-199/200"),
            Some((100, Some(200)))
        );
        assert_eq!(parse_content_range("bytes 0-9/*"), Some((0, None)));
        assert_eq!(
            parse_content_range("bytes */1234"),
            Some((u64::MAX, Some(1234)))
        );
        assert_eq!(parse_content_range("items 1-2/3"), None);
        assert_eq!(parse_content_range("bytes x-1/2"), None);
    }

    #[test]
    fn a_full_disk_is_named_as_such() {
        // /dev/full answers every write with ENOSPC.
        let Ok(mut f) = OpenOptions::new().write(true).open("/dev/full") else {
            return;
        };
        let e = f
            .write_all(&[0u8; 4096])
            .and_then(|_| f.flush())
            .unwrap_err();
        let err = Error::write(Path::new("dumps/x/y.sql.gz.part"), e);
        assert!(matches!(err, Error::DiskFull { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains("disk is full"), "{text}");
        assert!(text.contains("dumps/x/y.sql.gz.part"), "{text}");
    }

    #[test]
    fn suffixes_are_appended() {
        assert_eq!(
            with_suffix(Path::new("d/a.sql.gz"), ".part"),
            PathBuf::from("d/a.sql.gz.part")
        );
    }
}
