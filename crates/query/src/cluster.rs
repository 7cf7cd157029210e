//! Grouping the positive terms by their documents, for the herfindahl strategy: cosine
//! similarity of term-frequency vectors, angular distance, complete-linkage agglomerative
//! clustering cut into `k` clusters, and `k` chosen by mean silhouette width.
//!
//! The conventions follow R's `hclust(method = "complete")`, `cutree(k = …)` and
//! `cluster::silhouette`, which the published worked example used, so that its figures are
//! reproduced exactly (see `tests/herfindahl_example.rs`):
//! - clusters of a cut are numbered in order of their first observation;
//! - a one-member cluster has silhouette width 0;
//! - the best `k` is the smallest one reaching the highest mean width.
//!
//! Sizes are a board's worth (a handful of terms), so the simple O(n³) algorithm is used.

use std::collections::BTreeMap;

use serde::Serialize;

/// Documents as sparse count vectors over one shared, alphabetically sorted vocabulary.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DocVectors {
    /// Every word of every document, sorted; a word's index is its id.
    pub vocabulary: Vec<String>,
    /// Per document, `(word id, count)` sorted by id, counts > 0, one entry per word.
    pub docs: Vec<Vec<(u32, u64)>>,
}

/// Turns `(word, count)` lists into [`DocVectors`]. Repeated words in one document are summed;
/// zero counts are dropped.
pub fn vectorise(docs: &[Vec<(String, u64)>]) -> DocVectors {
    let mut ids: BTreeMap<&str, u32> = BTreeMap::new();
    for doc in docs {
        for (w, c) in doc {
            if *c > 0 {
                ids.insert(w.as_str(), 0);
            }
        }
    }
    for (i, id) in ids.values_mut().enumerate() {
        *id = i as u32;
    }
    let vectors = docs
        .iter()
        .map(|doc| {
            let mut v: BTreeMap<u32, u64> = BTreeMap::new();
            for (w, c) in doc {
                if let Some(&id) = ids.get(w.as_str())
                    && *c > 0
                {
                    *v.entry(id).or_insert(0) += c;
                }
            }
            v.into_iter().collect()
        })
        .collect();
    DocVectors {
        vocabulary: ids.keys().map(|w| w.to_string()).collect(),
        docs: vectors,
    }
}

/// Cosine similarity of two sparse vectors sorted by id; 0 when either is empty.
pub fn cosine(a: &[(u32, u64)], b: &[(u32, u64)]) -> f64 {
    let norm = |v: &[(u32, u64)]| v.iter().map(|&(_, c)| (c as f64) * (c as f64)).sum::<f64>();
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let (mut i, mut j, mut dot) = (0usize, 0usize, 0.0f64);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += a[i].1 as f64 * b[j].1 as f64;
                i += 1;
                j += 1;
            }
        }
    }
    (dot / (na.sqrt() * nb.sqrt())).clamp(-1.0, 1.0)
}

/// The full symmetric cosine matrix of the documents (1 on the diagonal, even for an empty
/// document, which is identical to itself).
#[allow(
    clippy::needless_range_loop,
    reason = "a symmetric matrix: m[i][j] and m[j][i] are written together"
)]
pub fn cosine_matrix(v: &DocVectors) -> Vec<Vec<f64>> {
    let n = v.docs.len();
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        m[i][i] = 1.0;
        for j in 0..i {
            let s = cosine(&v.docs[i], &v.docs[j]);
            m[i][j] = s;
            m[j][i] = s;
        }
    }
    m
}

/// Angular distance `2·acos(s)/π` of a cosine similarity of non-negative vectors: a metric in
/// [0, 1] (cosine distance `1 − s` is not a metric).
pub fn angular_distance(s: f64) -> f64 {
    2.0 * s.clamp(-1.0, 1.0).acos() / std::f64::consts::PI
}

/// [`angular_distance`] of every entry, with an exact 0 diagonal.
pub fn angular_distances(sim: &[Vec<f64>]) -> Vec<Vec<f64>> {
    sim.iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, &s)| if i == j { 0.0 } else { angular_distance(s) })
                .collect()
        })
        .collect()
}

/// One agglomeration step: clusters `a` and `b` joined at `height`. Ids below `n` are
/// observations; id `n + i` is the cluster made by merge `i` (SciPy's convention).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Merge {
    pub a: usize,
    pub b: usize,
    pub height: f64,
}

/// The merge history of `n` observations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dendrogram {
    pub n: usize,
    pub merges: Vec<Merge>,
}

/// Complete-linkage clustering of a symmetric distance matrix (only `d[i][j]` with `i > j` is
/// read). At each step the two clusters whose farthest members are closest merge; ties go to
/// the pair formed earliest in index order, so the result is deterministic.
#[allow(
    clippy::needless_range_loop,
    reason = "pairs of slots of a symmetric matrix are read and written together"
)]
pub fn complete_linkage(d: &[Vec<f64>]) -> Dendrogram {
    let n = d.len();
    let at = |i: usize, j: usize| -> f64 {
        let (hi, lo) = if i > j { (i, j) } else { (j, i) };
        d.get(hi)
            .and_then(|r| r.get(lo))
            .copied()
            .unwrap_or(f64::NAN)
    };
    // Active clusters: (id, distance row to the other active clusters by slot).
    let mut ids: Vec<usize> = (0..n).collect();
    let mut dist: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if i == j { 0.0 } else { at(i, j) })
                .collect()
        })
        .collect();
    let mut merges = Vec::with_capacity(n.saturating_sub(1));
    while ids.len() > 1 {
        let mut best: Option<(usize, usize, f64)> = None;
        for i in 0..ids.len() {
            for j in (i + 1)..ids.len() {
                let h = dist[i][j];
                if best.is_none_or(|(_, _, bh)| h.total_cmp(&bh).is_lt()) {
                    best = Some((i, j, h));
                }
            }
        }
        let Some((i, j, h)) = best else { break };
        merges.push(Merge {
            a: ids[i].min(ids[j]),
            b: ids[i].max(ids[j]),
            height: h,
        });
        // Slot i becomes the merged cluster; slot j is removed.
        for c in 0..ids.len() {
            let m = if dist[i][c].total_cmp(&dist[j][c]).is_ge() {
                dist[i][c]
            } else {
                dist[j][c]
            };
            dist[i][c] = m;
            dist[c][i] = m;
        }
        dist[i][i] = 0.0;
        ids[i] = n + merges.len() - 1;
        ids.remove(j);
        dist.remove(j);
        for row in &mut dist {
            row.remove(j);
        }
    }
    Dendrogram { n, merges }
}

impl Dendrogram {
    /// Cluster labels (0-based, numbered by first observation) after cutting into `k` clusters
    /// (`k` clamped to 1..=n), i.e. after the first `n − k` merges (heights are monotone
    /// under complete linkage, so this is R's `cutree(k = …)`).
    pub fn cut(&self, k: usize) -> Vec<usize> {
        let n = self.n;
        if n == 0 {
            return Vec::new();
        }
        let k = k.clamp(1, n);
        // Map every node id (observations and merges) to a representative observation.
        let mut parent: Vec<usize> = (0..n + self.merges.len()).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for (i, m) in self.merges.iter().take(n - k).enumerate() {
            let new = n + i;
            let (ra, rb) = (root(&mut parent, m.a), root(&mut parent, m.b));
            parent[ra] = new;
            parent[rb] = new;
        }
        let mut label_of_root: BTreeMap<usize, usize> = BTreeMap::new();
        (0..n)
            .map(|i| {
                let r = root(&mut parent, i);
                let next = label_of_root.len();
                *label_of_root.entry(r).or_insert(next)
            })
            .collect()
    }
}

/// One observation's silhouette: its cluster, the nearest other cluster, and the width
/// `(b − a) / max(a, b)` (0 for a one-member cluster or when there is one cluster).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Width {
    pub cluster: usize,
    pub neighbour: usize,
    pub width: f64,
}

/// Silhouette widths of `labels` (0-based) on the precomputed distances `d`.
pub fn silhouette(d: &[Vec<f64>], labels: &[usize]) -> Vec<Width> {
    let k = labels.iter().map(|&l| l + 1).max().unwrap_or(0);
    let mut sizes = vec![0usize; k];
    for &l in labels {
        sizes[l] += 1;
    }
    let at = |i: usize, j: usize| d.get(i).and_then(|r| r.get(j)).copied().unwrap_or(0.0);
    (0..labels.len())
        .map(|i| {
            let own = labels[i];
            let mut sums = vec![0.0f64; k];
            for (j, &lj) in labels.iter().enumerate() {
                if j != i {
                    sums[lj] += at(i, j);
                }
            }
            let mut neighbour = own;
            let mut b = f64::INFINITY;
            for c in 0..k {
                if c != own && sizes[c] > 0 {
                    let mean = sums[c] / sizes[c] as f64;
                    if mean < b {
                        b = mean;
                        neighbour = c;
                    }
                }
            }
            let width = if sizes[own] <= 1 || !b.is_finite() {
                0.0
            } else {
                let a = sums[own] / (sizes[own] - 1) as f64;
                let m = a.max(b);
                if m > 0.0 { (b - a) / m } else { 0.0 }
            };
            Width {
                cluster: own,
                neighbour,
                width,
            }
        })
        .collect()
}

/// Mean of the widths (0 when empty).
pub fn mean_width(widths: &[Width]) -> f64 {
    if widths.is_empty() {
        0.0
    } else {
        widths.iter().map(|w| w.width).sum::<f64>() / widths.len() as f64
    }
}

/// The chosen partition and how each `k` fared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Clustering {
    pub k: usize,
    /// 0-based cluster of each observation.
    pub labels: Vec<usize>,
    pub mean_silhouette: f64,
    /// `(k, mean silhouette)` for every `k` tried, ascending.
    pub by_k: Vec<(usize, f64)>,
}

/// Complete linkage, cut at the `k` in `2..=n−1` with the highest mean silhouette (smallest
/// `k` on ties). With fewer than 3 observations no such `k` exists and all form one cluster:
/// the strategy then looks for a clue for all of them.
pub fn cluster_by_silhouette(d: &[Vec<f64>]) -> Clustering {
    let n = d.len();
    if n < 3 {
        return Clustering {
            k: 1.min(n),
            labels: vec![0; n],
            mean_silhouette: 0.0,
            by_k: Vec::new(),
        };
    }
    let tree = complete_linkage(d);
    let mut by_k = Vec::new();
    let mut best: Option<(usize, f64, Vec<usize>)> = None;
    for k in 2..n {
        let labels = tree.cut(k);
        let mean = mean_width(&silhouette(d, &labels));
        by_k.push((k, mean));
        if best.as_ref().is_none_or(|(_, bm, _)| mean > *bm) {
            best = Some((k, mean, labels));
        }
    }
    match best {
        Some((k, mean_silhouette, labels)) => Clustering {
            k,
            labels,
            mean_silhouette,
            by_k,
        },
        None => Clustering {
            k: 1,
            labels: vec![0; n],
            mean_silhouette: 0.0,
            by_k,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(pairs: &[(&str, u64)]) -> Vec<(String, u64)> {
        pairs.iter().map(|&(w, c)| (w.to_string(), c)).collect()
    }

    #[test]
    fn cosine_of_count_vectors() {
        let v = vectorise(&[
            doc(&[("a", 1), ("b", 2)]),
            doc(&[("b", 2), ("c", 1), ("b", 1)]),
            doc(&[]),
        ]);
        assert_eq!(v.vocabulary, vec!["a", "b", "c"]);
        assert_eq!(v.docs[1], vec![(1, 3), (2, 1)]);
        let m = cosine_matrix(&v);
        // (1,2)·(0,3,1) = 6; |(1,2)| = √5, |(3,1)| = √10: 6/√50.
        assert!((m[0][1] - 6.0 / 50f64.sqrt()).abs() < 1e-15);
        assert_eq!(m[0][2], 0.0);
        assert_eq!(m[2][2], 1.0);
        assert_eq!(angular_distance(1.0), 0.0);
        assert_eq!(angular_distance(0.0), 1.0);
        assert!((angular_distance(0.5) - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn linkage_uses_the_farthest_members() {
        // Points on a line at 0, 1, 3, 7: single linkage would join {0,1} then 3 (gap 2);
        // complete linkage joins {0,1} (1), then {0,1}+3 at max(3, 2) = 3, then 7 at 7.
        let x = [0.0f64, 1.0, 3.0, 7.0];
        let d: Vec<Vec<f64>> = x
            .iter()
            .map(|a| x.iter().map(|b| (a - b).abs()).collect())
            .collect();
        let t = complete_linkage(&d);
        let h: Vec<f64> = t.merges.iter().map(|m| m.height).collect();
        assert_eq!(h, vec![1.0, 3.0, 7.0]);
        assert_eq!(
            (t.merges[1].a, t.merges[1].b),
            (2, 4),
            "point 2 joins merge 0 (id 4)"
        );
        assert_eq!(t.cut(1), vec![0, 0, 0, 0]);
        assert_eq!(t.cut(2), vec![0, 0, 0, 1]);
        assert_eq!(t.cut(3), vec![0, 0, 1, 2]);
        assert_eq!(t.cut(4), vec![0, 1, 2, 3]);
        assert_eq!(t.cut(9), vec![0, 1, 2, 3]);
    }

    #[test]
    fn silhouette_by_hand() {
        // Points 0, 1, 5 with clusters {0,1}, {5}: for 0: a = 1, b = 5 → 0.8;
        // for 1: a = 1, b = 4 → 0.75; for 5 (alone) → 0.
        let x = [0.0f64, 1.0, 5.0];
        let d: Vec<Vec<f64>> = x
            .iter()
            .map(|a| x.iter().map(|b| (a - b).abs()).collect())
            .collect();
        let w = silhouette(&d, &[0, 0, 1]);
        assert_eq!(w[0].width, 0.8);
        assert_eq!(w[1].width, 0.75);
        assert_eq!(w[2].width, 0.0);
        assert_eq!((w[2].cluster, w[2].neighbour), (1, 0));
        assert!((mean_width(&w) - 1.55 / 3.0).abs() < 1e-15);
        let c = cluster_by_silhouette(&d);
        assert_eq!((c.k, c.labels.clone()), (2, vec![0, 0, 1]));
        assert_eq!(c.by_k.len(), 1);
    }

    #[test]
    fn tiny_inputs_form_one_cluster() {
        assert_eq!(cluster_by_silhouette(&[]).labels, Vec::<usize>::new());
        let two = vec![vec![0.0, 0.4], vec![0.4, 0.0]];
        let c = cluster_by_silhouette(&two);
        assert_eq!((c.k, c.labels), (1, vec![0, 0]));
    }
}
