//! Helpers shared by the end-to-end tests: where things are, running `clue-db`, reading the
//! database it wrote.
//!
//! Each test binary includes this module and uses part of it, hence `dead_code` is allowed.
#![allow(dead_code)]

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root: the working folder of every command, so relative defaults
/// (`pipeline/`, `db/`) mean what they mean for a user.
pub fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Asks `poll` every 20 ms until it answers, for at most `limit`: the bound makes a hang fail
/// its test instead of blocking the suite (no test asserts on how long anything takes).
pub fn poll_bounded<T>(
    limit: std::time::Duration,
    mut poll: impl FnMut() -> Option<T>,
) -> Option<T> {
    let step = std::time::Duration::from_millis(20);
    let mut waited = std::time::Duration::ZERO;
    while waited < limit {
        if let Some(answer) = poll() {
            return Some(answer);
        }
        std::thread::sleep(step);
        waited += step;
    }
    None
}

/// The shared data folder (`../shared/data` beside the repository).
pub fn data() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"))
}

/// The repository's hand-kept pipeline inputs.
pub fn inputs() -> PathBuf {
    repo_root().join("pipeline")
}

/// The enwiki XML excerpt (206 pages, 100 redirects).
pub fn enwiki_sample() -> PathBuf {
    data()
        .join("enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
}

/// A file of the SQL fixtures.
pub fn sql_sample(name: &str) -> PathBuf {
    data().join("sql-sample").join(name)
}

/// The result of one run of the binary, with its output decoded for assertions.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// Panics with both streams unless the run succeeded.
    #[track_caller]
    pub fn ok(self) -> Run {
        assert!(
            self.success(),
            "clue-db failed ({:?})\nstdout:\n{}\nstderr:\n{}",
            self.code,
            self.stdout,
            self.stderr
        );
        self
    }

    /// Panics unless the run failed with a non-zero exit code (not a signal, not success).
    #[track_caller]
    pub fn failed(self) -> Run {
        assert!(
            matches!(self.code, Some(c) if c != 0),
            "clue-db should have failed, exit {:?}\nstdout:\n{}\nstderr:\n{}",
            self.code,
            self.stdout,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "clue-db panicked instead of reporting an error:\n{}",
            self.stderr
        );
        self
    }

    /// Parses stdout as one JSON value.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}):\n{}", self.stdout);
        })
    }
}

/// Runs `clue-db ARGS` from the repository root.
pub fn clue_db<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    clue_db_in(&repo_root(), args)
}

/// [`clue_db`] run from `dir`: as a user with the binary on their PATH runs it, away from the
/// repository's `pipeline/` and `../shared/`.
pub fn clue_db_in<I, S>(dir: &Path, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out: Output = Command::new(env!("CARGO_BIN_EXE_clue-db"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running clue-db");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `clue-db ARGS` as `clue-db ARGS | head -0` would: its standard output is a pipe whose
/// read end is closed before the process starts, so its first write fails (EPIPE).
pub fn clue_db_unread<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let (reader, writer) = std::io::pipe().expect("making a pipe");
    drop(reader);
    let out: Output = Command::new(env!("CARGO_BIN_EXE_clue-db"))
        .args(args)
        .current_dir(repo_root())
        .stdout(writer)
        .output()
        .expect("running clue-db");
    Run {
        code: out.status.code(),
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Opens a database read-only for inspection.
pub fn open(db: &Path) -> Connection {
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap_or_else(|e| panic!("opening {}: {e}", db.display()))
}

/// One integer from a query.
#[track_caller]
pub fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// One text column of a query's rows, in their order.
#[track_caller]
pub fn column(conn: &Connection, sql: &str) -> Vec<String> {
    let mut st = conn.prepare(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
    st.query_map([], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .map(|v| v.unwrap_or_else(|e| panic!("{sql}: {e}")))
        .collect()
}

/// One `meta` value.
#[track_caller]
pub fn meta(conn: &Connection, key: &str) -> Option<String> {
    use rusqlite::OptionalExtension;
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .optional()
        .unwrap_or_else(|e| panic!("meta {key}: {e}"))
}

/// The files in `dir` whose name holds `.tmp` (what a failed build must not leave behind).
pub fn tmp_leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("listing the test folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

/// Counts whole-word, case-insensitive occurrences of `word` in `text`.
pub fn word_count(text: &str, word: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.eq_ignore_ascii_case(word))
        .count()
}

/// Folder prefix of the pipeline databases built by the test binaries (see [`built_db_dir`]).
const BUILT_PREFIX: &str = "clue-db-e2e-";

/// A fresh folder for a database that lives as long as the test process: statics are never
/// dropped, so a `TempDir` in one would never be deleted. It is made in Cargo's per-target
/// scratch folder, named by process id, and folders of earlier runs whose process is gone are
/// removed first (on Linux, by looking for `/proc/PID`), so repeated runs do not pile up copies
/// of a 120 MB database while concurrent runs keep theirs.
pub fn built_db_dir(tag: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&root).expect("creating CARGO_TARGET_TMPDIR");
    if Path::new("/proc/self").exists() {
        for e in std::fs::read_dir(&root)
            .expect("listing CARGO_TARGET_TMPDIR")
            .flatten()
        {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix(BUILT_PREFIX) else {
                continue;
            };
            let pid = rest.split('-').next().unwrap_or("");
            if !pid.is_empty() && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let dir = root.join(format!("{BUILT_PREFIX}{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating the database folder");
    dir
}

/// A path as `&str`, for argument lists (the test paths are UTF-8).
pub fn utf8(p: &Path) -> &str {
    p.to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", p.display()))
}

/// Builds the Wikispeedia database with the repository's inputs (`clue-db pipeline all`) in
/// the test folder `name`, and returns its path.
#[allow(dead_code)]
pub fn wikispeedia_db(name: &str) -> PathBuf {
    wikispeedia_db_with(name, &[])
}

/// [`wikispeedia_db`] with more flags for `pipeline all` (`--keep-text`, `--keep-links`). The
/// card words are the 400 of `terms.txt`, which the tests of boards and terms are written for;
/// [`wikispeedia_db_as_make`] builds with the other editions' lists too.
#[allow(dead_code)]
pub fn wikispeedia_db_with(name: &str, flags: &[&str]) -> PathBuf {
    let terms = inputs().join("terms.txt");
    let mut all = vec!["--terms", utf8(&terms)];
    all.extend(flags);
    wikispeedia_db_flags(name, &all)
}

/// The Wikispeedia database with the card words `make pipeline` stores: `terms.txt` and the
/// lists of `../shared/data/word-lists/` (Codenames Duet, Deep Undercover).
#[allow(dead_code)]
pub fn wikispeedia_db_as_make(name: &str) -> PathBuf {
    wikispeedia_db_flags(name, &[])
}

fn wikispeedia_db_flags(name: &str, flags: &[&str]) -> PathBuf {
    let db = built_db_dir(name).join("clues.sqlite");
    let start = std::time::Instant::now();
    let (data, inputs) = (data(), inputs());
    let mut args = vec![
        "pipeline",
        "all",
        "--corpus",
        "wikispeedia",
        "--data",
        utf8(&data),
        "--inputs",
        utf8(&inputs),
        "--db",
        utf8(&db),
    ];
    args.extend(flags);
    clue_db(&args).ok();
    eprintln!(
        "built {} in {:.1} s",
        db.display(),
        start.elapsed().as_secs_f64()
    );
    db
}

/// The keys of `suggest --json` (and `/api/suggest`) in the contract's order, for an answer with
/// `alternatives` alternatives: the answer's, each alternative's, then `"warnings"`.
#[allow(dead_code)]
pub fn answer_keys(alternatives: usize) -> Vec<&'static str> {
    let mut order = vec![
        "clue",
        "count",
        "targets",
        "score",
        "strategy",
        "alternatives",
    ];
    for _ in 0..alternatives {
        order.extend(["clue", "count", "targets", "score"]);
    }
    order.push("warnings");
    order
}

/// The keys of every JSON object in `raw`, in the order the text gives them (a string
/// followed by `:` is a key).
#[allow(dead_code)]
pub fn keys_in_order(raw: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => s.extend(chars.next()),
                '"' => break,
                c => s.push(c),
            }
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek() == Some(&':') {
            keys.push(s);
        }
    }
    keys
}
