//! The relatedness tables (`clue_words` and its packed copy `clue_words_packed`, `clue_forms`,
//! `card_words`, `relatedness_by_id` and its view `relatedness`, `relatedness_vectors`,
//! `relatedness_evidence`, and for any word as a card `clue_vectors` and `clue_company`): writes
//! of the `relatedness` stage and reads of the query engine.

use crate::{Build, Store};
use anyhow::{Context, Result, bail};
use rusqlite::{OptionalExtension, params};
use std::sync::Arc;

/// What to do about a malformed relatedness table (a tampered or damaged file).
const REBUILD: &str = "rebuild with `clue-db pipeline relatedness`";

/// One `(card word, clue word)` row of the `relatedness` view, the evidence behind the score.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RelatednessRow {
    pub term: String,
    pub clue: String,
    pub score: f64,
    pub ppmi: f64,
    pub cosine: f64,
    pub cooccurrences: u64,
}

/// One `(card word, clue word)` row as stored, in `relatedness_by_id`: the words by their ids
/// (`card_words.id`, `clue_words.id`), which is what makes the table a third smaller than rows
/// repeating both words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelatednessIds {
    pub card_id: u32,
    pub clue_id: u32,
    pub score: f32,
    pub ppmi: f32,
    pub cosine: f32,
    pub cooccurrences: u32,
}

/// The clue words' vectors as stored in `clue_vectors`: `n` rows of `dims` half-precision
/// values, read out in f32 a range of rows at a time. A reader that rounds them again (a typed
/// board's bfloat16 blocks) so never holds all 29 MB in f32: zeroing and filling that took
/// most of a whole `suggest` with a word no list names.
#[derive(Debug, Clone)]
pub struct HalfVectors {
    pub dims: usize,
    pub n: usize,
    halves: Vec<half::f16>,
}

impl HalfVectors {
    /// Rows `rows` (clue word ids, clamped to `n`) in f32, one after another.
    pub fn rows(&self, rows: std::ops::Range<usize>) -> Vec<f32> {
        let (start, end) = (rows.start.min(self.n), rows.end.min(self.n));
        let halves = &self.halves[start * self.dims..end.max(start) * self.dims];
        let mut out = vec![0f32; halves.len()];
        // In one call: converted with the processor's half-precision instructions where it has
        // them.
        half::slice::HalfFloatSliceExt::convert_to_f32_slice(halves, &mut out);
        out
    }
}

/// Where a card word and a clue word meet (`relatedness_evidence`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Meeting {
    pub page_id: u64,
    pub page_title: String,
    pub meetings: u64,
    pub excerpt: Option<String>,
}

/// A clue word's risk as read from `table`: a number, or an error naming the table and the word
/// (a risk that is no number would poison every board the word is weighed on).
fn check_risk(table: &str, word: &str, risk: f32) -> Result<()> {
    if !risk.is_finite() {
        bail!("{table}: word '{word}' has risk {risk}, not a number: {REBUILD}");
    }
    Ok(())
}

/// The clue words' packed copy as it is written: each word followed by a line break, and one
/// little-endian `u64` count and `f32` risk per word.
#[derive(Default)]
struct Packed {
    words: Vec<u8>,
    counts: Vec<u8>,
    risks: Vec<u8>,
}

/// What `clue_company` keeps of one clue word for scoring it as a card: the clue words it
/// meets most `(id, meetings)`, the rest summed (`rest_meetings` over `rest_pairs` clue words),
/// and the clue words its definition names `(id, share)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompanyRow {
    pub meetings: Vec<(u32, u32)>,
    pub rest_meetings: u64,
    pub rest_pairs: u32,
    pub definition: Vec<(u32, f32)>,
}

/// A measure as `relatedness_by_id` keeps it: whole ten-thousandths.
fn e4(x: f32) -> i64 {
    (x as f64 * 1e4).round() as i64
}

impl Build {
    /// Replaces the clue words' joined vectors (`clue_vectors`): `dims` values per clue word,
    /// in `clue_words.id` order, stored as half-precision floats.
    pub fn replace_clue_vectors(&self, dims: usize, vectors: &[f32]) -> Result<()> {
        let mut blob = Vec::with_capacity(vectors.len() * 2);
        for x in vectors {
            blob.extend_from_slice(&half::f16::from_f32(*x).to_le_bytes());
        }
        self.conn.execute("DELETE FROM clue_vectors", [])?;
        self.conn
            .execute(
                "INSERT INTO clue_vectors (dims, vectors) VALUES (?1, ?2)",
                params![dims as i64, blob],
            )
            .context("writing table clue_vectors")?;
        Ok(())
    }

    /// Stores what clue word `id` keeps for being scored as a card (`clue_company`).
    pub fn insert_clue_company(&self, id: u32, c: &CompanyRow) -> Result<()> {
        let meetings: Vec<u8> = c
            .meetings
            .iter()
            .flat_map(|&(j, n)| {
                let n = n.min(u16::MAX as u32) as u16;
                j.to_le_bytes().into_iter().chain(n.to_le_bytes())
            })
            .collect();
        let definition: Vec<u8> = c
            .definition
            .iter()
            .flat_map(|&(j, s)| j.to_le_bytes().into_iter().chain(s.to_le_bytes()))
            .collect();
        self.conn
            .prepare_cached(
                "INSERT INTO clue_company (id, meetings, rest_meetings, rest_pairs, definition)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                id as i64,
                meetings,
                c.rest_meetings as i64,
                c.rest_pairs as i64,
                definition
            ])
            .with_context(|| format!("writing table clue_company (clue word id {id})"))?;
        Ok(())
    }

    /// Replaces the clue words `(word, count, pages, risk)`; their ids are their positions in
    /// `words`. Writes their packed copy too (`clue_words_packed`), in the same transaction.
    pub fn replace_clue_words(&self, words: &[(&str, u64, u64, f32)]) -> Result<()> {
        self.conn.execute("DELETE FROM clue_words", [])?;
        let mut st = self.conn.prepare_cached(
            "INSERT INTO clue_words (id, word, count, pages, risk) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut packed = Packed::default();
        for (id, (w, n, pages, risk)) in words.iter().enumerate() {
            if w.is_empty() || w.contains('\n') {
                bail!("writing table clue_words: clue word {w:?} is empty or has a line break");
            }
            st.execute(params![
                id as i64,
                w,
                *n as i64,
                *pages as i64,
                *risk as f64
            ])
            .with_context(|| format!("writing table clue_words ({w:?})"))?;
            packed.words.extend_from_slice(w.as_bytes());
            packed.words.push(b'\n');
            packed.counts.extend_from_slice(&n.to_le_bytes());
            packed.risks.extend_from_slice(&risk.to_le_bytes());
        }
        self.conn.execute("DELETE FROM clue_words_packed", [])?;
        self.conn
            .execute(
                "INSERT INTO clue_words_packed (words, counts, risks) VALUES (?1, ?2, ?3)",
                params![packed.words, packed.counts, packed.risks],
            )
            .context("writing table clue_words_packed")?;
        Ok(())
    }

    /// Replaces the card words of the relatedness; their ids are their positions in `words`.
    pub fn replace_card_words(&self, words: &[&str]) -> Result<()> {
        self.conn.execute("DELETE FROM card_words", [])?;
        let mut st = self
            .conn
            .prepare_cached("INSERT INTO card_words (id, word) VALUES (?1, ?2)")?;
        for (id, w) in words.iter().enumerate() {
            st.execute(params![id as i64, w])
                .with_context(|| format!("writing table card_words ({w:?})"))?;
        }
        Ok(())
    }

    /// Replaces the other forms of the clue words, `(form, clue word)`.
    pub fn replace_clue_forms(&self, forms: &[(&str, &str)]) -> Result<()> {
        self.conn.execute("DELETE FROM clue_forms", [])?;
        let mut st = self
            .conn
            .prepare_cached("INSERT OR REPLACE INTO clue_forms (form, clue) VALUES (?1, ?2)")?;
        for (form, clue) in forms {
            st.execute(params![form, clue])
                .with_context(|| format!("writing table clue_forms ({form:?})"))?;
        }
        Ok(())
    }

    /// Stores one `(card word, clue word)` row; rows go in fastest in key order (card, then clue).
    pub fn insert_relatedness(&self, r: &RelatednessIds) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO relatedness_by_id
                 (card_id, clue_id, score_e4, ppmi_e4, cosine_e4, cooccurrences)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                r.card_id,
                r.clue_id,
                e4(r.score),
                e4(r.ppmi),
                e4(r.cosine),
                r.cooccurrences
            ])
            .with_context(|| {
                format!(
                    "writing table relatedness_by_id (card {}, clue {})",
                    r.card_id, r.clue_id
                )
            })?;
        Ok(())
    }

    /// Stores a card word's scores with every clue word, in `clue_words.id` order.
    pub fn insert_relatedness_vector(&self, term: &str, count: u64, scores: &[f32]) -> Result<()> {
        let blob: Vec<u8> = scores.iter().flat_map(|s| s.to_le_bytes()).collect();
        self.conn
            .prepare_cached(
                "INSERT INTO relatedness_vectors (term, count, scores) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![term, count as i64, blob])
            .with_context(|| format!("writing table relatedness_vectors ({term:?})"))?;
        Ok(())
    }

    /// Stores the page where card word `term` meets clue word `clue` most
    /// (`relatedness_evidence`): the page, their meetings on it and a sentence where they meet;
    /// a second row for the pair replaces the first.
    pub fn insert_meeting(
        &self,
        term: &str,
        clue: &str,
        page_id: u64,
        meetings: u64,
        excerpt: Option<&str>,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO relatedness_evidence (term, clue, page_id, meetings, excerpt)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![term, clue, page_id as i64, meetings as i64, excerpt])
            .with_context(|| format!("writing table relatedness_evidence ({term:?}, {clue:?})"))?;
        Ok(())
    }
}

impl Store<'_> {
    /// Every written form `clue_forms` leads to a clue word, sorted.
    pub fn clue_form_names(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT form FROM clue_forms ORDER BY form")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every word that is a clue somewhere: of `scores` or of `clue_words`, sorted.
    pub fn all_clues(&self) -> Result<Vec<String>> {
        let mut st = self.conn().prepare_cached(
            "SELECT clue FROM scores UNION SELECT word FROM clue_words ORDER BY 1",
        )?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The clue words with their counts and risks (see `db/schema.sql`), in id order; empty when the
    /// `relatedness` stage has not run.
    ///
    /// Read from their packed copy (`clue_words_packed`: three blobs, where the 16,000 rows of
    /// `clue_words` took half of a whole `suggest` process), or row by row when the copy is
    /// absent (a database built before it) or is not of these rows (written before the last
    /// `clue_words`: its number of words, or its first or last word, differs).
    ///
    /// An id that is not the word's position (`0..n`, the order of every stored vector) or a
    /// risk that is not a number is an error naming the word: read on, it would shift or poison
    /// every score.
    pub fn clue_words(&self) -> Result<Vec<(String, u64, f32)>> {
        if let Some(words) = self.packed_clue_words()? {
            return Ok(words);
        }
        self.clue_word_rows()
    }

    /// The packed copy of the clue words, when there is one and it is of the rows of
    /// `clue_words` (see [`Store::clue_words`]).
    fn packed_clue_words(&self) -> Result<Option<Vec<(String, u64, f32)>>> {
        if !self.has_table("clue_words_packed")? {
            return Ok(None);
        }
        let mut st = self
            .conn()
            .prepare_cached("SELECT words, counts, risks FROM clue_words_packed")?;
        let mut rows = st.query([])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let blob = |i: usize| -> Result<&[u8]> {
            row.get_ref(i)?.as_blob().map_err(|_| {
                anyhow::anyhow!("clue_words_packed: column {i} is not a BLOB: {REBUILD}")
            })
        };
        let (words, counts, risks) = (blob(0)?, blob(1)?, blob(2)?);
        let Ok(text) = std::str::from_utf8(words) else {
            bail!("clue_words_packed: the words are not UTF-8: {REBUILD}");
        };
        let words: Vec<&str> = text.split_terminator('\n').collect();
        let n = words.len();
        if n != self.clue_word_count()?
            || words.first().copied() != self.clue_word_at(0)?.as_deref()
            || words.last().copied() != self.clue_word_at(n.saturating_sub(1))?.as_deref()
        {
            return Ok(None);
        }
        if counts.len() != 8 * n || risks.len() != 4 * n {
            bail!(
                "clue_words_packed: {n} words, {} bytes of counts and {} bytes of risks \
                 (8 and 4 a word): {REBUILD}",
                counts.len(),
                risks.len()
            );
        }
        let mut out = Vec::with_capacity(n);
        for ((word, c), r) in words
            .into_iter()
            .zip(counts.chunks_exact(8))
            .zip(risks.chunks_exact(4))
        {
            let count = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            let risk = f32::from_le_bytes(r.try_into().expect("4 bytes"));
            check_risk("clue_words_packed", word, risk)?;
            out.push((word.to_string(), count, risk));
        }
        Ok(Some(out))
    }

    /// The clue word of id `id` in `clue_words`, if any.
    fn clue_word_at(&self, id: usize) -> Result<Option<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT word FROM clue_words WHERE id = ?1")?;
        Ok(st.query_row([id as i64], |r| r.get(0)).optional()?)
    }

    /// [`Store::clue_words`] row by row.
    fn clue_word_rows(&self) -> Result<Vec<(String, u64, f32)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT id, word, count, risk FROM clue_words ORDER BY id")?;
        let mut rows = st.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let (id, word): (i64, String) = (r.get(0)?, r.get(1)?);
            let risk = r.get::<_, f64>(3)? as f32;
            if id != out.len() as i64 {
                bail!(
                    "clue_words: word '{word}' has id {id} at position {}: ids must run 0, 1, 2, … \
                     (the positions of the stored scores): {REBUILD}",
                    out.len()
                );
            }
            check_risk("clue_words", &word, risk)?;
            out.push((word, r.get::<_, i64>(2)?.max(0) as u64, risk));
        }
        Ok(out)
    }

    /// How many scores every stored vector holds: one per clue word, ids `0..n`, so `n` is the
    /// highest id + 1 (two keyed reads of the rowid: a count would scan 16,000 rows for every
    /// card of a board, most of a whole `suggest` process). Ids that do not start at 0 are an
    /// error here; a gap inside is one for [`Store::clue_words`], which every query reads.
    fn clue_word_count(&self) -> Result<usize> {
        let mut st = self.conn().prepare_cached(
            "SELECT (SELECT min(id) FROM clue_words), (SELECT max(id) FROM clue_words)",
        )?;
        let (min, max): (Option<i64>, Option<i64>) =
            st.query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        match (min, max) {
            (None, _) | (_, None) => Ok(0),
            (Some(0), Some(max)) => Ok(max as usize + 1),
            (Some(min), Some(max)) => bail!(
                "clue_words: ids run from {min} to {max}, not from 0 (the positions of the \
                 stored scores): {REBUILD}"
            ),
        }
    }

    /// A stored row of scores (`relatedness_vectors`): one finite
    /// little-endian `f32` per clue word. Anything else (a tampered or truncated blob, a NaN) is
    /// an error naming the table and the term, never a vector a query would index past.
    /// The scores of a packed row, decoded once into the shared slice the query engine keeps
    /// (a board's first read of a card: one 64 KB allocation, not a vector and then its copy,
    /// each touching new pages).
    fn scores_of(&self, table: &str, term: &str, blob: &[u8]) -> Result<Arc<[f32]>> {
        let expected = self.clue_word_count()?;
        if !blob.len().is_multiple_of(4) {
            bail!(
                "{table}: term '{term}' has {} bytes of scores, not a whole number of 4-byte \
                 scores: {REBUILD}",
                blob.len()
            );
        }
        if blob.len() / 4 != expected {
            bail!(
                "{table}: term '{term}' has {} scores, expected {expected} (clue_words rows): \
                 {REBUILD}",
                blob.len() / 4
            );
        }
        // Decoded straight into the slice the engine keeps (no second fresh 64 KB whose pages
        // fault in), in a loop the compiler vectorises, then checked in one pass without an
        // early exit: a card's first read was a scalar loop, and the first boards of a process
        // are mostly first reads (the p95 of boards of list words).
        let (bytes, _) = blob.as_chunks::<4>();
        let mut scores = Arc::<[f32]>::new_uninit_slice(bytes.len());
        let slots = Arc::get_mut(&mut scores).expect("a new Arc has no other owner");
        for (slot, b) in slots.iter_mut().zip(bytes) {
            slot.write(f32::from_le_bytes(*b));
        }
        // SAFETY: `bytes` and the slice have the same length, so every element was written.
        let scores = unsafe { scores.assume_init() };
        if !scores.iter().fold(true, |all, x| all & x.is_finite())
            && let Some((id, x)) = scores.iter().enumerate().find(|(_, x)| !x.is_finite())
        {
            bail!("{table}: term '{term}' has a score of {x} (clue word id {id}): {REBUILD}");
        }
        Ok(scores)
    }

    /// Whether the database keeps the clue words' vectors (`clue_vectors` has its row), without
    /// reading them.
    pub fn has_clue_vectors(&self) -> Result<bool> {
        if !self.has_table("clue_vectors")? {
            return Ok(false);
        }
        Ok(self
            .conn()
            .query_row("SELECT count(*) > 0 FROM clue_vectors", [], |r| r.get(0))?)
    }

    /// The clue words' joined vectors (`clue_vectors`): `dims` values per clue word in
    /// `clue_words.id` order, in half precision as stored ([`HalfVectors`]); `None` for a
    /// database built before the table (its typed words stay unknown). A blob of the wrong size
    /// or a value that is no finite number is an error naming the table.
    pub fn clue_vectors(&self) -> Result<Option<HalfVectors>> {
        if !self.has_clue_vectors()? {
            return Ok(None);
        }
        let mut st = self
            .conn()
            .prepare_cached("SELECT dims, vectors FROM clue_vectors")?;
        let mut rows = st.query([])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let dims: i64 = row.get(0)?;
        let blob = row.get_ref(1)?.as_blob()?;
        let n = self.clue_word_count()?;
        if dims <= 0 || blob.len() != n * dims as usize * 2 {
            bail!(
                "clue_vectors: {} bytes for {n} clue words of {dims} dimensions (2 bytes a \
                 value): {REBUILD}",
                blob.len()
            );
        }
        let halves: Vec<half::f16> = blob
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]))
            .collect();
        if let Some(at) = halves.iter().position(|x| !x.is_finite()) {
            bail!(
                "clue_vectors: clue word id {} has a value that is no number: {REBUILD}",
                at / dims as usize
            );
        }
        Ok(Some(HalfVectors {
            dims: dims as usize,
            n,
            halves,
        }))
    }

    /// What clue word `id` keeps for being scored as a card (`clue_company`); `None` when the
    /// table lacks it. Ids past the clue words, or blobs of the wrong shape, are errors naming
    /// the table.
    pub fn clue_company(&self, id: u32) -> Result<Option<CompanyRow>> {
        let n = self.clue_word_count()?;
        let mut st = self.conn().prepare_cached(
            "SELECT meetings, rest_meetings, rest_pairs, definition FROM clue_company WHERE id = ?1",
        )?;
        let mut rows = st.query([id as i64])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let bad =
            |what: &str| anyhow::anyhow!("clue_company: clue word id {id} has {what}: {REBUILD}");
        // Pairs of a little-endian u32 clue word id and `width` bytes of value, each value
        // read by `value` (no allocation per pair: a typed board reads 25 rows of hundreds).
        fn pairs<T>(
            blob: &[u8],
            width: usize,
            n: usize,
            bad: &dyn Fn(&str) -> anyhow::Error,
            value: impl Fn(&[u8]) -> T,
        ) -> Result<Vec<(u32, T)>> {
            if !blob.len().is_multiple_of(4 + width) {
                return Err(bad("a blob that is no whole number of pairs"));
            }
            blob.chunks_exact(4 + width)
                .map(|b| {
                    let j = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    if j as usize >= n {
                        return Err(bad(&format!(
                            "a pair with clue word id {j}, past the clue words"
                        )));
                    }
                    Ok((j, value(&b[4..])))
                })
                .collect()
        }
        let meetings = pairs(row.get_ref(0)?.as_blob()?, 2, n, &bad, |b| {
            u16::from_le_bytes([b[0], b[1]]) as u32
        })?;
        let definition: Vec<(u32, f32)> = pairs(row.get_ref(3)?.as_blob()?, 4, n, &bad, |b| {
            f32::from_le_bytes([b[0], b[1], b[2], b[3]])
        })?;
        if definition.iter().any(|(_, s)| !s.is_finite()) {
            return Err(bad("a definition share that is no number"));
        }
        Ok(Some(CompanyRow {
            meetings,
            rest_meetings: row.get::<_, i64>(1)?.max(0) as u64,
            rest_pairs: row.get::<_, i64>(2)?.clamp(0, u32::MAX as i64) as u32,
            definition,
        }))
    }

    /// The clue word that `form` was counted under (`animal` → `animals`), when `form` is a
    /// written form of a clue word other than its name (`clue_forms`).
    pub fn clue_of_form(&self, form: &str) -> Result<Option<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT clue FROM clue_forms WHERE form = ?1")?;
        Ok(st.query_row([form], |r| r.get(0)).optional()?)
    }

    /// The measures of `term` with every clue word as `relatedness_by_id` keeps them, in
    /// `clue_words.id` order: `(ppmi, cosine, cooccurrences)`; `None` for a word with no row.
    /// A card whose rows do not cover every clue word once is an error naming the table.
    pub fn relatedness_parts(&self, term: &str) -> Result<Option<Vec<(f32, f32, u32)>>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT id FROM card_words WHERE word = ?1")?;
        let Some(card_id) = st.query_row([term], |r| r.get::<_, i64>(0)).optional()? else {
            return Ok(None);
        };
        let n = self.clue_word_count()?;
        let mut st = self.conn().prepare_cached(
            "SELECT clue_id, ppmi_e4, cosine_e4, cooccurrences FROM relatedness_by_id
             WHERE card_id = ?1 ORDER BY clue_id",
        )?;
        let mut rows = st.query([card_id])?;
        let mut out = Vec::with_capacity(n);
        while let Some(r) = rows.next()? {
            let clue: i64 = r.get(0)?;
            if clue != out.len() as i64 {
                bail!(
                    "relatedness_by_id: term '{term}' has no row for clue word id {}: {REBUILD}",
                    out.len()
                );
            }
            out.push((
                r.get::<_, i64>(1)? as f32 / 1e4,
                r.get::<_, i64>(2)? as f32 / 1e4,
                r.get::<_, i64>(3)?.clamp(0, u32::MAX as i64) as u32,
            ));
        }
        if out.len() != n {
            bail!(
                "relatedness_by_id: term '{term}' has {} rows, expected {n} (clue_words rows): \
                 {REBUILD}",
                out.len()
            );
        }
        Ok(Some(out))
    }

    /// The card words the `relatedness` stage covered, sorted.
    pub fn related_cards(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT term FROM relatedness_vectors ORDER BY term")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How often the card word `term` occurs in all page text, as the relatedness stage
    /// counted it (`relatedness_vectors.count`), without reading its scores; `None` for a word
    /// with no row.
    pub fn relatedness_count(&self, term: &str) -> Result<Option<u64>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT count FROM relatedness_vectors WHERE term = ?1")?;
        let mut rows = st.query([term])?;
        Ok(match rows.next()? {
            Some(row) => Some(row.get::<_, i64>(0)?.max(0) as u64),
            None => None,
        })
    }

    /// A card word's occurrences and its scores with every clue word (in `clue_words.id`
    /// order); `None` for a word the stage did not cover.
    pub fn relatedness_vector(&self, term: &str) -> Result<Option<(u64, Arc<[f32]>)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT count, scores FROM relatedness_vectors WHERE term = ?1")?;
        let mut rows = st.query([term])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        // The blob is read in place, not copied out first: 64 KB per card of a board.
        let count: i64 = row.get(0)?;
        let scores = self.scores_of("relatedness_vectors", term, row.get_ref(1)?.as_blob()?)?;
        Ok(Some((count.max(0) as u64, scores)))
    }

    /// The row of `relatedness` for a card word and a clue word (the view: three keyed reads,
    /// the two words' ids and the row).
    pub fn relatedness(&self, term: &str, clue: &str) -> Result<Option<RelatednessRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT score, ppmi, cosine, cooccurrences FROM relatedness WHERE term = ?1 AND clue = ?2",
        )?;
        let row = st
            .query_row([term, clue], |r| {
                Ok(RelatednessRow {
                    term: term.to_string(),
                    clue: clue.to_string(),
                    score: r.get(0)?,
                    ppmi: r.get(1)?,
                    cosine: r.get(2)?,
                    cooccurrences: r.get::<_, i64>(3)?.max(0) as u64,
                })
            })
            .optional()?;
        if let Some(r) = &row {
            for x in [r.score, r.ppmi, r.cosine] {
                let what = || format!("term '{term}' with clue '{clue}'");
                crate::read::finite("relatedness", "relatedness", what, x)?;
            }
        }
        Ok(row)
    }

    /// Where a card word and a clue word meet, when the stage kept it.
    pub fn meeting(&self, term: &str, clue: &str) -> Result<Option<Meeting>> {
        let mut st = self.conn().prepare_cached(
            "SELECT e.page_id, p.title, e.meetings, e.excerpt FROM relatedness_evidence e
             JOIN pages p ON p.id = e.page_id WHERE e.term = ?1 AND e.clue = ?2",
        )?;
        Ok(st
            .query_row([term, clue], |r| {
                Ok(Meeting {
                    page_id: r.get::<_, i64>(0)? as u64,
                    page_title: r.get(1)?,
                    meetings: r.get::<_, i64>(2)?.max(0) as u64,
                    excerpt: r.get(3)?,
                })
            })
            .optional()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database with two card words and three clue words, every pair stored by ids.
    fn small() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.sqlite");
        let b = Build::create(&path).unwrap();
        b.replace_clue_words(&[
            ("fruit", 9, 3, 1.0),
            ("tree", 5, 2, 0.5),
            ("sea", 4, 1, 0.2),
        ])
        .unwrap();
        b.replace_card_words(&["apple", "whale"]).unwrap();
        for card_id in 0..2u32 {
            for clue_id in 0..3u32 {
                b.insert_relatedness(&RelatednessIds {
                    card_id,
                    clue_id,
                    score: card_id as f32 + clue_id as f32 / 4.0,
                    ppmi: 0.5 * clue_id as f32,
                    cosine: 0.1,
                    cooccurrences: 10 * card_id + clue_id,
                })
                .unwrap();
            }
        }
        b.finish().unwrap();
        (dir, path)
    }

    /// Issue 23, item 3: the rows are stored by ids, and the `relatedness` view gives them back
    /// with both words, as the table of schema 5 did: explain's reader and plain SQL alike.
    #[test]
    fn the_relatedness_view_gives_the_rows_stored_by_id_with_their_words() {
        let (_dir, path) = small();
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.relatedness("whale", "sea").unwrap(),
            Some(RelatednessRow {
                term: "whale".into(),
                clue: "sea".into(),
                score: 1.5,
                ppmi: 1.0,
                // To the ten-thousandth, as relatedness_by_id keeps it (schema 8).
                cosine: 0.1,
                cooccurrences: 12,
            })
        );
        assert_eq!(store.relatedness("whale", "moon").unwrap(), None);
        assert_eq!(store.relatedness("moon", "sea").unwrap(), None);
        let rows: Vec<(String, String, f64)> = store
            .conn()
            .prepare("SELECT term, clue, score FROM relatedness WHERE term = 'apple' ORDER BY score DESC")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let want = [("sea", 0.5), ("tree", 0.25), ("fruit", 0.0)];
        assert_eq!(
            rows,
            want.map(|(c, s)| ("apple".to_string(), c.to_string(), s))
        );
        // The measures are whole ten-thousandths in the table (a PPMI of 0, most pairs, in no
        // byte), and the view gives them back as the REALs of schema 5.
        let ty = |sql: &str| -> String { store.conn().query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            ty("SELECT typeof(ppmi_e4) FROM relatedness_by_id WHERE card_id = 0 AND clue_id = 0"),
            "integer"
        );
        assert_eq!(
            ty("SELECT typeof(ppmi) FROM relatedness WHERE term = 'apple' AND clue = 'fruit'"),
            "real"
        );
        let e4: i64 = store
            .conn()
            .query_row(
                "SELECT cosine_e4 FROM relatedness_by_id WHERE card_id = 0 AND clue_id = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(e4, 1000);
    }

    /// The clue words come from their packed copy when it is of the rows of `clue_words`, and
    /// from the rows otherwise: a database built before the copy (no table), a copy written
    /// before the last rows (another number of words, or another first or last word). Either
    /// way the answer is the rows'.
    #[test]
    fn clue_words_read_packed_or_by_rows_alike() {
        let (_dir, path) = small();
        let want = vec![
            ("fruit".to_string(), 9, 1.0),
            ("tree".to_string(), 5, 0.5),
            ("sea".to_string(), 4, 0.2),
        ];
        let store = Store::open(&path).unwrap();
        assert_eq!(store.packed_clue_words().unwrap(), Some(want.clone()));
        assert_eq!(store.clue_word_rows().unwrap(), want);
        drop(store);
        let edit = |sql: &str| {
            rusqlite::Connection::open(&path)
                .unwrap()
                .execute_batch(sql)
                .unwrap()
        };
        // A copy of other words: one word fewer, then a renamed last word.
        for stale in [
            "UPDATE clue_words_packed SET words = CAST('fruit' || char(10) || 'tree' || char(10) AS BLOB);",
            "UPDATE clue_words_packed SET words = CAST('fruit' || char(10) || 'tree' || char(10) || 'sky' || char(10) AS BLOB);",
            "DROP TABLE clue_words_packed;",
        ] {
            edit(stale);
            let store = Store::open(&path).unwrap();
            assert_eq!(store.packed_clue_words().unwrap(), None, "{stale}");
            assert_eq!(store.clue_words().unwrap(), want, "{stale}");
        }
    }

    /// A damaged copy of the right words (its counts or risks cut short, a risk that is no
    /// number) is an error naming the table, never a list a query would index past.
    #[test]
    fn a_damaged_packed_copy_is_an_error_naming_it() {
        for (sql, says) in [
            (
                "UPDATE clue_words_packed SET risks = substr(risks, 1, 8);",
                "8 bytes of risks",
            ),
            (
                "UPDATE clue_words_packed SET counts = x'00';",
                "1 bytes of counts",
            ),
            (
                "UPDATE clue_words_packed SET risks = CAST(x'0000c07f' || substr(risks, 5) AS BLOB);",
                "word 'fruit' has risk NaN",
            ),
            (
                "UPDATE clue_words_packed SET words = CAST(x'ff0a' || substr(words, 7) AS BLOB);",
                "not UTF-8",
            ),
            (
                "UPDATE clue_words_packed SET risks = 'text';",
                "column 2 is not a BLOB",
            ),
        ] {
            let (_dir, path) = small();
            rusqlite::Connection::open(&path)
                .unwrap()
                .execute_batch(sql)
                .unwrap();
            let err = format!(
                "{:#}",
                Store::open(&path).unwrap().clue_words().unwrap_err()
            );
            assert!(
                err.contains("clue_words_packed") && err.contains(says) && err.contains(REBUILD),
                "{sql}: {err}"
            );
        }
    }

    /// The small database with the clue words' vectors (2 dimensions) and `fruit`'s company.
    fn small_with_vectors() -> (tempfile::TempDir, std::path::PathBuf) {
        let (dir, path) = small();
        let b = Build::update(&path).unwrap();
        b.replace_clue_vectors(2, &[1.0, 0.0, 0.6, 0.8, 0.0, -1.0])
            .unwrap();
        b.insert_clue_company(
            0,
            &CompanyRow {
                meetings: vec![(1, 70_000), (2, 3)],
                rest_meetings: 0,
                rest_pairs: 0,
                definition: vec![(1, 0.5)],
            },
        )
        .unwrap();
        b.finish().unwrap();
        (dir, path)
    }

    /// Schema 8: the vectors and company that let any word be a card read back as written (the
    /// vectors in half precision, a count past 65,535 saturated), and the measures of
    /// `relatedness_by_id` come back from their ten-thousandths.
    #[test]
    fn vectors_company_and_parts_read_back() {
        let (_dir, path) = small_with_vectors();
        let store = Store::open(&path).unwrap();
        assert!(store.has_clue_vectors().unwrap());
        let vectors = store.clue_vectors().unwrap().unwrap();
        assert_eq!((vectors.dims, vectors.n), (2, 3));
        let v = vectors.rows(0..3);
        assert_eq!(v.len(), 6);
        // A range of rows, and one past the end clamped.
        assert_eq!(vectors.rows(1..2), v[2..4]);
        assert_eq!(vectors.rows(2..9), v[4..6]);
        let want = [1.0, 0.0, 0.6, 0.8, 0.0, -1.0];
        for (a, b) in v.iter().zip(want) {
            assert!((a - b).abs() < 1e-3, "{v:?}");
        }
        let c = store.clue_company(0).unwrap().unwrap();
        assert_eq!(c.meetings, vec![(1, 65_535), (2, 3)]);
        assert_eq!(c.definition, vec![(1, 0.5)]);
        assert_eq!(store.clue_company(1).unwrap(), None);
        // whale: card 1, scores 1 + j/4, ppmi j/2, cosine 0.1, meetings 10 + j.
        let parts = store.relatedness_parts("whale").unwrap().unwrap();
        assert_eq!(parts, vec![(0.0, 0.1, 10), (0.5, 0.1, 11), (1.0, 0.1, 12)]);
        assert_eq!(store.relatedness_parts("zebra").unwrap(), None);
        let r = store.relatedness("whale", "tree").unwrap().unwrap();
        assert!(
            (r.score - 1.25).abs() < 1e-9 && (r.ppmi - 0.5).abs() < 1e-9,
            "{r:?}"
        );
    }

    #[test]
    fn damaged_vectors_company_or_rows_are_errors_naming_the_table() {
        for (sql, table, says) in [
            (
                "UPDATE clue_vectors SET vectors = substr(vectors, 1, 10);",
                "clue_vectors",
                "10 bytes for 3 clue words",
            ),
            (
                "UPDATE clue_vectors SET vectors = CAST(x'007c' || substr(vectors, 3) AS BLOB);",
                "clue_vectors",
                "no number",
            ),
            (
                "UPDATE clue_company SET meetings = x'090000000100';",
                "clue_company",
                "past the clue words",
            ),
            (
                "UPDATE clue_company SET definition = x'00';",
                "clue_company",
                "no whole number of pairs",
            ),
            (
                "DELETE FROM relatedness_by_id WHERE card_id = 1 AND clue_id = 1;",
                "relatedness_by_id",
                "'whale' has no row for clue word id 1",
            ),
        ] {
            let (_dir, path) = small_with_vectors();
            rusqlite::Connection::open(&path)
                .unwrap()
                .execute_batch(sql)
                .unwrap();
            let store = Store::open(&path).unwrap();
            let err = match table {
                "clue_vectors" => format!("{:#}", store.clue_vectors().unwrap_err()),
                "clue_company" => format!("{:#}", store.clue_company(0).unwrap_err()),
                _ => format!("{:#}", store.relatedness_parts("whale").unwrap_err()),
            };
            assert!(
                err.contains(table) && err.contains(says) && err.contains(REBUILD),
                "{sql}: {err}"
            );
        }
    }

    /// A pair read through the view is three keyed reads, never a scan of the table's millions
    /// of rows (6.5 M offline): `explain` asks for one pair per card.
    #[test]
    fn a_pair_read_through_the_view_uses_the_keys() {
        let (_dir, path) = small();
        let store = Store::open(&path).unwrap();
        let plan: Vec<String> = store
            .conn()
            .prepare(
                "EXPLAIN QUERY PLAN SELECT score, ppmi, cosine, cooccurrences FROM relatedness \
                 WHERE term = 'apple' AND clue = 'tree'",
            )
            .unwrap()
            .query_map([], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(plan.len(), 3, "{plan:?}");
        for step in &plan {
            assert!(
                step.starts_with("SEARCH") && !step.contains("SCAN"),
                "{plan:?}"
            );
        }
        assert!(
            plan.iter()
                .any(|s| s.contains("PRIMARY KEY (card_id=? AND clue_id=?)")),
            "{plan:?}"
        );
    }
}
