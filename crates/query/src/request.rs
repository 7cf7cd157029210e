//! What a spymaster is asked and what it answers, apart from any game: the [`Request`] (the
//! board as the spymaster sees it), the [`Suggestion`] (a clue, its number and targets) and the
//! [`Answer`] (the `--json` contract of `clue-db suggest`).

use serde::{Deserialize, Serialize};

/// What a spymaster sees: the team's unrevealed cards, the cards to avoid, the assassin.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    /// The team's unrevealed cards.
    pub pos: Vec<String>,
    /// The opponent's unrevealed cards.
    pub neg: Vec<String>,
    /// The unrevealed bystanders. (Strategies that do not tell bystanders from opponent cards
    /// avoid both alike: see [`Request::avoid`].)
    #[serde(default)]
    pub neutral: Vec<String>,
    pub assassin: Option<String>,
    /// Clues already given this game: never given again.
    #[serde(default)]
    pub given: Vec<String>,
}

impl Request {
    /// Every word on the board (the legality rules compare clues against all of them).
    pub fn board_words(&self) -> Vec<String> {
        self.pos
            .iter()
            .chain(&self.neg)
            .chain(&self.neutral)
            .chain(&self.assassin)
            .cloned()
            .collect()
    }

    /// The cards to avoid other than the assassin: opponent cards, then bystanders.
    pub fn avoid(&self) -> Vec<String> {
        self.neg.iter().chain(&self.neutral).cloned().collect()
    }
}

/// One clue: the word, its number, the cards it is meant for, and the strategy's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    pub clue: String,
    pub count: usize,
    pub targets: Vec<String>,
    pub score: f64,
}

/// Best first: score descending, then count descending, then clue alphabetically.
pub fn sort_suggestions(s: &mut [Suggestion]) {
    s.sort_by(|a, b| rank_order((a.score, a.count, &a.clue), (b.score, b.count, &b.clue)));
}

/// The order of [`sort_suggestions`] on `(score, count, clue)`, for a strategy that ranks its
/// clues before it spells them out as suggestions.
pub fn rank_order(a: (f64, usize, &str), b: (f64, usize, &str)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0)
        .then_with(|| b.1.cmp(&a.1))
        .then_with(|| a.2.cmp(b.2))
}

/// The answer printed by `clue-db suggest --json`: the best suggestion flattened, the rest as
/// alternatives; `clue` is null (count 0, no targets, score 0) when no safe clue exists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub clue: Option<String>,
    pub count: usize,
    pub targets: Vec<String>,
    pub score: f64,
    pub strategy: String,
    pub alternatives: Vec<Suggestion>,
    /// Board words the database does not know (never targets; risks to avoid).
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl Answer {
    /// Builds the answer from a ranked list (best first).
    pub fn new(strategy: &str, ranked: Vec<Suggestion>) -> Answer {
        let mut it = ranked.into_iter();
        match it.next() {
            Some(best) => Answer {
                clue: Some(best.clue),
                count: best.count,
                targets: best.targets,
                score: best.score,
                strategy: strategy.to_string(),
                alternatives: it.collect(),
                warnings: Vec::new(),
            },
            None => Answer {
                clue: None,
                count: 0,
                targets: Vec::new(),
                score: 0.0,
                strategy: strategy.to_string(),
                alternatives: Vec::new(),
                warnings: Vec::new(),
            },
        }
    }
}
