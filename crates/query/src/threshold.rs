//! The "threshold" strategy: a clue counts for a positive term only when it is more related to
//! it than to every card the team must avoid.
//!
//! For each candidate clue (any clue of any positive term, legal on the board):
//! - threshold = the highest score of the clue with any negative term, and, when the clue has a
//!   score with the assassin, that score plus [`ThresholdParams::assassin_margin`] (the assassin
//!   ends the game, so it gets a stricter margin). A clue with no recorded score for a card is
//!   taken as unrelated to it (score 0, and no assassin margin: a margin on a missing score
//!   would only penalise every weak clue alike);
//! - the clue's targets are the positive terms it scores strictly above the threshold; its score
//!   is the sum of those scores and its number the count of targets.
//!
//! Ranking: score descending, then count descending, then the clue alphabetically, so results
//! are deterministic.

use std::collections::{BTreeSet, HashMap};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::Knowledge;
use crate::legality::Legality;
use crate::request::{Request, Suggestion};

/// A card's clues and their scores. Hashed, not ordered: a board looks up thousands of
/// candidate clues in each card's map, and string-ordered trees spent most of `suggest` in
/// comparisons (results are sorted with full tie-breaks afterwards, so order never leaks).
pub type ClueMap = HashMap<String, f64>;

/// Parameters of the threshold strategy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThresholdParams {
    /// Added to the clue's score with the assassin to form its threshold. Default 0.1: scores
    /// are in [0, 1] and a 0.1 gap is where a single extra mention on a well-ranked page lands
    /// (`1 - 0.7^n` moves by 0.09 from n = 1 to n = 2 at `PR/6 = 0.3`).
    pub assassin_margin: f64,
    /// How many suggestions to return.
    pub top: usize,
}

/// The default of [`ThresholdParams::assassin_margin`], shared by the herfindahl strategy's
/// check of its targets against `scores` so both strategies call a card safe by one rule.
pub const DEFAULT_ASSASSIN_MARGIN: f64 = 0.1;

impl Default for ThresholdParams {
    fn default() -> Self {
        ThresholdParams {
            assassin_margin: DEFAULT_ASSASSIN_MARGIN,
            top: 10,
        }
    }
}

/// The score a positive term must exceed for `clue` to be meant for it: the clue's highest
/// score with any negative card, raised to its score with the assassin plus `assassin_margin`
/// when it has one (a missing score counts as 0, with no margin).
pub fn safety_threshold(
    clue: &str,
    neg: &[ClueMap],
    assassin: Option<&ClueMap>,
    assassin_margin: f64,
) -> f64 {
    let mut threshold = neg
        .iter()
        .filter_map(|m| m.get(clue))
        .fold(0.0f64, |a, &b| a.max(b));
    if let Some(s) = assassin.and_then(|m| m.get(clue)) {
        threshold = threshold.max(s + assassin_margin);
    }
    threshold
}

/// A term's clues as a map, keeping the maximum when the source repeats a clue and ignoring
/// scores that are not finite (they cannot be compared).
pub fn clue_map<K: Knowledge + ?Sized>(k: &K, term: &str) -> anyhow::Result<ClueMap> {
    let mut map = ClueMap::new();
    let clues = k
        .clues_of(term)
        .map_err(|e| e.context(format!("reading the clues of {term:?}")))?;
    for (clue, score) in clues {
        if !score.is_finite() {
            continue;
        }
        let slot = map.entry(clue).or_insert(score);
        if score > *slot {
            *slot = score;
        }
    }
    Ok(map)
}

/// How many of each clue's best scores [`Knowledge::top_scores`] keeps: more than a team has
/// cards (9), so that the best score with a card other than the team's is among them.
pub const TOP_SCORES: usize = 10;

/// The clue maps of the request's cards to avoid (the covered ones in [`Request::avoid`] order,
/// then one map for all the others, if any) and of its assassin. A card word the knowledge does not cover has no scores, which the rule would read
/// as "unrelated to every clue", i.e. safe. It counts instead as a risk ([`unknown_risk`]):
/// for each clue, the clue's highest score with a covered term that is not one of the team's
/// cards, as if it were the card word the clue relates to most after the team's own. The
/// knowledge's best scores are read only when such a word is on the board.
pub fn avoid_maps<K: Knowledge + ?Sized>(
    k: &K,
    req: &Request,
) -> anyhow::Result<(Vec<ClueMap>, Option<ClueMap>)> {
    let covered: std::collections::HashSet<String> = k.terms()?.into_iter().collect();
    let mut risk: Option<ClueMap> = None;
    let mut risk_of = || -> anyhow::Result<ClueMap> {
        if risk.is_none() {
            risk = Some(unknown_risk(k, &req.pos)?);
        }
        Ok(risk.clone().unwrap_or_default())
    };
    let mut neg = Vec::new();
    let mut unknown_neg = false;
    for w in req.avoid() {
        if covered.contains(&w) {
            neg.push(clue_map(k, &w)?);
        } else {
            unknown_neg = true;
        }
    }
    // Every unknown card has the same map: once is enough for the highest score.
    if unknown_neg {
        neg.push(risk_of()?);
    }
    let assassin = match &req.assassin {
        Some(a) if covered.contains(a) => Some(clue_map(k, a)?),
        Some(_) => Some(risk_of()?),
        None => None,
    };
    Ok((neg, assassin))
}

/// What a card word the knowledge does not cover is assumed to score with each clue: the
/// clue's highest score with a covered term other than the team's cards `pos` (clues with no
/// such score are left out: 0). [`Knowledge::unknown_risk`] reads it.
pub fn unknown_risk<K: Knowledge + ?Sized>(k: &K, pos: &[String]) -> anyhow::Result<ClueMap> {
    k.unknown_risk(pos)
        .context("reading each clue's best score with a card word not on the team")
}

/// [`unknown_risk`] from each clue's best scores.
pub fn risk_from_tops(tops: &crate::TopScores, pos: &[String]) -> ClueMap {
    tops.iter()
        .filter_map(|(clue, best)| {
            best.iter()
                .find(|(term, _)| !pos.contains(term))
                .map(|(_, s)| (clue.clone(), *s))
        })
        .collect()
}

/// The ranked suggestions for `req` (best first, at most `params.top`); empty when no clue
/// reaches any positive term safely.
pub fn suggest<K: Knowledge + ?Sized>(
    k: &K,
    req: &Request,
    legality: &Legality<'_>,
    params: &ThresholdParams,
) -> anyhow::Result<Vec<Suggestion>> {
    let pos = req
        .pos
        .iter()
        .map(|t| Ok((t.clone(), clue_map(k, t)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (neg, assassin) = avoid_maps(k, req)?;
    Ok(rank(&pos, &neg, assassin.as_ref(), legality, params))
}

/// The strategy on clue maps already read: `pos` pairs each positive term with its clues.
pub fn rank(
    pos: &[(String, ClueMap)],
    neg: &[ClueMap],
    assassin: Option<&ClueMap>,
    legality: &Legality<'_>,
    params: &ThresholdParams,
) -> Vec<Suggestion> {
    let candidates: BTreeSet<&String> = pos.iter().flat_map(|(_, m)| m.keys()).collect();
    let mut out = Vec::new();
    for clue in candidates {
        let threshold = safety_threshold(clue, neg, assassin, params.assassin_margin);
        let mut targets: Vec<(&String, f64)> = pos
            .iter()
            .filter_map(|(term, m)| m.get(clue).map(|&s| (term, s)))
            .filter(|&(_, s)| s > threshold)
            .collect();
        if targets.is_empty() {
            continue;
        }
        targets.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        out.push(Suggestion {
            clue: clue.clone(),
            count: targets.len(),
            score: targets.iter().map(|t| t.1).sum(),
            targets: targets.into_iter().map(|t| t.0.clone()).collect(),
            safety: None,
            level: None,
        });
    }
    crate::request::sort_suggestions(&mut out);
    // Legality (inflection look-ups against every card) is the costly test: apply it best
    // first, and only until `top` clues pass.
    out.into_iter()
        .filter(|s| legality.allows(&s.clue))
        .take(params.top)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::NoLexicon;

    fn m(pairs: &[(&str, f64)]) -> ClueMap {
        pairs.iter().map(|&(c, s)| (c.to_string(), s)).collect()
    }

    #[test]
    fn thresholds_margin_and_ties() {
        let pos = vec![
            (
                "apple".to_string(),
                m(&[("fruit", 0.8), ("tree", 0.5), ("pie", 0.3), ("red", 0.4)]),
            ),
            (
                "orange".to_string(),
                m(&[("fruit", 0.7), ("juice", 0.6), ("red", 0.4)]),
            ),
            ("cherry".to_string(), m(&[("tree", 0.55), ("pie", 0.5)])),
        ];
        // "fire" is negative: "red" scores 0.45 with it, above both 0.4s.
        let neg = vec![m(&[("red", 0.45), ("tree", 0.2)])];
        // Assassin "death": "pie" 0.35 + 0.1 margin = 0.45 threshold: apple's 0.3 is out,
        // cherry's 0.5 stays. "juice" 0.55 + 0.1 = 0.65 > 0.6: juice is out.
        let assassin = m(&[("pie", 0.35), ("juice", 0.55)]);
        let lex = NoLexicon;
        let legality = Legality::new(&["apple", "orange", "cherry", "fire", "death"], &lex);
        let got = rank(
            &pos,
            &neg,
            Some(&assassin),
            &legality,
            &ThresholdParams::default(),
        );
        let brief: Vec<(&str, usize, f64)> = got
            .iter()
            .map(|s| (s.clue.as_str(), s.count, s.score))
            .collect();
        // fruit 0.8+0.7 = 1.5 (2); tree 0.5+0.55 = 1.05 (2); pie 0.5 (1).
        assert_eq!(brief.len(), 3);
        assert_eq!((brief[0].0, brief[0].1), ("fruit", 2));
        assert!((brief[0].2 - 1.5).abs() < 1e-12);
        assert_eq!((brief[1].0, brief[1].1), ("tree", 2));
        assert!((brief[1].2 - 1.05).abs() < 1e-12);
        assert_eq!(got[1].targets, vec!["cherry", "apple"]);
        assert_eq!((brief[2].0, brief[2].1, brief[2].2), ("pie", 1, 0.5));
        // Without the margin, juice (0.6 > 0.55) comes back.
        let no_margin = ThresholdParams {
            assassin_margin: 0.0,
            top: 10,
        };
        let got = rank(&pos, &neg, Some(&assassin), &legality, &no_margin);
        assert!(got.iter().any(|s| s.clue == "juice" && s.count == 1));
    }

    #[test]
    fn deterministic_ties_and_top() {
        let pos = vec![
            (
                "one".to_string(),
                m(&[("zeta", 0.5), ("beta", 0.5), ("alpha", 0.25)]),
            ),
            ("two".to_string(), m(&[("alpha", 0.25)])),
        ];
        let lex = NoLexicon;
        let legality = Legality::new(&["one", "two"], &lex);
        let params = ThresholdParams {
            top: 10,
            ..Default::default()
        };
        let got = rank(&pos, &[], None, &legality, &params);
        let order: Vec<&str> = got.iter().map(|s| s.clue.as_str()).collect();
        // All score 0.5: alpha has count 2, then beta < zeta alphabetically.
        assert_eq!(order, vec!["alpha", "beta", "zeta"]);
        let top1 = rank(
            &pos,
            &[],
            None,
            &legality,
            &ThresholdParams { top: 1, ..params },
        );
        assert_eq!(top1.len(), 1);
    }

    #[test]
    fn illegal_and_unsafe_clues_give_nothing() {
        let pos = vec![("apple".to_string(), m(&[("pineapple", 0.9), ("core", 0.3)]))];
        let neg = vec![m(&[("core", 0.3)])];
        let lex = NoLexicon;
        let legality = Legality::new(&["apple", "bank"], &lex);
        // pineapple is illegal; core ties the negative (not strictly above).
        assert!(rank(&pos, &neg, None, &legality, &ThresholdParams::default()).is_empty());
    }
}
