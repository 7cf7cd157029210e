//! End-to-end tests on the Wikispeedia corpus: `clue-db pipeline all` builds three databases per
//! test process (as `make pipeline` does, with the 400 cards alone, and with the build inputs
//! kept: a minute or more each in a debug build), then `pipeline` checks their tables, `keep`
//! compares them, `query` runs the query commands, `serve` serves one (one binary, so that one
//! build serves them all).

mod any_board;
#[path = "../common/mod.rs"]
mod common;
mod keep;
mod pipeline;
mod query;
mod relatedness;
mod serve;
mod setnet;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// The three databases the tests here read, built at once (three processes side by side: each
/// is a minute or more of a debug build, much of it on one core) the first time any is asked
/// for. Built when first asked for each, the lists' build ran alone while the other tests
/// waited for it, then the other two: 92 s, then 111 s, of the 288 s this binary took on 2
/// cores (2026-11-29). Tests that change a database work on a copy.
static BUILT: LazyLock<[PathBuf; 3]> = LazyLock::new(|| {
    std::thread::scope(|s| {
        let kept = s.spawn(|| {
            common::wikispeedia_db_with("wikispeedia-kept", &["--keep-text", "--keep-links"])
        });
        let lists = s.spawn(|| common::wikispeedia_db_as_make("wikispeedia-lists"));
        let plain = common::wikispeedia_db("wikispeedia");
        [
            plain,
            kept.join().expect("the kept build"),
            lists.join().expect("the lists' build"),
        ]
    })
});

/// The database `make pipeline` builds from Wikispeedia, with the other editions' card words
/// (the tests of any board a person brings).
pub fn lists_db() -> &'static Path {
    &BUILT[2]
}

/// The pipeline database built from Wikispeedia with the repository's inputs and the 400 cards
/// of `terms.txt` alone, without the page text and the links.
pub fn db() -> &'static Path {
    &BUILT[0]
}

/// The same database built with `--keep-text --keep-links`, for the tests that read the text or
/// re-run a stage that reads the text or the links.
pub fn kept_db() -> &'static Path {
    &BUILT[1]
}
