//! The little linear algebra the SVD needs: row-major matrices, products through
//! `matrixmultiply` (SIMD, all cores), Cholesky QR, Jacobi eigenvectors of a small symmetric
//! matrix, and a sparse matrix (CSR) for the dictionary view, whose rows are mostly empty.

use rayon::prelude::*;
use seeded::SplitMix64;

/// A dense row-major `rows × cols` matrix of `f32`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mat {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f32>,
}

impl Mat {
    pub fn zeros(rows: usize, cols: usize) -> Mat {
        Mat {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// Scales every row to unit length, in parallel; a row of zeros stays zero.
    pub fn normalize_rows(&mut self) {
        let d = self.cols.max(1);
        self.data.par_chunks_mut(d).for_each(|row| {
            let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 {
                row.iter_mut().for_each(|x| *x /= norm);
            }
        });
    }

    pub fn at(&self, r: usize, c: usize) -> f32 {
        self.data[r * self.cols + c]
    }

    pub fn row(&self, r: usize) -> &[f32] {
        &self.data[r * self.cols..(r + 1) * self.cols]
    }

    /// `op(a) · op(b)`, where `op` transposes when asked.
    pub fn mul(a: &Mat, ta: bool, b: &Mat, tb: bool) -> Mat {
        let (m, k) = if ta {
            (a.cols, a.rows)
        } else {
            (a.rows, a.cols)
        };
        let (k2, n) = if tb {
            (b.cols, b.rows)
        } else {
            (b.rows, b.cols)
        };
        assert_eq!(k, k2, "inner dimensions");
        let mut c = Mat::zeros(m, n);
        let (rsa, csa) = if ta {
            (1, a.cols as isize)
        } else {
            (a.cols as isize, 1)
        };
        let (rsb, csb) = if tb {
            (1, b.cols as isize)
        } else {
            (b.cols as isize, 1)
        };
        // SAFETY: the pointers cover `a`, `b` and `c` whole, with the strides of their row-major
        // layouts (transposed by swapping strides); `c` is a distinct, writable allocation.
        unsafe {
            matrixmultiply::sgemm(
                m,
                k,
                n,
                1.0,
                a.data.as_ptr(),
                rsa,
                csa,
                b.data.as_ptr(),
                rsb,
                csb,
                0.0,
                c.data.as_mut_ptr(),
                n as isize,
                1,
            );
        }
        c
    }
}

/// What the randomized SVD needs of a matrix `A`: its shape and products with a thin dense
/// block. Dense for the PPMI of running text, sparse for the dictionary's.
pub trait Operator: Sync {
    fn rows(&self) -> usize;
    fn cols(&self) -> usize;
    /// `op(A) · x`, `op` transposing when asked.
    fn apply(&self, transpose: bool, x: &Mat) -> Mat;
    /// `qᵀ · A`.
    fn project(&self, q: &Mat) -> Mat;
    /// The SVD's Gaussian start `Ω` (`cols × k`): row `c` holds the `c`-th run of `k` draws
    /// of [`SplitMix64::gaussian`] from `seed`.
    fn gaussian_start(&self, k: usize, seed: u64) -> Mat {
        gaussian_rows(self.cols(), k, seed, |r| r as u64)
    }
}

/// `n` rows of `k` Gaussians, row `r` the `of(r)`-th run of `k` draws from `seed`; in
/// parallel, each row's generator skipping to its run, so the same on any number of threads.
fn gaussian_rows(n: usize, k: usize, seed: u64, of: impl Fn(usize) -> u64 + Sync) -> Mat {
    let mut omega = Mat::zeros(n, k);
    omega
        .data
        .par_chunks_mut(k.max(1))
        .enumerate()
        .for_each(|(r, row)| {
            let mut rng = SplitMix64::new(seed);
            // A Gaussian takes two outputs.
            rng.skip(2 * k as u64 * of(r));
            for x in row.iter_mut() {
                *x = rng.gaussian() as f32;
            }
        });
    omega
}

impl Operator for Mat {
    fn rows(&self) -> usize {
        self.rows
    }
    fn cols(&self) -> usize {
        self.cols
    }
    fn apply(&self, transpose: bool, x: &Mat) -> Mat {
        Mat::mul(self, transpose, x, false)
    }
    fn project(&self, q: &Mat) -> Mat {
        Mat::mul(q, true, self, false)
    }
}

/// A sparse `rows × cols` matrix in compressed rows (CSR).
#[derive(Debug, Clone, PartialEq)]
pub struct Sparse {
    pub rows: usize,
    pub cols: usize,
    /// Row `r`'s entries are `start[r]..start[r + 1]` of `index` and `value`.
    pub start: Vec<usize>,
    pub index: Vec<u32>,
    pub value: Vec<f32>,
}

impl Sparse {
    /// From rows of `(column, value)`; every column below `cols`.
    pub fn from_rows(rows: &[Vec<(u32, f32)>], cols: usize) -> Sparse {
        let mut start = vec![0];
        let (mut index, mut value) = (Vec::new(), Vec::new());
        for row in rows {
            for &(c, v) in row {
                debug_assert!((c as usize) < cols, "column {c} of {cols}");
                index.push(c);
                value.push(v);
            }
            start.push(index.len());
        }
        Sparse {
            rows: rows.len(),
            cols,
            start,
            index,
            value,
        }
    }

    /// Entries of row `r`.
    pub fn row(&self, r: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let span = self.start[r]..self.start[r + 1];
        self.index[span.clone()]
            .iter()
            .zip(&self.value[span])
            .map(|(&c, &v)| (c as usize, v))
    }

    /// `A · x`, one output row per matrix row, in parallel.
    fn times(&self, x: &Mat) -> Mat {
        let k = x.cols;
        let mut out = Mat::zeros(self.rows, k);
        out.data
            .par_chunks_mut(k.max(1))
            .enumerate()
            .for_each(|(r, o)| {
                // Written before it is read: a fresh page first read maps the shared zero page,
                // and the write that follows then costs every core a TLB flush.
                o.fill(0.0);
                for (c, v) in self.row(r) {
                    for (y, &xv) in o.iter_mut().zip(x.row(c)) {
                        *y += v * xv;
                    }
                }
            });
        out
    }

    /// `Aᵀ · x`, one output row per matrix column, in parallel: each sums its column's entries
    /// in row order, the order a row-by-row pass would add them in (the same sums on every
    /// machine, and as many threads as there are).
    fn transposed_times(&self, x: &Mat) -> Mat {
        let k = x.cols;
        // The entries by column, each column's in row order: a counting sort of the rows.
        let mut col_start = vec![0usize; self.cols + 1];
        for &c in &self.index {
            col_start[c as usize + 1] += 1;
        }
        for c in 0..self.cols {
            col_start[c + 1] += col_start[c];
        }
        let mut next = col_start.clone();
        let mut row_of = vec![0u32; self.index.len()];
        let mut value = vec![0f32; self.index.len()];
        for r in 0..self.rows {
            for (c, v) in self.row(r) {
                row_of[next[c]] = r as u32;
                value[next[c]] = v;
                next[c] += 1;
            }
        }
        let mut out = Mat::zeros(self.cols, k);
        out.data
            .par_chunks_mut(k.max(1))
            .enumerate()
            .for_each(|(c, o)| {
                o.fill(0.0); // written before it is read, as in `times`
                for at in col_start[c]..col_start[c + 1] {
                    let v = value[at];
                    for (y, &xv) in o.iter_mut().zip(x.row(row_of[at] as usize)) {
                        *y += v * xv;
                    }
                }
            });
        out
    }
}

impl Operator for Sparse {
    fn rows(&self) -> usize {
        self.rows
    }
    fn cols(&self) -> usize {
        self.cols
    }
    fn apply(&self, transpose: bool, x: &Mat) -> Mat {
        if transpose {
            self.transposed_times(x)
        } else {
            self.times(x)
        }
    }
    fn project(&self, q: &Mat) -> Mat {
        let t = self.transposed_times(q);
        let mut out = Mat::zeros(t.cols, t.rows);
        for r in 0..t.rows {
            for c in 0..t.cols {
                out.data[c * t.rows + r] = t.data[r * t.cols + c];
            }
        }
        out
    }
}

/// A sparse matrix without its empty columns. They add nothing to `A`'s products, yet the SVD
/// carries a row for each through its `cols × k` steps (`AᵀQ` and its orthonormal basis): the
/// dictionary's rows for a corpus's words use about half of WordNet's 165,000 context words,
/// and a small corpus's far fewer. The left singular vectors are the same; the Gaussian start
/// draws, for each kept column, the row it would have drawn for the full matrix, so only the
/// rounding of the sums differs.
#[derive(Debug, Clone, PartialEq)]
pub struct Compact {
    /// The kept columns, renumbered `0..`.
    pub matrix: Sparse,
    /// Each kept column's index in the full matrix, ascending.
    pub columns: Vec<u32>,
}

impl Sparse {
    /// This matrix without the columns that hold no entry.
    pub fn compact(&self) -> Compact {
        let mut new = vec![u32::MAX; self.cols];
        for &c in &self.index {
            new[c as usize] = 0;
        }
        let mut columns = Vec::new();
        for (c, n) in new.iter_mut().enumerate() {
            if *n == 0 {
                *n = columns.len() as u32;
                columns.push(c as u32);
            }
        }
        let matrix = Sparse {
            rows: self.rows,
            cols: columns.len(),
            start: self.start.clone(),
            index: self.index.iter().map(|&c| new[c as usize]).collect(),
            value: self.value.clone(),
        };
        Compact { matrix, columns }
    }
}

impl Operator for Compact {
    fn rows(&self) -> usize {
        self.matrix.rows
    }
    fn cols(&self) -> usize {
        self.matrix.cols
    }
    fn apply(&self, transpose: bool, x: &Mat) -> Mat {
        self.matrix.apply(transpose, x)
    }
    fn project(&self, q: &Mat) -> Mat {
        self.matrix.project(q)
    }
    /// The full matrix's start without the rows of the dropped columns, whose draws are
    /// skipped, not made.
    fn gaussian_start(&self, k: usize, seed: u64) -> Mat {
        gaussian_rows(self.columns.len(), k, seed, |r| self.columns[r] as u64)
    }
}

/// An orthonormal basis of the columns of `y` (tall, full column rank), by Cholesky QR done
/// twice for accuracy: `G = YᵀY = LLᵀ`, `Q = Y L⁻ᵀ`.
pub fn orthonormalize(y: &Mat) -> Mat {
    let once = |y: &Mat| -> Mat {
        let g = Mat::mul(y, true, y, false);
        let k = g.cols;
        let mut gd: Vec<f64> = g.data.iter().map(|&x| x as f64).collect();
        // A column that is (numerically) zero gets a tiny diagonal so that L stays invertible.
        let scale = (0..k)
            .map(|i| gd[i * k + i])
            .fold(0.0f64, f64::max)
            .max(1e-30);
        for i in 0..k {
            gd[i * k + i] += scale * 1e-7;
        }
        let l = cholesky(&gd, k);
        // Q = Y L⁻ᵀ as one matrix product: `L⁻¹` is `k × k` (k = 220 at 200 dimensions) and
        // cheap; solving each of `n` rows by forward substitution instead is `n·k²/2` dependent
        // steps, ten times the product's time for WordNet's 88,000 columns. The Gram matrix is
        // in `f32`, so the product's `f32` sums lose nothing it had; the second pass mends
        // what the first leaves.
        let inverse = Mat {
            rows: k,
            cols: k,
            data: lower_inverse(&l, k).iter().map(|&x| x as f32).collect(),
        };
        Mat::mul(y, false, &inverse, true)
    };
    once(&once(y))
}

/// The inverse of a lower triangular `k × k` matrix with a positive diagonal (itself lower
/// triangular), column by column by forward substitution.
fn lower_inverse(l: &[f64], k: usize) -> Vec<f64> {
    let mut x = vec![0.0f64; k * k];
    for j in 0..k {
        x[j * k + j] = 1.0 / l[j * k + j];
        for i in j + 1..k {
            let s: f64 = (j..i).map(|p| l[i * k + p] * x[p * k + j]).sum();
            x[i * k + j] = -s / l[i * k + i];
        }
    }
    x
}

/// The lower Cholesky factor of a symmetric positive definite `k × k` matrix.
fn cholesky(a: &[f64], k: usize) -> Vec<f64> {
    let mut l = vec![0.0f64; k * k];
    for i in 0..k {
        for j in 0..=i {
            let mut s = a[i * k + j];
            for p in 0..j {
                s -= l[i * k + p] * l[j * k + p];
            }
            if i == j {
                l[i * k + i] = s.max(1e-300).sqrt();
            } else {
                l[i * k + j] = s / l[j * k + j];
            }
        }
    }
    l
}

/// Eigenvalues (descending) and eigenvectors (the columns of the returned row-major matrix) of
/// a symmetric `k × k` matrix, by cyclic Jacobi rotations.
///
/// Each rotation updates columns `p` and `q` of `a`, then its rows `p` and `q`, then columns
/// `p` and `q` of the eigenvectors. The eigenvectors are kept transposed, so that their update
/// is two contiguous rows, and rows are updated as slices the compiler vectorises: the same
/// products and differences, element by element, as the plain loops (the same bits), two to
/// three times quicker for the SVDs' `k` = 220 (0.48–0.63 s → 0.21–0.27 s).
pub fn symmetric_eigen(a: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = a.to_vec();
    // `vt[i * k + r]` is component `r` of eigenvector `i`.
    let mut vt = vec![0.0f64; k * k];
    for i in 0..k {
        vt[i * k + i] = 1.0;
    }
    for _sweep in 0..60 {
        if diagonal_enough(&a, k) {
            break;
        }
        for p in 0..k {
            for q in p + 1..k {
                let Some((c, s)) = jacobi_rotation(&a, k, p, q) else {
                    continue;
                };
                for row in a.chunks_exact_mut(k) {
                    let (arp, arq) = (row[p], row[q]);
                    row[p] = c * arp - s * arq;
                    row[q] = s * arp + c * arq;
                }
                rotate_rows(&mut a, k, p, q, c, s);
                rotate_rows(&mut vt, k, p, q, c, s);
            }
        }
    }
    by_eigenvalue(&a, k, |i, r| vt[i * k + r])
}

/// The diagonal of the rotated `a` in descending order, and the eigenvectors as the columns of
/// a row-major matrix in that order; `component(i, r)` is component `r` of eigenvector `i`.
fn by_eigenvalue(
    a: &[f64],
    k: usize,
    component: impl Fn(usize, usize) -> f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&i, &j| a[j * k + j].total_cmp(&a[i * k + i]));
    let values = order.iter().map(|&i| a[i * k + i]).collect();
    let mut vectors = vec![0.0f64; k * k];
    for (new, &old) in order.iter().enumerate() {
        for r in 0..k {
            vectors[r * k + new] = component(old, r);
        }
    }
    (values, vectors)
}

/// Whether the Jacobi sweeps may stop: the off-diagonal entries' squares sum to at most
/// `10⁻²²` of all entries'.
fn diagonal_enough(a: &[f64], k: usize) -> bool {
    let off: f64 = (0..k)
        .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
        .map(|(i, j)| a[i * k + j] * a[i * k + j])
        .sum();
    let total: f64 = a.iter().map(|x| x * x).sum();
    off <= 1e-22 * total.max(1e-300)
}

/// The rotation `(cos, sin)` that zeroes entry `(p, q)`; none when it is zero already.
fn jacobi_rotation(a: &[f64], k: usize, p: usize, q: usize) -> Option<(f64, f64)> {
    let apq = a[p * k + q];
    if apq.abs() < 1e-300 {
        return None;
    }
    let theta = (a[q * k + q] - a[p * k + p]) / (2.0 * apq);
    let sign = if theta >= 0.0 { 1.0 } else { -1.0 };
    let t = sign / (theta.abs() + (theta * theta + 1.0).sqrt());
    let c = 1.0 / (t * t + 1.0).sqrt();
    Some((c, t * c))
}

/// Rows `p < q` of the row-major `m` (rows of `k`) rotated: `(x, y) ← (c·x − s·y, s·x + c·y)`.
fn rotate_rows(m: &mut [f64], k: usize, p: usize, q: usize, c: f64, s: f64) {
    let (head, tail) = m.split_at_mut(q * k);
    let (rp, rq) = (&mut head[p * k..(p + 1) * k], &mut tail[..k]);
    for (x, y) in rp.iter_mut().zip(rq.iter_mut()) {
        let (xp, yq) = (*x, *y);
        *x = c * xp - s * yq;
        *y = s * xp + c * yq;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_with_transposes() {
        let a = Mat {
            rows: 2,
            cols: 3,
            data: vec![1., 2., 3., 4., 5., 6.],
        };
        let aat = Mat::mul(&a, false, &a, true);
        assert_eq!(aat.data, vec![14., 32., 32., 77.]);
        let ata = Mat::mul(&a, true, &a, false);
        assert_eq!(ata.rows, 3);
        assert_eq!(ata.at(0, 0), 17.);
        assert_eq!(ata.at(2, 1), 3. * 2. + 6. * 5.);
    }

    #[test]
    fn eigen_of_a_known_matrix() {
        // [[2, 1], [1, 2]]: eigenvalues 3 and 1, eigenvectors (1, 1)/√2 and (1, −1)/√2.
        let (vals, vecs) = symmetric_eigen(&[2., 1., 1., 2.], 2);
        assert!((vals[0] - 3.0).abs() < 1e-12 && (vals[1] - 1.0).abs() < 1e-12);
        assert!((vecs[0].abs() - 0.5f64.sqrt()).abs() < 1e-12);
        assert!(
            (vecs[0] - vecs[2]).abs() < 1e-12,
            "first vector is (1, 1)/√2"
        );
    }

    /// The Jacobi rotations as first written (the same rotations, stop and ordering): plain
    /// loops over `a`'s columns and rows and the eigenvectors' columns, each entry by index.
    fn plain_jacobi(a: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
        let mut a = a.to_vec();
        let mut v = vec![0.0f64; k * k];
        for i in 0..k {
            v[i * k + i] = 1.0;
        }
        for _sweep in 0..60 {
            if diagonal_enough(&a, k) {
                break;
            }
            for p in 0..k {
                for q in p + 1..k {
                    let Some((c, s)) = jacobi_rotation(&a, k, p, q) else {
                        continue;
                    };
                    for r in 0..k {
                        let (arp, arq) = (a[r * k + p], a[r * k + q]);
                        a[r * k + p] = c * arp - s * arq;
                        a[r * k + q] = s * arp + c * arq;
                    }
                    for r in 0..k {
                        let (apr, aqr) = (a[p * k + r], a[q * k + r]);
                        a[p * k + r] = c * apr - s * aqr;
                        a[q * k + r] = s * apr + c * aqr;
                    }
                    for r in 0..k {
                        let (vrp, vrq) = (v[r * k + p], v[r * k + q]);
                        v[r * k + p] = c * vrp - s * vrq;
                        v[r * k + q] = s * vrp + c * vrq;
                    }
                }
            }
        }
        by_eigenvalue(&a, k, |i, r| v[r * k + i])
    }

    #[test]
    fn eigen_gives_the_plain_rotations_bits() {
        // A Gram matrix as the SVD makes one (`B·Bᵀ` in f32, so not exactly symmetric), with
        // one entry nudged off symmetry: the layout may change, the arithmetic may not.
        let (k, n) = (37, 50);
        let b = gaussian_rows(k, n, 3, |r| r as u64);
        let bbt = Mat::mul(&b, false, &b, true);
        let mut g: Vec<f64> = bbt.data.iter().map(|&x| x as f64).collect();
        g[k + 5] += 1e-9;
        let (values, vectors) = symmetric_eigen(&g, k);
        let (want_values, want_vectors) = plain_jacobi(&g, k);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&values), bits(&want_values));
        assert_eq!(bits(&vectors), bits(&want_vectors));
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{values:?}");
    }

    #[test]
    fn compact_drops_empty_columns_and_keeps_their_draws() {
        // Columns 0 and 3 of six are empty.
        let rows: Vec<Vec<(u32, f32)>> =
            vec![vec![(1, 2.0), (4, 1.0)], vec![], vec![(2, 3.0), (5, -1.0)]];
        let full = Sparse::from_rows(&rows, 6);
        let c = full.compact();
        assert_eq!(c.columns, vec![1, 2, 4, 5]);
        assert_eq!(c.matrix.cols, 4);
        assert_eq!(c.matrix.index, vec![0, 2, 1, 3]);
        assert_eq!(c.matrix.value, full.value);
        // Each kept column's start row is the full matrix's row for it.
        let (a, b) = (full.gaussian_start(3, 17), c.gaussian_start(3, 17));
        for (kept, &was) in c.columns.iter().enumerate() {
            assert_eq!(b.row(kept), a.row(was as usize), "column {was}");
        }
        // The same products, in the kept columns' order.
        let x = Mat {
            rows: 3,
            cols: 1,
            data: vec![1.0, 5.0, -2.0],
        };
        assert_eq!(c.apply(true, &x).data, vec![2.0, -6.0, 1.0, 2.0]);
        assert_eq!(
            full.apply(true, &x).data,
            vec![0.0, 2.0, -6.0, 0.0, 1.0, 2.0]
        );
    }

    #[test]
    fn the_start_is_the_generators_stream_row_by_row() {
        // A 3 × 5 matrix: five rows of three draws, made in parallel.
        let omega = Mat::zeros(3, 5).gaussian_start(3, 21);
        let mut rng = SplitMix64::new(21);
        let drawn: Vec<f32> = (0..15).map(|_| rng.gaussian() as f32).collect();
        assert_eq!(omega.data, drawn);
    }

    #[test]
    fn lower_inverse_by_hand() {
        // L = [[2, 0], [1, 4]]: L⁻¹ = [[1/2, 0], [−1/8, 1/4]].
        let x = lower_inverse(&[2.0, 0.0, 1.0, 4.0], 2);
        assert_eq!(x, vec![0.5, 0.0, -0.125, 0.25]);
    }

    #[test]
    fn orthonormal_columns() {
        let y = Mat {
            rows: 4,
            cols: 2,
            data: vec![1., 0., 1., 1., 0., 2., 3., 1.],
        };
        let q = orthonormalize(&y);
        let g = Mat::mul(&q, true, &q, false);
        for i in 0..2 {
            for j in 0..2 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((g.at(i, j) - want).abs() < 1e-5, "{i},{j}: {}", g.at(i, j));
            }
        }
    }
}
