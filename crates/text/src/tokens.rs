//! Word tokens with byte offsets.
//!
//! The token stream follows the conventions the part-of-speech model was trained on
//! (UD English-EWT with punctuation dropped), because a tagger fed tokens cut differently
//! from its training data quietly gets worse:
//! - a token is a run of letters and digits (`char::is_alphanumeric`);
//! - internal apostrophes stay inside a word (`o'clock`, `O'Brien`), but the English clitics
//!   `'s 're 've 'll 'd 'm n't` become tokens of their own (`don't` = `do` + `n't`,
//!   `Gates's` = `Gates` + `'s`), as in the treebank;
//! - digits joined by `.` or `,` are one number (`3.14`, `10,000`);
//! - dotted abbreviations keep their dots (`U.S.`, `e.g.`, `Mr.`, `J.`), which is also what lets
//!   the sentence splitter tell them from a full stop;
//! - hyphens and all other punctuation separate tokens and are not tokens themselves
//!   (`ice-cream` = `ice` + `cream`, matching the phrase `ice cream`).

use std::ops::Range;

/// What a token is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Letters, possibly mixed with digits (`1960s`, `MP3`), apostrophes or abbreviation dots.
    Word,
    /// Digits only, possibly with internal `.` or `,` (`1955`, `3.14`, `10,000`).
    Number,
}

/// One token: a byte range of the text it was cut from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Token {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just past the last character.
    pub end: usize,
    /// Word or number.
    pub kind: TokenKind,
}

impl Token {
    /// The token's text within `text` (the string it was cut from).
    pub fn text<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.start..self.end).unwrap_or("")
    }

    /// The byte range.
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// Abbreviations that keep their final dot (lower-case, without the dot). Whether one may end a
/// sentence is decided by the sentence splitter ([`crate::sentences`]).
pub(crate) const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "messrs", "dr", "prof", "st", "mt", "ft", "gen", "lt", "col", "capt", "cpt",
    "sgt", "cmdr", "adm", "maj", "gov", "sen", "rep", "rev", "hon", "pres", "fr", "sr", "jr",
    "etc", "cf", "vs", "viz", "approx", "ca", "fig", "figs", "vol", "vols", "pp", "ch", "sec",
    "op", "inc", "ltd", "co", "corp", "bros", "dept", "univ", "est", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "ave", "blvd", "rd", "no", "nos",
    "al",
];

/// Abbreviations that take their dot only before a number (`No. 5`, `p. 12`), because as plain
/// words followed by a full stop they usually end a sentence.
const NUMERIC_ABBREVIATIONS: &[&str] = &["no", "nos", "p", "c", "art", "para"];

/// English clitics split off the end of a word, as UD English-EWT tokenises them.
const CLITICS: &[&str] = &["'s", "'re", "'ve", "'ll", "'d", "'m", "n't"];

/// Tokenises `text` into words and numbers; see the module documentation for the rules.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::with_capacity(text.len() / 5);
    tokenize_into(text, &mut out);
    out
}

/// Like [`tokenize`], appending to `out` (lets callers reuse the buffer).
pub fn tokenize_into(text: &str, out: &mut Vec<Token>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let Some(c) = char_at(text, i) else { break };
        if !c.is_alphanumeric() {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        let mut end = scan_alnum(text, i);
        while let Some(sep) = char_at(text, end) {
            let after = end + sep.len_utf8();
            let prev = prev_char(text, end);
            let next = char_at(text, after);
            let joins = match sep {
                '\'' | '\u{2019}' => {
                    prev.is_some_and(char::is_alphabetic) && next.is_some_and(char::is_alphabetic)
                }
                '.' | ',' => {
                    prev.is_some_and(|p| p.is_ascii_digit())
                        && next.is_some_and(|n| n.is_ascii_digit())
                        && is_number_so_far(&text[start..end])
                }
                _ => false,
            };
            if !joins {
                break;
            }
            end = scan_alnum(text, after);
        }
        end = extend_abbreviation(text, start, end);
        let kind = if is_number_so_far(&text[start..end]) {
            TokenKind::Number
        } else {
            TokenKind::Word
        };
        push_with_clitics(text, start, end, kind, out);
        i = end;
    }
}

/// Splits a trailing clitic (`'s`, `n't`, ...) off the word `start..end` and pushes the parts.
fn push_with_clitics(text: &str, start: usize, end: usize, kind: TokenKind, out: &mut Vec<Token>) {
    if kind == TokenKind::Word {
        let word = &text[start..end];
        for clitic in CLITICS {
            if let Some(cut) = clitic_cut(word, clitic) {
                // "n't" needs a stem left over ("can't" -> "ca" + "n't"); "'s" needs a letter before.
                if cut > 0 {
                    out.push(Token {
                        start,
                        end: start + cut,
                        kind,
                    });
                    out.push(Token {
                        start: start + cut,
                        end,
                        kind,
                    });
                    return;
                }
            }
        }
    }
    out.push(Token { start, end, kind });
}

/// The byte position where `clitic` starts at the end of `word` (case-insensitive, either
/// apostrophe), if it does.
fn clitic_cut(word: &str, clitic: &str) -> Option<usize> {
    let mut w = word.char_indices().rev();
    let mut cut = word.len();
    for expected in clitic.chars().rev() {
        let (pos, c) = w.next()?;
        let matches = if expected == '\'' {
            c == '\'' || c == '\u{2019}'
        } else {
            c.to_ascii_lowercase() == expected
        };
        if !matches {
            return None;
        }
        cut = pos;
    }
    // The rest must end in a letter: "o'clock" has no clitic, "rock'n'roll" neither.
    let rest = &word[..cut];
    if rest.chars().next_back().is_some_and(char::is_alphabetic)
        && !rest.ends_with(['\'', '\u{2019}'])
    {
        Some(cut)
    } else {
        None
    }
}

/// Extends the word `start..end` over abbreviation dots: `U.S.`, `e.g.`, `Ph.D.`, `Mr.`, `J.`.
fn extend_abbreviation(text: &str, start: usize, end: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(end) != Some(&b'.') {
        return end;
    }
    let word = &text[start..end];
    if !word.chars().all(char::is_alphabetic) {
        return end;
    }
    // Dotted sequence of short letter groups, each followed by a dot: U.S.A., e.g., Ph.D.
    let mut pos = end;
    let mut groups = 1;
    if word.chars().count() <= 2 {
        loop {
            // At a '.', see whether 1-2 letters and another '.' follow.
            let seg_start = pos + 1;
            let seg_end = scan_alpha(text, seg_start);
            let len = text[seg_start..seg_end].chars().count();
            if (1..=2).contains(&len) && bytes.get(seg_end) == Some(&b'.') {
                pos = seg_end;
                groups += 1;
            } else {
                break;
            }
        }
    }
    if groups >= 2 {
        return pos + 1;
    }
    let lower = word.to_ascii_lowercase();
    let mut chars = word.chars();
    let single_upper = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase());
    if single_upper || ABBREVIATIONS.contains(&lower.as_str()) {
        if NUMERIC_ABBREVIATIONS.contains(&lower.as_str()) && !digit_follows(text, end + 1) {
            return end;
        }
        return end + 1;
    }
    if NUMERIC_ABBREVIATIONS.contains(&lower.as_str()) && digit_follows(text, end + 1) {
        return end + 1;
    }
    end
}

/// Whether spaces then a digit follow position `pos`.
fn digit_follows(text: &str, pos: usize) -> bool {
    text.get(pos..)
        .map(|rest| rest.trim_start_matches(' '))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// Whether `s` so far is digits with `.`/`,` separators only (and starts with a digit).
fn is_number_so_far(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
}

fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..)?.chars().next()
}

fn prev_char(text: &str, i: usize) -> Option<char> {
    text.get(..i)?.chars().next_back()
}

/// End of the run of alphanumeric characters starting at `i`.
fn scan_alnum(text: &str, i: usize) -> usize {
    let rest = &text[i..];
    rest.char_indices()
        .find(|&(_, c)| !c.is_alphanumeric())
        .map_or(text.len(), |(p, _)| i + p)
}

/// End of the run of alphabetic characters starting at `i`.
fn scan_alpha(text: &str, i: usize) -> usize {
    let Some(rest) = text.get(i..) else { return i };
    rest.char_indices()
        .find(|&(_, c)| !c.is_alphabetic())
        .map_or(text.len(), |(p, _)| i + p)
}

/// Whether two neighbouring tokens are joined only by spaces or one hyphen (no other
/// punctuation, no line break between paragraphs): the test for phrases, entities and chunks.
pub(crate) fn joined(text: &str, a: &Token, b: &Token) -> bool {
    let Some(gap) = text.get(a.end..b.start) else {
        return false;
    };
    let mut hyphens = 0;
    let mut newlines = 0;
    for c in gap.chars() {
        match c {
            '-' | '\u{2010}' | '\u{2011}' => hyphens += 1,
            '\n' => newlines += 1,
            c if c.is_whitespace() => {}
            _ => return false,
        }
    }
    hyphens <= 1 && newlines <= 1
}

/// Whether a token has a digit in it.
pub(crate) fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_numeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        tokenize(text).iter().map(|t| t.text(text)).collect()
    }

    #[test]
    fn words_numbers_and_offsets() {
        let text = "Bill Gates's net worth is $53.0 billion (10,000 times).";
        let toks = tokenize(text);
        let got: Vec<&str> = toks.iter().map(|t| t.text(text)).collect();
        assert_eq!(
            got,
            [
                "Bill", "Gates", "'s", "net", "worth", "is", "53.0", "billion", "10,000", "times"
            ]
        );
        assert_eq!(toks[1].range(), 5..10);
        assert_eq!(toks[6].kind, TokenKind::Number);
        assert_eq!(toks[7].kind, TokenKind::Word);
    }

    #[test]
    fn clitics_apostrophes_hyphens() {
        assert_eq!(words("I don't know"), ["I", "do", "n't", "know"]);
        assert_eq!(
            words("we can't, they won’t"),
            ["we", "ca", "n't", "they", "wo", "n’t"]
        );
        assert_eq!(
            words("at five o'clock O'Brien's"),
            ["at", "five", "o'clock", "O'Brien", "'s"]
        );
        assert_eq!(
            words("ice-cream and well-known"),
            ["ice", "cream", "and", "well", "known"]
        );
        assert_eq!(words("the players' union"), ["the", "players", "union"]);
    }

    #[test]
    fn abbreviations_keep_their_dots() {
        assert_eq!(
            words("Mr. Smith of the U.S.A. met e.g. Dr. J. R. Tolkien, Ph.D. etc. (No. 5)."),
            [
                "Mr.", "Smith", "of", "the", "U.S.A.", "met", "e.g.", "Dr.", "J.", "R.", "Tolkien",
                "Ph.D.", "etc.", "No.", "5"
            ]
        );
        // "no" before a full stop that is not followed by a number is the word "no".
        assert_eq!(words("He said no. Then"), ["He", "said", "no", "Then"]);
        assert_eq!(words("the end.The"), ["the", "end", "The"]);
        assert_eq!(words("3.14. Next"), ["3.14", "Next"]);
    }

    #[test]
    fn non_ascii_letters() {
        let text = "Áedán mac Gabráin — naïve café";
        assert_eq!(words(text), ["Áedán", "mac", "Gabráin", "naïve", "café"]);
    }

    #[test]
    fn joined_allows_spaces_and_one_hyphen() {
        let text = "ice cream, ice-cream ice\n\ncream";
        let t = tokenize(text);
        assert!(joined(text, &t[0], &t[1]));
        assert!(!joined(text, &t[1], &t[2]));
        assert!(joined(text, &t[2], &t[3]));
        assert!(!joined(text, &t[4], &t[5]));
    }
}
