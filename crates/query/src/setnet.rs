//! The "setnet" strategy: the set-network spymaster (crate `setnet`, trained by the pipeline's
//! `setnet` stage). For every non-empty subset `t` of the team's cards (511 for 9) the network
//! proposes a clue vector `c(t)`; the subsets it serves best on this board (its own loss in its
//! own space, [`setnet::Model::board_losses`]: the [`SetnetParams::per_size`] best of each size)
//! are decoded to the nearest clue word that may be said (the same [`Legality`] as every
//! strategy: board words, their inflections, `--given`).
//!
//! A decoded word is then judged in the relatedness the network was trained on, with the
//! relatedness strategy's margins and levels ([`crate::relatedness`]): it is said only when
//! every card of `t` scores above every card to avoid (an unknown card at the clue's risk),
//! and among those the candidates that clear the strictest level any of them reaches are kept,
//! ranked by the number of cards and then the weakest card's safety. No safe subset: no
//! suggestion (`"clue": null` from `suggest`); games then call [`Strategy::fallback`], the
//! relatedness strategy's best clue for one card.
//!
//! [`Strategy::fallback`]: crate::strategy::Strategy::fallback

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use setnet::subsets::{MAX_TEAM, members};

use crate::Knowledge;
use crate::legality::Legality;
use crate::relatedness::{
    DEFAULT_ASSASSIN_MARGIN, DEFAULT_NEUTRAL_MARGIN, DEFAULT_OPPONENT_MARGIN, LEVELS, Rows, safety,
    squash,
};
use crate::request::{Request, Suggestion, first_kept, rank_order};

/// Parameters of the setnet strategy: the margins its decoded words are judged by, in the
/// relatedness's units (the relatedness strategy's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SetnetParams {
    pub opponent_margin: f64,
    pub neutral_margin: f64,
    pub assassin_margin: f64,
    /// How many subsets of each size are decoded (the lowest losses on the board): decoding
    /// is a product with every clue word's vector, the query's main cost.
    pub per_size: usize,
    /// How many suggestions to return.
    pub top: usize,
}

impl Default for SetnetParams {
    fn default() -> Self {
        SetnetParams {
            opponent_margin: DEFAULT_OPPONENT_MARGIN,
            neutral_margin: DEFAULT_NEUTRAL_MARGIN,
            assassin_margin: DEFAULT_ASSASSIN_MARGIN,
            per_size: 2,
            top: 10,
        }
    }
}

/// The trained network of a database with the card words its embedding rows stand for.
pub struct Trained {
    pub model: setnet::Model,
    /// Card word → row of [`setnet::Model::cards`].
    pub cards: HashMap<String, usize>,
}

impl std::fmt::Debug for Trained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trained")
            .field("d", &self.model.d)
            .field("cards", &self.model.card_count())
            .field("clues", &self.model.clue_count())
            .finish()
    }
}

/// The table the network lives in, for messages.
const TABLE: &str = store::SETNET_TABLE;

impl Trained {
    /// From the rows of `setnet_weights` (`None`: the table is missing), the card words in
    /// the order the stage read them (sorted) and the number of clue words; every mismatch is
    /// an error naming the table.
    pub fn from_rows(
        rows: Option<Vec<store::WeightRow>>,
        card_words: Vec<String>,
        clue_words: usize,
        alphas: setnet::Alphas,
        skipped: Option<String>,
    ) -> Result<Trained> {
        let Some(rows) = rows else {
            bail!(
                "the database has no table {TABLE} (built before the set network): run \
                 `clue-db pipeline setnet --db …` or rebuild with `make pipeline`"
            );
        };
        if rows.is_empty() {
            bail!(
                "table {TABLE} is empty: the set network was not trained{}; run \
                 `clue-db pipeline setnet`",
                skipped
                    .filter(|s| !s.is_empty())
                    .map(|s| format!(" ({s})"))
                    .unwrap_or_default()
            );
        }
        let tensors = rows
            .iter()
            .map(|(n, s, d)| setnet::Tensor::from_stored(n, s, d))
            .collect::<Result<Vec<_>>>()
            .with_context(|| format!("reading table {TABLE}"))?;
        let model = setnet::Model::from_tensors(&tensors, alphas)
            .with_context(|| format!("reading table {TABLE}"))?;
        if model.card_count() != card_words.len() || model.clue_count() != clue_words {
            bail!(
                "table {TABLE} holds {} card words and {} clue words, the relatedness {} and {}: \
                 it was trained on another relatedness; run `clue-db pipeline setnet`",
                model.card_count(),
                model.clue_count(),
                card_words.len(),
                clue_words
            );
        }
        let cards = card_words
            .into_iter()
            .enumerate()
            .map(|(i, w)| (w, i))
            .collect();
        Ok(Trained { model, cards })
    }

    /// A card word's embedding, when it has one.
    pub fn card(&self, w: &str) -> Option<&[f32]> {
        self.cards.get(w).map(|&i| self.model.card(i))
    }

    /// The Euclidean distance between a clue word's and a card word's embedding (what the
    /// losses measure); `None` when either has none.
    pub fn distance(&self, clue: usize, card: &str) -> Option<f32> {
        let d = self.model.d;
        let v = self.model.clues.get(clue * d..(clue + 1) * d)?;
        let c = self.card(card)?;
        Some(
            v.iter()
                .zip(c)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f32>()
                .sqrt(),
        )
    }
}

/// Alphas from `meta` (`setnet.alpha_*`), the training defaults where absent.
pub fn alphas_from(meta: impl Fn(&str) -> Option<String>) -> setnet::Alphas {
    let d = setnet::Params::default().alphas;
    let get = |k: &str, x: f64| meta(k).and_then(|v| v.parse().ok()).unwrap_or(x);
    setnet::Alphas {
        enemy: get("setnet.alpha_enemy", d.enemy),
        civilian: get("setnet.alpha_civilian", d.civilian),
        assassin: get("setnet.alpha_assassin", d.assassin),
    }
}

/// A decoded subset: its cards (indices into the team), the clue word, the weakest card's
/// safety.
struct Candidate {
    targets: Vec<usize>,
    clue: usize,
    safety: f64,
}

/// How many of the nearest clue words are kept per decoded subset: most boards find one that
/// may be said among them (a sort of all clue words costs more than the network).
const HEAD: usize = 16;

/// The nearest clue word to the clue vector `q` that may be said: the first legal word of its
/// `head` (the [`HEAD`] nearest, from [`setnet::Model::nearest`]), else of the whole order
/// (sorted only as far as the first legal word: [`first_kept`]).
fn nearest_legal(
    m: &setnet::Model,
    q: &[f32],
    head: &[u32],
    words: &[String],
    legality: &Legality<'_>,
) -> Option<usize> {
    if let Some(&j) = head.iter().find(|&&j| legality.allows(&words[j as usize])) {
        return Some(j as usize);
    }
    let row = m.closeness(q, 1);
    let mut idx: Vec<usize> = (0..row.len()).collect();
    first_kept(
        &mut idx,
        1,
        |&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)),
        |&j| legality.allows(&words[j]),
    )
    .first()
    .map(|&&j| j)
}

/// The embeddings of the words that have one (an unknown card is left out of the network's
/// input; the margins still count it, at the clue's risk).
fn embedded<'a>(net: &'a Trained, words: &[String]) -> Vec<&'a [f32]> {
    words.iter().filter_map(|w| net.card(w)).collect()
}

pub fn suggest(
    k: &dyn Knowledge,
    req: &Request,
    legality: &Legality<'_>,
    p: &SetnetParams,
) -> Result<Vec<Suggestion>> {
    let net = k.setnet()?;
    let rows = Rows::read(k, req)?;
    // The team: the cards with relatedness and an embedding (an unknown card is never a
    // target), at most MAX_TEAM.
    let team: Vec<(usize, &[f32])> = rows
        .pos
        .iter()
        .enumerate()
        .filter_map(|(i, (w, _))| net.card(w).map(|v| (i, v)))
        .take(MAX_TEAM)
        .collect();
    if team.is_empty() {
        return Ok(Vec::new());
    }
    let enemy = embedded(&net, &req.neg);
    let civilian = embedded(&net, &req.neutral);
    let assassin = req.assassin.as_deref().and_then(|a| net.card(a));
    let team_vecs: Vec<&[f32]> = team.iter().map(|t| t.1).collect();
    let m = &net.model;
    let c = m.clue_vectors(&team_vecs, &enemy, assassin);
    let losses = m.board_losses(&c, &team_vecs, &enemy, &civilian, assassin);
    // A network whose output is no number would answer no clue, and games would play the
    // fallback's clues under its name.
    if !m.all_measurable(&c) || !losses.iter().all(|(_, l)| l.is_finite()) {
        bail!(
            "table {TABLE}: the network's output on this board is not a finite number (weights \
             too large for a trained network); run `clue-db pipeline setnet`"
        );
    }
    // The best subsets of each size by the network's own loss on this board.
    let mut by_size: Vec<Vec<(f32, u32, usize)>> = vec![Vec::new(); team.len() + 1];
    for (i, &(mask, l)) in losses.iter().enumerate() {
        by_size[mask.count_ones() as usize].push((l, mask, i));
    }
    let mut picked: Vec<(u32, usize)> = Vec::new();
    for group in &mut by_size {
        group.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        picked.extend(group.iter().take(p.per_size.max(1)).map(|x| (x.1, x.2)));
    }
    let d = m.d;
    let q: Vec<f32> = picked
        .iter()
        .flat_map(|&(_, i)| c[i * d..(i + 1) * d].iter().copied())
        .collect();
    let heads = m.nearest(&q, picked.len(), HEAD);
    let clues = &rows.clues;
    let margins = [p.opponent_margin, p.neutral_margin, p.assassin_margin];
    let mut candidates: Vec<Candidate> = Vec::new();
    for (r, &(mask, _)) in picked.iter().enumerate() {
        let qr = &q[r * d..(r + 1) * d];
        let Some(j) = nearest_legal(m, qr, &heads[r], &clues.words, legality) else {
            continue;
        };
        let targets: Vec<usize> = members(mask).map(|t| team[t].0).collect();
        let weakest = targets
            .iter()
            .map(|&t| rows.pos[t].1[j] as f64)
            .fold(f64::INFINITY, f64::min);
        let highest = rows.avoid(j);
        let avoid: [(f64, f64); 3] = std::array::from_fn(|i| (highest[i], margins[i]));
        let s = safety(weakest, &avoid);
        if s > 0.0 {
            candidates.push(Candidate {
                targets,
                clue: j,
                safety: s,
            });
        }
    }
    // The strictest of the relatedness strategy's levels some candidate reaches.
    let Some(level) = LEVELS
        .iter()
        .copied()
        .find(|&l| candidates.iter().any(|c| c.safety >= l))
    else {
        return Ok(Vec::new());
    };
    candidates.retain(|c| c.safety >= level);
    let score = |c: &Candidate| c.targets.len() as f64 + squash(c.safety);
    candidates.sort_by(|a, b| {
        rank_order(
            (score(a), a.targets.len(), &clues.words[a.clue]),
            (score(b), b.targets.len(), &clues.words[b.clue]),
        )
    });
    let mut seen = std::collections::HashSet::new();
    Ok(candidates
        .into_iter()
        .filter(|c| seen.insert(c.clue))
        .take(p.top)
        .map(|c| {
            // Targets safest first, as the relatedness strategy lists them.
            let mut targets = c.targets.clone();
            targets.sort_by(|&a, &b| {
                rows.pos[b].1[c.clue]
                    .total_cmp(&rows.pos[a].1[c.clue])
                    .then_with(|| rows.pos[a].0.cmp(&rows.pos[b].0))
            });
            Suggestion {
                clue: clues.words[c.clue].clone(),
                count: targets.len(),
                targets: targets.iter().map(|&t| rows.pos[t].0.clone()).collect(),
                score: score(&c),
                safety: None,
                level: Some(level),
            }
        })
        .collect())
}

/// What `explain` shows for a clue in the set network's space: the subset asked about with
/// each card's distance to the clue word (the distance the losses measure: unit vectors, 0 to
/// 2; `None` for a card with no embedding), and the card words nearest the clue there (what
/// else the clue leads to).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explained {
    pub subset: Vec<(String, Option<f32>)>,
    pub nearest_cards: Vec<(String, f32)>,
}

/// [`Explained`] for `clue` and the cards `subset`; `None` when the clue is no clue word.
pub fn explain(net: &Trained, clue_id: Option<usize>, subset: &[String]) -> Option<Explained> {
    let j = clue_id?;
    let mut nearest: Vec<(String, f32)> = net
        .cards
        .keys()
        .filter_map(|w| net.distance(j, w).map(|d| (w.clone(), d)))
        .collect();
    nearest.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    nearest.truncate(8);
    Some(Explained {
        subset: subset
            .iter()
            .map(|w| (w.clone(), net.distance(j, w)))
            .collect(),
        nearest_cards: nearest,
    })
}

/// The network as [`Knowledge::setnet`] gives it, shared.
pub type Shared = Arc<Trained>;
