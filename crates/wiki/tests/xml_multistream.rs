//! The multistream reader against a multistream dump built from the real sample: its pages
//! split into groups, each group compressed as its own bz2 stream, as Wikimedia builds them.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use wiki::io::Progress;
use wiki::{Error, Page, Position};

const MAIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
);

const GROUP: usize = 25;

/// A multistream dump of the sample: the file, its index lines, and the stream offsets.
struct Built {
    xml_len: usize,
    dump: Vec<u8>,
    index: String,
    /// Offset of each page-group stream (the header stream at 0 is not in the index).
    offsets: Vec<u64>,
}

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(bytes).expect("compress");
    enc.finish().expect("compress")
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> &'a str {
    let a = s.find(open).expect("open tag") + open.len();
    let b = a + s[a..].find(close).expect("close tag");
    &s[a..b]
}

/// Built once for all the tests of this file (compressing takes a while in debug builds).
fn build() -> &'static Built {
    static BUILT: std::sync::OnceLock<Built> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_uncached)
}

fn build_uncached() -> Built {
    let compressed = std::fs::read(MAIN).expect("read sample");
    let mut xml = String::new();
    bzip2::read::MultiBzDecoder::new(&compressed[..])
        .read_to_string(&mut xml)
        .expect("decode sample");
    let starts: Vec<usize> = xml.match_indices("  <page>").map(|(i, _)| i).collect();
    assert_eq!(starts.len(), 206);
    let footer = xml.rfind("</mediawiki>").expect("root close");
    let mut dump = bz2(&xml.as_bytes()[..starts[0]]); // <mediawiki><siteinfo>
    let mut index = String::new();
    let mut offsets = Vec::new();
    for group in starts.chunks(GROUP) {
        let first = group[0];
        let last_end = starts
            .iter()
            .find(|&&s| s > *group.last().expect("non-empty"))
            .copied()
            .unwrap_or(footer);
        let offset = dump.len() as u64;
        offsets.push(offset);
        for (k, &s) in group.iter().enumerate() {
            let end = group.get(k + 1).copied().unwrap_or(last_end);
            let page = &xml[s..end];
            let id = between(page, "<id>", "</id>");
            let title = between(page, "<title>", "</title>");
            index.push_str(&format!("{offset}:{id}:{title}\n"));
        }
        dump.extend(bz2(&xml.as_bytes()[first..last_end]));
    }
    dump.extend(bz2(&xml.as_bytes()[footer..])); // </mediawiki>
    Built {
        xml_len: xml.len(),
        dump,
        index,
        offsets,
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

fn plain_pages() -> Vec<Page> {
    wiki::xml::read(Path::new(MAIN), &Progress::default())
        .expect("open")
        .collect::<wiki::Result<_>>()
        .expect("plain read")
}

#[test]
fn multistream_yields_the_same_pages_as_the_plain_reader() {
    let built = build();
    assert_eq!(built.offsets.len(), 9); // 206 pages in groups of 25
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = write(dir.path(), "multi.xml.bz2", &built.dump);
    let plain = plain_pages();
    for (name, index_bytes) in [
        ("index.txt", built.index.clone().into_bytes()),
        ("index.txt.bz2", bz2(built.index.as_bytes())),
    ] {
        let index = write(dir.path(), name, &index_bytes);
        let progress = Progress::default();
        let pages: Vec<Page> = wiki::xml::read_multistream(&dump, &index, &progress)
            .expect("open")
            .collect::<wiki::Result<_>>()
            .expect("multistream read");
        assert_eq!(pages.len(), 206);
        assert!(pages == plain, "same pages, same order ({name})");
        assert_eq!(progress.disk(), built.dump.len() as u64);
        assert_eq!(progress.decoded(), built.xml_len as u64);
    }
}

#[test]
fn a_short_index_loses_no_pages() {
    // Only the first two streams are indexed: the rest is read as one range.
    let built = build();
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = write(dir.path(), "multi.xml.bz2", &built.dump);
    let short: String = built
        .index
        .lines()
        .filter(|l| {
            let off: u64 = l
                .split(':')
                .next()
                .and_then(|o| o.parse().ok())
                .unwrap_or(0);
            off <= built.offsets[1]
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let index = write(dir.path(), "index.txt", short.as_bytes());
    let n = wiki::xml::read_multistream(&dump, &index, &Progress::default())
        .expect("open")
        .collect::<wiki::Result<Vec<_>>>()
        .expect("read")
        .len();
    assert_eq!(n, 206);
}

#[test]
fn a_corrupt_stream_is_an_error_at_its_offset() {
    let built = build();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = built.dump.clone();
    let bad = built.offsets[2] as usize;
    let middle = (bad + built.offsets[3] as usize) / 2;
    bytes[middle..middle + 64].fill(0);
    let dump = write(dir.path(), "multi.xml.bz2", &bytes);
    let index = write(dir.path(), "index.txt", built.index.as_bytes());
    let mut ok = 0;
    let mut error = None;
    for item in wiki::xml::read_multistream(&dump, &index, &Progress::default()).expect("open") {
        match item {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(error.is_none(), "only one error is yielded");
                error = Some(e);
            }
        }
    }
    assert_eq!(ok, 2 * GROUP, "the pages of the streams before the bad one");
    match error {
        Some(Error::Parse { path, position, .. }) => {
            assert_eq!(path, dump);
            assert_eq!(position, Position::Byte(bad as u64));
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn bad_index_lines_are_errors() {
    let built = build();
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = write(dir.path(), "multi.xml.bz2", &built.dump);
    let cases = [
        (
            "garbage.txt",
            format!("{}oops\n", built.index),
            Position::Line(207),
        ),
        (
            "beyond.txt",
            format!("{}99999999:1:X\n", built.index),
            Position::Line(207),
        ),
        (
            "backwards.txt",
            format!("{}{}:1:X\n", built.index, built.offsets[1]),
            Position::Line(207),
        ),
    ];
    for (name, text, line) in cases {
        let index = write(dir.path(), name, text.as_bytes());
        let items: Vec<_> = wiki::xml::read_multistream(&dump, &index, &Progress::default())
            .expect("open")
            .collect();
        match items.last() {
            Some(Err(Error::Parse { path, position, .. })) => {
                assert_eq!((path, position), (&index, &line), "{name}");
            }
            other => panic!("{name}: expected an index error, got {other:?}"),
        }
        assert!(items[..items.len() - 1].iter().all(|p| p.is_ok()));
    }
}

#[test]
fn dropping_the_reader_early_stops_cleanly() {
    let built = build();
    let dir = tempfile::tempdir().expect("tempdir");
    let dump = write(dir.path(), "multi.xml.bz2", &built.dump);
    let index = write(dir.path(), "index.txt", built.index.as_bytes());
    let first: Vec<Page> = wiki::xml::read_multistream(&dump, &index, &Progress::default())
        .expect("open")
        .take(3)
        .collect::<wiki::Result<_>>()
        .expect("read");
    let titles: Vec<&str> = first.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        ["AccessibleComputing", "Anarchism", "AfghanistanHistory"]
    );
}
