//! The "herfindahl" strategy: group the positive terms by their documents, then find for each
//! group the word concentrated in that group (across groups) but spread evenly within it.
//!
//! Steps (figures of the published example in `reference/herfindahl-worked-example.md`):
//! 1. the positive terms' documents (`term_docs`) are clustered ([`crate::cluster`]): cosine
//!    similarity, angular distance, complete linkage, `k` by mean silhouette;
//! 2. the assassin's document is a cluster of its own, and so is each negative term's document
//!    when [`HerfindahlParams::use_negatives`] is set ("dangerous" clusters);
//! 3. per document `j`, a word's count is min–max normalised over the shared vocabulary:
//!    `r_cj = (n_cj − min_j) / (max_j − min_j)` (0 when the document's counts are all equal);
//! 4. per cluster `i`, `m_ci` = mean of `r_cj` over its documents; `H_cluster(c)` = normalised
//!    Herfindahl index of `(m_ci)_i` over all clusters (1 when there is a single cluster in
//!    all: nothing to avoid, and every word is wholly in it); `H_document(c, i)` = normalised index of
//!    `(r_cj)_{j ∈ i}` (0 for a one-document cluster);
//! 5. `weight(c, i) = m_ci · (H_cluster(c) − H_document(c, i))`: high when `c` belongs to
//!    cluster `i` rather than others, and to all its documents rather than one;
//! 6. a clue whose largest `m_ci` is in a dangerous cluster is dropped (ties count as dangerous);
//! 7. per positive cluster, the legal clue with the highest positive weight is suggested, its
//!    number being the cluster's size and its targets the cluster's terms. With
//!    [`HerfindahlParams::require_scored`] (the default) the clue must also have a `scores` row
//!    with at least one term of the cluster: the guesser reads `scores`, and a word that merely
//!    occurs in the documents (`name`, `best`) would leave it nothing to follow.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;

use crate::Knowledge;
use crate::cluster::{self, Clustering, DocVectors};
use crate::game::{Request, Suggestion};
use crate::legality::Legality;

/// Parameters of the herfindahl strategy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HerfindahlParams {
    /// How many suggestions to return (at most one per positive cluster).
    pub top: usize,
    /// Whether negative terms' documents are dangerous clusters too (the assassin's always is).
    pub use_negatives: bool,
    /// Whether a cluster's clue must score (in `scores`) with at least one of its terms.
    pub require_scored: bool,
}

impl Default for HerfindahlParams {
    fn default() -> Self {
        HerfindahlParams {
            top: 10,
            use_negatives: true,
            require_scored: true,
        }
    }
}

/// Normalised Herfindahl index of the shares `x_i / Σx`: `H* = (H − 1/n) / (1 − 1/n)` with
/// `H = Σ s_i²`; 0 for `n ≤ 1` and when all values are 0 (nothing to be concentrated).
/// 1 means everything in one place, 0 an even spread.
pub fn h_star(values: &[f64]) -> f64 {
    let n = values.len();
    let total: f64 = values.iter().sum();
    if n <= 1 || total <= 0.0 || !total.is_finite() {
        return 0.0;
    }
    let h: f64 = values.iter().map(|v| (v / total) * (v / total)).sum();
    let inv = 1.0 / n as f64;
    (h - inv) / (1.0 - inv)
}

/// How one clue spreads over the clusters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClueProfile {
    /// `m_ci` per cluster.
    pub m: Vec<f64>,
    pub h_cluster: f64,
    /// `H_document(c, i)` per cluster.
    pub h_document: Vec<f64>,
    /// `m_ci · (H_cluster − H_document)` per cluster.
    pub weights: Vec<f64>,
}

/// The profile of a clue from its `r_cj` per document and the documents' cluster `labels`
/// (0-based, below `clusters`).
pub fn profile(r: &[f64], labels: &[usize], clusters: usize) -> ClueProfile {
    let mut members: Vec<Vec<f64>> = vec![Vec::new(); clusters];
    for (&x, &l) in r.iter().zip(labels) {
        if let Some(c) = members.get_mut(l) {
            c.push(x);
        }
    }
    let m: Vec<f64> = members
        .iter()
        .map(|v| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        })
        .collect();
    // With a single cluster in all (two positive terms, nothing to avoid) the index across
    // clusters is degenerate; everything is in that cluster, so it counts as fully
    // concentrated rather than never suggesting anything.
    let h_cluster = if clusters == 1 { 1.0 } else { h_star(&m) };
    let h_document: Vec<f64> = members.iter().map(|v| h_star(v)).collect();
    let weights = m
        .iter()
        .zip(&h_document)
        .map(|(mi, hd)| mi * (h_cluster - hd))
        .collect();
    ClueProfile {
        m,
        h_cluster,
        h_document,
        weights,
    }
}

/// Whether the clue is most concentrated in a dangerous cluster: clusters `safe..` are the
/// assassin's and negative terms' documents. Ties go against the clue.
pub fn is_dangerous(p: &ClueProfile, safe: usize) -> bool {
    let best_safe =
        p.m.iter()
            .take(safe)
            .fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let best_danger =
        p.m.iter()
            .skip(safe)
            .fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    best_danger >= best_safe
}

/// Per-document min–max normalised counts, sparse: `(word id, r)` sorted by id, only `r > 0`.
/// The minimum is over the shared vocabulary, so it is 0 unless the document has every word.
pub fn min_max(v: &DocVectors) -> Vec<Vec<(u32, f64)>> {
    let vocab = v.vocabulary.len();
    v.docs
        .iter()
        .map(|doc| {
            let max = doc.iter().map(|&(_, c)| c).max().unwrap_or(0);
            let min = if doc.len() < vocab {
                0
            } else {
                doc.iter().map(|&(_, c)| c).min().unwrap_or(0)
            };
            if max <= min {
                return Vec::new();
            }
            let span = (max - min) as f64;
            doc.iter()
                .filter(|&&(_, c)| c > min)
                .map(|&(id, c)| (id, (c - min) as f64 / span))
                .collect()
        })
        .collect()
}

/// One positive cluster and the clue chosen for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterPick {
    pub members: Vec<String>,
    /// The best legal, safe clue with positive weight, if any.
    pub best: Option<Suggestion>,
}

/// Everything the strategy computed, for `explain`-style output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// The positive terms, in request order (the clustering's observations).
    pub terms: Vec<String>,
    pub clustering: Clustering,
    pub clusters: Vec<ClusterPick>,
}

/// Runs the strategy on documents already read. `pos_docs[j]` belongs to `pos[j]`; each of
/// `dangerous_docs` is a cluster of its own. With `scored`, `scored[j]` holds the clues that
/// `pos[j]` has a score with, and a cluster's clue must be in one of its members' sets.
pub fn analyse_docs(
    pos: &[String],
    pos_docs: &[Vec<(String, u64)>],
    dangerous_docs: &[Vec<(String, u64)>],
    legality: &Legality<'_>,
    scored: Option<&[HashSet<String>]>,
) -> Analysis {
    let p = pos.len().min(pos_docs.len());
    let all: Vec<Vec<(String, u64)>> = pos_docs[..p]
        .iter()
        .chain(dangerous_docs)
        .cloned()
        .collect();
    let vectors = cluster::vectorise(&all);
    let pos_vectors = DocVectors {
        vocabulary: Vec::new(),
        docs: vectors.docs[..p].to_vec(),
    };
    let distances = cluster::angular_distances(&cluster::cosine_matrix(&pos_vectors));
    let clustering = cluster::cluster_by_silhouette(&distances);
    let k = clustering.k;
    let mut labels = clustering.labels.clone();
    labels.extend((0..dangerous_docs.len()).map(|i| k + i));
    let clusters = k + dangerous_docs.len();
    let r = min_max(&vectors);
    // Per positive cluster: its members' scored clues, when the clue must have one.
    let scored_in: Option<Vec<Vec<&HashSet<String>>>> = scored.map(|sets| {
        (0..k)
            .map(|i| {
                (0..p)
                    .filter(|&j| clustering.labels[j] == i)
                    .filter_map(|j| sets.get(j))
                    .collect()
            })
            .collect()
    });
    // Candidates: words with r > 0 in some positive document.
    let mut candidates: Vec<u32> = r[..p].iter().flatten().map(|&(id, _)| id).collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut best: Vec<Option<(f64, u32)>> = vec![None; k];
    let mut rc = vec![0.0f64; all.len()];
    for &id in &candidates {
        let Some(word) = vectors.vocabulary.get(id as usize) else {
            continue;
        };
        for (slot, doc) in rc.iter_mut().zip(&r) {
            *slot = doc
                .binary_search_by_key(&id, |&(i, _)| i)
                .map(|at| doc[at].1)
                .unwrap_or(0.0);
        }
        let prof = profile(&rc, &labels, clusters);
        if is_dangerous(&prof, k) {
            continue;
        }
        // Legality (inflection look-ups against every card) is the costly test: ask it only of
        // a word that would become some cluster's best, once.
        let mut legal = None;
        for (i, &w) in prof.weights.iter().take(k).enumerate() {
            // Strictly better, or equal and alphabetically first (ids are alphabetical,
            // visited ascending, so the first one seen wins a tie).
            if w > 0.0
                && best[i].is_none_or(|(bw, _)| w > bw)
                && scored_in
                    .as_ref()
                    .is_none_or(|sets| sets[i].iter().any(|s| s.contains(word)))
                && *legal.get_or_insert_with(|| legality.allows(word))
            {
                best[i] = Some((w, id));
            }
        }
    }
    let picks = (0..k)
        .map(|i| {
            let members: Vec<String> = (0..p)
                .filter(|&j| clustering.labels[j] == i)
                .map(|j| pos[j].clone())
                .collect();
            let best = best[i].and_then(|(w, id)| {
                vectors.vocabulary.get(id as usize).map(|clue| Suggestion {
                    clue: clue.clone(),
                    count: members.len(),
                    targets: members.clone(),
                    score: w,
                })
            });
            ClusterPick { members, best }
        })
        .collect();
    Analysis {
        terms: pos[..p].to_vec(),
        clustering,
        clusters: picks,
    }
}

/// Reads the documents of the request's terms and runs [`analyse_docs`].
pub fn analyse<K: Knowledge + ?Sized>(
    k: &K,
    req: &Request,
    legality: &Legality<'_>,
    params: &HerfindahlParams,
) -> anyhow::Result<Analysis> {
    let read = |t: &String| {
        k.term_doc(t)
            .map_err(|e| e.context(format!("reading the document of {t:?}")))
    };
    let pos_docs = req
        .pos
        .iter()
        .map(read)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut dangerous = Vec::new();
    if let Some(a) = &req.assassin {
        dangerous.push(read(a)?);
    }
    if params.use_negatives {
        for t in &req.neg {
            dangerous.push(read(t)?);
        }
    }
    let scored = if params.require_scored {
        let sets = req
            .pos
            .iter()
            .map(|t| {
                k.clues_of(t)
                    .map(|clues| clues.into_iter().map(|(c, _)| c).collect::<HashSet<_>>())
                    .map_err(|e| e.context(format!("reading the clues of {t:?}")))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Some(sets)
    } else {
        None
    };
    Ok(analyse_docs(
        &req.pos,
        &pos_docs,
        &dangerous,
        legality,
        scored.as_deref(),
    ))
}

/// The best clue of each positive cluster, highest weight first (at most `params.top`).
pub fn suggest<K: Knowledge + ?Sized>(
    k: &K,
    req: &Request,
    legality: &Legality<'_>,
    params: &HerfindahlParams,
) -> anyhow::Result<Vec<Suggestion>> {
    if req.pos.is_empty() {
        return Ok(Vec::new());
    }
    let analysis = analyse(k, req, legality, params)?;
    let mut out: Vec<Suggestion> = analysis
        .clusters
        .into_iter()
        .filter_map(|c| c.best)
        .collect();
    crate::game::sort_suggestions(&mut out);
    out.truncate(params.top);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::NoLexicon;

    fn doc(pairs: &[(&str, u64)]) -> Vec<(String, u64)> {
        pairs.iter().map(|&(w, c)| (w.to_string(), c)).collect()
    }

    #[test]
    fn h_star_edges() {
        assert_eq!(h_star(&[]), 0.0);
        assert_eq!(h_star(&[0.7]), 0.0);
        assert_eq!(h_star(&[0.0, 0.0]), 0.0);
        assert_eq!(h_star(&[0.0, 3.0, 0.0]), 1.0);
        assert!(h_star(&[2.0, 2.0, 2.0]).abs() < 1e-15);
    }

    #[test]
    fn min_max_over_shared_vocabulary() {
        let v = cluster::vectorise(&[doc(&[("a", 2), ("b", 4)]), doc(&[("a", 1), ("c", 5)])]);
        let r = min_max(&v);
        // Doc 0 lacks "c", so its minimum is 0: a = 2/4, b = 1.
        assert_eq!(r[0], vec![(0, 0.5), (1, 1.0)]);
        assert_eq!(r[1], vec![(0, 0.2), (2, 1.0)]);
        // A document holding every word: min is its smallest count.
        let full = cluster::vectorise(&[doc(&[("a", 2), ("b", 4), ("c", 3)])]);
        assert_eq!(min_max(&full)[0], vec![(1, 1.0), (2, 0.5)]);
    }

    #[test]
    fn picks_a_clue_per_cluster_and_drops_assassin_words() {
        // Two clear groups: {river, lake} share "water"/"boat"; {bank, money} share "cash".
        // "fish" is shared by river and lake but most frequent in the assassin's document.
        let pos = ["river", "lake", "bank", "money", "loan"].map(String::from);
        let docs = vec![
            doc(&[("water", 5), ("boat", 4), ("fish", 2), ("flow", 3)]),
            doc(&[("water", 4), ("boat", 5), ("fish", 2), ("shore", 3)]),
            doc(&[("cash", 5), ("vault", 3), ("interest", 4)]),
            doc(&[("cash", 4), ("coin", 3), ("interest", 5)]),
            doc(&[("interest", 5), ("cash", 4), ("debt", 3)]),
        ];
        let assassin = vec![doc(&[("fish", 9), ("hook", 2)])];
        let lex = NoLexicon;
        let legality = Legality::new(&["river", "lake", "bank", "money", "loan", "angler"], &lex);
        let a = analyse_docs(&pos, &docs, &assassin, &legality, None);
        assert_eq!(a.clustering.k, 2);
        assert_eq!(a.clustering.labels, vec![0, 0, 1, 1, 1]);
        let picks: Vec<(&str, usize)> = a
            .clusters
            .iter()
            .filter_map(|c| c.best.as_ref())
            .map(|s| (s.clue.as_str(), s.count))
            .collect();
        assert_eq!(picks.len(), 2);
        assert_eq!(picks[1], ("interest", 3));
        // water and boat tie at r = (1, 0.8)/(0.8, 1): both weigh the same; "boat" wins
        // alphabetically.
        assert_eq!(picks[0], ("boat", 2));
        assert_eq!(a.clusters[0].members, vec!["river", "lake"]);
        // "fish" would be in the river/lake cluster but the assassin holds most of it.
        let r_fish = [0.4, 0.4, 0.0, 0.0, 0.0, 1.0];
        assert!(is_dangerous(&profile(&r_fish, &[0, 0, 1, 1, 1, 2], 3), 2));
    }
}
