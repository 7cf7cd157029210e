//! Stage `chunks`: what the term pages themselves say. Two products from one pass over each
//! term page's text:
//! - `chunks`: the root nouns of its noun chunks (lemmas: `years` -> `year`), counted per
//!   (page, term); chunks holding a digit are skipped ("the 1990 season" says little about
//!   seasons), and so are proper-noun roots after another word of the same name in their chunk,
//!   which are fragments of it (`states` of "United States", `zealand` of "New Zealand");
//! - `term_docs`: the term's document for the herfindahl strategy, the lemmas of the words of all
//!   its pages (lower-case, letters only, stopwords left out) with their counts, so that a
//!   clue's singular and plural add up.
//!
//! In a language other than English there is no tagger to find noun chunks: `chunks` stays
//! empty, and the term documents hold the words as written (lower-case, the language's
//! stopwords left out), with no lemmas ([`page_words`]).

use crate::{progress, record};
use anyhow::{Result, anyhow};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use store::{Build, ChunkRow};
use text::{Inflector, Tagger, Upos};

/// What one term page gives.
#[derive(Debug, Default, PartialEq)]
pub struct PageChunks {
    /// Root noun -> count, digit chunks skipped.
    pub roots: BTreeMap<String, u64>,
    /// Root noun -> the first sentence with such a chunk (collapsed and cut as in `counts`).
    pub excerpts: BTreeMap<String, String>,
    /// Word -> count for the term document.
    pub words: BTreeMap<String, u64>,
}

/// Whether the word before a chunk's root, inside the chunk, belongs to the same name: a proper
/// noun, or a capitalised word that does not open its sentence (the tagger reads "United" of
/// "United States" and "New" of "New Zealand" as adjectives).
fn continues_a_name(analysis: &text::Analysis<'_>, chunk: &text::NounChunk) -> bool {
    let root = chunk.tokens.end - 1;
    if root <= chunk.tokens.start {
        return false;
    }
    let prev = root - 1;
    let opens_sentence = analysis
        .sentences
        .get(analysis.sentence_of(prev))
        .is_some_and(|s| s.tokens.start == prev);
    analysis.tags[prev] == Upos::Propn
        || (!opens_sentence && analysis.token_text(prev).starts_with(char::is_uppercase))
}

/// Analyses one term page.
pub fn page_chunks(text: &str, tagger: &Tagger, inflector: &Inflector) -> PageChunks {
    let analysis = text::analyze(text, tagger);
    let mut out = PageChunks::default();
    for c in analysis.noun_chunks(inflector) {
        let name_fragment = c.root_upos == Upos::Propn && continues_a_name(&analysis, &c);
        if !c.has_digit && !c.root.is_empty() && !name_fragment {
            if !out.excerpts.contains_key(&c.root) {
                let sentence = analysis
                    .sentences
                    .get(analysis.sentence_of(c.tokens.start))
                    .and_then(|s| analysis.text.get(s.range.clone()));
                if let Some(s) = sentence {
                    out.excerpts
                        .insert(c.root.clone(), crate::shared::excerpt(s));
                }
            }
            *out.roots.entry(c.root).or_default() += 1;
        }
    }
    for i in 0..analysis.tokens.len() {
        let w = analysis.lower(i);
        if w.is_empty() || !w.chars().all(char::is_alphabetic) || text::is_stopword(w) {
            continue;
        }
        // The lemma may be a stopword when the word is not ("was" -> "be").
        let lemma = inflector.lemma(w, analysis.tags[i]);
        if !text::is_stopword(&lemma) {
            *out.words.entry(lemma).or_default() += 1;
        }
    }
    out
}

/// What one term page gives in a language other than English: no noun chunks (no tagger), and
/// the term document's words as written, lower-case, letters only, stopwords left out.
pub fn page_words(text: &str, language: text::Language) -> PageChunks {
    let mut out = PageChunks::default();
    for t in text::tokenize(text) {
        let w = t.text(text).to_lowercase();
        if language.is_word(&w) && !language.is_stopword(&w) {
            *out.words.entry(w).or_default() += 1;
        }
    }
    out
}

pub fn run(build: &Build) -> Result<()> {
    let reader = build.reader();
    let language = crate::language(build)?;
    let inflector = Inflector::shared();
    let tagger = if language.is_english() {
        Some(Tagger::shared().map_err(|e| anyhow!("loading the part-of-speech tagger: {e}"))?)
    } else {
        None
    };
    let term_pages = reader.term_pages()?;
    let mut ids: Vec<u64> = term_pages.iter().map(|(_, id, _)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut terms_of: HashMap<u64, Vec<&str>> = HashMap::new();
    for (t, id, _) in &term_pages {
        terms_of.entry(*id).or_default().push(t);
    }
    let pb = progress::bar(ids.len() as u64, "pages");
    pb.set_prefix("chunks");
    build.begin()?;
    build.clear(&["chunks", "term_docs"])?;
    let (mut chunk_rows, mut doc_rows) = (0u64, 0u64);
    for batch_ids in ids.chunks(crate::shared::BATCH) {
        let mut batch = Vec::with_capacity(batch_ids.len());
        reader.for_each_text(batch_ids, |id, text| {
            batch.push((id, text));
            Ok(())
        })?;
        let done: Vec<(u64, PageChunks)> = batch
            .par_iter()
            .map(|(id, text)| match tagger {
                Some(tagger) => (*id, page_chunks(text, tagger, inflector)),
                None => (*id, page_words(text, language)),
            })
            .collect();
        for (id, pc) in &done {
            for term in terms_of.get(id).into_iter().flatten() {
                for (root, n) in &pc.roots {
                    build.insert_chunk(&ChunkRow {
                        page_id: *id,
                        term: term.to_string(),
                        clue: root.clone(),
                        count: *n,
                        excerpt: pc.excerpts.get(root).cloned(),
                    })?;
                    chunk_rows += 1;
                }
                for (word, n) in &pc.words {
                    build.insert_term_doc(term, word, *n)?;
                    doc_rows += 1;
                }
            }
        }
        build.commit()?;
        build.begin()?;
        pb.inc(batch_ids.len() as u64);
    }
    build.commit()?;
    pb.finish_and_clear();
    record(
        build,
        "chunks",
        &[
            ("term_pages", ids.len().to_string()),
            ("chunk_rows", chunk_rows.to_string()),
            ("term_doc_rows", doc_rows.to_string()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_skip_digit_chunks_and_documents_skip_stopwords() {
        let pc = page_chunks(
            "She picked the red apples in the old orchard. The 1990 harvest was poor.",
            Tagger::shared().unwrap(),
            Inflector::shared(),
        );
        assert_eq!(pc.roots.get("apple"), Some(&1));
        assert_eq!(pc.roots.get("orchard"), Some(&1));
        assert_eq!(
            pc.excerpts.get("orchard").map(String::as_str),
            Some("She picked the red apples in the old orchard.")
        );
        assert_eq!(pc.roots.get("harvest"), None, "chunk with a digit skipped");
        assert_eq!(pc.words.get("apple"), Some(&1), "{:?}", pc.words);
        assert_eq!(pc.words.get("apples"), None, "documents hold lemmas");
        assert_eq!(pc.words.get("the"), None);
        assert_eq!(pc.words.get("harvest"), Some(&1));
        assert_eq!(pc.words.get("be"), None, "was -> be, a stopword");
    }

    #[test]
    fn roots_are_singular_and_name_fragments_are_skipped() {
        let pc = page_chunks(
            "Many years passed. The legs of the table are long. Trade with the United States \
             and New Zealand grew. Paris is big. Old Paris Saint Germain lost. Beautiful Rome \
             is old.",
            Tagger::shared().unwrap(),
            Inflector::shared(),
        );
        assert_eq!(pc.roots.get("year"), Some(&1), "{:?}", pc.roots);
        assert_eq!(pc.roots.get("leg"), Some(&1), "{:?}", pc.roots);
        for plural in ["years", "legs"] {
            assert_eq!(pc.roots.get(plural), None, "{:?}", pc.roots);
        }
        for fragment in ["states", "zealand"] {
            assert_eq!(pc.roots.get(fragment), None, "{:?}", pc.roots);
        }
        assert_eq!(pc.roots.get("paris"), Some(&1), "a one-word name stays");
        assert_eq!(pc.roots.get("germain"), None, "{:?}", pc.roots);
        assert_eq!(
            pc.roots.get("rome"),
            Some(&1),
            "a capital opening the sentence"
        );
        assert_eq!(pc.words.get("year"), Some(&1));
        assert_eq!(pc.words.get("leg"), Some(&1));
    }
}
