//! `--strategy setnet` on the Wikispeedia database: the `setnet` stage's table and figures,
//! answers that are legal or null on boards drawn from the card words, `explain`'s distances,
//! and a database without the table (other strategies unharmed, setnet naming the table).

use crate::common::{clue_db, count, meta, open, utf8};
use crate::db;
use query::legality::Legality;
use query::store_knowledge::TextLexicon;
use serde_json::Value;
use std::path::Path;

#[test]
fn the_stage_stores_weights_and_figures() {
    let c = open(db());
    assert!(count(&c, "SELECT count(*) FROM setnet_weights") >= 14);
    assert_eq!(
        count(
            &c,
            "SELECT count(*) FROM setnet_weights WHERE name = 'clue_vectors' \
             AND length(data) = 4 * (SELECT count(*) FROM clue_words) * 32"
        ),
        1
    );
    for key in [
        "steps",
        "seed",
        "first_loss",
        "last_loss",
        "seconds_training",
    ] {
        assert!(
            meta(&c, &format!("setnet.{key}")).is_some_and(|v| !v.is_empty()),
            "setnet.{key}"
        );
    }
    let first: f64 = meta(&c, "setnet.first_loss").unwrap().parse().unwrap();
    let last: f64 = meta(&c, "setnet.last_loss").unwrap().parse().unwrap();
    assert!(last < first, "training lowered the loss: {first} -> {last}");
}

#[test]
fn setnet_answers_every_board_legally_or_with_null() {
    let run = clue_db(["bench-suggest", "--print-boards", "25", "--db", utf8(db())]).ok();
    let mut said = 0;
    for line in run.stdout.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (pos, neg, assassin, neutral) = (f[0], f[1], f[2], f[3]);
        let out = clue_db([
            "suggest",
            "--strategy",
            "setnet",
            "--json",
            "--pos",
            pos,
            "--neg",
            neg,
            "--assassin",
            assassin,
            "--neutral",
            neutral,
            "--db",
            utf8(db()),
        ])
        .ok();
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["strategy"], "setnet");
        let Some(clue) = v["clue"].as_str() else {
            assert_eq!(v["count"], 0, "{v}");
            continue;
        };
        said += 1;
        let board: Vec<&str> = [pos, neg, assassin, neutral]
            .iter()
            .flat_map(|l| l.split(','))
            .filter(|w| !w.is_empty())
            .collect();
        let rules = Legality::new(&board, &TextLexicon);
        assert_eq!(rules.check(clue), Ok(()), "{clue} on {line}");
        let targets: Vec<&str> = v["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(v["count"].as_u64().unwrap() as usize, targets.len());
        assert!(!targets.is_empty());
        for t in targets {
            assert!(pos.split(',').any(|p| p == t), "{t} is not a team card");
        }
    }
    assert!(said > 0, "setnet said no clue on 25 boards");
}

#[test]
fn explain_shows_the_set_network_distances() {
    let out = clue_db([
        "explain",
        "fruit",
        "apple",
        "lemon",
        "--json",
        "--db",
        utf8(db()),
    ])
    .ok();
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let subset = v["setnet"]["subset"].as_array().unwrap();
    assert_eq!(subset.len(), 2);
    for s in subset {
        let d = s[1].as_f64().unwrap();
        assert!((0.0..=2.0).contains(&d), "{s}");
    }
    assert!(!v["setnet"]["nearest_cards"].as_array().unwrap().is_empty());
}

#[test]
fn a_database_without_the_table_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("old.sqlite");
    std::fs::copy(db(), &copy).unwrap();
    rusqlite::Connection::open(&copy)
        .unwrap()
        .execute_batch("DROP TABLE setnet_weights")
        .unwrap();
    let args = |strategy: &'static str| {
        vec![
            "suggest",
            "--pos",
            "apple,lemon",
            "--neg",
            "fire",
            "--strategy",
            strategy,
        ]
    };
    let mut ok = args("relatedness");
    ok.extend(["--db", utf8(&copy)]);
    clue_db(&ok).ok();
    let mut bad = args("setnet");
    bad.extend(["--db", utf8(&copy)]);
    let run = clue_db(&bad);
    assert_ne!(run.code, Some(101), "panicked: {}", run.stderr);
    let run = run.failed();
    assert!(
        run.stderr.contains("setnet_weights") && run.stderr.contains("pipeline setnet"),
        "{}",
        run.stderr
    );
    // `eval` checks every strategy before its first game: it fails at once naming setnet and
    // why, and writes no `--turns` (it once played every relatedness game first, then failed
    // with nothing printed).
    let turns = dir.path().join("turns.jsonl");
    let run = clue_db([
        "eval",
        "--games",
        "2",
        "--strategies",
        "relatedness,setnet",
        "--turns",
        utf8(&turns),
        "--db",
        utf8(&copy),
    ])
    .failed();
    assert!(
        run.stderr.contains("strategy setnet cannot run")
            && run.stderr.contains("before any game")
            && run.stderr.contains("setnet_weights"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout, "");
    assert!(!turns.exists(), "no --turns file for games never played");
    // Tampered: one tensor cut short is an error naming the table and the tensor.
    let cut = dir.path().join("cut.sqlite");
    std::fs::copy(db(), &cut).unwrap();
    rusqlite::Connection::open(&cut)
        .unwrap()
        .execute_batch("UPDATE setnet_weights SET data = x'0000' WHERE name = 'h2.bias'")
        .unwrap();
    let mut bad = args("setnet");
    bad.extend(["--db", utf8(&cut)]);
    let run = clue_db(&bad);
    assert_ne!(run.code, Some(101), "panicked: {}", run.stderr);
    let run = run.failed();
    assert!(
        run.stderr.contains("setnet_weights") && run.stderr.contains("h2.bias"),
        "{}",
        run.stderr
    );
    // `explain` answers without the network, and says why (it left it out silently).
    let explain =
        |db: &Path| clue_db(["explain", "fruit", "apple", "--json", "--db", utf8(db)]).ok();
    let run = explain(&cut);
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v["setnet"].is_null(), "{v}");
    let warning = v["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains("set network is not shown")
            && warning.contains("setnet_weights")
            && warning.contains("h2.bias"),
        "{v}"
    );
    assert!(run.stderr.contains("h2.bias"), "{}", run.stderr);
    // A database built before the network has nothing to say about it.
    let v: Value = serde_json::from_str(&explain(&copy).stdout).unwrap();
    assert!(
        v["setnet"].is_null() && v["warnings"] == serde_json::json!([]),
        "{v}"
    );

    // Issue 46: finite but huge weights (3e38) gave `"clue": null` and eval played the
    // fallback's clues under setnet's name. Now every command names the table.
    let huge = dir.path().join("huge.sqlite");
    std::fs::copy(db(), &huge).unwrap();
    let c = rusqlite::Connection::open(&huge).unwrap();
    let len: i64 = c
        .query_row(
            "SELECT length(data) FROM setnet_weights WHERE name = 'clue_vectors'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let data: Vec<u8> = (0..len / 4).flat_map(|_| 3e38f32.to_le_bytes()).collect();
    c.execute(
        "UPDATE setnet_weights SET data = ?1 WHERE name = 'clue_vectors'",
        [data],
    )
    .unwrap();
    drop(c);
    let mut bad = args("setnet");
    bad.extend(["--db", utf8(&huge)]);
    let eval = [
        "eval",
        "--strategies",
        "setnet",
        "--games",
        "1",
        "--db",
        utf8(&huge),
    ];
    for run in [clue_db(&bad), clue_db(eval)] {
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains("setnet_weights") && run.stderr.contains("finite"),
            "{}",
            run.stderr
        );
    }
    let v: Value = serde_json::from_str(&explain(&huge).stdout).unwrap();
    assert!(v["setnet"].is_null(), "{v}");
    assert!(v["warnings"][0].as_str().unwrap().contains("finite"), "{v}");
}
