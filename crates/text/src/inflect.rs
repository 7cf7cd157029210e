//! Inflections: lemma -> forms and form -> lemmas, for English.
//!
//! Layers, most trusted first:
//! 1. WordNet 3.0's exception lists (`struck` -> `strike`, `born` -> `bear`, `mice` -> `mouse`),
//!    vendored under `data/wordnet/` with WordNet's licence;
//! 2. lemminflect's inflection table (`infl_lu.csv.gz`, MIT, from the NIH SPECIALIST Lexicon;
//!    40,450 lemma/part-of-speech rows: `strike,verb,struck,struck/stricken,striking,strikes`),
//!    vendored under `data/lemminflect/` — it supplies what WordNet's exceptions lack
//!    (`stricken`) and fixes which parts of speech a word inflects as;
//! 3. for words neither knows: regular rules (plural and third person `-s/-es/-ies`, `-ed`/`-ing` with consonant doubling
//!    and `e` dropping, comparative `-er/-est`), applied per part of speech: a word is only given
//!    noun forms if WordNet knows it as a noun, verb forms as a verb, comparatives as a short
//!    adjective — otherwise `bank` would get `banker` and `banker` would be an illegal clue;
//!    words WordNet does not know at all are treated as nouns;
//! 4. Porter2 stems (rust-stemmers), only as a fallback for words WordNet does not know.
//!
//! Going from a form back to its lemmas is WordNet's *morphy*: undo a suffix rule and keep the
//! result only if WordNet has it as a lemma of that part of speech (so `cities` -> `city`, but
//! `bus` is not read as a plural of `bu`). [`Inflector::lemma`] of a noun also undoes a regular
//! plural that WordNet happens to list as a lemma (`years`, `legs`), when lemminflect confirms
//! it is the singular's plural.
//!
//! Multi-word terms inflect their last word: `ice cream` -> `ice creams`.

use crate::hash::FxHashMap;
use crate::pos::Upos;
use flate2::read::GzDecoder;
use rust_stemmers::{Algorithm, Stemmer};
use std::io::Read;
use std::sync::OnceLock;

const NOUN_EXC: &str = include_str!("../data/wordnet/noun.exc");
const VERB_EXC: &str = include_str!("../data/wordnet/verb.exc");
const ADJ_EXC: &str = include_str!("../data/wordnet/adj.exc");
const ADV_EXC: &str = include_str!("../data/wordnet/adv.exc");
/// Single-word lemmas of WordNet 3.0's `index.{noun,verb,adj,adv}`, one per line with flags
/// `n`, `v`, `a`, `r` (see `data/README.md` for how it was made).
const LEMMAS_GZ: &[u8] = include_bytes!("../data/wordnet/lemmas.tsv.gz");
/// lemminflect's table: `lemma,pos,form,form,...`, alternatives split by `/`, empty fields for
/// "same as the previous one" (a verb's past participle) or "none" (an adjective without
/// comparative).
const INFL_GZ: &[u8] = include_bytes!("../data/lemminflect/infl_lu.csv.gz");

/// WordNet's parts of speech, as bit flags and table indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wn {
    Noun = 0,
    Verb = 1,
    Adj = 2,
    Adv = 3,
}

const ALL_WN: [Wn; 4] = [Wn::Noun, Wn::Verb, Wn::Adj, Wn::Adv];

impl Wn {
    fn flag(self) -> u8 {
        1 << self as u8
    }
}

/// Suffix rules of WordNet's morphy for nouns, in its order: (suffix of the form, ending of
/// the lemma). Public for the `wordnet` crate's lookup of plurals.
pub const NOUN_RULES: &[(&str, &str)] = &[
    ("s", ""),
    ("ses", "s"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
];
const VERB_RULES: &[(&str, &str)] = &[
    ("s", ""),
    ("ies", "y"),
    ("es", "e"),
    ("es", ""),
    ("ed", "e"),
    ("ed", ""),
    ("ing", "e"),
    ("ing", ""),
];
const ADJ_RULES: &[(&str, &str)] = &[
    ("er", ""),
    ("est", ""),
    ("er", "e"),
    ("est", "e"),
    ("ier", "y"),
    ("iest", "y"),
];

/// Counts of what was loaded, for tests and the pipeline's `meta` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InflectorStats {
    /// Distinct single-word WordNet lemmas.
    pub lemmas: usize,
    /// Exception lines read (all four lists).
    pub exceptions: usize,
    /// Rows of lemminflect's inflection table.
    pub inflection_rows: usize,
    /// Malformed lines skipped (0 for the vendored data; a test pins it).
    pub skipped: usize,
}

/// English inflection tables. Build once ([`Inflector::new`] or [`Inflector::shared`]) and
/// share: it is immutable, `Send` and `Sync`.
pub struct Inflector {
    /// Lemma -> part-of-speech flags.
    lemmas: FxHashMap<Box<str>, u8>,
    /// Per part of speech: exception form -> lemmas.
    exc_lemmas: [FxHashMap<Box<str>, Vec<Box<str>>>; 4],
    /// Per part of speech: lemma -> exception forms.
    exc_forms: [FxHashMap<Box<str>, Vec<Box<str>>>; 4],
    /// lemminflect: lemma -> (form, part-of-speech flag), and form -> lemmas.
    table_forms: FxHashMap<Box<str>, Vec<(Box<str>, u8)>>,
    table_lemmas: FxHashMap<Box<str>, Vec<Box<str>>>,
    stemmer: Stemmer,
    stats: InflectorStats,
}

impl std::fmt::Debug for Inflector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflector")
            .field("stats", &self.stats)
            .finish()
    }
}

impl Default for Inflector {
    fn default() -> Self {
        Self::new()
    }
}

impl Inflector {
    /// Loads the vendored WordNet tables (about 30 ms in release). Malformed lines are skipped
    /// and counted in [`Inflector::stats`]; the vendored data has none.
    pub fn new() -> Self {
        let mut stats = InflectorStats::default();
        let mut lemmas: FxHashMap<Box<str>, u8> = FxHashMap::default();
        let mut raw = String::new();
        if GzDecoder::new(LEMMAS_GZ).read_to_string(&mut raw).is_err() {
            stats.skipped += 1;
        }
        for line in raw.lines() {
            let Some((word, flags)) = line.split_once('\t') else {
                stats.skipped += 1;
                continue;
            };
            let mut bits = 0;
            for c in flags.chars() {
                bits |= match c {
                    'n' => Wn::Noun.flag(),
                    'v' => Wn::Verb.flag(),
                    'a' => Wn::Adj.flag(),
                    'r' => Wn::Adv.flag(),
                    _ => 0,
                };
            }
            lemmas.insert(word.into(), bits);
        }
        stats.lemmas = lemmas.len();
        let mut exc_lemmas: [FxHashMap<Box<str>, Vec<Box<str>>>; 4] = Default::default();
        let mut exc_forms: [FxHashMap<Box<str>, Vec<Box<str>>>; 4] = Default::default();
        for (pos, data) in [
            (Wn::Noun, NOUN_EXC),
            (Wn::Verb, VERB_EXC),
            (Wn::Adj, ADJ_EXC),
            (Wn::Adv, ADV_EXC),
        ] {
            for line in data.lines() {
                let mut fields = line.split(' ');
                let (Some(form), Some(first)) = (fields.next(), fields.next()) else {
                    stats.skipped += 1;
                    continue;
                };
                stats.exceptions += 1;
                // WordNet writes multi-word entries with '_'; we key them as they appear in text.
                let form = form.replace('_', " ");
                for lemma in std::iter::once(first).chain(fields) {
                    let lemma = lemma.replace('_', " ");
                    exc_lemmas[pos as usize]
                        .entry(form.as_str().into())
                        .or_default()
                        .push(lemma.as_str().into());
                    exc_forms[pos as usize]
                        .entry(lemma.into())
                        .or_default()
                        .push(form.as_str().into());
                }
            }
        }
        let mut table_forms: FxHashMap<Box<str>, Vec<(Box<str>, u8)>> = FxHashMap::default();
        let mut table_lemmas: FxHashMap<Box<str>, Vec<Box<str>>> = FxHashMap::default();
        raw.clear();
        if GzDecoder::new(INFL_GZ).read_to_string(&mut raw).is_err() {
            stats.skipped += 1;
        }
        for line in raw.lines() {
            let mut fields = line.split(',');
            let (Some(lemma), Some(pos)) = (fields.next(), fields.next()) else {
                stats.skipped += 1;
                continue;
            };
            stats.inflection_rows += 1;
            let lemma = normalize(lemma);
            let flag = match pos {
                "noun" => Wn::Noun.flag(),
                "verb" => Wn::Verb.flag(),
                "adj" => Wn::Adj.flag(),
                _ => Wn::Adv.flag(),
            };
            let forms = table_forms.entry(lemma.as_str().into()).or_default();
            for form in fields.flat_map(|f| f.split('/')).map(normalize) {
                if form.is_empty() || form == lemma {
                    continue;
                }
                if !forms.iter().any(|(f, p)| **f == *form && *p == flag) {
                    forms.push((form.as_str().into(), flag));
                }
                let lemmas = table_lemmas.entry(form.into()).or_default();
                if !lemmas.iter().any(|l| **l == *lemma) {
                    lemmas.push(lemma.as_str().into());
                }
            }
        }
        Inflector {
            lemmas,
            exc_lemmas,
            exc_forms,
            table_forms,
            table_lemmas,
            stemmer: Stemmer::create(Algorithm::English),
            stats,
        }
    }

    /// A process-wide instance, built on first use.
    pub fn shared() -> &'static Inflector {
        static SHARED: OnceLock<Inflector> = OnceLock::new();
        SHARED.get_or_init(Inflector::new)
    }

    /// What was loaded.
    pub fn stats(&self) -> InflectorStats {
        self.stats
    }

    /// Whether WordNet knows `word` (lower-case) as a lemma or an exception form.
    pub fn is_known(&self, word: &str) -> bool {
        self.lemmas.contains_key(word)
            || self.table_forms.contains_key(word)
            || self.table_lemmas.contains_key(word)
            || self.exc_lemmas.iter().any(|m| m.contains_key(word))
    }

    /// Whether WordNet knows `word` (lower-case, one word) or a lemma it is a form of: the words
    /// whose inflections come from the tables, never from the Porter2 stemmer.
    pub fn knows(&self, word: &str) -> bool {
        self.is_known(word) || self.lemmas(word).iter().any(|l| l != word)
    }

    /// All inflected forms of `lemma`, lower-case, the lemma itself first:
    /// `strike` -> strike, strikes, striking, struck, stricken. Multi-word lemmas inflect their
    /// last word (`ice cream` -> ice cream, ice creams). Forms of a part of speech the word does
    /// not have in WordNet are not made up (`bank` has no `banker`).
    pub fn forms(&self, lemma: &str) -> Vec<String> {
        let lemma = normalize(lemma);
        let (prefix, last) = split_last(&lemma);
        if last.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<String> = vec![last.to_string()];
        let push = |out: &mut Vec<String>, s: String| {
            if !s.is_empty() && !out.contains(&s) {
                out.push(s);
            }
        };
        // The last word of a compound ("ice cream") is a noun: no "ice creaming".
        let compound = !prefix.is_empty();
        if let Some(table) = self.table_forms.get(last) {
            // The lexicon knows the word: its forms plus WordNet's exceptions, no guessing.
            let noun_only = compound && table.iter().any(|&(_, p)| p == Wn::Noun.flag());
            for (f, p) in table {
                if !noun_only || *p == Wn::Noun.flag() {
                    push(&mut out, f.to_string());
                }
            }
            for pos in ALL_WN {
                if noun_only && pos != Wn::Noun {
                    continue;
                }
                for f in self.exc(pos, last) {
                    push(&mut out, f.to_string());
                }
            }
            return with_prefix(prefix, out);
        }
        let flags = self.lemmas.get(last).copied().unwrap_or(0);
        let has =
            |pos: Wn| flags & pos.flag() != 0 || self.exc_forms[pos as usize].contains_key(last);
        let unknown = !ALL_WN.iter().any(|&p| has(p));
        if has(Wn::Noun) || unknown {
            for f in self.exc(Wn::Noun, last) {
                push(&mut out, f.to_string());
            }
            for f in plurals(last) {
                push(&mut out, f);
            }
            if compound {
                return with_prefix(prefix, out);
            }
        }
        if has(Wn::Verb) {
            let exc = self.exc(Wn::Verb, last);
            for f in exc {
                push(&mut out, f.to_string());
            }
            for f in plurals(last) {
                push(&mut out, f);
            }
            for f in ing_forms(last) {
                push(&mut out, f);
            }
            // An irregular past (struck, bore) replaces the regular one (striked, beared).
            let irregular_past = exc.iter().any(|f| !f.ends_with("ing") && !f.ends_with('s'));
            if !irregular_past {
                for f in ed_forms(last) {
                    push(&mut out, f);
                }
            }
        }
        if has(Wn::Adj) {
            let exc = self.exc(Wn::Adj, last);
            for f in exc {
                push(&mut out, f.to_string());
            }
            if exc.is_empty() && takes_comparative(last) {
                for f in comparatives(last) {
                    push(&mut out, f);
                }
            }
        }
        if has(Wn::Adv) {
            for f in self.exc(Wn::Adv, last) {
                push(&mut out, f.to_string());
            }
        }
        with_prefix(prefix, out)
    }

    /// The lemmas `word` may be a form of, lower-case; the word itself is included when it is a
    /// lemma (`leaves` -> leaf, leave; `struck` -> strike, struck; `born` -> bear, born). A word
    /// WordNet does not know gives itself. Multi-word input lemmatises its last word.
    pub fn lemmas(&self, word: &str) -> Vec<String> {
        let word = normalize(word);
        let (prefix, last) = split_last(&word);
        if last.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for pos in ALL_WN {
            self.lemmas_as(last, pos, &mut out);
        }
        if self.table_forms.contains_key(last) && !out.iter().any(|l| l == last) {
            out.push(last.to_string());
        }
        for l in self.table_lemmas.get(last).into_iter().flatten() {
            if !out.iter().any(|o| **o == **l) {
                out.push(l.to_string());
            }
        }
        if out.is_empty() {
            out.push(last.to_string());
        }
        with_prefix(prefix, out)
    }

    /// The best lemma of a tagged word: the lemma for its part of speech if WordNet has one,
    /// else any lemma, else the word lower-cased. Proper nouns are only lower-cased.
    pub fn lemma(&self, word: &str, upos: Upos) -> String {
        let lower = normalize(word);
        let pos = match upos {
            Upos::Noun => Wn::Noun,
            Upos::Verb | Upos::Aux => Wn::Verb,
            Upos::Adj => Wn::Adj,
            Upos::Adv => Wn::Adv,
            _ => return lower,
        };
        let (prefix, last) = split_last(&lower);
        let mut found = Vec::new();
        self.lemmas_as(last, pos, &mut found);
        // Morphy's order: exceptions, then the word itself, then undone suffixes; but a noun
        // plural that WordNet lists as a lemma too (`years`) goes to its singular.
        if pos == Wn::Noun
            && found.first().is_some_and(|f| f == last)
            && let Some(singular) = self.regular_singular(last)
        {
            found.insert(0, singular);
        }
        let best = found
            .into_iter()
            .next()
            .or_else(|| {
                self.table_lemmas
                    .get(last)
                    .and_then(|l| l.first())
                    .map(|l| l.to_string())
            })
            .unwrap_or_else(|| last.to_string());
        if prefix.is_empty() {
            best
        } else {
            format!("{prefix} {best}")
        }
    }

    /// The singular of a regular noun plural that WordNet also lists as a lemma of its own
    /// (`years`, `times`, `legs`, `glasses`), which morphy would return unchanged: undo a plural
    /// rule, and take the result if it is a WordNet noun and lemminflect lists the word as its
    /// noun form. Plurals without such a singular stay (`news`, `series`, `mathematics`, and
    /// `species`, whose `specie` has no plural), as do `-ics` fields that lemminflect lists as
    /// lemmas of their own (`physics` is not `physic`'s plural here, nor `optics` of `optic`).
    fn regular_singular(&self, word: &str) -> Option<String> {
        if word.ends_with("ics") && self.table_forms.contains_key(word) {
            return None;
        }
        NOUN_RULES.iter().find_map(|(suffix, ending)| {
            let stem = word.strip_suffix(suffix)?;
            let cand = format!("{stem}{ending}");
            let listed = self
                .table_forms
                .get(cand.as_str())?
                .iter()
                .any(|(f, p)| **f == *word && *p == Wn::Noun.flag());
            (cand.len() >= 3 && cand != word && listed && self.is_lemma(&cand, Wn::Noun))
                .then_some(cand)
        })
    }

    /// Whether `a` and `b` are inflections of one another: the same word, a shared lemma
    /// (`struck`/`strikes`), one a form of the other, or — only when WordNet does not know one
    /// of them — the same Porter2 stem (`pokemons`/`pokemon`). Two known words with merely a
    /// common stem (`organ`/`organization`, `universe`/`university`) are not inflections.
    /// Multi-word inputs must share all but their last word.
    pub fn is_inflection_of(&self, a: &str, b: &str) -> bool {
        self.are_inflections(&Inflectable::new(a), &Inflectable::new(b))
    }

    /// [`Inflector::is_inflection_of`] of two words read once ([`Inflectable`]): what each
    /// needs of the tables is worked out on first use and kept for its next comparison.
    pub fn are_inflections(&self, a: &Inflectable, b: &Inflectable) -> bool {
        if let Some(answer) = a.without_tables(b) {
            return answer;
        }
        let (_, la) = split_last(&a.word);
        let (_, lb) = split_last(&b.word);
        let lemmas_a = a.lemmas.get_or_init(|| self.lemmas(la));
        let lemmas_b = b.lemmas.get_or_init(|| self.lemmas(lb));
        if lemmas_a.iter().any(|l| lemmas_b.contains(l)) {
            return true;
        }
        let has_form = |w: &Inflectable, last: &str, form: &str| {
            w.forms
                .get_or_init(|| self.forms(last))
                .iter()
                .any(|f| f == form)
        };
        if has_form(a, la, lb) || has_form(b, lb, la) {
            return true;
        }
        let knows = |w: &Inflectable, last: &str| *w.knows.get_or_init(|| self.knows(last));
        if knows(a, la) && knows(b, lb) {
            return false;
        }
        let stem = |w: &Inflectable, last: &str| w.stem.get_or_init(|| self.stem(last)).clone();
        stem(a, la) == stem(b, lb)
    }

    /// Whether `word`, tagged `upos`, may be an inflection of `lemma` as that part of speech:
    /// `wound` is a form of `wind` as a verb, not as a noun; `born` of `bear` as a verb, not as
    /// a noun. Always true for the lemma itself, for tags without inflection (PRON, NUM, X, ...)
    /// and for lemmas WordNet does not know (their forms are guesses with no part of speech).
    /// Proper nouns are judged as nouns. Multi-word inputs compare their last words.
    pub fn is_form_as(&self, word: &str, lemma: &str, upos: Upos) -> bool {
        let pos = match upos {
            Upos::Noun | Upos::Propn => Wn::Noun,
            Upos::Verb | Upos::Aux => Wn::Verb,
            Upos::Adj => Wn::Adj,
            Upos::Adv => Wn::Adv,
            _ => return true,
        };
        let word = normalize(word);
        let lemma = normalize(lemma);
        let (_, word) = split_last(&word);
        let (_, lemma) = split_last(&lemma);
        if word == lemma || !self.is_known(lemma) {
            return true;
        }
        let mut found = Vec::new();
        self.lemmas_as(word, pos, &mut found);
        found.iter().any(|l| l == lemma)
            || self.exc(pos, lemma).iter().any(|f| **f == *word)
            || self
                .table_forms
                .get(lemma)
                .is_some_and(|t| t.iter().any(|(f, p)| **f == *word && *p == pos.flag()))
    }

    /// The Porter2 (Snowball English) stem of a lower-case word.
    pub fn stem(&self, word: &str) -> String {
        self.stemmer.stem(&normalize(word)).into_owned()
    }

    /// Exception forms of `lemma` as part of speech `pos`.
    fn exc(&self, pos: Wn, lemma: &str) -> &[Box<str>] {
        self.exc_forms[pos as usize]
            .get(lemma)
            .map_or(&[], |v| v.as_slice())
    }

    fn is_lemma(&self, word: &str, pos: Wn) -> bool {
        self.lemmas.get(word).is_some_and(|f| f & pos.flag() != 0)
    }

    /// Morphy for one part of speech: exceptions, the word itself, undone suffix rules.
    fn lemmas_as(&self, word: &str, pos: Wn, out: &mut Vec<String>) {
        let mut push = |s: &str| {
            if !out.iter().any(|o| o == s) {
                out.push(s.to_string());
            }
        };
        if let Some(ls) = self.exc_lemmas[pos as usize].get(word) {
            for l in ls {
                push(l);
            }
        }
        if self.is_lemma(word, pos) {
            push(word);
        }
        let rules: &[(&str, &str)] = match pos {
            Wn::Noun => NOUN_RULES,
            Wn::Verb => VERB_RULES,
            Wn::Adj => ADJ_RULES,
            Wn::Adv => &[],
        };
        for (suffix, ending) in rules {
            let Some(stem) = word.strip_suffix(suffix) else {
                continue;
            };
            if stem.is_empty() {
                continue;
            }
            let cand = format!("{stem}{ending}");
            // Two letters are abbreviations in WordNet, not lemmas of a suffixed word
            // ("was" is not a form of "wa", nor "is" of "i").
            if cand.chars().count() >= 3 && self.is_lemma(&cand, pos) {
                push(&cand);
            }
            // Undo consonant doubling: running -> runn -> run, bigger -> bigg -> big.
            if ending.is_empty() && matches!(*suffix, "ed" | "ing" | "er" | "est") {
                let b = stem.as_bytes();
                if b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] && is_consonant(b[b.len() - 1])
                {
                    let undoubled = &stem[..stem.len() - 1];
                    if self.is_lemma(undoubled, pos) {
                        push(undoubled);
                    }
                }
            }
        }
    }
}

/// Lower-cases, turns `’` into `'`, collapses white space and hyphens to single spaces.
fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|p| !p.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in part.chars() {
            if c == '\u{2019}' {
                out.push('\'');
            } else {
                out.extend(c.to_lowercase());
            }
        }
    }
    out
}

/// Puts a multi-word term's first words back in front of each form of its last word.
fn with_prefix(prefix: &str, words: Vec<String>) -> Vec<String> {
    if prefix.is_empty() {
        words
    } else {
        words.into_iter().map(|w| format!("{prefix} {w}")).collect()
    }
}

/// Splits "ice cream" into ("ice", "cream"); a single word has an empty prefix.
/// One word as [`Inflector::are_inflections`] compares it: normalised once, its lemmas, forms,
/// whether WordNet knows it and its stem each worked out when a comparison first needs them,
/// then kept. A board's legality compares every clue it checks with every card form (25 cards,
/// 2 comparisons each), and words no table covers (a typed card) were read anew each time.
#[derive(Debug, Default)]
pub struct Inflectable {
    word: String,
    lemmas: std::cell::OnceCell<Vec<String>>,
    forms: std::cell::OnceCell<Vec<String>>,
    knows: std::cell::OnceCell<bool>,
    stem: std::cell::OnceCell<String>,
}

impl Inflectable {
    pub fn new(word: &str) -> Inflectable {
        Inflectable {
            word: normalize(word),
            ..Inflectable::default()
        }
    }

    /// The word as compared: lower-case, single spaces.
    pub fn word(&self) -> &str {
        &self.word
    }

    /// [`Inflector::are_inflections`] where it needs no tables: the same word (an inflection
    /// of itself), or not (different leading words, `ice` and `ice cream`, or an empty last
    /// word); `None` when the tables must say. Asked first, so that a caller holding no
    /// [`Inflector`] yet need not load one (~80 ms) for these.
    pub fn without_tables(&self, other: &Inflectable) -> Option<bool> {
        if self.word == other.word {
            return Some(!self.word.is_empty());
        }
        let (pa, la) = split_last(&self.word);
        let (pb, lb) = split_last(&other.word);
        (pa != pb || la.is_empty() || lb.is_empty()).then_some(false)
    }
}

fn split_last(s: &str) -> (&str, &str) {
    match s.rsplit_once(' ') {
        Some((p, l)) => (p, l),
        None => ("", s),
    }
}

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

fn is_consonant(c: u8) -> bool {
    c.is_ascii_lowercase() && !is_vowel(c)
}

/// Vowel groups, a syllable estimate (`y` after a consonant counts as a vowel; a final silent
/// `e` does not).
fn syllables(w: &str) -> usize {
    let b = w.as_bytes();
    let mut n = 0;
    let mut prev_vowel = false;
    for (i, &c) in b.iter().enumerate() {
        let v = is_vowel(c) || (c == b'y' && i > 0 && !is_vowel(b[i - 1]));
        if v && !prev_vowel {
            n += 1;
        }
        prev_vowel = v;
    }
    if n > 1 && w.ends_with('e') && !w.ends_with("le") && !w.ends_with("ee") {
        n -= 1;
    }
    n.max(1)
}

/// Whether the final consonant doubles before a vowel suffix: `Some(true)` for one-syllable
/// consonant-vowel-consonant words (run -> running), `Some(false)` when it may go either way
/// (travel -> traveled/travelled; both forms are made), `None` when it does not.
fn doubling(w: &str) -> Option<bool> {
    let b = w.as_bytes();
    if b.len() < 3 || !w.is_ascii() {
        return None;
    }
    let (c1, v, c2) = (b[b.len() - 3], b[b.len() - 2], b[b.len() - 1]);
    if !is_consonant(c1) || !is_vowel(v) || !is_consonant(c2) || matches!(c2, b'w' | b'x' | b'y') {
        return None;
    }
    // "qu" acts as a consonant: quit -> quitting.
    if syllables(w) == 1 || (b.len() == 4 && b[0] == b'q' && b[1] == b'u') {
        Some(true)
    } else {
        Some(false)
    }
}

/// Plural / third person singular forms.
fn plurals(w: &str) -> Vec<String> {
    let b = w.as_bytes();
    let n = b.len();
    if n == 0 || !w.chars().all(char::is_alphabetic) {
        return Vec::new();
    }
    if w.ends_with(['s', 'x', 'z']) || w.ends_with("ch") || w.ends_with("sh") {
        return vec![format!("{w}es")];
    }
    if n >= 2 && b[n - 1] == b'y' && is_consonant(b[n - 2]) {
        return vec![format!("{}ies", &w[..n - 1])];
    }
    if n >= 2 && b[n - 1] == b'o' && is_consonant(b[n - 2]) {
        return vec![format!("{w}s"), format!("{w}es")];
    }
    vec![format!("{w}s")]
}

/// Present participles.
fn ing_forms(w: &str) -> Vec<String> {
    let b = w.as_bytes();
    let n = b.len();
    if n == 0 || !w.chars().all(char::is_alphabetic) {
        return Vec::new();
    }
    if w.ends_with("ie") && n > 2 {
        return vec![format!("{}ying", &w[..n - 2])];
    }
    if w.ends_with("ee") || w.ends_with("ye") || w.ends_with("oe") || n <= 2 {
        return vec![format!("{w}ing")];
    }
    if b[n - 1] == b'e' && n >= 3 {
        return vec![format!("{}ing", &w[..n - 1])];
    }
    match doubling(w) {
        Some(true) => vec![format!("{w}{}ing", b[n - 1] as char)],
        Some(false) => vec![format!("{w}ing"), format!("{w}{}ing", b[n - 1] as char)],
        None => vec![format!("{w}ing")],
    }
}

/// Regular past tense / past participle.
fn ed_forms(w: &str) -> Vec<String> {
    let b = w.as_bytes();
    let n = b.len();
    if n == 0 || !w.chars().all(char::is_alphabetic) {
        return Vec::new();
    }
    if b[n - 1] == b'e' {
        return vec![format!("{w}d")];
    }
    if n >= 2 && b[n - 1] == b'y' && is_consonant(b[n - 2]) {
        return vec![format!("{}ied", &w[..n - 1])];
    }
    match doubling(w) {
        Some(true) => vec![format!("{w}{}ed", b[n - 1] as char)],
        Some(false) => vec![format!("{w}ed"), format!("{w}{}ed", b[n - 1] as char)],
        None => vec![format!("{w}ed")],
    }
}

/// Whether an adjective takes `-er/-est`: one syllable, or two ending in -y, -le, -ow, -er.
fn takes_comparative(w: &str) -> bool {
    if !w.chars().all(|c| c.is_ascii_lowercase()) || w.len() < 2 {
        return false;
    }
    match syllables(w) {
        1 => !w.ends_with("ed"),
        2 => w.ends_with('y') || w.ends_with("le") || w.ends_with("ow") || w.ends_with("er"),
        _ => false,
    }
}

/// Comparative and superlative.
fn comparatives(w: &str) -> Vec<String> {
    let b = w.as_bytes();
    let n = b.len();
    if b[n - 1] == b'e' {
        return vec![format!("{w}r"), format!("{w}st")];
    }
    if n >= 2 && b[n - 1] == b'y' && is_consonant(b[n - 2]) {
        let s = &w[..n - 1];
        return vec![format!("{s}ier"), format!("{s}iest")];
    }
    if doubling(w) == Some(true) {
        let c = b[n - 1] as char;
        return vec![format!("{w}{c}er"), format!("{w}{c}est")];
    }
    vec![format!("{w}er"), format!("{w}est")]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What needs no tables: the same word, different leading words, an empty word; a pair of
    /// words the tables must judge is left to them, and they agree.
    #[test]
    fn some_pairs_are_judged_without_the_tables() {
        let w = Inflectable::new;
        assert_eq!(w("Ice  Cream").without_tables(&w("ice cream")), Some(true));
        assert_eq!(w("ice").without_tables(&w("ice cream")), Some(false));
        assert_eq!(w("hot dog").without_tables(&w("ice cream")), Some(false));
        assert_eq!(w("").without_tables(&w("")), Some(false));
        assert_eq!(w("strike").without_tables(&w("struck")), None);
        assert_eq!(w("ice creams").without_tables(&w("ice cream")), None);
        for (a, b, want) in [("ice", "ice cream", false), ("strike", "struck", true)] {
            assert_eq!(inf().is_inflection_of(a, b), want, "{a} / {b}");
        }
    }

    fn inf() -> &'static Inflector {
        Inflector::shared()
    }

    #[test]
    fn vendored_data_loads_cleanly() {
        let s = inf().stats();
        assert_eq!(s.skipped, 0);
        assert_eq!(s.lemmas, 83_118);
        // 2054 + 2401 + 1490 + 7 lines in noun/verb/adj/adv.exc.
        assert_eq!(s.exceptions, 5952);
        assert_eq!(s.inflection_rows, 40_450);
    }

    #[test]
    fn lemma_pins() {
        for (form, lemma) in [
            ("struck", "strike"),
            ("born", "bear"),
            ("mice", "mouse"),
            ("geese", "goose"),
            ("running", "run"),
            ("cities", "city"),
            ("bigger", "big"),
            ("stopped", "stop"),
            ("making", "make"),
            ("leaves", "leaf"),
            ("leaves", "leave"),
            ("better", "good"),
            ("Ice Creams", "ice cream"),
            ("buses", "bus"),
        ] {
            let got = inf().lemmas(form);
            assert!(
                got.iter().any(|l| l == lemma),
                "lemmas({form}) = {got:?}, want {lemma}"
            );
        }
        assert_eq!(inf().lemmas("bus"), ["bus"]);
        assert_eq!(inf().lemmas("was"), ["be"]);
        assert_eq!(inf().lemmas("xyzzyq"), ["xyzzyq"]);
        assert_eq!(inf().lemmas(""), Vec::<String>::new());
    }

    #[test]
    fn forms_pins() {
        let strike = inf().forms("strike");
        for f in ["strike", "strikes", "striking", "struck", "stricken"] {
            assert!(
                strike.iter().any(|x| x == f),
                "forms(strike) = {strike:?} lacks {f}"
            );
        }
        assert!(!strike.iter().any(|x| x == "striked"), "{strike:?}");
        assert_eq!(strike[0], "strike");
        let bear = inf().forms("bear");
        for f in ["bear", "bears", "bearing", "bore", "born", "borne"] {
            assert!(
                bear.iter().any(|x| x == f),
                "forms(bear) = {bear:?} lacks {f}"
            );
        }
        assert!(inf().forms("mouse").iter().any(|x| x == "mice"));
        assert!(inf().forms("city").iter().any(|x| x == "cities"));
        assert!(inf().forms("run").iter().any(|x| x == "running"));
        assert!(inf().forms("big").iter().any(|x| x == "bigger"));
        assert!(inf().forms("box").iter().any(|x| x == "boxes"));
        assert_eq!(inf().forms("ice cream"), ["ice cream", "ice creams"]);
        assert_eq!(inf().forms("Loch-Ness")[0], "loch ness");
        // No invented parts of speech: bank is a noun and a verb, not an adjective.
        let bank = inf().forms("bank");
        assert!(bank.iter().any(|x| x == "banked") && bank.iter().any(|x| x == "banking"));
        assert!(!bank.iter().any(|x| x == "banker"), "{bank:?}");
        assert!(inf().forms("").is_empty());
    }

    #[test]
    fn inflection_relation() {
        let i = inf();
        assert!(i.is_inflection_of("struck", "strike"));
        assert!(i.is_inflection_of("strike", "stricken"));
        assert!(i.is_inflection_of("born", "bear"));
        assert!(i.is_inflection_of("apples", "apple"));
        assert!(i.is_inflection_of("Ice Creams", "ice cream"));
        assert!(i.is_inflection_of("pokemons", "pokemon"));
        assert!(!i.is_inflection_of("banker", "bank"));
        assert!(!i.is_inflection_of("organization", "organ"));
        assert!(!i.is_inflection_of("university", "universe"));
        assert!(!i.is_inflection_of("ice cream", "cream"));
        assert!(!i.is_inflection_of("", ""));
    }

    #[test]
    fn tagged_lemma() {
        let i = inf();
        assert_eq!(i.lemma("Cities", Upos::Noun), "city");
        assert_eq!(i.lemma("mice", Upos::Noun), "mouse");
        assert_eq!(i.lemma("news", Upos::Noun), "news");
        // Plurals WordNet also lists as lemmas go to their singular...
        for (plural, singular) in [
            ("years", "year"),
            ("times", "time"),
            ("parts", "part"),
            ("humans", "human"),
            ("legs", "leg"),
            ("Eyes", "eye"),
            ("glasses", "glass"),
            ("letters", "letter"),
            ("boxes", "box"),
            ("ice creams", "ice cream"),
        ] {
            assert_eq!(i.lemma(plural, Upos::Noun), singular, "{plural}");
        }
        // ...but not words that only look plural, nor fields named in -ics.
        for word in [
            "news",
            "physics",
            "species",
            "mathematics",
            "series",
            "optics",
            "economics",
            "clothes",
            "remains",
        ] {
            assert_eq!(i.lemma(word, Upos::Noun), word);
        }
        // Only nouns: a verb's third person is the verb's business.
        assert_eq!(i.lemma("times", Upos::Verb), "time");
        assert_eq!(i.lemma("years", Upos::Propn), "years");
        assert_eq!(i.lemma("struck", Upos::Verb), "strike");
        assert_eq!(i.lemma("Gates", Upos::Propn), "gates");
    }

    #[test]
    fn regular_rule_helpers() {
        assert_eq!(ing_forms("die"), ["dying"]);
        assert_eq!(ing_forms("see"), ["seeing"]);
        assert_eq!(ing_forms("travel"), ["traveling", "travelling"]);
        assert_eq!(ed_forms("carry"), ["carried"]);
        assert_eq!(ed_forms("play"), ["played"]);
        assert_eq!(plurals("potato"), ["potatos", "potatoes"]);
        assert_eq!(comparatives("happy"), ["happier", "happiest"]);
        assert_eq!(syllables("strike"), 1);
        assert_eq!(syllables("table"), 2);
        assert!(!takes_comparative("beautiful"));
    }
}
