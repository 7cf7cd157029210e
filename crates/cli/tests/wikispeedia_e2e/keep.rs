//! Issue 23, item 3: a database people keep. The page text and the links are build inputs:
//! `pipeline all` drops them when it finishes, unless `--keep-text` / `--keep-links`, and the
//! database answers exactly as one that keeps them.

use crate::common::{clue_db, count, meta, open, tmp_leftovers, utf8};
use crate::{db, kept_db};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::Path;

/// The tables that differ between the two databases by design: the dropped inputs, `meta`
/// (timings, and what was dropped) and the planner's statistics of them. Everything else, the
/// term pages, clue pages and PageRank included, comes out the same whether the build writes
/// the `links` rows (`--keep-links`) or not: the stages read the graph (`link_graph`) either way.
const DIFFERENT: [&str; 5] = ["page_text", "links", "link_graph", "meta", "sqlite_stat1"];

/// Per table of `a` (views left out), its row count and how many of its rows `b`'s table lacks
/// and has beyond them, compared by SQLite itself (`EXCEPT`, both ways: in C, not row by row in
/// a debug build), with the tables `b` has and `a` lacks.
fn differences(a: &Path, b: &Path) -> (BTreeMap<String, [i64; 3]>, Vec<String>) {
    let c = open(a);
    c.execute("ATTACH DATABASE ?1 AS other", [utf8(b)]).unwrap();
    let names = |schema: &str| -> Vec<String> {
        crate::common::column(
            &c,
            &format!("SELECT name FROM {schema}.sqlite_schema WHERE type = 'table' ORDER BY name"),
        )
        .into_iter()
        .filter(|t| !DIFFERENT.contains(&t.as_str()))
        .collect()
    };
    let ours = names("main");
    let only_theirs = names("other")
        .into_iter()
        .filter(|t| !ours.contains(t))
        .collect();
    let tables = ours
        .into_iter()
        .map(|t| {
            let except = |x: &str, y: &str| {
                count(
                    &c,
                    &format!(
                        "SELECT count(*) FROM (SELECT * FROM {x}.\"{t}\" EXCEPT SELECT * FROM {y}.\"{t}\")"
                    ),
                )
            };
            let rows = count(&c, &format!("SELECT count(*) FROM main.\"{t}\""));
            let found = [rows, except("main", "other"), except("other", "main")];
            (t, found)
        })
        .collect();
    (tables, only_theirs)
}

fn size(db: &Path) -> i64 {
    std::fs::metadata(db).unwrap().len() as i64
}

#[test]
fn pipeline_all_drops_the_page_text_and_the_links_unless_kept() {
    let (d, k) = (open(db()), open(kept_db()));
    assert_eq!(count(&d, "SELECT count(*) FROM page_text"), 0);
    assert_eq!(count(&d, "SELECT count(*) FROM links"), 0);
    assert_eq!(count(&d, "SELECT count(*) FROM link_graph"), 0);
    assert!(
        count(&k, "SELECT count(*) FROM link_graph") >= 2,
        "a header and its data"
    );
    assert_eq!(meta(&d, "pipeline.page_text").as_deref(), Some("dropped"));
    assert_eq!(meta(&d, "pipeline.links").as_deref(), Some("dropped"));
    assert_eq!(count(&k, "SELECT count(*) FROM page_text"), 4604);
    assert_eq!(
        count(&k, "SELECT count(*) FROM links").to_string(),
        meta(&k, "ingest.links").unwrap()
    );
    assert_eq!(meta(&k, "pipeline.page_text").as_deref(), Some("kept"));
    assert_eq!(meta(&k, "pipeline.links").as_deref(), Some("kept"));
    // The pages and what was counted of them stay.
    assert_eq!(count(&d, "SELECT count(*) FROM pages"), 4604);
    assert_eq!(meta(&d, "ingest.links"), meta(&k, "ingest.links"));
    // The text's bytes left the file (VACUUM), rather than staying in it as free pages (a few
    // are freed after it, by `finish`'s statistics).
    let free = count(&d, "PRAGMA freelist_count") * count(&d, "PRAGMA page_size");
    assert!(free < 1 << 20, "{free} bytes free");
    let text = count(&k, "SELECT sum(length(CAST(text AS BLOB))) FROM page_text");
    assert!(
        size(kept_db()) - size(db()) >= text,
        "{} bytes with the text, {} without, {text} bytes of text",
        size(kept_db()),
        size(db())
    );
}

/// Every table the answers and `explain` read holds the same rows in both databases, and
/// `suggest` (every strategy, 50 seeded boards) and `explain` answer alike.
#[test]
fn a_database_without_its_inputs_answers_as_one_with_them() {
    let (tables, only_kept) = differences(db(), kept_db());
    assert!(tables["relatedness_by_id"][0] > 0 && tables["scores"][0] > 0);
    assert_eq!(only_kept, Vec::<String>::new());
    let counts = |db: &Path, t: &str| count(&open(db), &format!("SELECT count(*) FROM \"{t}\""));
    for (t, [rows, only_plain, only_in_kept]) in &tables {
        assert_eq!(
            (only_plain, only_in_kept),
            (&0, &0),
            "{t}: rows in one database only"
        );
        assert_eq!(*rows, counts(kept_db(), t), "{t}: as many rows");
    }
    let answers = |db: &Path| {
        clue_db([
            "bench-suggest",
            "--answers",
            "--boards",
            "50",
            "--db",
            utf8(db),
        ])
        .ok()
        .stdout
    };
    let a = answers(db());
    assert_eq!(a.lines().count(), 150, "{a}");
    assert!(a == answers(kept_db()), "the answers differ");
    let explain = |db: &Path| {
        clue_db([
            "explain",
            "fruit",
            "apple",
            "lemon",
            "fire",
            "--json",
            "--db",
            utf8(db),
        ])
        .ok()
        .stdout
    };
    let e = explain(db());
    assert!(e.contains("\"excerpt\""), "{e}");
    assert_eq!(e, explain(kept_db()));
}

/// A stage that reads a dropped input fails, naming it and the flags that keep it, and leaves
/// the database byte for byte; the flags themselves are refused where nothing is dropped.
#[test]
fn a_stage_reading_a_dropped_input_fails_and_leaves_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("clues.sqlite");
    std::fs::copy(db(), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let inputs = crate::common::inputs();
    for (stage, needs) in [
        ("count", "page text"),
        ("chunks", "page text"),
        ("relatedness", "page text"),
        ("term_pages", "links"),
        ("clue_pages", "links"),
        ("pagerank", "links"),
        ("all", "links"),
    ] {
        let run = clue_db([
            "pipeline",
            stage,
            "--inputs",
            utf8(&inputs),
            "--db",
            utf8(&copy),
        ])
        .failed();
        assert!(
            run.stderr.contains(needs) && run.stderr.contains("--keep-text --keep-links"),
            "{stage}: {}",
            run.stderr
        );
        assert!(
            std::fs::read(&copy).unwrap() == before,
            "{stage} changed it"
        );
    }
    let run = clue_db(["pipeline", "scores", "--keep-text", "--db", utf8(&copy)]).failed();
    assert!(run.stderr.contains("for `pipeline all`"), "{}", run.stderr);
    assert!(std::fs::read(&copy).unwrap() == before);
    assert_eq!(tmp_leftovers(dir.path()), Vec::<String>::new());
}

/// Issue 23, item 4: the link stages read the graph (`link_graph`), never the `links` rows, so
/// a build that writes the rows (`--keep-links`) and one that does not give the same term
/// pages, clue pages and PageRank, value for value.
#[test]
fn the_link_stages_give_the_same_rows_with_and_without_the_links_table() {
    let (d, k) = (open(db()), open(kept_db()));
    assert!(count(&k, "SELECT count(*) FROM links") > 100_000);
    for sql in [
        "SELECT term, page_id, origin FROM term_pages ORDER BY 1, 2",
        "SELECT page_id, link_score, terms_linked FROM clue_pages ORDER BY 1",
        "SELECT page_id, term, link_score FROM clue_page_terms ORDER BY 1, 2",
        "SELECT id, pagerank FROM pages ORDER BY id",
    ] {
        let rows = |c: &Connection| -> Vec<String> {
            let mut st = c.prepare(sql).unwrap();
            let n = st.column_count();
            let mut rows = st.query([]).unwrap();
            let mut out = Vec::new();
            while let Some(r) = rows.next().unwrap() {
                out.push(
                    (0..n)
                        .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                        .collect::<Vec<_>>()
                        .join("|"),
                );
            }
            out
        };
        let (a, b) = (rows(&d), rows(&k));
        assert!(!a.is_empty(), "{sql}: no rows");
        assert!(a == b, "{sql}: the rows differ");
    }
}

/// Issue 46, item 3: a database built with `--keep-links` whose graph is then deleted (its
/// header row, or the whole table, which a build makes anew, empty) was read as one without
/// links: `pagerank`, `term_pages` and `clue_pages` exited 0 with every PageRank 1.0 and no clue
/// page. Each now fails naming the table, and the database stays as it was.
#[test]
fn a_deleted_link_graph_fails_the_link_stages_naming_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("clues.sqlite");
    let inputs = crate::common::inputs();
    for damage in [
        "DELETE FROM link_graph WHERE chunk = 0",
        "DROP TABLE link_graph",
    ] {
        std::fs::copy(kept_db(), &copy).unwrap();
        Connection::open(&copy)
            .unwrap()
            .execute_batch(damage)
            .unwrap();
        let before = std::fs::read(&copy).unwrap();
        for stage in ["pagerank", "term_pages", "clue_pages"] {
            let run = clue_db([
                "pipeline",
                stage,
                "--inputs",
                utf8(&inputs),
                "--db",
                utf8(&copy),
            ])
            .failed();
            assert!(
                run.stderr.contains("table link_graph"),
                "{damage}, {stage}: {}",
                run.stderr
            );
            assert!(
                std::fs::read(&copy).unwrap() == before,
                "{damage}, {stage} changed it"
            );
        }
    }
    assert_eq!(tmp_leftovers(dir.path()), Vec::<String>::new());
}
