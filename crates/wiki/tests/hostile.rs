//! Hostile inputs (issue 13): decompression bombs and over-long lines in every format, a
//! corrupt archive, and a hostile MediaWiki server. Each must end in an error that names the
//! page (or file and position) and the cap, never in memory exhaustion, a hang or a silent
//! success. The bombs are generated here, a few kilobytes on disk each.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fakewiki::{Action, fake_wiki, serve};
use serde_json::json;
use wiki::api::{ApiClient, ApiOptions};
use wiki::io::Progress;
use wiki::limits::{MAX_DECODED_STREAM_BYTES, MAX_PAGE_BYTES, MAX_SQL_LINE_BYTES};
use wiki::{Error, Page};

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `n` bytes of one letter: what a bomb expands to.
fn filler(n: u64) -> String {
    "a".repeat(n as usize)
}

/// The first error of a reader, failing the test if it yields none.
fn first_error(items: impl IntoIterator<Item = wiki::Result<Page>>) -> Error {
    items
        .into_iter()
        .find_map(Result::err)
        .expect("the reader should have failed")
}

#[track_caller]
fn says(e: &Error, needles: &[&str]) {
    let text = e.to_string();
    for n in needles {
        assert!(text.contains(n), "{n:?} not in: {text}");
    }
    assert!(
        text.len() < 2000,
        "the message echoes the input: {} bytes",
        text.len()
    );
}

fn xml_page(title: &str, text: &str) -> String {
    format!(
        "<mediawiki><page><title>{title}</title><ns>0</ns><id>7</id><revision><id>1</id>\
         <text>{text}</text></revision></page></mediawiki>"
    )
}

#[test]
fn an_xml_page_past_the_cap_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let xml = xml_page("Bomb", &filler(MAX_PAGE_BYTES + 1));
    let path = write(dir.path(), "bomb.xml.bz2", &bz2(xml.as_bytes()));
    assert!(std::fs::metadata(&path).unwrap().len() < 100_000);
    let e = first_error(wiki::xml::read(&path, &Progress::default()).unwrap());
    says(
        &e,
        &[
            "bomb.xml.bz2",
            "\"Bomb\" (id 7)",
            "16 MiB",
            "MAX_PAGE_BYTES",
        ],
    );
}

/// A page just under the cap is read: the cap is on a page, not on the file.
#[test]
fn pages_under_the_cap_are_read_however_many() {
    let dir = tempfile::tempdir().unwrap();
    let body = filler(MAX_PAGE_BYTES / 2);
    let page = |id: u32| {
        format!(
            "<page><title>P{id}</title><ns>0</ns><id>{id}</id><revision><text>{body}</text>\
             </revision></page>"
        )
    };
    let xml = format!("<mediawiki>{}{}{}</mediawiki>", page(1), page(2), page(3));
    let path = write(dir.path(), "big.xml.bz2", &bz2(xml.as_bytes()));
    let pages: Vec<Page> = wiki::xml::read(&path, &Progress::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(pages.len(), 3);
}

#[test]
fn a_multistream_page_or_stream_past_its_cap_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let index = write(dir.path(), "index.txt", b"0:7:Bomb\n");
    let xml = xml_page("Bomb", &filler(MAX_PAGE_BYTES + 1));
    let dump = write(dir.path(), "page.xml.bz2", &bz2(xml.as_bytes()));
    let e = first_error(wiki::xml::read_multistream(&dump, &index, &Progress::default()).unwrap());
    says(&e, &["page.xml.bz2", "\"Bomb\" (id 7)", "MAX_PAGE_BYTES"]);

    let stream = filler(MAX_DECODED_STREAM_BYTES + 1);
    let dump = write(dir.path(), "stream.xml.bz2", &bz2(stream.as_bytes()));
    let e = first_error(wiki::xml::read_multistream(&dump, &index, &Progress::default()).unwrap());
    says(
        &e,
        &[
            "stream.xml.bz2",
            "byte 0",
            "64 MiB",
            "MAX_DECODED_STREAM_BYTES",
        ],
    );
}

#[test]
fn an_extractor_document_or_line_past_the_cap_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let doc = format!(
        "<doc id=\"3\" url=\"u\" title=\"Bomb\">\nBomb\n{}\n</doc>\n",
        filler(MAX_PAGE_BYTES)
    );
    let path = write(dir.path(), "docs.txt.xz", &xz(doc.as_bytes()));
    let e = first_error(wiki::extractor::read(&path, &Progress::default()).unwrap());
    says(
        &e,
        &[
            "docs.txt.xz",
            "line 1",
            "id=\"3\"",
            "\"Bomb\"",
            "MAX_PAGE_BYTES",
        ],
    );

    let line = format!(
        "{{\"id\":\"3\",\"url\":\"u\",\"title\":\"Bomb\",\"text\":\"{}\"}}\n",
        filler(MAX_PAGE_BYTES)
    );
    let path = write(dir.path(), "docs.json.xz", &xz(line.as_bytes()));
    let e = match wiki::extractor::read(&path, &Progress::default()) {
        Err(e) => e,
        Ok(docs) => first_error(docs),
    };
    says(&e, &["docs.json.xz", "line 1", "MAX_PAGE_BYTES"]);
}

/// The old cap on a tuple was counted across lines only: one 65 MiB line was read whole.
#[test]
fn an_sql_line_past_the_cap_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let sql = format!(
        "INSERT INTO `page` VALUES (1,0,'{}');\n",
        filler(MAX_SQL_LINE_BYTES)
    );
    let path = write(dir.path(), "page.sql.gz", &gz(sql.as_bytes()));
    let mut reader = wiki::sql::SqlReader::open(&path, &Progress::default()).unwrap();
    let e = reader
        .next_row()
        .err()
        .expect("the reader should have failed");
    says(
        &e,
        &["page.sql.gz", "line 1", "64 MiB", "MAX_SQL_LINE_BYTES"],
    );
}

/// A Wikispeedia directory of one article, `Jordan`, whose archive is returned for tampering.
fn wikispeedia_dir(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "articles.tsv", b"Jordan\n");
    write(dir.path(), "links.tsv", b"Jordan\tJordan\n");
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(text.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(
        &mut header,
        "plaintext_articles/Jordan.txt",
        text.as_bytes(),
    )
    .unwrap();
    let archive = write(
        dir.path(),
        "plaintext_articles.tar.gz",
        &gz(&tar.into_inner().unwrap()),
    );
    (dir, archive)
}

#[test]
fn a_wikispeedia_article_past_the_cap_is_an_error() {
    let (dir, _) = wikispeedia_dir(&filler(MAX_PAGE_BYTES + 1));
    let e = first_error(wiki::wikispeedia::read(dir.path(), &Progress::default()).unwrap());
    says(
        &e,
        &["plaintext_articles.tar.gz", "Jordan.txt", "MAX_PAGE_BYTES"],
    );
}

/// Issue 13, item 3: `tar` stops at the end-of-archive blocks, so the gzip trailer was never
/// read and a corrupt archive (here, its CRC) was a success.
#[test]
fn a_corrupt_wikispeedia_archive_is_an_error() {
    let (dir, archive) = wikispeedia_dir("Jordan, near Jericho.\n");
    let pages: Vec<Page> = wiki::wikispeedia::read(dir.path(), &Progress::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(pages[0].text, "Jordan, near Jericho.");

    let mut bytes = std::fs::read(&archive).unwrap();
    let crc = bytes.len() - 8;
    bytes[crc] ^= 0x01;
    std::fs::write(&archive, &bytes).unwrap();
    let e = first_error(wiki::wikispeedia::read(dir.path(), &Progress::default()).unwrap());
    says(&e, &["plaintext_articles.tar.gz", "corrupt"]);
}

// ---- a hostile MediaWiki server ----

fn options() -> ApiOptions {
    ApiOptions {
        backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(5),
        timeout: Duration::from_secs(5),
        max_retries: 3,
        ..ApiOptions::default()
    }
}

fn http_message(e: Error) -> String {
    match e {
        Error::Http { url, message } => format!("{url}: {message}"),
        other => panic!("expected an HTTP error, got {other}"),
    }
}

/// Issue 13, item 4: a new `continue` token every time was followed until Ctrl-C. (This fake
/// stops after 500 rounds, so the old client ended, with success, instead of running forever.)
#[test]
fn endless_continue_tokens_stop_at_the_cap() {
    let calls = Arc::new(AtomicUsize::new(0));
    let n = calls.clone();
    let server = serve(move |_| {
        let i = n.fetch_add(1, Ordering::SeqCst);
        let mut body = json!({"batchcomplete": true, "query": {"pages": [
            {"pageid": 1, "ns": 0, "title": "Pie", "links": [{"ns": 0, "title": "Apple"}]}
        ]}});
        if i < 500 {
            body["continue"] = json!({"plcontinue": format!("1|0|{i}"), "continue": "||"});
        }
        fakewiki::ok(body)
    });
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            max_continuations: 20,
            ..options()
        },
    )
    .unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(
        message.contains("more than 20 `continue` rounds"),
        "{message}"
    );
    assert!(message.contains("--api-max-continue"), "{message}");
    assert_eq!(server.count(), 21);
}

/// Issue 22, item 11: each response under its cap and the rounds under theirs, a server could
/// still make one query hold gigabytes (7.7 GB after 67 s): the bytes of all its rounds are
/// capped too, and the query fails naming the cap. (Each link carries a field that is read
/// and not kept, so that what the rounds hold stays under the cap on what they hold.)
#[test]
fn the_rounds_of_one_query_stop_at_the_byte_cap() {
    let calls = Arc::new(AtomicUsize::new(0));
    let n = calls.clone();
    let server = serve(move |_| {
        let i = n.fetch_add(1, Ordering::SeqCst);
        let links: Vec<_> = (0..4000)
            .map(|j| json!({"ns": 0, "title": format!("Link {i} {j}"), "x": "x".repeat(40)}))
            .collect();
        fakewiki::ok(json!({
            "continue": {"plcontinue": format!("1|0|{i}"), "continue": "||"},
            "query": {"pages": [{"pageid": 1, "ns": 0, "title": "Pie", "links": links}]}
        }))
    });
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            max_query_bytes: 1 << 20,
            ..options()
        },
    )
    .unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(
        message.contains("more than 1 MiB over the `continue` rounds of one query"),
        "{message}"
    );
    assert!(message.contains("--api-max-query-bytes"), "{message}");
    // Each round is about 300 KB: the fourth passes 1 MiB.
    assert_eq!(server.count(), 4);
}

/// Issue 46, item 8: a link sent as 14 bytes (`{"title":"A"},`) is held as a 24-byte `String`
/// and a 32-byte chunk of the allocator, so a query capped on the bytes it reads held four
/// times its cap (eleven for `{}`, 2.86 GB under the 256 MiB cap). What its pages hold is
/// counted too, before the titles are made: one round of 1 MiB in memory is refused, although
/// it took 280 KB to send.
#[test]
fn the_pages_of_one_query_stop_at_the_cap_on_what_they_hold() {
    let server = serve(move |_| {
        let links: Vec<_> = (0..20_000).map(|_| json!({"title": "A"})).collect();
        fakewiki::ok(json!({
            "continue": {"plcontinue": "1|0|0", "continue": "||"},
            "query": {"pages": [{"pageid": 1, "ns": 0, "title": "Pie", "links": links}]}
        }))
    });
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            max_query_bytes: 1 << 20,
            ..options()
        },
    )
    .unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(
        message.contains("the pages of one query would hold more than 1 MiB in memory"),
        "{message}"
    );
    assert!(message.contains("--api-max-query-bytes"), "{message}");
    assert_eq!(server.count(), 1, "the first round is refused");
    let message = http_message(
        client
            .fetch_pages(&[1])
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err(),
    );
    assert!(message.contains("would hold more than 1 MiB"), "{message}");
}

/// Issue 13, item 2: the body was read whole (`response.bytes()`), whatever its size.
#[test]
fn a_response_past_the_cap_is_refused() {
    let server = serve(|_| fakewiki::status(200, &" ".repeat(2 << 20)));
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            max_response_bytes: 1 << 20,
            ..options()
        },
    )
    .unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(
        message.contains("larger than the cap of 1 MiB"),
        "{message}"
    );
    assert_eq!(server.count(), 1, "a response too big is not retried");
}

fn redirect(to: String) -> Action {
    Action::Reply {
        status: 302,
        headers: vec![("Location", to)],
        body: String::new(),
    }
}

/// Issue 13, item 10: a redirect to another host was followed silently, and the other host's
/// text stored under the first endpoint.
#[test]
fn a_redirect_to_another_host_is_refused_at_once() {
    let other = fake_wiki().serve();
    let target = other.base.clone();
    let server = serve(move |_| redirect(format!("{target}?action=query")));
    let client = ApiClient::new(&server.base, options()).unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(message.contains("redirected to another host"), "{message}");
    assert_eq!(other.count(), 0);
    assert_eq!(server.count(), 1, "a refused redirect is not retried");
}

/// A redirect loop was retried (with backoff) for 31 s; it now fails on the first attempt.
#[test]
fn a_redirect_loop_fails_at_once() {
    let slot: Arc<std::sync::OnceLock<String>> = Arc::default();
    let me = slot.clone();
    let server = serve(move |_| redirect(me.get().cloned().unwrap_or_default()));
    slot.set(server.base.clone()).unwrap();
    let client = ApiClient::new(&server.base, options()).unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(message.contains("redirect"), "{message}");
    assert!(server.count() <= 11, "{} requests", server.count());
}

/// A `file://` endpoint was retried as a transport error.
#[test]
fn a_non_http_endpoint_is_refused() {
    let e = ApiClient::new("file:///etc/passwd", options())
        .err()
        .expect("refused");
    assert!(http_message(e).contains("http:// or https://"));
}

/// A `Retry-After` far past the cap on one wait was cut to the cap and retried, five times
/// (ten minutes for one page); now the request fails at once and says why.
#[test]
fn a_huge_retry_after_gives_up_at_once() {
    let server = serve(|_| Action::Reply {
        status: 429,
        headers: vec![("Retry-After", "86400".into())],
        body: "come back tomorrow".into(),
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(message.contains("asks to wait 86400 s"), "{message}");
    assert_eq!(server.count(), 1);
}

/// The retries of one request stop when the next wait would pass the request's time budget.
#[test]
fn retries_stop_at_the_time_budget() {
    let server = serve(|_| fakewiki::status(503, "down"));
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            backoff: Duration::from_millis(50),
            max_retries: 100,
            retry_budget: Duration::from_millis(300),
            ..options()
        },
    )
    .unwrap();
    let message = http_message(client.links("Pie").unwrap_err());
    assert!(message.contains("budget of one request"), "{message}");
    assert!(server.count() < 10, "{} requests", server.count());
}

/// Billion laughs and external entities: only XML's five entities and character references are
/// known; a DOCTYPE's entities are never expanded or fetched.
#[test]
fn xml_entities_other_than_the_five_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, entity) in [("laughs.xml", "lol2"), ("xxe.xml", "xxe")] {
        let xml = format!(
            "<?xml version=\"1.0\"?><!DOCTYPE mediawiki [<!ENTITY lol \"lol\">\
             <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\
             <!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>{}",
            xml_page("A", &format!("&{entity};"))
        );
        let path = write(dir.path(), name, xml.as_bytes());
        let e = first_error(wiki::xml::read(&path, &Progress::default()).unwrap());
        says(&e, &[name, &format!("undefined entity &{entity};")]);
    }
}
