//! End-to-end tests on the Wikispeedia corpus: `clue-db pipeline all` builds one database per
//! test process (about a minute in a debug build), then `pipeline` checks its tables, `query`
//! runs the query commands against it and `serve` serves it (one binary, so that one build
//! serves them all).

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

/// The database every test here reads; tests that change a database work on a copy.
static BUILT: LazyLock<PathBuf> = LazyLock::new(|| common::wikispeedia_db("wikispeedia"));

/// The pipeline database built from Wikispeedia with the repository's inputs: as `make
/// pipeline` builds, without the page text and the links.
pub fn db() -> &'static Path {
    &BUILT
}

/// The same database built with `--keep-text --keep-links`, for the tests that read the text or
/// re-run a stage that reads the text or the links.
static KEPT: LazyLock<PathBuf> = LazyLock::new(|| {
    common::wikispeedia_db_with("wikispeedia-kept", &["--keep-text", "--keep-links"])
});

pub fn kept_db() -> &'static Path {
    &KEPT
}
