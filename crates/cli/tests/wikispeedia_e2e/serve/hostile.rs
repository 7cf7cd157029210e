//! What a hostile client, a hostile page or a rebuild under the server's feet tried (issue 22):
//! idle and half-sent connections by the score, Ctrl-C while one is held, a database renamed
//! over the served one, requests naming another host or origin, a game's colours asked for by
//! its seed, and words of 16 KB.

use super::{Served, Start};
use crate::common::{clue_db, utf8};
use crate::db;
use serde_json::{Value, json};
use serve::client::{self, Connection, Response};
use std::path::Path;
use std::time::Duration;

/// Longer than any wait the server is allowed: a read past it means the server held on.
const HANG: Duration = Duration::from_secs(20);

fn open(s: &Served) -> Connection {
    Connection::open(s.addr, HANG).expect("connecting")
}

/// A connection that has sent `bytes` and nothing more.
fn holding(s: &Served, bytes: &str) -> Connection {
    let mut c = open(s);
    c.write_raw(bytes.as_bytes())
        .expect("sending half a request");
    c
}

#[track_caller]
fn json_of(r: &Response, status: u16) -> Value {
    assert_eq!(r.status, status, "{}", r.text());
    r.json().unwrap()
}

fn post(s: &Served, path: &str, body: Value) -> Response {
    client::post_json(s.addr, path, &body).unwrap_or_else(|e| panic!("POST {path}: {e}"))
}

/// A connection whose request is in flight, its body half sent: the server asked for the body
/// (`100 Continue`), so it has parsed the head and is waiting for the rest.
fn half_body(s: &Served) -> Connection {
    let mut c = holding(
        s,
        &format!(
            "POST /api/suggest HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n",
            s.addr
        ),
    );
    let r = c.read_response().expect("100 Continue");
    assert_eq!(r.status, 100, "{}", r.text());
    c.write_raw(b"{\"pos\": [").unwrap();
    c
}

/// Closed by the server (after an answer, or none): anything but the connection held open.
#[track_caller]
fn closed(c: &mut Connection, what: &str) -> Option<Response> {
    c.read_until_closed()
        .unwrap_or_else(|e| panic!("{what}: the server held the connection ({e})"))
}

#[test]
fn idle_and_half_sent_connections_are_closed_and_a_normal_request_is_answered() {
    // Under 64 open files (soft and hard): before, ~55 held connections took every file, and a
    // normal request waited for as long as they were held, which was for ever.
    let s = Served::start_with(
        db(),
        Start {
            args: &["--client-timeout", "1"],
            open_files: Some(64),
            ..Start::default()
        },
    );
    let host = s.addr.to_string();
    // Idle connections after a first request, kept alive.
    let mut idle: Vec<Connection> = (0..5)
        .map(|_| {
            let mut c = open(&s);
            assert_eq!(c.send("GET", "/api/info", None, b"").unwrap().status, 200);
            c
        })
        .collect();
    // Half a head, then nothing: more than the server has files for.
    let mut heads: Vec<Connection> = (0..80)
        .map(|_| holding(&s, "GET / HTTP/1.1\r\nHost: x\r\n"))
        .collect();
    // A head announcing 1 GB, and no body: refused by its length at once.
    let mut huge = holding(
        &s,
        &format!(
            "POST /api/suggest HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"
        ),
    );
    let r = huge.read_response().expect("an answer to a 1 GB body");
    assert_eq!(r.status, 413, "{}", r.text());
    // Half a body, on more connections than the cap (48). Issue 46, item 5: a connection
    // waiting for its body counted as in flight, so past the cap every new one, this test's
    // 49th half body and a normal request alike, was answered 503. The oldest is closed now.
    let mut bodies: Vec<Connection> = (0..60).map(|_| half_body(&s)).collect();
    // A normal request is answered while they are all held.
    let info = client::get(s.addr, "/api/info").expect("a normal request is answered");
    let info = json_of(&info, 200);
    let cap = info["max_connections"].as_u64().unwrap();
    assert!(cap < 64, "the cap fits the limit of open files: {info}");
    // And every held connection is closed by the server.
    assert!(closed(&mut huge, "after a 413").is_none());
    for c in &mut bodies {
        if let Some(r) = closed(c, "half a body") {
            assert_eq!(r.status, 408, "{}", r.text());
            assert!(r.text().contains("did not arrive"), "{}", r.text());
        }
    }
    for c in heads.iter_mut().chain(&mut idle) {
        if let Some(r) = closed(c, "half a head or idle") {
            assert!(r.status == 408 || r.status == 503, "{}", r.text());
        }
    }
    let mut s = s;
    s.assert_alive();
}

#[test]
fn ctrl_c_and_sigterm_stop_the_server_while_a_client_holds_a_half_sent_request() {
    // Timeouts of an hour: only the shutdown can end these connections.
    let how = || Start {
        args: &["--client-timeout", "3600"],
        stderr: true,
        ..Start::default()
    };
    // Ctrl-C with half a head held: closed at once, nothing was in flight.
    let mut s = Served::start_with(db(), how());
    let mut head = holding(&s, "GET / HTTP/1.1\r\nHost: x\r\n");
    assert_eq!(client::get(s.addr, "/api/info").unwrap().status, 200);
    s.signal("INT");
    let (status, _) = s.wait_exit();
    assert!(status.success(), "{status}");
    assert!(closed(&mut head, "half a head at Ctrl-C").is_none());

    // SIGTERM with half a body held: its request is in flight, so it gets the grace period,
    // then is closed and named.
    let mut s = Served::start_with(db(), how());
    let mut body = half_body(&s);
    s.signal("TERM");
    let (status, err) = s.wait_exit();
    assert!(status.success(), "{status}: {err}");
    assert!(
        err.contains("closed 1 connection(s) whose request was still running"),
        "{err}"
    );
    assert!(closed(&mut body, "half a body at SIGTERM").is_none());
}

/// The board and answer of the snapshot test: the CLI's `suggest --json` on `db`.
fn cli_suggest(db: &Path, pos: &[&str], neg: &[&str]) -> Value {
    clue_db([
        "suggest",
        "--pos",
        &pos.join(","),
        "--neg",
        &neg.join(","),
        "--json",
        "--db",
        utf8(db),
    ])
    .ok()
    .json()
}

#[test]
fn a_database_renamed_over_the_served_one_is_read_whole_from_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clues.sqlite");
    std::fs::copy(db(), &path).unwrap();
    let s = Served::start(&path);
    let (pos, neg) = (["lemon", "olive", "moon", "ice"], ["fire", "war"]);
    let board = json!({"pos": pos, "neg": neg});
    let suggest_all = |n: usize| -> Vec<Response> {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let (addr, board) = (s.addr, board.clone());
                std::thread::spawn(move || client::post_json(addr, "/api/suggest", &board))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().expect("POST /api/suggest"))
            .collect()
    };
    let first = json_of(&client::get(s.addr, "/api/info").unwrap(), 200);
    // Several worker threads open the first file.
    for r in suggest_all(12) {
        json_of(&r, 200);
    }
    // Another database: one card word fewer (apple, no word but the stored cards being a card
    // there), and moon related to nothing.
    let next = dir.path().join("clues.sqlite.new");
    std::fs::copy(db(), &next).unwrap();
    let conn = rusqlite::Connection::open(&next).unwrap();
    conn.execute_batch(
        "DELETE FROM relatedness_vectors WHERE term = 'apple';
         DELETE FROM clue_vectors;
         UPDATE relatedness_vectors SET scores = zeroblob(length(scores)) WHERE term = 'moon';
         DELETE FROM word_lists;
         INSERT INTO word_lists (list, position, word) VALUES ('rebuilt', 0, 'lemon'), ('rebuilt', 1, 'olive');",
    )
    .unwrap();
    drop(conn);
    let (old, new) = (
        cli_suggest(&path, &pos, &neg),
        cli_suggest(&next, &pos, &neg),
    );
    assert_ne!(
        old, new,
        "the two databases must answer the board differently"
    );
    // What a build does: a new file renamed over the served one.
    std::fs::rename(&next, &path).unwrap();

    let info = json_of(&client::get(s.addr, "/api/info").unwrap(), 200);
    assert_eq!(
        info["terms"].as_u64().unwrap() + 1,
        first["terms"].as_u64().unwrap(),
        "/api/info describes the new file: {info}"
    );
    assert_eq!(
        info["bytes"].as_u64(),
        Some(std::fs::metadata(&path).unwrap().len())
    );
    // The word lists offered are the new file's too.
    assert_ne!(first["lists"], info["lists"], "{first}");
    assert_eq!(
        info["lists"],
        json!([{"name": "rebuilt", "words": 2}]),
        "{info}"
    );
    // Every answer from the new file, whichever worker thread serves it.
    for r in suggest_all(12) {
        assert_eq!(json_of(&r, 200), new, "an answer from the old file");
    }
    let terms = json_of(&client::get(s.addr, "/api/terms").unwrap(), 200);
    assert!(!terms["terms"].as_array().unwrap().contains(&json!("apple")));
    for _ in 0..4 {
        let r = post(&s, "/api/suggest", json!({"pos": ["apple", "moon"]}));
        assert_eq!(r.status, 422, "apple is not covered any more: {}", r.text());
    }
}

#[test]
fn requests_naming_another_host_or_coming_from_another_origin_are_refused() {
    let s = Served::start(db());
    let port = s.addr.port();
    let get = |headers: &[(&str, &str)]| {
        open(&s)
            .send_with("GET", "/api/info", headers, b"")
            .expect("GET /api/info")
    };
    // DNS rebinding: a page of evil.example, its name re-pointed at 127.0.0.1.
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("localhost.evil.example:{port}"),
    ] {
        let r = get(&[("Host", &host)]);
        assert_eq!(r.status, 421, "Host {host}: {}", r.text());
        assert!(r.text().contains("DNS rebinding"), "{}", r.text());
    }
    let mut none = open(&s);
    none.write_raw(b"GET /api/info HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(none.read_response().unwrap().status, 421, "no Host");
    // Issue 46: a second Host, or a target naming another host, passed when the first Host was
    // this server's.
    let own = format!("127.0.0.1:{port}");
    let r = get(&[("Host", &own), ("Host", &format!("evil.example:{port}"))]);
    assert_eq!(r.status, 400, "two Hosts: {}", r.text());
    let mut absolute = open(&s);
    absolute
        .write_raw(
            format!("GET http://evil.example:{port}/api/info HTTP/1.1\r\nHost: {own}\r\n\r\n")
                .as_bytes(),
        )
        .unwrap();
    let r = absolute.read_response().unwrap();
    assert_eq!(r.status, 400, "another host as the target: {}", r.text());
    // A proxy's tunnel to this very server was refused as naming "another host than its Host".
    let mut tunnel = open(&s);
    tunnel
        .write_raw(format!("CONNECT {own} HTTP/1.1\r\nHost: {own}\r\n\r\n").as_bytes())
        .unwrap();
    let r = tunnel.read_response().unwrap();
    assert!(
        r.status == 405 && r.text().contains("no proxy") && r.header("allow").is_some(),
        "CONNECT: {} {}",
        r.status,
        r.text()
    );
    for host in [
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        assert_eq!(get(&[("Host", &host)]).status, 200, "Host {host}");
    }
    // Another site's page posting to the API, or a sandboxed one (Origin: null).
    let send = |origin: &str| {
        open(&s)
            .send_with(
                "POST",
                "/api/suggest",
                &[("Content-Type", "application/json"), ("Origin", origin)],
                br#"{"pos": ["apple"]}"#,
            )
            .unwrap()
    };
    let r = open(&s)
        .send_with(
            "GET",
            "/api/info",
            &[
                ("Origin", &format!("http://127.0.0.1:{port}")),
                ("Origin", "http://evil.example"),
            ],
            b"",
        )
        .unwrap();
    assert_eq!(r.status, 403, "two Origins: {}", r.text());
    for origin in [
        "http://evil.example".to_string(),
        "null".to_string(),
        format!("https://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
    ] {
        let r = send(&origin);
        assert_eq!(r.status, 403, "Origin {origin}: {}", r.text());
    }
    assert_eq!(send(&format!("http://127.0.0.1:{port}")).status, 200);

    // `--host` takes a name that resolves: `localhost` is the loopback address, served as
    // such (it was refused: "invalid IP address syntax"); a name that does not resolve is
    // refused naming the option.
    let mut local = Served::start_with(
        db(),
        Start {
            args: &["--host", "localhost"],
            ..Start::default()
        },
    );
    assert!(local.url.starts_with("http://127.0.0.1:"), "{}", local.url);
    let r = client::get(local.addr, "/api/info").unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    local.assert_alive();
    let run = clue_db(["serve", "--host", "not a host", "--db", utf8(db())]).failed();
    assert!(
        run.stderr.contains("--host") && run.stderr.contains("not an IP address"),
        "{}",
        run.stderr
    );
    // Every address: a warning at start; any name is served, other origins still refused.
    let mut open_to_all = Served::start_with(
        db(),
        Start {
            args: &["--host", "0.0.0.0"],
            stderr: true,
            ..Start::default()
        },
    );
    let warning = open_to_all.stderr_line("warning");
    assert!(
        warning.contains("0.0.0.0") && warning.contains("no authentication"),
        "{warning}"
    );
    // Issue 46: that no name is checked then (DNS rebinding) is said too.
    assert!(warning.contains("any name in Host"), "{warning}");
    let mut c = Connection::open(open_to_all.addr, HANG).unwrap();
    let host = format!("clue-db.lan:{}", open_to_all.addr.port());
    let r = c
        .send_with("GET", "/api/info", &[("Host", &host)], b"")
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let r = c
        .send_with(
            "GET",
            "/api/info",
            &[("Host", &host), ("Origin", "http://evil.example")],
            b"",
        )
        .unwrap();
    assert_eq!(r.status, 403, "{}", r.text());
}

#[test]
fn a_games_colours_are_never_served_while_it_is_played_and_long_words_are_cut() {
    let s = Served::start(db());
    let g = json_of(&post(&s, "/api/new-game", json!({"seed": 5})), 200);
    let id = g["id"].as_str().unwrap().to_string();
    // Its seed is on the page: the board endpoint would deal the same board, colours shown.
    let r = post(&s, "/api/board", json!({"seed": 5}));
    let v = json_of(&r, 403);
    assert!(v.get("cards").is_none(), "{v}");
    assert!(v["error"].as_str().unwrap().contains("being played"), "{v}");
    // Another seed is served; and the seed once the game is over (lost by passing: blue
    // reveals one card a turn).
    json_of(&post(&s, "/api/board", json!({"seed": 6})), 200);
    // Issue 46, item 6: nor a second game on the same seed: played to its end, it showed all
    // 25 roles, the first game's. Refused alike; a game without a seed gets another.
    let r = post(&s, "/api/new-game", json!({"seed": 5}));
    let v = json_of(&r, 403);
    assert!(v.get("cards").is_none(), "{v}");
    assert!(v["error"].as_str().unwrap().contains("being played"), "{v}");
    let other = json_of(&post(&s, "/api/new-game", json!({})), 200);
    assert_ne!(other["seed"], 5);
    // The lock is on the seed whatever the deck: a deck one word away from the game's deals
    // the same layout with that word changed (the review's leak: every other colour shown).
    // And a body that is wrong whatever the lock is answered as such (400, not 403).
    let pasted = crate::common::column(
        &crate::common::open(db()),
        "SELECT term FROM terms WHERE covered = 1 ORDER BY term DESC LIMIT 30",
    );
    json_of(
        &post(&s, "/api/new-game", json!({"seed": 3, "words": pasted})),
        200,
    );
    let mut one_off = pasted.clone();
    one_off[0] = "zzzzqx".to_string();
    for body in [
        json!({"seed": 3}),
        json!({"seed": 3, "words": pasted}),
        json!({"seed": 3, "words": one_off}),
    ] {
        let v = json_of(&post(&s, "/api/board", body.clone()), 403);
        assert!(v.get("cards").is_none(), "{v}");
        json_of(&post(&s, "/api/new-game", body), 403);
    }
    let v = json_of(
        &post(&s, "/api/new-game", json!({"seed": 3, "words": []})),
        400,
    );
    assert!(
        v["error"].as_str().unwrap().contains("a board needs 25"),
        "{v}"
    );
    let mut game = g;
    while game["status"] == "playing" {
        game = json_of(&post(&s, &format!("/api/game/{id}/pass"), json!({})), 200);
    }
    let b = json_of(&post(&s, "/api/board", json!({"seed": 5})), 200);
    assert_eq!(b["cards"].as_array().unwrap().len(), 25);
    json_of(&post(&s, "/api/new-game", json!({"seed": 5})), 200);

    // A 16 KB word is echoed by its start and its length, never whole.
    let long = "x".repeat(16_000);
    let v = json_of(
        &post(
            &s,
            "/api/suggest",
            json!({"pos": ["apple"], "given": [long]}),
        ),
        200,
    );
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v}");
    let w = warnings[0].as_str().unwrap();
    assert!(
        w.len() < 200 && w.contains("(16000 characters)") && w.contains('…'),
        "{w}"
    );
    for (path, body) in [
        ("/api/explain", json!({"clue": long, "terms": ["apple"]})),
        ("/api/guess", json!({"clue": long, "board": ["apple"]})),
        (&format!("/api/game/{long}/pass") as &str, json!({})),
    ] {
        let r = post(&s, path, body);
        assert!(r.status == 400 || r.status == 404, "{path}: {}", r.status);
        let e = r.json().unwrap()["error"].as_str().unwrap().to_string();
        assert!(e.len() < 300 && e.contains("(16000 characters)"), "{e}");
    }
}

/// Issue 46, item 7: a 15,000-character `strategy`, `seed`, unknown field name, or a string
/// where a number belongs came back whole in 15–30 KB of error (twice for a field name). Each
/// is now named by its start and its length.
#[test]
fn long_strategies_seeds_and_field_names_are_cut_in_errors() {
    let s = Served::start(db());
    let long = "q".repeat(15_000);
    let mut unknown_field = serde_json::Map::new();
    unknown_field.insert("pos".to_string(), json!(["apple"]));
    unknown_field.insert(long.clone(), json!(1));
    for (path, body) in [
        ("/api/suggest", json!({"pos": ["apple"], "strategy": long})),
        ("/api/new-game", json!({"strategy": long})),
        ("/api/new-game", json!({"seed": long})),
        ("/api/board", json!({"seed": long})),
        ("/api/suggest", Value::Object(unknown_field.clone())),
        (
            "/api/guess",
            json!({"clue": "fruit", "board": ["apple"], "count": long}),
        ),
        ("/api/suggest", json!({"pos": ["apple"], "top": long})),
    ] {
        let r = post(&s, path, body);
        assert!(
            (400..500).contains(&r.status),
            "{path}: {} {}",
            r.status,
            r.text().len()
        );
        let e = r.json().unwrap()["error"].as_str().unwrap().to_string();
        assert!(
            e.len() < 600 && e.contains("(15000 characters)"),
            "{path}: {} bytes: {}",
            e.len(),
            e.chars().take(300).collect::<String>()
        );
    }
}
