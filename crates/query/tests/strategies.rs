//! The strategies through the [`query::Knowledge`] trait, as the CLI will call them.

mod common;

use common::MemoryKnowledge;
use query::game::{Answer, Request, Strategy, StrategyKind};
use query::herfindahl::{self, HerfindahlParams};
use query::legality::{FnLexicon, Legality, NoLexicon};
use query::threshold::{self, ThresholdParams};

fn request(pos: &[&str], neg: &[&str], assassin: Option<&str>) -> Request {
    Request {
        pos: pos.iter().map(|s| s.to_string()).collect(),
        neg: neg.iter().map(|s| s.to_string()).collect(),
        assassin: assassin.map(String::from),
        ..Default::default()
    }
}

fn fruit_knowledge() -> MemoryKnowledge {
    let mut k = MemoryKnowledge::default();
    k.score("fruit", "apple", 0.8)
        .score("fruit", "orange", 0.7)
        .score("fruit", "fire", 0.1)
        .score("juice", "orange", 0.6)
        .score("juice", "death", 0.55)
        .score("tree", "apple", 0.5)
        .score("tree", "fire", 0.6)
        .score("pineapple", "apple", 0.95)
        .score("apples", "apple", 0.99)
        .score("the", "apple", 0.99)
        // Repeated clue: the maximum counts.
        .score("fruit", "apple", 0.3);
    k
}

#[test]
fn threshold_through_knowledge_and_lexicon() {
    let k = fruit_knowledge();
    let req = request(&["apple", "orange"], &["fire"], Some("death"));
    let lex = FnLexicon {
        inflection: |a: &str, b: &str| {
            (a, b) == ("apples", "apple") || (a, b) == ("apple", "apples")
        },
        stopword: |w: &str| w == "the",
    };
    let board = req.board_words();
    let legality = Legality::new(&board, &lex);
    let got = threshold::suggest(&k, &req, &legality, &ThresholdParams::default()).unwrap();
    // fruit: threshold 0.1 (fire): 0.8 + 0.7 = 1.5, count 2. juice: 0.55 + 0.1 = 0.65 > 0.6: out.
    // tree: 0.6 (fire) > 0.5: out. pineapple, apples, the: illegal.
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].clue, "fruit");
    assert_eq!(got[0].count, 2);
    assert_eq!(got[0].targets, vec!["apple", "orange"]);
    assert!((got[0].score - 1.5).abs() < 1e-12);
    // Without the lexicon, "the" is legal (score 0.99, one target); "apples" still contains
    // the card "apple".
    let plain = Legality::new(&board, &NoLexicon);
    let got = threshold::suggest(&k, &req, &plain, &ThresholdParams::default()).unwrap();
    let clues: Vec<&str> = got.iter().map(|s| s.clue.as_str()).collect();
    assert_eq!(clues, vec!["fruit", "the"]);
}

#[test]
fn the_assassin_margin_reaches_both_strategies() {
    let k = fruit_knowledge();
    let req = request(&["apple", "orange"], &["fire"], Some("death"));
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    let clues = |s: StrategyKind| -> Vec<String> {
        s.suggest(&k, &req, &legality)
            .unwrap()
            .into_iter()
            .map(|s| s.clue)
            .collect()
    };
    let threshold: StrategyKind = "threshold".parse().unwrap();
    // juice: 0.6 with orange, 0.55 with the assassin: out with the default 0.1, in with 0.
    assert!(!clues(threshold).contains(&"juice".to_string()));
    assert!(clues(threshold.with_assassin_margin(0.0)).contains(&"juice".to_string()));
    let herfindahl: StrategyKind = "herfindahl".parse().unwrap();
    match herfindahl.with_assassin_margin(0.25) {
        StrategyKind::Herfindahl(p) => assert_eq!(p.assassin_margin, 0.25),
        other => panic!("{other:?}"),
    }
}

#[test]
fn answer_json_contract() {
    let k = fruit_knowledge();
    let req = request(&["apple", "orange"], &["fire"], None);
    let board = req.board_words();
    let legality = Legality::new(&board, &NoLexicon);
    let strategy: StrategyKind = "threshold".parse().unwrap();
    let ranked = strategy.suggest(&k, &req, &legality).unwrap();
    let answer = Answer::new(strategy.name(), ranked);
    let json = serde_json::to_value(&answer).unwrap();
    assert_eq!(json["clue"], "fruit");
    assert_eq!(json["count"], 2);
    assert_eq!(json["targets"], serde_json::json!(["apple", "orange"]));
    assert_eq!(json["strategy"], "threshold");
    // Without a lexicon "the" (0.99) is legal; without the assassin, juice (0.6) is safe.
    assert_eq!(json["alternatives"][0]["clue"], "the");
    assert_eq!(json["alternatives"][1]["clue"], "juice");
    assert_eq!(
        json["alternatives"][1]["targets"],
        serde_json::json!(["orange"])
    );
    // The contract fixes the key order, which a `serde_json::Value` (keys sorted) cannot show:
    // compare the text `clue-db suggest --json` prints.
    assert_eq!(
        serde_json::to_string(&answer).unwrap(),
        r#"{"clue":"fruit","count":2,"targets":["apple","orange"],"score":1.5,"strategy":"threshold","alternatives":[{"clue":"the","count":1,"targets":["apple"],"score":0.99},{"clue":"juice","count":1,"targets":["orange"],"score":0.6}],"warnings":[]}"#
    );
    // Words the database does not know come last, every other key unchanged and in order.
    let mut warned = answer.clone();
    warned.warnings = vec!["\"qzxv\" is not a word the database knows".to_string()];
    let text = serde_json::to_string(&warned).unwrap();
    let plain = serde_json::to_string(&answer).unwrap();
    assert_eq!(
        text,
        format!(
            r#"{},"warnings":["\"qzxv\" is not a word the database knows"]}}"#,
            plain.strip_suffix(r#","warnings":[]}"#).unwrap()
        )
    );
    assert_eq!(serde_json::from_str::<Answer>(&text).unwrap(), warned);
    // An answer without the key (as written before it existed) still reads.
    let old = plain.replace(r#","warnings":[]"#, "");
    assert_eq!(serde_json::from_str::<Answer>(&old).unwrap(), answer);
    // No safe clue: null clue, count 0, no targets.
    let none = Answer::new("threshold", Vec::new());
    assert_eq!(
        serde_json::to_string(&none).unwrap(),
        r#"{"clue":null,"count":0,"targets":[],"score":0.0,"strategy":"threshold","alternatives":[],"warnings":[]}"#
    );
    assert!("random".parse::<StrategyKind>().is_err());
    // A name is read in any case, as a card word is; the error shows it as typed.
    for (typed, name) in [("Relatedness", "relatedness"), (" SETNET ", "setnet")] {
        assert_eq!(typed.parse::<StrategyKind>().unwrap().as_str(), name);
    }
    let err = "Random".parse::<StrategyKind>().unwrap_err().to_string();
    assert!(
        err.contains("\"Random\"") && err.contains("relatedness"),
        "{err}"
    );
}

#[test]
fn herfindahl_through_knowledge() {
    let mut k = MemoryKnowledge::default();
    k.doc(
        "river",
        &[("water", 5), ("boat", 4), ("fish", 2), ("flow", 3)],
    )
    .doc(
        "lake",
        &[("water", 4), ("boat", 5), ("fish", 2), ("shore", 3)],
    )
    .doc("bank", &[("cash", 5), ("vault", 3), ("interest", 4)])
    .doc("money", &[("cash", 4), ("coin", 3), ("interest", 5)])
    .doc("loan", &[("interest", 5), ("cash", 4), ("debt", 3)])
    .doc("angler", &[("fish", 9), ("hook", 2)])
    // The negative term's document is mostly "boat".
    .doc("ship", &[("boat", 9), ("sail", 4)])
    // What the guesser will read: a target must score with the clue.
    .score("interest", "loan", 0.3)
    .score("water", "lake", 0.4)
    .score("boat", "river", 0.2);
    let req = request(
        &["river", "lake", "bank", "money", "loan"],
        &["ship"],
        Some("angler"),
    );
    let board = req.board_words();
    let legality = Legality::new(&board, &NoLexicon);
    let got = herfindahl::suggest(&k, &req, &legality, &HerfindahlParams::default()).unwrap();
    let brief: Vec<(&str, usize)> = got.iter().map(|s| (s.clue.as_str(), s.count)).collect();
    // "interest" for the bank cluster; "boat" is now most concentrated in "ship" (r = 1 vs a
    // cluster mean of 0.9), so "water" is the river/lake clue. interest: m = 14/15, H_document
    // = H*(0.8, 1, 1); water: m = 0.9, H_document = H*(1, 0.8); H_cluster = 1 for both. Only
    // the members that score with the clue are targets (loan; lake), so each counts 1.
    assert_eq!(brief[..2], [("interest", 1), ("water", 1)]);
    let h = |v: &[f64]| herfindahl::h_star(v);
    assert!((got[0].score - 14.0 / 15.0 * (1.0 - h(&[0.8, 1.0, 1.0]))).abs() < 1e-12);
    assert!((got[1].score - 0.9 * (1.0 - h(&[1.0, 0.8]))).abs() < 1e-12);
    assert_eq!(got[0].targets, vec!["loan"]);
    assert_eq!(got[1].targets, vec!["lake"]);
    // Ignoring negatives, "boat" (alphabetically first of the tie, one scored target each)
    // comes back.
    let params = HerfindahlParams {
        use_negatives: false,
        ..Default::default()
    };
    // The best clue for the river/lake cluster.
    let river = |got: &[query::game::Suggestion]| {
        got.iter()
            .find(|s| s.targets.iter().any(|t| t == "river" || t == "lake"))
            .cloned()
            .unwrap()
    };
    let got = herfindahl::suggest(&k, &req, &legality, &params).unwrap();
    assert_eq!((river(&got).clue.as_str(), river(&got).count), ("boat", 1));
    // A clue nobody scores with is not offered: without its "boat" score, "water" is back; and
    // without the check (the published method), unscored "boat" is, for both documents.
    let mut unscored = k.clone();
    unscored.remove_score("boat", "river");
    let got = herfindahl::suggest(&unscored, &req, &legality, &params).unwrap();
    assert_eq!(river(&got).clue, "water");
    let published = HerfindahlParams {
        check_scores: false,
        ..params
    };
    let got = herfindahl::suggest(&unscored, &req, &legality, &published).unwrap();
    assert_eq!(river(&got).clue, "boat");
    assert_eq!(river(&got).targets, vec!["river", "lake"]);
    // top = 1 keeps the best.
    let one = HerfindahlParams {
        top: 1,
        ..Default::default()
    };
    assert_eq!(
        herfindahl::suggest(&k, &req, &legality, &one)
            .unwrap()
            .len(),
        1
    );
    // Nothing to do without positive terms.
    let empty = request(&[], &["ship"], None);
    assert!(
        herfindahl::suggest(&k, &empty, &legality, &params)
            .unwrap()
            .is_empty()
    );
}

/// Three water terms (one cluster), "moon" (a cluster of one), the assassin "london" and the
/// negative "ship". Each water document's most frequent word is its own (count 10), so the
/// shared words have r below 1 there; r = count / 10 everywhere (every document lacks some
/// word of the vocabulary, so its minimum is 0).
fn water_board() -> (MemoryKnowledge, Request) {
    let mut k = MemoryKnowledge::default();
    k.doc(
        "river",
        &[("delta", 10), ("water", 9), ("fish", 6), ("boat", 4)],
    )
    .doc(
        "lake",
        &[("shore", 10), ("water", 8), ("fish", 6), ("boat", 4)],
    )
    .doc("stream", &[("brook", 10), ("water", 7), ("boat", 4)])
    .doc("moon", &[("crater", 10), ("orbit", 7)])
    .doc("london", &[("tower", 5), ("bridge", 4)])
    .doc("ship", &[("hull", 5), ("sail", 4)])
    .score("water", "river", 0.5)
    .score("water", "lake", 0.4)
    .score("water", "stream", 0.3)
    .score("crater", "moon", 0.6)
    .score("orbit", "moon", 0.2)
    .score("fish", "river", 0.4)
    .score("fish", "lake", 0.4)
    // stream scores with "fish" but its document has no "fish": not a target.
    .score("fish", "stream", 0.3)
    .score("boat", "river", 0.5)
    .score("boat", "lake", 0.35)
    .score("boat", "stream", 0.45)
    // The assassin: boat's bar is 0.3 + 0.1 = 0.4, so lake (0.35) is no target.
    .score("boat", "london", 0.3);
    let req = request(
        &["river", "lake", "stream", "moon"],
        &["ship"],
        Some("london"),
    );
    (k, req)
}

fn brief(got: &[query::game::Suggestion]) -> Vec<(&str, usize, f64)> {
    got.iter()
        .map(|s| (s.clue.as_str(), s.count, (s.score * 1e6).round() / 1e6))
        .collect()
}

#[test]
fn herfindahl_ranks_by_weight_times_count() {
    let (k, req) = water_board();
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    let params = HerfindahlParams::default();
    let a = herfindahl::analyse(&k, &req, &legality, &params).unwrap();
    assert_eq!(a.clustering.labels, vec![0, 0, 0, 1]);
    // water: r = (0.9, 0.8, 0.7), m = 0.8, H_cluster = 1 (nowhere else), H_document =
    // H*(0.375, 1/3, 0.2917) = 1/192: weight 0.8 · 191/192 = 0.795833. crater: r = 1 in a
    // one-document cluster: H_document = 0, weight 1. By weight alone the singleton wins;
    // summed over its three targets, water does.
    let weight = |cluster: usize, clue: &str| {
        a.clusters[cluster]
            .picks
            .iter()
            .find(|p| p.suggestion.clue == clue)
            .map(|p| p.weight)
            .unwrap()
    };
    assert!((weight(0, "water") - 0.8 * 191.0 / 192.0).abs() < 1e-12);
    assert_eq!(weight(1, "crater"), 1.0);
    let got = herfindahl::suggest(&k, &req, &legality, &params).unwrap();
    // boat: r = 0.4 in each document, weight 0.4, two targets (lake is under the assassin's
    // bar): 0.8. orbit: 0.7. fish: r = (0.6, 0.6, 0), m = 0.4, H_document = H*(½, ½, 0) = ¼,
    // weight 0.3, two targets (stream's document lacks it): 0.6.
    assert_eq!(
        brief(&got),
        vec![
            ("water", 3, 2.3875),
            ("crater", 1, 1.0),
            ("boat", 2, 0.8),
            ("orbit", 1, 0.7),
            ("fish", 2, 0.6),
        ]
    );
    assert_eq!(got[0].targets, vec!["river", "lake", "stream"]);
    assert_eq!(got[2].targets, vec!["river", "stream"]);
    assert_eq!(got[4].targets, vec!["river", "lake"]);
}

#[test]
fn herfindahl_targets_must_beat_the_negatives_in_scores() {
    let (mut k, req) = water_board();
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    let find = |got: &[query::game::Suggestion], clue: &str| {
        got.iter()
            .find(|s| s.clue == clue)
            .map(|s| s.targets.clone())
    };
    // The published method (documents only): boat is meant for all three.
    let published = HerfindahlParams {
        check_scores: false,
        ..Default::default()
    };
    let got = herfindahl::suggest(&k, &req, &legality, &published).unwrap();
    assert_eq!(find(&got, "boat").unwrap(), vec!["river", "lake", "stream"]);
    // With no assassin margin, lake's 0.35 clears the assassin's 0.3.
    let no_margin = HerfindahlParams {
        assassin_margin: 0.0,
        ..Default::default()
    };
    let got = herfindahl::suggest(&k, &req, &legality, &no_margin).unwrap();
    assert_eq!(find(&got, "boat").unwrap(), vec!["river", "lake", "stream"]);
    // A negative card scoring 0.45 with boat: stream's 0.45 does not exceed it.
    k.score("boat", "ship", 0.45);
    let got = herfindahl::suggest(&k, &req, &legality, &HerfindahlParams::default()).unwrap();
    assert_eq!(find(&got, "boat").unwrap(), vec!["river"]);
    // Above every target: no target is left, and the clue is not offered.
    k.score("boat", "ship", 0.6);
    let got = herfindahl::suggest(&k, &req, &legality, &HerfindahlParams::default()).unwrap();
    assert_eq!(find(&got, "boat"), None);
    assert_eq!(got[0].clue, "water");
}

#[test]
fn herfindahl_analysis_serializes() {
    let mut k = MemoryKnowledge::default();
    // "zinc" keeps beta from holding the whole vocabulary (its minimum would then be 1).
    k.doc("alpha", &[("xenon", 1), ("zinc", 1)])
        .doc("beta", &[("xenon", 1), ("yarn", 2)])
        .score("xenon", "beta", 0.1)
        .score("xenon", "alpha", 0.1);
    let req = request(&["alpha", "beta"], &[], None);
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    let a = herfindahl::analyse(&k, &req, &legality, &HerfindahlParams::default()).unwrap();
    // Two terms, nothing to avoid: one cluster in all, H_cluster = 1.
    // xenon: r = (1, 0.5), m = 0.75, H_document = H*(2/3, 1/3) = (5/9 − 1/2)/(1/2) = 1/9,
    // weight = 0.75 · 8/9 = 2/3, score 2/3 · 2 targets. yarn, zinc: one document each,
    // H_document = 1, weight 0.
    assert_eq!(a.clustering.k, 1);
    assert_eq!(a.clusters.len(), 1);
    let best = &a.clusters[0].picks[0];
    assert_eq!(
        (best.suggestion.clue.as_str(), best.suggestion.count),
        ("xenon", 2)
    );
    assert_eq!(best.suggestion.targets, vec!["alpha", "beta"]);
    assert!((best.weight - 2.0 / 3.0).abs() < 1e-12);
    assert!((best.suggestion.score - 4.0 / 3.0).abs() < 1e-12);
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["clustering"]["labels"], serde_json::json!([0, 0]));
    assert_eq!(json["clusters"][0]["picks"][0]["clue"], "xenon");
}

/// "fruit" scores with both team cards and best of all with "lemon", a covered card word that
/// is not on the board; "red" scores with apple only. "fire" is covered (through "smoke").
fn risk_knowledge() -> MemoryKnowledge {
    let mut k = MemoryKnowledge::default();
    k.score("fruit", "apple", 0.8)
        .score("fruit", "orange", 0.7)
        .score("fruit", "lemon", 0.9)
        .score("red", "apple", 0.6)
        .score("smoke", "fire", 0.5);
    k
}

#[test]
fn an_unknown_card_to_avoid_is_a_risk_for_threshold_and_herfindahl() {
    use query::Knowledge;
    let k = risk_knowledge();
    let brief = |got: &[query::game::Suggestion]| -> Vec<(String, usize)> {
        got.iter().map(|s| (s.clue.clone(), s.count)).collect()
    };
    let run = |req: &Request| {
        let legality = Legality::new(&req.board_words(), &NoLexicon);
        threshold::suggest(&k, req, &legality, &ThresholdParams::default()).unwrap()
    };
    // Known cards only: fruit leads both team cards (fire has no fruit score).
    let known = request(&["apple", "orange"], &["fire"], None);
    assert_eq!(
        brief(&run(&known)),
        [("fruit".to_string(), 2), ("red".to_string(), 1)]
    );
    // An unknown opponent card is not "unrelated": it counts, for each clue, at the clue's
    // best score with a covered term other than the team's cards. fruit: lemon's 0.9, above
    // both targets; red: no such term, 0.
    let unknown = request(&["apple", "orange"], &["fire", "zzunknown"], None);
    assert_eq!(brief(&run(&unknown)), [("red".to_string(), 1)]);
    let risk = threshold::unknown_risk(&k, &unknown.pos).unwrap();
    assert_eq!(risk.get("fruit"), Some(&0.9));
    assert_eq!(risk.get("smoke"), Some(&0.5));
    assert_eq!(risk.get("red"), None);
    // Two unknown cards count once (the same map), beside each covered one.
    let two = request(&["apple", "orange"], &["fire", "zzone", "zztwo"], None);
    let (neg, _) = threshold::avoid_maps(&k, &two).unwrap();
    assert_eq!(neg.len(), 2);
    assert_eq!(neg[1].get("fruit"), Some(&0.9));
    assert_eq!(brief(&run(&two)), [("red".to_string(), 1)]);
    // As the assassin, the margin comes on top.
    let assassin = request(&["apple", "orange"], &["fire"], Some("zzunknown"));
    let (neg, a) = threshold::avoid_maps(&k, &assassin).unwrap();
    assert_eq!(neg.len(), 1);
    assert_eq!(a.as_ref().and_then(|m| m.get("fruit")), Some(&0.9));
    assert_eq!(brief(&run(&assassin)), [("red".to_string(), 1)]);
    // The best scores per clue, best first (the default reads every covered term's clues).
    let tops = k.top_scores().unwrap();
    assert_eq!(
        tops["fruit"],
        vec![
            ("lemon".to_string(), 0.9),
            ("apple".to_string(), 0.8),
            ("orange".to_string(), 0.7)
        ]
    );
    // herfindahl checks its targets by the same bar.
    let scores = herfindahl::BoardScores::read(&k, &unknown, 0.1).unwrap();
    assert_eq!(scores.threshold("fruit"), 0.9);
    assert_eq!(
        herfindahl::BoardScores::read(&k, &known, 0.1)
            .unwrap()
            .threshold("fruit"),
        0.0
    );
    let mut with_docs = k.clone();
    with_docs
        .doc("apple", &[("fruit", 5), ("red", 4), ("core", 1)])
        .doc("orange", &[("fruit", 5), ("peel", 3)]);
    let legality = Legality::new(&unknown.board_words(), &NoLexicon);
    let p = HerfindahlParams::default();
    let got = herfindahl::suggest(&with_docs, &known, &legality, &p).unwrap();
    assert!(got.iter().any(|s| s.clue == "fruit"), "{got:?}");
    let got = herfindahl::suggest(&with_docs, &unknown, &legality, &p).unwrap();
    assert!(got.iter().all(|s| s.clue != "fruit"), "{got:?}");
}
