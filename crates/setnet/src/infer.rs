//! The trained network for queries: the forward pass of [`crate::model`] in plain `f32` with
//! `matrixmultiply` products (no autograd, no tensor allocation per layer: a board's 511
//! subsets in well under a millisecond), the embedding of the card words, and the decoding
//! matrix of the clue words, all read once per database.

use anyhow::{Context, Result, bail};

use crate::model::{Alphas, layer_sizes};
use crate::subsets::{MAX_TEAM, members, subsets};
use crate::weights::{Tensor, take};

/// The stored names of the embedding: card words (rows in the order of the card words the
/// stage read, sorted) and clue words (rows in `clue_words.id` order).
pub const CARDS: &str = "card_vectors";
pub const CLUES: &str = "clue_vectors";

struct Layer {
    /// `out × in`, row-major.
    w: Vec<f32>,
    b: Vec<f32>,
    inp: usize,
    out: usize,
}

impl Layer {
    /// `x · Wᵀ + b` for `m` rows of `x`, then ReLU when asked.
    fn apply(&self, x: &[f32], m: usize, relu: bool) -> Vec<f32> {
        let mut y = vec![0f32; m * self.out];
        for row in y.chunks_mut(self.out) {
            row.copy_from_slice(&self.b);
        }
        if m > 0 {
            // SAFETY: the slices hold m × inp, inp × out (Wᵀ through strides) and m × out
            // values, as the strides say.
            unsafe {
                matrixmultiply::sgemm(
                    m,
                    self.inp,
                    self.out,
                    1.0,
                    x.as_ptr(),
                    self.inp as isize,
                    1,
                    self.w.as_ptr(),
                    1,
                    self.inp as isize,
                    1.0,
                    y.as_mut_ptr(),
                    self.out as isize,
                    1,
                );
            }
        }
        if relu {
            y.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        y
    }
}

/// The network with its embedding, ready to answer boards.
pub struct Model {
    pub d: usize,
    pub k: usize,
    layers: Vec<Layer>,
    /// `cards × d`.
    pub cards: Vec<f32>,
    /// `clues × d`.
    pub clues: Vec<f32>,
    /// The clue rows transposed (`d × clues`), for [`Model::closeness`].
    clues_t: Vec<f32>,
    /// `½‖v‖²` per clue row: the nearest clue to `c` maximises `c·v − ½‖v‖²`.
    half_norms: Vec<f32>,
    /// The margins it was trained with (to rank subsets on the board in its own space).
    pub alphas: Alphas,
}

impl Model {
    /// From the stored tensors; every shape is checked against the others (a tensor missing or
    /// of the wrong shape is an error naming it).
    pub fn from_tensors(all: &[Tensor], alphas: Alphas) -> Result<Model> {
        let shape = |name: &str| -> Result<&[usize]> {
            all.iter()
                .find(|t| t.name == name)
                .map(|t| t.shape.as_slice())
                .with_context(|| format!("no tensor {name:?}"))
        };
        let [k, d] = match shape("phi_t.weight")? {
            &[k, d] => [k, d],
            other => bail!("tensor \"phi_t.weight\" has shape {other:?}, expected k × d"),
        };
        let hidden = match shape("h1.weight")? {
            &[h, _] => h,
            other => bail!("tensor \"h1.weight\" has shape {other:?}, expected hidden × in"),
        };
        let mut layers = Vec::new();
        for (name, inp, out) in layer_sizes(d, k, hidden) {
            layers.push(Layer {
                w: take(all, &format!("{name}.weight"), &[out, inp])?,
                b: take(all, &format!("{name}.bias"), &[out])?,
                inp,
                out,
            });
        }
        let rows = |name: &str| -> Result<Vec<f32>> {
            match shape(name)? {
                &[n, dd] if dd == d => take(all, name, &[n, d]),
                other => bail!("tensor {name:?} has shape {other:?}, expected n × {d}"),
            }
        };
        let cards = rows(CARDS)?;
        let clues = rows(CLUES)?;
        // A clue word whose relatedness is all zeros has no direction (a zero row): never the
        // nearest, or every short clue vector would decode to it.
        let half_norms = clues
            .chunks(d)
            .map(|v| match 0.5 * v.iter().map(|x| x * x).sum::<f32>() {
                h if h > 0.0 => h,
                _ => f32::INFINITY,
            })
            .collect();
        let n = clues.len() / d;
        let mut clues_t = vec![0f32; clues.len()];
        for (j, v) in clues.chunks(d).enumerate() {
            for (i, x) in v.iter().enumerate() {
                clues_t[i * n + j] = *x;
            }
        }
        Ok(Model {
            d,
            k,
            layers,
            cards,
            clues,
            clues_t,
            half_norms,
            alphas,
        })
    }

    pub fn card_count(&self) -> usize {
        self.cards.len() / self.d
    }

    pub fn clue_count(&self) -> usize {
        self.clues.len() / self.d
    }

    pub fn card(&self, i: usize) -> &[f32] {
        &self.cards[i * self.d..(i + 1) * self.d]
    }

    /// `c(t)` for every non-empty subset `t` of `team` (in [`subsets`] order; at most
    /// [`MAX_TEAM`] cards are used): `(2^|T| − 1) × d`, row-major.
    pub fn clue_vectors(
        &self,
        team: &[&[f32]],
        enemy: &[&[f32]],
        assassin: Option<&[f32]>,
    ) -> Vec<f32> {
        let (d, k) = (self.d, self.k);
        let team = &team[..team.len().min(MAX_TEAM)];
        let nt = team.len();
        let s = (1usize << nt) - 1;
        let flat =
            |rows: &[&[f32]]| -> Vec<f32> { rows.iter().flat_map(|r| r.iter().copied()).collect() };
        let phi_t = self.layers[0].apply(&flat(team), nt, true);
        // Subset sums: each mask's sum is its sum without the lowest card plus that card's.
        let mut sums = vec![0f32; (s + 1) * k];
        for m in 1..=s {
            let low = m.trailing_zeros() as usize;
            let prev = m & (m - 1);
            for j in 0..k {
                sums[m * k + j] = sums[prev * k + j] + phi_t[low * k + j];
            }
        }
        let g_t = self.layers[1].apply(&sums[k..], s, true);
        let phi_e = self.layers[2].apply(&flat(enemy), enemy.len(), true);
        let mut sum_e = vec![0f32; k];
        for row in phi_e.chunks(k) {
            sum_e.iter_mut().zip(row).for_each(|(a, x)| *a += x);
        }
        let g_e = self.layers[3].apply(&sum_e, 1, true);
        let zero = vec![0f32; d];
        let a = assassin.unwrap_or(&zero);
        let width = 2 * k + d;
        let mut x = Vec::with_capacity(s * width);
        for i in 0..s {
            x.extend_from_slice(&g_t[i * k..(i + 1) * k]);
            x.extend_from_slice(&g_e);
            x.extend_from_slice(a);
        }
        let hid = self.layers[4].apply(&x, s, true);
        self.layers[5].apply(&hid, s, false)
    }

    /// The subsets of `team` (masks, [`subsets`] order) with their loss on this board in the
    /// network's own space: `L_E + L_C + L_A` of the reference for that subset alone
    /// (unweighted; 0 when the clue vector clears every margin).
    pub fn board_losses(
        &self,
        c: &[f32],
        team: &[&[f32]],
        enemy: &[&[f32]],
        civilian: &[&[f32]],
        assassin: Option<&[f32]>,
    ) -> Vec<(u32, f32)> {
        let d = self.d;
        let dist = |x: &[f32], y: &[f32]| -> f32 {
            x.iter()
                .zip(y)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f32>()
                .sqrt()
        };
        let nearest = |ci: &[f32], set: &[&[f32]]| -> f32 {
            set.iter()
                .map(|w| dist(ci, w))
                .fold(f32::INFINITY, f32::min)
        };
        let nt = team.len().min(MAX_TEAM);
        subsets(nt)
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let ci = &c[i * d..(i + 1) * d];
                let far = members(m).map(|t| dist(ci, team[t])).fold(0f32, f32::max);
                let hinge = |alpha: f64, near: f32| (alpha as f32 + far - near).max(0.0);
                let mut l = hinge(self.alphas.enemy, nearest(ci, enemy))
                    + hinge(self.alphas.civilian, nearest(ci, civilian));
                if let Some(a) = assassin {
                    l += hinge(self.alphas.assassin, dist(ci, a));
                }
                (m, l)
            })
            .collect()
    }

    /// For each of the `m` clue vectors in `c`, how near each clue word is (higher nearer:
    /// `c·v − ½‖v‖²`, which orders clue words by Euclidean distance): `m × clues`. One thread,
    /// fixed order: a block of clue words at a time (kept in cache), `d` contiguous
    /// multiply-adds over the block per clue vector (vectorised; no packing of the 16,000 × d
    /// matrix per query, no thread hand-off in a query's 2 ms).
    pub fn closeness(&self, c: &[f32], m: usize) -> Vec<f32> {
        let (n, d) = (self.clue_count(), self.d);
        let mut y = vec![0f32; m * n];
        for row in y.chunks_mut(n.max(1)) {
            row.iter_mut()
                .zip(&self.half_norms)
                .for_each(|(v, h)| *v = -h);
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            unsafe { blocks_avx2(&mut y, c, &self.clues_t, m, n, d) };
            return y;
        }
        blocks(&mut y, c, &self.clues_t, m, n, d);
        y
    }
}

/// [`Model::closeness`]'s products, 16 clue words at a time: their `d` columns stay in the
/// first-level cache and each clue vector's 16 sums in registers. The same multiplications
/// and additions in the same order on every processor (no fused multiply-add), only wider
/// with AVX2.
#[inline(always)]
fn blocks(y: &mut [f32], c: &[f32], clues_t: &[f32], m: usize, n: usize, d: usize) {
    const W: usize = 16;
    let mut j0 = 0;
    while j0 < n {
        let w = W.min(n - j0);
        for r in 0..m {
            let q = &c[r * d..(r + 1) * d];
            if w == W {
                // Fixed-size arrays: the block is read and written in registers, not through
                // a copy call.
                let out: &mut [f32; W] = (&mut y[r * n + j0..r * n + j0 + W])
                    .try_into()
                    .expect("a whole block");
                let mut acc = *out;
                for (i, &qi) in q.iter().enumerate() {
                    let col: &[f32; W] = clues_t[i * n + j0..i * n + j0 + W]
                        .try_into()
                        .expect("a whole block");
                    for l in 0..W {
                        acc[l] += qi * col[l];
                    }
                }
                *out = acc;
                continue;
            }
            let mut acc = [0f32; W];
            acc[..w].copy_from_slice(&y[r * n + j0..r * n + j0 + w]);
            for (i, &qi) in q.iter().enumerate() {
                for l in 0..w {
                    acc[l] += qi * clues_t[i * n + j0 + l];
                }
            }
            y[r * n + j0..r * n + j0 + w].copy_from_slice(&acc[..w]);
        }
        j0 += w;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn blocks_avx2(y: &mut [f32], c: &[f32], clues_t: &[f32], m: usize, n: usize, d: usize) {
    blocks(y, c, clues_t, m, n, d)
}
