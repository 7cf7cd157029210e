//! Stage `ingest`: one Wikipedia source into `pages`, `page_text` and `links`.
//!
//! Pages stream in from the `wiki` readers and are written in batches of [`BATCH`] per
//! transaction; links are staged by title and resolved (redirects followed) once all pages are in.
//!
//! A folder stands for the files under it where a format is a set of files (WikiExtractor's
//! `AA/wiki_00 …` tree, split XML dumps, SQL dumps): see [`input_files`]. One dump run of a wiki
//! (XML text + SQL links and flags, joined on page ids) is [`Format::DumpRun`], in
//! [`crate::dump_run`].

use crate::dump_run::DumpRun;
use crate::sql_tables::{sql_table, sql_tables};
use crate::{progress, record};
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use store::{Build, NewPage};
use wiki::Page;
use wiki::io::Progress;

/// Pages written per transaction.
pub const BATCH: u64 = 5_000;

/// The source formats `clue-db ingest --format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// MediaWiki `pages-articles` XML (`.xml`, `.xml.bz2`, `.xml.gz`).
    Xml,
    /// A multistream `.xml.bz2` with its index (`--index`), decoded on all cores.
    Multistream,
    /// SQL dumps: `page`, `redirect`, `pagelinks`, `linktarget`, `page_props` (`.sql`,
    /// `.sql.gz`), each file's table read from its `INSERT`.
    Sql,
    /// WikiExtractor output, `<doc>` or JSON lines (plain, `.xz`, `.bz2`, `.gz`): files, or the
    /// folder of its `AA/wiki_00 …` tree.
    Extractor,
    /// The Wikispeedia folder (`plaintext_articles.tar.gz`, `articles.tsv`, `links.tsv`).
    Wikispeedia,
    /// The MediaWiki API: PATH is the endpoint (`https://en.wikipedia.org/w/api.php`), pages by
    /// `--page-ids`; ids already in the database are skipped, so a failed or interrupted run is
    /// resumed by running it again on the database.
    Api,
    /// One dump run of one wiki, its files joined on page ids (one id space, no offset between
    /// them): the `pages-articles` XML (multistream with its index, or plain) gives the pages,
    /// their text and redirects; the SQL dumps of the same run give the links (`pagelinks` +
    /// `linktarget`) and the disambiguation flags (`page_props`). PATHs: the files, or the run
    /// folder, read through its `VERIFIED` list.
    DumpRun,
}

/// What to ingest.
#[derive(Debug, Clone)]
pub struct Request {
    pub format: Format,
    pub paths: Vec<PathBuf>,
    /// The multistream index file.
    pub index: Option<PathBuf>,
    /// Wikispeedia: leave out the six SOS Children's site pages (see `wiki::wikispeedia`).
    pub skip_site_pages: bool,
    /// API: the page ids to fetch.
    pub page_ids: Vec<u64>,
    /// API: when the fetch fails part-way, keep what was stored (and fail with
    /// [`PartialIngest`]) so that the caller can save it and a rerun can go on from there.
    pub keep_partial: bool,
    /// API: the User-Agent to send (default [`wiki::api::DEFAULT_USER_AGENT`]); Wikimedia asks
    /// for one that names the tool and a contact.
    pub user_agent: Option<String>,
    /// API: requests in flight at once (default 2).
    pub concurrency: Option<usize>,
    /// API: the wait before the first retry, doubled for each further one (default 1 s).
    pub backoff: Option<Duration>,
    /// API: most `continue` rounds of one query (default [`wiki::limits::MAX_CONTINUATIONS`]).
    pub max_continuations: Option<usize>,
    /// API: most response bytes of one query's rounds (default [`wiki::limits::MAX_QUERY_BYTES`]).
    pub max_query_bytes: Option<u64>,
    /// API: set (by a Ctrl-C handler) to stop fetching; the run then ends as a failed fetch
    /// does, keeping what it stored when `keep_partial` is set.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Added to every page id: a second source of one build ([`SOURCE_ID_STRIDE`] times its
    /// place) keeps its ids apart from the first one's (Wikispeedia numbers its pages 1…4604,
    /// which MediaWiki ids of another source would collide with).
    pub id_offset: u64,
    /// The `meta` prefix of this ingest's figures: `ingest` for the first source of a build,
    /// `ingest.NAME` for each further one.
    pub meta_stage: String,
}

/// The id space of each source of a build made of several: source `i` (from 0) adds
/// `i × SOURCE_ID_STRIDE` to its page ids ([`source_offset`]), and a page's source is its id
/// divided by it ([`source_of`]).
pub const SOURCE_ID_STRIDE: u64 = 1_000_000_000;

/// What source `i` (from 0, in the order `--corpus` names them) adds to its page ids.
pub fn source_offset(i: usize) -> u64 {
    i as u64 * SOURCE_ID_STRIDE
}

/// The source (from 0) of the page stored as `id` ([`source_offset`]).
pub fn source_of(id: u64) -> usize {
    usize::try_from(id / SOURCE_ID_STRIDE).unwrap_or(usize::MAX)
}

/// An API ingest that failed part-way with `keep_partial` set: the pages fetched so far are
/// stored, their links resolved and `meta` written; the build is worth saving.
#[derive(Debug)]
pub struct PartialIngest {
    /// Pages this run stored.
    pub pages: u64,
}

impl std::fmt::Display for PartialIngest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the fetch stopped part-way; the {} pages this run fetched are kept: run the same \
             command with --resume to fetch the rest",
            self.pages
        )
    }
}

impl std::error::Error for PartialIngest {}

impl Request {
    /// A request for files of one format, with no API settings.
    pub fn files(format: Format, paths: Vec<PathBuf>) -> Request {
        Request {
            format,
            paths,
            index: None,
            skip_site_pages: false,
            page_ids: Vec::new(),
            keep_partial: false,
            user_agent: None,
            concurrency: None,
            backoff: None,
            max_continuations: None,
            max_query_bytes: None,
            cancel: None,
            id_offset: 0,
            meta_stage: "ingest".to_string(),
        }
    }
}

/// Fetches the requested pages, leaving out `skip` (the ids a resumed database already holds).
fn api_pages(req: &Request, skip: &HashSet<u64>) -> Result<wiki::api::FetchPages> {
    let url = req
        .paths
        .first()
        .context("--format api needs the endpoint URL as PATH")?;
    if req.page_ids.is_empty() {
        bail!("--format api needs --page-ids ID,ID,…");
    }
    let todo: Vec<u64> = req
        .page_ids
        .iter()
        .copied()
        .filter(|id| !skip.contains(id))
        .collect();
    let defaults = wiki::api::ApiOptions::default();
    let options = wiki::api::ApiOptions {
        user_agent: req
            .user_agent
            .clone()
            .unwrap_or(defaults.user_agent.clone()),
        concurrency: req.concurrency.unwrap_or(defaults.concurrency).max(1),
        backoff: req.backoff.unwrap_or(defaults.backoff),
        max_continuations: req.max_continuations.unwrap_or(defaults.max_continuations),
        max_query_bytes: req.max_query_bytes.unwrap_or(defaults.max_query_bytes),
        cancel: req.cancel.clone(),
        ..defaults
    };
    let client = wiki::api::ApiClient::new(&url.to_string_lossy(), options)?;
    Ok(client.fetch_pages(&todo)?)
}

/// Counts of what an ingest stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub pages: u64,
    pub redirects: u64,
    pub disambiguations: u64,
    pub links: u64,
    pub texts: u64,
    pub duplicates: u64,
    pub links_unresolved: u64,
    pub links_via_redirect: u64,
}

/// Bytes on disk of the inputs (the files under a folder), for the progress bar.
pub(crate) fn total_size(paths: &[PathBuf]) -> u64 {
    input_files(paths)
        .unwrap_or_default()
        .iter()
        .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .sum()
}

/// Deepest folder nesting [`input_files`] follows (WikiExtractor's tree is two deep): a
/// symbolic link that loops back is an error, not an endless walk.
const MAX_FOLDER_DEPTH: usize = 16;

/// The input files: each path that is a file, and for a folder every file under it, walked in
/// sorted order (`AA/wiki_00`, `AA/wiki_01`, `AB/wiki_00`), so that ids and the first-title-wins
/// rule come out the same on every machine. Hidden files and folders (`.DS_Store`, `.git`,
/// an editor's `.wiki_00.swp`) are skipped. A folder with no file is an error naming it.
pub fn input_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
        if depth > MAX_FOLDER_DEPTH {
            bail!(
                "{}: folders nested more than {MAX_FOLDER_DEPTH} deep (a link that loops?)",
                dir.display()
            );
        }
        let mut entries: Vec<PathBuf> = Vec::new();
        for entry in std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))? {
            let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            entries.push(entry.path());
        }
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, depth + 1, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = out.len();
            walk(p, 0, &mut out)?;
            if out.len() == before {
                bail!("{}: no file in this folder", p.display());
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// Writes a stream of pages: each page, its text, and its links staged for resolution.
pub fn store_pages(
    build: &Build,
    pages: impl Iterator<Item = wiki::Result<Page>>,
    progress: &Progress,
    total_bytes: u64,
) -> Result<u64> {
    store_pages_from(build, pages, progress, total_bytes, 0)
}

/// Stores one input file's pages; a file that yields no page is refused, named (an empty or
/// garbage file among good ones, or as a later corpus of a build, must not pass unseen).
pub(crate) fn store_file(
    build: &Build,
    path: &Path,
    pages: impl Iterator<Item = wiki::Result<Page>>,
    progress: &Progress,
    total_bytes: u64,
    req: &Request,
    keep: PageFields,
) -> Result<()> {
    if store_pages_with(build, pages, progress, total_bytes, req.id_offset, keep)? == 0 {
        bail!(
            "{}: no page in this input ({} format); nothing is written",
            path.display(),
            format!("{:?}", req.format).to_lowercase()
        );
    }
    Ok(())
}

/// [`store_pages`] for a further source of a build: `id_offset` is added to every page id.
/// Returns the pages the stream yielded (stored, or left out as duplicates).
pub fn store_pages_from(
    build: &Build,
    pages: impl Iterator<Item = wiki::Result<Page>>,
    progress: &Progress,
    total_bytes: u64,
    id_offset: u64,
) -> Result<u64> {
    let keep = PageFields {
        links: true,
        disambiguation: true,
    };
    store_pages_with(build, pages, progress, total_bytes, id_offset, keep)
}

/// Which fields of the pages a reader yields are stored: all of them, unless another input of
/// the same build supplies the field (a dump run's `pagelinks` and `page_props`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageFields {
    /// Stage the page's links.
    pub links: bool,
    /// Keep the reader's disambiguation flag (else the page is stored as no disambiguation page).
    pub disambiguation: bool,
}

/// [`store_pages_from`], storing only the fields `keep` says.
pub(crate) fn store_pages_with(
    build: &Build,
    pages: impl Iterator<Item = wiki::Result<Page>>,
    progress: &Progress,
    total_bytes: u64,
    id_offset: u64,
    keep: PageFields,
) -> Result<u64> {
    let pb = progress::bytes_bar(total_bytes);
    pb.set_prefix("ingest");
    let mut stored = 0u64;
    let mut duplicates = 0u64;
    build.begin()?;
    for (n, page) in pages.enumerate() {
        let page = page?;
        let id = page.id.checked_add(id_offset).with_context(|| {
            format!(
                "page {} ({:?}): id + {id_offset} is too large",
                page.id, page.title
            )
        })?;
        let new = NewPage {
            id,
            title: &page.title,
            ns: page.ns,
            redirect_to: page.redirect.as_deref(),
            is_disambiguation: keep.disambiguation && page.is_disambiguation,
            text: Some(&page.text),
        };
        if build.insert_page(&new)? {
            stored += 1;
            for l in page.links.iter().filter(|_| keep.links) {
                build.stage_link(id, 0, l)?;
            }
        } else {
            duplicates += 1;
        }
        if (n as u64 + 1).is_multiple_of(BATCH) {
            build.commit()?;
            build.begin()?;
        }
        if n % 256 == 0 {
            pb.set_position(progress.disk());
            pb.set_message(format!("{} pages", n + 1));
        }
    }
    build.commit()?;
    pb.finish_and_clear();
    // Several files add up (`--format xml a.xml b.xml`), and so do several corpora.
    let before = self::duplicates(build)?;
    build.set_meta("ingest.duplicates", &(before + duplicates).to_string())?;
    Ok(stored + duplicates)
}

/// The pages every ingest so far left out as duplicates (`ingest.duplicates`).
fn duplicates(build: &Build) -> Result<u64> {
    Ok(build
        .meta("ingest.duplicates")?
        .and_then(|d| d.parse().ok())
        .unwrap_or(0))
}

/// Reads one SQL dump to the end with the reader of its table ([`sql_table`]) and returns its
/// row count; a table with no typed reader has its rows counted untyped.
fn bench_sql_file(path: &Path, progress: &Progress) -> Result<u64> {
    let table = sql_table(path)?;
    fn rows<T>(it: impl Iterator<Item = wiki::Result<T>>) -> Result<u64> {
        let mut n = 0;
        for row in it {
            row?;
            n += 1;
        }
        Ok(n)
    }
    match table.as_str() {
        "page" => rows(wiki::sql::read_pages(path, progress)?),
        "redirect" => rows(wiki::sql::read_redirects(path, progress)?),
        "pagelinks" => rows(wiki::sql::read_pagelinks(path, progress)?),
        "linktarget" => rows(wiki::sql::read_linktargets(path, progress)?),
        "page_props" => rows(wiki::sql::read_page_props(path, progress)?),
        _ => {
            let mut reader = wiki::sql::SqlReader::open(path, progress)?;
            let mut n = 0;
            while reader.next_row()?.is_some() {
                n += 1;
            }
            Ok(n)
        }
    }
}

/// Reads SQL dumps into a build: commits every [`BATCH`] rows, shows progress, and collects
/// the files that lack mysqldump's closing line.
pub(crate) struct SqlIngest<'b> {
    build: &'b Build,
    progress: &'b Progress,
    pb: indicatif::ProgressBar,
    rows: u64,
    /// Added to every page id the dumps name (`pl_from`, `pp_page`, `rd_from`, `page_id`).
    id_offset: u64,
    incomplete: Vec<String>,
}

impl<'b> SqlIngest<'b> {
    /// Starts a transaction; [`SqlIngest::finish`] commits it.
    pub(crate) fn new(
        build: &'b Build,
        progress: &'b Progress,
        total_bytes: u64,
        id_offset: u64,
    ) -> Result<Self> {
        let pb = progress::bytes_bar(total_bytes);
        pb.set_prefix("ingest");
        build.begin()?;
        Ok(SqlIngest {
            build,
            progress,
            pb,
            rows: 0,
            id_offset,
            incomplete: Vec::new(),
        })
    }

    fn id(&self, id: u64) -> Result<u64> {
        id.checked_add(self.id_offset)
            .with_context(|| format!("page {id}: id + {} is too large", self.id_offset))
    }

    /// Every BATCH rows: commit, and show how far the input is read.
    fn tick(&mut self, what: &str) -> Result<()> {
        self.rows += 1;
        if self.rows.is_multiple_of(BATCH) {
            self.build.commit()?;
            self.build.begin()?;
            self.pb.set_position(self.progress.disk());
            self.pb.set_message(format!("{} rows ({what})", self.rows));
        }
        Ok(())
    }

    fn check(&mut self, completed: bool, path: &Path) {
        if !completed {
            self.incomplete.push(path.display().to_string());
        }
    }

    /// `page` rows as pages without text.
    pub(crate) fn pages(&mut self, path: &Path) -> Result<()> {
        let mut rows_of = wiki::sql::read_pages(path, self.progress)?;
        for row in &mut rows_of {
            let row = row?;
            // Titles as Wikipedia displays them, namespace prefix included (as XML dumps give
            // them); SQL dumps carry no namespace names, so the canonical ones are used.
            self.build.insert_page(&NewPage {
                id: self.id(row.id)?,
                title: &wiki::title::with_namespace(row.ns, &row.title),
                ns: row.ns,
                // `page_is_redirect` without a `redirect` row leaves the target unknown: an empty
                // title, so the page is no article and links to it do not resolve.
                redirect_to: row.is_redirect.then_some(""),
                is_disambiguation: false,
                text: None,
            })?;
            self.tick("page")?;
        }
        self.check(rows_of.completed(), path);
        Ok(())
    }

    /// `redirect` rows: the targets of stored pages.
    pub(crate) fn redirects(&mut self, path: &Path) -> Result<()> {
        let mut rows_of = wiki::sql::read_redirects(path, self.progress)?;
        for row in &mut rows_of {
            let row = row?;
            // A redirect into another namespace keeps its prefix, so it never resolves to an
            // article of the same name.
            let target = wiki::title::with_namespace(row.ns, &row.title);
            self.build.set_redirect(self.id(row.from)?, &target)?;
            self.tick("redirect")?;
        }
        self.check(rows_of.completed(), path);
        Ok(())
    }

    /// `linktarget` and `pagelinks` rows, staged for [`Build::resolve_links`].
    pub(crate) fn links(
        &mut self,
        linktarget: Option<&Path>,
        pagelinks: Option<&Path>,
    ) -> Result<()> {
        if let Some(lt) = linktarget {
            let mut rows_of = wiki::sql::read_linktargets(lt, self.progress)?;
            for row in &mut rows_of {
                let row = row?;
                let title = wiki::title::with_namespace(row.ns, &row.title);
                self.build.stage_link_target(row.id, row.ns, &title)?;
                self.tick("linktarget")?;
            }
            self.check(rows_of.completed(), lt);
        }
        if let Some(f) = pagelinks {
            let mut rows_of = wiki::sql::read_pagelinks(f, self.progress)?;
            for row in &mut rows_of {
                let row = row?;
                let from = self.id(row.from)?;
                match row.target {
                    wiki::sql::LinkTarget::Title { ns, title } => {
                        self.build
                            .stage_link(from, ns, &wiki::title::with_namespace(ns, &title))?
                    }
                    wiki::sql::LinkTarget::Id(id) => self.build.stage_link_by_target(from, id)?,
                }
                self.tick("pagelinks")?;
            }
            self.check(rows_of.completed(), f);
        }
        Ok(())
    }

    /// `page_props` rows: the pages marked `disambiguation` get the flag; every other property
    /// is skipped (see `wiki::sql::read_disambiguations`), and so are ids of pages not stored.
    pub(crate) fn disambiguations(&mut self, path: &Path) -> Result<()> {
        let mut rows_of = wiki::sql::read_disambiguations(path, self.progress)?;
        let mut flagged = 0u64;
        for row in &mut rows_of {
            let wiki::sql::Disambiguation(page) = row?;
            flagged += u64::from(self.build.set_disambiguation(self.id(page)?)?);
            self.tick("page_props")?;
        }
        self.check(rows_of.completed(), path);
        self.build
            .set_meta("ingest.page_props_disambiguations", &flagged.to_string())?;
        Ok(())
    }

    /// Commits, and warns about (and records in `meta`) the files that lack mysqldump's closing
    /// `-- Dump completed` line: an excerpt, or a file cut between two tuples. Both read
    /// cleanly, so this is said rather than failed.
    pub(crate) fn finish(self) -> Result<()> {
        self.build.commit()?;
        self.pb.finish_and_clear();
        if !self.incomplete.is_empty() {
            eprintln!(
                "warning: no `-- Dump completed` line at the end of {}: an excerpt, or cut short",
                self.incomplete.join(", ")
            );
        }
        self.build
            .set_meta("ingest.sql_incomplete_files", &self.incomplete.join(" "))?;
        Ok(())
    }
}

fn ingest_sql(build: &Build, req: &Request, progress: &Progress) -> Result<()> {
    let paths = input_files(&req.paths)?;
    let tables = sql_tables(&paths)?;
    let Some(page_file) = tables.get("page") else {
        bail!("no `page` SQL dump among {paths:?}: the pages are what links join");
    };
    let mut sql = SqlIngest::new(build, progress, total_size(&paths), req.id_offset)?;
    sql.pages(page_file)?;
    if let Some(f) = tables.get("redirect") {
        sql.redirects(f)?;
    }
    sql.links(
        tables.get("linktarget").map(PathBuf::as_path),
        tables.get("pagelinks").map(PathBuf::as_path),
    )?;
    if let Some(f) = tables.get("page_props") {
        sql.disambiguations(f)?;
    }
    sql.finish()
}

/// Ingests a dump run: the XML's pages, then the SQL links and flags on their page ids (see
/// [`crate::dump_run`] for which input wins for which field).
fn ingest_dump_run(build: &Build, req: &Request, progress: &Progress) -> Result<()> {
    let run = DumpRun::from_paths(&req.paths)?;
    let pagelinks = run.sql.get("pagelinks");
    let page_props = run.sql.get("page_props");
    let keep = PageFields {
        links: pagelinks.is_none(),
        disambiguation: page_props.is_none(),
    };
    let total = total_size(&run.files());
    let pages: Box<dyn Iterator<Item = wiki::Result<Page>>> = match &run.index {
        Some(index) => Box::new(wiki::xml::read_multistream(&run.xml, index, progress)?),
        None => Box::new(wiki::xml::read(&run.xml, progress)?),
    };
    store_file(build, &run.xml, pages, progress, total, req, keep)?;
    let mut sql = SqlIngest::new(build, progress, total, req.id_offset)?;
    sql.links(
        run.sql.get("linktarget").map(PathBuf::as_path),
        pagelinks.map(PathBuf::as_path),
    )?;
    if let Some(f) = page_props {
        sql.disambiguations(f)?;
    }
    sql.finish()?;
    let mut unread: Vec<String> = ["page", "redirect"]
        .iter()
        .filter_map(|t| run.sql.get(*t))
        .map(|p| p.display().to_string())
        .collect();
    unread.sort();
    let source = |sql: bool, table: &str| if sql { table } else { "xml" }.to_string();
    for (key, value) in [
        (
            "ingest.dump_run",
            format!(
                "{} {}",
                run.wiki.clone().unwrap_or_default(),
                run.date.clone().unwrap_or_default()
            ),
        ),
        (
            "ingest.links_from",
            source(pagelinks.is_some(), "pagelinks"),
        ),
        (
            "ingest.disambiguation_from",
            source(page_props.is_some(), "page_props"),
        ),
        ("ingest.dump_run_unread", unread.join(" ")),
    ] {
        build.set_meta(key, value.trim())?;
    }
    Ok(())
}

/// Runs the ingest stage into `build` (which should be new: ingest starts the store).
pub fn run(build: &Build, req: &Request) -> Result<Report> {
    let start = Instant::now();
    // A corpus added to others records its own pages and links (a text-only corpus recorded
    // Wikispeedia's 119,882 links as its own); the first records the database's (an API ingest
    // resumed goes on counting).
    let before = if req.meta_stage == "ingest" {
        [0; 6]
    } else {
        let [pages, redirects, disambiguations, links, texts] = build.ingest_counts()?;
        [
            pages,
            redirects,
            disambiguations,
            links,
            texts,
            duplicates(build)?,
        ]
    };
    let progress = Progress::default();
    let total = total_size(&req.paths);
    let first = req.paths.first().context("no input path given")?;
    for p in req.paths.iter().filter(|_| req.format != Format::Api) {
        if !p.exists() {
            bail!("{}: no such file or directory", p.display());
        }
    }
    let all = PageFields {
        links: true,
        disambiguation: true,
    };
    match req.format {
        Format::Xml => {
            for p in input_files(&req.paths)? {
                let pages = wiki::xml::read(&p, &progress)?;
                store_file(build, &p, pages, &progress, total, req, all)?;
            }
        }
        Format::Multistream => {
            let index = req
                .index
                .as_deref()
                .context("--format multistream needs --index PATH")?;
            let pages = wiki::xml::read_multistream(first, index, &progress)?;
            store_file(build, first, pages, &progress, total, req, all)?;
        }
        Format::Extractor => {
            for p in input_files(&req.paths)? {
                let pages = wiki::extractor::read(&p, &progress)?;
                store_file(build, &p, pages, &progress, total, req, all)?;
            }
        }
        Format::Wikispeedia => {
            let opts = wiki::wikispeedia::Options {
                skip_site_pages: req.skip_site_pages,
            };
            let pages = wiki::wikispeedia::read_with(first, opts, &progress)?;
            store_file(build, first, pages, &progress, total, req, all)?;
        }
        Format::Sql => ingest_sql(build, req, &progress)?,
        Format::DumpRun => ingest_dump_run(build, req, &progress)?,
        Format::Api => {
            // The database is the resume state: what it holds is not fetched again.
            let held = build.reader().stored_page_ids(&req.page_ids)?;
            let [held_pages, ..] = build.ingest_counts()?;
            if let Err(e) = store_pages(build, api_pages(req, &held)?, &progress, 0) {
                if !req.keep_partial {
                    return Err(e);
                }
                // Keep what this run stored, with links and meta, and say so.
                build.commit_if_open()?;
                build.set_meta("ingest.partial", "true")?;
                let report = finish_ingest(build, req, &progress, start, before)?;
                let pages = report.pages - held_pages;
                return Err(e.context(PartialIngest { pages }));
            }
            build.set_meta("ingest.partial", "false")?;
        }
    }
    refuse_empty(
        build,
        req,
        finish_ingest(build, req, &progress, start, before)?,
    )
}

/// Fails an ingest that found nothing, naming the input, so that an empty file, a file of
/// garbage or an empty links file never replaces a database with an empty one (issue 13): no
/// page at all, or, from a source that has links (Wikispeedia's `links.tsv`, an SQL `pagelinks`
/// dump), not one link.
fn refuse_empty(build: &Build, req: &Request, report: Report) -> Result<Report> {
    let inputs: Vec<String> = req.paths.iter().map(|p| p.display().to_string()).collect();
    if report.pages == 0 {
        bail!(
            "{}: no page in this input ({} format); nothing is written",
            inputs.join(", "),
            format!("{:?}", req.format).to_lowercase()
        );
    }
    // Links read, whether or not they resolved (`pagelinks` rows to unknown link targets
    // are counted apart from the staged ones).
    let mut staged = 0u64;
    for key in ["links_staged", "link_targets_missing"] {
        staged += build
            .meta(&format!("{}.{key}", req.meta_stage))?
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
    }
    let links_file = match req.format {
        Format::Wikispeedia => req
            .paths
            .first()
            .map(|d| d.join(wiki::wikispeedia::LINKS_FILE)),
        Format::Sql => sql_tables(&input_files(&req.paths)?)?.remove("pagelinks"),
        Format::DumpRun => DumpRun::from_paths(&req.paths)?.sql.remove("pagelinks"),
        _ => None,
    };
    if let Some(file) = links_file.filter(|_| staged == 0) {
        bail!(
            "{}: no link in this file ({} pages read); nothing is written",
            file.display(),
            report.pages
        );
    }
    Ok(report)
}

/// Resolves the staged links and records the ingest in `meta`: its counts less `before` (what
/// the corpora before this one stored, and the duplicates they left out; the report keeps the
/// database's totals).
fn finish_ingest(
    build: &Build,
    req: &Request,
    progress: &Progress,
    start: Instant,
    before: [u64; 6],
) -> Result<Report> {
    // An API ingest may be resumed: links to pages not fetched yet wait for them.
    let links = if req.format == Format::Api {
        build.resolve_links_keeping_pending()?
    } else {
        build.resolve_links()?
    };
    let [pages, redirects, disambiguations, stored_links, texts] = build.ingest_counts()?;
    let report = Report {
        pages,
        redirects,
        disambiguations,
        links: stored_links,
        texts,
        duplicates: duplicates(build)?,
        links_unresolved: links.unresolved,
        links_via_redirect: links.via_redirect,
    };
    let inputs: Vec<String> = req.paths.iter().map(|p| p.display().to_string()).collect();
    let added = |i: usize, now: u64| now.saturating_sub(before[i]).to_string();
    record(
        build,
        &req.meta_stage,
        &[
            ("format", format!("{:?}", req.format).to_lowercase()),
            ("input", inputs.join(" ")),
            ("skip_site_pages", req.skip_site_pages.to_string()),
            ("pages", added(0, pages)),
            ("redirects", added(1, redirects)),
            ("disambiguations", added(2, disambiguations)),
            ("links", added(3, stored_links)),
            ("links_staged", links.staged.to_string()),
            ("links_unresolved", links.unresolved.to_string()),
            ("links_via_redirect", links.via_redirect.to_string()),
            ("link_targets_missing", links.missing_targets.to_string()),
            ("texts", added(4, texts)),
            ("duplicates", added(5, report.duplicates)),
            ("bytes_read", progress.disk().to_string()),
            ("bytes_decoded", progress.decoded().to_string()),
            ("seconds", format!("{:.3}", start.elapsed().as_secs_f64())),
        ],
    )?;
    Ok(report)
}

/// What reading a source without storing it measured.
#[derive(Debug, Clone)]
pub struct ReadFigures {
    /// Pages read; for SQL dumps, rows of whatever tables they hold.
    pub pages: u64,
    pub decoded_bytes: u64,
    pub seconds: f64,
}

/// Reads a source to the end without storing anything: the readers' own speed.
pub fn bench_read(req: &Request) -> Result<ReadFigures> {
    let progress = Progress::default();
    let start = Instant::now();
    let first = req.paths.first().context("no input path given")?;
    let mut pages = 0u64;
    let mut count = |it: &mut dyn Iterator<Item = wiki::Result<Page>>| -> Result<()> {
        for p in it {
            p?;
            pages += 1;
        }
        Ok(())
    };
    match req.format {
        Format::Xml => {
            for p in input_files(&req.paths)? {
                count(&mut wiki::xml::read(&p, &progress)?)?
            }
        }
        Format::Multistream => {
            let index = req
                .index
                .as_deref()
                .context("--format multistream needs --index PATH")?;
            count(&mut wiki::xml::read_multistream(first, index, &progress)?)?
        }
        Format::Extractor => {
            for p in input_files(&req.paths)? {
                count(&mut wiki::extractor::read(&p, &progress)?)?
            }
        }
        Format::Wikispeedia => {
            let opts = wiki::wikispeedia::Options {
                skip_site_pages: req.skip_site_pages,
            };
            count(&mut wiki::wikispeedia::read_with(first, opts, &progress)?)?
        }
        Format::Api => count(&mut api_pages(req, &HashSet::new())?)?,
        Format::Sql => {
            for p in input_files(&req.paths)? {
                pages += bench_sql_file(&p, &progress)?;
            }
        }
        Format::DumpRun => {
            let run = DumpRun::from_paths(&req.paths)?;
            match &run.index {
                Some(index) => count(&mut wiki::xml::read_multistream(
                    &run.xml, index, &progress,
                )?)?,
                None => count(&mut wiki::xml::read(&run.xml, &progress)?)?,
            }
            for p in run.sql.values() {
                pages += bench_sql_file(p, &progress)?;
            }
        }
    }
    Ok(ReadFigures {
        pages,
        decoded_bytes: progress.decoded(),
        seconds: start.elapsed().as_secs_f64().max(1e-9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQL_SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/sql-sample"
    );

    #[test]
    fn bench_read_sql_uses_each_files_table() {
        let dir = PathBuf::from(SQL_SAMPLE);
        let one = |name: &str| {
            bench_read(&Request::files(Format::Sql, vec![dir.join(name)]))
                .unwrap_or_else(|e| panic!("{name}: {e:#}"))
        };
        // Row counts pinned by wiki's tests/sql_dumps.rs on the same files.
        assert_eq!(one("test-20240901-page.sql").pages, 14);
        assert_eq!(one("test-20240901-linktarget.sql").pages, 4);
        assert_eq!(one("test-20240901-pagelinks.sql").pages, 3);
        // Named `…-small.sql`: the table is read from the file's INSERT.
        assert_eq!(one("dewiki-20240901-linktarget-small.sql").pages, 191);
        assert_eq!(one("dewiki-20240901-pagelinks-small.sql").pages, 731);
        // The whole folder: every row once, every byte decoded once (the peek is not counted).
        let all = bench_read(&Request::files(Format::Sql, vec![dir.clone()])).unwrap();
        assert_eq!(all.pages, 14 + 4 + 3 + 191 + 731);
        assert_eq!(all.decoded_bytes, total_size(&[dir]));
    }
}
