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

/// A `page_props` dump in mysqldump's form, with MediaWiki's real table definition: rows of
/// `(pp_page, pp_propname, pp_value)`.
pub fn page_props_sql(wiki: &str, rows: &[(u64, &str, &str)]) -> String {
    let values: Vec<String> = rows
        .iter()
        .map(|(page, name, value)| {
            let esc = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
            format!("({page},'{}','{}',NULL)", esc(name), esc(value))
        })
        .collect();
    format!(
        "-- MariaDB dump 10.19  Distrib 10.5.23-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1166    Database: {wiki}
-- ------------------------------------------------------
-- Server version\t10.6.17-MariaDB-log

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;

--
-- Table structure for table `page_props`
--

DROP TABLE IF EXISTS `page_props`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8 */;
CREATE TABLE `page_props` (
  `pp_page` int(10) unsigned NOT NULL,
  `pp_propname` varbinary(60) NOT NULL,
  `pp_value` blob NOT NULL,
  `pp_sortkey` float DEFAULT NULL,
  PRIMARY KEY (`pp_page`,`pp_propname`),
  UNIQUE KEY `pp_propname_page` (`pp_propname`,`pp_page`),
  UNIQUE KEY `pp_propname_sortkey_page` (`pp_propname`,`pp_sortkey`,`pp_page`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `page_props`
--

/*!40000 ALTER TABLE `page_props` DISABLE KEYS */;
INSERT INTO `page_props` VALUES {};
/*!40000 ALTER TABLE `page_props` ENABLE KEYS */;

-- Dump completed on 2024-09-01 10:42:25
",
        values.join(",")
    )
}

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
