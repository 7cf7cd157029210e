//! Boards, games and their evaluation: seeded 9/8/7/1 boards, a game loop that asks any
//! [`Strategy`] for clues and any [`Guesser`] for guesses, and the figures of many games.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::Knowledge;
use crate::guesser::Guesser;
pub use crate::guesser::{Guess, GuessParams, guess};
use crate::legality::Lexicon;
pub use crate::request::{Answer, Request, Suggestion, sort_suggestions};
pub use crate::strategy::{Strategy, StrategyKind};

/// The seeded generator of boards and games (the `seeded` crate): a game is reproducible from
/// one `u64`.
pub use seeded::SplitMix64;

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

    /// What the spymaster of `team` sees: its cards, the opponent's, the bystanders, the
    /// assassin; revealed cards have left the board.
    pub fn request_for(&self, team: Role) -> Request {
        let mut req = Request::default();
        for c in self.cards.iter().filter(|c| !c.revealed) {
            match c.role {
                r if r == team => req.pos.push(c.word.clone()),
                Role::Assassin => req.assassin = Some(c.word.clone()),
                Role::Bystander => req.neutral.push(c.word.clone()),
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

    /// Whether red's game is over once it revealed a card of `role`: the assassin, red's last
    /// card, or blue's last. The one rule of `play`, `eval` and the server's games.
    pub fn ending_after(&self, role: Role) -> Option<Ending> {
        if role == Role::Assassin {
            Some(Ending::Assassin)
        } else if self.remaining(Role::Red) == 0 {
            Some(Ending::AllFound)
        } else if self.remaining(Role::Blue) == 0 {
            Some(Ending::OpponentFound)
        } else {
            None
        }
    }
}

/// How a game ended ([`Board::ending_after`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Red revealed the assassin: lost.
    Assassin,
    /// Red's 9 cards are revealed: won.
    AllFound,
    /// Blue's 8 cards are revealed: lost.
    OpponentFound,
}

/// The opponent that plays with `play --opponent` and in the server's games: after each red
/// turn, blue reveals one of its own cards, chosen by a generator seeded from the game's seed,
/// so that a seed replays the same game in either.
#[derive(Debug, Clone)]
pub struct Opponent(SplitMix64);

impl Opponent {
    pub fn new(game_seed: u64) -> Opponent {
        Opponent(SplitMix64::new(game_seed ^ 0x6f70_706f_6e65_6e74))
    }

    /// Reveals one of blue's unrevealed cards on `board` and returns its index; `None` when
    /// blue has none left.
    pub fn reveal(&mut self, board: &mut Board) -> Option<usize> {
        let blue: Vec<usize> = (0..board.cards.len())
            .filter(|&i| !board.cards[i].revealed && board.cards[i].role == Role::Blue)
            .collect();
        let i = *blue.get(self.0.below(blue.len()))?;
        board.cards[i].revealed = true;
        Some(i)
    }
}

/// Game parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PlayParams {
    /// Whether blue reveals one of its cards after each red turn. Off by default: the game is
    /// then red's alone, as the outside guesser's reference figures are measured (the game is
    /// lost on the assassin, on blue's 8 cards revealed by red, or after `max_turns`).
    pub opponent: bool,
    /// Turns before the game counts as lost.
    pub max_turns: usize,
}

impl Default for PlayParams {
    fn default() -> Self {
        PlayParams {
            opponent: false,
            max_turns: 25,
        }
    }
}

/// One red turn: the clue given (none = pass) and the cards revealed, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub clue: Option<Suggestion>,
    pub revealed: Vec<(String, Role)>,
    /// The card the opponent revealed after this turn, if it plays and the game went on.
    pub opponent: Option<String>,
}

/// A finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub seed: u64,
    pub strategy: String,
    pub guesser: String,
    /// The board as dealt (nothing revealed).
    pub board: Board,
    pub turns: Vec<Turn>,
    pub won: bool,
    pub assassin: bool,
    /// Clues given (passes excluded).
    pub clues: usize,
    /// Sum of the numbers of the clues given.
    pub clue_numbers: usize,
    /// Clues given by the strategy's fallback, when it had none of its own (counted in
    /// `clues` too).
    #[serde(default)]
    pub fallbacks: usize,
    /// Red cards revealed by red's guesses.
    pub correct: usize,
    /// Other cards revealed by red's guesses (blue, bystander, assassin).
    pub incorrect: usize,
}

/// A game's clue for a turn, and what it came from.
pub struct TurnClue {
    /// The strategy's best clue, or its fallback's when it had none; `None`: a pass.
    pub clue: Option<Suggestion>,
    /// Whether the clue is the fallback's.
    pub fallback: bool,
    /// The strategy's other clues, best first (none after a fallback).
    pub others: Vec<Suggestion>,
}

/// The clue a game gives for `req`: the strategy's best, or its fallback when it has none (a
/// game gives a clue rather than pass turn after turn). One rule for `play`, `eval` and the
/// server's games: the browser's setnet game once passed where `clue-db play` fell back.
pub fn turn_clue(
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    req: &Request,
    strategy: &dyn Strategy,
) -> anyhow::Result<TurnClue> {
    let mut ranked = crate::answer::ranked(k, lexicon, req, strategy)?.into_iter();
    if let Some(best) = ranked.next() {
        return Ok(TurnClue {
            clue: Some(best),
            fallback: false,
            others: ranked.collect(),
        });
    }
    let clue = strategy.fallback(k, req, &crate::answer::legality(req, lexicon))?;
    Ok(TurnClue {
        fallback: clue.is_some(),
        clue,
        others: Vec::new(),
    })
}

/// Plays one seeded game on a board drawn from the knowledge's card words: the strategy gives
/// clues, the guesser takes up to the clue's number of cards and stops at the first wrong one.
/// Red loses at once on the assassin, wins when its 9 cards are revealed, loses when blue's 8
/// are (or after `max_turns`). With `opponent`, blue reveals one of its own cards (seeded choice)
/// after each red turn. Clues given are passed to the strategy as the request's history
/// (`given`), which the legality rules refuse: a clue the guesser could not follow once would
/// otherwise come back every turn.
pub fn play(
    seed: u64,
    strategy: &dyn Strategy,
    guesser: &dyn Guesser,
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
) -> anyhow::Result<GameRecord> {
    play_observed(
        seed,
        strategy,
        guesser,
        k,
        lexicon,
        params,
        &mut |_, _, _| Ok(()),
    )
}

/// What [`play_observed`] shows of each turn: the board as the clue was given (before the
/// turn's reveals), the turn as it went, and the strategy's other suggestions for that board,
/// in its order after the clue it gave (none after a fallback clue or a pass).
pub type TurnObserver<'a> = dyn FnMut(&Board, &Turn, &[Suggestion]) -> anyhow::Result<()> + 'a;

/// [`play`], calling `on_turn` after each red turn (the per-turn record of `eval --turns`).
pub fn play_observed(
    seed: u64,
    strategy: &dyn Strategy,
    guesser: &dyn Guesser,
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
    on_turn: &mut TurnObserver<'_>,
) -> anyhow::Result<GameRecord> {
    let terms = k.card_words().context("reading the card words")?;
    let mut board = Board::random(&terms, seed)?;
    let mut record = GameRecord {
        seed,
        strategy: strategy.name().to_string(),
        guesser: guesser.name().to_string(),
        board: board.clone(),
        turns: Vec::new(),
        won: false,
        assassin: false,
        clues: 0,
        clue_numbers: 0,
        fallbacks: 0,
        correct: 0,
        incorrect: 0,
    };
    let mut opponent = Opponent::new(seed);
    let mut given: Vec<String> = Vec::new();
    'game: while record.turns.len() < params.max_turns {
        let mut req = board.request_for(Role::Red);
        req.given = given.clone();
        let board_words = board.unrevealed();
        let before = board.clone();
        let TurnClue {
            clue,
            fallback,
            others,
        } = turn_clue(k, lexicon, &req, strategy)
            .with_context(|| format!("game {seed}, turn {}", record.turns.len() + 1))?;
        record.fallbacks += fallback as usize;
        let mut turn = Turn {
            clue,
            revealed: Vec::new(),
            opponent: None,
        };
        if let Some(clue) = &turn.clue {
            given.push(clue.clue.clone());
            record.clues += 1;
            record.clue_numbers += clue.count;
            let guesses = guesser.guess(&clue.clue, clue.count, &board_words)?;
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
                if let Some(ending) = board.ending_after(role) {
                    record.assassin = ending == Ending::Assassin;
                    record.won = ending == Ending::AllFound;
                    on_turn(&before, &turn, &others)?;
                    record.turns.push(turn);
                    break 'game;
                }
                if role != Role::Red {
                    break;
                }
            }
        }
        if params.opponent {
            // Blue's turn: one of its cards.
            turn.opponent = opponent
                .reveal(&mut board)
                .map(|i| board.cards[i].word.clone());
        }
        on_turn(&before, &turn, &others)?;
        record.turns.push(turn);
        if board.remaining(Role::Blue) == 0 {
            break;
        }
    }
    Ok(record)
}

/// The figures of one strategy with one guesser over a set of games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyReport {
    pub strategy: String,
    pub guesser: String,
    pub games: usize,
    pub win_rate: f64,
    /// Mean red turns per game.
    pub mean_turns: f64,
    /// Mean red turns of the games won; 0 when none was won (the text report prints `-`).
    pub turns_per_win: f64,
    pub assassin_rate: f64,
    /// Mean number said with a clue (over all clues of all games).
    pub mean_clue_number: f64,
    /// (correct − incorrect) / clues, totals over all games.
    pub net_per_clue: f64,
    pub clues: usize,
    pub correct: usize,
    pub incorrect: usize,
    /// Of `clues`, those the strategy's fallback gave when it had none: a strategy that
    /// answers nothing (a damaged network) must not pass the fallback's play off as its own.
    #[serde(default)]
    pub fallbacks: usize,
}

impl StrategyReport {
    /// The share of the clues given by the fallback (0 when no clue was given).
    pub fn fallback_share(&self) -> f64 {
        if self.clues == 0 {
            0.0
        } else {
            self.fallbacks as f64 / self.clues as f64
        }
    }
}

/// The seed of game `i` of an evaluation seeded `seed`: every strategy plays the same boards.
pub fn game_seed(seed: u64, i: usize) -> u64 {
    SplitMix64::new(seed ^ (i as u64).wrapping_mul(0xd134_2543_de82_ef95)).next_u64()
}

/// One turn of an evaluation, as `eval --turns FILE` writes it (one JSON object a line): the
/// board as the clue was given, the clue, what each guesser would have taken for it, and what
/// the playing guesser did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub strategy: String,
    /// The guesser whose game this is (its picks decided the outcome).
    pub guesser: String,
    /// The game's seed (`clue-db play --seed` replays it) and the turn, from 1.
    pub seed: u64,
    pub turn: usize,
    /// The unrevealed cards when the clue was given, by role.
    pub red: Vec<String>,
    pub blue: Vec<String>,
    pub bystander: Vec<String>,
    pub assassin: Option<String>,
    /// The clue (null for a pass), its number and the cards it was meant for.
    pub clue: Option<String>,
    pub number: usize,
    pub targets: Vec<String>,
    /// The strategy's score of the clue (relatedness: the number of targets plus the board
    /// model's share, [`crate::board_model`]; negative for a fallback clue).
    pub score: Option<f64>,
    /// The relatedness strategy's safety of the weakest target, the share of the margins it
    /// clears (`λ`: 1 or more clears them whole; `None` for other strategies'
    /// clues and for a fallback).
    pub safety: Option<f64>,
    /// Each guesser's picks for the clue on this board, in order, at most the clue's number
    /// (what it would take if nothing stopped it), by guesser name.
    pub picks: BTreeMap<String, Vec<String>>,
    /// What the playing guesser revealed, in order, with each card's role.
    pub revealed: Vec<(String, Role)>,
    /// `pass`, `complete` (every guess right, all the number taken), `stopped` (right guesses,
    /// then the guesser took no more), `wrong` (a blue card or a bystander ended the turn),
    /// `assassin`, or `won` (the last red card).
    pub outcome: String,
    /// With `eval --alternatives N`: the strategy's next N suggestions for the same board, in
    /// its order, each with every guesser's picks: clues compared on the same board, as a
    /// card's difficulty confounds any comparison across turns (docs/evaluation.md, "Judged by
    /// people").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<AlternativeRecord>,
}

/// A clue the strategy ranked below the one it gave, on the same board (`eval --alternatives`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlternativeRecord {
    pub clue: String,
    pub number: usize,
    pub targets: Vec<String>,
    pub score: f64,
    /// As [`TurnRecord::safety`].
    pub safety: Option<f64>,
    /// Each guesser's picks for this clue on the turn's board, as [`TurnRecord::picks`].
    pub picks: BTreeMap<String, Vec<String>>,
}

/// The relatedness strategy's safety of a suggestion's weakest target ([`Suggestion::safety`]);
/// `None` for other strategies, a fallback clue or an infinite safety.
fn safety_of(strategy: &str, c: &Suggestion) -> Option<f64> {
    c.safety
        .filter(|l| strategy == "relatedness" && l.is_finite())
}

/// Each guesser's picks for `clue` on the unrevealed `words`, by guesser name.
fn all_picks(
    guessers: &[&dyn Guesser],
    c: &Suggestion,
    words: &[String],
) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    guessers
        .iter()
        .map(|g| {
            let picks = g.guess(&c.clue, c.count, words)?;
            Ok((
                g.name().to_string(),
                picks.into_iter().map(|p| p.word).collect(),
            ))
        })
        .collect()
}

impl TurnRecord {
    fn new(
        strategy: &str,
        guesser: &str,
        seed: u64,
        turn: usize,
        before: &Board,
        t: &Turn,
    ) -> TurnRecord {
        let unrevealed = |role: Role| -> Vec<String> {
            before
                .cards
                .iter()
                .filter(|c| !c.revealed && c.role == role)
                .map(|c| c.word.clone())
                .collect()
        };
        let clue = t.clue.as_ref();
        let number = clue.map_or(0, |c| c.count);
        let outcome = match (clue, t.revealed.last()) {
            (None, _) => "pass",
            (_, Some((_, Role::Assassin))) => "assassin",
            (_, Some((_, Role::Red))) if unrevealed(Role::Red).len() == t.revealed.len() => "won",
            (_, Some((_, Role::Red))) if t.revealed.len() >= number => "complete",
            (_, Some((_, Role::Blue | Role::Bystander))) => "wrong",
            _ => "stopped",
        };
        let safety = clue.and_then(|c| safety_of(strategy, c));
        TurnRecord {
            strategy: strategy.to_string(),
            guesser: guesser.to_string(),
            seed,
            turn,
            red: unrevealed(Role::Red),
            blue: unrevealed(Role::Blue),
            bystander: unrevealed(Role::Bystander),
            assassin: unrevealed(Role::Assassin).into_iter().next(),
            clue: clue.map(|c| c.clue.clone()),
            number,
            targets: clue.map(|c| c.targets.clone()).unwrap_or_default(),
            score: clue.map(|c| c.score),
            safety,
            picks: BTreeMap::new(),
            revealed: t.revealed.clone(),
            outcome: outcome.to_string(),
            alternatives: Vec::new(),
        }
    }
}

/// Where `eval` sends its per-turn records, if anywhere.
pub type TurnSink<'a> = dyn FnMut(&TurnRecord) -> anyhow::Result<()> + 'a;

/// Where `eval` sends its per-turn records, and how many of the strategy's other suggestions
/// each record carries ([`TurnRecord::alternatives`]).
pub struct Turns<'s, 'a> {
    pub sink: &'s mut TurnSink<'a>,
    pub alternatives: usize,
}

/// Plays `games` games per strategy and guesser on the same seeded boards and reports each pair;
/// with `turns`, each turn's [`TurnRecord`] goes there, with every guesser's picks.
#[allow(clippy::too_many_arguments)]
pub fn eval(
    games: usize,
    seed: u64,
    strategies: &[&dyn Strategy],
    guessers: &[&dyn Guesser],
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
    turns: Option<Turns<'_, '_>>,
) -> anyhow::Result<Vec<StrategyReport>> {
    eval_watched(
        games, seed, strategies, guessers, k, lexicon, params, turns, None,
    )
}

/// Told after each game of [`eval_watched`]: the strategy's and the guesser's names, the games
/// played of this pair and how many it plays (a long run shows its progress). It answers
/// whether to go on: `false` ends the evaluation after this game (Ctrl-C), and the last report
/// is of the games played ([`StrategyReport::games`]), so an hour's games are not lost.
pub type Progress<'a> = dyn FnMut(&str, &str, usize, usize) -> bool + 'a;

/// [`eval`], telling `progress` after each game.
#[allow(clippy::too_many_arguments)]
pub fn eval_watched(
    games: usize,
    seed: u64,
    strategies: &[&dyn Strategy],
    guessers: &[&dyn Guesser],
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
    mut turns: Option<Turns<'_, '_>>,
    mut progress: Option<&mut Progress<'_>>,
) -> anyhow::Result<Vec<StrategyReport>> {
    crate::strategy::check_ready(strategies, k)?;
    let mut out = Vec::new();
    for g in guessers {
        for s in strategies {
            let mut on_turn =
                |before: &Board, t: &Turn, others: &[Suggestion], game_seed: u64, n: usize| {
                    let Some(turns) = turns.as_mut() else {
                        return Ok(());
                    };
                    let mut r = TurnRecord::new(s.name(), g.name(), game_seed, n, before, t);
                    if let Some(c) = &t.clue {
                        let words = before.unrevealed();
                        r.picks = all_picks(guessers, c, &words)?;
                        for o in others.iter().take(turns.alternatives) {
                            r.alternatives.push(AlternativeRecord {
                                clue: o.clue.clone(),
                                number: o.count,
                                targets: o.targets.clone(),
                                score: o.score,
                                safety: safety_of(s.name(), o),
                                picks: all_picks(guessers, o, &words)?,
                            });
                        }
                    }
                    (turns.sink)(&r)
                };
            let mut on_game = |done: usize| match progress.as_mut() {
                Some(p) => p(s.name(), g.name(), done, games),
                None => true,
            };
            let (report, stopped) = eval_one(
                games,
                seed,
                *s,
                *g,
                k,
                lexicon,
                params,
                &mut on_turn,
                &mut on_game,
            )?;
            out.push(report);
            if stopped {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// [`TurnObserver`] with the game's seed and the turn's number, from 1.
type GameTurnObserver<'a> =
    dyn FnMut(&Board, &Turn, &[Suggestion], u64, usize) -> anyhow::Result<()> + 'a;

#[allow(clippy::too_many_arguments)]
fn eval_one(
    games: usize,
    seed: u64,
    s: &dyn Strategy,
    guesser: &dyn Guesser,
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    params: &PlayParams,
    on_turn: &mut GameTurnObserver<'_>,
    on_game: &mut dyn FnMut(usize) -> bool,
) -> anyhow::Result<(StrategyReport, bool)> {
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    let mut played = 0;
    let mut stopped = false;
    for i in 0..games {
        let game_seed = game_seed(seed, i);
        let mut n = 0;
        let g = play_observed(
            game_seed,
            s,
            guesser,
            k,
            lexicon,
            params,
            &mut |before, t, others| {
                n += 1;
                on_turn(before, t, others, game_seed, n)
            },
        )?;
        *totals.entry("wins").or_default() += g.won as usize;
        *totals.entry("win_turns").or_default() += if g.won { g.turns.len() } else { 0 };
        *totals.entry("assassin").or_default() += g.assassin as usize;
        *totals.entry("turns").or_default() += g.turns.len();
        *totals.entry("clues").or_default() += g.clues;
        *totals.entry("numbers").or_default() += g.clue_numbers;
        *totals.entry("fallbacks").or_default() += g.fallbacks;
        *totals.entry("correct").or_default() += g.correct;
        *totals.entry("incorrect").or_default() += g.incorrect;
        played = i + 1;
        if !on_game(played) {
            stopped = true;
            break;
        }
    }
    let games = played;
    let t = |key: &str| totals.get(key).copied().unwrap_or(0);
    let ratio = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
    let report = StrategyReport {
        strategy: s.name().to_string(),
        guesser: guesser.name().to_string(),
        games,
        win_rate: ratio(t("wins") as f64, games),
        mean_turns: ratio(t("turns") as f64, games),
        turns_per_win: ratio(t("win_turns") as f64, t("wins")),
        assassin_rate: ratio(t("assassin") as f64, games),
        mean_clue_number: ratio(t("numbers") as f64, t("clues")),
        net_per_clue: ratio(t("correct") as f64 - t("incorrect") as f64, t("clues")),
        clues: t("clues"),
        correct: t("correct"),
        incorrect: t("incorrect"),
        fallbacks: t("fallbacks"),
    };
    Ok((report, stopped))
}

/// Knowledge whose boards are drawn from a word list a player brings (`eval --words`,
/// `play --words`: Codenames Duet, Deep Undercover, a group's own pack) rather than from the
/// card words with stored rows; everything else is read from `inner`.
pub struct Deck<'k> {
    inner: &'k dyn Knowledge,
    words: Vec<String>,
}

impl<'k> Deck<'k> {
    /// Boards of `words` (at least 25, each once) over `inner`'s knowledge.
    pub fn new(inner: &'k dyn Knowledge, words: Vec<String>) -> anyhow::Result<Deck<'k>> {
        let mut seen = std::collections::HashSet::new();
        if let Some(w) = words.iter().find(|w| !seen.insert(w.as_str())) {
            anyhow::bail!("the word list holds {w:?} twice");
        }
        if words.len() < 25 {
            anyhow::bail!(
                "the word list has {} words: a board needs 25 different ones",
                words.len()
            );
        }
        Ok(Deck { inner, words })
    }
}

impl Knowledge for Deck<'_> {
    fn clues_of(&self, term: &str) -> anyhow::Result<Vec<(String, f64)>> {
        self.inner.clues_of(term)
    }
    fn term_doc(&self, term: &str) -> anyhow::Result<Vec<(String, u64)>> {
        self.inner.term_doc(term)
    }
    fn terms(&self) -> anyhow::Result<Vec<String>> {
        self.inner.terms()
    }
    fn clue_words(&self) -> anyhow::Result<std::sync::Arc<crate::ClueWords>> {
        self.inner.clue_words()
    }
    fn relatedness(&self, card: &str) -> anyhow::Result<Option<std::sync::Arc<[f32]>>> {
        self.inner.relatedness(card)
    }
    fn relatedness_all(
        &self,
        cards: &[String],
    ) -> anyhow::Result<Vec<Option<std::sync::Arc<[f32]>>>> {
        self.inner.relatedness_all(cards)
    }
    fn top_scores(&self) -> anyhow::Result<std::sync::Arc<crate::TopScores>> {
        self.inner.top_scores()
    }
    fn unknown_risk(&self, pos: &[String]) -> anyhow::Result<crate::threshold::ClueMap> {
        self.inner.unknown_risk(pos)
    }
    fn reading(&self, card: &str) -> anyhow::Result<Option<std::sync::Arc<[f32]>>> {
        self.inner.reading(card)
    }
    fn clue_form(&self, word: &str) -> anyhow::Result<Option<String>> {
        self.inner.clue_form(word)
    }
    fn setnet(&self) -> anyhow::Result<std::sync::Arc<crate::setnet::Trained>> {
        self.inner.setnet()
    }
    /// The list's words: what boards are drawn from.
    fn card_words(&self) -> anyhow::Result<Vec<String>> {
        Ok(self.words.clone())
    }
}
