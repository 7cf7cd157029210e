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

use relate::sgns::{SEP, SkipGram, train};
use seeded::SplitMix64;

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
    // Zipf's law: the word of rank r drawn with probability ∝ 1/r, by its cumulative share.
    let mut cumulative: Vec<f64> = Vec::with_capacity(vocabulary);
    let mut total = 0.0;
    for r in 1..=vocabulary {
        total += 1.0 / r as f64;
        cumulative.push(total);
    }
    let mut rng = SplitMix64::new(7);
    let t = Instant::now();
    let mut stream: Vec<u32> = Vec::with_capacity(words + words / 8);
    let mut drawn = 0;
    while drawn < words {
        for _ in 0..4 + rng.below(17) {
            let u = rng.unit() * total;
            stream.push(cumulative.partition_point(|&c| c < u).min(vocabulary - 1) as u32);
            drawn += 1;
        }
        stream.push(SEP);
    }
    println!(
        "stream: {drawn} words over {vocabulary} in {} sentences, made in {:.2} s",
        stream.len() - drawn,
        t.elapsed().as_secs_f64()
    );
    let p = SkipGram::default();
    let t = Instant::now();
    let vectors = train(&stream, vocabulary, &p, |_| {});
    let s = t.elapsed().as_secs_f64();
    let fingerprint = vectors.data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x.to_bits() as u64).wrapping_mul(0x100_0000_01b3)
    });
    println!(
        "skip-gram ({} dimensions, window {}, {} negatives, one pass, one thread): {s:.2} s, \
         {:.0} k words/s; vectors' fingerprint {fingerprint:016x}",
        p.dims,
        p.window,
        p.negative,
        drawn as f64 / s / 1e3,
    );
}
