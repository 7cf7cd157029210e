//! Reads for the query engine: scores by term or clue, term documents and evidence.

use crate::Store;
use anyhow::Result;
use rusqlite::OptionalExtension;

/// Why a clue scores with a term: the best piece of evidence kept by the scores stage.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evidence {
    pub clue: String,
    pub term: String,
    pub score: f64,
    pub page_id: u64,
    pub page_title: String,
    pub direction: String,
    pub count: u64,
    pub pagerank: Option<f64>,
    pub excerpt: Option<String>,
}

/// A page by title.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PageInfo {
    pub id: u64,
    pub title: String,
    pub pagerank: Option<f64>,
}

impl Store<'_> {
    /// Every `(clue, score)` for a term.
    pub fn clues_of(&self, term: &str) -> Result<Vec<(String, f64)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT clue, score FROM scores WHERE term = ?1")?;
        let rows = st.query_map([term], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The clues that are inflections of `form`, a form of a covered term (see
    /// [`crate::card_forms`]).
    pub fn inflections_of(&self, form: &str) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT word FROM inflections WHERE form = ?1")?;
        let rows = st.query_map([form], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every `(term, score)` for a clue.
    pub fn terms_of(&self, clue: &str) -> Result<Vec<(String, f64)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT term, score FROM scores WHERE clue = ?1")?;
        let rows = st.query_map([clue], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A term's document: `(word, count)`.
    pub fn term_doc(&self, term: &str) -> Result<Vec<(String, u64)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT word, count FROM term_docs WHERE term = ?1")?;
        let rows = st.query_map([term], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The evidence behind `score(clue, term)`, if any.
    pub fn evidence(&self, clue: &str, term: &str) -> Result<Option<Evidence>> {
        let mut st = self.conn().prepare_cached(
            "SELECT s.score, s.page_id, p.title, s.direction, s.count, p.pagerank, s.excerpt
             FROM scores s JOIN pages p ON p.id = s.page_id WHERE s.clue = ?1 AND s.term = ?2",
        )?;
        Ok(st
            .query_row([clue, term], |r| {
                Ok(Evidence {
                    clue: clue.to_string(),
                    term: term.to_string(),
                    score: r.get(0)?,
                    page_id: r.get::<_, i64>(1)? as u64,
                    page_title: r.get(2)?,
                    direction: r.get(3)?,
                    count: r.get::<_, i64>(4)? as u64,
                    pagerank: r.get(5)?,
                    excerpt: r.get(6)?,
                })
            })
            .optional()?)
    }

    /// A main-namespace page by exact title.
    pub fn page_by_title(&self, title: &str) -> Result<Option<PageInfo>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT id, title, pagerank FROM pages WHERE ns = 0 AND title = ?1")?;
        Ok(st
            .query_row([title], |r| {
                Ok(PageInfo {
                    id: r.get::<_, i64>(0)? as u64,
                    title: r.get(1)?,
                    pagerank: r.get(2)?,
                })
            })
            .optional()?)
    }

    /// The plain text of a page.
    pub fn page_text(&self, id: u64) -> Result<Option<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT text FROM page_text WHERE id = ?1")?;
        Ok(st.query_row([id as i64], |r| r.get(0)).optional()?)
    }

    /// Calls `f(clue, term, score)` for every row of `scores`, in no particular order (one
    /// pass over the table: the query engine's risk for a card word it does not know).
    pub fn for_each_score(&self, mut f: impl FnMut(String, String, f64)) -> Result<()> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT clue, term, score FROM scores")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(r.get(0)?, r.get(1)?, r.get(2)?);
        }
        Ok(())
    }

    /// Per clue of `scores`, its highest score with a term not in `except` (clues scoring with
    /// those terms only are left out): one grouped pass over the table.
    pub fn best_scores_except(&self, except: &[String]) -> Result<Vec<(String, f64)>> {
        let marks = vec!["?"; except.len()].join(",");
        let sql = format!(
            "SELECT clue, max(score) FROM scores WHERE term NOT IN ({marks}) GROUP BY clue"
        );
        let mut st = self.conn().prepare(&sql)?;
        let rows = st.query_map(rusqlite::params_from_iter(except), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether `word` appears as a clue at all, in `scores` or `clue_words` (the words the
    /// `inflections` table is complete for).
    pub fn is_clue(&self, word: &str) -> Result<bool> {
        let mut st = self
            .conn()
            .prepare_cached(
                "SELECT 1 FROM scores WHERE clue = ?1 UNION ALL SELECT 1 FROM clue_words WHERE word = ?1 LIMIT 1",
            )?;
        Ok(st.exists([word])?)
    }
}
