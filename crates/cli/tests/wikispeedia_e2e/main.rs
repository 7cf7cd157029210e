//! End-to-end tests on the Wikispeedia corpus: `clue-db pipeline all` builds two databases per
//! test process, as `make pipeline` does and with the build inputs kept (about a minute each in
//! a debug build), then `pipeline` checks their tables, `keep` compares them, `query` runs the
//! query commands, `serve` serves one (one binary, so that one build serves them all).

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

/// The database `make pipeline` builds from Wikispeedia, with the other editions' card words
/// (the tests of any board a person brings), built the first time it is asked for.
static AS_MAKE: LazyLock<PathBuf> =
    LazyLock::new(|| common::wikispeedia_db_as_make("wikispeedia-lists"));

/// [`AS_MAKE`].
pub fn lists_db() -> &'static Path {
    &AS_MAKE
}

/// The two databases every test here reads, built at once (two processes side by side: each
/// is a minute of a debug build, much of it on one core), the first time either is asked for.
/// Tests that change a database work on a copy.
static BUILT: LazyLock<[PathBuf; 2]> = LazyLock::new(|| {
    std::thread::scope(|s| {
        let kept = s.spawn(|| {
            common::wikispeedia_db_with("wikispeedia-kept", &["--keep-text", "--keep-links"])
        });
        let plain = common::wikispeedia_db("wikispeedia");
        [plain, kept.join().expect("the kept build")]
    })
});

/// The pipeline database built from Wikispeedia with the repository's inputs: as `make
/// pipeline` builds, without the page text and the links.
pub fn db() -> &'static Path {
    &BUILT[0]
}

/// The same database built with `--keep-text --keep-links`, for the tests that read the text or
/// re-run a stage that reads the text or the links.
pub fn kept_db() -> &'static Path {
    &BUILT[1]
}
