//! The "relatedness" strategy: a clue the guesser can follow. The guesser takes cards in order
//! of their relatedness with the clue, so a card is a target only when the clue relates to it
//! more than to every card to avoid, by a margin for each kind of card: the opponent's cards
//! (a wrong guess that also helps the other team), bystanders (a wrong guess that only ends the
//! turn) and the assassin (the game). The number is how many targets clear all three margins,
//! plus at most one last target (below).
//!
//! Relatedness is the `relatedness` stage's dense score (every card word with every clue word:
//! a missing value never reads as "unrelated"). A card word the database does not know is never
//! a target; as a card to avoid it is taken at the clue's risk (a high quantile of its scores
//! with all card words), so it blocks clues rather than being ignored.
//!
//! A target's *safety* is the share λ of the margins it clears (λ ≥ 1: all of them). When no
//! clue clears the whole margins for any card, they are relaxed in steps (¾, ½, ¼, just above
//! 0: the target still ranks above every card to avoid); `"clue": null` only when no clue ranks
//! any team card first. A clue may add one last target that clears only the assassin's margin
//! and ranks above the other cards to avoid (a miss there ends the turn, not the game: see
//! `last_target`). Ranking: more targets first; among clues with as many, what a guesser who
//! reads the whole board would likely take ([`crate::board_model`]: every card near the clue
//! counts, not only the strongest to avoid), or with `board: None` the safer weakest target.
//! Games call [`fallback`] when there is no clue at all, rather than pass turn after turn.

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use crate::board_model::{Board, BoardModel};
use crate::legality::Legality;
use crate::request::{Request, Suggestion, first_kept, rank_order};
use crate::{ClueWords, Knowledge};

/// Parameters of the relatedness strategy; margins are in the units of the relatedness score
/// (standardised: about one standard deviation of all card–clue scores per unit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RelatednessParams {
    /// How far a target must score above every opponent card.
    pub opponent_margin: f64,
    /// How far a target must score above every bystander.
    pub neutral_margin: f64,
    /// How far a target must score above the assassin.
    pub assassin_margin: f64,
    /// The most targets one clue may have (the guesser's errors compound with each card).
    pub max_count: usize,
    /// Whether a clue may add one last target that clears only the assassin's margin and ranks
    /// above the other cards to avoid (`last_target`).
    #[serde(default = "yes")]
    pub last_target: bool,
    /// How clues with as many targets are ranked: by the board model (the default), or with
    /// `None` by the weakest target's safety alone.
    #[serde(default = "board_default")]
    pub board: Option<BoardModel>,
    /// How many suggestions to return.
    pub top: usize,
}

fn yes() -> bool {
    true
}

fn board_default() -> Option<BoardModel> {
    Some(BoardModel::default())
}

impl Default for RelatednessParams {
    fn default() -> Self {
        RelatednessParams {
            opponent_margin: DEFAULT_OPPONENT_MARGIN,
            neutral_margin: DEFAULT_NEUTRAL_MARGIN,
            assassin_margin: DEFAULT_ASSASSIN_MARGIN,
            max_count: 4,
            last_target: true,
            board: board_default(),
            top: 10,
        }
    }
}

/// The default margins, in standard deviations of the relatedness score. Measured with
/// `clue-db eval --guesser vectors:…` (200 games at each of seeds 1, 2 and 3, against the
/// guesser's reference figures): opponent/bystander/assassin 2/1/4 won 86 % of games, 1.5/1/4,
/// 2/0.5/4 and 2/1/3.5 as many within ±1 point, 1/0.5/2 lost to the assassin twice as often, and
/// 2/1.5/5 or 3/1/4 left more cards without a safe clue (docs/evaluation.md, "Quality").
/// Re-measured with both outside guessers once meetings joined the score: 1.5/1/4 won 1–4 points
/// more than 2/1/4
/// with MiniLM (seeds 1–3 and 4–11) and as many with GloVe; an assassin margin of 3 lost 8 points
/// with MiniLM, 5 or 6 won 1–2 points at 1–2 more turns per game. The assassin's 4.1 (4 until
/// the views were weighed in standard deviations): the quicker knowledge spends 0.1 turns per
/// win of its pace on safety, and plays as safely as before (over seeds 1–50 with MiniLM,
/// 16.9 % of games lost to the assassin at 9.93 turns per win; 4: 17.1 % at 9.84; 4.25:
/// 16.4 % at 10.07; docs/evaluation.md, "Judged by people"). 4.5 since boards come from three
/// editions and the text has two more corpora (issue 45): over seeds 1–10 with MiniLM, 4.5 won
/// 1.4, 1.9 and 2.0 points more than 4.1 on boards of the original game, Duet and Deep
/// Undercover, and lost 1.2, 1.6 and 2.0 points fewer games to the assassin, at 0.35–0.4 more
/// turns per win; GloVe as before (docs/evaluation.md, part 10). The new cards are everyday
/// things and names the encyclopaedia relates to the assassin less than people do (`griffin`
/// for a sphinx, with `homer` the assassin).
pub const DEFAULT_OPPONENT_MARGIN: f64 = 1.5;
pub const DEFAULT_NEUTRAL_MARGIN: f64 = 1.0;
pub const DEFAULT_ASSASSIN_MARGIN: f64 = 4.5;

/// The shares of the margins tried in turn when no clue clears them whole (the last, just
/// above 0: a target must still rank above every card to avoid).
pub(crate) const LEVELS: [f64; 5] = [1.0, 0.75, 0.5, 0.25, f64::MIN_POSITIVE];

/// `λ / (1 + λ)`: a safety in [0, 1) that keeps its order (1 for an infinite one).
pub(crate) fn squash(l: f64) -> f64 {
    if l.is_infinite() { 1.0 } else { l / (1.0 + l) }
}

/// How safe a target scoring `s` is against the cards to avoid `(highest score, margin)`: the
/// largest share λ of the margins such that `s` exceeds every `highest + λ·margin` (infinite
/// when nothing is to avoid); 0 or less when some card to avoid scores as high.
pub fn safety(s: f64, avoid: &[(f64, f64)]) -> f64 {
    avoid
        .iter()
        .map(|&(a, m)| {
            if a == f64::NEG_INFINITY {
                f64::INFINITY
            } else if m > 0.0 {
                (s - a) / m
            } else if s > a {
                f64::INFINITY
            } else {
                -1.0
            }
        })
        .fold(f64::INFINITY, f64::min)
}

/// The board read once: the team's cards with their rows, and the rows of the cards to avoid,
/// whose highest score per kind and clue word is what the margins are measured from (an
/// unknown card counts at the clue's risk).
pub(crate) struct Rows {
    pub(crate) clues: Arc<ClueWords>,
    pub(crate) pos: Vec<(String, Arc<[f32]>)>,
    /// Per kind (opponent, bystander, assassin), the rows of its cards; `None` stands for the
    /// clue's risk (an unknown card, or the stand-in bystander of a board with nothing to avoid).
    /// The highest score per kind and clue word comes two ways: as columns over every clue
    /// word ([`Rows::columns`]) for the relatedness strategy, which reads them all, and per
    /// clue word from these rows ([`Rows::avoid`]) for setnet, which reads at most 18 (the
    /// columns were a seventh of its time).
    avoid_rows: [Vec<Option<Arc<[f32]>>>; 3],
}

impl Rows {
    pub(crate) fn read(k: &dyn Knowledge, req: &Request) -> anyhow::Result<Rows> {
        let clues = k.clue_words()?;
        if clues.is_empty() {
            anyhow::bail!(
                "the database has no relatedness (clue_words is empty): run `clue-db pipeline relatedness`"
            );
        }
        // Every card's row in one call: rows computed at query time are computed together.
        let kinds = [
            req.neg.as_slice(),
            req.neutral.as_slice(),
            req.assassin.as_slice(),
        ];
        let board: Vec<String> = req
            .pos
            .iter()
            .chain(kinds.iter().flat_map(|w| w.iter()))
            .cloned()
            .collect();
        let mut rows = k.relatedness_all(&board)?.into_iter();
        let mut pos = Vec::new();
        for w in &req.pos {
            if let Some(v) = rows.next().flatten() {
                pos.push((w.clone(), v));
            }
        }
        let mut avoid_rows: [Vec<Option<Arc<[f32]>>>; 3] = Default::default();
        for (kind, words) in kinds.iter().enumerate() {
            for _ in *words {
                avoid_rows[kind].push(rows.next().flatten());
            }
        }
        // A board with nothing to avoid still asks that the clue single its targets out: the
        // clue's risk (what a tenth of all card words score with it, or more) stands in as a
        // bystander, so a clue that relates to many cards as much as to the targets is no clue.
        let nothing_to_avoid =
            req.neg.is_empty() && req.neutral.is_empty() && req.assassin.is_none();
        if nothing_to_avoid {
            avoid_rows[1].push(None);
        }
        Ok(Rows {
            clues,
            pos,
            avoid_rows,
        })
    }

    /// Every clue word's highest scores per kind (−∞ when none), one column of maxima per kind
    /// in f32 as stored (a tight loop the compiler vectorises), for a strategy that reads them
    /// all; read through [`highest_at`].
    pub(crate) fn columns(&self) -> [Vec<f32>; 3] {
        self.scan(None).0
    }

    /// [`Rows::columns`], and with `margins` each clue word's best safety ([`best_safety`]),
    /// in one pass over blocks of clue words on the cores: a board's 25 rows are 1.6 MB that
    /// come from memory, not the caches (a third of a board's time, read kind by kind), and
    /// each block's maxima are still in the first-level cache when its safeties are taken.
    pub(crate) fn scan(&self, margins: Option<&[f64; 3]>) -> ([Vec<f32>; 3], Vec<f64>) {
        use rayon::prelude::*;
        let n = self.clues.len();
        let mut columns: [Vec<f32>; 3] = std::array::from_fn(|_| vec![f32::NEG_INFINITY; n]);
        let mut best = vec![0f64; if margins.is_some() { n } else { 0 }];
        let [c0, c1, c2] = &mut columns;
        let blocks = c0
            .par_chunks_mut(SCAN_BLOCK)
            .zip(c1.par_chunks_mut(SCAN_BLOCK))
            .zip(c2.par_chunks_mut(SCAN_BLOCK))
            .map(|((c0, c1), c2)| [c0, c1, c2])
            .enumerate();
        match margins {
            None => blocks.for_each(|(b, cols)| self.avoid_block(b * SCAN_BLOCK, cols)),
            Some(margins) => {
                blocks
                    .zip(best.par_chunks_mut(SCAN_BLOCK))
                    .for_each(|((b, [c0, c1, c2]), best)| {
                        let at = b * SCAN_BLOCK;
                        let mut highest = [f32::NEG_INFINITY; SCAN_BLOCK];
                        let highest = &mut highest[..best.len()];
                        for (_, v) in &self.pos {
                            raise(highest, &v[at..at + best.len()]);
                        }
                        self.avoid_block(at, [&mut *c0, &mut *c1, &mut *c2]);
                        best_safety(highest, [&*c0, &*c1, &*c2], margins, best);
                    })
            }
        }
        (columns, best)
    }

    /// The highest score per kind of card to avoid, for the clue words from `at` on (as many
    /// as `columns` holds, each −∞ to begin with).
    fn avoid_block(&self, at: usize, columns: [&mut [f32]; 3]) {
        for (kind, col) in columns.into_iter().enumerate() {
            let end = at + col.len();
            for row in &self.avoid_rows[kind] {
                raise(col, &row.as_deref().unwrap_or(&self.clues.risk)[at..end]);
            }
        }
    }

    /// Clue word `j`'s score with every card, as the board model reads them: the team's known
    /// cards, the cards that end the turn, the assassin (unknown cards at the clue's risk).
    /// Fills `team` and `wrong` (reused across clues: the ranking reads hundreds) and returns
    /// the assassin's.
    fn board_at(&self, j: usize, team: &mut Vec<f64>, wrong: &mut Vec<f64>) -> Option<f64> {
        let at = |row: &Option<Arc<[f32]>>| row.as_deref().unwrap_or(&self.clues.risk)[j] as f64;
        team.clear();
        team.extend(self.pos.iter().map(|(_, v)| v[j] as f64));
        wrong.clear();
        wrong.extend(self.avoid_rows[..2].iter().flatten().map(at));
        self.avoid_rows[2].first().map(at)
    }

    /// Clue word `j`'s highest opponent, bystander and assassin score (−∞ when none), from the
    /// rows, for a strategy that reads a few clue words' only (the same values as
    /// [`Rows::columns`] gives).
    pub(crate) fn avoid(&self, j: usize) -> [f64; 3] {
        std::array::from_fn(|kind| {
            self.avoid_rows[kind]
                .iter()
                .map(|row| row.as_deref().unwrap_or(&self.clues.risk)[j])
                .fold(f32::NEG_INFINITY, f32::max) as f64
        })
    }
}

/// Clue word `j`'s highest opponent, bystander and assassin score in `columns`
/// ([`Rows::columns`]), widened to f64.
fn highest_at(columns: &[Vec<f32>; 3], j: usize) -> [f64; 3] {
    std::array::from_fn(|kind| columns[kind][j] as f64)
}

/// Clue words per block of [`Rows::scan`]: its 25 rows' slices and its maxima fit the
/// second-level cache.
const SCAN_BLOCK: usize = 1024;

/// Raises each of `highest` to the score of `row` at its place.
fn raise(highest: &mut [f32], row: &[f32]) {
    for (h, &x) in highest.iter_mut().zip(row) {
        *h = h.max(x);
    }
}

/// A clue with its targets (indices into [`Rows::pos`], safest first), before it is spelled out
/// as a [`Suggestion`]: most clues are ranked and dropped, so none is cloned until it is kept.
struct Candidate {
    clue: usize,
    targets: Vec<usize>,
    /// The weakest target's safety.
    safety: f64,
    /// The count plus what ranks clues with as many ([`rank`]).
    score: f64,
}

pub fn suggest(
    k: &dyn Knowledge,
    req: &Request,
    legality: &Legality<'_>,
    p: &RelatednessParams,
) -> anyhow::Result<Vec<Suggestion>> {
    let rows = Rows::read(k, req)?;
    if rows.pos.is_empty() {
        return Ok(Vec::new());
    }
    let margins = [p.opponent_margin, p.neutral_margin, p.assassin_margin];
    let (columns, best) = rows.scan(Some(&margins));
    let columns = &columns;
    let clues = &rows.clues;
    let safety_at = |j: usize, s: f64| -> f64 {
        let highest = highest_at(columns, j);
        let avoid: [(f64, f64); 3] = std::array::from_fn(|i| (highest[i], margins[i]));
        safety(s, &avoid)
    };
    // Per clue (`best`, from the scan): its safest team card's safety, the share of the margins
    // it clears. Safety grows with the target's score, so it is the safety of the team's
    // highest score.
    // The strictest level some clue that may be said reaches with one target: full margins if
    // any clears them, else relaxed in steps down to "ranks above every card to avoid". A clue
    // that may not be said (a board word, an inflection of one, a clue given before) does not
    // count: were it to set the level, the others would be held to margins only it clears, and
    // a board with a clue would get none. Legality is checked from the safest clue down, only
    // until the first that may be said.
    let Some(safest) = safest_allowed(&best, |j| legality.allows(&clues.words[j])) else {
        return Ok(Vec::new());
    };
    let Some(level) = LEVELS.iter().copied().find(|&l| best[safest] >= l) else {
        return Ok(Vec::new());
    };
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut targets: Vec<(usize, f64)> = Vec::new();
    let name = |t: usize| &rows.pos[t].0;
    for j in (0..clues.len()).filter(|&j| best[j] >= level) {
        targets.clear();
        targets.extend(
            rows.pos
                .iter()
                .enumerate()
                .map(|(t, (_, v))| (t, safety_at(j, v[j] as f64)))
                .filter(|&(_, l)| l >= level),
        );
        targets.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| name(a.0).cmp(name(b.0))));
        targets.truncate(p.max_count.max(1));
        if p.last_target && !targets.is_empty() && targets.len() < p.max_count {
            targets.extend(last_target(&rows, columns, j, level, &margins, &targets));
        }
        let Some(weakest) = targets.last() else {
            continue;
        };
        candidates.push(Candidate {
            clue: j,
            targets: targets.iter().map(|t| t.0).collect(),
            safety: weakest.1,
            score: 0.0,
        });
    }
    Ok(rank(&rows, &mut candidates, legality, p)
        .into_iter()
        .map(|c| Suggestion {
            clue: clues.words[c.clue].clone(),
            count: c.targets.len(),
            targets: c.targets.iter().map(|&t| name(t).clone()).collect(),
            score: c.score,
            safety: Some(c.safety),
            level: Some(level),
        })
        .collect())
}

/// Per clue word, the safety ([`safety`]) of the team's highest score `highest` against the
/// cards to avoid (`columns`, [`Rows::columns`]). With every margin above zero (the defaults)
/// the rule is one expression without branches, which the compiler vectorises over the
/// 16,000 clue words (a seventh of a board's time before); the same numbers as [`safety`].
fn best_safety(highest: &[f32], columns: [&[f32]; 3], margins: &[f64; 3], out: &mut [f64]) {
    let [opp, neutral, assassin] = columns;
    let all = highest.iter().zip(opp).zip(neutral).zip(assassin);
    if margins.iter().all(|&m| m > 0.0) {
        let [m0, m1, m2] = *margins;
        // A kind with no card is −∞ and gives +∞, as `safety` says; min is associative.
        for (o, (((&h, &a0), &a1), &a2)) in out.iter_mut().zip(all) {
            let h = h as f64;
            *o = f64::INFINITY
                .min((h - a0 as f64) / m0)
                .min((h - a1 as f64) / m1)
                .min((h - a2 as f64) / m2);
        }
        return;
    }
    for (o, (((&h, &a0), &a1), &a2)) in out.iter_mut().zip(all) {
        let avoid = [a0, a1, a2];
        *o = safety(
            h as f64,
            &std::array::from_fn::<_, 3, _>(|i| (avoid[i] as f64, margins[i])),
        );
    }
}

/// The clue word with the highest safety above 0 that `allowed` accepts (an equal safety: the
/// lower id). The safest of all is nearly always allowed, so it is tried before any sorting.
fn safest_allowed(best: &[f64], allowed: impl Fn(usize) -> bool) -> Option<usize> {
    // A few times the safest not yet refused, by a plain scan (a strictly higher safety
    // replaces: an equal one keeps the lower id); then every clue word sorted.
    let mut refused: Vec<usize> = Vec::new();
    for _ in 0..4 {
        let mut top = None;
        let mut high = 0.0;
        for (j, &b) in best.iter().enumerate() {
            if b > high && !refused.contains(&j) {
                (top, high) = (Some(j), b);
            }
        }
        let top = top?;
        if allowed(top) {
            return Some(top);
        }
        refused.push(top);
    }
    let mut order: Vec<(f64, usize)> = (0..best.len())
        .filter(|&j| best[j] > 0.0)
        .map(|j| (best[j], j))
        .collect();
    first_kept(
        &mut order,
        1,
        |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)),
        |&(_, j)| allowed(j),
    )
    .first()
    .map(|&&(_, j)| j)
}

/// The first `p.top` candidates that may be said: more targets first; among as many, the board
/// model's share ([`BoardModel::share`]), or without it the weakest target's safety (squashed
/// below 1). The board model reads every card for each clue, so it is computed only for the
/// counts the answer reaches, most first.
fn rank<'c>(
    rows: &Rows,
    candidates: &'c mut [Candidate],
    legality: &Legality<'_>,
    p: &RelatednessParams,
) -> Vec<&'c Candidate> {
    let words = &rows.clues.words;
    let order = |a: &Candidate, b: &Candidate| {
        rank_order(
            (a.score, a.targets.len(), &words[a.clue]),
            (b.score, b.targets.len(), &words[b.clue]),
        )
    };
    let legal = |c: &Candidate| legality.allows(&words[c.clue]);
    let Some(model) = p.board else {
        for c in candidates.iter_mut() {
            c.score = c.targets.len() as f64 + squash(c.safety);
        }
        return first_kept(candidates, p.top, order, legal);
    };
    candidates.sort_unstable_by_key(|c| std::cmp::Reverse(c.targets.len()));
    let mut out = Vec::with_capacity(p.top);
    let (mut team, mut wrong) = (Vec::new(), Vec::new());
    for same in candidates.chunk_by_mut(|a, b| a.targets.len() == b.targets.len()) {
        if out.len() >= p.top {
            break;
        }
        for c in same.iter_mut() {
            let n = c.targets.len();
            let assassin = rows.board_at(c.clue, &mut team, &mut wrong);
            let board = Board {
                team: &team,
                wrong: &wrong,
                assassin,
            };
            c.score = n as f64 + model.share(&board, n);
        }
        let want = p.top - out.len();
        out.extend(first_kept(same, want, order, legal));
    }
    out
}

/// The one further target a clue may add after those that clear the margins at `level`: the
/// guesser reaches it only after every other target was right, and a miss there only ends the
/// turn, unless it is the assassin. So it must clear the assassin's margin at the level, but
/// only rank above every opponent card and bystander. The safest such team card, with its
/// safety (below `level`, above 0).
fn last_target(
    rows: &Rows,
    columns: &[Vec<f32>; 3],
    j: usize,
    level: f64,
    margins: &[f64; 3],
    targets: &[(usize, f64)],
) -> Option<(usize, f64)> {
    let [opp, neutral, assassin] = highest_at(columns, j);
    rows.pos
        .iter()
        .enumerate()
        .filter(|(_, (w, _))| !targets.iter().any(|x| &rows.pos[x.0].0 == w))
        .filter_map(|(t, (_, v))| {
            let s = v[j] as f64;
            let clears_assassin = safety(s, &[(assassin, margins[2])]) >= level;
            let l = safety(s, &[(opp, margins[0]), (neutral, margins[1])]);
            (clears_assassin && l > 0.0).then_some((t, l))
        })
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| rows.pos[b.0].0.cmp(&rows.pos[a.0].0))
        })
}

/// A clue for when no clue is safe: rather than pass turn after turn, lead the team card that
/// comes closest to ranking first (an opponent card or a bystander may be guessed instead),
/// kept above the assassin by as much of its margin as some clue allows (the whole margin if
/// any clue does, then half, a quarter, and just above). Count 1; the score is the target's
/// lead over the best opponent card or bystander (negative).
pub fn fallback(
    k: &dyn Knowledge,
    req: &Request,
    legality: &Legality<'_>,
    p: &RelatednessParams,
) -> anyhow::Result<Option<Suggestion>> {
    let rows = Rows::read(k, req)?;
    let columns = &rows.columns();
    for share in [1.0, 0.5, 0.25, 0.0] {
        let mut best: Vec<(f64, usize, &String)> = Vec::new();
        for j in 0..rows.clues.len() {
            let avoid = highest_at(columns, j);
            for (w, v) in &rows.pos {
                let s = v[j] as f64;
                if s > avoid[2] + share * p.assassin_margin {
                    best.push((s - avoid[0].max(avoid[1]), j, w));
                }
            }
        }
        best.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        if let Some((lead, j, w)) = best
            .into_iter()
            .find(|(_, j, _)| legality.allows(&rows.clues.words[*j]))
        {
            return Ok(Some(Suggestion {
                clue: rows.clues.words[j].clone(),
                count: 1,
                targets: vec![w.clone()],
                score: lead,
                safety: None,
                level: None,
            }));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three clue words; `apple` and `fire` have rows, any other card is unknown.
    struct Tiny;

    impl Knowledge for Tiny {
        fn clues_of(&self, _: &str) -> anyhow::Result<Vec<(String, f64)>> {
            Ok(Vec::new())
        }
        fn term_doc(&self, _: &str) -> anyhow::Result<Vec<(String, u64)>> {
            Ok(Vec::new())
        }
        fn terms(&self) -> anyhow::Result<Vec<String>> {
            Ok(Vec::new())
        }
        fn clue_words(&self) -> anyhow::Result<Arc<ClueWords>> {
            let words = [("fruit", 0.5), ("heat", -1.0), ("tree", 2.0)];
            Ok(Arc::new(ClueWords::new(
                words.map(|(w, r)| (w.to_string(), 1, r)).to_vec(),
            )))
        }
        fn relatedness(&self, card: &str) -> anyhow::Result<Option<Arc<[f32]>>> {
            Ok(match card {
                "apple" => Some(Arc::from([3.0, -0.5, 1.0].as_slice())),
                "fire" => Some(Arc::from([-2.0, 4.0, 0.5].as_slice())),
                _ => None,
            })
        }
    }

    /// The branch-free safeties of the scan are [`safety`]'s, value for value, with kinds that
    /// have no card (−∞), ties, and margins of zero (the general rule); and the safest clue
    /// that may be said is the first of them all sorted (safety down, id up), whichever the
    /// scan tries before sorting.
    #[test]
    fn the_scans_safeties_and_safest_clue_are_the_rules() {
        let mut rng = seeded::SplitMix64::new(3);
        let mut draw = |n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| match rng.below(12) {
                    0 => f32::NEG_INFINITY,
                    k => (k as f32 - 6.0) / 2.0,
                })
                .collect()
        };
        let n = 500;
        for margins in [[1.5, 1.0, 4.5], [1.0, 0.0, 2.0], [0.0, 0.0, 0.0]] {
            let highest: Vec<f32> = draw(n).into_iter().map(|x| x.max(-3.0)).collect();
            let columns = [draw(n), draw(n), draw(n)];
            let mut got = vec![0f64; n];
            let [c0, c1, c2] = &columns;
            best_safety(&highest, [c0, c1, c2], &margins, &mut got);
            for j in 0..n {
                let a = highest_at(&columns, j);
                let avoid: [(f64, f64); 3] = std::array::from_fn(|i| (a[i], margins[i]));
                let want = safety(highest[j] as f64, &avoid);
                assert_eq!(got[j].to_bits(), want.to_bits(), "{margins:?}, clue {j}");
            }
            for every in [1, 2, 7, usize::MAX] {
                let allowed = |j: usize| every != usize::MAX && j.is_multiple_of(every);
                let mut order: Vec<usize> = (0..n).filter(|&j| got[j] > 0.0).collect();
                order.sort_by(|&a, &b| got[b].total_cmp(&got[a]).then(a.cmp(&b)));
                let want = order.into_iter().find(|&j| allowed(j));
                assert_eq!(
                    safest_allowed(&got, allowed),
                    want,
                    "{margins:?}, every {every}"
                );
            }
        }
    }

    /// setnet reads a few clue words' highest scores from the rows, the relatedness strategy
    /// every clue word's from the columns: the two agree, with unknown cards at the clue's risk,
    /// with kinds that have no card (−∞), and with the risk standing in as a bystander on a
    /// board with nothing to avoid.
    #[test]
    fn a_clue_words_highest_scores_are_the_same_from_rows_and_columns() {
        let board = |neg: &[&str], neutral: &[&str], assassin: Option<&str>| Request {
            pos: vec!["apple".into()],
            neg: neg.iter().map(|w| w.to_string()).collect(),
            neutral: neutral.iter().map(|w| w.to_string()).collect(),
            assassin: assassin.map(str::to_string),
            ..Request::default()
        };
        let inf = f64::NEG_INFINITY;
        // Per clue word (fruit, heat, tree): the highest opponent, bystander, assassin score.
        for (req, want) in [
            (
                board(&["fire", "moon"], &[], Some("ghost")),
                [[0.5, inf, 0.5], [4.0, inf, -1.0], [2.0, inf, 2.0]],
            ),
            (
                board(&[], &["fire"], None),
                [[inf, -2.0, inf], [inf, 4.0, inf], [inf, 0.5, inf]],
            ),
            (
                board(&[], &[], None),
                [[inf, 0.5, inf], [inf, -1.0, inf], [inf, 2.0, inf]],
            ),
        ] {
            let rows = Rows::read(&Tiny, &req).unwrap();
            for (j, want) in want.into_iter().enumerate() {
                let from_rows = rows.avoid(j);
                assert_eq!(
                    from_rows,
                    highest_at(&rows.columns(), j),
                    "{req:?}, clue word {j}"
                );
                assert_eq!(from_rows, want, "{req:?}, clue word {j}");
            }
        }
    }
}
