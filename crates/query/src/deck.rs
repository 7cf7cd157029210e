//! The cards boards are drawn from (`play`, `eval`, the server's games and generated boards): a
//! word list the build stored by name, a list a player brings, or by default the original
//! game's cards; each card one that every strategy in play can score. One place, so that the
//! command line and the server deal the same boards and leave out the same words.

use crate::answer::{Unknown, warnings};
use crate::store_knowledge::StoreKnowledge;
use crate::strategy::StrategyKind;
use anyhow::Result;

/// The list boards are drawn from when none is named: the original game's cards. Its words are
/// the ones every strategy was measured on, and a family's board holds none of Deep
/// Undercover's adult words.
pub const DEFAULT_LIST: &str = "codenames";

/// The unknown words of a list named one by one, with the closest cards (the rest are counted).
const SHOWN_UNKNOWN: usize = 20;

/// What a deck is called when the database stored no list: every card word with a stored row.
pub const STORED_CARDS: &str = "the stored card words";

/// The list called `name` among `lists`: names are matched trimmed and in any case
/// (`--words Duet`, `{"list": " duet "}`), the same way by every front end.
pub fn find_list<'l>(
    lists: impl IntoIterator<Item = &'l (String, Vec<String>)>,
    name: &str,
) -> Option<&'l (String, Vec<String>)> {
    let name = name.trim().to_lowercase();
    lists.into_iter().find(|(n, _)| *n == name)
}

/// A deck narrowed to the cards every outside guesser can guess ([`guessable`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Guessable {
    pub words: Vec<String>,
    /// The words left out, in the list's order.
    pub left_out: Vec<String>,
    /// What to tell the person who runs the games (the words left out, or why none was).
    pub note: Option<String>,
}

/// The words of `words` that every guesser knows, for `eval`'s boards: a card outside an
/// outside guesser's vocabulary is never guessed, and a board holding it would judge the
/// vocabulary, not the clues (people know the word). A guesser that knows fewer than a
/// board's 25 (a toy vocabulary) leaves them all in, and the note says so.
pub fn guessable(words: Vec<String>, guessers: &[&dyn crate::guesser::Guesser]) -> Guessable {
    let (known, unseen): (Vec<String>, Vec<String>) = words
        .iter()
        .cloned()
        .partition(|w| guessers.iter().all(|g| g.knows(w)));
    if unseen.is_empty() {
        return Guessable {
            words,
            left_out: Vec::new(),
            note: None,
        };
    }
    if known.len() < 25 {
        let note = format!(
            "a guesser knows only {} of the {} card words: boards are drawn from them all, and \
             it never guesses the others",
            known.len(),
            words.len()
        );
        return Guessable {
            words,
            left_out: Vec::new(),
            note: Some(note),
        };
    }
    let shown: Vec<&str> = unseen
        .iter()
        .take(SHOWN_UNKNOWN)
        .map(String::as_str)
        .collect();
    let note = format!(
        "{} card words left out of the boards, unknown to a guesser's vocabulary: {}{}",
        unseen.len(),
        shown.join(", "),
        if unseen.len() > shown.len() {
            ", …"
        } else {
            ""
        }
    );
    Guessable {
        words: known,
        left_out: unseen,
        note: Some(note),
    }
}

/// The deck when none is named: the stored [`DEFAULT_LIST`], or, in a database built without
/// it (another game's list, or before lists were stored), every card word with a stored row
/// (the covered terms, without relatedness).
pub fn default_deck(k: &StoreKnowledge) -> Result<(String, Vec<String>)> {
    let lists = k.store().word_lists()?;
    if let Some((name, words)) = lists.into_iter().find(|(n, _)| n == DEFAULT_LIST) {
        return Ok((name, words));
    }
    Ok((STORED_CARDS.to_string(), crate::Knowledge::card_words(k)?))
}

/// The words of a list that can be cards of a game with the given strategies, in the list's
/// order, and the others: unknown to the database, or not covered by one of the strategies.
#[derive(Debug, Clone, PartialEq)]
pub struct Playable {
    pub words: Vec<String>,
    /// Words no strategy can score (each with the closest words that are cards).
    pub unknown: Vec<Unknown>,
    /// Per strategy that covers fewer words than the database knows: the words it cannot score.
    pub uncovered: Vec<(&'static str, Vec<String>)>,
    /// Whether the database knows no word at all.
    pub knows_none: bool,
    /// Words left out as the same card as an earlier word of the list (`café` after `cafe`:
    /// [`StoreKnowledge::played_as`]), each with that word.
    pub same: Vec<(String, String)>,
}

impl Playable {
    /// A warning for each word of `list` the database does not know, as a board's warnings
    /// say it (with the closest words that are cards: a typo in a player's list).
    pub fn warnings(&self, list: &str) -> Vec<String> {
        let named = &self.unknown[..self.unknown.len().min(SHOWN_UNKNOWN)];
        let mut out = warnings(
            named,
            self.knows_none,
            &format!("left out of the boards of {list}"),
        );
        if self.unknown.len() > named.len() {
            out.push(format!(
                "and {} more words of {list} the database does not know, left out too",
                self.unknown.len() - named.len()
            ));
        }
        out.extend(self.same.iter().map(|(w, first)| {
            format!(
                "{} is the same card as {}: left out of the boards of {list}",
                crate::shown(w),
                crate::shown(first)
            )
        }));
        out
    }

    /// A note for each strategy in play that leaves words of `list` out (they are known, and
    /// the other strategies could play them).
    pub fn notes(&self, list: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (strategy, words) in &self.uncovered {
            const SHOWN: usize = 12;
            let shown: Vec<String> = words.iter().take(SHOWN).map(|w| crate::shown(w)).collect();
            let why = match *strategy {
                "setnet" => "it has an embedding only for the card words the build stored rows for",
                _ => "it scores only the card words with pages of their own",
            };
            out.push(format!(
                "{} words of {list} left out of the boards: the {strategy} strategy does not \
                 cover them ({why}): {}{}",
                words.len(),
                shown.join(", "),
                if words.len() > SHOWN { ", …" } else { "" }
            ));
        }
        out
    }
}

/// Which of `words` every strategy of `strategies` can score as a card: a word the database
/// does not know is left out, and so is one a strategy does not cover (a board holding it
/// would judge the strategy's coverage, not its clues, and the server could not start the game).
pub fn playable(
    k: &StoreKnowledge,
    words: &[String],
    strategies: &[StrategyKind],
) -> Result<Playable> {
    // Each word looked up, and the closest cards computed only for the first few unknown ones:
    // a pasted list of a thousand typos is answered at once, and its message stays short.
    let mut missing = Vec::new();
    for w in words {
        if !k.is_card(w)? {
            missing.push(w.clone());
        }
    }
    let near = if missing.is_empty() {
        Vec::new()
    } else {
        k.card_vocabulary()?
    };
    let knows_none = !missing.is_empty() && near.is_empty();
    let shown = missing.len().min(SHOWN_UNKNOWN);
    let mut unknown = crate::answer::unknown_words(&missing[..shown], &near);
    unknown.extend(missing[shown..].iter().map(|w| Unknown {
        word: w.clone(),
        closest: Vec::new(),
        uncovered_by: None,
    }));
    let mut out = Playable {
        words: Vec::new(),
        unknown,
        uncovered: Vec::new(),
        knows_none,
        same: Vec::new(),
    };
    let missing: std::collections::HashSet<&str> = missing.iter().map(String::as_str).collect();
    let mut left: Vec<&String> = Vec::new();
    let mut played: std::collections::HashMap<String, &String> = std::collections::HashMap::new();
    for w in words.iter().filter(|w| !missing.contains(w.as_str())) {
        match played.entry(k.played_as(w)?) {
            std::collections::hash_map::Entry::Occupied(first) => {
                out.same.push((w.clone(), first.get().to_string()))
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(w);
                left.push(w);
            }
        }
    }
    for strategy in strategies {
        // What the strategy can make a target, of the words the database knows.
        let covers: Box<dyn Fn(&str) -> bool> = match strategy {
            StrategyKind::Relatedness(_) => continue,
            // Setnet's targets are the cards it has an embedding for (without a network, the
            // game fails with its own reason: `Strategy::ready`).
            StrategyKind::Setnet(_) => match crate::Knowledge::setnet(k) {
                Ok(net) => Box::new(move |w: &str| net.card(w).is_some()),
                Err(_) => continue,
            },
            // threshold and herfindahl: the covered terms (sorted).
            StrategyKind::Threshold(_) | StrategyKind::Herfindahl(_) => {
                let terms = k.store().terms()?;
                Box::new(move |w: &str| terms.binary_search_by(|t| t.as_str().cmp(w)).is_ok())
            }
        };
        let (keep, not_this): (Vec<&String>, Vec<&String>) =
            left.into_iter().partition(|w| covers(w));
        left = keep;
        if not_this.is_empty() {
            continue;
        }
        let not_this = not_this.into_iter().cloned();
        match out
            .uncovered
            .iter_mut()
            .find(|(s, _)| *s == strategy.as_str())
        {
            Some((_, ws)) => ws.extend(not_this),
            None => out.uncovered.push((strategy.as_str(), not_this.collect())),
        }
    }
    out.words = left.into_iter().cloned().collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guesser::{Guess, Guesser};

    /// Knows the words not starting with `x`.
    struct NoX;
    impl Guesser for NoX {
        fn name(&self) -> &str {
            "no-x"
        }
        fn guess(&self, _: &str, _: usize, _: &[String]) -> anyhow::Result<Vec<Guess>> {
            Ok(Vec::new())
        }
        fn knows(&self, card: &str) -> bool {
            !card.starts_with('x')
        }
    }

    fn words(known: usize, unknown: usize) -> Vec<String> {
        (0..known)
            .map(|i| format!("w{i}"))
            .chain((0..unknown).map(|i| format!("x{i}")))
            .collect()
    }

    #[test]
    fn boards_are_drawn_from_the_words_every_guesser_knows() {
        let g = guessable(words(30, 2), &[&NoX]);
        assert_eq!(g.words, words(30, 0));
        assert_eq!(g.left_out, ["x0", "x1"]);
        let note = g.note.unwrap();
        assert!(
            note.starts_with("2 card words left out") && note.ends_with("x0, x1"),
            "{note}"
        );
        // Nothing to leave out: no note.
        let g = guessable(words(30, 0), &[&NoX]);
        assert_eq!((g.words.len(), g.note), (30, None));
        // A toy vocabulary that knows fewer than a board's 25 leaves them all in, and says so.
        let g = guessable(words(20, 10), &[&NoX]);
        assert_eq!((g.words.len(), g.left_out.len()), (30, 0));
        assert!(g.note.unwrap().contains("knows only 20 of the 30"));
    }
}
