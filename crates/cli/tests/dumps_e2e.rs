//! End-to-end tests of a downloaded dump run as a corpus (issue 12): `clue-db pipeline all
//! --corpus WIKI --dumps DIR` on a run folder as `clue-db download` leaves it, built from the
//! real enwiki XML sample and the real SQL fixtures (see `fakewiki::dump_run`).
//!
//! What the samples allow: the SQL fixtures are loginwiki's, so their `pagelinks` rows name no
//! page of the enwiki XML and the build has no link (no clue pages, no `clue_page` scores). The
//! scores come from the term pages themselves (`term_page` direction), with card words that are
//! titles of the sample; that is what is pinned here.

mod common;

use common::{clue_db, count, meta, open};
use fakewiki::dump_run::{build_run, page_props_sql};
use fakewiki::dumps::{DONE_DATE, DumpSite};
use std::path::Path;
use std::process::Command;

/// Card words that are articles of the enwiki sample.
const TERMS: &[&str] = &[
    "alien",
    "alaska",
    "algae",
    "apollo",
    "astronaut",
    "anatomy",
    "alchemy",
    "abacus",
];

fn pipeline_all(corpus: &str, dumps: &Path, dir: &Path, db: &Path) -> common::Run {
    let terms = dir.join("terms.txt");
    std::fs::write(&terms, TERMS.join("\n")).unwrap();
    clue_db([
        "pipeline".as_ref(),
        "all".as_ref(),
        "--corpus".as_ref(),
        corpus.as_ref(),
        "--dumps".as_ref(),
        dumps.as_os_str(),
        "--terms".as_ref(),
        terms.as_os_str(),
        "--min-count".as_ref(),
        "5".as_ref(),
        "--db".as_ref(),
        db.as_os_str(),
    ])
}

#[test]
fn pipeline_all_on_a_downloaded_run_builds_scores() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    let props = page_props_sql(
        "enwiki",
        &[(12, "disambiguation", ""), (25, "disambiguation", "")],
    );
    build_run(&dumps, "enwiki", "20240901", &[("page_props", props)]);
    let db = dir.path().join("run.sqlite");
    let run = pipeline_all("enwiki", &dumps, dir.path(), &db).ok();
    assert!(run.stderr.contains("language: en"), "{}", run.stderr);
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 206);
    let flagged: String = c
        .query_row(
            "SELECT group_concat(id) FROM (SELECT id FROM pages WHERE is_disambiguation ORDER BY id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(flagged, "12,25", "page_props decides the flags");
    assert_eq!(meta(&c, "ingest.links_from").as_deref(), Some("pagelinks"));
    assert_eq!(meta(&c, "language").as_deref(), Some("en"));
    // (`pipeline all` empties `links` when it finishes: what the ingest stored is in `meta`.)
    assert_eq!(
        meta(&c, "ingest.links").as_deref(),
        Some("0"),
        "loginwiki links"
    );
    assert_eq!(count(&c, "SELECT count(*) FROM clue_pages"), 0);
    assert_eq!(
        count(&c, "SELECT count(*) FROM terms WHERE covered"),
        TERMS.len() as i64
    );
    let scores = count(&c, "SELECT count(*) FROM scores");
    assert!(scores > 100, "{scores} scores");
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM scores WHERE direction <> 'term_page'"
        ),
        0
    );
    assert!(count(&c, "SELECT count(*) FROM relatedness") > 0);

    // The run folder itself, by path, builds the same.
    let run_dir = dumps.join("enwiki/20240901");
    let db2 = dir.path().join("path.sqlite");
    pipeline_all(run_dir.to_str().unwrap(), &dumps, dir.path(), &db2).ok();
    assert_eq!(count(&open(&db2), "SELECT count(*) FROM scores"), scores);
}

#[test]
fn a_run_not_verified_or_not_downloaded_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    let run_dir = build_run(&dumps, "enwiki", "20240901", &[]);
    std::fs::remove_file(run_dir.join("VERIFIED")).unwrap();
    let db = dir.path().join("x.sqlite");
    let run = pipeline_all("enwiki", &dumps, dir.path(), &db).failed();
    assert!(
        run.stderr.contains("20240901 without VERIFIED")
            && run.stderr.contains("clue-db download --wiki enwiki"),
        "{}",
        run.stderr
    );
    let run = pipeline_all(run_dir.to_str().unwrap(), &dumps, dir.path(), &db).failed();
    assert!(run.stderr.contains("no VERIFIED file"), "{}", run.stderr);
    let run = pipeline_all("dewiki", &dumps, dir.path(), &db).failed();
    assert!(
        run.stderr.contains("make pipeline CORPUS=dewiki")
            && run.stderr.contains("not an offline corpus"),
        "{}",
        run.stderr
    );
    assert!(!db.exists(), "nothing written");
}

/// The README's first command on a bare clone (no offline corpus beside it: `SHARED` names a
/// folder that does not exist), against the fake dumps site: `make pipeline` says in one line
/// that it builds from simplewiki, downloads and verifies the run, then every stage builds a
/// database with scores; a second `make pipeline CORPUS=simplewiki`, as the README gives it,
/// fetches nothing (a verified run is there) and builds again.
#[test]
fn make_pipeline_downloads_the_wiki_then_builds_scores() {
    let server = DumpSite::new("simplewiki").serve();
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    let terms = dir.path().join("terms.txt");
    std::fs::write(&terms, TERMS.join("\n")).unwrap();
    let db = dir.path().join("make.sqlite");
    let make = |corpus: &[&str]| {
        let out = Command::new("make")
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .env_remove("CORPUS")
            // The binary under test, not a release build of it.
            .args(["-s", "-o", "build", "pipeline"])
            .arg(format!("BIN={}", env!("CARGO_BIN_EXE_clue-db")))
            .arg(format!(
                "SHARED={}",
                dir.path().join("no-shared-data").display()
            ))
            .args(corpus)
            .arg(format!("DUMPS={}", dumps.display()))
            .arg(format!("MIRROR={}", server.origin))
            .arg(format!("DB={}", db.display()))
            .arg(format!(
                "PIPELINE_FLAGS=--terms {} --min-count 5",
                terms.display()
            ))
            .output()
            .expect("running make");
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        assert!(
            out.status.success(),
            "make pipeline failed\nstdout:\n{}\nstderr:\n{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    };
    let first = make(&[]);
    assert!(
        first.contains("no offline corpus in") && first.contains("building from simplewiki"),
        "{first}"
    );
    let run = dumps.join("simplewiki").join(DONE_DATE);
    assert!(run.join("VERIFIED").is_file(), "{}", run.display());
    let c = open(&db);
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), 206);
    assert!(count(&c, "SELECT count(*) FROM scores") > 0);
    drop(c);
    let before = server.count();
    let again = make(&["CORPUS=simplewiki"]);
    assert!(!again.contains("no offline corpus"), "{again}");
    assert!(again.contains("a verified run is in"), "{again}");
    assert_eq!(server.count(), before, "nothing fetched the second time");
    assert!(count(&open(&db), "SELECT count(*) FROM scores") > 0);
}
