//! The network and its loss in candle tensors (training; [`crate::infer`] runs the same
//! forward pass without candle for queries).
//!
//! - `g_T(t) = ρ_T(Σ_{w∈t} φ_T(f(w)))`, `g_E(E) = ρ_E(Σ_{w∈E} φ_E(f(w)))`: DeepSets, each `φ`
//!   and `ρ` one linear layer with ReLU (`d → k`, `k → k`);
//! - `c(t) = h(g_T(t), g_E(E), f(a))`: `h` two linear layers, ReLU between (`2k + d → hidden → d`).
//!
//! Weights are row-major `out × in` as candle-nn's `Linear`, biases `out`.

use candle_core::{D, DType, Device, Result, Tensor, Var};

use crate::rng::Rng;
use crate::weights;

/// The layers, in the order they are stored, with their `(in, out)` sizes for `d`, `k`,
/// `hidden`.
pub fn layer_sizes(d: usize, k: usize, hidden: usize) -> [(&'static str, usize, usize); 6] {
    [
        ("phi_t", d, k),
        ("rho_t", k, k),
        ("phi_e", d, k),
        ("rho_e", k, k),
        ("h1", 2 * k + d, hidden),
        ("h2", hidden, d),
    ]
}

/// The network's sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizes {
    /// The embedding's dimensions (`f`, and the clue vector).
    pub d: usize,
    /// The set embeddings' dimensions.
    pub k: usize,
    /// `h`'s hidden layer.
    pub hidden: usize,
}

/// The trainable network: one weight matrix and one bias per layer of [`layer_sizes`].
pub struct Net {
    pub sizes: Sizes,
    pub vars: Vec<(String, Var, Var)>,
}

/// The margins of the three losses (in units of the embedding's Euclidean distance: unit
/// vectors, so distances lie in [0, 2]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alphas {
    pub enemy: f64,
    pub civilian: f64,
    pub assassin: f64,
}

/// One batch of games of the same shape: `B` games, `nt` team cards, `ne` enemy cards, `nc`
/// civilians (at least one), one assassin each.
pub struct Batch {
    /// `(B, nt, d)`
    pub team: Tensor,
    /// `(B, ne, d)`
    pub enemy: Tensor,
    /// `(B, nc, d)`
    pub civilian: Tensor,
    /// `(B, d)`
    pub assassin: Tensor,
    /// `(S, nt)`, 0/1: the non-empty subsets of the team ([`crate::subsets::mask_matrix`]).
    pub masks: Tensor,
}

impl Net {
    /// Fresh weights: uniform in ±1/√in (candle-nn's `Linear` default), biases 0, from `seed`.
    pub fn new(sizes: Sizes, seed: u64, dev: &Device) -> Result<Net> {
        let mut rng = Rng::new(seed);
        let mut vars = Vec::new();
        for (name, i, o) in layer_sizes(sizes.d, sizes.k, sizes.hidden) {
            let bound = 1.0 / (i as f64).sqrt();
            let w: Vec<f32> = (0..i * o)
                .map(|_| ((rng.unit() * 2.0 - 1.0) * bound) as f32)
                .collect();
            let w = Var::from_vec(w, (o, i), dev)?;
            let b = Var::from_vec(vec![0f32; o], o, dev)?;
            vars.push((name.to_string(), w, b));
        }
        Ok(Net { sizes, vars })
    }

    pub fn all_vars(&self) -> Vec<Var> {
        self.vars
            .iter()
            .flat_map(|(_, w, b)| [w.clone(), b.clone()])
            .collect()
    }

    fn layer(&self, i: usize, x: &Tensor, relu: bool) -> Result<Tensor> {
        let (_, w, b) = &self.vars[i];
        let y = x.broadcast_matmul(&w.as_tensor().t()?)?.broadcast_add(b)?;
        if relu { y.relu() } else { Ok(y) }
    }

    /// `c(t)` for every subset of every game: `(B, S, d)`.
    pub fn forward(&self, g: &Batch) -> Result<Tensor> {
        let (b, _, _) = g.team.dims3()?;
        let (s, nt) = g.masks.dims2()?;
        let k = self.sizes.k;
        let phi_t = self.layer(0, &g.team, true)?; // (B, nt, k)
        let masks = g
            .masks
            .unsqueeze(0)?
            .broadcast_as((b, s, nt))?
            .contiguous()?;
        let sums = masks.matmul(&phi_t)?; // (B, S, k)
        let g_t = self.layer(1, &sums, true)?;
        let phi_e = self.layer(2, &g.enemy, true)?.sum(1)?; // (B, k)
        let g_e = self.layer(3, &phi_e, true)?;
        let g_e = g_e.unsqueeze(1)?.broadcast_as((b, s, k))?;
        let a = g
            .assassin
            .unsqueeze(1)?
            .broadcast_as((b, s, self.sizes.d))?;
        let x = Tensor::cat(&[&g_t, &g_e.contiguous()?, &a.contiguous()?], 2)?;
        let hid = self.layer(4, &x, true)?;
        self.layer(5, &hid, false)
    }

    /// The weights as named tensors (`NAME.weight`, `NAME.bias`), as stored.
    pub fn tensors(&self) -> Result<Vec<weights::Tensor>> {
        let mut out = Vec::new();
        for (name, w, b) in &self.vars {
            let (o, i) = w.dims2()?;
            out.push(weights::Tensor::new(
                &format!("{name}.weight"),
                vec![o, i],
                w.as_tensor().flatten_all()?.to_vec1()?,
            ));
            out.push(weights::Tensor::new(
                &format!("{name}.bias"),
                vec![o],
                b.as_tensor().to_vec1()?,
            ));
        }
        Ok(out)
    }
}

/// Euclidean distances between each row of `c` `(B, S, d)` and each of `x` `(B, n, d)`:
/// `(B, S, n)`.
pub fn distances(c: &Tensor, x: &Tensor) -> Result<Tensor> {
    let c2 = c.sqr()?.sum_keepdim(D::Minus1)?; // (B, S, 1)
    let x2 = x.sqr()?.sum(D::Minus1)?.unsqueeze(1)?; // (B, 1, n)
    let cx = c.matmul(&x.t()?.contiguous()?)?; // (B, S, n)
    let d2 = c2.broadcast_add(&x2)?.sub(&(cx * 2.0)?)?;
    // The floor keeps the square root's gradient finite when c(t) sits on a card.
    d2.clamp(1e-9f32, f32::MAX)?.sqrt()
}

/// The three parts of the loss, each averaged over the batch's games and over the subsets of
/// the team (`1/(2^|T| − 1) Σ_t`): enemy `ReLU(α_E + max_{w∈t} d − min_E d) / |t|`, civilian
/// the same over the civilians, assassin `ReLU(α_A + max_{w∈t} d − d(c(t), a))`, unweighted.
/// Their sum is `L(G)` of the reference, averaged over the games. Scalars.
pub fn loss_parts(c: &Tensor, g: &Batch, alphas: Alphas) -> Result<[Tensor; 3]> {
    let (b, s, _) = c.dims3()?;
    let d_t = distances(c, &g.team)?; // (B, S, nt)
    // Cards outside the subset pushed far below any distance before the max.
    let outside = ((g.masks.clone() - 1.0)? * 1e4)?;
    let far_t = d_t.broadcast_add(&outside)?.max(2)?; // (B, S)
    let near_e = distances(c, &g.enemy)?.min(2)?;
    let near_c = distances(c, &g.civilian)?.min(2)?;
    let d_a = distances(c, &g.assassin.unsqueeze(1)?)?.squeeze(2)?;
    let sizes: Vec<f32> = (1..=s as u32)
        .map(|m| 1.0 / m.count_ones() as f32)
        .collect();
    let inv = Tensor::from_vec(sizes, (1, s), c.device())?.broadcast_as((b, s))?;
    let hinge =
        |alpha: f64, near: &Tensor| -> Result<Tensor> { ((&far_t - near)? + alpha)?.relu() };
    let l_e = (hinge(alphas.enemy, &near_e)? * &inv)?.mean_all()?;
    let l_c = (hinge(alphas.civilian, &near_c)? * &inv)?.mean_all()?;
    let l_a = hinge(alphas.assassin, &d_a)?.mean_all()?;
    Ok([l_e, l_c, l_a])
}

/// A `(rows, cols)` tensor of `f32` on the CPU.
pub fn matrix(data: Vec<f32>, rows: usize, cols: usize) -> Result<Tensor> {
    Tensor::from_vec(data, (rows, cols), &Device::Cpu)
}

/// Checks the dtype the whole crate uses.
pub const DTYPE: DType = DType::F32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subsets::mask_matrix;

    fn t3(data: &[f32], n: usize, d: usize) -> Tensor {
        Tensor::from_vec(data.to_vec(), (1, n, d), &Device::Cpu).unwrap()
    }

    fn scalar(t: &Tensor) -> f32 {
        t.to_scalar::<f32>().unwrap()
    }

    /// A board in one dimension, so every distance is a difference: team {0, 2}, enemy {1},
    /// civilian {-1}, assassin {5}. The clue vectors for the subsets {0}, {2}, {0, 2} are given
    /// (0, 2, 1), not computed, and the parts checked by hand.
    #[test]
    fn loss_parts_match_a_hand_computation() {
        let g = Batch {
            team: t3(&[0.0, 2.0], 2, 1),
            enemy: t3(&[1.0], 1, 1),
            civilian: t3(&[-1.0], 1, 1),
            assassin: Tensor::from_vec(vec![5.0f32], (1, 1), &Device::Cpu).unwrap(),
            masks: matrix(mask_matrix(2), 3, 2).unwrap(),
        };
        let c = t3(&[0.0, 2.0, 1.0], 3, 1);
        let alphas = Alphas {
            enemy: 0.5,
            civilian: 0.25,
            assassin: 1.0,
        };
        let [e, civ, a] = loss_parts(&c, &g, alphas).unwrap();
        // Subset {0} (mask 01), c = 0: max_t d = 0; enemy 1 → ReLU(0.5 + 0 − 1) = 0;
        //   civilian 1 → ReLU(0.25 − 1) = 0; assassin 5 → 0.
        // Subset {2} (mask 10), c = 2: max_t d = 0; enemy 1 → 0; civilian 3 → 0; assassin 3 → 0.
        // Subset {0, 2} (mask 11), c = 1: max_t d = 1; enemy 0 → ReLU(0.5 + 1) = 1.5, weight ½;
        //   civilian 2 → ReLU(0.25 + 1 − 2) = 0; assassin 4 → ReLU(1 + 1 − 4) = 0.
        // Averaged over the 3 subsets: enemy 1.5 · ½ / 3 = 0.25.
        assert!((scalar(&e) - 0.25).abs() < 1e-4, "enemy {}", scalar(&e));
        assert!(scalar(&civ).abs() < 1e-4, "civilian {}", scalar(&civ));
        assert!(scalar(&a).abs() < 1e-4, "assassin {}", scalar(&a));

        // Move the clue vectors so that each part bites alone.
        // c = (0, 2, -0.5): subset {0,2} max_t d = max(0.5, 2.5) = 2.5; enemy at 1.5 →
        //   ReLU(0.5 + 2.5 − 1.5) = 1.5 (weight ½); civilian 0.5 → ReLU(0.25 + 2.5 − 0.5) = 2.25
        //   (weight ½); assassin 5.5 → ReLU(1 + 2.5 − 5.5) = 0.
        let c = t3(&[0.0, 2.0, -0.5], 3, 1);
        let [e, civ, a] = loss_parts(&c, &g, alphas).unwrap();
        assert!((scalar(&e) - 1.5 * 0.5 / 3.0).abs() < 1e-4);
        assert!((scalar(&civ) - 2.25 * 0.5 / 3.0).abs() < 1e-4);
        assert!(scalar(&a).abs() < 1e-4);
        // c = (4, 2, 1): subset {0}: max_t d = 4; enemy 3 → ReLU(0.5 + 4 − 3) = 1.5 (weight 1);
        //   civilian 5 → ReLU(0.25 + 4 − 5) = 0; assassin 1 → ReLU(1 + 4 − 1) = 4.
        //   Subset {2}, c = 2: assassin → 0, enemy 0, civ 0. Subset {0,2}, c = 1: enemy 1.5 · ½.
        let c = t3(&[4.0, 2.0, 1.0], 3, 1);
        let [e, civ, a] = loss_parts(&c, &g, alphas).unwrap();
        assert!((scalar(&e) - (1.5 + 0.75) / 3.0).abs() < 1e-4);
        assert!(scalar(&civ).abs() < 1e-4);
        assert!(
            (scalar(&a) - 4.0 / 3.0).abs() < 1e-4,
            "assassin {}",
            scalar(&a)
        );
    }
}
