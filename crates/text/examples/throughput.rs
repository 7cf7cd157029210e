//! Throughput of `analyze` (tokens, sentences, tags, entities), of the stopword test and of term
//! counting over Wikispeedia articles: `cargo run --release -p text --example throughput -- DIR
//! [MAX_FILES]` where DIR holds the unpacked `plaintext_articles/*.txt`.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: throughput DIR [MAX_FILES]")?;
    let max: usize = args.next().map_or(Ok(usize::MAX), |s| s.parse())?;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{dir}: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    paths.truncate(max);
    let texts: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display())))
        .collect::<Result<_, _>>()?;
    let bytes: usize = texts.iter().map(String::len).sum();

    let t = Instant::now();
    let tagger = text::Tagger::new()?;
    let load_tagger = t.elapsed();
    let t = Instant::now();
    let inflector = text::Inflector::new();
    let load_inflector = t.elapsed();

    let t = Instant::now();
    let tokens: usize = texts.iter().map(|s| text::tokenize(s).len()).sum();
    let tokenize = t.elapsed();

    // The relatedness stage asks every word it reads whether it is a stopword; beside it, the
    // binary search of the sorted list that `is_stopword` was before 2026-11-29.
    let all: Vec<&str> = texts
        .iter()
        .flat_map(|s| text::tokenize(s).into_iter().map(move |t| t.text(s)))
        .collect();
    let t = Instant::now();
    let stop = all.iter().filter(|w| text::is_stopword(w)).count();
    let stopwords = t.elapsed();
    let t = Instant::now();
    let list = text::stopwords();
    let searched = all
        .iter()
        .filter(|w| {
            if w.bytes().all(|b| b.is_ascii_lowercase() || b == b'\'') {
                list.binary_search(w).is_ok()
            } else {
                let lower = w.to_lowercase().replace('\u{2019}', "'");
                list.binary_search(&lower.as_str()).is_ok()
            }
        })
        .count();
    let binary_search = t.elapsed();
    assert_eq!(stop, searched, "the two stopword tests disagree");

    let t = Instant::now();
    let mut entities = 0;
    let analyses: Vec<text::Analysis<'_>> =
        texts.iter().map(|s| text::analyze(s, &tagger)).collect();
    let analyze = t.elapsed();
    for a in &analyses {
        entities += a.entities.len();
    }

    let words = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/codenames-words.txt"
    ))
    .unwrap_or_else(|_| "bank\nice cream\nloch ness\nstrike".to_string());
    let terms: Vec<text::TermForms> = words
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|w| text::TermForms::new(w, &inflector))
        .collect();
    let n_terms = terms.len();
    let index = text::TermIndex::new(terms);
    let t = Instant::now();
    let counted: usize = analyses.iter().map(|a| index.count(a).len()).sum();
    let count = t.elapsed();

    let t = Instant::now();
    let chunks: usize = analyses
        .iter()
        .map(|a| a.noun_chunks(&inflector).len())
        .sum();
    let chunk = t.elapsed();

    let rate = |d: std::time::Duration| tokens as f64 / d.as_secs_f64() / 1e6;
    println!(
        "{} files, {:.1} MB, {tokens} tokens, {entities} entity mentions",
        texts.len(),
        bytes as f64 / 1e6
    );
    println!("load: tagger {load_tagger:.2?}, inflector {load_inflector:.2?}");
    println!(
        "tokenize: {tokenize:.2?} ({:.2} M tokens/s)",
        rate(tokenize)
    );
    println!(
        "stopwords: {stopwords:.2?} ({:.2} M tokens/s; by binary search {binary_search:.2?}, \
         {:.2} M tokens/s), {stop} of {} tokens",
        rate(stopwords),
        rate(binary_search),
        all.len()
    );
    println!(
        "analyze (tokenize+split+tag+entities): {analyze:.2?} ({:.2} M tokens/s)",
        rate(analyze)
    );
    println!(
        "count {n_terms} terms: {count:.2?} ({:.2} M tokens/s), {counted} (page, term) pairs",
        rate(count)
    );
    println!(
        "noun chunks: {chunk:.2?} ({:.2} M tokens/s), {chunks} chunks",
        rate(chunk)
    );
    Ok(())
}
