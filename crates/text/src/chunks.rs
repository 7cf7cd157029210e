//! Noun chunks: maximal runs of DET, ADJ, NOUN, PROPN and NUM tokens (noun compounds included,
//! "ice cream van"), cut back to end on their last NOUN or PROPN, which is the root.
//!
//! A determiner after another word of the run starts a new chunk ("gave the boy a ball").
//! Tokens in a chunk follow one another with only spaces or one hyphen between them, within
//! one sentence. The root is reported as its noun lemma ("cities" -> "city", "years" ->
//! "year"), or lower-cased for a proper noun, with whether the chunk holds a digit (the pipeline
//! skips those: "the 1990 season" says little about a season).

use crate::inflect::Inflector;
use crate::pos::Upos;
use crate::sentences::Sentence;
use crate::tokens::{Token, has_digit, joined};
use std::ops::Range;

/// One noun chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NounChunk {
    /// Indices into the token list.
    pub tokens: Range<usize>,
    /// Bytes of the chunk in the text.
    pub range: Range<usize>,
    /// The chunk with white space collapsed.
    pub text: String,
    /// The root: the last noun's lemma, or the proper noun lower-cased.
    pub root: String,
    /// The root's tag (NOUN or PROPN).
    pub root_upos: Upos,
    /// Whether any token of the chunk has a digit.
    pub has_digit: bool,
}

/// Finds the noun chunks of a tagged text.
pub fn noun_chunks(
    text: &str,
    tokens: &[Token],
    tags: &[Upos],
    sentences: &[Sentence],
    inflector: &Inflector,
) -> Vec<NounChunk> {
    let mut out = Vec::new();
    for sentence in sentences {
        let mut first: Option<usize> = None;
        let mut last_noun: Option<usize> = None;
        let end = sentence.tokens.end.min(tokens.len()).min(tags.len());
        for i in sentence.tokens.start..end {
            let inside = matches!(
                tags[i],
                Upos::Det | Upos::Adj | Upos::Noun | Upos::Propn | Upos::Num
            );
            // A determiner after a noun or adjective opens a new chunk: "gave [the boy] [a ball]".
            let restarts = tags[i] == Upos::Det && i > 0 && tags[i - 1] != Upos::Det;
            let continues =
                first.is_some() && i > 0 && !restarts && joined(text, &tokens[i - 1], &tokens[i]);
            if !(inside && continues) {
                emit(text, tokens, tags, first, last_noun, inflector, &mut out);
                first = inside.then_some(i);
                last_noun = None;
            }
            if inside && matches!(tags[i], Upos::Noun | Upos::Propn) {
                last_noun = Some(i);
            }
        }
        emit(text, tokens, tags, first, last_noun, inflector, &mut out);
    }
    out
}

fn emit(
    text: &str,
    tokens: &[Token],
    tags: &[Upos],
    first: Option<usize>,
    last_noun: Option<usize>,
    inflector: &Inflector,
    out: &mut Vec<NounChunk>,
) {
    let (Some(first), Some(root)) = (first, last_noun) else {
        return;
    };
    let range = tokens[first].start..tokens[root].end;
    let root_text = tokens[root].text(text);
    let root_upos = tags[root];
    out.push(NounChunk {
        tokens: first..root + 1,
        text: crate::entities::collapse_whitespace(&text[range.clone()]),
        range,
        root: inflector.lemma(root_text, root_upos),
        root_upos,
        has_digit: tokens[first..=root].iter().any(|t| has_digit(t.text(text))),
    });
}
