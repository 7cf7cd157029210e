//! Ingest writes: pages, their text, redirects and links by title. Links are staged by title
//! while pages stream in, then resolved in one pass once every title is known.

use crate::graph::IdIndex;
use crate::{Build, GraphBuilder};
use anyhow::{Context, Result, bail};
use rusqlite::params;
use std::borrow::Cow;

/// The longest title stored, in bytes of UTF-8. MediaWiki allows 255; beyond 1 KiB a title is
/// garbage or an attack, and it would be echoed in every message that names the page.
pub const MAX_TITLE_BYTES: usize = 1024;

/// Refuses a title no wiki has: empty, longer than [`MAX_TITLE_BYTES`], or holding a control
/// character (a NUL, or a terminal escape sequence that `explain` would print).
fn check_title(id: u64, title: &str) -> Result<()> {
    let problem = if title.trim().is_empty() {
        "empty".to_string()
    } else if title.len() > MAX_TITLE_BYTES {
        format!(
            "{} bytes long, more than the cap of {MAX_TITLE_BYTES} (store::MAX_TITLE_BYTES)",
            title.len()
        )
    } else if let Some(c) = title.chars().find(|c| c.is_control()) {
        format!("holding the control character {:?}", c)
    } else {
        return Ok(());
    };
    let shown: String = title.chars().take(80).collect();
    let cut = if shown.len() < title.len() { "…" } else { "" };
    bail!(
        "page {id}: the title {shown:?}{cut} is {problem}; titles are non-empty, at most {MAX_TITLE_BYTES} bytes, without control characters"
    )
}

/// The text without control characters other than newline and tab (a carriage return, NUL,
/// ESC, BEL…): what a corpus stores cannot make a terminal that prints it do anything.
pub fn clean_text(text: &str) -> Cow<'_, str> {
    let unwanted = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unwanted) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|&c| !unwanted(c)).collect())
}

/// A page as the ingest stage stores it.
#[derive(Debug, Clone, Copy)]
pub struct NewPage<'a> {
    pub id: u64,
    pub title: &'a str,
    pub ns: i32,
    pub redirect_to: Option<&'a str>,
    pub is_disambiguation: bool,
    /// Plain text; `None` where the source has none (SQL `page` dumps).
    pub text: Option<&'a str>,
}

/// What link resolution did with the staged links.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Links staged by readers (duplicates included).
    pub staged: u64,
    /// Distinct `(src, dst)` pairs stored.
    pub stored: u64,
    /// Staged links whose target was a redirect followed to a stored page.
    pub via_redirect: u64,
    /// Staged links whose target (or redirect target) is not a stored page, or whose source is not.
    pub unresolved: u64,
    /// SQL `pagelinks` rows whose target id has no `linktarget` row (not counted in `staged`).
    pub missing_targets: u64,
}

/// What a finished `pipeline all` keeps of its build inputs. The stages read the page text and
/// the links; answers and `explain` read neither, and they are most of the file (448 of 928 MB
/// offline, ~45 of ~50 GB for enwiki), so a database people keep holds them only when asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeepInputs {
    /// Keep `page_text` (`--keep-text`).
    pub text: bool,
    /// Keep `links` (`--keep-links`).
    pub links: bool,
}

/// The `meta` key saying whether `pipeline all` kept `page_text` (`kept`) or emptied it
/// (`dropped`); absent when no `pipeline all` finished the database.
pub const PAGE_TEXT_KEY: &str = "pipeline.page_text";
/// The same for `links`.
pub const LINKS_KEY: &str = "pipeline.links";

/// Where a title leads: the page itself, or one redirect hop on to an article. Looked up once
/// per `linktarget` row (SQL dumps), not once per `pagelinks` row: a dump has far more links
/// than distinct targets.
const DESTINATION: &str = "CASE WHEN p.redirect_to IS NULL THEN p.id ELSE t.id END AS dst,
    p.redirect_to IS NOT NULL AS via_redirect";
const LOOKUP: &str = "JOIN pages p ON p.ns = x.ns AND p.title = x.title
    LEFT JOIN pages t ON p.redirect_to IS NOT NULL AND t.ns = 0 AND t.title = p.redirect_to
    WHERE p.redirect_to IS NULL OR t.id IS NOT NULL";

/// Link resolution on the way in: the graph being built, and what the `pagelinks` rows resolve
/// against (loaded on the first row, dropped when a link target or page is added).
#[derive(Default)]
pub(crate) struct LinkState {
    builder: Option<GraphBuilder>,
    targets: Option<TargetMap>,
    pages: Option<IdIndex>,
    /// The last source looked up, and whether it is a stored page (`pagelinks` comes sorted by
    /// source, so this is one lookup per page, not per link).
    last_src: Option<(u64, bool)>,
    stats: LinkStats,
}

/// Staged link targets by id, sorted, each with its page (bit 63: through a redirect) or
/// [`TargetMap::NOWHERE`]. 16 bytes per `linktarget` row; when the ids are dense (they are
/// MediaWiki's auto-increment), a lookup is an index, else a binary search.
#[derive(Default)]
struct TargetMap {
    keys: Vec<u64>,
    values: Vec<u64>,
}

impl TargetMap {
    const NOWHERE: u64 = u64::MAX;

    /// `None`: no such link target; `Some(None)`: a target that is no stored page;
    /// `Some(Some((page, via_redirect)))`.
    fn get(&self, id: u64) -> Option<Option<(u64, bool)>> {
        let first = *self.keys.first()?;
        let dense = id
            .checked_sub(first)
            .map(|i| i as usize)
            .filter(|&i| self.keys.get(i) == Some(&id));
        let i = match dense {
            Some(i) => i,
            None => self.keys.binary_search(&id).ok()?,
        };
        let v = self.values[i];
        Some((v != Self::NOWHERE).then_some((v & !(1 << 63), v >> 63 == 1)))
    }
}

/// A page or link-target id as SQLite stores it (a signed 64-bit integer). MediaWiki ids are
/// unsigned 32-bit; anything past `i64::MAX` is bad input, refused rather than wrapped.
fn db_id(id: u64) -> Result<i64> {
    i64::try_from(id).map_err(|_| anyhow::anyhow!("id {id} is out of range (at most {})", i64::MAX))
}

impl Build {
    /// Empties the build inputs `keep` does not keep (`page_text`; `links` with the links a
    /// resumable API ingest left pending, `ingest_links`), says which in `meta`, and gives
    /// their space back. All of it happens in this build's temporary file: the database it
    /// replaces is untouched until [`Build::finish`], so a failure or a kill on the way leaves
    /// it whole, and no finished database holds part of its text.
    pub fn drop_inputs(&self, keep: KeepInputs) -> Result<()> {
        self.commit_if_open()?;
        if !keep.text {
            self.conn
                .execute("DELETE FROM page_text", [])
                .context("emptying table page_text")?;
        }
        if !keep.links {
            self.conn
                .execute_batch(
                    "DELETE FROM links; DELETE FROM link_graph; DROP TABLE IF EXISTS ingest_links;",
                )
                .context("emptying tables links and link_graph")?;
            self.staging.set(false);
        }
        let said = |kept| if kept { "kept" } else { "dropped" };
        self.set_meta(PAGE_TEXT_KEY, said(keep.text))?;
        self.set_meta(LINKS_KEY, said(keep.links))?;
        if !(keep.text && keep.links) {
            // Emptied pages stay in the file, free, until it is rewritten: VACUUM copies what
            // is left into a temporary database (in SQLite's temporary folder) and back.
            self.conn
                .execute_batch("VACUUM")
                .context("compacting the database (VACUUM)")?;
        }
        crate::pause::pause_for_test("inputs dropped", &self.tmp);
        Ok(())
    }

    /// Creates the staging tables the first time a link is staged. `ingest_links` may already
    /// hold links a resumed API ingest kept pending; the other two live only until resolution.
    fn ensure_staging(&self) -> Result<()> {
        if self.staging.get() {
            return Ok(());
        }
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_links (src INTEGER NOT NULL, ns INTEGER NOT NULL, title TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS ingest_linktargets (id INTEGER PRIMARY KEY, ns INTEGER NOT NULL, title TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS ingest_pagelinks (src INTEGER NOT NULL, target INTEGER NOT NULL);",
        )?;
        self.staging.set(true);
        Ok(())
    }

    /// Stores a page (and its text). Returns false when a page with the same id or the same
    /// `(ns, title)` is already stored: the first one wins, as in a dump read in order.
    pub fn insert_page(&self, page: &NewPage) -> Result<bool> {
        check_title(page.id, page.title)?;
        let id = db_id(page.id).with_context(|| format!("storing page {:?}", page.title))?;
        let text = page.text.map(clean_text);
        let length = text.as_deref().map(|t| t.chars().count()).unwrap_or(0) as i64;
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO pages (id, title, ns, redirect_to, is_disambiguation, length)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                id,
                page.title,
                page.ns,
                page.redirect_to,
                page.is_disambiguation,
                length
            ])
            .with_context(|| format!("storing page {} ({:?})", page.id, page.title))?;
        if n == 1 {
            self.links.borrow_mut().pages = None;
        }
        if n == 1
            && let Some(text) = text.filter(|t| !t.is_empty())
        {
            self.conn
                .prepare_cached("INSERT OR REPLACE INTO page_text (id, text) VALUES (?1, ?2)")?
                .execute(params![id, text.as_ref()])
                .with_context(|| format!("storing the text of page {}", page.id))?;
        }
        Ok(n == 1)
    }

    /// Marks a stored page as a redirect to `target` (SQL `redirect` dumps come apart from `page`).
    pub fn set_redirect(&self, from: u64, target: &str) -> Result<bool> {
        self.links.borrow_mut().targets = None;
        let n = self
            .conn
            .prepare_cached("UPDATE pages SET redirect_to = ?2 WHERE id = ?1")?
            .execute(params![db_id(from)?, target])?;
        Ok(n == 1)
    }

    /// Marks a stored page as a disambiguation page (SQL `page_props` dumps come apart from
    /// `page`). Returns false when no page has that id: `page_props` covers every namespace,
    /// and a page left out of the build has nothing to mark.
    pub fn set_disambiguation(&self, id: u64) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached("UPDATE pages SET is_disambiguation = 1 WHERE id = ?1")?
            .execute(params![db_id(id)?])?;
        Ok(n == 1)
    }

    /// Stages a link from page `src` to the page titled `title` in namespace `ns`.
    pub fn stage_link(&self, src: u64, ns: i32, title: &str) -> Result<()> {
        self.ensure_staging()?;
        self.conn
            .prepare_cached("INSERT INTO ingest_links (src, ns, title) VALUES (?1, ?2, ?3)")?
            .execute(params![db_id(src)?, ns, title])?;
        Ok(())
    }

    /// Stages a `linktarget` row (SQL dumps): target id -> `(ns, title)`, in SQLite, so that
    /// each target's page is looked up once, by title, when the `pagelinks` rows come.
    pub fn stage_link_target(&self, id: u64, ns: i32, title: &str) -> Result<()> {
        self.ensure_staging()?;
        self.links.borrow_mut().targets = None;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO ingest_linktargets (id, ns, title) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![db_id(id)?, ns, title])?;
        Ok(())
    }

    /// Takes a `pagelinks` row of the current layout: page `src` links to link target
    /// `target`. Resolved at once, in memory, to a pair of page ids for the link graph (no
    /// SQLite row per link): the link targets staged so far are read once into a sorted map
    /// (target -> page, through one redirect hop), and the stored pages into a sorted list.
    pub fn stage_link_by_target(&self, src: u64, target: u64) -> Result<()> {
        self.ensure_staging()?;
        let mut state = self.links.borrow_mut();
        if state.targets.is_none() {
            state.targets = Some(self.target_map()?);
        }
        if state.pages.is_none() {
            state.pages = Some(IdIndex::new(self.page_ids()?));
        }
        let state = &mut *state;
        let Some(found) = state.targets.as_ref().and_then(|t| t.get(target)) else {
            state.stats.missing_targets += 1;
            return Ok(());
        };
        state.stats.staged += 1;
        let src_known = match state.last_src {
            Some((id, known)) if id == src => known,
            _ => {
                let known = state.pages.as_ref().is_some_and(|p| p.get(src).is_some());
                state.last_src = Some((src, known));
                known
            }
        };
        match found {
            Some((dst, via)) if src_known => {
                state.stats.via_redirect += u64::from(via);
                let dir = self.spill_dir();
                state
                    .builder
                    .get_or_insert_with(|| GraphBuilder::new(dir, crate::DEFAULT_CHUNK_PAIRS))
                    .push(src, dst)
                    .with_context(|| format!("link from page {src} to link target {target}"))?;
            }
            _ => state.stats.unresolved += 1,
        }
        Ok(())
    }

    /// Every staged link target with its page, if it leads to one: the SQL of [`resolve`] run
    /// once over `ingest_linktargets` (sorted by id, so the map is built in order).
    fn target_map(&self) -> Result<TargetMap> {
        let mut st = self.conn.prepare(&format!(
            "SELECT x.id, d.dst, d.via_redirect FROM ingest_linktargets x
             LEFT JOIN (SELECT x.id AS id, {DESTINATION} FROM ingest_linktargets x {LOOKUP}) d
             ON d.id = x.id ORDER BY x.id"
        ))?;
        let mut map = TargetMap::default();
        let mut rows = st.query([])?;
        while let Some(r) = rows.next().context("resolving link targets")? {
            let id = r.get::<_, i64>(0)? as u64;
            let dst: Option<i64> = r.get(1)?;
            let via: Option<bool> = r.get(2)?;
            map.keys.push(id);
            map.values.push(match dst {
                Some(d) => d as u64 | (u64::from(via.unwrap_or(false)) << 63),
                None => TargetMap::NOWHERE,
            });
        }
        Ok(map)
    }

    /// Where the link sort spills: the database's folder (the build's disk, not a small tmpfs);
    /// `.` for a database named without one (`--db clues.sqlite`).
    fn spill_dir(&self) -> &std::path::Path {
        self.tmp
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."))
    }

    /// Every stored page's id, sorted.
    fn page_ids(&self) -> Result<Vec<u64>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id FROM pages ORDER BY id")?;
        let rows = st.query_map([], |r| Ok(r.get::<_, i64>(0)? as u64))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Turns staged links into the link graph between stored pages, following one redirect
    /// hop, then drops the staging tables.
    pub fn resolve_links(&self) -> Result<LinkStats> {
        self.resolve(false)
    }

    /// As [`resolve_links`](Self::resolve_links), but links whose target is not stored yet stay
    /// staged in `ingest_links`, for a later run that adds their pages (a resumed API ingest).
    pub fn resolve_links_keeping_pending(&self) -> Result<LinkStats> {
        self.resolve(true)
    }

    /// Also write the `links` table (a row per link) whenever links are resolved: for tools
    /// that read it (`--keep-links`). The stages read the graph (`link_graph`) only.
    pub fn set_keep_links(&self, keep: bool) {
        self.keep_links.set(keep);
    }

    fn resolve(&self, keep_pending: bool) -> Result<LinkStats> {
        self.ensure_staging()?;
        self.commit_if_open()?;
        let c = &self.conn;
        let count =
            |sql: &str| -> Result<u64> { Ok(c.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64) };
        // Links by title (XML, Wikispeedia, the API, old `pagelinks` layouts) are resolved in
        // SQLite, joined on titles; those by link target were resolved as they came.
        // Working tables live in the build file itself (on the destination's disk, thrown away
        // with it on failure), not in SQLite's temporary directory, often a small tmpfs.
        c.execute_batch(&format!(
            "DROP TABLE IF EXISTS resolved;
             CREATE TABLE resolved AS
             SELECT x.rowid AS staged_row, x.src AS src, {DESTINATION}
             FROM ingest_links x JOIN pages s ON s.id = x.src {LOOKUP};"
        ))
        .context("resolving links")?;
        let by_title = count("SELECT count(*) FROM ingest_links")?;
        let resolved = count("SELECT count(*) FROM resolved")?;
        let via = count("SELECT count(*) FROM resolved WHERE via_redirect")?;
        let state = std::mem::take(&mut *self.links.borrow_mut());
        let dir = self.spill_dir();
        let mut builder = state
            .builder
            .unwrap_or_else(|| GraphBuilder::new(dir, crate::DEFAULT_CHUNK_PAIRS));
        {
            let mut st = c.prepare("SELECT src, dst FROM resolved")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next().context("reading resolved links")? {
                builder.push(r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)?;
            }
        }
        // The graph of earlier sources of this build, merged with this one's.
        let old = self.reader().link_graph()?;
        for (s, d) in old.pairs() {
            builder.push(s, d)?;
        }
        let graph = builder.finish(self.page_ids()?)?;
        self.begin()?;
        self.write_link_graph(&graph)?;
        if self.keep_links.get() {
            let mut insert =
                c.prepare_cached("INSERT OR IGNORE INTO links (src, dst) VALUES (?1, ?2)")?;
            for (s, d) in graph.pairs() {
                insert
                    .execute(params![s as i64, d as i64])
                    .context("writing table links")?;
            }
        }
        let pending = if keep_pending {
            "DELETE FROM ingest_links WHERE rowid IN (SELECT staged_row FROM resolved);"
        } else {
            "DROP TABLE ingest_links;"
        };
        c.execute_batch(&format!(
            "{pending}
             DROP TABLE resolved; DROP TABLE ingest_pagelinks; DROP TABLE ingest_linktargets;"
        ))
        .context("dropping the staged links")?;
        self.commit()?;
        self.staging.set(false);
        let sql = state.stats;
        Ok(LinkStats {
            missing_targets: sql.missing_targets,
            staged: by_title + sql.staged,
            stored: graph.edges() - old.edges(),
            via_redirect: via + sql.via_redirect,
            unresolved: by_title - resolved + sql.unresolved,
        })
    }

    /// Row counts of the ingest tables: `(pages, redirects, disambiguation pages, links, texts)`.
    pub fn ingest_counts(&self) -> Result<[u64; 5]> {
        let q = |sql: &str| -> Result<u64> {
            Ok(self.conn.query_row(sql, [], |r| r.get::<_, i64>(0))? as u64)
        };
        Ok([
            q("SELECT count(*) FROM pages")?,
            q("SELECT count(*) FROM pages WHERE redirect_to IS NOT NULL")?,
            q("SELECT count(*) FROM pages WHERE is_disambiguation")?,
            self.reader()
                .link_graph_header()?
                .map(|h| h.edges)
                .unwrap_or(0),
            q("SELECT count(*) FROM page_text")?,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page<'a>(id: u64, title: &'a str, redirect_to: Option<&'a str>) -> NewPage<'a> {
        NewPage {
            id,
            title,
            ns: 0,
            redirect_to,
            is_disambiguation: false,
            text: Some("x"),
        }
    }

    #[test]
    fn resolves_links_through_redirects_and_drops_unknown_targets() {
        let dir = tempfile::tempdir().unwrap();
        let b = Build::create(&dir.path().join("t.sqlite")).unwrap();
        b.insert_page(&page(1, "Apple", None)).unwrap();
        b.insert_page(&page(2, "Fruit", None)).unwrap();
        b.insert_page(&page(3, "Fruits", Some("Fruit"))).unwrap();
        b.insert_page(&page(4, "Gone", Some("Nowhere"))).unwrap();
        assert!(
            !b.insert_page(&page(5, "Apple", None)).unwrap(),
            "duplicate title is refused"
        );
        b.stage_link(1, 0, "Fruits").unwrap(); // via redirect -> 2
        b.stage_link(1, 0, "Fruit").unwrap(); // duplicate of the above once resolved
        b.stage_link(1, 0, "Missing").unwrap();
        b.stage_link(1, 0, "Gone").unwrap(); // redirect to a missing page
        b.stage_link(2, 0, "Apple").unwrap();
        b.stage_link(99, 0, "Apple").unwrap(); // unknown source
        let s = b.resolve_links().unwrap();
        assert_eq!(
            s,
            LinkStats {
                staged: 6,
                stored: 2,
                via_redirect: 1,
                unresolved: 3,
                missing_targets: 0
            }
        );
        assert_eq!(b.ingest_counts().unwrap(), [4, 2, 0, 2, 4]);
    }

    #[test]
    fn joins_pagelinks_through_linktargets() {
        let dir = tempfile::tempdir().unwrap();
        let b = Build::create(&dir.path().join("t.sqlite")).unwrap();
        b.insert_page(&page(1, "Apple", None)).unwrap();
        b.insert_page(&page(2, "Fruit", None)).unwrap();
        b.stage_link_target(10, 0, "Fruit").unwrap();
        b.stage_link_target(11, 0, "Nowhere").unwrap();
        b.stage_link_by_target(1, 10).unwrap();
        b.stage_link_by_target(1, 11).unwrap();
        b.stage_link_by_target(2, 99).unwrap(); // no such link target
        let s = b.resolve_links().unwrap();
        assert_eq!(
            s,
            LinkStats {
                staged: 2,
                stored: 1,
                via_redirect: 0,
                unresolved: 1,
                missing_targets: 1
            }
        );
    }

    #[test]
    fn pending_links_wait_for_their_pages() {
        let dir = tempfile::tempdir().unwrap();
        let b = Build::create(&dir.path().join("t.sqlite")).unwrap();
        b.insert_page(&page(1, "Apple", None)).unwrap();
        b.stage_link(1, 0, "Fruit").unwrap(); // not stored yet
        b.stage_link(1, 0, "Apple").unwrap();
        let s = b.resolve_links_keeping_pending().unwrap();
        assert_eq!((s.staged, s.stored, s.unresolved), (2, 1, 1));
        b.insert_page(&page(2, "Fruit", None)).unwrap();
        let s = b.resolve_links_keeping_pending().unwrap();
        assert_eq!(
            (s.staged, s.stored, s.unresolved),
            (1, 1, 0),
            "only the pending one"
        );
        assert_eq!(b.ingest_counts().unwrap()[3], 2);
    }

    #[test]
    fn refuses_ids_past_the_signed_range() {
        let dir = tempfile::tempdir().unwrap();
        let b = Build::create(&dir.path().join("t.sqlite")).unwrap();
        let err = b.insert_page(&page(u64::MAX, "Huge", None)).unwrap_err();
        assert!(
            format!("{err:#}").contains("id 18446744073709551615 is out of range"),
            "{err:#}"
        );
        assert!(b.stage_link(1 << 63, 0, "Apple").is_err());
        assert_eq!(b.ingest_counts().unwrap()[0], 0, "nothing stored");
        assert!(
            b.insert_page(&page(i64::MAX as u64, "Largest", None))
                .unwrap()
        );
    }

    #[test]
    fn failed_build_leaves_previous_database() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("t.sqlite");
        let b = Build::create(&dest).unwrap();
        b.insert_page(&page(1, "Apple", None)).unwrap();
        b.finish().unwrap();
        let before = std::fs::read(&dest).unwrap();
        {
            let b = Build::update(&dest).unwrap();
            b.insert_page(&page(2, "Pear", None)).unwrap();
            // dropped without finish: a failed run
        }
        assert_eq!(std::fs::read(&dest).unwrap(), before);
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "the temporary file is removed");
    }

    /// Issue 13, item 9: a title with a control character, an empty one or an over-long one
    /// is refused, naming the page; text loses its control characters but newline and tab.
    #[test]
    fn titles_are_checked_and_text_is_stripped_of_control_characters() {
        let dir = tempfile::tempdir().unwrap();
        let b = Build::create(&dir.path().join("t.sqlite")).unwrap();
        let page = |id, title| NewPage {
            id,
            title,
            ns: 0,
            redirect_to: None,
            is_disambiguation: false,
            text: Some("Bell\u{7} and \u{1b}[31mred\u{1b}[0m\r\nline\ttab\u{0}\u{9b}."),
        };
        let long = "x".repeat(MAX_TITLE_BYTES + 1);
        for (title, needle) in [
            ("Nul\u{0}Title", "control character"),
            ("Esc\u{1b}[2J", "control character"),
            ("", "empty"),
            ("  ", "empty"),
            (long.as_str(), "more than the cap of 1024"),
        ] {
            let err = b.insert_page(&page(9, title)).unwrap_err();
            let text = format!("{err:#}");
            assert!(text.contains("page 9") && text.contains(needle), "{text}");
            assert!(text.len() < 400, "the title is echoed whole: {text}");
        }
        assert!(b.insert_page(&page(1, "Fine")).unwrap());
        let (text, length): (String, i64) = b
            .conn
            .query_row(
                "SELECT text, length FROM page_text JOIN pages USING (id) WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(text, "Bell and [31mred[0m\nline\ttab.");
        assert_eq!(length, text.chars().count() as i64);
    }

    /// Issue 23, item 3: `drop_inputs` empties `page_text` and `links` in the build's own file
    /// and gives their space back (VACUUM); until `finish`, the database it replaces still holds
    /// them whole, and a build dropped on the way leaves it byte for byte.
    #[test]
    fn dropped_inputs_change_the_build_only_and_give_their_space_back() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("t.sqlite");
        let b = Build::create(&dest).unwrap();
        let text = "word ".repeat(2000);
        let titles: Vec<String> = (0..200).map(|i| format!("Page {i}")).collect();
        for (i, title) in titles.iter().enumerate() {
            let p = NewPage {
                text: Some(&text),
                ..page(i as u64 + 1, title, None)
            };
            b.insert_page(&p).unwrap();
            b.stage_link(i as u64 + 1, 0, &titles[(i + 1) % 200])
                .unwrap();
        }
        b.resolve_links().unwrap();
        b.finish().unwrap();
        let before = std::fs::read(&dest).unwrap();

        let watched = dest.clone();
        let whole = before.clone();
        crate::pause::hook::set(move |point, tmp| {
            if point == "inputs dropped" {
                assert!(
                    std::fs::read(&watched).unwrap() == whole,
                    "the database changed"
                );
                let size = std::fs::metadata(tmp).unwrap().len() as usize;
                assert!(
                    size < whole.len() / 10,
                    "{size} bytes left of {}",
                    whole.len()
                );
            }
        });
        let b = Build::update(&dest).unwrap();
        b.drop_inputs(KeepInputs::default()).unwrap();
        crate::pause::hook::set(|_, _| {});
        drop(b);
        assert!(
            std::fs::read(&dest).unwrap() == before,
            "the database changed"
        );

        let b = Build::update(&dest).unwrap();
        b.drop_inputs(KeepInputs::default()).unwrap();
        b.finish().unwrap();
        assert!(std::fs::metadata(&dest).unwrap().len() < before.len() as u64 / 10);
        let store = crate::Store::open(&dest).unwrap();
        assert_eq!(store.pages().unwrap().len(), 200);
        assert_eq!(store.count_rows("page_text").unwrap(), 0);
        assert_eq!(store.count_rows("links").unwrap(), 0);
        assert_eq!(
            store.meta(PAGE_TEXT_KEY).unwrap().as_deref(),
            Some("dropped")
        );
        assert_eq!(store.meta(LINKS_KEY).unwrap().as_deref(), Some("dropped"));

        // Kept: nothing emptied, no rewrite, and `meta` says so.
        let dest2 = dir.path().join("kept.sqlite");
        std::fs::write(&dest2, &before).unwrap();
        let b = Build::update(&dest2).unwrap();
        let keep = KeepInputs {
            text: true,
            links: false,
        };
        b.drop_inputs(keep).unwrap();
        b.finish().unwrap();
        let store = crate::Store::open(&dest2).unwrap();
        assert_eq!(store.count_rows("page_text").unwrap(), 200);
        assert_eq!(store.count_rows("links").unwrap(), 0);
        assert_eq!(store.meta(PAGE_TEXT_KEY).unwrap().as_deref(), Some("kept"));
    }
}
