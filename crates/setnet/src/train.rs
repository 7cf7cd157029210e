//! Training: games mined on the fly from the card words, AdamW on the three-part loss.
//!
//! Each step draws the shape of its games (team 1–9 cards, enemy 1–8, civilians 1–7, one
//! assassin: every board of a game in progress), then `batch` games of that shape, each a
//! seeded sample of distinct card words; every non-empty subset of each team counts
//! (`2^|T| − 1`, at most 511). Everything random comes from one [`Rng`] seeded by
//! [`Params::seed`], the weights start from it too, and candle's CPU operations reduce in a
//! fixed order, so a seed gives the same weights on every run (a test pins it).

use std::time::Instant;

use anyhow::{Context, Result, bail};
use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};

use crate::model::{Alphas, Batch, Net, Sizes, loss_parts, matrix};
use crate::rng::Rng;
use crate::subsets::mask_matrix;
use crate::weights;

/// The fewest card words games can be mined from: one team card, one enemy card, one civilian,
/// the assassin.
pub const MIN_CARDS: usize = 4;

/// Training parameters (recorded in `meta` as `setnet.*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The embedding's dimensions (`relatedness_vectors` factored down to these).
    pub dims: usize,
    /// The set networks' output size `k`.
    pub set_dims: usize,
    /// `h`'s hidden layer.
    pub hidden: usize,
    pub alphas: Alphas,
    pub steps: usize,
    /// Games per step.
    pub batch: usize,
    pub learning_rate: f64,
    pub seed: u64,
    /// The largest team, enemy and civilian sets mined (each drawn from 1 up).
    pub max_team: usize,
    pub max_enemy: usize,
    pub max_civilian: usize,
}

impl Default for Params {
    /// Sized to train in well under a minute on two cores over the 400 card words (the
    /// pipeline's budget): 19,200 games.
    fn default() -> Params {
        Params {
            dims: 32,
            set_dims: 32,
            hidden: 64,
            // Distances between unit vectors lie in [0, 2]; typical ones near √2. The enemy's
            // margin is wider than the civilians' (a wrong guess there also helps the other
            // team), the assassin's widest, as in the relatedness strategy's 1.5 / 1 / 4.
            alphas: Alphas {
                enemy: 0.15,
                civilian: 0.1,
                assassin: 0.4,
            },
            steps: 600,
            batch: 32,
            learning_rate: 3e-3,
            seed: 1,
            max_team: 9,
            max_enemy: 8,
            max_civilian: 7,
        }
    }
}

/// What training gives: the weights and its figures.
#[derive(Debug, Clone)]
pub struct Trained {
    pub tensors: Vec<weights::Tensor>,
    /// The loss of the first step.
    pub first_loss: f64,
    /// The mean loss of the last tenth of the steps (at least one step).
    pub last_loss: f64,
    /// The last tenth's mean of each part: enemy, civilian, assassin.
    pub last_parts: [f64; 3],
    pub seconds: f64,
    pub games: usize,
}

/// Trains on games mined from `cards` (each `d` long, unit rows: [`crate::Space::cards`]).
pub fn train(cards: &[f32], d: usize, p: &Params) -> Result<Trained> {
    let start = Instant::now();
    let n = cards.len() / d.max(1);
    let need = 1 + 1 + 1 + 1;
    if d == 0 || n < need + 1 {
        bail!(
            "setnet: {n} card words to mine games from; at least {} needed",
            need + 1
        );
    }
    let dev = Device::Cpu;
    let sizes = Sizes {
        d,
        k: p.set_dims,
        hidden: p.hidden,
    };
    let net = Net::new(sizes, p.seed, &dev).context("setnet: initial weights")?;
    let mut opt = AdamW::new(
        net.all_vars(),
        ParamsAdamW {
            lr: p.learning_rate,
            weight_decay: 0.0,
            ..Default::default()
        },
    )
    .context("setnet: optimiser")?;
    let mut rng = Rng::new(p.seed.wrapping_add(1));
    let mut losses: Vec<[f64; 3]> = Vec::with_capacity(p.steps);
    let mut games = 0;
    for _ in 0..p.steps {
        // The shape of this step's games, within what the deck holds.
        let mut nt = 1 + rng.below(p.max_team.max(1));
        let mut ne = 1 + rng.below(p.max_enemy.max(1));
        let mut nc = 1 + rng.below(p.max_civilian.max(1));
        // A small deck: the largest set gives way until the game fits.
        while nt + ne + nc + 1 > n {
            let largest = if nt >= ne && nt >= nc {
                &mut nt
            } else if ne >= nc {
                &mut ne
            } else {
                &mut nc
            };
            *largest -= 1;
        }
        let total = nt + ne + nc + 1;
        let mut team = Vec::with_capacity(p.batch * nt * d);
        let mut enemy = Vec::with_capacity(p.batch * ne * d);
        let mut civ = Vec::with_capacity(p.batch * nc * d);
        let mut assassin = Vec::with_capacity(p.batch * d);
        for _ in 0..p.batch {
            let pick = rng.sample(n, total);
            let row = |i: usize| &cards[pick[i] * d..(pick[i] + 1) * d];
            (0..nt).for_each(|i| team.extend_from_slice(row(i)));
            (nt..nt + ne).for_each(|i| enemy.extend_from_slice(row(i)));
            (nt + ne..nt + ne + nc).for_each(|i| civ.extend_from_slice(row(i)));
            assassin.extend_from_slice(row(total - 1));
        }
        games += p.batch;
        let s = (1usize << nt) - 1;
        let b = p.batch;
        let batch = Batch {
            team: Tensor::from_vec(team, (b, nt, d), &dev)?,
            enemy: Tensor::from_vec(enemy, (b, ne, d), &dev)?,
            civilian: Tensor::from_vec(civ, (b, nc, d), &dev)?,
            assassin: Tensor::from_vec(assassin, (b, d), &dev)?,
            masks: matrix(mask_matrix(nt), s, nt)?,
        };
        let c = net.forward(&batch)?;
        let parts = loss_parts(&c, &batch, p.alphas)?;
        let loss = ((&parts[0] + &parts[1])? + &parts[2])?;
        opt.backward_step(&loss)
            .context("setnet: a training step")?;
        let mut v = [0.0; 3];
        for (x, t) in v.iter_mut().zip(&parts) {
            *x = t.to_scalar::<f32>()? as f64;
        }
        losses.push(v);
    }
    let tail = (p.steps / 10).max(1).min(losses.len().max(1));
    let last = &losses[losses.len().saturating_sub(tail)..];
    let mut last_parts = [0.0; 3];
    for l in last {
        for (acc, x) in last_parts.iter_mut().zip(l) {
            *acc += x / last.len().max(1) as f64;
        }
    }
    Ok(Trained {
        tensors: net.tensors()?,
        first_loss: losses.first().map_or(0.0, |l| l.iter().sum()),
        last_loss: last_parts.iter().sum(),
        last_parts,
        seconds: start.elapsed().as_secs_f64(),
        games,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::unit_rows;

    /// Two tight clusters of 20 card words each on opposite sides of an 8-dimensional sphere.
    fn two_clusters() -> Vec<f32> {
        let mut rng = Rng::new(42);
        let d = 8;
        let mut cards = Vec::new();
        for i in 0..40 {
            let centre = if i < 20 { 1.0 } else { -1.0 };
            for j in 0..d {
                let base = if j == 0 { centre } else { 0.0 };
                cards.push(base + 0.15 * rng.gaussian() as f32);
            }
        }
        unit_rows(&mut cards, d);
        cards
    }

    fn small() -> Params {
        Params {
            dims: 8,
            set_dims: 8,
            hidden: 16,
            steps: 150,
            batch: 8,
            learning_rate: 1e-2,
            max_team: 4,
            max_enemy: 3,
            max_civilian: 3,
            ..Params::default()
        }
    }

    #[test]
    fn learns_two_clusters_deterministically() {
        let cards = two_clusters();
        let p = small();
        let a = train(&cards, 8, &p).unwrap();
        // Pinned: the loss falls from the random start (0.687 measured) to under 0.6 of it and
        // under 0.4 (0.341 measured). Teams drawn across both clusters keep it above 0: no
        // clue vector is nearer both clusters than an enemy card of either.
        assert!(
            a.last_loss < a.first_loss * 0.6 && a.last_loss < 0.4,
            "first {} last {}",
            a.first_loss,
            a.last_loss
        );
        let b = train(&cards, 8, &p).unwrap();
        assert_eq!(a.tensors, b.tensors, "same seed, same weights");
        let c = train(&cards, 8, &Params { seed: 2, ..p }).unwrap();
        assert_ne!(a.tensors, c.tensors, "another seed, other weights");
    }
}
