//! What a spymaster is asked and what it answers, apart from any game: the [`Request`] (the
//! board as the spymaster sees it), the [`Suggestion`] (a clue, its number and targets) and the
//! [`Answer`] (the `--json` contract of `clue-db suggest`).

use serde::{Deserialize, Serialize};

/// What a spymaster sees: the team's unrevealed cards, the cards to avoid, the assassin.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    /// The team's unrevealed cards.
    pub pos: Vec<String>,
    /// The opponent's unrevealed cards.
    pub neg: Vec<String>,
    /// The unrevealed bystanders. (Strategies that do not tell bystanders from opponent cards
    /// avoid both alike: see [`Request::avoid`].)
    #[serde(default)]
    pub neutral: Vec<String>,
    pub assassin: Option<String>,
    /// Clues already given this game: never given again.
    #[serde(default)]
    pub given: Vec<String>,
}

impl Request {
    /// Every word on the board (the legality rules compare clues against all of them).
    pub fn board_words(&self) -> Vec<String> {
        self.pos
            .iter()
            .chain(&self.neg)
            .chain(&self.neutral)
            .chain(&self.assassin)
            .cloned()
            .collect()
    }

    /// The cards to avoid other than the assassin: opponent cards, then bystanders.
    pub fn avoid(&self) -> Vec<String> {
        self.neg.iter().chain(&self.neutral).cloned().collect()
    }
}

/// A number a request carries beside its board, with the range every front end accepts: the
/// CLI checks it as the flag is read (clap names the flag), the server as the body is read (400
/// naming the field), both with [`Range::hint`], so the two cannot drift apart.
#[derive(Debug, Clone, Copy)]
pub struct Range<T> {
    pub lo: T,
    pub hi: T,
    /// What the number is, as "give …" says it.
    pub what: &'static str,
}

/// How many suggestions an answer holds (the best and its alternatives). 100 costs a board a
/// few milliseconds more and an 8 KB answer; past it a number is a mistake, not a setting
/// (`--top 18446744073709551615` once asked for memory for that many).
pub const TOP: Range<usize> = Range {
    lo: 1,
    hi: 100,
    what: "how many suggestions",
};

/// The number a guesser hears with a clue: at most a board's cards, 0 for no limit.
pub const COUNT: Range<usize> = Range {
    lo: 0,
    hi: 25,
    what: "the number heard (0: no limit)",
};

/// The guesser's confidence floor: the `scores` table's range (a relatedness reading is ranked,
/// not cut).
pub const FLOOR: Range<f64> = Range {
    lo: 0.0,
    hi: 1.0,
    what: "the score under which the guesser stops",
};

/// A margin of the relatedness strategies (in standard deviations of their scores) or of
/// threshold and herfindahl: past 100 no clue clears it, and the strategies relax it to what
/// some clue clears.
pub const MARGIN: Range<f64> = Range {
    lo: 0.0,
    hi: 100.0,
    what: "a margin",
};

/// A number outside its [`Range`]; the message is [`Range::hint`], which the front end puts
/// after the flag's or field's name and the value.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct OutOfRange(pub String);

impl<T: PartialOrd + std::fmt::Display + Copy> Range<T> {
    /// `v` if it is in the range (a NaN is not).
    pub fn check(&self, v: T) -> Result<T, OutOfRange> {
        if self.lo <= v && v <= self.hi {
            Ok(v)
        } else {
            Err(OutOfRange(self.hint()))
        }
    }

    /// What to give instead: "give how many suggestions, from 1 to 100".
    pub fn hint(&self) -> String {
        format!("give {}, from {} to {}", self.what, self.lo, self.hi)
    }
}

/// A card as typed, normalised ([`crate::store_knowledge::normalize_word`]); an empty one (`""`,
/// spaces) names no card and is refused, naming the list (`terms`, `TERMS`), as a board with an
/// empty team is: `explain monarch ""` once explained "" and offered the closest two-letter words.
/// A word with a comma is refused too: it is several cards written as one (`"assassin":
/// "pirate,shark"` was read as one unknown card, where the command line splits `--assassin`).
pub fn card_word(raw: &str, list: &str) -> Result<String, crate::answer::BoardError> {
    let w = crate::store_knowledge::normalize_word(raw);
    if w.is_empty() {
        return Err(crate::answer::BoardError(format!(
            "{list} holds an empty word: give each card as a word"
        )));
    }
    if w.contains(',') {
        return Err(crate::answer::BoardError(format!(
            "{list} holds {}: a card word has no comma; give each card as a word of its own",
            crate::shown(raw)
        )));
    }
    Ok(w)
}

/// Whether `w` (normalised) has the shape of a clue: one word of letters
/// ([`crate::legality::is_word`]), at most [`crate::SHOWN_CHARS`] of them (no clue word is
/// longer, and a longer one would be echoed in every message).
pub fn is_clue_shape(w: &str) -> bool {
    w.chars().count() <= crate::SHOWN_CHARS && crate::legality::is_word(w)
}

/// A clue as typed (`explain CLUE`, `guess --clue`, the API's `clue`), normalised; one that
/// has not the shape of a clue ([`is_clue_shape`]) is refused, for every front end alike.
pub fn clue_word(raw: &str) -> Result<String, crate::answer::BoardError> {
    let clue = crate::store_knowledge::normalize_word(raw);
    if !is_clue_shape(&clue) {
        return Err(crate::answer::BoardError(format!(
            "{} is not a clue: a clue is one word of letters, at most {} of them",
            crate::shown(raw),
            crate::SHOWN_CHARS
        )));
    }
    Ok(clue)
}

/// One clue: the word, its number, the cards it is meant for, and the strategy's score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    pub clue: String,
    pub count: usize,
    pub targets: Vec<String>,
    pub score: f64,
    /// The relatedness strategy's safety of the weakest target (the share of the margins it
    /// clears), which its score no longer carries once the board model ranks: for the per-turn
    /// records, not the JSON answer. `None` for other strategies and a fallback clue.
    #[serde(skip)]
    pub safety: Option<f64>,
    /// The share of the margins the relatedness strategies held this answer's targets to
    /// (`crate::relatedness::LEVELS`: 1 when some clue cleared them whole, then ¾, ½, ¼, just
    /// above 0), for the warning that margins a person set were relaxed; `None` for other
    /// strategies and a fallback clue. Not in the JSON answer.
    #[serde(skip)]
    pub level: Option<f64>,
}

/// Best first: score descending, then count descending, then clue alphabetically.
pub fn sort_suggestions(s: &mut [Suggestion]) {
    s.sort_by(|a, b| rank_order((a.score, a.count, &a.clue), (b.score, b.count, &b.clue)));
}

/// The order of [`sort_suggestions`] on `(score, count, clue)`, for a strategy that ranks its
/// clues before it spells them out as suggestions.
pub fn rank_order(a: (f64, usize, &str), b: (f64, usize, &str)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0)
        .then_with(|| b.1.cmp(&a.1))
        .then_with(|| a.2.cmp(b.2))
}

/// The first `n` of `items` in the order `cmp` that `keep` accepts: what sorting them all,
/// filtering and taking `n` gives when `cmp` is a total order, without sorting them all. A
/// board's candidate clues are thousands and its answer their first few, nearly all of which may
/// be said: sorting every candidate took a fifth of the relatedness strategy's time. Sorts the
/// first `2n` (16 at least), then four times as many of the rest, until `n` are kept.
pub fn first_kept<'a, T>(
    items: &'a mut [T],
    n: usize,
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering,
    keep: impl Fn(&T) -> bool,
) -> Vec<&'a T> {
    let mut out = Vec::with_capacity(n);
    let mut rest = items;
    let mut chunk = 2 * n.max(8);
    while out.len() < n && !rest.is_empty() {
        let k = chunk.min(rest.len());
        if k < rest.len() {
            rest.select_nth_unstable_by(k - 1, &cmp);
        }
        let (head, tail) = rest.split_at_mut(k);
        head.sort_unstable_by(&cmp);
        let head: &'a [T] = head;
        out.extend(head.iter().filter(|x| keep(x)).take(n - out.len()));
        rest = tail;
        chunk *= 4;
    }
    out
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
    /// Board words the database does not know (never targets; risks to avoid).
    #[serde(default)]
    pub warnings: Vec<String>,
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
                warnings: Vec::new(),
            },
            None => Answer {
                clue: None,
                count: 0,
                targets: Vec::new(),
                score: 0.0,
                strategy: strategy.to_string(),
                alternatives: Vec::new(),
                warnings: Vec::new(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One rule for the command line's `explain CLUE` and the API's `clue`: normalised, one word
    /// of letters, at most 64 of them, a long one named by its start and length.
    #[test]
    fn a_clue_is_one_word_of_letters_for_every_front_end() {
        assert_eq!(clue_word(" Monarch ").unwrap(), "monarch");
        for bad in ["ice cream", "r2d2", "", "a"] {
            let e = clue_word(bad).unwrap_err().0;
            assert!(
                e.contains("is not a clue: a clue is one word of letters, at most 64"),
                "{e}"
            );
        }
        assert!(clue_word(&"x".repeat(64)).is_ok());
        let e = clue_word(&"x".repeat(65)).unwrap_err().0;
        assert!(e.contains("(65 characters)") && e.len() < 200, "{e}");
    }

    #[test]
    fn an_empty_card_is_refused_naming_its_list() {
        assert_eq!(card_word(" Loch  Ness ", "terms").unwrap(), "loch ness");
        for empty in ["", "   "] {
            assert_eq!(
                card_word(empty, "TERMS").unwrap_err().to_string(),
                "TERMS holds an empty word: give each card as a word"
            );
        }
    }

    /// Two cards written as one, as a JSON string (the command line splits its lists at commas
    /// itself), are refused rather than read as one unknown card.
    #[test]
    fn a_card_with_a_comma_is_refused_naming_it() {
        assert_eq!(
            card_word("pirate, shark", "assassin")
                .unwrap_err()
                .to_string(),
            "assassin holds \"pirate, shark\": a card word has no comma; give each card as a \
             word of its own"
        );
    }

    /// The ranges take their ends and refuse what is past them (and a NaN), saying the range.
    #[test]
    fn ranges_take_their_ends_and_name_themselves_when_refusing() {
        assert_eq!(TOP.check(1).unwrap(), 1);
        assert_eq!(TOP.check(100).unwrap(), 100);
        assert_eq!(
            TOP.check(0).unwrap_err().to_string(),
            "give how many suggestions, from 1 to 100"
        );
        assert!(TOP.check(101).is_err());
        assert_eq!(COUNT.check(0).unwrap(), 0);
        assert_eq!(COUNT.check(25).unwrap(), 25);
        assert!(
            COUNT
                .check(26)
                .unwrap_err()
                .to_string()
                .ends_with("from 0 to 25")
        );
        assert_eq!(FLOOR.check(1.0).unwrap(), 1.0);
        for bad in [-0.1, 1.5, 5.0, f64::NAN, f64::INFINITY] {
            let e = FLOOR.check(bad).unwrap_err().to_string();
            assert!(e.ends_with("from 0 to 1"), "{bad}: {e}");
        }
    }

    /// `first_kept` gives what sorting every item, filtering and taking `n` gives, for lists
    /// shorter and far longer than its first chunk, with ties on the first key broken by the
    /// second, and whether it keeps most items, few, or none.
    #[test]
    fn first_kept_is_sort_filter_take() {
        let mut rng = seeded::SplitMix64::new(7);
        let cmp = |a: &(u64, usize), b: &(u64, usize)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        for len in [0, 1, 5, 16, 17, 100, 3000] {
            // Keys from a small range, so that many tie.
            let items: Vec<(u64, usize)> = (0..len).map(|i| (rng.below(50) as u64, i)).collect();
            for (n, every) in [(1, 1), (5, 1), (10, 3), (10, 97), (4, usize::MAX)] {
                let keep = |x: &(u64, usize)| every != usize::MAX && x.1.is_multiple_of(every);
                let mut sorted = items.clone();
                sorted.sort_by(cmp);
                let want: Vec<(u64, usize)> =
                    sorted.into_iter().filter(|x| keep(x)).take(n).collect();
                let mut work = items.clone();
                let got: Vec<(u64, usize)> = first_kept(&mut work, n, cmp, keep)
                    .into_iter()
                    .copied()
                    .collect();
                assert_eq!(got, want, "len {len}, n {n}, every {every}");
            }
        }
    }
}
