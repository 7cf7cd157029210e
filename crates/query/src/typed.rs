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

/// The clue words' vectors and the stored mix: read once per database (15 MB offline, and
/// as much in memory), when a board first holds a word with no stored row.
pub struct TypedCards {
    /// The clue words' vectors in parts of [`PART`] words, each blocked for products with a
    /// board's words in bf16 ([`setnet::bf16::BlockedBf16`]: twice the products of f32 a
    /// cycle where the processor has `vdpbf16ps`, the same sums everywhere; a cosine moves by
    /// about 10⁻⁴, docs/evaluation.md part 11).
    parts: Vec<setnet::bf16::BlockedBf16>,
    d: usize,
    n: usize,
    mix: StoredMix,
}

/// Clue words per part of [`TypedCards::parts`]: a board's product runs on the parts in
/// parallel, small enough that a busy core's share passes to the other.
const PART: usize = 1024;

impl TypedCards {
    /// `None` for a database without the tables (built before them) or without the mix.
    pub fn read(store: &Store) -> Result<Option<TypedCards>> {
        let Some(mix) = StoredMix::read(store)? else {
            return Ok(None);
        };
        let Some(vectors) = store.clue_vectors().context("reading table clue_vectors")? else {
            return Ok(None);
        };
        let (d, n) = (vectors.dims.max(1), vectors.n);
        // Each part in f32 only while it is blocked.
        let parts = (0..n.div_ceil(PART))
            .into_par_iter()
            .map(|p| {
                let rows = vectors.rows(p * PART..(p + 1) * PART);
                setnet::bf16::BlockedBf16::from_rows(&rows, d)
            })
            .collect();
        Ok(Some(TypedCards { parts, n, d, mix }))
    }

    /// The cosine of clue words `a` and `b`'s joined vectors, of their values in bfloat16 as a
    /// board's product reads them (summed in another order: the last bits may differ), and 1
    /// for a word with itself, as a row has it: for `explain`. 0 for an index past the words.
    pub fn cosine(&self, a: usize, b: usize) -> f32 {
        if a >= self.n || b >= self.n {
            return 0.0;
        }
        if a == b {
            return 1.0;
        }
        let row = |i: usize| self.parts[i / PART].row(i % PART);
        row(a).iter().zip(row(b)).map(|(x, y)| x * y).sum()
    }

    /// The weight of a definition's share in a score (0 when the build did not raise).
    pub fn definition_weight(&self) -> f32 {
        self.mix.definition_weight
    }

    /// The rows of scores of clue words `ids` (each with its occurrences) as cards, with every
    /// clue word, in one pass over the vectors (a board's words together: each block of clue
    /// vectors is read once for all of them); `None` for a word `clue_company` lacks.
    pub fn rows(&self, store: &Store, ids: &[(usize, u64)]) -> Result<Vec<Option<Vec<f32>>>> {
        let (d, n, m) = (self.d, self.n, ids.len());
        let mut own = Vec::with_capacity(m * d);
        for &(id, _) in ids {
            own.extend_from_slice(&self.parts[id / PART].row(id % PART));
        }
        let own = setnet::bf16::Rows::new(&own, d, m);
        // Each card's cosines with every clue word, each part's product written in its columns
        // on the pool's threads while this one reads the cards' company (the store serves one
        // thread); then each card's row from them, in parallel too.
        let mut cosines: Vec<Vec<f32>> = (0..m).map(|_| vec![0f32; n]).collect();
        let mut columns: Vec<Vec<&mut [f32]>> = self.parts.iter().map(|_| Vec::new()).collect();
        for row in &mut cosines {
            for (part, cols) in columns.iter_mut().zip(row.chunks_mut(PART)) {
                part.push(cols);
            }
        }
        let companies = rayon::in_place_scope(|s| {
            s.spawn(|_| {
                self.parts
                    .par_iter()
                    .zip(columns)
                    .for_each(|(b, cols)| b.product(&own, &mut setnet::kernel::Slices(cols)));
            });
            ids.iter()
                .map(|&(id, _)| store.clue_company(id as u32))
                .collect::<Result<Vec<_>>>()
                .context("reading table clue_company")
        })?;
        Ok(cosines
            .into_par_iter()
            .zip(companies)
            .zip(ids)
            .map(|((mut cos, c), &(id, count))| {
                let c = c?;
                if let Some(x) = cos.get_mut(id) {
                    *x = 1.0;
                }
                let company = relate::Company {
                    meetings: c.meetings,
                    rest_meetings: c.rest_meetings,
                    rest_pairs: c.rest_pairs,
                    definition: c.definition,
                };
                Some(relate::card_row(
                    &self.mix.parts,
                    self.mix.mix,
                    self.mix.definition_weight,
                    cos,
                    &company,
                    count,
                ))
            })
            .collect())
    }
}
