//! The relatedness strategy (the default) through the binary (issue 14): every card word is
//! answered, unknown words are warnings, `--given` is history, and every target relates to the
//! clue more than every card to avoid in the `relatedness` table.

use crate::common::keys_in_order;
use crate::common::{column, inputs, open};
use crate::db;
use crate::query::{query, suggest, targets};
use query::game::SplitMix64;
use query::legality::Legality;
use query::store_knowledge::TextLexicon;
use rusqlite::{Connection, OptionalExtension};
use serde_json::Value;

/// The card words of `pipeline/terms.txt`, as listed.
fn card_words() -> Vec<String> {
    std::fs::read_to_string(inputs().join("terms.txt"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// The stored relatedness of a card word and a clue word.
fn relatedness(c: &Connection, term: &str, clue: &str) -> Option<f64> {
    c.query_row(
        "SELECT score FROM relatedness WHERE term = ?1 AND clue = ?2",
        [term, clue],
        |r| r.get(0),
    )
    .optional()
    .unwrap()
}

/// A clue word's risk: the score an unknown card word is assumed to have with it.
fn risk(c: &Connection, clue: &str) -> f64 {
    c.query_row("SELECT risk FROM clue_words WHERE word = ?1", [clue], |r| {
        r.get(0)
    })
    .unwrap_or_else(|e| panic!("{clue} is no clue word: {e}"))
}

/// The suggestion and its alternatives.
fn all_suggestions(v: &Value) -> Vec<&Value> {
    std::iter::once(v)
        .chain(v["alternatives"].as_array().unwrap())
        .filter(|s| !s["clue"].is_null())
        .collect()
}

/// The relatedness of `card` with `clue`, or the clue's risk for a card word the database
/// does not know (how the strategy counts it).
fn score_or_risk(c: &Connection, card: &str, clue: &str) -> f64 {
    relatedness(c, card, clue).unwrap_or_else(|| risk(c, clue))
}

/// Checks every suggestion of a relatedness answer: legal on the board, targets among the
/// team's known cards, each relating to the clue more than every card to avoid.
fn check_answer(c: &Connection, v: &Value, pos: &[&str], avoid: &[&str]) {
    let board: Vec<&str> = pos.iter().chain(avoid).copied().collect();
    let rules = Legality::new(&board, &TextLexicon);
    for s in all_suggestions(v) {
        let clue = s["clue"].as_str().unwrap();
        assert_eq!(rules.check(clue), Ok(()), "{clue}: {v}");
        let t = targets(s);
        assert!(!t.is_empty() && s["count"] == t.len(), "{s}");
        let worst_avoid = avoid
            .iter()
            .map(|a| score_or_risk(c, a, clue))
            .fold(f64::NEG_INFINITY, f64::max);
        for target in t {
            assert!(pos.contains(&target), "{target} is not a team card: {s}");
            let sc = relatedness(c, target, clue)
                .unwrap_or_else(|| panic!("target {target} has no relatedness with {clue}"));
            assert!(
                sc > worst_avoid,
                "{clue}/{target}: {sc} not above the best card to avoid, {worst_avoid}"
            );
        }
    }
}

#[test]
fn fifty_random_boards_of_all_card_words_get_a_legal_clue() {
    let c = open(db());
    let cards = card_words();
    assert_eq!(cards.len(), 400);
    // The stage covered every one of them.
    let related = column(&c, "SELECT term FROM relatedness_vectors ORDER BY term");
    let mut sorted = cards.clone();
    sorted.sort();
    assert_eq!(related, sorted);
    let mut rng = SplitMix64::new(14);
    for board in 0..50 {
        let mut pool = cards.clone();
        rng.shuffle(&mut pool);
        let (pos, rest) = pool[..25].split_at(9);
        let (neg, rest) = rest.split_at(8);
        let (neutral, assassin) = rest.split_at(7);
        let run = suggest(
            &pos.join(","),
            &neg.join(","),
            &[
                "--neutral",
                &neutral.join(","),
                "--assassin",
                &assassin[0],
                "--json",
            ],
        )
        .ok();
        assert_eq!(run.stderr, "", "board {board}: no warning for card words");
        let v = run.json();
        assert!(v["clue"].is_string(), "board {board}: no clue: {v}");
        assert_eq!(v["strategy"], "relatedness");
        assert_eq!(v["warnings"], serde_json::json!([]));
        let pos: Vec<&str> = pos.iter().map(String::as_str).collect();
        let avoid: Vec<&str> = neg
            .iter()
            .chain(neutral)
            .chain(assassin)
            .map(String::as_str)
            .collect();
        check_answer(&c, &v, &pos, &avoid);
    }
}

#[test]
fn unknown_words_are_warnings_and_risks() {
    let c = open(db());
    let (pos, neg, neutral) = ("apple,lemon,moon", "fire,war", "india");
    let plain = suggest(pos, neg, &["--neutral", neutral, "--json"]).ok();
    assert_eq!(plain.stderr, "");
    // An unknown team card: a warning naming it, exit 0, never a target, and the answer
    // otherwise as without it.
    let run = suggest(
        &format!("{pos},qzxvword"),
        neg,
        &["--neutral", neutral, "--json"],
    )
    .ok();
    assert!(
        run.stderr.contains("warning") && run.stderr.contains("\"qzxvword\""),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let v = run.json();
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v}");
    assert!(warnings[0].as_str().unwrap().contains("\"qzxvword\""));
    let mut without_warnings = v.clone();
    without_warnings["warnings"] = serde_json::json!([]);
    assert_eq!(without_warnings, plain.json());
    // The keys of the contract, in order, then "warnings".
    let alts = v["alternatives"].as_array().unwrap().len();
    let order = crate::common::answer_keys(alts);
    assert_eq!(keys_in_order(&run.stdout), order, "{}", run.stdout);
    // Unknown cards to avoid, of each kind: named, and counted at each clue's risk.
    let run = suggest(
        pos,
        &format!("{neg},zzopponent"),
        &[
            "--neutral",
            &format!("{neutral},zzbystander"),
            "--assassin",
            "zzassassin",
            "--json",
        ],
    )
    .ok();
    let v = run.json();
    for w in ["zzopponent", "zzbystander", "zzassassin"] {
        assert!(run.stderr.contains(&format!("{w:?}")), "{}", run.stderr);
    }
    assert_eq!(v["warnings"].as_array().unwrap().len(), 3, "{v}");
    let pos: Vec<&str> = pos.split(',').collect();
    let avoid = [
        "fire",
        "war",
        "zzopponent",
        "india",
        "zzbystander",
        "zzassassin",
    ];
    check_answer(&c, &v, &pos, &avoid);
    // The text form says the same on stderr, the clue on stdout.
    let text = suggest(
        &pos.join(","),
        neg,
        &["--neutral", neutral, "--assassin", "zzassassin"],
    )
    .ok();
    assert!(text.stderr.contains("\"zzassassin\""), "{}", text.stderr);
    assert!(!text.stdout.contains("zzassassin"), "{}", text.stdout);
}

#[test]
fn given_clues_are_not_suggested_again() {
    for strategy in ["relatedness", "threshold"] {
        let ask = |given: &str| {
            suggest(
                "apple,lemon,moon",
                "fire,war",
                &[
                    "--strategy",
                    strategy,
                    "--given",
                    given,
                    "--top",
                    "3",
                    "--json",
                ],
            )
            .ok()
            .json()
        };
        let clues = |v: &Value| -> Vec<String> {
            all_suggestions(v)
                .iter()
                .map(|s| s["clue"].as_str().unwrap().to_string())
                .collect()
        };
        let first = ask("");
        let before = clues(&first);
        assert_eq!(before.len(), 3, "{strategy}: {first}");
        // The best clue, given: gone, the next one leads.
        let v = ask(&before[0]);
        assert!(!clues(&v).contains(&before[0]), "{strategy}: {v}");
        assert_eq!(clues(&v)[0], before[1], "{strategy}: {v}");
        // Several, as typed (case, spaces).
        let typed = format!(" {} , {}", before[0].to_uppercase(), before[1]);
        let v = ask(&typed);
        let after = clues(&v);
        assert!(
            !after.contains(&before[0]) && !after.contains(&before[1]),
            "{strategy}: {v}"
        );
        assert_eq!(after[0], before[2], "{strategy}: {v}");
    }
}

#[test]
fn a_card_given_two_colours_is_refused() {
    let run = query(&[
        "suggest",
        "--pos",
        "apple",
        "--neg",
        "fire",
        "--neutral",
        "fire",
    ])
    .failed();
    assert!(
        run.stderr.contains("\"fire\"") && run.stderr.contains("--neutral"),
        "{}",
        run.stderr
    );
}

#[test]
fn threshold_and_herfindahl_count_an_unknown_card_as_a_risk() {
    let c = open(db());
    let pos = ["apple", "lemon", "moon"];
    // The risk of an unknown card for a clue: its best score with a covered term other than
    // the team's cards.
    let risk = |clue: &str| -> f64 {
        c.query_row(
            "SELECT coalesce(max(score), 0) FROM scores WHERE clue = ?1 \
             AND term NOT IN ('apple', 'lemon', 'moon')",
            [clue],
            |r| r.get(0),
        )
        .unwrap()
    };
    let score = |clue: &str, term: &str| -> f64 {
        c.query_row(
            "SELECT score FROM scores WHERE clue = ?1 AND term = ?2",
            [clue, term],
            |r| r.get(0),
        )
        .optional()
        .unwrap()
        .unwrap_or(0.0)
    };
    for strategy in ["threshold", "herfindahl"] {
        let run = suggest(
            &pos.join(","),
            "fire,zzunknown",
            &["--strategy", strategy, "--top", "10", "--json"],
        )
        .ok();
        assert!(run.stderr.contains("\"zzunknown\""), "{}", run.stderr);
        let v = run.json();
        for s in all_suggestions(&v) {
            let clue = s["clue"].as_str().unwrap();
            for t in targets(s) {
                assert!(
                    score(clue, t) > risk(clue),
                    "{strategy}: {clue}/{t} {} not above the unknown card's {}",
                    score(clue, t),
                    risk(clue)
                );
            }
        }
    }
}

/// A tiny word2vec file in `dir` (a few card words, and clue words it may or may not know), as
/// a `--guesser` spec.
fn tiny_vectors(dir: &std::path::Path) -> String {
    let path = dir.join("tiny.txt");
    std::fs::write(
        &path,
        "4 3\napple 1 0 0\nlemon 0.9 0.1 0\nfire 0 1 0\nfruit 1 0.1 0\n",
    )
    .unwrap();
    format!("vectors:{}", crate::common::utf8(&path))
}

#[test]
fn eval_with_an_outside_guesser() {
    let dir = tempfile::tempdir().unwrap();
    let spec = tiny_vectors(dir.path());
    let v = query(&[
        "eval",
        "--games",
        "2",
        "--strategies",
        "relatedness,threshold",
        "--guesser",
        "own",
        "--guesser",
        &spec,
        "--json",
    ])
    .ok()
    .json();
    let reports = v["strategies"].as_array().unwrap();
    let pairs: Vec<(&str, &str)> = reports
        .iter()
        .map(|r| {
            (
                r["guesser"].as_str().unwrap(),
                r["strategy"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("own", "relatedness"),
            ("own", "threshold"),
            ("tiny", "relatedness"),
            ("tiny", "threshold")
        ]
    );
    for r in reports {
        assert_eq!(r["games"], 2);
        let (correct, incorrect) = (
            r["correct"].as_u64().unwrap(),
            r["incorrect"].as_u64().unwrap(),
        );
        // The tiny vectors know 3 card words: it can never reveal more than those.
        if r["guesser"] == "tiny" {
            assert!(correct + incorrect <= 2 * 3, "{r}");
        }
    }
    // It never wins: its turns per win are none, `-` in the text (0.000 read as a figure).
    let text = query(&[
        "eval",
        "--games",
        "2",
        "--strategies",
        "relatedness",
        "--guesser",
        &spec,
    ])
    .ok()
    .stdout;
    let row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("relatedness"))
        .unwrap_or_else(|| panic!("{text}"))
        .split_whitespace()
        .collect();
    assert_eq!((row[1], row[2], row[4]), ("tiny", "0.000", "-"), "{text}");
    // A bad spec or a bad file is an error naming it.
    let run = query(&["eval", "--games", "1", "--guesser", "glove"]).failed();
    assert!(run.stderr.contains("vectors:PATH"), "{}", run.stderr);
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "2 3\napple 1 0 0\n").unwrap();
    let run = query(&[
        "eval",
        "--games",
        "1",
        "--guesser",
        &format!("vectors:{}", crate::common::utf8(&bad)),
    ])
    .failed();
    assert!(
        run.stderr.contains("error: --guesser \"vectors:") && run.stderr.contains("bad.txt"),
        "{}",
        run.stderr
    );
    // An empty path names the flag and what it wants, not a file called "".
    let run = query(&["eval", "--games", "1", "--guesser", "vectors:"]).failed();
    assert!(
        run.stderr
            .contains("error: --guesser vectors: names no file"),
        "{}",
        run.stderr
    );
    // Two guessers of one name were one row of the report, one key of the records' picks.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let twin = other.join("tiny.txt");
    std::fs::copy(spec.strip_prefix("vectors:").unwrap(), &twin).unwrap();
    let twin = format!("vectors:{}", crate::common::utf8(&twin));
    for (a, b) in [("own", "own"), (spec.as_str(), twin.as_str())] {
        let run = query(&["eval", "--games", "1", "--guesser", a, "--guesser", b]).failed();
        assert!(
            run.stderr.contains("are both named") && run.stderr.contains("give each guesser once"),
            "{}",
            run.stderr
        );
    }
    // A guesser that knows none of the cards would lose every game by its file.
    let upper = dir.path().join("upper.txt");
    std::fs::write(&upper, "2 3\nAPPLE 1 0 0\nMOON 0 1 0\n").unwrap();
    let upper = format!("vectors:{}", crate::common::utf8(&upper));
    for cmd in [&["eval", "--games", "1"][..], &["play"]] {
        let mut args = cmd.to_vec();
        args.extend(["--guesser", upper.as_str()]);
        let run = query(&args).failed();
        assert!(
            run.stderr.contains("knows none of the") && run.stderr.contains("upper.txt"),
            "{cmd:?}: {}",
            run.stderr
        );
    }
}

/// `eval` of 2 games of relatedness, guessed by our own knowledge and the vectors `spec`, each
/// turn written to `turns`, with `extra` flags.
fn eval_two_games_with_turns(
    spec: &str,
    turns: &std::path::Path,
    extra: &[&str],
) -> crate::common::Run {
    let mut args = vec![
        "eval",
        "--games",
        "2",
        "--strategies",
        "relatedness",
        "--guesser",
        "own",
        "--guesser",
        spec,
        "--turns",
        crate::common::utf8(turns),
    ];
    args.extend(extra);
    query(&args)
}

/// The JSON values of a file of one value a line.
fn json_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_eval_stopped_midway_leaves_whole_lines() {
    // Written a piece at a time, the last line was cut wherever the buffer filled when Ctrl-C
    // came, and a reader of the lines failed on it. And Ctrl-C ended the process: every figure
    // of the run was lost. Now it stops after the game being played and reports the games
    // played, those whose turns the file holds, then exits 130.
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns.jsonl");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_clue-db"))
        .args([
            "eval",
            "--games",
            "100000",
            "--strategies",
            "relatedness",
            "--turns",
        ])
        .arg(&turns)
        .args(["--json", "--db"])
        .arg(db())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Several buffers' worth reached the file.
    let started = std::time::Instant::now();
    while std::fs::metadata(&turns).map_or(0, |m| m.len()) < 64 << 10 {
        assert!(
            started.elapsed().as_secs() < 300 && child.try_wait().unwrap().is_none(),
            "eval wrote no turns"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Bounded: where SIGINT was ignored (a test binary started with `&` by a shell without job
    // control passes that on) and eval kept the default action, it ran on and this waited for
    // ever while the file grew; eval's own handler now takes the signal even so.
    let stopped = crate::common::poll_bounded(std::time::Duration::from_secs(60), || {
        child.try_wait().unwrap()
    });
    let Some(status) = stopped else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("eval ran on 60 s after SIGINT: its handler did not stop it");
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopping after the game being played"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("the report, as JSON");
    let games = v["strategies"][0]["games"].as_u64().unwrap();
    assert_eq!(
        v["interrupted"],
        serde_json::json!({"played": games, "of": 100000, "signal": 2}),
        "{v}"
    );
    let text = std::fs::read_to_string(&turns).unwrap();
    assert!(
        text.ends_with('\n'),
        "a cut last line: {:?}",
        &text[text.len() - 80..]
    );
    let mut seeds = std::collections::HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let t = serde_json::from_str::<Value>(line)
            .unwrap_or_else(|e| panic!("line {}: {e}: {line}", n + 1));
        seeds.insert(t["seed"].as_u64().unwrap());
    }
    // The games reported are those played whole: each game's turns, and no other's.
    assert_eq!(seeds.len() as u64, games);
}

#[test]
fn eval_turns_are_json_lines_with_every_guessers_picks() {
    let dir = tempfile::tempdir().unwrap();
    let spec = tiny_vectors(dir.path());
    let turns = dir.path().join("turns.jsonl");
    let v = eval_two_games_with_turns(&spec, &turns, &["--json"])
        .ok()
        .json();
    // Only our own guesser's figures are called optimistic.
    let note = v["note"].as_str().unwrap();
    assert!(
        note.contains("our own guesser's figures are optimistic")
            && note.contains("outside guessers' are not"),
        "{v}"
    );
    let lines = json_lines(&turns);
    // One line per turn played, for each guesser's games.
    let played: u64 = v["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["mean_turns"].as_f64().unwrap() * 2.0).round() as u64)
        .sum();
    assert_eq!(lines.len() as u64, played);
    for l in &lines {
        let red = l["red"].as_array().unwrap();
        assert!(!red.is_empty() && red.len() <= 9, "{l}");
        assert_eq!(l["strategy"], "relatedness");
        if !l["clue"].is_string() {
            assert_eq!(l["outcome"], "pass");
            continue;
        }
        // The clue's targets and picks ([`check_clue`]); the playing guesser's reveals begin
        // with its picks.
        check_clue(l, red);
        let picks = l["picks"].as_object().unwrap();
        let own = l["guesser"].as_str().unwrap();
        let revealed: Vec<&Value> = l["revealed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r[0])
            .collect();
        let mine: Vec<&Value> = picks[own].as_array().unwrap().iter().collect();
        assert_eq!(revealed[..], mine[..revealed.len()], "{l}");
        let outcome = l["outcome"].as_str().unwrap();
        assert!(
            ["complete", "stopped", "wrong", "assassin", "won"].contains(&outcome),
            "{l}"
        );
        if outcome == "assassin" {
            assert_eq!(
                l["revealed"].as_array().unwrap().last().unwrap()[1],
                "assassin"
            );
        }
    }
}

/// A clue of an `eval --turns` line (the clue given, or one of its alternatives): its targets
/// are red cards, as many as its number; both guessers' picks are there, none longer than it.
fn check_clue(c: &Value, red: &[Value]) {
    let number = c["number"].as_u64().unwrap() as usize;
    let targets = c["targets"].as_array().unwrap();
    assert_eq!(targets.len(), number, "{c}");
    assert!(targets.iter().all(|t| red.contains(t)), "{c}");
    let picks = c["picks"].as_object().unwrap();
    assert_eq!(picks.len(), 2, "{c}");
    assert!(
        picks
            .values()
            .all(|p| p.as_array().unwrap().len() <= number),
        "{c}"
    );
}

/// `eval --alternatives N`: each turn also holds the strategy's next N suggestions for the
/// board, exactly as `suggest --top` ranks them after the clue given, each with every guesser's
/// picks; without `--turns` the flag is refused.
#[test]
fn eval_turns_hold_the_strategys_next_suggestions_with_every_guessers_picks() {
    let dir = tempfile::tempdir().unwrap();
    let spec = tiny_vectors(dir.path());
    let turns = dir.path().join("turns.jsonl");
    eval_two_games_with_turns(&spec, &turns, &["--alternatives", "3"]).ok();
    let lines = json_lines(&turns);
    let (mut firsts, mut with_alternatives) = (0, 0);
    // Alternatives whose first pick by our own guesser is a target, of all alternatives.
    let mut own_first = (0, 0);
    for l in lines.iter().filter(|l| l["clue"].is_string()) {
        // Left out when there is none (a fallback clue, or a strategy with one clue to give).
        let alternatives = l["alternatives"].as_array().cloned().unwrap_or_default();
        assert!(alternatives.len() <= 3, "{l}");
        with_alternatives += !alternatives.is_empty() as usize;
        let red = l["red"].as_array().unwrap();
        let mut last = l["score"].as_f64().unwrap();
        if last < 0.0 {
            assert!(alternatives.is_empty(), "a fallback clue has none: {l}");
        }
        for a in &alternatives {
            assert_ne!(a["clue"], l["clue"], "{l}");
            check_clue(a, red);
            let targets = a["targets"].as_array().unwrap();
            let score = a["score"].as_f64().unwrap();
            assert!(score <= last, "ranked after the one before: {l}");
            last = score;
            let picks = a["picks"].as_object().unwrap();
            // Our own guesser reads a clue by first and second order together
            // (`relatedness_reading`), not by the spymaster's score: shown our own clue, it
            // takes a target first nearly always (191 of 192 here), not always (`blade` for
            // bark: it reads grass).
            own_first.0 += targets.contains(&picks["own"][0]) as usize;
            own_first.1 += 1;
        }
        // On the first turn nothing was given yet: the alternatives are `suggest`'s.
        if l["turn"] == 1 {
            firsts += 1;
            let words = |key: &str| -> String {
                let v = &l[key];
                match v.as_array() {
                    Some(a) => a
                        .iter()
                        .map(|w| w.as_str().unwrap())
                        .collect::<Vec<_>>()
                        .join(","),
                    None => v.as_str().unwrap().to_string(),
                }
            };
            let (pos, neg, neutral, assassin) = (
                words("red"),
                words("blue"),
                words("bystander"),
                words("assassin"),
            );
            let answer = query(&[
                "suggest",
                "--pos",
                &pos,
                "--neg",
                &neg,
                "--neutral",
                &neutral,
                "--assassin",
                &assassin,
                "--top",
                "4",
                "--json",
            ])
            .ok()
            .json();
            assert_eq!(answer["clue"], l["clue"]);
            let theirs = answer["alternatives"].as_array().unwrap();
            assert_eq!(theirs.len(), alternatives.len(), "{answer}");
            for (a, b) in alternatives.iter().zip(theirs) {
                assert_eq!(
                    (&a["clue"], &a["number"], &a["targets"], &a["score"]),
                    (&b["clue"], &b["count"], &b["targets"], &b["score"])
                );
            }
        }
    }
    assert_eq!(firsts, lines.iter().filter(|l| l["turn"] == 1).count());
    assert!(firsts >= 2, "{} lines", lines.len());
    assert!(
        own_first.1 > 0 && own_first.0 * 20 >= own_first.1 * 19,
        "our own guesser took a target first for {} of {} alternatives",
        own_first.0,
        own_first.1
    );
    assert!(
        with_alternatives >= firsts,
        "{with_alternatives} of {} lines",
        lines.len()
    );
    // Without --alternatives a line holds no alternatives (as before the flag).
    let plain = dir.path().join("plain.jsonl");
    query(&[
        "eval",
        "--games",
        "1",
        "--turns",
        crate::common::utf8(&plain),
    ])
    .ok();
    let text = std::fs::read_to_string(&plain).unwrap();
    assert!(!text.is_empty() && !text.contains("alternatives"), "{text}");
    let run = query(&["eval", "--games", "1", "--alternatives", "2"]).failed();
    assert!(run.stderr.contains("--turns"), "{}", run.stderr);
}

#[test]
fn eval_scenarios_reads_peoples_clues() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.tsv");
    // Two boards of card words with a person's clue; the second clue is no word we know.
    std::fs::write(
        &file,
        "id\tteam\tavoid\tclue\na\tapple,lemon\tfire,war,film,india\tfruit\nb\tmoon,ice\tfire,opera\txqzzy\n",
    )
    .unwrap();
    let eval = |more: &[&str]| {
        let mut args = vec![
            "eval",
            "--scenarios",
            crate::common::utf8(&file),
            "--strategies",
            "relatedness",
            "--guesser",
            "own",
            "--json",
        ];
        args.extend(more);
        query(&args).ok().json()
    };
    let v = eval(&[]);
    assert_eq!(v["scenarios"], 2);
    let own = &v["understands"]["own"];
    assert_eq!(own["of"], 2);
    assert!(
        own["hits"].as_u64().unwrap() <= 1,
        "nobody understands xqzzy: {v}"
    );
    let followed = &v["followed"]["relatedness"]["own"];
    assert_eq!(followed["all_team"]["of"], 2);
    // Our own clue, judged by our own knowledge: its first pick is always a team card.
    assert_eq!(followed["first_wrong"]["hits"], 0, "{v}");

    // One record a scenario with --turns, parsed back: the same picks the report counts.
    let records = dir.path().join("records.jsonl");
    let again = eval(&["--turns", crate::common::utf8(&records)]);
    assert_eq!(again, v, "the records change nothing in the report");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&records)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["id"], "a");
    assert_eq!(lines[0]["team"], serde_json::json!(["apple", "lemon"]));
    assert_eq!(lines[0]["avoid"].as_array().unwrap().len(), 4);
    assert_eq!(lines[1]["clue"], "xqzzy");
    assert_eq!(
        lines[1]["understood"]["own"],
        serde_json::json!([]),
        "nobody can guess for an unknown clue"
    );
    let mut exact = 0;
    let mut all_team = 0;
    for rec in &lines {
        let team: Vec<&str> = rec["team"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        let in_team = |picks: &serde_json::Value| {
            picks
                .as_array()
                .unwrap()
                .iter()
                .take_while(|w| team.contains(&w.as_str().unwrap()))
                .count()
        };
        let understood = &rec["understood"]["own"];
        exact += (in_team(understood) == team.len()) as u64;
        let ours = &rec["ours"][0];
        assert_eq!(ours["strategy"], "relatedness", "{rec}");
        let number = ours["number"].as_u64().unwrap() as usize;
        assert_eq!(ours["targets"].as_array().unwrap().len(), number, "{rec}");
        let picks = &ours["picks"]["own"];
        assert!(picks.as_array().unwrap().len() <= number, "{rec}");
        all_team += (in_team(picks) == team.len()) as u64;
    }
    assert_eq!(exact, own["hits"].as_u64().unwrap(), "{v}");
    assert_eq!(
        all_team,
        followed["all_team"]["hits"].as_u64().unwrap(),
        "{v}"
    );
    let run = query(&[
        "eval",
        "--scenarios",
        crate::common::utf8(&file),
        "--turns",
        crate::common::utf8(&records),
        "--alternatives",
        "2",
    ])
    .failed();
    assert!(run.stderr.contains("--alternatives"), "{}", run.stderr);
    // The scenarios are the boards: an option of games was once ignored without a word.
    for games in [&["--games", "7"][..], &["--words", "duet"], &["--opponent"]] {
        let mut args = vec!["eval", "--scenarios", crate::common::utf8(&file)];
        args.extend(games);
        let run = query(&args).failed();
        assert!(
            run.stderr
                .contains(&format!("cannot be used with '{}", games[0])),
            "{}",
            run.stderr
        );
    }
    let run = query(&["eval", "--scenarios", "/nonexistent/s.tsv"]).failed();
    assert!(
        run.stderr
            .contains("error: --scenarios: opening /nonexistent/s.tsv"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_board_with_nothing_to_avoid_gets_a_clue_on_its_own_merit() {
    // With no card to avoid every clue was infinitely safe, and the alphabetically first clue
    // word won (`aa 2`, then `aachen`). Now the clue's risk (what a tenth of all card words
    // score with it) stands in as a bystander: every target scores above it.
    let c = open(db());
    let v = query(&["suggest", "--pos", "apple,water", "--json", "--top", "5"])
        .ok()
        .json();
    let first: String = c
        .query_row(
            "SELECT word FROM clue_words ORDER BY word LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let all = all_suggestions(&v);
    assert!(!all.is_empty(), "{v}");
    for s in all {
        let clue = s["clue"].as_str().unwrap();
        assert_ne!(clue, first, "{v}");
        for t in targets(s) {
            let score = relatedness(&c, t, clue).unwrap();
            assert!(
                score > risk(&c, clue),
                "{clue}/{t}: {score} vs risk {}",
                risk(&c, clue)
            );
        }
    }
}
