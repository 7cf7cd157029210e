//! Reads for the query engine: scores by term or clue, term documents and evidence.

use crate::Store;
use anyhow::{Result, bail};
use rusqlite::OptionalExtension;

/// `x`, a score read from `table`, if it is a number. SQLite stores an infinity (and reads NaN
/// back as NULL, a type error): a tampered or damaged file, which a query would otherwise rank
/// above every real score or silently drop. The error names the table, the row (`what`) and the
/// stage that writes the table.
pub(crate) fn finite(
    table: &str,
    stage: &str,
    what: impl FnOnce() -> String,
    x: f64,
) -> Result<f64> {
    if !x.is_finite() {
        bail!(
            "{table}: {} has score {x}, not a number: rebuild with `clue-db pipeline {stage}`",
            what()
        );
    }
    Ok(x)
}

/// [`finite`] for a row of `scores`.
fn score(clue: &str, term: &str, x: f64) -> Result<f64> {
    finite(
        "scores",
        "scores",
        || format!("clue '{clue}' with term '{term}'"),
        x,
    )
}

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
        let rows = st.query_map([term], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))?;
        rows.map(|row| {
            let (clue, s) = row?;
            let s = score(&clue, term, s)?;
            Ok((clue, s))
        })
        .collect()
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
    #[cfg(test)]
    pub fn terms_of(&self, clue: &str) -> Result<Vec<(String, f64)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT term, score FROM scores WHERE clue = ?1")?;
        let rows = st.query_map([clue], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))?;
        rows.map(|row| {
            let (term, s) = row?;
            let s = score(clue, &term, s)?;
            Ok((term, s))
        })
        .collect()
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
        let evidence = st
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
            .optional()?;
        if let Some(e) = &evidence {
            score(clue, term, e.score)?;
        }
        Ok(evidence)
    }

    /// Calls `f(clue, term, score)` for every row of `scores`, in no particular order (one
    /// pass over the table: the query engine's risk for a card word it does not know).
    pub fn for_each_score(&self, mut f: impl FnMut(String, String, f64)) -> Result<()> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT clue, term, score FROM scores")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let (clue, term): (String, String) = (r.get(0)?, r.get(1)?);
            let s = score(&clue, &term, r.get(2)?)?;
            f(clue, term, s);
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
            Ok((r.get::<_, String>(0)?, r.get(1)?))
        })?;
        rows.map(|row| {
            let (clue, s) = row?;
            let s = finite(
                "scores",
                "scores",
                || format!("clue '{clue}' (its best)"),
                s,
            )?;
            Ok((clue, s))
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use crate::{Build, ScoreRow, Store};

    /// Issue 22, item 9: an infinite score in `scores` (what SQLite keeps of `9e999`) is an
    /// error naming the table, the clue and the term, from every reader of the table, rather
    /// than a clue ranked above every real one or silently dropped.
    #[test]
    fn a_score_that_is_no_number_is_an_error_naming_its_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let b = Build::create(&path).unwrap();
        for (clue, score) in [("fruit", f64::INFINITY), ("red", 0.5)] {
            b.insert_score(&ScoreRow {
                clue: clue.into(),
                term: "apple".into(),
                score,
                page_id: 1,
                direction: "clue_page",
                count: 1,
                excerpt: None,
            })
            .unwrap();
        }
        b.finish().unwrap();
        let store = Store::open(&path).unwrap();
        let named = |e: anyhow::Error| {
            let e = format!("{e:#}");
            assert!(
                e.contains("scores: clue 'fruit'")
                    && e.contains("inf")
                    && e.contains("pipeline scores"),
                "{e}"
            );
        };
        named(store.clues_of("apple").unwrap_err());
        named(store.terms_of("fruit").unwrap_err());
        named(store.for_each_score(|_, _, _| {}).unwrap_err());
        let e = store.best_scores_except(&[]).unwrap_err().to_string();
        assert!(e.contains("clue 'fruit'") && e.contains("inf"), "{e}");
        assert_eq!(store.terms_of("red").unwrap(), [("apple".to_string(), 0.5)]);
    }
}
