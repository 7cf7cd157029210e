//! How strongly a word relates to another, learned from running text: the distributional
//! measures of Levy, Goldberg & Dagan (2015) over window co-occurrence.
//!
//! - [`cooccur`]: sentences of content words ([`tokens`]), counted in a window;
//! - [`ppmi`]: positive pointwise mutual information (context-distribution smoothing optional) —
//!   *first-order* relatedness, the words meet more than chance says (`honey`–`bee`);
//! - [`svd`]: word vectors from the truncated SVD of the PPMI matrix, compared by cosine —
//!   *second-order*, the words keep the same company (`honey`–`sugar`);
//! - [`sgns`]: a second view, skip-gram (word2vec) vectors trained on the same sentences;
//! - [`dictionary`]: a third, vectors from what a dictionary says each word means (WordNet's
//!   glosses and links, read by the `wordnet` crate), [`join_all`]ed to the two;
//! - [`Relatedness`]: the two, each standardised over all (card, clue) pairs, mixed; then
//!   [`Relatedness::raise`]d where first-hand evidence says the words go together (a card's
//!   dictionary definition names the clue: `snowman` → snow).
//!
//! No SQL and no I/O: the pipeline's `relatedness` stage feeds texts and stores what comes out.

pub mod company;
pub mod cooccur;
pub mod dictionary;
pub mod linalg;
pub mod sgns;
pub mod svd;
pub mod tokens;
pub mod vocab;

use linalg::Mat;
use rayon::prelude::*;

pub use company::{Company, card_row};
pub use cooccur::{Cooc, TypeCounter, Weighting};
pub use tokens::PairSet;
pub use vocab::Vocab;

/// A map keyed by a word, for the maps the text's passes look up once a token: hashed by
/// foldhash (seeded per process), quicker than the standard SipHash on short keys (SipHash took
/// 3.5 % of a Wikispeedia build's CPU for these maps).
pub type WordMap<V> = std::collections::HashMap<String, V, foldhash::fast::RandomState>;

/// The measure's parameters, recorded in `meta` by the stage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Content words on each side that count as meeting (same sentence).
    pub window: usize,
    /// What a meeting counts, by distance: linear by default (see [`Weighting::Linear`]).
    pub weighting: Weighting,
    /// Occurrences a word needs to be a clue candidate: rarer words have noisy statistics, and
    /// players may not know them. Low, because an encyclopaedia seldom names everyday things:
    /// in the 39 M content words offline, `lantern`, `otter` and `syrup` occur 200–500 times,
    /// and they are the concrete clues a board needs (docs/evaluation.md, "Quality"). Set from the
    /// corpus's size by default ([`MinCount::DEFAULT`]).
    pub min_count: MinCount,
    /// The largest share of all pages a clue candidate may occur on (1: no limit, the default).
    /// Words past it stay in the vocabulary (they are contexts of the others), as no clue. A
    /// tenth was the default until people's clues were measured: they are often the category
    /// words an encyclopaedia uses everywhere (`animal`, `food`, `country`, `music`), and the
    /// strategy's margins already keep the general words (`made`, `several`) from boards, as
    /// they relate to every card alike (docs/evaluation.md, "Quality").
    pub max_page_share: f64,
    /// Context-distribution smoothing exponent: below 1, rare contexts get less inflated PMI
    /// ([`DEFAULT_ALPHA`]: 1, none).
    pub alpha: f64,
    /// Dimensions of the SVD word vectors, the text's and the dictionary's ([`DEFAULT_DIMS`]).
    pub dims: usize,
    /// Power iterations of the randomized SVD.
    pub power: usize,
    /// Exponent of the singular values in the word vectors (`U·Σ^p`).
    pub sigma_power: f32,
    /// Weight of first-order PPMI in the mix; the SVD cosine gets the rest.
    pub ppmi_weight: f32,
    /// Weight of `z(ln(1 + meetings))` added to the mix: how often card and clue meet in the
    /// text at all. Direct evidence that the words go together: clues whose targets meet
    /// them often are followed more by both outside guessers (docs/evaluation.md, "Quality").
    pub meeting_weight: f32,
    /// The meetings of a card word seen `c` times count `(m / c)^p` times over, `m` the median
    /// card word's occurrences: a card word that is everywhere (`water`, `line`) meets every
    /// clue often for that alone ([`ScoreMix::card_factor`]; 0: the plain meetings).
    /// [`DEFAULT_MEETING_CARD_POWER`] by default.
    pub meeting_card_power: f32,
    /// The skip-gram view's share of the text's two views (the SVD has the rest), in standard
    /// deviations of each view's cosines ([`spread_weights`]): the cosine is, up to a shift
    /// and a scale, `(1 − w)·z(cos_svd) + w·z(cos_skipgram)` (0: the SVD alone).
    /// [`DEFAULT_SKIP_GRAM_WEIGHT`] by default.
    pub skip_gram_weight: f32,
    /// The skip-gram's settings ([`sgns::SkipGram`]).
    pub skip_gram: sgns::SkipGram,
    /// The dictionary view's share ([`dictionary`]) beside the text's two, in standard
    /// deviations of each view's cosines like [`Params::skip_gram_weight`]: `(1 − w)·text +
    /// w·z(cos_dictionary)`, its cosine 0 for a word the dictionary lacks (0: the text alone).
    /// [`DEFAULT_DICTIONARY_WEIGHT`] by default. English only: the stage skips it for other
    /// languages.
    pub dictionary_weight: f32,
    /// How far, in standard deviations of the score, a card's score with a word its
    /// dictionary definition uses is raised, times the share of its senses that use it
    /// ([`Relatedness::raise`]; `snowman` → snow). [`DEFAULT_DEFINITION_WEIGHT`] by default;
    /// 0: not at all. English only, with the dictionary view.
    pub definition_weight: f32,
    pub seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            window: 10,
            weighting: Weighting::Linear,
            min_count: MinCount::DEFAULT,
            max_page_share: 1.0,
            alpha: DEFAULT_ALPHA,
            dims: DEFAULT_DIMS,
            power: 2,
            sigma_power: 0.5,
            ppmi_weight: 0.0,
            meeting_weight: DEFAULT_MEETING_WEIGHT,
            meeting_card_power: DEFAULT_MEETING_CARD_POWER,
            skip_gram_weight: DEFAULT_SKIP_GRAM_WEIGHT,
            skip_gram: sgns::SkipGram::default(),
            dictionary_weight: DEFAULT_DICTIONARY_WEIGHT,
            definition_weight: DEFAULT_DEFINITION_WEIGHT,
            seed: 0x5eed,
        }
    }
}

impl Params {
    /// Why these parameters cannot build a measure, naming the `pipeline` flag that set the
    /// value: a window or dimension of 0, or a weight that is no number, built a database of
    /// zero vectors or NaN scores and replaced a good one with it.
    pub fn check(&self) -> Result<(), String> {
        // (refused, flag, value, what the flag wants), in the order of `pipeline --help`.
        let rules = [
            (
                self.window == 0,
                "window",
                self.window.to_string(),
                "no word would meet another; give 1 or more",
            ),
            (
                !(self.max_page_share > 0.0 && self.max_page_share <= 1.0),
                "max-page-share",
                self.max_page_share.to_string(),
                "a share of the pages above 0, at most 1",
            ),
            (
                !(self.alpha.is_finite() && self.alpha >= 0.0),
                "alpha",
                self.alpha.to_string(),
                "the smoothing exponent is a number from 0 (1: none)",
            ),
            (
                self.dims == 0,
                "dims",
                self.dims.to_string(),
                "word vectors need 1 dimension or more",
            ),
            (
                !self.sigma_power.is_finite(),
                "sigma-power",
                self.sigma_power.to_string(),
                "not a finite number",
            ),
            (
                !(0.0..=1.0).contains(&self.ppmi_weight),
                "ppmi-weight",
                self.ppmi_weight.to_string(),
                "a share from 0 to 1 (the cosine gets the rest)",
            ),
            (
                !self.meeting_weight.is_finite(),
                "meeting-weight",
                self.meeting_weight.to_string(),
                "not a finite number",
            ),
            (
                !(self.meeting_card_power.is_finite() && self.meeting_card_power >= 0.0),
                "meeting-card-power",
                self.meeting_card_power.to_string(),
                "an exponent, 0 or more (0: the plain meetings)",
            ),
            (
                !(0.0..=1.0).contains(&self.skip_gram_weight),
                "skip-gram-weight",
                self.skip_gram_weight.to_string(),
                "a share from 0 to 1 (the SVD gets the rest)",
            ),
            (
                !(0.0..1.0).contains(&self.dictionary_weight),
                "dictionary-weight",
                self.dictionary_weight.to_string(),
                "a share from 0 to below 1 (the text's views get the rest)",
            ),
            (
                !(self.definition_weight.is_finite() && self.definition_weight >= 0.0),
                "definition-weight",
                self.definition_weight.to_string(),
                "standard deviations of the score, 0 or more",
            ),
        ];
        match rules.into_iter().find(|r| r.0) {
            Some((_, flag, value, why)) => Err(format!("--{flag} {value}: {why}")),
            None => Ok(()),
        }
    }
}

/// The clue words' floor ([`Params::min_count`]): a number of occurrences, or a rate of the
/// corpus's content tokens.
///
/// The floor sets the vocabulary. What makes a word one players know is how often text uses it
/// *relative* to all text: its frequency rank. So the default is a rate: 5.11 occurrences per
/// million content tokens, the measured best of the offline corpus (200 in its 39.1 M tokens;
/// docs/evaluation.md, "Quality"), which keeps the vocabulary near the same size whatever the
/// corpus (an English Wikipedia of ~2 billion content tokens gets ~10,000). Below it stands an
/// absolute
/// floor of 200, because the statistics of a word seen fewer times are noise whatever the
/// corpus's size (`db/README.md`, "Relatedness").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MinCount {
    /// This many occurrences (`--min-count N`), whatever the corpus.
    Fixed(u64),
    /// `per_million` occurrences per million content tokens, rounded to the nearest whole
    /// number, never below `floor`.
    Scaled { per_million: f64, floor: u64 },
}

impl MinCount {
    /// 5.11 per million content tokens, at least 200: 200 offline (39,109,003 tokens × 5.11 /
    /// 10⁶ = 199.85).
    pub const DEFAULT: MinCount = MinCount::Scaled {
        per_million: 5.11,
        floor: 200,
    };

    /// The floor for a corpus of `tokens` content tokens.
    pub fn resolve(&self, tokens: u64) -> u64 {
        match *self {
            MinCount::Fixed(n) => n,
            MinCount::Scaled { per_million, floor } => {
                ((tokens as f64 * per_million / 1e6).round() as u64).max(floor)
            }
        }
    }

    /// How the floor was chosen, for `meta` (`relatedness.min_count_rule`).
    pub fn rule(&self) -> String {
        match *self {
            MinCount::Fixed(_) => "--min-count".to_string(),
            MinCount::Scaled { per_million, floor } => {
                format!("{per_million} per million content tokens, rounded, at least {floor}")
            }
        }
    }
}

/// The default [`Params::dims`]: 200, for the text's SVD and the dictionary's alike. 100 was
/// kept while the SVD was the only view (300 then played quicker games and lost more to the
/// assassin with GloVe). With the skip-gram and the dictionary joined to it and the definitions
/// and meetings in the score, the finer dimensions keep more of what is particular to a word
/// (the later singular vectors), and the other views vote down what is idiosyncratic: over
/// seeds 1–50 with both outside guessers, 200 played 0.28 turns per win quicker with MiniLM,
/// more two- and three-card clues, for 0.44 ± 0.28 points more games lost to the assassin, far
/// less than the careful rules charge for that pace; with the board model's assassin weight at
/// 3.5, as safe as before and 0.23 turns quicker (docs/evaluation.md, "Judged by people"). The
/// text's 200 and the dictionary's 200 each bought about half of it.
pub const DEFAULT_DIMS: usize = 200;

/// The default [`Params::alpha`]: 1, plain PPMI, no context-distribution smoothing. Smoothing
/// (0.75, Levy et al.'s word2vec-like setting, the default until measured with people's
/// guessers) lowers what a rare context counts; left whole, the rarer, more specific company a
/// word keeps weighs more in its vector (among `crane`'s ten strongest clue words, `carriage`
/// and `trailer` replace two writers; `whip` gains `reins`). Measured with both outside
/// guessers over 50 seeds (10,000 games each): 1 won 1.1 points more with MiniLM and 0.9 more
/// with GloVe than 0.75, and more on each of seeds 1–10, 11–30 and 31–50 with MiniLM; 0.5 and
/// 1.25 won less with MiniLM (docs/evaluation.md, "Judged by people").
pub const DEFAULT_ALPHA: f64 = 1.0;

/// The default [`Params::meeting_weight`]. Measured with both outside guessers (600 games on
/// seeds 1–3, then seeds 4–11): 0.3 won 1–3 points more with each than 0 (no meetings in the
/// score); 0.5 and 0.8 won less with MiniLM, 1.5 less with both. Measured again once the
/// dictionary and the definitions had joined the score (seeds 1–50, both guessers): 0.45
/// played 0.12 turns per win quicker than 0.3 at the same wins; 0 and 0.15 lost, 0.6 lost
/// more to the assassin (docs/evaluation.md, "Judged by people").
pub const DEFAULT_MEETING_WEIGHT: f32 = 0.45;

/// The default [`Params::meeting_card_power`]: a card word's meetings counted per mention of
/// it, to the quarter power. Measured with both outside guessers over seeds 1–50 (with
/// [`DEFAULT_MEETING_WEIGHT`] 0.45): 0.12 turns per win quicker again with each, as often
/// won; ½ and 1 were quicker still and lost more to the assassin (docs/evaluation.md, "Judged by
/// people").
pub const DEFAULT_MEETING_CARD_POWER: f32 = 0.25;

/// `PPMI(w, c) = max(0, ln(n(w,c) · Σ_c' r(c')^α / (r(w) · r(c)^α)))`, where `r` are the row sums
/// of the co-occurrence counts; rows are words, columns contexts (the matrix is not symmetric
/// when `α ≠ 1`).
pub fn ppmi(cooc: &Cooc, alpha: f64) -> Mat {
    let n = cooc.n;
    let rows: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|a| cooc.m[a * n..(a + 1) * n].iter().map(|&x| x as f64).sum())
        .collect();
    let smoothed: Vec<f64> = rows.iter().map(|r| r.powf(alpha)).collect();
    let total: f64 = smoothed.iter().sum();
    let ln_ctx: Vec<f64> = smoothed.iter().map(|s| (s / total).ln()).collect();
    let mut out = Mat::zeros(n, n);
    out.data
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(a, row)| {
            if rows[a] == 0.0 {
                return;
            }
            let ln_row = rows[a].ln();
            for (b, x) in row.iter_mut().enumerate() {
                let c = cooc.m[a * n + b];
                if c > 0 && smoothed[b] > 0.0 {
                    let pmi = (c as f64).ln() - ln_row - ln_ctx[b];
                    *x = pmi.max(0.0) as f32;
                }
            }
        });
    out
}

/// The default [`Params::skip_gram_weight`]: 4/7 of the text's share, so that the SVD, the
/// skip-gram and the dictionary weigh 0.3, 0.4 and 0.3 of the cosine, each in standard
/// deviations of its own cosines ([`spread_weights`]). Until the views were weighed so, half
/// the text's share each, in raw cosines: the skip-gram's 50 dimensions spread its cosines
/// twice as wide as the SVDs' 200 (0.153 against 0.080 and 0.076), which gave it about half the
/// say. Measured with both outside guessers (seeds 1–30, people's two-card boards): a third
/// each reached both cards of people's boards with MiniLM 52.7 % of the time (was 49.5 %) but
/// lost 1.3 (MiniLM) and 1.9 (GloVe) points more games to the assassin; the skip-gram, which
/// reads a word by its nearest neighbours in the sentence, is what keeps the assassin away
/// (docs/evaluation.md, "Judged by people"). First measured as the text's only second view:
/// joined, the clues won 2.4 points more with MiniLM and lost 2.5 fewer games to the assassin than
/// the SVD
/// alone.
pub const DEFAULT_SKIP_GRAM_WEIGHT: f32 = 4.0 / 7.0;

/// The default [`Params::dictionary_weight`]: 0.3 of the cosine, in standard deviations of its
/// cosines (see [`DEFAULT_SKIP_GRAM_WEIGHT`]). When it joined, a third of the raw cosine:
/// MiniLM won 80.2 % (was 76.9 %) and lost 19.2 % to the assassin (was 22.1 %) at 11.0 turns
/// per win (was 11.7); GloVe 92.6 / 6.9 (was 93.6 / 6.0). The dictionary's meaning, not only
/// whether it knows a word, is what helped: the same weight with one vector for every known
/// word lost (docs/evaluation.md, "Judged by people").
pub const DEFAULT_DICTIONARY_WEIGHT: f32 = 0.3;

/// The default [`Params::definition_weight`]: two standard deviations of the score for a word
/// every sense of the card is defined by. The text relates `snowman` to what articles write
/// next to it (films, songs, parodies), the dictionary's vectors to what kind of thing it is (a
/// figure: dolls, puppets); people say snow, which its definition names. Measured with both
/// outside guessers over seeds 1–50 (docs/evaluation.md, "Judged by people").
pub const DEFAULT_DEFINITION_WEIGHT: f32 = 2.0;

/// Views' unit-length word vectors side by side, each scaled by the square root of its weight
/// (weights summing to 1): the joined rows are unit-length again and their cosine is
/// `Σ weight·cos_view`. A view of weight 0 adds no columns.
pub fn join_all(views: &[(&Mat, f32)]) -> Mat {
    let kept: Vec<(&Mat, f32)> = views.iter().copied().filter(|&(_, w)| w > 0.0).collect();
    let rows = kept.first().map_or(0, |(m, _)| m.rows);
    assert!(
        kept.iter().all(|(m, _)| m.rows == rows),
        "one row per word in every view"
    );
    let width: usize = kept.iter().map(|(m, _)| m.cols).sum();
    let mut out = Mat::zeros(rows, width);
    for (i, row) in out.data.chunks_mut(width.max(1)).enumerate() {
        let mut at = 0;
        for &(m, w) in &kept {
            let scale = w.sqrt();
            for (x, y) in row[at..at + m.cols].iter_mut().zip(m.row(i)) {
                *x = y * scale;
            }
            at += m.cols;
        }
    }
    out
}

/// How widely a view's cosines spread between the card words and the clue candidates (their
/// standard deviation over every pair; `cards` and `clues` are rows of `v`). Views spread
/// differently: the skip-gram's 50 dimensions give cosines twice as spread as the SVDs' 200.
pub fn cosine_spread(v: &Mat, cards: &[u32], clues: &[u32]) -> f32 {
    let pick = |ids: &[u32]| {
        let mut m = Mat::zeros(ids.len(), v.cols);
        for (r, &id) in ids.iter().enumerate() {
            m.data[r * v.cols..(r + 1) * v.cols].copy_from_slice(v.row(id as usize));
        }
        m
    };
    let cos = Mat::mul(&pick(cards), false, &pick(clues), true);
    Scale::of(&cos.data).std
}

/// The weights at which views join ([`join_all`]) so that each weighs its nominal share in
/// standard deviations of its own cosines (`spreads`, [`cosine_spread`]): `weight / spread`,
/// summing to 1. The joined cosine is then, up to a shift and a scale that the score's
/// standardising takes away, `Σ weight·z(cos_view)`. A view whose cosines do not spread (no
/// vectors) weighs nothing; with no view left, the nominal weights stand.
pub fn spread_weights(weights: &[f32], spreads: &[f32]) -> Vec<f32> {
    let raw: Vec<f32> = weights
        .iter()
        .zip(spreads)
        .map(|(&w, &s)| {
            if w > 0.0 && s > 1e-6 && s.is_finite() {
                w / s
            } else {
                0.0
            }
        })
        .collect();
    let total: f32 = raw.iter().sum();
    if total > 0.0 {
        raw.iter().map(|w| w / total).collect()
    } else {
        weights.to_vec()
    }
}

/// Unit-length word vectors `U·Σ^p` from the truncated SVD of `m`, dense (the text's PPMI) or
/// sparse (the dictionary's); a row of zeros stays zero.
pub fn vectors(m: &impl linalg::Operator, p: &Params) -> Mat {
    let (sigma, mut u) = svd::truncated_svd(m, p.dims, 20, p.power, p.seed);
    let d = u.cols;
    u.data.par_chunks_mut(d.max(1)).for_each(|row| {
        for (x, s) in row.iter_mut().zip(&sigma) {
            *x *= s.powf(p.sigma_power);
        }
    });
    u.normalize_rows();
    u
}

/// Mean and standard deviation of a measure over all its values, for standardising it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub mean: f32,
    pub std: f32,
}

impl Scale {
    /// The mean and standard deviation of `values` (over `n`, not `n − 1`); the deviation is at
    /// least `1e-9`, so that [`Scale::z`] never divides by zero.
    pub fn of(values: &[f32]) -> Scale {
        let n = values.len().max(1) as f64;
        let mean = values.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|&x| (x as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        Scale {
            mean: mean as f32,
            std: (var.sqrt() as f32).max(1e-9),
        }
    }
    /// `x` in standard deviations from the mean.
    pub fn z(&self, x: f32) -> f32 {
        (x - self.mean) / self.std
    }
}

/// How a pair's parts make its score, before the score is standardised (db/README.md,
/// "Relatedness", 6): one definition for the stage that computes every score
/// ([`Relatedness::compute`]) and for readers that take a stored score apart again from the
/// weights and scales the stage records in `meta` (`explain`'s raise by a definition).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreMix {
    /// `w`: first-order PPMI's share beside the cosine's `1 − w` ([`Params::ppmi_weight`]).
    pub ppmi_weight: f32,
    /// `e`: how much the pair's meetings add ([`Params::meeting_weight`]).
    pub meeting_weight: f32,
    /// `p` of [`ScoreMix::card_factor`] ([`Params::meeting_card_power`]; 0: none).
    pub card_power: f32,
    /// `m` of [`ScoreMix::card_factor`]: the median occurrences of the card words seen.
    pub card_median: f32,
    pub ppmi: Scale,
    pub cosine: Scale,
    /// Of `ln(1 + meetings·f)` ([`log_meetings`], `f` the [`ScoreMix::card_factor`]).
    pub meetings: Scale,
}

impl ScoreMix {
    /// What each meeting of a card word seen `card_count` times counts: `(m / c)^p`, 1 at the
    /// median card word, below 1 for a card word that is everywhere, above for a rare one; 1
    /// when `p` is 0 or the card word was never seen (it met nothing).
    pub fn card_factor(&self, card_count: u64) -> f32 {
        card_factor(self.card_power, self.card_median, card_count)
    }

    /// `w·z(ppmi) + (1 − w)·z(cosine) + e·z(ln(1 + meetings·f))` for a card word seen
    /// `card_count` times (`f` its [`ScoreMix::card_factor`]); the meetings add nothing at
    /// `e` = 0, whatever their scale.
    pub fn mix(&self, ppmi: f32, cosine: f32, meetings: u32, card_count: u64) -> f32 {
        let logged = if self.meeting_weight != 0.0 {
            log_meetings(meetings, self.card_factor(card_count))
        } else {
            0.0
        };
        self.mix_logged(ppmi, cosine, logged)
    }

    /// [`ScoreMix::mix`] with the meetings already as `ln(1 + meetings·f)`: the stage has them
    /// for every pair, for their scale, and does not take them again.
    pub fn mix_logged(&self, ppmi: f32, cosine: f32, logged: f32) -> f32 {
        let (w, e) = (self.ppmi_weight, self.meeting_weight);
        w * self.ppmi.z(ppmi)
            + (1.0 - w) * self.cosine.z(cosine)
            + if e != 0.0 {
                e * self.meetings.z(logged)
            } else {
                0.0
            }
    }
}

/// `(median / card_count)^power` ([`ScoreMix::card_factor`]), 1 when there is nothing to
/// scale by.
fn card_factor(power: f32, median: f32, card_count: u64) -> f32 {
    if power == 0.0 || card_count == 0 || median <= 0.0 {
        return 1.0;
    }
    (median / card_count as f32).powf(power)
}

/// What the score counts of a pair's meetings: `ln(1 + meetings·factor)`, the factor being the
/// card's ([`ScoreMix::card_factor`]).
pub fn log_meetings(meetings: u32, factor: f32) -> f32 {
    (meetings as f32 * factor).ln_1p()
}

/// The median of the card words' occurrences, over those seen at all (0 when none was): the
/// `m` of [`ScoreMix::card_factor`].
pub fn card_median(counts: &[u64]) -> f32 {
    let mut seen: Vec<f32> = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| c as f32)
        .collect();
    if seen.is_empty() {
        return 0.0;
    }
    seen.sort_by(f32::total_cmp);
    let n = seen.len();
    if n % 2 == 1 {
        seen[n / 2]
    } else {
        0.5 * (seen[n / 2 - 1] + seen[n / 2])
    }
}

/// Relatedness of every card word with every clue candidate, dense: `cards × clues`.
#[derive(Debug, Clone)]
pub struct Relatedness {
    /// Clue candidates: vocabulary ids.
    pub clues: Vec<u32>,
    /// Card words and their vocabulary ids.
    pub cards: Vec<(String, u32)>,
    /// Meetings of card and clue in the window, not weighted by distance, a text counted as
    /// many times as its corpus's weight says (0 when the co-occurrence counts
    /// did not keep the card's meetings: see [`Cooc::for_vocab`]).
    pub cooccurrences: Vec<u32>,
    /// First-order: `(PPMI(card, clue) + PPMI(clue, card)) / 2`.
    pub ppmi: Vec<f32>,
    /// Second-order: cosine of the SVD vectors.
    pub cosine: Vec<f32>,
    /// The score: `z(w·z(ppmi) + (1 − w)·z(cosine) + e·z(ln(1 + meetings·f)))`, `f` the card's
    /// [`ScoreMix::card_factor`], each measure and then the mix standardised over all pairs
    /// ([`Relatedness::compute`]).
    pub score: Vec<f32>,
    /// The parts' weights and scales over all pairs: the mix before it is standardised.
    pub parts: ScoreMix,
    /// Of the mix before it is standardised: the score is `(mix − mean) / std`.
    pub mix_scale: Scale,
    /// Per clue: the score a card word nobody knows is assumed to have with it, the
    /// [`RISK_QUANTILE`] of its scores with the card words.
    pub risk: Vec<f32>,
    /// How a guesser reads a clue it is given ([`reading`]): first and second order together.
    pub reading: Vec<f32>,
    /// The scales the reading was standardised by.
    pub reading_scales: ReadingScales,
}

/// Meetings at which a pair's PPMI counts half in [`reading`]: fewer meetings, less of it.
pub const READING_MEETINGS: f32 = 20.0;

/// The relatedness a *guesser* reads a given clue by: `½·z(ppmi·n/(n + n₀)) + ½·z(cosine)`,
/// standardised again, for a pair that meets `n` times (`n₀` = [`READING_MEETINGS`]).
///
/// Why not the spymaster's score: people's clues are mostly words that *meet* their cards in
/// text (`snow` for snowman, `pet` for dog and vet), which first-order PPMI sees and the SVD
/// cosine blurs; given a person's clue, PPMI picks their cards far more often (docs/evaluation.md,
/// "Quality"). But a spymaster *chooses* its clue among thousands, and the choice seeks out the
/// pairs whose few chance meetings made a large PPMI: mixed into the spymaster's score, PPMI
/// lost games with every outside guesser. A clue that is given is not chosen, so a guesser can
/// use it; the shrinkage `n/(n + n₀)` still discounts pairs that met a handful of times.
pub fn reading(ppmi: &[f32], cosine: &[f32], meetings: &[u32]) -> Vec<f32> {
    let scales = ReadingScales::of(ppmi, cosine, meetings);
    (0..ppmi.len())
        .map(|k| scales.read(ppmi[k], cosine[k], meetings[k]))
        .collect()
}

/// `ppmi·n/(n + n₀)` for a pair that meets `n` times ([`reading`]).
fn shrunk(ppmi: f32, meetings: u32) -> f32 {
    ppmi * meetings as f32 / (meetings as f32 + READING_MEETINGS)
}

/// The three scales of [`reading`] over all pairs, which the stage records in `meta`
/// (`relatedness.reading_*`) so that a query computes a card's reading from its stored parts
/// (`relatedness_by_id`) rather than storing it too.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReadingScales {
    /// Of the shrunk PPMI.
    pub ppmi: Scale,
    pub cosine: Scale,
    /// Of the mix before it is standardised again.
    pub mix: Scale,
}

impl ReadingScales {
    /// The scales over all pairs of the shrunk PPMI (by each pair's `meetings`), the cosine
    /// and their half-and-half mix.
    pub fn of(ppmi: &[f32], cosine: &[f32], meetings: &[u32]) -> ReadingScales {
        let shrunk: Vec<f32> = ppmi
            .iter()
            .zip(meetings)
            .map(|(&p, &n)| shrunk(p, n))
            .collect();
        let (ps, cs) = (Scale::of(&shrunk), Scale::of(cosine));
        let mixed: Vec<f32> = shrunk
            .iter()
            .zip(cosine)
            .map(|(&p, &c)| 0.5 * ps.z(p) + 0.5 * cs.z(c))
            .collect();
        ReadingScales {
            ppmi: ps,
            cosine: cs,
            mix: Scale::of(&mixed),
        }
    }

    /// One pair's reading.
    pub fn read(&self, ppmi: f32, cosine: f32, meetings: u32) -> f32 {
        self.mix
            .z(0.5 * self.ppmi.z(shrunk(ppmi, meetings)) + 0.5 * self.cosine.z(cosine))
    }
}

/// Where among a clue's scores with all card words an unknown card is placed: high, so that an
/// unknown card to avoid blocks the clues that many cards relate to.
pub const RISK_QUANTILE: f64 = 0.9;

/// Per clue word, the [`RISK_QUANTILE`] of its scores with the `cards` card words (`score` is
/// cards × `nc` clue words, row by row).
fn risk(score: &[f32], cards: usize, nc: usize) -> Vec<f32> {
    (0..nc)
        .map(|j| {
            let mut col: Vec<f32> = (0..cards).map(|t| score[t * nc + j]).collect();
            quantile(&mut col, RISK_QUANTILE)
        })
        .collect()
}

/// The `q` quantile of `values`: sorted, the value at index `round((n − 1)·q)`, without
/// interpolation; 0 for none. Sorts `values` in place.
pub fn quantile(values: &mut [f32], q: f64) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f32::total_cmp);
    let rank = ((values.len() - 1) as f64 * q).round() as usize;
    values[rank.min(values.len() - 1)]
}

impl Relatedness {
    /// Raises pairs' scores by `weight` times their share, `(card, clue, share)` as indices
    /// into [`Self::cards`] and [`Self::clues`]: first-hand evidence the vectors blur (a card's
    /// definition, [`Params::definition_weight`]). The clues' risk is taken again from the
    /// raised scores. Returns how many pairs were raised.
    pub fn raise(&mut self, pairs: &[(usize, usize, f32)], weight: f32) -> usize {
        let nc = self.clues.len();
        let mut raised = 0;
        for &(t, j, share) in pairs {
            if weight > 0.0 && share > 0.0 {
                self.score[t * nc + j] += weight * share;
                raised += 1;
            }
        }
        self.risk = risk(&self.score, self.cards.len(), nc);
        raised
    }

    /// Every card word of `vocab` against every clue word: first-order PPMI from `m`, the
    /// cosine of the rows of `vecs`, the meetings in `cooc`, mixed by `p`'s weights and
    /// standardised; with each clue's risk and the guesser's reading.
    pub fn compute(vocab: &Vocab, cooc: &Cooc, m: &Mat, vecs: &Mat, p: &Params) -> Relatedness {
        let clues = vocab.clue_ids();
        let cards = vocab.cards.clone();
        let nc = clues.len();
        let mut cooccurrences = vec![0u32; cards.len() * nc];
        let mut ppmi = vec![0f32; cards.len() * nc];
        let mut cosine = vec![0f32; cards.len() * nc];
        for (t, &(_, card)) in cards.iter().enumerate() {
            let cv = vecs.row(card as usize);
            for (j, &clue) in clues.iter().enumerate() {
                let k = t * nc + j;
                cooccurrences[k] = cooc.meetings(card, clue).unwrap_or(0);
                ppmi[k] =
                    0.5 * (m.at(card as usize, clue as usize) + m.at(clue as usize, card as usize));
                cosine[k] = if card == clue {
                    1.0
                } else {
                    cv.iter()
                        .zip(vecs.row(clue as usize))
                        .map(|(a, b)| a * b)
                        .sum()
                };
            }
        }
        let card_counts: Vec<u64> = cards
            .iter()
            .map(|&(_, id)| vocab.counts[id as usize])
            .collect();
        let median = card_median(&card_counts);
        // One factor per card, not per pair.
        let factors: Vec<f32> = card_counts
            .iter()
            .map(|&c| card_factor(p.meeting_card_power, median, c))
            .collect();
        let logged: Vec<f32> = (0..cooccurrences.len())
            .map(|k| log_meetings(cooccurrences[k], factors[k / nc]))
            .collect();
        let parts = ScoreMix {
            ppmi_weight: p.ppmi_weight,
            meeting_weight: p.meeting_weight,
            card_power: p.meeting_card_power,
            card_median: median,
            ppmi: Scale::of(&ppmi),
            cosine: Scale::of(&cosine),
            meetings: Scale::of(&logged),
        };
        let mix: Vec<f32> = (0..ppmi.len())
            .map(|k| parts.mix_logged(ppmi[k], cosine[k], logged[k]))
            .collect();
        // Standardised again, so that the strategy's margins stay in standard deviations of
        // the score whatever the weights.
        let mix_scale = Scale::of(&mix);
        let score: Vec<f32> = mix.iter().map(|&x| mix_scale.z(x)).collect();
        let risk = risk(&score, cards.len(), nc);
        let reading_scales = ReadingScales::of(&ppmi, &cosine, &cooccurrences);
        let reading = reading(&ppmi, &cosine, &cooccurrences);
        Relatedness {
            reading,
            reading_scales,
            clues,
            cards,
            cooccurrences,
            ppmi,
            cosine,
            score,
            parts,
            mix_scale,
            risk,
        }
    }
}
