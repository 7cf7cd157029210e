//! The query engine: given a board, pick the clue. Reads what the pipeline stored through the
//! [`Knowledge`] trait, so every strategy can be tested on hand-made data without SQLite.

/// What the strategies need to know, whatever holds it (the SQLite store, or a test's map).
pub trait Knowledge {
    /// Every `(clue, score)` the pipeline found for `term` (lower-case card word), any order.
    fn clues_of(&self, term: &str) -> anyhow::Result<Vec<(String, f64)>>;
    /// The term's document as word counts (the `term_docs` table): `(word, count)`, any order.
    fn term_doc(&self, term: &str) -> anyhow::Result<Vec<(String, u64)>>;
    /// Every covered term (lower-case card words), sorted.
    fn terms(&self) -> anyhow::Result<Vec<String>>;
}

pub mod cluster;
pub mod game;
pub mod herfindahl;
pub mod legality;
pub mod store_knowledge;
pub mod threshold;
