//! Counting: how often each token occurs, and how often two vocabulary words occur within a
//! window of content words of the same sentence. Accumulators work on texts independently and
//! merge, so a caller can run one per thread.

use std::collections::HashMap;

use crate::WordMap;
use crate::tokens::{PairSet, Sentences};
use crate::vocab::{NONE, Vocab};

/// Every token's count (pass one: what the vocabulary is built from).
#[derive(Debug, Default)]
pub struct TypeCounter {
    counts: WordMap<u64>,
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
    pub fn counts(&self) -> &WordMap<u64> {
        &self.counts
    }
}

/// Window co-occurrence of vocabulary words, a dense `n × n` matrix kept as its upper triangle
/// while counting (each unordered pair once) and made symmetric by [`Cooc::finish`]. Each
/// meeting adds its [`Weighting`]; the plain number of meetings (not weighted by distance) is
/// kept apart for the card words' rows, as evidence to show. A text counted `copies` times
/// ([`Cooc::add`]) adds both that many times.
#[derive(Debug, Clone)]
pub struct Cooc {
    pub n: usize,
    /// Row-major `n × n`: the weighted meetings of two words.
    pub m: Vec<u32>,
    /// Sentences seen (figures for `meta`).
    pub sentences: u64,
    /// Per word: the pages (texts) it occurs on, in any of its forms.
    pub pages: Vec<u64>,
    /// Per word: its row in `meetings` if it is a card word, else [`NONE`].
    card_row: Vec<u32>,
    /// Per card word (row) and vocabulary word (column): how often they meet, not weighted by
    /// distance.
    meetings: Vec<u32>,
    /// Per word: the last text of this accumulator it was seen in (to count each text once).
    seen: Vec<u64>,
    texts: u64,
}

/// What one meeting of two words adds to their count, by how far apart they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    /// Every meeting in the window counts 1.
    Flat,
    /// A meeting `d` content words apart counts `window + 1 − d` (`window` for neighbours, 1 at
    /// the window's edge): nearer words are more often about each other. This is word2vec's
    /// dynamic window in expectation, scaled by `window`, a factor PPMI does not see.
    Linear,
}

impl Weighting {
    /// The name recorded in `meta` (`relatedness.weighting`), part of the database's interface.
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Flat => "flat",
            Weighting::Linear => "linear",
        }
    }

    /// The weight of a meeting `d` (1..=`window`) content words apart.
    pub fn weight(self, d: usize, window: usize) -> u32 {
        match self {
            Weighting::Flat => 1,
            Weighting::Linear => u32::try_from(window + 1 - d).unwrap_or(u32::MAX),
        }
    }
}

impl Cooc {
    /// An accumulator for `n` words, none of them a card word.
    pub fn new(n: usize) -> Cooc {
        Cooc::with_cards(n, &[])
    }

    /// An accumulator for the vocabulary's words, its card words' plain meetings kept.
    pub fn for_vocab(vocab: &Vocab) -> Cooc {
        let ids: Vec<u32> = vocab.cards.iter().map(|&(_, id)| id).collect();
        Cooc::with_cards(vocab.len(), &ids)
    }

    fn with_cards(n: usize, cards: &[u32]) -> Cooc {
        let mut card_row = vec![NONE; n];
        for (row, &id) in cards.iter().enumerate() {
            card_row[id as usize] = row as u32;
        }
        Cooc {
            n,
            m: vec![0; n * n],
            sentences: 0,
            pages: vec![0; n],
            card_row,
            meetings: vec![0; cards.len() * n],
            seen: vec![0; n],
            texts: 0,
        }
    }

    /// Counts the pairs of one text: every two vocabulary words at most `window` content words
    /// apart in one sentence, each meeting weighted by `weighting`; a word does not co-occur
    /// with itself. When `stream` is given, the text's sentences are appended to it as the
    /// skip-gram reads them ([`crate::sgns::push_ids`]), so the text is read once for both.
    ///
    /// `copies` is how many times the text counts: its weighted counts (what PPMI and the SVD
    /// learn from) and the card words' plain meetings (the score's first-hand evidence) are
    /// multiplied by it, and its sentences are appended to `stream` that many times, as if the
    /// text were written `copies` times. The pages a word is on and the sentences stay counts
    /// of the text as written.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        text: &str,
        vocab: &Vocab,
        pairs: &PairSet,
        window: usize,
        weighting: Weighting,
        copies: u32,
        mut stream: Option<&mut Vec<u32>>,
    ) {
        debug_assert!(copies >= 1, "a text counted {copies} times");
        let start = stream.as_deref().map_or(0, Vec::len);
        let mut ids: Vec<u32> = Vec::new();
        let n = self.n;
        let (m, card_row, meetings) = (&mut self.m, &self.card_row, &mut self.meetings);
        let mut sentences = 0;
        self.texts += 1;
        let (text_no, pages, seen) = (self.texts, &mut self.pages, &mut self.seen);
        Sentences::new(pairs).each(text, |s| {
            sentences += 1;
            ids.clear();
            ids.extend(s.iter().map(|w| vocab.id(w)));
            if let Some(out) = stream.as_deref_mut() {
                crate::sgns::push_ids(&ids, out);
            }
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
                let near = &ids[i + 1..ids.len().min(i + 1 + window)];
                for (d, &b) in (1..).zip(near) {
                    if b == NONE || b == a {
                        continue;
                    }
                    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                    // Saturating: a count past u32 (a wide --window, a text counted 8 times)
                    // stays the largest, never wraps to a small one.
                    let cell = &mut m[lo as usize * n + hi as usize];
                    *cell = cell.saturating_add(weighting.weight(d, window).saturating_mul(copies));
                    for (card, other) in [(a, b), (b, a)] {
                        let row = card_row[card as usize];
                        if row != NONE {
                            let cell = &mut meetings[row as usize * n + other as usize];
                            *cell = cell.saturating_add(copies);
                        }
                    }
                }
            }
        });
        self.sentences += sentences;
        if let Some(out) = stream {
            let end = out.len();
            for _ in 1..copies {
                out.extend_from_within(start..end);
            }
        }
    }

    pub fn merge(&mut self, other: &Cooc) {
        for (a, b) in self.m.iter_mut().zip(&other.m) {
            *a = a.saturating_add(*b);
        }
        for (a, b) in self.pages.iter_mut().zip(&other.pages) {
            *a += b;
        }
        for (a, b) in self.meetings.iter_mut().zip(&other.meetings) {
            *a = a.saturating_add(*b);
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

    /// The weighted meetings of `a` and `b` (after [`Cooc::finish`]).
    pub fn get(&self, a: u32, b: u32) -> u32 {
        self.m[a as usize * self.n + b as usize]
    }

    /// How often card word `card` meets `b`, not weighted by distance; `None` when `card` is no
    /// card word of this accumulator.
    pub fn meetings(&self, card: u32, b: u32) -> Option<u32> {
        let row = *self.card_row.get(card as usize)?;
        (row != NONE).then(|| self.meetings[row as usize * self.n + b as usize])
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
        let mut c = Cooc::for_vocab(&vocab);
        c.add(text, &vocab, &pairs, 2, Weighting::Flat, 1, None);
        c.add("apples", &vocab, &pairs, 2, Weighting::Flat, 1, None);
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
        // The card words' plain meetings, either way round; pie is no card word.
        assert_eq!(
            (c.meetings(a, p), c.meetings(i, a), c.meetings(a, i)),
            (Some(2), Some(1), Some(1))
        );
        assert_eq!(c.meetings(p, a), None);

        // Linear weights with a window of 2: neighbours count 2, two apart count 1.
        let mut w = Cooc::for_vocab(&vocab);
        w.add(text, &vocab, &pairs, 2, Weighting::Linear, 1, None);
        w.finish();
        // apple·pie: two neighbouring meetings, 2 + 2; pie·ice cream neighbours: 2;
        // ice cream·apple two apart: 1. The plain meetings are the same as above.
        assert_eq!((w.get(a, p), w.get(p, i), w.get(i, a)), (4, 2, 1));
        assert_eq!((w.meetings(a, p), w.meetings(a, i)), (Some(2), Some(1)));

        // Counting while keeping the skip-gram's stream: the same counts, and the sentences as
        // vocabulary ids in order, each ended by SEP ("xyz" was seen once: a word of the
        // vocabulary at a floor of 1).
        let mut k = Cooc::for_vocab(&vocab);
        let mut stream = Vec::new();
        k.add(
            text,
            &vocab,
            &pairs,
            2,
            Weighting::Linear,
            1,
            Some(&mut stream),
        );
        k.finish();
        assert_eq!(k.m, w.m);
        let (x, sep) = (vocab.id("xyz"), crate::sgns::SEP);
        assert_eq!(stream, [a, p, a, sep, p, i, x, a, sep]);

        // A text that counts three times: three times the weighted counts and the meetings,
        // the sentences three times over after what the stream held; its pages and sentences
        // as written.
        let mut t = Cooc::for_vocab(&vocab);
        let mut stream = vec![x, sep];
        t.add(
            text,
            &vocab,
            &pairs,
            2,
            Weighting::Linear,
            3,
            Some(&mut stream),
        );
        t.finish();
        assert_eq!((t.get(a, p), t.get(p, i), t.get(i, a)), (12, 6, 3));
        assert_eq!((t.meetings(a, p), t.meetings(a, i)), (Some(6), Some(3)));
        assert_eq!((t.pages[a as usize], t.sentences), (1, 2));
        let once = [a, p, a, sep, p, i, x, a, sep];
        let thrice: Vec<u32> = [x, sep].into_iter().chain(once.repeat(3)).collect();
        assert_eq!(stream, thrice);
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
