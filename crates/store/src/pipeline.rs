//! Writes and reads of the pipeline stages (terms to scores). Each `replace_*` empties its table
//! first, so a stage run twice leaves the same rows: stages are idempotent.

use crate::{Build, Store};
use anyhow::{Context, Result};
use rusqlite::params;

/// One neighbour's link score with one term (the `clue_page_terms` table).
#[derive(Debug, Clone, PartialEq)]
pub struct ClueLink {
    pub page_id: u64,
    pub term: String,
    pub link_score: f64,
}

/// A noun-chunk root counted in a term page (the `chunks` table): the clue seen from the term's
/// side, with a sentence as evidence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChunkRow {
    pub page_id: u64,
    pub term: String,
    pub clue: String,
    pub count: u64,
    pub excerpt: Option<String>,
}

/// A term counted in a clue page (the `counts` table).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClueCount {
    pub page_id: u64,
    pub term: String,
    pub count: u64,
    pub pos: Option<String>,
    pub entity: Option<String>,
    pub excerpt: Option<String>,
}

/// One row of `scores`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRow {
    pub clue: String,
    pub term: String,
    pub score: f64,
    pub page_id: u64,
    pub direction: &'static str,
    pub count: u64,
    pub excerpt: Option<String>,
}

/// Names the table a write failed on ("database or disk is full": while writing what?).
fn writing(table: &str) -> String {
    format!("writing table {table}")
}

impl Build {
    /// Empties the named stage tables.
    pub fn clear(&self, tables: &[&str]) -> Result<()> {
        for t in tables {
            // Table names come from the stages' own constants, never from input.
            self.conn
                .execute(&format!("DELETE FROM {t}"), [])
                .with_context(|| format!("emptying {t}"))?;
        }
        Ok(())
    }

    pub fn insert_term(&self, term: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO terms (term) VALUES (?1)")?
            .execute([term])
            .with_context(|| writing("terms"))?;
        Ok(())
    }

    /// One word of a word list, at its place in the list (`word_lists`).
    pub fn insert_list_word(&self, list: &str, position: usize, word: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT INTO word_lists (list, position, word) VALUES (?1, ?2, ?3)")?
            .execute(rusqlite::params![list, position as i64, word])
            .with_context(|| writing("word_lists"))?;
        Ok(())
    }

    pub fn insert_synonym(&self, term: &str, synonym: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO synonyms (term, synonym) VALUES (?1, ?2)")?
            .execute([term, synonym])
            .with_context(|| writing("synonyms"))?;
        Ok(())
    }

    /// Records a term page; the first origin recorded for a `(term, page)` is kept.
    pub fn insert_term_page(&self, term: &str, page_id: u64, origin: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO term_pages (term, page_id, origin) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![term, page_id as i64, origin])
            .with_context(|| writing("term_pages"))?;
        Ok(())
    }

    /// Sets every listed term's `page_count` and `covered` from the `term_pages` rows there are,
    /// so that coverage agrees with `term_pages` whichever of the `terms` and `term_pages`
    /// stages ran last (terms are kept, never deleted: a later supplement can still cover one).
    /// Returns the uncovered terms, sorted.
    pub fn refresh_coverage(&self) -> Result<Vec<String>> {
        self.conn.execute(
            "UPDATE terms SET page_count = (SELECT count(*) FROM term_pages tp WHERE tp.term = terms.term)",
            [],
        )?;
        self.conn
            .execute("UPDATE terms SET covered = (page_count > 0)", [])?;
        let mut st = self
            .conn
            .prepare("SELECT term FROM terms WHERE covered = 0 ORDER BY term")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn insert_clue_page(&self, page_id: u64, link_score: f64, terms_linked: u64) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO clue_pages (page_id, link_score, terms_linked) VALUES (?1, ?2, ?3)")?
            .execute(params![page_id as i64, link_score, terms_linked as i64])
            .with_context(|| writing("clue_pages"))?;
        Ok(())
    }

    pub fn insert_clue_link(&self, l: &ClueLink) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO clue_page_terms (page_id, term, link_score) VALUES (?1, ?2, ?3)")?
            .execute(params![l.page_id as i64, l.term, l.link_score])
            .with_context(|| writing("clue_page_terms"))?;
        Ok(())
    }

    /// Stores a count, keeping the larger when the `(page, term)` is already there.
    pub fn insert_count(&self, c: &ClueCount) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO counts (page_id, term, count, pos, entity, excerpt) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (page_id, term) DO UPDATE SET count = excluded.count, pos = excluded.pos,
                   entity = excluded.entity, excerpt = excluded.excerpt WHERE excluded.count > counts.count",
            )?
            .execute(params![c.page_id as i64, c.term, c.count as i64, c.pos, c.entity, c.excerpt])
            .with_context(|| writing("counts"))?;
        Ok(())
    }

    /// Stores a noun-chunk root counted in a term page (the larger count wins on a repeat).
    pub fn insert_chunk(&self, c: &ChunkRow) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO chunks (page_id, term, clue, count, excerpt) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (page_id, term, clue) DO UPDATE SET count = excluded.count,
                 excerpt = excluded.excerpt WHERE excluded.count > chunks.count",
            )?
            .execute(params![
                c.page_id as i64,
                c.term,
                c.clue,
                c.count as i64,
                c.excerpt
            ])
            .with_context(|| writing("chunks"))?;
        Ok(())
    }

    pub fn insert_term_doc(&self, term: &str, word: &str, count: u64) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO term_docs (term, word, count) VALUES (?1, ?2, ?3)
                 ON CONFLICT (term, word) DO UPDATE SET count = count + excluded.count",
            )?
            .execute(params![term, word, count as i64])
            .with_context(|| writing("term_docs"))?;
        Ok(())
    }

    /// Writes every page's PageRank (`ranks[i]` for page `ids[i]`); pages not listed get NULL.
    pub fn set_pageranks(&self, ids: &[u64], ranks: &[f64]) -> Result<()> {
        self.conn.execute("UPDATE pages SET pagerank = NULL", [])?;
        let mut st = self
            .conn
            .prepare_cached("UPDATE pages SET pagerank = ?2 WHERE id = ?1")?;
        for (id, r) in ids.iter().zip(ranks) {
            st.execute(params![*id as i64, r])?;
        }
        Ok(())
    }

    /// Records that clue `word` is an inflection of card form `form` (see [`crate::card_forms`]).
    pub fn insert_inflection(&self, form: &str, word: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR IGNORE INTO inflections (form, word) VALUES (?1, ?2)")?
            .execute(params![form, word])
            .with_context(|| writing("inflections"))?;
        Ok(())
    }

    pub fn insert_score(&self, s: &ScoreRow) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO scores (clue, term, score, page_id, direction, count, excerpt)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (clue, term) DO UPDATE SET score = excluded.score, page_id = excluded.page_id,
                   direction = excluded.direction, count = excluded.count, excerpt = excluded.excerpt
                 WHERE excluded.score > scores.score",
            )?
            .execute(params![s.clue, s.term, s.score, s.page_id as i64, s.direction, s.count as i64, s.excerpt])
            .with_context(|| writing("scores"))?;
        Ok(())
    }
}

/// A page's identity and flags, as the stages need them in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRow {
    pub id: u64,
    pub title: String,
    pub ns: i32,
    pub redirect_to: Option<String>,
    pub is_disambiguation: bool,
    pub pagerank: Option<f64>,
}

impl Store<'_> {
    /// Every page (articles and redirects), by id.
    /// Which of `ids` are stored pages (a resumed API ingest skips them).
    pub fn stored_page_ids(&self, ids: &[u64]) -> Result<std::collections::HashSet<u64>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT 1 FROM pages WHERE id = ?1")?;
        let mut out = std::collections::HashSet::new();
        for &id in ids {
            if st.exists([id as i64])? {
                out.insert(id);
            }
        }
        Ok(out)
    }

    pub fn pages(&self) -> Result<Vec<PageRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT id, title, ns, redirect_to, is_disambiguation, pagerank FROM pages ORDER BY id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(PageRow {
                id: r.get::<_, i64>(0)? as u64,
                title: r.get(1)?,
                ns: r.get(2)?,
                redirect_to: r.get(3)?,
                is_disambiguation: r.get(4)?,
                pagerank: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every link, `(src, dst)` sorted, from the link graph (a vector of all of them: for
    /// tests and small tools; the stages read [`Store::link_graph`]).
    pub fn links(&self) -> Result<Vec<(u64, u64)>> {
        Ok(self.link_graph()?.pairs().collect())
    }

    /// The covered terms (those with term pages), sorted: what every later stage and the query
    /// engine work with.
    pub fn terms(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT term FROM terms WHERE covered = 1 ORDER BY term")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every listed card word, covered or not, sorted: what the `term_pages` stage looks up.
    pub fn listed_terms(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT term FROM terms ORDER BY term")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// `(term, page_id, origin)` for every term page of a covered term (rows of a term since
    /// dropped from `terms.txt` stay in the table until `term_pages` runs, unread).
    pub fn term_pages(&self) -> Result<Vec<(String, u64, String)>> {
        let mut st = self.conn().prepare_cached(
            "SELECT tp.term, tp.page_id, tp.origin FROM term_pages tp
             JOIN terms t ON t.term = tp.term AND t.covered = 1 ORDER BY tp.term, tp.page_id",
        )?;
        let rows = st.query_map([], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as u64, r.get(2)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The word lists the build read (`word_lists`), each `(name, words in order)`: `codenames`
    /// first, then by name. Empty for a database built before the table.
    pub fn word_lists(&self) -> Result<Vec<(String, Vec<String>)>> {
        if !self.has_table("word_lists")? {
            return Ok(Vec::new());
        }
        let mut st = self.conn().prepare_cached(
            "SELECT list, word FROM word_lists ORDER BY list <> 'codenames', list, position",
        )?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .context("reading table word_lists")?;
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for (list, word) in rows {
            match out.last_mut() {
                Some((name, words)) if *name == list => words.push(word),
                _ => out.push((list, vec![word])),
            }
        }
        Ok(out)
    }

    /// `(term, synonym)` pairs.
    pub fn synonyms(&self) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT term, synonym FROM synonyms ORDER BY term, synonym")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The clue pages' ids, sorted.
    pub fn clue_page_ids(&self) -> Result<Vec<u64>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT page_id FROM clue_pages ORDER BY page_id")?;
        let rows = st.query_map([], |r| Ok(r.get::<_, i64>(0)? as u64))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Calls `f(id, text)` for each listed page that has text, in the order given.
    pub fn for_each_text(
        &self,
        ids: &[u64],
        mut f: impl FnMut(u64, String) -> Result<()>,
    ) -> Result<()> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT text FROM page_text WHERE id = ?1")?;
        for &id in ids {
            let mut rows = st.query([id as i64])?;
            if let Some(row) = rows.next()? {
                f(id, row.get(0)?)?;
            }
        }
        Ok(())
    }

    /// Every `counts` row.
    pub fn counts(&self) -> Result<Vec<ClueCount>> {
        let mut st = self.conn().prepare_cached(
            "SELECT page_id, term, count, pos, entity, excerpt FROM counts ORDER BY page_id, term",
        )?;
        let rows = st.query_map([], |r| {
            Ok(ClueCount {
                page_id: r.get::<_, i64>(0)? as u64,
                term: r.get(1)?,
                count: r.get::<_, i64>(2)? as u64,
                pos: r.get(3)?,
                entity: r.get(4)?,
                excerpt: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every `chunks` row.
    pub fn chunks(&self) -> Result<Vec<ChunkRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT page_id, term, clue, count, excerpt FROM chunks ORDER BY page_id, term, clue",
        )?;
        let rows = st.query_map([], |r| {
            Ok(ChunkRow {
                page_id: r.get::<_, i64>(0)? as u64,
                term: r.get(1)?,
                clue: r.get(2)?,
                count: r.get::<_, i64>(3)? as u64,
                excerpt: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Row count of a table (for `meta` and reports).
    pub fn count_rows(&self, table: &str) -> Result<u64> {
        // Table names come from the callers' constants, never from input.
        Ok(self
            .conn()
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
                r.get::<_, i64>(0)
            })? as u64)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Build, Store};

    #[test]
    fn word_lists_read_back_in_order_and_none_from_a_database_built_before_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.sqlite");
        let build = Build::create(&path).unwrap();
        build.begin().unwrap();
        for (list, words) in [
            ("duet", ["b", "a"]),
            ("codenames", ["z", "y"]),
            ("aa", ["x", "w"]),
        ] {
            for (i, w) in words.iter().enumerate() {
                build.insert_list_word(list, i, w).unwrap();
            }
        }
        build.commit().unwrap();
        build.finish().unwrap();
        let names = |l: Vec<(String, Vec<String>)>| -> Vec<String> {
            l.into_iter()
                .map(|(n, w)| format!("{n}:{}", w.join(" ")))
                .collect()
        };
        assert_eq!(
            names(Store::open(&path).unwrap().word_lists().unwrap()),
            ["codenames:z y", "aa:x w", "duet:b a"]
        );
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("DROP TABLE word_lists").unwrap();
        drop(conn);
        assert!(Store::open(&path).unwrap().word_lists().unwrap().is_empty());
    }
}
