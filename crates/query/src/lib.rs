//! The query engine: given a board, pick the clue. Reads what the pipeline stored through the
//! [`Knowledge`] trait, so every strategy can be tested on hand-made data without SQLite.
//!
//! Board-side types ([`request`]) stand apart from the game loop ([`game`]); every strategy
//! implements [`strategy::Strategy`], every guesser [`guesser::Guesser`].

use std::sync::Arc;

/// What the strategies need to know, whatever holds it (the SQLite store, or a test's map).
pub trait Knowledge {
    /// Every `(clue, score)` the pipeline found for `term` (lower-case card word), any order.
    fn clues_of(&self, term: &str) -> anyhow::Result<Vec<(String, f64)>>;
    /// The term's document as word counts (the `term_docs` table): `(word, count)`, any order.
    fn term_doc(&self, term: &str) -> anyhow::Result<Vec<(String, u64)>>;
    /// Every covered term (lower-case card words), sorted.
    fn terms(&self) -> anyhow::Result<Vec<String>>;
    /// The clue words of the dense relatedness, in id order, each with its risk (the score a
    /// card word the corpus does not know is assumed to have with it); empty when there is no
    /// relatedness.
    fn clue_words(&self) -> anyhow::Result<Arc<ClueWords>> {
        Ok(Arc::default())
    }
    /// A card word's relatedness with every clue word (in [`Knowledge::clue_words`] order);
    /// `None` when the word is not covered.
    fn relatedness(&self, _card: &str) -> anyhow::Result<Option<Arc<[f32]>>> {
        Ok(None)
    }
    /// [`Knowledge::relatedness`] of several cards at once (a board's): a knowledge that
    /// computes rows can then compute them together.
    fn relatedness_all(&self, cards: &[String]) -> anyhow::Result<Vec<Option<Arc<[f32]>>>> {
        cards.iter().map(|c| self.relatedness(c)).collect()
    }
    /// Each clue's best scores (`clues_of`) with covered terms, best first (ties by term), at
    /// most [`threshold::TOP_SCORES`] per clue: what a card word the knowledge does not cover is
    /// assumed to score ([`threshold::unknown_risk`]). Read only when such a word is on a board.
    fn top_scores(&self) -> anyhow::Result<Arc<TopScores>> {
        let mut tops = TopScores::new();
        for t in self.terms()? {
            for (clue, s) in self.clues_of(&t)? {
                if s.is_finite() {
                    tops.entry(clue).or_default().push((t.clone(), s));
                }
            }
        }
        for best in tops.values_mut() {
            sort_top(best);
        }
        Ok(Arc::new(tops))
    }
    /// For each clue, its highest score (`clues_of`) with a covered term other than `pos`: what
    /// a card word the knowledge does not cover counts at as a card to avoid
    /// ([`threshold::unknown_risk`]). By default from [`Knowledge::top_scores`].
    fn unknown_risk(&self, pos: &[String]) -> anyhow::Result<threshold::ClueMap> {
        let tops = self.top_scores()?;
        Ok(threshold::risk_from_tops(&tops, pos))
    }
    /// How a guesser reads each clue word for a card word (in [`Knowledge::clue_words`] order):
    /// first and second order together (`relate::reading`); by default the card's relatedness.
    fn reading(&self, card: &str) -> anyhow::Result<Option<Arc<[f32]>>> {
        self.relatedness(card)
    }
    /// The clue word a written form was counted under (`animal` → `animals`: plurals fold into
    /// the form written most), when `word` is such a form; `None` otherwise.
    fn clue_form(&self, _word: &str) -> anyhow::Result<Option<String>> {
        Ok(None)
    }
    /// The set network the `setnet` stage trained (table `setnet_weights`), read once; an
    /// error naming the table when the knowledge has none.
    fn setnet(&self) -> anyhow::Result<Arc<crate::setnet::Trained>> {
        anyhow::bail!("no set network here (table setnet_weights): run `clue-db pipeline setnet`")
    }
    /// The card words boards are drawn from: those with relatedness, else the covered terms.
    fn card_words(&self) -> anyhow::Result<Vec<String>> {
        self.terms()
    }
}

/// Per clue, its best `(term, score)` pairs, best first ([`Knowledge::top_scores`]).
pub type TopScores = std::collections::HashMap<String, Vec<(String, f64)>>;

/// Sorts one clue's `(term, score)` pairs best first (ties by term), keeps
/// [`threshold::TOP_SCORES`] and, of a term listed twice, its best.
pub fn sort_top(best: &mut Vec<(String, f64)>) {
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut seen = std::collections::HashSet::new();
    best.retain(|(t, _)| seen.insert(t.clone()));
    best.truncate(threshold::TOP_SCORES);
}

/// The clue words of the dense relatedness and their risks, by id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClueWords {
    pub words: Vec<String>,
    /// Occurrences of each in the corpus.
    pub counts: Vec<u64>,
    pub risk: Vec<f32>,
    /// Word → id, built on the first lookup: `suggest` never looks a clue word up, and hashing
    /// every word would cost it a millisecond.
    index: std::sync::OnceLock<std::collections::HashMap<String, u32>>,
}

impl ClueWords {
    /// From `(word, count, risk)` in id order.
    pub fn new(rows: Vec<(String, u64, f32)>) -> ClueWords {
        let mut c = ClueWords::default();
        for (w, n, r) in rows {
            c.words.push(w);
            c.counts.push(n);
            c.risk.push(r);
        }
        c
    }
    pub fn id(&self, word: &str) -> Option<usize> {
        let index = self.index.get_or_init(|| {
            self.words
                .iter()
                .enumerate()
                .map(|(i, w)| (w.clone(), i as u32))
                .collect()
        });
        index.get(word).map(|&i| i as usize)
    }
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
    pub fn len(&self) -> usize {
        self.words.len()
    }
}

/// The most characters of a word a message shows: longer, it is shown by its start and length.
pub const SHOWN_CHARS: usize = 64;

/// `word` as a message shows it: quoted and escaped, cut to [`SHOWN_CHARS`] characters with
/// its length (`"qqq…" (15000 characters)`): a 15 KB "word" is not echoed whole. Every
/// message naming a word a user typed or sent (the CLI's and the API's) goes through it.
pub fn shown(word: &str) -> String {
    let chars = word.chars().count();
    if chars > SHOWN_CHARS {
        let start: String = word.chars().take(SHOWN_CHARS).collect();
        format!("{}… ({chars} characters)", quoted(&start))
    } else {
        quoted(word)
    }
}

/// `word` quoted as `{:?}` quotes it, but an invisible or control character named by its code
/// point (`<U+FEFF>`), which a user can look up, not by Rust's `\u{feff}`.
fn quoted(word: &str) -> String {
    let mut out = String::from("\"");
    for c in word.chars() {
        let escaped = c.escape_debug().to_string();
        if c == '\'' {
            out.push(c);
        } else if escaped.starts_with("\\u{") {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push_str(&escaped);
        }
    }
    out.push('"');
    out
}

/// The longest message [`cut_long_words`] leaves, in characters.
pub const SHOWN_MESSAGE_CHARS: usize = 1024;

/// A message that may quote what a user sent (a JSON parser's, naming a field or a value) with
/// each run of more than [`SHOWN_CHARS`] characters between spaces, quotes, backticks, colons
/// and commas cut as [`shown`] cuts a word (its start, `…` and its length), and the whole cut
/// at [`SHOWN_MESSAGE_CHARS`] (a value of many short words).
pub fn cut_long_words(text: &str) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let chars = run.chars().count();
        if chars > SHOWN_CHARS {
            out.extend(run.chars().take(SHOWN_CHARS));
            out.push_str(&format!("… ({chars} characters)"));
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() || matches!(c, '"' | '`' | ':' | ',') {
            flush(&mut run, &mut out);
            out.push(c);
        } else {
            run.push(c);
        }
    }
    flush(&mut run, &mut out);
    let chars = out.chars().count();
    if chars > SHOWN_MESSAGE_CHARS {
        let start: String = out.chars().take(SHOWN_MESSAGE_CHARS).collect();
        out = format!("{start}… ({chars} characters)");
    }
    out
}

#[cfg(test)]
mod shown_tests {
    use super::*;

    #[test]
    fn long_words_are_cut_in_messages() {
        assert_eq!(shown("apple"), "\"apple\"");
        // Odd characters by their code points, the common escapes as Rust writes them.
        assert_eq!(shown("\u{feff}ap\u{1b}ple"), "\"<U+FEFF>ap<U+001B>ple\"");
        assert_eq!(shown("it's \"x\"\\\n"), "\"it's \\\"x\\\"\\\\\\n\"");
        assert_eq!(shown("café"), "\"café\"");
        let long = "q".repeat(15_000);
        let s = shown(&long);
        assert!(s.len() < 100 && s.ends_with("(15000 characters)"), "{s}");
        // A parser's message naming a field twice and a value: each cut, exactly counted.
        let m = format!("{long}: unknown field `{long}`, got \"{long}\" at line 1");
        let c = cut_long_words(&m);
        assert!(c.len() < 400, "{c}");
        assert_eq!(c.matches("(15000 characters)").count(), 3, "{c}");
        assert!(
            c.contains(": unknown field `") && c.ends_with("at line 1"),
            "{c}"
        );
        // Many short words: the whole is cut.
        let c = cut_long_words(&"ab ".repeat(10_000));
        assert!(c.chars().count() < SHOWN_MESSAGE_CHARS + 40, "{c}");
        assert!(c.ends_with("(30000 characters)"), "{c}");
        assert_eq!(cut_long_words("short: `as is`"), "short: `as is`");
    }
}

pub mod answer;
pub mod board_model;
pub mod cluster;
pub mod deck;
pub mod game;
pub mod guesser;
pub mod herfindahl;
pub mod legality;
pub mod relatedness;
pub mod request;
pub mod scenarios;
pub mod setnet;
pub mod store_knowledge;
pub mod strategy;
pub mod threshold;
pub mod typed;
pub mod vectors;
