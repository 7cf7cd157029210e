//! Ingest writes: pages, their text, redirects and links by title. Links are staged by title
//! while pages stream in, then resolved in one pass once every title is known.

use crate::Build;
use anyhow::{Context, Result};
use rusqlite::params;

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

impl Build {
    fn ensure_staging(&self) -> Result<()> {
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_links (src INTEGER NOT NULL, ns INTEGER NOT NULL, title TEXT NOT NULL);",
        )?;
        Ok(())
    }

    /// Stores a page (and its text). Returns false when a page with the same id or the same
    /// `(ns, title)` is already stored: the first one wins, as in a dump read in order.
    pub fn insert_page(&self, page: &NewPage) -> Result<bool> {
        let length = page.text.map(|t| t.chars().count()).unwrap_or(0) as i64;
        let n = self
            .conn
            .prepare_cached(
                "INSERT OR IGNORE INTO pages (id, title, ns, redirect_to, is_disambiguation, length)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                page.id as i64,
                page.title,
                page.ns,
                page.redirect_to,
                page.is_disambiguation,
                length
            ])
            .with_context(|| format!("storing page {} ({:?})", page.id, page.title))?;
        if n == 1
            && let Some(text) = page.text.filter(|t| !t.is_empty())
        {
            self.conn
                .prepare_cached("INSERT OR REPLACE INTO page_text (id, text) VALUES (?1, ?2)")?
                .execute(params![page.id as i64, text])
                .with_context(|| format!("storing the text of page {}", page.id))?;
        }
        Ok(n == 1)
    }

    /// Marks a stored page as a redirect to `target` (SQL `redirect` dumps come apart from `page`).
    pub fn set_redirect(&self, from: u64, target: &str) -> Result<bool> {
        let n = self
            .conn
            .prepare_cached("UPDATE pages SET redirect_to = ?2 WHERE id = ?1")?
            .execute(params![from as i64, target])?;
        Ok(n == 1)
    }

    /// Stages a link from page `src` to the page titled `title` in namespace `ns`.
    pub fn stage_link(&self, src: u64, ns: i32, title: &str) -> Result<()> {
        self.ensure_staging()?;
        self.conn
            .prepare_cached("INSERT INTO ingest_links (src, ns, title) VALUES (?1, ?2, ?3)")?
            .execute(params![src as i64, ns, title])?;
        Ok(())
    }

    /// Stages a `linktarget` row (SQL dumps): target id -> `(ns, title)`, joined in SQLite so
    /// that no dump-sized map is held in memory.
    pub fn stage_link_target(&self, id: u64, ns: i32, title: &str) -> Result<()> {
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_linktargets (id INTEGER PRIMARY KEY, ns INTEGER NOT NULL, title TEXT NOT NULL);",
        )?;
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO ingest_linktargets (id, ns, title) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![id as i64, ns, title])?;
        Ok(())
    }

    /// Stages a `pagelinks` row of the current layout: page `src` links to link target `target`.
    pub fn stage_link_by_target(&self, src: u64, target: u64) -> Result<()> {
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_pagelinks (src INTEGER NOT NULL, target INTEGER NOT NULL);",
        )?;
        self.conn
            .prepare_cached("INSERT INTO ingest_pagelinks (src, target) VALUES (?1, ?2)")?
            .execute(params![src as i64, target as i64])?;
        Ok(())
    }

    /// Joins staged `pagelinks` rows through staged `linktarget` rows into title links. Returns
    /// how many rows named a target id with no `linktarget` row.
    fn join_link_targets(&self) -> Result<u64> {
        let c = &self.conn;
        let has = |t: &str| -> Result<bool> {
            Ok(c.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [t],
                |r| r.get::<_, i64>(0),
            )? > 0)
        };
        if !has("ingest_pagelinks")? {
            return Ok(0);
        }
        c.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_linktargets (id INTEGER PRIMARY KEY, ns INTEGER NOT NULL, title TEXT NOT NULL);",
        )?;
        let missing: i64 = c.query_row(
            "SELECT count(*) FROM ingest_pagelinks p LEFT JOIN ingest_linktargets t ON t.id = p.target WHERE t.id IS NULL",
            [],
            |r| r.get(0),
        )?;
        c.execute_batch(
            "INSERT INTO ingest_links (src, ns, title)
               SELECT p.src, t.ns, t.title FROM ingest_pagelinks p JOIN ingest_linktargets t ON t.id = p.target;
             DROP TABLE ingest_pagelinks; DROP TABLE ingest_linktargets;",
        )
        .context("joining pagelinks through linktarget")?;
        Ok(missing as u64)
    }

    /// Turns staged links into `links` between stored pages, following one redirect hop, then
    /// drops the staging tables.
    pub fn resolve_links(&self) -> Result<LinkStats> {
        self.resolve(false)
    }

    /// As [`resolve_links`](Self::resolve_links), but links whose target is not stored yet stay
    /// staged in `ingest_links`, for a later run that adds their pages (a resumed API ingest).
    pub fn resolve_links_keeping_pending(&self) -> Result<LinkStats> {
        self.resolve(true)
    }

    fn resolve(&self, keep_pending: bool) -> Result<LinkStats> {
        self.ensure_staging()?;
        let missing_targets = self.join_link_targets()?;
        let c = &self.conn;
        c.execute_batch("CREATE INDEX IF NOT EXISTS ingest_links_src ON ingest_links (src);")?;
        let staged: i64 = c.query_row("SELECT count(*) FROM ingest_links", [], |r| r.get(0))?;
        let before: i64 = c.query_row("SELECT count(*) FROM links", [], |r| r.get(0))?;
        c.execute_batch(
            "CREATE TEMP TABLE resolved AS
             SELECT l.rowid AS staged_row, l.src AS src,
                    CASE WHEN p.redirect_to IS NULL THEN p.id ELSE t.id END AS dst,
                    p.redirect_to IS NOT NULL AS via_redirect
             FROM ingest_links l
             JOIN pages s ON s.id = l.src
             JOIN pages p ON p.ns = l.ns AND p.title = l.title
             LEFT JOIN pages t ON p.redirect_to IS NOT NULL AND t.ns = 0 AND t.title = p.redirect_to
             WHERE p.redirect_to IS NULL OR t.id IS NOT NULL;",
        )
        .context("resolving links")?;
        let resolved: i64 = c.query_row("SELECT count(*) FROM resolved", [], |r| r.get(0))?;
        let via: i64 = c.query_row(
            "SELECT count(*) FROM resolved WHERE via_redirect",
            [],
            |r| r.get(0),
        )?;
        let cleanup = if keep_pending {
            "DELETE FROM ingest_links WHERE rowid IN (SELECT staged_row FROM resolved);
             DROP TABLE resolved;"
        } else {
            "DROP TABLE resolved; DROP TABLE ingest_links;"
        };
        c.execute_batch(&format!(
            "INSERT OR IGNORE INTO links (src, dst) SELECT src, dst FROM resolved ORDER BY src, dst;
             {cleanup}"
        ))
        .context("storing resolved links")?;
        let after: i64 = c.query_row("SELECT count(*) FROM links", [], |r| r.get(0))?;
        Ok(LinkStats {
            missing_targets,
            staged: staged as u64,
            stored: (after - before) as u64,
            via_redirect: via as u64,
            unresolved: (staged - resolved) as u64,
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
            q("SELECT count(*) FROM links")?,
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
}
