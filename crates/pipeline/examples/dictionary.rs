//! Timing check: the dictionary view of the relatedness stage (`relatedness.seconds_dictionary`
//! in a database's `meta`), step by step, for the words of a file (one a line, `#` for a
//! comment; by default the 400 cards of `pipeline/terms.txt`). Most of it does not depend on the
//! corpus: every build, however small, parses the embedded WordNet, works out every lemma's
//! context words and factors their PPMI, so on a small corpus it is most of the stage.
//!
//! `cargo run --release -p pipeline --example dictionary [WORDS_FILE]`
//!
//! The contexts' and the vectors' fingerprints (FNV-1a over their bits) stay the same for a
//! change that only makes the view quicker.

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../pipeline/terms.txt"),
        PathBuf::from,
    );
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let words: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|w| !w.is_empty() && !w.starts_with('#'))
        .map(str::to_lowercase)
        .collect();
    let clock = Instant::now();
    let step = |name: &str, t: Instant| println!("{name:>10}: {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let lexicon = wordnet::Lexicon::embedded();
    step("parse", t);
    let t = Instant::now();
    let contexts = lexicon.contexts();
    step("contexts", t);
    let t = Instant::now();
    let headword = contexts.headword_rows(&lexicon, &words);
    step("headwords", t);
    let t = Instant::now();
    let p = relate::Params::default();
    let vectors =
        relate::dictionary::vectors(&contexts.rows, contexts.columns.len(), &headword, &p);
    step("vectors", t);
    let fnv = |h: u64, x: u64| (h ^ x).wrapping_mul(0x100_0000_01b3);
    let contexts_print = contexts
        .rows
        .iter()
        .flatten()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &(c, x)| {
            fnv(fnv(h, c as u64), x.to_bits() as u64)
        });
    println!(
        "{} words of {} ({} WordNet knows), {} context words: {:.3} s in all; contexts \
         {contexts_print:016x}, vectors {:016x}",
        words.len(),
        path.display(),
        headword.iter().flatten().count(),
        contexts.columns.len(),
        clock.elapsed().as_secs_f64(),
        relate::sgns::fingerprint(&vectors),
    );
}
