//! The article graph as a CSR (compressed sparse rows): the links between stored pages, resolved
//! and deduplicated, without a SQLite row per link (issue 23, item 4).
//!
//! Why: a `links` row per link cost English Wikipedia ~15 GB and ~3 h of ingest, bound by the
//! single SQLite writer and its on-disk sort. Here the ingest hands `(src, dst)` page-id pairs to
//! a [`GraphBuilder`], which sorts them in memory in bounded chunks (in parallel), spills each
//! sorted chunk to an unnamed temporary file beside the database, and merges the runs into a
//! [`LinkGraph`]: the sorted page ids (node `i` is `ids[i]`), `offsets` (`u64`, one more than the
//! nodes) and `targets` (`u32` node indices, each row sorted, no duplicates). The stages read it
//! whole from the `link_graph` table (see `db/README.md`), a few blobs instead of rows.
//!
//! Memory, whatever the dump's size: the chunk being filled ([`DEFAULT_CHUNK_PAIRS`] pairs of
//! 8 bytes, 512 MiB), 512 KiB of read buffer per spilled run while merging, and the graph
//! itself (8 bytes per page for its id, 8 per page for its offset, 4 per distinct link).

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The table the graph is stored in: `link_graph(chunk INTEGER PRIMARY KEY, data BLOB)`.
pub const GRAPH_TABLE: &str = "link_graph";

/// The `meta` key the ingest writes with the graph: its number of links. A database that says
/// it holds a graph (this key, or `pipeline.links` `kept`) and has none in `link_graph` is
/// damaged, not a database without links.
pub const LINK_GRAPH_KEY: &str = "link_graph.edges";

/// Pairs held in memory before a sorted run is spilled (8 bytes each: 512 MiB).
pub const DEFAULT_CHUNK_PAIRS: usize = 64 << 20;

/// Bytes of one stored blob (the last is shorter): well under SQLite's 1 GB cap on a value,
/// large enough that the graph of English Wikipedia is a few hundred rows.
pub const BLOB_BYTES: usize = 16 << 20;

/// The first 8 bytes of chunk 0, the header: the layout's name and version.
const MAGIC: &[u8; 8] = b"CLUEGRF1";

/// Pairs read from a spilled run at a time, while merging.
const RUN_BUFFER_PAIRS: usize = 64 << 10;

/// The links between stored pages, as a CSR over the pages sorted by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkGraph {
    ids: Vec<u64>,
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl LinkGraph {
    /// A graph over `ids` (sorted, distinct page ids) with no links.
    #[cfg(test)]
    pub fn without_links(ids: Vec<u64>) -> LinkGraph {
        let offsets = vec![0; ids.len() + 1];
        LinkGraph {
            ids,
            offsets,
            targets: Vec::new(),
        }
    }

    /// Builds a graph from its three arrays, checking every promise the readers rely on: ids
    /// strictly increasing, offsets from 0 to the number of targets and never decreasing,
    /// every target a node, each row strictly increasing (sorted, no duplicates).
    pub fn from_parts(ids: Vec<u64>, offsets: Vec<u64>, targets: Vec<u32>) -> Result<LinkGraph> {
        if let Some(i) = ids.windows(2).position(|w| w[0] >= w[1]) {
            bail!(
                "page ids are not strictly increasing at node {}: {} then {}",
                i + 1,
                ids[i],
                ids[i + 1]
            );
        }
        if offsets.len() != ids.len() + 1 {
            bail!(
                "{} offsets for {} nodes (expected one more)",
                offsets.len(),
                ids.len()
            );
        }
        if offsets[0] != 0 || offsets[ids.len()] != targets.len() as u64 {
            bail!(
                "offsets run from {} to {}, expected 0 to {} (the number of targets)",
                offsets[0],
                offsets[ids.len()],
                targets.len()
            );
        }
        let n = ids.len() as u64;
        let bad_row = (0..ids.len()).into_par_iter().find_first(|&i| {
            let (a, b) = (offsets[i], offsets[i + 1]);
            if a > b || b > targets.len() as u64 {
                return true;
            }
            let row = &targets[a as usize..b as usize];
            row.iter().any(|&t| t as u64 >= n) || row.windows(2).any(|w| w[0] >= w[1])
        });
        if let Some(i) = bad_row {
            bail!(
                "the links of page {} (node {i}) are out of order, duplicated or point past the {n} nodes",
                ids[i]
            );
        }
        Ok(LinkGraph {
            ids,
            offsets,
            targets,
        })
    }

    /// Number of nodes (stored pages when the graph was built).
    pub fn nodes(&self) -> usize {
        self.ids.len()
    }

    /// Number of distinct links.
    pub fn edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The page id of every node, sorted.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// The node of page `id`, if the graph has it.
    pub fn index_of(&self, id: u64) -> Option<u32> {
        self.ids.binary_search(&id).ok().map(|i| i as u32)
    }

    /// The nodes node `i` links to, sorted; empty for a node past the graph.
    pub fn neighbours(&self, i: u32) -> &[u32] {
        let i = i as usize;
        if i >= self.ids.len() {
            return &[];
        }
        &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The page ids page `id` links to, sorted; none for a page the graph lacks.
    pub fn out_links(&self, id: u64) -> impl Iterator<Item = u64> + '_ {
        let row = self.index_of(id).map(|i| self.neighbours(i)).unwrap_or(&[]);
        row.iter().map(|&t| self.ids[t as usize])
    }

    /// Every link as `(src, dst)` page ids, sorted: the rows of the `links` table.
    pub fn pairs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.ids.len()).flat_map(move |i| {
            let src = self.ids[i];
            self.neighbours(i as u32)
                .iter()
                .map(move |&t| (src, self.ids[t as usize]))
        })
    }

    /// The reverse graph (who links to each node), over the same nodes: a counting sort by
    /// target, so each reversed row comes out sorted.
    pub fn transpose(&self) -> LinkGraph {
        let n = self.ids.len();
        let mut offsets = vec![0u64; n + 1];
        for &t in &self.targets {
            offsets[t as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut cursor: Vec<u64> = offsets[..n].to_vec();
        let mut targets = vec![0u32; self.targets.len()];
        for src in 0..n {
            for &t in self.neighbours(src as u32) {
                let slot = &mut cursor[t as usize];
                targets[*slot as usize] = src as u32;
                *slot += 1;
            }
        }
        LinkGraph {
            ids: self.ids.clone(),
            offsets,
            targets,
        }
    }

    /// The graph's bytes as stored: ids (`u64`), offsets (`u64`), targets (`u32`), little-endian.
    fn write_data(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(1 << 20);
        for &id in &self.ids {
            buf.extend_from_slice(&id.to_le_bytes());
            flush_if_full(&mut buf, out)?;
        }
        for &o in &self.offsets {
            buf.extend_from_slice(&o.to_le_bytes());
            flush_if_full(&mut buf, out)?;
        }
        for &t in &self.targets {
            buf.extend_from_slice(&t.to_le_bytes());
            flush_if_full(&mut buf, out)?;
        }
        out.write_all(&buf)
    }

    /// Bytes of [`write_data`](Self::write_data).
    fn data_len(&self) -> u64 {
        8 * self.ids.len() as u64 + 8 * self.offsets.len() as u64 + 4 * self.targets.len() as u64
    }
}

fn flush_if_full(buf: &mut Vec<u8>, out: &mut impl Write) -> std::io::Result<()> {
    if buf.len() >= 1 << 20 {
        out.write_all(buf)?;
        buf.clear();
    }
    Ok(())
}

/// A 64-bit FNV-1a digest of the stored bytes: a blob edited or swapped by hand is refused
/// even when its shape is right.
#[derive(Debug, Clone, Copy)]
struct Digest(u64);

impl Digest {
    fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }
    fn update(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// The header, chunk 0 of the table: what the data chunks hold and their digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphHeader {
    pub nodes: u64,
    pub edges: u64,
    /// Data chunks after the header (`1..=chunks`).
    pub chunks: u64,
    digest: u64,
}

const HEADER_BYTES: usize = 8 + 4 * 8;

impl GraphHeader {
    fn encode(&self) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        for x in [self.nodes, self.edges, self.chunks, self.digest] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v
    }

    fn decode(bytes: &[u8]) -> Result<GraphHeader> {
        if bytes.len() != HEADER_BYTES || &bytes[..8] != MAGIC {
            bail!(
                "table {GRAPH_TABLE}: chunk 0 is not a link graph header ({} bytes; expected {HEADER_BYTES} starting with {:?})",
                bytes.len(),
                String::from_utf8_lossy(MAGIC)
            );
        }
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[8 + 8 * i..16 + 8 * i]);
            u64::from_le_bytes(w)
        };
        Ok(GraphHeader {
            nodes: word(0),
            edges: word(1),
            chunks: word(2),
            digest: word(3),
        })
    }
}

/// Splits the graph's bytes into blobs of [`BLOB_BYTES`], handing each to `store` with its
/// chunk number (from 1), and returns the header (chunk 0) to store last.
pub(crate) fn encode(
    graph: &LinkGraph,
    mut store: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<Vec<u8>> {
    struct Chunks<'a, F> {
        buf: Vec<u8>,
        next: u64,
        digest: Digest,
        store: &'a mut F,
        error: Option<anyhow::Error>,
    }
    impl<F: FnMut(u64, &[u8]) -> Result<()>> Chunks<'_, F> {
        fn emit(&mut self) -> std::io::Result<()> {
            if let Err(e) = (self.store)(self.next, &self.buf) {
                self.error = Some(e);
                return Err(std::io::Error::other("storing a chunk"));
            }
            self.next += 1;
            self.buf.clear();
            Ok(())
        }
    }
    impl<F: FnMut(u64, &[u8]) -> Result<()>> Write for Chunks<'_, F> {
        fn write(&mut self, mut data: &[u8]) -> std::io::Result<usize> {
            let n = data.len();
            self.digest.update(data);
            while !data.is_empty() {
                let room = BLOB_BYTES - self.buf.len();
                let (now, later) = data.split_at(room.min(data.len()));
                self.buf.extend_from_slice(now);
                data = later;
                if self.buf.len() == BLOB_BYTES {
                    self.emit()?;
                }
            }
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut chunks = Chunks {
        buf: Vec::with_capacity(BLOB_BYTES.min(graph.data_len() as usize)),
        next: 1,
        digest: Digest::new(),
        store: &mut store,
        error: None,
    };
    let written = graph
        .write_data(&mut chunks)
        .and_then(|_| match chunks.buf.is_empty() {
            true => Ok(()),
            false => chunks.emit(),
        });
    if let Err(e) = written {
        return Err(chunks.error.take().unwrap_or_else(|| e.into()));
    }
    let header = GraphHeader {
        nodes: graph.nodes() as u64,
        edges: graph.edges(),
        chunks: chunks.next - 1,
        digest: chunks.digest.0,
    };
    Ok(header.encode())
}

/// Reads a graph back from its header and its data chunks, fetched in order by `fetch(k)`
/// (`None` when chunk `k` is missing). Every count is checked against the bytes before memory
/// is given to it, and the result against [`LinkGraph::from_parts`]: a truncated, shortened or
/// edited table is an error naming it, never a panic.
pub(crate) fn decode(
    header: &[u8],
    fetch: impl FnMut(u64) -> Result<Option<Vec<u8>>>,
) -> Result<LinkGraph> {
    let h = GraphHeader::decode(header)?;
    let rebuild = "rebuild the database (its ingest writes the graph)";
    let expected = h
        .nodes
        .checked_mul(16)
        .and_then(|b| b.checked_add(8))
        .and_then(|b| b.checked_add(h.edges.checked_mul(4)?));
    let Some(expected) = expected else {
        bail!(
            "table {GRAPH_TABLE}: the header's counts ({} nodes, {} links) overflow; {rebuild}",
            h.nodes,
            h.edges
        );
    };
    if expected.div_ceil(BLOB_BYTES as u64) != h.chunks || h.nodes > u32::MAX as u64 {
        bail!(
            "table {GRAPH_TABLE}: the header's {} nodes and {} links do not fit its {} chunks; {rebuild}",
            h.nodes,
            h.edges,
            h.chunks
        );
    }
    struct Blobs<F> {
        fetch: F,
        next: u64,
        last: u64,
        current: Vec<u8>,
        at: usize,
        digest: Digest,
        error: Option<anyhow::Error>,
    }
    impl<F: FnMut(u64) -> Result<Option<Vec<u8>>>> Read for Blobs<F> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            while self.at == self.current.len() {
                if self.next > self.last {
                    return Ok(0);
                }
                let k = self.next;
                match (self.fetch)(k) {
                    Ok(Some(blob)) => {
                        let full = k < self.last;
                        if full && blob.len() != BLOB_BYTES || blob.is_empty() {
                            self.error = Some(anyhow::anyhow!(
                                "table {GRAPH_TABLE}: chunk {k} holds {} bytes, expected {}",
                                blob.len(),
                                if full {
                                    BLOB_BYTES.to_string()
                                } else {
                                    "some".into()
                                }
                            ));
                            return Err(std::io::Error::other("bad chunk"));
                        }
                        self.digest.update(&blob);
                        self.current = blob;
                        self.at = 0;
                        self.next += 1;
                    }
                    Ok(None) => {
                        self.error = Some(anyhow::anyhow!(
                            "table {GRAPH_TABLE}: chunk {k} of {} is missing",
                            self.last
                        ));
                        return Err(std::io::Error::other("missing chunk"));
                    }
                    Err(e) => {
                        self.error = Some(e);
                        return Err(std::io::Error::other("reading a chunk"));
                    }
                }
            }
            let n = out.len().min(self.current.len() - self.at);
            out[..n].copy_from_slice(&self.current[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }
    let mut blobs = Blobs {
        fetch,
        next: 1,
        last: h.chunks,
        current: Vec::new(),
        at: 0,
        digest: Digest::new(),
        error: None,
    };
    let read = (|| -> std::io::Result<(Vec<u64>, Vec<u64>, Vec<u32>)> {
        let ids = read_words::<8, u64>(&mut blobs, h.nodes as usize, u64::from_le_bytes)?;
        let offsets = read_words::<8, u64>(&mut blobs, h.nodes as usize + 1, u64::from_le_bytes)?;
        let targets = read_words::<4, u32>(&mut blobs, h.edges as usize, u32::from_le_bytes)?;
        let mut extra = [0u8; 1];
        if blobs.read(&mut extra)? != 0 {
            return Err(std::io::Error::other("trailing bytes"));
        }
        Ok((ids, offsets, targets))
    })();
    let (ids, offsets, targets) = match read {
        Ok(parts) => parts,
        Err(e) => {
            let e = blobs.error.take().unwrap_or_else(|| {
                anyhow::anyhow!(
                    "table {GRAPH_TABLE}: the chunks hold other than the header's {} nodes and {} links ({e})",
                    h.nodes,
                    h.edges
                )
            });
            return Err(e.context(rebuild));
        }
    };
    if blobs.digest.0 != h.digest {
        bail!("table {GRAPH_TABLE}: the chunks' digest is not the header's (edited?); {rebuild}");
    }
    LinkGraph::from_parts(ids, offsets, targets)
        .with_context(|| format!("table {GRAPH_TABLE}: {rebuild}"))
}

/// Reads `count` little-endian words of `N` bytes, 1 MiB at a time (the count is checked
/// against the bytes there are, chunk by chunk, so a lying header cannot allocate).
fn read_words<const N: usize, T>(
    r: &mut impl Read,
    count: usize,
    from: fn([u8; N]) -> T,
) -> std::io::Result<Vec<T>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; (1 << 20) / N * N];
    let mut left = count;
    while left > 0 {
        let take = left.min(buf.len() / N);
        let bytes = &mut buf[..take * N];
        r.read_exact(bytes)?;
        out.reserve(take);
        out.extend(bytes.chunks_exact(N).map(|c| {
            let mut w = [0u8; N];
            w.copy_from_slice(c);
            from(w)
        }));
        left -= take;
    }
    Ok(out)
}

/// Page id -> node for a sorted list of page ids: a table indexed by id when the ids are dense
/// enough that it costs at most 8 bytes a page more (MediaWiki's are: auto-increment), else a
/// binary search. Resolving a link is then one memory access instead of ~25 cache misses.
pub(crate) struct IdIndex {
    ids: Vec<u64>,
    table: Option<Vec<u32>>,
}

impl IdIndex {
    /// The index of `ids`, which must be sorted.
    pub(crate) fn new(ids: Vec<u64>) -> IdIndex {
        let dense = ids.last().is_some_and(|&max| {
            max < 2 * ids.len() as u64 + (1 << 20) && ids.len() < u32::MAX as usize
        });
        let table = dense.then(|| {
            let mut table = vec![u32::MAX; ids.last().map_or(0, |&m| m as usize + 1)];
            for (i, &id) in ids.iter().enumerate() {
                table[id as usize] = i as u32;
            }
            table
        });
        IdIndex { ids, table }
    }

    /// The node of page `id`.
    pub(crate) fn get(&self, id: u64) -> Option<u32> {
        match &self.table {
            Some(t) => t.get(id as usize).copied().filter(|&i| i != u32::MAX),
            None => self.ids.binary_search(&id).ok().map(|i| i as u32),
        }
    }

    fn into_ids(self) -> Vec<u64> {
        self.ids
    }
}

/// Collects links as `(src, dst)` page-id pairs, in any order and with duplicates, under a
/// memory cap, and turns them into a [`LinkGraph`]: an external sort of `u64` keys
/// (`src << 32 | dst`).
pub struct GraphBuilder {
    chunk: Vec<u64>,
    cap: usize,
    dir: PathBuf,
    spill: Option<Spill>,
}

/// The sorted runs written so far, in one unnamed temporary file (deleted by the system when
/// it is closed, however the process ends).
struct Spill {
    file: File,
    /// `(first pair, pairs)` of each run.
    runs: Vec<(u64, u64)>,
    pairs: u64,
}

impl GraphBuilder {
    /// A builder spilling into a temporary file in `dir` (the database's folder: the build's
    /// disk, not a small tmpfs) once `chunk_pairs` pairs are held.
    pub fn new(dir: &Path, chunk_pairs: usize) -> GraphBuilder {
        GraphBuilder {
            chunk: Vec::new(),
            cap: chunk_pairs.max(1),
            // A database named without a folder (`--db clues.sqlite`) spills beside it, here.
            dir: match dir.as_os_str().is_empty() {
                true => PathBuf::from("."),
                false => dir.to_path_buf(),
            },
            spill: None,
        }
    }

    /// Adds the link `src -> dst`. Page ids must fit 32 bits (MediaWiki's are; a build of
    /// several sources offsets them by 10⁹, so four sources fit).
    pub fn push(&mut self, src: u64, dst: u64) -> Result<()> {
        for id in [src, dst] {
            if id > u32::MAX as u64 {
                bail!(
                    "page id {id} is past the link graph's 32-bit page ids (at most {}): too many sources in one build?",
                    u32::MAX
                );
            }
        }
        if self.chunk.capacity() == 0 {
            self.chunk.reserve_exact(self.cap.min(1 << 20));
        }
        self.chunk.push(src << 32 | dst);
        if self.chunk.len() >= self.cap {
            self.spill_chunk()?;
        }
        Ok(())
    }

    /// Sorts the chunk (in parallel), drops its duplicates and appends it as a run.
    fn spill_chunk(&mut self) -> Result<()> {
        sort_dedup(&mut self.chunk);
        if self.spill.is_none() {
            let file = tempfile::tempfile_in(&self.dir).with_context(|| {
                format!(
                    "creating a temporary file in {} for sorting links",
                    self.dir.display()
                )
            })?;
            self.spill = Some(Spill {
                file,
                runs: Vec::new(),
                pairs: 0,
            });
        }
        let spill = self.spill.as_mut().expect("just set");
        let mut w = BufWriter::with_capacity(1 << 20, &spill.file);
        for &k in &self.chunk {
            w.write_all(&k.to_le_bytes())
                .context("writing sorted links to the temporary file")?;
        }
        w.flush()
            .context("writing sorted links to the temporary file")?;
        drop(w);
        spill.runs.push((spill.pairs, self.chunk.len() as u64));
        spill.pairs += self.chunk.len() as u64;
        self.chunk.clear();
        Ok(())
    }

    /// Merges everything pushed into a graph over `ids` (the sorted ids of every stored page).
    /// A pair naming a page not in `ids` is an error naming it.
    pub fn finish(mut self, ids: Vec<u64>) -> Result<LinkGraph> {
        if let Some(i) = ids.windows(2).position(|w| w[0] >= w[1]) {
            bail!(
                "page ids are not sorted at {}: {} then {}",
                i + 1,
                ids[i],
                ids[i + 1]
            );
        }
        sort_dedup(&mut self.chunk);
        let mut offsets = Vec::with_capacity(ids.len() + 1);
        offsets.push(0u64);
        let mut targets: Vec<u32> = Vec::with_capacity(match &self.spill {
            None => self.chunk.len(),
            Some(s) => (s.pairs as usize).saturating_add(self.chunk.len()),
        });
        let mut node = 0usize; // the node whose row is being filled
        let mut add = |key: u64| -> Result<()> {
            let src = key >> 32;
            while node < ids.len() && ids[node] < src {
                offsets.push(targets.len() as u64);
                node += 1;
            }
            if node == ids.len() || ids[node] != src {
                bail!("a link from page {src}, which is not a stored page");
            }
            targets.push(key as u32); // a page id for now, a node below
            Ok(())
        };
        match self.spill.take() {
            None => {
                for &k in &self.chunk {
                    add(k)?;
                }
            }
            Some(spill) => merge_runs(&spill, &self.chunk, &mut add)?,
        }
        while offsets.len() < ids.len() + 1 {
            offsets.push(targets.len() as u64);
        }
        // Page ids to nodes, in parallel.
        let index = IdIndex::new(ids);
        let missing = targets
            .par_iter_mut()
            .find_map_any(|t| match index.get(*t as u64) {
                Some(i) => {
                    *t = i;
                    None
                }
                None => Some(*t),
            });
        if let Some(dst) = missing {
            bail!("a link to page {dst}, which is not a stored page");
        }
        Ok(LinkGraph {
            ids: index.into_ids(),
            offsets,
            targets,
        })
    }
}

/// Sorts keys in parallel and drops repeats.
fn sort_dedup(keys: &mut Vec<u64>) {
    keys.par_sort_unstable();
    keys.dedup();
}

/// A k-way merge of the spilled runs and the last (sorted) chunk, each key once, in order.
fn merge_runs(spill: &Spill, last: &[u64], add: &mut impl FnMut(u64) -> Result<()>) -> Result<()> {
    struct Run<'a> {
        file: &'a File,
        next: u64,
        end: u64,
        buf: Vec<u64>,
        at: usize,
    }
    impl Run<'_> {
        /// The run's next key, reading ahead a buffer at a time.
        fn pop(&mut self) -> Result<Option<u64>> {
            if self.at == self.buf.len() {
                if self.next == self.end {
                    return Ok(None);
                }
                let take = (self.end - self.next).min(RUN_BUFFER_PAIRS as u64) as usize;
                let mut bytes = vec![0u8; take * 8];
                self.file
                    .read_exact_at(&mut bytes, self.next * 8)
                    .context("reading sorted links back from the temporary file")?;
                self.buf.clear();
                self.buf.extend(
                    bytes
                        .chunks_exact(8)
                        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
                );
                self.next += take as u64;
                self.at = 0;
            }
            self.at += 1;
            Ok(Some(self.buf[self.at - 1]))
        }
    }
    let mut runs: Vec<Run> = spill
        .runs
        .iter()
        .map(|&(start, len)| Run {
            file: &spill.file,
            next: start,
            end: start + len,
            buf: Vec::new(),
            at: 0,
        })
        .collect();
    let mut heap = BinaryHeap::with_capacity(runs.len() + 1);
    for (i, run) in runs.iter_mut().enumerate() {
        if let Some(k) = run.pop()? {
            heap.push(Reverse((k, i)));
        }
    }
    let mut last = last.iter();
    let in_memory = runs.len();
    if let Some(&k) = last.next() {
        heap.push(Reverse((k, in_memory)));
    }
    let mut previous = None;
    while let Some(Reverse((k, i))) = heap.pop() {
        if previous != Some(k) {
            add(k)?;
            previous = Some(k);
        }
        let next = match runs.get_mut(i) {
            Some(run) => run.pop()?,
            None => last.next().copied(),
        };
        if let Some(k) = next {
            heap.push(Reverse((k, i)));
        }
    }
    Ok(())
}

impl crate::Build {
    /// Replaces the stored graph (the `link_graph` table) with `graph`, in the open
    /// transaction or one of its own: data chunks first, the header (chunk 0) last.
    pub fn write_link_graph(&self, graph: &LinkGraph) -> Result<()> {
        let c = &self.conn;
        c.execute("DELETE FROM link_graph", [])
            .context("emptying table link_graph")?;
        let mut insert =
            c.prepare_cached("INSERT INTO link_graph (chunk, data) VALUES (?1, ?2)")?;
        let header = encode(graph, |k, data| {
            insert
                .execute(rusqlite::params![k as i64, data])
                .with_context(|| format!("writing table link_graph (chunk {k})"))?;
            Ok(())
        })?;
        insert
            .execute(rusqlite::params![0i64, header])
            .context("writing table link_graph (header)")?;
        self.set_meta(LINK_GRAPH_KEY, &graph.edges().to_string())?;
        Ok(())
    }
}

impl crate::Store<'_> {
    /// The header of the stored graph, `None` when no ingest stored one (a database without
    /// links, or whose links `pipeline all` dropped).
    pub fn link_graph_header(&self) -> Result<Option<GraphHeader>> {
        self.link_graph_chunk(0)?
            .map(|b| GraphHeader::decode(&b))
            .transpose()
    }

    /// The stored graph, read whole and checked (`decode`); with no graph stored, a graph
    /// over no page (every stage then sees no link, as with an empty `links` table before),
    /// unless `meta` says one was stored and kept: then the table is damaged, an error.
    pub fn link_graph(&self) -> Result<LinkGraph> {
        let c = self.conn();
        let Some(header) = self.link_graph_chunk(0)? else {
            let links = self.meta(crate::LINKS_KEY)?;
            let stored = self.meta(LINK_GRAPH_KEY)?;
            if links.as_deref() == Some("kept")
                || (stored.is_some() && links.as_deref() != Some("dropped"))
            {
                bail!(
                    "table {GRAPH_TABLE}: no graph (its header, chunk 0, is missing), but meta \
                     says the database holds one ({}); rebuild the database (its ingest writes \
                     the graph)",
                    match &stored {
                        Some(n) => format!("{LINK_GRAPH_KEY} {n}"),
                        None => format!("{} kept", crate::LINKS_KEY),
                    }
                );
            }
            return Ok(LinkGraph::default());
        };
        let h = GraphHeader::decode(&header)?;
        let (rows, last): (i64, i64) = c
            .query_row("SELECT count(*), max(chunk) FROM link_graph", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .context("reading table link_graph")?;
        if rows as u64 != h.chunks + 1 || last as u64 != h.chunks {
            bail!(
                "table {GRAPH_TABLE}: {rows} rows numbered up to {last}, but its header says chunks 0 to {}; rebuild the database (its ingest writes the graph)",
                h.chunks
            );
        }
        decode(&header, |k| self.link_graph_chunk(k))
    }

    /// Chunk `k` of the stored graph (0 is the header), `None` when there is no such row.
    fn link_graph_chunk(&self, k: u64) -> Result<Option<Vec<u8>>> {
        // A table dropped by hand is named too ("no such table" comes from the prepare).
        self.conn()
            .prepare_cached("SELECT data FROM link_graph WHERE chunk = ?1")
            .and_then(|mut st| st.query_row([k as i64], |r| r.get(0)))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .with_context(|| format!("reading table link_graph (chunk {k})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(pairs: &[(u64, u64)], ids: &[u64], chunk: usize) -> Result<LinkGraph> {
        let dir = tempfile::tempdir().unwrap();
        let mut b = GraphBuilder::new(dir.path(), chunk);
        for &(s, d) in pairs {
            b.push(s, d)?;
        }
        b.finish(ids.to_vec())
    }

    fn round_trip(g: &LinkGraph) -> Result<LinkGraph> {
        let mut chunks = Vec::new();
        let header = encode(g, |k, data| {
            assert_eq!(k as usize, chunks.len() + 1);
            chunks.push(data.to_vec());
            Ok(())
        })?;
        decode(&header, |k| Ok(chunks.get(k as usize - 1).cloned()))
    }

    /// A pseudo-random graph, with duplicates, over sparse ids.
    fn random_pairs(n: usize, ids: &[u64]) -> Vec<(u64, u64)> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..n)
            .map(|_| {
                let s = ids[next() as usize % ids.len()];
                let d = ids[next() as usize % ids.len()];
                (s, d)
            })
            .collect()
    }

    #[test]
    fn builds_sorted_deduplicated_rows_in_memory_and_spilled_alike() {
        let ids: Vec<u64> = (0..300).map(|i| i * 7 + 3).collect();
        let pairs = random_pairs(5000, &ids);
        let mut expected: Vec<(u64, u64)> = pairs.clone();
        expected.sort();
        expected.dedup();
        let in_memory = build(&pairs, &ids, 1 << 20).unwrap();
        // 37 pairs a chunk: 136 runs, each with its own duplicates, and duplicates across runs.
        let spilled = build(&pairs, &ids, 37).unwrap();
        assert_eq!(in_memory, spilled);
        assert_eq!(in_memory.pairs().collect::<Vec<_>>(), expected);
        assert_eq!(in_memory.edges(), expected.len() as u64);
        for i in 0..in_memory.nodes() as u32 {
            assert!(in_memory.neighbours(i).windows(2).all(|w| w[0] < w[1]));
        }
        let out: Vec<u64> = in_memory.out_links(ids[5]).collect();
        let want: Vec<u64> = expected
            .iter()
            .filter(|p| p.0 == ids[5])
            .map(|p| p.1)
            .collect();
        assert_eq!(out, want);
        // The reverse graph holds the same links the other way, rows sorted.
        let rev = in_memory.transpose();
        let mut back: Vec<(u64, u64)> = rev.pairs().map(|(a, b)| (b, a)).collect();
        back.sort();
        assert_eq!(back, expected);
        assert!(rev.pairs().collect::<Vec<_>>().is_sorted());
    }

    #[test]
    fn spills_beside_a_database_named_without_a_folder() {
        let mut b = GraphBuilder::new(Path::new(""), 2);
        for (s, d) in [(3, 1), (1, 2), (2, 3), (1, 2), (3, 3)] {
            b.push(s, d).unwrap();
        }
        let g = b.finish(vec![1, 2, 3]).unwrap();
        assert_eq!(
            g.pairs().collect::<Vec<_>>(),
            [(1, 2), (2, 3), (3, 1), (3, 3)]
        );
    }

    #[test]
    fn round_trips_through_blobs_including_empty_graphs() {
        let ids: Vec<u64> = (1..=2000).collect();
        let g = build(&random_pairs(20_000, &ids), &ids, 999).unwrap();
        assert_eq!(round_trip(&g).unwrap(), g);
        // Ids too sparse for a table: the binary search gives the same graph.
        let sparse: Vec<u64> = (1..=50).map(|i| i << 26).collect();
        let pairs: Vec<(u64, u64)> = random_pairs(500, &sparse);
        let g = build(&pairs, &sparse, 64).unwrap();
        assert_eq!(g.pairs().count(), {
            let mut p = pairs.clone();
            p.sort();
            p.dedup();
            p.len()
        });
        assert_eq!(round_trip(&g).unwrap(), g);
        let empty = build(&[], &[], 10).unwrap();
        assert_eq!(empty.nodes(), 0);
        assert_eq!(empty.pairs().count(), 0);
        assert_eq!(round_trip(&empty).unwrap(), empty);
        let no_links = LinkGraph::without_links(vec![4, 9]);
        assert_eq!(round_trip(&no_links).unwrap(), no_links);
        assert_eq!(no_links.out_links(4).count(), 0);
        assert_eq!(no_links.out_links(5).count(), 0, "a page the graph lacks");
        assert!(no_links.neighbours(7).is_empty(), "a node past the graph");
    }

    #[test]
    fn refuses_out_of_range_and_unknown_ids() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = GraphBuilder::new(dir.path(), 10);
        let err = b.push(1, 1 << 32).unwrap_err();
        assert!(format!("{err:#}").contains("page id 4294967296"), "{err:#}");
        let err = build(&[(1, 2), (3, 2)], &[1, 2], 10).unwrap_err();
        assert!(format!("{err:#}").contains("from page 3"), "{err:#}");
        let err = build(&[(1, 2), (1, 5)], &[1, 2], 1).unwrap_err();
        assert!(format!("{err:#}").contains("to page 5"), "{err:#}");
        let err = LinkGraph::from_parts(vec![1, 2], vec![0, 1, 1], vec![2]).unwrap_err();
        assert!(format!("{err:#}").contains("page 1"), "{err:#}");
        assert!(LinkGraph::from_parts(vec![2, 1], vec![0, 0, 0], vec![]).is_err());
        assert!(LinkGraph::from_parts(vec![1], vec![0, 2], vec![0]).is_err());
    }

    /// Every way of damaging the stored chunks is an error naming the table, never a panic.
    #[test]
    fn damaged_chunks_are_errors_naming_the_table() {
        let ids: Vec<u64> = (1..=50).collect();
        let g = build(&random_pairs(400, &ids), &ids, 1000).unwrap();
        let mut chunks = Vec::new();
        let header = encode(&g, |_, d| {
            chunks.push(d.to_vec());
            Ok(())
        })
        .unwrap();
        let fails = |header: &[u8], chunks: Vec<Vec<u8>>| {
            let err = decode(header, |k| Ok(chunks.get(k as usize - 1).cloned())).unwrap_err();
            let text = format!("{err:#}");
            assert!(text.contains("table link_graph"), "{text}");
        };
        let data = chunks[0].clone();
        fails(&header, vec![data[..data.len() - 3].to_vec()]); // truncated
        fails(&header, vec![]); // chunk missing
        fails(&header, vec![[data.clone(), vec![0; 4]].concat()]); // trailing bytes
        let mut flipped = data.clone();
        flipped[data.len() - 2] ^= 1; // a target edited: shape intact, digest wrong
        fails(&header, vec![flipped]);
        fails(&header[..20], chunks.clone()); // header cut
        let mut lying = header.clone();
        lying[8..16].copy_from_slice(&u64::MAX.to_le_bytes()); // absurd node count
        fails(&lying, chunks.clone());
        let mut other = header.clone();
        other[16..24].copy_from_slice(&(g.edges() + 1).to_le_bytes());
        fails(&other, chunks.clone());
    }

    /// RELIABILITY.md: a `link_graph` table truncated, cut short or edited by hand is an error
    /// naming the table when a stage reads it, never a panic; the build writes it whole.
    #[test]
    fn a_stored_graph_round_trips_and_damage_is_an_error_naming_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("g.sqlite");
        let b = crate::Build::create(&dest).unwrap();
        for (id, title) in [(1, "Apple"), (2, "Fruit"), (5, "Pear")] {
            b.insert_page(&crate::NewPage {
                id,
                title,
                ns: 0,
                redirect_to: None,
                is_disambiguation: false,
                text: None,
            })
            .unwrap();
        }
        b.stage_link_target(10, 0, "Fruit").unwrap();
        b.stage_link_target(11, 0, "Pear").unwrap();
        for (src, target) in [(1, 10), (5, 10), (1, 11), (1, 10)] {
            b.stage_link_by_target(src, target).unwrap();
        }
        b.resolve_links().unwrap();
        b.finish().unwrap();
        let store = crate::Store::open(&dest).unwrap();
        assert_eq!(store.links().unwrap(), vec![(1, 2), (1, 5), (5, 2)]);
        assert_eq!(
            store.count_rows("links").unwrap(),
            0,
            "links rows only when kept"
        );
        assert_eq!(store.link_graph_header().unwrap().unwrap().edges, 3);
        drop(store);
        for damage in [
            "UPDATE link_graph SET data = substr(data, 1, length(data) - 1) WHERE chunk = 1",
            "UPDATE link_graph SET data = zeroblob(length(data)) WHERE chunk = 1",
            "DELETE FROM link_graph WHERE chunk = 1",
            "UPDATE link_graph SET data = x'00' WHERE chunk = 0",
            "INSERT INTO link_graph VALUES (7, x'01')",
        ] {
            let copy = dir.path().join("damaged.sqlite");
            std::fs::copy(&dest, &copy).unwrap();
            rusqlite::Connection::open(&copy)
                .unwrap()
                .execute_batch(damage)
                .unwrap();
            let store = crate::Store::open(&copy).unwrap();
            let e = store.link_graph().unwrap_err();
            assert!(
                format!("{e:#}").contains("table link_graph"),
                "{damage}: {e:#}"
            );
        }
        // Issue 46, item 3: the graph deleted (its header, or the table, which a build then
        // makes anew, empty) is an error too, never "no links", for a build and a reader alike,
        // whether the ingest's meta or `pipeline all --keep-links` says a graph was stored.
        assert_eq!(
            crate::Store::open(&dest)
                .unwrap()
                .meta(LINK_GRAPH_KEY)
                .unwrap()
                .as_deref(),
            Some("3")
        );
        for (damage, meta) in [
            ("DELETE FROM link_graph WHERE chunk = 0", ""),
            ("DROP TABLE link_graph", ""),
            (
                "DELETE FROM link_graph",
                "DELETE FROM meta WHERE key = 'link_graph.edges';
                 INSERT INTO meta VALUES ('pipeline.links', 'kept');",
            ),
        ] {
            let copy = dir.path().join("deleted.sqlite");
            std::fs::copy(&dest, &copy).unwrap();
            rusqlite::Connection::open(&copy)
                .unwrap()
                .execute_batch(&format!("{damage}; {meta}"))
                .unwrap();
            let b = crate::Build::update(&copy).unwrap();
            let e = b.reader().link_graph().unwrap_err();
            assert!(
                format!("{e:#}").contains("table link_graph"),
                "{damage}: {e:#}"
            );
            drop(b);
            let e = crate::Store::open(&copy).unwrap().link_graph().unwrap_err();
            assert!(
                format!("{e:#}").contains("table link_graph"),
                "{damage}: {e:#}"
            );
        }
        // Dropped by `pipeline all`, the graph is absent by design (the stages refuse to run
        // on their own, naming the flags).
        let copy = dir.path().join("dropped.sqlite");
        std::fs::copy(&dest, &copy).unwrap();
        let b = crate::Build::update(&copy).unwrap();
        b.drop_inputs(crate::KeepInputs::default()).unwrap();
        assert_eq!(b.reader().link_graph().unwrap().edges(), 0);
    }
}
