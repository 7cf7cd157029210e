//! A fake Wikimedia dumps site (`dumps.wikimedia.org`) on 127.0.0.1, for the tests of
//! `clue-db download`: one wiki with two runs, in the real site's layout.
//!
//! - `/WIKI/`: the HTML index of the run folders (`20240901/`, `20240920/`, `latest/`).
//! - `/WIKI/DATE/dumpstatus.json`: the jobs of the run, each with `status` and `files`
//!   (`size`, `url`, `sha1`, `md5`), as the real status file has them.
//! - `/WIKI/DATE/WIKI-DATE-sha1sums.txt`: `SHA1  NAME` for every finished file.
//! - `/WIKI/DATE/WIKI-DATE-SUFFIX`: the files, with `Range: bytes=N-` answered by 206 (or 416
//!   past the end).
//!
//! [`DONE_DATE`] is a finished run; [`UNFINISHED_DATE`], newer, is still running (the articles
//! and `pagelinks` jobs are not done and their files are absent), so `--date latest` must skip
//! it.
//!
//! The files are real data, built once per test process ([`files`]): the multistream dump and
//! its index from the XML of `enwiki-sample/` (100 pages per bz2 stream, as Wikimedia cuts
//! them, so `wiki::xml::read_multistream` reads it), the `page`, `pagelinks` and `linktarget`
//! tables of `sql-sample/` gzipped, and small `redirect` and `page_props` tables written here
//! in mysqldump's form, whose rows name pages of `test-20240901-page.sql` (two redirects, two
//! `disambiguation` properties). The two samples come from different wikis, so the tables do
//! not describe the XML's pages: the run is real in form, for fetching and reading each file,
//! not one consistent wiki.
//!
//! Faults ([`Fault`]) make the server cut a file short once, stall or trickle in it once,
//! corrupt it, 404 a path, answer 503 with `Retry-After` once, ignore `Range`, send a job status
//! of its choice (a terminal escape), publish a wrong SHA-1, send past a file's size, redirect,
//! or list runs by the dozen.

use std::collections::HashSet;
use std::io::{Read, Write};
use std::sync::{Mutex, OnceLock};

use crate::{Action, Request, Server, Then, serve};

/// The finished run.
pub const DONE_DATE: &str = "20240901";
/// The newest run, still running.
pub const UNFINISHED_DATE: &str = "20240920";

/// The seven files of a run, by the suffix after `WIKI-DATE-`, in the order they are listed.
pub const SUFFIXES: [&str; 7] = [
    "pages-articles-multistream.xml.bz2",
    "pages-articles-multistream-index.txt.bz2",
    "page.sql.gz",
    "redirect.sql.gz",
    "pagelinks.sql.gz",
    "linktarget.sql.gz",
    "page_props.sql.gz",
];

/// Pages per bz2 stream of the multistream dump (Wikimedia's choice).
const PAGES_PER_STREAM: usize = 100;

/// The shared data folder, beside the repository.
fn data(rel: &str) -> String {
    format!("{}/../../../shared/data/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// A file's name in a run: `WIKI-DATE-SUFFIX`.
pub fn file_name(wiki: &str, date: &str, suffix: &str) -> String {
    format!("{wiki}-{date}-{suffix}")
}

/// The lower-case hex SHA-1 of `bytes`, as `sha1sums.txt` writes it.
pub fn sha1_hex(bytes: &[u8]) -> String {
    use sha1::Digest;
    sha1::Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The bytes of the seven files, by suffix, in [`SUFFIXES`] order. Built once per process
/// (compressing 6 MB of XML takes a moment).
pub fn files() -> &'static [(&'static str, Vec<u8>)] {
    static FILES: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let (dump, index) = multistream();
        let read = |name: &str| {
            let path = data(&format!("sql-sample/{name}"));
            std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
        };
        vec![
            (SUFFIXES[0], dump),
            (SUFFIXES[1], bz2(index.as_bytes())),
            (SUFFIXES[2], gzip(&read("test-20240901-page.sql"))),
            (SUFFIXES[3], gzip(REDIRECT_SQL.as_bytes())),
            (SUFFIXES[4], gzip(&read("test-20240901-pagelinks.sql"))),
            (SUFFIXES[5], gzip(&read("test-20240901-linktarget.sql"))),
            (SUFFIXES[6], gzip(page_props_sql().as_bytes())),
        ]
    })
}

/// The bytes of one file, by suffix.
pub fn file(suffix: &str) -> &'static [u8] {
    files()
        .iter()
        .find(|(s, _)| *s == suffix)
        .map(|(_, b)| b.as_slice())
        .unwrap_or_else(|| panic!("no dump file {suffix}"))
}

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// `bytes` gzipped.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> &'a str {
    let a = s.find(open).unwrap() + open.len();
    let b = a + s[a..].find(close).unwrap();
    &s[a..b]
}

/// Titles stand XML-escaped in the dump and plain in the index.
fn unescape(title: &str) -> String {
    title
        .replace("&quot;", "\"")
        .replace("&#039;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A multistream dump of the enwiki sample and its index (`OFFSET:PAGEID:TITLE` lines): one
/// bz2 stream for `<mediawiki><siteinfo>`, one per [`PAGES_PER_STREAM`] pages, one for
/// `</mediawiki>`; the offsets are those of the page streams.
fn multistream() -> (Vec<u8>, String) {
    let path =
        data("enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2");
    let compressed = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut xml = String::new();
    bzip2::read::MultiBzDecoder::new(&compressed[..])
        .read_to_string(&mut xml)
        .unwrap();
    let starts: Vec<usize> = xml.match_indices("  <page>").map(|(i, _)| i).collect();
    let footer = xml.rfind("</mediawiki>").unwrap();
    let mut dump = bz2(&xml.as_bytes()[..starts[0]]);
    let mut index = String::new();
    for (g, group) in starts.chunks(PAGES_PER_STREAM).enumerate() {
        let offset = dump.len();
        let end = starts
            .get((g + 1) * PAGES_PER_STREAM)
            .copied()
            .unwrap_or(footer);
        for (k, &s) in group.iter().enumerate() {
            let page = &xml[s..group.get(k + 1).copied().unwrap_or(end)];
            let id = between(page, "<id>", "</id>");
            let title = unescape(between(page, "<title>", "</title>"));
            index.push_str(&format!("{offset}:{id}:{title}\n"));
        }
        dump.extend(bz2(&xml.as_bytes()[group[0]..end]));
    }
    dump.extend(bz2(&xml.as_bytes()[footer..]));
    (dump, index)
}

/// The `redirect` table in mysqldump's form: pages 20 and 21 of `test-20240901-page.sql`
/// (`page_is_redirect` = 1) and their targets.
const REDIRECT_SQL: &str = "-- MySQL dump 10.19  Distrib 10.5.23-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1166    Database: testwiki
-- ------------------------------------------------------

DROP TABLE IF EXISTS `redirect`;
CREATE TABLE `redirect` (
  `rd_from` int(10) unsigned NOT NULL DEFAULT 0,
  `rd_namespace` int(11) NOT NULL DEFAULT 0,
  `rd_title` varbinary(255) NOT NULL DEFAULT '',
  `rd_interwiki` varbinary(32) DEFAULT NULL,
  `rd_fragment` varbinary(255) DEFAULT NULL,
  PRIMARY KEY (`rd_from`),
  KEY `rd_ns_title` (`rd_namespace`,`rd_title`,`rd_from`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;

/*!40000 ALTER TABLE `redirect` DISABLE KEYS */;
INSERT INTO `redirect` VALUES (20,4,'General_disclaimers','',''),(21,4,'About_the_wiki','','History');
/*!40000 ALTER TABLE `redirect` ENABLE KEYS */;

-- Dump completed on 2024-09-01  0:12:34
";

/// The `page_props` table in mysqldump's form ([`crate::mysqldump::page_props_sql`]):
/// `disambiguation` on pages 1 and 11 of `test-20240901-page.sql`, and two properties of other
/// kinds.
fn page_props_sql() -> String {
    crate::mysqldump::page_props_sql(
        "testwiki",
        &[
            (1, "disambiguation", ""),
            (1, "wikibase_item", "Q5296"),
            (11, "disambiguation", ""),
            (12, "defaultsort", "Operator"),
        ],
    )
}

/// A fault the server injects.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Close the connection once, when byte N of the file (counted from its start) is due.
    CutAfter(&'static str, usize),
    /// Once, send the file up to byte N, then hold the connection open for 10 s without
    /// sending more (a download to interrupt).
    StallAfter(&'static str, usize),
    /// Serve the file (by suffix) with one byte changed; the published SHA-1 stays the true one.
    Corrupt(&'static str),
    /// HTTP 404 for every path ending with this (`page.sql.gz`, `20240901/dumpstatus.json`).
    NotFound(String),
    /// HTTP 503 with `Retry-After: SECONDS` for the file, once.
    Unavailable(&'static str, u64),
    /// Answer 200 with the whole file whatever the `Range`.
    IgnoreRange(&'static str),
    /// The status of the unfinished run's jobs that are not done: this text (say, a terminal
    /// escape sequence) instead of `in-progress`.
    StatusText(&'static str),
    /// `sha1sums.txt` publishes another SHA-1 for the file (by suffix): a mirror's bad sync.
    WrongSha1(&'static str),
    /// Send the file (by suffix) followed by this many more bytes: a mirror that sends far
    /// more than it published.
    Oversize(&'static str, usize),
    /// Answer every request for the file (by suffix) with `302 Found` to this URL.
    RedirectTo(&'static str, String),
    /// Once, send the file up to byte N, then the rest a byte every [`TRICKLE`] (a mirror too
    /// slow to use that never stops sending, so no read times out).
    TrickleAfter(&'static str, usize),
    /// List this many more runs, newer than both real ones, none with a `dumpstatus.json`
    /// (404): a listing of thousands of runs not worth trying.
    NewerRuns(usize),
}

/// How far apart [`Fault::TrickleAfter`] sends its bytes.
pub const TRICKLE: std::time::Duration = std::time::Duration::from_millis(20);

/// The `k`-th of the runs [`Fault::NewerRuns`] adds: real calendar days from 2025-01-01 on.
pub fn newer_run(k: usize) -> String {
    let (year, month, day) = (2025 + k / (12 * 28), 1 + (k / 28) % 12, 1 + k % 28);
    format!("{year}{month:02}{day:02}")
}

/// The dumps site of one wiki, with its faults.
#[derive(Debug, Clone)]
pub struct DumpSite {
    pub wiki: String,
    pub faults: Vec<Fault>,
}

/// How one job of a run stands: its name, status, and the suffixes of its files.
const JOBS: [(&str, &str); 6] = [
    ("articlesmultistreamdump", "pages-articles-multistream"),
    ("pagetable", "page.sql.gz"),
    ("redirecttable", "redirect.sql.gz"),
    ("pagelinkstable", "pagelinks.sql.gz"),
    ("linktargettable", "linktarget.sql.gz"),
    ("pagepropstable", "page_props.sql.gz"),
];

impl DumpSite {
    /// The site of `wiki`, without faults.
    pub fn new(wiki: &str) -> DumpSite {
        DumpSite {
            wiki: wiki.to_string(),
            faults: Vec::new(),
        }
    }

    /// The same site with one more fault.
    pub fn fault(mut self, fault: Fault) -> DumpSite {
        self.faults.push(fault);
        self
    }

    /// Serves the site; [`Server::origin`] is the mirror URL.
    pub fn serve(self) -> Server {
        // The faults that act once, by their position in `faults`, once they have acted.
        let fired = Mutex::new(HashSet::new());
        files(); // build before the first request, not within its time limit
        serve(move |r| self.answer(r, &fired))
    }

    /// Whether job `job` of run `date` is finished.
    fn job_done(date: &str, job: &str) -> bool {
        date == DONE_DATE || !matches!(job, "articlesmultistreamdump" | "pagelinkstable")
    }

    /// The files of run `date` that exist: all of a finished run, those of done jobs otherwise.
    fn run_files(&self, date: &str) -> Vec<(String, &'static [u8])> {
        files()
            .iter()
            .filter(|(suffix, _)| {
                JOBS.iter()
                    .any(|(job, s)| suffix.starts_with(s) && Self::job_done(date, job))
            })
            .map(|(suffix, bytes)| (file_name(&self.wiki, date, suffix), bytes.as_slice()))
            .collect()
    }

    fn status_json(&self, date: &str) -> String {
        let mut jobs = serde_json::Map::new();
        for (job, prefix) in JOBS {
            let done = Self::job_done(date, job);
            let mut listed = serde_json::Map::new();
            for (name, bytes) in self.run_files(date) {
                let suffix = &name[self.wiki.len() + date.len() + 2..];
                if suffix.starts_with(prefix) {
                    listed.insert(
                        name.clone(),
                        serde_json::json!({
                            "size": bytes.len(),
                            "url": format!("/{}/{date}/{name}", self.wiki),
                            "sha1": sha1_hex(bytes),
                            "md5": "0123456789abcdef0123456789abcdef",
                        }),
                    );
                }
            }
            let hostile = self.faults.iter().find_map(|f| match f {
                Fault::StatusText(t) => Some(*t),
                _ => None,
            });
            let status = match (done, job, hostile) {
                (true, _, _) => "done",
                (false, _, Some(text)) => text,
                (false, "pagelinkstable", None) => "waiting",
                (false, _, None) => "in-progress",
            };
            jobs.insert(
                job.to_string(),
                serde_json::json!({
                    "status": status,
                    "updated": "2024-09-02 01:36:12",
                    "files": listed,
                }),
            );
        }
        // A job clue-db does not need, failed: it must not hold the run back.
        jobs.insert(
            "metahistory7zdump".into(),
            serde_json::json!({"status": "failed", "updated": "2024-09-02 01:36:12", "files": {}}),
        );
        serde_json::json!({"jobs": jobs, "version": "0.8"}).to_string()
    }

    fn sha1sums(&self, date: &str) -> String {
        self.run_files(date)
            .iter()
            .map(|(name, bytes)| {
                let wrong = self
                    .faults
                    .iter()
                    .any(|f| matches!(f, Fault::WrongSha1(s) if name.ends_with(s)));
                let sum = if wrong {
                    sha1_hex(b"not this file")
                } else {
                    sha1_hex(bytes)
                };
                format!("{sum}  {name}\n")
            })
            .collect()
    }

    fn listing(&self) -> String {
        let mut rows = String::from("<a href=\"../\">../</a>\n");
        let newer = self.faults.iter().find_map(|f| match f {
            Fault::NewerRuns(n) => Some(*n),
            _ => None,
        });
        let newer: Vec<String> = (0..newer.unwrap_or(0)).map(newer_run).collect();
        let dates = [DONE_DATE, UNFINISHED_DATE, "latest"];
        for d in dates.into_iter().chain(newer.iter().map(String::as_str)) {
            rows.push_str(&format!(
                "<a href=\"{d}/\">{d}/</a>{:>50}                   -\n",
                "02-Sep-2024 01:36"
            ));
        }
        format!(
            "<html>\r\n<head><title>Index of /{w}/</title></head>\r\n<body>\r\n\
             <h1>Index of /{w}/</h1><hr><pre>{rows}</pre><hr></body>\r\n</html>\r\n",
            w = self.wiki
        )
    }

    /// Whether fault `i` (acting once) may act now; it will not again.
    fn once(fired: &Mutex<HashSet<usize>>, i: usize) -> bool {
        fired.lock().unwrap().insert(i)
    }

    fn answer(&self, r: &Request, fired: &Mutex<HashSet<usize>>) -> Action {
        let path = r.path.as_str();
        for f in &self.faults {
            if let Fault::NotFound(tail) = f
                && path.ends_with(tail.as_str())
            {
                return not_found();
            }
        }
        let rest = path
            .strip_prefix('/')
            .and_then(|p| p.strip_prefix(self.wiki.as_str()))
            .and_then(|p| p.strip_prefix('/'));
        let Some(rest) = rest else {
            return not_found();
        };
        if rest.is_empty() {
            return bytes(200, "text/html", self.listing().into_bytes());
        }
        let Some((date, name)) = rest.split_once('/') else {
            return not_found();
        };
        if date != DONE_DATE && date != UNFINISHED_DATE {
            return not_found();
        }
        if name == "dumpstatus.json" {
            return bytes(200, "application/json", self.status_json(date).into_bytes());
        }
        if name == format!("{}-{date}-sha1sums.txt", self.wiki) {
            return bytes(200, "text/plain", self.sha1sums(date).into_bytes());
        }
        let Some((_, body)) = self.run_files(date).into_iter().find(|(n, _)| n == name) else {
            return not_found();
        };
        self.serve_file(r, name, body, fired)
    }

    /// A file, honouring `Range: bytes=START-`, with the faults that apply to it.
    fn serve_file(
        &self,
        r: &Request,
        name: &str,
        body: &[u8],
        fired: &Mutex<HashSet<usize>>,
    ) -> Action {
        let mut body = body.to_vec();
        let mut ignore_range = false;
        let mut cut_at = None;
        for (i, f) in self.faults.iter().enumerate() {
            match f {
                Fault::Corrupt(s) if name.ends_with(s) => {
                    let middle = body.len() / 2;
                    body[middle] ^= 0x55;
                }
                Fault::IgnoreRange(s) if name.ends_with(s) => ignore_range = true,
                Fault::Oversize(s, extra) if name.ends_with(s) => {
                    body.extend(std::iter::repeat_n(0u8, *extra));
                }
                Fault::RedirectTo(s, to) if name.ends_with(s) => {
                    return Action::Bytes {
                        status: 302,
                        headers: vec![("Location", to.clone())],
                        body: Vec::new(),
                        cut_after: None,
                        then: Then::Close,
                    };
                }
                Fault::Unavailable(s, secs) if name.ends_with(s) && Self::once(fired, i) => {
                    return Action::Bytes {
                        status: 503,
                        headers: vec![("Retry-After", secs.to_string())],
                        body: b"busy".to_vec(),
                        cut_after: None,
                        then: Then::Close,
                    };
                }
                Fault::CutAfter(s, n) if name.ends_with(s) => cut_at = Some((i, *n, Then::Close)),
                Fault::StallAfter(s, n) if name.ends_with(s) => cut_at = Some((i, *n, Then::Stall)),
                Fault::TrickleAfter(s, n) if name.ends_with(s) => {
                    cut_at = Some((i, *n, Then::Trickle(TRICKLE)));
                }
                _ => {}
            }
        }
        let len = body.len();
        let start = match r.headers.get("range") {
            Some(range) if !ignore_range => match parse_range(range) {
                Some(start) => start,
                None => return bytes(400, "text/plain", b"bad range".to_vec()),
            },
            _ => 0,
        };
        if start >= len && start > 0 {
            return Action::Bytes {
                status: 416,
                headers: vec![("Content-Range", format!("bytes */{len}"))],
                body: Vec::new(),
                cut_after: None,
                then: Then::Close,
            };
        }
        let (cut_after, then) = match cut_at {
            Some((i, n, then)) if n > start && n < len && Self::once(fired, i) => {
                (Some(n - start), then)
            }
            _ => (None, Then::Close),
        };
        let mut headers = vec![("Content-Type", "application/octet-stream".to_string())];
        let status = if start > 0 {
            headers.push(("Content-Range", format!("bytes {start}-{}/{len}", len - 1)));
            206
        } else {
            200
        };
        Action::Bytes {
            status,
            headers,
            body: body[start..].to_vec(),
            cut_after,
            then,
        }
    }
}

/// The start of `bytes=START-` (an end, if given, is ignored: the rest is sent).
fn parse_range(range: &str) -> Option<usize> {
    let spec = range.trim().strip_prefix("bytes=")?;
    let (start, _) = spec.split_once('-')?;
    start.trim().parse().ok()
}

fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Action {
    Action::Bytes {
        status,
        headers: vec![("Content-Type", content_type.to_string())],
        body,
        cut_after: None,
        then: Then::Close,
    }
}

fn not_found() -> Action {
    bytes(
        404,
        "text/html",
        b"<html><body>404 Not Found</body></html>".to_vec(),
    )
}
