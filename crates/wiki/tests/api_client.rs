//! The MediaWiki API client against a local HTTP/1.1 server on 127.0.0.1 (port 0) that answers
//! in the real API's JSON shape (formatversion=2), including `continue` paging, errors and
//! failures: the `fakewiki` crate. Nothing here leaves the machine, and every test is bounded
//! in time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fakewiki::{Action, fail_page_ids, fake_server, fake_wiki, ok, serve, status};
use serde_json::json;
use wiki::api::{ApiClient, ApiOptions, DEFAULT_USER_AGENT, read_state};
use wiki::{Error, Page};

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
    let server = fake_wiki().serve_with(move |_| {
        (calls.fetch_add(1, Ordering::SeqCst) == 0).then(|| status(500, "oops"))
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    assert_eq!(client.links("Pie").unwrap(), ["Apple"]);
    assert_eq!(server.count(), 2);
}

#[test]
fn honours_retry_after_on_429() {
    let calls = AtomicUsize::new(0);
    let server = fake_wiki().serve_with(move |_| {
        (calls.fetch_add(1, Ordering::SeqCst) == 0).then(|| Action::Reply {
            status: 429,
            headers: vec![("Retry-After", "1".into())],
            body: "slow down".into(),
        })
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
    let server = fake_wiki().serve_with(move |_| {
        (calls.fetch_add(1, Ordering::SeqCst) < 2).then(|| Action::Reply {
            status: 200,
            headers: vec![("Retry-After", "0".into())],
            body: json!({"error": {"code": "maxlag", "info": "Waiting for 10.64.48.1: 6 seconds lagged", "host": "10.64.48.1", "lag": 6, "type": "db"}}).to_string(),
        })
    });
    let client = ApiClient::new(&server.base, options()).unwrap();
    assert_eq!(client.links("Pie").unwrap(), ["Apple"]);
    assert_eq!(server.count(), 3);
    assert!(server.requests().iter().all(|r| r.params["maxlag"] == "5"));
}

#[test]
fn gives_up_with_status_and_retry_count() {
    let server = serve(|_| status(503, "down"));
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
    let server = fake_wiki().serve_with(fail_page_ids(&[30, 40]));
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
