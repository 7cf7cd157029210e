//! Section 2: `clue-db pipeline all` per corpus (Wikispeedia alone, then both corpora, what
//! `make pipeline` builds), each stage's seconds from `clue-db info`, the wall time and peak
//! memory of the child (`wait4`), then PageRank's figures, the `rank` crate's example and the
//! `relate` crate's (the skip-gram's training).

use super::{Ctx, rule, section};
use crate::parse::Meta;
use crate::proc;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The corpora, in order; the last one's database is the one sections 3 and 4 query.
pub const CORPORA: [&str; 2] = ["wikispeedia", "wikispeedia,enwiki-2015-wikiextractor"];

/// How long each crate example (`pagerank_bench`, `skip_gram`) may run.
pub const EXAMPLE_LIMIT: Duration = Duration::from_secs(120);

/// `clue-db info --db DB`.
pub fn info(ctx: &Ctx, db: &Path) -> Result<Meta> {
    let mut cmd = ctx.clue_db();
    cmd.args(["info", "--db"]).arg(db);
    Ok(Meta::parse(&proc::output(&mut cmd, &ctx.tmp("info.log"))?))
}

/// The database of a corpus: `bench-wikispeedia.sqlite`, `bench-wikispeedia-all.sqlite`.
pub fn db_name(corpus: &str) -> String {
    let first = corpus.split(',').next().unwrap_or(corpus);
    if corpus.contains(',') {
        format!("bench-{first}-all.sqlite")
    } else {
        format!("bench-{first}.sqlite")
    }
}

/// The lines under a corpus's table: the pages per source, duplicates, the relatedness's size.
pub fn facts(m: &Meta) -> String {
    let pages: Vec<String> = m
        .pages_per_source()
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    format!(
        "pages per source: {}; duplicates {}; relatedness: {} tokens, {} clue words x {} card words",
        pages.join(", "),
        m.show("ingest.duplicates"),
        m.show("relatedness.tokens"),
        m.show("relatedness.clue_words"),
        m.show("relatedness.card_words")
    )
}

/// The PageRank line: nodes, edges, iterations, and edges × iterations per second in millions.
pub fn pagerank_line(m: &Meta) -> String {
    let eps = m
        .get("pagerank.edges_per_second")
        .and_then(|e| e.parse::<f64>().ok())
        .map_or("-".to_string(), |e| format!("{:.1}", e / 1e6));
    format!(
        "PageRank on the graph of both corpora (links from Wikispeedia): {} nodes, {} edges, {} \
         iterations, {eps} M edges/s",
        m.show("pagerank.nodes"),
        m.show("pagerank.edges"),
        m.show("pagerank.iterations")
    )
}

/// Runs `pipeline all` on every corpus and prints their tables; returns the last database.
pub fn run(ctx: &Ctx) -> Result<PathBuf> {
    section(
        "2. Pipeline: `clue-db pipeline all` per corpus (seconds from `clue-db info`; wall time \
         and peak memory of the child from wait4)",
    );
    let mut last = None;
    for corpus in CORPORA {
        let db = ctx.tmp(&db_name(corpus));
        println!("\ncorpus {corpus} ({} cores):", ctx.cores);
        let mut cmd = ctx.clue_db();
        cmd.args(["pipeline", "all", "--corpus", corpus, "--data"])
            .arg(&ctx.data)
            .arg("--db")
            .arg(&db)
            .stdout(Stdio::null());
        let done = proc::run(&mut cmd, &ctx.tmp("pipeline.log"))?;
        let m = info(ctx, &db)?;
        println!("{:<14} {:>9}", "stage", "seconds");
        rule();
        for (stage, s) in m.stage_seconds() {
            println!("{stage:<14} {s:>9}");
        }
        println!("{:<14} {:>9.2}", "whole command", done.seconds);
        println!("peak RSS {:.0} MB (wait4 of the child)", done.peak_mb);
        println!("{}", facts(&m));
        last = Some((db, m));
    }
    let (db, m) = last.context("no corpus")?;
    println!("\n{}", pagerank_line(&m));
    rank_example(ctx)?;
    skip_gram_example(ctx)?;
    Ok(db)
}

/// The `rank` crate's example on a random graph of 1 M nodes and 19 M edges, at most
/// [`EXAMPLE_LIMIT`]: its `generated` and `CSR:` lines and its last line.
fn rank_example(ctx: &Ctx) -> Result<()> {
    example(
        ctx,
        ("pagerank_bench", "rank"),
        "rank crate example (random graph, 1 M nodes / 19 M edges",
        &["generated", "CSR:"],
    )
}

/// The `relate` crate's example: the skip-gram view's training, the relatedness stage's
/// longest part, on a synthetic stream of 10 M words, at most [`EXAMPLE_LIMIT`]: its two lines.
fn skip_gram_example(ctx: &Ctx) -> Result<()> {
    example(
        ctx,
        ("skip_gram", "relate"),
        "relate crate example (the skip-gram on 10 M synthetic words over 16,350",
        &["stream:"],
    )
}

/// Runs the example `name` of crate `krate` for at most [`EXAMPLE_LIMIT`] under `heading`, and
/// prints its lines that start with one of `keep` and its last line (or why it was skipped).
fn example(ctx: &Ctx, (name, krate): (&str, &str), heading: &str, keep: &[&str]) -> Result<()> {
    println!("\n{heading}; {} s limit):", EXAMPLE_LIMIT.as_secs());
    let bin = match ctx.example(name, krate) {
        Ok(b) => b,
        Err(e) => {
            println!("  (skipped: {e:#})");
            return Ok(());
        }
    };
    let log = ctx.tmp(&format!("{name}.log"));
    let out = std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
    let mut cmd = Command::new(bin);
    cmd.stdout(out.try_clone()?).stderr(out);
    let done = proc::spawn(&mut cmd)?.wait_at_most(EXAMPLE_LIMIT)?;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    match done {
        Some(d) if d.success() => {
            let (last, rest) = lines
                .split_last()
                .map_or((None, &[][..]), |(l, r)| (Some(l), r));
            for l in rest
                .iter()
                .filter(|l| keep.iter().any(|k| l.starts_with(k)))
            {
                println!("  {l}");
            }
            if let Some(l) = last {
                println!("  {l}");
            }
        }
        other => {
            let why = match other {
                Some(d) => d.describe(),
                None => format!("over the {} s limit", EXAMPLE_LIMIT.as_secs()),
            };
            println!("  (skipped: {why})");
            for l in &lines[lines.len().saturating_sub(3)..] {
                println!("  {l}");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_are_named_by_their_corpus() {
        assert_eq!(db_name(CORPORA[0]), "bench-wikispeedia.sqlite");
        assert_eq!(db_name(CORPORA[1]), "bench-wikispeedia-all.sqlite");
    }

    #[test]
    fn the_lines_under_the_table_read_info() {
        let m = Meta::parse(
            "ingest.duplicates\t1953\ningest.enwiki-2015-wikiextractor.pages\t33380\n\
             ingest.pages\t4604\npagerank.edges\t119772\npagerank.edges_per_second\t390653094\n\
             pagerank.iterations\t63\npagerank.nodes\t33380\nrelatedness.card_words\t400\n\
             relatedness.clue_words\t16402\n",
        );
        assert_eq!(
            facts(&m),
            "pages per source: ingest.enwiki-2015-wikiextractor.pages 33380, ingest.pages 4604; \
             duplicates 1953; relatedness: - tokens, 16402 clue words x 400 card words"
        );
        assert_eq!(
            pagerank_line(&m),
            "PageRank on the graph of both corpora (links from Wikispeedia): 33380 nodes, 119772 \
             edges, 63 iterations, 390.7 M edges/s"
        );
        assert!(pagerank_line(&Meta::default()).ends_with("- iterations, - M edges/s"));
    }
}
