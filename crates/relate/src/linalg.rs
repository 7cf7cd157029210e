//! The little linear algebra the SVD needs: row-major matrices, products through
//! `matrixmultiply` (SIMD, all cores), Cholesky QR, Jacobi eigenvectors of a small symmetric
//! matrix, and a sparse matrix (CSR) for the dictionary view, whose rows are mostly empty.

use rayon::prelude::*;

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

/// Rows of `Q = Y L⁻ᵀ` solved together in [`orthonormalize`]: independent chains of sums that
/// the processor runs side by side.
const SOLVE_ROWS: usize = 8;

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
        // Q = Y L⁻ᵀ: solve each row q of Q from L qᵀ = yᵀ (forward substitution), `n·k²/2`
        // operations a pass for `n` rows (k = 220 at 200 dimensions). Each row's sum is one
        // chain of dependent steps, so rows are solved [`SOLVE_ROWS`] at a time, their chains
        // interleaved, and blocks of rows in parallel: every row still computed exactly as
        // alone, in the same order.
        let mut q = Mat::zeros(y.rows, k);
        let width = k.max(1);
        q.data
            .par_chunks_mut(width * SOLVE_ROWS)
            .enumerate()
            .for_each(|(b, block)| {
                let first = b * SOLVE_ROWS;
                let n = block.len() / width;
                for i in 0..k {
                    let mut s = [0f64; SOLVE_ROWS];
                    for (r, s) in s.iter_mut().enumerate().take(n) {
                        *s = y.at(first + r, i) as f64;
                    }
                    for j in 0..i {
                        let lij = l[i * k + j];
                        for (r, s) in s.iter_mut().enumerate().take(n) {
                            *s -= lij * block[r * k + j] as f64;
                        }
                    }
                    let lii = l[i * k + i];
                    for (r, s) in s.iter().enumerate().take(n) {
                        block[r * k + i] = (s / lii) as f32;
                    }
                }
            });
        q
    };
    once(&once(y))
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
pub fn symmetric_eigen(a: &[f64], k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = a.to_vec();
    let mut v = vec![0.0f64; k * k];
    for i in 0..k {
        v[i * k + i] = 1.0;
    }
    for _sweep in 0..60 {
        let off: f64 = (0..k)
            .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * k + j] * a[i * k + j])
            .sum();
        let total: f64 = a.iter().map(|x| x * x).sum();
        if off <= 1e-22 * total.max(1e-300) {
            break;
        }
        for p in 0..k {
            for q in p + 1..k {
                let apq = a[p * k + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q * k + q] - a[p * k + p]) / (2.0 * apq);
                let sign = if theta >= 0.0 { 1.0 } else { -1.0 };
                let t = sign / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
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
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&i, &j| a[j * k + j].total_cmp(&a[i * k + i]));
    let values = order.iter().map(|&i| a[i * k + i]).collect();
    let mut vectors = vec![0.0f64; k * k];
    for (new, &old) in order.iter().enumerate() {
        for r in 0..k {
            vectors[r * k + new] = v[r * k + old];
        }
    }
    (values, vectors)
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
