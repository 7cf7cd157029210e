//! Guessers: who turns a clue into cards. [`OwnGuesser`] reads our own knowledge (so games with
//! it are optimistic: it shares the spymaster's data); [`crate::vectors::VectorGuesser`] ranks by
//! word vectors trained elsewhere, the judge of whether clues reach people.

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::Knowledge;

/// Anything that guesses: the unrevealed `words` it would take for `clue`, in order, at most
/// `count` (0 = no limit); fewer, or none, when it would rather stop.
pub trait Guesser {
    /// The name printed in reports.
    fn name(&self) -> &str;
    fn guess(&self, clue: &str, count: usize, words: &[String]) -> anyhow::Result<Vec<Guess>>;
    /// Whether it can ever guess `card` (a guesser with a vocabulary of its own never guesses
    /// a card outside it, so a board holding one cannot be won with it).
    fn knows(&self, _card: &str) -> bool {
        true
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

/// Our own guesser: cards ranked by how they read the clue ([`Knowledge::reading`], from the
/// `relatedness` stage) when the database has the clue word or a form of it, else by their
/// `scores` ([`guess`], with its floor).
pub struct OwnGuesser<'k> {
    pub knowledge: &'k dyn Knowledge,
    pub params: GuessParams,
}

impl<'k> OwnGuesser<'k> {
    pub fn new(knowledge: &'k dyn Knowledge) -> OwnGuesser<'k> {
        OwnGuesser {
            knowledge,
            params: GuessParams::default(),
        }
    }
}

impl Guesser for OwnGuesser<'_> {
    fn name(&self) -> &str {
        "own"
    }
    fn guess(&self, clue: &str, count: usize, words: &[String]) -> anyhow::Result<Vec<Guess>> {
        let clues = self.knowledge.clue_words()?;
        // A clue written in another form of a clue word (`animal` for `animals`) is that word.
        let id = match clues.id(clue) {
            Some(id) => Some(id),
            None => self.knowledge.clue_form(clue)?.and_then(|w| clues.id(&w)),
        };
        let Some(id) = id else {
            return guess(self.knowledge, clue, count, words, &self.params);
        };
        let mut scored = Vec::new();
        for w in words {
            // A card the corpus does not know is not guessed: nothing says it fits. A clue that
            // is given is read by first and second order together (`Knowledge::reading`).
            if let Some(v) = self.knowledge.reading(w)? {
                scored.push(Guess {
                    word: w.clone(),
                    score: v[id] as f64,
                });
            }
        }
        Ok(ranked(scored, count))
    }
}

/// Best first (ties alphabetically), at most `count` (0 = no limit).
pub fn ranked(mut scored: Vec<Guess>, count: usize) -> Vec<Guess> {
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.word.cmp(&b.word))
    });
    scored.truncate(if count == 0 { usize::MAX } else { count });
    scored
}
