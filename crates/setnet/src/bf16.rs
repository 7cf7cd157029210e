//! Products in bfloat16 (bf16: an f32's sign, exponent and 7 bits of its mantissa) summed in
//! f32: half the memory of [`crate::kernel::Blocked`] and, on processors with AVX512_BF16
//! (`vdpbf16ps`: 32 products a register against 16), twice the products a cycle. For cosines
//! of unit vectors (a typed word's row: [`BlockedBf16::all`]), where rounding each value to 8
//! bits moves a cosine by about 10⁻⁴.
//!
//! The same sums on every processor: the product of two bf16 values is exact in f32, and the
//! instruction adds a pair's two products to the running sum one after the other (the odd
//! value's first, each addition rounded to nearest even), as the plain loop of `blocks`
//! does elsewhere; the test `hardware_and_emulation_agree` holds them to it. Values round to
//! bf16 with magnitudes under 2⁻⁴⁰ flushed to zero, so no product or partial sum is a
//! subnormal (which the instruction would flush and a plain addition keep).

use crate::kernel::{Sink, W};

/// `x` in bf16, rounded to nearest even; magnitudes under 2⁻⁴⁰ are flushed to zero.
pub fn to_bf16(x: f32) -> u16 {
    if x.is_nan() {
        return 0x7fc0;
    }
    if x.abs() < f32::from_bits(0x2b80_0000) {
        return 0;
    }
    let b = x.to_bits();
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// The f32 a pair's high (odd) bf16 stands for.
#[inline(always)]
fn high(pair: u32) -> f32 {
    f32::from_bits(pair & 0xffff_0000)
}

/// The f32 a pair's low (even) bf16 stands for.
#[inline(always)]
fn low(pair: u32) -> f32 {
    f32::from_bits(pair << 16)
}

/// Values `2p` (low half) and `2p + 1` (high half) of `v` in one word, for each pair `p`; an odd
/// length pads with a zero.
fn pairs(v: &[f32]) -> impl Iterator<Item = u32> + '_ {
    v.chunks(2).map(|p| {
        let hi = p.get(1).map_or(0, |&x| to_bf16(x));
        u32::from(to_bf16(p[0])) | (u32::from(hi) << 16)
    })
}

/// `n` vectors of `d` values in bf16, in blocks of [`W`] vectors: each block `⌈d/2⌉ × W` pairs
/// of dimensions (a pair's W words side by side, one register).
pub struct BlockedBf16 {
    pub d: usize,
    pub n: usize,
    /// Pairs of dimensions: `⌈d/2⌉`.
    half: usize,
    cols: Vec<u32>,
}

impl BlockedBf16 {
    /// From `n` row-major vectors of `d` values, rounded to bf16.
    pub fn from_rows(rows: &[f32], d: usize) -> BlockedBf16 {
        let n = rows.len().checked_div(d).unwrap_or(0);
        let half = d.div_ceil(2);
        let mut cols = vec![0u32; n.div_ceil(W) * W * half];
        for (j, v) in rows.chunks_exact(d.max(1)).take(n).enumerate() {
            let (blk, l) = (j / W, j % W);
            for (p, x) in pairs(v).enumerate() {
                cols[(blk * half + p) * W + l] = x;
            }
        }
        BlockedBf16 { d, n, half, cols }
    }

    /// The vector `j` as stored, back in f32: its values rounded to bf16.
    pub fn row(&self, j: usize) -> Vec<f32> {
        let (blk, l) = (j / W, j % W);
        (0..self.half)
            .flat_map(|p| {
                let x = self.cols[(blk * self.half + p) * W + l];
                [low(x), high(x)]
            })
            .take(self.d)
            .collect()
    }

    /// `q·v_j` for each row `q` of `rows` and each vector `v_j`, handed to `sink` a block at a
    /// time, by `vdpbf16ps` where the processor has it.
    pub fn product(&self, rows: &Rows, sink: &mut dyn Sink) {
        self.product_on(rows, sink, hardware())
    }

    /// [`BlockedBf16::product`] kept whole: `m × n`, row-major.
    pub fn all(&self, rows: &Rows) -> Vec<f32> {
        self.all_on(rows, hardware())
    }

    fn all_on(&self, rows: &Rows, hardware: bool) -> Vec<f32> {
        let mut all = crate::kernel::All::new(rows.m, self.n);
        self.product_on(rows, &mut all, hardware);
        all.y
    }

    /// The product by the instruction (`hardware`, which the processor must have) or by its
    /// emulation.
    fn product_on(&self, rows: &Rows, sink: &mut dyn Sink, hardware: bool) {
        assert_eq!(rows.d, self.d, "rows as wide as the vectors");
        let (q, m) = (&rows.q, rows.m);
        if self.d == 0 || m == 0 {
            return;
        }
        if hardware {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `hardware` is true only where the processor has AVX512_BF16 and
            // AVX-512F (`hardware()`, or a test that checked the same).
            return unsafe { x86::blocks(self, q, m, sink) };
        }
        crate::kernel::widest!([] blocks(self, q, m, sink) -> ();
            b: &BlockedBf16, q: &[u32], m: usize, sink: &mut dyn Sink)
    }
}

/// Rows to multiply with a [`BlockedBf16`], rounded to bf16 once for all its blocks: in
/// groups of `R`, each group `⌈d/2⌉ × R` pairs (a pair's R rows side by side), padded with
/// zero rows.
pub struct Rows {
    d: usize,
    m: usize,
    q: Vec<u32>,
}

impl Rows {
    /// The `m` rows of `c`, `d` values each.
    pub fn new(c: &[f32], d: usize, m: usize) -> Rows {
        let half = d.div_ceil(2);
        let mut q = vec![0u32; m.div_ceil(R) * half * R];
        for (r, row) in c.chunks_exact(d.max(1)).take(m).enumerate() {
            let (g, k) = (r / R, r % R);
            for (p, x) in pairs(row).enumerate() {
                q[(g * half + p) * R + k] = x;
            }
        }
        Rows { d, m, q }
    }
}

/// Whether the processor has `vdpbf16ps` (AVX512_BF16, with AVX-512F).
pub fn hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Rows multiplied side by side, as in [`crate::kernel`]: a board's 25 words are five groups.
const R: usize = 5;

/// The emulation: each pair's high products then its low ones added to the sums, in order.
#[inline(always)]
fn blocks(b: &BlockedBf16, q: &[u32], m: usize, sink: &mut dyn Sink) {
    let half = b.half;
    let mut sums = vec![[0f32; W]; m.div_ceil(R) * R];
    for (blk, cols) in b.cols.chunks_exact(half * W).enumerate() {
        for (qs, out) in q.chunks_exact(R * half).zip(sums.chunks_exact_mut(R)) {
            let mut acc = [[0f32; W]; R];
            for (col, qi) in cols.chunks_exact(W).zip(qs.chunks_exact(R)) {
                let col: &[u32; W] = col.try_into().expect("W pairs");
                let qi: &[u32; R] = qi.try_into().expect("R pairs");
                for k in 0..R {
                    let (qh, ql) = (high(qi[k]), low(qi[k]));
                    for l in 0..W {
                        acc[k][l] += qh * high(col[l]);
                        acc[k][l] += ql * low(col[l]);
                    }
                }
            }
            out.copy_from_slice(&acc);
        }
        sink.take(blk * W, &sums[..m]);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{BlockedBf16, R, W};
    use crate::kernel::Sink;
    use std::arch::x86_64::*;

    /// The product by `vdpbf16ps`, two blocks of W vectors and R rows at a time: 2R chains of
    /// additions keep the unit busy (each waits on its last instruction's latency).
    ///
    /// # Safety
    /// The processor must have AVX-512F and AVX512_BF16.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn blocks(b: &BlockedBf16, q: &[u32], m: usize, sink: &mut dyn Sink) {
        let half = b.half;
        let mut sums = vec![[0f32; W]; 2 * m.div_ceil(R) * R];
        let (pairs, rest) = b.cols.as_chunks::<W>();
        debug_assert!(rest.is_empty());
        for (two, cols) in pairs.chunks(2 * half).enumerate() {
            let nb = cols.len() / half;
            let (first, second) = cols.split_at(half);
            let (sums0, sums1) = sums.split_at_mut(m.div_ceil(R) * R);
            for (g, qs) in q.chunks_exact(R * half).enumerate() {
                let mut acc = [[_mm512_setzero_ps(); R]; 2];
                // The second block's pairs, or the first's again for a lone last block (its
                // sums are not handed on).
                let second = if nb == 2 { second } else { first };
                for ((c0, c1), qi) in first.iter().zip(second).zip(qs.chunks_exact(R)) {
                    // SAFETY: each is W = 16 words, one register; 16 words are 32 bf16 values.
                    let (c0, c1) = unsafe {
                        (
                            std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                                c0.as_ptr().cast(),
                            )),
                            std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                                c1.as_ptr().cast(),
                            )),
                        )
                    };
                    for k in 0..R {
                        // SAFETY: `__m512i` and `__m512bh` are both 512-bit vectors of plain
                        // bits (no invalid values): the broadcast pair is reread as 32 bf16s.
                        let qk = unsafe {
                            std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(
                                qi[k] as i32,
                            ))
                        };
                        acc[0][k] = _mm512_dpbf16_ps(acc[0][k], c0, qk);
                        acc[1][k] = _mm512_dpbf16_ps(acc[1][k], c1, qk);
                    }
                }
                for (out, acc) in [&mut *sums0, &mut *sums1].into_iter().zip(acc) {
                    for (o, a) in out[g * R..(g + 1) * R].iter_mut().zip(acc) {
                        // SAFETY: `o` holds W = 16 floats.
                        unsafe { _mm512_storeu_ps(o.as_mut_ptr(), a) };
                    }
                }
            }
            sink.take(2 * two * W, &sums0[..m]);
            if nb == 2 {
                sink.take((2 * two + 1) * W, &sums1[..m]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seeded::SplitMix64;

    /// Values of every sign and of magnitudes from 2⁻³⁰ to 2⁶ (sums that round at every
    /// step), a few zeros and values flushed to zero.
    fn random(rng: &mut SplitMix64, len: usize) -> Vec<f32> {
        (0..len)
            .map(|_| {
                let r = rng.next_u64();
                match r % 50 {
                    0 => 0.0,
                    1 => 1e-20,
                    _ => {
                        let mant = 1.0 + (r >> 11) as f32 / (1u64 << 53) as f32;
                        let exp = ((r >> 3) % 37) as i32 - 30;
                        let sign = if r & 4 == 0 { 1.0 } else { -1.0 };
                        sign * mant * 2f32.powi(exp)
                    }
                }
            })
            .collect()
    }

    /// Each sum as a plain loop: pair by pair, the high product then the low one.
    fn plain(q: &[f32], v: &[f32]) -> f32 {
        let (q, v): (Vec<u32>, Vec<u32>) = (pairs(q).collect(), pairs(v).collect());
        let mut s = 0f32;
        for (a, b) in q.iter().zip(&v) {
            s += high(*a) * high(*b);
            s += low(*a) * low(*b);
        }
        s
    }

    #[test]
    fn rounding_to_bf16() {
        assert_eq!(to_bf16(1.0), 0x3f80);
        assert_eq!(to_bf16(-2.0), 0xc000);
        // 1 + 2⁻⁸ is halfway between 1 and 1 + 2⁻⁷: to even (1); 1 + 3·2⁻⁸ to 1 + 2⁻⁶.
        assert_eq!(to_bf16(1.0 + 2f32.powi(-8)), 0x3f80);
        assert_eq!(to_bf16(1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
        assert_eq!(to_bf16(2f32.powi(-41)), 0, "flushed");
        assert_eq!(to_bf16(2f32.powi(-40)), 0x2b80);
        let b = BlockedBf16::from_rows(&[1.0, 0.5, 0.25], 3);
        assert_eq!(b.row(0), vec![1.0, 0.5, 0.25]);
    }

    /// `vdpbf16ps` (run here when the processor has it) and the emulation (run everywhere)
    /// give the same sums, bit for bit, as the plain loop, on random data of odd and even
    /// widths, 1 to 11 rows and vectors over several blocks.
    #[test]
    fn hardware_and_emulation_agree() {
        let mut rng = SplitMix64::new(45);
        let has = hardware();
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            has,
            std::arch::is_x86_feature_detected!("avx512bf16"),
            "the hardware path runs wherever the processor has the instruction"
        );
        if !has {
            eprintln!("no AVX512_BF16 here: the emulation only");
        }
        for (d, n, m) in [
            (450, 40, 25),
            (7, 37, 1),
            (8, 16, 6),
            (33, 50, 11),
            (1, 3, 2),
        ] {
            let v = random(&mut rng, n * d);
            let c = random(&mut rng, m * d);
            let b = BlockedBf16::from_rows(&v, d);
            let rows = Rows::new(&c, d, m);
            let emulated = b.all_on(&rows, false);
            for r in 0..m {
                for j in 0..n {
                    let want = plain(&c[r * d..(r + 1) * d], &v[j * d..(j + 1) * d]);
                    let got = emulated[r * n + j];
                    assert_eq!(got.to_bits(), want.to_bits(), "emulated: d {d}, {r}, {j}");
                }
            }
            if has {
                let hw = b.all_on(&rows, true);
                for (i, (h, e)) in hw.iter().zip(&emulated).enumerate() {
                    assert!(
                        h == e,
                        "d {d}, m {m}: sum {i}: hardware {h:e}, emulated {e:e}"
                    );
                }
            }
        }
    }

    /// Unit vectors: each cosine within 10⁻³ of the f32 one.
    #[test]
    fn cosines_move_little() {
        let mut rng = SplitMix64::new(7);
        let (d, n, m) = (450, 64, 5);
        let unit = |rng: &mut SplitMix64, k: usize| -> Vec<f32> {
            let mut v: Vec<f32> = (0..k * d)
                .map(|_| (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5)
                .collect();
            for row in v.chunks_mut(d) {
                let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
                row.iter_mut().for_each(|x| *x /= norm);
            }
            v
        };
        let (v, c) = (unit(&mut rng, n), unit(&mut rng, m));
        let y = BlockedBf16::from_rows(&v, d).all(&Rows::new(&c, d, m));
        for r in 0..m {
            for j in 0..n {
                let exact: f32 = (0..d).map(|i| c[r * d + i] * v[j * d + i]).sum();
                assert!((y[r * n + j] - exact).abs() < 1e-3);
            }
        }
    }
}
