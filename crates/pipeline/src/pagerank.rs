//! Stage `pagerank`: PageRank of every article over the resolved links (crate `rank`), stored in
//! `pages.pagerank`, scaled so that the mean page that is not a redirect (of any namespace) has rank 1. Redirects get none.

use crate::{progress, record};
use anyhow::Result;
use std::collections::HashMap;
use std::time::Instant;
use store::Build;

pub use rank::Params;

pub fn run(build: &Build, params: &Params) -> Result<()> {
    let reader = build.reader();
    let ids: Vec<u64> = reader
        .pages()?
        .into_iter()
        .filter(|p| p.redirect_to.is_none())
        .map(|p| p.id)
        .collect();
    let index: HashMap<u64, u32> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect();
    // The stored graph's nodes are every page; PageRank's, the articles: a table from one to
    // the other (`NONE` for redirects), and the edges read twice from the CSR, never collected.
    const NONE: u32 = u32::MAX;
    let graph = {
        let links = reader.link_graph()?;
        let node: Vec<u32> = links
            .ids()
            .iter()
            .map(|id| index.get(id).copied().unwrap_or(NONE))
            .collect();
        drop(index);
        let (node, links) = (&node, &links);
        let edges = || {
            (0..links.nodes() as u32)
                .filter(|&s| node[s as usize] != NONE)
                .flat_map(|s| {
                    links.neighbours(s).iter().filter_map(move |&d| {
                        let d = node[d as usize];
                        (d != NONE).then_some((node[s as usize], d))
                    })
                })
        };
        rank::Csr::from_edge_iter(ids.len(), edges)?
    };
    let pb = progress::bar(params.max_iter as u64, "iterations");
    pb.set_prefix("pagerank");
    let start = Instant::now();
    let ranks = rank::pagerank_observed(&graph, *params, |i, delta| {
        pb.set_position(i as u64);
        pb.set_message(format!("L1 change {delta:.2e}"));
    })?;
    let seconds = start.elapsed().as_secs_f64();
    pb.finish_and_clear();
    build.begin()?;
    build.set_pageranks(&ids, &ranks.ranks)?;
    build.commit()?;
    let edges_per_sec = graph.edges() as f64 * ranks.iterations as f64 / seconds.max(1e-9);
    record(
        build,
        "pagerank",
        &[
            ("damping", params.damping.to_string()),
            ("tolerance_l1", params.tolerance.to_string()),
            ("max_iter", params.max_iter.to_string()),
            ("iterations", ranks.iterations.to_string()),
            ("final_delta", format!("{:e}", ranks.final_delta)),
            ("converged", ranks.converged.to_string()),
            ("nodes", graph.nodes().to_string()),
            ("edges", graph.edges().to_string()),
            ("iteration_seconds", format!("{seconds:.4}")),
            ("edges_per_second", format!("{edges_per_sec:.0}")),
            ("scale", "mean page (not a redirect) = 1".into()),
        ],
    )
}
