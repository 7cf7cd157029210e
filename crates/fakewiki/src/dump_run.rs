//! A dump run as `clue-db download` leaves it, built from the real samples of `shared/data`:
//! `DUMPS/WIKI/DATE/` with the multistream `pages-articles` XML, its index and the real SQL
//! fixtures of `sql-sample/` as the fake dumps site serves them ([`crate::dumps::files`]), SQL a
//! test writes (a `page_props` dump), and `VERIFIED` with each file's SHA-1. Shared by the
//! pipeline's ingest tests and the CLI's.

use std::path::{Path, PathBuf};

/// The shared data folder beside the repository.
pub fn shared_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// The real enwiki XML sample (206 pages).
pub fn enwiki_sample() -> PathBuf {
    shared_data()
        .join("enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
}

/// `bytes` gzipped.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    crate::dumps::gzip(bytes)
}

/// A `page_props` dump in mysqldump's form (kept here, where the run's tests look for it).
pub use crate::mysqldump::page_props_sql;

/// Builds `dumps/WIKI/DATE/`: the multistream and its index, the `sql-sample` fixtures
/// `test-20240901-{page,linktarget,pagelinks}.sql` gzipped as `WIKI-DATE-TABLE.sql.gz`, each
/// of `extra_sql` (`(table, text)`) gzipped the same way, and `VERIFIED` listing them all.
/// Returns the run folder.
pub fn build_run(dumps: &Path, wiki: &str, date: &str, extra_sql: &[(&str, String)]) -> PathBuf {
    let run = dumps.join(wiki).join(date);
    std::fs::create_dir_all(&run).expect("run folder");
    // The multistream, its index and the sample tables of the fake dumps site (one builder for
    // both), less the tables a test writes itself.
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (suffix, bytes) in crate::dumps::files() {
        let table = suffix.strip_suffix(".sql.gz");
        if matches!(table, Some("redirect" | "page_props")) {
            continue;
        }
        files.push((crate::dumps::file_name(wiki, date, suffix), bytes.clone()));
    }
    for (table, text) in extra_sql {
        files.push((
            format!("{wiki}-{date}-{table}.sql.gz"),
            gzip(text.as_bytes()),
        ));
    }
    let mut verified = String::new();
    for (name, bytes) in &files {
        std::fs::write(run.join(name), bytes).expect("write run file");
        verified.push_str(&format!("{}  {name}\n", crate::dumps::sha1_hex(bytes)));
    }
    std::fs::write(run.join("VERIFIED"), verified).expect("write VERIFIED");
    run
}
