//! The dictionary view: word vectors from what a dictionary says each word means, not from
//! where the encyclopaedia writes it. Each headword has a row of weighted context words (its
//! glosses, synonyms and linked senses: `wordnet::Lexicon::contexts`); this module weighs the
//! rows by PPMI and factors them by the same randomized SVD as the text's.
//!
//! Its errors are not the text's: `crane` shares no article with `neck`, yet the dictionary
//! defines the bird by it. Joined to the text's views ([`crate::join_all`]), a clue must relate to
//! its targets in both kinds of evidence (docs/evaluation.md, "Judged by people").

use crate::Params;
use crate::linalg::{Mat, Sparse};

/// A context word needs this much weight over all rows to be a column: rarer ones (a word in
/// one gloss) have a PMI that says nothing.
pub const MIN_CONTEXT_WEIGHT: f64 = 2.0;
/// Exponent smoothing the context words' distribution, as word2vec's negative sampling does:
/// without it a context word met once looks as telling as a rare, specific one.
pub const CONTEXT_ALPHA: f64 = 0.75;

/// PPMI of the `chosen` rows, against the context marginals of *all* rows (every headword, so
/// a word's weight does not depend on which words the corpus has): `max(0, ln((x/r)/p_c))`,
/// `r` the row's total over kept columns, `p_c` a column's share of `Σ total^α`.
pub fn ppmi(rows: &[Vec<(u32, f32)>], ncols: usize, chosen: &[usize]) -> Sparse {
    let mut total = vec![0f64; ncols];
    for row in rows {
        for &(c, x) in row {
            total[c as usize] += x as f64;
        }
    }
    let kept: Vec<bool> = total.iter().map(|&t| t >= MIN_CONTEXT_WEIGHT).collect();
    let z: f64 = total
        .iter()
        .zip(&kept)
        .filter(|(_, k)| **k)
        .map(|(t, _)| t.powf(CONTEXT_ALPHA))
        .sum();
    let out: Vec<Vec<(u32, f32)>> = chosen
        .iter()
        .map(|&i| {
            let row = &rows[i];
            let r: f64 = row
                .iter()
                .filter(|(c, _)| kept[*c as usize])
                .map(|&(_, x)| x as f64)
                .sum();
            if r <= 0.0 {
                return Vec::new();
            }
            row.iter()
                .filter(|(c, _)| kept[*c as usize])
                .filter_map(|&(c, x)| {
                    let pc = total[c as usize].powf(CONTEXT_ALPHA) / z;
                    let pmi = ((x as f64 / r) / pc).ln();
                    (pmi > 0.0).then_some((c, pmi as f32))
                })
                .collect()
        })
        .collect();
    Sparse::from_rows(&out, ncols)
}

/// One unit vector per word: the SVD (`p.dims`, `p.power`, `U·Σ^p.sigma_power`, `p.seed`) of
/// the PPMI of its headword's row, `headword[i]` an index into `rows`; a zero row for a word
/// the dictionary lacks (`None`) or says nothing about, so that it relates to nothing there.
pub fn vectors(
    rows: &[Vec<(u32, f32)>],
    ncols: usize,
    headword: &[Option<usize>],
    p: &Params,
) -> Mat {
    let known: Vec<(usize, usize)> = headword
        .iter()
        .enumerate()
        .filter_map(|(w, h)| h.map(|h| (w, h)))
        .collect();
    let mut out = Mat::zeros(headword.len(), p.dims);
    if known.is_empty() {
        return out;
    }
    let chosen: Vec<usize> = known.iter().map(|&(_, h)| h).collect();
    // Most of WordNet's context words are no column of the chosen rows: factor without them.
    let u = crate::vectors(&ppmi(rows, ncols, &chosen).compact(), p);
    let d = u.cols;
    for (i, &(w, _)) in known.iter().enumerate() {
        out.data[w * p.dims..w * p.dims + d].copy_from_slice(u.row(i));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppmi_by_hand() {
        // Three headwords over columns 0..3; column 2 has total 1 < 2 and is dropped.
        let rows = vec![
            vec![(0, 2.0), (1, 1.0)],
            vec![(0, 1.0), (2, 1.0)],
            vec![(1, 3.0)],
        ];
        // Totals: c0 = 3, c1 = 4 (c2 = 1, dropped). z = 3^.75 + 4^.75.
        let z = 3f64.powf(0.75) + 4f64.powf(0.75);
        let (p0, p1) = (3f64.powf(0.75) / z, 4f64.powf(0.75) / z);
        let m = ppmi(&rows, 3, &[0, 1, 2]);
        // Row 0: r = 3; c0: ln((2/3)/p0), c1: ln((1/3)/p1) (negative: dropped).
        let row0: Vec<(usize, f32)> = m.row(0).collect();
        assert_eq!(row0.len(), 1, "{row0:?}");
        assert_eq!(row0[0].0, 0);
        assert!((row0[0].1 as f64 - ((2.0 / 3.0) / p0).ln()).abs() < 1e-6);
        assert!(((1.0 / 3.0) / p1).ln() < 0.0);
        // Row 1: r = 1 (c2 dropped): c0 = ln(1/p0).
        let row1: Vec<(usize, f32)> = m.row(1).collect();
        assert_eq!(row1.len(), 1);
        assert!((row1[0].1 as f64 - (1.0 / p0).ln()).abs() < 1e-6);
        // Row 2: c1 = ln(1/p1).
        let row2: Vec<(usize, f32)> = m.row(2).collect();
        assert!((row2[0].1 as f64 - (1.0 / p1).ln()).abs() < 1e-6);
    }

    #[test]
    fn words_the_dictionary_lacks_get_zero_rows() {
        // Two topics: 0 and 1 share contexts 0–1, 2 and 3 share 2–3.
        let rows = vec![
            vec![(0, 3.0), (1, 2.0)],
            vec![(0, 2.0), (1, 3.0)],
            vec![(2, 3.0), (3, 2.0)],
            vec![(2, 2.0), (3, 3.0)],
        ];
        let p = Params {
            dims: 2,
            ..Params::default()
        };
        let v = vectors(&rows, 4, &[Some(0), None, Some(1), Some(2), Some(3)], &p);
        assert_eq!(v.rows, 5);
        assert!(v.row(1).iter().all(|&x| x == 0.0), "no headword: zero");
        let cos =
            |a: usize, b: usize| -> f32 { v.row(a).iter().zip(v.row(b)).map(|(x, y)| x * y).sum() };
        assert!(cos(0, 2) > 0.9, "same topic: {}", cos(0, 2));
        assert!(cos(0, 3).abs() < 0.1, "other topic: {}", cos(0, 3));
        assert!((cos(3, 3) - 1.0).abs() < 1e-5, "unit length");
        let again = vectors(&rows, 4, &[Some(0), None, Some(1), Some(2), Some(3)], &p);
        assert_eq!(
            v, again,
            "the same vectors bit for bit: a build is repeatable"
        );
    }
}
