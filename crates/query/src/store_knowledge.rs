//! The production [`Knowledge`]: the SQLite store the pipeline wrote; the lexicons of the
//! legality rules ([`StoreLexicon`] reads inflections from the store, [`TextLexicon`] from the
//! `text` crate's tables); and the checks on what users type.

use crate::legality::Lexicon;
use crate::typed::TypedCards;
use crate::{ClueWords, Knowledge, TopScores};
use anyhow::{Context, Result, bail};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::{Arc, Mutex, OnceLock};
use store::Store;

/// Names the table a read failed on (a tampered column reads as "Invalid column type Text at
/// index: 1, name: score": which table?).
fn table(name: &'static str) -> impl FnOnce() -> String {
    move || format!("reading table {name}")
}

impl Knowledge for Store<'_> {
    fn clues_of(&self, term: &str) -> Result<Vec<(String, f64)>> {
        Store::clues_of(self, term).with_context(table("scores"))
    }
    fn term_doc(&self, term: &str) -> Result<Vec<(String, u64)>> {
        Store::term_doc(self, term).with_context(table("term_docs"))
    }
    fn terms(&self) -> Result<Vec<String>> {
        Store::terms(self).with_context(table("terms"))
    }
    fn clue_words(&self) -> Result<Arc<ClueWords>> {
        let words = Store::clue_words(self).with_context(table("clue_words"))?;
        Ok(Arc::new(ClueWords::new(words)))
    }
    fn unknown_risk(&self, pos: &[String]) -> Result<crate::threshold::ClueMap> {
        Ok(self.best_scores_except(pos)?.into_iter().collect())
    }
    fn top_scores(&self) -> Result<Arc<TopScores>> {
        let mut tops = TopScores::new();
        self.for_each_score(|clue, term, s| tops.entry(clue).or_default().push((term, s)))
            .with_context(table("scores"))?;
        for best in tops.values_mut() {
            crate::sort_top(best);
        }
        Ok(Arc::new(tops))
    }
    fn relatedness(&self, card: &str) -> Result<Option<Arc<[f32]>>> {
        let v = self
            .relatedness_vector(card)
            .with_context(table("relatedness_vectors"))?;
        Ok(v.map(|(_, v)| v))
    }

    fn clue_form(&self, word: &str) -> Result<Option<String>> {
        self.clue_of_form(word).with_context(table("clue_forms"))
    }

    /// From the card's stored measures (`relatedness_by_id`) and the scales the stage recorded
    /// (`relatedness.reading_*`); a card with no stored row, or a database without the scales,
    /// is read by its relatedness.
    fn reading(&self, card: &str) -> Result<Option<Arc<[f32]>>> {
        let Some(scales) = crate::typed::reading_scales(self)? else {
            return Knowledge::relatedness(self, card);
        };
        match self
            .relatedness_parts(card)
            .with_context(table("relatedness_by_id"))?
        {
            Some(parts) => Ok(Some(
                parts
                    .iter()
                    .map(|&(p, c, n)| scales.read(p, c, n))
                    .collect(),
            )),
            None => Knowledge::relatedness(self, card),
        }
    }

    fn setnet(&self) -> Result<Arc<crate::setnet::Trained>> {
        let rows = self.setnet_weights()?;
        let meta = |k: &str| self.meta(k).ok().flatten();
        let trained = crate::setnet::Trained::from_rows(
            rows,
            self.related_cards()
                .with_context(table("relatedness_vectors"))?,
            Store::clue_words(self)
                .with_context(table("clue_words"))?
                .len(),
            crate::setnet::alphas_from(meta),
            meta("setnet.skipped"),
        )?;
        Ok(Arc::new(trained))
    }

    fn card_words(&self) -> Result<Vec<String>> {
        let related = self
            .related_cards()
            .with_context(table("relatedness_vectors"))?;
        if related.is_empty() {
            Store::terms(self).with_context(table("terms"))
        } else {
            Ok(related)
        }
    }
}

/// The mean of `rows`, element by element; `None` when one of them is missing.
fn mean_row(rows: &[Option<Arc<[f32]>>]) -> Option<Arc<[f32]>> {
    let rows: Vec<&Arc<[f32]>> = rows.iter().map(Option::as_ref).collect::<Option<_>>()?;
    let first = rows.first()?;
    let n = rows.len() as f32;
    Some(
        (0..first.len())
            .map(|j| {
                rows.iter()
                    .map(|r| r.get(j).copied().unwrap_or(0.0))
                    .sum::<f32>()
                    / n
            })
            .collect(),
    )
}

/// A card's row from `cache`, read once with `read`.
fn cached(
    cache: &Mutex<HashMap<String, Option<Arc<[f32]>>>>,
    card: &str,
    read: impl FnOnce() -> Result<Option<Arc<[f32]>>>,
) -> Result<Option<Arc<[f32]>>> {
    let lock = || cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = lock().get(card) {
        return Ok(v.clone());
    }
    let v = read()?;
    lock().insert(card.to_string(), v.clone());
    Ok(v)
}

/// What a [`StoreKnowledge`] keeps after the first read: the clue words, the best scores, each
/// card's relatedness and reading. One file's cache can be shared by many `StoreKnowledge`s on
/// many threads (`clue-db serve` keeps one per database file, so a request does not read the
/// 16,000 clue words again: ~25 ms), as long as they all read that same file.
#[derive(Default)]
pub struct KnowledgeCache {
    clue_words: OnceLock<Arc<ClueWords>>,
    top_scores: OnceLock<Arc<TopScores>>,
    vectors: Mutex<HashMap<String, Option<Arc<[f32]>>>>,
    readings: Mutex<HashMap<String, Option<Arc<[f32]>>>>,
    /// The set network with its embedding and decoding matrix (`setnet`), read once.
    setnet: OnceLock<Arc<crate::setnet::Trained>>,
    /// The clue words' vectors for words with no stored row (`None`: the database has none),
    /// read when a board first holds such a word.
    typed: OnceLock<Option<Arc<TypedCards>>>,
    /// The card words with a stored row, sorted.
    stored: OnceLock<Arc<Vec<String>>>,
    /// Each stored card by its [`text::Language::card_key`] (`cafe` → a `café` an earlier
    /// build stored).
    stored_keys: OnceLock<Arc<HashMap<String, String>>>,
    /// Whether any vocabulary word can be a card ([`StoreKnowledge::any_word`]): asked of every
    /// word of a pasted list, so read once (four `meta` reads a word made a 100,000-word pack
    /// of typos take five seconds).
    any_word: OnceLock<bool>,
}

impl KnowledgeCache {
    /// Forgets every card's row and reading (the clue words, the vectors and the network
    /// stay): the next board computes its typed words' rows anew (`bench-suggest --typed`).
    pub fn forget_rows(&self) {
        for m in [&self.vectors, &self.readings] {
            m.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
    }
}

/// The store as [`Knowledge`], keeping what a game or a benchmark reads again and again (the
/// clue words, each card's relatedness vector) in memory after the first read.
pub struct StoreKnowledge<'s> {
    store: &'s Store<'s>,
    /// The legality rule's lexicon over the same store, its caches kept from query to query.
    lexicon: StoreLexicon<'s>,
    cache: Arc<KnowledgeCache>,
    /// Boards whose unknown-card risk was read by a query of its own.
    risk_reads: std::cell::Cell<usize>,
    /// Whether the best scores are read once and kept from the first board on (a shared
    /// cache outlives this knowledge: a server's requests).
    keep_tops: bool,
}

impl<'s> StoreKnowledge<'s> {
    pub fn new(store: &'s Store<'s>) -> StoreKnowledge<'s> {
        StoreKnowledge {
            store,
            lexicon: StoreLexicon::new(store),
            cache: Arc::default(),
            risk_reads: Default::default(),
            keep_tops: false,
        }
    }
    /// Reads through `cache`, which must have been filled from the same database file only,
    /// and keeps the best scores in it from the first board that needs them (they outlive this
    /// knowledge, so the one read pays off).
    pub fn with_cache(store: &'s Store<'s>, cache: Arc<KnowledgeCache>) -> StoreKnowledge<'s> {
        StoreKnowledge {
            cache,
            keep_tops: true,
            ..StoreKnowledge::new(store)
        }
    }
    pub fn store(&self) -> &'s Store<'s> {
        self.store
    }

    /// The clue words' vectors, read once; `None` for a database without them.
    fn typed(&self) -> Result<Option<Arc<TypedCards>>> {
        if let Some(t) = self.cache.typed.get() {
            return Ok(t.clone());
        }
        let t = TypedCards::read(self.store)?.map(Arc::new);
        Ok(self.cache.typed.get_or_init(|| t).clone())
    }

    /// The clue word a card with no stored row is scored as: the word itself, or the clue
    /// word its form was counted under (`oceans` → `ocean`); `None` for a word the vocabulary
    /// does not hold (a card of several words no list named, a word too rare).
    pub fn typed_id(&self, card: &str) -> Result<Option<usize>> {
        let words = self.clue_words()?;
        if let Some(i) = words.id(card) {
            return Ok(Some(i));
        }
        if card.contains(' ') {
            return Ok(None);
        }
        Ok(Knowledge::clue_form(self.store, card)?.and_then(|w| words.id(&w)))
    }

    /// The words a card that no list named, and that is no vocabulary word itself, is scored
    /// by: a card of several words by its words other than stopwords (`swimming pool` →
    /// `swimming`, `pool`; `of` in `house of cards` left out), its row their rows' mean, as the
    /// guessers read such a card and as a person hears both words; a word typed with accents
    /// the vocabulary writes without (`café` → `cafe`, `crème brûlée` → `creme`, `brulee`) as
    /// that word. Each word must be a card itself (a stored row or a vocabulary word). A stored
    /// card typed without its full stops (`st patrick`) is that card, in any database. `None`
    /// for a card with a stored row or a vocabulary word of its own, a database that cannot
    /// score any word, or a card one of whose words is no card (`hot dgo`: then it is unknown
    /// as a whole).
    pub fn scored_as(&self, card: &str) -> Result<Option<Vec<String>>> {
        if self.is_stored(card)? {
            return Ok(None);
        }
        // A stored card written with its full stops or without (`st patrick`, `st. patrick`),
        // in any database: the card `played_as` names.
        if let Some(stored) = self.stored_as(card)? {
            return Ok(Some(vec![stored]));
        }
        if !self.any_word()? || self.typed_id(card)?.is_some() {
            return Ok(None);
        }
        self.parts(card)
    }

    /// The stored card `card` is by its [`StoreKnowledge::loose_key`] when it has a full stop
    /// or is typed without one (`st patrick` → `st. patrick`); `None` for every other card.
    fn stored_as(&self, card: &str) -> Result<Option<String>> {
        let keys = self.stored_keys()?;
        let key = self.loose_key(card);
        Ok(keys
            .get(&key)
            .filter(|s| s.contains('.') || card.contains('.'))
            .filter(|s| *s != card)
            .cloned())
    }

    /// [`StoreKnowledge::scored_as`] for a card known to be neither stored nor a vocabulary
    /// word, in a database that can score any word.
    fn parts(&self, card: &str) -> Result<Option<Vec<String>>> {
        let lexicon = &self.lexicon;
        let words: Vec<&str> = card
            .split(' ')
            .filter(|w| !w.is_empty() && !crate::legality::Lexicon::is_stopword(lexicon, w))
            .collect();
        if words.is_empty() {
            return Ok(None);
        }
        let mut parts = Vec::with_capacity(words.len());
        for w in words {
            let folded = text::fold_accents(w);
            // The card itself, one word, is no card (the caller asked): only its folded form
            // is left to try.
            if w != card && self.is_one_card(w)? {
                parts.push(w.to_string());
            } else if folded != w && self.is_one_card(&folded)? {
                parts.push(folded);
            } else {
                return Ok(None);
            }
        }
        Ok(Some(parts))
    }

    /// The card `card` is played as: the stored card it is with or without accents or full
    /// stops (`st patrick` → `st. patrick`), in an
    /// English database (`café` → `cafe`; `cafe` → a `café` an earlier build stored); a word typed
    /// with accents that the database scores as the word without them, that word (`crème
    /// brûlée` → `creme brulee`); any other card, itself. Two cards played as one are one card
    /// on a board. A database whose words keep their accents (`schön` a card of its own) plays
    /// `schön` and `schon` apart.
    pub fn played_as(&self, card: &str) -> Result<String> {
        let key = self.lexicon.language.card_key(card);
        if let Some(stored) = self.stored_keys()?.get(&key) {
            return Ok(stored.clone());
        }
        if let Some(stored) = self.stored_as(card)? {
            return Ok(stored);
        }
        if text::fold_accents(card) == card {
            return Ok(card.to_string());
        }
        Ok(match self.scored_as(card)? {
            Some(parts) => parts.join(" "),
            None => card.to_string(),
        })
    }

    /// `card`'s key ([`text::Language::card_key`]) with its full stops read as spaces: the card
    /// `ST. PATRICK` is typed `st patrick` as often as not, and `st.patrick` too.
    fn loose_key(&self, card: &str) -> String {
        let key = self.lexicon.language.card_key(card);
        if !key.contains('.') {
            return key;
        }
        key.split([' ', '.'])
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether the one word `word` is a card by itself: a stored row or a vocabulary word.
    fn is_one_card(&self, word: &str) -> Result<bool> {
        Ok(self.is_stored(word)? || self.typed_id(word)?.is_some())
    }

    /// Whether `word` is a card word with a stored row.
    fn is_stored(&self, word: &str) -> Result<bool> {
        Ok(self
            .stored_cards()?
            .binary_search_by(|c| c.as_str().cmp(word))
            .is_ok())
    }

    /// The card words with a stored row, sorted (read once).
    fn stored_cards(&self) -> Result<Arc<Vec<String>>> {
        if let Some(c) = self.cache.stored.get() {
            return Ok(c.clone());
        }
        let mut c = Knowledge::card_words(self.store)?;
        c.sort();
        let c = Arc::new(c);
        Ok(self.cache.stored.get_or_init(|| c).clone())
    }

    /// The stored cards by their key (read once): the first in sorted order when two share
    /// one (a database built before the terms stage kept one spelling); then a card with a
    /// full stop by its [`StoreKnowledge::loose_key`] too, where no card has that key.
    fn stored_keys(&self) -> Result<Arc<HashMap<String, String>>> {
        if let Some(k) = self.cache.stored_keys.get() {
            return Ok(k.clone());
        }
        let mut keys = HashMap::new();
        let stored = self.stored_cards()?;
        for c in stored.iter() {
            keys.entry(self.lexicon.language.card_key(c))
                .or_insert_with(|| c.clone());
        }
        for c in stored.iter().filter(|c| c.contains('.')) {
            keys.entry(self.loose_key(c)).or_insert_with(|| c.clone());
        }
        let keys = Arc::new(keys);
        Ok(self.cache.stored_keys.get_or_init(|| keys).clone())
    }

    /// Whether `word` can be a card of the relatedness strategies: a card word with a stored
    /// row, or, when the database keeps the clue words' vectors, any word of the vocabulary (a
    /// clue word or one of its forms), any card of several such words, and such a word typed
    /// with accents ([`StoreKnowledge::scored_as`]).
    pub fn is_card(&self, word: &str) -> Result<bool> {
        if self.is_stored(word)? || self.stored_as(word)?.is_some() {
            return Ok(true);
        }
        Ok(self.any_word()? && (self.typed_id(word)?.is_some() || self.parts(word)?.is_some()))
    }

    /// Whether any vocabulary word can be a card (the database keeps the clue words'
    /// vectors), beside the card words with stored rows.
    pub fn any_word(&self) -> Result<bool> {
        if let Some(t) = self.cache.typed.get() {
            return Ok(t.is_some());
        }
        if let Some(&any) = self.cache.any_word.get() {
            return Ok(any);
        }
        let any =
            self.store.has_clue_vectors()? && crate::typed::StoredMix::read(self.store)?.is_some();
        Ok(*self.cache.any_word.get_or_init(|| any))
    }

    /// The words an unknown one is compared with, to name the closest: the card words with a
    /// stored row (sorted), then, when any vocabulary word can be a card, the other clue words,
    /// the most frequent first. [`closest`] breaks a tie by this order: `aple` is one letter
    /// from `able`, `ale`, `ample` and `apple`, and a player means the card, `apple`.
    pub fn card_vocabulary(&self) -> Result<Vec<String>> {
        let stored = self.stored_cards()?;
        let mut words: Vec<String> = stored.as_ref().clone();
        if self.any_word()? {
            // Clue words are numbered by their occurrences, most first.
            words.extend(
                self.clue_words()?
                    .words
                    .iter()
                    .filter(|w| stored.binary_search(w).is_err())
                    .cloned(),
            );
        }
        Ok(words)
    }
    /// The relatedness of `card`, a word with no stored row, with `clue`, as a board scores it
    /// ([`crate::typed`]), and what its definition added (`None`: nothing): for `explain`.
    /// `None` when either word is no clue word or the database keeps no vectors.
    pub fn typed_relatedness(
        &self,
        card: &str,
        clue: &str,
    ) -> Result<Option<(store::RelatednessRow, Option<f64>)>> {
        let Some(c) = self.clue_words()?.id(clue) else {
            return Ok(None);
        };
        if let Some(parts) = self.scored_as(card)? {
            return self.relatedness_by_parts(card, clue, c, &parts);
        }
        let (Some(t), Some(typed)) = (self.typed_id(card)?, self.typed()?) else {
            return Ok(None);
        };
        let (Some(row), Some(company)) = (
            Knowledge::relatedness(self, card)?,
            self.store
                .clue_company(t as u32)
                .context("reading table clue_company")?,
        ) else {
            return Ok(None);
        };
        let cooccurrences = company
            .meetings
            .binary_search_by_key(&(c as u32), |m| m.0)
            .map_or(0, |i| company.meetings[i].1 as u64);
        let raise = company
            .definition
            .iter()
            .find(|d| d.0 as usize == c)
            .map(|d| (typed.definition_weight() * d.1) as f64)
            .filter(|&x| x > RAISE_SEEN);
        let r = store::RelatednessRow {
            term: card.to_string(),
            clue: clue.to_string(),
            score: row[c] as f64,
            ppmi: 0.0,
            cosine: typed.cosine(t, c) as f64,
            cooccurrences,
        };
        Ok(Some((r, raise)))
    }

    /// [`StoreKnowledge::typed_relatedness`] of a card scored by other words (`parts`, from
    /// [`StoreKnowledge::scored_as`]), `c` the clue's index: the score its row has (their rows'
    /// mean) and the mean of their cosines; the card's own PPMI and meetings are not known
    /// (0), and a definition's raise is in its words' scores, not its own.
    fn relatedness_by_parts(
        &self,
        card: &str,
        clue: &str,
        c: usize,
        parts: &[String],
    ) -> Result<Option<(store::RelatednessRow, Option<f64>)>> {
        let Some(row) = Knowledge::relatedness(self, card)? else {
            return Ok(None);
        };
        let mut cosine = 0.0;
        for part in parts {
            let of_part = match self
                .store
                .relatedness(part, clue)
                .with_context(table("relatedness"))?
            {
                Some(r) => r,
                None => match self.typed_relatedness(part, clue)? {
                    Some((r, _)) => r,
                    None => return Ok(None),
                },
            };
            cosine += of_part.cosine / parts.len() as f64;
        }
        let r = store::RelatednessRow {
            term: card.to_string(),
            clue: clue.to_string(),
            score: row[c] as f64,
            ppmi: 0.0,
            cosine,
            cooccurrences: 0,
        };
        Ok(Some((r, None)))
    }

    /// The legality rule's lexicon for this store.
    pub fn lexicon(&self) -> &StoreLexicon<'s> {
        &self.lexicon
    }
}

impl Knowledge for StoreKnowledge<'_> {
    fn clues_of(&self, term: &str) -> Result<Vec<(String, f64)>> {
        self.store.clues_of(term)
    }
    fn term_doc(&self, term: &str) -> Result<Vec<(String, u64)>> {
        self.store.term_doc(term)
    }
    fn terms(&self) -> Result<Vec<String>> {
        self.store.terms()
    }
    fn clue_words(&self) -> Result<Arc<ClueWords>> {
        if let Some(c) = self.cache.clue_words.get() {
            return Ok(c.clone());
        }
        let c = Knowledge::clue_words(self.store)?;
        Ok(self.cache.clue_words.get_or_init(|| c).clone())
    }
    /// One query per board while few boards have asked (a whole `suggest` process: one pass
    /// of SQL, ~20 ms); from the fourth, the best scores are read once and kept (games,
    /// benchmarks: then each board costs a pass over the kept scores).
    fn unknown_risk(&self, pos: &[String]) -> Result<crate::threshold::ClueMap> {
        if !self.keep_tops && self.cache.top_scores.get().is_none() && self.risk_reads.get() < 3 {
            self.risk_reads.set(self.risk_reads.get() + 1);
            return Knowledge::unknown_risk(self.store, pos);
        }
        let tops = self.top_scores()?;
        Ok(crate::threshold::risk_from_tops(&tops, pos))
    }
    fn top_scores(&self) -> Result<Arc<TopScores>> {
        if let Some(t) = self.cache.top_scores.get() {
            return Ok(t.clone());
        }
        let t = Knowledge::top_scores(self.store)?;
        Ok(self.cache.top_scores.get_or_init(|| t).clone())
    }
    /// The stored row, else one computed from the stored vectors ([`crate::typed`]) for a
    /// clue word or one of its forms: [`Knowledge::relatedness_all`] of one card.
    fn relatedness(&self, card: &str) -> Result<Option<Arc<[f32]>>> {
        Ok(self
            .relatedness_all(std::slice::from_ref(&card.to_string()))?
            .pop()
            .flatten())
    }

    fn clue_form(&self, word: &str) -> Result<Option<String>> {
        Knowledge::clue_form(self.store, word)
    }

    /// The stored rows, then the rows of the words without one computed together, then those
    /// of the cards scored by other words ([`StoreKnowledge::scored_as`]) from theirs.
    fn relatedness_all(&self, cards: &[String]) -> Result<Vec<Option<Arc<[f32]>>>> {
        let lock = || self.cache.vectors.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(cards.len());
        let mut missing: Vec<(usize, usize, u64)> = Vec::new();
        let mut by_parts: Vec<(usize, Vec<String>)> = Vec::new();
        for (i, card) in cards.iter().enumerate() {
            if let Some(v) = lock().get(card) {
                out.push(v.clone());
                continue;
            }
            let stored = Knowledge::relatedness(self.store, card)?;
            if stored.is_none()
                && let Some(id) = self.typed_id(card)?
                && self.typed()?.is_some()
            {
                missing.push((i, id, self.clue_words()?.counts[id]));
            } else if stored.is_none()
                && let Some(parts) = self.scored_as(card)?
            {
                by_parts.push((i, parts));
            } else {
                lock().insert(card.clone(), stored.clone());
            }
            out.push(stored);
        }
        if !by_parts.is_empty() {
            // Their words are one-word cards, each its own row: this goes one level deep.
            let words: Vec<String> = by_parts.iter().flat_map(|(_, p)| p.clone()).collect();
            let rows = self.relatedness_all(&words)?;
            let mut rows = rows.into_iter();
            for (i, parts) in &by_parts {
                let of_parts: Vec<Option<Arc<[f32]>>> = rows.by_ref().take(parts.len()).collect();
                let row = mean_row(&of_parts);
                lock().insert(cards[*i].clone(), row.clone());
                out[*i] = row;
            }
        }
        // The vectors are read only when a word needs them (15 MB: most of a whole `suggest`).
        if missing.is_empty() {
            return Ok(out);
        }
        if let Some(typed) = self.typed()? {
            let ids: Vec<(usize, u64)> = missing.iter().map(|&(_, id, n)| (id, n)).collect();
            let rows = typed
                .rows(self.store, &ids)
                .context("scoring the board's words with no stored row")?;
            for (&(i, _, _), row) in missing.iter().zip(rows) {
                let row: Option<Arc<[f32]>> = row.map(Arc::from);
                lock().insert(cards[i].clone(), row.clone());
                out[i] = row;
            }
        }
        Ok(out)
    }

    /// The stored card's reading; a word scored from the vectors is read by that score.
    fn reading(&self, card: &str) -> Result<Option<Arc<[f32]>>> {
        cached(&self.cache.readings, card, || {
            match Knowledge::reading(self.store, card)? {
                Some(r) => Ok(Some(r)),
                None => self.relatedness(card),
            }
        })
    }

    fn setnet(&self) -> Result<Arc<crate::setnet::Trained>> {
        if let Some(n) = self.cache.setnet.get() {
            return Ok(n.clone());
        }
        let n = Knowledge::setnet(self.store)?;
        Ok(self.cache.setnet.get_or_init(|| n).clone())
    }

    fn card_words(&self) -> Result<Vec<String>> {
        Knowledge::card_words(self.store)
    }
}

/// What `explain` shows for one card word: the `scores` evidence, the relatedness row, and
/// where the clue and the card meet in the text (each `None` when the database has none).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Explained {
    pub term: String,
    pub evidence: Option<store::Evidence>,
    pub relatedness: Option<store::RelatednessRow>,
    pub meeting: Option<store::Meeting>,
    /// How much of the relatedness score the card's dictionary definition added (db/README.md,
    /// "Relatedness", 6b): `None` when it added nothing.
    pub definition_raise: Option<f64>,
    /// The relatedness was computed for a word no list named, as a board scores it
    /// ([`crate::typed`]): its PPMI is not kept (0), and its co-occurrences only with the clue
    /// words it meets most (0 past them).
    pub typed: bool,
    /// For a card no list named that is scored by other words (several words, or a word
    /// typed with accents), the words whose rows' mean is its row
    /// ([`StoreKnowledge::scored_as`]); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
}

/// The evidence behind `clue` with each of `terms` (`clue-db explain`, `/api/explain`): a
/// card word's stored row, else, for a word no list named, the row a board computes for it.
pub fn explain(k: &StoreKnowledge, clue: &str, terms: &[String]) -> Result<Vec<Explained>> {
    let store = k.store();
    let mix = Mix::read(store)?;
    terms
        .iter()
        .map(|t| {
            let stored = store
                .relatedness(t, clue)
                .with_context(table("relatedness"))?;
            let (relatedness, definition_raise, typed) = match stored {
                Some(r) => {
                    let raise = match &mix {
                        Some(m) => {
                            let count = store
                                .relatedness_count(t)
                                .with_context(table("relatedness_vectors"))?
                                .unwrap_or(0);
                            m.raise(&r, count)
                        }
                        None => None,
                    };
                    (Some(r), raise, false)
                }
                None => match k.typed_relatedness(t, clue)? {
                    Some((r, raise)) => (Some(r), raise, true),
                    None => (None, None, false),
                },
            };
            Ok(Explained {
                term: t.clone(),
                evidence: store.evidence(clue, t).with_context(table("scores"))?,
                definition_raise,
                relatedness,
                meeting: store
                    .meeting(t, clue)
                    .with_context(table("relatedness_evidence"))?,
                typed,
                parts: match typed {
                    true => k.scored_as(t)?.unwrap_or_default(),
                    false => Vec::new(),
                },
            })
        })
        .collect()
}

/// What `clue-db explain` and `/api/explain` answer: each term's evidence ([`explain`]), the
/// set network's view (`SetnetView`), and the warnings: a term no strategy can score
/// (with the closest words that can be cards), a clue that is no clue word, a network that
/// cannot be shown and why. One path, so the command and the server say the same.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Explanation {
    pub terms: Vec<Explained>,
    pub setnet: Option<crate::setnet::Explained>,
    pub warnings: Vec<String>,
}

/// The [`Explanation`] of `clue` with `terms`.
pub fn explanation(k: &StoreKnowledge, clue: &str, terms: &[String]) -> Result<Explanation> {
    let store = k.store();
    // A card given twice, or two cards played as one (`café`, `cafe`), is explained once, with
    // one warning for each word typed again; a card typed otherwise than it is stored (`st
    // patrick`) as the stored card, whose evidence and network embedding are the card's.
    let mut once: Vec<String> = Vec::with_capacity(terms.len());
    let mut typed: Vec<&String> = Vec::with_capacity(terms.len());
    let mut twice = Vec::new();
    let mut played: HashMap<String, usize> = HashMap::new();
    let mut warned: HashSet<&String> = HashSet::new();
    for t in terms {
        let p = k.played_as(t)?;
        match played.get(&p) {
            Some(_) if !warned.insert(t) => {}
            Some(&i) if typed[i] == t => twice.push(format!(
                "{} is given more than once: explained once",
                crate::shown(t)
            )),
            Some(&i) => twice.push(format!(
                "{} and {} are one card, {}: explained once",
                crate::shown(typed[i]),
                crate::shown(t),
                crate::shown(&p)
            )),
            None => {
                let shown = if p != *t && !k.is_stored(t)? && k.is_stored(&p)? {
                    p.clone()
                } else {
                    t.clone()
                };
                played.insert(p, once.len());
                once.push(shown);
                typed.push(t);
            }
        }
    }
    let terms = &once[..];
    // A covered term of the threshold strategy has evidence even without a row.
    let covered = store.terms()?;
    let (mut unknown, knows_none) = crate::answer::not_cards(k, terms)?;
    unknown.retain(|u| covered.binary_search(&u.word).is_err());
    let mut warnings = crate::answer::warnings(&unknown, knows_none, "it has no evidence");
    warnings.extend(twice);
    warnings.extend(clue_warning(store, clue)?);
    let found = explain(k, clue, terms)?;
    let setnet = match setnet_view(store, clue, terms)? {
        SetnetView::Shown(x) => Some(x),
        SetnetView::Absent => None,
        SetnetView::Unusable(why) => {
            warnings.push(format!("the set network is not shown: {why}"));
            None
        }
    };
    Ok(Explanation {
        terms: found,
        setnet,
        warnings,
    })
}

/// The relatedness score's mix of its parts, as the stage standardised it (its `meta`), to tell
/// what a row's score owes to the raise by the card's definition: the score less the mix, by
/// the stage's own formula ([`relate::ScoreMix`]).
struct Mix {
    parts: relate::ScoreMix,
    /// Of the mix over all pairs: the unraised score is `(mix − mean) / std`.
    mix: relate::Scale,
}

/// A raise below this is the rounding of the stored values, not a definition (the smallest
/// raise is 2 × a sense's share, and a sense this rare adds nothing to see).
const RAISE_SEEN: f64 = 0.01;

impl Mix {
    /// `None` for a database whose scores were never raised (built before the raise, with
    /// `--definition-weight 0`, or not in English) or that records no standardisation.
    fn read(store: &Store) -> Result<Option<Mix>> {
        Ok(crate::typed::StoredMix::read(store)?
            .filter(|m| m.definition_weight > 0.0)
            .map(|m| Mix {
                parts: m.parts,
                mix: m.mix,
            }))
    }

    /// The raise in `r`'s score, its card word seen `card_count` times: the score less the
    /// stage's score before the raise; `None` when it is no raise.
    fn raise(&self, r: &store::RelatednessRow, card_count: u64) -> Option<f64> {
        let meetings = u32::try_from(r.cooccurrences).unwrap_or(u32::MAX);
        let unraised =
            self.mix.z(self
                .parts
                .mix(r.ppmi as f32, r.cosine as f32, meetings, card_count));
        let raise = r.score - unraised as f64;
        (raise > RAISE_SEEN).then_some(raise)
    }
}

/// The set network's view of `clue` with `terms` as the subset, as [`explanation`] shows it.
enum SetnetView {
    Shown(crate::setnet::Explained),
    /// The database has no trained network (built before it), or the clue is no clue word:
    /// `explain` answers without it.
    Absent,
    /// It has a `setnet_weights` table it cannot use (empty, damaged, trained on another
    /// relatedness): why, for the warning.
    Unusable(String),
}

fn setnet_view(store: &Store, clue: &str, terms: &[String]) -> Result<SetnetView> {
    let net = match Knowledge::setnet(store) {
        Ok(net) => net,
        Err(_) if store.setnet_weights()?.is_none() => return Ok(SetnetView::Absent),
        Err(e) => return Ok(SetnetView::Unusable(format!("{e:#}"))),
    };
    let id = Knowledge::clue_words(store)?.id(clue);
    Ok(crate::setnet::explain(&net, id, terms).map_or(SetnetView::Absent, SetnetView::Shown))
}

/// The warning `explain` gives for a clue that is no clue word of the database, if it is not.
pub fn clue_warning(store: &Store, clue: &str) -> Result<Option<String>> {
    Ok((!store.is_clue(clue)?).then(|| {
        format!(
            "{} is no clue word of the database: nothing relates to it",
            crate::shown(clue)
        )
    }))
}

/// Inflections and stopwords from the `text` crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextLexicon;

impl Lexicon for TextLexicon {
    fn is_inflection_of(&self, a: &str, b: &str) -> bool {
        text::Inflector::shared().is_inflection_of(a, b)
    }
    fn is_stopword(&self, w: &str) -> bool {
        text::is_stopword(w)
    }
}

/// The legality rule's inflections read from the database (the `inflections` table the scores
/// and relatedness stages wrote), so that a query needs no inflection tables: loading those
/// costs ~80 ms, most of a whole `clue-db suggest`. The table is complete for every clue against
/// the forms it marks with a row for themselves (the listed card words' forms and the words of
/// `clue_words`); any other pair asks the database's language's rule, so the answer is always
/// the rule's.
///
/// The rules are the database's language's (its `meta` `language`, English when absent): a
/// German database refuses German stopwords and words sharing a Snowball stem with a card.
pub struct StoreLexicon<'s> {
    store: &'s Store<'s>,
    language: text::Language,
    /// Per card form: the clues that inflect it, or `None` when the table does not cover it.
    forms: RefCell<HashMap<String, Option<HashSet<String>>>>,
    /// Per word: whether it is a clue of `scores`.
    clues: RefCell<HashMap<String, bool>>,
    /// Per word the table does not answer for: the word as the language's rule reads it.
    read: RefCell<HashMap<String, Rc<text::Comparable>>>,
    /// Pairs the table did not answer ([`StoreLexicon::asked_the_rule`]).
    asked: std::cell::Cell<usize>,
}

impl<'s> StoreLexicon<'s> {
    pub fn new(store: &'s Store<'s>) -> StoreLexicon<'s> {
        let language = store
            .meta("language")
            .ok()
            .flatten()
            .and_then(|code| text::Language::from_code(&code).ok())
            .unwrap_or_default();
        StoreLexicon {
            store,
            language,
            forms: RefCell::default(),
            clues: RefCell::default(),
            read: RefCell::default(),
            asked: std::cell::Cell::new(0),
        }
    }

    /// How many pairs the table did not answer, so that the language's rule (its inflection
    /// tables, loaded on first use) was asked: none for boards of stored cards and of single
    /// words of `clue_words` or `clue_forms` on a database built since the table covers them (a
    /// card of several words no list names still asks for its joined form, `redwine`).
    pub fn asked_the_rule(&self) -> usize {
        self.asked.get()
    }

    /// `word` read for the language's rule, once.
    fn comparable(&self, word: &str) -> Rc<text::Comparable> {
        if let Some(c) = self.read.borrow().get(word) {
            return c.clone();
        }
        let c = Rc::new(self.language.comparable(word));
        self.read.borrow_mut().insert(word.to_string(), c.clone());
        c
    }

    /// Whether clue `word` inflects card form `form`, when the table knows; `None` otherwise
    /// (and on a read error, which the rule's own tables then answer).
    /// Both caches are looked up before anything is allocated: a board's legality asks this
    /// for every clue it checks against every card form, and the answers are nearly all cached.
    fn table_says(&self, form: &str, word: &str) -> Option<bool> {
        let known = self.clues.borrow().get(word).copied();
        let is_clue = match known {
            Some(is_clue) => is_clue,
            None => {
                let is_clue = self.store.is_clue(word).unwrap_or(false);
                self.clues.borrow_mut().insert(word.to_string(), is_clue);
                is_clue
            }
        };
        if !is_clue {
            return None;
        }
        if let Some(covered) = self.forms.borrow().get(form) {
            return covered.as_ref().map(|words| words.contains(word));
        }
        let words: HashSet<String> = self.store.inflections_of(form).ok()?.into_iter().collect();
        let covered = words.contains(form).then_some(words);
        let says = covered.as_ref().map(|words| words.contains(word));
        self.forms.borrow_mut().insert(form.to_string(), covered);
        says
    }
}

impl Lexicon for StoreLexicon<'_> {
    fn is_inflection_of(&self, a: &str, b: &str) -> bool {
        self.table_says(b, a)
            .or_else(|| self.table_says(a, b))
            .unwrap_or_else(|| {
                self.asked.set(self.asked.get() + 1);
                let (a, b) = (self.comparable(a), self.comparable(b));
                self.language.are_inflections(&a, &b)
            })
    }
    fn is_stopword(&self, w: &str) -> bool {
        self.language.is_stopword(w)
    }
}

/// A card word as users type it ([`text::card_word`]): the one normal form of boards, lists
/// and the stored cards.
pub use text::card_word as normalize_word;

/// Splits a list of card words, separated by commas or line breaks (`--pos "$(cat team.txt)"`:
/// one word a line is no card of several words), normalised, empties dropped.
pub fn parse_list(s: &str) -> Vec<String> {
    s.split([',', '\n', '\r'])
        .map(normalize_word)
        .filter(|w| !w.is_empty())
        .collect()
}

/// The `--assassin` option as typed: `None` when not given; one card word otherwise. An
/// option left with no word (`" , "`) or with several is an error, not a card named ",".
pub fn parse_assassin(s: Option<&str>) -> Result<Option<String>> {
    let Some(s) = s else { return Ok(None) };
    match parse_list(s).as_slice() {
        [] => bail!(
            "--assassin {} is empty: give the assassin's card word, or leave --assassin out",
            crate::shown(s)
        ),
        [w] => Ok(Some(w.clone())),
        more => bail!(
            "--assassin {} names {} words: the board has one assassin",
            crate::shown(s),
            more.len()
        ),
    }
}

/// Edit distance by characters: insertions, deletions, substitutions, and a swap of two
/// neighbouring characters counted as one edit (the optimal string alignment distance), since a
/// swap is the commonest slip of typing after a single wrong letter: `hrose` is one edit from
/// `horse`, as near as `hose`, not two as `hole` is.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: the one before the previous row is what a swap reads.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let mut d = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            if i > 0 && j > 0 && ca == b[j - 1] && a[i - 1] == cb {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

/// The `n` words of `terms` closest to `word` by edit distance; of those as close, the earlier
/// in `terms` first (alphabetical for sorted terms; [`StoreKnowledge::card_vocabulary`] puts the
/// words a player more likely means first).
pub fn closest<'a>(word: &str, terms: &'a [String], n: usize) -> Vec<&'a str> {
    let mut scored: Vec<(usize, &str)> = terms
        .iter()
        .map(|t| (edit_distance(word, t), t.as_str()))
        .collect();
    // Stable: a tie keeps the order of `terms`.
    scored.sort_by_key(|&(d, _)| d);
    scored.into_iter().take(n).map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lexicon_knows_inflections_and_stopwords() {
        assert!(TextLexicon.is_inflection_of("apples", "apple"));
        assert!(TextLexicon.is_inflection_of("struck", "strike"));
        assert!(!TextLexicon.is_inflection_of("organization", "organ"));
        assert!(TextLexicon.is_stopword("the"));
        assert!(!TextLexicon.is_stopword("fruit"));
        // Through the legality rules: an inflection of a card and a stopword are refused.
        let legality = crate::legality::Legality::new(&["strike".to_string()], &TextLexicon);
        assert!(!legality.allows("struck"));
        assert!(!legality.allows("the"));
        assert!(legality.allows("fruit"));
    }

    /// The store's table answers where it covers the pair, even against the rule (so it is
    /// read); a form it does not mark, or a word that is no clue, goes to the rule's tables.
    #[test]
    fn store_lexicon_reads_the_table_where_it_covers_the_pair() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let b = store::Build::create(&path).unwrap();
        for clue in ["zebra", "bears", "mice"] {
            b.insert_score(&store::ScoreRow {
                clue: clue.into(),
                term: "bear".into(),
                score: 0.5,
                page_id: 1,
                direction: "clue_page",
                count: 1,
                excerpt: None,
            })
            .unwrap();
        }
        // "bear" is covered by the table; it says zebra (wrongly) and not bears.
        b.insert_inflection("bear", "bear").unwrap();
        b.insert_inflection("bear", "zebra").unwrap();
        b.finish().unwrap();
        let store = Store::open(&path).unwrap();
        let lex = StoreLexicon::new(&store);
        assert!(lex.is_inflection_of("zebra", "bear"), "the table is read");
        assert!(lex.is_inflection_of("bear", "zebra"), "either way round");
        assert!(
            !lex.is_inflection_of("bears", "bear"),
            "a covered form's missing row means no"
        );
        // "mouse" has no row for itself: not covered, the rule's tables answer.
        assert!(lex.is_inflection_of("mice", "mouse"));
        // "bearing" is no clue of the database: the rule's tables answer.
        assert!(lex.is_inflection_of("bearing", "bear"));
    }

    /// The risk of an unknown card: one SQL pass for the first boards, then the kept best
    /// scores, with the same answer; and the default of the trait (from `top_scores`) agrees.
    #[test]
    fn unknown_risk_by_query_and_by_kept_scores_agree() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let b = store::Build::create(&path).unwrap();
        for (clue, term, score) in [
            ("fruit", "apple", 0.8),
            ("fruit", "lemon", 0.9),
            ("fruit", "orange", 0.7),
            ("red", "apple", 0.6),
            ("smoke", "fire", 0.5),
        ] {
            b.insert_score(&store::ScoreRow {
                clue: clue.into(),
                term: term.into(),
                score,
                page_id: 1,
                direction: "clue_page",
                count: 1,
                excerpt: None,
            })
            .unwrap();
        }
        b.finish().unwrap();
        let store = Store::open(&path).unwrap();
        let pos = vec!["apple".to_string(), "lemon".to_string()];
        let want: crate::threshold::ClueMap =
            [("fruit".to_string(), 0.7), ("smoke".to_string(), 0.5)].into();
        assert_eq!(Knowledge::unknown_risk(&store, &pos).unwrap(), want);
        let tops = Knowledge::top_scores(&store).unwrap();
        assert_eq!(crate::threshold::risk_from_tops(&tops, &pos), want);
        let k = StoreKnowledge::new(&store);
        for _ in 0..5 {
            assert_eq!(k.unknown_risk(&pos).unwrap(), want);
        }
        assert!(
            k.cache.top_scores.get().is_some(),
            "kept after a few boards"
        );
        // A shared cache keeps the best scores from the first board, for every knowledge that
        // reads through it (a server's requests).
        let cache = Arc::new(KnowledgeCache::default());
        let first = StoreKnowledge::with_cache(&store, cache.clone());
        assert_eq!(first.unknown_risk(&pos).unwrap(), want);
        assert!(
            cache.top_scores.get().is_some(),
            "kept from the first board"
        );
        drop(first);
        let second = StoreKnowledge::with_cache(&store, cache.clone());
        assert!(Arc::ptr_eq(
            &second.top_scores().unwrap(),
            cache.top_scores.get().unwrap()
        ));
        assert_eq!(second.unknown_risk(&pos).unwrap(), want);
        // No team card: every clue's best.
        assert_eq!(k.unknown_risk(&[]).unwrap().get("fruit"), Some(&0.9));
        assert_eq!(
            Knowledge::unknown_risk(&store, &[]).unwrap().get("fruit"),
            Some(&0.9)
        );
    }

    #[test]
    fn words_are_normalised_and_lists_split() {
        assert_eq!(
            parse_list(" Apple, ICE  Cream ,,bank, Loch-Ness"),
            vec!["apple", "ice cream", "bank", "loch ness"]
        );
        // A line break separates as a comma does; a tab is a space inside a card.
        assert_eq!(
            parse_list("apple\nwater\r\nice\tcream,\n\nbank\n"),
            vec!["apple", "water", "ice cream", "bank"]
        );
    }

    #[test]
    fn the_assassin_is_one_word() {
        assert_eq!(parse_assassin(None).unwrap(), None);
        assert_eq!(
            parse_assassin(Some(" Loch-Ness ")).unwrap().as_deref(),
            Some("loch ness")
        );
        for empty in ["", " , ", ","] {
            let e = parse_assassin(Some(empty)).unwrap_err().to_string();
            assert!(e.contains("--assassin") && e.contains("is empty"), "{e}");
        }
        let e = parse_assassin(Some("fire,ice")).unwrap_err().to_string();
        assert!(e.contains("2 words"), "{e}");
    }

    #[test]
    fn unknown_words_name_the_closest_terms() {
        let terms: Vec<String> = ["apple", "apply", "bank", "band"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        // A swap of neighbours is one edit; a letter moved further is more.
        assert_eq!(edit_distance("hrose", "horse"), 1);
        assert_eq!(edit_distance("hrose", "hole"), 2);
        assert_eq!(edit_distance("abcd", "acdb"), 2);
        assert_eq!(edit_distance("ab", "ba"), 1);
        // Each stretch is edited once (optimal string alignment): `ca` → `abc` is 3, not the
        // 2 of a swap followed by an insertion between the swapped letters.
        assert_eq!(edit_distance("ca", "abc"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        // Two swaps, by characters, not bytes.
        assert_eq!(edit_distance("émile", "mélie"), 2);
        assert_eq!(closest("aple", &terms, 2), ["apple", "apply"]);
        assert_eq!(closest("bank", &terms, 1), ["bank"]);
    }

    #[test]
    fn of_words_as_close_the_earlier_one_is_named_first() {
        // `aple` is one edit from each; the order given breaks the tie, not the alphabet.
        let words: Vec<String> = ["zzz", "apple", "able", "ale", "ample"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(closest("aple", &words, 3), ["apple", "able", "ale"]);
        assert_eq!(closest("aple", &words[2..], 2), ["able", "ale"]);
        // A closer word still comes first wherever it stands.
        assert_eq!(closest("zz", &words, 1), ["zzz"]);
    }
}
