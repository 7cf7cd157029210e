//! Stage `ingest`: one Wikipedia source into `pages`, `page_text` and `links`.
//!
//! Pages stream in from the `wiki` readers and are written in batches of [`BATCH`] per
//! transaction; links are staged by title and resolved (redirects followed) once all pages are in.

use crate::{progress, record};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::time::Instant;
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
    /// SQL dumps: `page`, `redirect`, `pagelinks`, `linktarget` (`.sql`, `.sql.gz`), named by table.
    Sql,
    /// WikiExtractor output, `<doc>` or JSON lines (plain, `.xz`, `.bz2`, `.gz`).
    Extractor,
    /// The Wikispeedia folder (`plaintext_articles.tar.gz`, `articles.tsv`, `links.tsv`).
    Wikispeedia,
    /// The MediaWiki API: PATH is the endpoint (`https://en.wikipedia.org/w/api.php`), pages by
    /// `--page-ids`; with `--state FILE` an interrupted run can be resumed.
    Api,
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
    /// API: the file recording fetched ids, for resuming.
    pub state: Option<PathBuf>,
    /// API: when the fetch fails part-way, keep what was stored (and fail with
    /// [`PartialIngest`]) so that the caller can save it and a rerun can go on from there.
    pub keep_partial: bool,
    /// API: the User-Agent to send (default [`wiki::api::DEFAULT_USER_AGENT`]); Wikimedia asks
    /// for one that names the tool and a contact.
    pub user_agent: Option<String>,
    /// API: requests in flight at once (default 2).
    pub concurrency: Option<usize>,
}

/// An API ingest that failed part-way with `keep_partial` set: the pages fetched so far are
/// stored and their links resolved; the build is worth saving, and the state file agrees with it.
#[derive(Debug)]
pub struct PartialIngest {
    pub pages: u64,
}

impl std::fmt::Display for PartialIngest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the fetch stopped part-way; the {} pages fetched so far are kept: run the same \
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
            state: None,
            keep_partial: false,
            user_agent: None,
            concurrency: None,
        }
    }
}

fn api_pages(req: &Request) -> Result<wiki::api::FetchPages> {
    let url = req
        .paths
        .first()
        .context("--format api needs the endpoint URL as PATH")?;
    if req.page_ids.is_empty() {
        bail!("--format api needs --page-ids ID,ID,…");
    }
    let defaults = wiki::api::ApiOptions::default();
    let options = wiki::api::ApiOptions {
        state_file: req.state.clone(),
        user_agent: req
            .user_agent
            .clone()
            .unwrap_or(defaults.user_agent.clone()),
        concurrency: req.concurrency.unwrap_or(defaults.concurrency).max(1),
        ..defaults
    };
    let client = wiki::api::ApiClient::new(&url.to_string_lossy(), options)?;
    Ok(client.fetch_pages(&req.page_ids)?)
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

fn total_size(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .map(|p| {
            if p.is_dir() {
                std::fs::read_dir(p)
                    .map(|d| {
                        d.flatten()
                            .filter_map(|e| e.metadata().ok())
                            .map(|m| m.len())
                            .sum()
                    })
                    .unwrap_or(0)
            } else {
                std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
            }
        })
        .sum()
}

/// Writes a stream of pages: each page, its text, and its links staged for resolution.
pub fn store_pages(
    build: &Build,
    pages: impl Iterator<Item = wiki::Result<Page>>,
    progress: &Progress,
    total_bytes: u64,
) -> Result<u64> {
    let pb = progress::bytes_bar(total_bytes);
    pb.set_prefix("ingest");
    let mut stored = 0u64;
    let mut duplicates = 0u64;
    build.begin()?;
    for (n, page) in pages.enumerate() {
        let page = page?;
        let new = NewPage {
            id: page.id,
            title: &page.title,
            ns: page.ns,
            redirect_to: page.redirect.as_deref(),
            is_disambiguation: page.is_disambiguation,
            text: Some(&page.text),
        };
        if build.insert_page(&new)? {
            stored += 1;
            for l in &page.links {
                build.stage_link(page.id, 0, l)?;
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
    build.set_meta("ingest.duplicates", &duplicates.to_string())?;
    Ok(stored)
}

/// Finds the dump file of `table` among `paths` (`…-page.sql.gz`, `…-pagelinks.sql`…).
fn sql_file<'a>(paths: &'a [PathBuf], table: &str) -> Option<&'a Path> {
    paths
        .iter()
        .map(PathBuf::as_path)
        .find(|p| is_sql_dump_of(p, table))
}

/// Whether the file name says it is the dump of `table` (`enwiki-…-page.sql.gz`, `page.sql`).
fn is_sql_dump_of(path: &Path, table: &str) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.trim_end_matches(".gz").trim_end_matches(".sql");
    stem.ends_with(&format!("-{table}")) || stem == table
}

/// The tables the SQL ingest reads, each with its typed reader in `wiki::sql`.
const SQL_TABLES: [&str; 4] = ["page", "redirect", "pagelinks", "linktarget"];

/// Reads one SQL dump to the end with the reader of its table and returns its row count. The
/// table comes from the file name like [`sql_file`] reads it, else from the file's first
/// `INSERT` (excerpts such as `…-linktarget-small.sql` name it only inside); a table with no
/// typed reader has its rows counted untyped.
fn bench_sql_file(path: &Path, progress: &Progress) -> Result<u64> {
    let table = match SQL_TABLES.iter().find(|t| is_sql_dump_of(path, t)) {
        Some(t) => t.to_string(),
        None => {
            let mut peek = wiki::sql::SqlReader::open(path, &Progress::default())?;
            peek.next_row()?;
            peek.table().to_string()
        }
    };
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

fn expand_sql_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("listing {}", p.display()))?
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            out.extend(entries);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn ingest_sql(build: &Build, paths: &[PathBuf], progress: &Progress) -> Result<()> {
    let paths = expand_sql_paths(paths)?;
    let Some(page_file) = sql_file(&paths, "page") else {
        bail!(
            "no `page` SQL dump among {paths:?} (expected a file named like `enwiki-…-page.sql.gz`)"
        );
    };
    build.begin()?;
    let mut n = 0u64;
    for row in wiki::sql::read_pages(page_file, progress)? {
        let row = row?;
        build.insert_page(&NewPage {
            id: row.id,
            title: &row.title,
            ns: row.ns,
            // `page_is_redirect` without a `redirect` row leaves the target unknown: an empty
            // title, so the page is no article and links to it do not resolve.
            redirect_to: row.is_redirect.then_some(""),
            is_disambiguation: false,
            text: None,
        })?;
        n += 1;
        if n.is_multiple_of(BATCH) {
            build.commit()?;
            build.begin()?;
        }
    }
    if let Some(f) = sql_file(&paths, "redirect") {
        for row in wiki::sql::read_redirects(f, progress)? {
            let row = row?;
            // A redirect into another namespace keeps its prefix, so it never resolves to an
            // article of the same name.
            let target = wiki::title::with_namespace(row.ns, &row.title);
            build.set_redirect(row.from, &target)?;
        }
    }
    if let Some(lt) = sql_file(&paths, "linktarget") {
        for row in wiki::sql::read_linktargets(lt, progress)? {
            let row = row?;
            build.stage_link_target(row.id, row.ns, &row.title)?;
        }
    }
    if let Some(f) = sql_file(&paths, "pagelinks") {
        for row in wiki::sql::read_pagelinks(f, progress)? {
            let row = row?;
            match row.target {
                wiki::sql::LinkTarget::Title { ns, title } => {
                    build.stage_link(row.from, ns, &title)?
                }
                wiki::sql::LinkTarget::Id(id) => build.stage_link_by_target(row.from, id)?,
            }
        }
    }
    build.commit()?;
    Ok(())
}

/// Runs the ingest stage into `build` (which should be new: ingest starts the store).
pub fn run(build: &Build, req: &Request) -> Result<Report> {
    let start = Instant::now();
    let progress = Progress::default();
    let total = total_size(&req.paths);
    let first = req.paths.first().context("no input path given")?;
    for p in req.paths.iter().filter(|_| req.format != Format::Api) {
        if !p.exists() {
            bail!("{}: no such file or directory", p.display());
        }
    }
    match req.format {
        Format::Xml => {
            for p in &req.paths {
                store_pages(build, wiki::xml::read(p, &progress)?, &progress, total)?;
            }
        }
        Format::Multistream => {
            let index = req
                .index
                .as_deref()
                .context("--format multistream needs --index PATH")?;
            store_pages(
                build,
                wiki::xml::read_multistream(first, index, &progress)?,
                &progress,
                total,
            )?;
        }
        Format::Extractor => {
            for p in &req.paths {
                store_pages(
                    build,
                    wiki::extractor::read(p, &progress)?,
                    &progress,
                    total,
                )?;
            }
        }
        Format::Wikispeedia => {
            let opts = wiki::wikispeedia::Options {
                skip_site_pages: req.skip_site_pages,
            };
            store_pages(
                build,
                wiki::wikispeedia::read_with(first, opts, &progress)?,
                &progress,
                total,
            )?;
        }
        Format::Sql => ingest_sql(build, &req.paths, &progress)?,
        Format::Api => {
            if let Err(e) = store_pages(build, api_pages(req)?, &progress, 0) {
                if !req.keep_partial {
                    return Err(e);
                }
                // The state file has recorded exactly the pages written so far: keep them.
                build.commit_if_open()?;
                build.resolve_links_keeping_pending()?;
                let [pages, ..] = build.ingest_counts()?;
                build.set_meta("ingest.partial", "true")?;
                return Err(e.context(PartialIngest { pages }));
            }
        }
    }
    // An API ingest may be resumed: links to pages not fetched yet wait for them.
    let links = if req.format == Format::Api {
        build.set_meta("ingest.partial", "false")?;
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
        duplicates: build
            .meta("ingest.duplicates")?
            .and_then(|d| d.parse().ok())
            .unwrap_or(0),
        links_unresolved: links.unresolved,
        links_via_redirect: links.via_redirect,
    };
    let inputs: Vec<String> = req.paths.iter().map(|p| p.display().to_string()).collect();
    record(
        build,
        "ingest",
        &[
            ("format", format!("{:?}", req.format).to_lowercase()),
            ("input", inputs.join(" ")),
            ("skip_site_pages", req.skip_site_pages.to_string()),
            ("pages", pages.to_string()),
            ("redirects", redirects.to_string()),
            ("disambiguations", disambiguations.to_string()),
            ("links", stored_links.to_string()),
            ("links_staged", links.staged.to_string()),
            ("links_unresolved", links.unresolved.to_string()),
            ("links_via_redirect", links.via_redirect.to_string()),
            ("link_targets_missing", links.missing_targets.to_string()),
            ("texts", texts.to_string()),
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
        Format::Xml => count(&mut wiki::xml::read(first, &progress)?)?,
        Format::Multistream => {
            let index = req
                .index
                .as_deref()
                .context("--format multistream needs --index PATH")?;
            count(&mut wiki::xml::read_multistream(first, index, &progress)?)?
        }
        Format::Extractor => count(&mut wiki::extractor::read(first, &progress)?)?,
        Format::Wikispeedia => {
            let opts = wiki::wikispeedia::Options {
                skip_site_pages: req.skip_site_pages,
            };
            count(&mut wiki::wikispeedia::read_with(first, opts, &progress)?)?
        }
        Format::Api => count(&mut api_pages(req)?)?,
        Format::Sql => {
            for p in expand_sql_paths(&req.paths)? {
                pages += bench_sql_file(&p, &progress)?;
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

    #[test]
    fn dump_names_map_to_tables() {
        let p = Path::new("enwiki-20240901-pagelinks.sql.gz");
        assert!(is_sql_dump_of(p, "pagelinks"));
        assert!(!is_sql_dump_of(p, "page"));
        assert!(is_sql_dump_of(Path::new("page.sql"), "page"));
        assert!(!is_sql_dump_of(
            Path::new("x-linktarget-small.sql"),
            "linktarget"
        ));
    }
}
