//! Named entities: runs of capitalised proper-noun tokens ("Bill Gates", "New York City").
//!
//! A token can be part of an entity when it is a capitalised word and either the tagger calls
//! it PROPN, or it is not the first word of its sentence and is tagged NOUN, ADJ, VERB, NUM or X
//! (a capital in mid-sentence marks a name even when the tagger hesitates: "the Red Sea").
//! A sentence-initial capital alone proves nothing, so there PROPN is required. Function words
//! never join ("The", "Of", "I"). Tokens must follow one another with only spaces or one hyphen
//! between them (a comma splits "Seattle, Washington" in two). A run counts as an entity only
//! if at least one of its tokens is PROPN.

use crate::pos::Upos;
use crate::sentences::Sentence;
use crate::tokens::{Token, TokenKind, joined};
use std::ops::Range;

/// One named-entity mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    /// Indices into the token list.
    pub tokens: Range<usize>,
    /// Bytes of the mention in the text.
    pub range: Range<usize>,
    /// The mention with white space collapsed to single spaces: the key entities are counted
    /// by ("Bill Gates" and "Bill Hewlett" are two entities).
    pub text: String,
}

/// Finds the entity mentions of a tagged text.
pub fn find_entities(
    text: &str,
    tokens: &[Token],
    tags: &[Upos],
    sentences: &[Sentence],
) -> Vec<Entity> {
    let mut out = Vec::new();
    for sentence in sentences {
        let mut run: Option<(usize, bool)> = None; // (first token, has a PROPN)
        let range = sentence.tokens.clone();
        for i in range.clone() {
            let (Some(token), Some(&tag)) = (tokens.get(i), tags.get(i)) else {
                break;
            };
            let capable = can_join(text, token, tag, i == range.start);
            let continues = run.is_some() && i > 0 && joined(text, &tokens[i - 1], token);
            match (run, capable) {
                (Some((first, propn)), true) if continues => {
                    run = Some((first, propn || tag == Upos::Propn))
                }
                (_, true) => {
                    close(text, tokens, run, i, &mut out);
                    run = Some((i, tag == Upos::Propn));
                }
                (_, false) => {
                    close(text, tokens, run, i, &mut out);
                    run = None;
                }
            }
        }
        close(text, tokens, run, range.end, &mut out);
    }
    out
}

fn close(
    text: &str,
    tokens: &[Token],
    run: Option<(usize, bool)>,
    end: usize,
    out: &mut Vec<Entity>,
) {
    let Some((first, true)) = run else { return };
    let (Some(a), Some(b)) = (
        tokens.get(first),
        end.checked_sub(1).and_then(|e| tokens.get(e)),
    ) else {
        return;
    };
    let range = a.start..b.end;
    out.push(Entity {
        tokens: first..end,
        text: collapse_whitespace(&text[range.clone()]),
        range,
    });
}

/// Whether a token may be part of an entity (see the module documentation).
fn can_join(text: &str, token: &Token, tag: Upos, sentence_initial: bool) -> bool {
    if token.kind != TokenKind::Word || !token.text(text).starts_with(char::is_uppercase) {
        return false;
    }
    match tag {
        Upos::Propn => true,
        Upos::Noun | Upos::Adj | Upos::Verb | Upos::Num | Upos::X => !sentence_initial,
        _ => false,
    }
}

/// Collapses runs of white space to one space.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, part) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}
