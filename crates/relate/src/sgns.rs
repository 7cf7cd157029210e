//! A second view of relatedness: skip-gram with negative sampling (word2vec; Mikolov et al.
//! 2013) over the same content-word sentences as the co-occurrence counts.
//!
//! Why a second view: a clue is safe when its margins hold however relatedness is read, and a
//! view that errs elsewhere than the SVD of PPMI makes the margins of the joined cosine hold
//! only where both agree. Skip-gram learns from each meeting in turn, weighting pairs by how
//! often they occur, where the SVD weighs every PPMI cell alike; so its errors on rare pairs
//! are not the SVD's. Joined with equal weight, the clues win more and lose less to the
//! assassin with both outside guessers (docs/evaluation.md, "Judged by people").
//!
//! Training is one thread, in the stream's order, from the seed: the same vectors on every
//! machine (asynchronous updates from several threads, as word2vec does, are not repeatable).

use crate::linalg::Mat;
use crate::vocab::NONE;
use seeded::SplitMix64;

/// Ends a sentence in the stream.
pub const SEP: u32 = u32::MAX;

/// Size of the table negative samples are drawn from.
const TABLE: usize = 1 << 23;

/// Appends one sentence of vocabulary ids to the skip-gram's stream `out`, ended by [`SEP`]:
/// words outside the vocabulary ([`NONE`]) are left out (word2vec's floor), an empty sentence
/// adds nothing. [`crate::Cooc::add`] calls it as it counts.
pub fn push_ids(ids: &[u32], out: &mut Vec<u32>) {
    let before = out.len();
    out.extend(ids.iter().copied().filter(|&a| a != NONE));
    if out.len() > before {
        out.push(SEP);
    }
}

/// The skip-gram's settings, recorded in `meta` by the stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkipGram {
    pub dims: usize,
    /// The largest window; each word draws its own, 1 to `window` (word2vec's dynamic window).
    pub window: usize,
    /// Negative samples per meeting, drawn by count^0.75.
    pub negative: usize,
    /// Subsampling threshold: a word of frequency `f` is kept with probability
    /// `(√(f/t) + 1)·t/f` (at most 1).
    pub sample: f64,
    pub epochs: usize,
    /// The learning rate at the start; it falls linearly to nearly 0 at the end.
    pub lr: f32,
    pub seed: u64,
}

impl Default for SkipGram {
    /// Small and quick (one pass, 75 s over the 51 M content words offline on 2026-11-29): 50
    /// dimensions, a window of 5, 3 negatives, subsampling at 10⁻⁴.
    fn default() -> Self {
        SkipGram {
            dims: 50,
            window: 5,
            negative: 3,
            sample: 1e-4,
            epochs: 1,
            lr: 0.025,
            seed: 0x5eed,
        }
    }
}

/// word2vec's probability of keeping one occurrence of a word seen `count` times of `total`.
pub fn keep_probability(count: u64, total: u64, sample: f64) -> f32 {
    if sample <= 0.0 || count == 0 {
        return 1.0;
    }
    let f = count as f64 / total as f64;
    (((f / sample).sqrt() + 1.0) * sample / f).min(1.0) as f32
}

/// A seeded synthetic stream of about `words` words shaped as the text's: ids below
/// `vocabulary` drawn by Zipf's law (rank `r` with probability ∝ 1/r), in sentences of 4 to 20
/// ended by [`SEP`]. For the `skip_gram` example's timing and the tests' fixed vectors.
pub fn zipf_stream(words: usize, vocabulary: usize, seed: u64) -> Vec<u32> {
    let vocabulary = vocabulary.max(1);
    let mut cumulative: Vec<f64> = Vec::with_capacity(vocabulary);
    let mut total = 0.0;
    for r in 1..=vocabulary {
        total += 1.0 / r as f64;
        cumulative.push(total);
    }
    let mut rng = SplitMix64::new(seed);
    let mut stream: Vec<u32> = Vec::with_capacity(words + words / 8);
    let mut drawn = 0;
    while drawn < words {
        for _ in 0..4 + rng.below(17) {
            let u = rng.unit() * total;
            stream.push(cumulative.partition_point(|&c| c < u).min(vocabulary - 1) as u32);
            drawn += 1;
        }
        stream.push(SEP);
    }
    stream
}

/// FNV-1a over the bits of `m`'s entries: two trainings' vectors compared in one number.
pub fn fingerprint(m: &Mat) -> u64 {
    m.data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x.to_bits() as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Where the negative samples come from: word2vec's unigram table of `size` slots, each word
/// filling a share proportional to `count^0.75`, a uniform slot drawn per sample. The table is
/// kept as its runs (one per word, in id order), not as the slots: at 2²³ slots it is 32 MB,
/// and every draw read a slot outside the caches, two fifths of the skip-gram's time; the
/// runs' ends and a coarse index into them (16,000 words: a few hundred KB) stay in the
/// second-level cache. [`NegativeTable::word`] gives each slot the word the table held there.
#[derive(Debug, Clone)]
pub struct NegativeTable {
    size: usize,
    /// Each run's end (exclusive), rising; the last is `size`.
    ends: Vec<u32>,
    /// Each run's word.
    words: Vec<u32>,
    /// For each block of `2^shift` slots, the first run that ends past the block's start.
    first: Vec<u32>,
    shift: u32,
}

impl NegativeTable {
    /// The table of `size` slots (below 2³²) for words seen `counts` times (empty when no word
    /// was seen).
    pub fn new(counts: &[u64], size: usize) -> NegativeTable {
        assert!(size <= u32::MAX as usize, "{size} slots: at most 2³² − 1");
        let weights: Vec<f64> = counts.iter().map(|&c| (c as f64).powf(0.75)).collect();
        let sum: f64 = weights.iter().sum();
        let (mut ends, mut words) = (Vec::new(), Vec::new());
        if sum > 0.0 {
            // A word's slots end where the running share, rounded, ends; a word whose share
            // rounds to no slot has none.
            let (mut upto, mut filled) = (0.0, 0usize);
            for (id, w) in weights.iter().enumerate() {
                upto += w / sum;
                let end = ((upto * size as f64).round() as usize).min(size);
                if end > filled {
                    ends.push(end as u32);
                    words.push(id as u32);
                    filled = end;
                }
            }
            // Slots the rounding left at the end go to the last word that has any (or word 0).
            match ends.last_mut() {
                Some(last) => *last = size as u32,
                None if size > 0 => {
                    ends.push(size as u32);
                    words.push(0);
                }
                None => {}
            }
        }
        // At most 2¹⁶ blocks (2¹⁵ or more for a table that large): most fall inside one
        // frequent word's run.
        let shift = (usize::BITS - size.leading_zeros()).saturating_sub(16);
        let mut first = Vec::with_capacity((size >> shift) + 1);
        let mut run = 0usize;
        for block in 0..=(size >> shift) {
            let start = block << shift;
            while run + 1 < ends.len() && ends[run] as usize <= start {
                run += 1;
            }
            first.push(run as u32);
        }
        NegativeTable {
            size,
            ends,
            words,
            first,
            shift,
        }
    }

    /// How many slots a draw is taken from (as made: an empty table has no word to give,
    /// and [`NegativeTable::word`] is not to be asked).
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether no word has a slot (no word was seen).
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The word at `slot` (below [`NegativeTable::size`]).
    pub fn word(&self, slot: usize) -> u32 {
        let mut run = self.first[slot >> self.shift] as usize;
        while self.ends[run] as usize <= slot {
            run += 1;
        }
        self.words[run]
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight running sums, so that the compiler can use vector registers.
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Asks the processor to bring `row` into the cache ahead of its use (a hint: nothing else).
#[inline(always)]
fn prefetch(row: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    for line in row.chunks(16) {
        // SAFETY: SSE is part of every x86-64 processor, and a prefetch reads nothing the
        // program sees and never faults; the address is a live slice's besides.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                line.as_ptr().cast(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = row;
}

fn axpy(y: &mut [f32], a: f32, x: &[f32]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y += a * x;
    }
}

/// One logistic step for a word's input vector `w` against an output vector `c`: `label` 1 for
/// a meeting, 0 for a negative sample. `c` moves at once; `w`'s change is added to `grad`
/// (applied after all of the meeting's samples, as word2vec does).
pub fn step(w: &[f32], c: &mut [f32], grad: &mut [f32], label: f32, lr: f32) {
    let x = dot(w, c);
    let sigma = if x > 6.0 {
        1.0
    } else if x < -6.0 {
        0.0
    } else {
        1.0 / (1.0 + (-x).exp())
    };
    let g = (label - sigma) * lr;
    axpy(grad, g, c);
    axpy(c, g, w);
}

/// Unit-length word vectors (`n` rows) trained on `stream` (ids below `n`, sentences ended by
/// [`SEP`]). A word that never occurs keeps a zero row. `progress` hears of the stream's
/// entries done, about every 2¹⁶, over all epochs.
pub fn train(stream: &[u32], n: usize, p: &SkipGram, mut progress: impl FnMut(u64)) -> Mat {
    let d = p.dims;
    let mut counts = vec![0u64; n];
    for &t in stream.iter().filter(|&&t| t != SEP) {
        counts[t as usize] += 1;
    }
    let total: u64 = counts.iter().sum();
    let table = NegativeTable::new(&counts, TABLE);
    let keep: Vec<f32> = counts
        .iter()
        .map(|&c| keep_probability(c, total, p.sample))
        .collect();
    let mut rng = SplitMix64::new(p.seed);
    let mut w = Mat::zeros(n, d);
    for x in w.data.iter_mut() {
        *x = (rng.unit() as f32 - 0.5) / d as f32;
    }
    let mut c = Mat::zeros(n, d);
    let mut grad = vec![0f32; d];
    let mut sentence: Vec<u32> = Vec::new();
    let mut negatives: Vec<u32> = Vec::with_capacity(p.negative);
    let work = (stream.len() * p.epochs).max(1) as f32;
    let (mut done, mut reported) = (0usize, 0usize);
    for _ in 0..p.epochs {
        for s in stream.split(|&t| t == SEP) {
            done += s.len() + 1;
            if done - reported >= 1 << 16 {
                progress((done - reported) as u64);
                reported = done;
            }
            let lr = p.lr * (1.0 - done as f32 / work).max(1e-4);
            sentence.clear();
            sentence.extend(
                s.iter()
                    .copied()
                    .filter(|&t| keep[t as usize] >= 1.0 || (rng.unit() as f32) < keep[t as usize]),
            );
            for (i, &word) in sentence.iter().enumerate() {
                let span = 1 + rng.below(p.window.max(1));
                let near = i.saturating_sub(span)..(i + span + 1).min(sentence.len());
                for j in near.filter(|&j| j != i) {
                    // word2vec's skip-gram: the neighbour's input vector learns to predict the
                    // word (its output vector) against negative samples.
                    let ctx = sentence[j] as usize;
                    // The negative samples drawn first (the draws in the same order), so that
                    // their rows, scattered over the output matrix, are on their way into the
                    // cache while the meeting's step runs.
                    negatives.clear();
                    for _ in 0..p.negative {
                        let neg = table.word(rng.below(table.size()));
                        prefetch(&c.data[neg as usize * d..(neg as usize + 1) * d]);
                        negatives.push(neg);
                    }
                    let wrow = &mut w.data[ctx * d..(ctx + 1) * d];
                    grad.fill(0.0);
                    let crow = &mut c.data[word as usize * d..(word as usize + 1) * d];
                    step(wrow, crow, &mut grad, 1.0, lr);
                    for &neg in &negatives {
                        if neg != word {
                            let crow = &mut c.data[neg as usize * d..(neg as usize + 1) * d];
                            step(wrow, crow, &mut grad, 0.0, lr);
                        }
                    }
                    axpy(wrow, 1.0, &grad);
                }
            }
        }
    }
    progress((done - reported) as u64);
    // A word never seen keeps no trace of its random start.
    for (row, _) in w
        .data
        .chunks_mut(d.max(1))
        .zip(&counts)
        .filter(|(_, c)| **c == 0)
    {
        row.fill(0.0);
    }
    w.normalize_rows();
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_join_the_stream_without_unknown_words() {
        let mut out = vec![7];
        push_ids(&[3, NONE, 4], &mut out);
        push_ids(&[NONE, NONE], &mut out);
        push_ids(&[5], &mut out);
        assert_eq!(out, [7, 3, 4, SEP, 5, SEP]);
    }

    #[test]
    fn a_step_matches_the_hand_computation() {
        // w·c = 0, so σ = ½; a meeting (label 1) at rate 0.1: g = (1 − ½)·0.1 = 0.05.
        let w = [1.0, 0.0];
        let mut c = [0.0, 1.0];
        let mut grad = [0.0, 0.0];
        step(&w, &mut c, &mut grad, 1.0, 0.1);
        // grad += g·c (the old c) = [0, 0.05]; c += g·w = [0.05, 1].
        assert_eq!(grad, [0.0, 0.05]);
        assert_eq!(c, [0.05, 1.0]);
        // A negative sample where w·c = 0.05: σ(0.05) = 0.512497…, g = −0.0512497…
        let mut grad = [0.0, 0.0];
        step(&w, &mut c, &mut grad, 0.0, 0.1);
        let g = -0.1 / (1.0 + (-0.05f32).exp());
        assert!((grad[0] - g * 0.05).abs() < 1e-7 && (grad[1] - g).abs() < 1e-7);
        assert!((c[0] - (0.05 + g)).abs() < 1e-7 && c[1] == 1.0);
    }

    #[test]
    fn subsampling_keeps_rare_words_and_thins_frequent_ones() {
        // f = 0.01, t = 10⁻⁴: (√100 + 1)·10⁻⁴/10⁻² = 0.11.
        assert!((keep_probability(100, 10_000, 1e-4) - 0.11).abs() < 1e-6);
        // f = 10⁻⁴ = t: (1 + 1)·1 = 2, capped at 1.
        assert_eq!(keep_probability(1, 10_000, 1e-4), 1.0);
        assert_eq!(keep_probability(100, 10_000, 0.0), 1.0);
    }

    /// word2vec's table as the skip-gram first kept it, slot by slot: what
    /// [`NegativeTable::word`] must give, slot for slot.
    fn unigram_slots(counts: &[u64], size: usize) -> Vec<u32> {
        let weights: Vec<f64> = counts.iter().map(|&c| (c as f64).powf(0.75)).collect();
        let sum: f64 = weights.iter().sum();
        let mut table = Vec::with_capacity(size);
        if sum == 0.0 {
            return table;
        }
        let mut upto = 0.0;
        for (id, w) in weights.iter().enumerate() {
            upto += w / sum;
            let end = ((upto * size as f64).round() as usize).min(size);
            table.resize(end.max(table.len()), id as u32);
        }
        let last = table.last().copied().unwrap_or(0);
        table.resize(size, last);
        table
    }

    fn slots(t: &NegativeTable) -> Vec<u32> {
        (0..t.size()).map(|s| t.word(s)).collect()
    }

    #[test]
    fn negatives_are_drawn_by_count_to_the_three_quarters() {
        // 16^0.75 = 8 and 1^0.75 = 1: shares 8/9 and 1/9 of 900 slots; a word never seen, none.
        let t = slots(&NegativeTable::new(&[16, 0, 1], 900));
        assert_eq!(t.len(), 900);
        assert_eq!(t.iter().filter(|&&x| x == 0).count(), 800);
        assert_eq!(t.iter().filter(|&&x| x == 1).count(), 0);
        assert_eq!(t.iter().filter(|&&x| x == 2).count(), 100);
        assert!(NegativeTable::new(&[0, 0], 900).is_empty());
    }

    #[test]
    fn the_runs_give_every_slot_the_word_the_table_held() {
        // Counts shaped as the text's (Zipf's law over a vocabulary of the stage's size, words
        // never seen among them), at the skip-gram's 2²³ slots, and small tables whose blocks
        // are single slots or hold many short runs.
        let mut r = SplitMix64::new(3);
        let zipf: Vec<u64> = (1..=16_350u64)
            .map(|rank| {
                if r.below(50) == 0 {
                    0
                } else {
                    40_000_000 / rank
                }
            })
            .collect();
        let t = NegativeTable::new(&zipf, TABLE);
        assert_eq!(slots(&t), unigram_slots(&zipf, TABLE));
        for (counts, size) in [
            (&zipf[..], 1000),
            (&zipf[..], 1 << 16),
            (&[5, 0, 7, 1][..], 3),
            (&[0, 0, 9][..], 70_001),
            (&[1][..], 1),
        ] {
            let t = NegativeTable::new(counts, size);
            assert_eq!(slots(&t), unigram_slots(counts, size), "{size} slots");
        }
    }

    #[test]
    fn a_quicker_training_keeps_the_vectors_bit_for_bit() {
        // The fingerprint of the vectors the skip-gram trained on this stream before its
        // negative samples were read from runs and prefetched (commit f413557, the example
        // `skip_gram 200000 2000`): a change of speed must not change one bit of them.
        let stream = zipf_stream(200_000, 2_000, 7);
        assert_eq!(stream.iter().filter(|&&t| t != SEP).count(), 200_005);
        let v = train(&stream, 2_000, &SkipGram::default(), |_| {});
        assert_eq!(fingerprint(&v), 0x3537_8189_7e77_0e25);
    }

    /// Words 0–2 are animals that share their company (3–5: eat, run, sleep), words 6–8 are
    /// vehicles that share theirs (9–11: drive, park, fuel).
    fn two_topics(seed: u64) -> Vec<u32> {
        let mut r = SplitMix64::new(seed);
        let mut s = Vec::new();
        for _ in 0..4000 {
            let topic = 6 * r.below(2) as u32;
            for _ in 0..4 {
                s.push(topic + r.below(3) as u32);
                s.push(topic + 3 + r.below(3) as u32);
            }
            s.push(SEP);
        }
        s
    }

    #[test]
    fn words_in_the_same_company_end_up_near_each_other() {
        let p = SkipGram {
            dims: 8,
            window: 2,
            sample: 0.0,
            epochs: 3,
            ..SkipGram::default()
        };
        let v = train(&two_topics(1), 13, &p, |_| {});
        let cos = |a: usize, b: usize| dot(&v.data[a * 8..a * 8 + 8], &v.data[b * 8..b * 8 + 8]);
        for (same, other) in [([0, 1, 2], [6, 7, 8]), ([6, 7, 8], [0, 1, 2])] {
            for a in same {
                for b in same.into_iter().filter(|&b| b != a) {
                    for o in other {
                        assert!(
                            cos(a, b) > cos(a, o),
                            "{a}·{b} {} ≤ {a}·{o} {}",
                            cos(a, b),
                            cos(a, o)
                        );
                    }
                }
            }
        }
        // Unit rows; word 12 never occurs and keeps a zero row.
        assert!((cos(0, 0) - 1.0).abs() < 1e-5);
        assert!(v.data[12 * 8..].iter().all(|&x| x == 0.0));
        // The same stream and seed give the same vectors, bit for bit.
        assert_eq!(train(&two_topics(1), 13, &p, |_| {}).data, v.data);
    }
}
