//! The stages on small hand-made corpora: a few pages with text and links, stored the way the
//! ingest stage stores them, then run stage by stage as `clue-db pipeline` runs them.

use pipeline::{Config, STAGES, run_stage};
use store::{Build, NewPage};

/// A page of a test corpus: title, plain text, titles it links to.
struct P<'a>(&'a str, &'a str, &'a [&'a str]);

/// A store holding `pages` (ids from 1, in order) with resolved links, and a `pipeline/`-like
/// inputs folder holding `terms` and `supplements` (the lines of `term_pages.tsv`).
struct Corpus {
    build: Build,
    config: Config,
    /// Holds the database and the inputs; deleted when the test ends (after `build`: fields
    /// drop in order).
    _dir: tempfile::TempDir,
}

impl Corpus {
    fn new(pages: &[P], terms: &[&str], supplements: &[&str]) -> Corpus {
        let dir = tempfile::tempdir().unwrap();
        let build = Build::create(&dir.path().join("clues.sqlite")).unwrap();
        build.begin().unwrap();
        for (i, P(title, text, links)) in pages.iter().enumerate() {
            let id = i as u64 + 1;
            let page = NewPage {
                id,
                title,
                ns: 0,
                redirect_to: None,
                is_disambiguation: false,
                text: Some(text),
            };
            assert!(build.insert_page(&page).unwrap());
            for l in *links {
                build.stage_link(id, 0, l).unwrap();
            }
        }
        build.commit().unwrap();
        build.resolve_links().unwrap();
        let config = Config {
            inputs: dir.path().join("inputs"),
            keep_all_neighbours: false,
        };
        std::fs::create_dir(&config.inputs).unwrap();
        let corpus = Corpus {
            _dir: dir,
            build,
            config,
        };
        corpus.write_input("terms.txt", terms);
        corpus.write_input("term_pages.tsv", supplements);
        corpus
    }

    fn write_input(&self, name: &str, lines: &[&str]) {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(self.config.inputs.join(name), text).unwrap();
    }

    fn run(&self, stage: &str) {
        run_stage(&self.build, stage, &self.config).unwrap_or_else(|e| panic!("{stage}: {e:#}"));
    }

    fn run_all(&self) {
        for s in STAGES {
            self.run(s);
        }
    }

    fn meta(&self, key: &str) -> String {
        self.build.meta(key).unwrap().unwrap_or_default()
    }
}

#[test]
fn coverage_follows_term_pages_whichever_stage_runs_alone() {
    let c = Corpus::new(
        &[
            P("Apple", "An apple is a fruit.", &["Fruit", "Pear"]),
            P("Pear", "A pear is a fruit.", &["Fruit", "Apple"]),
            P(
                "Fruit",
                "Fruit grows on trees: apple and pear.",
                &["Apple", "Pear"],
            ),
            P(
                "Actinidia deliciosa",
                "The kiwifruit is a fruit.",
                &["Fruit"],
            ),
        ],
        &["apple", "pear", "kiwi"],
        &[],
    );
    c.run_all();
    let reader = c.build.reader();
    assert_eq!(reader.terms().unwrap(), ["apple", "pear"]);
    assert_eq!(reader.listed_terms().unwrap(), ["apple", "kiwi", "pear"]);
    assert_eq!(c.meta("term_pages.uncovered"), "kiwi");
    assert_eq!(c.meta("term_pages.covered"), "2");
    // `terms` alone rewrites the list but keeps what term_pages found.
    c.run("terms");
    assert_eq!(reader.terms().unwrap(), ["apple", "pear"]);
    assert_eq!(c.meta("term_pages.uncovered"), "kiwi");
    assert!(
        reader
            .term_pages()
            .unwrap()
            .iter()
            .all(|(t, _, _)| t != "kiwi"),
        "uncovered terms have no term pages"
    );
    // A supplement for the uncovered term: `term_pages` alone now covers it.
    c.write_input("term_pages.tsv", &["kiwi\tActinidia deliciosa"]);
    c.run("term_pages");
    assert_eq!(reader.terms().unwrap(), ["apple", "kiwi", "pear"]);
    assert_eq!(c.meta("term_pages.uncovered"), "");
    assert_eq!(c.meta("term_pages.covered"), "3");
    assert!(
        reader
            .term_pages()
            .unwrap()
            .contains(&("kiwi".into(), 4, "supplement".into()))
    );
    // A term dropped from the list: its term pages are no longer read.
    c.write_input("terms.txt", &["apple", "kiwi"]);
    c.run("terms");
    assert_eq!(reader.terms().unwrap(), ["apple", "kiwi"]);
    assert!(
        reader
            .term_pages()
            .unwrap()
            .iter()
            .all(|(t, _, _)| t != "pear"),
        "pear is no longer listed"
    );
}

#[test]
fn an_irregular_inflection_in_a_clue_page_scores_for_its_term() {
    let c = Corpus::new(
        &[
            P(
                "Strike",
                "A strike is a work stoppage. Workers strike for better pay.",
                &["Lightning", "Tower"],
            ),
            P("Tower", "A tower is a tall building.", &["Lightning"]),
            P(
                "Lightning",
                "Lightning struck the old tower. It struck twice. Storms bring lightning.",
                &["Strike", "Tower"],
            ),
            P("Storm", "A storm brings rain.", &["Lightning"]),
        ],
        &["strike", "tower"],
        &[],
    );
    c.run_all();
    let reader = c.build.reader();
    assert_eq!(reader.terms().unwrap(), ["strike", "tower"]);
    let e = reader
        .evidence("lightning", "strike")
        .unwrap()
        .expect("`struck` in Lightning scores lightning/strike");
    assert_eq!(e.direction, "clue_page");
    assert_eq!(e.page_title, "Lightning");
    assert_eq!(e.count, 2, "struck twice");
    assert_eq!(
        e.excerpt.as_deref(),
        Some("Lightning struck the old tower.")
    );
    let pr = e.pagerank.expect("pagerank stored");
    let want = (pr / 6.0).min(1.0) * (1.0 - 0.7f64.powi(2));
    assert!(e.score > 0.0 && (e.score - want).abs() < 1e-12, "{e:?}");
    // A clue is never the term's own inflection: `struck` never scores for `strike`.
    assert!(reader.evidence("struck", "strike").unwrap().is_none());
}
