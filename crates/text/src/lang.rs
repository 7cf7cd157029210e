//! The language of a corpus: which stemmer and stopwords apply, and whether the English-only
//! parts of this crate do.
//!
//! English is the crate's full path: the tagger ([`crate::Tagger`]), named entities, noun
//! chunks, WordNet + lemminflect inflections with Porter2 as fallback ([`crate::Inflector`]) and
//! the hand-written stopwords ([`crate::is_stopword`]). Every other language has only what needs
//! no training data: its Snowball stemmer (rust-stemmers) for inflections, and the Snowball
//! project's stopword list where one exists (`data/stopwords/`, see `data/README.md`). What the
//! pipeline does without the English parts is documented in `db/README.md` ("Languages").
//!
//! ```
//! let de = text::Language::of_wiki("dewiki").unwrap();
//! assert_eq!(de.code(), "de");
//! assert!(de.is_inflection_of("bänke", "bank"));
//! assert!(de.is_stopword("und") && !de.is_stopword("bank"));
//! assert!(text::Language::of_wiki("simplewiki").unwrap().is_english());
//! ```

use crate::TextError;
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashSet;
use std::sync::OnceLock;

/// The languages with a Snowball stemmer in rust-stemmers: code, stemmer, stopwords (one per
/// line), if the Snowball project has a list.
const LANGUAGES: &[(&str, Algorithm, Option<&str>)] = &[
    ("ar", Algorithm::Arabic, None),
    (
        "da",
        Algorithm::Danish,
        Some(include_str!("../data/stopwords/da.txt")),
    ),
    (
        "de",
        Algorithm::German,
        Some(include_str!("../data/stopwords/de.txt")),
    ),
    ("el", Algorithm::Greek, None),
    ("en", Algorithm::English, None),
    (
        "es",
        Algorithm::Spanish,
        Some(include_str!("../data/stopwords/es.txt")),
    ),
    (
        "fi",
        Algorithm::Finnish,
        Some(include_str!("../data/stopwords/fi.txt")),
    ),
    (
        "fr",
        Algorithm::French,
        Some(include_str!("../data/stopwords/fr.txt")),
    ),
    (
        "hu",
        Algorithm::Hungarian,
        Some(include_str!("../data/stopwords/hu.txt")),
    ),
    (
        "it",
        Algorithm::Italian,
        Some(include_str!("../data/stopwords/it.txt")),
    ),
    (
        "nl",
        Algorithm::Dutch,
        Some(include_str!("../data/stopwords/nl.txt")),
    ),
    (
        "no",
        Algorithm::Norwegian,
        Some(include_str!("../data/stopwords/no.txt")),
    ),
    (
        "pt",
        Algorithm::Portuguese,
        Some(include_str!("../data/stopwords/pt.txt")),
    ),
    (
        "ro",
        Algorithm::Romanian,
        Some(include_str!("../data/stopwords/ro.txt")),
    ),
    (
        "ru",
        Algorithm::Russian,
        Some(include_str!("../data/stopwords/ru.txt")),
    ),
    (
        "sv",
        Algorithm::Swedish,
        Some(include_str!("../data/stopwords/sv.txt")),
    ),
    ("ta", Algorithm::Tamil, None),
    ("tr", Algorithm::Turkish, None),
];

/// Wikis whose language code is not their name's prefix.
const WIKI_LANGUAGES: &[(&str, &str)] = &[("simple", "en"), ("nb", "no")];

/// A corpus language clue-db supports: English, or one with a Snowball stemmer. Cheap to copy.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// Index into [`LANGUAGES`].
    at: usize,
}

impl std::fmt::Debug for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Language({})", self.code())
    }
}

impl Default for Language {
    fn default() -> Self {
        Language::english()
    }
}

impl Language {
    /// English: the full path (tagger, entities, WordNet inflections).
    pub fn english() -> Language {
        Language::from_code("en").expect("English is in the table")
    }

    /// The language of an ISO 639-1 code (`de`, `fr`), or an error listing those supported.
    pub fn from_code(code: &str) -> Result<Language, TextError> {
        let code = code.trim().to_ascii_lowercase();
        LANGUAGES
            .iter()
            .position(|(c, _, _)| *c == code)
            .map(|at| Language { at })
            .ok_or_else(|| TextError::Language(code, Language::supported().join(", ")))
    }

    /// The language of a wiki by its database name: `dewiki` → de, `enwiki` and `simplewiki` →
    /// en, `frwiktionary` → fr.
    pub fn of_wiki(wiki: &str) -> Result<Language, TextError> {
        let prefix = [
            "wiktionary",
            "wikibooks",
            "wikiquote",
            "wikisource",
            "wikivoyage",
            "wiki",
        ]
        .iter()
        .find_map(|s| wiki.strip_suffix(s))
        .unwrap_or(wiki);
        let prefix = prefix.split(['-', '_']).next().unwrap_or(prefix);
        let code = WIKI_LANGUAGES
            .iter()
            .find(|(w, _)| *w == prefix)
            .map_or(prefix, |(_, c)| c);
        Language::from_code(code)
    }

    /// The codes of the supported languages.
    pub fn supported() -> Vec<&'static str> {
        LANGUAGES.iter().map(|(c, _, _)| *c).collect()
    }

    /// The ISO 639-1 code.
    pub fn code(self) -> &'static str {
        LANGUAGES[self.at].0
    }

    /// Whether this is English, which has the tagger, entities and WordNet inflections.
    pub fn is_english(self) -> bool {
        self.code() == "en"
    }

    /// A card word as one card of this language, whatever its accents: English's vocabulary
    /// is the letters a to z (`café` is the text's `cafe`), so its cards are one card with or
    /// without them ([`crate::fold_accents`]); another language's accents make another word
    /// (`schön`, `schon`).
    pub fn card_key(self, word: &str) -> String {
        if self.is_english() {
            crate::fold_accents(word)
        } else {
            word.to_string()
        }
    }

    /// Whether a stopword list is compiled in (English's own; the Snowball project's for the
    /// others that have one).
    #[cfg(test)]
    pub fn has_stopwords(self) -> bool {
        self.is_english() || LANGUAGES[self.at].2.is_some()
    }

    /// Whether `word` (lower-case) is a stopword of the language; never, without a list.
    pub fn is_stopword(self, word: &str) -> bool {
        if self.is_english() {
            return crate::is_stopword(word);
        }
        static SETS: OnceLock<Vec<HashSet<&'static str>>> = OnceLock::new();
        let sets = SETS.get_or_init(|| {
            LANGUAGES
                .iter()
                .map(|(_, _, list)| list.map_or_else(HashSet::new, |l| l.lines().collect()))
                .collect()
        });
        sets[self.at].contains(word)
    }

    /// The Snowball stem of a lower-case word (Porter2 for English, as [`crate::Inflector::stem`]).
    pub fn stem(self, word: &str) -> String {
        Stemmer::create(LANGUAGES[self.at].1)
            .stem(word)
            .into_owned()
    }

    /// Whether `word` is one lower-case word of letters (any script): what a vocabulary word or
    /// a clue of a language other than English may be.
    pub fn is_word(self, word: &str) -> bool {
        !word.is_empty() && word.chars().all(|c| c.is_alphabetic() && !c.is_uppercase())
    }

    /// Whether `a` and `b` are inflections of one another. English: [`crate::Inflector`]'s
    /// rule (WordNet, lemminflect, Porter2 for unknown words). Other languages: the same word,
    /// or the same Snowball stem (`bank`/`bänke`/`banken`); multi-word inputs must share all
    /// but their last word.
    pub fn is_inflection_of(self, a: &str, b: &str) -> bool {
        self.are_inflections(&self.comparable(a), &self.comparable(b))
    }

    /// `word` read once for [`Language::are_inflections`], to compare it with many.
    pub fn comparable(self, word: &str) -> Comparable {
        if self.is_english() {
            Comparable::English(crate::Inflectable::new(word))
        } else {
            Comparable::Stemmed(word.trim().to_lowercase(), std::cell::OnceCell::new())
        }
    }

    /// [`Language::is_inflection_of`] of two words read once ([`Language::comparable`]).
    pub fn are_inflections(self, a: &Comparable, b: &Comparable) -> bool {
        let (a, sa, b, sb) = match (a, b) {
            (Comparable::English(a), Comparable::English(b)) => {
                // What needs no tables is answered without loading them (~80 ms).
                return a
                    .without_tables(b)
                    .unwrap_or_else(|| crate::Inflector::shared().are_inflections(a, b));
            }
            (Comparable::Stemmed(a, sa), Comparable::Stemmed(b, sb)) => (a, sa, b, sb),
            // Read for two languages: compared as the rule of this one reads them.
            _ => return self.is_inflection_of(a.word(), b.word()),
        };
        if a == b {
            return !a.is_empty();
        }
        let split = |s: &str| match s.rsplit_once(' ') {
            Some((p, l)) => (p.to_string(), l.to_string()),
            None => (String::new(), s.to_string()),
        };
        let ((pa, la), (pb, lb)) = (split(a), split(b));
        pa == pb
            && !la.is_empty()
            && sa.get_or_init(|| self.stem(&la)) == sb.get_or_init(|| self.stem(&lb))
    }

    /// Whether `word` may be said as a clue in a language other than English: one lower-case
    /// word of letters, three or more (there is no dictionary to tell a two-letter word from an
    /// abbreviation, as WordNet does for English), and no stopword.
    pub fn clue_shape(self, word: &str) -> bool {
        self.is_word(word) && word.chars().count() >= 3 && !self.is_stopword(word)
    }
}

/// A word read once by [`Language::comparable`] for the inflection rule of its language.
#[derive(Debug)]
pub enum Comparable {
    English(crate::Inflectable),
    /// The word trimmed and lower-cased, and its last word's stem once asked for.
    Stemmed(String, std::cell::OnceCell<String>),
}

impl Comparable {
    fn word(&self) -> &str {
        match self {
            Comparable::English(w) => w.word(),
            Comparable::Stemmed(w, _) => w,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// English cards are one card with or without accents; a German `schön` is not `schon`.
    #[test]
    fn a_card_key_folds_accents_in_english_only() {
        let en = Language::english();
        assert_eq!(en.card_key("café"), "cafe");
        assert_eq!(en.card_key("cafe\u{301}"), "cafe");
        assert_eq!(en.card_key("cafe"), "cafe");
        let de = Language::from_code("de").unwrap();
        assert_eq!(de.card_key("schön"), "schön");
        assert_ne!(de.card_key("schön"), de.card_key("schon"));
    }

    /// A word read once and compared with many answers as a word read anew for each pair, in
    /// any order of comparison (what a word's first comparison works out is kept for its
    /// next), in English and in a stemmed language.
    #[test]
    fn words_read_once_compare_as_words_read_anew() {
        for (code, words, yes, no) in [
            (
                "en",
                &[
                    "strike",
                    "struck",
                    "strikes",
                    "mice",
                    "mouse",
                    "organ",
                    "organization",
                    "pokemon",
                    "pokemons",
                    "ice cream",
                    "ice creams",
                    "universe",
                    "university",
                    "ran",
                    "run",
                    "apple",
                    "apples",
                    "new york",
                ][..],
                ("mice", "mouse"),
                ("organ", "organization"),
            ),
            (
                "de",
                &[
                    "bank", "bänke", "banken", "haus", "häuser", "hausen", "apfel", "äpfel",
                ][..],
                ("bänke", "bank"),
                ("haus", "apfel"),
            ),
        ] {
            let lang = Language::from_code(code).unwrap();
            assert!(lang.is_inflection_of(yes.0, yes.1), "{code}: {yes:?}");
            assert!(!lang.is_inflection_of(no.0, no.1), "{code}: {no:?}");
            let read: Vec<Comparable> = words.iter().map(|w| lang.comparable(w)).collect();
            for (i, a) in words.iter().enumerate().rev() {
                for (j, b) in words.iter().enumerate() {
                    assert_eq!(
                        lang.are_inflections(&read[i], &read[j]),
                        lang.is_inflection_of(a, b),
                        "{code}: {a} / {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn wiki_names_give_their_language() {
        for (wiki, code) in [
            ("enwiki", "en"),
            ("simplewiki", "en"),
            ("dewiki", "de"),
            ("frwiktionary", "fr"),
            ("nowiki", "no"),
            ("ruwiki", "ru"),
        ] {
            assert_eq!(Language::of_wiki(wiki).unwrap().code(), code, "{wiki}");
        }
        let err = Language::of_wiki("jawiki").unwrap_err().to_string();
        assert!(
            err.contains("\"ja\"") && err.contains("de, el, en"),
            "{err}"
        );
    }

    #[test]
    fn lists_are_sorted_lower_case_words() {
        for (code, _, list) in LANGUAGES {
            let Some(list) = list else { continue };
            let words: Vec<&str> = list.lines().collect();
            assert!(words.len() > 80, "{code}");
            assert!(words.windows(2).all(|w| w[0] < w[1]), "{code}");
            assert!(
                words
                    .iter()
                    .all(|w| !w.is_empty() && *w == w.to_lowercase()),
                "{code}"
            );
        }
    }

    #[test]
    fn stems_and_stopwords_per_language() {
        let de = Language::from_code("de").unwrap();
        assert_eq!(de.stem("häuser"), de.stem("haus"));
        assert!(de.is_stopword("über") && de.is_stopword("daß"));
        assert!(de.clue_shape("käse") && !de.clue_shape("und") && !de.clue_shape("Käse"));
        assert!(!de.clue_shape("ei"), "two letters");
        let fr = Language::from_code("fr").unwrap();
        assert!(fr.is_inflection_of("chevaux", "cheval") || fr.stem("pommes") == fr.stem("pomme"));
        let tr = Language::from_code("tr").unwrap();
        assert!(!tr.has_stopwords() && !tr.is_stopword("ve"));
        let en = Language::english();
        assert!(en.is_stopword("the") && en.is_inflection_of("mice", "mouse"));
        assert_eq!(
            en.stem("running"),
            crate::Inflector::shared().stem("running")
        );
    }
}
