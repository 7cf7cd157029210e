//! Sentence boundaries as byte ranges.
//!
//! Works on the token stream ([`crate::tokens`]), so abbreviation dots are already inside their
//! tokens (`Mr.`, `U.S.`, `e.g.`, `J.`) and decimals are single numbers (`3.14`). A boundary
//! falls between two tokens when:
//! - a blank line separates them (a paragraph break), or a line break follows a short line
//!   (a heading, list item or infobox row — wrapped prose has long lines);
//! - the gap holds `.`, `!` or `?` followed by white space, and the next token starts with an
//!   upper-case letter or a digit;
//! - the previous token is an abbreviation that may end a sentence (`etc.`, `Inc.`, `U.S.`, an
//!   initial) and the next token is a capitalised function word (`The`, `In`, `He`, ...). Titles
//!   (`Mr.`, `Dr.`, `St.`) and `e.g.`/`i.e.`/`cf.` never end one.

use crate::stopwords::is_stopword;
use crate::tokens::{Token, tokenize};
use std::ops::Range;

/// A sentence: its byte range (first token to the terminator) and its token indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Bytes of the sentence in the text, trimmed, terminator and closing quotes included.
    pub range: Range<usize>,
    /// Indices into the token list.
    pub tokens: Range<usize>,
}

/// Abbreviations after which a sentence never ends (lower-case, dot included).
const NEVER_FINAL: &[&str] = &[
    "mr.", "mrs.", "ms.", "messrs.", "dr.", "prof.", "st.", "mt.", "ft.", "gen.", "lt.", "col.",
    "capt.", "cpt.", "sgt.", "cmdr.", "adm.", "maj.", "gov.", "sen.", "rep.", "rev.", "hon.",
    "pres.", "fr.", "e.g.", "i.e.", "cf.", "vs.", "viz.", "approx.", "ca.", "c.", "fig.", "figs.",
    "vol.", "vols.", "pp.", "p.", "ch.", "sec.", "op.", "no.", "nos.", "art.", "para.",
];

/// A line shorter than this (trimmed, in characters) that ends without a terminator is a
/// heading, caption or list item, not a wrapped line of prose.
const SHORT_LINE: usize = 50;

/// The sentences of `text`, as byte ranges (tokenises internally).
pub fn sentences(text: &str) -> Vec<Range<usize>> {
    let tokens = tokenize(text);
    split(text, &tokens).into_iter().map(|s| s.range).collect()
}

/// Splits an already tokenised text into sentences.
pub fn split(text: &str, tokens: &[Token]) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut first = 0;
    for i in 0..tokens.len() {
        let last = i + 1 == tokens.len();
        if last || is_boundary(text, &tokens[i], &tokens[i + 1]) {
            let start = extend_back(text, tokens[first].start);
            let next_start = tokens.get(i + 1).map_or(text.len(), |t| t.start);
            let end = extend_forward(text, tokens[i].end, next_start);
            out.push(Sentence {
                range: start..end,
                tokens: first..i + 1,
            });
            first = i + 1;
        }
    }
    out
}

/// Whether a sentence ends between tokens `a` and `b`.
fn is_boundary(text: &str, a: &Token, b: &Token) -> bool {
    let gap = text.get(a.end..b.start).unwrap_or("");
    let newlines = gap.bytes().filter(|&c| c == b'\n').count();
    if newlines >= 2 {
        return true;
    }
    if newlines == 1 && line_is_short(text, a.end) {
        return true;
    }
    let next = b.text(text);
    let next_capital = next
        .chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
    // The terminator must come before any white space in the gap ("word." or "word.)" or
    // "word?\""), and white space must follow it: "microsoft.com" is no boundary.
    let head_len = gap.find(char::is_whitespace).unwrap_or(gap.len());
    let (head, tail) = gap.split_at(head_len);
    let terminated = head.contains(['.', '!', '?']);
    if terminated && !tail.is_empty() {
        return next_capital || !next.starts_with(char::is_alphabetic);
    }
    let prev = a.text(text);
    if prev.ends_with('.') && !tail.is_empty() {
        let lower = prev.to_lowercase();
        if NEVER_FINAL.contains(&lower.as_str()) {
            return false;
        }
        let starts_upper = next.chars().next().is_some_and(char::is_uppercase);
        return starts_upper && is_stopword(&next.to_lowercase());
    }
    false
}

/// Whether the line holding byte `pos` is short enough to be a heading or list item.
fn line_is_short(text: &str, pos: usize) -> bool {
    let before = text.get(..pos).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let rest = text.get(line_start..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    line.trim().chars().count() < SHORT_LINE
}

/// Moves a sentence start back over opening quotes and brackets right before it.
fn extend_back(text: &str, start: usize) -> usize {
    let before = text.get(..start).unwrap_or("");
    let kept = before.trim_end_matches(['"', '\'', '(', '[', '\u{201c}', '\u{2018}']);
    kept.len()
}

/// Moves a sentence end forward over its terminator and closing quotes/brackets, stopping at
/// white space or `limit` (the next token).
fn extend_forward(text: &str, end: usize, limit: usize) -> usize {
    let gap = text.get(end..limit).unwrap_or("");
    let head_len = gap.find(char::is_whitespace).unwrap_or(gap.len());
    let head = &gap[..head_len];
    // Only the leading run of marks: in "word)," the comma stays out.
    let keep = head
        .char_indices()
        .find(|&(_, c)| !is_closing_mark(c))
        .map_or(head.len(), |(p, _)| p);
    end + keep
}

/// Terminators and closing quotes/brackets that belong to the sentence before them.
fn is_closing_mark(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | '"' | '\'' | ')' | ']' | '\u{201d}' | '\u{2019}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_text(text: &str) -> Vec<&str> {
        sentences(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn abbreviations_initials_and_decimals() {
        let text = "Mr. Smith went to Washington, D.C. on Monday. He paid $3.50 for e.g. Coffee \
                    and tea. J. R. R. Tolkien wrote it! Did he? Yes.";
        assert_eq!(
            split_text(text),
            [
                "Mr. Smith went to Washington, D.C. on Monday.",
                "He paid $3.50 for e.g. Coffee and tea.",
                "J. R. R. Tolkien wrote it!",
                "Did he?",
                "Yes."
            ]
        );
    }

    #[test]
    fn abbreviation_at_the_end_of_a_sentence() {
        let text = "He moved to the U.S. The move was hard. Apple Inc. The firm grew. He met \
                    George W. Bush in the U.S. Senate.";
        assert_eq!(
            split_text(text),
            [
                "He moved to the U.S.",
                "The move was hard.",
                "Apple Inc.",
                "The firm grew.",
                "He met George W. Bush in the U.S. Senate."
            ]
        );
    }

    #[test]
    fn quotes_brackets_and_lower_case_continuations() {
        let text = "He said \"stop.\" Then (in 1990.) it ended. approx. five of them. The end";
        assert_eq!(
            split_text(text),
            [
                "He said \"stop.\"",
                "Then (in 1990.) it ended. approx. five of them.",
                "The end"
            ]
        );
    }

    #[test]
    fn line_breaks() {
        // Wrapped prose (long lines) continues across a line break; a blank line or a short
        // heading line ends a sentence.
        let text = "   William Henry Gates III (born October 28, 1955 in Seattle, Washington)\n   \
                    is an American entrepreneur and the co-founder of Microsoft\n\nEarly life\n\n   \
                    Gates was born in Seattle\n   Occupation: Chairman\n   Spouse: Melinda";
        let got = split_text(text);
        assert_eq!(got.len(), 5, "{got:?}");
        assert!(got[0].starts_with("William Henry") && got[0].ends_with("of Microsoft"));
        assert_eq!(got[1], "Early life");
        assert_eq!(
            got[2..],
            [
                "Gates was born in Seattle",
                "Occupation: Chairman",
                "Spouse: Melinda"
            ]
        );
        assert_eq!(sentences("").len(), 0);
        assert_eq!(sentences("...!?").len(), 0);
    }
}
