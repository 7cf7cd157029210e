//! The relatedness formulas against hand computations on a tiny corpus.

use relate::linalg::Mat;
use relate::{Cooc, PairSet, Params, Relatedness, Scale, ScoreMix, TypeCounter, Vocab, quantile};

/// Three words: `a` meets `b` twice and `c` once; `b` and `c` never meet.
fn tiny() -> Cooc {
    let mut c = Cooc::new(3);
    c.m = vec![0, 2, 1, 2, 0, 0, 1, 0, 0];
    c
}

#[test]
fn ppmi_with_context_smoothing_by_hand() {
    // Row sums r = (3, 2, 1); Σ r^0.75 = 3^0.75 + 2^0.75 + 1 = 4.961300.
    // PPMI(a, b) = ln(n(a,b) · Σ r^α / (r(a) · r(b)^α)) = ln(2 · 4.961300 / (3 · 1.681793)) = 0.676342
    // PPMI(b, a) = ln(2 · 4.961300 / (2 · 2.279507)) = 0.777709
    // PPMI(a, c) = ln(1 · 4.961300 / (3 · 1)) = 0.503055
    // PPMI(c, a) = ln(1 · 4.961300 / (1 · 2.279507)) = 0.777709
    // b and c never meet: 0, and nothing meets itself.
    let m = relate::ppmi(&tiny(), 0.75);
    let close = |x: f32, want: f64| (x as f64 - want).abs() < 1e-5;
    assert!(close(m.at(0, 1), 0.676342), "{}", m.at(0, 1));
    assert!(close(m.at(1, 0), 0.777709), "{}", m.at(1, 0));
    assert!(close(m.at(0, 2), 0.503055), "{}", m.at(0, 2));
    assert!(close(m.at(2, 0), 0.777709), "{}", m.at(2, 0));
    assert_eq!((m.at(1, 2), m.at(2, 1), m.at(0, 0)), (0.0, 0.0, 0.0));
    // Without smoothing (α = 1) every meeting here is twice what chance says: ln 2.
    let plain = relate::ppmi(&tiny(), 1.0);
    assert!(close(plain.at(0, 1), std::f64::consts::LN_2));
    assert!(close(plain.at(2, 0), std::f64::consts::LN_2));
}

#[test]
fn scale_and_quantile_by_hand() {
    // Mean of (1, 2, 3, 6) = 3; variance (4 + 1 + 0 + 9) / 4 = 3.5.
    let s = Scale::of(&[1.0, 2.0, 3.0, 6.0]);
    assert_eq!(s.mean, 3.0);
    assert!((s.std - 3.5f32.sqrt()).abs() < 1e-6);
    assert!((s.z(6.0) - 3.0 / 3.5f32.sqrt()).abs() < 1e-6);
    // Nearest rank: q = 0.9 of 11 values is the value at rank round(10 · 0.9) = 9 (0-based).
    let mut v: Vec<f32> = (0..11).rev().map(|x| x as f32).collect();
    assert_eq!(quantile(&mut v, 0.9), 9.0);
    assert_eq!(quantile(&mut [], 0.9), 0.0);
}

#[test]
fn the_score_mix_by_hand() {
    let parts = ScoreMix {
        ppmi_weight: 0.25,
        meeting_weight: 0.5,
        card_power: 0.0,
        card_median: 160.0,
        ppmi: Scale {
            mean: 1.0,
            std: 2.0,
        },
        cosine: Scale {
            mean: 0.1,
            std: 0.2,
        },
        meetings: Scale {
            mean: 1.0,
            std: 0.5,
        },
    };
    // z(ppmi) = (3 − 1)/2 = 1; z(cosine) = (0.5 − 0.1)/0.2 = 2; 2 meetings: ln 3 = 1.098612,
    // z = (1.098612 − 1)/0.5 = 0.197225. 0.25·1 + 0.75·2 + 0.5·0.197225 = 1.848612.
    assert_eq!(relate::log_meetings(2, 1.0), 3f32.ln());
    assert!((parts.mix(3.0, 0.5, 2, 10) - 1.848612).abs() < 1e-5);
    // Counted per mention of the card, to the quarter power: a card seen 10 times against a
    // median of 160 counts each meeting (160/10)^¼ = 2 times over, so 2 meetings count 4:
    // ln 5 = 1.609438, z = (1.609438 − 1)/0.5 = 1.218876; 0.25 + 1.5 + 0.5·1.218876 = 2.359438.
    let per_card = ScoreMix {
        card_power: 0.25,
        ..parts
    };
    assert!((per_card.card_factor(10) - 2.0).abs() < 1e-6);
    assert!((per_card.card_factor(160) - 1.0).abs() < 1e-6);
    assert!((per_card.card_factor(2560) - 0.5).abs() < 1e-6);
    // A card never seen met nothing: its factor is 1, whatever the median.
    assert_eq!(per_card.card_factor(0), 1.0);
    assert!((per_card.mix(3.0, 0.5, 2, 10) - 2.359438).abs() < 1e-5);
    // At the median the factor is 1: the plain meetings.
    assert!((per_card.mix(3.0, 0.5, 2, 160) - 1.848612).abs() < 1e-5);
    // Without the meetings' weight they add nothing, even where their scale has no spread.
    let flat = ScoreMix {
        meeting_weight: 0.0,
        meetings: Scale {
            mean: 0.0,
            std: 0.0,
        },
        ..parts
    };
    assert!((flat.mix(3.0, 0.5, 0, 10) - 1.75).abs() < 1e-6);
}

#[test]
fn the_card_median_by_hand() {
    // Over the card words seen at all: 1, 3, 5 → 3; an even number, the mean of the middle two.
    assert_eq!(relate::card_median(&[0, 5, 1, 3]), 3.0);
    assert_eq!(relate::card_median(&[4, 2]), 3.0);
    assert_eq!(relate::card_median(&[0, 0]), 0.0);
    assert_eq!(relate::card_median(&[]), 0.0);
}

#[test]
fn a_tiny_corpus_end_to_end() {
    // "honey" meets "bee" in every sentence, "sugar" meets "honey" and "cake"; "car" meets
    // "road" only. Card words: bee and car; clue candidates: everything seen twice or more.
    let text = "honey bee hive. honey bee hive. honey sugar cake. sugar cake oven. car road. \
                car road. bee hive honey. oven cake sugar.";
    let pairs = PairSet::new(["bee", "car"]);
    let mut types = TypeCounter::default();
    types.add(text, &pairs);
    let cards = vec!["bee".to_string(), "car".to_string()];
    let vocab = Vocab::build(types.counts(), &cards, 2, text::Inflector::shared());
    let p = Params {
        dims: 3,
        ppmi_weight: 0.5,
        meeting_weight: 0.3,
        meeting_card_power: 0.5,
        ..Params::default()
    };
    let mut cooc = Cooc::for_vocab(&vocab);
    cooc.add(text, &vocab, &pairs, p.window, p.weighting, 1, None);
    cooc.finish();
    let (bee, car, hive, road) = (
        vocab.id("bee"),
        vocab.id("car"),
        vocab.id("hive"),
        vocab.id("road"),
    );
    // Linear weights, window 10: every meeting here is of neighbours, weight 10 each.
    assert_eq!(cooc.get(bee, hive), 30);
    assert_eq!(cooc.get(car, road), 20);
    assert_eq!(cooc.get(bee, road), 0);
    assert_eq!(cooc.meetings(bee, hive), Some(3));
    // "honey sugar cake": two apart, weight 10 + 1 − 2 = 9 (its only meeting).
    assert_eq!(cooc.get(vocab.id("honey"), vocab.id("cake")), 9);
    let m = relate::ppmi(&cooc, p.alpha);
    let vecs = relate::vectors(&m, &p);
    let rel = Relatedness::compute(&vocab, &cooc, &m, &vecs, &p);
    let col = |w: u32| rel.clues.iter().position(|&c| c == w).unwrap();
    let nc = rel.clues.len();
    let at = |card: usize, clue: u32| card * nc + col(clue);
    // Dense: every card has a value with every clue.
    assert_eq!(rel.score.len(), 2 * nc);
    assert_eq!(rel.cooccurrences[at(0, hive)], 3);
    // First order by hand: the mean of both directions of PPMI.
    let hand = 0.5 * (m.at(bee as usize, hive as usize) + m.at(hive as usize, bee as usize));
    assert_eq!(rel.ppmi[at(0, hive)], hand);
    // The mix: w·z(ppmi) + (1 − w)·z(cosine) + e·z(ln(1 + meetings·f)), standardised again.
    // bee is seen 3 times, car twice: the median card is seen 2.5 times, and each of bee's
    // meetings counts f = (2.5/3)^½ = 0.912871 times, car's (2.5/2)^½ = 1.118034.
    assert_eq!(
        (vocab.counts[bee as usize], vocab.counts[car as usize]),
        (3, 2)
    );
    assert_eq!(rel.parts.card_median, 2.5);
    let f = [(2.5f32 / 3.0).sqrt(), (2.5f32 / 2.0).sqrt()];
    assert!((f[0] - 0.912871).abs() < 1e-6 && (f[1] - 1.118034).abs() < 1e-6);
    let k = at(0, hive);
    let meet = (3.0 * f[0]).ln_1p();
    let mix = 0.5 * rel.parts.ppmi.z(rel.ppmi[k])
        + 0.5 * rel.parts.cosine.z(rel.cosine[k])
        + 0.3 * rel.parts.meetings.z(meet);
    assert!((rel.score[k] - rel.mix_scale.z(mix)).abs() < 1e-5);
    // The scale of ln(1 + meetings·f), by hand over all pairs (bee's row, then car's).
    let logs: Vec<f32> = rel
        .cooccurrences
        .iter()
        .enumerate()
        .map(|(k, &n)| (n as f32 * f[k / nc]).ln_1p())
        .collect();
    let mean = logs.iter().sum::<f32>() / logs.len() as f32;
    assert!((rel.parts.meetings.mean - mean).abs() < 1e-5);
    // The score is standardised: mean 0, standard deviation 1.
    let n = rel.score.len() as f32;
    let m = rel.score.iter().sum::<f32>() / n;
    let sd = (rel.score.iter().map(|x| (x - m).powi(2)).sum::<f32>() / n).sqrt();
    assert!(
        m.abs() < 1e-5 && (sd - 1.0).abs() < 1e-4,
        "mean {m}, std {sd}"
    );
    // What relates: hive to bee more than to car, road to car more than to bee.
    assert!(rel.score[at(0, hive)] > rel.score[at(1, hive)]);
    assert!(rel.score[at(1, road)] > rel.score[at(0, road)]);
    assert_eq!(rel.risk.len(), nc);
}

#[test]
fn reading_mixes_shrunk_ppmi_and_cosine_by_hand() {
    // Three pairs: PPMI (2, 1, 0), meetings (20, 0, 5), cosine (0.5, 0.1, 0.3).
    // Shrunk PPMI p·n/(n + 20) = (1, 0, 0): a pair that never met keeps none of its PPMI.
    // z of (1, 0, 0): mean 1/3, std √(2/9) → (√2, −1/√2, −1/√2).
    // z of the cosines: mean 0.3, std √(0.08/3) → (√1.5, −√1.5, 0).
    // Their mean (1.319479, −0.965926, −0.353553) has mean 0 and std 0.965926, so the reading
    // is (1.366025, −1, −0.366025): the pair that met 20 times leads, and the one that never
    // met falls below the one whose cosine alone was middling.
    let r = relate::reading(&[2.0, 1.0, 0.0], &[0.5, 0.1, 0.3], &[20, 0, 5]);
    let want = [1.366025, -1.0, -0.366025];
    for (x, w) in r.iter().zip(want) {
        assert!((*x as f64 - w).abs() < 1e-5, "{r:?}");
    }
}

/// Issue 23, item 2: the default clue-word floor, 5.11 per million content tokens, rounded, at
/// least 200, by hand.
#[test]
fn the_default_floor_scales_with_the_corpus() {
    let d = relate::MinCount::DEFAULT;
    // The offline corpus: 39,109,003 content tokens × 5.11 / 10⁶ = 199.85 → 200, its measured best.
    assert_eq!(d.resolve(39_109_003), 200);
    // Ten times that: 1,998.47 → 1,998; English Wikipedia's ~2 billion: 10,220.
    assert_eq!(d.resolve(391_090_030), 1_998);
    assert_eq!(d.resolve(2_000_000_000), 10_220);
    // A small corpus keeps the floor of 200 (Wikispeedia alone, ~8 M tokens, too).
    assert_eq!(d.resolve(4_000_000), 200);
    assert_eq!(d.resolve(0), 200);
    // A number given is used as it is.
    assert_eq!(relate::MinCount::Fixed(7).resolve(2_000_000_000), 7);
    assert_eq!(relate::Params::default().min_count, d);
}

/// Every parameter that would build zero vectors or NaN scores is refused, naming its flag; the
/// defaults and the edges of each range pass.
#[test]
fn parameters_that_build_no_measure_are_refused_by_flag() {
    type Change = fn(&mut Params);
    let with = |change: Change| {
        let mut p = Params::default();
        change(&mut p);
        p
    };
    assert_eq!(Params::default().check(), Ok(()));
    let edges: [Change; 8] = [
        |p| p.alpha = 0.0,
        |p| (p.window, p.dims) = (1, 1),
        |p| (p.ppmi_weight, p.max_page_share) = (1.0, 1.0),
        |p| p.meeting_weight = -0.5,
        |p| p.meeting_card_power = 0.0,
        |p| p.skip_gram_weight = 1.0,
        |p| p.dictionary_weight = 0.0,
        |p| p.definition_weight = 0.0,
    ];
    for change in edges {
        let p = with(change);
        assert_eq!(p.check(), Ok(()), "{p:?}");
    }
    let refused: [(Change, &str); 18] = [
        (|p| p.definition_weight = -1.0, "--definition-weight -1:"),
        (
            |p| p.definition_weight = f32::NAN,
            "--definition-weight NaN:",
        ),
        (|p| p.dictionary_weight = 1.0, "--dictionary-weight 1:"),
        (|p| p.dictionary_weight = -0.1, "--dictionary-weight -0.1:"),
        (|p| p.skip_gram_weight = 1.5, "--skip-gram-weight 1.5:"),
        (|p| p.skip_gram_weight = f32::NAN, "--skip-gram-weight NaN:"),
        (|p| p.window = 0, "--window 0:"),
        (|p| p.dims = 0, "--dims 0:"),
        (|p| p.alpha = f64::NAN, "--alpha NaN:"),
        (|p| p.alpha = -1.0, "--alpha -1:"),
        (|p| p.sigma_power = f32::INFINITY, "--sigma-power inf:"),
        (|p| p.ppmi_weight = 1.5, "--ppmi-weight 1.5:"),
        (|p| p.ppmi_weight = -0.1, "--ppmi-weight -0.1:"),
        (|p| p.meeting_weight = f32::NAN, "--meeting-weight NaN:"),
        (
            |p| p.meeting_card_power = -0.25,
            "--meeting-card-power -0.25:",
        ),
        (
            |p| p.meeting_card_power = f32::INFINITY,
            "--meeting-card-power inf:",
        ),
        (|p| p.max_page_share = 0.0, "--max-page-share 0:"),
        (|p| p.max_page_share = 1.5, "--max-page-share 1.5:"),
    ];
    for (change, flag) in refused {
        let e = with(change).check().unwrap_err();
        assert!(e.starts_with(flag), "{e} (want {flag})");
    }
}

/// Two views joined: unit rows again, and the cosine is the weighted mean of the views' cosines.
#[test]
fn joined_views_mix_their_cosines_by_weight() {
    // View a: words 0 and 1 orthogonal (cos 0); view b (one dimension): the same (cos 1).
    let a = Mat {
        rows: 2,
        cols: 2,
        data: vec![1.0, 0.0, 0.0, 1.0],
    };
    let b = Mat {
        rows: 2,
        cols: 1,
        data: vec![1.0, 1.0],
    };
    let j = relate::join_all(&[(&a, 0.75), (&b, 0.25)]);
    assert_eq!((j.rows, j.cols), (2, 3));
    let row = |i: usize| &j.data[i * 3..i * 3 + 3];
    let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
    // 0.75 · 0 + 0.25 · 1 = 0.25; each row's length 0.75 · 1 + 0.25 · 1 = 1.
    assert!((dot(row(0), row(1)) - 0.25).abs() < 1e-6);
    assert!((dot(row(0), row(0)) - 1.0).abs() < 1e-6);
    // Weight 0: the first view alone.
    assert_eq!(relate::join_all(&[(&a, 1.0), (&b, 0.0)]), a);
}

/// Unit rows of `rows × cols` from their entries.
fn unit_rows(cols: usize, data: &[f32]) -> Mat {
    let mut m = Mat {
        rows: data.len() / cols,
        cols,
        data: data.to_vec(),
    };
    m.normalize_rows();
    m
}

#[test]
fn three_views_join_by_their_weights_by_hand() {
    // Word 0 against word 1: cosines 0 (first view), 1 (second), 0.6 (third: (1,0)·(0.6,0.8)).
    let a = unit_rows(2, &[1.0, 0.0, 0.0, 1.0]);
    let b = unit_rows(1, &[1.0, 1.0]);
    let c = unit_rows(2, &[1.0, 0.0, 0.6, 0.8]);
    let j = relate::join_all(&[(&a, 0.5), (&b, 0.3), (&c, 0.2)]);
    assert_eq!((j.rows, j.cols), (2, 5));
    let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
    // 0.5·0 + 0.3·1 + 0.2·0.6 = 0.42; each row's length Σ weights = 1.
    assert!((dot(j.row(0), j.row(1)) - 0.42).abs() < 1e-6);
    assert!((dot(j.row(1), j.row(1)) - 1.0).abs() < 1e-6);
    // A view of weight 0 adds no columns: the two others as they join alone.
    let two = relate::join_all(&[(&a, 0.75), (&b, 0.25), (&c, 0.0)]);
    assert_eq!((two.rows, two.cols), (2, 3));
    assert_eq!(two, relate::join_all(&[(&a, 0.75), (&b, 0.25)]));
}

#[test]
fn a_views_spread_and_the_weights_in_standard_deviations_by_hand() {
    // Card 0 against clues 1, 2, 3: cosines 1, 0, 0.6 → mean 1.6/3, variance
    // (0.466667² + 0.533333² + 0.066667²)/3 = 0.168889, spread 0.410961.
    let v = unit_rows(2, &[1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.6, 0.8]);
    let s = relate::cosine_spread(&v, &[0], &[1, 2, 3]);
    assert!((s - 0.410961).abs() < 1e-5, "{s}");
    // Nominal 0.5 and 0.5 over spreads 0.1 and 0.2: 5 and 2.5, so 2/3 and 1/3.
    let w = relate::spread_weights(&[0.5, 0.5], &[0.1, 0.2]);
    assert!((w[0] - 2.0 / 3.0).abs() < 1e-6 && (w[1] - 1.0 / 3.0).abs() < 1e-6);
    // A view that does not spread (no vectors) weighs nothing; with none left, the nominal.
    assert_eq!(relate::spread_weights(&[0.5, 0.5], &[0.1, 0.0]), [1.0, 0.0]);
    assert_eq!(relate::spread_weights(&[0.7, 0.3], &[0.0, 0.0]), [0.7, 0.3]);
}

#[test]
fn spread_weights_make_the_joined_cosine_the_mean_of_standardised_views() {
    // Two views of 2 cards and 3 clues: z(joined cosine) = z(½·z(cos_a) + ½·z(cos_b)) over
    // the card–clue pairs, whatever their spreads.
    let a = unit_rows(
        3,
        &[
            1.0, 0.2, 0.0, 0.1, 1.0, 0.3, 0.9, 0.1, 0.4, 0.2, 0.8, 0.5, 0.3, 0.3, 1.0,
        ],
    );
    let b = unit_rows(2, &[1.0, 0.1, 0.2, 1.0, 1.0, 0.9, 0.3, 1.0, 1.0, 0.0]);
    let (cards, clues) = ([0u32, 1], [2u32, 3, 4]);
    let cos = |m: &Mat| -> Vec<f32> {
        let mut out = Vec::new();
        for &t in &cards {
            for &c in &clues {
                out.push(
                    m.row(t as usize)
                        .iter()
                        .zip(m.row(c as usize))
                        .map(|(p, q)| p * q)
                        .sum(),
                );
            }
        }
        out
    };
    let z = |v: &[f32]| -> Vec<f32> {
        let s = Scale::of(v);
        v.iter().map(|&x| s.z(x)).collect()
    };
    let spreads = [&a, &b].map(|m| relate::cosine_spread(m, &cards, &clues));
    let w = relate::spread_weights(&[0.5, 0.5], &spreads);
    let joined = z(&cos(&relate::join_all(&[(&a, w[0]), (&b, w[1])])));
    let (za, zb) = (z(&cos(&a)), z(&cos(&b)));
    let mean: Vec<f32> = za.iter().zip(&zb).map(|(x, y)| 0.5 * x + 0.5 * y).collect();
    for (x, y) in joined.iter().zip(z(&mean)) {
        assert!((x - y).abs() < 1e-4, "{joined:?}");
    }
}
