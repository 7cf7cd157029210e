//! The query commands on the Wikispeedia database: suggest (both strategies, JSON shape,
//! legality, the threshold rule checked against `scores`, no safe clue, errors), explain,
//! guess, play and eval.

use crate::common::{Run, clue_db, clue_db_unread, count, keys_in_order, open, utf8};
use crate::db;
use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;
use std::collections::BTreeSet;

/// The board the query and API tests ask about.
pub(crate) const POS: [&str; 5] = ["apple", "lemon", "olive", "moon", "ice"];
pub(crate) const NEG: [&str; 4] = ["fire", "war", "india", "film"];
pub(crate) const ASSASSIN: &str = "opera";

/// `clue-db CMD ARGS… --db DB`.
pub(crate) fn query(args: &[&str]) -> Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", utf8(db())]);
    clue_db(all)
}

pub(crate) fn suggest(pos: &str, neg: &str, extra: &[&str]) -> Run {
    let mut args = vec!["suggest", "--pos", pos, "--neg", neg];
    args.extend(extra);
    query(&args)
}

/// `suggest --json --top 3` with `strategy` for the board of [`POS`], [`NEG`] and [`ASSASSIN`].
pub(crate) fn suggest_board_json(strategy: &str) -> Run {
    suggest(
        &POS.join(","),
        &NEG.join(","),
        &[
            "--assassin",
            ASSASSIN,
            "--strategy",
            strategy,
            "--top",
            "3",
            "--json",
        ],
    )
}

/// The stored score of (clue, term), if any.
fn score(c: &Connection, clue: &str, term: &str) -> Option<f64> {
    c.query_row(
        "SELECT score FROM scores WHERE clue = ?1 AND term = ?2",
        [clue, term],
        |r| r.get(0),
    )
    .optional()
    .unwrap()
}

/// The bar a target of `clue` must exceed on the board `NEG` + `ASSASSIN`, from the stored
/// scores: the best negative score, and the assassin's + 0.1.
fn threshold_in_db(c: &Connection, clue: &str) -> f64 {
    bar(c, clue, &NEG, ASSASSIN, 0.1)
}

/// The bar of `clue` on any board: its best score with a negative card, and the assassin's
/// + `margin` when the assassin has a score.
fn bar(c: &Connection, clue: &str, neg: &[&str], assassin: &str, margin: f64) -> f64 {
    let mut threshold = neg
        .iter()
        .filter_map(|n| score(c, clue, n))
        .fold(0.0f64, f64::max);
    if let Some(a) = score(c, clue, assassin) {
        threshold = threshold.max(a + margin);
    }
    threshold
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// Checks one suggestion (the answer or an alternative) against the board's rules.
/// A suggestion's targets, in order.
pub(crate) fn targets(s: &Value) -> Vec<&str> {
    s["targets"]
        .as_array()
        .unwrap_or_else(|| panic!("no targets in {s}"))
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

fn check_suggestion(s: &Value, pos: &[&str], board: &[&str]) {
    let clue = s["clue"]
        .as_str()
        .unwrap_or_else(|| panic!("no clue in {s}"));
    let targets = targets(s);
    assert_eq!(s["count"].as_u64(), Some(targets.len() as u64), "{s}");
    assert!(!targets.is_empty(), "{s}");
    let distinct: BTreeSet<&str> = targets.iter().copied().collect();
    assert_eq!(distinct.len(), targets.len(), "repeated target in {s}");
    assert!(
        targets.iter().all(|t| pos.contains(t)),
        "targets {targets:?} not all in --pos {pos:?}"
    );
    assert!(s["score"].as_f64().unwrap() > 0.0, "{s}");
    // Legal: one lower-case word, not a board word, not containing one, not inside one.
    assert!(
        !clue.is_empty() && clue.chars().all(|c| c.is_alphabetic() && c.is_lowercase()),
        "clue {clue:?} is not one lower-case word"
    );
    for w in board {
        assert!(
            !clue.contains(w) && !w.contains(clue),
            "clue {clue:?} and board word {w:?}"
        );
    }
}

#[test]
fn suggest_json_for_both_strategies() {
    let c = open(db());
    let board: Vec<&str> = POS.iter().chain(&NEG).chain([&ASSASSIN]).copied().collect();
    let (pos, neg) = (POS.join(","), NEG.join(","));
    for strategy in ["threshold", "herfindahl"] {
        let run = suggest_board_json(strategy).ok();
        let v = run.json();
        // The contract's key order, read from the text (a parsed Value sorts its keys).
        let alts = v["alternatives"].as_array().unwrap().len();
        let order = crate::common::answer_keys(alts);
        assert_eq!(keys_in_order(&run.stdout), order, "{}", run.stdout);
        assert_eq!(v["warnings"], serde_json::json!([]));
        assert_eq!(v["strategy"], strategy);
        check_suggestion(&v, &POS, &board);
        let alts = v["alternatives"].as_array().unwrap();
        assert!(alts.len() <= 2, "--top 3 gives at most 2 alternatives: {v}");
        let mut last = v["score"].as_f64().unwrap();
        for a in alts {
            check_suggestion(a, &POS, &board);
            assert_ne!(a["clue"], v["clue"]);
            if strategy == "threshold" {
                let s = a["score"].as_f64().unwrap();
                assert!(s <= last, "alternatives out of order: {v}");
                last = s;
            }
        }
        // Every target, whatever the strategy, scores with the clue above every negative card
        // and above the assassin's score + 0.1 (herfindahl checks its targets by the same rule).
        for s in std::iter::once(&v).chain(alts) {
            let clue = s["clue"].as_str().unwrap();
            let threshold = threshold_in_db(&c, clue);
            for t in s["targets"].as_array().unwrap() {
                let t = t.as_str().unwrap();
                let sc = score(&c, clue, t).unwrap_or(0.0);
                assert!(
                    sc > threshold,
                    "{strategy}: {clue}/{t} scores {sc}, bar {threshold}"
                );
            }
        }
        if strategy == "threshold" {
            assert_eq!(alts.len(), 2, "{v}");
            // The threshold rule, checked against the stored scores: a target scores above
            // every negative card and above the assassin's score + 0.1; the other positive
            // cards do not; the score is the targets' sum.
            for s in std::iter::once(&v).chain(alts) {
                let clue = s["clue"].as_str().unwrap();
                let threshold = threshold_in_db(&c, clue);
                let targets: BTreeSet<&str> = targets(s).into_iter().collect();
                let mut sum = 0.0;
                for p in POS {
                    let sc = score(&c, clue, p).unwrap_or(0.0);
                    assert_eq!(
                        targets.contains(p),
                        sc > threshold,
                        "{clue}/{p}: score {sc}, threshold {threshold}"
                    );
                    if targets.contains(p) {
                        sum += sc;
                    }
                }
                assert!((s["score"].as_f64().unwrap() - sum).abs() < 1e-9, "{s}");
            }
        }
        // The text form names the same clue and number.
        let text = suggest(
            &pos,
            &neg,
            &["--assassin", ASSASSIN, "--strategy", strategy, "--top", "3"],
        )
        .ok();
        let first = format!("{} {}", v["clue"].as_str().unwrap(), v["count"]);
        assert!(text.stdout.starts_with(&first), "{}", text.stdout);
    }
}

#[test]
fn suggest_without_a_safe_clue() {
    // "jet" against cards that, together, score at least as high as it with each of its clues
    // (its only clue above every other covered term is "engines", an inflection of the board
    // word "engine", hence illegal), so no clue is safe. A board holds 25 cards at most (it
    // was every covered term once), so the cards are chosen from `scores`, greedily: "engine",
    // then the card that covers most of the clues left.
    let c = open(db());
    let mut covers: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    let mut st = c
        .prepare(
            "SELECT s.clue, o.term FROM scores s \
             JOIN scores o ON o.clue = s.clue AND o.term <> 'jet' AND o.score >= s.score \
             JOIN terms t ON t.term = o.term AND t.covered = 1 \
             WHERE s.term = 'jet'",
        )
        .unwrap();
    for row in st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap()
    {
        let (clue, card) = row.unwrap();
        covers.entry(clue).or_default().insert(card);
    }
    assert!(covers.len() >= 100, "{} clues of jet", covers.len());
    let mut neg = vec!["engine".to_string()];
    covers.retain(|_, cards| !cards.contains("engine"));
    while !covers.is_empty() {
        let mut count: std::collections::BTreeMap<&String, usize> = Default::default();
        for card in covers.values().flatten() {
            *count.entry(card).or_default() += 1;
        }
        let best = count
            .iter()
            .max_by_key(|(card, n)| (**n, std::cmp::Reverse(**card)))
            .map(|(card, _)| (*card).clone())
            .unwrap();
        covers.retain(|_, cards| !cards.contains(&best));
        neg.push(best);
    }
    assert!(neg.len() <= 24, "{} cards to avoid: {neg:?}", neg.len());
    let neg = neg.join(",");
    // threshold by name: it is no longer the default.
    let run = suggest("jet", &neg, &["--strategy", "threshold", "--json"]).ok();
    assert_eq!(
        run.stdout,
        "{\"clue\":null,\"count\":0,\"targets\":[],\"score\":0.0,\"strategy\":\"threshold\",\"alternatives\":[],\"warnings\":[\"no safe clue: every candidate scores at least as high with a card to avoid\"]}\n"
    );
    let text = suggest("jet", &neg, &["--strategy", "threshold"]).ok();
    assert_eq!(
        text.stdout,
        "no safe clue for jet (strategy threshold): every candidate scores at least as high with a card to avoid\n"
    );
    assert!(!text.stderr.contains("no safe clue"), "{}", text.stderr);
}

#[test]
fn suggest_errors() {
    // A card word the database does not know is a warning, not an error (issue 14: a real
    // board is never refused): named on stderr with the closest words it knows, exit 0.
    // threshold knows the covered terms only: "mouse" is not one, but the database knows it,
    // so it is said to be not covered (not taken for a typo); "hrose" is a typo.
    let run = suggest("apple,mouse,hrose", "fire", &["--strategy", "threshold"]).ok();
    assert!(
        run.stderr.contains(
            "warning: \"mouse\" is not covered by the threshold strategy (it scores only the \
             card words with pages of their own; relatedness, the default, knows it)"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("warning: \"hrose\" is not a word the database knows (closest: "),
        "{}",
        run.stderr
    );
    let offered = run
        .stderr
        .split("(closest: ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("no suggestions in {}", run.stderr));
    let offered: Vec<&str> = offered.trim().split(", ").collect();
    // A swap of two letters is one edit: `horse` comes first, before words two edits away.
    assert_eq!(offered.first(), Some(&"horse"), "{offered:?}");
    let c = open(db());
    for t in &offered {
        assert_eq!(
            count(
                &c,
                &format!("SELECT count(*) FROM terms WHERE covered = 1 AND term = '{t}'")
            ),
            1,
            "offered {t:?} is not covered"
        );
    }
    // A typo gets the word meant; alone in --pos it leaves no target: no clue, still exit 0.
    let run = suggest("aple", "", &[]).ok();
    assert!(
        run.stderr.contains("\"aple\"") && run.stderr.contains("apple"),
        "{}",
        run.stderr
    );
    // ... and says why: no team word is known, not that every clue is unsafe (once, on stdout).
    assert!(
        run.stdout.starts_with(
            "no clue for aple (strategy relatedness): no word of the team is one the strategy can score as a card"
        ),
        "{}",
        run.stdout
    );
    assert!(
        !run.stderr.contains("no word of the team"),
        "{}",
        run.stderr
    );
    // A word in --neg is checked too.
    let run = suggest("apple", "fire,qzxv", &[]).ok();
    assert!(run.stderr.contains("\"qzxv\""), "{}", run.stderr);
    // One card, two colours.
    let run = suggest("apple,fire", "fire,ice", &[]).failed();
    assert!(run.stderr.contains("\"fire\""), "{}", run.stderr);
    let run = query(&["suggest", "--pos", "apple", "--assassin", "apple"]).failed();
    assert!(run.stderr.contains("\"apple\""), "{}", run.stderr);
    // No team words.
    for empty in ["", " , "] {
        let run = suggest(empty, "fire", &[]).failed();
        assert!(run.stderr.contains("--pos"), "{}", run.stderr);
    }
    // No database.
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("missing.sqlite");
    let run = clue_db(["suggest", "--pos", "apple", "--db", utf8(&gone)]).failed();
    assert!(run.stderr.contains(utf8(&gone)), "{}", run.stderr);
    assert!(!gone.exists(), "suggest created {}", gone.display());
    // Not a clue-db database.
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, "not sqlite at all").unwrap();
    let run = clue_db(["suggest", "--pos", "apple", "--db", utf8(&junk)]).failed();
    assert!(run.stderr.contains("junk.sqlite"), "{}", run.stderr);
    // An unknown strategy.
    let run = suggest("apple", "fire", &["--strategy", "magic"]).failed();
    assert!(run.stderr.contains("magic"), "{}", run.stderr);
    // A directory for a database.
    let run = clue_db(["suggest", "--pos", "apple", "--db", utf8(dir.path())]).failed();
    assert!(run.stderr.contains("is a directory"), "{}", run.stderr);
    // guess: a card twice, a floor that is no score, a clue of two words.
    let run = query(&[
        "guess",
        "--clue",
        "fruit",
        "--count",
        "1",
        "--board",
        "apple,Apple",
    ]);
    assert!(run.failed().stderr.contains("twice"));
    for floor in ["--floor=NaN", "--floor=-1"] {
        let run = query(&[
            "guess", "--clue", "fruit", "--count", "1", "--board", "apple", floor,
        ])
        .failed();
        assert!(run.stderr.contains("--floor"), "{}", run.stderr);
    }
    for clue in ["", "two words"] {
        let run = query(&["explain", clue, "apple"]).failed();
        assert!(run.stderr.contains("not a clue"), "{}", run.stderr);
    }
}

/// Cards as people type them: any case, multi-word cards with a space or a hyphen.
#[test]
fn suggest_reads_cards_as_typed() {
    use query::legality::Lexicon;
    use query::store_knowledge::TextLexicon;
    let typed = suggest(
        "Loch-Ness, NEW YORK",
        "Fire",
        &["--assassin", "OPERA", "--json"],
    )
    .ok()
    .json();
    let plain = suggest(
        "loch ness,new york",
        "fire",
        &["--assassin", "opera", "--json"],
    )
    .ok()
    .json();
    assert_eq!(typed, plain);
    let board = ["loch ness", "new york", "fire", "opera"];
    check_suggestion(&plain, &["loch ness", "new york"], &board);
    // The lexicon the CLI uses: no clue is a stopword or an inflection of a card's word.
    let clue = plain["clue"].as_str().unwrap();
    for s in std::iter::once(&plain).chain(plain["alternatives"].as_array().unwrap()) {
        let clue = s["clue"].as_str().unwrap();
        assert!(!TextLexicon.is_stopword(clue), "{clue}");
        for w in board.iter().flat_map(|w| w.split(' ')) {
            assert!(!TextLexicon.is_inflection_of(clue, w), "{clue} / {w}");
        }
    }
    assert!(!clue.is_empty());
}

#[test]
fn explain_shows_the_evidence() {
    let c = open(db());
    // (page id, page title, count, excerpt, direction) of fruit/apple in the database.
    let (page_id, title, n, excerpt, direction): (i64, String, i64, Option<String>, String) = c
        .query_row(
            "SELECT s.page_id, p.title, s.count, s.excerpt, s.direction FROM scores s \
             JOIN pages p ON p.id = s.page_id WHERE s.clue = 'fruit' AND s.term = 'apple'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    let excerpt = excerpt.expect("fruit/apple has an excerpt");
    assert!(word_in(&excerpt, "apple"), "{excerpt}");
    // qzxvclue is a word the database does not know: a warning naming it, no evidence, exit 0.
    let run = query(&["explain", "fruit", "apple", "qzxvclue"]).ok();
    assert!(
        run.stderr.contains("warning") && run.stderr.contains("\"qzxvclue\""),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("fruit -> qzxvclue: no evidence"),
        "{}",
        run.stdout
    );
    let v = query(&["explain", "fruit", "qzxvclue", "--json"])
        .ok()
        .json();
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1, "{v}");
    for f in ["evidence", "relatedness", "meeting", "definition_raise"] {
        assert!(v["terms"][0][f].is_null(), "{v}");
    }
    // So is a clue that is no clue word: nothing relates to it.
    let run = query(&["explain", "qzxvclue", "apple"]).ok();
    assert!(run.stderr.contains("no clue word"), "{}", run.stderr);

    let run = query(&["explain", "fruit", "apple", "fire"]).ok();
    let apple_line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("fruit -> apple:"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(apple_line.contains(&format!("{title:?}")), "{apple_line}");
    assert!(
        apple_line.contains(&format!("id {page_id}")),
        "{apple_line}"
    );
    assert!(
        apple_line.contains(&format!("counted {n} time(s)")),
        "{apple_line}"
    );
    assert!(run.stdout.contains(&excerpt), "{}", run.stdout);
    assert_eq!(run.stderr, "", "no warning for known words");
    // The relatedness evidence, after the scores': the score and what it is made of, then the
    // page where the two words meet most, with a sentence of it.
    let (rel, ppmi, cosine, cooc): (f64, f64, f64, i64) = c
        .query_row(
            "SELECT score, ppmi, cosine, cooccurrences FROM relatedness \
             WHERE term = 'apple' AND clue = 'fruit'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    let (meet_id, meet_title, meetings, meet_excerpt): (i64, String, i64, String) = c
        .query_row(
            "SELECT e.page_id, p.title, e.meetings, e.excerpt FROM relatedness_evidence e \
             JOIN pages p ON p.id = e.page_id WHERE e.term = 'apple' AND e.clue = 'fruit'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert!(word_in(&meet_excerpt, "apple") && word_in(&meet_excerpt, "fruit"));
    let apple_block: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("fruit -> apple:"))
        .take_while(|l| l.starts_with("fruit -> apple:") || l.starts_with("    "))
        .collect();
    let rel_line = format!(
        "    relatedness {rel:.3} (PPMI {ppmi:.3}, cosine {cosine:.3}, {cooc} co-occurrence(s))"
    );
    assert!(apple_block.contains(&rel_line.as_str()), "{apple_block:?}");
    // Both of apple's senses (the fruit; the tree grown "for its edible fruits") name fruit in
    // WordNet: the score holds the whole raise by its definition, 2 (db/README.md, 6b).
    assert!(
        apple_block.contains(
            &"    of which 2.000 is the raise by apple's dictionary definition, which names fruit"
        ),
        "{apple_block:?}"
    );
    let meet_line =
        format!("    they meet most on page {meet_title:?} (id {meet_id}, {meetings} time(s))");
    assert!(apple_block.contains(&meet_line.as_str()), "{apple_block:?}");
    assert!(
        apple_block.contains(&format!("    \"{meet_excerpt}\"").as_str()),
        "{apple_block:?}"
    );
    let fire = score(&c, "fruit", "fire");
    let fire_line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("fruit -> fire:"))
        .unwrap();
    assert_eq!(
        fire.is_none(),
        fire_line.contains("no evidence"),
        "{fire_line}"
    );

    let v = query(&["explain", "fruit", "apple", "fire", "--json"])
        .ok()
        .json();
    assert_eq!(v["clue"], "fruit");
    let terms = v["terms"].as_array().unwrap();
    assert_eq!(terms.len(), 2);
    assert_eq!(terms[0]["term"], "apple");
    let e = &terms[0]["evidence"];
    assert_eq!(e["page_title"], title.as_str());
    assert_eq!(e["page_id"], page_id);
    assert_eq!(e["count"], n);
    assert_eq!(e["excerpt"], excerpt.as_str());
    assert_eq!(e["direction"], direction.as_str());
    let stored = score(&c, "fruit", "apple").unwrap();
    assert!((e["score"].as_f64().unwrap() - stored).abs() < 1e-12);
    assert!(e["pagerank"].as_f64().unwrap() > 0.0);
    assert_eq!(terms[1]["term"], "fire");
    assert_eq!(terms[1]["evidence"].is_null(), fire.is_none());
    let raise = terms[0]["definition_raise"].as_f64().unwrap();
    assert!((raise - 2.0).abs() < 0.01, "{raise}");
    assert!(
        terms[1]["definition_raise"].is_null(),
        "fire's definition names no fruit"
    );
    assert!(!run.stdout.contains("raise by fire's"), "{}", run.stdout);
    // The new fields: relatedness and the meeting place, for every card word.
    let r = &terms[0]["relatedness"];
    assert!((r["score"].as_f64().unwrap() - rel).abs() < 1e-12, "{r}");
    assert!((r["ppmi"].as_f64().unwrap() - ppmi).abs() < 1e-12, "{r}");
    assert!(
        (r["cosine"].as_f64().unwrap() - cosine).abs() < 1e-12,
        "{r}"
    );
    assert_eq!(r["cooccurrences"], cooc);
    let m = &terms[0]["meeting"];
    assert_eq!(m["page_id"], meet_id);
    assert_eq!(m["page_title"], meet_title.as_str());
    assert_eq!(m["meetings"], meetings);
    assert_eq!(m["excerpt"], meet_excerpt.as_str());
    assert!(terms[1]["relatedness"]["score"].is_number(), "{v}");
    assert_eq!(v["warnings"], serde_json::json!([]));
}

fn word_in(text: &str, word: &str) -> bool {
    crate::common::word_count(text, word) > 0
}

/// `clue-db guess --json` for `clue` on `board`: (word, score) pairs, from the object
/// `/api/guess` answers too: `{"clue", "guesses", "warnings"}`, in that order.
fn guesses(clue: &str, n: &str, board: &[&str]) -> Vec<(String, f64)> {
    let run = query(&[
        "guess",
        "--clue",
        clue,
        "--count",
        n,
        "--board",
        &board.join(","),
        "--json",
    ])
    .ok();
    let top: Vec<String> = keys_in_order(&run.stdout)
        .into_iter()
        .filter(|k| k != "word" && k != "score")
        .collect();
    assert_eq!(top, ["clue", "guesses", "warnings"], "{}", run.stdout);
    let v = run.json();
    assert_eq!(v["clue"], clue.to_lowercase(), "{v}");
    v["guesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            assert_eq!(keys(g), BTreeSet::from(["score", "word"]));
            (
                g["word"].as_str().unwrap().to_string(),
                g["score"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Best first, ties alphabetically.
fn best_first(v: &mut [(String, f64)]) {
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

#[test]
fn guess_ranks_the_board() {
    let c = open(db());
    let board = ["apple", "lemon", "fire", "ice", "war", "olive"];
    // "fruit" is a clue word of the relatedness: the expected order is how each card reads it
    // (the reading: its PPMI shrunk by its meetings and its cosine, from `relatedness`, each
    // standardised by the scales in `meta`, mixed equally and standardised again), best first,
    // ties alphabetically (no floor: the reading is standardised, a guesser takes the best cards
    // whatever their level).
    let m = |key: &str| -> f64 {
        let v: String = c
            .query_row(
                "SELECT value FROM meta WHERE key = ?1",
                [format!("relatedness.reading_{key}")],
                |r| r.get(0),
            )
            .unwrap();
        v.parse().unwrap()
    };
    let mut expected: Vec<(String, f64)> = board
        .iter()
        .map(|w| {
            let (ppmi, cosine, n): (f64, f64, f64) = c
                .query_row(
                    "SELECT ppmi, cosine, cooccurrences FROM relatedness
                     WHERE term = ?1 AND clue = 'fruit'",
                    [w],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .unwrap();
            let shrunk = ppmi * n / (n + 20.0);
            let z = |x: f64, k: &str| (x - m(&format!("{k}_mean"))) / m(&format!("{k}_std"));
            let x = z(0.5 * z(shrunk, "ppmi") + 0.5 * z(cosine, "cosine"), "mix");
            (w.to_string(), x)
        })
        .collect();
    best_first(&mut expected);
    let words = |v: &[(String, f64)]| v.iter().map(|g| g.0.clone()).collect::<Vec<_>>();
    assert_eq!(words(&guesses("fruit", "1", &board)), words(&expected[..1]));
    assert_eq!(words(&guesses("fruit", "2", &board)), words(&expected[..2]));
    let all = guesses("fruit", "0", &board);
    assert_eq!(words(&all), words(&expected));
    for (g, e) in all.iter().zip(&expected) {
        // The guesser reads in f32.
        assert!((g.1 - e.1).abs() < 1e-4, "{g:?} vs {e:?}");
    }
    // The three fruits first.
    let mut top3 = words(&all[..3]);
    top3.sort();
    assert_eq!(top3, ["apple", "lemon", "olive"]);
    // The text form: one `word<TAB>score` line per guess.
    let text = query(&[
        "guess",
        "--clue",
        "fruit",
        "--count",
        "2",
        "--board",
        &board.join(","),
    ])
    .ok();
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", text.stdout);
    assert!(
        lines[0].starts_with(&format!("{}\t", expected[0].0)),
        "{}",
        text.stdout
    );
    // A word the database does not know: a warning, never guessed, exit 0.
    let run = query(&[
        "guess",
        "--clue",
        "fruit",
        "--count",
        "0",
        "--board",
        "qzxvword,apple",
        "--json",
    ])
    .ok();
    assert!(run.stderr.contains("\"qzxvword\""), "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["guesses"].as_array().unwrap().len(), 1, "{v}");
    // The JSON carries the warning stderr says.
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v}");
    assert!(
        run.stderr
            .contains(&format!("warning: {}", warnings[0].as_str().unwrap())),
        "{}",
        run.stderr
    );
    // A clue the database has no word for: nothing is guessed, and it says why.
    let v = query(&[
        "guess",
        "--clue",
        "xyzzy",
        "--count",
        "2",
        "--board",
        "apple,lemon",
        "--json",
    ])
    .ok()
    .json();
    assert_eq!(
        v,
        serde_json::json!({"clue": "xyzzy", "guesses": [], "warnings": [
            "\"xyzzy\" is no clue word of the database: nothing relates to it"
        ]})
    );
    // Another written form of a clue word (`clue_forms`: `cultivar` for `cultivars`) is read
    // as that clue word.
    let (form, word): (String, String) = c
        .query_row(
            "SELECT form, clue FROM clue_forms WHERE form = 'cultivar' OR form = 'fruits' LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        guesses(&form, "0", &board),
        guesses(&word, "0", &board),
        "{form}"
    );
    // A clue of `scores` that is no clue word of the relatedness, nor a form of one: the cards
    // rank by their stored score, cut at the floor (default 0.01).
    let clue: String = c
        .query_row(
            "SELECT clue FROM scores WHERE term = 'apple' \
             AND clue NOT IN (SELECT word FROM clue_words) \
             AND clue NOT IN (SELECT form FROM clue_forms) ORDER BY score DESC, clue LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let mut expected: Vec<(String, f64)> = board
        .iter()
        .map(|w| (w.to_string(), score(&c, &clue, w).unwrap_or(0.0)))
        .filter(|(_, s)| *s >= 0.01)
        .collect();
    best_first(&mut expected);
    assert!(
        expected.iter().any(|e| e.0 == "apple"),
        "{clue}: {expected:?}"
    );
    let got = guesses(&clue, "0", &board);
    assert_eq!(words(&got), words(&expected), "{clue}");
    for (g, e) in got.iter().zip(&expected) {
        assert!((g.1 - e.1).abs() < 1e-12, "{g:?} vs {e:?}");
    }
}

#[test]
fn play_is_deterministic() {
    use query::legality::Legality;
    use query::store_knowledge::TextLexicon;
    let c = open(db());
    for strategy in ["relatedness", "threshold", "herfindahl", "setnet"] {
        let play = |seed: &str, json: bool| {
            let mut args = vec!["play", "--seed", seed, "--strategy", strategy];
            if json {
                args.push("--json");
            }
            query(&args).ok().stdout
        };
        // The same seed prints the same game, text and JSON; another seed another game.
        let first = play("3", false);
        assert!(first.starts_with("game seed 3"), "{first}");
        assert_eq!(first, play("3", false), "{strategy}: seed 3 twice");
        assert_ne!(first, play("4", false), "{strategy}: seeds 3 and 4");
        let raw = play("3", true);
        assert_eq!(raw, play("3", true), "{strategy}: seed 3 twice, JSON");
        let v: Value = serde_json::from_str(&raw).unwrap();
        let other: Value = serde_json::from_str(&play("4", true)).unwrap();
        assert_eq!(v["seed"], 3);
        assert_ne!(v["board"], other["board"]);
        // A 9/8/7/1 board of distinct card words, each with relatedness (every listed card
        // word has it: boards are drawn from all of them, whatever the strategy).
        let cards = v["board"]["cards"].as_array().unwrap();
        assert_eq!(cards.len(), 25);
        let roles = |r: &str| cards.iter().filter(|c| c["role"] == r).count();
        assert_eq!(
            [
                roles("red"),
                roles("blue"),
                roles("bystander"),
                roles("assassin")
            ],
            [9, 8, 7, 1]
        );
        let words: BTreeSet<&str> = cards.iter().map(|c| c["word"].as_str().unwrap()).collect();
        assert_eq!(words.len(), 25);
        for w in &words {
            assert_eq!(
                count(
                    &c,
                    &format!("SELECT count(*) FROM relatedness_vectors WHERE term = '{w}'")
                ),
                1,
                "{w} has no relatedness"
            );
        }
        // Every clue is legal on the board it was given for (the cards not yet revealed), by
        // the rules and lexicon the CLI uses; no clue is given twice.
        let mut on_board: BTreeSet<&str> = words.clone();
        let mut given = BTreeSet::new();
        for t in v["turns"].as_array().unwrap() {
            if let Some(clue) = t["clue"]["clue"].as_str() {
                let unrevealed: Vec<&str> = on_board.iter().copied().collect();
                let rules = Legality::new(&unrevealed, &TextLexicon);
                assert_eq!(rules.check(clue), Ok(()), "{strategy}: {clue}");
                assert!(given.insert(clue.to_string()), "{strategy}: {clue} twice");
            }
            for r in t["revealed"].as_array().unwrap() {
                on_board.remove(r[0].as_str().unwrap());
            }
            if let Some(o) = t["opponent"].as_str() {
                on_board.remove(o);
            }
        }
        assert!(!given.is_empty(), "{strategy} gave no clue: {v}");
    }
}

#[test]
fn eval_reports_both_strategies() {
    let v = query(&["eval", "--games", "5", "--seed", "1", "--json"])
        .ok()
        .json();
    assert_eq!(
        v["note"], "our spymaster with our own guesser: optimistic figures",
        "{v}"
    );
    assert_eq!(
        (v["games"].as_u64(), v["seed"].as_u64()),
        (Some(5), Some(1))
    );
    let reports = v["strategies"].as_array().unwrap_or_else(|| panic!("{v}"));
    let names: Vec<&str> = reports
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["relatedness", "threshold", "herfindahl"]);
    for r in reports {
        assert_eq!(r["guesser"], "own", "{r}");
        for f in [
            "win_rate",
            "mean_turns",
            "assassin_rate",
            "mean_clue_number",
            "net_per_clue",
        ] {
            assert!(r[f].is_number(), "{f} missing in {r}");
        }
        assert_eq!(r["games"], 5);
        let rate = |f: &str| r[f].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate("win_rate")), "{r}");
        assert!((0.0..=1.0).contains(&rate("assassin_rate")), "{r}");
        // Five games: rates are multiples of 1/5.
        assert!(((rate("win_rate") * 5.0).round() - rate("win_rate") * 5.0).abs() < 1e-9);
        assert!(rate("mean_turns") >= 1.0, "{r}");
        let clues = rate("clues");
        assert!(clues > 0.0, "{r}");
        assert!(rate("mean_clue_number") >= 1.0, "{r}");
        let net = (rate("correct") - rate("incorrect")) / clues;
        assert!((rate("net_per_clue") - net).abs() < 1e-9, "{r}");
        // Every strategy gives clues the guesser can follow: more right cards than wrong.
        assert!(rate("net_per_clue") > 0.0, "{r}");
    }
    let run = query(&["eval", "--games", "0"]).failed();
    assert!(
        run.stderr.contains("--games") && run.stderr.contains("1..=100000"),
        "{}",
        run.stderr
    );
    // The text form says the figures are optimistic (our spymaster with our own guesser).
    let text = query(&["eval", "--games", "1", "--seed", "1"]).ok();
    assert!(text.stdout.contains("optimistic"), "{}", text.stdout);
    for name in [
        "relatedness",
        "threshold",
        "herfindahl",
        "win rate",
        "net/clue",
    ] {
        assert!(text.stdout.contains(name), "{}", text.stdout);
    }
    // A strategy named twice, in any case, plays once (it played every game twice and printed
    // two rows); an empty entry is skipped, and a list of none is refused.
    let v = query(&[
        "eval",
        "--games",
        "1",
        "--strategies",
        "relatedness,Relatedness,",
        "--json",
    ])
    .ok()
    .json();
    let names: Vec<&str> = v["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["relatedness"], "{v}");
    let run = query(&["eval", "--games", "1", "--strategies", " , "]).failed();
    assert!(
        run.stderr.contains("--strategies is empty"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // `clue-db … | head -1`: the reader goes away; the command stops without a panic, with
    // success, and says nothing.
    let runs: [&[&str]; 9] = [
        &["suggest", "--pos", "apple,lemon", "--neg", "fire"],
        &["suggest", "--pos", "apple,lemon", "--neg", "fire", "--json"],
        &["eval", "--games", "1"],
        &["eval", "--games", "1", "--json"],
        &["play", "--seed", "3"],
        &["explain", "fruit", "apple"],
        &[
            "guess",
            "--clue",
            "fruit",
            "--count",
            "0",
            "--board",
            "apple,lemon",
        ],
        &["info"],
        &["bench-suggest", "--print-boards", "3"],
    ];
    for args in runs {
        let mut all = args.to_vec();
        all.extend(["--db", utf8(db())]);
        let run = clue_db_unread(&all);
        // Notes said before any output (the cards a strategy does not cover, left out of
        // eval's boards) are not about the closed stdout.
        let said: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| !l.starts_with("clue-db: note: "))
            .collect();
        assert!(
            run.code == Some(0) && said.is_empty(),
            "{args:?}: exit {:?}, stderr:\n{}",
            run.code,
            run.stderr
        );
    }
}

#[test]
fn option_checks() {
    // --top 0 would print nothing: refused, with the range.
    let run = suggest("apple", "fire", &["--top", "0"]).failed();
    assert!(
        run.stderr.contains("--top") && run.stderr.contains("from 1 to 100"),
        "{}",
        run.stderr
    );
    // bench-suggest --boards 0: refused before any table header.
    let run = query(&["bench-suggest", "--boards", "0"]).failed();
    assert!(run.stderr.contains("--boards"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    // An assassin option with no word in it.
    for empty in [" , ", ""] {
        let run = query(&["suggest", "--pos", "apple", "--assassin", empty]).failed();
        assert!(
            run.stderr.contains("--assassin") && run.stderr.contains("is empty"),
            "{}",
            run.stderr
        );
    }
    // guess: a card is never its own clue, whatever its case, nor a word of a multi-word card.
    for (clue, card) in [("Apple", "apple"), ("ness", "loch ness")] {
        let run = query(&[
            "guess",
            "--clue",
            clue,
            "--count",
            "1",
            "--board",
            "apple,lemon,loch ness",
        ])
        .failed();
        assert!(
            run.stderr.contains("board word") && run.stderr.contains(&format!("{card:?}")),
            "{}",
            run.stderr
        );
    }
    // The margins: documented with their defaults (per strategy for the assassin's), refused
    // when they are no margin.
    let help = clue_db(["suggest", "--help"]).ok();
    let help = help.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    for flag in [
        "--assassin-margin",
        "--opponent-margin",
        "--neutral-margin",
        "--neutral",
        "--given",
        "--rank-by",
        "--board-beta",
        "--board-assassin-weight",
        "--board-assassin-beta",
    ] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
    use query::relatedness as r;
    for default in [
        format!("relatedness {:.1}", r::DEFAULT_ASSASSIN_MARGIN),
        format!("herfindahl {}", query::threshold::DEFAULT_ASSASSIN_MARGIN),
        format!("(default {:.1})", r::DEFAULT_OPPONENT_MARGIN),
        format!("(default {:.1})", r::DEFAULT_NEUTRAL_MARGIN),
    ] {
        assert!(help.contains(&default), "{default}: {help}");
    }
    for bad in [
        "--assassin-margin=-1",
        "--assassin-margin=NaN",
        "--opponent-margin=-1",
        "--neutral-margin=inf",
        "--board-beta=-1",
        "--board-assassin-weight=NaN",
        "--board-assassin-beta=-0.5",
        "--rank-by=luck",
    ] {
        for cmd in [
            &["suggest", "--pos", "apple"][..],
            &["eval", "--games", "1"],
            &["play"],
        ] {
            let mut args = cmd.to_vec();
            args.push(bad);
            let run = query(&args).failed();
            let flag = bad.split('=').next().unwrap();
            assert!(run.stderr.contains(flag), "{args:?}: {}", run.stderr);
        }
    }
    // The board model's parameters are refused with the ranking by safety, which has none.
    let run = query(&[
        "suggest",
        "--pos",
        "apple",
        "--rank-by",
        "safety",
        "--board-beta",
        "1",
    ])
    .failed();
    assert!(run.stderr.contains("--board-beta"), "{}", run.stderr);
}

#[test]
fn the_assassin_margin_is_the_bar() {
    // "city" scores 1.0 with new york and 0.97 with egypt: how far the assassin must stay
    // behind decides whether it is a clue. Every target clears the bar with the margin given,
    // and threshold takes every card that does.
    let c = open(db());
    let (pos, assassin) = (["new york", "apple"], "egypt");
    let mut answers = Vec::new();
    for margin in ["0", "0.5"] {
        for strategy in ["threshold", "herfindahl"] {
            let v = query(&[
                "suggest",
                "--pos",
                &pos.join(","),
                "--assassin",
                assassin,
                "--strategy",
                strategy,
                "--assassin-margin",
                margin,
                "--top",
                "10",
                "--json",
            ])
            .ok()
            .json();
            let m: f64 = margin.parse().unwrap();
            for s in std::iter::once(&v).chain(v["alternatives"].as_array().unwrap()) {
                let Some(clue) = s["clue"].as_str() else {
                    continue;
                };
                let bar = bar(&c, clue, &[], assassin, m);
                let targets = targets(s);
                for p in pos {
                    let sc = score(&c, clue, p).unwrap_or(0.0);
                    if targets.contains(&p) {
                        assert!(sc > bar, "{strategy} {margin}: {clue}/{p} {sc} <= {bar}");
                    } else if strategy == "threshold" {
                        assert!(sc <= bar, "{strategy} {margin}: {clue}/{p} {sc} > {bar}");
                    }
                }
            }
            answers.push((strategy, margin, v));
        }
    }
    // The margin changes threshold's answer on this board.
    assert_ne!(
        answers[0].2, answers[2].2,
        "threshold: margin 0 and 0.5 agree"
    );
}

/// A margin no clue clears is relaxed in steps rather than leave the board without a clue;
/// one a person set was relaxed in silence (`--assassin-margin 100` answered as a small one).
/// Now the answer says so, naming the margins set (not those of 0, which cannot be relaxed) and
/// how much of them the clue's cards clear; margins the clue clears, and the defaults, say
/// nothing.
#[test]
fn a_margin_set_and_relaxed_is_said() {
    let said = |extra: &[&str], strategy: &str| -> Vec<String> {
        let mut args = vec![
            "suggest",
            "--pos",
            "new york,apple",
            "--neg",
            "moon",
            "--assassin",
            "egypt",
            "--strategy",
            strategy,
            "--json",
        ];
        args.extend_from_slice(extra);
        let v = query(&args).ok().json();
        assert!(v["clue"].is_string(), "{v}");
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .filter(|w| w.starts_with("no clue clears the margins set"))
            .collect()
    };
    for strategy in ["relatedness", "setnet"] {
        let w = said(&["--assassin-margin", "100"], strategy);
        assert!(
            w.len() == 1 && w[0].contains("(assassin 100): the clue's targets "),
            "{strategy}: {w:?}"
        );
        let w = said(
            &["--opponent-margin", "100", "--neutral-margin", "0"],
            strategy,
        );
        assert!(w.len() == 1 && w[0].contains("(opponent 100)"), "{w:?}");
        assert_eq!(said(&[], strategy), Vec::<String>::new(), "{strategy}");
        let zero = [
            "--opponent-margin",
            "0",
            "--neutral-margin",
            "0",
            "--assassin-margin",
            "0",
        ];
        assert_eq!(said(&zero, strategy), Vec::<String>::new(), "{strategy}");
        // A margin set to 0 is none to relax: the defaults' relaxing is not the person's.
        let w = said(
            &["--neutral-margin", "0", "--assassin-margin", "100"],
            strategy,
        );
        assert!(w.len() == 1 && w[0].contains("(assassin 100)"), "{w:?}");
    }
}

/// Issue 46, item 4: `suggest --top 18446744073709551615` panicked ("capacity overflow", exit
/// 101) and `--top 4000000000` asked for 32 GB; `--board-beta 0` or 100 answered as if every
/// clue tied. Every number of the query commands has a range, said in `--help` and checked as
/// the flag is read: a value outside is refused naming the flag and the range, before the
/// database is opened.
#[test]
fn numbers_outside_their_documented_range_are_refused_naming_flag_and_range() {
    for (args, flag, range) in [
        (
            &["suggest", "--pos", "apple", "--top", "18446744073709551615"][..],
            "--top",
            "from 1 to 100",
        ),
        (
            &["suggest", "--pos", "apple", "--top", "4000000000"],
            "--top",
            "from 1 to 100",
        ),
        (
            &["suggest", "--pos", "apple", "--top", "101"],
            "--top",
            "from 1 to 100",
        ),
        (
            &["suggest", "--pos", "apple", "--board-beta", "0"],
            "--board-beta",
            "at most 10",
        ),
        (
            &["suggest", "--pos", "apple", "--board-beta", "100"],
            "--board-beta",
            "at most 10",
        ),
        (
            &["play", "--board-assassin-beta", "11"],
            "--board-assassin-beta",
            "from 0 to 10",
        ),
        (
            &["play", "--board-assassin-weight", "1e9"],
            "--board-assassin-weight",
            "from 0 to 100",
        ),
        (
            &["eval", "--assassin-margin", "101"],
            "--assassin-margin",
            "from 0 to 100",
        ),
        (&["eval", "--games", "100001"], "--games", "1..=100000"),
        (
            &[
                "eval",
                "--games",
                "1",
                "--turns",
                "/dev/null",
                "--alternatives",
                "18446744073709551615",
            ],
            "--alternatives",
            "0..=20",
        ),
        (
            &[
                "guess", "--clue", "fruit", "--board", "apple", "--count", "26",
            ],
            "--count",
            "from 0 to 25",
        ),
        (
            &[
                "guess", "--clue", "fruit", "--board", "apple", "--count", "1", "--floor", "2",
            ],
            "--floor",
            "from 0 to 1",
        ),
        (
            &["bench-suggest", "--print-boards", "18446744073709551615"],
            "--print-boards",
            "1..=1000000",
        ),
    ] {
        let run = query(args).failed();
        assert!(
            run.stderr.contains(flag) && run.stderr.contains(range),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "{args:?}");
    }
    // The ranges are in --help.
    for (cmd, said) in [
        ("suggest", &["1 to 100", "0 to 100", "at most 10"][..]),
        ("guess", &["0 to 25", "0 to 1"]),
        ("eval", &["1 to 100000", "0 to 20", "2^64"]),
        ("play", &["2^64", "0 to 10"]),
    ] {
        let help = clue_db([cmd, "--help"]).ok().stdout;
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for s in said {
            assert!(help.contains(s), "{cmd} --help: no {s:?}");
        }
    }
    // The ends of each range are taken.
    query(&[
        "suggest",
        "--pos",
        "apple,water",
        "--top",
        "100",
        "--board-beta",
        "10",
    ])
    .ok();
}

/// Issue 46, item 7: `explain QQQ… apple` and `guess --clue QQQ…` printed a 15,000-letter clue
/// whole (it is a word of letters), as did an unknown `--strategy` (clap's message) and a long
/// card in `explain`'s lines. A clue is at most 64 letters, as the API takes it; every word a
/// message names is cut to its start and its length.
#[test]
fn long_words_typed_are_never_echoed_whole() {
    let long = "q".repeat(15_000);
    for args in [
        &["explain", &long, "apple"][..],
        &[
            "guess",
            "--clue",
            &long,
            "--count",
            "1",
            "--board",
            "apple,water",
        ],
        &["suggest", "--pos", "apple", "--strategy", &long],
        &["play", "--strategy", &long],
        &["eval", "--games", "1", "--strategies", &long],
        &["eval", "--games", "1", "--guesser", &long],
    ] {
        let run = query(args).failed();
        assert!(
            run.stdout.len() + run.stderr.len() < 1_000
                && run.stderr.contains("(15000 characters)"),
            "{:?}: {} bytes: {}",
            &args[..2],
            run.stderr.len(),
            run.stderr.chars().take(300).collect::<String>()
        );
    }
    // A long card in explain: warned of, and its line cut, both by its start and length.
    let run = query(&["explain", "fruit", &long]).ok();
    assert!(
        run.stdout.len() + run.stderr.len() < 2_000,
        "{} + {} bytes",
        run.stdout.len(),
        run.stderr.len()
    );
    assert!(run.stdout.contains("(15000 characters)"), "{}", run.stdout);
}

/// Every option of the query commands says in `--help` what it is, for users: `--json`,
/// `--db` and `play --strategy` once showed a bare name, and `guess --floor` spoke of "the
/// seed-003 scores", a name from the project's history.
#[test]
fn every_option_of_the_query_commands_has_help() {
    for cmd in ["suggest", "explain", "guess", "play", "eval"] {
        let help = clue_db([cmd, "--help"]).ok().stdout;
        let lines: Vec<&str> = help.lines().map(str::trim).collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.starts_with("--") {
                continue;
            }
            // `--flag <VALUE>  What it is`, or (long help) the text on the lines below; a
            // default alone (`--db <DB>  [default: …]`) is no help.
            let said = |t: &str| !t.is_empty() && !t.starts_with('-') && !t.starts_with("[default");
            let inline = line.split_once("  ").map_or("", |(_, t)| t.trim());
            let below = lines.get(i + 1).copied().unwrap_or("");
            assert!(
                said(inline) || (inline.is_empty() && said(below)),
                "{cmd} --help: {line:?} has no help"
            );
        }
        assert!(!help.contains("seed-003"), "{cmd} --help: {help}");
    }
}
