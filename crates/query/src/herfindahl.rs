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
//! 7. the targets of `c` for cluster `i` are the members whose document has `c` (`r_cj > 0`):
//!    the published method says the whole cluster, but the guesser cannot reach a card whose
//!    document lacks the word;
//! 8. **the engine's extension of the published method** ([`HerfindahlParams::check_scores`],
//!    on by default): the guesser reads `scores`, not documents, so a target must also score
//!    with `c` above the threshold strategy's bar ([`threshold::safety_threshold`]: the clue's
//!    highest score with any negative card, and its score with the assassin plus
//!    [`HerfindahlParams::assassin_margin`]). Targets that do not are dropped, and a clue left
//!    with none is not offered. Documents alone once sent "route" to horn and loch ness,
//!    though `scores` ties route far closer to the assassin london;
//! 9. ranking, within and across clusters: `score = weight × count`, the weight summed over
//!    the targets it reaches, as the threshold strategy sums its targets' scores. Ranking by
//!    the weight alone favours one-document clusters (`H_document = 0` gives them the largest
//!    possible weight, `m·H_cluster`), so a singleton beat a clue for several cards on most
//!    boards. Ties: the larger count, then the clue alphabetically.
//!
//! The best [`HerfindahlParams::top`] clues of each positive cluster are kept (legal, safe,
//! positive weight), and the best `top` of all of them are suggested.

use serde::{Deserialize, Serialize};

use crate::Knowledge;
use crate::cluster::{self, Clustering, DocVectors};
use crate::legality::Legality;
use crate::request::{Request, Suggestion};
use crate::threshold::{self, DEFAULT_ASSASSIN_MARGIN};

/// Parameters of the herfindahl strategy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HerfindahlParams {
    /// How many suggestions to return (and to keep per positive cluster).
    pub top: usize,
    /// Whether negative terms' documents are dangerous clusters too (the assassin's always is).
    /// On by default, beyond the published method and DESIGN (the assassin's only): on the
    /// Wikispeedia build it wins as often in fewer turns (figures in docs/evaluation.md).
    pub use_negatives: bool,
    /// Whether targets must pass the check against `scores` (step 8, the engine's extension);
    /// off, the strategy is the published method.
    pub check_scores: bool,
    /// Added to a clue's score with the assassin in that check, as in the threshold strategy.
    pub assassin_margin: f64,
}

impl Default for HerfindahlParams {
    fn default() -> Self {
        HerfindahlParams {
            top: 10,
            use_negatives: true,
            check_scores: true,
            assassin_margin: DEFAULT_ASSASSIN_MARGIN,
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

/// The `scores` of the board's cards, which the guesser reads: what step 8 checks targets
/// against.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoardScores {
    /// Per positive term, in request order: its clues and their scores.
    pub pos: Vec<threshold::ClueMap>,
    /// Per negative card: its clues and their scores.
    pub neg: Vec<threshold::ClueMap>,
    pub assassin: Option<threshold::ClueMap>,
    pub assassin_margin: f64,
}

impl BoardScores {
    /// Reads the scores of every card of the request.
    pub fn read<K: Knowledge + ?Sized>(
        k: &K,
        req: &Request,
        assassin_margin: f64,
    ) -> anyhow::Result<BoardScores> {
        let maps = |terms: &[String]| {
            terms
                .iter()
                .map(|t| threshold::clue_map(k, t))
                .collect::<anyhow::Result<Vec<_>>>()
        };
        // A card to avoid that the knowledge does not cover counts as a risk, as in threshold.
        let (neg, assassin) = threshold::avoid_maps(k, req)?;
        Ok(BoardScores {
            pos: maps(&req.pos)?,
            neg,
            assassin,
            assassin_margin,
        })
    }

    /// The score a target must exceed for `clue` ([`threshold::safety_threshold`]).
    pub fn threshold(&self, clue: &str) -> f64 {
        threshold::safety_threshold(
            clue,
            &self.neg,
            self.assassin.as_ref(),
            self.assassin_margin,
        )
    }

    /// Whether positive term `j` scores with `clue` above `threshold`.
    fn beats(&self, j: usize, clue: &str, threshold: f64) -> bool {
        self.pos
            .get(j)
            .and_then(|m| m.get(clue))
            .is_some_and(|&s| s > threshold)
    }
}

/// One clue for a cluster: the suggestion (`score = weight × count`) and the weight behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pick {
    #[serde(flatten)]
    pub suggestion: Suggestion,
    pub weight: f64,
}

/// One positive cluster and the clues chosen for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterPick {
    pub members: Vec<String>,
    /// Legal, safe clues with positive weight and at least one target, best first.
    pub picks: Vec<Pick>,
}

impl ClusterPick {
    /// The cluster's best clue, if any.
    pub fn best(&self) -> Option<&Suggestion> {
        self.picks.first().map(|p| &p.suggestion)
    }
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
/// `dangerous_docs` is a cluster of its own. With `scores`, targets are checked against them
/// (step 8). At most `keep` clues are kept per cluster.
pub fn analyse_docs(
    pos: &[String],
    pos_docs: &[Vec<(String, u64)>],
    dangerous_docs: &[Vec<(String, u64)>],
    legality: &Legality<'_>,
    scores: Option<&BoardScores>,
    keep: usize,
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
    let clusters = pick_clues(
        &pos[..p],
        &vectors,
        &clustering.labels,
        legality,
        scores,
        keep,
    );
    Analysis {
        terms: pos[..p].to_vec(),
        clustering,
        clusters,
    }
}

/// Steps 3 to 9 once the positive documents are clustered: `vectors` holds the documents of
/// `pos` (labelled `labels[j]`, 0-based) and then each dangerous document. Returns one
/// [`ClusterPick`] per positive cluster, with at most `keep` clues each.
pub fn pick_clues(
    pos: &[String],
    vectors: &DocVectors,
    labels: &[usize],
    legality: &Legality<'_>,
    scores: Option<&BoardScores>,
    keep: usize,
) -> Vec<ClusterPick> {
    let p = pos.len().min(labels.len());
    let k = labels[..p].iter().map(|&l| l + 1).max().unwrap_or(0);
    let dangerous = vectors.docs.len().saturating_sub(p);
    let mut all_labels = labels[..p].to_vec();
    all_labels.extend((0..dangerous).map(|i| k + i));
    let members: Vec<Vec<usize>> = (0..k)
        .map(|i| (0..p).filter(|&j| labels[j] == i).collect())
        .collect();
    let r = min_max(vectors);
    // Candidates: words with r > 0 in some positive document, visited alphabetically.
    let mut candidates: Vec<u32> = r[..p].iter().flatten().map(|&(id, _)| id).collect();
    candidates.sort_unstable();
    candidates.dedup();
    // Per cluster: (score, weight, word id, targets), best first.
    type Kept = (f64, f64, u32, Vec<usize>);
    let mut kept: Vec<Vec<Kept>> = vec![Vec::new(); k];
    // Whether (score, count) ranks above a kept clue, as `sort_suggestions` orders them: words
    // come alphabetically, so on a full tie the one kept first stays ahead.
    let above =
        |score: f64, count: usize, l: &Kept| score > l.0 || (score == l.0 && count > l.3.len());
    let enters = |list: &[Kept], score: f64, count: usize| {
        list.len() < keep || list.last().is_some_and(|l| above(score, count, l))
    };
    let mut rc = vec![0.0f64; r.len()];
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
        let prof = profile(&rc, &all_labels, k + dangerous);
        if is_dangerous(&prof, k) {
            continue;
        }
        // The threshold (several map look-ups) and legality (inflection look-ups against every
        // card) are computed once per word, and only for a word that could enter some list.
        let mut threshold = None;
        let mut legal = None;
        for (i, &w) in prof.weights.iter().take(k).enumerate() {
            // With every member a target: the best this word can do here.
            let most = members[i].len();
            if w <= 0.0 || !enters(&kept[i], w * most as f64, most) {
                continue;
            }
            let bar = scores.map(|s| *threshold.get_or_insert_with(|| s.threshold(word)));
            let targets: Vec<usize> = members[i]
                .iter()
                .copied()
                .filter(|&j| rc[j] > 0.0)
                .filter(|&j| scores.zip(bar).is_none_or(|(s, t)| s.beats(j, word, t)))
                .collect();
            let score = w * targets.len() as f64;
            if targets.is_empty() || !enters(&kept[i], score, targets.len()) {
                continue;
            }
            if !*legal.get_or_insert_with(|| legality.allows(word)) {
                break;
            }
            let list = &mut kept[i];
            let at = list.partition_point(|l| !above(score, targets.len(), l));
            list.insert(at, (score, w, id, targets));
            list.truncate(keep);
        }
    }
    members
        .iter()
        .zip(kept)
        .map(|(m, list)| ClusterPick {
            members: m.iter().map(|&j| pos[j].clone()).collect(),
            picks: list
                .into_iter()
                .filter_map(|(score, weight, id, targets)| {
                    let clue = vectors.vocabulary.get(id as usize)?.clone();
                    Some(Pick {
                        suggestion: Suggestion {
                            clue,
                            count: targets.len(),
                            targets: targets.iter().map(|&j| pos[j].clone()).collect(),
                            score,
                            safety: None,
                            level: None,
                        },
                        weight,
                    })
                })
                .collect(),
        })
        .collect()
}

/// Reads the documents (and, with [`HerfindahlParams::check_scores`], the scores) of the
/// request's cards and runs [`analyse_docs`].
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
        for t in &req.avoid() {
            dangerous.push(read(t)?);
        }
    }
    let scores = if params.check_scores {
        Some(BoardScores::read(k, req, params.assassin_margin)?)
    } else {
        None
    };
    Ok(analyse_docs(
        &req.pos,
        &pos_docs,
        &dangerous,
        legality,
        scores.as_ref(),
        params.top,
    ))
}

/// The best clues of all positive clusters, best first (at most `params.top`).
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
        .flat_map(|c| c.picks)
        .map(|p| p.suggestion)
        .collect();
    crate::request::sort_suggestions(&mut out);
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
        let a = analyse_docs(&pos, &docs, &assassin, &legality, None, 10);
        assert_eq!(a.clustering.k, 2);
        assert_eq!(a.clustering.labels, vec![0, 0, 1, 1, 1]);
        let picks: Vec<(&str, usize)> = a
            .clusters
            .iter()
            .filter_map(|c| c.best())
            .map(|s| (s.clue.as_str(), s.count))
            .collect();
        assert_eq!(picks.len(), 2);
        assert_eq!(picks[1], ("interest", 3));
        // water and boat tie at r = (1, 0.8)/(0.8, 1): both weigh the same; "boat" wins
        // alphabetically. Without scores to check, every member whose document has the word
        // is a target.
        assert_eq!(picks[0], ("boat", 2));
        assert_eq!(a.clusters[0].members, vec!["river", "lake"]);
        // "fish" would be in the river/lake cluster but the assassin holds most of it.
        let r_fish = [0.4, 0.4, 0.0, 0.0, 0.0, 1.0];
        assert!(is_dangerous(&profile(&r_fish, &[0, 0, 1, 1, 1, 2], 3), 2));
    }
}
