//! Stage `count`: every covered term in every clue page (crate `text` does the counting).
//!
//! A term is looked for with its inflections and with its synonyms' (`pipeline/synonyms.tsv`),
//! multi-word terms as phrases. Uses are counted apart per part of speech and per named entity,
//! and the largest of those counts is kept, with one sentence of the page as the excerpt.
//! Pages are analysed in parallel (rayon), written one transaction per batch.
//!
//! In a language other than English there is no tagger and no WordNet: a term counts in any of
//! its written forms or any word with its Snowball stem, all in one bucket (part of speech `X`,
//! no entities), see [`text::TermIndex::with_language`].

use crate::shared::BATCH;
use crate::{progress, record};
use anyhow::{Result, anyhow};
use rayon::prelude::*;
use std::collections::HashMap;
use store::{Build, ClueCount};
use text::{Inflector, Tagger, TermForms, TermIndex};

/// The forms to look for per term: its own inflections, then each synonym's, each inflection
/// counted only under its own parts of speech.
pub fn term_forms(
    terms: &[String],
    synonyms: &[(String, String)],
    inflector: &Inflector,
) -> Vec<TermForms> {
    let mut syn: HashMap<&str, Vec<&str>> = HashMap::new();
    for (t, s) in synonyms {
        syn.entry(t.as_str()).or_default().push(s.as_str());
    }
    terms
        .iter()
        .map(|t| {
            let synonyms = syn.get(t.as_str()).map_or(&[][..], Vec::as_slice);
            TermForms::with_synonyms(t, synonyms, inflector)
        })
        .collect()
}

/// The forms of terms of a language other than English: each term and its synonyms as
/// written, and their stems.
pub fn stemmed_term_forms(
    terms: &[String],
    synonyms: &[(String, String)],
    language: text::Language,
) -> Vec<TermForms> {
    terms
        .iter()
        .map(|t| {
            let syn: Vec<&str> = synonyms
                .iter()
                .filter(|(term, _)| term == t)
                .map(|(_, s)| s.as_str())
                .collect();
            TermForms::stemmed(t, &syn, language)
        })
        .collect()
}

/// Counts the indexed terms in one page's text.
pub fn count_page(page_id: u64, text: &str, index: &TermIndex, tagger: &Tagger) -> Vec<ClueCount> {
    counts_of(page_id, text::analyze(text, tagger), index)
}

/// Counts the indexed terms in one page's text without a tagger (a language other than English).
pub fn count_page_untagged(page_id: u64, text: &str, index: &TermIndex) -> Vec<ClueCount> {
    counts_of(page_id, text::analyze_untagged(text), index)
}

fn counts_of(page_id: u64, analysis: text::Analysis<'_>, index: &TermIndex) -> Vec<ClueCount> {
    index
        .count(&analysis)
        .into_iter()
        .map(|(t, c)| ClueCount {
            page_id,
            term: index.terms()[t].term.clone(),
            count: c.count as u64,
            pos: c.pos.map(|p| p.as_str().to_string()),
            entity: c.entity,
            excerpt: analysis.text.get(c.excerpt).map(crate::shared::excerpt),
        })
        .collect()
}

pub fn run(build: &Build) -> Result<()> {
    let reader = build.reader();
    let terms = reader.terms()?;
    let synonyms = reader.synonyms()?;
    let language = crate::language(build)?;
    // English: WordNet forms and the tagger. Other languages: stems, no tagger.
    let (index, tagger) = if language.is_english() {
        let inflector = Inflector::shared();
        let tagger =
            Tagger::shared().map_err(|e| anyhow!("loading the part-of-speech tagger: {e}"))?;
        let index = TermIndex::new(term_forms(&terms, &synonyms, inflector));
        (index, Some(tagger))
    } else {
        let forms = stemmed_term_forms(&terms, &synonyms, language);
        (TermIndex::with_language(forms, language), None)
    };
    let ids = reader.clue_page_ids()?;
    let pb = progress::bar(ids.len() as u64, "pages");
    pb.set_prefix("count");
    build.begin()?;
    build.clear(&["counts"])?;
    let mut rows = 0u64;
    let mut bytes = 0u64;
    for chunk in ids.chunks(BATCH) {
        let mut batch = Vec::with_capacity(chunk.len());
        reader.for_each_text(chunk, |id, text| {
            batch.push((id, text));
            Ok(())
        })?;
        bytes += batch.iter().map(|(_, t)| t.len() as u64).sum::<u64>();
        let counted: Vec<Vec<ClueCount>> = batch
            .par_iter()
            .map(|(id, text)| match tagger {
                Some(tagger) => count_page(*id, text, &index, tagger),
                None => count_page_untagged(*id, text, &index),
            })
            .collect();
        for c in counted.iter().flatten() {
            build.insert_count(c)?;
            rows += 1;
        }
        build.commit()?;
        build.begin()?;
        pb.inc(chunk.len() as u64);
    }
    build.commit()?;
    pb.finish_and_clear();
    record(
        build,
        "count",
        &[
            ("pages", ids.len().to_string()),
            ("terms", terms.len().to_string()),
            ("rows", rows.to_string()),
            ("bytes", bytes.to_string()),
            (
                "rule",
                "max over part-of-speech and named-entity buckets".into(),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_inflections_and_synonyms() {
        let inflector = Inflector::shared();
        let tagger = Tagger::shared().unwrap();
        let terms = vec!["strike".to_string(), "buck".to_string()];
        let synonyms = vec![("buck".to_string(), "deer".to_string())];
        let index = TermIndex::new(term_forms(&terms, &synonyms, inflector));
        let text =
            "Lightning struck the old tower. It struck twice. A deer ran off; two deer watched.";
        let rows = count_page(7, text, &index, tagger);
        let strike = rows
            .iter()
            .find(|r| r.term == "strike")
            .expect("struck counts for strike");
        assert_eq!(strike.count, 2);
        assert_eq!(strike.pos.as_deref(), Some("VERB"));
        assert_eq!(
            strike.excerpt.as_deref(),
            Some("Lightning struck the old tower.")
        );
        let buck = rows
            .iter()
            .find(|r| r.term == "buck")
            .expect("deer counts for buck");
        assert_eq!(buck.count, 2);
    }
}
