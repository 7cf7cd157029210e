//! End-to-end tests of `clue-db ingest`: every source format into a database, checked with SQL,
//! and bad input, which must fail with the file and position named and leave an earlier
//! database exactly as it was.

mod common;

use common::{clue_db, count, data, enwiki_sample, meta, open, sql_sample, tmp_leftovers};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Runs `clue-db ingest --format FORMAT PATHS… [EXTRA…] --keep-links --db DB` (the links as
/// rows too, which these tests check with SQL).
fn ingest(format: &str, paths: &[&Path], extra: &[&str], db: &Path) -> common::Run {
    let mut args: Vec<std::ffi::OsString> = vec![
        "ingest".into(),
        "--keep-links".into(),
        "--format".into(),
        format.into(),
    ];
    args.extend(paths.iter().map(|p| p.as_os_str().to_owned()));
    args.extend(extra.iter().map(|s| s.into()));
    args.extend(["--db".into(), db.as_os_str().to_owned()]);
    clue_db(args)
}

/// The set of links as `(src, dst)` page ids.
fn link_pairs(conn: &rusqlite::Connection) -> BTreeSet<(i64, i64)> {
    let mut st = conn.prepare("SELECT src, dst FROM links").unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn title_of(conn: &rusqlite::Connection, id: i64) -> String {
    conn.query_row("SELECT title FROM pages WHERE id = ?1", [id], |r| r.get(0))
        .unwrap_or_else(|e| panic!("page {id}: {e}"))
}

#[test]
fn wikispeedia_all_pages_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ws.sqlite");
    let run = ingest("wikispeedia", &[&data().join("wikispeedia")], &[], &db).ok();
    assert!(run.stderr.contains("4604 pages"), "{}", run.stderr);
    let c = open(&db);
    // SOURCES.md: 4,604 articles, 119,882 links, 110 of them self-links, none unresolved.
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 4604);
    assert_eq!(count(&c, "SELECT count(*) FROM links"), 119_882);
    assert_eq!(count(&c, "SELECT count(*) FROM links WHERE src = dst"), 110);
    assert_eq!(count(&c, "SELECT count(*) FROM page_text"), 4604);
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM pages WHERE redirect_to IS NOT NULL"
        ),
        0
    );
    assert_eq!(meta(&c, "ingest.links_unresolved").as_deref(), Some("0"));
    assert_eq!(meta(&c, "ingest.format").as_deref(), Some("wikispeedia"));
    // Ids are 1-based rows of articles.tsv; titles are URL-decoded, `__` is ": ".
    assert_eq!(title_of(&c, 1), "Áedán mac Gabráin");
    assert_eq!(title_of(&c, 2), "Åland");
    assert_eq!(title_of(&c, 71), "AT&T");
    assert_eq!(title_of(&c, 414), "Avatar: The Last Airbender");
    assert_eq!(title_of(&c, 4604), "Zulu");
    assert_eq!(
        count(&c, "SELECT count(*) FROM pages WHERE title = 'Donation'"),
        1
    );
    // The length column is the text's length in characters.
    let (len, text): (i64, String) = c
        .query_row(
            "SELECT p.length, t.text FROM pages p JOIN page_text t ON t.id = p.id WHERE p.title = 'Zulu'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(len, text.chars().count() as i64);
    assert!(!text.contains("#copyright"), "header left in the text");
}

#[test]
fn wikispeedia_without_site_pages() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ws.sqlite");
    ingest(
        "wikispeedia",
        &[&data().join("wikispeedia")],
        &["--skip-site-pages"],
        &db,
    )
    .ok();
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 4598);
    // Three links touch the six site pages.
    assert_eq!(count(&c, "SELECT count(*) FROM links"), 119_879);
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM pages WHERE title IN ('Directdebit', 'Donation', \
             'Friend Directdebit', 'Sponsorship Directdebit', 'Wowpurchase', \
             'Wikipedia Text of the GNU Free Documentation License')"
        ),
        0
    );
    // The other pages keep their ids (rows of articles.tsv).
    assert_eq!(title_of(&c, 1), "Áedán mac Gabráin");
    assert_eq!(title_of(&c, 4604), "Zulu");
    assert_eq!(meta(&c, "ingest.skip_site_pages").as_deref(), Some("true"));
}

#[test]
fn enwiki_xml_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.sqlite");
    ingest("xml", &[&enwiki_sample()], &[], &db).ok();
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 206);
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM pages WHERE redirect_to IS NOT NULL"
        ),
        100
    );
    // SOURCES.md says all 100 redirects are in ns 0, but one is the ns-4 page
    // "Wikipedia:Adding Wikipedia articles to Nupedia" (checked in the XML).
    assert_eq!(count(&c, "SELECT count(*) FROM pages WHERE ns = 4"), 1);
    assert_eq!(
        c.query_row("SELECT redirect_to FROM pages WHERE id = 724", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap(),
        "Wikipedia:Nupedia and Wikipedia"
    );
    assert_eq!(
        c.query_row(
            "SELECT redirect_to FROM pages WHERE title = 'AbacuS'",
            [],
            |r| r.get::<_, String>(0)
        )
        .unwrap(),
        "Abacus"
    );
    // Texts are stored for the 106 non-redirect pages only.
    assert_eq!(count(&c, "SELECT count(*) FROM page_text"), 106);
    // The 8 pages with a disambiguation template ({{disambiguation}} ×7, {{geodis}} on Aa River).
    assert_eq!(
        count(&c, "SELECT count(*) FROM pages WHERE is_disambiguation"),
        8
    );
    assert_eq!(
        count(
            &c,
            "SELECT is_disambiguation FROM pages WHERE title = 'Aa River'"
        ),
        1
    );
    // Links: 85 distinct pairs between stored pages, counted by hand from the XML (links in the
    // page text outside templates whose target is a stored article). Only 13 of the 100
    // redirect targets are in the file, and no link of the excerpt names a redirect whose
    // target is stored, so nothing resolves through a redirect here (the synthetic test below
    // covers that path).
    assert_eq!(count(&c, "SELECT count(*) FROM links"), 85);
    assert_eq!(meta(&c, "ingest.links_via_redirect").as_deref(), Some("0"));
    assert_eq!(meta(&c, "ingest.links").as_deref(), Some("85"));
    // Every [[link]] of the 206 pages is staged; all but the 85 above (and 24 duplicate pairs)
    // name a page the excerpt lacks.
    assert_eq!(meta(&c, "ingest.links_staged").as_deref(), Some("22605"));
    assert_eq!(
        meta(&c, "ingest.links_unresolved").as_deref(),
        Some("22496")
    );
    // Every link joins two stored non-redirect pages; some named pairs.
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM links l JOIN pages s ON s.id = l.src JOIN pages d ON d.id = l.dst \
             WHERE s.redirect_to IS NULL AND d.redirect_to IS NULL"
        ),
        85
    );
    for (src, dst) in [
        ("Aardwolf", "Aardvark"),
        ("Achilles", "Apollo"),
        ("Abacus", "ASCII"),
    ] {
        assert_eq!(
            c.query_row(
                "SELECT count(*) FROM links l JOIN pages s ON s.id = l.src JOIN pages d ON d.id = l.dst \
                 WHERE s.title = ?1 AND d.title = ?2",
                [src, dst],
                |r| r.get::<_, i64>(0)
            )
            .unwrap(),
            1,
            "{src} -> {dst}"
        );
    }
    // Plain text: the article's first sentence, no markup anywhere.
    let anarchism: String = c
        .query_row(
            "SELECT t.text FROM page_text t JOIN pages p ON p.id = t.id WHERE p.title = 'Anarchism'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        anarchism.starts_with(
            "Anarchism is a political philosophy that advocates self-governed societies based on voluntary institutions."
        ),
        "{}",
        &anarchism[..anarchism.len().min(300)]
    );
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM page_text WHERE instr(text, '[[') OR instr(text, ']]') \
             OR instr(text, '{{') OR instr(text, '}}') OR instr(text, '&lt;')"
        ),
        0
    );
}

/// A small XML dump in the export-0.10 shape, with a redirect that a link goes through.
const REDIRECT_XML: &str = r#"<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">
  <page>
    <title>Apple</title>
    <ns>0</ns>
    <id>1</id>
    <revision><id>11</id><text xml:space="preserve">An '''apple''' is a [[Fruits|fruit]] of a [[tree]]; see [[Nowhere]] and [[fruit]].</text></revision>
  </page>
  <page>
    <title>Fruits</title>
    <ns>0</ns>
    <id>2</id>
    <redirect title="Fruit" />
    <revision><id>12</id><text xml:space="preserve">#REDIRECT [[Fruit]]</text></revision>
  </page>
  <page>
    <title>Fruit</title>
    <ns>0</ns>
    <id>3</id>
    <revision><id>13</id><text xml:space="preserve">A '''fruit''' grows on a plant, like an [[apple]].</text></revision>
  </page>
</mediawiki>
"#;

#[test]
fn xml_links_through_a_redirect() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("tiny.xml");
    std::fs::write(&xml, REDIRECT_XML).unwrap();
    let db = dir.path().join("t.sqlite");
    ingest("xml", &[&xml], &[], &db).ok();
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 3);
    // Apple -> Fruits (a redirect) is stored as Apple -> Fruit, once with the direct [[fruit]];
    // Fruit -> Apple is direct. "tree" and "Nowhere" are not in the corpus.
    assert_eq!(link_pairs(&c), BTreeSet::from([(1, 3), (3, 1)]));
    assert_eq!(meta(&c, "ingest.links_via_redirect").as_deref(), Some("1"));
    assert_eq!(meta(&c, "ingest.links_unresolved").as_deref(), Some("2"));
    let text: String = c
        .query_row("SELECT text FROM page_text WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        text,
        "An apple is a fruit of a tree; see Nowhere and fruit."
    );
}

#[test]
fn sql_fixtures_current_layout() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    ingest(
        "sql",
        &[
            &sql_sample("test-20240901-page.sql"),
            &sql_sample("test-20240901-linktarget.sql"),
            &sql_sample("test-20240901-pagelinks.sql"),
        ],
        &[],
        &db,
    )
    .ok();
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 14);
    assert_eq!(title_of(&c, 1), "Main Page");
    // Other namespaces keep their (canonical) prefix, as XML dumps give titles.
    assert_eq!(title_of(&c, 12), "User:Operator873/common.js");
    assert_eq!(title_of(&c, 20), "Project:General disclaimer");
    assert_eq!(
        count(&c, "SELECT ns FROM pages WHERE title = 'User:MarcoAurelio'"),
        2
    );
    // SQL dumps carry no text.
    assert_eq!(count(&c, "SELECT count(*) FROM page_text"), 0);
    assert_eq!(count(&c, "SELECT sum(length) FROM pages"), 0);
    // By hand: pagelinks (12,0,4),(21,0,3),(42,2,7) through linktarget 3 = (0,Main_Page),
    // 4 = (0,DUMMY), 7 = (2,NONARTICLE). Only 21 (About) -> 3 (Main Page, id 1) joins two
    // stored pages: DUMMY and User:NONARTICLE are not pages, and page 42 does not exist.
    assert_eq!(link_pairs(&c), BTreeSet::from([(21, 1)]));
    assert_eq!(meta(&c, "ingest.links_unresolved").as_deref(), Some("2"));
    // Whole dumps: each ends with mysqldump's `-- Dump completed` line.
    assert_eq!(meta(&c, "ingest.sql_incomplete_files").as_deref(), Some(""));
    assert_eq!(
        meta(&c, "ingest.link_targets_missing").as_deref(),
        Some("0")
    );
}

#[test]
fn sql_pagelinks_whose_targets_are_missing() {
    // The dewiki excerpts: 731 pagelinks rows (the INSERT goes on over a second line) whose
    // target ids are none of the 191 linktarget rows.
    let dir = tempfile::tempdir().unwrap();
    // The files say their table in their INSERT, whatever their names.
    let lt = sql_sample("dewiki-20240901-linktarget-small.sql");
    let pl = sql_sample("dewiki-20240901-pagelinks-small.sql");
    let db = dir.path().join("s.sqlite");
    let run = ingest(
        "sql",
        &[&sql_sample("test-20240901-page.sql"), &lt, &pl],
        &[],
        &db,
    )
    .ok();
    // Excerpts: no `-- Dump completed` line, said on stderr and in meta.
    assert!(run.stderr.contains("-- Dump completed"), "{}", run.stderr);
    let c = open(&db);
    let incomplete = meta(&c, "ingest.sql_incomplete_files").unwrap();
    assert!(
        incomplete.contains("linktarget-small.sql") && incomplete.contains("pagelinks-small.sql"),
        "{incomplete}"
    );
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 14);
    assert_eq!(count(&c, "SELECT count(*) FROM links"), 0);
    assert_eq!(
        meta(&c, "ingest.link_targets_missing").as_deref(),
        Some("731")
    );
}

/// The pre-2024 `pagelinks` layout (real DDL column order), rows chosen against the page fixture.
const OLD_PAGELINKS: &str = "-- MySQL dump 10.19  Distrib 10.3.38-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1234    Database: testwiki
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
) ENGINE=InnoDB DEFAULT CHARSET=binary ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
/*!40101 SET character_set_client = @saved_cs_client */;
LOCK TABLES `pagelinks` WRITE;
INSERT INTO `pagelinks` VALUES (21,0,'Main_Page',4),(12,0,'DUMMY',2),(1,4,'About',0),(7,8,'Noarticletext',2),(1,0,'About',0),(12,4,'General_disclaimer',2);
UNLOCK TABLES;
";

/// A `redirect` dump: General disclaimer (id 20) redirects to Main Page, and a user sandbox
/// (id 15) into the user namespace (2).
const REDIRECTS: &str = "CREATE TABLE `redirect` (
  `rd_from` int(8) unsigned NOT NULL DEFAULT 0,
  `rd_namespace` int(11) NOT NULL DEFAULT 0,
  `rd_title` varbinary(255) NOT NULL DEFAULT '',
  `rd_interwiki` varbinary(32) DEFAULT NULL,
  `rd_fragment` varbinary(255) DEFAULT NULL,
  PRIMARY KEY (`rd_from`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
INSERT INTO `redirect` VALUES (20,0,'Main_Page','',''),(15,2,'TheresNoTime','','');
";

#[test]
fn sql_old_pagelinks_layout_with_redirects() {
    let dir = tempfile::tempdir().unwrap();
    let pl = dir.path().join("testwiki-20200101-pagelinks.sql");
    let rd = dir.path().join("testwiki-20200101-redirect.sql");
    std::fs::write(&pl, OLD_PAGELINKS).unwrap();
    std::fs::write(&rd, REDIRECTS).unwrap();
    let db = dir.path().join("s.sqlite");
    ingest(
        "sql",
        &[&sql_sample("test-20240901-page.sql"), &rd, &pl],
        &[],
        &db,
    )
    .ok();
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 14);
    assert_eq!(
        c.query_row("SELECT redirect_to FROM pages WHERE id = 20", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap(),
        "Main Page"
    );
    // Another namespace keeps its canonical prefix, so it can never resolve to an article.
    assert_eq!(
        c.query_row("SELECT redirect_to FROM pages WHERE id = 15", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap(),
        "User:TheresNoTime"
    );
    // The page dump marks About (21) a redirect (`page_is_redirect` = 1) but no redirect row
    // names its target: a redirect with an empty target.
    assert_eq!(
        c.query_row("SELECT redirect_to FROM pages WHERE id = 21", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap(),
        ""
    );
    // (21,0,Main_Page) -> 1; (12,0,DUMMY) unresolved; (1,4,About) unresolved (21 is a redirect
    // to nobody knows where); (7,8,Noarticletext) -> 11; (1,0,About) unresolved (About is in
    // namespace 4, not 0); (12,4,General_disclaimer) -> 20, a redirect, so -> 1.
    assert_eq!(link_pairs(&c), BTreeSet::from([(7, 11), (12, 1), (21, 1)]));
    assert_eq!(meta(&c, "ingest.links_unresolved").as_deref(), Some("3"));
    assert_eq!(meta(&c, "ingest.links_via_redirect").as_deref(), Some("1"));
}

/// WikiExtractor's `<doc>` form: unescaped body, escaped title, the title repeated as line 1.
const EXTRACTOR_DOCS: &str = r#"<doc id="12" url="https://en.wikipedia.org/wiki?curid=12" title="Anarchism">
Anarchism

Anarchism is a political philosophy that advocates self-governed societies.
It keeps <b> & other raw characters in the body.

</doc>
<doc id="25" url="https://en.wikipedia.org/wiki?curid=25" title="AT&amp;T">
AT&amp;T

AT&T is a telephone company.
</doc>
"#;

/// WikiExtractor's JSON-lines form.
const EXTRACTOR_JSON: &str = concat!(
    r#"{"id": "39", "url": "https://en.wikipedia.org/wiki?curid=39", "title": "Albedo", "text": "Albedo\n\nAlbedo is the measure of diffuse reflection."}"#,
    "\n",
    r#"{"id": "290", "url": "https://en.wikipedia.org/wiki?curid=290", "title": "A", "text": "A\n\nA is the first letter of the alphabet \u00e9."}"#,
    "\n"
);

/// Peak resident memory of the largest child this test process has waited for, in bytes
/// (`getrusage(RUSAGE_CHILDREN)`; Linux reports kilobytes).
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut u), 0);
        u
    };
    usage.ru_maxrss as u64 * 1024
}

/// The whole 2015 WikiExtractor file (411 MB of text in 105 MB of xz): every article stored
/// with its title HTML-decoded, streaming: the ingest's peak memory stays under 1 GB. (Other
/// tests' children count towards the same peak, which only makes the bound stricter.)
#[test]
fn the_whole_wikiextractor_file_streams_into_the_store() {
    let file =
        data().join("enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("extractor.sqlite");
    let run = ingest("extractor", &[&file], &[], &db).ok();
    assert!(
        run.stderr.contains("ingested 30729 pages"),
        "{}",
        run.stderr
    );
    let peak = children_peak_rss();
    assert!(peak < 1 << 30, "peak RSS {} MB", peak >> 20);
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 30_729);
    // 190 articles have an empty body (pinned by the reader's test); they get no text row.
    assert_eq!(count(&c, "SELECT count(*) FROM page_text"), 30_729 - 190);
    assert_eq!(count(&c, "SELECT min(id) FROM pages"), 12);
    assert_eq!(count(&c, "SELECT max(id) FROM pages"), 60_633);
    for (id, title) in [
        (12, "Anarchism"),
        (4729, "Batman & Robin (film)"),
        (13834, "\"Hello, World!\" program"),
    ] {
        assert_eq!(title_of(&c, id), title);
    }
    let escaped = "SELECT count(*) FROM pages WHERE title LIKE '%&amp;%' OR title LIKE '%&quot;%' \
                   OR title LIKE '%&#%'";
    assert_eq!(count(&c, escaped), 0, "no HTML entity is left in a title");
}

#[test]
fn wikiextractor_doc_and_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("wiki_00");
    let json = dir.path().join("wiki_01.json");
    std::fs::write(&docs, EXTRACTOR_DOCS).unwrap();
    std::fs::write(&json, EXTRACTOR_JSON).unwrap();
    let db = dir.path().join("e.sqlite");
    ingest("extractor", &[&docs, &json], &[], &db).ok();
    let c = open(&db);
    let mut st = c
        .prepare(
            "SELECT p.id, p.title, p.ns, p.redirect_to IS NULL, p.length, t.text \
             FROM pages p JOIN page_text t ON t.id = p.id ORDER BY p.id",
        )
        .unwrap();
    let rows: Vec<(i64, String, i64, bool, i64, String)> = st
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let expected = [
        (
            12,
            "Anarchism",
            "Anarchism is a political philosophy that advocates self-governed societies.\n\
             It keeps <b> & other raw characters in the body.",
        ),
        (25, "AT&T", "AT&T is a telephone company."),
        (39, "Albedo", "Albedo is the measure of diffuse reflection."),
        (290, "A", "A is the first letter of the alphabet é."),
    ];
    assert_eq!(rows.len(), expected.len());
    for (row, (id, title, text)) in rows.iter().zip(expected) {
        assert_eq!((row.0, row.1.as_str(), row.5.as_str()), (id, title, text));
        assert_eq!(row.2, 0, "namespace of {title}");
        assert!(row.3, "{title} is not a redirect");
        assert_eq!(row.4, text.chars().count() as i64, "length of {title}");
    }
    assert_eq!(count(&c, "SELECT count(*) FROM links"), 0);
    assert_eq!(meta(&c, "ingest.format").as_deref(), Some("extractor"));
}

/// A small valid database to be protected by the failing runs, and its bytes.
fn existing_db(dir: &Path) -> (PathBuf, Vec<u8>) {
    let docs = dir.join("good.txt");
    std::fs::write(&docs, EXTRACTOR_DOCS).unwrap();
    let db = dir.join("clues.sqlite");
    ingest("extractor", &[&docs], &[], &db).ok();
    let bytes = std::fs::read(&db).unwrap();
    (db, bytes)
}

/// Runs a failing ingest against an existing database and checks the promises of a failure:
/// non-zero exit, an error naming `names` (file, position), the database untouched, no
/// temporary file left. Returns stderr.
#[track_caller]
fn fails_cleanly(format: &str, inputs: &[&Path], names: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (db, before) = existing_db(dir.path());
    let run = ingest(format, inputs, &[], &db).failed();
    for n in names {
        assert!(
            run.stderr.contains(n),
            "stderr should name {n:?}:\n{}",
            run.stderr
        );
    }
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the database changed after a failed ingest of {inputs:?}"
    );
    assert_eq!(tmp_leftovers(dir.path()), Vec::<String>::new());
    // Without an earlier database, a failure leaves nothing at all.
    let fresh = dir.path().join("fresh.sqlite");
    ingest(format, inputs, &[], &fresh).failed();
    assert!(
        !fresh.exists(),
        "a failed ingest created {}",
        fresh.display()
    );
    assert_eq!(tmp_leftovers(dir.path()), Vec::<String>::new());
    run.stderr
}

/// The byte position in `… byte N …` of an error message.
fn byte_position(stderr: &str) -> u64 {
    let rest = stderr
        .split("byte ")
        .nth(1)
        .unwrap_or_else(|| panic!("no byte position in {stderr}"));
    rest.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("no byte position in {stderr}"))
}

#[test]
fn truncated_bz2_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(enwiki_sample()).unwrap();
    let half = dir.path().join("half.xml.bz2");
    std::fs::write(&half, &full[..full.len() / 2]).unwrap();
    let err = fails_cleanly("xml", &[&half], &["half.xml.bz2", "byte "]);
    // The position is in the decompressed XML (6,089,746 bytes in all): about half-way.
    let at = byte_position(&err);
    assert!(at > 1_000_000 && at < 6_089_746, "{err}");
}

#[test]
fn malformed_xml_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // The second page's <text> is never closed; the first page is fine (and is written before
    // the error, so the test also shows the partial build is thrown away).
    let bad = REDIRECT_XML.replace("#REDIRECT [[Fruit]]</text>", "#REDIRECT [[Fruit]]");
    let xml = dir.path().join("broken.xml");
    std::fs::write(&xml, &bad).unwrap();
    let err = fails_cleanly("xml", &[&xml], &["broken.xml", "byte "]);
    let at = byte_position(&err);
    let second_page = bad.find("<title>Fruits").unwrap() as u64;
    assert!(
        at >= second_page && at <= bad.len() as u64,
        "position {at} outside the broken page ({second_page}..{}): {err}",
        bad.len()
    );
}

#[test]
fn malformed_sql_tuple_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // Line 18 of this dump has a tuple missing a comma: `(1, 4 'About', 0)`.
    let bad = OLD_PAGELINKS.replace("(1,4,'About',0)", "(1,4 'About',0)");
    let line = bad.lines().position(|l| l.starts_with("INSERT")).unwrap() + 1;
    assert_eq!(line, 18);
    let pl = dir.path().join("bad-pagelinks.sql");
    std::fs::write(&pl, &bad).unwrap();
    // Given with the page dump, as a user would.
    let page = sql_sample("test-20240901-page.sql");
    fails_cleanly("sql", &[&page, &pl], &["bad-pagelinks.sql", "line 18"]);
}

#[test]
fn invalid_utf8_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    // `<doc>` form: the bad bytes are on line 9 (second document's body).
    let mut doc = b"<doc id=\"1\" url=\"u\" title=\"Good\">\nGood\n\nFine text.\n</doc>\n".to_vec();
    doc.extend_from_slice(
        b"<doc id=\"2\" url=\"u\" title=\"Bad\">\nBad\n\nCaf\xe9 au lait \xff.\n</doc>\n",
    );
    let f = dir.path().join("wiki_bad");
    std::fs::write(&f, &doc).unwrap();
    fails_cleanly("extractor", &[&f], &["wiki_bad", "line 9", "UTF-8"]);
    // JSON-lines form: the bad bytes are on line 2.
    let mut json =
        b"{\"id\": \"1\", \"url\": \"u\", \"title\": \"Good\", \"text\": \"ok\"}\n".to_vec();
    json.extend_from_slice(
        b"{\"id\": \"2\", \"url\": \"u\", \"title\": \"Bad\", \"text\": \"caf\xe9\"}\n",
    );
    let f = dir.path().join("bad.json");
    std::fs::write(&f, &json).unwrap();
    fails_cleanly("extractor", &[&f], &["bad.json", "line 2"]);
}

#[test]
fn missing_input_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("no-such-dump.xml.bz2");
    fails_cleanly("xml", &[&gone], &["no-such-dump.xml.bz2", "no such file"]);
    fails_cleanly("extractor", &[&gone], &["no-such-dump.xml.bz2"]);
}
