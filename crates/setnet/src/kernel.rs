//! The products a query needs, by hand and on one thread: a board is a few milliseconds of
//! work, too little to hand to other threads (the thread pool of a general matrix product
//! spins and yields on a two-core machine) and too much to leave unvectorised.
//!
//! Every sum adds its products in the order of the inner dimension, with separate
//! multiplications and additions (no fused multiply-add): the same numbers on every
//! processor, only wider where it has AVX2 or AVX-512 (chosen when the program runs).

/// Columns per block: one AVX-512 register, two AVX2 ones.
pub const W: usize = 16;

/// Rows multiplied side by side: `R` independent chains of additions per block keep the
/// vector units busy (one chain waits on each addition's latency). Four, or five when that
/// pads fewer rows: a board's 25 words are five groups of five, not seven of four with three
/// rows of zeros (a tenth of the product). Every sum is the same either way.
fn rows_side_by_side(m: usize) -> usize {
    if m.div_ceil(5) * 5 < m.div_ceil(4) * 4 {
        5
    } else {
        4
    }
}

/// Runs `$f(args…)` compiled for the widest vectors the processor has.
macro_rules! widest {
    ([$($gen:tt)*] $f:ident ( $($arg:expr),* ) -> $ret:ty; $($p:ident : $t:ty),*) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f")]
            unsafe fn avx512 $($gen)* ($($p: $t),*) -> $ret {
                $f($($p),*)
            }
            #[target_feature(enable = "avx2")]
            unsafe fn avx2 $($gen)* ($($p: $t),*) -> $ret {
                $f($($p),*)
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the processor has AVX-512F, checked just above.
                return unsafe { avx512($($arg),*) };
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2, checked just above.
                return unsafe { avx2($($arg),*) };
            }
        }
        $f($($arg),*)
    }};
}
pub(crate) use widest;

/// A matrix of `n` vectors of `d` values kept for products with many other vectors (the clue
/// words to decode, a layer's weights): in blocks of [`W`] vectors, each block `d × W` (a
/// dimension's W values side by side; the last block padded with zeros), so a block stays in
/// the first-level cache and its W sums in registers.
pub struct Blocked {
    pub d: usize,
    pub n: usize,
    cols: Vec<f32>,
}

impl Blocked {
    /// From `n` row-major vectors of `d` values.
    pub fn from_rows(rows: &[f32], d: usize) -> Blocked {
        let n = rows.len().checked_div(d).unwrap_or(0);
        let mut cols = vec![0f32; n.div_ceil(W) * W * d];
        for (j, v) in rows.chunks_exact(d.max(1)).take(n).enumerate() {
            let (blk, l) = (j / W, j % W);
            for (i, x) in v.iter().enumerate() {
                cols[(blk * d + i) * W + l] = *x;
            }
        }
        Blocked { d, n, cols }
    }

    /// The number of vectors padded to whole blocks.
    pub fn padded_len(&self) -> usize {
        self.n.div_ceil(W) * W
    }

    /// `start` (one value per vector) padded to whole blocks with `fill`.
    pub fn padded(&self, start: &[f32], fill: f32) -> Vec<f32> {
        let mut s = start.to_vec();
        s.resize(self.padded_len(), fill);
        s
    }

    /// `start[j] + q·v_j` for each of the `m` rows `q` of `c` and each vector `v_j`, handed to
    /// `sink` a block at a time; `start` as [`Blocked::padded`] gives it.
    pub fn product(&self, c: &[f32], m: usize, start: &[f32], sink: &mut dyn Sink) {
        if rows_side_by_side(m) == 5 {
            widest!([<const R: usize>] blocks(self, c, m, start, sink, [(); 5]) -> ();
                b: &Blocked, c: &[f32], m: usize, start: &[f32], sink: &mut dyn Sink, r: [(); R])
        } else {
            widest!([<const R: usize>] blocks(self, c, m, start, sink, [(); 4]) -> ();
                b: &Blocked, c: &[f32], m: usize, start: &[f32], sink: &mut dyn Sink, r: [(); R])
        }
    }

    /// [`Blocked::product`] kept whole: `m × n`, row-major.
    pub fn all(&self, c: &[f32], m: usize, start: &[f32]) -> Vec<f32> {
        let mut all = All::new(m, self.n);
        self.product(c, m, start, &mut all);
        all.y
    }
}

/// Where [`Blocked::product`] hands each block's sums: one call per block (the loop that
/// computes them is compiled once, whatever is done with them).
pub trait Sink {
    /// The sums of every row with the vectors `j0..j0 + W` (those past `n` are padding), row
    /// after row.
    fn take(&mut self, j0: usize, sums: &[[f32; W]]);
}

/// Every sum kept: [`Blocked::all`].
pub(crate) struct All {
    pub(crate) y: Vec<f32>,
    n: usize,
}

impl All {
    /// `m` rows of `n` sums.
    pub(crate) fn new(m: usize, n: usize) -> All {
        All {
            y: vec![0f32; m * n],
            n,
        }
    }
}

impl Sink for All {
    fn take(&mut self, j0: usize, sums: &[[f32; W]]) {
        let (n, w) = (self.n, W.min(self.n - j0));
        for (r, acc) in sums.iter().enumerate() {
            self.y[r * n + j0..r * n + j0 + w].copy_from_slice(&acc[..w]);
        }
    }
}

/// Each row's sums written into its own slice (a part's columns of a longer row): slice `r`
/// takes row `r`'s sums with the vectors `0..slice.len()`.
pub struct Slices<'a>(pub Vec<&'a mut [f32]>);

impl Sink for Slices<'_> {
    fn take(&mut self, j0: usize, sums: &[[f32; W]]) {
        for (row, acc) in self.0.iter_mut().zip(sums) {
            let w = W.min(row.len().saturating_sub(j0));
            row[j0..j0 + w].copy_from_slice(&acc[..w]);
        }
    }
}

/// The highest sums per row with their vectors, highest first: the nearest clue words.
pub struct Heads {
    heads: Vec<Head>,
    n: usize,
}

impl Heads {
    /// `m` rows keeping `cap` vectors each, of `n` in all.
    pub fn new(m: usize, cap: usize, n: usize) -> Heads {
        Heads {
            heads: (0..m).map(|_| Head::new(cap)).collect(),
            n,
        }
    }

    /// Each row's vectors, highest sum first (an equal sum: the lower index first).
    pub fn into_indices(self) -> Vec<Vec<u32>> {
        self.heads.into_iter().map(|h| h.idx).collect()
    }
}

impl Sink for Heads {
    fn take(&mut self, j0: usize, sums: &[[f32; W]]) {
        let w = W.min(self.n - j0);
        for (h, acc) in self.heads.iter_mut().zip(sums) {
            if h.full() {
                // Most blocks: all W sums at or below the lowest kept, one vector comparison.
                let worst = h.worst;
                if acc.iter().fold(true, |all, &v| all & (v <= worst)) {
                    continue;
                }
            }
            for (l, &v) in acc[..w].iter().enumerate() {
                h.offer((j0 + l) as u32, v);
            }
        }
    }
}

/// The highest sums kept so far for one row, highest first.
struct Head {
    idx: Vec<u32>,
    val: Vec<f32>,
    cap: usize,
    /// The lowest sum kept, once full.
    worst: f32,
}

impl Head {
    fn new(cap: usize) -> Head {
        Head {
            idx: Vec::with_capacity(cap + 1),
            val: Vec::with_capacity(cap + 1),
            cap,
            worst: f32::NEG_INFINITY,
        }
    }

    fn full(&self) -> bool {
        self.idx.len() >= self.cap
    }

    /// Vectors come in index order: an equal sum keeps the one already kept first.
    fn offer(&mut self, j: u32, v: f32) {
        if self.full() && v <= self.worst {
            return;
        }
        let at = self.val.partition_point(|&h| h >= v);
        self.idx.insert(at, j);
        self.val.insert(at, v);
        self.idx.truncate(self.cap);
        self.val.truncate(self.cap);
        if self.full()
            && let Some(&w) = self.val.last()
        {
            self.worst = w;
        }
    }
}

#[inline(always)]
fn blocks<const R: usize>(
    b: &Blocked,
    c: &[f32],
    m: usize,
    start: &[f32],
    sink: &mut dyn Sink,
    _rows: [(); R],
) {
    let d = b.d;
    if d == 0 {
        return;
    }
    // The rows in groups of R, each group `d × R` (a dimension's R values side by side),
    // padded with zero rows (their sums are not handed on).
    let groups = m.div_ceil(R);
    let mut q = vec![0f32; groups * d * R];
    for (r, row) in c.chunks_exact(d).take(m).enumerate() {
        let (g, k) = (r / R, r % R);
        for (i, x) in row.iter().enumerate() {
            q[(g * d + i) * R + k] = *x;
        }
    }
    let mut sums = vec![[0f32; W]; groups * R];
    for ((blk, cols), start) in b
        .cols
        .chunks_exact(d * W)
        .enumerate()
        .zip(start.chunks_exact(W))
    {
        let start: &[f32; W] = start.try_into().expect("W values");
        for (qs, out) in q.chunks_exact(R * d).zip(sums.chunks_exact_mut(R)) {
            let mut acc = [*start; R];
            for (col, qi) in cols.chunks_exact(W).zip(qs.chunks_exact(R)) {
                let col: &[f32; W] = col.try_into().expect("W values");
                let qi: &[f32; R] = qi.try_into().expect("R values");
                for k in 0..R {
                    for l in 0..W {
                        acc[k][l] += qi[k] * col[l];
                    }
                }
            }
            out.copy_from_slice(&acc);
        }
        sink.take(blk * W, &sums[..m]);
    }
}

/// The Euclidean distance from each row of `c` (`b.d` wide) to each vector of `b`: `rows ×
/// b.padded_len()` (a padding vector is the origin). Each distance sums its squares in the
/// order of the dimensions, a block of W vectors side by side.
pub fn distances(c: &[f32], b: &Blocked) -> Vec<f32> {
    widest!([] distances_in(c, b) -> Vec<f32>; c: &[f32], b: &Blocked)
}

#[inline(always)]
fn distances_in(c: &[f32], b: &Blocked) -> Vec<f32> {
    let (d, stride) = (b.d, b.padded_len());
    let rows = c.len().checked_div(d).unwrap_or(0);
    let mut out = vec![0f32; rows * stride];
    if d == 0 || stride == 0 {
        return out;
    }
    for (q, o) in c.chunks_exact(d).zip(out.chunks_exact_mut(stride)) {
        for (block, ob) in b.cols.chunks_exact(d * W).zip(o.chunks_exact_mut(W)) {
            let mut acc = [0f32; W];
            for (&qi, col) in q.iter().zip(block.chunks_exact(W)) {
                let col: &[f32; W] = col.try_into().expect("W values");
                for l in 0..W {
                    let t = qi - col[l];
                    acc[l] += t * t;
                }
            }
            for (x, a) in ob.iter_mut().zip(acc) {
                *x = a.sqrt();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 37 vectors of 5 (three blocks, the last padded) against 1 to 26 rows (in groups of four
    /// or five, the last padded or not: 6 rows are two groups of four, 25 five of five): every
    /// sum as a plain loop computes it, in the same order.
    #[test]
    fn products_equal_the_plain_sums() {
        let (n, d) = (37, 5);
        assert_eq!((rows_side_by_side(6), rows_side_by_side(25)), (4, 5));
        for m in 1..=26 {
            let v: Vec<f32> = (0..n * d)
                .map(|i| ((i * 7 % 13) as f32 - 6.0) / 3.0)
                .collect();
            let c: Vec<f32> = (0..m * d)
                .map(|i| ((i * 5 % 11) as f32 - 5.0) / 4.0)
                .collect();
            let start: Vec<f32> = (0..n).map(|j| j as f32 / 10.0).collect();
            let b = Blocked::from_rows(&v, d);
            let y = b.all(&c, m, &b.padded(&start, 0.0));
            for r in 0..m {
                for j in 0..n {
                    let mut s = start[j];
                    for i in 0..d {
                        s += c[r * d + i] * v[j * d + i];
                    }
                    assert_eq!(y[r * n + j], s, "{m} rows: row {r}, vector {j}");
                }
            }
        }
    }

    /// The heads are the highest sums, highest first, ties to the lower index.
    #[test]
    fn heads_keep_the_highest_in_order() {
        let d = 1;
        // Vector j's sum with the row [1] is its value: 40 values with ties.
        let v: Vec<f32> = (0..40).map(|j| ((j * 17) % 10) as f32).collect();
        let b = Blocked::from_rows(&v, d);
        let mut heads = Heads::new(1, 5, b.n);
        b.product(&[1.0], 1, &b.padded(&[0.0; 40], 0.0), &mut heads);
        let got = heads.into_indices().remove(0);
        let mut want: Vec<u32> = (0..40).collect();
        want.sort_by(|&a, &b| v[b as usize].total_cmp(&v[a as usize]).then(a.cmp(&b)));
        assert_eq!(got, want[..5]);
        // 9 at 7, 17, 27, 37; then 8 at 4.
        assert_eq!(got, vec![7, 17, 27, 37, 4]);
    }

    /// Many rows against 300 vectors of 7 with ties: each row's heads are the first of the
    /// whole order of [`Blocked::all`] (highest first, ties to the lower index).
    #[test]
    fn heads_are_the_head_of_the_whole_order() {
        let (n, d, m, cap) = (300, 7, 9, 16);
        // Values on a coarse grid, so that sums tie.
        let v: Vec<f32> = (0..n * d)
            .map(|i| ((i * 31 % 17) as f32 - 8.0) / 2.0)
            .collect();
        let c: Vec<f32> = (0..m * d)
            .map(|i| ((i * 13 % 5) as f32 - 2.0) / 2.0)
            .collect();
        let b = Blocked::from_rows(&v, d);
        let start = b.padded(&vec![-1.0; n], f32::NEG_INFINITY);
        let all = b.all(&c, m, &start);
        let mut heads = Heads::new(m, cap, n);
        b.product(&c, m, &start, &mut heads);
        for (r, got) in heads.into_indices().into_iter().enumerate() {
            let row = &all[r * n..(r + 1) * n];
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.sort_by(|&a, &b| row[b as usize].total_cmp(&row[a as usize]).then(a.cmp(&b)));
            assert_eq!(got, order[..cap], "row {r}");
        }
    }

    /// Distances by hand: (0,0) to (3,4) is 5, to itself 0.
    #[test]
    fn distances_by_hand() {
        let b = Blocked::from_rows(&[3.0, 4.0], 2);
        let out = distances(&[0.0, 0.0, 3.0, 4.0], &b);
        assert_eq!(out.len(), 2 * W);
        assert_eq!(out[0], 5.0);
        assert_eq!(out[1], 0.0, "a padded vector is the origin");
        assert_eq!(out[W], 0.0);
        assert_eq!(out[W + 1], 5.0);
    }
}
