//! End-to-end tests of `clue-db ingest --format api`: the binary against a fake MediaWiki API on
//! 127.0.0.1 (the `fakewiki` crate), checked with SQL. A fetch that fails part-way keeps what it
//! stored when it starts a database or adds to one (`--resume`), and a `--resume` run goes on
//! from there, fetching only what the database lacks; a failed run over another database leaves
//! it exactly as it was.
//!
//! Retries wait 1, 2, 4, 8, 16 ms (the hidden `--api-backoff-ms 1`) instead of 1 to 16 s.

mod common;

use common::{Run, clue_db, count, meta, open, poll_bounded, tmp_leftovers, utf8};
use fakewiki::{FakePage, FakeWiki, Server, fail_page_ids, serve, status};
use rusqlite::Connection;
use std::collections::BTreeSet;
use std::path::Path;
use wiki::api::DEFAULT_USER_AGENT;

/// Runs `clue-db ingest --format api ENDPOINT --page-ids IDS --api-backoff-ms 1 EXTRA… --db DB`.
fn ingest_api(server: &Server, ids: &[u64], extra: &[&str], db: &Path) -> Run {
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    let ids = ids.join(",");
    // The links as rows too (`--keep-links`), which these tests check with SQL.
    let mut args = vec![
        "ingest",
        "--keep-links",
        "--format",
        "api",
        server.base.as_str(),
    ];
    args.extend(["--page-ids", &ids, "--api-backoff-ms", "1"]);
    args.extend(extra);
    args.extend(["--db", utf8(db)]);
    clue_db(args)
}

/// The stored pages' ids.
fn page_ids(c: &Connection) -> BTreeSet<u64> {
    let mut st = c.prepare("SELECT id FROM pages").unwrap();
    st.query_map([], |r| r.get::<_, i64>(0))
        .unwrap()
        .map(|id| id.unwrap() as u64)
        .collect()
}

/// The stored links as `(source title, target title)`.
fn links(c: &Connection) -> BTreeSet<(String, String)> {
    let sql = "SELECT s.title, d.title FROM links JOIN pages s ON s.id = links.src \
               JOIN pages d ON d.id = links.dst";
    let mut st = c.prepare(sql).unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    list.iter()
        .map(|(s, d)| (s.to_string(), d.to_string()))
        .collect()
}

/// Six pages linking among themselves (one of them a disambiguation page), and page 7, which links
/// are made to but which is never asked for.
fn six_pages() -> FakeWiki {
    FakeWiki {
        limit: 3,
        ..FakeWiki::default()
    }
    .page(
        1,
        FakePage::new(
            "Apple",
            "The apple is a fruit.",
            &["Fruit", "Pie", "Tree", "Orchard", "Nowhere"],
        ),
    )
    .page(
        2,
        FakePage::new("Fruit", "A fruit bears seeds.", &["Apple", "Seed"]),
    )
    .page(
        3,
        FakePage::new("Pie", "A baked dish.", &["Apple", "Apple", "fruit"]),
    )
    .page(
        4,
        FakePage::new("Tree", "A tall plant.", &["Fruit", "Seed"]),
    )
    .page(5, FakePage::new("Seed", "A seed grows.", &[]))
    .page(
        6,
        FakePage::new(
            "Mercury",
            "Mercury may refer to:",
            &["Mercury (planet)", "Apple"],
        )
        .disambiguation(),
    )
    .page(7, FakePage::new("Orchard", "Apple trees.", &["Apple"]))
}

/// `Page 1` … `Page n`: page i links to page i+1 (page n to page 1) and to page 30.
fn numbered_pages(n: u64) -> FakeWiki {
    (1..=n).fold(FakeWiki::default(), |wiki, i| {
        let next = format!("Page {}", i % n + 1);
        wiki.page(
            i,
            FakePage::new(&format!("Page {i}"), "Text.", &[&next, "Page 30"]),
        )
    })
}

/// Ctrl-C in the middle of a fetch: the run stops at once (a request in flight hangs), saves
/// what it stored, and `--resume` fetches only the rest.
#[test]
fn an_interrupted_fetch_saves_what_it_stored_and_resume_goes_on() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let ids: Vec<u64> = (1..=25).collect();
    // Batches of 20 ids, one request in flight: 1–20 are stored, the request for 21–25 hangs.
    let server = numbered_pages(25).serve_with(|r: &fakewiki::Request| {
        r.page_ids().contains(&21).then_some(fakewiki::Action::Hang)
    });
    let list: Vec<String> = ids.iter().map(u64::to_string).collect();
    let child = Command::new(env!("CARGO_BIN_EXE_clue-db"))
        .args([
            "ingest",
            "--format",
            "api",
            server.base.as_str(),
            "--page-ids",
        ])
        .arg(list.join(","))
        .args(["--concurrency", "1", "--db", utf8(&db)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting clue-db");
    let asked_for_21 = || server.requests().iter().any(|r| r.page_ids().contains(&21));
    assert!(
        poll_bounded(Duration::from_secs(60), || asked_for_21().then_some(())).is_some(),
        "the second batch was never asked for"
    );
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("running kill");
    assert!(sent.success());
    // The hanging request is held for 10 s and times out after 30: the run must not wait for it.
    let asked = Instant::now();
    let out = child.wait_with_output().expect("waiting for clue-db");
    let waited = asked.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        waited < Duration::from_secs(8),
        "took {waited:?} to stop: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stderr.contains("the 20 pages"), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
    let c = open(&db);
    assert_eq!(page_ids(&c), (1..=20).collect());
    assert_eq!(meta(&c, "ingest.partial").as_deref(), Some("true"));
    drop(c);
    assert!(tmp_leftovers(dir.path()).is_empty());

    server.heal();
    let before = server.count();
    let run = ingest_api(&server, &ids, &["--resume", "--concurrency", "1"], &db).ok();
    assert!(run.stderr.contains("ingested 25 pages"), "{}", run.stderr);
    let asked: BTreeSet<u64> = server.requests()[before..]
        .iter()
        .flat_map(|r| r.page_ids())
        .collect();
    assert_eq!(asked, (21..=25).collect());
}

#[test]
fn fetches_pages_and_resolves_links_among_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let server = six_pages().serve();
    // 99 is not on the wiki; 7 is, but is not asked for.
    let run = ingest_api(&server, &[1, 2, 3, 4, 5, 6, 99], &[], &db).ok();
    assert!(run.stderr.contains("ingested 6 pages"), "{}", run.stderr);
    let c = open(&db);
    assert_eq!(page_ids(&c), (1..=6).collect());
    assert_eq!(
        links(&c),
        pairs(&[
            ("Apple", "Fruit"),
            ("Apple", "Pie"),
            ("Apple", "Tree"),
            ("Fruit", "Apple"),
            ("Fruit", "Seed"),
            ("Pie", "Apple"),
            ("Pie", "Fruit"),
            ("Tree", "Fruit"),
            ("Tree", "Seed"),
            ("Mercury", "Apple"),
        ])
    );
    assert_eq!(
        count(&c, "SELECT count(*) FROM pages WHERE is_disambiguation"),
        1
    );
    assert_eq!(
        count(&c, "SELECT is_disambiguation FROM pages WHERE id = 6"),
        1
    );
    let apple: String = c
        .query_row("SELECT text FROM page_text WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(apple, "The apple is a fruit.");
    assert_eq!(meta(&c, "ingest.partial").as_deref(), Some("false"));
    assert_eq!(meta(&c, "ingest.format").as_deref(), Some("api"));
    // Orchard, Nowhere and Mercury (planet) are not stored: they wait in the staging table.
    assert_eq!(meta(&c, "ingest.links_unresolved").as_deref(), Some("3"));
    assert_eq!(count(&c, "SELECT count(*) FROM ingest_links"), 3);
    // Without --user-agent, the default one; every request was one of the query API's.
    let requests = server.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.headers["user-agent"], DEFAULT_USER_AGENT);
        assert_eq!(r.path, "/w/api.php");
    }
    assert!(tmp_leftovers(dir.path()).is_empty());
}

#[test]
fn a_failed_fetch_keeps_what_it_stored_and_resume_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let ids: Vec<u64> = (1..=45).collect();
    // Batches of 20 ids: 1–20, 21–40 (always HTTP 500, for it holds 25), 41–45. One request in
    // flight, so the first batch is stored before the second fails, and nothing after it.
    let server = numbered_pages(45).serve_with(fail_page_ids(&[25]));
    let one_at_a_time = ["--concurrency", "1"];

    // No database yet: the failed run keeps what it stored.
    let run = ingest_api(&server, &ids, &one_at_a_time, &db).failed();
    assert!(run.stderr.contains("--resume"), "{}", run.stderr);
    assert!(run.stderr.contains("HTTP 500"), "{}", run.stderr);
    assert!(run.stderr.contains(utf8(&db)), "{}", run.stderr);
    assert!(run.stderr.contains("the 20 pages"), "{}", run.stderr);
    let c = open(&db);
    assert_eq!(page_ids(&c), (1..=20).collect());
    assert_eq!(meta(&c, "ingest.partial").as_deref(), Some("true"));
    assert_eq!(meta(&c, "ingest.format").as_deref(), Some("api"));
    assert_eq!(meta(&c, "ingest.pages").as_deref(), Some("20"));
    // Links among the pages stored; those to pages 21 and 30 wait.
    let chain: BTreeSet<(String, String)> = (1..20)
        .map(|i| (format!("Page {i}"), format!("Page {}", i + 1)))
        .collect();
    assert_eq!(links(&c), chain);
    drop(c);
    assert!(tmp_leftovers(dir.path()).is_empty());

    server.heal();
    let before = server.count();
    let resume = [&["--resume"][..], &one_at_a_time].concat();
    let run = ingest_api(&server, &ids, &resume, &db).ok();
    assert!(run.stderr.contains("ingested 45 pages"), "{}", run.stderr);
    // Only the ids the database lacked were asked for.
    let asked: BTreeSet<u64> = server.requests()[before..]
        .iter()
        .flat_map(|r| r.page_ids())
        .collect();
    assert_eq!(asked, (21..=45).collect());
    let c = open(&db);
    assert_eq!(page_ids(&c), ids.iter().copied().collect());
    assert_eq!(meta(&c, "ingest.partial").as_deref(), Some("false"));
    // Links of run 1 to pages of run 2 waited and are resolved now.
    let all = links(&c);
    for (from, to) in [("Page 1", "Page 30"), ("Page 20", "Page 21")] {
        assert!(all.contains(&(from.into(), to.into())), "{from} -> {to}");
    }
    // Every page links to the next and to page 30, across the two runs.
    let mut expected: BTreeSet<(String, String)> = (1..=45)
        .map(|i| (format!("Page {i}"), format!("Page {}", i % 45 + 1)))
        .collect();
    expected.extend((1..=45).map(|i| (format!("Page {i}"), "Page 30".to_string())));
    assert_eq!(all, expected);
    assert_eq!(count(&c, "SELECT count(*) FROM ingest_links"), 0);
}

#[test]
fn a_new_build_replaces_another_database_only_when_it_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let server = six_pages().serve();
    ingest_api(&server, &[1, 2, 3], &[], &db).ok();
    // Without --resume a run starts afresh: pages 1–3 are gone once it succeeds.
    ingest_api(&server, &[4, 5], &[], &db).ok();
    assert_eq!(page_ids(&open(&db)), BTreeSet::from([4, 5]));
    // With --resume it adds, asking only for what the database lacks.
    let before = server.count();
    ingest_api(&server, &[4, 5, 6], &["--resume"], &db).ok();
    assert_eq!(page_ids(&open(&db)), BTreeSet::from([4, 5, 6]));
    let asked: BTreeSet<u64> = server.requests()[before..]
        .iter()
        .flat_map(|r| r.page_ids())
        .collect();
    assert_eq!(asked, BTreeSet::from([6]));
    assert!(tmp_leftovers(dir.path()).is_empty());
}

#[test]
fn sends_the_user_agent_given() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let server = six_pages().serve();
    let ua = "clue-db-test/1 (me@example.org)";
    ingest_api(&server, &[1, 2], &["--user-agent", ua], &db).ok();
    let requests = server.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.headers["user-agent"], ua);
    }
}

#[test]
fn a_failed_fetch_over_another_database_leaves_it_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    ingest_api(&six_pages().serve(), &[1, 2, 3], &[], &db).ok();
    let bytes = std::fs::read(&db).unwrap();

    let down = serve(|_| status(500, "down"));
    let run = ingest_api(&down, &[1, 2, 3, 4], &[], &db).failed();
    assert!(run.stderr.contains("HTTP 500"), "{}", run.stderr);
    assert!(
        run.stderr.contains("gave up after 5 retries"),
        "{}",
        run.stderr
    );
    // One batch: the first attempt and five retries.
    assert_eq!(down.count(), 6);
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
    assert!(tmp_leftovers(dir.path()).is_empty());
}
