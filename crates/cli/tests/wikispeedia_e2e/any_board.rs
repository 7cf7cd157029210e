//! Any board a person brings (issue 45): a Codenames Duet board, words typed by hand that no
//! list names (scored from the stored vectors), an unknown word still a warning, and boards
//! drawn from a word list (`eval --words`, `play --words`).

use crate::common::{Run, clue_db, open, utf8};
use crate::lists_db as db;
use serde_json::Value;

/// `clue-db CMD ARGS… --db DB` on the database `make pipeline` builds.
fn query(args: &[&str]) -> Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", utf8(db())]);
    clue_db(all)
}

/// `suggest --json` for a board; the answer as JSON.
fn suggest_json(pos: &[&str], neg: &[&str], assassin: &str) -> Value {
    let run = query(&[
        "suggest",
        "--pos",
        &pos.join(","),
        "--neg",
        &neg.join(","),
        "--assassin",
        assassin,
        "--json",
    ])
    .ok();
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn warnings(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w.as_str().unwrap_or_default().to_string())
        .collect()
}

/// The words of a list of `../shared/data/word-lists/`, lower-case.
fn list(name: &str) -> Vec<String> {
    let path = crate::common::data().join("word-lists").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.trim().to_lowercase())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_duet_board_is_answered_from_stored_rows() {
    // The build stored a row for every Duet word the corpus knows (make pipeline reads the
    // word lists beside terms.txt).
    let c = open(db());
    let stored: Vec<String> = list("duet.txt")
        .into_iter()
        .filter(|w| {
            c.query_row(
                "SELECT count(*) FROM relatedness_vectors WHERE term = ?1",
                [w],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
                > 0
        })
        .collect();
    assert!(
        stored.len() > 300,
        "only {} Duet words stored",
        stored.len()
    );
    let words: Vec<&str> = stored.iter().take(25).map(String::as_str).collect();
    let v = suggest_json(&words[..9], &words[9..17], words[24]);
    assert!(warnings(&v).is_empty(), "{v}");
    assert!(v["clue"].is_string(), "a Duet board got no clue: {v}");
    let targets: Vec<&str> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        !targets.is_empty() && targets.iter().all(|t| words[..9].contains(t)),
        "{v}"
    );
}

/// Common English nouns outside the lists, from the database: what a person might type. The
/// clue words with no stored row (the lists' words all have one) whose usual sense in WordNet
/// is a noun, and not a name (a plural or a verb form has no senses of its own).
fn typed_words(n: usize) -> Vec<String> {
    let c = open(db());
    let mut st = c
        .prepare(
            "SELECT word FROM clue_words WHERE word NOT IN (SELECT term FROM relatedness_vectors)
             ORDER BY count DESC",
        )
        .unwrap();
    let words: Vec<String> = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let wordnet = wordnet::Lexicon::embedded();
    let nouns: Vec<String> = words
        .into_iter()
        .filter(|w| {
            wordnet.senses(w).first().is_some_and(|s| {
                let synset = &wordnet.synsets[s.synset as usize];
                synset.pos == 'n' && !synset.instance
            })
        })
        .take(400)
        .collect();
    assert!(
        nouns.len() >= 4 * n,
        "{} common nouns with no row",
        nouns.len()
    );
    // Spread evenly over the 400 most frequent: not hand-picked.
    let step = nouns.len() / n;
    nouns.into_iter().step_by(step).take(n).collect()
}

#[test]
fn words_no_list_names_are_cards_and_targets() {
    let typed = typed_words(25);
    let t: Vec<&str> = typed.iter().map(String::as_str).collect();
    // A whole board of 25 common nouns outside the lists: no warning, and the clue's targets
    // are typed words.
    let v = suggest_json(&t[..9], &t[9..17], t[24]);
    assert!(warnings(&v).is_empty(), "typed words warned: {v}");
    assert!(v["clue"].is_string(), "a typed board got no clue: {v}");
    for target in v["targets"].as_array().unwrap() {
        assert!(t[..9].contains(&target.as_str().unwrap()), "{v}");
    }
    // `info` says so.
    let info = query(&["info"]).ok().stdout;
    assert!(info.contains("cards.any_word\tyes"), "{info}");
    assert!(
        info.lines().any(|l| l.starts_with("cards.stored\t")),
        "{info}"
    );
}

#[test]
fn explain_scores_a_word_no_list_names_as_a_board_does() {
    // It said the typed word was not a word the database knows, and showed no relatedness,
    // while `suggest` made it a target.
    let typed = typed_words(3);
    let t: Vec<&str> = typed.iter().map(String::as_str).collect();
    let v = suggest_json(&t[..1], &t[1..2], t[2]);
    let clue = v["clue"].as_str().unwrap_or_else(|| panic!("no clue: {v}"));
    let run = query(&["explain", clue, t[0], t[1], t[2], "--json"]).ok();
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
    let e: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert!(warnings(&e).is_empty(), "{e}");
    let score = |i: usize| {
        let term = &e["terms"][i];
        assert_eq!(term["term"], t[i], "{e}");
        assert_eq!(term["typed"], true, "{e}");
        let r = &term["relatedness"];
        let cosine = r["cosine"].as_f64().unwrap();
        assert!((-1.0..=1.0).contains(&cosine), "{e}");
        r["score"].as_f64().unwrap()
    };
    // The clue cleared its margins for the target, on these same scores.
    assert!(score(0) > score(1) && score(0) > score(2), "{clue}: {e}");
    // A listed card's row is the stored one.
    let stored = list("duet.txt");
    let e: Value =
        serde_json::from_str(&query(&["explain", clue, &stored[0], "--json"]).ok().stdout)
            .expect("JSON");
    assert_eq!(e["terms"][0]["typed"], false, "{e}");
    assert!(e["terms"][0]["relatedness"].is_object(), "{e}");
}

#[test]
fn a_card_of_several_words_no_list_names_is_scored_as_its_words_mean() {
    // `swimming pool` typed on a board was unknown as a whole, never a target.
    let typed = typed_words(5);
    let t: Vec<&str> = typed.iter().map(String::as_str).collect();
    // A stopword between them is not one of its words (`house of cards`).
    let phrase = format!("{} of {}", t[0], t[1]);
    let v = suggest_json(&[phrase.as_str()], &[t[2], t[3]], t[4]);
    assert!(warnings(&v).is_empty(), "{v}");
    assert_eq!(v["targets"], serde_json::json!([phrase]), "{v}");
    let clue = v["clue"].as_str().unwrap_or_else(|| panic!("no clue: {v}"));
    // `explain` names its words, and its score is their scores' mean.
    let run = query(&["explain", clue, &phrase, t[0], t[1], "--json"]).ok();
    let e: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert!(warnings(&e).is_empty(), "{e}");
    let terms = e["terms"].as_array().unwrap();
    assert_eq!(terms[0]["parts"], serde_json::json!([t[0], t[1]]), "{e}");
    assert_eq!(terms[0]["typed"], true, "{e}");
    assert!(terms[1].get("parts").is_none(), "{e}");
    let score = |i: usize| terms[i]["relatedness"]["score"].as_f64().unwrap();
    assert!(
        (score(0) - (score(1) + score(2)) / 2.0).abs() < 1e-4,
        "{} is not the mean of {} and {}",
        score(0),
        score(1),
        score(2)
    );
    let text = query(&["explain", clue, &phrase]).ok().stdout;
    assert!(
        text.contains(&format!("the mean of the scores of {} and {}", t[0], t[1])),
        "{text}"
    );
    // A card of thousands of words: its line of words is cut as a long word is, not printed
    // whole (180 KB in one line).
    let many = vec![t[0]; 5_000].join(" ");
    let text = query(&["explain", clue, &many]).ok().stdout;
    assert!(
        text.len() < 2_000 && text.contains("characters)"),
        "{} bytes: {}",
        text.len(),
        text.chars().take(500).collect::<String>()
    );
    // One word the corpus never met makes the whole card unknown, named as typed.
    let unknown = format!("{} qzxqzxword", t[0]);
    let v = suggest_json(&[unknown.as_str(), t[1]], &[t[2]], t[4]);
    let w = warnings(&v);
    assert!(
        w.len() == 1 && w[0].contains(&format!("\"{unknown}\" is not a word the database knows")),
        "{w:?}"
    );
}

#[test]
fn a_word_typed_with_accents_is_the_vocabularys_word_without_them() {
    // `café` was unknown (closest: cafe), though the text's `cafe` is a clue word.
    let typed = typed_words(25);
    let plain = typed
        .iter()
        .find(|w| w.contains('e'))
        .expect("a typed word with an e")
        .clone();
    let accented = plain.replacen('e', "é", 1);
    let others: Vec<&str> = typed
        .iter()
        .filter(|w| **w != plain)
        .take(3)
        .map(String::as_str)
        .collect();
    let v = suggest_json(&[accented.as_str()], &others[..2], others[2]);
    assert!(warnings(&v).is_empty(), "{v}");
    assert_eq!(v["targets"], serde_json::json!([accented]), "{v}");
    // Scored as the plain word, whose own row ranks it first of all clue words: it is the
    // board word without its accents, so it may not be said, nor a word containing it.
    let clue = v["clue"].as_str().unwrap_or_else(|| panic!("no clue: {v}"));
    assert!(!clue.contains(plain.as_str()), "{clue} for {accented}");
    let e: Value =
        serde_json::from_str(&query(&["explain", clue, &accented, "--json"]).ok().stdout)
            .expect("JSON");
    assert_eq!(e["terms"][0]["parts"], serde_json::json!([plain]), "{e}");
    // Our guesser refuses it as a clue, as it refuses a board word.
    let run = query(&[
        "guess", "--clue", &plain, "--count", "1", "--board", &accented,
    ])
    .failed();
    assert!(
        run.stderr
            .contains(&format!("is the card \"{accented}\" on --board")),
        "{}",
        run.stderr
    );
    // Both spellings on one board are one card given twice (they were two cards of one row,
    // one clue's two targets), and one card of a deck.
    let run = query(&[
        "suggest",
        "--pos",
        &format!("{plain},{}", others[0]),
        "--assassin",
        &accented,
    ])
    .failed();
    assert!(
        run.stderr.contains(&format!(
            "\"{plain}\" and \"{accented}\" are one card, \"{plain}\" (--pos and --assassin); \
             a card has one colour"
        )),
        "{}",
        run.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let deck = dir.path().join("deck.txt");
    let mut words: Vec<&str> = typed.iter().map(String::as_str).collect();
    words.push(&accented);
    std::fs::write(&deck, words.join("\n")).unwrap();
    let played = clue_db([
        "play",
        "--seed",
        "1",
        "--words",
        utf8(&deck),
        "--json",
        "--db",
        utf8(db()),
    ])
    .ok();
    assert!(
        played.stderr.contains(&format!(
            "\"{accented}\" is the same card as \"{plain}\": left out of the boards of"
        )),
        "{}",
        played.stderr
    );
    // A card an earlier build stored with its accents (here `piano` renamed `piàno` in a copy)
    // is the same card typed without them, though that is a vocabulary word of its own.
    let copy = dir.path().join("accented.sqlite");
    std::fs::copy(db(), &copy).unwrap();
    let c = rusqlite::Connection::open(&copy).unwrap();
    let renamed: usize = ["relatedness_vectors SET term", "card_words SET word"]
        .iter()
        .map(|set| {
            let column = set.rsplit(' ').next().unwrap();
            c.execute(
                &format!("UPDATE {set} = 'piàno' WHERE {column} = 'piano'"),
                [],
            )
            .unwrap()
        })
        .sum();
    drop(c);
    assert_eq!(renamed, 2, "piano is a stored card");
    let run = clue_db([
        "suggest",
        "--pos",
        "piano,king",
        "--neg",
        "piàno",
        "--db",
        utf8(&copy),
    ])
    .failed();
    assert!(
        run.stderr
            .contains("\"piano\" and \"piàno\" are one card, \"piàno\" (--pos and --neg)"),
        "{}",
        run.stderr
    );
}

/// Duet's `ST. PATRICK` is stored `st. patrick`; typed `st patrick` (or `st.patrick`) it was
/// unknown, closest "st. patrick". It is the stored card, however its full stops are typed,
/// and a PDF's ligature or a full-width keyboard's letters are the letters they show.
#[test]
fn a_card_is_found_without_its_full_stops_and_as_a_pdf_writes_it() {
    assert!(list("duet.txt").contains(&"st. patrick".to_string()));
    let others = ["ﬁre", "Ｍｏｏｎ"];
    for (typed, shown) in [
        ("st patrick", "st patrick"),
        ("st.patrick", "st.patrick"),
        ("ST. PATRICK", "st. patrick"),
    ] {
        // The team's one card is a target (an unknown one never is).
        let v = suggest_json(&[typed], &others, "loch–ness");
        assert!(warnings(&v).is_empty(), "{typed}: {v}");
        assert_eq!(v["targets"], serde_json::json!([shown]), "{v}");
    }
    // The same card twice, whatever its stops.
    let run = query(&[
        "suggest",
        "--pos",
        "st patrick,apple",
        "--neg",
        "st. patrick",
    ])
    .failed();
    assert!(
        run.stderr.contains(
            "\"st patrick\" and \"st. patrick\" are one card, \"st. patrick\" (--pos and --neg)"
        ),
        "{}",
        run.stderr
    );
    // `explain` reads the stored card's evidence, and a card given twice once.
    let e: Value = serde_json::from_str(
        &query(&[
            "explain",
            "saint",
            "st patrick",
            "apple",
            "Apple",
            "APPLE",
            "--json",
        ])
        .ok()
        .stdout,
    )
    .expect("JSON");
    let terms: Vec<&str> = e["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["term"].as_str().unwrap())
        .collect();
    assert_eq!(terms, ["st. patrick", "apple"], "{e}");
    let again: Vec<String> = warnings(&e)
        .into_iter()
        .filter(|w| w.contains("explained once"))
        .collect();
    assert_eq!(
        again,
        ["\"apple\" is given more than once: explained once"],
        "{e}"
    );
}

#[test]
fn a_word_the_corpus_never_met_is_still_a_warning_naming_close_words() {
    let typed = typed_words(3);
    let v = suggest_json(
        &[typed[0].as_str(), "qzxqzxword"],
        &[typed[1].as_str()],
        &typed[2],
    );
    let w = warnings(&v);
    assert_eq!(w.len(), 1, "{v}");
    assert!(
        w[0].contains("\"qzxqzxword\" is not a word the database knows (closest: "),
        "{}",
        w[0]
    );
    // A typo of a card is named with the card first, before rarer words as close (`aple` is
    // one letter from `able`, `ale` and `ample` too, which came first alphabetically).
    let v = suggest_json(
        &["aple", typed[0].as_str()],
        &[typed[1].as_str()],
        &typed[2],
    );
    let w = warnings(&v);
    assert!(
        w.iter()
            .any(|w| w.contains("\"aple\" is not a word the database knows (closest: apple, ")),
        "{w:?}"
    );
    // Never a target.
    assert!(
        !v["targets"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "qzxqzxword"),
        "{v}"
    );
}

#[test]
fn eval_and_play_draw_boards_from_a_word_list() {
    let run = query(&[
        "eval",
        "--games",
        "2",
        "--strategies",
        "relatedness",
        "--words",
        "duet",
        "--data",
        utf8(&crate::common::data()),
        "--json",
    ])
    .ok();
    let v: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(v["words"]["list"], "duet", "{v}");
    let cards = v["words"]["cards"].as_u64().unwrap();
    assert!(cards > 300 && cards <= 390, "{v}");
    // The games' boards hold Duet words only.
    let played = query(&[
        "play",
        "--seed",
        "4",
        "--words",
        "duet",
        "--data",
        utf8(&crate::common::data()),
        "--json",
    ])
    .ok();
    let g: Value = serde_json::from_str(&played.stdout).expect("JSON");
    let duet = list("duet.txt");
    let cards = g["board"]["cards"].as_array().expect("cards");
    assert_eq!(cards.len(), 25);
    for c in cards {
        let w = c["word"].as_str().unwrap();
        assert!(duet.iter().any(|d| d == w), "{w} is no Duet word");
    }
    // A file of one's own: fewer than 25 usable words is refused, naming the count (a word
    // written twice counts once, and the message says different words).
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.txt");
    std::fs::write(&small, "apple\nmoon\napple\n").unwrap();
    let run = clue_db([
        "eval",
        "--games",
        "1",
        "--words",
        utf8(&small),
        "--db",
        utf8(db()),
    ])
    .failed();
    assert!(
        run.stderr
            .contains("2 of its 2 different words can be cards of these games, a board needs 25"),
        "{}",
        run.stderr
    );
    // A pack of everyday words the database knows (clue words no list names, so none has
    // pages of its own): eval's default strategies include threshold, which cannot play them,
    // and the error says which strategy can.
    let c = rusqlite::Connection::open(db()).unwrap();
    let everyday: Vec<String> = c
        .prepare(
            "SELECT word FROM clue_words WHERE word NOT IN (SELECT term FROM terms) \
             AND length(word) >= 5 ORDER BY count DESC LIMIT 40",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(everyday.len(), 40);
    let pack = dir.path().join("everyday.txt");
    std::fs::write(&pack, everyday.join("\n")).unwrap();
    let run = clue_db([
        "eval",
        "--games",
        "1",
        "--words",
        utf8(&pack),
        "--db",
        utf8(db()),
    ])
    .failed();
    assert!(
        run.stderr
            .contains("the threshold strategy covers fewer of them")
            && run
                .stderr
                .contains("the relatedness strategy plays the 40 the database knows"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_server_offers_the_lists_and_takes_any_words() {
    use serde_json::json;
    use serve::client;
    let s = crate::serve::Served::start(db());
    let post = |path: &str, body: Value| {
        client::post_json(s.addr, path, &body).unwrap_or_else(|e| panic!("POST {path}: {e}"))
    };
    let info: Value = client::get(s.addr, "/api/info").unwrap().json().unwrap();
    assert_eq!(info["any_word"], true, "{info}");
    let names: Vec<&str> = info["lists"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["name"].as_str())
        .collect();
    // The lists the build stored: the original game's first, then by name.
    assert_eq!(names, ["codenames", "deep-undercover", "duet"], "{info}");
    // A game of Duet cards.
    let r = post("/api/new-game", json!({"words": "duet"}));
    assert_eq!(r.status, 200, "{}", r.text());
    let g: Value = r.json().unwrap();
    let duet = list("duet.txt");
    let cards = g["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 25, "{g}");
    for c in cards {
        let w = c["word"].as_str().unwrap();
        assert!(duet.iter().any(|d| d == w), "{w} is no Duet word: {g}");
    }
    // A board of pasted words, and a suggestion for typed words.
    let typed = typed_words(25);
    let r = post("/api/board", json!({"words": typed}));
    assert_eq!(r.status, 200, "{}", r.text());
    let b: Value = r.json().unwrap();
    for c in b["cards"].as_array().unwrap() {
        assert!(
            typed.iter().any(|t| t == c["word"].as_str().unwrap()),
            "{b}"
        );
    }
    let r = post(
        "/api/suggest",
        json!({"pos": &typed[..3], "neg": &typed[3..5], "assassin": typed[5]}),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Too few words, an unknown list, a word never met.
    assert_eq!(
        post("/api/new-game", json!({"words": ["apple", "moon"]})).status,
        400
    );
    assert_eq!(
        post("/api/new-game", json!({"words": "no-such-list"})).status,
        400
    );
    let r = post("/api/suggest", json!({"pos": ["qzxqzxword", &typed[0]]}));
    assert_eq!(r.status, 422, "{}", r.text());
    assert!(r.text().contains("qzxqzxword"), "{}", r.text());
    // A pasted list of many typos: the first 20 named (with the closest cards), the rest
    // counted; and a list with 25 cards besides them still deals.
    let typos: Vec<String> = (0..60).map(|i| format!("qzxqzx{i}")).collect();
    let r = post("/api/board", json!({"words": typos}));
    assert_eq!(r.status, 422, "{}", r.text());
    let error = r.json().unwrap()["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("\"qzxqzx19\" is not a word the database knows (closest: ")
            && !error.contains("\"qzxqzx20\"")
            && error.contains("and 40 more words of the deck the database does not know"),
        "{error}"
    );
    let mixed: Vec<String> = typos.iter().chain(&typed).cloned().collect();
    let b = post("/api/board", json!({"words": mixed}));
    assert_eq!(b.status, 200, "{}", b.text());
}

/// `clue-db ARGS… --db DB` run from a folder with neither `pipeline/` nor `../shared/`: as a
/// user with the binary on their PATH runs it.
fn elsewhere(dir: &std::path::Path, args: &[&str]) -> Run {
    crate::common::clue_db_in(dir, args.iter().copied().chain(["--db", utf8(db())]))
}

fn board_words(game: &Value) -> Vec<String> {
    game["board"]["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .map(|c| c["word"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn boards_come_from_the_lists_the_build_stored_wherever_it_runs() {
    let c = open(db());
    let stored = |list: &str| -> Vec<String> {
        let mut st = c
            .prepare("SELECT word FROM word_lists WHERE list = ?1 ORDER BY position")
            .unwrap();
        st.query_map([list], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    // The build stored each list by name, in its order, each word once.
    let codenames = stored("codenames");
    assert_eq!(codenames.len(), 400);
    assert_eq!(stored("duet"), list("duet.txt"));
    assert_eq!(stored("deep-undercover").len(), 390);
    let dir = tempfile::tempdir().unwrap();
    // Without --words, the original game's cards: none of Deep Undercover's own.
    let under: Vec<String> = stored("deep-undercover")
        .into_iter()
        .filter(|w| !codenames.contains(w))
        .collect();
    for seed in ["1", "7", "11"] {
        let run = elsewhere(dir.path(), &["play", "--seed", seed, "--json"]).ok();
        let g: Value = serde_json::from_str(&run.stdout).expect("JSON");
        let words = board_words(&g);
        assert_eq!(words.len(), 25);
        for w in &words {
            assert!(codenames.contains(w), "{w} is no card of the original game");
            assert!(!under.contains(w), "{w}");
        }
    }
    // A list by name, from a folder without the files.
    let run = elsewhere(
        dir.path(),
        &["play", "--seed", "4", "--words", "duet", "--json"],
    )
    .ok();
    let g: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let duet = list("duet.txt");
    assert!(board_words(&g).iter().all(|w| duet.contains(w)), "{g}");
    // An unknown name says which lists there are.
    let run = elsewhere(dir.path(), &["eval", "--games", "1", "--words", "nope"]).failed();
    assert!(
        run.stderr.contains(
            "no list of that name in the database (lists: codenames, deep-undercover, duet)"
        ),
        "{}",
        run.stderr
    );
    // An empty one once said "and no file ;".
    let run = elsewhere(dir.path(), &["eval", "--games", "1", "--words", " "]).failed();
    assert!(run.stderr.contains("--words is empty"), "{}", run.stderr);
    // threshold scores only the cards with pages of their own: its boards hold only those, and
    // the words it leaves out are named as not covered (not as unknown words).
    let covered: Vec<String> = {
        let mut st = c
            .prepare("SELECT term FROM terms WHERE covered = 1")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert!(
        codenames.iter().any(|w| !covered.contains(w)),
        "every card covered: the test would not tell"
    );
    for seed in ["2", "3", "5"] {
        let run = elsewhere(
            dir.path(),
            &["play", "--seed", seed, "--strategy", "threshold", "--json"],
        )
        .ok();
        assert!(
            run.stderr
                .contains("the threshold strategy does not cover them"),
            "{}",
            run.stderr
        );
        let g: Value = serde_json::from_str(&run.stdout).expect("JSON");
        for w in board_words(&g) {
            assert!(covered.contains(&w), "{w} is not covered by threshold");
        }
    }
    // A covered word of relatedness on a threshold board: not covered, not a typo.
    let uncovered = codenames
        .iter()
        .find(|w| !covered.contains(w) && !w.contains(' '))
        .unwrap();
    let run = elsewhere(
        dir.path(),
        &["suggest", "--pos", uncovered, "--strategy", "threshold"],
    );
    assert!(
        run.stderr.contains(&format!(
            "\"{uncovered}\" is not covered by the threshold strategy"
        )) && !run.stderr.contains("closest"),
        "{}",
        run.stderr
    );
}
