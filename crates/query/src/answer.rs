//! One way to answer a board, for every front end: `clue-db suggest`, the server's
//! `/api/suggest` and its play mode, the benchmark ([`answer`]), and the games of `play`,
//! `eval` and the scenarios ([`ranked`]). The board checks (an empty team, a card given twice,
//! more cards than a board holds, words no strategy can score) are here once, so the CLI and the
//! server cannot drift apart; each front end only names its fields ([`Names`]).

use anyhow::Result;
use serde::Serialize;

use crate::Knowledge;
use crate::legality::{Legality, Lexicon};
use crate::request::{Answer, Request, Suggestion};
use crate::store_knowledge::{StoreKnowledge, closest};
use crate::strategy::{Margins, Strategy, StrategyKind};

/// The most cards a board holds (a Codenames board is 5 × 5).
pub const MAX_CARDS: usize = 25;

/// How many close words an unknown word is named with (a warning names the first three).
const CLOSEST: usize = 5;

/// How a front end names a board's lists in its messages.
#[derive(Debug, Clone, Copy)]
pub struct Names {
    pub pos: &'static str,
    pub neg: &'static str,
    pub neutral: &'static str,
    pub assassin: &'static str,
    /// The unrevealed cards a guesser reads (`guess`).
    pub board: &'static str,
    /// The clue a guesser hears.
    pub clue: &'static str,
    /// Said after "give at least one of your team's words" (how to give several).
    pub list_hint: &'static str,
}

/// The command line's names (`clue-db suggest --pos …`).
pub const FLAGS: Names = Names {
    pos: "--pos",
    neg: "--neg",
    neutral: "--neutral",
    assassin: "--assassin",
    board: "--board",
    clue: "--clue",
    list_hint: " (comma-separated)",
};

/// The JSON API's names (`{"pos": […]}`).
pub const FIELDS: Names = Names {
    pos: "pos",
    neg: "neg",
    neutral: "neutral",
    assassin: "assassin",
    board: "board",
    clue: "clue",
    list_hint: "",
};

/// A board no one can mean: no team card, a card given twice, more cards than a board holds.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BoardError(pub String);

/// A board word the strategy cannot score as a card, with the closest words it can (none for a
/// word longer than any card).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unknown {
    pub word: String,
    pub closest: Vec<String>,
    /// The strategy that cannot score a word the database does know (threshold and herfindahl
    /// score only the card words with pages of their own): `closest` is then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncovered_by: Option<&'static str>,
}

/// The board's unknown words, when the caller refuses to answer with them ([`OnUnknown`]).
#[derive(Debug, thiserror::Error)]
#[error("words that cannot be cards here: {}", names(.0))]
pub struct UnknownWords(pub Vec<Unknown>);

fn names(unknown: &[Unknown]) -> String {
    unknown
        .iter()
        .map(|u| match u.uncovered_by {
            Some(strategy) => format!(
                "{} (a word the database knows, not covered by {strategy})",
                crate::shown(&u.word)
            ),
            // A database that knows no word (ingest alone) has no closest word to name.
            None if u.closest.is_empty() => {
                format!("{} (not a word the database knows)", crate::shown(&u.word))
            }
            None => format!(
                "{} (not a word the database knows; closest: {})",
                crate::shown(&u.word),
                u.closest.join(", ")
            ),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// What to do with board words the strategy cannot score: answer with a warning each (the
/// CLI: they are never targets, and as cards to avoid they count as risks), or refuse the board
/// (the server: a person at a page fixes the word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnUnknown {
    Warn,
    Refuse,
}

/// How to answer: the strategy (with its `top` and margins), the caller's names for the board's
/// lists, what to do with unknown words. Every front end holds a board to [`MAX_CARDS`]: the
/// command line once took any number, and a board the server refused was answered there.
#[derive(Debug, Clone)]
pub struct Options {
    pub strategy: StrategyKind,
    pub names: Names,
    pub on_unknown: OnUnknown,
    /// The margins the person set (the strategy holds them with the defaults of the others):
    /// an answer that had to relax them says so ([`relaxed_margins`]).
    pub margins_set: Margins,
}

impl Options {
    /// The command line's (`clue-db suggest`, the benchmark): lists named by their flags, a
    /// warning for each unknown word.
    pub fn command_line(strategy: StrategyKind) -> Options {
        Options {
            strategy,
            names: FLAGS,
            on_unknown: OnUnknown::Warn,
            margins_set: Margins::default(),
        }
    }

    /// The JSON API's: lists named by their fields, unknown words refused.
    pub fn api(strategy: StrategyKind) -> Options {
        Options {
            strategy,
            names: FIELDS,
            on_unknown: OnUnknown::Refuse,
            margins_set: Margins::default(),
        }
    }
}

/// What a warning says an unknown board word becomes in an answer.
pub const UNKNOWN_CARD: &str = "it is never a target, and as a card to avoid it counts as a risk";

/// Why an answer has no clue when the team has a word the strategy can score: every candidate
/// the rules allow relates to a card to avoid at least as much as to a team card.
pub const NO_SAFE_CLUE: &str =
    "no safe clue: every candidate scores at least as high with a card to avoid";

/// Why an answer has no clue when the board has no card to avoid: nothing stood in the way, the
/// strategy ranked no clue the rules allow (NO_SAFE_CLUE blamed the cards to avoid).
pub const NO_CLUE_RANKED: &str =
    "no clue: the strategy ranks no clue the rules allow for the team's words";

/// Why an answer has no clue when none of the team's words can be scored: nothing can be a
/// target (each such word has its own warning).
pub const NO_TARGET: &str = "no clue: no word of the team is one the strategy can score as a card";

/// The answer to a board: the checks, the strategy's ranked clues, and a warning for each board
/// word the strategy cannot score (or [`UnknownWords`] with [`OnUnknown::Refuse`]), then, with
/// no clue, why ([`NO_SAFE_CLUE`], [`NO_CLUE_RANKED`] or [`NO_TARGET`]), so every front end
/// says the same. Errors that are the board's are a [`BoardError`] or [`UnknownWords`] (the
/// server's 400 and 422).
pub fn answer(k: &StoreKnowledge, req: &Request, opts: &Options) -> Result<Answer> {
    check_board(req, &opts.names)?;
    one_card_each(k, &labelled(req, &opts.names))?;
    let board = req.board_words();
    let (unknown, knows_none) = unknown_cards(k, &board, &opts.strategy)?;
    let mut warnings = match opts.on_unknown {
        OnUnknown::Refuse if !unknown.is_empty() => return Err(UnknownWords(unknown).into()),
        _ => warnings(&unknown, knows_none, UNKNOWN_CARD),
    };
    let (given, ignored) = given_clues(&req.given);
    warnings.extend(ignored);
    warnings.extend(given_unknown(k, &given, &opts.strategy)?);
    let req = &Request {
        given,
        ..req.clone()
    };
    // A board that cannot be answered still says what it found wrong with its words.
    let ranked = ranked(k, k.lexicon(), req, &opts.strategy).map_err(|e| {
        if warnings.is_empty() {
            e
        } else {
            e.context(format!(
                "answering a board with warnings: {}",
                warnings.join("; ")
            ))
        }
    })?;
    if let Some(best) = ranked.first() {
        warnings.extend(relaxed_margins(opts, best));
    }
    let mut answer = Answer::new(opts.strategy.name(), ranked);
    answer.warnings = warnings;
    if answer.clue.is_none() {
        let nothing_to_avoid =
            req.neg.is_empty() && req.neutral.is_empty() && req.assassin.is_none();
        let reason = if !can_target_any(k, &req.pos, &unknown, &opts.strategy) {
            NO_TARGET
        } else if nothing_to_avoid {
            NO_CLUE_RANKED
        } else {
            NO_SAFE_CLUE
        };
        answer.warnings.push(reason.to_string());
    }
    Ok(answer)
}

/// A warning when the person set margins and no clue cleared the margins whole: the
/// relatedness strategies then relax them in steps rather than give no clue
/// ([`crate::relatedness::LEVELS`]; [`Suggestion::level`]), and a person who asked for a wide
/// margin around the assassin should not take the answer for one that keeps it. A margin of 0
/// cannot be relaxed, so margins set to 0 alone say nothing.
fn relaxed_margins(opts: &Options, best: &Suggestion) -> Option<String> {
    let set = &opts.margins_set;
    let given: Vec<String> = [
        ("opponent", set.opponent),
        ("bystander", set.neutral),
        ("assassin", set.assassin),
    ]
    .iter()
    .filter_map(|(kind, m)| m.filter(|&m| m > 0.0).map(|m| format!("{kind} {m}")))
    .collect();
    let level = best.level.filter(|&l| l < 1.0)?;
    if given.is_empty() {
        return None;
    }
    let held = match level {
        l if l >= 0.75 => "clear three quarters of each",
        l if l >= 0.5 => "clear half of each",
        l if l >= 0.25 => "clear a quarter of each",
        _ => "only rank above every card to avoid",
    };
    Some(format!(
        "no clue clears the margins set ({}): the clue's targets {held}",
        given.join(", ")
    ))
}

/// The clues given before that a clue can be compared with (one word of letters, at most
/// [`crate::SHOWN_CHARS`] of them, as a clue is), and a warning for each other, which is
/// ignored: a slip in the game's history is no reason to refuse its board.
pub fn given_clues(given: &[String]) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut warnings = Vec::new();
    for g in given {
        if crate::request::is_clue_shape(g) {
            kept.push(g.clone());
        } else {
            warnings.push(format!(
                "given {} is not a clue word and was ignored",
                crate::shown(g)
            ));
        }
    }
    (kept, warnings)
}

/// A warning for each given clue the relatedness strategies' vocabulary does not hold, with
/// the closest words it does: such a clue could never be suggested, so a slip in the game's
/// history (`monarh` for `monarch`) would let the clue meant come back unnoticed. The other
/// strategies draw their clues from pages and are not checked.
fn given_unknown(
    k: &StoreKnowledge,
    given: &[String],
    strategy: &StrategyKind,
) -> Result<Vec<String>> {
    if given.is_empty()
        || !matches!(
            strategy,
            StrategyKind::Relatedness(_) | StrategyKind::Setnet(_)
        )
    {
        return Ok(Vec::new());
    }
    let words = k.clue_words()?;
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let mut seen = std::collections::HashSet::new();
    let unknown: Vec<&String> = given
        .iter()
        .filter(|g| words.id(g).is_none() && seen.insert(g.as_str()))
        .collect();
    // The closest words for the first few only: each is an edit distance to every clue word,
    // and fifty given words of 64 letters took a second and a half. None for a word longer than
    // any clue word by more than a slip (every clue word is then as far).
    let longest = words.words.iter().map(|w| w.len()).max().unwrap_or(0);
    let mut warnings: Vec<String> = unknown
        .iter()
        .take(GIVEN_WITH_CLOSEST)
        .map(|g| {
            let near = if g.chars().count() > longest + 3 {
                "no clue word is that long".to_string()
            } else {
                format!("closest: {}", closest(g, &words.words, 3).join(", "))
            };
            format!(
                "given {} is no clue word the database knows, so it changes nothing ({near})",
                crate::shown(g)
            )
        })
        .collect();
    if let Some(rest) = unknown.get(GIVEN_WITH_CLOSEST..).filter(|r| !r.is_empty()) {
        let named: Vec<String> = rest.iter().map(|g| crate::shown(g)).collect();
        warnings.push(format!(
            "given {} {} no clue word{} the database knows either, so {} nothing",
            named.join(", "),
            if rest.len() == 1 { "is" } else { "are" },
            if rest.len() == 1 { "" } else { "s" },
            if rest.len() == 1 {
                "it changes"
            } else {
                "they change"
            },
        ));
    }
    Ok(warnings)
}

/// How many unknown given clues are named with their closest clue words ([`given_unknown`]).
const GIVEN_WITH_CLOSEST: usize = 3;

/// What a guesser is told: the clue (normalised), its number (0: no limit), the unrevealed
/// cards and the floor under which it stops (on the scores; [`crate::request::FLOOR`]).
#[derive(Debug, Clone, Copy)]
pub struct Heard<'a> {
    pub clue: &'a str,
    pub count: usize,
    pub board: &'a [String],
    pub floor: f64,
}

/// What `clue-db guess --json` and `/api/guess` answer: the clue, our guesser's picks (best
/// first), then the warnings (cards the database does not know, a clue nothing relates to).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Guessed {
    pub clue: String,
    pub guesses: Vec<crate::guesser::Guess>,
    pub warnings: Vec<String>,
}

/// Our own guesser's answer to a clue, for every front end: the board's checks (a card, each
/// once, at most [`MAX_CARDS`], the clue no card of it) as [`BoardError`]s, the cards it
/// cannot score (a warning each, never guessed, or [`UnknownWords`] with
/// [`OnUnknown::Refuse`]), and a warning when the database has no such clue word.
pub fn guess(
    k: &StoreKnowledge,
    heard: &Heard<'_>,
    names: &Names,
    on_unknown: OnUnknown,
) -> Result<Guessed> {
    let Heard {
        clue,
        count,
        board,
        floor,
    } = *heard;
    if board.is_empty() {
        return Err(BoardError(format!(
            "{} is empty: give the unrevealed words{}",
            names.board, names.list_hint
        ))
        .into());
    }
    if board.len() > MAX_CARDS {
        return Err(BoardError(format!(
            "the board has {} words; a board has at most {MAX_CARDS} cards",
            board.len()
        ))
        .into());
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(w) = board.iter().find(|w| !seen.insert(w.as_str())) {
        return Err(BoardError(format!(
            "{} is on {} twice; a card is on the board once",
            crate::shown(w),
            names.board
        ))
        .into());
    }
    let cards: Vec<(&str, &'static str)> =
        board.iter().map(|w| (w.as_str(), names.board)).collect();
    one_card_each(k, &cards)?;
    // A card cannot be its own clue (the legality rules' first board rule; a word of a
    // multi-word card counts).
    if let Err(crate::legality::Illegal::BoardWord(card)) =
        Legality::new(board, &crate::legality::NoLexicon).check(clue)
    {
        return Err(BoardError(format!(
            "{} {} is the card {} on {}: a clue is never a board word",
            names.clue,
            crate::shown(clue),
            crate::shown(&card),
            names.board
        ))
        .into());
    }
    let (unknown, knows_none) = not_cards(k, board)?;
    let mut warnings = match on_unknown {
        OnUnknown::Refuse if !unknown.is_empty() => return Err(UnknownWords(unknown).into()),
        _ => warnings(&unknown, knows_none, "it is never guessed"),
    };
    let store = k.store();
    if !store.is_clue(clue)? && store.clue_of_form(clue)?.is_none() {
        warnings.push(format!(
            "{} is no clue word of the database: nothing relates to it",
            crate::shown(clue)
        ));
    }
    let guesses = crate::guesser::Guesser::guess(
        &crate::guesser::OwnGuesser {
            knowledge: k,
            params: crate::guesser::GuessParams { floor },
        },
        clue,
        count,
        board,
    )?;
    Ok(Guessed {
        clue: clue.to_string(),
        guesses,
        warnings,
    })
}

/// Whether the strategy can make any of the team's words a target: a word it can score, and for
/// the set network a word it has an embedding for (the listed card words).
fn can_target_any(
    k: &StoreKnowledge,
    team: &[String],
    unknown: &[Unknown],
    strategy: &StrategyKind,
) -> bool {
    let mut known = team
        .iter()
        .filter(|w| !unknown.iter().any(|u| &u.word == *w));
    match strategy {
        StrategyKind::Setnet(_) => match Knowledge::setnet(k) {
            Ok(net) => known.any(|w| net.card(w).is_some()),
            Err(_) => false,
        },
        _ => known.next().is_some(),
    }
}

/// The clues that may be said on a board: no board word or form of one (by `lexicon`), no clue
/// given before.
pub fn legality<'l>(req: &Request, lexicon: &'l dyn Lexicon) -> Legality<'l> {
    Legality::new(&req.board_words(), lexicon).with_given(&req.given)
}

/// A strategy's clues for a board, best first, under the board's [`legality`]: what every
/// answer and every game turn asks of a strategy.
pub fn ranked(
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    req: &Request,
    strategy: &dyn Strategy,
) -> Result<Vec<Suggestion>> {
    strategy.suggest(k, req, &legality(req, lexicon))
}

/// Fails on a board a user cannot mean: no team card, more than [`MAX_CARDS`] cards, or a word
/// given twice (in one list, or as two colours: the message names both lists).
pub fn check_board(req: &Request, names: &Names) -> Result<(), BoardError> {
    if req.pos.is_empty() {
        return Err(BoardError(format!(
            "{} is empty: give at least one of your team's words{}",
            names.pos, names.list_hint
        )));
    }
    let cards = req.pos.len() + req.neg.len() + req.neutral.len() + req.assassin.iter().count();
    if cards > MAX_CARDS {
        return Err(BoardError(format!(
            "the board has {cards} words; a board has at most {MAX_CARDS} cards"
        )));
    }
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for (w, list) in labelled(req, names) {
        if let Some(first) = seen.insert(w, list) {
            return Err(BoardError(format!(
                "{} is given twice ({first} and {list}); {}",
                crate::shown(w),
                once_why(first, list)
            )));
        }
    }
    Ok(())
}

/// Each card of the board with the name of its list, in the order the lists are given.
fn labelled<'r>(req: &'r Request, names: &Names) -> Vec<(&'r str, &'static str)> {
    req.pos
        .iter()
        .map(|w| (w.as_str(), names.pos))
        .chain(req.neg.iter().map(|w| (w.as_str(), names.neg)))
        .chain(req.neutral.iter().map(|w| (w.as_str(), names.neutral)))
        .chain(req.assassin.as_deref().map(|a| (a, names.assassin)))
        .collect()
}

/// Why a card may not be given twice: in one list, or in two.
fn once_why(first: &str, then: &str) -> &'static str {
    if first == then {
        "a card is on the board once"
    } else {
        "a card has one colour"
    }
}

/// Two cards the database plays as one card are refused as a card given twice is: a word
/// typed with accents and the same word without (`café`, `cafe`;
/// [`StoreKnowledge::played_as`]) were two cards of one row, both targets of one clue, or one
/// card both the opponent's and the assassin.
fn one_card_each(k: &StoreKnowledge, cards: &[(&str, &'static str)]) -> Result<()> {
    let mut seen: std::collections::HashMap<String, (&str, &str)> =
        std::collections::HashMap::new();
    for &(w, list) in cards {
        let played = k.played_as(w)?;
        if let Some((first, first_list)) = seen.insert(played.clone(), (w, list)) {
            return Err(BoardError(format!(
                "{} and {} are one card, {} ({first_list} and {list}); {}",
                crate::shown(first),
                crate::shown(w),
                crate::shown(&played),
                once_why(first_list, list)
            ))
            .into());
        }
    }
    Ok(())
}

/// The words of `board` the strategy cannot score as cards, each with the closest words it can,
/// and whether it can score none at all: for the relatedness strategies [`not_cards`], for
/// threshold and herfindahl the words that are no covered term.
pub fn unknown_cards(
    k: &StoreKnowledge,
    board: &[String],
    strategy: &StrategyKind,
) -> Result<(Vec<Unknown>, bool)> {
    match strategy {
        StrategyKind::Relatedness(_) | StrategyKind::Setnet(_) => not_cards(k, board),
        _ => {
            let terms = k.store().terms()?;
            let mut unknown = unknown_words(board, &terms);
            // A word the relatedness strategies can score is one the database knows: say that
            // this strategy does not cover it, not that it is a typo of a covered word.
            for u in &mut unknown {
                if k.is_card(&u.word)? {
                    u.closest.clear();
                    u.uncovered_by = Some(strategy.as_str());
                }
            }
            Ok((unknown, terms.is_empty()))
        }
    }
}

/// The words of `board` that are no card of the relatedness strategies (no stored row, and no
/// vocabulary word: [`StoreKnowledge::is_card`]), each with the closest words that are, and
/// whether no word is.
pub fn not_cards(k: &StoreKnowledge, board: &[String]) -> Result<(Vec<Unknown>, bool)> {
    let mut unknown = Vec::new();
    for w in board {
        if !k.is_card(w)? {
            unknown.push(w.clone());
        }
    }
    if unknown.is_empty() {
        return Ok((Vec::new(), false));
    }
    let near = k.card_vocabulary()?;
    Ok((unknown_words(&unknown, &near), near.is_empty()))
}

/// The words of `words` not in `known`, each with the closest known words. A long word is
/// compared with no known word: no card is that long, and edit distances to it would take long.
pub fn unknown_words(words: &[String], known: &[String]) -> Vec<Unknown> {
    let set: std::collections::HashSet<&String> = known.iter().collect();
    words
        .iter()
        .filter(|w| !set.contains(w))
        .map(|w| Unknown {
            uncovered_by: None,
            word: w.clone(),
            closest: if w.chars().count() > crate::SHOWN_CHARS {
                Vec::new()
            } else {
                closest(w, known, CLOSEST)
                    .into_iter()
                    .map(String::from)
                    .collect()
            },
        })
        .collect()
}

/// A warning for each unknown word, naming the closest known words (or, when the database
/// knows none, the command that fills it) and then `what_then` (what the command does with it).
pub fn warnings(unknown: &[Unknown], knows_none: bool, what_then: &str) -> Vec<String> {
    unknown
        .iter()
        .map(|u| {
            let shown = crate::shown(&u.word);
            if let Some(strategy) = u.uncovered_by {
                return format!(
                    "{shown} is not covered by the {strategy} strategy (it scores only the card \
                     words with pages of their own; relatedness, the default, knows it): \
                     {what_then}"
                );
            }
            let hint = if u.word.chars().count() > crate::SHOWN_CHARS
                || u.closest.is_empty() && !knows_none
            {
                String::new()
            } else if knows_none {
                " (it knows no word: run `clue-db pipeline all`)".to_string()
            } else {
                let near: Vec<&str> = u.closest.iter().take(3).map(String::as_str).collect();
                format!(" (closest: {})", near.join(", "))
            };
            format!("{shown} is not a word the database knows{hint}: {what_then}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unknown_words_are_named_with_the_closest_known_ones() {
        let known = words(&["apple", "apply", "bank", "band"]);
        let board = words(&["apple", "aple", "bank"]);
        let w = warnings(
            &unknown_words(&board, &known),
            false,
            "it is never a target",
        );
        assert_eq!(
            w,
            [
                // `bank` and `band` are as far: the one given first is named.
                "\"aple\" is not a word the database knows (closest: apple, apply, bank): it is never a target"
            ]
        );
        // A long word: its start and length, no distances.
        let long = "x".repeat(120_000);
        let u = unknown_words(std::slice::from_ref(&long), &known);
        assert!(u[0].closest.is_empty());
        let w = warnings(&u, false, "then");
        assert_eq!(w.len(), 1);
        assert!(
            w[0].len() < 200 && w[0].contains("(120000 characters)"),
            "{}",
            w[0]
        );
        assert!(!w[0].contains("closest"), "{}", w[0]);
        // A database that knows no word says so.
        let w = warnings(&unknown_words(&board[..1], &[]), true, "then");
        assert!(
            w[0].contains("knows no word") && !w[0].contains("closest"),
            "{}",
            w[0]
        );
        assert!(unknown_words(&board[..1], &known).is_empty());
    }

    /// A given clue that is no word (two words, a digit, a long run) is left out with a
    /// warning; the others are kept, in order.
    #[test]
    fn given_clues_that_are_no_clue_word_are_ignored_with_a_warning() {
        let long = "x".repeat(65);
        let (kept, warned) = given_clues(&words(&["fruit", "ice cream", "tree", "r2d2", &long]));
        assert_eq!(kept, ["fruit", "tree"]);
        assert_eq!(warned.len(), 3, "{warned:?}");
        assert_eq!(
            warned[0],
            "given \"ice cream\" is not a clue word and was ignored"
        );
        assert!(warned[2].contains("(65 characters)"), "{}", warned[2]);
    }

    #[test]
    fn a_word_a_strategy_does_not_cover_is_said_so_not_taken_for_a_typo() {
        let goat = Unknown {
            word: "goat".into(),
            closest: Vec::new(),
            uncovered_by: Some("threshold"),
        };
        assert_eq!(
            warnings(std::slice::from_ref(&goat), false, "it is never a target"),
            [
                "\"goat\" is not covered by the threshold strategy (it scores only the card words \
                 with pages of their own; relatedness, the default, knows it): it is never a target"
            ]
        );
        let aple = unknown_words(&words(&["aple"]), &words(&["apple"])).remove(0);
        // A database that knows no word: no empty "closest: )".
        let lone = unknown_words(&words(&["pear"]), &[]).remove(0);
        assert_eq!(
            UnknownWords(vec![goat, aple, lone]).to_string(),
            "words that cannot be cards here: \"goat\" (a word the database knows, not \
             covered by threshold); \"aple\" (not a word the database knows; closest: apple); \
             \"pear\" (not a word the database knows)"
        );
    }

    #[test]
    fn boards_no_one_can_mean_are_refused_in_the_callers_names() {
        let req = |pos: &[&str], neg: &[&str], assassin: Option<&str>| Request {
            pos: words(pos),
            neg: words(neg),
            assassin: assassin.map(String::from),
            ..Request::default()
        };
        let err = |r: &Request, n: &Names| check_board(r, n).unwrap_err().0;
        assert!(err(&req(&[], &["fire"], None), &FLAGS).starts_with("--pos is empty"));
        assert!(err(&req(&[], &["fire"], None), &FIELDS).starts_with("pos is empty"));
        assert_eq!(
            err(&req(&["apple", "fire"], &["fire"], None), &FLAGS),
            "\"fire\" is given twice (--pos and --neg); a card has one colour"
        );
        assert_eq!(
            err(&req(&["apple"], &[], Some("apple")), &FIELDS),
            "\"apple\" is given twice (pos and assassin); a card has one colour"
        );
        assert_eq!(
            err(&req(&["apple", "apple"], &[], None), &FIELDS),
            "\"apple\" is given twice (pos and pos); a card is on the board once"
        );
        let many: Vec<String> = (0..26).map(|i| format!("w{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(err(&req(&many, &[], None), &FIELDS).contains("26 words"));
        // The command line's names hold a board to the same 25 cards: 9 + 8 + 8 + 1 is 26.
        let split = Request {
            pos: words(&many[..9]),
            neg: words(&many[9..17]),
            neutral: words(&many[17..25]),
            assassin: Some("x".to_string()),
            ..Request::default()
        };
        assert_eq!(
            err(&split, &FLAGS),
            "the board has 26 words; a board has at most 25 cards"
        );
        assert!(check_board(&req(&many[..25], &[], None), &FLAGS).is_ok());
    }

    #[test]
    fn boards_need_a_positive_word_and_no_repeats() {
        let w = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let board =
            |pos: &[&str], neg: &[&str], neutral: &[&str], assassin: Option<&str>| Request {
                pos: w(pos),
                neg: w(neg),
                neutral: w(neutral),
                assassin: assassin.map(String::from),
                given: Vec::new(),
            };
        assert!(
            check_board(&board(&[], &["a"], &[], None), &FLAGS)
                .unwrap_err()
                .to_string()
                .contains("--pos is empty")
        );
        let e = check_board(&board(&["a"], &["a"], &[], None), &FLAGS)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--pos and --neg"), "{e}");
        let e = check_board(&board(&["a"], &["b"], &["b"], None), &FLAGS)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--neg and --neutral"), "{e}");
        let e = check_board(&board(&["a"], &[], &["c", "c"], None), &FLAGS)
            .unwrap_err()
            .to_string();
        assert!(e.contains("--neutral and --neutral"), "{e}");
        assert!(check_board(&board(&["a"], &["b"], &[], Some("a")), &FLAGS).is_err());
        assert!(check_board(&board(&["a"], &["b"], &["d"], Some("c")), &FLAGS).is_ok());
    }
}
