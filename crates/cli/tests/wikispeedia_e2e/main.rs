//! End-to-end tests on the Wikispeedia corpus: `clue-db pipeline all` builds one database per
//! test process (about 16 s in a debug build), then `pipeline` checks its tables and `query`
//! runs the query commands against it.

#[path = "../common/mod.rs"]
mod common;
mod pipeline;
mod query;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Instant;

/// The database every test here reads; tests that change a database work on a copy.
static BUILT: LazyLock<PathBuf> = LazyLock::new(|| {
    let dir = common::built_db_dir("wikispeedia");
    let db = dir.join("clues.sqlite");
    let start = Instant::now();
    common::clue_db([
        "pipeline",
        "all",
        "--corpus",
        "wikispeedia",
        "--data",
        common::utf8(&common::data()),
        "--inputs",
        common::utf8(&common::inputs()),
        "--db",
        common::utf8(&db),
    ])
    .ok();
    eprintln!(
        "built {} in {:.1} s",
        db.display(),
        start.elapsed().as_secs_f64()
    );
    db
});

/// The pipeline database built from Wikispeedia with the repository's inputs.
pub fn db() -> &'static Path {
    &BUILT
}
