//! Boards, the guesser, games and their evaluation, plus the types every strategy shares:
//! the [`Request`] (what the spymaster sees), the [`Suggestion`] (what it says), the
//! [`Answer`] (the `--json` contract of `clue-db suggest`) and the [`Strategy`] trait.

use std::collections::{BTreeMap, HashSet};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::Knowledge;
use crate::herfindahl::{self, HerfindahlParams};
use crate::legality::{Legality, Lexicon};
use crate::threshold::{self, ThresholdParams};

/// What a spymaster sees: the team's unrevealed cards, the cards to avoid, the assassin.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    pub pos: Vec<String>,
    pub neg: Vec<String>,
    pub assassin: Option<String>,
}

impl Request {
    /// Every word on the board (the legality rules compare clues against all of them).
    pub fn board_words(&self) -> Vec<String> {
        self.pos
            .iter()
            .chain(&self.neg)
            .chain(&self.assassin)
            .cloned()
            .collect()
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
    s.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.count.cmp(&a.count))
            .then_with(|| a.clue.cmp(&b.clue))
    });
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
            },
            None => Answer {
                clue: None,
                count: 0,
                targets: Vec::new(),
                score: 0.0,
                strategy: strategy.to_string(),
                alternatives: Vec::new(),
            },
        }
    }
}

/// A way of choosing clues; games and evaluations take any of them.
pub trait Strategy {
    /// The name printed in reports and answers.
    fn name(&self) -> &str;
    /// Ranked suggestions, best first; empty when there is no safe clue.
    fn suggest(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>>;
}

/// The built-in strategies with their parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "strategy", rename_all = "snake_case")]
pub enum StrategyKind {
    Threshold(ThresholdParams),
    Herfindahl(HerfindahlParams),
}

impl std::str::FromStr for StrategyKind {
    type Err = anyhow::Error;
    /// `threshold` or `herfindahl`, with default parameters.
    fn from_str(s: &str) -> anyhow::Result<StrategyKind> {
        match s {
            "threshold" => Ok(StrategyKind::Threshold(ThresholdParams::default())),
            "herfindahl" => Ok(StrategyKind::Herfindahl(HerfindahlParams::default())),
            other => bail!("unknown strategy {other:?} (expected threshold or herfindahl)"),
        }
    }
}

impl StrategyKind {
    /// Sets how many suggestions the strategy returns.
    pub fn with_top(self, top: usize) -> StrategyKind {
        match self {
            StrategyKind::Threshold(p) => StrategyKind::Threshold(ThresholdParams { top, ..p }),
            StrategyKind::Herfindahl(p) => StrategyKind::Herfindahl(HerfindahlParams { top, ..p }),
        }
    }

    /// Sets the margin added to a clue's score with the assassin: threshold's bar for every
    /// target, and the same bar in herfindahl's check of its targets against `scores`.
    pub fn with_assassin_margin(self, assassin_margin: f64) -> StrategyKind {
        match self {
            StrategyKind::Threshold(p) => StrategyKind::Threshold(ThresholdParams {
                assassin_margin,
                ..p
            }),
            StrategyKind::Herfindahl(p) => StrategyKind::Herfindahl(HerfindahlParams {
                assassin_margin,
                ..p
            }),
        }
    }
}

impl Strategy for StrategyKind {
    fn name(&self) -> &str {
        match self {
            StrategyKind::Threshold(_) => "threshold",
            StrategyKind::Herfindahl(_) => "herfindahl",
        }
    }
    fn suggest(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>> {
        match self {
            StrategyKind::Threshold(p) => threshold::suggest(k, req, legality, p),
            StrategyKind::Herfindahl(p) => herfindahl::suggest(k, req, legality, p),
        }
    }
}

/// A small seeded generator (SplitMix64): boards and games are reproducible from one `u64`
/// without a dependency.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (multiply-shift; the bias is below 2⁻³² for board-sized `n`).
    /// Returns 0 for `n = 0`.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// Who a card belongs to. Red is the team the strategies play for, and starts (9 cards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Red,
    Blue,
    Bystander,
    Assassin,
}

/// One card of the board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub word: String,
    pub role: Role,
    pub revealed: bool,
}

/// A 5×5 board, row by row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub cards: Vec<Card>,
}

/// Cards per role on a standard board: 9 red (the starting team), 8 blue, 7 bystanders, 1 assassin.
pub const LAYOUT: [(Role, usize); 4] = [
    (Role::Red, 9),
    (Role::Blue, 8),
    (Role::Bystander, 7),
    (Role::Assassin, 1),
];

impl Board {
    /// A seeded random board drawn from `terms` (duplicates ignored); needs 25 distinct terms.
    pub fn random(terms: &[String], seed: u64) -> anyhow::Result<Board> {
        let mut pool: Vec<&String> = terms.iter().collect();
        pool.sort();
        pool.dedup();
        let size: usize = LAYOUT.iter().map(|l| l.1).sum();
        if pool.len() < size {
            bail!(
                "a board needs {size} distinct covered terms, the knowledge has {}",
                pool.len()
            );
        }
        let mut rng = SplitMix64::new(seed);
        // Partial Fisher–Yates: the first `size` entries are a uniform sample.
        for i in 0..size {
            let j = i + rng.below(pool.len() - i);
            pool.swap(i, j);
        }
        let mut cards: Vec<Card> = LAYOUT
            .iter()
            .flat_map(|&(role, n)| std::iter::repeat_n(role, n))
            .zip(&pool)
            .map(|(role, word)| Card {
                word: (*word).clone(),
                role,
                revealed: false,
            })
            .collect();
        rng.shuffle(&mut cards);
        Ok(Board { cards })
    }

    /// The unrevealed words, in board order.
    pub fn unrevealed(&self) -> Vec<String> {
        self.cards
            .iter()
            .filter(|c| !c.revealed)
            .map(|c| c.word.clone())
            .collect()
    }

    /// Unrevealed cards of `role`.
    pub fn remaining(&self, role: Role) -> usize {
        self.cards
            .iter()
            .filter(|c| !c.revealed && c.role == role)
            .count()
    }

    /// What the spymaster of `team` sees: its cards, the opponent's and bystanders as
    /// negatives, the assassin; revealed cards have left the board.
    pub fn request_for(&self, team: Role) -> Request {
        let mut req = Request::default();
        for c in self.cards.iter().filter(|c| !c.revealed) {
            match c.role {
                r if r == team => req.pos.push(c.word.clone()),
                Role::Assassin => req.assassin = Some(c.word.clone()),
                _ => req.neg.push(c.word.clone()),
            }
        }
        req
    }

    /// Reveals `word` and returns its role; `None` if it is not an unrevealed card.
    pub fn reveal(&mut self, word: &str) -> Option<Role> {
        let card = self
            .cards
            .iter_mut()
            .find(|c| !c.revealed && c.word == word)?;
        card.revealed = true;
        Some(card.role)
    }
}

/// Guesser parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GuessParams {
    /// Words scoring below this with the clue are not guessed. Default 0.01: with scores
    /// `min(1, PR/6)·(1 − 0.7ⁿ)`, that is one mention on a page of about a fifth of the
    /// mean PageRank, i.e. barely any evidence.
    pub floor: f64,
}

impl Default for GuessParams {
    fn default() -> Self {
        GuessParams { floor: 0.01 }
    }
}

/// One guess with its confidence (the word's score with the clue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guess {
    pub word: String,
    pub score: f64,
}

/// Ranks the unrevealed `words` by their score with `clue` (from each word's `clues_of`),
/// best first, ties alphabetically; stops at the first word below the floor and after
/// `count` words (`count = 0`: no limit).
pub fn guess<K: Knowledge + ?Sized>(
    k: &K,
    clue: &str,
    count: usize,
    words: &[String],
    params: &GuessParams,
) -> anyhow::Result<Vec<Guess>> {
    let mut scored = Vec::with_capacity(words.len());
    for w in words {
        let clues = k
            .clues_of(w)
            .with_context(|| format!("reading the clues of {w:?}"))?;
        let score = clues
            .iter()
            .filter(|(c, s)| c == clue && s.is_finite())
            .map(|(_, s)| *s)
            .fold(0.0f64, f64::max);
        scored.push(Guess {
            word: w.clone(),
            score,
        });
    }
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.word.cmp(&b.word))
    });
    let limit = if count == 0 { usize::MAX } else { count };
    Ok(scored
        .into_iter()
        .take_while(|g| g.score >= params.floor && g.score > 0.0)
        .take(limit)
        .collect())
}

/// Game parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlayParams {
    pub guess: GuessParams,
    /// Safety stop; a game ends far sooner (blue reveals a card every turn).
    pub max_turns: usize,
}

impl Default for PlayParams {
    fn default() -> Self {
        PlayParams {
            guess: GuessParams::default(),
            max_turns: 25,
        }
    }
}

/// One red turn: the clue given (none = pass) and the cards revealed, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub clue: Option<Suggestion>,
    pub revealed: Vec<(String, Role)>,
    /// The card the opponent revealed after this turn, if the game went on.
    pub opponent: Option<String>,
}

/// A finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub seed: u64,
    pub strategy: String,
    /// The board as dealt (nothing revealed).
    pub board: Board,
    pub turns: Vec<Turn>,
    pub won: bool,
    pub assassin: bool,
    /// Clues given (passes excluded).
    pub clues: usize,
    /// Sum of the numbers of the clues given.
    pub clue_numbers: usize,
    /// Red cards revealed by red's guesses.
    pub correct: usize,
    /// Other cards revealed by red's guesses (blue, bystander, assassin).
    pub incorrect: usize,
}

/// Plays one seeded game: red is the strategy with the guesser; blue is a simple opponent that
/// reveals one of its own cards (seeded choice) after each red turn. Red guesses the ranked
/// words in order, at most the clue's number, and stops at the first wrong card; red loses at
/// once on the assassin, wins when its 9 cards are revealed, loses when blue's 8 are. Red never
/// gives a clue twice (it takes the best alternative not yet given): a clue the guesser could
/// not follow once would otherwise come back every turn.
pub fn play(
    seed: u64,
    strategy: &dyn Strategy,
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
) -> anyhow::Result<GameRecord> {
    let terms = k.terms().context("reading the covered terms")?;
    let mut board = Board::random(&terms, seed)?;
    let mut record = GameRecord {
        seed,
        strategy: strategy.name().to_string(),
        board: board.clone(),
        turns: Vec::new(),
        won: false,
        assassin: false,
        clues: 0,
        clue_numbers: 0,
        correct: 0,
        incorrect: 0,
    };
    let mut opponent = SplitMix64::new(seed ^ 0x6f70_706f_6e65_6e74);
    let mut given: HashSet<String> = HashSet::new();
    'game: while record.turns.len() < params.max_turns {
        let req = board.request_for(Role::Red);
        let board_words = board.unrevealed();
        let legality = Legality::new(&board_words, lexicon);
        let ranked = strategy
            .suggest(k, &req, &legality)
            .with_context(|| format!("game {seed}, turn {}", record.turns.len() + 1))?;
        let mut turn = Turn {
            clue: ranked.into_iter().find(|s| !given.contains(&s.clue)),
            revealed: Vec::new(),
            opponent: None,
        };
        if let Some(clue) = &turn.clue {
            given.insert(clue.clue.clone());
            record.clues += 1;
            record.clue_numbers += clue.count;
            let guesses = guess(k, &clue.clue, clue.count, &board_words, &params.guess)?;
            for g in guesses {
                let Some(role) = board.reveal(&g.word) else {
                    continue;
                };
                turn.revealed.push((g.word, role));
                if role == Role::Red {
                    record.correct += 1;
                } else {
                    record.incorrect += 1;
                }
                if role == Role::Assassin {
                    record.assassin = true;
                    record.turns.push(turn);
                    break 'game;
                }
                if board.remaining(Role::Red) == 0 {
                    record.won = true;
                    record.turns.push(turn);
                    break 'game;
                }
                if board.remaining(Role::Blue) == 0 {
                    record.turns.push(turn);
                    break 'game;
                }
                if role != Role::Red {
                    break;
                }
            }
        }
        // Blue's turn: one of its cards.
        let blue: Vec<String> = board
            .cards
            .iter()
            .filter(|c| !c.revealed && c.role == Role::Blue)
            .map(|c| c.word.clone())
            .collect();
        if let Some(pick) = blue.get(opponent.below(blue.len())) {
            board.reveal(pick);
            turn.opponent = Some(pick.clone());
        }
        record.turns.push(turn);
        if board.remaining(Role::Blue) == 0 {
            break;
        }
    }
    Ok(record)
}

/// The figures of one strategy over a set of games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyReport {
    pub strategy: String,
    pub games: usize,
    pub win_rate: f64,
    /// Mean red turns per game.
    pub mean_turns: f64,
    pub assassin_rate: f64,
    /// Mean number said with a clue (over all clues of all games).
    pub mean_clue_number: f64,
    /// (correct − incorrect) / clues, totals over all games.
    pub net_per_clue: f64,
    pub clues: usize,
    pub correct: usize,
    pub incorrect: usize,
}

/// The seed of game `i` of an evaluation seeded `seed`: every strategy plays the same boards.
pub fn game_seed(seed: u64, i: usize) -> u64 {
    SplitMix64::new(seed ^ (i as u64).wrapping_mul(0xd134_2543_de82_ef95)).next_u64()
}

/// Plays `games` games per strategy on the same seeded boards and reports each strategy.
pub fn eval(
    games: usize,
    seed: u64,
    strategies: &[&dyn Strategy],
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
) -> anyhow::Result<Vec<StrategyReport>> {
    let mut out = Vec::new();
    for s in strategies {
        let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
        for i in 0..games {
            let g = play(game_seed(seed, i), *s, k, lexicon, params)?;
            *totals.entry("wins").or_default() += g.won as usize;
            *totals.entry("assassin").or_default() += g.assassin as usize;
            *totals.entry("turns").or_default() += g.turns.len();
            *totals.entry("clues").or_default() += g.clues;
            *totals.entry("numbers").or_default() += g.clue_numbers;
            *totals.entry("correct").or_default() += g.correct;
            *totals.entry("incorrect").or_default() += g.incorrect;
        }
        let t = |key: &str| totals.get(key).copied().unwrap_or(0);
        let ratio = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
        out.push(StrategyReport {
            strategy: s.name().to_string(),
            games,
            win_rate: ratio(t("wins") as f64, games),
            mean_turns: ratio(t("turns") as f64, games),
            assassin_rate: ratio(t("assassin") as f64, games),
            mean_clue_number: ratio(t("numbers") as f64, t("clues")),
            net_per_clue: ratio(t("correct") as f64 - t("incorrect") as f64, t("clues")),
            clues: t("clues"),
            correct: t("correct"),
            incorrect: t("incorrect"),
        });
    }
    Ok(out)
}
