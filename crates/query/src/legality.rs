//! Which clues a spymaster may say, whatever the strategy.
//!
//! The rules: a clue is one lower-case word; it is not a board word, does not contain one and
//! is not contained in one, is not an inflection of one, and is not a stopword.
//!
//! Decisions:
//! - **A word is letters only** (`char::is_alphabetic`, no upper-case letters), at least two of
//!   them. No hyphen: hyphenated compounds are two words under the game's rules, and
//!   Wikipedia-derived candidates with hyphens are mostly fragments ("non-", "anti-").
//!   No digits or apostrophes. Single letters are refused as noise.
//! - **Board words compare case-insensitively, by several forms**: a multi-word card such as
//!   "ice cream" (or "ice-cream") compares as the whole ("ice cream"), the whole without
//!   separators ("icecream"), and each word ("ice", "cream"). So "icecream", "creamy", "ice"
//!   and "cream" are all illegal on that board.
//! - **A board word compares with its accents off too** (`text::fold_accents`): a card typed
//!   `café` is scored as the vocabulary's `cafe`, so `cafe` and `cafes` are illegal beside it.
//!   (In a language where `bär` and `bar` are two words, `bar` is refused beside `bär`: a
//!   legal clue refused, never an illegal one allowed.)
//! - **Morphology comes from outside** through [`Lexicon`], so this module does not depend on
//!   the `text` crate's inflections; the lead wires `text` in with [`FnLexicon`].

use serde::Serialize;

/// Inflection and stopword knowledge the rules need.
pub trait Lexicon {
    /// Whether `a` is an inflection of `b` or `b` of `a` (e.g. "apples" / "apple"). Both are
    /// lower-case single words.
    fn is_inflection_of(&self, a: &str, b: &str) -> bool;
    /// Whether `w` (lower-case) is a stopword.
    fn is_stopword(&self, w: &str) -> bool;
}

/// A lexicon that knows nothing: no inflections, no stopwords (tests, or before `text` is wired).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoLexicon;

impl Lexicon for NoLexicon {
    fn is_inflection_of(&self, _: &str, _: &str) -> bool {
        false
    }
    fn is_stopword(&self, _: &str) -> bool {
        false
    }
}

/// A lexicon made of two closures, e.g. over the `text` crate's functions.
pub struct FnLexicon<I, S> {
    pub inflection: I,
    pub stopword: S,
}

impl<I, S> Lexicon for FnLexicon<I, S>
where
    I: Fn(&str, &str) -> bool,
    S: Fn(&str) -> bool,
{
    fn is_inflection_of(&self, a: &str, b: &str) -> bool {
        (self.inflection)(a, b)
    }
    fn is_stopword(&self, w: &str) -> bool {
        (self.stopword)(w)
    }
}

/// Why a clue is refused; the board word involved is named so a user sees the conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "word", rename_all = "snake_case")]
pub enum Illegal {
    /// Not one lower-case word of at least two letters.
    NotAWord,
    /// Equal to a board word (or one of its words).
    BoardWord(String),
    /// The clue contains this board word.
    Contains(String),
    /// The clue is contained in this board word.
    ContainedIn(String),
    /// The clue is an inflection of this board word.
    InflectionOf(String),
    /// A stopword.
    Stopword,
    /// Already given this game (`--given`): a clue the guesser could not follow once would
    /// otherwise come back every turn.
    Given,
}

impl std::fmt::Display for Illegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Illegal::NotAWord => write!(f, "not one lower-case word of letters"),
            Illegal::BoardWord(w) => write!(f, "is the board word {}", crate::shown(w)),
            Illegal::Contains(w) => write!(f, "contains the board word {}", crate::shown(w)),
            Illegal::ContainedIn(w) => {
                write!(f, "is contained in the board word {}", crate::shown(w))
            }
            Illegal::InflectionOf(w) => {
                write!(f, "is an inflection of the board word {}", crate::shown(w))
            }
            Illegal::Stopword => write!(f, "is a stopword"),
            Illegal::Given => write!(f, "was given before in this game"),
        }
    }
}

/// One board word, pre-split into the forms it is compared by.
#[derive(Debug, Clone)]
struct CardForms {
    card: String,
    forms: Vec<String>,
}

/// The rules for one board: build once per turn, check many candidates.
pub struct Legality<'a> {
    cards: Vec<CardForms>,
    lexicon: &'a dyn Lexicon,
    /// Clues given earlier in the game.
    given: std::collections::HashSet<String>,
}

/// Whether `w` has the shape of a clue: one lower-case word of at least two letters.
pub fn is_word(w: &str) -> bool {
    w.chars().count() >= 2 && w.chars().all(|c| c.is_alphabetic() && !c.is_uppercase())
}

impl<'a> Legality<'a> {
    /// The rules for a board of `cards` (the unrevealed words: revealed cards leave the board).
    pub fn new<S: AsRef<str>>(cards: &[S], lexicon: &'a dyn Lexicon) -> Legality<'a> {
        let cards = cards
            .iter()
            .map(|c| {
                // The whole card, then its single-word forms: the same ones the store's
                // `inflections` table is built for.
                let whole = c.as_ref().trim().to_lowercase();
                let folded = text::fold_accents(&whole);
                let mut forms = vec![whole.clone()];
                forms.extend(store::card_forms(&whole));
                if folded != whole {
                    forms.push(folded.clone());
                    forms.extend(store::card_forms(&folded));
                }
                forms.retain(|f| !f.is_empty());
                forms.dedup();
                CardForms { card: whole, forms }
            })
            .filter(|c| !c.forms.is_empty())
            .collect();
        Legality {
            cards,
            lexicon,
            given: Default::default(),
        }
    }

    /// The same rules, also refusing the clues given earlier in the game.
    pub fn with_given<S: AsRef<str>>(mut self, given: &[S]) -> Legality<'a> {
        self.given
            .extend(given.iter().map(|g| g.as_ref().trim().to_lowercase()));
        self
    }

    /// `Ok(())` when `clue` may be said on this board, else the first rule it breaks.
    pub fn check(&self, clue: &str) -> Result<(), Illegal> {
        if !is_word(clue) {
            return Err(Illegal::NotAWord);
        }
        if self.given.contains(clue) {
            return Err(Illegal::Given);
        }
        if self.lexicon.is_stopword(clue) {
            return Err(Illegal::Stopword);
        }
        for card in &self.cards {
            for form in &card.forms {
                if clue == form {
                    return Err(Illegal::BoardWord(card.card.clone()));
                }
            }
        }
        for card in &self.cards {
            for form in &card.forms {
                if clue.contains(form.as_str()) {
                    return Err(Illegal::Contains(card.card.clone()));
                }
                if form.contains(clue) {
                    return Err(Illegal::ContainedIn(card.card.clone()));
                }
            }
        }
        for card in &self.cards {
            for form in &card.forms {
                if is_word(form) && self.lexicon.is_inflection_of(clue, form) {
                    return Err(Illegal::InflectionOf(card.card.clone()));
                }
            }
        }
        Ok(())
    }

    /// Whether `clue` may be said on this board.
    pub fn allows(&self, clue: &str) -> bool {
        self.check(clue).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex() -> FnLexicon<impl Fn(&str, &str) -> bool, impl Fn(&str) -> bool> {
        FnLexicon {
            inflection: |a: &str, b: &str| {
                let pairs = [("mice", "mouse"), ("ran", "run"), ("creams", "cream")];
                pairs
                    .iter()
                    .any(|&(x, y)| (a == x && b == y) || (a == y && b == x))
            },
            stopword: |w: &str| matches!(w, "the" | "of" | "and"),
        }
    }

    #[test]
    fn a_card_typed_with_accents_refuses_the_word_without_them() {
        let l = lex();
        let rules = Legality::new(&["Café", "crème brûlée"], &l);
        assert_eq!(rules.check("cafe"), Err(Illegal::BoardWord("café".into())));
        assert_eq!(rules.check("cafes"), Err(Illegal::Contains("café".into())));
        assert_eq!(
            rules.check("creme"),
            Err(Illegal::BoardWord("crème brûlée".into()))
        );
        assert_eq!(rules.check("coffee"), Ok(()));
    }

    #[test]
    fn shape() {
        let l = lex();
        let rules = Legality::new(&["apple"], &l);
        assert_eq!(rules.check("fruit"), Ok(()));
        assert_eq!(rules.check("café"), Ok(()));
        for bad in [
            "Fruit",
            "two words",
            "x-ray",
            "b2b",
            "it's",
            "a",
            "",
            "FRUIT",
        ] {
            assert_eq!(rules.check(bad), Err(Illegal::NotAWord), "{bad}");
        }
    }

    #[test]
    fn board_words_containment_and_case() {
        let l = NoLexicon;
        let rules = Legality::new(&["Apple", "ice cream", "New York"], &l);
        assert_eq!(
            rules.check("apple"),
            Err(Illegal::BoardWord("apple".into()))
        );
        assert_eq!(
            rules.check("pineapple"),
            Err(Illegal::Contains("apple".into()))
        );
        assert_eq!(
            rules.check("app"),
            Err(Illegal::ContainedIn("apple".into()))
        );
        assert_eq!(
            rules.check("ice"),
            Err(Illegal::BoardWord("ice cream".into()))
        );
        assert_eq!(
            rules.check("icecream"),
            Err(Illegal::BoardWord("ice cream".into()))
        );
        assert_eq!(
            rules.check("creamy"),
            Err(Illegal::Contains("ice cream".into()))
        );
        assert_eq!(
            rules.check("yorkshire"),
            Err(Illegal::Contains("new york".into()))
        );
        assert_eq!(rules.check("dessert"), Ok(()));
    }

    #[test]
    fn inflections_and_stopwords_come_from_the_lexicon() {
        let l = lex();
        let rules = Legality::new(&["mouse", "run", "sour cream"], &l);
        assert_eq!(
            rules.check("mice"),
            Err(Illegal::InflectionOf("mouse".into()))
        );
        assert_eq!(rules.check("ran"), Err(Illegal::InflectionOf("run".into())));
        // Inflection of one word of a multi-word card; "creams" also contains "cream",
        // which is reported first.
        assert_eq!(
            rules.check("creams"),
            Err(Illegal::Contains("sour cream".into()))
        );
        assert_eq!(rules.check("the"), Err(Illegal::Stopword));
        assert!(rules.allows("cheese"));
        // Inflection of one word of a multi-word card, with no containment involved.
        let trap = Legality::new(&["mouse trap"], &l);
        assert_eq!(
            trap.check("mice"),
            Err(Illegal::InflectionOf("mouse trap".into()))
        );
        // Without the lexicon, the same words pass.
        let none = NoLexicon;
        let plain = Legality::new(&["mouse", "run"], &none);
        assert!(plain.allows("mice") && plain.allows("ran") && plain.allows("the"));
    }

    #[test]
    fn illegal_serializes_with_reason() {
        let j = serde_json::to_string(&Illegal::Contains("apple".into())).unwrap();
        assert_eq!(j, r#"{"reason":"contains","word":"apple"}"#);
    }
}
