//! The vocabulary: which words get a row of the co-occurrence matrix. Plural nouns fold into
//! their singular (`apples` → `apple`, `mice` → `mouse`; verb forms do not: `mounted` is not
//! `mount`), named by the member people write most
//! (`data`, not WordNet's `datum`), or by the card word when a card is a member. Every card word
//! is in; a clue candidate is a word of letters a-z seen at least `min_count` times.
//!
//! In a language other than English ([`Vocab::build_for`]) there is no WordNet: forms fold by
//! their Snowball stem instead (`bank`, `banken`, `bänke`; this folds more than plurals), and a
//! candidate is a lower-case word of letters of any script, three or more, not a stopword.

use std::collections::HashMap;

use crate::WordMap;
use crate::tokens::{card_token, is_word, is_word_in};

/// Words with ids: the rows and columns of every matrix of this crate.
#[derive(Debug, Clone, Default)]
pub struct Vocab {
    /// The word of each id (a class of folded forms, named as above).
    pub words: Vec<String>,
    /// Occurrences of each id's forms in the text.
    pub counts: Vec<u64>,
    /// Whether the id may be said as a clue (shape and frequency).
    pub candidate: Vec<bool>,
    /// Pages each id occurs on, in any of its forms (set from [`crate::Cooc::pages`]; empty
    /// until then).
    pub pages: Vec<u64>,
    /// Each card word's id.
    pub cards: Vec<(String, u32)>,
    /// Every form (as tokens come) → its id.
    index: WordMap<u32>,
}

/// The forms folded into one word, with their counts, and their total.
type Class<'a> = (Vec<(&'a str, u64)>, u64);

/// No id: a content word outside the vocabulary, still taking its place in the window.
pub const NONE: u32 = u32::MAX;

/// Whether `w` has the shape of a clue a player could say: letters a-z, at least three, or two
/// when WordNet knows the word and it has a vowel (`ox`), and no stopword.
pub fn clue_shape(w: &str, inflector: &text::Inflector) -> bool {
    w.len() >= 2
        && w.bytes().all(|b| b.is_ascii_lowercase())
        && !text::is_stopword(w)
        && (w.len() > 2 || (inflector.is_known(w) && w.contains(['a', 'e', 'i', 'o', 'u', 'y'])))
}

impl Vocab {
    /// Builds the vocabulary from every token's count. `cards` are lower-case card words (two-word
    /// cards as the tokenizer joins them, `new york`).
    pub fn build(
        types: &WordMap<u64>,
        cards: &[String],
        min_count: u64,
        inflector: &text::Inflector,
    ) -> Vocab {
        // Class key of each form: its noun lemma when that is a plain word and the form is a
        // noun form of it, else itself. Only noun forms: `lemma` falls back to any lemma, and a
        // card would then take in its verb's past tense (`mounted` → `mount`, `locked` →
        // `lock`), whose company is the verb's (`turret`, `cockpit`), not the card's
        // (`summit`, `valley`).
        let key_of = |w: &str| -> String {
            if w.contains(' ') {
                return w.to_string();
            }
            let l = inflector.lemma(w, text::Upos::Noun);
            if l != w
                && is_word(&l)
                && !l.contains(' ')
                && inflector.is_form_as(w, &l, text::Upos::Noun)
            {
                l
            } else {
                w.to_string()
            }
        };
        Vocab::build_with(types, cards, min_count, key_of, is_word, |w| {
            clue_shape(w, inflector)
        })
    }

    /// [`Vocab::build`] for a corpus in `language`: English's is [`Vocab::build`] with the shared
    /// inflection tables; any other folds forms by their Snowball stem.
    pub fn build_for(
        types: &WordMap<u64>,
        cards: &[String],
        min_count: u64,
        language: text::Language,
    ) -> Vocab {
        if language.is_english() {
            return Vocab::build(types, cards, min_count, text::Inflector::shared());
        }
        let key_of = |w: &str| -> String {
            if w.contains(' ') {
                return w.to_string();
            }
            // `#` keeps a stem apart from a word that happens to be spelt as it.
            format!("#{}", language.stem(w))
        };
        Vocab::build_with(
            types,
            cards,
            min_count,
            key_of,
            |w| is_word_in(w, language),
            |w| language.clue_shape(w),
        )
    }

    fn build_with(
        types: &WordMap<u64>,
        cards: &[String],
        min_count: u64,
        key_of: impl Fn(&str) -> String,
        is_word: impl Fn(&str) -> bool,
        clue_shape: impl Fn(&str) -> bool,
    ) -> Vocab {
        // A card is counted as its token (`st. patrick` as `st patrick`: [`card_token`]).
        let card_keys: HashMap<String, &String> =
            cards.iter().map(|c| (key_of(&card_token(c)), c)).collect();
        // Class → (members with counts, total).
        let mut classes: HashMap<String, Class> = HashMap::new();
        for (w, &n) in types {
            if !is_word(w) {
                continue;
            }
            // Rare forms cannot make a candidate; cards' forms are kept at any count.
            let key = key_of(w);
            if n < min_count.min(3) && !card_keys.contains_key(&key) {
                continue;
            }
            let e = classes.entry(key).or_default();
            e.0.push((w.as_str(), n));
            e.1 += n;
        }
        for key in card_keys.keys() {
            classes.entry(key.clone()).or_default();
        }
        let mut rows: Vec<(String, u64, bool, Vec<&str>)> = Vec::new();
        for (key, (mut members, total)) in classes {
            members.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            let name = match card_keys.get(&key) {
                Some(card) => (*card).clone(),
                None => members.first().map_or(key.clone(), |m| m.0.to_string()),
            };
            let candidate = total >= min_count && clue_shape(&name);
            if !candidate && !card_keys.contains_key(&key) {
                continue;
            }
            rows.push((
                name,
                total,
                candidate,
                members.iter().map(|m| m.0).collect(),
            ));
        }
        // Most frequent first, ties by word: ids are reproducible.
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut v = Vocab::default();
        for (id, (name, total, candidate, members)) in rows.into_iter().enumerate() {
            let id = id as u32;
            for m in members {
                v.index.insert(m.to_string(), id);
            }
            v.index.insert(name.clone(), id);
            v.words.push(name);
            v.counts.push(total);
            v.candidate.push(candidate);
        }
        for c in cards {
            let token = card_token(c);
            if let Some(&id) = v.index.get(token.as_str()) {
                v.cards.push((c.clone(), id));
            } else if let Some(&id) = v.index.get(&key_of(&token)) {
                v.cards.push((c.clone(), id));
            }
        }
        v
    }

    /// No word found on more than `max_pages` pages is a clue candidate (see
    /// [`crate::Params::max_page_share`]); needs [`Vocab::pages`] first.
    pub fn limit_generality(&mut self, max_pages: u64) {
        for (c, &p) in self.candidate.iter_mut().zip(&self.pages) {
            *c &= p <= max_pages;
        }
    }

    /// Every form folded into a word other than the word's own name, with its id: `animal` →
    /// the id of `animals` when the plural is the form written most. Sorted by form.
    pub fn other_forms(&self) -> Vec<(&str, u32)> {
        let mut out: Vec<(&str, u32)> = self
            .index
            .iter()
            .filter(|(form, id)| self.words[**id as usize] != **form && !form.contains(' '))
            .map(|(form, &id)| (form.as_str(), id))
            .collect();
        out.sort_unstable();
        out
    }

    /// The ids of the clue candidates, in id order: the columns of every card word's row.
    pub fn clue_ids(&self) -> Vec<u32> {
        (0..self.len() as u32)
            .filter(|&i| self.candidate[i as usize])
            .collect()
    }

    /// The id of a token, or [`NONE`].
    pub fn id(&self, token: &str) -> u32 {
        self.index.get(token).copied().unwrap_or(NONE)
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_fold_and_classes_take_the_written_name() {
        let inflector = text::Inflector::shared();
        let types: WordMap<u64> = [
            ("apple", 5),
            ("apples", 7),
            ("mice", 4),
            ("data", 40),
            ("datum", 1),
            ("rare", 2),
            ("café", 50),
            ("new york", 6),
        ]
        .into_iter()
        .map(|(w, n)| (w.to_string(), n))
        .collect();
        let cards = vec![
            "apple".to_string(),
            "mouse".to_string(),
            "new york".to_string(),
        ];
        let v = Vocab::build(&types, &cards, 10, inflector);
        let apple = v.id("apples");
        assert_eq!(apple, v.id("apple"));
        assert_eq!(v.words[apple as usize], "apple");
        assert_eq!(v.counts[apple as usize], 12);
        assert!(v.candidate[apple as usize]);
        let mouse = v.id("mice");
        assert_eq!(v.words[mouse as usize], "mouse");
        assert_eq!(v.counts[mouse as usize], 4);
        assert!(
            !v.candidate[mouse as usize],
            "4 < min_count: a card, not a clue"
        );
        assert_eq!(v.id("rare"), NONE);
        assert_eq!(v.id("café"), NONE);
        assert_eq!(v.words[v.id("data") as usize], "data");
        assert_eq!(v.id("new york"), v.cards[2].1);
        assert!(!v.candidate[v.id("new york") as usize]);
        assert_eq!(v.cards.len(), 3);
        // The forms that are not a word's name: `apples` and `mice` fold into their cards.
        let forms = v.other_forms();
        assert_eq!(forms, [("apples", apple), ("mice", mouse)]);
    }

    #[test]
    fn a_verb_form_does_not_fold_into_a_noun_card() {
        let inflector = text::Inflector::shared();
        let types: WordMap<u64> = [
            ("mount", 20),
            ("mounts", 5),
            ("mounted", 30),
            ("locked", 12),
            ("locks", 4),
        ]
        .into_iter()
        .map(|(w, n)| (w.to_string(), n))
        .collect();
        let cards = vec!["mount".to_string(), "lock".to_string()];
        let v = Vocab::build(&types, &cards, 10, inflector);
        let mount = v.id("mount");
        assert_eq!(v.id("mounts"), mount, "a plural folds");
        assert_ne!(v.id("mounted"), mount, "a past tense does not");
        assert_eq!(v.counts[mount as usize], 25);
        assert_eq!(v.counts[v.id("mounted") as usize], 30);
        assert_eq!(v.counts[v.id("lock") as usize], 4);
        assert_ne!(v.id("locked"), v.id("lock"));
    }

    #[test]
    fn words_on_too_many_pages_are_no_clue() {
        let inflector = text::Inflector::shared();
        let types: WordMap<u64> = [("made", 90), ("honey", 40), ("bee", 30)]
            .into_iter()
            .map(|(w, n)| (w.to_string(), n))
            .collect();
        let mut v = Vocab::build(&types, &["bee".to_string()], 10, inflector);
        let (made, honey) = (v.id("made") as usize, v.id("honey") as usize);
        v.pages = vec![0; v.len()];
        (v.pages[made], v.pages[honey]) = (9, 3);
        v.limit_generality(3);
        assert!(!v.candidate[made], "on 9 pages of at most 3: too general");
        assert!(v.candidate[honey], "3 pages is the limit, not past it");
        assert_ne!(v.id("made"), NONE, "still a row of the matrices");
    }
}
