//! The XML dump readers against the real enwiki sample (see shared/data/SOURCES.md, section 2),
//! and against broken inputs written to a temporary directory.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use wiki::io::Progress;
use wiki::{Error, Page, Position};

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/enwiki-sample/"
);
const MAIN: &str = "enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2";
const TABLES: &str = "enwiki-table-markup.xml.bz2";

fn data(name: &str) -> PathBuf {
    Path::new(DATA).join(name)
}

fn read_all(path: &Path) -> wiki::Result<Vec<Page>> {
    wiki::xml::read(path, &Progress::default())?.collect()
}

/// The main sample's pages, read once for all tests of this file.
fn main_pages() -> &'static [Page] {
    static PAGES: OnceLock<Vec<Page>> = OnceLock::new();
    PAGES.get_or_init(|| read_all(&data(MAIN)).expect("main sample reads"))
}

fn page(title: &str) -> &'static Page {
    main_pages()
        .iter()
        .find(|p| p.title == title)
        .unwrap_or_else(|| panic!("no page {title:?}"))
}

/// The decompressed main sample, for building variants of it.
fn main_xml() -> Vec<u8> {
    let bytes = std::fs::read(data(MAIN)).expect("read sample");
    let mut xml = Vec::new();
    bzip2::read::MultiBzDecoder::new(&bytes[..])
        .read_to_end(&mut xml)
        .expect("decode sample");
    xml
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

/// The parse error of a read that must fail, with the pages read before it.
fn expect_parse_error(
    pages: impl Iterator<Item = wiki::Result<Page>>,
) -> (usize, PathBuf, Position, String) {
    let mut ok = 0;
    for item in pages {
        match item {
            Ok(_) => ok += 1,
            Err(Error::Parse {
                path,
                position,
                message,
            }) => return (ok, path, position, message),
            Err(e) => panic!("expected a parse error, got {e}"),
        }
    }
    panic!("expected an error after {ok} pages, the read ended cleanly");
}

#[test]
fn main_sample_counts() {
    let pages = main_pages();
    assert_eq!(pages.len(), 206);
    assert_eq!(pages.iter().filter(|p| p.ns == 0).count(), 205);
    let ns4: Vec<_> = pages.iter().filter(|p| p.ns == 4).collect();
    assert_eq!(ns4.len(), 1);
    assert_eq!(
        ns4[0].title,
        "Wikipedia:Adding Wikipedia articles to Nupedia"
    );
    // SOURCES.md says the 100 redirects are all in ns 0, but the ns-4 page is one of them
    // (`<redirect title="Wikipedia:Nupedia and Wikipedia" />`): 99 + 1.
    let redirects: Vec<_> = pages.iter().filter(|p| p.redirect.is_some()).collect();
    assert_eq!(redirects.len(), 100);
    assert_eq!(redirects.iter().filter(|p| p.ns == 0).count(), 99);
    assert_eq!(
        ns4[0].redirect.as_deref(),
        Some("Wikipedia:Nupedia and Wikipedia")
    );
    assert_eq!(
        pages
            .iter()
            .filter(|p| p.ns == 0 && p.redirect.is_none())
            .count(),
        106
    );
    assert!(
        redirects
            .iter()
            .all(|p| p.links.is_empty() && p.text.is_empty())
    );
    let ids: BTreeSet<u64> = pages.iter().map(|p| p.id).collect();
    assert_eq!(ids.len(), 206, "page ids are unique (not revision ids)");
    assert_eq!(
        (pages[0].id, pages[0].title.as_str()),
        (10, "AccessibleComputing")
    );
    assert_eq!(pages[0].redirect.as_deref(), Some("Computer accessibility"));
    let last = pages.last().map(|p| (p.id, p.title.as_str()));
    assert_eq!(last, Some((775, "Algorithm")));
}

#[test]
fn main_sample_disambiguation_pages() {
    let dab: BTreeSet<&str> = main_pages()
        .iter()
        .filter(|p| p.is_disambiguation)
        .map(|p| p.title.as_str())
        .collect();
    let expected: BTreeSet<&str> = [
        "Alien",
        "Austin (disambiguation)",
        "Ada",
        "Aberdeen (disambiguation)",
        "Argument (disambiguation)",
        "Animal (disambiguation)",
        "Asia Minor (disambiguation)",
        "Aa River",
    ]
    .into();
    assert_eq!(dab, expected);
    assert!(page("Aberdeen (disambiguation)").links.len() > 20);
}

#[test]
fn no_markup_survives_in_any_article() {
    for p in main_pages().iter().filter(|p| p.redirect.is_none()) {
        assert!(!p.text.is_empty(), "{} has text", p.title);
        for bad in [
            "{{", "}}", "[[", "]]", "<ref", "</ref", "{|", "|}", "'''", "<!--", "&amp;", "&nbsp;",
        ] {
            assert!(!p.text.contains(bad), "{:?} survives in {}", bad, p.title);
        }
        for link in &p.links {
            assert!(!link.is_empty());
            assert!(!link.contains('#') && !link.contains('|'), "{link}");
            let lower = link.to_lowercase();
            for ns in [
                "file:",
                "image:",
                "category:",
                "template:",
                "wikipedia:",
                "help:",
                "portal:",
            ] {
                assert!(!lower.starts_with(ns), "{link} in {}", p.title);
            }
        }
    }
}

#[test]
fn albedo_plain_text_and_links() {
    let p = page("Albedo");
    assert_eq!((p.id, p.ns, p.redirect.as_deref()), (39, 0, None));
    assert!(!p.is_disambiguation);
    // Bold removed, the IPA template removed, the link label kept.
    assert!(p.text.starts_with(
        "Albedo or reflection coefficient, derived from Latin albedo \"whiteness\" (or reflected \
         sunlight) in turn from albus \"white\", is the diffuse reflectivity or reflecting power \
         of a surface.\n"
    ));
    // `[[Leadership in Energy and Environmental Design|LEED]]`, and a `<ref>` at the end.
    assert!(p.text.contains(
        "calculating reflectivity of surfaces in LEED sustainable-rating systems for buildings."
    ));
    assert!(p.text.contains(
        "because of different geological and environmental features.\n\nThe term was introduced \
         into optics by Johann Heinrich Lambert in his 1760 work Photometria.\n\nTerrestrial albedo\n\n"
    ));
    // The table of sample albedos is gone with its references.
    assert!(!p.text.contains("Fresh asphalt"));
    assert!(!p.text.contains("heat island"));
    // The file caption is gone.
    assert!(
        !p.text
            .contains("Percentage of diffusely reflected sunlight")
    );
    assert_eq!(
        &p.links[..6],
        [
            "Latin",
            "Diffuse reflection",
            "Dimensionless number",
            "Frequency",
            "Visible light",
            "Lambertian reflectance"
        ]
    );
    for t in [
        "Johann Heinrich Lambert",
        "Photometria",
        "Terra (satellite)",
        "Daisyworld",
    ] {
        assert!(p.links.iter().any(|l| l == t), "{t}");
    }
}

#[test]
fn achilles_plain_text() {
    let p = page("Achilles");
    assert!(p.text.contains(
        "In Greek mythology, Achilles (;, Akhilleus,) was a Greek hero of the Trojan War and the \
         central character and greatest warrior of Homer's Iliad. His mother was the nymph Thetis"
    ));
    assert!(p.text.contains(
        "he was killed near the end of the Trojan War by Paris, who shot him in the heel"
    ));
    assert!(p.text.contains("the term Achilles' heel has come to mean"));
    for t in [
        "Greek mythology",
        "Greeks",
        "Trojan War",
        "Homer",
        "Iliad",
        "Paris (mythology)",
        "Achilles' heel",
    ] {
        assert!(p.links.iter().any(|l| l == t), "{t}");
    }
}

#[test]
fn table_sample() {
    let pages = read_all(&data(TABLES)).expect("table sample reads");
    let titles: Vec<&str> = pages.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Constructive vote of no confidence",
            "List of Prison Break characters",
            "Academy Award for Best Production Design",
            "Economy of Estonia",
            "Brahui language"
        ]
    );
    assert_eq!(pages[0].id, 217916);
    for p in &pages {
        assert_eq!((p.ns, p.redirect.as_deref()), (0, None));
        assert!(!p.text.contains("{|") && !p.text.contains("|-") && !p.text.contains("||"));
        assert!(!p.text.contains("wikitable"), "{}", p.title);
    }
    assert!(pages[0].text.starts_with(
        "The constructive vote of no confidence (in German: konstruktives Misstrauensvotum, in \
         Spanish: moción de censura constructiva) is a variation on the motion of no confidence"
    ));
    assert_eq!(
        &pages[0].links[..4],
        [
            "Motion of no confidence",
            "Parliament",
            "Head of government",
            "West Germany"
        ]
    );
}

#[test]
fn progress_counts_bytes() {
    let progress = Progress::default();
    let n = wiki::xml::read(&data(TABLES), &progress)
        .expect("open")
        .count();
    assert_eq!(n, 5);
    assert_eq!(progress.disk(), 64_107);
    assert_eq!(progress.decoded(), 251_853);
}

#[test]
fn export_0_11_with_history_and_escapes() {
    let xml = r#"<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">
  <siteinfo><sitename>Wikipedia</sitename><namespaces><namespace key="0" case="first-letter" /></namespaces></siteinfo>
  <page>
    <title>AT&amp;T Corp</title>
    <ns>0</ns>
    <id>7</id>
    <revision>
      <id>100</id>
      <contributor><username>X</username><id>55</id></contributor>
      <origin>100</origin>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text bytes="5" sha1="abc" xml:space="preserve">old</text>
      <sha1>abc</sha1>
    </revision>
    <revision>
      <id>101</id>
      <origin>101</origin>
      <text bytes="60" sha1="def" xml:space="preserve">'''AT&amp;T''' is a [[telephone|phone]] company.&lt;ref&gt;x&lt;/ref&gt; &#x263A;</text>
    </revision>
  </page>
  <page>
    <title>ATT</title>
    <ns>0</ns>
    <id>8</id>
    <redirect title="AT&amp;T Corp" />
    <revision><id>102</id><text bytes="20" xml:space="preserve">#REDIRECT [[AT&amp;T Corp]]</text></revision>
  </page>
  <page>
    <title>Old style</title>
    <ns>0</ns>
    <id>9</id>
    <revision><id>103</id><text xml:space="preserve">#redirect [[target_page#Part]]</text></revision>
  </page>
  <page>
    <title>Deleted</title>
    <ns>0</ns>
    <id>10</id>
    <revision><id>104</id><text deleted="deleted" /></revision>
  </page>
</mediawiki>
"#;
    let dir = tempfile::tempdir().expect("tempdir");
    let pages = read_all(&write(dir.path(), "x.xml", xml.as_bytes())).expect("reads");
    assert_eq!(pages.len(), 4);
    assert_eq!(
        pages[0],
        Page {
            id: 7,
            title: "AT&T Corp".into(),
            ns: 0,
            text: "AT&T is a phone company. ☺".into(),
            redirect: None,
            is_disambiguation: false,
            links: vec!["Telephone".into()],
        }
    );
    assert_eq!(
        (pages[1].id, pages[1].redirect.as_deref()),
        (8, Some("AT&T Corp"))
    );
    assert_eq!(pages[2].redirect.as_deref(), Some("Target page"));
    assert_eq!((pages[3].id, pages[3].text.as_str()), (10, ""));
}

#[test]
fn truncated_bz2_is_an_error() {
    let bytes = std::fs::read(data(MAIN)).expect("read sample");
    let dir = tempfile::tempdir().expect("tempdir");
    let cut = write(dir.path(), "cut.xml.bz2", &bytes[..bytes.len() / 2]);
    let pages = wiki::xml::read(&cut, &Progress::default()).expect("open");
    let (ok, path, position, message) = expect_parse_error(pages);
    assert_eq!(path, cut);
    assert!((50..206).contains(&ok), "{ok} pages before the error");
    assert!(
        matches!(position, Position::Byte(b) if b > 1_000_000),
        "{position:?}"
    );
    assert!(message.contains("read error"), "{message}");
}

#[test]
fn truncated_plain_xml_is_an_error() {
    let xml = main_xml();
    let dir = tempfile::tempdir().expect("tempdir");
    // Cut right after a complete page: only the missing `</mediawiki>` tells.
    let text = std::str::from_utf8(&xml).expect("utf-8");
    let end = text.rfind("</page>").expect("a page") + "</page>".len();
    let cut = write(dir.path(), "cut.xml", &xml[..end]);
    let (ok, _, position, message) =
        expect_parse_error(wiki::xml::read(&cut, &Progress::default()).expect("open"));
    assert_eq!(ok, 206);
    assert_eq!(position, Position::Byte(end as u64));
    assert!(message.contains("still open"), "{message}");
    // Cut inside a page: the error names where that page starts.
    let start = text.rfind("  <page>").expect("a page") + 2;
    let cut = write(dir.path(), "cut2.xml", &xml[..start + 100]);
    let (ok, _, position, _) =
        expect_parse_error(wiki::xml::read(&cut, &Progress::default()).expect("open"));
    assert_eq!((ok, position), (205, Position::Byte(start as u64)));
}

#[test]
fn malformed_xml_names_the_byte() {
    let xml = "<mediawiki>\n<page><title>A</title><ns>0</ns><id>1</id><revision><text>x</text></revision></page>\n\
               <page><title>B</title><ns>0</ns><id>2</id></pag>\n</mediawiki>\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "bad.xml", xml.as_bytes());
    let (ok, p, position, message) =
        expect_parse_error(wiki::xml::read(&path, &Progress::default()).expect("open"));
    assert_eq!((ok, p), (1, path));
    assert_eq!(
        position,
        Position::Byte(xml.find("</pag>").expect("tag") as u64)
    );
    assert!(message.contains("malformed XML"), "{message}");

    let undefined = "<mediawiki><page><title>A&bogus;</title></page></mediawiki>";
    let path = write(dir.path(), "entity.xml", undefined.as_bytes());
    let (_, _, position, message) =
        expect_parse_error(wiki::xml::read(&path, &Progress::default()).expect("open"));
    assert_eq!(
        position,
        Position::Byte(undefined.find("&bogus").expect("ref") as u64)
    );
    assert!(message.contains("&bogus;"), "{message}");

    let no_id = "<mediawiki><page><title>A</title><ns>0</ns></page></mediawiki>";
    let path = write(dir.path(), "noid.xml", no_id.as_bytes());
    let (_, _, position, message) =
        expect_parse_error(wiki::xml::read(&path, &Progress::default()).expect("open"));
    assert_eq!(position, Position::Byte(11));
    assert!(message.contains("without an <id>"), "{message}");

    let path = write(dir.path(), "empty.xml", b"");
    let (_, _, _, message) =
        expect_parse_error(wiki::xml::read(&path, &Progress::default()).expect("open"));
    assert!(message.contains("no XML root"), "{message}");
}

#[test]
fn invalid_utf8_is_an_error() {
    let mut xml = b"<mediawiki><page><title>A</title><ns>0</ns><id>1</id><revision><text>ok \xff\xfe here</text></revision></page></mediawiki>".to_vec();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "bad.xml", &xml);
    let (ok, _, position, message) =
        expect_parse_error(wiki::xml::read(&path, &Progress::default()).expect("open"));
    assert_eq!(ok, 0);
    let bad = xml.iter().position(|&b| b == 0xff).unwrap() as u64;
    assert_eq!(position, Position::Byte(bad), "the first bad byte");
    assert!(message.contains("invalid UTF-8"), "{message}");
    // The same inside a compressed file: the byte counts in the decompressed XML.
    xml.splice(0..0, b"<?xml version=\"1.0\"?>".iter().copied());
    let path = write(dir.path(), "bad.xml.bz2", &bz2(&xml));
    let (ok, _, position, message) =
        expect_parse_error(wiki::xml::read(&path, &Progress::default()).expect("open"));
    assert_eq!(ok, 0);
    let bad = xml.iter().position(|&b| b == 0xff).unwrap() as u64;
    assert_eq!(position, Position::Byte(bad));
    assert!(message.contains("decompressed"), "{message}");
}

#[test]
fn missing_file_is_an_io_error() {
    match wiki::xml::read(Path::new("/nonexistent/dump.xml.bz2"), &Progress::default()) {
        Err(Error::Io { path, .. }) => assert_eq!(path, Path::new("/nonexistent/dump.xml.bz2")),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("opened a missing file"),
    }
}
