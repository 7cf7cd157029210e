//! `clue-db download`: fetch one dated run of one wiki from the Wikimedia dumps site (or a
//! mirror) and verify it, so that the pipeline never reads a half or corrupted dump.
//!
//! A run is seven files ([`run::FILES`]): the multistream article XML and its index, and the
//! `page`, `redirect`, `pagelinks`, `linktarget` and `page_props` tables. They land in
//! `DIR/WIKI/DATE/` under their dump names.
//!
//! The rules, in the order [`download`] applies them:
//! - `latest` is the newest run of the wiki's run listing (`MIRROR/WIKI/`) whose
//!   `dumpstatus.json` says every job producing a needed file is `done`; a given date whose
//!   jobs are not done is an error naming them.
//! - Each file is checked against the run's `WIKI-DATE-sha1sums.txt`, hashed while it streams.
//!   It is written to `NAME.part` and renamed to `NAME` only when its SHA-1 is the published
//!   one; on a mismatch it becomes `NAME.bad` and the download fails, naming both sums. A
//!   `.part` left by a cut connection, a crash or Ctrl-C is resumed with `Range`.
//! - One download writes a run folder at a time: it holds an exclusive lock on `DATE.lock`,
//!   beside the folder
//!   (released by the system when the process ends, however it ends), and a second download
//!   into the same folder fails at once, naming the lock. Two writers on one `.part` could each
//!   take the other's bytes for their own.
//! - A file's SHA-1 is taken again over its bytes *on disk* before it gets its final name: the
//!   stream's hash says what arrived, the file's what the pipeline will read.
//! - When all seven are verified, `VERIFIED` is written (temporary file, then rename): one line
//!   `SHA1  NAME` per file. A run folder without it is incomplete, and any change to the folder
//!   removes it first.
//! - Each file, once in place, is recorded with its SHA-1 in `CHECKED` (temporary file, then
//!   rename), which stays when `VERIFIED` goes; it leaves the record before the file may change.
//! - A checked file is never given up for a mirror's word: when the run's `sha1sums.txt` now
//!   publishes another SHA-1 for a file `VERIFIED` or `CHECKED` records (a bad sync, or a run
//!   re-published), the download stops before it touches the folder, naming each file and
//!   both sums; a verified run stays verified and usable, and a run stopped half-way keeps its
//!   files. Downloading them anew is the user's choice (another `--dir`, or the files deleted
//!   by hand). A file is moved to `NAME.bad` only when its bytes fail the SHA-1 it is to have.
//! - A re-run trusts, without reading it, a file that `VERIFIED` lists with the SHA-1 the run
//!   publishes and whose size on disk is the size `dumpstatus.json` publishes. A file under its
//!   final name that `VERIFIED` does not vouch for (an earlier run stopped before the last
//!   file) is hashed again, not downloaded again; if its SHA-1 is wrong it is moved to
//!   `NAME.bad` and downloaded.

pub mod fetch;
pub mod run;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use fetch::{
    DEFAULT_FILE_DEADLINE, DEFAULT_MAX_UNPUBLISHED_BYTES, DEFAULT_SPEED_LIMIT, DEFAULT_SPEED_TIME,
    DEFAULT_USER_AGENT, Options,
};
pub use run::{CHECKED, DateSpec, FILES, VERIFIED};

use fetch::{Http, hash_file, with_suffix};
use run::{DumpStatus, Needed};

/// The dumps site of the Wikimedia Foundation.
pub const DEFAULT_MIRROR: &str = "https://dumps.wikimedia.org";

/// Runs of a listing whose status is read before `latest` gives up: the newest few are the
/// candidates, and a listing of thousands must not make thousands of requests.
pub const MAX_RUNS_TRIED: usize = 10;

/// Largest `dumpstatus.json`, run listing or `sha1sums.txt` read (enwiki's status is ~100 KB).
const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Largest `VERIFIED` or `CHECKED` read: seven lines of ~100 bytes are what this crate writes.
const MAX_RECORD_BYTES: u64 = 1 << 20;

/// Everything that can go wrong, each naming the URL or file concerned.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{url}: not found (HTTP 404): no such wiki, run or file on this mirror")]
    NotFound { url: String },
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    #[error("{url}: gave up after {attempts} attempts: {message}")]
    GaveUp {
        url: String,
        attempts: u32,
        message: String,
    },
    #[error("{url}: {message}")]
    BadAnswer { url: String, message: String },
    #[error("the {wiki} run {date} is not finished: {} not done ({url})", jobs.join(", "))]
    NotDone {
        wiki: String,
        date: String,
        url: String,
        jobs: Vec<String>,
    },
    #[error("no finished run of {wiki} at {url}: {}", tried.join("; "))]
    NoFinishedRun {
        wiki: String,
        url: String,
        tried: Vec<String>,
    },
    #[error("{url} has no SHA-1 for {name}: cannot verify it")]
    NoChecksum { url: String, name: String },
    #[error(
        "{}: SHA-1 mismatch: expected {expected}, got {got}; the file is kept aside as {} and \
         not used (run again to download it anew)",
        file.display(),
        kept.display()
    )]
    Checksum {
        file: PathBuf,
        expected: String,
        got: String,
        kept: PathBuf,
    },
    #[error(
        "{}: the disk is full; free some space and run again (the partial file stays and is resumed)",
        path.display()
    )]
    DiskFull { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{}: another download is writing this run folder (it holds this lock); wait for it to \
         finish or stop it, then run again",
        lock.display()
    )]
    Busy { lock: PathBuf },
    #[error(
        "{url} now publishes other SHA-1s than the files already verified in {} have: {}; the \
         files are kept as they are, and a verified run stays verified and in use. If the mirror \
         re-published this run on purpose, download it into another --dir, or delete these files \
         to download them anew",
        run_dir.display(),
        files.iter().map(|(n, had, now)| format!("{n} (verified {had}, published {now})")).collect::<Vec<_>>().join(", ")
    )]
    Conflict {
        url: String,
        run_dir: PathBuf,
        /// Name, the verified SHA-1, the one published now.
        files: Vec<(String, String, String)>,
    },
    #[error("{0}")]
    Config(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// An error while writing `path`: a full disk (or quota) is told apart from the rest.
    fn write(path: &Path, source: std::io::Error) -> Error {
        use std::io::ErrorKind;
        if matches!(
            source.kind(),
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded
        ) {
            Error::DiskFull {
                path: path.to_path_buf(),
            }
        } else {
            Error::io(path, source)
        }
    }
}

/// What bytes are being counted in a [`Observer::file_start`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// A new download.
    Download,
    /// A download going on from a `.part`.
    Resume,
    /// Reading a file on disk to compute its SHA-1.
    Hash,
}

/// What [`download`] reports while it works, for a progress display. Every method does
/// nothing by default; [`Quiet`] is that.
pub trait Observer {
    /// The run is chosen (`latest` resolved, or the given date found finished); `skipped`
    /// are the newer runs passed over, with why.
    fn run_chosen(&self, _wiki: &str, _date: &str, _skipped: &[String]) {}
    /// Bytes of `name` are about to be counted: `done` of `total` (when known) already are.
    fn file_start(&self, _name: &str, _activity: Activity, _total: Option<u64>, _done: u64) {}
    /// `n` more bytes were received or hashed.
    fn bytes(&self, _n: u64) {}
    /// The file's counting is over (successfully or not).
    fn file_end(&self, _name: &str) {}
    /// The bytes counted so far for this file were thrown away: it starts again from 0.
    fn restart(&self) {}
    /// The file is in place and verified.
    fn file_done(&self, _report: &FileReport) {}
    /// An attempt on `url` failed; the next comes after `wait`.
    fn retry(&self, _url: &str, _reason: &str, _wait: Duration, _failures: u32) {}
    /// Anything else worth a line.
    fn note(&self, _message: &str) {}
}

/// An [`Observer`] that shows nothing.
pub struct Quiet;
impl Observer for Quiet {}

/// One run to fetch.
#[derive(Debug, Clone)]
pub struct Request {
    /// The wiki's database name: `enwiki`, `simplewiki`, `dewiki`…
    pub wiki: String,
    pub date: DateSpec,
    /// The dumps folder; the run goes to `dir/WIKI/DATE/`.
    pub dir: PathBuf,
    /// The site root, `https://dumps.wikimedia.org` or a mirror's.
    pub mirror: String,
}

/// How a file came to be in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// `VERIFIED` vouched for it and its size matched: not read.
    Trusted,
    /// It was there under its final name and its SHA-1 was computed again.
    Rehashed,
    /// Downloaded, `resumed_from` bytes of it from an earlier `.part`.
    Downloaded { resumed_from: u64, received: u64 },
}

/// One verified file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    pub name: String,
    pub size: u64,
    pub sha1: String,
    pub how: How,
    /// Time spent on it (download or hashing).
    pub elapsed: Duration,
}

/// A verified run.
#[derive(Debug, Clone)]
pub struct Downloaded {
    pub wiki: String,
    pub date: String,
    /// `dir/WIKI/DATE`, holding the seven files and `VERIFIED`.
    pub run_dir: PathBuf,
    pub files: Vec<FileReport>,
}

/// Fetches and verifies one run (see the crate's documentation for the rules).
pub fn download(req: &Request, options: &Options, observer: &dyn Observer) -> Result<Downloaded> {
    run::check_wiki(&req.wiki).map_err(|m| Error::Config(format!("--wiki {:?}: {m}", req.wiki)))?;
    let mirror = check_mirror(&req.mirror)?;
    let http = Http::new(options.clone())?;
    let site = Site {
        http: &http,
        mirror: &mirror,
        wiki: &req.wiki,
        observer,
    };
    let (date, needed) = match &req.date {
        DateSpec::Latest => site.latest()?,
        DateSpec::Date(date) => {
            let status = site.status(date)?;
            let needed = status
                .needed(&req.wiki, date)
                .map_err(|jobs| Error::NotDone {
                    wiki: req.wiki.clone(),
                    date: date.clone(),
                    url: site.run_url(date, "dumpstatus.json"),
                    jobs,
                })?;
            observer.run_chosen(&req.wiki, date, &[]);
            (date.clone(), needed)
        }
    };
    let sums_url = site.run_url(&date, &run::sha1sums_name(&req.wiki, &date));
    let sums = run::parse_sha1sums(&http.get_text(&sums_url, MAX_TEXT_BYTES, observer)?);
    let run_dir = req.dir.join(&req.wiki).join(&date);
    std::fs::create_dir_all(&run_dir).map_err(|e| Error::write(&run_dir, e))?;
    let _lock = lock_run(&run_dir)?;
    let verified_path = run_dir.join(VERIFIED);
    let verified = read_record(&verified_path)?;
    // What each file under its final name was checked against: `CHECKED`, and `VERIFIED` over
    // it (both are written by this crate, `VERIFIED` last).
    let checked_path = run_dir.join(CHECKED);
    let mut checked = read_record(&checked_path)?;
    checked.extend(verified.iter().map(|(n, s)| (n.clone(), s.clone())));

    // A checked file the mirror now publishes another SHA-1 for: stop before touching anything.
    let conflicts: Vec<(String, String, String)> = needed
        .iter()
        .filter_map(|n| {
            let had = checked.get(&n.name)?;
            let now = sums.get(&n.name)?;
            (!had.eq_ignore_ascii_case(now) && run_dir.join(&n.name).is_file())
                .then(|| (n.name.clone(), had.clone(), now.clone()))
        })
        .collect();
    if !conflicts.is_empty() {
        return Err(Error::Conflict {
            url: sums_url,
            run_dir,
            files: conflicts,
        });
    }
    // Which files `VERIFIED` vouches for; anything else changes the folder, which is then no
    // longer a verified run until this one finishes.
    let mut plan = Vec::new();
    for n in needed {
        let sha1 = sums.get(&n.name).ok_or_else(|| Error::NoChecksum {
            url: sums_url.clone(),
            name: n.name.clone(),
        })?;
        let dest = run_dir.join(&n.name);
        let trusted = trusted(&dest, &n, sha1, &verified);
        plan.push((n, sha1.clone(), dest, trusted));
    }
    if plan.iter().any(|p| !p.3) {
        // `VERIFIED` goes, but what it vouched for stays on record first.
        checked.retain(|name, _| run_dir.join(name).is_file());
        write_record(&checked_path, &checked)?;
        match std::fs::remove_file(&verified_path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&verified_path, e)),
        }
    }

    let mut files = Vec::new();
    for (n, sha1, dest, trusted) in plan {
        let start = Instant::now();
        let how = if trusted {
            How::Trusted
        } else {
            // Off the record before the file may change (moved aside, replaced), on it again
            // once it is in place: a crash between the two leaves a file unrecorded, which is
            // checked against the published SHA-1 as before, never a record that no longer
            // describes its file (a conflict where there is none).
            if checked.remove(&n.name).is_some() {
                write_record(&checked_path, &checked)?;
            }
            let how = site.place(&n, &sha1, &dest, &date)?;
            checked.insert(n.name.clone(), sha1.clone());
            write_record(&checked_path, &checked)?;
            how
        };
        let size = std::fs::metadata(&dest)
            .map_err(|e| Error::io(&dest, e))?
            .len();
        let report = FileReport {
            name: n.name,
            size,
            sha1,
            how,
            elapsed: start.elapsed(),
        };
        observer.file_done(&report);
        files.push(report);
    }
    let lines: Vec<(String, String)> = files
        .iter()
        .map(|f| (f.name.clone(), f.sha1.clone()))
        .collect();
    write_atomically(&verified_path, run::format_verified(&lines).as_bytes())?;
    Ok(Downloaded {
        wiki: req.wiki.clone(),
        date,
        run_dir,
        files,
    })
}

/// A `VERIFIED` or `CHECKED` record as a map from name to SHA-1; none when the file is absent.
fn read_record(path: &Path) -> Result<BTreeMap<String, String>> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut text = String::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::io(path, e))?;
    if text.len() as u64 > MAX_RECORD_BYTES {
        return Err(Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "larger than {MAX_RECORD_BYTES} bytes: not a record this command writes \
                     (move it away and run again)"
                ),
            ),
        ));
    }
    Ok(run::parse_sha1sums(&text))
}

/// Writes a `CHECKED` record (in file-name order) through a temporary file and a rename.
fn write_record(path: &Path, record: &BTreeMap<String, String>) -> Result<()> {
    let lines: Vec<(String, String)> = record.iter().map(|(n, s)| (n.clone(), s.clone())).collect();
    write_atomically(path, run::format_verified(&lines).as_bytes())
}

/// Takes the run folder's exclusive lock (`DIR/WIKI/DATE.lock`, beside the folder, so that the
/// folder holds the run's files and nothing else), held until the returned file is dropped or
/// the process ends; [`Error::Busy`] at once if another process holds it. The file stays: a
/// lock file removed while held could be locked twice.
fn lock_run(run_dir: &Path) -> Result<std::fs::File> {
    let path = with_suffix(run_dir, ".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::write(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::Busy { lock: path }),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
    }
}

/// Whether `VERIFIED` lists `dest` with the published SHA-1 and its size on disk is the
/// published one (or none is published): such a file is not read again.
fn trusted(dest: &Path, needed: &Needed, sha1: &str, verified: &BTreeMap<String, String>) -> bool {
    let Some(recorded) = verified.get(&needed.name) else {
        return false;
    };
    let Ok(meta) = std::fs::metadata(dest) else {
        return false;
    };
    meta.is_file()
        && recorded.eq_ignore_ascii_case(sha1)
        && needed.size.is_none_or(|s| s == meta.len())
}

/// A mirror URL: `http://` or `https://`, no trailing `/`.
fn check_mirror(mirror: &str) -> Result<String> {
    let url = reqwest::Url::parse(mirror)
        .map_err(|e| Error::Config(format!("--mirror {mirror:?}: not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::Config(format!(
            "--mirror {mirror:?}: give an http:// or https:// URL"
        )));
    }
    Ok(mirror.trim_end_matches('/').to_string())
}

/// Writes `path` through `path.tmp` and a rename, so that a reader sees the old file or the
/// whole new one.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let mut f = std::fs::File::create(&tmp).map_err(|e| Error::write(&tmp, e))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| Error::write(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// One wiki on one mirror.
struct Site<'a> {
    http: &'a Http,
    mirror: &'a str,
    wiki: &'a str,
    observer: &'a dyn Observer,
}

impl Site<'_> {
    /// `MIRROR/WIKI/DATE/NAME`.
    fn run_url(&self, date: &str, name: &str) -> String {
        format!("{}/{}/{date}/{name}", self.mirror, self.wiki)
    }

    fn status(&self, date: &str) -> Result<DumpStatus> {
        let url = self.run_url(date, "dumpstatus.json");
        let text = self.http.get_text(&url, MAX_TEXT_BYTES, self.observer)?;
        DumpStatus::parse(&text).map_err(|message| Error::BadAnswer { url, message })
    }

    /// The newest run whose needed jobs are all done, and its files.
    fn latest(&self) -> Result<(String, Vec<Needed>)> {
        let url = format!("{}/{}/", self.mirror, self.wiki);
        let dates = run::parse_listing(&self.http.get_text(&url, MAX_TEXT_BYTES, self.observer)?);
        if dates.is_empty() {
            return Err(Error::BadAnswer {
                url,
                message: "no run folders (YYYYMMDD/) in this listing".into(),
            });
        }
        let mut tried = Vec::new();
        let listed = dates.len();
        for date in dates.into_iter().take(MAX_RUNS_TRIED) {
            let status = match self.status(&date) {
                Ok(s) => s,
                Err(Error::NotFound { .. }) => {
                    tried.push(format!("{date}: no dumpstatus.json"));
                    continue;
                }
                Err(Error::BadAnswer { message, .. }) => {
                    tried.push(format!("{date}: {message}"));
                    continue;
                }
                Err(e) => return Err(e),
            };
            match status.needed(self.wiki, &date) {
                Ok(needed) => {
                    self.observer.run_chosen(self.wiki, &date, &tried);
                    return Ok((date, needed));
                }
                Err(jobs) => tried.push(format!("{date}: {} not done", jobs.join(", "))),
            }
        }
        if listed > MAX_RUNS_TRIED {
            tried.push(format!(
                "{} older runs not tried (at most {MAX_RUNS_TRIED}; give --date)",
                listed - MAX_RUNS_TRIED
            ));
        }
        Err(Error::NoFinishedRun {
            wiki: self.wiki.to_string(),
            url,
            tried,
        })
    }

    /// Puts a file the record does not vouch for in place: checks a final-name file already
    /// there, else downloads.
    fn place(&self, n: &Needed, sha1: &str, dest: &Path, date: &str) -> Result<How> {
        if dest.exists() {
            self.observer.file_start(&n.name, Activity::Hash, n.size, 0);
            let got = hash_file(dest, self.observer);
            self.observer.file_end(&n.name);
            let got = got?;
            if got.eq_ignore_ascii_case(sha1) {
                return Ok(How::Rehashed);
            }
            let bad = with_suffix(dest, ".bad");
            std::fs::rename(dest, &bad).map_err(|e| Error::io(&bad, e))?;
            self.observer.note(&format!(
                "{}: SHA-1 {got}, expected {sha1}; moved to {} and downloading it again",
                dest.display(),
                bad.display()
            ));
        }
        let url = self.run_url(date, &n.name);
        let fetched = self
            .http
            .fetch_file(&url, dest, sha1, n.size, self.observer);
        self.observer.file_end(&n.name);
        let fetched = fetched?;
        Ok(How::Downloaded {
            resumed_from: fetched.resumed_from,
            received: fetched.received,
        })
    }
}
