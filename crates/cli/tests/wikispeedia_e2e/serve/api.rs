//! The JSON API over real HTTP: a whole game played to its end, `suggest` against the CLI's
//! `--json` contract, explain and guess, and every kind of bad input answered with its 4xx
//! while the server keeps serving. Also the errors at start (missing or foreign database).

use super::Served;
use crate::common::{clue_db, keys_in_order, utf8};
use crate::db;
use crate::query::{ASSASSIN, NEG, POS};
use serde_json::{Value, json};
use serve::client::{self, Response};
use std::collections::BTreeSet;

fn post(s: &Served, path: &str, body: Value) -> Response {
    client::post_json(s.addr, path, &body).unwrap_or_else(|e| panic!("POST {path}: {e}"))
}

/// The JSON of a response that must have `status`.
#[track_caller]
fn expect(r: &Response, status: u16) -> Value {
    assert_eq!(r.status, status, "body: {}", r.text());
    assert!(
        r.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "JSON answer expected: {:?}",
        r.headers
    );
    r.json().unwrap()
}

/// A 4xx answer: JSON with a non-empty "error".
#[track_caller]
fn expect_error(r: &Response, status: u16) -> Value {
    let v = expect(r, status);
    assert!(
        v["error"].as_str().is_some_and(|e| !e.is_empty()),
        "an error message: {v}"
    );
    v
}

#[test]
fn a_whole_game_is_played_to_the_end_through_the_api() {
    let mut s = Served::start(db());
    let g = expect(&post(&s, "/api/new-game", json!({"seed": 7})), 200);
    let id = g["id"].as_str().unwrap().to_string();
    assert_eq!(g["seed"], 7);
    assert_eq!(g["status"], "playing");
    let cards = g["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 25);
    assert!(
        cards.iter().all(|c| c["role"].is_null()),
        "colours hidden: {g}"
    );
    // The same seed is refused while its game is played (a second game on it, played to its
    // end, would show the first one's colours), and deals the same board once it is over.
    let refused = post(&s, "/api/new-game", json!({"seed": 7}));
    assert_eq!(refused.status, 403, "{}", refused.text());
    let first_cards = g["cards"].clone();

    let mut game = g;
    let mut moves = 0;
    while game["status"] == "playing" {
        moves += 1;
        assert!(moves < 200, "the game should have ended: {game}");
        let clue = &game["clue"];
        assert!(
            clue.get("targets").is_none(),
            "the turn's targets stay hidden while it is played: {clue}"
        );
        let unrevealed: Vec<&str> = game["cards"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["revealed"] == false)
            .map(|c| c["word"].as_str().unwrap())
            .collect();
        // Guess as the guesser would: its best word for the clue, or pass.
        let pick = match clue["clue"].as_str() {
            Some(word) if clue["guesses_left"].as_u64().unwrap() > 0 => {
                let gs = expect(
                    &post(
                        &s,
                        "/api/guess",
                        json!({"clue": word, "count": 1, "board": unrevealed}),
                    ),
                    200,
                );
                gs["guesses"][0]["word"].as_str().map(str::to_string)
            }
            _ => None,
        };
        let before = game["turns"].as_array().unwrap().len();
        game = match pick {
            Some(w) => {
                let v = expect(
                    &post(&s, &format!("/api/game/{id}/reveal"), json!({"word": w})),
                    200,
                );
                assert_eq!(v["last"]["word"], w.as_str());
                let card = v["cards"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["word"] == w.as_str())
                    .unwrap();
                assert_eq!(card["revealed"], true);
                assert_eq!(card["role"], v["last"]["role"], "the colour is shown");
                v
            }
            None => expect(&post(&s, &format!("/api/game/{id}/pass"), json!({})), 200),
        };
        let turns = game["turns"].as_array().unwrap();
        if turns.len() > before {
            let t = &turns[before];
            if !t["clue"].is_null() {
                assert!(
                    t["clue"]["targets"].is_array(),
                    "finished turns show their targets: {t}"
                );
            }
        }
    }
    assert!(
        ["won", "lost"].contains(&game["status"].as_str().unwrap()),
        "{game}"
    );
    let again = expect(&post(&s, "/api/new-game", json!({"seed": 7})), 200);
    assert_eq!(again["cards"], first_cards);
    assert_ne!(again["id"].as_str(), Some(id.as_str()));
    assert!(
        ["all_found", "assassin", "opponent_found"].contains(&game["reason"].as_str().unwrap())
    );
    assert!(
        game["cards"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c["role"].is_null()),
        "every colour is shown at the end"
    );
    let red_left = game["remaining"]["red"].as_u64().unwrap();
    let blue_left = game["remaining"]["blue"].as_u64().unwrap();
    match game["reason"].as_str().unwrap() {
        "all_found" => assert_eq!(red_left, 0),
        "opponent_found" => assert_eq!(blue_left, 0),
        _ => {}
    }
    // No clue given twice in a game.
    let clues: Vec<&str> = game["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["clue"]["clue"].as_str())
        .collect();
    let distinct: BTreeSet<&&str> = clues.iter().collect();
    assert_eq!(distinct.len(), clues.len(), "{clues:?}");
    // The game is over: moves are refused, and the game can still be read.
    let hidden = game["cards"][0]["word"].as_str().unwrap();
    expect_error(
        &post(
            &s,
            &format!("/api/game/{id}/reveal"),
            json!({"word": hidden}),
        ),
        409,
    );
    expect_error(&post(&s, &format!("/api/game/{id}/pass"), json!({})), 409);
    let read = expect(
        &client::get(s.addr, &format!("/api/game/{id}")).unwrap(),
        200,
    );
    assert_eq!(read["status"], game["status"]);
    s.assert_alive();
}

#[test]
fn suggest_answers_what_the_cli_prints_with_warnings_after() {
    let s = Served::start(db());
    for strategy in ["threshold", "herfindahl"] {
        let r = post(
            &s,
            "/api/suggest",
            json!({"pos": POS, "neg": NEG, "assassin": ASSASSIN, "strategy": strategy, "top": 3}),
        );
        let v = expect(&r, 200);
        let cli = crate::query::suggest_board_json(strategy).ok();
        assert!(v["warnings"].is_array(), "{v}");
        assert_eq!(
            v,
            cli.json(),
            "{strategy}: API and CLI agree, warnings included"
        );
        let keys = keys_in_order(&r.text());
        let alts = v["alternatives"].as_array().unwrap().len();
        let order = crate::common::answer_keys(alts);
        assert_eq!(keys, order, "{}", r.text());
        assert!(v["clue"].is_string(), "a clue for this board: {v}");
    }
    // Case and spacing are normalised as on the command line; `given` clues are skipped.
    let first = expect(
        &post(&s, "/api/suggest", json!({"pos": ["Apple", " LEMON "]})),
        200,
    );
    let clue = first["clue"].as_str().unwrap().to_string();
    let next = expect(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": ["apple", "lemon"], "given": [clue]}),
        ),
        200,
    );
    assert_ne!(next["clue"].as_str(), Some(clue.as_str()));
}

/// Issue 47: one function of `query` answers a board for the CLI and the server. The same board
/// (team, opponents, a bystander, the assassin, a clue given) through `clue-db suggest --json`
/// and `/api/suggest` gets the same answer, byte for byte, with every strategy; a board no one
/// can mean is refused by both with one message in each one's names; a word the database does
/// not know is a warning on the command line and a 422 from the server, naming the same closest
/// words.
/// A game's clue is the same rule in the browser and in `clue-db play` (the strategy's best,
/// or its fallback): the server's setnet games passed turns that `play` clued.
#[test]
fn a_games_first_clue_is_the_one_play_gives() {
    let s = Served::start(db());
    for (strategy, seeds) in [("relatedness", 21..24), ("setnet", 24..30)] {
        for seed in seeds {
            let g = expect(
                &post(
                    &s,
                    "/api/new-game",
                    json!({"seed": seed, "strategy": strategy}),
                ),
                200,
            );
            let played = crate::query::query(&[
                "play",
                "--seed",
                &seed.to_string(),
                "--strategy",
                strategy,
                "--json",
            ])
            .ok()
            .json();
            let cli = &played["turns"][0]["clue"];
            assert!(!cli.is_null(), "{strategy} {seed}: {played}");
            assert_eq!(g["clue"]["clue"], cli["clue"], "{strategy} {seed}: {g}");
            assert_eq!(g["clue"]["count"], cli["count"], "{strategy} {seed}: {g}");
        }
    }
}

#[test]
fn one_board_through_the_cli_and_the_server_gets_the_same_answer() {
    let mut s = Served::start(db());
    let (neg, neutral) = (&NEG[..3], NEG[3]);
    for strategy in query::strategy::STRATEGIES {
        let cli = crate::query::query(&[
            "suggest",
            "--pos",
            &POS.join(","),
            "--neg",
            &neg.join(","),
            "--neutral",
            neutral,
            "--assassin",
            ASSASSIN,
            "--given",
            "fruit",
            "--strategy",
            strategy,
            "--top",
            "4",
            "--json",
        ])
        .ok();
        let r = post(
            &s,
            "/api/suggest",
            json!({"pos": POS, "neg": neg, "neutral": [neutral], "assassin": ASSASSIN,
                   "given": ["fruit"], "strategy": strategy, "top": 4}),
        );
        let v = expect(&r, 200);
        if v["clue"].is_null() {
            // Both say why there is no clue, in the same words.
            assert_eq!(v, cli.json(), "{strategy}");
            assert!(
                v["warnings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|w| w.as_str().is_some_and(|w| w.starts_with("no safe clue"))),
                "{strategy}: {v}"
            );
        } else {
            assert_eq!(r.text(), cli.stdout.trim_end(), "{strategy}");
            assert_ne!(
                v["clue"], "fruit",
                "{strategy}: a given clue is never said again"
            );
        }
    }
    // A card of two colours: refused by both, in each one's names.
    let cli = crate::query::query(&["suggest", "--pos", "apple,fire", "--neg", "fire"]).failed();
    let v = expect_error(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": ["apple", "fire"], "neg": ["fire"]}),
        ),
        400,
    );
    let api = v["error"].as_str().unwrap();
    assert_eq!(
        api.replace("(pos and neg)", "(--pos and --neg)"),
        "\"fire\" is given twice (--pos and --neg); a card has one colour"
    );
    assert!(
        cli.stderr
            .contains("\"fire\" is given twice (--pos and --neg); a card has one colour"),
        "{}",
        cli.stderr
    );
    // A word the database does not know.
    let cli = crate::query::query(&["suggest", "--pos", "applle,moon", "--json"]).ok();
    let warning = cli.json()["warnings"][0].as_str().unwrap().to_string();
    let v = expect_error(
        &post(&s, "/api/suggest", json!({"pos": ["applle", "moon"]})),
        422,
    );
    assert_eq!(v["unknown"][0]["word"], "applle", "{v}");
    let closest: Vec<&str> = v["unknown"][0]["closest"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warning.contains(&format!("(closest: {})", closest.join(", "))),
        "{warning} / {v}"
    );
    s.assert_alive();
}

#[test]
fn explain_and_guess_answer_like_the_cli() {
    let s = Served::start(db());
    let sug = expect(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": POS, "neg": NEG, "assassin": ASSASSIN}),
        ),
        200,
    );
    let clue = sug["clue"].as_str().unwrap();
    let targets = sug["targets"].clone();
    let ex = expect(
        &post(&s, "/api/explain", json!({"clue": clue, "terms": targets})),
        200,
    );
    let cli = clue_db(
        [
            vec!["explain", clue],
            targets
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect(),
            vec!["--json", "--db", utf8(db())],
        ]
        .concat(),
    )
    .ok();
    assert_eq!(ex, cli.json());
    // The default strategy (relatedness) chose the targets: each has its relatedness row.
    for t in ex["terms"].as_array().unwrap() {
        let r = &t["relatedness"];
        assert!(
            r["score"].is_number() && r["clue"].as_str() == Some(clue),
            "{t}"
        );
    }
    let board: Vec<&str> = POS.iter().chain(&NEG).copied().collect();
    let g = expect(
        &post(
            &s,
            "/api/guess",
            json!({"clue": clue, "count": 2, "board": board}),
        ),
        200,
    );
    let cli = clue_db([
        "guess",
        "--clue",
        clue,
        "--count",
        "2",
        "--board",
        &board.join(","),
        "--json",
        "--db",
        utf8(db()),
    ])
    .ok();
    // The same object, `{"clue", "guesses", "warnings"}`, from both.
    assert_eq!(g, cli.json());
    assert_eq!(g["clue"], clue);
    assert_eq!(g["warnings"], json!([]));
}

/// `clue-db ARGS… --db DB`, which must fail: its stderr.
fn cli_refuses(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--db", utf8(db())]);
    clue_db(all).failed().stderr
}

/// The CLI and the API check what they are sent by the same rules of the query engine, and
/// say it in the same words (after a flag's or a field's name): the numbers' ranges, a
/// board's 25 cards, an empty card; and they warn alike (a given clue that is no word, a clue
/// the database does not know). Each of these once differed between the two.
#[test]
fn the_cli_and_the_api_refuse_and_warn_alike() {
    let s = Served::start(db());
    for (path, body, args, hint) in [
        (
            "/api/guess",
            json!({"clue": "fruit", "count": 26, "board": ["apple"]}),
            &[
                "guess", "--clue", "fruit", "--count", "26", "--board", "apple",
            ][..],
            "count 26: give the number heard (0: no limit), from 0 to 25",
        ),
        (
            "/api/guess",
            json!({"clue": "fruit", "count": 1, "floor": 5, "board": ["apple"]}),
            &[
                "guess", "--clue", "fruit", "--count", "1", "--floor", "5", "--board", "apple",
            ],
            "floor 5: give the score under which the guesser stops, from 0 to 1",
        ),
        (
            "/api/suggest",
            json!({"pos": ["apple"], "top": 101}),
            &["suggest", "--pos", "apple", "--top", "101"],
            "top 101: give how many suggestions, from 1 to 100",
        ),
    ] {
        let v = expect_error(&post(&s, path, body.clone()), 400);
        assert_eq!(v["error"], hint, "{body}");
        // clap: "invalid value '26' for '--count <COUNT>': give the number heard …".
        let (name, rest) = hint.split_once(' ').unwrap();
        let (value, hint) = rest.split_once(": ").unwrap();
        let stderr = cli_refuses(args);
        assert!(
            stderr.contains(&format!("'{value}' for '--{name}"))
                && stderr.contains(&format!(": {hint}")),
            "{args:?}: {stderr}"
        );
    }
    // The top of both ranges is taken by both.
    let top = expect(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": POS, "neg": NEG, "top": 100}),
        ),
        200,
    );
    let cli = clue_db([
        "suggest",
        "--pos",
        &POS.join(","),
        "--neg",
        &NEG.join(","),
        "--top",
        "100",
        "--json",
        "--db",
        utf8(db()),
    ])
    .ok();
    assert_eq!(top, cli.json());
    assert!(top["alternatives"].as_array().unwrap().len() > 20, "{top}");

    // A board of 26 cards (9 + 8 + 8 + 1), and one of 30 team cards: the same refusal.
    let terms = crate::common::column(
        &crate::common::open(db()),
        "SELECT term FROM terms WHERE covered = 1 ORDER BY term LIMIT 30",
    );
    let (red, blue, neutral, assassin) = (&terms[..9], &terms[9..17], &terms[17..25], &terms[25]);
    let v = expect_error(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": red, "neg": blue, "neutral": neutral, "assassin": assassin}),
        ),
        400,
    );
    let said = "the board has 26 words; a board has at most 25 cards";
    assert_eq!(v["error"], said);
    let stderr = cli_refuses(&[
        "suggest",
        "--pos",
        &red.join(","),
        "--neg",
        &blue.join(","),
        "--neutral",
        &neutral.join(","),
        "--assassin",
        assassin,
    ]);
    assert!(stderr.contains(said), "{stderr}");
    let v = expect_error(&post(&s, "/api/suggest", json!({"pos": terms})), 400);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .ends_with("30 words; a board has at most 25 cards"),
        "{v}"
    );
    let stderr = cli_refuses(&["suggest", "--pos", &terms.join(",")]);
    assert!(
        stderr.contains("the board has 30 words; a board has at most 25 cards"),
        "{stderr}"
    );

    // An empty card to explain.
    let v = expect_error(
        &post(
            &s,
            "/api/explain",
            json!({"clue": "monarch", "terms": [""]}),
        ),
        400,
    );
    assert_eq!(
        v["error"],
        "terms holds an empty word: give each card as a word"
    );
    let stderr = cli_refuses(&["explain", "monarch", ""]);
    assert!(
        stderr.contains("TERMS holds an empty word: give each card as a word"),
        "{stderr}"
    );

    // A given clue that is no clue word: ignored, with the same warning, on stderr too; one
    // the database does not know (a slip) is named with the closest it does.
    let api = expect(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": ["apple", "lemon"], "given": ["ice cream", "fruut"]}),
        ),
        200,
    );
    let warning = "given \"ice cream\" is not a clue word and was ignored";
    assert_eq!(api["warnings"][0], warning);
    let slip = api["warnings"][1].as_str().unwrap();
    assert!(
        slip.starts_with(
            "given \"fruut\" is no clue word the database knows, so it changes nothing \
             (closest: fruit"
        ),
        "{api}"
    );
    assert_eq!(api["warnings"].as_array().unwrap().len(), 2, "{api}");
    // Many such slips: the first three named with the closest words (a word longer than any
    // clue word with none), the others together, each once.
    let long = "x".repeat(60);
    let many = expect(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": ["apple", "lemon"], "given": ["fruut", "aaab", long, "fruut", "bbbc", "cccd"]}),
        ),
        200,
    );
    let w: Vec<&str> = many["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(w.len(), 4, "{w:?}");
    assert!(w[1].starts_with("given \"aaab\" is no clue word") && w[1].contains("closest: "));
    assert!(w[2].ends_with("(no clue word is that long)"), "{}", w[2]);
    assert_eq!(
        w[3],
        "given \"bbbc\", \"cccd\" are no clue words the database knows either, so they change \
         nothing"
    );
    let cli = clue_db([
        "suggest",
        "--pos",
        "apple,lemon",
        "--given",
        "ice cream,fruut",
        "--json",
        "--db",
        utf8(db()),
    ])
    .ok();
    assert_eq!(api, cli.json());
    let plain = clue_db([
        "suggest",
        "--pos",
        "apple,lemon",
        "--given",
        "ice cream",
        "--db",
        utf8(db()),
    ])
    .ok();
    assert!(
        plain.stderr.contains(&format!("warning: {warning}")),
        "{}",
        plain.stderr
    );

    // A control character in a word is named by its code point by both, not by Rust's
    // escape (`\u{1b}`); a byte-order mark is no part of a word, for both.
    for (given, warnings) in [
        (
            "\u{1b}ice",
            json!(["given \"<U+001B>ice\" is not a clue word and was ignored"]),
        ),
        ("\u{feff}ice", json!([])),
    ] {
        let api = expect(
            &post(
                &s,
                "/api/suggest",
                json!({"pos": ["apple", "lemon"], "given": [given]}),
            ),
            200,
        );
        assert_eq!(api["warnings"], warnings, "{given:?}");
        let cli = clue_db([
            "suggest",
            "--pos",
            "apple,lemon",
            "--given",
            given,
            "--json",
            "--db",
            utf8(db()),
        ])
        .ok();
        assert_eq!(api, cli.json(), "{given:?}");
    }

    // A clue the database does not know: no guess, and a warning from both.
    let api = expect(
        &post(
            &s,
            "/api/guess",
            json!({"clue": "xyzzy", "count": 2, "board": ["apple", "lemon"]}),
        ),
        200,
    );
    assert_eq!(api["guesses"], json!([]));
    assert_eq!(
        api["warnings"],
        json!(["\"xyzzy\" is no clue word of the database: nothing relates to it"])
    );
    let cli = clue_db([
        "guess",
        "--clue",
        "xyzzy",
        "--count",
        "2",
        "--board",
        "apple,lemon",
        "--json",
        "--db",
        utf8(db()),
    ])
    .ok();
    assert_eq!(api, cli.json());
}

#[test]
fn bad_input_gets_a_4xx_json_error_and_the_server_keeps_serving() {
    let mut s = Served::start(db());
    let raw = |ct: Option<&str>, body: &[u8]| {
        client::request(s.addr, "POST", "/api/suggest", ct, body).unwrap()
    };
    let json_ct = Some("application/json");
    // Malformed JSON.
    expect_error(&raw(json_ct, br#"{"pos": ["apple""#), 400);
    expect_error(&raw(json_ct, b"not json at all"), 400);
    // No body or not JSON by its content type.
    expect_error(&raw(Some("text/plain"), br#"{"pos": ["apple"]}"#), 415);
    expect_error(&raw(None, b""), 415);
    // JSON of the wrong shape, or with a field the endpoint does not know.
    expect_error(&raw(json_ct, br#"{"pos": "apple"}"#), 422);
    expect_error(
        &raw(json_ct, br#"{"pos": ["apple"], "negative": ["fire"]}"#),
        422,
    );
    expect_error(&raw(json_ct, b"[1, 2]"), 422);
    // An array was read as the body's fields in order (a board, 200), and messages named the
    // Rust types (`struct SuggestBody`, `usize`).
    for (body, said) in [
        (
            &br#"[["king"], [], [], null, [], null, 1, null]"#[..],
            "a JSON object",
        ),
        (b"null", "a JSON object"),
        (
            br#"{"pos": ["apple"], "top": 1.5}"#,
            "top: invalid type: floating point `1.5`, expected a whole number of 0 or more",
        ),
        // The field of a value of the wrong type is named (it was "the body: …").
        (
            br#"{"pos": ["apple"], "neg": "fire"}"#,
            "neg: invalid type: string \"fire\", expected an array",
        ),
    ] {
        let v = expect_error(&raw(json_ct, body), 422);
        let e = v["error"].as_str().unwrap();
        assert!(
            e.contains(said) && !e.contains("usize") && !e.contains("Body"),
            "{}: {e}",
            String::from_utf8_lossy(body)
        );
    }
    // Oversized body: refused by its length, whatever it holds.
    let big = format!(
        r#"{{"pos": ["apple"], "neg": [{}]}}"#,
        vec!["\"fire\""; 20_000].join(",")
    );
    assert!(big.len() > serve::MAX_BODY);
    let v = expect_error(&raw(json_ct, big.as_bytes()), 413);
    assert!(v["error"].as_str().unwrap().contains("larger than"), "{v}");
    // Unknown words: 422 naming each, with the closest covered terms, as the CLI does.
    let v = expect_error(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": ["applle", "moon"], "neg": ["fier"]}),
        ),
        422,
    );
    let unknown = v["unknown"].as_array().unwrap();
    assert_eq!(unknown.len(), 2, "{v}");
    assert_eq!(unknown[0]["word"], "applle");
    assert!(
        unknown[0]["closest"]
            .as_array()
            .unwrap()
            .contains(&json!("apple")),
        "{v}"
    );
    assert!(v["error"].as_str().unwrap().contains("applle"), "{v}");
    // Boards no one can mean, and options out of range.
    for (body, what) in [
        (json!({"pos": []}), "pos is empty"),
        (json!({"pos": ["apple"], "neg": ["Apple"]}), "twice"),
        (
            json!({"pos": ["apple"], "strategy": "psychic"}),
            "unknown strategy",
        ),
        (json!({"pos": ["apple"], "top": 0}), "top 0"),
        (json!({"pos": ["apple"], "top": 1000}), "top 1000"),
        (json!({"pos": ["apple"], "top": 101}), "from 1 to 100"),
        (json!({"pos": ["apple"], "assassin_margin": -1.0}), "margin"),
        // The CLI's range, in its words (1e308 was taken as a margin).
        (
            json!({"pos": ["apple"], "assassin_margin": 101.0}),
            "assassin_margin 101: give a margin, from 0 to 100",
        ),
        (json!({"pos": ["  "]}), "empty word"),
        (
            json!({"pos": ["apple"], "assassin": "opera,film"}),
            "assassin holds \"opera,film\": a card word has no comma",
        ),
        (json!({"pos": vec!["apple"; 26]}), "26 words"),
    ] {
        let v = expect_error(&post(&s, "/api/suggest", body.clone()), 400);
        assert!(v["error"].as_str().unwrap().contains(what), "{body}: {v}");
    }
    expect_error(
        &post(
            &s,
            "/api/explain",
            json!({"clue": "two words", "terms": ["apple"]}),
        ),
        400,
    );
    expect_error(
        &post(
            &s,
            "/api/explain",
            json!({"clue": "fruit", "terms": ["applle"]}),
        ),
        422,
    );
    expect_error(
        &post(
            &s,
            "/api/guess",
            json!({"clue": "apple", "board": ["apple", "moon"]}),
        ),
        400,
    );
    // Games: unknown id, a word not on the board, a seed of the wrong type.
    expect_error(&post(&s, "/api/game/nope/pass", json!({})), 404);
    // An id that is not UTF-8 is a JSON error as every other (it was axum's plain text).
    let v = expect_error(&client::get(s.addr, "/api/game/%ff%fe").unwrap(), 400);
    assert!(v["error"].as_str().unwrap().contains("game id"), "{v}");
    expect_error(&post(&s, "/api/game/%ff/pass", json!({})), 400);
    let g = expect(&post(&s, "/api/new-game", json!({"seed": 3})), 200);
    let id = g["id"].as_str().unwrap();
    expect_error(
        &post(
            &s,
            &format!("/api/game/{id}/reveal"),
            json!({"word": "zzzz"}),
        ),
        400,
    );
    expect_error(&post(&s, "/api/new-game", json!({"seed": -1})), 422);
    expect_error(
        &post(&s, "/api/new-game", json!({"strategy": "psychic"})),
        400,
    );
    // A pasted deck too small, its count said right for one word.
    for (words, said) in [
        (
            json!(["apple", "Apple"]),
            "words has 1 different word; a board needs 25",
        ),
        (
            json!(["apple", "moon"]),
            "words has 2 different words; a board needs 25",
        ),
    ] {
        let v = expect_error(&post(&s, "/api/new-game", json!({ "words": words })), 400);
        assert_eq!(v["error"], said, "{v}");
    }
    // A deck sent as one string of words is told to come as an array; `words` of neither
    // kind is told both (it was "untagged enum Words", a Rust name).
    let v = expect_error(
        &post(&s, "/api/new-game", json!({"words": "apple,moon,fire"})),
        400,
    );
    let e = v["error"].as_str().unwrap();
    assert!(
        e.contains("send a list of your own as an array of words"),
        "{v}"
    );
    let v = expect_error(&post(&s, "/api/new-game", json!({"words": 5})), 422);
    let e = v["error"].as_str().unwrap();
    assert!(
        e.starts_with("words: expected a list's name") && !e.contains("enum"),
        "{v}"
    );
    // Unknown routes and methods.
    expect_error(&client::get(s.addr, "/api/nothing").unwrap(), 404);
    expect_error(&client::get(s.addr, "/api/suggest").unwrap(), 405);
    // Still serving.
    s.assert_alive();
    let info = expect(&client::get(s.addr, "/api/info").unwrap(), 200);
    assert!(info["terms"].as_u64().unwrap() >= 25, "{info}");
    let page = client::get(s.addr, "/").unwrap();
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<script src=\"/app.js\""));
    assert!(
        !page.text().contains("http://") && !page.text().contains("https://"),
        "the page loads nothing from elsewhere"
    );
}

/// `pass` takes `{}`, as the page sends it, and refuses any other body as every route does: it
/// answered 200 to `{"x": 1}` and to no JSON at all. A refused pass leaves the turn as it was.
#[test]
fn pass_takes_an_empty_object_and_refuses_other_bodies_as_every_route() {
    let s = Served::start(db());
    let g = expect(&post(&s, "/api/new-game", json!({"seed": 21})), 200);
    let id = g["id"].as_str().unwrap();
    let path = format!("/api/game/{id}/pass");
    let raw =
        |ct: Option<&str>, body: &[u8]| client::request(s.addr, "POST", &path, ct, body).unwrap();
    let json_ct = Some("application/json");
    let v = expect_error(&raw(json_ct, br#"{"x": 1}"#), 422);
    assert!(
        v["error"].as_str().unwrap().contains("unknown field `x`"),
        "{v}"
    );
    expect_error(&raw(json_ct, b"not json"), 400);
    expect_error(&raw(json_ct, b""), 400);
    expect_error(&raw(Some("text/plain"), b"{}"), 415);
    expect_error(&raw(None, b""), 415);
    let now = expect(
        &client::get(s.addr, &format!("/api/game/{id}")).unwrap(),
        200,
    );
    let mut dealt = g.clone();
    dealt.as_object_mut().unwrap().remove("warnings");
    assert_eq!(now, dealt, "no refused pass ended the turn");
    let passed = expect(&raw(json_ct, b"{}"), 200);
    let turns = passed["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1, "{passed}");
    assert!(
        turns[0]["revealed"].as_array().unwrap().is_empty(),
        "{passed}"
    );
}

/// A pasted deck with words the database does not know deals from the others, and the new
/// game's `warnings` (last, as in every answer that has them) name them in the words `clue-db
/// play --words` warns with (they were dropped silently), and so do `/api/board`'s. A deck of
/// known words warns of none.
#[test]
fn a_new_game_warns_of_the_words_it_leaves_out_as_play_does() {
    let s = Served::start(db());
    let known = crate::common::column(
        &crate::common::open(db()),
        "SELECT term FROM terms WHERE covered = 1 ORDER BY term LIMIT 30",
    );
    let mut words = known.clone();
    words.extend(["qzxqzxword".to_string(), "zzzzqx".to_string()]);
    let r = post(&s, "/api/new-game", json!({"seed": 11, "words": words}));
    let g = expect(&r, 200);
    assert_eq!(
        keys_in_order(&r.text()).last().map(String::as_str),
        Some("warnings")
    );
    let warnings: Vec<String> = serde_json::from_value(g["warnings"].clone()).unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with("\"qzxqzxword\" is not a word the database knows")
            && warnings[0].ends_with("left out of the boards of the deck")
            && warnings[1].starts_with("\"zzzzqx\""),
        "{warnings:?}"
    );
    for c in g["cards"].as_array().unwrap() {
        assert!(
            known.contains(&c["word"].as_str().unwrap().to_string()),
            "{g}"
        );
    }
    // The CLI's warnings for the same words, its list named by its file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deck.txt");
    std::fs::write(&file, words.join("\n")).unwrap();
    let run = clue_db([
        "play",
        "--seed",
        "11",
        "--json",
        "--words",
        utf8(&file),
        "--db",
        utf8(db()),
    ])
    .ok();
    let cli: Vec<String> = run
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("clue-db: warning: "))
        .map(|l| l.replace(utf8(&file), "the deck"))
        .collect();
    assert_eq!(warnings, cli, "{}", run.stderr);
    // Assist mode's boards come from the same deck, with the same warnings.
    let b = expect(
        &post(&s, "/api/board", json!({"seed": 13, "words": words})),
        200,
    );
    assert_eq!(b["warnings"], json!(warnings), "{b}");
    let g = expect(
        &post(&s, "/api/new-game", json!({"seed": 12, "words": known})),
        200,
    );
    assert_eq!(g["warnings"], json!([]), "{g}");
}

#[test]
fn a_missing_or_foreign_database_stops_the_server_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.sqlite");
    let run = clue_db(["serve", "--port", "0", "--db", utf8(&missing)]).failed();
    assert!(run.stderr.contains("no database here"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "no URL printed: {}", run.stdout);
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database").unwrap();
    let run = clue_db(["serve", "--port", "0", "--db", utf8(&text)]).failed();
    assert!(run.stderr.contains("notes.txt"), "{}", run.stderr);
    // A SQLite file of another program.
    let other = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        .unwrap();
    let run = clue_db(["serve", "--port", "0", "--db", utf8(&other)]).failed();
    assert!(
        run.stderr.contains("not a clue-db database"),
        "{}",
        run.stderr
    );
    // A port already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let run = clue_db(["serve", "--port", &port, "--db", utf8(db())]).failed();
    assert!(run.stderr.contains("listening on"), "{}", run.stderr);
}
