//! PageRank by the power method on a compressed sparse row (CSR) graph, in parallel with rayon.
//!
//! The iteration *pulls*: each node sums the contributions of its in-neighbours, so every
//! thread writes only its own slice of the new rank vector (no atomics, no locks) and the
//! graph is read in one sequential pass per iteration. This is why the graph is stored as the
//! reverse CSR (in-neighbours) plus the out-degree of every node.
//!
//! Conventions (also recorded by the pipeline in `meta`):
//! - **Self-loops are dropped**: a page cannot vote for itself; a page whose only link is to
//!   itself is dangling.
//! - **Duplicate edges are merged**: a link counts once however often the source repeats it,
//!   so the out-degree is the number of *distinct* targets.
//! - **Dangling mass** (rank of nodes with no out-links) is spread evenly over all nodes.
//! - The **tolerance** is on the L1 change of the rank vector *as a probability distribution*
//!   (summing to 1), independent of the final scaling.
//! - The result is **scaled so the mean node has rank 1** (the ranks sum to `n`).
//! - The ranks are **the same to the last bit on every run** of the same graph, whatever the
//!   threads: every sum over the nodes is taken in node order, block by block.

use rayon::prelude::*;

/// Why a graph or a parameter set was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum Error {
    #[error("edge {index} ({src} -> {dst}) names a node outside 0..{n}")]
    NodeOutOfRange {
        index: usize,
        src: u32,
        dst: u32,
        n: usize,
    },
    #[error("graph of {0} nodes does not fit u32 node ids")]
    TooManyNodes(usize),
    #[error("damping {0} must be in [0, 1)")]
    Damping(f64),
    #[error("tolerance {0} must be finite and positive")]
    Tolerance(f64),
}

/// A directed graph stored for pull iteration: for node `v`, its distinct in-neighbours are
/// `sources[offsets[v]..offsets[v + 1]]`, sorted ascending; `out_degree[u]` counts the
/// distinct targets of `u` (self-loops excluded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<usize>,
    sources: Vec<u32>,
    out_degree: Vec<u32>,
}

impl Csr {
    /// Builds the reverse CSR of `n` nodes from `(src, dst)` edges, dropping self-loops and
    /// merging duplicates (see the crate docs). Node ids must be below `n`.
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Result<Csr, Error> {
        Csr::from_edge_iter(n, || edges.iter().copied())
    }

    /// [`Csr::from_edges`] over edges produced twice by `edges` (once to count, once to place),
    /// so that a caller holding its graph in another form (the store's CSR) need not collect
    /// every edge into a vector first: memory is this graph's, not twice the links.
    pub fn from_edge_iter<I: Iterator<Item = (u32, u32)>>(
        n: usize,
        edges: impl Fn() -> I,
    ) -> Result<Csr, Error> {
        if u32::try_from(n).is_err() {
            return Err(Error::TooManyNodes(n));
        }
        let mut in_degree = vec![0usize; n];
        for (index, (src, dst)) in edges().enumerate() {
            if src as usize >= n || dst as usize >= n {
                return Err(Error::NodeOutOfRange { index, src, dst, n });
            }
            if src != dst {
                in_degree[dst as usize] += 1;
            }
        }
        // Counting sort by destination: offsets are the prefix sums of in-degrees.
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0usize);
        let mut total = 0usize;
        for &d in &in_degree {
            total += d;
            offsets.push(total);
        }
        let mut cursor: Vec<usize> = offsets[..n].to_vec();
        let mut sources = vec![0u32; total];
        for (src, dst) in edges() {
            if src != dst {
                let slot = &mut cursor[dst as usize];
                sources[*slot] = src;
                *slot += 1;
            }
        }
        drop(cursor);
        // Sort and deduplicate every row in parallel; `in_degree` becomes the deduplicated length.
        {
            let mut rows: Vec<&mut [u32]> = Vec::with_capacity(n);
            let mut rest: &mut [u32] = &mut sources;
            for &d in &in_degree {
                let (row, tail) = rest.split_at_mut(d);
                rows.push(row);
                rest = tail;
            }
            rows.par_iter_mut()
                .zip(in_degree.par_iter_mut())
                .for_each(|(row, len)| {
                    row.sort_unstable();
                    let mut kept = 0usize;
                    for i in 0..row.len() {
                        if kept == 0 || row[i] != row[kept - 1] {
                            row[kept] = row[i];
                            kept += 1;
                        }
                    }
                    *len = kept;
                });
        }
        // Compact the rows (only moves data when duplicates were found).
        let mut write = 0usize;
        for v in 0..n {
            let (start, len) = (offsets[v], in_degree[v]);
            if write != start {
                sources.copy_within(start..start + len, write);
            }
            offsets[v] = write;
            write += len;
        }
        offsets[n] = write;
        sources.truncate(write);
        sources.shrink_to_fit();
        let mut out_degree = vec![0u32; n];
        for &u in &sources {
            out_degree[u as usize] += 1;
        }
        Ok(Csr {
            offsets,
            sources,
            out_degree,
        })
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.out_degree.len()
    }

    /// Number of distinct edges kept (self-loops and duplicates removed).
    pub fn edges(&self) -> usize {
        self.sources.len()
    }

    /// The distinct in-neighbours of `v`, sorted; empty when `v` is out of range.
    #[cfg(test)]
    pub fn in_neighbours(&self, v: usize) -> &[u32] {
        match (self.offsets.get(v), self.offsets.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.sources[a..b],
            _ => &[],
        }
    }

    /// Number of distinct targets of `u` (0 when out of range).
    pub fn out_degree(&self, u: usize) -> u32 {
        self.out_degree.get(u).copied().unwrap_or(0)
    }
}

/// Iteration parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Probability of following a link rather than jumping to a random node.
    pub damping: f64,
    /// Stop when the L1 change of the probability vector falls below this.
    pub tolerance: f64,
    /// Stop after this many iterations even when not converged (see [`Ranks::converged`]).
    pub max_iter: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            damping: 0.85,
            tolerance: 1e-9,
            max_iter: 200,
        }
    }
}

/// The result: ranks scaled to mean 1, and how the iteration ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranks {
    /// One rank per node; they sum to the number of nodes.
    pub ranks: Vec<f64>,
    /// Iterations performed.
    pub iterations: usize,
    /// L1 change (probability form) of the last iteration; 0 for an empty graph.
    pub final_delta: f64,
    /// Whether `final_delta` fell below the tolerance within `max_iter`.
    pub converged: bool,
}

/// Nodes per block of an iteration's parallel work. Each sum over the nodes is taken block by
/// block in node order and the blocks' sums are added in block order ([`ordered_sum`]), so
/// that a graph's ranks are the same to the last bit on every run: rayon's own `sum` adds in
/// the order its threads happened to split the work, and the ranks of one build of the pages
/// differed from the next in their last bits, and the `scores` made from them too.
const BLOCK: usize = 1024;

/// The sum of `parts` (one per [`BLOCK`]) in their order, whichever thread computed each.
fn ordered_sum(parts: impl IndexedParallelIterator<Item = f64>) -> f64 {
    parts.collect::<Vec<f64>>().iter().sum()
}

/// PageRank of every node of `graph`; see the crate docs for the conventions.
pub fn pagerank(graph: &Csr, params: Params) -> Result<Ranks, Error> {
    pagerank_observed(graph, params, |_, _| {})
}

/// [`pagerank`], calling `on_iteration(iteration, l1_delta)` after each iteration (1-based),
/// e.g. to show progress or time iterations.
pub fn pagerank_observed(
    graph: &Csr,
    params: Params,
    mut on_iteration: impl FnMut(usize, f64),
) -> Result<Ranks, Error> {
    if !(0.0..1.0).contains(&params.damping) {
        return Err(Error::Damping(params.damping));
    }
    if !(params.tolerance.is_finite() && params.tolerance > 0.0) {
        return Err(Error::Tolerance(params.tolerance));
    }
    let n = graph.nodes();
    if n == 0 {
        return Ok(Ranks {
            ranks: Vec::new(),
            iterations: 0,
            final_delta: 0.0,
            converged: true,
        });
    }
    let d = params.damping;
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    let mut next = vec![0.0f64; n];
    // contribution[u] = rank[u] / out_degree[u], so the inner loop is a plain gather-sum.
    let mut contribution = vec![0.0f64; n];
    let mut iterations = 0usize;
    let mut delta = f64::INFINITY;
    while iterations < params.max_iter {
        let dangling = ordered_sum(
            contribution
                .par_chunks_mut(BLOCK)
                .zip(rank.par_chunks(BLOCK))
                .zip(graph.out_degree.par_chunks(BLOCK))
                .map(|((c, r), deg)| {
                    let mut dangling = 0.0;
                    for ((c, &r), &deg) in c.iter_mut().zip(r).zip(deg) {
                        if deg == 0 {
                            *c = 0.0;
                            dangling += r;
                        } else {
                            *c = r / deg as f64;
                        }
                    }
                    dangling
                }),
        );
        let base = (1.0 - d) / nf + d * dangling / nf;
        let contribution = &contribution;
        let rank_ref = &rank;
        delta = ordered_sum(next.par_chunks_mut(BLOCK).enumerate().map(|(b, xs)| {
            let mut delta = 0.0;
            for (v, x) in (b * BLOCK..).zip(xs) {
                let sum: f64 = graph.sources[graph.offsets[v]..graph.offsets[v + 1]]
                    .iter()
                    .map(|&u| contribution[u as usize])
                    .sum();
                *x = base + d * sum;
                delta += (*x - rank_ref[v]).abs();
            }
            delta
        }));
        std::mem::swap(&mut rank, &mut next);
        iterations += 1;
        on_iteration(iterations, delta);
        if delta < params.tolerance {
            break;
        }
    }
    // The vector sums to 1 up to rounding; scale so it sums to n exactly (mean rank 1).
    let total = ordered_sum(rank.par_chunks(BLOCK).map(|r| r.iter().sum()));
    let scale = if total > 0.0 { nf / total } else { nf };
    rank.par_iter_mut().for_each(|r| *r *= scale);
    Ok(Ranks {
        ranks: rank,
        iterations,
        final_delta: delta,
        converged: delta < params.tolerance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn csr_drops_self_loops_and_merges_duplicates() {
        let g = Csr::from_edges(3, &[(0, 1), (0, 1), (1, 1), (2, 1), (1, 0), (2, 1)]).unwrap();
        assert_eq!(g.nodes(), 3);
        assert_eq!(g.edges(), 3);
        assert_eq!(g.in_neighbours(1), &[0, 2]);
        assert_eq!(g.in_neighbours(0), &[1]);
        assert_eq!(g.in_neighbours(2), &[] as &[u32]);
        assert_eq!(g.in_neighbours(7), &[] as &[u32]);
        assert_eq!(
            (g.out_degree(0), g.out_degree(1), g.out_degree(2)),
            (1, 1, 1)
        );
    }

    #[test]
    fn csr_rejects_out_of_range_nodes() {
        assert_eq!(
            Csr::from_edges(2, &[(0, 1), (1, 2)]),
            Err(Error::NodeOutOfRange {
                index: 1,
                src: 1,
                dst: 2,
                n: 2
            })
        );
    }

    /// Graph: 0->1, 0->2, 1->2, 2->0, 2->3; node 3 is dangling. With d = 17/20, n = 4 and
    /// probabilities r (sum 1), the fixed point is, with b = (1-d)/4 + d*r3/4:
    ///   r0 = b + d*r2/2,  r1 = b + d*r0/2,  r2 = b + d*(r0/2 + r1),  r3 = b + d*r2/2.
    /// So r3 = r0 and b = 3/80 + 17 r0/80. Substituting:
    ///   r1 = 3/80 + 51 r0/80;  r2 = 111/1600 + 1887 r0/1600;
    ///   r0 = 3/80 + 17 r0/80 + (17/40)(111/1600 + 1887 r0/1600)
    ///   => 64000 r0 = 2400 + 13600 r0 + 1887 + 32079 r0 => r0 = 4287/18321 = 1429/6107.
    /// Then r1 = 1140/6107, r2 = 2109/6107, r3 = 1429/6107 (sum 6107/6107 = 1);
    /// scaled by n = 4: [5716, 4560, 8436, 5716] / 6107.
    #[test]
    fn small_graph_with_dangling_node_matches_hand_solution() {
        let g = Csr::from_edges(4, &[(0, 1), (0, 2), (1, 2), (2, 0), (2, 3)]).unwrap();
        let r = pagerank(
            &g,
            Params {
                damping: 0.85,
                tolerance: 1e-13,
                max_iter: 1000,
            },
        )
        .unwrap();
        assert!(r.converged);
        let expected = [5716.0, 4560.0, 8436.0, 5716.0].map(|x| x / 6107.0);
        for (got, want) in r.ranks.iter().zip(expected) {
            assert!(close(*got, want, 1e-10), "{got} vs {want}");
        }
        assert!(close(r.ranks.iter().sum::<f64>(), 4.0, 1e-12));
    }

    #[test]
    fn cycle_gives_all_ones() {
        let n = 5u32;
        let edges: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let g = Csr::from_edges(n as usize, &edges).unwrap();
        let r = pagerank(&g, Params::default()).unwrap();
        for x in &r.ranks {
            assert!(close(*x, 1.0, 1e-12), "{x}");
        }
        // Uniform start is already the fixed point: one iteration, zero change.
        assert_eq!(r.iterations, 1);
        assert!(r.converged);
    }

    /// `m` pseudo-random edges (xorshift64 from `seed`) from nodes below `sources` (the others
    /// dangling) to nodes below `n`, self-loops and duplicates among them.
    fn random_edges(seed: u64, m: usize, sources: u64, n: usize) -> Vec<(u32, u32)> {
        let mut state = seed;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..m)
            .map(|_| ((next() % sources) as u32, (next() % n as u64) as u32))
            .collect()
    }

    #[test]
    fn converges_within_tolerance_and_sums_to_n() {
        // A pseudo-random graph with dangling nodes, self-loops and duplicates.
        let n = 2000usize;
        let edges = random_edges(0x9e37_79b9_7f4a_7c15, 20_000, 1500, n);
        let g = Csr::from_edges(n, &edges).unwrap();
        let params = Params::default();
        let mut deltas = Vec::new();
        let r = pagerank_observed(&g, params, |i, d| deltas.push((i, d))).unwrap();
        assert!(r.converged);
        assert!(r.final_delta < params.tolerance);
        assert_eq!(deltas.len(), r.iterations);
        assert_eq!(deltas.last().map(|x| x.1), Some(r.final_delta));
        assert!(close(r.ranks.iter().sum::<f64>(), n as f64, 1e-8));
        // One more iteration from the result changes it by less than the tolerance (times
        // n for the scaling), i.e. the reported delta is honest.
        let again = pagerank(
            &g,
            Params {
                max_iter: r.iterations + 1,
                ..params
            },
        )
        .unwrap();
        let l1: f64 = again
            .ranks
            .iter()
            .zip(&r.ranks)
            .map(|(a, b)| (a - b).abs())
            .sum();
        assert!(l1 < params.tolerance * n as f64, "{l1}");
        // A plain sequential power iteration over the edge list (self-loops dropped, duplicates
        // merged, as the CSR does; nodes 1500.. dangling) reaches the same ranks.
        let mut uniq: Vec<(u32, u32)> = edges.iter().copied().filter(|(a, b)| a != b).collect();
        uniq.sort_unstable();
        uniq.dedup();
        let mut out = vec![0u32; n];
        for &(a, _) in &uniq {
            out[a as usize] += 1;
        }
        let (d, nf) = (params.damping, n as f64);
        let mut x = vec![1.0 / nf; n];
        for _ in 0..300 {
            let dangling: f64 = (0..n).filter(|&v| out[v] == 0).map(|v| x[v]).sum();
            let mut y = vec![(1.0 - d) / nf + d * dangling / nf; n];
            for &(a, b) in &uniq {
                y[b as usize] += d * x[a as usize] / out[a as usize] as f64;
            }
            x = y;
        }
        for (v, (got, want)) in r.ranks.iter().zip(&x).enumerate() {
            assert!(
                close(*got, want * nf, 1e-6),
                "node {v}: {got} vs {}",
                want * nf
            );
        }
    }

    #[test]
    fn the_same_graph_gives_the_same_ranks_bit_for_bit() {
        // Large enough that rayon splits every sum over the threads, which steal different
        // parts on every run: the build's PageRank, and the scores made from it, must not vary
        // in their last bits from one build of the same pages to the next.
        let n = 300_000usize;
        let edges = random_edges(0x2545_f491_4f6c_dd1d, 1_500_000, 250_000, n);
        let g = Csr::from_edges(n, &edges).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let run = |pool: &rayon::ThreadPool| {
            let mut deltas = Vec::new();
            let r = pool
                .install(|| pagerank_observed(&g, Params::default(), |_, d| deltas.push(d)))
                .unwrap();
            let bits = |x: &[f64]| x.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
            (bits(&r.ranks), bits(&deltas), r.iterations)
        };
        let first = run(&pool);
        for _ in 0..8 {
            assert_eq!(run(&pool), first);
        }
        // And on one thread, where no sum is split at all.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(run(&one), first);
    }

    #[test]
    fn not_converged_is_reported() {
        let g = Csr::from_edges(4, &[(0, 1), (0, 2), (1, 2), (2, 0), (2, 3)]).unwrap();
        let r = pagerank(
            &g,
            Params {
                max_iter: 2,
                ..Params::default()
            },
        )
        .unwrap();
        assert_eq!(r.iterations, 2);
        assert!(!r.converged);
        assert!(close(r.ranks.iter().sum::<f64>(), 4.0, 1e-12));
    }

    #[test]
    fn bad_params_and_empty_graph() {
        let g = Csr::from_edges(0, &[]).unwrap();
        let r = pagerank(&g, Params::default()).unwrap();
        assert!(r.ranks.is_empty());
        assert_eq!(
            pagerank(
                &g,
                Params {
                    damping: 1.0,
                    ..Params::default()
                }
            ),
            Err(Error::Damping(1.0))
        );
        assert_eq!(
            pagerank(
                &g,
                Params {
                    tolerance: 0.0,
                    ..Params::default()
                }
            ),
            Err(Error::Tolerance(0.0))
        );
    }

    #[test]
    fn all_dangling_is_uniform() {
        let g = Csr::from_edges(3, &[(1, 1)]).unwrap();
        let r = pagerank(&g, Params::default()).unwrap();
        assert_eq!(r.ranks, vec![1.0, 1.0, 1.0]);
    }
}
