//! Counting: how often each token occurs, and how often two vocabulary words occur within a
//! window of content words of the same sentence. Accumulators work on texts independently and
//! merge, so a caller can run one per thread.

use std::collections::HashMap;

use crate::tokens::{PairSet, Sentences};
use crate::vocab::{NONE, Vocab};

/// Every token's count (pass one: what the vocabulary is built from).
#[derive(Debug, Default)]
pub struct TypeCounter {
    counts: HashMap<String, u64>,
    pub tokens: u64,
    /// Texts added.
    pub pages: u64,
}

impl TypeCounter {
    pub fn add(&mut self, text: &str, pairs: &PairSet) {
        self.pages += 1;
        Sentences::new(pairs).each(text, |s| {
            self.tokens += s.len() as u64;
            for w in s {
                if let Some(n) = self.counts.get_mut(w.as_str()) {
                    *n += 1;
                } else {
                    self.counts.insert(w.clone(), 1);
                }
            }
        });
    }

    pub fn merge(&mut self, other: TypeCounter) {
        self.tokens += other.tokens;
        self.pages += other.pages;
        for (w, n) in other.counts {
            *self.counts.entry(w).or_default() += n;
        }
    }

    /// Every token's occurrences.
    pub fn counts(&self) -> &HashMap<String, u64> {
        &self.counts
    }
}

/// Window co-occurrence counts of vocabulary words, a dense `n × n` matrix kept as its upper
/// triangle while counting (each unordered pair once) and made symmetric by [`Cooc::finish`].
#[derive(Debug, Clone)]
pub struct Cooc {
    pub n: usize,
    /// Row-major `n × n`.
    pub m: Vec<u32>,
    /// Sentences seen (figures for `meta`).
    pub sentences: u64,
    /// Per word: the pages (texts) it occurs on, in any of its forms.
    pub pages: Vec<u64>,
    /// Per word: the last text of this accumulator it was seen in (to count each text once).
    seen: Vec<u64>,
    texts: u64,
}

impl Cooc {
    pub fn new(n: usize) -> Cooc {
        Cooc {
            n,
            m: vec![0; n * n],
            sentences: 0,
            pages: vec![0; n],
            seen: vec![0; n],
            texts: 0,
        }
    }

    /// Counts the pairs of one text: every two vocabulary words at most `window` content words
    /// apart in one sentence, each pair once per meeting; a word does not co-occur with itself.
    pub fn add(&mut self, text: &str, vocab: &Vocab, pairs: &PairSet, window: usize) {
        let mut ids: Vec<u32> = Vec::new();
        let n = self.n;
        let m = &mut self.m;
        let mut sentences = 0;
        self.texts += 1;
        let (text_no, pages, seen) = (self.texts, &mut self.pages, &mut self.seen);
        Sentences::new(pairs).each(text, |s| {
            sentences += 1;
            ids.clear();
            ids.extend(s.iter().map(|w| vocab.id(w)));
            for &a in ids.iter().filter(|&&a| a != NONE) {
                if seen[a as usize] != text_no {
                    seen[a as usize] = text_no;
                    pages[a as usize] += 1;
                }
            }
            for (i, &a) in ids.iter().enumerate() {
                if a == NONE {
                    continue;
                }
                for &b in &ids[i + 1..ids.len().min(i + 1 + window)] {
                    if b == NONE || b == a {
                        continue;
                    }
                    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                    m[lo as usize * n + hi as usize] += 1;
                }
            }
        });
        self.sentences += sentences;
    }

    pub fn merge(&mut self, other: &Cooc) {
        for (a, b) in self.m.iter_mut().zip(&other.m) {
            *a += b;
        }
        for (a, b) in self.pages.iter_mut().zip(&other.pages) {
            *a += b;
        }
        self.sentences += other.sentences;
    }

    /// Mirrors the upper triangle: `m[a][b] = m[b][a]` = meetings of `a` and `b`.
    pub fn finish(&mut self) {
        let n = self.n;
        for a in 0..n {
            for b in a + 1..n {
                self.m[b * n + a] = self.m[a * n + b];
            }
        }
    }

    pub fn get(&self, a: u32, b: u32) -> u32 {
        self.m[a as usize * self.n + b as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_pairs_within_a_sentence() {
        let pairs = PairSet::new(["ice cream"]);
        let mut types = TypeCounter::default();
        let text = "apple pie apple. pie ice cream xyz apple";
        types.add(text, &pairs);
        types.add("apples", &pairs);
        let counts = types.counts();
        assert_eq!((counts["apple"], counts["apples"]), (3, 1));
        assert_eq!(counts["ice cream"], 1);
        assert_eq!((types.tokens, types.pages), (8, 2));
        let cards = vec!["apple".to_string(), "ice cream".to_string()];
        let vocab = Vocab::build(counts, &cards, 1, text::Inflector::shared());
        let mut c = Cooc::new(vocab.len());
        c.add(text, &vocab, &pairs, 2);
        c.add("apples", &vocab, &pairs, 2);
        c.finish();
        // Pages per word, its forms together: apple and apples are one word on 2 pages.
        assert_eq!(c.pages[vocab.id("apple") as usize], 2);
        assert_eq!(c.pages[vocab.id("pie") as usize], 1);
        let (a, p, i) = (vocab.id("apple"), vocab.id("pie"), vocab.id("ice cream"));
        // Sentence 1: apple-pie, apple-apple (self, not counted), pie-apple → apple·pie = 2.
        // Sentence 2: pie-ice cream, ice cream-apple (2 apart: counted), pie-apple (3 apart: not).
        assert_eq!(c.get(a, p), 2);
        assert_eq!(c.get(p, i), 1);
        assert_eq!(c.get(i, a), 1);
        assert_eq!(c.get(a, i), 1);
        assert_eq!(c.get(a, a), 0);
        assert_eq!(c.sentences, 3);
    }
}

/// For chosen `(card, clue)` pairs: the page where they meet most often, with a sentence of it
/// where they meet (pass three: evidence to show).
#[derive(Debug, Clone, Default)]
pub struct Meetings {
    /// Per pair (the index given in `wanted`): page id, meetings there, a sentence.
    pub best: Vec<Option<(u64, u32, String)>>,
}

impl Meetings {
    pub fn new(pairs: usize) -> Meetings {
        Meetings {
            best: vec![None; pairs],
        }
    }

    /// Looks for the `wanted` pairs (unordered vocabulary ids → pair index) in one page;
    /// `flagged` marks the ids that are part of some wanted pair (cheaper than a lookup).
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        page_id: u64,
        text: &str,
        vocab: &Vocab,
        pairs: &PairSet,
        window: usize,
        wanted: &HashMap<(u32, u32), usize>,
        flagged: &[bool],
    ) {
        let mut here: HashMap<usize, (u32, String)> = HashMap::new();
        let mut ids: Vec<u32> = Vec::new();
        Sentences::new(pairs).each_with_text(text, |s, sentence| {
            ids.clear();
            ids.extend(s.iter().map(|w| vocab.id(w)));
            for (i, &a) in ids.iter().enumerate() {
                if a == NONE {
                    continue;
                }
                for &b in &ids[i + 1..ids.len().min(i + 1 + window)] {
                    if b == NONE || !(flagged[a as usize] || flagged[b as usize]) {
                        continue;
                    }
                    let key = if a < b { (a, b) } else { (b, a) };
                    if let Some(&p) = wanted.get(&key) {
                        let e = here
                            .entry(p)
                            .or_insert_with(|| (0, sentence.trim().to_string()));
                        e.0 += 1;
                    }
                }
            }
        });
        for (p, (n, sentence)) in here {
            self.offer(p, page_id, n, sentence);
        }
    }

    fn offer(&mut self, p: usize, page_id: u64, n: u32, sentence: String) {
        let better = match &self.best[p] {
            None => true,
            Some((id, m, _)) => n > *m || (n == *m && page_id < *id),
        };
        if better {
            self.best[p] = Some((page_id, n, sentence));
        }
    }

    pub fn merge(&mut self, other: Meetings) {
        for (p, b) in other.best.into_iter().enumerate() {
            if let Some((id, n, s)) = b {
                self.offer(p, id, n, s);
            }
        }
    }
}
