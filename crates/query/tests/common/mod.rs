//! An in-memory [`Knowledge`] for the tests: the strategies see exactly the scores and
//! documents a test writes down.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use query::{ClueWords, Knowledge};

#[derive(Debug, Default, Clone)]
pub struct MemoryKnowledge {
    pub clues: HashMap<String, Vec<(String, f64)>>,
    pub docs: HashMap<String, Vec<(String, u64)>>,
    /// Covered terms without clues or documents (e.g. to fill a board).
    pub extra_terms: BTreeSet<String>,
    /// The dense relatedness's clue words in id order: `(word, count, risk)`.
    pub clue_words: Vec<(String, u64, f32)>,
    /// Each card word's relatedness with the clue words it was given; every other clue word
    /// reads 0 (the measure is dense: a card with a row has a value for every clue word).
    pub related: BTreeMap<String, HashMap<String, f32>>,
    /// The set network, when a test trained one.
    pub setnet: Option<Arc<query::setnet::Trained>>,
}

impl MemoryKnowledge {
    /// Records `score(clue, term)`.
    pub fn score(&mut self, clue: &str, term: &str, score: f64) -> &mut Self {
        self.clues
            .entry(term.to_string())
            .or_default()
            .push((clue.to_string(), score));
        self
    }

    /// Forgets every `score(clue, term)`.
    pub fn remove_score(&mut self, clue: &str, term: &str) -> &mut Self {
        if let Some(v) = self.clues.get_mut(term) {
            v.retain(|(c, _)| c != clue);
        }
        self
    }

    /// Records the term's document.
    pub fn doc(&mut self, term: &str, words: &[(&str, u64)]) -> &mut Self {
        self.docs.insert(
            term.to_string(),
            words.iter().map(|&(w, c)| (w.to_string(), c)).collect(),
        );
        self
    }

    pub fn term(&mut self, term: &str) -> &mut Self {
        self.extra_terms.insert(term.to_string());
        self
    }

    /// Adds a clue word of the dense relatedness (count 1000) with its risk, the score a card
    /// word the knowledge does not know is assumed to have with it; a word added twice keeps its
    /// id and takes the new risk.
    pub fn clue_word(&mut self, word: &str, risk: f32) -> &mut Self {
        match self.clue_words.iter_mut().find(|c| c.0 == word) {
            Some(c) => c.2 = risk,
            None => self.clue_words.push((word.to_string(), 1000, risk)),
        }
        self
    }

    /// Records `relatedness(card, clue)`; the clue becomes a clue word (risk 0) if it is not one,
    /// and the card a card word with a row.
    pub fn relate(&mut self, clue: &str, card: &str, score: f32) -> &mut Self {
        if !self.clue_words.iter().any(|c| c.0 == clue) {
            self.clue_word(clue, 0.0);
        }
        self.related
            .entry(card.to_string())
            .or_default()
            .insert(clue.to_string(), score);
        self
    }

    /// A card word with a relatedness row of zeros (or what `relate` gives it later).
    pub fn related_card(&mut self, card: &str) -> &mut Self {
        self.related.entry(card.to_string()).or_default();
        self
    }
}

impl Knowledge for MemoryKnowledge {
    fn clues_of(&self, term: &str) -> anyhow::Result<Vec<(String, f64)>> {
        Ok(self.clues.get(term).cloned().unwrap_or_default())
    }
    fn term_doc(&self, term: &str) -> anyhow::Result<Vec<(String, u64)>> {
        Ok(self.docs.get(term).cloned().unwrap_or_default())
    }
    fn terms(&self) -> anyhow::Result<Vec<String>> {
        let all: BTreeSet<String> = self
            .clues
            .keys()
            .chain(self.docs.keys())
            .chain(&self.extra_terms)
            .cloned()
            .collect();
        Ok(all.into_iter().collect())
    }
    fn clue_words(&self) -> anyhow::Result<Arc<ClueWords>> {
        Ok(Arc::new(ClueWords::new(self.clue_words.clone())))
    }
    fn relatedness(&self, card: &str) -> anyhow::Result<Option<Arc<[f32]>>> {
        Ok(self.related.get(card).map(|row| {
            self.clue_words
                .iter()
                .map(|(w, _, _)| row.get(w).copied().unwrap_or(0.0))
                .collect()
        }))
    }
    fn setnet(&self) -> anyhow::Result<Arc<query::setnet::Trained>> {
        self.setnet
            .clone()
            .ok_or_else(|| anyhow::anyhow!("no set network here (table setnet_weights)"))
    }
    /// As the store: the cards with relatedness when there are any, else the covered terms.
    fn card_words(&self) -> anyhow::Result<Vec<String>> {
        if self.related.is_empty() {
            self.terms()
        } else {
            Ok(self.related.keys().cloned().collect())
        }
    }
}

/// Distinct letters-only card words, `n` of them ("cardaa", "cardab", …), so no card
/// contains another and no clue used in the tests ("crimson", "pvtaa", …) contains a card.
pub fn card_words(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let a = (b'a' + (i / 26) as u8) as char;
            let b = (b'a' + (i % 26) as u8) as char;
            format!("card{a}{b}")
        })
        .collect()
}
