//! Stage `pagerank`: PageRank of every article over the resolved links (crate `rank`), stored in
//! `pages.pagerank`, scaled so that the mean article has rank 1. Redirects get none.

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
    let edges: Vec<(u32, u32)> = reader
        .links()?
        .into_iter()
        .filter_map(|(s, d)| Some((*index.get(&s)?, *index.get(&d)?)))
        .collect();
    let graph = rank::Csr::from_edges(ids.len(), &edges)?;
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
            ("scale", "mean article = 1".into()),
        ],
    )
}
