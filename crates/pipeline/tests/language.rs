//! A build in a language other than English (issue 12): every stage runs on a tiny German
//! corpus, with the German Snowball stemmer and stopwords and without the English-only parts
//! (tagger, entities, noun chunks, WordNet), as `db/README.md` ("Languages") says.

use pipeline::{Config, RelateParams, STAGES, run_stage};
use store::{Build, NewPage};

/// `(title, text, links)` of a German corpus about banks, money and parks.
const PAGES: &[(&str, &str, &[&str])] = &[
    (
        "Bank",
        "Eine Bank ist ein Kreditinstitut. Die Banken verwalten Geld und Konten für ihre Kunden.",
        &["Geld", "Kredit", "Park"],
    ),
    (
        "Geld",
        "Geld ist ein Zahlungsmittel. Banken verleihen Geld, und die Bank bewahrt das Geld auf.",
        &["Bank", "Park"],
    ),
    (
        "Kredit",
        "Ein Kredit wird von einer Bank vergeben. Kredite kosten Zinsen und Geld.",
        &["Bank", "Geld"],
    ),
    (
        "Park",
        "Im Park stehen Bänke und Bäume. Der Park ist grün, und die Bänke sind aus Holz.",
        &["Bank", "Geld", "Baum"],
    ),
    (
        "Baum",
        "Ein Baum ist eine Pflanze aus Holz. Bäume wachsen im Park und im Wald.",
        &["Park", "Holz"],
    ),
    (
        "Holz",
        "Holz kommt von Bäumen. Aus Holz baut man Bänke, Häuser und Boote.",
        &["Baum", "Park"],
    ),
];

#[test]
fn a_german_build_runs_every_stage_with_the_german_stemmer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("de.sqlite");
    let build = Build::create(&path).unwrap();
    pipeline::set_language(&build, text::Language::from_code("de").unwrap()).unwrap();
    build.begin().unwrap();
    for (i, (title, body, links)) in PAGES.iter().enumerate() {
        let id = i as u64 + 1;
        build
            .insert_page(&NewPage {
                id,
                title,
                ns: 0,
                redirect_to: None,
                is_disambiguation: false,
                text: Some(body),
            })
            .unwrap();
        for l in *links {
            build.stage_link(id, 0, l).unwrap();
        }
    }
    build.commit().unwrap();
    build.resolve_links().unwrap();
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    std::fs::write(inputs.join("terms.txt"), "Bank\nPark\nBaum\n").unwrap();
    let config = Config {
        inputs,
        keep_all_neighbours: true,
        relate: RelateParams {
            min_count: pipeline::MinCount::Fixed(1),
            dims: 4,
            max_page_share: 1.0,
            ..RelateParams::default()
        },
        ..Config::default()
    };
    for stage in STAGES {
        run_stage(&build, stage, &config).unwrap_or_else(|e| panic!("{stage}: {e:#}"));
    }
    // Another language cannot be given to the same database.
    let err = pipeline::set_language(&build, text::Language::english()).unwrap_err();
    assert!(
        err.to_string().contains("built for language \"de\""),
        "{err}"
    );
    build.finish().unwrap();

    let c = rusqlite::Connection::open(&path).unwrap();
    let one = |sql: &str| -> String {
        use rusqlite::types::Value;
        match c.query_row(sql, [], |r| r.get::<_, Value>(0)).unwrap() {
            Value::Integer(n) => n.to_string(),
            Value::Real(x) => x.to_string(),
            Value::Text(s) => s,
            Value::Null | Value::Blob(_) => String::new(),
        }
    };
    // `Banken` and `Bank` on the page Geld: one term, by its stem, in one untagged bucket.
    assert_eq!(
        one(
            "SELECT count || ' ' || pos || ' ' || ifnull(entity, '-') FROM counts \
             JOIN pages ON pages.id = page_id WHERE title = 'Geld' AND term = 'bank'"
        ),
        "2 X -"
    );
    // `Bäume` counts for `baum` on the page Holz (`Bäumen`) and Park.
    assert_eq!(
        one("SELECT count FROM counts JOIN pages ON pages.id = page_id \
             WHERE title = 'Park' AND term = 'baum'"),
        "1"
    );
    assert_eq!(
        one("SELECT count(*) FROM chunks"),
        "0",
        "no tagger, no noun chunks"
    );
    // Term documents: words as written, German stopwords left out.
    assert_eq!(
        one("SELECT count(*) FROM term_docs WHERE word IN ('und', 'die', 'ist')"),
        "0"
    );
    assert_eq!(
        one("SELECT count(*) FROM term_docs WHERE term = 'bank' AND word = 'geld'"),
        "1"
    );
    // Scores: clue pages' titles, never a form of the card.
    assert!(
        one("SELECT score FROM scores WHERE clue = 'geld' AND term = 'bank'")
            .parse::<f64>()
            .unwrap()
            > 0.0
    );
    assert_eq!(
        one("SELECT count(*) FROM scores WHERE clue IN ('bank', 'banken', 'bänke')"),
        "0"
    );
    // Relatedness: forms folded by stem (`bänke`, `banken` are `bank`), umlauts kept, no
    // stopword among the clue words.
    assert_eq!(
        one(
            "SELECT count(*) FROM clue_words WHERE word IN ('banken', 'bänke', 'bäume', 'und', 'die')"
        ),
        "0"
    );
    assert_eq!(
        one("SELECT count(*) FROM clue_words WHERE word = 'häuser'"),
        "1"
    );
    assert!(
        one("SELECT count(*) FROM relatedness")
            .parse::<u64>()
            .unwrap()
            > 0
    );
    // WordNet is an English dictionary: no dictionary view for German text.
    assert_eq!(
        one("SELECT value FROM meta WHERE key = 'relatedness.dictionary_weight'"),
        "0"
    );
    assert_eq!(
        one("SELECT value FROM meta WHERE key = 'relatedness.definition_weight'"),
        "0"
    );
    assert_eq!(
        one("SELECT value FROM meta WHERE key = 'relatedness.definition_pairs'"),
        "0"
    );
    // The legality table: clue words sharing a card's stem.
    assert_eq!(
        one("SELECT count(*) FROM inflections WHERE form = 'bank' AND word = 'bank'"),
        "1"
    );
    assert_eq!(one("SELECT value FROM meta WHERE key = 'language'"), "de");
}
