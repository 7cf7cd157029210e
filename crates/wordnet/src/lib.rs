//! WordNet 3.0 (Princeton), embedded: what a dictionary made by people says a word means.
//!
//! The relatedness stage's dictionary view (db/README.md, "Relatedness", 5c) reads every word
//! through [`Lexicon::contexts`]: the words its senses are defined with (their glosses), their
//! other lemmas, the lemmas of the senses they link to (hypernyms, parts, derived words …) and
//! their hypernyms' glosses, each sense weighted by how often people tagged it in SemCor. The
//! encyclopaedia relates `crane` to what it stands next to in articles; the dictionary to `bird`,
//! `neck`, `lift` and `boom`. Where the two agree, people follow (docs/evaluation.md, "Judged by
//! people").
//!
//! The two files in `data/` are derived from Debian's `wordnet-base` (data/README.md). Parsing
//! them takes about a second; the stage does it once per build.

use rayon::prelude::*;
use std::io::Read;

/// The maps here hash by foldhash (seeded per process): their lookups of WordNet's words were a
/// fifth of [`Lexicon::contexts`]'s time with SipHash, which every build runs.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

const SYNSETS_GZ: &[u8] = include_bytes!("../data/synsets.tsv.gz");
const SENSES_GZ: &[u8] = include_bytes!("../data/senses.tsv.gz");

/// Weight of a sense's own lemmas and gloss words in its context.
const OWN: f64 = 1.0;
/// Weight of the lemmas of a sense it links to (any WordNet pointer).
const LINKED: f64 = 0.5;
/// Weight of its hypernyms' gloss words: what the kind of thing is (`snowman` → figure → "a
/// model of a bodily form").
const HYPERNYM_GLOSS: f64 = 0.25;
/// Added to a sense's SemCor count: untagged senses still count, the tagged ones lead.
const COUNT_PRIOR: f64 = 0.5;

/// A line of an embedded (or given) file that does not parse: which file, which line, why.
#[derive(Debug, thiserror::Error)]
#[error("WordNet {file}, line {line}: {why}")]
pub struct Error {
    pub file: &'static str,
    pub line: usize,
    pub why: String,
}

/// One sense (a synset): synonymous lemmas, a gloss, the senses it links to.
#[derive(Debug, Clone, PartialEq)]
pub struct Synset {
    /// `n`, `v`, `a` (satellites included) or `r`.
    pub pos: char,
    /// Lower case, `_` between the words of a phrase (`ice_cream`).
    pub lemmas: Vec<String>,
    /// A named instance (`Crane`, the poet; `Jupiter`, the planet).
    pub instance: bool,
    /// Its hypernyms (instance hypernyms too), as indices into [`Lexicon::synsets`].
    pub hypernyms: Vec<u32>,
    /// Every sense it links to, hypernyms included, in WordNet's order.
    pub links: Vec<u32>,
    /// The definition and its examples, as WordNet writes them.
    pub gloss: String,
}

/// One sense of a lemma: the synset, and how often it was tagged in SemCor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sense {
    pub synset: u32,
    pub count: u32,
}

/// Every lemma's context words as rows over one column list: what the dictionary view factors.
#[derive(Debug, Default)]
pub struct Contexts {
    /// The lemmas, in the order of the senses file.
    pub lemmas: Vec<String>,
    /// Row `i`: lemma `i`'s context words, `(column, weight)`, columns ascending.
    pub rows: Vec<Vec<(u32, f32)>>,
    /// The context words.
    pub columns: Vec<String>,
}

impl Contexts {
    /// For each of `words`, the row of its headword ([`Lexicon::headword`]), if WordNet has it.
    pub fn headword_rows(&self, lexicon: &Lexicon, words: &[String]) -> Vec<Option<usize>> {
        let row: HashMap<&str, usize> = self
            .lemmas
            .iter()
            .enumerate()
            .map(|(i, l)| (l.as_str(), i))
            .collect();
        words
            .iter()
            .map(|w| lexicon.headword(w).and_then(|l| row.get(l).copied()))
            .collect()
    }
}

/// The dictionary: senses and the lemmas that name them.
#[derive(Debug)]
pub struct Lexicon {
    pub synsets: Vec<Synset>,
    senses: Vec<(String, Vec<Sense>)>,
    by_lemma: HashMap<String, usize>,
}

impl Lexicon {
    /// The embedded WordNet 3.0 (117,659 synsets, 147,306 lemmas).
    pub fn embedded() -> Lexicon {
        let unzip = |gz: &[u8]| {
            let mut s = String::new();
            flate2::read::GzDecoder::new(gz)
                .read_to_string(&mut s)
                .expect("the embedded WordNet files are gzip of ASCII text");
            s
        };
        Lexicon::parse(&unzip(SYNSETS_GZ), &unzip(SENSES_GZ)).expect("the embedded WordNet parses")
    }

    /// Reads the two files' text. `synsets`: one synset a line, `pos`, lemmas (space-separated),
    /// `1` for an instance else `0`, hypernyms, links (line numbers from 0), gloss, tab-separated.
    /// `senses`: one lemma a line, the lemma, then its senses as `synset:count`, most usual first.
    pub fn parse(synsets: &str, senses: &str) -> Result<Lexicon, Error> {
        let err = |file, line: usize, why: String| Error {
            file,
            line: line + 1,
            why,
        };
        let ids = |s: &str, n: usize, file, line| {
            s.split_ascii_whitespace()
                .map(|x| match x.parse::<u32>() {
                    Ok(i) if (i as usize) < n => Ok(i),
                    _ => Err(err(file, line, format!("{x:?} is no synset of the {n}"))),
                })
                .collect::<Result<Vec<u32>, Error>>()
        };
        let n = synsets.lines().count();
        let mut out = Vec::with_capacity(n);
        for (i, line) in synsets.lines().enumerate() {
            let f: Vec<&str> = line.splitn(6, '\t').collect();
            let [pos, lemmas, instance, hypernyms, links, gloss] = f[..] else {
                return Err(err("synsets", i, format!("{} fields, not 6", f.len())));
            };
            let pos = match pos {
                "n" | "v" | "a" | "r" => pos.chars().next().unwrap_or('n'),
                _ => return Err(err("synsets", i, format!("part of speech {pos:?}"))),
            };
            out.push(Synset {
                pos,
                lemmas: lemmas.split(' ').map(str::to_string).collect(),
                instance: instance == "1",
                hypernyms: ids(hypernyms, n, "synsets", i)?,
                links: ids(links, n, "synsets", i)?,
                gloss: gloss.to_string(),
            });
        }
        let mut list = Vec::new();
        let mut by_lemma = HashMap::default();
        for (i, line) in senses.lines().enumerate() {
            let (lemma, rest) = line
                .split_once('\t')
                .ok_or_else(|| err("senses", i, "no tab after the lemma".into()))?;
            let mut s = Vec::new();
            for x in rest.split_ascii_whitespace() {
                let parsed = x
                    .split_once(':')
                    .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
                match parsed {
                    Some((synset, count)) if (synset as usize) < n => {
                        s.push(Sense { synset, count })
                    }
                    _ => return Err(err("senses", i, format!("{x:?} is no synset:count"))),
                }
            }
            by_lemma.insert(lemma.to_string(), list.len());
            list.push((lemma.to_string(), s));
        }
        Ok(Lexicon {
            synsets: out,
            senses: list,
            by_lemma,
        })
    }

    /// A lemma's senses, most usual first (none for a word WordNet lacks).
    pub fn senses(&self, lemma: &str) -> &[Sense] {
        self.by_lemma
            .get(lemma)
            .map_or(&[], |&i| self.senses[i].1.as_slice())
    }

    /// The lemma a word of running text is filed under: itself, or its singular by WordNet's own
    /// noun rules (morphy's detachments, in its order: `cranes` → `crane`, not `cran`; `marshes`
    /// → `marsh`, `bodies` → `body`, `firemen` → `fireman`); a phrase with `_` for its spaces
    /// (`ice cream` → `ice_cream`).
    pub fn lemma_of(&self, word: &str) -> Option<&str> {
        // Without an allocation for a word of one part, nor for each rule tried: the contexts of
        // every build look up each of WordNet's gloss words.
        let w: std::borrow::Cow<str> = if word.contains(' ') {
            word.replace(' ', "_").into()
        } else {
            word.into()
        };
        let known = |c: &str| self.by_lemma.get_key_value(c).map(|(k, _)| k.as_str());
        known(&w).or_else(|| {
            let mut form = String::new();
            text::NOUN_RULES.iter().find_map(|(suffix, add)| {
                let stem = w.strip_suffix(suffix)?;
                form.clear();
                form.push_str(stem);
                form.push_str(add);
                known(&form)
            })
        })
    }

    /// The lemma a vocabulary word is looked up under: [`Self::lemma_of`], else a lemma it is an
    /// inflection of (`waited` → `wait`, `swam` → `swim`), as a reader looks a word up.
    pub fn headword(&self, word: &str) -> Option<&str> {
        self.lemma_of(word).or_else(|| {
            text::Inflector::shared()
                .lemmas(word)
                .iter()
                .find_map(|l| self.lemma_of(l))
        })
    }

    /// A gloss's words: lower case, letters then letters, `'` or `-`; stopwords and single
    /// letters dropped; each filed under its lemma where WordNet has one (see [`Self::lemma_of`]).
    pub fn gloss_words(&self, gloss: &str) -> Vec<String> {
        let lower = gloss.to_lowercase();
        let mut out = Vec::new();
        let mut rest = lower.as_str();
        while let Some(start) = rest.find(|c: char| c.is_ascii_lowercase()) {
            let tail = &rest[start..];
            let len = tail
                .find(|c: char| !(c.is_ascii_lowercase() || c == '\'' || c == '-'))
                .unwrap_or(tail.len());
            let token = &tail[..len];
            if token.len() > 1 && !text::is_stopword(token) {
                out.push(self.fold(token).to_string());
            }
            rest = &tail[len..];
        }
        out
    }

    /// A token under its lemma (`marshes` → `marsh`), else itself.
    fn fold<'a>(&'a self, token: &'a str) -> &'a str {
        self.lemma_of(token).unwrap_or(token)
    }

    /// What sense `i` says, unweighted by usage: its lemmas (a phrase also by its words), its
    /// gloss words, its links' lemmas, its hypernyms' gloss words; `glosses[j]` is
    /// [`Self::gloss_words`] of sense `j`'s gloss, worked out once for all.
    fn synset_context<'a>(
        &'a self,
        i: usize,
        glosses: &'a [Vec<String>],
        out: &mut Vec<(&'a str, f64)>,
    ) {
        let lemma_words = |lemmas: &'a [String], w: f64, out: &mut Vec<(&'a str, f64)>| {
            for l in lemmas {
                out.push((l.as_str(), w));
                if l.contains('_') {
                    for part in l.split('_').filter(|p| !text::is_stopword(p)) {
                        out.push((self.fold(part), w));
                    }
                }
            }
        };
        let s = &self.synsets[i];
        lemma_words(&s.lemmas, OWN, out);
        out.extend(glosses[i].iter().map(|g| (g.as_str(), OWN)));
        for &l in &s.links {
            lemma_words(&self.synsets[l as usize].lemmas, LINKED, out);
        }
        for &h in &s.hypernyms {
            out.extend(
                glosses[h as usize]
                    .iter()
                    .map(|g| (g.as_str(), HYPERNYM_GLOSS)),
            );
        }
    }

    /// What the dictionary defines words by, first-hand ([`Definitions::of`]), with the
    /// defining vocabulary worked out once.
    pub fn definitions(&self) -> Definitions<'_> {
        let mut df: HashMap<String, usize> = HashMap::default();
        for s in &self.synsets {
            let mut words = self.gloss_words(definition_part(&s.gloss));
            words.sort_unstable();
            words.dedup();
            for w in words {
                *df.entry(w).or_default() += 1;
            }
        }
        // At least in two definitions, so that a tiny lexicon keeps its words.
        let most = (self.synsets.len() as f64 * DEFINING_SHARE).max(1.0) as usize;
        Definitions {
            lexicon: self,
            defining: df
                .into_iter()
                .filter(|&(_, n)| n > most)
                .map(|(w, _)| w)
                .collect(),
        }
    }

    /// The senses of a lemma that count for what it means: named instances only when the lemma
    /// names nothing else (`jupiter`, not `crane` the poet beside the bird and the machine).
    fn counted<'s>(&'s self, senses: &'s [Sense]) -> impl Iterator<Item = &'s Sense> {
        let named_only = senses
            .iter()
            .all(|s| self.synsets[s.synset as usize].instance);
        senses
            .iter()
            .filter(move |s| named_only || !self.synsets[s.synset as usize].instance)
    }

    /// Every lemma's context words, weighted: the sum over its senses of each sense's context
    /// (`Self::synset_context`) times its SemCor count + ½, the lemma itself left out. Named
    /// instances count only for a lemma that names nothing else (`jupiter`, not `crane`).
    pub fn contexts(&self) -> Contexts {
        // Each gloss's words once (a hypernym's gloss is in all its hyponyms' contexts), and
        // each counted sense's context, in parallel: the stage runs this for every build.
        let glosses: Vec<Vec<String>> = self
            .synsets
            .par_iter()
            .map(|s| self.gloss_words(&s.gloss))
            .collect();
        let mut counted = vec![false; self.synsets.len()];
        for (_, senses) in &self.senses {
            for sense in self.counted(senses) {
                counted[sense.synset as usize] = true;
            }
        }
        let bags: Vec<Vec<(&str, f64)>> = (0..self.synsets.len())
            .into_par_iter()
            .map(|i| {
                let mut bag = Vec::new();
                if counted[i] {
                    self.synset_context(i, &glosses, &mut bag);
                }
                bag
            })
            .collect();
        // Columns are numbered as first met, lemma by lemma in the senses file's order: one
        // pass, so that the numbering (and with it the SVD's start) is every build's.
        // (Sized for the embedded WordNet's 165,233 context words: no growing on the way.)
        let mut columns: HashMap<&str, u32> =
            HashMap::with_capacity_and_hasher(1 << 18, Default::default());
        let mut names: Vec<String> = Vec::with_capacity(1 << 18);
        let mut numbered: Vec<Option<Vec<(u32, f64)>>> = vec![None; self.synsets.len()];
        for (_, senses) in &self.senses {
            for sense in self.counted(senses) {
                let at = sense.synset as usize;
                if numbered[at].is_none() {
                    let bag = bags[at]
                        .iter()
                        .map(|&(w, x)| {
                            let next = names.len() as u32;
                            let id = *columns.entry(w).or_insert_with(|| {
                                names.push(w.to_string());
                                next
                            });
                            (id, x)
                        })
                        .collect();
                    numbered[at] = Some(bag);
                }
            }
        }
        drop(bags);
        // A lemma's own column is left out; one numbered after its senses were read is not
        // among its columns anyway.
        let rows = self
            .senses
            .par_iter()
            .map(|(lemma, senses)| {
                // Every weighted context word, then summed by column: a stable sort keeps each
                // column's terms in the order met, so each sum adds them in that order.
                let mut terms: Vec<(u32, f64)> = Vec::new();
                for sense in self.counted(senses) {
                    let weight = sense.count as f64 + COUNT_PRIOR;
                    let bag = numbered[sense.synset as usize]
                        .as_deref()
                        .unwrap_or_default();
                    terms.extend(bag.iter().map(|&(c, x)| (c, weight * x)));
                }
                terms.sort_by_key(|&(c, _)| c);
                let own = columns.get(lemma.as_str()).copied();
                let mut row: Vec<(u32, f32)> = Vec::new();
                for same in terms.chunk_by(|a, b| a.0 == b.0) {
                    let c = same[0].0;
                    if Some(c) != own {
                        let sum = same.iter().fold(0.0f64, |sum, &(_, x)| sum + x);
                        row.push((c, sum as f32));
                    }
                }
                row
            })
            .collect();
        Contexts {
            lemmas: self.senses.iter().map(|(l, _)| l.clone()).collect(),
            rows,
            columns: names,
        }
    }
}

/// A word in more than this share of all definitions is the dictionary's defining vocabulary
/// (`used`, `having`, `especially`, `made`, `consisting`, `person`: 1 in 100 or more): it says
/// what kind of definition it is, not what the thing is, so [`Definitions::of`] leaves it out.
pub const DEFINING_SHARE: f64 = 0.01;

/// A gloss without its quoted examples: the definition proper.
fn definition_part(gloss: &str) -> &str {
    gloss.split('"').next().unwrap_or_default()
}

/// What the dictionary defines words by ([`Lexicon::definitions`]).
pub struct Definitions<'a> {
    lexicon: &'a Lexicon,
    /// The defining vocabulary ([`DEFINING_SHARE`]).
    defining: std::collections::HashSet<String, foldhash::fast::RandomState>,
}

impl Definitions<'_> {
    /// What the dictionary defines `word` by, first-hand: for each of its senses, the words of
    /// its definition (the gloss without its quoted examples), its other lemmas and the lemmas
    /// of the senses it links to but its kinds (hypernyms, parts, wholes, derived words,
    /// opposites; not its hyponyms, a dog's hundred breeds), a phrase by its words, stopwords
    /// and the defining vocabulary dropped, folded as in [`Lexicon::gloss_words`]; each word
    /// weighted by the share of the word's senses that use it, a sense weighing its SemCor
    /// count + ½. `snowman` ("a figure of a person made of packed snow") → figure, packed, snow
    /// at 1; `crane` → bird, wading, marsh at the bird's share, lift, heavy, weights at the
    /// machine's. Named instances count as in
    /// [`Lexicon::contexts`]; the word itself is left out. Ascending by word; empty for a word
    /// WordNet lacks (looked up by [`Lexicon::headword`]).
    pub fn of(&self, word: &str) -> Vec<(String, f64)> {
        let lex = self.lexicon;
        let Some(lemma) = lex.headword(word) else {
            return Vec::new();
        };
        let kept: Vec<&Sense> = lex.counted(lex.senses(lemma)).collect();
        let total: f64 = kept.iter().map(|s| s.count as f64 + COUNT_PRIOR).sum();
        let mut out: HashMap<String, f64> = HashMap::default();
        for sense in kept {
            let s = &lex.synsets[sense.synset as usize];
            let mut bag: Vec<String> = lex.gloss_words(definition_part(&s.gloss));
            // The senses it links to, but its kinds (hyponyms: a dog's hundred breeds): its
            // hypernyms, parts and wholes, the words derived from it, its opposites.
            let linked = s
                .links
                .iter()
                .map(|&t| &lex.synsets[t as usize])
                .filter(|t| !t.hypernyms.contains(&sense.synset));
            for l in s.lemmas.iter().chain(linked.flat_map(|t| &t.lemmas)) {
                bag.extend(
                    l.split('_')
                        .filter(|w| w.len() > 1 && !text::is_stopword(w))
                        .map(|w| lex.fold(w).to_string()),
                );
            }
            bag.sort_unstable();
            bag.dedup();
            let share = (sense.count as f64 + COUNT_PRIOR) / total;
            for w in bag.into_iter().filter(|w| !self.defining.contains(w)) {
                *out.entry(w).or_default() += share;
            }
        }
        out.remove(lemma);
        out.remove(word);
        let mut out: Vec<(String, f64)> = out.into_iter().collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}
