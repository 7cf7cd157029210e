//! The MediaWiki API client against a local HTTP/1.1 server on 127.0.0.1 (port 0) that answers
//! in the real API's JSON shape (formatversion=2), including `continue` paging, errors and
//! failures. Nothing here leaves the machine, and every test is bounded in time.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Url;
use serde_json::{Value, json};
use wiki::api::{ApiClient, ApiOptions, DEFAULT_USER_AGENT, read_state};
use wiki::{Error, Page};

// ---- a minimal HTTP/1.1 server ----

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Request {
    path: String,
    params: HashMap<String, String>,
    headers: HashMap<String, String>,
}

enum Action {
    Reply {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Accept the request and never answer (the connection is held for 10 s).
    Hang,
}

fn ok(body: Value) -> Action {
    Action::Reply {
        status: 200,
        headers: vec![],
        body: body.to_string(),
    }
}

struct Server {
    base: String,
    log: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
    fn count(&self) -> usize {
        self.log.lock().unwrap().len()
    }
}

/// Starts a server on 127.0.0.1:0 answering each request with `handler`, one thread per
/// connection. It lives until the test process ends.
fn serve(handler: impl Fn(&Request) -> Action + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/w/api.php", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let handler = Arc::new(handler);
    let server_log = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (handler, log) = (handler.clone(), server_log.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
                    return;
                }
                let mut headers = HashMap::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':') {
                        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                    }
                }
                let target = request_line.split(' ').nth(1).unwrap_or("/").to_string();
                let url = Url::parse(&format!("http://localhost{target}")).unwrap();
                let request = Request {
                    path: url.path().to_string(),
                    params: url.query_pairs().into_owned().collect(),
                    headers,
                };
                log.lock().unwrap().push(request.clone());
                match handler(&request) {
                    Action::Hang => std::thread::sleep(Duration::from_secs(10)),
                    Action::Reply {
                        status,
                        headers,
                        body,
                    } => {
                        let mut head = format!(
                            "HTTP/1.1 {status} X\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n",
                            body.len()
                        );
                        for (k, v) in headers {
                            head.push_str(&format!("{k}: {v}\r\n"));
                        }
                        head.push_str("\r\n");
                        let _ = stream.write_all(head.as_bytes());
                        let _ = stream.write_all(body.as_bytes());
                        let _ = stream.flush();
                    }
                }
            });
        }
    });
    Server { base, log }
}

/// Fast options for tests: short waits, short timeout.
fn options() -> ApiOptions {
    ApiOptions {
        backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(5),
        timeout: Duration::from_secs(5),
        max_retries: 3,
        ..ApiOptions::default()
    }
}

fn http_message(e: Error) -> (String, String) {
    match e {
        Error::Http { url, message } => (url, message),
        other => panic!("expected an HTTP error, got {other}"),
    }
}

// ---- a fake wiki speaking the query API ----

struct FakePage {
    title: &'static str,
    extract: &'static str,
    links: Vec<&'static str>,
    disambiguation: bool,
}

/// Pages by id, and how many links / members one response carries (small, to force paging).
struct FakeWiki {
    pages: BTreeMap<u64, FakePage>,
    limit: usize,
}

fn fake_wiki() -> FakeWiki {
    let mut pages = BTreeMap::new();
    pages.insert(
        10,
        FakePage {
            title: "Apple",
            extract: "The apple is a fruit.\n\nHistory\nOld.",
            links: vec!["Fruit", "Tree", "Malus", "Newton", "Pie"],
            disambiguation: false,
        },
    );
    pages.insert(
        20,
        FakePage {
            title: "Mercury",
            extract: "Mercury may refer to:",
            links: vec!["Mercury (planet)", "Mercury (element)"],
            disambiguation: true,
        },
    );
    pages.insert(
        30,
        FakePage {
            title: "Pie",
            extract: "A pie is a baked dish.",
            links: vec!["Apple"],
            disambiguation: false,
        },
    );
    pages.insert(
        40,
        FakePage {
            title: "Newton",
            extract: "Newton may refer to:",
            links: vec!["Apple", "Isaac Newton"],
            disambiguation: true,
        },
    );
    FakeWiki { pages, limit: 2 }
}

impl FakeWiki {
    /// Answers `action=query` like MediaWiki: one whole-page extract per response
    /// (`excontinue`), `limit` links per response across pages (`plcontinue` =
    /// `pageid|ns|title`), finished modules listed after `||` in `continue`.
    fn answer(&self, r: &Request) -> Action {
        let p = &r.params;
        for (k, v) in [
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("maxlag", "5"),
        ] {
            if p.get(k).map(String::as_str) != Some(v) {
                return Action::Reply {
                    status: 400,
                    headers: vec![],
                    body: format!("missing {k}={v}"),
                };
            }
        }
        if p.get("list").map(String::as_str) == Some("categorymembers") {
            return self.category_members(p);
        }
        let ids: Vec<u64> = if let Some(ids) = p.get("pageids") {
            ids.split('|').map(|s| s.parse().unwrap()).collect()
        } else {
            let title = &p["titles"];
            vec![
                self.pages
                    .iter()
                    .find(|(_, fp)| fp.title == title)
                    .map_or(0, |(id, _)| *id),
            ]
        };
        let props: Vec<&str> = p["prop"].split('|').collect();
        let done: Vec<&str> = p
            .get("continue")
            .and_then(|c| c.split_once("||"))
            .map_or(vec![], |(_, m)| {
                m.split('|').filter(|s| !s.is_empty()).collect()
            });
        let active = |m: &str| props.contains(&m) && !done.contains(&m);
        let ex_index: usize = p.get("excontinue").map_or(0, |s| s.parse().unwrap());
        // All links of the batch in page order, as (pageid, title); resume after plcontinue.
        let all_links: Vec<(u64, &str)> = ids
            .iter()
            .filter_map(|id| self.pages.get(id).map(|fp| (id, fp)))
            .flat_map(|(id, fp)| fp.links.iter().map(move |l| (*id, *l)))
            .collect();
        let link_start = p.get("plcontinue").map_or(0, |c| {
            let mut parts = c.splitn(3, '|');
            let id: u64 = parts.next().unwrap().parse().unwrap();
            let title = parts.nth(1).unwrap();
            all_links.iter().position(|l| *l == (id, title)).unwrap()
        });
        let link_end = (link_start + self.limit).min(all_links.len());
        let mut pages = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let Some(fp) = self.pages.get(id) else {
                pages.push(json!({"pageid": id, "missing": true}));
                continue;
            };
            let mut o = json!({"pageid": id, "ns": 0, "title": fp.title});
            if active("extracts") && i == ex_index {
                o["extract"] = json!(fp.extract);
            }
            if active("pageprops") && fp.disambiguation {
                o["pageprops"] = json!({"disambiguation": ""});
            }
            if active("links") {
                let mine: Vec<Value> = all_links[link_start..link_end]
                    .iter()
                    .filter(|(from, _)| from == id)
                    .map(|(_, t)| json!({"ns": 0, "title": t}))
                    .collect();
                if !mine.is_empty() {
                    o["links"] = json!(mine);
                }
            }
            if active("linkshere") {
                let start: usize = p.get("lhcontinue").map_or(0, |s| s.parse().unwrap());
                let here: Vec<(u64, &str)> = self
                    .pages
                    .iter()
                    .filter(|(_, other)| other.links.contains(&fp.title))
                    .map(|(oid, other)| (*oid, other.title))
                    .collect();
                let end = (start + self.limit).min(here.len());
                o["linkshere"] = here[start..end]
                    .iter()
                    .map(|(oid, t)| json!({"pageid": oid, "ns": 0, "title": t}))
                    .collect();
                if end < here.len() {
                    return ok(json!({
                        "continue": {"lhcontinue": end.to_string(), "continue": "||"},
                        "query": {"pages": [o]}
                    }));
                }
            }
            pages.push(o);
        }
        let mut cont = serde_json::Map::new();
        let mut finished: Vec<&str> = done.clone();
        if active("extracts") && ex_index + 1 < ids.len() {
            // The real API sends excontinue as a number.
            cont.insert("excontinue".into(), json!(ex_index + 1));
        } else if active("extracts") {
            finished.push("extracts");
        }
        if active("links") && link_end < all_links.len() {
            let (id, t) = all_links[link_end];
            cont.insert("plcontinue".into(), json!(format!("{id}|0|{t}")));
        } else if active("links") {
            finished.push("links");
        }
        if active("pageprops") {
            finished.push("pageprops");
        }
        let mut body = json!({"query": {"pages": pages}});
        if cont.is_empty() {
            body["batchcomplete"] = json!(true);
        } else {
            cont.insert(
                "continue".into(),
                json!(format!("||{}", finished.join("|"))),
            );
            body["continue"] = Value::Object(cont);
        }
        ok(body)
    }

    fn category_members(&self, p: &HashMap<String, String>) -> Action {
        assert_eq!(p["cmtitle"], "Category:Disambiguation pages");
        let members: Vec<(u64, &str)> = self
            .pages
            .iter()
            .filter(|(_, fp)| fp.disambiguation)
            .map(|(id, fp)| (*id, fp.title))
            .collect();
        let start: usize = p
            .get("cmcontinue")
            .map_or(0, |c| c.strip_prefix("page|").unwrap().parse().unwrap());
        let end = (start + 1).min(members.len());
        let list: Vec<Value> = members[start..end]
            .iter()
            .map(|(id, t)| json!({"pageid": id, "ns": 0, "title": t}))
            .collect();
        let mut body = json!({"query": {"categorymembers": list}});
        if end < members.len() {
            body["continue"] = json!({"cmcontinue": format!("page|{end}"), "continue": "-||"});
        } else {
            body["batchcomplete"] = json!(true);
        }
        ok(body)
    }
}

fn fake_server() -> Server {
    let wiki = fake_wiki();
    serve(move |r| wiki.answer(r))
}

fn titles(pages: &[Page]) -> Vec<&str> {
    pages.iter().map(|p| p.title.as_str()).collect()
}

// ---- tests ----

#[test]
fn fetches_pages_following_continue() {
    let server = fake_server();
    let client = ApiClient::new(&server.base, options()).unwrap();
    // 99 does not exist; 10 appears twice in the input but is fetched once.
    let pages: Vec<Page> = client
        .fetch_pages(&[10, 20, 99, 30, 10])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(titles(&pages), ["Apple", "Mercury", "Pie"]);
    let apple = &pages[0];
    assert_eq!(apple.id, 10);
    assert_eq!(apple.ns, 0);
    assert_eq!(apple.text, "The apple is a fruit.\n\nHistory\nOld.");
    assert_eq!(apple.links, ["Fruit", "Tree", "Malus", "Newton", "Pie"]);
    assert!(!apple.is_disambiguation);
    assert_eq!(pages[1].text, "Mercury may refer to:");
    assert_eq!(pages[1].links, ["Mercury (planet)", "Mercury (element)"]);
    assert!(pages[1].is_disambiguation);
    assert_eq!(pages[2].links, ["Apple"]);
    // One batch of 4 ids: 8 links at 2 per response and 4 extracts at 1 per response -> 4 rounds.
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests.iter().all(|r| r.path == "/w/api.php"));
    assert_eq!(requests[0].params["pageids"], "10|20|99|30");
    assert_eq!(requests[0].params["explaintext"], "1");
    assert!(!requests[0].params.contains_key("excontinue"));
    assert_eq!(requests[1].params["excontinue"], "1");
    assert_eq!(requests[1].params["plcontinue"], "10|0|Malus");
}

#[test]
fn separate_calls_page_through_continue() {
    let server = fake_server();
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            batch_size: 2,
            ..options()
        },
    )
    .unwrap();

    let extracts = client.extracts(&[10, 20, 30, 99]).unwrap();
    assert_eq!(extracts.len(), 3);
    assert_eq!(extracts[&30], "A pie is a baked dish.");
    // Batches of 2 ids, one extract per response: 2 + 2 requests.
    assert_eq!(server.count(), 4);

    assert_eq!(
        client.links("Apple").unwrap(),
        ["Fruit", "Tree", "Malus", "Newton", "Pie"]
    );
    assert_eq!(server.count(), 4 + 3);

    assert_eq!(client.links_here("Apple").unwrap(), ["Pie", "Newton"]);
    assert_eq!(client.links_here("Pie").unwrap(), ["Apple"]);

    let disambiguation = client.disambiguation_ids(&[10, 20, 30, 40]).unwrap();
    assert_eq!(disambiguation.into_iter().collect::<Vec<_>>(), [20, 40]);

    let before = server.count();
    assert_eq!(
        client.disambiguation_pages(10).unwrap(),
        [(20, "Mercury".to_string()), (40, "Newton".to_string())]
    );
    assert_eq!(server.count() - before, 2);
    let before = server.count();
    assert_eq!(
        client.disambiguation_pages(1).unwrap(),
        [(20, "Mercury".to_string())]
    );
    assert_eq!(server.count() - before, 1, "stops paging at the limit");
    // Every request carried maxlag=5 and the JSON format parameters (the fake checks them).
}

#[test]
fn sends_the_user_agent() {
    let server = fake_server();
    let client = ApiClient::new(&server.base, options()).unwrap();
    client.links("Pie").unwrap();
    assert_eq!(
        server.requests()[0].headers["user-agent"],
        DEFAULT_USER_AGENT
    );
    let ua = "clue-db-test/9 (mailto:test@example.invalid)";
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            user_agent: ua.into(),
            ..options()
        },
    )
    .unwrap();
    client.links("Pie").unwrap();
    assert_eq!(server.requests()[1].headers["user-agent"], ua);
}

#[test]
fn retries_a_server_error() {
    let calls = AtomicUsize::new(0);
    let wiki = fake_wiki();
    let server = serve(move |r| {
        if calls.fetch_add(1, Ordering::SeqCst) == 0 {
            Action::Reply {
                status: 500,
                headers: vec![],
                body: "oops".into(),
            }
        } else {
            wiki.answer(r)
        }
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    assert_eq!(client.links("Pie").unwrap(), ["Apple"]);
    assert_eq!(server.count(), 2);
}

#[test]
fn honours_retry_after_on_429() {
    let calls = AtomicUsize::new(0);
    let wiki = fake_wiki();
    let server = serve(move |r| {
        if calls.fetch_add(1, Ordering::SeqCst) == 0 {
            Action::Reply {
                status: 429,
                headers: vec![("Retry-After", "1".into())],
                body: "slow down".into(),
            }
        } else {
            wiki.answer(r)
        }
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    let start = Instant::now();
    assert_eq!(client.links("Pie").unwrap(), ["Apple"]);
    let elapsed = start.elapsed();
    // The backoff alone would be 10 ms: the second it waited came from Retry-After.
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert_eq!(server.count(), 2);
}

#[test]
fn retries_after_maxlag() {
    let calls = AtomicUsize::new(0);
    let wiki = fake_wiki();
    let server = serve(move |r| {
        if calls.fetch_add(1, Ordering::SeqCst) < 2 {
            Action::Reply {
                status: 200,
                headers: vec![("Retry-After", "0".into())],
                body: json!({"error": {"code": "maxlag", "info": "Waiting for 10.64.48.1: 6 seconds lagged", "host": "10.64.48.1", "lag": 6, "type": "db"}}).to_string(),
            }
        } else {
            wiki.answer(r)
        }
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    assert_eq!(client.links("Pie").unwrap(), ["Apple"]);
    assert_eq!(server.count(), 3);
    assert!(server.requests().iter().all(|r| r.params["maxlag"] == "5"));
}

#[test]
fn gives_up_with_status_and_retry_count() {
    let server = serve(|_| Action::Reply {
        status: 503,
        headers: vec![],
        body: "down".into(),
    });
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            max_retries: 2,
            ..options()
        },
    )
    .unwrap();
    let (url, message) = http_message(client.links("Pie").unwrap_err());
    assert!(url.starts_with(&server.base), "{url}");
    assert!(url.contains("titles=Pie"), "{url}");
    assert!(message.contains("503"), "{message}");
    assert!(message.contains("gave up after 2 retries"), "{message}");
    assert_eq!(server.count(), 3);
}

#[test]
fn does_not_retry_other_api_errors() {
    let server = serve(|_| {
        ok(
            json!({"error": {"code": "badvalue", "info": "Unrecognized value for parameter \"prop\": nonsense."}}),
        )
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    let (_, message) = http_message(client.links("Pie").unwrap_err());
    assert!(message.contains("badvalue"), "{message}");
    assert_eq!(server.count(), 1);
}

#[test]
fn times_out_on_a_hanging_server() {
    let server = serve(|_| Action::Hang);
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            timeout: Duration::from_millis(500),
            max_retries: 1,
            ..options()
        },
    )
    .unwrap();
    let start = Instant::now();
    let err = client.links("Pie").unwrap_err();
    let elapsed = start.elapsed();
    let (_, message) = http_message(err);
    assert!(message.contains("timed out"), "{message}");
    assert!(message.contains("gave up after 1 retries"), "{message}");
    // Two attempts of 500 ms each, plus a 10 ms backoff.
    assert!(elapsed >= Duration::from_millis(1_000), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert_eq!(server.count(), 2);
}

#[test]
fn bounds_requests_in_flight() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (now, max) = (in_flight.clone(), peak.clone());
    let wiki = fake_wiki();
    let server = serve(move |r| {
        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
        max.fetch_max(n, Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(150));
        let answer = wiki.answer(r);
        now.fetch_sub(1, Ordering::SeqCst);
        answer
    });
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            concurrency: 2,
            batch_size: 1,
            ..options()
        },
    )
    .unwrap();
    let mut pages: Vec<Page> = client
        .fetch_pages(&[10, 20, 30, 40])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    pages.sort_by_key(|p| p.id);
    assert_eq!(titles(&pages), ["Apple", "Mercury", "Pie", "Newton"]);
    assert_eq!(pages[0].links.len(), 5);
    assert_eq!(peak.load(Ordering::SeqCst), 2);
}

#[test]
fn resumes_from_the_state_file() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("fetched.txt");
    let opts = ApiOptions {
        state_file: Some(state.clone()),
        batch_size: 1,
        concurrency: 2,
        max_retries: 1,
        ..options()
    };
    // First run: ids 30 and 40 fail for good.
    let wiki = fake_wiki();
    let server = serve(move |r| {
        let ids = r.params.get("pageids").cloned().unwrap_or_default();
        if ids == "30" || ids == "40" {
            Action::Reply {
                status: 500,
                headers: vec![],
                body: "broken".into(),
            }
        } else {
            wiki.answer(r)
        }
    });
    let client = ApiClient::new(&server.base, opts.clone()).unwrap();
    let results: Vec<_> = client.fetch_pages(&[10, 20, 30, 40, 99]).unwrap().collect();
    let mut ok_titles: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().map(|p| p.title.clone()))
        .collect();
    ok_titles.sort();
    assert_eq!(ok_titles, ["Apple", "Mercury"]);
    assert_eq!(results.iter().filter(|r| r.is_err()).count(), 2);
    // Done: the two pages and the id the wiki does not have.
    assert_eq!(
        read_state(&state).unwrap().into_iter().collect::<Vec<_>>(),
        [10, 20, 99]
    );

    // Second run, server healthy: only the remaining ids are asked for.
    let server = fake_server();
    let client = ApiClient::new(&server.base, opts.clone()).unwrap();
    let mut pages: Vec<Page> = client
        .fetch_pages(&[10, 20, 30, 40, 99])
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    pages.sort_by_key(|p| p.id);
    assert_eq!(titles(&pages), ["Pie", "Newton"]);
    let mut asked: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.params["pageids"].clone())
        .collect();
    asked.sort();
    asked.dedup();
    assert_eq!(asked, ["30", "40"]);
    assert_eq!(
        read_state(&state).unwrap().into_iter().collect::<Vec<_>>(),
        [10, 20, 30, 40, 99]
    );

    // Third run: nothing left, no request.
    let before = server.count();
    assert_eq!(
        client.fetch_pages(&[10, 20, 30, 40, 99]).unwrap().count(),
        0
    );
    assert_eq!(server.count(), before);
}

#[test]
fn records_a_page_only_once_the_caller_moves_on() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("fetched.txt");
    let server = fake_server();
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            state_file: Some(state.clone()),
            batch_size: 4,
            ..options()
        },
    )
    .unwrap();
    let mut pages = client.fetch_pages(&[10, 20, 30]).unwrap();
    let first = pages.next().unwrap().unwrap();
    assert_eq!(first.id, 10);
    assert!(read_state(&state).unwrap().is_empty());
    pages.next().unwrap().unwrap();
    assert_eq!(
        read_state(&state).unwrap().into_iter().collect::<Vec<_>>(),
        [10]
    );
    // The caller stops here (say it crashed on page 20): 20 and 30 are fetched again next time.
    drop(pages);
    let again: Vec<u64> = client
        .fetch_pages(&[10, 20, 30])
        .unwrap()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(again, [20, 30]);
}

#[test]
fn state_file_tolerates_a_torn_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("fetched.txt");
    // A crash cut "30\n" short: "3" must not count as id 3, and not glue onto the next id.
    std::fs::write(&state, "10\n20\n3").unwrap();
    let server = fake_server();
    let client = ApiClient::new(
        &server.base,
        ApiOptions {
            state_file: Some(state.clone()),
            ..options()
        },
    )
    .unwrap();
    let ids: Vec<u64> = client
        .fetch_pages(&[10, 20, 30])
        .unwrap()
        .map(|p| p.unwrap().id)
        .collect();
    assert_eq!(ids, [30]);
    assert_eq!(std::fs::read_to_string(&state).unwrap(), "10\n20\n30\n");
    assert_eq!(
        read_state(&state).unwrap().into_iter().collect::<Vec<_>>(),
        [10, 20, 30]
    );
}

#[test]
fn bad_state_file_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("fetched.txt");
    std::fs::write(&state, "10\nten\n").unwrap();
    let client = ApiClient::new(
        "http://127.0.0.1:9/w/api.php",
        ApiOptions {
            state_file: Some(state.clone()),
            ..options()
        },
    )
    .unwrap();
    match client.fetch_pages(&[10]) {
        Err(Error::Parse { path, position, .. }) => {
            assert_eq!(path, state);
            assert_eq!(position, wiki::Position::Line(2));
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("expected an error"),
    }
}
