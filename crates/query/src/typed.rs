//! Any vocabulary word as a card: a word typed on a board that no list named at build time
//! (`ocean`, `captain`) gets its row of scores at query time, from the clue words' stored
//! vectors and company (tables `clue_vectors`, `clue_company`), by the stage's own formula
//! ([`relate::card_row`]). The listed cards keep their stored rows, which are exact and quicker.

use anyhow::{Context, Result};
use rayon::prelude::*;
use store::Store;

/// The mix's weights and scales the `relatedness` stage recorded in `meta`: what turns a
/// pair's parts into its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredMix {
    pub parts: relate::ScoreMix,
    /// Of the mix over all pairs: the unraised score is `(mix − mean) / std`.
    pub mix: relate::Scale,
    /// `relatedness.definition_weight` (0 when the build did not raise).
    pub definition_weight: f32,
}

/// A number the `relatedness` stage recorded in `meta` (`relatedness.KEY`); the stage writes
/// each as an f32's shortest decimal, so it reads back exactly.
fn meta_number(store: &Store, key: &str) -> Result<Option<f32>> {
    Ok(store
        .meta(&format!("relatedness.{key}"))?
        .and_then(|v| v.parse().ok()))
}

/// A scale the stage recorded as `relatedness.NAME_mean` and `NAME_std`.
fn meta_scale(store: &Store, name: &str) -> Result<Option<relate::Scale>> {
    Ok(meta_number(store, &format!("{name}_mean"))?
        .zip(meta_number(store, &format!("{name}_std"))?)
        .map(|(mean, std)| relate::Scale { mean, std }))
}

impl StoredMix {
    /// `None` for a database that records no standardisation (built before it).
    pub fn read(store: &Store) -> Result<Option<StoredMix>> {
        let get = |key: &str| meta_number(store, key);
        let scale = |name: &str| meta_scale(store, name);
        let (Some(ppmi_weight), Some(meeting_weight)) =
            (get("ppmi_weight")?, get("meeting_weight")?)
        else {
            return Ok(None);
        };
        let (Some(ppmi), Some(cosine), Some(meetings), Some(mix)) = (
            scale("ppmi")?,
            scale("cosine")?,
            scale("meetings")?,
            scale("mix")?,
        ) else {
            return Ok(None);
        };
        Ok(Some(StoredMix {
            parts: relate::ScoreMix {
                ppmi_weight,
                meeting_weight,
                // Databases built before the card factor record neither: plain meetings.
                card_power: get("meeting_card_power")?.unwrap_or(0.0),
                card_median: get("meetings_card_median")?.unwrap_or(0.0),
                ppmi,
                cosine,
                meetings,
            },
            mix,
            definition_weight: get("definition_weight")?.unwrap_or(0.0),
        }))
    }
}

/// The scales of the guesser's reading the stage recorded (`relatedness.reading_*`); `None`
/// for a database built before them.
pub fn reading_scales(store: &Store) -> Result<Option<relate::ReadingScales>> {
    let scale = |name: &str| meta_scale(store, &format!("reading_{name}"));
    Ok(match (scale("ppmi")?, scale("cosine")?, scale("mix")?) {
        (Some(ppmi), Some(cosine), Some(mix)) => Some(relate::ReadingScales { ppmi, cosine, mix }),
        _ => None,
    })
}

/// The clue words' vectors and the stored mix: read once per database (15 MB offline, 30 in
/// memory), when a board first holds a word with no stored row.
pub struct TypedCards {
    /// The clue words' vectors in parts of [`PART`] words, each blocked for products with a
    /// board's words ([`setnet::kernel::Blocked`]: the widest vectors the processor has).
    parts: Vec<setnet::kernel::Blocked>,
    /// Each clue word's vector, row-major.
    rows: Vec<f32>,
    d: usize,
    n: usize,
    mix: StoredMix,
}

/// Clue words per part of [`TypedCards::vectors`]: a board's product runs on the parts in
/// parallel (8 ms of work on one core for a board of 25 typed words offline, 4 on two).
const PART: usize = 4096;

impl TypedCards {
    /// `None` for a database without the tables (built before them) or without the mix.
    pub fn read(store: &Store) -> Result<Option<TypedCards>> {
        let Some(mix) = StoredMix::read(store)? else {
            return Ok(None);
        };
        let Some((dims, values)) = store.clue_vectors().context("reading table clue_vectors")?
        else {
            return Ok(None);
        };
        let d = dims.max(1);
        let parts = values
            .par_chunks(PART * d)
            .map(|part| setnet::kernel::Blocked::from_rows(part, d))
            .collect();
        Ok(Some(TypedCards {
            parts,
            n: values.len() / d,
            rows: values,
            d,
            mix,
        }))
    }

    /// The cosine of clue words `a` and `b`'s joined vectors (what a computed row's cosine
    /// part is): for `explain`.
    pub fn cosine(&self, a: usize, b: usize) -> f32 {
        let d = self.d;
        let row = |i: usize| self.rows.get(i * d..(i + 1) * d).unwrap_or(&[]);
        row(a).iter().zip(row(b)).map(|(x, y)| x * y).sum()
    }

    /// The weight of a definition's share in a score (0 when the build did not raise).
    pub fn definition_weight(&self) -> f32 {
        self.mix.definition_weight
    }

    /// The rows of scores of clue words `ids` (each with its occurrences) as cards, with every
    /// clue word, in one pass over the vectors (a board's words together: the pass reads 15
    /// MB, the products are cheap beside it); `None` for a word `clue_company` lacks.
    pub fn rows(&self, store: &Store, ids: &[(usize, u64)]) -> Result<Vec<Option<Vec<f32>>>> {
        let (d, n, m) = (self.d, self.n, ids.len());
        let mut own = Vec::with_capacity(m * d);
        for &(id, _) in ids {
            own.extend_from_slice(&self.rows[id * d..(id + 1) * d]);
        }
        // Each part's cosines, `m × its words`, then every card's row whole.
        let by_part: Vec<Vec<f32>> = self
            .parts
            .par_iter()
            .map(|b| b.all(&own, m, &vec![0f32; b.padded_len()]))
            .collect();
        let mut out = Vec::with_capacity(ids.len());
        for (r, &(id, count)) in ids.iter().enumerate() {
            let Some(c) = store
                .clue_company(id as u32)
                .context("reading table clue_company")?
            else {
                out.push(None);
                continue;
            };
            let mut cos = Vec::with_capacity(n);
            for (b, part) in self.parts.iter().zip(&by_part) {
                cos.extend_from_slice(&part[r * b.n..(r + 1) * b.n]);
            }
            if let Some(x) = cos.get_mut(id) {
                *x = 1.0;
            }
            let company = relate::Company {
                meetings: c.meetings,
                rest_meetings: c.rest_meetings,
                rest_pairs: c.rest_pairs,
                definition: c.definition,
            };
            out.push(Some(relate::card_row(
                &self.mix.parts,
                self.mix.mix,
                self.mix.definition_weight,
                &cos,
                &company,
                count,
            )));
        }
        Ok(out)
    }
}
