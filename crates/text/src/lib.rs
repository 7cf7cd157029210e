//! English text analysis for clue-db: tokens, sentences, inflections, parts of speech, named
//! entities, noun chunks and stopwords — all offline, from data vendored in `data/`. Other
//! languages get tokens, sentences, their Snowball stemmer and stopwords ([`Language`],
//! [`analyze_untagged`]).
//!
//! The usual entry point is [`analyze`], which tokenises, splits sentences, tags and finds
//! entities once per page; [`TermIndex`] then counts terms in the [`Analysis`] the way the
//! pipeline's `count` stage needs, and [`Analysis::noun_chunks`] serves the `chunks` stage.
//! [`Inflector`] and [`is_stopword`] serve the query engine's legality rule.
//!
//! ```
//! let tagger = text::Tagger::shared().unwrap();
//! let inflector = text::Inflector::shared();
//! let page = text::analyze("Bill Gates met Bill Hewlett. They ate ice creams.", tagger);
//! let ice_cream = text::TermForms::new("ice cream", inflector);
//! let count = text::count_term(&page, &ice_cream).unwrap();
//! assert_eq!(count.count, 1);
//! assert_eq!(&page.text[count.excerpt], "They ate ice creams.");
//! ```

mod chunks;
mod count;
mod entities;
mod hash;
mod inflect;
mod lang;
mod pos;
mod sentences;
mod stopwords;
mod tokens;

pub use chunks::{NounChunk, noun_chunks};
pub use count::{TermCount, TermForms, TermIndex, count_term};
pub use entities::{Entity, find_entities};
pub use inflect::{Inflectable, Inflector, InflectorStats, NOUN_RULES};
pub use lang::{Comparable, Language};
pub use pos::{Tagger, Upos};
pub use sentences::{Sentence, sentences, split as split_sentences};
pub use stopwords::{is_stopword, stopwords};
pub use tokens::{Token, TokenKind, tokenize, tokenize_into};

/// Errors from loading the vendored data or parsing names.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TextError {
    /// A vendored data file could not be read.
    #[error("vendored data {file}: {message}")]
    Data {
        /// The file under `crates/text/`.
        file: &'static str,
        /// What went wrong.
        message: String,
    },
    /// A part-of-speech tag name that is not UPOS.
    #[error("unknown part-of-speech tag {0:?}")]
    UnknownTag(String),
    /// A language with no stemmer here (the code, then the supported codes).
    #[error("no stemmer for language {0:?}; supported: {1} (pass --lang with one of them)")]
    Language(String, String),
}

/// No entity / no sentence.
const NONE: u32 = u32::MAX;

/// A text analysed once: tokens, tags, sentences and entities.
#[derive(Debug, Clone)]
pub struct Analysis<'a> {
    /// The text analysed.
    pub text: &'a str,
    /// Its tokens.
    pub tokens: Vec<Token>,
    /// One tag per token.
    pub tags: Vec<Upos>,
    /// Its sentences.
    pub sentences: Vec<Sentence>,
    /// Its named-entity mentions, in text order.
    pub entities: Vec<Entity>,
    /// Lower-cased token texts, concatenated; token `i` ends at `lower_end[i]`.
    lower: String,
    lower_end: Vec<u32>,
    /// Per token: its sentence.
    sentence_of: Vec<u32>,
    /// Per token: the entity it belongs to, or `NONE`.
    entity_of: Vec<u32>,
}

impl<'a> Analysis<'a> {
    /// Token `i`'s text lower-cased ("" past the end).
    pub fn lower(&self, i: usize) -> &str {
        lower_slice(&self.lower, &self.lower_end, i)
    }

    /// Token `i`'s text as written.
    pub fn token_text(&self, i: usize) -> &'a str {
        self.tokens.get(i).map_or("", |t| t.text(self.text))
    }

    /// The entity token `i` belongs to.
    pub fn entity_at(&self, i: usize) -> Option<&Entity> {
        let e = *self.entity_of.get(i)?;
        if e == NONE {
            None
        } else {
            self.entities.get(e as usize)
        }
    }

    /// The index of token `i`'s sentence.
    pub fn sentence_of(&self, i: usize) -> usize {
        self.sentence_of.get(i).map_or(usize::MAX, |&s| s as usize)
    }

    /// The noun chunks of the text.
    pub fn noun_chunks(&self, inflector: &Inflector) -> Vec<NounChunk> {
        noun_chunks(
            self.text,
            &self.tokens,
            &self.tags,
            &self.sentences,
            inflector,
        )
    }
}

/// `w` with the accents of Latin letters taken off (`café` → `cafe`, `crème brûlée` → `creme
/// brulee`, `straße` → `strasse`); every other character as it is. The English vocabulary
/// holds words of the letters a to z only, so a card typed with its accents is found as the
/// word the text writes without them; a language whose words keep their accents keeps them
/// (callers fold only what is not a word as typed).
pub fn fold_accents(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        let plain = match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
            'æ' => "ae",
            'ç' | 'ć' | 'č' => "c",
            'ď' | 'đ' => "d",
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
            'ğ' => "g",
            'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
            'ł' | 'ľ' => "l",
            'ñ' | 'ń' | 'ň' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
            'œ' => "oe",
            'ř' => "r",
            'ś' | 'š' | 'ş' | 'ș' => "s",
            'ß' => "ss",
            'ť' | 'ţ' | 'ț' => "t",
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
            'ý' | 'ÿ' => "y",
            'ź' | 'ż' | 'ž' => "z",
            // A combining accent (`cafe` + U+0301, as macOS file names and some keyboards
            // write `café`): the letter before it stays, plain.
            '\u{300}'..='\u{36f}' => "",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(plain);
    }
    out
}

/// A card word as people write it, in its one normal form: trimmed, lower-case, single
/// spaces, a hyphen read as a space (`New  York`, `loch-ness`, `G-SPOT` -> `new york`, `loch
/// ness`, `g spot`), without the quotes around it (`"moon"`, `'queen'`) or characters no one
/// sees (a byte-order mark that a saved list starts with, zero-width spaces, a soft hyphen),
/// which made a listed word unknown. What a word processor or a phone writes for the same
/// letters is read as them: a typographic hyphen or dash (`loch–ness`), a ligature (`ﬁre`,
/// which a list copied from a PDF has) and the full-width letters of an East Asian keyboard
/// (`Ｆｉｒｅ`). Boards typed by users and the word lists the build stores are both read by
/// it, so a listed card is found as it is typed.
pub fn card_word(w: &str) -> String {
    const INVISIBLE: [char; 6] = [
        '\u{feff}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{ad}',
    ];
    const QUOTES: [char; 8] = ['"', '\'', '“', '”', '‘', '’', '«', '»'];
    let mut visible = String::with_capacity(w.len());
    for c in w.chars().filter(|c| !INVISIBLE.contains(c)) {
        match c {
            // Hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, minus.
            '\u{2010}'..='\u{2015}' | '\u{2212}' => visible.push('-'),
            'ﬀ' => visible.push_str("ff"),
            'ﬁ' => visible.push_str("fi"),
            'ﬂ' => visible.push_str("fl"),
            'ﬃ' => visible.push_str("ffi"),
            'ﬄ' => visible.push_str("ffl"),
            'ﬅ' | 'ﬆ' => visible.push_str("st"),
            // Full-width forms of the ASCII characters, and the ideographic space.
            '\u{ff01}'..='\u{ff5e}' => {
                visible.push(char::from_u32(c as u32 - 0xfee0).unwrap_or(c));
            }
            '\u{3000}' => visible.push(' '),
            _ => visible.push(c),
        }
    }
    visible
        .trim()
        .trim_matches(QUOTES.as_slice())
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Tokenises, splits into sentences, tags each sentence and finds entities.
pub fn analyze<'a>(text: &'a str, tagger: &Tagger) -> Analysis<'a> {
    analyze_with(text, Some(tagger))
}

/// Tokens and sentences only, for a language without a tagger: every token is tagged
/// [`Upos::X`] and there are no entities (finding them needs the tags).
pub fn analyze_untagged(text: &str) -> Analysis<'_> {
    analyze_with(text, None)
}

fn analyze_with<'a>(text: &'a str, tagger: Option<&Tagger>) -> Analysis<'a> {
    let tokens = tokenize(text);
    let sentences = split_sentences(text, &tokens);
    let mut lower = String::with_capacity(text.len());
    let mut lower_end = Vec::with_capacity(tokens.len());
    for t in &tokens {
        let s = t.text(text);
        if s.is_ascii() {
            lower.extend(s.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            lower.extend(s.chars().flat_map(char::to_lowercase));
        }
        lower_end.push(lower.len() as u32);
    }
    let mut tags = Vec::with_capacity(tokens.len());
    let mut sentence_of = vec![NONE; tokens.len()];
    let mut words: Vec<&str> = Vec::new();
    let mut lowers: Vec<&str> = Vec::new();
    let mut infos = Vec::new();
    let mut classes = Vec::new();
    for (s, sentence) in sentences.iter().enumerate() {
        words.clear();
        lowers.clear();
        for i in sentence.tokens.clone() {
            words.push(tokens[i].text(text));
            lowers.push(lower_slice(&lower, &lower_end, i));
            sentence_of[i] = s as u32;
        }
        match tagger {
            Some(tagger) => {
                classes.clear();
                tagger.tag_into(&words, &lowers, &mut infos, &mut classes);
                tags.extend(classes.iter().map(|&c| tagger.upos_of(c)));
            }
            None => tags.extend(words.iter().map(|_| Upos::X)),
        }
    }
    let mut analysis = Analysis {
        text,
        tags,
        sentence_of,
        entity_of: vec![NONE; tokens.len()],
        tokens,
        sentences,
        entities: Vec::new(),
        lower,
        lower_end,
    };
    if tagger.is_some() {
        analysis.entities =
            find_entities(text, &analysis.tokens, &analysis.tags, &analysis.sentences);
    }
    for (e, entity) in analysis.entities.iter().enumerate() {
        for i in entity.tokens.clone() {
            analysis.entity_of[i] = e as u32;
        }
    }
    analysis
}

/// Token `i`'s slice of a concatenated lower-case buffer.
fn lower_slice<'b>(lower: &'b str, lower_end: &[u32], i: usize) -> &'b str {
    let start = if i == 0 {
        0
    } else {
        lower_end.get(i - 1).map_or(0, |&e| e as usize)
    };
    let end = lower_end.get(i).map_or(start, |&e| e as usize);
    lower.get(start..end).unwrap_or("")
}
