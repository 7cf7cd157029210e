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
            // Every word a clue word: a build without clue words fails (issue 22), and these
            // few pages hold no word 200 times.
            relate: pipeline::RelateParams {
                min_count: pipeline::MinCount::Fixed(1),
                ..Default::default()
            },
            ..Default::default()
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

/// Issue 23, item 3: once `pipeline all` has dropped the page text and the links, a stage that
/// reads them refuses to run (naming the flags that keep them) instead of computing from
/// nothing; the stages that read neither still run; kept inputs keep every stage running.
#[test]
fn stages_needing_a_dropped_input_refuse_and_the_others_run() {
    let pages = [
        P("Apple", "An apple is a fruit.", &["Fruit"]),
        P("Fruit", "Fruit grows on trees: apple.", &["Apple"]),
    ];
    let c = Corpus::new(&pages, &["apple"], &[]);
    c.run_all();
    let scores = c.build.reader().count_rows("scores").unwrap();
    c.build.drop_inputs(store::KeepInputs::default()).unwrap();
    assert_eq!(c.meta(store::PAGE_TEXT_KEY), "dropped");
    assert_eq!(c.meta(store::LINKS_KEY), "dropped");
    assert_eq!(c.build.reader().count_rows("page_text").unwrap(), 0);
    assert_eq!(c.build.reader().count_rows("links").unwrap(), 0);
    for stage in STAGES {
        let r = run_stage(&c.build, stage, &c.config);
        let needs = if pipeline::TEXT_STAGES.contains(&stage) {
            "page_text"
        } else if pipeline::LINK_STAGES.contains(&stage) {
            "links"
        } else {
            r.unwrap_or_else(|e| panic!("{stage}: {e:#}"));
            continue;
        };
        let e = format!("{:#}", r.unwrap_err());
        assert!(
            e.contains(needs) && e.contains("--keep-text --keep-links"),
            "{stage}: {e}"
        );
    }
    assert_eq!(c.build.reader().count_rows("scores").unwrap(), scores);

    let kept = Corpus::new(&pages, &["apple"], &[]);
    kept.run_all();
    let both = store::KeepInputs {
        text: true,
        links: true,
    };
    kept.build.drop_inputs(both).unwrap();
    assert_eq!(kept.meta(store::PAGE_TEXT_KEY), "kept");
    assert_eq!(kept.meta(store::LINKS_KEY), "kept");
    assert_eq!(kept.build.reader().count_rows("page_text").unwrap(), 2);
    kept.run_all();
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

/// Issue 23, item 2: the clue words' floor follows the corpus's size unless it is given, and
/// `meta` records the value used and how it was chosen. Computed by hand: the three pages hold
/// 12 content tokens (bee 2, honey 3, flower 2, car 2, wheel 2, road 1).
#[test]
fn the_clue_words_floor_scales_with_the_corpus_unless_given() {
    let pages = [
        P("Bee", "Bee honey flower. Bee honey.", &[]),
        P("Car", "Car wheel road. Car wheel.", &[]),
        P("Honey", "Honey flower.", &[]),
    ];
    let run = |min_count: pipeline::MinCount| {
        let mut c = Corpus::new(&pages, &["bee", "car"], &[]);
        c.config.relate = pipeline::RelateParams {
            min_count,
            dims: 4,
            ..Default::default()
        };
        c.run("terms");
        let result = run_stage(&c.build, "relatedness", &c.config).map_err(|e| format!("{e:#}"));
        let mut words: Vec<String> = match &result {
            Ok(()) => c
                .build
                .reader()
                .clue_words()
                .unwrap()
                .into_iter()
                .map(|(w, _, _)| w)
                .collect(),
            Err(_) => Vec::new(),
        };
        words.sort();
        (c, result, words)
    };
    use pipeline::MinCount::{Fixed, Scaled};
    // 12 × 250,000 per million = 3: only honey is seen 3 times.
    let (c, result, words) = run(Scaled {
        per_million: 250_000.0,
        floor: 1,
    });
    result.unwrap();
    assert_eq!(c.meta("relatedness.tokens"), "12");
    assert_eq!(words, ["honey"]);
    assert_eq!(c.meta("relatedness.min_count"), "3");
    assert_eq!(
        c.meta("relatedness.min_count_rule"),
        "250000 per million content tokens, rounded, at least 1"
    );
    // 12 × 125,000 per million = 1.5, rounded to 2: every word seen twice.
    let (c, _, words) = run(Scaled {
        per_million: 125_000.0,
        floor: 1,
    });
    assert_eq!(words, ["bee", "car", "flower", "honey", "wheel"]);
    assert_eq!(c.meta("relatedness.min_count"), "2");
    // A rate giving 0 stops at the floor.
    let (c, _, words) = run(Scaled {
        per_million: 1.0,
        floor: 2,
    });
    assert_eq!(words.len(), 5);
    assert_eq!(c.meta("relatedness.min_count"), "2");
    // The default on 12 tokens: the floor of 200, so no clue word, and the build fails saying so.
    let (_, result, _) = run(pipeline::RelateParams::default().min_count);
    let e = result.unwrap_err();
    assert!(e.contains("--min-count 200 times"), "{e}");
    // A floor given as a number wins over the rate.
    let (c, result, words) = run(Fixed(3));
    result.unwrap();
    assert_eq!(words, ["honey"]);
    assert_eq!(c.meta("relatedness.min_count"), "3");
    assert_eq!(c.meta("relatedness.min_count_rule"), "--min-count");
}

/// The relatedness stage on a corpus small enough to count by hand: the co-occurrences, the
/// PPMI formula, the standardised mix, the risk, the packed vectors and the evidence.
#[test]
fn relatedness_against_a_hand_computation() {
    let mut c = Corpus::new(
        &[
            P("Bee", "Bee honey flower. Bee honey.", &[]),
            P("Car", "Car wheel road. Car wheel.", &[]),
            P("Honey", "Honey flower.", &[]),
        ],
        &["bee", "car"],
        &[],
    );
    c.config.relate = pipeline::RelateParams {
        min_count: pipeline::MinCount::Fixed(2),
        dims: 4,
        // Three pages: every word is on more than a tenth of them.
        max_page_share: 1.0,
        // Both measures in the mix, so that the test checks the formula whole.
        ppmi_weight: 0.3,
        ..Default::default()
    };
    c.run("terms");
    c.run("relatedness");
    let reader = c.build.reader();
    // Counts: bee 2, honey 3, flower 2, car 2, wheel 2, road 1 (under min_count: not even in
    // the vocabulary). Every word seen twice or more is a clue word, the card words too.
    let words: Vec<(String, u64)> = reader
        .clue_words()
        .unwrap()
        .into_iter()
        .map(|(w, n, _)| (w, n))
        .collect();
    let mut sorted = words.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            ("bee", 2),
            ("car", 2),
            ("flower", 2),
            ("honey", 3),
            ("wheel", 2)
        ]
        .map(|(w, n)| (w.to_string(), n))
    );
    assert_eq!(c.meta("relatedness.card_words"), "2");
    assert_eq!(c.meta("relatedness.clue_words"), "5");
    assert_eq!(c.meta("relatedness.window"), "10");
    assert_eq!(c.meta("relatedness.weighting"), "linear");
    // The dictionary view, English: WordNet has all five words.
    assert_eq!(c.meta("relatedness.dictionary_weight"), "0.3");
    assert_eq!(c.meta("relatedness.dictionary_words"), "5");
    // Each view's name, its cosines' spread and its weight as joined: the three, weighing 1.
    let views = c.meta("relatedness.views");
    let parts: Vec<Vec<&str>> = views.split(", ").map(|v| v.split(' ').collect()).collect();
    let names: Vec<&str> = parts.iter().map(|p| p[0]).collect();
    assert_eq!(names, ["svd", "skip_gram", "dictionary"], "{views}");
    let total: f64 = parts.iter().map(|p| p[2].parse::<f64>().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-3, "{views}");
    // Meetings in a sentence: bee–honey 2 (both Bee sentences), bee–flower 1, honey–flower 2
    // (Bee and Honey), car–wheel 2. Weighted by distance (window 10: neighbours 10, two apart
    // 9): bee–honey 20, bee–flower 9, honey–flower 20, car–wheel 20. Row sums r: bee 29,
    // honey 40, flower 29, car 20, wheel 20.
    let row = |t: &str, cl: &str| reader.relatedness(t, cl).unwrap().unwrap();
    assert_eq!(row("bee", "honey").cooccurrences, 2);
    assert_eq!(row("bee", "flower").cooccurrences, 1);
    assert_eq!(row("car", "wheel").cooccurrences, 2);
    assert_eq!(row("bee", "wheel").cooccurrences, 0);
    // PPMI(w, c) = max(0, ln(n(w, c) · Σ r^α / (r(w) · r(c)^α))), α = 1 by default (no
    // context-distribution smoothing); the stored ppmi is the mean of both directions.
    let r = |w: &str| -> f64 {
        match w {
            "bee" | "flower" => 29.0,
            "honey" => 40.0,
            _ => 20.0,
        }
    };
    assert_eq!(c.meta("relatedness.alpha"), "1");
    let alpha = 1.0f64;
    let total: f64 = ["bee", "honey", "flower", "car", "wheel"]
        .iter()
        .map(|w| r(w).powf(alpha))
        .sum();
    let ppmi = |n: f64, w: &str, cl: &str| (n * total / (r(w) * r(cl).powf(alpha))).ln().max(0.0);
    for (t, cl, n) in [
        ("bee", "honey", 20.0),
        ("bee", "flower", 9.0),
        ("car", "wheel", 20.0),
    ] {
        let want = (ppmi(n, t, cl) + ppmi(n, cl, t)) / 2.0;
        let got = row(t, cl).ppmi;
        assert!((got - want).abs() < 1e-4, "{t}/{cl}: {got} vs {want}");
    }
    assert_eq!(row("bee", "wheel").ppmi, 0.0);
    // A word with itself: cosine 1.
    assert!((row("bee", "bee").cosine - 1.0).abs() < 1e-5);
    // Dense: every card word with every clue word; the score is
    // z(w·z(ppmi) + (1 − w)·z(cosine) + e·z(ln(1 + meetings·f))), each standardised with the mean
    // and deviation recorded in meta, so that these parts average 0; then raised by b × the
    // share of the card's senses whose dictionary definition uses the clue word.
    let m = |k: &str| -> f64 { c.meta(&format!("relatedness.{k}")).parse().unwrap() };
    let b = m("definition_weight");
    assert!((b - 2.0).abs() < 1e-6);
    let lexicon = wordnet::Lexicon::embedded();
    let definitions = lexicon.definitions();
    let raise = |t: &str, cl: &str| -> f64 {
        definitions
            .of(t)
            .iter()
            .find(|(w, _)| w == cl)
            .map_or(0.0, |x| b * x.1)
    };
    // A car is "a motor vehicle with four wheels" in every sense people use: wheel is raised
    // by nearly the whole weight; nothing defines a car by honey.
    assert!(raise("car", "wheel") > 1.5, "{}", raise("car", "wheel"));
    assert_eq!(raise("car", "honey"), 0.0);
    assert!(m("definition_pairs") >= 1.0);
    let w = m("ppmi_weight");
    assert!((w - 0.3).abs() < 1e-6);
    let e = m("meeting_weight");
    assert!((e - relate::DEFAULT_MEETING_WEIGHT as f64).abs() < 1e-6);
    // Each meeting counts (median / card's count)^p: both cards are seen twice, the median.
    let power = m("meeting_card_power");
    assert!((power - relate::DEFAULT_MEETING_CARD_POWER as f64).abs() < 1e-6);
    assert_eq!(m("meetings_card_median"), 2.0);
    let clue_words = reader.clue_words().unwrap();
    let mut all = Vec::new();
    for t in ["bee", "car"] {
        let (count, packed) = reader.relatedness_vector(t).unwrap().unwrap();
        assert_eq!(packed.len(), clue_words.len());
        assert_eq!(reader.relatedness_count(t).unwrap(), Some(count));
        let f = (m("meetings_card_median") / count as f64).powf(power);
        for (j, (cl, _, _)) in clue_words.iter().enumerate() {
            let x = row(t, cl);
            let mix = w * (x.ppmi - m("ppmi_mean")) / m("ppmi_std")
                + (1.0 - w) * (x.cosine - m("cosine_mean")) / m("cosine_std")
                + e * ((x.cooccurrences as f64 * f).ln_1p() - m("meetings_mean"))
                    / m("meetings_std");
            let want = (mix - m("mix_mean")) / m("mix_std") + raise(t, cl);
            // The view gives the measures to the ten-thousandth (relatedness_by_id keeps them
            // so): the cosine's rounding, in its standard deviations, is most of the gap.
            let tolerance = 1e-4 + 5e-5 / m("cosine_std") / m("mix_std");
            assert!(
                (x.score - want).abs() < tolerance,
                "{t}/{cl}: {} vs {want}",
                x.score
            );
            // The packed vector holds the same score at the clue word's id, unrounded.
            assert!(
                (packed[j] as f64 - x.score).abs() <= 5e-5 + 1e-9,
                "{t}/{cl}"
            );
            all.push(x.score - raise(t, cl));
        }
    }
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    assert!(mean.abs() < 1e-4, "mean score before the raise {mean}");
    // Related pairs score above unrelated ones.
    assert!(row("bee", "honey").score > row("bee", "wheel").score);
    assert!(row("car", "wheel").score > row("car", "honey").score);
    // The risk: the 90th percentile (nearest rank) of a clue's scores with the card words, with
    // two card words the higher (the view's scores are to the ten-thousandth).
    for (cl, _, risk) in &clue_words {
        let hi = row("bee", cl).score.max(row("car", cl).score);
        assert!(
            (*risk as f64 - hi).abs() <= 5e-5 + 1e-6,
            "{cl}: risk {risk} vs {hi}"
        );
    }
    // Where they meet: bee and honey meet twice on Bee, once in each sentence.
    let meet = reader.meeting("bee", "honey").unwrap().unwrap();
    assert_eq!((meet.page_title.as_str(), meet.meetings), ("Bee", 2));
    let excerpt = meet.excerpt.unwrap();
    assert!(excerpt.contains("Bee honey"), "{excerpt}");
    assert!(reader.meeting("bee", "wheel").unwrap().is_none());
    // Re-running the stage gives the same rows.
    c.run("relatedness");
    assert_eq!(
        reader.relatedness("bee", "honey").unwrap().unwrap(),
        row("bee", "honey")
    );
    assert_eq!(reader.clue_words().unwrap().len(), 5);
}

/// The terms stage keeps each list it read by name, in its order, each word once:
/// `inputs/terms.txt` as `codenames`, another file by its stem; two lists of one name are
/// refused, naming the file; and the store reads them back, `codenames` first. In an English
/// build a word with and without accents is one card, in a list and across lists, stored as
/// the text writes it (`cafe`; `Café`, and `café` written with a combining accent).
#[test]
fn the_terms_stage_stores_each_word_list_by_name() {
    let pages = [P("Apple", "An apple is a fruit.", &[])];
    let mut c = Corpus::new(&pages, &["Apple", "moon", "apple", "cafe\u{301}"], &[]);
    let other = c.config.inputs.join("zoo-pack.txt");
    std::fs::write(&other, "Zebra\nice-cream\nzebra\napple\nCafé\ncafe\n").unwrap();
    // The same file twice (by another path) is read once.
    let again = c.config.inputs.join(".").join("terms.txt");
    c.config.terms = vec![other.clone(), c.config.inputs.join("terms.txt"), again];
    c.run("terms");
    let lists = c.build.reader().word_lists().unwrap();
    assert_eq!(
        lists,
        [
            (
                "codenames".to_string(),
                vec!["apple".to_string(), "moon".to_string(), "cafe".to_string()]
            ),
            (
                "zoo-pack".to_string(),
                vec![
                    "zebra".to_string(),
                    "ice cream".to_string(),
                    "apple".to_string(),
                    "cafe".to_string()
                ]
            ),
        ]
    );
    assert_eq!(c.meta("terms.lists"), "zoo-pack:4,codenames:3");
    assert_eq!(
        c.build.reader().listed_terms().unwrap(),
        ["apple", "cafe", "ice cream", "moon", "zebra"]
    );
    // A second list named zoo-pack.
    let dir = tempfile::tempdir().unwrap();
    let twin = dir.path().join("zoo-pack.txt");
    std::fs::write(&twin, "lion\n").unwrap();
    c.config.terms.push(twin.clone());
    let e = format!("{:#}", run_stage(&c.build, "terms", &c.config).unwrap_err());
    assert!(
        e.contains(&twin.display().to_string())
            && e.contains("a second word list named \"zoo-pack\""),
        "{e}"
    );
    // The lists of the last run that finished are kept.
    assert_eq!(c.build.reader().word_lists().unwrap(), lists);
}

/// Text weights: a corpus counted twice counts as its text written twice would (the same
/// co-occurrence, so the same PPMI, and the same meetings), and the skip-gram reads it twice;
/// the vocabulary's counts stay those of the text as written, so the clue words are the same.
/// A weight for a corpus the build lacks is an error.
#[test]
fn a_corpus_counted_twice_counts_as_if_written_twice_but_in_the_vocabulary() {
    let stride = pipeline::ingest::SOURCE_ID_STRIDE;
    // Source 0 ("enc") from Corpus::new; source 1 ("simple") added with ids from the stride,
    // `copies` times over (other titles, the same text).
    let build = |copies: usize, weights: &[(&str, u32)]| {
        let mut c = Corpus::new(
            &[
                P(
                    "Bee",
                    "Bee honey flower. Bee hive honey. Car wheel road.",
                    &[],
                ),
                P("Car", "Car road wheel. Car engine road. Honey flower.", &[]),
            ],
            &["bee", "car"],
            &[],
        );
        c.build.begin().unwrap();
        let simple = [
            "Bee honey hive. Car wheel.",
            "Car engine. Bee flower honey.",
        ];
        for copy in 0..copies {
            for (i, text) in simple.iter().enumerate() {
                let n = (copy * simple.len() + i) as u64;
                let title = format!("Simple {n}");
                let page = NewPage {
                    id: stride + 1 + n,
                    title: &title,
                    ns: 0,
                    redirect_to: None,
                    is_disambiguation: false,
                    text: Some(text),
                };
                assert!(c.build.insert_page(&page).unwrap());
            }
        }
        c.build.commit().unwrap();
        c.build.set_meta("ingest.corpus", "enc,simple").unwrap();
        c.config.text_weights = pipeline::corpora::TextWeights::with(
            weights.iter().map(|&(n, w)| (n.to_string(), w)).collect(),
        );
        c.run("terms");
        c.run("relatedness");
        c
    };
    let rows = |c: &Corpus| {
        let reader = c.build.reader();
        let mut out = Vec::new();
        for (cl, _, _) in reader.clue_words().unwrap() {
            for t in ["bee", "car"] {
                let r = reader.relatedness(t, &cl).unwrap().unwrap();
                out.push((t, cl.clone(), r.ppmi, r.cooccurrences));
            }
        }
        // In the words' order: the clue words' ids follow their counts, which differ.
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        out
    };
    let counts = |c: &Corpus| {
        let words = c.build.reader().clue_words().unwrap();
        words
            .into_iter()
            .map(|(w, n, _)| (w, n))
            .collect::<Vec<_>>()
    };
    let once = build(1, &[]);
    let weighted = build(1, &[("simple", 2)]);
    let written_twice = build(2, &[]);
    assert_eq!(once.meta("relatedness.text_weights"), "enc=1,simple=1");
    assert_eq!(weighted.meta("relatedness.text_weights"), "enc=1,simple=2");
    let (o, w, t) = (rows(&once), rows(&weighted), rows(&written_twice));
    // The same PPMI as the text written twice, another than the text once.
    let ppmi = |r: &[(&str, String, f64, u64)]| r.iter().map(|x| x.2).collect::<Vec<_>>();
    assert_eq!(ppmi(&w), ppmi(&t));
    assert_ne!(ppmi(&w), ppmi(&o));
    // The meetings of the text written twice; the vocabulary's counts of the text once.
    let met = |r: &[(&str, String, f64, u64)]| r.iter().map(|x| x.3).collect::<Vec<_>>();
    assert_eq!(met(&w), met(&t));
    assert_ne!(met(&w), met(&o));
    let bee_honey = |r: &[(&str, String, f64, u64)]| {
        r.iter()
            .find(|x| x.0 == "bee" && x.1 == "honey")
            .map(|x| x.3)
    };
    // bee–honey: twice on page Bee, once in each simple page (2 + 2 as written, 2 + 2·2).
    assert_eq!((bee_honey(&o), bee_honey(&w)), (Some(4), Some(6)));
    assert_eq!(counts(&weighted), counts(&once));
    assert_ne!(counts(&weighted), counts(&written_twice));
    assert_eq!(
        weighted.meta("relatedness.tokens"),
        once.meta("relatedness.tokens")
    );
    // The skip-gram read the simple pages' 10 content words twice.
    let sg = |c: &Corpus| {
        c.meta("relatedness.skip_gram_tokens")
            .parse::<u64>()
            .unwrap()
    };
    assert_eq!(sg(&weighted), sg(&once) + 10);
    assert_eq!(sg(&weighted), sg(&written_twice));

    let mut wrong = build(1, &[]);
    wrong.config.text_weights =
        pipeline::corpora::TextWeights::with(vec![("simplewiki".to_string(), 2)]);
    let err = run_stage(&wrong.build, "relatedness", &wrong.config).unwrap_err();
    let err = format!("{err:#}");
    assert!(
        err.contains("\"simplewiki\"") && err.contains("(its corpora: enc, simple)"),
        "{err}"
    );
}
