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

impl StoredMix {
    /// `None` for a database that records no standardisation (built before it).
    pub fn read(store: &Store) -> Result<Option<StoredMix>> {
        // The stage writes each as an f32's shortest decimal, so it reads back exactly.
        let get = |key: &str| -> Result<Option<f32>> {
            Ok(store
                .meta(&format!("relatedness.{key}"))?
                .and_then(|v| v.parse().ok()))
        };
        let scale = |name: &str| -> Result<Option<relate::Scale>> {
            Ok(get(&format!("{name}_mean"))?
                .zip(get(&format!("{name}_std"))?)
                .map(|(mean, std)| relate::Scale { mean, std }))
        };
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
    let get = |key: &str| -> Result<Option<f32>> {
        Ok(store
            .meta(&format!("relatedness.reading_{key}"))?
            .and_then(|v| v.parse().ok()))
    };
    let scale = |name: &str| -> Result<Option<relate::Scale>> {
        Ok(get(&format!("{name}_mean"))?
            .zip(get(&format!("{name}_std"))?)
            .map(|(mean, std)| relate::Scale { mean, std }))
    };
    Ok(match (scale("ppmi")?, scale("cosine")?, scale("mix")?) {
        (Some(ppmi), Some(cosine), Some(mix)) => Some(relate::ReadingScales { ppmi, cosine, mix }),
        _ => None,
    })
}

/// The clue words' vectors and the stored mix: read once per database (15 MB offline, 30 in
/// memory), when a board first holds a word with no stored row.
pub struct TypedCards {
    /// `n × d`, row-major.
    vectors: Vec<f32>,
    d: usize,
    n: usize,
    mix: StoredMix,
}

/// Clue words per parallel task of [`dots`].
const CHUNK: usize = 256;

/// `out[r·n + j] = cards_r · vectors_j` for the `m` rows of `cards` and the `n` rows of
/// `vectors` (both row-major, `d` wide): each clue vector is read once for all the board's
/// cards (the pass over 30 MB is the cost), in parallel over chunks of clue words, with the
/// widest vectors the processor has.
fn dots(cards: &[f32], m: usize, vectors: &[f32], d: usize) -> Vec<f32> {
    let n = vectors.len().checked_div(d).unwrap_or(0);
    let mut by_clue = vec![0f32; n * m];
    by_clue
        .par_chunks_mut(CHUNK * m.max(1))
        .zip(vectors.par_chunks(CHUNK * d.max(1)))
        .for_each(|(out, vs)| {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2, checked just above.
                return unsafe { dots_avx2(cards, m, vs, d, out) };
            }
            dots_chunk(cards, m, vs, d, out)
        });
    // Clue-major to card-major.
    let mut out = vec![0f32; n * m];
    for j in 0..n {
        for r in 0..m {
            out[r * n + j] = by_clue[j * m + r];
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dots_avx2(cards: &[f32], m: usize, vs: &[f32], d: usize, out: &mut [f32]) {
    dots_chunk(cards, m, vs, d, out)
}

/// [`dots`] for one chunk of clue vectors, clue-major: `out[j·m + r]`.
#[inline(always)]
fn dots_chunk(cards: &[f32], m: usize, vs: &[f32], d: usize, out: &mut [f32]) {
    for (v, o) in vs.chunks_exact(d).zip(out.chunks_exact_mut(m)) {
        for (r, x) in o.iter_mut().enumerate() {
            *x = dot(&cards[r * d..(r + 1) * d], v);
        }
    }
}

/// A dot product in 16 running sums, added in a fixed order (the same number whatever the
/// vector width).
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    const L: usize = 16;
    let mut acc = [0f32; L];
    let whole = a.len() / L * L;
    for (x, y) in a[..whole].chunks_exact(L).zip(b[..whole].chunks_exact(L)) {
        for l in 0..L {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = 0f32;
    for v in acc {
        s += v;
    }
    for (x, y) in a[whole..].iter().zip(&b[whole..]) {
        s += x * y;
    }
    s
}

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
        let n = values.len() / dims.max(1);
        Ok(Some(TypedCards {
            vectors: values,
            d: dims,
            n,
            mix,
        }))
    }

    /// The rows of scores of clue words `ids` (each with its occurrences) as cards, with every
    /// clue word, in one pass over the vectors (a board's words together: the pass reads 15
    /// MB, the products are cheap beside it); `None` for a word `clue_company` lacks.
    pub fn rows(&self, store: &Store, ids: &[(usize, u64)]) -> Result<Vec<Option<Vec<f32>>>> {
        let (d, n) = (self.d, self.n);
        let mut own = Vec::with_capacity(ids.len() * d);
        for &(id, _) in ids {
            own.extend_from_slice(&self.vectors[id * d..(id + 1) * d]);
        }
        let cosines = dots(&own, ids.len(), &self.vectors, d);
        let mut out = Vec::with_capacity(ids.len());
        for (r, &(id, count)) in ids.iter().enumerate() {
            let Some(c) = store
                .clue_company(id as u32)
                .context("reading table clue_company")?
            else {
                out.push(None);
                continue;
            };
            let mut cos = cosines[r * n..(r + 1) * n].to_vec();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_by_hand() {
        // Two cards of 3 dimensions against three clue words; 600 clue words cross chunks.
        let cards = [1.0, 2.0, 3.0, 0.0, -1.0, 0.5];
        let vectors = [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 2.0];
        assert_eq!(
            dots(&cards, 2, &vectors, 3),
            vec![1.0, 5.0, 12.0, 0.0, -0.5, -1.0]
        );
        let many: Vec<f32> = (0..600 * 20).map(|i| (i % 7) as f32 - 3.0).collect();
        let card: Vec<f32> = (0..20).map(|i| (i % 5) as f32).collect();
        let got = dots(&card, 1, &many, 20);
        for (j, v) in many.chunks_exact(20).enumerate() {
            let want: f32 = card.iter().zip(v).map(|(a, b)| a * b).sum();
            assert_eq!(got[j], want, "clue word {j}");
        }
    }
}
