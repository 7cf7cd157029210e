//! Truncated SVD of a square matrix by randomized range finding (Halko, Martinsson & Tropp
//! 2011): multiply by a Gaussian block, a few power iterations, project, and take the exact
//! SVD of the small projection. Seeded, so a build is reproducible.

use crate::linalg::{Mat, orthonormalize, symmetric_eigen};
use seeded::SplitMix64;

/// The top `d` singular values (descending) and left singular vectors (`n × d`) of `a`.
pub fn truncated_svd(
    a: &Mat,
    d: usize,
    oversample: usize,
    power: usize,
    seed: u64,
) -> (Vec<f32>, Mat) {
    let n = a.rows;
    let k = (d + oversample).min(n);
    let mut rng = SplitMix64::new(seed);
    let mut omega = Mat::zeros(a.cols, k);
    for x in omega.data.iter_mut() {
        *x = rng.gaussian() as f32;
    }
    let mut q = orthonormalize(&Mat::mul(a, false, &omega, false));
    for _ in 0..power {
        let z = orthonormalize(&Mat::mul(a, true, &q, false));
        q = orthonormalize(&Mat::mul(a, false, &z, false));
    }
    // B = Qᵀ A (k × n); B Bᵀ = W Λ Wᵀ; A ≈ (Q W) Λ^½ (…)ᵀ.
    let b = Mat::mul(&q, true, a, false);
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
}
