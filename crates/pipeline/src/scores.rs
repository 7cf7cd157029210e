//! Stage `scores`: `(clue, term, score)` with the best evidence, from `counts` and `chunks`.
//!
//! For a term counted `n` times in clue page `p`: `score(clue(p), term) = min(1, PR(p)/6) · (1 − 0.7ⁿ)`
//! (direction `clue_page`). For a clue word counted `n` times in a term page `q` of the term:
//! `min(1, PR(q)/6) · (1 − 0.7ⁿ)` (direction `term_page`). The maximum per `(clue, term)` is kept
//! with its provenance. A clue is a lower-case single word of letters a-z (see [`is_clue_for`]),
//! never the term nor an inflection of it. In a language other than English ([`Rules::Stems`]),
//! a clue is a lower-case word of letters of any script, three or more, not a stopword of the
//! language, sharing no Snowball stem with the term or its words.

use crate::{progress, record};
use anyhow::Result;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
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

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// Whether `clue` may be a clue for `term`: a word a player could say. Only ASCII letters a-z
/// (no IPA `ˈlʌndən`, no `中`, no accented spelling of the term such as `méxico`), at least two
/// of them (one letter says nothing), not a stopword (`us`, `other`, `cannot`), and a two-letter
/// word only when WordNet knows it and it has a vowel (`ox`, `go`; WordNet's two-letter entries
/// are mostly abbreviations, and the vowel-less ones — `cm`, `kg`, `bp` — are never words);
/// never the term, one of the term's words, nor an inflection of either.
pub fn is_clue_for(clue: &str, term: &str, inflector: &text::Inflector) -> bool {
    clue.len() >= 2
        && clue.bytes().all(|b| b.is_ascii_lowercase())
        && !text::is_stopword(clue)
        && (clue.len() > 2 || (inflector.is_known(clue) && clue.contains(is_vowel)))
        && std::iter::once(term)
            .chain(term.split_whitespace())
            .all(|w| w != clue && !inflector.is_inflection_of(clue, w))
}

/// The rules of a language: which words may be clues, and which are inflections of one another.
#[derive(Clone, Copy)]
pub enum Rules<'i> {
    /// English: WordNet, lemminflect and Porter2 ([`is_clue_for`], `Inflector::is_inflection_of`).
    English(&'i text::Inflector),
    /// Any other language: its Snowball stemmer and stopwords ([`text::Language`]).
    Stems(text::Language),
}

impl<'i> Rules<'i> {
    /// The rules of `language` (English's read the shared inflection tables).
    pub fn of(language: text::Language) -> Rules<'static> {
        if language.is_english() {
            Rules::English(text::Inflector::shared())
        } else {
            Rules::Stems(language)
        }
    }

    /// Whether `clue` may be a clue for `term`.
    pub fn is_clue_for(&self, clue: &str, term: &str) -> bool {
        match self {
            Rules::English(inflector) => is_clue_for(clue, term, inflector),
            Rules::Stems(language) => {
                language.clue_shape(clue)
                    && std::iter::once(term)
                        .chain(term.split_whitespace())
                        .all(|w| w != clue && !language.is_inflection_of(clue, w))
            }
        }
    }
}

/// The best evidence per `(clue, term)`: the row with the highest score wins, the first offered
/// on a tie. Rows scoring 0 and pairs [`is_clue_for`] refuses are dropped (judged once a pair).
pub struct Best<'i> {
    rules: Rules<'i>,
    /// The best row so far per pair; `None` for a pair refused as a clue.
    rows: HashMap<(String, String), Option<ScoreRow>>,
}

impl<'i> Best<'i> {
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

/// Every `(form, word)` where `word` is an inflection of `form` (or `form` of `word`) by
/// [`text::Inflector::is_inflection_of`]: the `inflections` table. Rather than judging every pair,
/// a pair is judged only when the two share a key — the word itself, a lemma, an inflected form
/// or the Porter2 stem — which every pair the rule accepts does (a shared lemma, one a form of
/// the other, or the same stem), so nothing is missed.
pub fn inflection_pairs(
    forms: &BTreeSet<String>,
    words: &BTreeSet<&str>,
    inflector: &text::Inflector,
) -> Vec<(String, String)> {
    inflection_pairs_by(forms, words, Rules::English(inflector))
}

/// [`inflection_pairs`] by a language's rules: for [`Rules::Stems`], the pairs that are one word
/// or share a Snowball stem.
pub fn inflection_pairs_by(
    forms: &BTreeSet<String>,
    words: &BTreeSet<&str>,
    rules: Rules<'_>,
) -> Vec<(String, String)> {
    let language = match rules {
        Rules::English(inflector) => return english_inflection_pairs(forms, words, inflector),
        Rules::Stems(language) => language,
    };
    let key = |w: &str| match w.rsplit_once(' ') {
        Some((prefix, last)) => format!("{prefix} {}", language.stem(last)),
        None => language.stem(w),
    };
    let mut by_key: HashMap<String, Vec<&str>> = HashMap::new();
    for f in forms {
        by_key.entry(key(f)).or_default().push(f);
    }
    let mut pairs: Vec<(String, String)> = words
        .iter()
        .flat_map(|w| {
            by_key
                .get(&key(w))
                .into_iter()
                .flatten()
                .filter(|f| language.is_inflection_of(w, f))
                .map(|f| (f.to_string(), w.to_string()))
        })
        .collect();
    pairs.sort();
    pairs.dedup();
    pairs
}

fn english_inflection_pairs(
    forms: &BTreeSet<String>,
    words: &BTreeSet<&str>,
    inflector: &text::Inflector,
) -> Vec<(String, String)> {
    let keys = |w: &str| -> BTreeSet<String> {
        let mut k: BTreeSet<String> = inflector.lemmas(w).into_iter().collect();
        k.extend(inflector.forms(w));
        k.insert(w.to_string());
        k.insert(format!("#{}", inflector.stem(w)));
        k
    };
    let mut by_key: HashMap<String, Vec<&str>> = HashMap::new();
    for f in forms {
        for k in keys(f) {
            by_key.entry(k).or_default().push(f);
        }
    }
    let mut pairs: Vec<(String, String)> = words
        .par_iter()
        .flat_map_iter(|w| {
            let candidates: BTreeSet<&str> = keys(w)
                .iter()
                .filter_map(|k| by_key.get(k))
                .flatten()
                .copied()
                .collect();
            candidates
                .into_iter()
                .filter(|f| inflector.is_inflection_of(w, f))
                .map(|f| (f.to_string(), w.to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    pairs.sort();
    pairs
}

/// Rewrites the `inflections` table: the legality rule's inflections, so that queries need no
/// inflection tables. Its domain is every listed card word's forms against every clue of
/// `scores` and `clue_words`, so the `scores` and `relatedness` stages, which both call it, leave
/// the same table whichever ran last. Returns its row count.
pub fn refresh_inflections(build: &Build) -> Result<usize> {
    let reader = build.reader();
    let forms: BTreeSet<String> = reader
        .listed_terms()?
        .iter()
        .flat_map(|t| store::card_forms(t))
        .collect();
    let clues = reader.all_clues()?;
    let words: BTreeSet<&str> = clues.iter().map(String::as_str).collect();
    let pairs = inflection_pairs_by(&forms, &words, Rules::of(crate::language(build)?));
    build.begin()?;
    build.clear(&["inflections"])?;
    // Every form has a row for itself (a word is an inflection of itself under the rule): it
    // marks the forms the table was built for, whatever `terms` says after a later re-run.
    let table: BTreeSet<(&str, &str)> = forms
        .iter()
        .map(|f| (f.as_str(), f.as_str()))
        .chain(pairs.iter().map(|(f, w)| (f.as_str(), w.as_str())))
        .collect();
    for (form, word) in &table {
        build.insert_inflection(form, word)?;
    }
    build.commit()?;
    Ok(table.len())
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

    /// The keyed search finds exactly the pairs that judging every pair finds.
    #[test]
    fn inflection_pairs_are_every_pair_the_rule_accepts() {
        let i = text::Inflector::shared();
        let forms: BTreeSet<String> = [
            "strike", "mouse", "ice", "cream", "icecream", "lead", "bank",
        ]
        .map(String::from)
        .into();
        let words: BTreeSet<&str> = [
            "struck",
            "strikes",
            "striking",
            "mice",
            "mouses",
            "ices",
            "creams",
            "creamy",
            "led",
            "leads",
            "leaded",
            "banks",
            "banking",
            "banker",
            "fruit",
            "icecreams",
            "stricken",
        ]
        .into();
        let brute: Vec<(String, String)> = forms
            .iter()
            .flat_map(|f| words.iter().map(move |w| (f.clone(), w.to_string())))
            .filter(|(f, w)| i.is_inflection_of(w, f))
            .collect();
        let found = inflection_pairs(&forms, &words, i);
        assert_eq!(found, brute);
        for pair in [
            ("strike", "struck"),
            ("mouse", "mice"),
            ("lead", "led"),
            ("bank", "banks"),
        ] {
            assert!(
                found.contains(&(pair.0.to_string(), pair.1.to_string())),
                "{pair:?} in {found:?}"
            );
        }
        assert!(
            !found
                .iter()
                .any(|(_, w)| w == "fruit" || w == "banker" || w == "creamy")
        );
    }

    #[test]
    fn clues_are_plain_words_never_the_term() {
        let i = text::Inflector::shared();
        for (clue, term) in [
            ("fruit", "apple"),
            ("ox", "cow"),
            ("tree", "apple"),
            ("struck", "lightning"),
            ("cream", "ice"),
        ] {
            assert!(
                is_clue_for(clue, term, i),
                "{clue} should be a clue for {term}"
            );
        }
        for (clue, term) in [
            ("f", "fruit"),
            ("x", "axis"),
            ("中", "china"),
            ("ˈlʌndən", "london"),
            ("us", "america"),
            ("other", "apple"),
            ("cannot", "can"),
            ("the", "apple"),
            ("méxico", "mexico"),
            ("café", "coffee"),
            ("zq", "apple"),
            ("kg", "weight"),
            ("Fruit", "apple"),
            ("apple", "apple"),
            ("apples", "apple"),
            ("struck", "strike"),
            ("cream", "ice cream"),
            ("creams", "ice cream"),
            ("", "apple"),
        ] {
            assert!(
                !is_clue_for(clue, term, i),
                "{clue:?} should not be a clue for {term}"
            );
        }
    }

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
