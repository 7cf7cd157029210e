//! An in-memory [`Knowledge`] for the tests: the strategies see exactly the scores and
//! documents a test writes down.

#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};

use query::Knowledge;

#[derive(Debug, Default, Clone)]
pub struct MemoryKnowledge {
    pub clues: HashMap<String, Vec<(String, f64)>>,
    pub docs: HashMap<String, Vec<(String, u64)>>,
    /// Covered terms without clues or documents (e.g. to fill a board).
    pub extra_terms: BTreeSet<String>,
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
