//! The WikiExtractor reader against the real 2015 enwiki extract (a prefix, and the whole file)
//! and against small files in both forms written by the tests. What the whole file stores is
//! pinned by the CLI's end-to-end test (`crates/cli/tests/ingest_e2e.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

use wiki::extractor::{Form, read};
use wiki::io::Progress;
use wiki::{Error, Page, Position, Result};

const ENWIKI_2015: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz"
);

fn write(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn read_all(path: &Path) -> Result<Vec<Page>> {
    read(path, &Progress::default())?.collect()
}

/// The position and message of the first error, failing the test if there is none.
fn first_error(path: &Path) -> (Position, String) {
    let err = match read(path, &Progress::default()) {
        Err(e) => e,
        Ok(mut docs) => docs
            .find_map(|p| p.err())
            .expect("the file should not read cleanly"),
    };
    match err {
        Error::Parse {
            position, message, ..
        } => (position, message),
        other => panic!("expected a parse error, got {other}"),
    }
}

#[test]
fn enwiki_2015_first_200_documents() {
    let progress = Progress::default();
    let docs = read(Path::new(ENWIKI_2015), &progress).unwrap();
    assert_eq!(docs.form(), Some(Form::Doc));
    let pages: Vec<Page> = docs.take(200).collect::<Result<_>>().unwrap();
    assert_eq!(pages.len(), 200);

    let first = &pages[0];
    assert_eq!(
        (first.id, first.title.as_str(), first.ns),
        (12, "Anarchism", 0)
    );
    // The repeated title line and the blank line after it are gone; the text is the article's.
    assert!(
        first
            .text
            .starts_with("Anarchism is a political philosophy that advocates stateless societies"),
        "{:?}",
        &first.text[..80]
    );
    assert!(first.text.ends_with("is an \"absurdity.\""));
    assert_eq!(first.text.len(), 65_320);
    assert_eq!(first.text.chars().count(), 65_161);
    assert!(first.links.is_empty() && first.redirect.is_none() && !first.is_disambiguation);

    assert_eq!(
        (pages[199].id, pages[199].title.as_str()),
        (980, "August Derleth")
    );
    let austin = pages.iter().find(|p| p.id == 590).unwrap();
    assert_eq!(austin.title, "Austin (disambiguation)");
    assert!(austin.is_disambiguation);
    // Hand-counted with a script over the decompressed text.
    assert_eq!(pages.iter().filter(|p| p.is_disambiguation).count(), 6);
    assert_eq!(pages.iter().map(|p| p.text.len()).sum::<usize>(), 4_537_010);
    assert!(pages.windows(2).all(|w| w[0].id < w[1].id));
    assert!(pages.iter().all(|p| !p.text.contains("</doc>")));
}

/// The whole 411 MB file, streamed (about 6 s in the test profile, where liblzma is optimised).
#[test]
fn enwiki_2015_whole_file() {
    let progress = Progress::default();
    let mut count = 0;
    let mut disambiguation = 0;
    let mut empty = 0;
    let mut text_bytes = 0;
    let mut last = Page::default();
    let mut escaped = Vec::new();
    for page in read(Path::new(ENWIKI_2015), &progress).unwrap() {
        let page = page.unwrap();
        count += 1;
        disambiguation += usize::from(page.is_disambiguation);
        empty += usize::from(page.text.is_empty());
        text_bytes += page.text.len();
        if [4729, 7610, 13834].contains(&page.id) {
            escaped.push(page.title.clone());
        }
        assert!(
            page.id > last.id,
            "ids increase: {} after {}",
            page.id,
            last.id
        );
        last = page;
    }
    assert_eq!(count, 30_729);
    assert_eq!((last.id, last.title.as_str()), (60633, "Dmitri Mendeleev"));
    assert_eq!(disambiguation, 440);
    assert_eq!(empty, 190);
    assert_eq!(text_bytes, 407_405_642);
    assert_eq!(
        escaped,
        [
            "Batman & Robin (film)",
            "History of the term \"Catholic\"",
            "\"Hello, World!\" program"
        ]
    );
    assert_eq!(progress.decoded(), 410_864_431);
    assert_eq!(progress.disk(), 104_843_448);
}

/// Two documents in the shape WikiExtractor writes, with an escaped title and a body that
/// holds markup-like text, which must come through untouched.
const SMALL: &str = r#"<doc id="4729" url="http://en.wikipedia.org/wiki?curid=4729" title="Batman &amp; Robin (film)">
Batman &amp; Robin (film)

Batman & Robin is a 1997 film; "camp" <b>not bold</b> &amp; raw.
<doc-like line that is not a header
  indented line.

</doc>
<doc id="13834" url="http://en.wikipedia.org/wiki?curid=13834" title="Mercury (disambiguation)">
Mercury (disambiguation)

Mercury may refer to:
</doc>
<doc id="7" url="http://en.wikipedia.org/wiki?curid=7" title="rock &#39;n&#x27; roll &quot;x&quot;">
rock 'n' roll "x"
</doc>
"#;

fn small_expected() -> Vec<Page> {
    vec![
        Page {
            id: 4729,
            title: "Batman & Robin (film)".into(),
            text: "Batman & Robin is a 1997 film; \"camp\" <b>not bold</b> &amp; raw.\n\
                   <doc-like line that is not a header\n  indented line."
                .into(),
            ..Page::default()
        },
        Page {
            id: 13834,
            title: "Mercury (disambiguation)".into(),
            text: "Mercury may refer to:".into(),
            is_disambiguation: true,
            ..Page::default()
        },
        Page {
            id: 7,
            title: "Rock 'n' roll \"x\"".into(),
            text: String::new(),
            ..Page::default()
        },
    ]
}

#[test]
fn doc_form_plain_and_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write(&dir, "wiki_00", SMALL.as_bytes());
    assert_eq!(read_all(&plain).unwrap(), small_expected());

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(SMALL.as_bytes()).unwrap();
    let gz = write(&dir, "wiki_00.gz", &gz.finish().unwrap());
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(SMALL.as_bytes()).unwrap();
    let bz = write(&dir, "wiki_00.bz2", &bz.finish().unwrap());
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(SMALL.as_bytes()).unwrap();
    let xz = write(&dir, "wiki_00.xz", &xz.finish().unwrap());
    for path in [gz, bz, xz] {
        assert_eq!(
            read_all(&path).unwrap(),
            small_expected(),
            "{}",
            path.display()
        );
    }

    // CRLF line ends and leading blank lines are tolerated; an empty file has no pages.
    let crlf = write(
        &dir,
        "crlf.txt",
        format!("\n\n{}", SMALL.replace('\n', "\r\n")).as_bytes(),
    );
    let pages = read_all(&crlf).unwrap();
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[1].text, "Mercury may refer to:");
    let empty = write(&dir, "empty.txt", b"\n\n");
    let docs = read(&empty, &Progress::default()).unwrap();
    assert_eq!(docs.form(), None);
    assert_eq!(docs.count(), 0);
}

#[test]
fn json_lines_form() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        r#"{"id": "12", "url": "https://en.wikipedia.org/wiki?curid=12", "title": "Anarchism", "text": "Anarchism\n\nAnarchism is a political philosophy.\n\u00c9tymology."}"#,
        "\n\n",
        r#"{"id": 4729, "revid": "1", "url": "u", "title": "Batman &amp; Robin (film)", "text": "Batman & Robin is a film."}"#,
        "\n",
        r#"{"id":"590","url":"u","title":"austin_(disambiguation)","text":""}"#,
        "\n"
    );
    let path = write(&dir, "wiki.json", text.as_bytes());
    let docs = read(&path, &Progress::default()).unwrap();
    assert_eq!(docs.form(), Some(Form::JsonLines));
    let pages: Vec<Page> = docs.collect::<Result<_>>().unwrap();
    assert_eq!(
        pages,
        [
            Page {
                id: 12,
                title: "Anarchism".into(),
                text: "Anarchism is a political philosophy.\nÉtymology.".into(),
                ..Page::default()
            },
            Page {
                id: 4729,
                title: "Batman & Robin (film)".into(),
                text: "Batman & Robin is a film.".into(),
                ..Page::default()
            },
            Page {
                id: 590,
                title: "Austin (disambiguation)".into(),
                is_disambiguation: true,
                ..Page::default()
            },
        ]
    );
}

#[test]
fn malformed_inputs_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let header = |id: &str| format!("<doc id=\"{id}\" url=\"u\" title=\"T\">\nT\n\nbody\n");

    // End of file inside a document: the error points at its header.
    let path = write(
        &dir,
        "a.txt",
        format!("{}</doc>\n{}", header("1"), header("2")).as_bytes(),
    );
    let (position, message) = first_error(&path);
    assert_eq!(position, Position::Line(6));
    assert!(
        message.contains("<doc id=\"2\"> is not closed"),
        "{message}"
    );

    // A header inside a document: the error points at the second header.
    let path = write(
        &dir,
        "b.txt",
        format!("{}{}</doc>\n", header("1"), header("2")).as_bytes(),
    );
    let (position, message) = first_error(&path);
    assert_eq!(position, Position::Line(5));
    assert!(message.contains("which has no </doc>"), "{message}");

    let path = write(
        &dir,
        "c.txt",
        format!("{}</doc>\n{}</doc>\n", header("1"), header("2x")).as_bytes(),
    );
    let (position, message) = first_error(&path);
    assert_eq!(position, Position::Line(6));
    assert_eq!(message, "bad id \"2x\" in <doc>");

    // Invalid UTF-8 (Latin-1 "é") on the 4th line of the body.
    let mut bytes = header("1").into_bytes();
    bytes.extend_from_slice(b"ok\ncaf\xe9\n</doc>\n");
    let path = write(&dir, "d.txt", &bytes);
    let (position, message) = first_error(&path);
    assert_eq!(position, Position::Line(6));
    assert_eq!(message, "invalid UTF-8 in the text");

    // Bad JSON on line 3 (line 2 is blank).
    let path = write(
        &dir,
        "e.json",
        b"{\"id\":\"1\",\"title\":\"A\",\"text\":\"x\"}\n\n{\"id\":\"2\",\"title\":\"B\",\"text\":}\n",
    );
    let mut docs = read(&path, &Progress::default()).unwrap();
    assert_eq!(docs.next().unwrap().unwrap().title, "A");
    let err = docs.next().unwrap().unwrap_err();
    assert!(docs.next().is_none(), "the reader stops after an error");
    let Error::Parse {
        position, message, ..
    } = err
    else {
        panic!("expected a parse error");
    };
    assert_eq!(position, Position::Line(3));
    assert!(message.starts_with("bad JSON: "), "{message}");

    let path = write(
        &dir,
        "f.json",
        b"{\"id\":\"x1\",\"title\":\"A\",\"text\":\"\"}\n",
    );
    assert_eq!(
        first_error(&path),
        (Position::Line(1), "bad id \"x1\"".into())
    );

    // Stray text between documents.
    let path = write(
        &dir,
        "h.txt",
        format!("{}</doc>\nstray\n{}</doc>\n", header("1"), header("2")).as_bytes(),
    );
    let (position, message) = first_error(&path);
    assert_eq!(position, Position::Line(6));
    assert_eq!(message, "expected a <doc ...> line, found \"stray\"");

    let path = write(&dir, "g.txt", b"\nplain text, not WikiExtractor\n");
    let (position, message) = first_error(&path);
    assert_eq!(position, Position::Line(2));
    assert!(
        message.starts_with("neither WikiExtractor form"),
        "{message}"
    );
}

/// The first real escaped title is 32 MB into the file (about a second in a debug build).
#[test]
fn enwiki_2015_escaped_title_is_decoded() {
    let mut docs = read(Path::new(ENWIKI_2015), &Progress::default()).unwrap();
    let page = docs
        .find(|p| p.as_ref().map_or(true, |p| p.id >= 4729))
        .unwrap()
        .unwrap();
    assert_eq!(
        (page.id, page.title.as_str()),
        (4729, "Batman & Robin (film)")
    );
    assert!(
        page.text
            .starts_with("Batman & Robin is a 1997 American superhero film"),
        "{:?}",
        &page.text[..60]
    );
}

/// A `.xz` cut in half fails with the file and the line where the text stopped.
#[test]
fn cut_xz_names_the_line() {
    let mut body = String::new();
    for id in 1..=2000 {
        body.push_str(&format!(
            "<doc id=\"{id}\" url=\"https://en.wikipedia.org/wiki?curid={id}\" title=\"Page {id}\">\nPage {id}\n\nText of page {id}, long enough to fill the stream.\n</doc>\n"
        ));
    }
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(body.as_bytes()).unwrap();
    let xz = xz.finish().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = &xz[..xz.len() / 2];
    let path = write(&dir, "cut.txt.xz", cut);
    let (position, message) = first_error(&path);
    // The line being read when the text stopped: one past the whole lines the cut file holds.
    let mut decoded = Vec::new();
    let _ = std::io::Read::read_to_end(&mut liblzma::read::XzDecoder::new(cut), &mut decoded);
    let whole_lines = decoded.iter().filter(|&&b| b == b'\n').count() as u64;
    assert!(
        whole_lines > 100,
        "the cut leaves a good part: {whole_lines}"
    );
    assert_eq!(position, Position::Line(whole_lines + 1));
    assert!(message.starts_with("reading: "), "{message}");
}
