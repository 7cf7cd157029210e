//! Stage `clue_pages`: the pages whose one-word titles may become clues.
//!
//! A neighbour of a term page (a page it links to, or that links to it) scores, per term, 1 when
//! it is linked with the term in one direction and 1.5 when both ways: the best over the term's
//! pages, not their sum, so a term with many pages (america: North and South America) does not
//! outweigh the rule. Its link score is the sum over terms. Neighbours of one term only are dropped; those of three
//! or more are kept; of those linked to exactly two terms, the 10 best per pair are kept
//! (higher score first, then lower page id). `--keep-all` keeps every neighbour.

use crate::{Config, progress, record};
use anyhow::Result;
use std::collections::{BTreeMap, HashMap, HashSet};
use store::{Build, ClueLink};

/// How many neighbours of exactly two terms are kept per pair of terms.
pub const PER_PAIR: usize = 10;

/// A kept neighbour with its link score per term.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub page_id: u64,
    pub score: f64,
    pub per_term: Vec<(String, f64)>,
}

/// Link score of one neighbour `p` with one term page `q`.
pub fn link_score(q_links_p: bool, p_links_q: bool) -> f64 {
    match (q_links_p, p_links_q) {
        (true, true) => 1.5,
        (true, false) | (false, true) => 1.0,
        (false, false) => 0.0,
    }
}

/// Applies the scoring and the cuts. `term_pages` maps each term to its pages; `out`/`inn` are
/// the link sets; `eligible` says whether a page may be a clue page (one-word title, article).
pub fn select(
    term_pages: &BTreeMap<String, Vec<u64>>,
    out: &HashMap<u64, HashSet<u64>>,
    inn: &HashMap<u64, HashSet<u64>>,
    eligible: impl Fn(u64) -> bool,
    keep_all: bool,
) -> Vec<Neighbour> {
    let empty = HashSet::new();
    let mut per: BTreeMap<u64, BTreeMap<&str, f64>> = BTreeMap::new();
    for (term, pages) in term_pages {
        let own: HashSet<u64> = pages.iter().copied().collect();
        for &q in pages {
            let (qo, qi) = (out.get(&q).unwrap_or(&empty), inn.get(&q).unwrap_or(&empty));
            for &p in qo.union(qi) {
                if own.contains(&p) || !eligible(p) {
                    continue;
                }
                let best = per.entry(p).or_default().entry(term.as_str()).or_default();
                *best = best.max(link_score(qo.contains(&p), qi.contains(&p)));
            }
        }
    }
    let mut kept = Vec::new();
    let mut pairs: BTreeMap<(&str, &str), Vec<Neighbour>> = BTreeMap::new();
    for (p, terms) in per {
        let n = Neighbour {
            page_id: p,
            score: terms.values().sum(),
            per_term: terms.iter().map(|(t, s)| (t.to_string(), *s)).collect(),
        };
        match terms.len() {
            _ if keep_all => kept.push(n),
            0 | 1 => {}
            2 => {
                let mut k = terms.keys();
                let key = (*k.next().unwrap_or(&""), *k.next().unwrap_or(&""));
                pairs.entry(key).or_default().push(n);
            }
            _ => kept.push(n),
        }
    }
    for (_, mut list) in pairs {
        list.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.page_id.cmp(&b.page_id)));
        kept.extend(list.into_iter().take(PER_PAIR));
    }
    kept.sort_by_key(|n| n.page_id);
    kept
}

/// A title that can be a clue: one word of letters.
pub fn is_one_word(title: &str) -> bool {
    !title.is_empty() && title.chars().all(char::is_alphabetic)
}

pub fn run(build: &Build, config: &Config) -> Result<()> {
    let reader = build.reader();
    let pages = reader.pages()?;
    let ok: HashSet<u64> = pages
        .iter()
        .filter(|p| {
            p.ns == 0 && p.redirect_to.is_none() && !p.is_disambiguation && is_one_word(&p.title)
        })
        .map(|p| p.id)
        .collect();
    let mut term_pages: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (t, id, _) in reader.term_pages()? {
        term_pages.entry(t).or_default().push(id);
    }
    // `select` reads the links of term pages only: their out-links from their rows of the
    // graph, their in-links from one pass over it (self-links left out, as the scoring says).
    let graph = reader.link_graph()?;
    let mut out: HashMap<u64, HashSet<u64>> = HashMap::new();
    let mut inn: HashMap<u64, HashSet<u64>> = HashMap::new();
    let mut is_term_page = vec![false; graph.nodes()];
    for &q in term_pages.values().flatten() {
        if let Some(i) = graph.index_of(q) {
            is_term_page[i as usize] = true;
            let links: HashSet<u64> = graph.out_links(q).filter(|&d| d != q).collect();
            if !links.is_empty() {
                out.insert(q, links);
            }
        }
    }
    let ids = graph.ids();
    for s in 0..graph.nodes() as u32 {
        for &d in graph.neighbours(s) {
            if d != s && is_term_page[d as usize] {
                inn.entry(ids[d as usize])
                    .or_default()
                    .insert(ids[s as usize]);
            }
        }
    }
    drop(graph);
    // Scoring is one pass over the term pages' links; the bar follows the writes.
    let pb = progress::bar(0, "pages");
    pb.set_prefix("clue_pages");
    pb.set_message("scoring neighbours");
    let kept = select(
        &term_pages,
        &out,
        &inn,
        |p| ok.contains(&p),
        config.keep_all_neighbours,
    );
    pb.set_length(kept.len() as u64);
    pb.set_message("");
    build.begin()?;
    build.clear(&["clue_pages", "clue_page_terms"])?;
    for n in &kept {
        pb.inc(1);
        build.insert_clue_page(n.page_id, n.score, n.per_term.len() as u64)?;
        for (term, s) in &n.per_term {
            build.insert_clue_link(&ClueLink {
                page_id: n.page_id,
                term: term.clone(),
                link_score: *s,
            })?;
        }
    }
    build.commit()?;
    pb.finish_and_clear();
    record(
        build,
        "clue_pages",
        &[
            ("kept", kept.len().to_string()),
            ("keep_all", config.keep_all_neighbours.to_string()),
            ("per_pair", PER_PAIR.to_string()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(u64, u64)]) -> (HashMap<u64, HashSet<u64>>, HashMap<u64, HashSet<u64>>) {
        let mut out: HashMap<u64, HashSet<u64>> = HashMap::new();
        let mut inn: HashMap<u64, HashSet<u64>> = HashMap::new();
        for &(s, d) in edges {
            out.entry(s).or_default().insert(d);
            inn.entry(d).or_default().insert(s);
        }
        (out, inn)
    }

    #[test]
    fn link_scores_one_and_one_and_a_half() {
        assert_eq!(link_score(true, false), 1.0);
        assert_eq!(link_score(false, true), 1.0);
        assert_eq!(link_score(true, true), 1.5);
    }

    #[test]
    fn scores_sum_over_terms_and_cuts_apply() {
        // Term pages: a=1, b=2, c=3. Neighbour 10 links with all three (both ways with a),
        // 11 with a only, 12..=23 with a and b.
        let mut edges = vec![(1, 10), (10, 1), (2, 10), (10, 3), (1, 11)];
        for p in 12..=23 {
            edges.push((1, p));
            edges.push((2, p));
            if p <= 13 {
                edges.push((p, 2)); // 12 and 13 score higher: 1 + 1.5
            }
        }
        let (out, inn) = graph(&edges);
        let tp: BTreeMap<String, Vec<u64>> = [
            ("a".into(), vec![1]),
            ("b".into(), vec![2]),
            ("c".into(), vec![3]),
        ]
        .into_iter()
        .collect();
        let kept = select(&tp, &out, &inn, |_| true, false);
        let ids: Vec<u64> = kept.iter().map(|n| n.page_id).collect();
        // 10 kept (3 terms), 11 dropped (1 term), of 12..=23 (12 pages, pair a-b) the best 10:
        // 12 and 13 first (2.5), then 14..=21 by id.
        assert_eq!(ids, vec![10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]);
        let n10 = &kept[0];
        assert_eq!(n10.score, 1.5 + 1.0 + 1.0);
        assert_eq!(
            n10.per_term,
            vec![("a".into(), 1.5), ("b".into(), 1.0), ("c".into(), 1.0)]
        );
        assert_eq!(kept[1].score, 2.5);
        let all = select(&tp, &out, &inn, |_| true, true);
        assert_eq!(all.len(), 14, "keep-all keeps every neighbour");
        let none = select(&tp, &out, &inn, |p| p != 10, false);
        assert!(
            none.iter().all(|n| n.page_id != 10),
            "ineligible pages never kept"
        );
    }

    #[test]
    fn a_term_with_two_pages_scores_its_best_link_not_the_sum() {
        // Term a has pages 1 and 2, term b page 3. Neighbour 10 links both ways with 1 and 2
        // (1.5 each), one way with 3; neighbour 11 one way with 1 and 2, both ways with 3.
        let (out, inn) = graph(&[
            (1, 10),
            (10, 1),
            (2, 10),
            (10, 2),
            (3, 10),
            (1, 11),
            (11, 2),
            (3, 11),
            (11, 3),
        ]);
        let tp: BTreeMap<String, Vec<u64>> = [("a".into(), vec![1, 2]), ("b".into(), vec![3])]
            .into_iter()
            .collect();
        let kept = select(&tp, &out, &inn, |_| true, false);
        assert_eq!(kept.len(), 2);
        assert_eq!(
            kept[0].per_term,
            vec![("a".into(), 1.5), ("b".into(), 1.0)],
            "1.5, not 3.0, for two pages linked both ways"
        );
        assert_eq!(kept[0].score, 2.5);
        assert_eq!(kept[1].per_term, vec![("a".into(), 1.0), ("b".into(), 1.5)]);
        assert_eq!(kept[1].score, 2.5);
    }

    #[test]
    fn one_word_titles() {
        assert!(is_one_word("Fruit"));
        assert!(is_one_word("Éclair"));
        assert!(!is_one_word("Apple pie"));
        assert!(!is_one_word("AT&T"));
        assert!(!is_one_word("1990s"));
    }
}
