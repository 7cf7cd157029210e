//! Truncated SVD of a matrix (dense or sparse, [`Operator`]) by randomized range finding
//! (Halko, Martinsson & Tropp 2011): multiply by a Gaussian block, a few power iterations,
//! project, and take the exact SVD of the small projection. Seeded, so a build is
//! reproducible.

use crate::linalg::{Mat, Operator, orthonormalize, symmetric_eigen};

/// The top `d` singular values (descending) and left singular vectors (`n × d`) of `a`.
pub fn truncated_svd(
    a: &impl Operator,
    d: usize,
    oversample: usize,
    power: usize,
    seed: u64,
) -> (Vec<f32>, Mat) {
    let n = a.rows();
    let k = (d + oversample).min(n);
    let omega = a.gaussian_start(k, seed);
    let mut q = orthonormalize(&a.apply(false, &omega));
    for _ in 0..power {
        let z = orthonormalize(&a.apply(true, &q));
        q = orthonormalize(&a.apply(false, &z));
    }
    // B = Qᵀ A (k × n); B Bᵀ = W Λ Wᵀ; A ≈ (Q W) Λ^½ (…)ᵀ.
    let b = a.project(&q);
    let bbt = Mat::mul(&b, false, &b, true);
    let g: Vec<f64> = bbt.data.iter().map(|&x| x as f64).collect();
    let (values, vectors) = symmetric_eigen(&g, k);
    let d = d.min(k);
    let w = Mat {
        rows: k,
        cols: d,
        data: (0..k)
            .flat_map(|r| (0..d).map(move |c| (r, c)))
            .map(|(r, c)| vectors[r * k + c] as f32)
            .collect(),
    };
    let u = Mat::mul(&q, false, &w, false);
    let sigma = values[..d]
        .iter()
        .map(|&l| l.max(0.0).sqrt() as f32)
        .collect();
    (sigma, u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_low_rank_matrix() {
        // A = 3·uuᵀ + 1·vvᵀ with orthonormal u, v in R⁴: singular values 3 and 1.
        let u = [0.5f32, 0.5, 0.5, 0.5];
        let v = [0.5f32, -0.5, 0.5, -0.5];
        let mut a = Mat::zeros(4, 4);
        for i in 0..4 {
            for j in 0..4 {
                a.data[i * 4 + j] = 3.0 * u[i] * u[j] + v[i] * v[j];
            }
        }
        let (s, vecs) = truncated_svd(&a, 2, 2, 2, 7);
        assert!(
            (s[0] - 3.0).abs() < 1e-4 && (s[1] - 1.0).abs() < 1e-4,
            "{s:?}"
        );
        let dot: f32 = (0..4).map(|i| vecs.at(i, 0) * u[i]).sum();
        assert!((dot.abs() - 1.0).abs() < 1e-4, "first vector is ±u: {dot}");
    }

    #[test]
    fn a_sparse_matrix_factors_as_its_dense_twin() {
        // A 5 × 4 matrix with empty rows and a column of zeros, dense and in CSR.
        let rows: Vec<Vec<(u32, f32)>> = vec![
            vec![(0, 2.0), (2, 1.0)],
            vec![],
            vec![(1, 3.0), (2, -1.0)],
            vec![(0, 1.0), (1, 1.0)],
            vec![(2, 4.0)],
        ];
        let sparse = crate::linalg::Sparse::from_rows(&rows, 4);
        let mut dense = Mat::zeros(5, 4);
        for (r, row) in rows.iter().enumerate() {
            for &(c, v) in row {
                dense.data[r * 4 + c as usize] = v;
            }
        }
        let (s1, u1) = truncated_svd(&dense, 3, 2, 2, 11);
        let (s2, u2) = truncated_svd(&sparse, 3, 2, 2, 11);
        for (a, b) in s1.iter().zip(&s2) {
            assert!((a - b).abs() < 1e-4, "{s1:?} {s2:?}");
        }
        // The same singular vectors, up to sign.
        for c in 0..3 {
            let dot: f32 = (0..5).map(|r| u1.at(r, c) * u2.at(r, c)).sum();
            assert!((dot.abs() - 1.0).abs() < 1e-3, "vector {c}: {dot}");
        }
    }

    #[test]
    fn a_matrix_without_its_empty_columns_factors_the_same() {
        // 6 × 40, entries in 9 columns only: the compact form draws the same start rows.
        let rows: Vec<Vec<(u32, f32)>> = (0..6u32)
            .map(|r| {
                (0..9u32)
                    .filter(|c| (r + c) % 3 != 0)
                    .map(|c| (c * 4 + r % 2, 1.0 + ((r * 7 + c * 3) % 5) as f32))
                    .collect()
            })
            .collect();
        let full = crate::linalg::Sparse::from_rows(&rows, 40);
        let compact = full.compact();
        assert!(compact.columns.len() < 20, "{}", compact.columns.len());
        let (s1, u1) = truncated_svd(&full, 3, 2, 2, 5);
        let (s2, u2) = truncated_svd(&compact, 3, 2, 2, 5);
        for (a, b) in s1.iter().zip(&s2) {
            assert!((a - b).abs() < 1e-4 * a.max(1.0), "{s1:?} {s2:?}");
        }
        // Not only up to sign: the same start gives the same vectors, up to rounding.
        for (a, b) in u1.data.iter().zip(&u2.data) {
            assert!((a - b).abs() < 1e-4, "{a} {b}");
        }
    }

    #[test]
    fn a_matrix_without_entries_factors_to_zeros() {
        // Every column empty: the compact form has none, and the vectors are zero, not NaN.
        let empty = crate::linalg::Sparse::from_rows(&[vec![], vec![], vec![]], 5).compact();
        assert_eq!(empty.columns, Vec::<u32>::new());
        let (s, u) = truncated_svd(&empty, 2, 2, 2, 3);
        assert!(s.iter().all(|&x| x == 0.0), "{s:?}");
        assert_eq!((u.rows, u.cols), (3, 2));
        assert!(u.data.iter().all(|&x| x == 0.0), "{:?}", u.data);
    }
}
