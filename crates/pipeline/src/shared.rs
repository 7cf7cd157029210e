//! What more than one stage uses, so that stages share it here rather than call each other:
//! the language's rules for clues and inflections, the `inflections` table (written by
//! `scores` and by `relatedness`, whichever ran last), the terms' coverage (by `terms` and
//! `term_pages`), and a sentence cut as evidence.

use anyhow::Result;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use store::Build;

/// Pages analysed per parallel batch (and per transaction) by `count` and `chunks`.
pub const BATCH: usize = 256;
/// Longest excerpt kept, in characters.
pub const EXCERPT_CHARS: usize = 400;

/// A sentence as evidence: white space collapsed, cut at [`EXCERPT_CHARS`].
pub fn excerpt(sentence: &str) -> String {
    let collapsed = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &collapsed[..cut]),
        None => collapsed,
    }
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
/// inflection tables. Its forms are every listed card word's, every word of `clue_words` and
/// every other written form of one (`clue_forms`: `choices` is counted as `choice`), which is
/// what a word no list names can be as a card (loading the tables for one typed word took
/// ~200 ms and 85 MB of a whole `suggest`); its words every clue of `scores` and `clue_words`.
/// The `scores` and `relatedness` stages both call it and leave the same table whichever ran
/// last. Returns its row count.
pub fn refresh_inflections(build: &Build) -> Result<usize> {
    let reader = build.reader();
    let mut forms: BTreeSet<String> = reader
        .listed_terms()?
        .iter()
        .flat_map(|t| store::card_forms(t))
        .collect();
    forms.extend(reader.clue_words()?.into_iter().map(|(w, _, _)| w));
    forms.extend(reader.clue_form_names()?);
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

/// Sets `terms.covered` from the stored `term_pages` rows and records the outcome in `meta`
/// (`term_pages.covered`, `term_pages.uncovered`). Both `terms` and `term_pages` call it, so the
/// figures always describe the tables as they are, whichever stage ran last.
pub fn refresh_coverage(build: &Build) -> Result<()> {
    let uncovered = build.refresh_coverage()?;
    let covered = build.reader().terms()?.len();
    crate::record(
        build,
        "term_pages",
        &[
            ("covered", covered.to_string()),
            ("uncovered", uncovered.join(",")),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_collapsed_and_cut() {
        assert_eq!(excerpt("  An   apple\n a day. "), "An apple a day.");
        let long = "a ".repeat(500);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT_CHARS + 1);
    }

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
}
