//! A dump run as `clue-db download` leaves it, built from the real samples of `shared/data`:
//! `DUMPS/WIKI/DATE/` with a multistream `pages-articles` XML and its index (made from the real
//! enwiki sample, 25 pages per bz2 stream as Wikimedia does with 100), the real SQL fixtures of
//! `sql-sample/` gzipped under the run's names, SQL a test writes (a `page_props` dump), and
//! `VERIFIED` with each file's SHA-1. Shared by the pipeline's ingest tests and the CLI's.

use sha1::Digest;
use std::io::{Read, Write};
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

/// Pages per bz2 stream of the multistream made here.
pub const PAGES_PER_STREAM: usize = 25;

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

/// `bytes` gzipped.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> &'a str {
    let a = s.find(open).expect("open tag") + open.len();
    let b = a + s[a..].find(close).expect("close tag");
    &s[a..b]
}

/// The enwiki sample as a multistream dump (`.xml.bz2` bytes) and its index (text,
/// `offset:id:title` lines), as Wikimedia lays them out: the `<siteinfo>` header in a stream of
/// its own, then [`PAGES_PER_STREAM`] pages per stream, then `</mediawiki>`.
pub fn multistream() -> (Vec<u8>, String) {
    let mut xml = String::new();
    bzip2::read::MultiBzDecoder::new(std::fs::File::open(enwiki_sample()).expect("sample"))
        .read_to_string(&mut xml)
        .expect("decode sample");
    let starts: Vec<usize> = xml.match_indices("  <page>").map(|(i, _)| i).collect();
    let footer = xml.rfind("</mediawiki>").expect("root close");
    let mut dump = bz2(&xml.as_bytes()[..starts[0]]);
    let mut index = String::new();
    for group in starts.chunks(PAGES_PER_STREAM) {
        let end = starts
            .iter()
            .find(|&&s| s > *group.last().expect("non-empty"))
            .copied()
            .unwrap_or(footer);
        let offset = dump.len();
        for (k, &s) in group.iter().enumerate() {
            let page = &xml[s..group.get(k + 1).copied().unwrap_or(end)];
            let id = between(page, "<id>", "</id>");
            let title = between(page, "<title>", "</title>");
            index.push_str(&format!("{offset}:{id}:{title}\n"));
        }
        dump.extend(bz2(&xml.as_bytes()[group[0]..end]));
    }
    dump.extend(bz2(&xml.as_bytes()[footer..]));
    (dump, index)
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

/// `SHA1  NAME` of a file, as `sha1sum` prints it.
fn sha1_line(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read run file");
    let sum = sha1::Sha1::digest(&bytes);
    let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
    let name = path.file_name().expect("file name").to_string_lossy();
    format!("{hex}  {name}\n")
}

/// Builds `dumps/WIKI/DATE/`: the multistream and its index, the `sql-sample` fixtures
/// `test-20240901-{page,linktarget,pagelinks}.sql` gzipped as `WIKI-DATE-TABLE.sql.gz`, each
/// of `extra_sql` (`(table, text)`) gzipped the same way, and `VERIFIED` listing them all.
/// Returns the run folder.
pub fn build_run(dumps: &Path, wiki: &str, date: &str, extra_sql: &[(&str, String)]) -> PathBuf {
    let run = dumps.join(wiki).join(date);
    std::fs::create_dir_all(&run).expect("run folder");
    let (dump, index) = multistream();
    let mut files = vec![
        (
            format!("{wiki}-{date}-pages-articles-multistream.xml.bz2"),
            dump,
        ),
        (
            format!("{wiki}-{date}-pages-articles-multistream-index.txt.bz2"),
            bz2(index.as_bytes()),
        ),
    ];
    for table in ["page", "linktarget", "pagelinks"] {
        let text =
            std::fs::read(shared_data().join(format!("sql-sample/test-20240901-{table}.sql")))
                .expect("sql sample");
        files.push((format!("{wiki}-{date}-{table}.sql.gz"), gzip(&text)));
    }
    for (table, text) in extra_sql {
        files.push((
            format!("{wiki}-{date}-{table}.sql.gz"),
            gzip(text.as_bytes()),
        ));
    }
    let mut verified = String::new();
    for (name, bytes) in &files {
        let path = run.join(name);
        std::fs::write(&path, bytes).expect("write run file");
        verified.push_str(&sha1_line(&path));
    }
    std::fs::write(run.join("VERIFIED"), verified).expect("write VERIFIED");
    run
}
