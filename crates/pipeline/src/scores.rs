//! Stage `scores`: `(clue, term, score)` with the best evidence, from `counts` and `chunks`.
//!
//! For a term counted `n` times in clue page `p`: `score(clue(p), term) = min(1, PR(p)/6) · (1 − 0.7ⁿ)`
//! (direction `clue_page`). For a clue word counted `n` times in a term page `q` of the term:
//! `min(1, PR(q)/6) · (1 − 0.7ⁿ)` (direction `term_page`). The maximum per `(clue, term)` is kept
//! with its provenance. A clue is a lower-case single word of letters a-z (see [`crate::shared::is_clue_for`]),
//! never the term nor an inflection of it. In a language other than English ([`crate::shared::Rules::Stems`]),
//! a clue is a lower-case word of letters of any script, three or more, not a stopword of the
//! language, sharing no Snowball stem with the term or its words.

use crate::shared::{Rules, refresh_inflections};
use crate::{progress, record};
use anyhow::Result;
use std::collections::HashMap;
use store::{Build, ScoreRow};

/// PageRank at which a page's evidence counts fully.
pub const PR_FULL: f64 = 6.0;
/// Each further mention leaves this share of the remaining doubt.
pub const DECAY: f64 = 0.7;

/// The score of evidence: a page of PageRank `pagerank` mentioning the other word `count` times.
pub fn score(pagerank: f64, count: u64) -> f64 {
    let weight = (pagerank / PR_FULL).clamp(0.0, 1.0);
    weight * (1.0 - DECAY.powi(count.min(i32::MAX as u64) as i32))
}

/// The best evidence per `(clue, term)`: the row with the highest score wins, the first offered
/// on a tie. Rows scoring 0 and pairs [`crate::shared::is_clue_for`] refuses are dropped (judged once a pair).
pub struct Best<'i> {
    rules: Rules<'i>,
    /// The best row so far per pair; `None` for a pair refused as a clue.
    rows: HashMap<(String, String), Option<ScoreRow>>,
}

impl<'i> Best<'i> {
    #[cfg(test)]
    pub fn new(inflector: &'i text::Inflector) -> Self {
        Best::with_rules(Rules::English(inflector))
    }

    /// Judges pairs by a language's rules.
    pub fn with_rules(rules: Rules<'i>) -> Self {
        Best {
            rules,
            rows: HashMap::new(),
        }
    }

    /// Offers one piece of evidence.
    pub fn offer(&mut self, row: ScoreRow) {
        if row.score <= 0.0 {
            return;
        }
        use std::collections::hash_map::Entry;
        match self.rows.entry((row.clue.clone(), row.term.clone())) {
            Entry::Vacant(v) => {
                let ok = self.rules.is_clue_for(&row.clue, &row.term);
                v.insert(ok.then_some(row));
            }
            Entry::Occupied(mut o) => {
                if let Some(best) = o.get_mut()
                    && best.score < row.score
                {
                    *best = row;
                }
            }
        }
    }

    /// How many pairs hold a row so far.
    pub fn len(&self) -> usize {
        self.rows.values().filter(|r| r.is_some()).count()
    }

    /// Whether no pair holds a row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kept rows, sorted by clue and term.
    pub fn into_rows(self) -> Vec<ScoreRow> {
        let mut rows: Vec<ScoreRow> = self.rows.into_values().flatten().collect();
        rows.sort_by(|a, b| (&a.clue, &a.term).cmp(&(&b.clue, &b.term)));
        rows
    }
}

pub fn run(build: &Build) -> Result<()> {
    let reader = build.reader();
    let pages = reader.pages()?;
    let rank: HashMap<u64, f64> = pages
        .iter()
        .map(|p| (p.id, p.pagerank.unwrap_or(0.0)))
        .collect();
    let title: HashMap<u64, &str> = pages.iter().map(|p| (p.id, p.title.as_str())).collect();
    let (counts, chunks) = (reader.counts()?, reader.chunks()?);
    // Evidence rows judged, then score rows written (the length grows once they are known).
    let pb = progress::bar((counts.len() + chunks.len()) as u64, "rows");
    pb.set_prefix("scores");
    let mut best = Best::with_rules(Rules::of(crate::language(build)?));
    for c in counts {
        pb.inc(1);
        let Some(t) = title.get(&c.page_id) else {
            continue;
        };
        best.offer(ScoreRow {
            clue: t.to_lowercase(),
            term: c.term,
            score: score(rank.get(&c.page_id).copied().unwrap_or(0.0), c.count),
            page_id: c.page_id,
            direction: "clue_page",
            count: c.count,
            excerpt: c.excerpt,
        });
    }
    let counted = best.len();
    for c in chunks {
        pb.inc(1);
        best.offer(ScoreRow {
            score: score(rank.get(&c.page_id).copied().unwrap_or(0.0), c.count),
            clue: c.clue,
            term: c.term,
            page_id: c.page_id,
            direction: "term_page",
            count: c.count,
            excerpt: c.excerpt,
        });
    }
    let rows = best.into_rows();
    pb.inc_length(rows.len() as u64);
    build.begin()?;
    build.clear(&["scores"])?;
    for r in &rows {
        build.insert_score(r)?;
        pb.inc(1);
    }
    build.commit()?;
    pb.finish_and_clear();
    let inflection_rows = refresh_inflections(build)?;
    let terms_with_clues = rows
        .iter()
        .map(|r| r.term.as_str())
        .collect::<std::collections::HashSet<_>>()
        .len();
    record(
        build,
        "scores",
        &[
            ("rows", rows.len().to_string()),
            ("from_counts", counted.to_string()),
            ("terms_with_clues", terms_with_clues.to_string()),
            ("inflections", inflection_rows.to_string()),
            ("formula", format!("min(1, PR/{PR_FULL}) * (1 - {DECAY}^n)")),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(clue: &str, term: &str, score: f64, page_id: u64) -> ScoreRow {
        ScoreRow {
            clue: clue.into(),
            term: term.into(),
            score,
            page_id,
            direction: if page_id < 10 {
                "clue_page"
            } else {
                "term_page"
            },
            count: 1,
            excerpt: None,
        }
    }

    #[test]
    fn the_best_evidence_per_pair_is_kept() {
        let mut best = Best::new(text::Inflector::shared());
        best.offer(row("fruit", "apple", 0.2, 1));
        best.offer(row("fruit", "apple", 0.5, 11)); // better, from a term page
        best.offer(row("fruit", "apple", 0.3, 2));
        best.offer(row("tree", "apple", 0.4, 3));
        best.offer(row("tree", "apple", 0.4, 12)); // a tie keeps the first
        best.offer(row("seed", "apple", 0.0, 4)); // no evidence
        best.offer(row("apples", "apple", 0.9, 5)); // an inflection of the term
        best.offer(row("fruit", "pear", 0.1, 6));
        assert_eq!(best.len(), 3);
        let kept: Vec<(String, String, f64, u64, &str)> = best
            .into_rows()
            .into_iter()
            .map(|r| (r.clue, r.term, r.score, r.page_id, r.direction))
            .collect();
        assert_eq!(
            kept,
            vec![
                ("fruit".into(), "apple".into(), 0.5, 11, "term_page"),
                ("fruit".into(), "pear".into(), 0.1, 6, "clue_page"),
                ("tree".into(), "apple".into(), 0.4, 3, "clue_page"),
            ]
        );
    }

    #[test]
    fn score_formula_matches_hand_computation() {
        // PR 3 -> weight 0.5; n = 2 -> 1 - 0.49 = 0.51; 0.5 * 0.51 = 0.255
        assert!((score(3.0, 2) - 0.255).abs() < 1e-12);
        // PR 12 caps at weight 1; n = 1 -> 0.3
        assert!((score(12.0, 1) - 0.3).abs() < 1e-12);
        // n = 3 -> 1 - 0.343 = 0.657, PR 6 -> 1
        assert!((score(6.0, 3) - 0.657).abs() < 1e-12);
        assert_eq!(score(0.0, 5), 0.0);
        assert_eq!(score(5.0, 0), 0.0);
    }
}
