//! English stopwords: function words that carry no topic (written for this crate).
//!
//! Deliberately function words only — pronouns, determiners, prepositions, conjunctions,
//! auxiliaries and a few grammatical adverbs. Content words that merely are frequent
//! ("first", "world", "new", "may" as a month) stay out, because the list also decides which
//! clues are legal in the game, and a good clue must not be refused for being common.

/// The list, sorted, lower-case, with the clitic tokens the tokenizer emits.
const STOPWORDS: &[&str] = &[
    "'d",
    "'ll",
    "'m",
    "'re",
    "'s",
    "'ve",
    "a",
    "about",
    "above",
    "across",
    "after",
    "again",
    "against",
    "ain't",
    "all",
    "almost",
    "along",
    "already",
    "also",
    "although",
    "am",
    "among",
    "amongst",
    "an",
    "and",
    "another",
    "any",
    "anybody",
    "anyone",
    "anything",
    "are",
    "aren't",
    "around",
    "as",
    "at",
    "be",
    "became",
    "because",
    "become",
    "becomes",
    "been",
    "before",
    "behind",
    "being",
    "below",
    "beside",
    "besides",
    "between",
    "beyond",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "cannot",
    "could",
    "couldn't",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "done",
    "down",
    "during",
    "each",
    "either",
    "else",
    "enough",
    "etc",
    "even",
    "ever",
    "every",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn't",
    "has",
    "hasn't",
    "have",
    "haven't",
    "having",
    "he",
    "hence",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "its",
    "itself",
    "just",
    "least",
    "less",
    "many",
    "me",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "my",
    "myself",
    "n't",
    "neither",
    "never",
    "no",
    "nobody",
    "none",
    "nor",
    "not",
    "nothing",
    "now",
    "of",
    "off",
    "often",
    "on",
    "once",
    "one's",
    "only",
    "onto",
    "or",
    "other",
    "others",
    "otherwise",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "per",
    "perhaps",
    "rather",
    "same",
    "shall",
    "she",
    "should",
    "shouldn't",
    "since",
    "so",
    "some",
    "somebody",
    "someone",
    "something",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "therefore",
    "these",
    "they",
    "this",
    "those",
    "though",
    "through",
    "throughout",
    "thus",
    "to",
    "too",
    "toward",
    "towards",
    "under",
    "unless",
    "until",
    "up",
    "upon",
    "us",
    "very",
    "via",
    "was",
    "wasn't",
    "we",
    "were",
    "weren't",
    "what",
    "whatever",
    "when",
    "whenever",
    "where",
    "whereas",
    "whether",
    "which",
    "while",
    "who",
    "whoever",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "won't",
    "would",
    "wouldn't",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Whether `word` is an English stopword (compared lower-case; `’` counts as `'`).
///
/// The relatedness stage asks this of every token of the corpus, several passes over: a binary
/// search of the list took 9 % of a Wikispeedia build's CPU (eight string comparisons a token),
/// so the list is looked up by length and first letter (`Index`).
pub fn is_stopword(word: &str) -> bool {
    if word.is_ascii() {
        // Lower-cased on the stack; a byte no stopword has (a digit, a dot) just finds none.
        if word.len() > LONGEST {
            return false;
        }
        let mut lower = [0u8; LONGEST];
        for (l, b) in lower.iter_mut().zip(word.bytes()) {
            *l = b.to_ascii_lowercase();
        }
        return Index::get().contains(&lower[..word.len()]);
    }
    let lower = word.to_lowercase().replace('\u{2019}', "'");
    Index::get().contains(lower.as_bytes())
}

/// The longest stopword, in bytes: a longer word is no stopword without a lookup.
const LONGEST: usize = 10;

/// The stopwords by length and first byte (`a`–`z`, then `'`): a token meets at most seven,
/// each of its own length, and most tokens none.
struct Index {
    buckets: Vec<Vec<&'static [u8]>>,
}

impl Index {
    fn get() -> &'static Index {
        static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
        INDEX.get_or_init(|| {
            let mut buckets = vec![Vec::new(); (LONGEST + 1) * 27];
            for w in STOPWORDS {
                let at = Index::bucket(w.as_bytes()).expect("a stopword's shape");
                buckets[at].push(w.as_bytes());
            }
            Index { buckets }
        })
    }

    /// The bucket of a word of `LONGEST` bytes or fewer starting with a lower-case letter or `'`.
    fn bucket(word: &[u8]) -> Option<usize> {
        let first = match *word.first()? {
            b @ b'a'..=b'z' => usize::from(b - b'a'),
            b'\'' => 26,
            _ => return None,
        };
        (word.len() <= LONGEST).then(|| word.len() * 27 + first)
    }

    fn contains(&self, word: &[u8]) -> bool {
        Index::bucket(word).is_some_and(|at| self.buckets[at].contains(&word))
    }
}

/// All stopwords, sorted.
pub fn stopwords() -> &'static [&'static str] {
    STOPWORDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_and_unique() {
        assert!(
            STOPWORDS.windows(2).all(|w| w[0] < w[1]),
            "STOPWORDS must be sorted"
        );
        assert_eq!(STOPWORDS.len(), 225);
        assert_eq!(STOPWORDS.iter().map(|w| w.len()).max(), Some(LONGEST));
    }

    /// The index answers as the sorted list's binary search did: every stopword, every prefix
    /// and extension of one, words of other first letters and lengths, and odd bytes.
    #[test]
    fn the_index_answers_as_the_list_does() {
        let mut words: Vec<String> = vec![String::new(), "'".into(), "''".into(), "é".into()];
        for w in STOPWORDS {
            for end in 0..=w.len() {
                words.push(w[..end].to_string());
                words.push(w[end..].to_string());
            }
            for extra in ["s", "'", "z", "ing"] {
                words.push(format!("{w}{extra}"));
                words.push(format!("{extra}{w}"));
            }
            let mut swapped = w.as_bytes().to_vec();
            swapped.reverse();
            words.push(String::from_utf8(swapped).unwrap());
        }
        let mut found = 0;
        for w in &words {
            let listed = STOPWORDS.binary_search(&w.as_str()).is_ok();
            assert_eq!(is_stopword(w), listed, "{w:?}");
            for written in [w.to_uppercase(), format!("{w}1"), format!("{w}.")] {
                assert_eq!(
                    is_stopword(&written),
                    listed && written == w.to_uppercase(),
                    "{written:?}"
                );
            }
            found += usize::from(listed);
        }
        assert!(found >= STOPWORDS.len(), "{found}");
    }

    #[test]
    fn function_words_in_content_words_out() {
        for w in [
            "the",
            "The",
            "of",
            "and",
            "it",
            "Its",
            "n't",
            "'s",
            "doesn’t",
            "however",
        ] {
            assert!(is_stopword(w), "{w}");
        }
        for w in ["bank", "first", "new", "world", "may", "apple", "", "r"] {
            assert!(!is_stopword(w), "{w}");
        }
    }
}
