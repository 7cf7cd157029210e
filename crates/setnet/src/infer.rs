//! The trained network for queries: the forward pass of [`crate::model`] in plain `f32` with
//! the products of [`crate::kernel`] (no autograd, no tensor allocation per layer, no thread
//! hand-off: a board's 511 subsets in well under a millisecond), the embedding of the card words, and the decoding
//! matrix of the clue words, all read once per database.

use anyhow::{Context, Result, bail};

use crate::kernel::{Blocked, Heads, distances};
use crate::model::{Alphas, layer_sizes};
use crate::subsets::{MAX_TEAM, members, subsets};
use crate::weights::{Tensor, take};

/// The stored names of the embedding: card words (rows in the order of the card words the
/// stage read, sorted) and clue words (rows in `clue_words.id` order).
pub const CARDS: &str = "card_vectors";
pub const CLUES: &str = "clue_vectors";

/// A layer `x · Wᵀ + b`: the rows of `W` blocked for [`Blocked::product`], the bias as the
/// sums' start.
struct Layer {
    w: Blocked,
    start: Vec<f32>,
}

impl Layer {
    /// From `W` (`out × inp`, row-major) and `b`, or the columns `cols` of `W` only.
    fn new(w: &[f32], b: &[f32], inp: usize, cols: std::ops::Range<usize>) -> Layer {
        let rows: Vec<f32> = w
            .chunks_exact(inp)
            .flat_map(|row| row[cols.clone()].iter().copied())
            .collect();
        let w = Blocked::from_rows(&rows, cols.len());
        let start = w.padded(b, 0.0);
        Layer { w, start }
    }

    /// `x · Wᵀ + start` for `m` rows of `x`, then ReLU when asked.
    fn apply_from(&self, x: &[f32], m: usize, start: &[f32], relu: bool) -> Vec<f32> {
        let mut y = self.w.all(x, m, start);
        if relu {
            y.iter_mut().for_each(|v| *v = v.max(0.0));
        }
        y
    }

    fn apply(&self, x: &[f32], m: usize, relu: bool) -> Vec<f32> {
        self.apply_from(x, m, &self.start, relu)
    }
}

/// The network with its embedding, ready to answer boards.
pub struct Model {
    pub d: usize,
    pub k: usize,
    /// `phi_t`, `rho_t`, `phi_e`, `rho_e`, then `h1` split in two: its columns for `g_t`
    /// (one product per subset) and for `g_e` and the assassin (the same for every subset:
    /// one product per board, the bias folded in), then `h2`.
    layers: Vec<Layer>,
    /// `cards × d`.
    pub cards: Vec<f32>,
    /// `clues × d`.
    pub clues: Vec<f32>,
    /// The clue rows blocked for decoding ([`Model::nearest`]).
    clues_b: Blocked,
    /// `−½‖v‖²` per clue row, padded: the nearest clue to `c` maximises `c·v − ½‖v‖²`.
    start: Vec<f32>,
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
            let w = take(all, &format!("{name}.weight"), &[out, inp])?;
            let b = take(all, &format!("{name}.bias"), &[out])?;
            if name == "h1" {
                layers.push(Layer::new(&w, &vec![0.0; out], inp, 0..k));
                layers.push(Layer::new(&w, &b, inp, k..inp));
            } else {
                layers.push(Layer::new(&w, &b, inp, 0..inp));
            }
        }
        let rows = |name: &str| -> Result<Vec<f32>> {
            match shape(name)? {
                &[n, dd] if dd == d => take(all, name, &[n, d]),
                other => bail!("tensor {name:?} has shape {other:?}, expected n × {d}"),
            }
        };
        let cards = rows(CARDS)?;
        let clues = rows(CLUES)?;
        // Finite values can still overflow a distance or a product (3e38 squared): a row whose
        // length is no number would never be the nearest, and every board would go unanswered.
        for (name, data) in [(CARDS, &cards), (CLUES, &clues)] {
            if let Some(i) = data
                .chunks(d)
                .position(|v| !v.iter().map(|x| x * x).sum::<f32>().is_finite())
            {
                bail!(
                    "tensor {name:?}: row {i}'s length is not a finite number (values too large \
                     for a trained network)"
                );
            }
        }
        // A clue word whose relatedness is all zeros has no direction (a zero row): never the
        // nearest, or every short clue vector would decode to it.
        let half_norms: Vec<f32> = clues
            .chunks(d)
            .map(|v| match 0.5 * v.iter().map(|x| x * x).sum::<f32>() {
                h if h > 0.0 => -h,
                _ => f32::NEG_INFINITY,
            })
            .collect();
        let clues_b = Blocked::from_rows(&clues, d);
        let start = clues_b.padded(&half_norms, f32::NEG_INFINITY);
        let model = Model {
            d,
            k,
            layers,
            cards,
            clues,
            clues_b,
            start,
            alphas,
        };
        model.probe()?;
        Ok(model)
    }

    /// Fails unless the network's output on a board of its first card words (a team of
    /// [`MAX_TEAM`], then 8 enemies and an assassin, as far as there are cards) is finite:
    /// finite weights too large for a trained network (3e38) overflow in the products, and
    /// every subset's loss would be no number. (A query costs as much: well under a millisecond.)
    fn probe(&self) -> Result<()> {
        let cards: Vec<&[f32]> = (0..self.card_count()).map(|i| self.card(i)).collect();
        if cards.is_empty() {
            return Ok(());
        }
        let team = &cards[..cards.len().min(MAX_TEAM)];
        let enemy = cards
            .get(team.len()..(team.len() + 8).min(cards.len()))
            .unwrap_or(&[]);
        let assassin = cards.get(team.len() + enemy.len()).copied();
        let c = self.clue_vectors(team, enemy, assassin);
        let losses = self.board_losses(&c, team, enemy, &[], assassin);
        if self.all_measurable(&c) && losses.iter().all(|(_, l)| l.is_finite()) {
            Ok(())
        } else {
            bail!(
                "the network's output is not a finite number on a board of its own card words: \
                 its weights are finite but too large for a trained network"
            )
        }
    }

    /// Whether every row of `c` (clue vectors, `d` values each) has a finite squared length:
    /// a distance to it is a number. (A vector of finite values near 3e38 has none, and the
    /// losses' hinge, `max(NaN, 0)`, would read it as 0.)
    pub fn all_measurable(&self, c: &[f32]) -> bool {
        c.chunks(self.d)
            .all(|v| v.iter().map(|x| x * x).sum::<f32>().is_finite())
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
        let mut rest = g_e;
        match assassin {
            Some(a) => rest.extend_from_slice(a),
            None => rest.resize(k + d, 0.0),
        }
        let (h1_t, h1_rest) = (&self.layers[4], &self.layers[5]);
        let shared = h1_rest.apply(&rest, 1, false);
        let hid = h1_t.apply_from(&g_t, s, &h1_t.w.padded(&shared, 0.0), true);
        self.layers[6].apply(&hid, s, false)
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
        let nt = team.len().min(MAX_TEAM);
        // The board's cards (team, enemy, civilian, assassin) blocked as the clue words are:
        // the distances from one clue vector to all of them are summed side by side, each in
        // the order of its dimensions (vectorised across the cards, not along a card's own
        // chain of sums).
        let flat: Vec<f32> = team[..nt]
            .iter()
            .chain(enemy)
            .chain(civilian)
            .chain(assassin.as_slice())
            .flat_map(|v| v.iter().copied())
            .collect();
        let board = Blocked::from_rows(&flat, d);
        let (nb, stride) = (board.n, board.padded_len());
        let (ne, nc) = (enemy.len(), civilian.len());
        let s = (1usize << nt) - 1;
        let all = distances(&c[..s * d], &board);
        subsets(nt)
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let dist = &all[i * stride..i * stride + nb];
                let nearest = |from: usize, len: usize| {
                    dist[from..from + len]
                        .iter()
                        .copied()
                        .fold(f32::INFINITY, f32::min)
                };
                let far = members(m).map(|t| dist[t]).fold(0f32, f32::max);
                let hinge = |alpha: f64, near: f32| (alpha as f32 + far - near).max(0.0);
                let mut l = hinge(self.alphas.enemy, nearest(nt, ne))
                    + hinge(self.alphas.civilian, nearest(nt + ne, nc));
                if assassin.is_some() {
                    l += hinge(self.alphas.assassin, dist[nt + ne + nc]);
                }
                (m, l)
            })
            .collect()
    }

    /// For each of the `m` clue vectors in `c`, how near each clue word is (higher nearer:
    /// `c·v − ½‖v‖²`, which orders clue words by Euclidean distance): `m × clues`.
    pub fn closeness(&self, c: &[f32], m: usize) -> Vec<f32> {
        self.clues_b.all(c, m, &self.start)
    }

    /// For each of the `m` clue vectors in `c`, the `head` clue words nearest it, nearest
    /// first (equal closeness: the lower index first), in one pass over the clue words: most
    /// blocks of them fail one comparison with the farthest kept, and the `m × clues`
    /// closeness of [`Model::closeness`] is never written out.
    pub fn nearest(&self, c: &[f32], m: usize, head: usize) -> Vec<Vec<u32>> {
        let mut heads = Heads::new(m, head, self.clue_count());
        self.clues_b.product(c, m, &self.start, &mut heads);
        heads.into_indices()
    }
}
