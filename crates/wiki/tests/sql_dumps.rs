//! The SQL dump readers against the real fixtures in `shared/data/sql-sample/` and against small
//! dumps written here in the shape of real ones.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use wiki::io::Progress;
use wiki::sql::{
    LinkTarget, LinkTargetRow, PageLinkRow, PageRow, RedirectRow, read_linktargets, read_pagelinks,
    read_pages, read_redirects,
};
use wiki::{Error, Position, Result};

fn sample(name: &str) -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/sql-sample"
    ))
    .join(name)
}

fn collect<T>(rows: impl Iterator<Item = Result<T>>) -> Vec<T> {
    rows.collect::<Result<Vec<_>>>().expect("fixture parses")
}

/// The position and message of a parse error; panics (failing the test) on anything else.
fn parse_error(e: Error) -> (Position, String) {
    match e {
        Error::Parse {
            position, message, ..
        } => (position, message),
        other => panic!("expected a parse error, got {other}"),
    }
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn lt(id: u64, ns: i32, title: &str) -> LinkTargetRow {
    LinkTargetRow {
        id,
        ns,
        title: title.to_string(),
    }
}

#[test]
fn dewiki_linktarget_rows_titles_and_escapes() {
    let rows = collect(
        read_linktargets(
            &sample("dewiki-20240901-linktarget-small.sql"),
            &Progress::default(),
        )
        .unwrap(),
    );
    assert_eq!(rows.len(), 191);
    assert_eq!(rows[0], lt(193728, 0, ""));
    assert_eq!(rows[1], lt(3379598, 0, "!"));
    assert_eq!(
        rows.last().unwrap(),
        &lt(3344831, 0, "\"Der unsichtbare Mann\"")
    );
    assert!(rows.iter().all(|r| r.ns == 0));
    let by_id: HashMap<u64, &str> = rows.iter().map(|r| (r.id, r.title.as_str())).collect();
    assert_eq!(by_id.len(), 191, "ids are unique");
    // `\"`, `\'` and `\\` escapes, and UTF-8 in a varbinary column.
    assert_eq!(by_id[&4570529], "\"''Candidatus'' Anthektikosiphon\"");
    assert_eq!(by_id[&9073129], "\"(S\\\\.(?:");
    assert_eq!(by_id[&5863934], "!!! Der satirische Jahresrückblick im ZDF");
    assert_eq!(
        by_id[&8836070],
        "\",periMsg:'wikieditor-toolbar-tool-redirect-example',post:\""
    );
}

#[test]
fn dewiki_pagelinks_insert_continued_on_a_second_line() {
    let path = sample("dewiki-20240901-pagelinks-small.sql");
    let progress = Progress::default();
    let rows = collect(read_pagelinks(&path, &progress).unwrap());
    assert_eq!(rows.len(), 731);
    assert_eq!(
        rows[0],
        PageLinkRow {
            from: 12220397,
            from_ns: 0,
            target: LinkTarget::Id(1)
        }
    );
    assert_eq!(
        rows[730],
        PageLinkRow {
            from: 7883667,
            from_ns: 0,
            target: LinkTarget::Id(74)
        }
    );
    assert!(rows.iter().all(|r| r.from_ns == 0));
    // Hand-checked with a regex over the file: 4 distinct targets, this sum of sources.
    let targets: HashSet<&LinkTarget> = rows.iter().map(|r| &r.target).collect();
    assert_eq!(targets.len(), 4);
    assert_eq!(rows.iter().map(|r| r.from).sum::<u64>(), 6_933_824_013);
    assert_eq!(progress.decoded(), std::fs::metadata(&path).unwrap().len());

    // The excerpts were cut independently: none of these targets is in the linktarget excerpt.
    let lts: HashMap<u64, (i32, String)> = collect(
        read_linktargets(
            &sample("dewiki-20240901-linktarget-small.sql"),
            &Progress::default(),
        )
        .unwrap(),
    )
    .into_iter()
    .map(|r| (r.id, (r.ns, r.title)))
    .collect();
    assert_eq!(
        rows.iter()
            .filter(|r| r.target.resolve(&lts).is_some())
            .count(),
        0
    );
}

#[test]
fn loginwiki_page_dump_with_page_lang() {
    let rows =
        collect(read_pages(&sample("test-20240901-page.sql"), &Progress::default()).unwrap());
    assert_eq!(rows.len(), 14);
    assert_eq!(
        rows[0],
        PageRow {
            id: 1,
            ns: 0,
            title: "Main Page".into(),
            is_redirect: false,
            len: 678
        }
    );
    assert_eq!(
        rows[8],
        PageRow {
            id: 12,
            ns: 2,
            title: "Operator873/common.js".into(),
            is_redirect: false,
            len: 553
        }
    );
    assert_eq!(
        rows[13],
        PageRow {
            id: 21,
            ns: 4,
            title: "About".into(),
            is_redirect: true,
            len: 23
        }
    );
    let redirects: Vec<u64> = rows
        .iter()
        .filter(|r| r.is_redirect)
        .map(|r| r.id)
        .collect();
    assert_eq!(redirects, [20, 21]);
    assert_eq!(rows[12].title, "General disclaimer");
}

#[test]
fn loginwiki_pagelinks_join_through_linktarget() {
    let targets = collect(
        read_linktargets(
            &sample("test-20240901-linktarget.sql"),
            &Progress::default(),
        )
        .unwrap(),
    );
    assert_eq!(
        targets,
        [
            lt(3, 0, "Main Page"),
            lt(4, 0, "DUMMY"),
            lt(7, 2, "NONARTICLE"),
            lt(2, 3, "NONARTICLE3"),
        ]
    );
    let links = collect(
        read_pagelinks(&sample("test-20240901-pagelinks.sql"), &Progress::default()).unwrap(),
    );
    let ids: Vec<(u64, i32, LinkTarget)> = links
        .iter()
        .map(|l| (l.from, l.from_ns, l.target.clone()))
        .collect();
    // `(12,0,4),(21,0,3), (42, 2, 7)`: blanks between tuples and values.
    assert_eq!(
        ids,
        [
            (12, 0, LinkTarget::Id(4)),
            (21, 0, LinkTarget::Id(3)),
            (42, 2, LinkTarget::Id(7)),
        ]
    );
    let map: HashMap<u64, (i32, String)> = targets
        .into_iter()
        .map(|t| (t.id, (t.ns, t.title)))
        .collect();
    let joined: Vec<(u64, i32, &str)> = links
        .iter()
        .filter_map(|l| l.target.resolve(&map).map(|(ns, t)| (l.from, ns, t)))
        .collect();
    assert_eq!(
        joined,
        [
            (12, 0, "DUMMY"),
            (21, 0, "Main Page"),
            (42, 2, "NONARTICLE")
        ]
    );
}

/// The pre-2024 layout, DDL as in enwiki dumps of 2014–2024.
const OLD_PAGELINKS: &str = "-- MySQL dump 10.19  Distrib 10.3.38-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1206    Database: enwiki
DROP TABLE IF EXISTS `pagelinks`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8 */;
CREATE TABLE `pagelinks` (
  `pl_from` int(8) unsigned NOT NULL DEFAULT 0,
  `pl_namespace` int(11) NOT NULL DEFAULT 0,
  `pl_title` varbinary(255) NOT NULL DEFAULT '',
  `pl_from_namespace` int(11) NOT NULL DEFAULT 0,
  PRIMARY KEY (`pl_from`,`pl_namespace`,`pl_title`),
  KEY `pl_namespace` (`pl_namespace`,`pl_title`,`pl_from`),
  KEY `pl_backlinks_namespace` (`pl_from_namespace`,`pl_namespace`,`pl_title`,`pl_from`)
) ENGINE=InnoDB DEFAULT CHARSET=binary ROW_FORMAT=COMPRESSED;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `pagelinks` DISABLE KEYS */;
INSERT INTO `pagelinks` VALUES (10,0,'Computer_accessibility',0),(12,0,'\\'Abd_al-Rahman',0),(12,14,'Anarchism',0),
(25,0,'O\\'Brien',4);
INSERT INTO `pagelinks` VALUES (27,0,'élan_vital',0);
/*!40000 ALTER TABLE `pagelinks` ENABLE KEYS */;
";

#[test]
fn old_layout_pagelinks_by_column_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "enwiki-pagelinks.sql", OLD_PAGELINKS);
    let rows = collect(read_pagelinks(&path, &Progress::default()).unwrap());
    let title = |from, from_ns, ns, title: &str| PageLinkRow {
        from,
        from_ns,
        target: LinkTarget::Title {
            ns,
            title: title.into(),
        },
    };
    assert_eq!(
        rows,
        [
            title(10, 0, 0, "Computer accessibility"),
            title(12, 0, 0, "'Abd al-Rahman"),
            title(12, 0, 14, "Anarchism"),
            title(25, 4, 0, "O'Brien"),
            title(27, 0, 0, "Élan vital"),
        ]
    );
}

#[test]
fn redirects_skip_interwiki_targets() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "enwiki-redirect.sql",
        "CREATE TABLE `redirect` (
  `rd_from` int(8) unsigned NOT NULL DEFAULT 0,
  `rd_namespace` int(11) NOT NULL DEFAULT 0,
  `rd_title` varbinary(255) NOT NULL DEFAULT '',
  `rd_interwiki` varbinary(32) DEFAULT NULL,
  `rd_fragment` varbinary(255) DEFAULT NULL,
  PRIMARY KEY (`rd_from`),
  KEY `rd_ns_title` (`rd_namespace`,`rd_title`,`rd_from`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
INSERT INTO `redirect` VALUES (10,0,'Computer_accessibility','',''),(13,0,'History_of_Afghanistan','',''),(14,0,'Geography_of_Afghanistan','',NULL),(24,0,'Pedanius_Dioscorides','','Life'),(99,0,'Main_Page','meta',''),(100,14,'Anarchism',NULL,NULL);
",
    );
    let rows = collect(read_redirects(&path, &Progress::default()).unwrap());
    let rd = |from, ns, title: &str| RedirectRow {
        from,
        ns,
        title: title.into(),
    };
    assert_eq!(
        rows,
        [
            rd(10, 0, "Computer accessibility"),
            rd(13, 0, "History of Afghanistan"),
            rd(14, 0, "Geography of Afghanistan"),
            rd(24, 0, "Pedanius Dioscorides"),
            rd(100, 14, "Anarchism"),
        ]
    );
}

#[test]
fn gzipped_dump_reads_like_the_plain_one() {
    let plain = sample("test-20240901-page.sql");
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("test-20240901-page.sql.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(&std::fs::read(&plain).unwrap()).unwrap();
    enc.finish().unwrap();
    let progress = Progress::default();
    let from_gz = collect(read_pages(&gz, &progress).unwrap());
    assert_eq!(from_gz.len(), 14);
    assert_eq!(
        from_gz,
        collect(read_pages(&plain, &Progress::default()).unwrap())
    );
    assert_eq!(progress.decoded(), 4015);
    assert_eq!(progress.disk(), std::fs::metadata(&gz).unwrap().len());
}

#[test]
fn malformed_tuple_names_its_line_and_column() {
    let text = std::fs::read_to_string(sample("test-20240901-pagelinks.sql"))
        .unwrap()
        .replace("(42, 2, 7)", "(42, 2 7)");
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "bad-pagelinks.sql", &text);
    let mut rows = read_pagelinks(&path, &Progress::default()).unwrap();
    assert_eq!(rows.next().unwrap().unwrap().from, 12);
    assert_eq!(rows.next().unwrap().unwrap().from, 21);
    let err = rows.next().unwrap().unwrap_err();
    assert!(err.to_string().contains("bad-pagelinks.sql"), "{err}");
    let (position, message) = parse_error(err);
    assert_eq!(position, Position::Line(40));
    assert_eq!(
        message,
        "column 58: expected ',' or ')' after a value, found '7'"
    );
    assert!(rows.next().is_none(), "the reader stops after an error");
}

#[test]
fn bad_values_are_errors_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let ddl = "CREATE TABLE `linktarget` (\n  `lt_id` bigint(20),\n  `lt_namespace` int(11),\n  `lt_title` varbinary(255)\n);\n";
    // A string where the id should be.
    let path = write(
        &dir,
        "a.sql",
        &format!("{ddl}INSERT INTO `linktarget` VALUES (1,0,'A'),\n('x',0,'B');\n"),
    );
    let mut rows = read_linktargets(&path, &Progress::default()).unwrap();
    assert_eq!(rows.next().unwrap().unwrap(), lt(1, 0, "A"));
    let (position, message) = parse_error(rows.next().unwrap().unwrap_err());
    assert_eq!(position, Position::Line(7));
    assert!(
        message.contains("`linktarget`.`lt_id`: expected an integer"),
        "{message}"
    );

    // Invalid UTF-8 in a title (Latin-1 "é").
    let path = dir.path().join("b.sql");
    let mut bytes = format!("{ddl}INSERT INTO `linktarget` VALUES (1,0,'caf").into_bytes();
    bytes.extend_from_slice(b"\xe9');\n");
    std::fs::write(&path, bytes).unwrap();
    let err = read_linktargets(&path, &Progress::default())
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    let (position, message) = parse_error(err);
    assert_eq!(position, Position::Line(6));
    assert!(message.contains("invalid UTF-8 at byte 3"), "{message}");

    // A tuple shorter than the table.
    let path = write(
        &dir,
        "c.sql",
        &format!("{ddl}INSERT INTO `linktarget` VALUES (1,0);\n"),
    );
    let err = read_linktargets(&path, &Progress::default())
        .unwrap()
        .next()
        .unwrap();
    assert!(
        parse_error(err.unwrap_err())
            .1
            .contains("tuple has 2 values")
    );
}

#[test]
fn wrong_table_or_missing_ddl_is_refused() {
    let err = read_pages(&sample("test-20240901-pagelinks.sql"), &Progress::default())
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    let (position, message) = parse_error(err);
    assert_eq!(position, Position::Line(40));
    assert_eq!(
        message,
        "no column `page_id` (columns: pl_from, pl_from_namespace, pl_target_id)"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "noddl.sql",
        "INSERT INTO `page` VALUES (1,0,'A',0,1);\n",
    );
    let err = read_pages(&path, &Progress::default())
        .unwrap()
        .next()
        .unwrap();
    assert!(
        parse_error(err.unwrap_err())
            .1
            .contains("no CREATE TABLE for `page`")
    );

    let missing = read_pages(Path::new("/nonexistent/page.sql"), &Progress::default());
    assert!(matches!(missing, Err(Error::Io { .. })));
}

/// `mysqldump --complete-insert` names the columns in each statement; each statement's own order
/// counts, from its first row on.
#[test]
fn column_lists_in_insert_statements() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "linktarget.sql",
        "INSERT INTO `linktarget` (`lt_id`, `lt_namespace`, `lt_title`) VALUES (1,0,'A');\n\
         INSERT INTO `linktarget` (`lt_title`,`lt_id`,`lt_namespace`) VALUES ('B_b',2,0),('C',3,14);\n",
    );
    let rows = collect(read_linktargets(&path, &Progress::default()).unwrap());
    assert_eq!(rows, [lt(1, 0, "A"), lt(2, 0, "B b"), lt(3, 14, "C")]);
}

/// A `.sql.gz` cut in half fails with the file, the line where the text stopped, and the
/// decoder's message said once.
#[test]
fn cut_gzip_dump_names_the_line() {
    let text = std::fs::read(sample("test-20240901-pagelinks.sql")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut-pagelinks.sql.gz");
    std::fs::write(&path, &gz[..gz.len() / 2]).unwrap();
    let err = read_pagelinks(&path, &Progress::default())
        .and_then(|rows| rows.collect::<Result<Vec<_>>>())
        .unwrap_err();
    let shown = err.to_string();
    assert!(shown.contains("cut-pagelinks.sql.gz"), "{shown}");
    let (position, message) = parse_error(err);
    // The line being read when the text stopped: one past the whole lines the cut file holds.
    let mut decoded = Vec::new();
    let _ = std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gz[..gz.len() / 2]),
        &mut decoded,
    );
    let whole_lines = decoded.iter().filter(|&&b| b == b'\n').count() as u64;
    assert!(
        whole_lines > 10,
        "the cut leaves a good part: {whole_lines}"
    );
    assert_eq!(position, Position::Line(whole_lines + 1));
    assert!(message.starts_with("reading: "), "{message}");
    let cause = message.trim_start_matches("reading: ");
    assert_eq!(shown.matches(cause).count(), 1, "said twice: {shown}");
}
