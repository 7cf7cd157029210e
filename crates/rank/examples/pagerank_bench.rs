//! Throughput check: PageRank on a random graph of 1 M nodes and ~19 M edges (the size the
//! design quotes), printing edges per second for each iteration.
//!
//! `cargo run --release -p rank --example pagerank_bench [nodes] [edges]`

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let nodes: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let edges: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(19_000_000);
    // xorshift64*: deterministic, no dependency.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let t = Instant::now();
    let list: Vec<(u32, u32)> = (0..edges)
        .map(|_| {
            let src = (next() % nodes as u64) as u32;
            // Skew destinations towards low ids (squared uniform) so in-degrees vary like a web graph.
            let x = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let dst = ((x * x) * nodes as f64) as u32;
            (src, dst.min(nodes as u32 - 1))
        })
        .collect();
    println!("generated {edges} edges in {:.2?}", t.elapsed());
    let t = Instant::now();
    let graph = match rank::Csr::from_edges(nodes, &list) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("pagerank_bench: {e}");
            std::process::exit(1);
        }
    };
    drop(list);
    println!(
        "CSR: {} nodes, {} distinct edges, built in {:.2?}",
        graph.nodes(),
        graph.edges(),
        t.elapsed()
    );
    let threads = rayon::current_num_threads();
    let start = Instant::now();
    let mut last = Instant::now();
    let result = rank::pagerank_observed(&graph, rank::Params::default(), |i, delta| {
        let dt = last.elapsed().as_secs_f64();
        last = Instant::now();
        println!(
            "iteration {i:3}: {:.3} s, {:.1} M edges/s, L1 delta {delta:.3e}",
            dt,
            graph.edges() as f64 / dt / 1e6
        );
    });
    match result {
        Ok(r) => {
            let total = start.elapsed().as_secs_f64();
            println!(
                "{} iterations in {total:.2} s on {threads} threads: mean {:.1} M edges/s; converged {}, final delta {:.3e}, sum {:.3}",
                r.iterations,
                graph.edges() as f64 * r.iterations as f64 / total / 1e6,
                r.converged,
                r.final_delta,
                r.ranks.iter().sum::<f64>()
            );
        }
        Err(e) => {
            eprintln!("pagerank_bench: {e}");
            std::process::exit(1);
        }
    }
}
