//! The embedding `f` the network works in, made from the relatedness the pipeline stored: the
//! dense score matrix `S` (card words × clue words, `relatedness_vectors`) factored by its
//! truncated SVD `S ≈ U Σ Vᵀ` (crate `relate`'s, seeded). Card words get `U Σ^½`, clue words
//! `V Σ^½ = Sᵀ U Σ^-½`, each row scaled to unit length as `relate::vectors` does. Then
//! `f(card) · f(clue)` follows the card's score with the clue, and the Euclidean distance the
//! losses use, `‖f(w) − f(w')‖² = 2 − 2 cos`, orders words as the relatedness does; card words
//! and clue words share one space, so the nearest clue word to the network's `c(t)` is a
//! decoding the relatedness agrees with.

use crate::Tensor;
use crate::infer::{CARDS, CLUES};
use relate::linalg::Mat;

/// Card words and clue words in one `dims`-dimensional space, rows of unit length.
#[derive(Debug, Clone, PartialEq)]
pub struct Space {
    pub dims: usize,
    /// `cards × dims`, in the order of the rows given.
    pub cards: Vec<f32>,
    /// `clues × dims`, in clue-word id order.
    pub clues: Vec<f32>,
}

impl Space {
    /// The space as the two tensors stored beside the weights ([`CARDS`], [`CLUES`]): the
    /// strategy decodes in the space the network was trained in, read back from the database.
    pub fn tensors(&self) -> [Tensor; 2] {
        let rows = |v: &[f32]| v.len() / self.dims.max(1);
        [
            Tensor::new(
                CARDS,
                vec![rows(&self.cards), self.dims],
                self.cards.clone(),
            ),
            Tensor::new(
                CLUES,
                vec![rows(&self.clues), self.dims],
                self.clues.clone(),
            ),
        ]
    }

    /// From the score rows of the card words (each `clues` long), `dims` dimensions (fewer when
    /// the matrix has fewer), seeded.
    pub fn from_scores(rows: &[&[f32]], clues: usize, dims: usize, seed: u64) -> Space {
        let n = rows.len();
        let mut s = Mat::zeros(n, clues);
        for (i, r) in rows.iter().enumerate() {
            s.data[i * clues..(i + 1) * clues].copy_from_slice(&r[..clues]);
        }
        let dims = dims.min(n).min(clues).max(1);
        let (sigma, u) = relate::svd::truncated_svd(&s, dims, 10, 3, seed);
        let d = u.cols;
        // Sᵀ U: clues × d, then Σ^-½ per column.
        let v = Mat::mul(&s, true, &u, false);
        let mut cards = u.data.clone();
        for row in cards.chunks_mut(d) {
            for (x, s) in row.iter_mut().zip(&sigma) {
                *x *= s.max(0.0).sqrt();
            }
        }
        let mut clue_rows = v.data;
        for row in clue_rows.chunks_mut(d) {
            for (x, s) in row.iter_mut().zip(&sigma) {
                *x = if *s > 0.0 { *x / s.sqrt() } else { 0.0 };
            }
        }
        unit_rows(&mut cards, d);
        unit_rows(&mut clue_rows, d);
        Space {
            dims: d,
            cards,
            clues: clue_rows,
        }
    }

    #[cfg(test)]
    pub fn card(&self, i: usize) -> &[f32] {
        &self.cards[i * self.dims..(i + 1) * self.dims]
    }
}

/// Scales each row of a row-major matrix to unit length (a row of zeros stays zero).
pub fn unit_rows(data: &mut [f32], d: usize) {
    for row in data.chunks_mut(d.max(1)) {
        let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            row.iter_mut().for_each(|x| *x /= norm);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_and_clues_share_the_space_of_their_scores() {
        // Two card words related to the first two clue words, two to the last two.
        let rows: Vec<Vec<f32>> = vec![
            vec![3.0, 2.5, -1.0, -1.0],
            vec![2.5, 3.0, -1.0, -0.5],
            vec![-1.0, -1.0, 3.0, 2.0],
            vec![-0.5, -1.0, 2.0, 3.0],
        ];
        let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
        let sp = Space::from_scores(&refs, 4, 2, 7);
        assert_eq!(sp.dims, 2);
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let clue = |j: usize| &sp.clues[j * 2..j * 2 + 2];
        for i in 0..4 {
            assert!((dot(sp.card(i), sp.card(i)) - 1.0).abs() < 1e-4);
        }
        // Card 0 is nearer clue 0 than clue 3; card 2 the other way round.
        assert!(dot(sp.card(0), clue(0)) > dot(sp.card(0), clue(3)));
        assert!(dot(sp.card(2), clue(3)) > dot(sp.card(2), clue(0)));
        assert!(dot(sp.card(0), sp.card(1)) > dot(sp.card(0), sp.card(2)));
    }
}
