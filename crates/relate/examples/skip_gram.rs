//! Throughput check: the skip-gram view's training ([`relate::sgns::train`]) on a seeded
//! synthetic stream shaped as the offline text's (a vocabulary of 16,350 words drawn by Zipf's
//! law, sentences of 4 to 20 of them), printing words per second. The offline build trains on
//! 51 M words; `relatedness.seconds_skip_gram` in a database's `meta` is the real figure.
//!
//! `cargo run --release -p relate --example skip_gram [words] [vocabulary]`
//!
//! The vectors' fingerprint (FNV-1a over their bits) is the same for a change that only makes
//! the training quicker: the same vectors, bit for bit.

use std::time::Instant;

use relate::sgns::{SEP, SkipGram, fingerprint, train, zipf_stream};

fn main() {
    let mut args = std::env::args().skip(1);
    let words: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let vocabulary: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(16_350)
        .max(1);
    let t = Instant::now();
    let stream = zipf_stream(words, vocabulary, 7);
    let drawn = stream.iter().filter(|&&t| t != SEP).count();
    println!(
        "stream: {drawn} words over {vocabulary} in {} sentences, made in {:.2} s",
        stream.len() - drawn,
        t.elapsed().as_secs_f64()
    );
    let p = SkipGram::default();
    let t = Instant::now();
    let vectors = train(&stream, vocabulary, &p, |_| {});
    let s = t.elapsed().as_secs_f64();
    let fingerprint = fingerprint(&vectors);
    println!(
        "skip-gram ({} dimensions, window {}, {} negatives, one pass, one thread): {s:.2} s, \
         {:.0} k words/s; vectors' fingerprint {fingerprint:016x}",
        p.dims,
        p.window,
        p.negative,
        drawn as f64 / s / 1e3,
    );
}
