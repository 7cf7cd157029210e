//! A blocking client for the MediaWiki Action API (`api.php`), for fetching pages live.
//!
//! It is written to be a polite API user, as Wikimedia's API etiquette asks: a descriptive
//! User-Agent, `maxlag=5` on every request (the server refuses work while its replicas lag, and
//! the client waits), few requests in flight, and retries with exponential backoff that honour
//! `Retry-After`. All requests use `format=json&formatversion=2`.
//!
//! Long jobs are resumable: with [`ApiOptions::state_file`] set, [`ApiClient::fetch_pages`]
//! appends each page id it has handed over to a plain-text file (one id per line), and a rerun
//! with the same file skips those ids.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::time::Duration;

use reqwest::Url;
use reqwest::blocking::Client;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::title::normalize;
use crate::{Error, Page, Position, Result};

/// Identifies the tool and how to reach its operator, as the Wikimedia User-Agent policy asks.
pub const DEFAULT_USER_AGENT: &str = "clue-db/0.1 (https://example.invalid/clue-db; contact)";

/// The category MediaWiki's Disambiguator extension puts disambiguation pages in (English).
pub const DISAMBIGUATION_CATEGORY: &str = "Category:Disambiguation pages";

/// How the client behaves. [`Default`] is polite enough for Wikipedia.
#[derive(Debug, Clone)]
pub struct ApiOptions {
    /// Sent on every request; Wikimedia blocks generic agents.
    pub user_agent: String,
    /// Requests in flight at once in [`ApiClient::fetch_pages`] (one worker thread each).
    pub concurrency: usize,
    /// Retries after the first attempt on 429, 5xx, `maxlag`, timeouts and connection errors.
    pub max_retries: u32,
    /// Limit for one request, connect to last byte.
    pub timeout: Duration,
    /// Sent as `maxlag`; `None` leaves it out.
    pub maxlag: Option<u32>,
    /// Where [`ApiClient::fetch_pages`] records finished page ids; `None` disables resuming.
    pub state_file: Option<PathBuf>,
    /// Page ids per request (the API allows 50; whole-page extracts come one per response anyway,
    /// via `excontinue`).
    pub batch_size: usize,
    /// Wait before the first retry; doubled for each further retry.
    pub backoff: Duration,
    /// Cap on any single wait. A server whose `Retry-After` asks for longer is given up on at
    /// once rather than retried early (impolite) or waited for (a page taking ten minutes).
    pub max_backoff: Duration,
    /// Time budget of one request, retries and waits included: a retry whose wait would pass
    /// it is not made, and the request fails.
    pub retry_budget: Duration,
    /// Largest response body read (default [`crate::limits::MAX_RESPONSE_BYTES`]); a larger
    /// one fails the request, naming the cap, instead of being held in memory whole.
    pub max_response_bytes: u64,
    /// Most `continue` rounds followed for one query (default
    /// [`crate::limits::MAX_CONTINUATIONS`]): a server sending a new token every time would
    /// otherwise be followed forever.
    pub max_continuations: usize,
    /// Most response bytes read over all the `continue` rounds of one query, and most bytes
    /// its pages hold in memory as they are merged (default [`crate::limits::MAX_QUERY_BYTES`]):
    /// each round under `max_response_bytes` and the rounds under `max_continuations`, a query
    /// could still pile up their product (640 GB); and a link read as 3 bytes (`{},`) is held
    /// as a 24-byte `String` and more, so a cap on the bytes read alone let one query hold 11
    /// times its cap (issue 46, item 8).
    pub max_query_bytes: u64,
    /// Set from outside (a Ctrl-C handler) to stop [`ApiClient::fetch_pages`]: its iterator
    /// ends with [`Error::Interrupted`] within a tenth of a second, even while a request hangs.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for ApiOptions {
    fn default() -> Self {
        ApiOptions {
            user_agent: DEFAULT_USER_AGENT.to_string(),
            concurrency: 2,
            max_retries: 5,
            timeout: Duration::from_secs(30),
            maxlag: Some(5),
            state_file: None,
            batch_size: 20,
            backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(120),
            retry_budget: Duration::from_secs(300),
            max_response_bytes: crate::limits::MAX_RESPONSE_BYTES,
            max_continuations: crate::limits::MAX_CONTINUATIONS,
            max_query_bytes: crate::limits::MAX_QUERY_BYTES,
            cancel: None,
        }
    }
}

/// A MediaWiki API endpoint. Cloning is cheap and shares the connection pool.
#[derive(Clone)]
pub struct ApiClient {
    inner: Arc<Inner>,
}

struct Inner {
    http: Client,
    base: Url,
    options: ApiOptions,
}

// ---- the API's JSON (formatversion=2) ----

#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    query: Option<Query>,
    #[serde(rename = "continue", default)]
    cont: Option<Map<String, Value>>,
    #[serde(default)]
    error: Option<ApiError>,
}

#[derive(Debug, Deserialize)]
struct ApiError {
    #[serde(default)]
    code: String,
    #[serde(default)]
    info: String,
}

#[derive(Debug, Default, Deserialize)]
struct Query {
    #[serde(default)]
    pages: Vec<ApiPage>,
    #[serde(default)]
    categorymembers: Vec<PageRef>,
}

#[derive(Debug, Deserialize)]
struct ApiPage {
    #[serde(default)]
    pageid: Option<u64>,
    #[serde(default)]
    ns: i32,
    #[serde(default)]
    title: String,
    #[serde(default)]
    missing: bool,
    #[serde(default)]
    invalid: bool,
    #[serde(default)]
    extract: Option<String>,
    #[serde(default)]
    links: Titles,
    #[serde(default)]
    linkshere: Titles,
    #[serde(default)]
    pageprops: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
struct PageRef {
    #[serde(default)]
    pageid: Option<u64>,
    #[serde(default)]
    title: String,
}

/// Link titles of one response, normalised, packed in one string: a response's links are held
/// in no more bytes than they took to send (a `Vec` of records would hold 40 bytes for each
/// `{}` of 3), and a link without a title (`{}`) is no link and is left out.
#[derive(Debug, Default)]
struct Titles {
    text: String,
    ends: Vec<usize>,
}

impl Titles {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.text[a..b])
    }
}

impl<'de> Deserialize<'de> for Titles {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Titles, D::Error> {
        /// One link as sent; only its title is kept (borrowed when it has no escapes).
        #[derive(Deserialize)]
        struct Link<'a> {
            #[serde(borrow, default)]
            title: std::borrow::Cow<'a, str>,
        }
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Titles;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of links")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Titles, A::Error> {
                let mut out = Titles::default();
                while let Some(link) = seq.next_element::<Link<'de>>()? {
                    let title = normalize(&link.title);
                    if !title.is_empty() {
                        out.text.push_str(&title);
                        out.ends.push(out.text.len());
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Visit)
    }
}

/// Bytes a `String` of `len` bytes takes from the allocator beyond its own 24: none when empty,
/// else a chunk of at least 32 bytes in steps of 16 (glibc's), so that one-letter titles are
/// counted at what they cost, not at one byte.
fn heap_bytes(len: usize) -> u64 {
    if len == 0 {
        0
    } else {
        (len as u64 + 8).next_multiple_of(16).max(32)
    }
}

/// What the pages of one query hold in memory, counted before each round's titles are made
/// `String`s, against [`ApiOptions::max_query_bytes`].
struct Held {
    bytes: u64,
    cap: u64,
}

impl Held {
    fn new(cap: u64) -> Held {
        Held { bytes: 0, cap }
    }

    /// Counts `n` more bytes; past the cap, the message to stop with.
    fn add(&mut self, n: u64) -> std::result::Result<(), String> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.cap {
            return Err(format!(
                "the pages of one query would hold more than {} in memory (their texts and \
                 links as stored; cap --api-max-query-bytes): stopping",
                crate::limits::show(self.cap)
            ));
        }
        Ok(())
    }

    /// Appends `titles` to `links`, counting the room `links` grows by and each title's bytes
    /// before any is allocated.
    fn extend(
        &mut self,
        links: &mut Vec<String>,
        titles: &Titles,
    ) -> std::result::Result<(), String> {
        if titles.len() == 0 {
            return Ok(());
        }
        let size = std::mem::size_of::<String>() as u64;
        let strings: u64 = titles.iter().map(|t| heap_bytes(t.len())).sum();
        // The room the list must grow by at least, counted before it is allocated; then what
        // it grew by beyond that (a `Vec` doubles).
        let before = links.capacity();
        let least = (links.len() + titles.len()).saturating_sub(before) as u64 * size;
        self.add(strings + least)?;
        links.reserve(titles.len());
        self.add((links.capacity() - before) as u64 * size - least)?;
        links.extend(titles.iter().map(str::to_owned));
        Ok(())
    }
}

impl ApiPage {
    fn is_disambiguation(&self) -> bool {
        self.pageprops
            .as_ref()
            .is_some_and(|p| p.contains_key("disambiguation"))
    }
}

/// Why an attempt failed, and whether trying again may help.
enum Failure {
    Retry {
        message: String,
        wait: Option<Duration>,
    },
    Fatal(String),
}

impl ApiClient {
    /// A client for `base_url` (e.g. `https://en.wikipedia.org/w/api.php`).
    pub fn new(base_url: &str, options: ApiOptions) -> Result<Self> {
        let http_err = |message: String| Error::Http {
            url: base_url.to_string(),
            message,
        };
        let base = Url::parse(base_url).map_err(|e| http_err(format!("bad base URL: {e}")))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(http_err(format!(
                "the endpoint must be an http:// or https:// URL, not {}:",
                base.scheme()
            )));
        }
        if options.concurrency == 0 || options.batch_size == 0 {
            return Err(http_err(
                "concurrency and batch_size must be at least 1".into(),
            ));
        }
        // reqwest is built without a default TLS crypto provider; install ring's once per
        // process. A second install fails harmlessly when one is already there.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = Client::builder()
            .redirect(same_origin_redirects())
            .user_agent(options.user_agent.clone())
            .timeout(options.timeout)
            .connect_timeout(options.timeout)
            .build()
            .map_err(|e| http_err(format!("cannot build HTTP client: {e}")))?;
        Ok(ApiClient {
            inner: Arc::new(Inner {
                http,
                base,
                options,
            }),
        })
    }

    #[cfg(test)]
    pub fn options(&self) -> &ApiOptions {
        &self.inner.options
    }

    /// Plain-text extracts (`prop=extracts&explaintext=1`) of the pages with these ids, by id.
    /// Missing pages are absent from the map.
    pub fn extracts(&self, ids: &[u64]) -> Result<BTreeMap<u64, String>> {
        let mut out = BTreeMap::new();
        for batch in ids.chunks(self.inner.options.batch_size) {
            let params = [
                ("prop", "extracts".to_string()),
                ("explaintext", "1".to_string()),
                ("exsectionformat", "plain".to_string()),
                ("exlimit", "max".to_string()),
                ("pageids", join_ids(batch)),
            ];
            self.query_all(&params, |q| {
                for p in q.pages {
                    if let (Some(id), Some(text)) = (p.pageid, p.extract) {
                        out.entry(id).or_insert(text);
                    }
                }
                Ok(true)
            })?;
        }
        Ok(out)
    }

    /// Normalised titles of the article-namespace pages `title` links to, following `continue`.
    pub fn links(&self, title: &str) -> Result<Vec<String>> {
        let params = [
            ("prop", "links".to_string()),
            ("titles", title.to_string()),
            ("plnamespace", "0".to_string()),
            ("pllimit", "max".to_string()),
        ];
        let mut out = Vec::new();
        let mut held = Held::new(self.inner.options.max_query_bytes);
        self.query_all(&params, |q| {
            for p in q.pages {
                held.extend(&mut out, &p.links)?;
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// Normalised titles of the article-namespace pages that link to `title` (`prop=linkshere`).
    pub fn links_here(&self, title: &str) -> Result<Vec<String>> {
        let params = [
            ("prop", "linkshere".to_string()),
            ("titles", title.to_string()),
            ("lhnamespace", "0".to_string()),
            ("lhprop", "pageid|title".to_string()),
            ("lhlimit", "max".to_string()),
        ];
        let mut out = Vec::new();
        let mut held = Held::new(self.inner.options.max_query_bytes);
        self.query_all(&params, |q| {
            for p in q.pages {
                held.extend(&mut out, &p.linkshere)?;
            }
            Ok(true)
        })?;
        Ok(out)
    }

    /// Which of these page ids are disambiguation pages (`prop=pageprops&ppprop=disambiguation`).
    pub fn disambiguation_ids(&self, ids: &[u64]) -> Result<BTreeSet<u64>> {
        let mut out = BTreeSet::new();
        for batch in ids.chunks(self.inner.options.batch_size) {
            let params = [
                ("prop", "pageprops".to_string()),
                ("ppprop", "disambiguation".to_string()),
                ("pageids", join_ids(batch)),
            ];
            self.query_all(&params, |q| {
                out.extend(
                    q.pages
                        .iter()
                        .filter(|p| p.is_disambiguation())
                        .filter_map(|p| p.pageid),
                );
                Ok(true)
            })?;
        }
        Ok(out)
    }

    /// Article-namespace members of [`DISAMBIGUATION_CATEGORY`] as `(page id, title)`, at most
    /// `limit` of them (English Wikipedia has about 350,000).
    pub fn disambiguation_pages(&self, limit: usize) -> Result<Vec<(u64, String)>> {
        let params = [
            ("list", "categorymembers".to_string()),
            ("cmtitle", DISAMBIGUATION_CATEGORY.to_string()),
            ("cmnamespace", "0".to_string()),
            ("cmprop", "ids|title".to_string()),
            ("cmlimit", "max".to_string()),
        ];
        let mut out = Vec::new();
        self.query_all(&params, |q| {
            for m in q.categorymembers {
                if out.len() == limit {
                    return Ok(false);
                }
                if let Some(id) = m.pageid {
                    out.push((id, normalize(&m.title)));
                }
            }
            Ok(out.len() < limit)
        })?;
        Ok(out)
    }

    /// Fetches whole pages (text, out-links, disambiguation flag) by id, `concurrency` requests
    /// at a time, `batch_size` ids per request.
    ///
    /// Pages come in completion order of their batches (within a batch, in request order);
    /// ids the wiki does not have are skipped. A batch that fails after all retries yields one
    /// `Err` and its ids stay unrecorded, so a rerun fetches them. With a state file, ids already
    /// recorded are skipped, and a page's id is recorded once the caller asks for the item after
    /// it — that is, once the caller is done with it — so a crash never loses a page.
    /// Errs only if the state file cannot be read.
    pub fn fetch_pages(&self, ids: &[u64]) -> Result<FetchPages> {
        let state = match &self.inner.options.state_file {
            Some(path) => Some(StateFile::open(path)?),
            None => None,
        };
        let mut wanted = HashSet::new();
        let todo: Vec<u64> = ids
            .iter()
            .copied()
            .filter(|id| !state.as_ref().is_some_and(|s| s.done.contains(id)) && wanted.insert(*id))
            .collect();
        let batches: Arc<Vec<Vec<u64>>> = Arc::new(
            todo.chunks(self.inner.options.batch_size)
                .map(<[u64]>::to_vec)
                .collect(),
        );
        let workers = self.inner.options.concurrency.min(batches.len());
        // No queue: a finished batch waits in its worker until the caller takes it, so the
        // fetch holds the batch being handed out and one per worker, never more.
        let (tx, rx) = sync_channel(0);
        let next = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        for _ in 0..workers {
            let (client, batches, next, stop, tx) = (
                self.clone(),
                batches.clone(),
                next.clone(),
                stop.clone(),
                tx.clone(),
            );
            std::thread::spawn(move || client.work(&batches, &next, &stop, &tx));
        }
        Ok(FetchPages {
            rx,
            remaining: batches.len(),
            buffer: Vec::new(),
            pending: None,
            state,
            stop,
            cancel: self.inner.options.cancel.clone(),
            url: self.inner.base.to_string(),
        })
    }

    /// One worker of [`fetch_pages`](Self::fetch_pages): takes batches until none are left or
    /// the iterator is gone.
    fn work(
        &self,
        batches: &[Vec<u64>],
        next: &AtomicUsize,
        stop: &AtomicBool,
        tx: &SyncSender<Batch>,
    ) {
        while !stop.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(batch) = batches.get(i) else { return };
            let result = self.fetch_batch(batch);
            if tx
                .send(Batch {
                    ids: batch.clone(),
                    result,
                })
                .is_err()
            {
                return;
            }
        }
    }

    /// Text, links and disambiguation flag of up to `batch_size` pages, merged over all
    /// `continue` rounds (whole-page extracts arrive one per round, links in chunks).
    fn fetch_batch(&self, ids: &[u64]) -> Result<Vec<Page>> {
        let params = [
            ("prop", "extracts|links|pageprops".to_string()),
            ("explaintext", "1".to_string()),
            ("exsectionformat", "plain".to_string()),
            ("exlimit", "max".to_string()),
            ("plnamespace", "0".to_string()),
            ("pllimit", "max".to_string()),
            ("ppprop", "disambiguation".to_string()),
            ("pageids", join_ids(ids)),
        ];
        let mut pages: BTreeMap<u64, Page> = BTreeMap::new();
        let mut held = Held::new(self.inner.options.max_query_bytes);
        self.query_all(&params, |q| {
            for p in q.pages {
                let Some(id) = p.pageid else { continue };
                if p.missing || p.invalid {
                    continue;
                }
                let page = match pages.entry(id) {
                    std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::btree_map::Entry::Vacant(e) => {
                        let title = normalize(&p.title);
                        held.add(std::mem::size_of::<Page>() as u64 + heap_bytes(title.len()))?;
                        e.insert(Page {
                            id,
                            title,
                            ns: p.ns,
                            ..Page::default()
                        })
                    }
                };
                page.is_disambiguation |= p.is_disambiguation();
                if let Some(text) = p.extract.filter(|t| !t.is_empty())
                    && page.text.is_empty()
                {
                    held.add(heap_bytes(text.capacity()))?;
                    page.text = text;
                }
                held.extend(&mut page.links, &p.links)?;
            }
            Ok(true)
        })?;
        let mut out = Vec::with_capacity(pages.len());
        for id in ids {
            out.extend(pages.remove(id));
        }
        Ok(out)
    }

    /// Runs an `action=query` and its `continue` rounds, handing each round's `query` to `f`
    /// until the API has no more or `f` returns `false`; an `Err` of `f` is the message the
    /// query fails with, naming its URL.
    fn query_all(
        &self,
        params: &[(&str, String)],
        mut f: impl FnMut(Query) -> std::result::Result<bool, String>,
    ) -> Result<()> {
        let mut cont: Vec<(String, String)> = Vec::new();
        let mut rounds = 0usize;
        let mut bytes = 0u64;
        loop {
            let mut all: Vec<(String, String)> = params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            all.extend(cont.iter().cloned());
            let (url, response, size) = self.get(&all)?;
            bytes += size;
            let cap = self.inner.options.max_query_bytes;
            if bytes > cap {
                return Err(Error::Http {
                    url: url.to_string(),
                    message: format!(
                        "more than {} over the `continue` rounds of one query ({bytes} bytes in \
                         {} responses; cap --api-max-query-bytes): stopping",
                        crate::limits::show(cap),
                        rounds + 1
                    ),
                });
            }
            match f(response.query.unwrap_or_default()) {
                Ok(true) => {}
                Ok(false) => return Ok(()),
                Err(message) => {
                    return Err(Error::Http {
                        url: url.to_string(),
                        message,
                    });
                }
            }
            let Some(c) = response.cont else {
                return Ok(());
            };
            let next: Vec<(String, String)> = c
                .into_iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (k, v)
                })
                .collect();
            if next == cont {
                return Err(Error::Http {
                    url: url.to_string(),
                    message: "the API repeated its `continue` values; stopping".into(),
                });
            }
            rounds += 1;
            let cap = self.inner.options.max_continuations;
            if rounds > cap {
                return Err(Error::Http {
                    url: url.to_string(),
                    message: format!(
                        "more than {cap} `continue` rounds for one query (cap \
                         --api-max-continue): the server keeps sending new tokens; stopping"
                    ),
                });
            }
            cont = next;
        }
    }

    /// One API request with retries. Returns the URL (for error messages), the parsed body and
    /// its size in bytes.
    fn get(&self, params: &[(String, String)]) -> Result<(Url, Response, u64)> {
        let opts = &self.inner.options;
        let mut url = self.inner.base.clone();
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("action", "query");
            q.append_pair("format", "json");
            q.append_pair("formatversion", "2");
            if let Some(lag) = opts.maxlag {
                q.append_pair("maxlag", &lag.to_string());
            }
            for (k, v) in params {
                q.append_pair(k, v);
            }
        }
        let mut retries = 0;
        let start = std::time::Instant::now();
        loop {
            let message = match self.attempt(&url) {
                Ok((response, size)) => return Ok((url, response, size)),
                Err(Failure::Retry {
                    wait: Some(asked),
                    message,
                }) if asked > opts.max_backoff => format!(
                    "{message}; the server asks to wait {} s (Retry-After), more than the \
                     {} s cap on one wait: giving up (after {retries} retries)",
                    asked.as_secs(),
                    opts.max_backoff.as_secs()
                ),
                Err(Failure::Retry { wait, message }) if retries < opts.max_retries => {
                    let wait = wait
                        .unwrap_or_else(|| backoff(opts.backoff, retries))
                        .min(opts.max_backoff);
                    if start.elapsed() + wait > opts.retry_budget {
                        format!(
                            "{message} (gave up after {retries} retries: the next wait would \
                             pass the {:?} budget of one request)",
                            opts.retry_budget
                        )
                    } else {
                        std::thread::sleep(wait);
                        retries += 1;
                        continue;
                    }
                }
                Err(Failure::Retry { message, .. }) => {
                    format!("{message} (gave up after {retries} retries)")
                }
                Err(Failure::Fatal(message)) => format!("{message} (after {retries} retries)"),
            };
            return Err(Error::Http {
                url: url.to_string(),
                message,
            });
        }
    }

    /// One attempt: the parsed body and its size in bytes.
    fn attempt(&self, url: &Url) -> std::result::Result<(Response, u64), Failure> {
        let response = self.inner.http.get(url.clone()).send().map_err(transport)?;
        let status = response.status();
        let wait = retry_after(response.headers());
        if status.as_u16() == 429 || status.is_server_error() {
            return Err(Failure::Retry {
                message: format!("HTTP {status}"),
                wait,
            });
        }
        if !status.is_success() {
            return Err(Failure::Fatal(format!("HTTP {status}")));
        }
        let cap = self.inner.options.max_response_bytes;
        let too_big = |n: String| {
            Failure::Fatal(format!(
                "HTTP {status}: a response of {n} bytes, larger than the cap of {} \
                 (ApiOptions::max_response_bytes)",
                crate::limits::show(cap)
            ))
        };
        if let Some(n) = response.content_length().filter(|&n| n > cap) {
            return Err(too_big(n.to_string()));
        }
        // The announced length at once: a body grown by doubling holds up to twice its size.
        let mut body = Vec::with_capacity(response.content_length().unwrap_or(0) as usize);
        let mut response = response;
        (&mut response)
            .take(cap + 1)
            .read_to_end(&mut body)
            .map_err(|e| Failure::Retry {
                message: format!("reading the response: {e}"),
                wait: None,
            })?;
        if body.len() as u64 > cap {
            return Err(too_big(format!("more than {cap}")));
        }
        let parsed: Response = serde_json::from_slice(&body).map_err(|e| {
            let start = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
            Failure::Fatal(format!("HTTP {status}: not API JSON ({e}): {start:?}"))
        })?;
        match &parsed.error {
            None => Ok((parsed, body.len() as u64)),
            Some(err) => {
                let message = format!("API error {}: {}", err.code, err.info);
                // maxlag: replicas are behind; ratelimited: we were too fast. Both pass.
                if err.code == "maxlag" || err.code == "ratelimited" {
                    Err(Failure::Retry { message, wait })
                } else {
                    Err(Failure::Fatal(message))
                }
            }
        }
    }
}

/// Follows redirects within the endpoint's origin (scheme, host and port) only, ten at most:
/// a redirect elsewhere would store another host's text under this endpoint's name.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first() else {
            return attempt.follow();
        };
        if attempt.url().origin() != first.origin() {
            let message = format!(
                "redirected to another host ({}); only redirects within {} are followed",
                attempt.url().origin().ascii_serialization(),
                first.origin().ascii_serialization()
            );
            attempt.error(message)
        } else if attempt.previous().len() > 10 {
            attempt.error("more than 10 redirects (a redirect loop?)")
        } else {
            attempt.follow()
        }
    })
}

/// Transport failures (timeouts, refused or reset connections, cut bodies) may pass: retry.
/// A refused redirect or a request that cannot be built will not: fail at once.
fn transport(e: reqwest::Error) -> Failure {
    if e.is_redirect() || e.is_builder() {
        let mut message = format!("{e}");
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            message.push_str(&format!(": {s}"));
            source = s.source();
        }
        return Failure::Fatal(message);
    }
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    let mut message = format!("{kind}: {e}");
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        message.push_str(&format!(": {s}"));
        source = s.source();
    }
    Failure::Retry {
        message,
        wait: None,
    }
}

/// `Retry-After` in seconds (the form MediaWiki sends); HTTP dates are ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?;
    v.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// `base * 2^retry`, saturating.
fn backoff(base: Duration, retry: u32) -> Duration {
    base.saturating_mul(1u32.checked_shl(retry.min(20)).unwrap_or(u32::MAX))
}

fn join_ids(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join("|")
}

/// One finished batch, sent from a worker to the iterator.
struct Batch {
    ids: Vec<u64>,
    result: Result<Vec<Page>>,
}

/// The pages of [`ApiClient::fetch_pages`]. Dropping it stops the workers after their current
/// request (they are not joined, so dropping never blocks).
pub struct FetchPages {
    rx: Receiver<Batch>,
    remaining: usize,
    /// Pages of the current batch still to hand out, reversed (pop from the end).
    buffer: Vec<Page>,
    /// The id of the page handed out last: recorded as done when the caller comes back.
    pending: Option<u64>,
    state: Option<StateFile>,
    stop: Arc<AtomicBool>,
    cancel: Option<Arc<AtomicBool>>,
    url: String,
}

impl Iterator for FetchPages {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Result<Page>> {
        if let (Some(id), Some(state)) = (self.pending.take(), self.state.as_mut())
            && let Err(e) = state.record(&[id])
        {
            return Some(Err(e));
        }
        loop {
            if let Some(page) = self.buffer.pop() {
                self.pending = Some(page.id);
                return Some(Ok(page));
            }
            if self.remaining == 0 {
                return None;
            }
            let batch = match self.next_batch() {
                Ok(b) => b,
                Err(RecvError::Cancelled) => {
                    self.remaining = 0;
                    return Some(Err(Error::Interrupted {
                        url: self.url.clone(),
                    }));
                }
                Err(RecvError::Disconnected) => {
                    self.remaining = 0;
                    return Some(Err(Error::Http {
                        url: self.url.clone(),
                        message: "a fetch worker stopped unexpectedly".into(),
                    }));
                }
            };
            self.remaining -= 1;
            match batch.result {
                Err(e) => return Some(Err(e)),
                Ok(mut pages) => {
                    // Ids the wiki does not have are done too: there is nothing to fetch.
                    let got: HashSet<u64> = pages.iter().map(|p| p.id).collect();
                    let missing: Vec<u64> = batch
                        .ids
                        .iter()
                        .copied()
                        .filter(|id| !got.contains(id))
                        .collect();
                    if let Some(state) = self.state.as_mut()
                        && let Err(e) = state.record(&missing)
                    {
                        return Some(Err(e));
                    }
                    pages.reverse();
                    self.buffer = pages;
                }
            }
        }
    }
}

/// Why [`FetchPages::next_batch`] has no batch.
enum RecvError {
    Cancelled,
    Disconnected,
}

impl FetchPages {
    /// The next finished batch; waits in short slices so that a cancel is seen while a request
    /// hangs.
    fn next_batch(&self) -> std::result::Result<Batch, RecvError> {
        let Some(cancel) = &self.cancel else {
            return self.rx.recv().map_err(|_| RecvError::Disconnected);
        };
        loop {
            // A batch already fetched is taken before a cancel is honoured: it is stored, not
            // fetched again by the next run.
            if let Ok(b) = self.rx.try_recv() {
                return Ok(b);
            }
            if cancel.load(Ordering::SeqCst) {
                return Err(RecvError::Cancelled);
            }
            match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(b) => return Ok(b),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(RecvError::Disconnected),
            }
        }
    }
}

impl Drop for FetchPages {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The resume file: one finished page id per line, append-only. Only complete lines count: a
/// last line cut short by a crash (`3` of `30`) is cut off before appending, so it can neither
/// count as an id nor glue onto the next one.
struct StateFile {
    path: PathBuf,
    file: File,
    done: HashSet<u64>,
}

impl StateFile {
    fn open(path: &Path) -> Result<Self> {
        let io = |e| Error::io(path, e);
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let mut done = HashSet::new();
        let mut reader = BufReader::new(&mut file);
        let mut line = String::new();
        let mut n = 0u64;
        let mut complete = 0u64; // bytes up to the end of the last complete line
        let mut torn = false;
        loop {
            line.clear();
            if reader.read_line(&mut line).map_err(io)? == 0 {
                break;
            }
            n += 1;
            let Some(content) = line.strip_suffix('\n') else {
                torn = true;
                break;
            };
            complete += line.len() as u64;
            let content = content.trim();
            if content.is_empty() {
                continue;
            }
            let id = content.parse::<u64>().map_err(|_| {
                Error::parse(
                    path,
                    Position::Line(n),
                    format!("expected a page id, found {content:?}"),
                )
            })?;
            done.insert(id);
        }
        if torn {
            file.set_len(complete).map_err(io)?;
        }
        // Appends go to the end whatever the read position; seek only to keep it obvious.
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(StateFile {
            path: path.to_path_buf(),
            file,
            done,
        })
    }

    fn record(&mut self, ids: &[u64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut lines = String::new();
        for id in ids {
            lines.push_str(&id.to_string());
            lines.push('\n');
            self.done.insert(*id);
        }
        let file = &mut self.file;
        file.write_all(lines.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// Reads a state file's ids (for reports and tests); a missing file has none.
pub fn read_state(path: &Path) -> Result<BTreeSet<u64>> {
    let mut text = String::new();
    match File::open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(Error::io(path, e)),
        Ok(mut f) => f
            .read_to_string(&mut text)
            .map_err(|e| Error::io(path, e))?,
    };
    let mut out = BTreeSet::new();
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let Some(line) = line.strip_suffix('\n') else {
            break;
        };
        if line.trim().is_empty() {
            continue;
        }
        out.insert(line.trim().parse().map_err(|_| {
            Error::parse(
                path,
                Position::Line(n as u64 + 1),
                format!("expected a page id, found {line:?}"),
            )
        })?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_an_https_client_without_network() {
        // Fails if no rustls crypto provider is installed; sends nothing.
        let c = ApiClient::new("https://en.wikipedia.org/w/api.php", ApiOptions::default());
        assert_eq!(c.unwrap().options().maxlag, Some(5));
        assert!(ApiClient::new("not a url", ApiOptions::default()).is_err());
    }

    #[test]
    fn backoff_doubles_and_saturates() {
        let b = Duration::from_millis(100);
        assert_eq!(backoff(b, 0), Duration::from_millis(100));
        assert_eq!(backoff(b, 3), Duration::from_millis(800));
        assert!(backoff(b, 200) >= Duration::from_secs(100_000));
    }

    #[test]
    fn parses_retry_after_seconds_only() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert(RETRY_AFTER, "5".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(5)));
        h.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn parses_the_real_json_shape() {
        let body = r#"{"batchcomplete":true,"continue":{"plcontinue":"736|0|Zebra","continue":"||"},
            "query":{"pages":[{"pageid":736,"ns":0,"title":"Albert Einstein","extract":"Albert Einstein was…",
            "links":[{"ns":0,"title":"Annus mirabilis papers"}],"pageprops":{"disambiguation":""}},
            {"pageid":99999999,"missing":true}]}}"#;
        let r: Response = serde_json::from_str(body).unwrap();
        let q = r.query.unwrap();
        assert_eq!(q.pages.len(), 2);
        assert_eq!(q.pages[0].pageid, Some(736));
        assert!(q.pages[0].is_disambiguation());
        assert_eq!(
            q.pages[0].links.iter().collect::<Vec<_>>(),
            ["Annus mirabilis papers"]
        );
        assert!(q.pages[1].missing);
        assert_eq!(r.cont.unwrap()["plcontinue"], "736|0|Zebra");
        let e: Response =
            serde_json::from_str(r#"{"error":{"code":"maxlag","info":"Waiting for 10.64.0.1: 7 seconds lagged","lag":7}}"#)
                .unwrap();
        assert_eq!(e.error.unwrap().code, "maxlag");
    }

    /// A response's links are kept as their normalised titles packed in one string: `{}` and
    /// an empty title are no links, escapes are decoded, and nothing else of a link is kept.
    #[test]
    fn link_titles_are_packed_and_links_without_a_title_dropped() {
        let body = r#"{"query":{"pages":[{"pageid":1,"title":"Pie",
            "links":[{},{"ns":0,"title":""},{"ns":0,"title":"apple_pie"},{"title":"\u00e9clair"},
            {"ns":0,"title":"Zebra","extra":[1,2,3]}]}]}}"#;
        let r: Response = serde_json::from_str(body).unwrap();
        let page = &r.query.unwrap().pages[0];
        assert_eq!(
            page.links.iter().collect::<Vec<_>>(),
            ["Apple pie", "\u{c9}clair", "Zebra"]
        );
        assert_eq!(page.links.text.len(), "Apple pieÉclairZebra".len());
        assert!(page.linkshere.iter().next().is_none());
    }

    /// What the merged pages hold is counted before the titles are made: past the cap, the
    /// message names it and nothing more is added.
    #[test]
    fn held_titles_are_counted_before_they_are_made() {
        let titles: Titles =
            serde_json::from_str(r#"[{"title":"A"},{"title":"B"},{"title":"C"}]"#).unwrap();
        let mut links = Vec::new();
        let mut held = Held::new(1000);
        held.extend(&mut links, &titles).unwrap();
        assert_eq!(links, ["A", "B", "C"]);
        // 3 × (24 + 32): a one-letter title costs 56 bytes, not 1.
        assert!(held.bytes >= 3 * 56, "{}", held.bytes);
        let mut small = Held::new(100);
        let mut none = Vec::new();
        let message = small.extend(&mut none, &titles).unwrap_err();
        assert!(
            message.contains("more than 100 bytes in memory"),
            "{message}"
        );
        assert!(none.is_empty());
        assert_eq!(heap_bytes(0), 0);
        assert_eq!(heap_bytes(1), 32);
        assert_eq!(heap_bytes(40), 48);
    }
}
