//! Running text as sentences of content words: lower-case, stopwords dropped, and the two-word
//! card words joined into one token (`new york`), so that a window counts content words only.
//! The stopwords are the corpus language's ([`PairSet::with_language`]); English, by default,
//! lower-cases ASCII letters only, as it always has, and other languages every letter.

use crate::WordMap;

/// Splits text into sentences of content-word tokens and calls `f` once per sentence.
///
/// A word is a run of ASCII letters and digits or non-ASCII characters (so `café` and `1990`
/// are words that take a place in the window, but only all-letter words can join the
/// vocabulary). A sentence ends at `.`, `!`, `?`, `;` or a line break: Wikipedia's plain text
/// keeps captions and list items on lines of their own. An apostrophe ends a word (`dog's` →
/// `dog`, `s`; single letters are then dropped as stopwords or by the vocabulary).
pub struct Sentences<'p> {
    pairs: &'p PairSet,
    /// Lower-cased words of the current sentence (before stopwords and pairs): the first
    /// `raw_len` entries; the strings are reused from sentence to sentence, not reallocated.
    raw: Vec<String>,
    raw_len: usize,
    out: Vec<String>,
    out_len: usize,
}

/// The card words of several words, looked up by their first word, and the language whose
/// stopwords are dropped: how running text becomes tokens. A card's words are its runs of
/// letters and digits ([`card_token`]): `joan of arc` is three words of the text, `st. patrick`
/// two.
#[derive(Debug, Clone, Default)]
pub struct PairSet {
    /// First word → the phrases starting with it (all their words), longest first.
    phrases: WordMap<Vec<Vec<String>>>,
    language: text::Language,
}

/// Words after which a full stop ends no sentence (`St. Patrick`, `Mt. Everest`, `Dr. Who`):
/// the sentence, and the window, go on over it.
const ABBREVIATIONS: [&str; 9] = ["st", "mt", "mr", "mrs", "ms", "dr", "jr", "sr", "vs"];

/// The token a card word is counted as: its runs of letters and digits, lower-case, joined by
/// single spaces (`St. Patrick` → `st patrick`, `joan of arc` unchanged, `apple` unchanged).
pub fn card_token(card: &str) -> String {
    card.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

impl PairSet {
    /// From card words; only those of two words or more matter. English text.
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>) -> PairSet {
        PairSet::with_language(words, text::Language::english())
    }

    /// From card words, for text in `language`.
    pub fn with_language<'a>(
        words: impl IntoIterator<Item = &'a str>,
        language: text::Language,
    ) -> PairSet {
        let mut s = PairSet {
            language,
            ..PairSet::default()
        };
        for w in words {
            let parts: Vec<String> = card_token(w).split(' ').map(str::to_string).collect();
            if parts.len() >= 2 {
                let list = s.phrases.entry(parts[0].clone()).or_default();
                if !list.contains(&parts) {
                    list.push(parts);
                    list.sort_by_key(|p| std::cmp::Reverse(p.len()));
                }
            }
        }
        s
    }

    /// How many words of `raw`, from its start, make one card (0: none).
    fn joins(&self, raw: &[String]) -> usize {
        let Some(list) = raw.first().and_then(|w| self.phrases.get(w)) else {
            return 0;
        };
        list.iter()
            .find(|p| p.len() <= raw.len() && p.iter().zip(raw).all(|(a, b)| a == b))
            .map_or(0, Vec::len)
    }
}

impl<'p> Sentences<'p> {
    pub fn new(pairs: &'p PairSet) -> Sentences<'p> {
        Sentences {
            pairs,
            raw: Vec::new(),
            raw_len: 0,
            out: Vec::new(),
            out_len: 0,
        }
    }

    /// Calls `f` with each sentence's content words, in order.
    pub fn each(&mut self, text: &str, mut f: impl FnMut(&[String])) {
        self.each_with_text(text, |words, _| f(words));
    }

    /// Calls `f` with each sentence's content words and the sentence as written.
    pub fn each_with_text(&mut self, text: &str, mut f: impl FnMut(&[String], &str)) {
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut start = None;
        let mut sentence = 0;
        let mut chunk = Chunk::default();
        // Where the last word pushed ended, when it is an abbreviation.
        let mut abbreviation_end = None;
        while i < bytes.len() {
            let b = bytes[i];
            let (is_word, len) = if b < 0x80 {
                (b.is_ascii_alphanumeric(), 1)
            } else {
                // Non-ASCII: letters join words (`café`), dashes and quotes separate them.
                let c = text[i..].chars().next().unwrap_or(' ');
                (c.is_alphanumeric(), c.len_utf8())
            };
            if is_word {
                start.get_or_insert(i);
            } else {
                if let Some(s) = start.take()
                    && !not_a_word(&text[s..i], &text[i..])
                    && !chunk.is_markup(bytes, s, i)
                {
                    self.push_word(&text[s..i]);
                    let last = &self.raw[self.raw_len - 1];
                    if ABBREVIATIONS.contains(&last.as_str()) {
                        abbreviation_end = Some(i);
                    }
                }
                let abbreviated = b == b'.' && abbreviation_end == Some(i);
                if matches!(b, b'.' | b'!' | b'?' | b';' | b'\n') && !abbreviated {
                    self.flush(&text[sentence..i + 1], &mut f);
                    sentence = i + 1;
                }
            }
            i += len;
        }
        if let Some(s) = start
            && !chunk.is_markup(bytes, s, bytes.len())
        {
            self.push_word(&text[s..]);
        }
        self.flush(&text[sentence..], &mut f);
    }

    fn push_word(&mut self, word: &str) {
        if self.raw_len == self.raw.len() {
            self.raw.push(String::new());
        }
        let slot = &mut self.raw[self.raw_len];
        slot.clear();
        if self.pairs.language.is_english() || word.is_ascii() {
            slot.push_str(word);
            slot.make_ascii_lowercase();
        } else {
            slot.extend(word.chars().flat_map(char::to_lowercase));
        }
        self.raw_len += 1;
    }

    fn emit(&mut self, parts: &[&str]) {
        if self.out_len == self.out.len() {
            self.out.push(String::new());
        }
        let slot = &mut self.out[self.out_len];
        slot.clear();
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                slot.push(' ');
            }
            slot.push_str(p);
        }
        self.out_len += 1;
    }

    fn flush(&mut self, sentence: &str, f: &mut impl FnMut(&[String], &str)) {
        if self.raw_len == 0 {
            return;
        }
        self.out_len = 0;
        let raw = std::mem::take(&mut self.raw);
        let mut k = 0;
        while k < self.raw_len {
            let n = self.pairs.joins(&raw[k..self.raw_len]);
            if n >= 2 {
                let parts: Vec<&str> = raw[k..k + n].iter().map(String::as_str).collect();
                self.emit(&parts);
                k += n;
                continue;
            }
            let w = &raw[k];
            let language = self.pairs.language;
            let keep = if language.is_english() {
                w.len() > 1 && !text::is_stopword(w)
            } else {
                w.chars().nth(1).is_some() && !language.is_stopword(w)
            };
            if keep {
                self.emit(&[w]);
            }
            k += 1;
        }
        self.raw = raw;
        self.raw_len = 0;
        if self.out_len > 0 {
            f(&self.out[..self.out_len], sentence);
        }
    }
}

/// Bytes that prose does not put inside a word-bearing run of text, and markup does: template
/// and parser-function residue (`{{#if: |journal`, `{{urlencode:`), tags (`<onlyinclude>`,
/// `<span class="Z3988"`), LaTeX (`\mathbf{v}=\int_0^n`). WikiExtractor leaves such runs in a
/// few hundred pages of the 2015 slice; read as words, `onlyinclude`, `mathbf`, `urlencode`,
/// `ifeq` and `rft` became clue words.
const MARKUP: &[u8] = b"{}<>\\=|_#^";

/// [`MARKUP`] as a table: the test runs on every byte of every word's run.
const IS_MARKUP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < MARKUP.len() {
        t[MARKUP[i] as usize] = true;
        i += 1;
    }
    t
};

/// The run of text between two whitespaces that the current word lies in, and whether it holds a
/// [`MARKUP`] byte: a word of such a run is markup, not text. Kept from word to word, so that a
/// long run is scanned once.
#[derive(Debug, Default)]
struct Chunk {
    start: usize,
    end: usize,
    markup: bool,
}

impl Chunk {
    /// Whether the word `bytes[s..e]` lies in a run of markup.
    fn is_markup(&mut self, bytes: &[u8], s: usize, e: usize) -> bool {
        if !(self.start <= s && e <= self.end) {
            let start = bytes[..s]
                .iter()
                .rposition(u8::is_ascii_whitespace)
                .map_or(0, |p| p + 1);
            let end = bytes[e..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(bytes.len(), |p| e + p);
            *self = Chunk {
                start,
                end,
                markup: bytes[start..end].iter().any(|&b| IS_MARKUP[b as usize]),
            };
        }
        self.markup
    }
}

/// Whether `word`, followed by `rest`, is no word of the text: WikiExtractor's placeholders for
/// formulas and code (`formula_1`, `codice_2`: the word joined to digits by `_`), and the first
/// half of a negated auxiliary split at its apostrophe (`couldn't` → `couldn`, `didn`, `isn`),
/// which the stopword list holds whole. Either would otherwise count as a frequent word, and
/// become a clue no one would give.
fn not_a_word(word: &str, rest: &str) -> bool {
    let placeholder = rest
        .strip_prefix('_')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    let negation = word.len() > 2
        && word.ends_with(['n', 'N'])
        && rest
            .strip_prefix("'t")
            .or_else(|| rest.strip_prefix("\u{2019}t"))
            .is_some_and(|after| !after.starts_with(char::is_alphanumeric));
    placeholder || negation
}

/// Whether a token can be a vocabulary word: ASCII letters a-z only (two-word cards have their
/// space).
pub fn is_word(w: &str) -> bool {
    !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b == b' ')
}

/// [`is_word`] for a language: English's rule, else lower-case letters of any script (and the
/// space of two-word cards).
pub fn is_word_in(w: &str, language: text::Language) -> bool {
    if language.is_english() {
        return is_word(w);
    }
    !w.is_empty() && w.split(' ').all(|part| language.is_word(part))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(text: &str, pairs: &[&str]) -> Vec<Vec<String>> {
        let pairs = PairSet::new(pairs.iter().copied());
        let mut out = Vec::new();
        Sentences::new(&pairs).each(text, |s| out.push(s.to_vec()));
        out
    }

    #[test]
    fn sentences_of_content_words() {
        assert_eq!(
            sentences(
                "The Apple fell. It was in New York's park!\nCafé 1990 x",
                &["new york"]
            ),
            vec![
                vec!["apple", "fell"],
                vec!["new york", "park"],
                vec!["café", "1990"],
            ]
        );
    }

    #[test]
    fn placeholders_and_split_negations_are_no_words() {
        assert_eq!(
            sentences(
                "The value formula_1 was codice_2 in Formula One. He couldn't find it; it isn\u{2019}t. Turn left at Lynn'tree.",
                &[]
            ),
            vec![
                vec!["value", "formula", "one"],
                vec!["find"],
                vec!["turn", "left", "lynn", "tree"],
            ]
        );
    }

    #[test]
    fn runs_of_markup_hold_no_words() {
        assert_eq!(
            sentences(
                "Medical <onlyinclude></onlyinclude> enhancing. {{#ifeq: | 1910 |{{ #if: Aristotle | (published )}} \
                 title=\"ctx_ver=Z39&rft_val_fmt={{urlencode:info}}\" Velocity \\mathbf{v}=\\int_0^n dt, and cats > dogs = birds",
                &[]
            ),
            vec![
                vec!["medical", "enhancing"],
                // Symbols standing alone are no markup run: the words beside them stay.
                vec![
                    "1910",
                    "aristotle",
                    "published",
                    "velocity",
                    "dt",
                    "cats",
                    "dogs",
                    "birds"
                ],
            ]
        );
    }

    #[test]
    fn cards_of_three_words_and_abbreviations_join() {
        assert_eq!(
            sentences(
                "Joan of Arc met St. Patrick. Joan of the Arc. The St. Louis Zoo.",
                &["joan of arc", "st. patrick"]
            ),
            vec![
                vec!["joan of arc", "met", "st patrick"],
                vec!["joan", "arc"],
                // A full stop after an abbreviation ends no sentence.
                vec!["st", "louis", "zoo"],
            ]
        );
        assert_eq!(card_token("St. Patrick"), "st patrick");
        assert_eq!(card_token("joan of arc"), "joan of arc");
        assert_eq!(card_token("apple"), "apple");
    }

    #[test]
    fn a_pair_is_joined_only_when_adjacent() {
        assert_eq!(
            sentences("ice and cream; ice cream", &["ice cream"]),
            vec![vec!["ice", "cream"], vec!["ice cream"]]
        );
    }
}
