//! Counting terms in an analysed page, for the pipeline's `count` stage.
//!
//! Every occurrence of a term — any of its forms, case-insensitive; a multi-word term as a
//! phrase of consecutive tokens joined by spaces or a hyphen — goes into one bucket:
//! - inside a named entity (judged by its last word): the entity's text ("Bill Gates");
//! - otherwise: the part of speech of its last word ("back" as ADV, "back" as NOUN).
//!
//! An inflected form counts only where its tag allows it: `wound` tagged NOUN is not the verb
//! `wind`, nor `born` tagged NOUN... the verb `bear` (see [`Inflector::is_form_as`]).
//!
//! A one-word term WordNet does not know (`pokemon`) has only guessed forms, so the Porter2
//! stemmer is the fallback: a token WordNet does not know either, with the term's stem, counts
//! too (`zorbified` for `zorbify`). This is stricter than [`Inflector::is_inflection_of`],
//! which needs only one of the two words unknown: in running text a known word sharing a stem
//! (`banks` for a term `bankly`) is far more often another word than an inflection.
//!
//! The largest bucket is kept, with the sentence of its first occurrence as the excerpt. So
//! for "bill" on a page about Microsoft, "Bill Gates" and "Bill Hewlett" are two buckets, and
//! neither is added to the noun "bill".

use crate::Analysis;
use crate::hash::FxHashMap;
use crate::inflect::Inflector;
use crate::lang::Language;
use crate::pos::Upos;
use crate::tokens::{joined, tokenize};
use std::ops::Range;

/// A term with all the forms to look for, each as lower-case words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermForms {
    /// The term as given.
    pub term: String,
    /// Its forms (the term itself first), each split into lower-case words.
    forms: Vec<Vec<String>>,
    /// Per form: the tags (bits of `Upos as u32`) its last word may carry to count.
    tags: Vec<u32>,
    /// Porter2 stems of the one-word lemmas (term or synonym) WordNet does not know: an unknown
    /// token with one of these stems counts as the term, under any tag.
    stems: Vec<String>,
}

/// Every tag allowed.
const ANY_TAG: u32 = u32::MAX;

fn tag_bit(upos: Upos) -> u32 {
    1 << (upos as u32)
}

impl TermForms {
    /// The term and its inflections from `inflector` (`ice cream` -> `ice cream`, `ice creams`).
    /// Each inflection counts only under the tags it can have as a form of the term.
    pub fn new(term: &str, inflector: &Inflector) -> TermForms {
        TermForms::with_synonyms(term, &[], inflector)
    }

    /// The term, its synonyms (`buck` -> `deer`) and the inflections of each; an inflection
    /// counts only under the tags it can have as a form of the word it inflects.
    pub fn with_synonyms(term: &str, synonyms: &[&str], inflector: &Inflector) -> TermForms {
        let mut out = TermForms::from_forms(term, std::iter::empty::<&str>());
        for lemma in std::iter::once(term).chain(synonyms.iter().copied()) {
            let lower = lemma.to_lowercase();
            if is_stemmable(&lower) && !inflector.knows(&lower) {
                let stem = inflector.stem(&lower);
                if !out.stems.contains(&stem) {
                    out.stems.push(stem);
                }
            }
            for form in inflector.forms(lemma) {
                let tags = Upos::ALL
                    .into_iter()
                    .filter(|&u| inflector.is_form_as(&form, lemma, u))
                    .fold(0, |bits, u| bits | tag_bit(u));
                out.push(&form, tags);
            }
        }
        out
    }

    /// For a language without WordNet ([`TermIndex::with_language`]): the term and its synonyms
    /// as written, under any tag, and the Snowball stem of each one-word one, so that every token
    /// with that stem counts (`bänke`, `banken` for `bank`).
    pub fn stemmed(term: &str, synonyms: &[&str], language: Language) -> TermForms {
        let mut out = TermForms::from_forms(term, synonyms);
        for lemma in std::iter::once(term).chain(synonyms.iter().copied()) {
            let lower = lemma.trim().to_lowercase();
            if language.is_word(&lower) && lower.chars().count() >= 3 {
                let stem = language.stem(&lower);
                if !stem.is_empty() && !out.stems.contains(&stem) {
                    out.stems.push(stem);
                }
            }
        }
        out
    }

    /// Adds `form` counted under `tags`; a form already there gains the tags.
    fn push(&mut self, form: &str, tags: u32) {
        let words: Vec<String> = tokenize(form)
            .iter()
            .map(|t| t.text(form).to_lowercase())
            .collect();
        if words.is_empty() {
            return;
        }
        match self.forms.iter().position(|f| *f == words) {
            Some(k) => self.tags[k] |= tags,
            None => {
                self.forms.push(words);
                self.tags.push(tags);
            }
        }
    }

    /// A term with forms given by the caller (the term itself is added if missing), each
    /// counted under any tag.
    pub fn from_forms<I, S>(term: &str, forms: I) -> TermForms
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut out = TermForms {
            term: term.to_string(),
            forms: Vec::new(),
            tags: Vec::new(),
            stems: Vec::new(),
        };
        out.push(term, ANY_TAG);
        for form in forms {
            out.push(form.as_ref(), ANY_TAG);
        }
        out
    }
}

/// How a term is used on a page: its largest bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermCount {
    /// Occurrences in the largest bucket.
    pub count: u32,
    /// Occurrences in all buckets.
    pub total: u32,
    /// The bucket's part of speech, when it is not an entity bucket.
    pub pos: Option<Upos>,
    /// The bucket's entity text, when it is an entity bucket.
    pub entity: Option<String>,
    /// Bytes of the sentence of the bucket's first occurrence.
    pub excerpt: Range<usize>,
}

/// Whether the stemmer fallback applies to a word: English letters only, three or more.
fn is_stemmable(word: &str) -> bool {
    word.len() >= 3 && word.bytes().all(|b| b.is_ascii_lowercase())
}

/// The first two letters of a stemmable word, as an index into [`TermIndex::stem_heads`].
fn head(word: &str) -> usize {
    let b = word.as_bytes();
    (b[0] - b'a') as usize * 26 + (b[1] - b'a') as usize
}

/// Many terms, indexed by their forms' first words for a single pass over a page.
#[derive(Debug, Clone, Default)]
pub struct TermIndex {
    terms: Vec<TermForms>,
    /// First word of a form -> (term index, form index).
    by_first: FxHashMap<Box<str>, Vec<(u32, u32)>>,
    /// Stem of a term WordNet does not know -> term indices (see [`TermForms`]).
    by_stem: FxHashMap<Box<str>, Vec<u32>>,
    /// Which first two letters those stems have: a token is only stemmed when its own first two
    /// letters are here (Porter2 keeps a word's start), so most tokens cost one array look-up.
    stem_heads: Vec<bool>,
    /// A language other than English: its stemmer matches every word of three letters or more
    /// against `by_stem` (there is no WordNet to tell known words apart).
    language: Option<Language>,
}

#[derive(Debug, PartialEq, Eq)]
enum Key<'e> {
    Pos(Upos),
    Entity(&'e str),
}

struct Bucket<'e> {
    key: Key<'e>,
    count: u32,
    sentence: usize,
}

impl TermIndex {
    /// Indexes `terms`; results refer to terms by their position here.
    pub fn new(terms: Vec<TermForms>) -> TermIndex {
        let mut by_first: FxHashMap<Box<str>, Vec<(u32, u32)>> = FxHashMap::default();
        for (t, term) in terms.iter().enumerate() {
            for (f, form) in term.forms.iter().enumerate() {
                if let Some(first) = form.first() {
                    by_first
                        .entry(first.as_str().into())
                        .or_default()
                        .push((t as u32, f as u32));
                }
            }
        }
        let mut by_stem: FxHashMap<Box<str>, Vec<u32>> = FxHashMap::default();
        let mut stem_heads = Vec::new();
        for (t, term) in terms.iter().enumerate() {
            let usable = |s: &&String| s.len() >= 2 && s.bytes().all(|b| b.is_ascii_lowercase());
            for stem in term.stems.iter().filter(usable) {
                stem_heads.resize(26 * 26, false);
                stem_heads[head(stem)] = true;
                by_stem
                    .entry(stem.as_str().into())
                    .or_default()
                    .push(t as u32);
            }
        }
        TermIndex {
            terms,
            by_first,
            by_stem,
            stem_heads,
            language: None,
        }
    }

    /// Indexes terms of a language other than English (made by [`TermForms::stemmed`]): a token
    /// counts for a term when it is one of its forms or has one of its stems. English gives
    /// [`TermIndex::new`].
    pub fn with_language(terms: Vec<TermForms>, language: Language) -> TermIndex {
        if language.is_english() {
            return TermIndex::new(terms);
        }
        let mut index = TermIndex::new(Vec::new());
        for (t, term) in terms.iter().enumerate() {
            for (f, form) in term.forms.iter().enumerate() {
                if let Some(first) = form.first() {
                    index
                        .by_first
                        .entry(first.as_str().into())
                        .or_default()
                        .push((t as u32, f as u32));
                }
            }
            for stem in &term.stems {
                index
                    .by_stem
                    .entry(stem.as_str().into())
                    .or_default()
                    .push(t as u32);
            }
        }
        index.terms = terms;
        index.language = Some(language);
        index
    }

    /// The terms token `word` counts for through the stemmer fallback: those whose stem it has,
    /// when WordNet does not know it (a known word has its own lemma, and is not a guess).
    fn stem_matches(&self, word: &str) -> &[u32] {
        if let Some(language) = self.language {
            if self.by_stem.is_empty() || word.chars().nth(2).is_none() || !language.is_word(word) {
                return &[];
            }
            return self
                .by_stem
                .get(language.stem(word).as_str())
                .map_or(&[], Vec::as_slice);
        }
        if self.stem_heads.is_empty() || !is_stemmable(word) || !self.stem_heads[head(word)] {
            return &[];
        }
        // The tables are the vendored ones, the same in every instance.
        let inflector = Inflector::shared();
        match self.by_stem.get(inflector.stem(word).as_str()) {
            Some(terms) if !inflector.knows(word) => terms,
            _ => &[],
        }
    }

    /// The indexed terms.
    pub fn terms(&self) -> &[TermForms] {
        &self.terms
    }

    /// Counts every indexed term in `analysis`: (term index, count) for the terms that occur,
    /// in term order.
    pub fn count(&self, analysis: &Analysis<'_>) -> Vec<(usize, TermCount)> {
        // Per term: buckets, and the token after its last match (no overlapping matches).
        let mut found: FxHashMap<u32, (Vec<Bucket<'_>>, usize)> = FxHashMap::default();
        let n = analysis.tokens.len();
        // Counts the match of term `t` over tokens `i..=last` in its bucket, unless it overlaps
        // the term's previous match.
        let mut add = |t: u32, i: usize, last: usize| {
            let (buckets, next_free) = found.entry(t).or_insert_with(|| (Vec::new(), 0));
            if i < *next_free {
                return;
            }
            *next_free = last + 1;
            let key = match analysis.entity_at(last) {
                Some(e) => Key::Entity(e.text.as_str()),
                None => Key::Pos(analysis.tags[last]),
            };
            let sentence = analysis.sentence_of(i);
            match buckets.iter_mut().find(|b| b.key == key) {
                Some(b) => b.count += 1,
                None => buckets.push(Bucket {
                    key,
                    count: 1,
                    sentence,
                }),
            }
        };
        for i in 0..n {
            let word = analysis.lower(i);
            for &(t, f) in self.by_first.get(word).into_iter().flatten() {
                let term = &self.terms[t as usize];
                let form = &term.forms[f as usize];
                let Some(last) = self.match_at(analysis, i, form) else {
                    continue;
                };
                if term.tags[f as usize] & tag_bit(analysis.tags[last]) != 0 {
                    add(t, i, last);
                }
            }
            for &t in self.stem_matches(word) {
                add(t, i, i);
            }
        }
        let mut out: Vec<(usize, TermCount)> = found
            .into_iter()
            .filter_map(|(t, (buckets, _))| {
                let total = buckets.iter().map(|b| b.count).sum();
                // Largest bucket; on a tie the one seen first.
                let best = buckets
                    .iter()
                    .fold(None::<&Bucket<'_>>, |best, b| match best {
                        Some(x) if x.count >= b.count => Some(x),
                        _ => Some(b),
                    })?;
                let (pos, entity) = match best.key {
                    Key::Pos(p) => (Some(p), None),
                    Key::Entity(e) => (None, Some(e.to_string())),
                };
                let excerpt = analysis
                    .sentences
                    .get(best.sentence)
                    .map_or(0..0, |s| s.range.clone());
                Some((
                    t as usize,
                    TermCount {
                        count: best.count,
                        total,
                        pos,
                        entity,
                        excerpt,
                    },
                ))
            })
            .collect();
        out.sort_by_key(|(t, _)| *t);
        out
    }

    /// If `form` occurs at token `i` (same sentence, tokens joined by spaces or a hyphen),
    /// the index of its last token.
    fn match_at(&self, analysis: &Analysis<'_>, i: usize, form: &[String]) -> Option<usize> {
        let last = i + form.len() - 1;
        if last >= analysis.tokens.len() || analysis.sentence_of(i) != analysis.sentence_of(last) {
            return None;
        }
        for (k, word) in form.iter().enumerate().skip(1) {
            let j = i + k;
            if analysis.lower(j) != word
                || !joined(analysis.text, &analysis.tokens[j - 1], &analysis.tokens[j])
            {
                return None;
            }
        }
        Some(last)
    }
}

/// Counts one term in `analysis` (see the module documentation); `None` if it does not occur.
/// For many terms per page, build a [`TermIndex`] once instead.
pub fn count_term(analysis: &Analysis<'_>, term: &TermForms) -> Option<TermCount> {
    TermIndex::new(vec![term.clone()])
        .count(analysis)
        .pop()
        .map(|(_, c)| c)
}
