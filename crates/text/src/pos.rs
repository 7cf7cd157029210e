//! Part-of-speech tagging: an averaged perceptron with context, Universal POS tags.
//!
//! A Rust port of the inference of PyPI `denckring-en-pos` 0.6.0 (`perceptron.py`, Apache-2.0;
//! Honnibal's `textblob-aptagger` feature set). Its trained weights, `data/pos/tagger.json.gz`
//! (UD English-EWT v2.18, CC BY-SA 4.0; 93.4 % UPOS on the treebank's test split without
//! punctuation), are vendored verbatim with their notices in `data/pos/`.
//!
//! The port gives the Python package's labels exactly (a test pins a sample of them, produced
//! by running `perceptron.py` on the vendored file). For speed:
//! - weights are integers in thousandths (every weight in the file has at most three
//!   decimals — checked at load), so scores are exact sums, and rows are packed `u32`s;
//! - every feature that depends only on the word (`w`, `w±1`, `w±2`, its suffixes and prefix,
//!   `t-1 w`) is resolved with one hash lookup per token, not by formatting feature strings.
//!
//! The model was trained on punctuation-free UD tokens, which is what [`crate::tokens`] emits.

use crate::TextError;
use crate::hash::FxHashMap;
use flate2::read::GzDecoder;
use serde::Deserialize;
use std::collections::HashMap;
use std::io::Read;
use std::sync::OnceLock;

const MODEL_GZ: &[u8] = include_bytes!("../data/pos/tagger.json.gz");

/// Universal POS tags (<https://universaldependencies.org/u/pos/>).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Upos {
    Adj,
    Adp,
    Adv,
    Aux,
    Cconj,
    Det,
    Intj,
    Noun,
    Num,
    Part,
    Pron,
    Propn,
    Punct,
    Sconj,
    Sym,
    Verb,
    X,
}

impl Upos {
    /// All tags, in order.
    pub const ALL: [Upos; 17] = [
        Upos::Adj,
        Upos::Adp,
        Upos::Adv,
        Upos::Aux,
        Upos::Cconj,
        Upos::Det,
        Upos::Intj,
        Upos::Noun,
        Upos::Num,
        Upos::Part,
        Upos::Pron,
        Upos::Propn,
        Upos::Punct,
        Upos::Sconj,
        Upos::Sym,
        Upos::Verb,
        Upos::X,
    ];

    /// The UD spelling: `NOUN`, `PROPN`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Upos::Adj => "ADJ",
            Upos::Adp => "ADP",
            Upos::Adv => "ADV",
            Upos::Aux => "AUX",
            Upos::Cconj => "CCONJ",
            Upos::Det => "DET",
            Upos::Intj => "INTJ",
            Upos::Noun => "NOUN",
            Upos::Num => "NUM",
            Upos::Part => "PART",
            Upos::Pron => "PRON",
            Upos::Propn => "PROPN",
            Upos::Punct => "PUNCT",
            Upos::Sconj => "SCONJ",
            Upos::Sym => "SYM",
            Upos::Verb => "VERB",
            Upos::X => "X",
        }
    }

    /// Parses the UD spelling (case-insensitive); also accepts a joint label `VERB|Fin`.
    pub fn parse(s: &str) -> Option<Upos> {
        let tag = s.split('|').next().unwrap_or(s);
        Upos::ALL
            .into_iter()
            .find(|u| u.as_str().eq_ignore_ascii_case(tag))
    }
}

impl std::fmt::Display for Upos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Upos {
    type Err = TextError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Upos::parse(s).ok_or_else(|| TextError::UnknownTag(s.to_string()))
    }
}

/// The JSON layout of the vendored model.
#[derive(Deserialize)]
struct RawModel {
    classes: Vec<String>,
    tagdict: HashMap<String, String>,
    weights: HashMap<String, HashMap<String, f64>>,
}

/// No row.
const NONE: u32 = u32::MAX;
/// Room for the model's classes (the class id is packed into 5 bits).
const MAX_CLASSES: usize = 32;

/// Everything the model knows about one lower-cased word.
#[derive(Clone)]
pub(crate) struct WordInfo {
    /// The tag-dictionary label, which bypasses scoring.
    tagdict: Option<u8>,
    /// Rows for `w`, `w-1`, `w-2`, `w+1`, `w+2` (the word seen from each position).
    w: u32,
    wm1: u32,
    wm2: u32,
    wp1: u32,
    wp2: u32,
    /// One row merging this word's `w`, `suf3`, `suf2`, `suf1` and `pre1` rows.
    own: u32,
    /// `t-1 w` rows: (previous tag, row).
    prev_tag: Vec<(u8, u32)>,
}

impl WordInfo {
    fn empty() -> Self {
        WordInfo {
            tagdict: None,
            w: NONE,
            wm1: NONE,
            wm2: NONE,
            wp1: NONE,
            wp2: NONE,
            own: NONE,
            prev_tag: Vec::new(),
        }
    }
}

/// The averaged-perceptron tagger. Build once ([`Tagger::new`] or [`Tagger::shared`]); it is
/// immutable, `Send` and `Sync`.
pub struct Tagger {
    /// Sorted joint labels (`NOUN|-`, `VERB|Fin`, ...).
    labels: Vec<String>,
    /// UPOS of each label.
    upos: Vec<Upos>,
    /// Row offsets into `entries` (CSR).
    row_start: Vec<u32>,
    /// `weight_in_thousandths << 5 | class`.
    entries: Vec<u32>,
    /// Feature rows and weights in the model file (before merging).
    model_rows: usize,
    model_weights: usize,
    words: FxHashMap<Box<str>, WordInfo>,
    suffix: [FxHashMap<Box<str>, u32>; 4],
    /// `bias` plus each shape's row, dense; index: upper | digit << 1 (`x`, `X`, `xd`, `Xd`).
    base: [[i32; MAX_CLASSES]; 4],
    /// `t-1`, `t-2` and `t-1t-2` rows summed, dense, indexed by `prev * (n + 1) + prev2`
    /// where `n` (one past the last class) stands for `<s>`.
    tag_context: Vec<[i32; MAX_CLASSES]>,
    start: WordInfo,
    end: WordInfo,
}

impl std::fmt::Debug for Tagger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tagger")
            .field("labels", &self.labels.len())
            .field("rows", &self.model_rows)
            .field("weights", &self.model_weights)
            .field("words", &self.words.len())
            .finish()
    }
}

/// Per-feature-kind indices into [`Tagger::suffix`] (a known word's rows of these kinds are
/// merged into [`WordInfo::own`]).
const SUF3: usize = 0;
const SUF2: usize = 1;
const SUF1: usize = 2;
const PRE1: usize = 3;

impl Tagger {
    /// Loads the vendored model (about 0.2 s in release; do it once).
    pub fn new() -> Result<Self, TextError> {
        let mut json = String::new();
        GzDecoder::new(MODEL_GZ)
            .read_to_string(&mut json)
            .map_err(|e| TextError::Data {
                file: "data/pos/tagger.json.gz",
                message: e.to_string(),
            })?;
        let raw: RawModel = serde_json::from_str(&json).map_err(|e| TextError::Data {
            file: "data/pos/tagger.json.gz",
            message: e.to_string(),
        })?;
        Self::from_raw(raw)
    }

    /// A process-wide instance, loaded on first use.
    pub fn shared() -> Result<&'static Tagger, TextError> {
        static SHARED: OnceLock<Result<Tagger, TextError>> = OnceLock::new();
        SHARED
            .get_or_init(Tagger::new)
            .as_ref()
            .map_err(Clone::clone)
    }

    fn from_raw(raw: RawModel) -> Result<Self, TextError> {
        let bad = |message: String| TextError::Data {
            file: "data/pos/tagger.json.gz",
            message,
        };
        let mut labels = raw.classes;
        labels.sort();
        labels.dedup();
        if labels.is_empty() || labels.len() >= MAX_CLASSES {
            return Err(bad(format!(
                "{} classes, expected 1..{}",
                labels.len(),
                MAX_CLASSES - 1
            )));
        }
        let class_of: HashMap<&str, u8> = labels
            .iter()
            .enumerate()
            .map(|(i, l)| (l.as_str(), i as u8))
            .collect();
        let upos = labels
            .iter()
            .map(|l| Upos::parse(l).ok_or_else(|| bad(format!("unknown tag in label {l:?}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let n = labels.len();
        let start_tag = n; // "<s>" in the tag-context tables
        let tag_index = |s: &str| -> Option<usize> {
            if s == "<s>" {
                Some(start_tag)
            } else {
                class_of.get(s).map(|&c| c as usize)
            }
        };

        let mut row_start = vec![0u32];
        let mut entries = Vec::with_capacity(raw.weights.values().map(HashMap::len).sum());
        let mut words: FxHashMap<Box<str>, WordInfo> = FxHashMap::default();
        let mut suffix: [FxHashMap<Box<str>, u32>; 4] = Default::default();
        let mut bias = NONE;
        let mut shape = [NONE; 4];
        let mut t1 = vec![NONE; n + 1];
        let mut t2 = vec![NONE; n + 1];
        let mut t12 = vec![NONE; (n + 1) * (n + 1)];
        // Sorted for a deterministic layout.
        let mut features: Vec<(String, HashMap<String, f64>)> = raw.weights.into_iter().collect();
        features.sort_by(|a, b| a.0.cmp(&b.0));
        for (feature, row) in features {
            let id = (row_start.len() - 1) as u32;
            let mut cells: Vec<(u8, i64)> = Vec::with_capacity(row.len());
            for (label, weight) in &row {
                let class = *class_of
                    .get(label.as_str())
                    .ok_or_else(|| bad(format!("feature {feature:?}: unknown label {label:?}")))?;
                let milli = (weight * 1000.0).round();
                if (weight * 1000.0 - milli).abs() > 1e-6 || milli.abs() > f64::from(1u32 << 26) {
                    return Err(bad(format!(
                        "feature {feature:?}: weight {weight} is not in thousandths"
                    )));
                }
                cells.push((class, milli as i64));
            }
            cells.sort_unstable();
            for (class, milli) in cells {
                entries.push(((milli as i32) << 5) as u32 | u32::from(class));
            }
            row_start.push(entries.len() as u32);

            let (template, arg) = feature.split_once(' ').unwrap_or((feature.as_str(), ""));
            match template {
                "bias" => bias = id,
                "suf3" => {
                    suffix[SUF3].insert(arg.into(), id);
                }
                "suf2" => {
                    suffix[SUF2].insert(arg.into(), id);
                }
                "suf1" => {
                    suffix[SUF1].insert(arg.into(), id);
                }
                "pre1" => {
                    suffix[PRE1].insert(arg.into(), id);
                }
                "shape" => {
                    let idx = match arg {
                        "x" => 0,
                        "X" => 1,
                        "xd" => 2,
                        "Xd" => 3,
                        _ => return Err(bad(format!("unknown shape feature {feature:?}"))),
                    };
                    shape[idx] = id;
                }
                "w" => words.entry(arg.into()).or_insert_with(WordInfo::empty).w = id,
                "w-1" => words.entry(arg.into()).or_insert_with(WordInfo::empty).wm1 = id,
                "w-2" => words.entry(arg.into()).or_insert_with(WordInfo::empty).wm2 = id,
                "w+1" => words.entry(arg.into()).or_insert_with(WordInfo::empty).wp1 = id,
                "w+2" => words.entry(arg.into()).or_insert_with(WordInfo::empty).wp2 = id,
                "t-1" => {
                    if let Some(rest) = arg.strip_prefix("w ") {
                        // "t-1 w {prev} {word}": labels have no spaces, the word may.
                        let (prev, word) = rest
                            .split_once(' ')
                            .ok_or_else(|| bad(format!("malformed feature {feature:?}")))?;
                        let prev = tag_index(prev)
                            .ok_or_else(|| bad(format!("unknown tag in {feature:?}")))?;
                        words
                            .entry(word.into())
                            .or_insert_with(WordInfo::empty)
                            .prev_tag
                            .push((prev as u8, id));
                    } else {
                        let t = tag_index(arg)
                            .ok_or_else(|| bad(format!("unknown tag in {feature:?}")))?;
                        t1[t] = id;
                    }
                }
                "t-2" => {
                    let t =
                        tag_index(arg).ok_or_else(|| bad(format!("unknown tag in {feature:?}")))?;
                    t2[t] = id;
                }
                "t-1t-2" => {
                    let (a, b) = arg
                        .split_once(' ')
                        .ok_or_else(|| bad(format!("malformed feature {feature:?}")))?;
                    let a =
                        tag_index(a).ok_or_else(|| bad(format!("unknown tag in {feature:?}")))?;
                    let b =
                        tag_index(b).ok_or_else(|| bad(format!("unknown tag in {feature:?}")))?;
                    t12[a * (n + 1) + b] = id;
                }
                _ => return Err(bad(format!("unknown feature template {feature:?}"))),
            }
        }
        for (word, label) in &raw.tagdict {
            let class = *class_of
                .get(label.as_str())
                .ok_or_else(|| bad(format!("tagdict {word:?}: unknown label {label:?}")))?;
            words
                .entry(word.as_str().into())
                .or_insert_with(WordInfo::empty)
                .tagdict = Some(class);
        }
        let (model_rows, model_weights) = (row_start.len() - 1, entries.len());
        // Integer weights make sums order-free, so rows that always come together are merged
        // once here: a known word's own rows into one, bias with shape, and the tag context.
        let dense = |rows: &[u32]| -> [i32; MAX_CLASSES] {
            let mut d = [0i32; MAX_CLASSES];
            for &row in rows {
                add_row(&row_start, &entries, row, &mut d);
            }
            d
        };
        let mut merged: Vec<(Box<str>, [i32; MAX_CLASSES])> = Vec::with_capacity(words.len());
        for (word, info) in words.iter() {
            let (s3, s2, s1, p1) = affixes(word);
            merged.push((
                word.clone(),
                dense(&[
                    info.w,
                    suffix[SUF3].get(s3).copied().unwrap_or(NONE),
                    suffix[SUF2].get(s2).copied().unwrap_or(NONE),
                    suffix[SUF1].get(s1).copied().unwrap_or(NONE),
                    suffix[PRE1].get(p1).copied().unwrap_or(NONE),
                ]),
            ));
        }
        let base = [0, 1, 2, 3].map(|k| dense(&[bias, shape[k]]));
        let mut tag_context = Vec::with_capacity((n + 1) * (n + 1));
        for p in 0..=n {
            for p2 in 0..=n {
                tag_context.push(dense(&[t1[p], t2[p2], t12[p * (n + 1) + p2]]));
            }
        }
        for (word, d) in merged {
            let id = (row_start.len() - 1) as u32;
            for (class, &w) in d.iter().enumerate().take(n) {
                if w != 0 {
                    entries.push((w << 5) as u32 | class as u32);
                }
            }
            row_start.push(entries.len() as u32);
            if let Some(info) = words.get_mut(&word) {
                info.own = id;
            }
        }
        let start = words.get("<s>").cloned().unwrap_or_else(WordInfo::empty);
        let end = words.get("</s>").cloned().unwrap_or_else(WordInfo::empty);
        Ok(Tagger {
            labels,
            upos,
            row_start,
            entries,
            model_rows,
            model_weights,
            words,
            suffix,
            base,
            tag_context,
            start,
            end,
        })
    }

    /// The model's joint labels, sorted (`ADJ|-` ... `X|-`).
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Tags one sentence of words (punctuation left out, as in training).
    pub fn tag<S: AsRef<str>>(&self, words: &[S]) -> Vec<Upos> {
        self.tag_classes(words)
            .into_iter()
            .map(|c| self.upos[usize::from(c)])
            .collect()
    }

    /// Like [`Tagger::tag`], giving the model's joint labels (`VERB|Fin`): what the Python
    /// package returns, for comparing the two.
    pub fn tag_labels<S: AsRef<str>>(&self, words: &[S]) -> Vec<&str> {
        self.tag_classes(words)
            .into_iter()
            .map(|c| self.labels[usize::from(c)].as_str())
            .collect()
    }

    fn tag_classes<S: AsRef<str>>(&self, words: &[S]) -> Vec<u8> {
        let originals: Vec<&str> = words.iter().map(AsRef::as_ref).collect();
        let lowers: Vec<String> = originals.iter().map(|w| w.to_lowercase()).collect();
        let lower_refs: Vec<&str> = lowers.iter().map(String::as_str).collect();
        let mut out = Vec::with_capacity(words.len());
        let mut scratch = Vec::new();
        self.tag_into(&originals, &lower_refs, &mut scratch, &mut out);
        out
    }

    /// Tags one sentence given its words and their lower-case forms; appends class ids.
    pub(crate) fn tag_into<'s>(
        &'s self,
        words: &[&str],
        lowers: &[&str],
        infos: &mut Vec<Option<&'s WordInfo>>,
        out: &mut Vec<u8>,
    ) {
        infos.clear();
        infos.extend(lowers.iter().map(|l| self.words.get(*l)));
        let n_tags = self.labels.len();
        let ctx = |i: isize| -> Option<&WordInfo> {
            if i < 0 {
                Some(&self.start)
            } else if i as usize >= lowers.len() {
                Some(&self.end)
            } else {
                infos[i as usize]
            }
        };
        let (mut prev, mut prev2) = (n_tags, n_tags);
        for (i, (&word, &lower)) in words.iter().zip(lowers).enumerate() {
            let info = infos[i];
            let guess = match info.and_then(|w| w.tagdict) {
                Some(class) => class,
                None => {
                    let mut scores = self.base[shape_index(word)];
                    let context = &self.tag_context[prev * (n_tags + 1) + prev2];
                    for (s, c) in scores.iter_mut().zip(context) {
                        *s += c;
                    }
                    let mut add =
                        |row: u32| add_row(&self.row_start, &self.entries, row, &mut scores);
                    match info {
                        Some(w) => add(w.own),
                        None => {
                            let (s3, s2, s1, p1) = affixes(lower);
                            for (k, a) in [(SUF3, s3), (SUF2, s2), (SUF1, s1), (PRE1, p1)] {
                                add(self.suffix[k].get(a).copied().unwrap_or(NONE));
                            }
                        }
                    }
                    let i = i as isize;
                    add(ctx(i - 1).map_or(NONE, |w| w.wm1));
                    add(ctx(i - 2).map_or(NONE, |w| w.wm2));
                    add(ctx(i + 1).map_or(NONE, |w| w.wp1));
                    add(ctx(i + 2).map_or(NONE, |w| w.wp2));
                    if let Some(w) = info
                        && let Some(&(_, row)) =
                            w.prev_tag.iter().find(|&&(t, _)| usize::from(t) == prev)
                    {
                        add(row);
                    }
                    // Highest score; ties go to the later (greater) label, as in the Python.
                    let mut best = 0;
                    for c in 1..n_tags {
                        if scores[c] >= scores[best] {
                            best = c;
                        }
                    }
                    best as u8
                }
            };
            out.push(guess);
            prev2 = prev;
            prev = usize::from(guess);
        }
    }

    /// The UPOS of a class id from [`Tagger::tag_into`].
    pub(crate) fn upos_of(&self, class: u8) -> Upos {
        self.upos[usize::from(class)]
    }
}

/// Adds a sparse row to dense scores (no-op for `NONE`).
#[inline]
fn add_row(row_start: &[u32], entries: &[u32], row: u32, scores: &mut [i32; MAX_CLASSES]) {
    if row == NONE {
        return;
    }
    let (Some(&a), Some(&b)) = (row_start.get(row as usize), row_start.get(row as usize + 1))
    else {
        return;
    };
    for &e in entries.get(a as usize..b as usize).unwrap_or(&[]) {
        scores[(e & 31) as usize] += (e as i32) >> 5;
    }
}

/// The shape feature's index: upper-case first letter, digit anywhere.
fn shape_index(word: &str) -> usize {
    let upper = word.chars().next().is_some_and(char::is_uppercase);
    let digit = word.chars().any(char::is_numeric);
    usize::from(upper) | usize::from(digit) << 1
}

/// Last three, two and one characters, and the first character, of a lower-case word.
fn affixes(lower: &str) -> (&str, &str, &str, &str) {
    let mut ends = lower.char_indices().rev().map(|(p, _)| p);
    let s1 = ends.next().unwrap_or(0);
    let s2 = ends.next().unwrap_or(0);
    let s3 = ends.next().unwrap_or(0);
    let p1 = lower.chars().next().map_or(0, char::len_utf8);
    (&lower[s3..], &lower[s2..], &lower[s1..], &lower[..p1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affixes_are_characters_not_bytes() {
        assert_eq!(affixes("café"), ("afé", "fé", "é", "c"));
        assert_eq!(affixes("a"), ("a", "a", "a", "a"));
        assert_eq!(affixes(""), ("", "", "", ""));
    }

    #[test]
    fn upos_round_trip() {
        for u in Upos::ALL {
            assert_eq!(Upos::parse(u.as_str()), Some(u));
        }
        assert_eq!(Upos::parse("VERB|Fin"), Some(Upos::Verb));
        assert_eq!("propn".parse::<Upos>().ok(), Some(Upos::Propn));
        assert!("FOO".parse::<Upos>().is_err());
    }

    #[test]
    fn model_loads() {
        let t = Tagger::shared().expect("vendored model loads");
        assert_eq!(t.labels().len(), 20);
        assert_eq!(t.model_rows, 66_441);
        assert_eq!(t.model_weights, 211_292);
        assert_eq!(t.tag(&Vec::<&str>::new()), Vec::<Upos>::new());
    }
}
