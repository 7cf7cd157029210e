//! A fake MediaWiki Action API for tests: an HTTP/1.1 server on 127.0.0.1 (port 0) that answers
//! `action=query` in the real API's JSON shape (`format=json&formatversion=2`), `continue`
//! paging included, with faults on demand.
//!
//! It exists so that the API client's own tests (`wiki/tests/api_client.rs`) and the end-to-end
//! tests of `clue-db ingest --format api` (`cli/tests/api_e2e.rs`) share one fake rather than
//! two copies, and so that neither ever leaves the machine. It is a dev-dependency only
//! (`publish = false`): nothing in the shipped binary uses it.
//!
//! - [`serve`] answers every request with a closure; [`Server`] logs what it received.
//! - [`FakeWiki`] holds pages ([`FakePage`]) and answers the queries the client sends
//!   (`prop=extracts|links|pageprops|linkshere`, `list=categorymembers`).
//! - [`FakeWiki::serve_with`] lets a fault closure answer first (see [`fail_page_ids`]), until
//!   [`Server::heal`].
//! - [`dumps`] is a fake Wikimedia dumps site (run listing, `dumpstatus.json`, `sha1sums`, the
//!   dump files with `Range`) built from the real samples, for `clue-db download`.
//! - [`dump_run`] builds a dump run folder as `clue-db download` leaves it, from the real samples.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Url;
use serde_json::{Value, json};

pub mod dump_run;
pub mod dumps;
pub mod mysqldump;

// ---- a minimal HTTP/1.1 server ----

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The URL path (`/w/api.php`).
    pub path: String,
    /// The query parameters, decoded.
    pub params: HashMap<String, String>,
    /// The headers, names in lower case.
    pub headers: HashMap<String, String>,
}

impl Request {
    /// The ids of `pageids=1|2|3`, none if the request names pages otherwise.
    pub fn page_ids(&self) -> Vec<u64> {
        self.params.get("pageids").map_or(vec![], |ids| {
            ids.split('|').filter_map(|s| s.parse().ok()).collect()
        })
    }
}

/// How the server answers one request.
pub enum Action {
    Reply {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Accept the request and never answer (the connection is held for 10 s).
    Hang,
    /// Any bytes with these headers (`Content-Length` is added). With `cut_after`, only that
    /// many bytes of the body are sent at once, and then what `then` says.
    Bytes {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
        cut_after: Option<usize>,
        then: Then,
    },
}

/// What the server does once it has sent the `cut_after` bytes of an [`Action::Bytes`] body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Close the connection (a download cut short).
    Close,
    /// Hold it open for 10 s without sending more (a download stuck, to interrupt).
    Stall,
    /// Send the rest one byte at a time, this long apart (a mirror that trickles), until the
    /// client hangs up.
    Trickle(Duration),
}

/// A 200 answer with a JSON body.
pub fn ok(body: Value) -> Action {
    Action::Reply {
        status: 200,
        headers: vec![],
        body: body.to_string(),
    }
}

/// An answer with this status and a plain body (`status(500, "broken")`).
pub fn status(status: u16, body: &str) -> Action {
    Action::Reply {
        status,
        headers: vec![],
        body: body.to_string(),
    }
}

/// A running fake server. It lives until the test process ends.
pub struct Server {
    /// The endpoint, `http://127.0.0.1:PORT/w/api.php`.
    pub base: String,
    /// The server's root, `http://127.0.0.1:PORT` (what a dump mirror URL is).
    pub origin: String,
    log: Arc<Mutex<Vec<Request>>>,
    healthy: Arc<AtomicBool>,
}

impl Server {
    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// How many requests were received so far.
    pub fn count(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// Stops the faults of [`FakeWiki::serve_with`]: from now on the wiki answers every request.
    pub fn heal(&self) {
        self.healthy.store(true, Ordering::SeqCst);
    }
}

/// Starts a server on 127.0.0.1:0 answering each request with `handler`, one thread per
/// connection.
pub fn serve(handler: impl Fn(&Request) -> Action + Send + Sync + 'static) -> Server {
    serve_until_healed(Arc::new(AtomicBool::new(false)), handler)
}

fn serve_until_healed(
    healthy: Arc<AtomicBool>,
    handler: impl Fn(&Request) -> Action + Send + Sync + 'static,
) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let base = format!("{origin}/w/api.php");
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
                let (status, headers, body, cut_after, then) = match handler(&request) {
                    Action::Hang => return std::thread::sleep(Duration::from_secs(10)),
                    Action::Reply {
                        status,
                        mut headers,
                        body,
                    } => {
                        headers.insert(
                            0,
                            ("Content-Type", "application/json; charset=utf-8".into()),
                        );
                        (status, headers, body.into_bytes(), None, Then::Close)
                    }
                    Action::Bytes {
                        status,
                        headers,
                        body,
                        cut_after,
                        then,
                    } => (status, headers, body, cut_after, then),
                };
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let sent = cut_after.unwrap_or(body.len()).min(body.len());
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body[..sent]);
                let _ = stream.flush();
                match then {
                    Then::Close => {}
                    Then::Stall => std::thread::sleep(Duration::from_secs(10)),
                    Then::Trickle(every) => {
                        for byte in &body[sent..] {
                            std::thread::sleep(every);
                            if stream.write_all(&[*byte]).is_err() {
                                break;
                            }
                        }
                    }
                }
            });
        }
    });
    Server {
        base,
        origin,
        log,
        healthy,
    }
}

/// A fault for [`FakeWiki::serve_with`]: HTTP 500 to every request whose `pageids` holds one
/// of `ids` (the client retries, then gives that batch up).
pub fn fail_page_ids(ids: &[u64]) -> impl Fn(&Request) -> Option<Action> + Send + Sync + 'static {
    let ids = ids.to_vec();
    move |r: &Request| {
        r.page_ids()
            .iter()
            .any(|id| ids.contains(id))
            .then(|| status(500, "broken"))
    }
}

// ---- a fake wiki speaking the query API ----

/// One page of a [`FakeWiki`].
#[derive(Debug, Clone)]
pub struct FakePage {
    pub title: String,
    /// The plain-text extract (`prop=extracts&explaintext=1`).
    pub extract: String,
    /// Titles of the article-namespace pages it links to, in order.
    pub links: Vec<String>,
    /// Whether `pageprops` carries `disambiguation`.
    pub disambiguation: bool,
}

impl FakePage {
    /// An article (not a disambiguation page).
    pub fn new(title: &str, extract: &str, links: &[&str]) -> FakePage {
        FakePage {
            title: title.to_string(),
            extract: extract.to_string(),
            links: links.iter().map(|l| l.to_string()).collect(),
            disambiguation: false,
        }
    }

    /// The same page, flagged as a disambiguation page.
    pub fn disambiguation(self) -> FakePage {
        FakePage {
            disambiguation: true,
            ..self
        }
    }
}

/// Pages by id, and how many links one response carries (small, to force paging). Category
/// members come one per response.
#[derive(Debug, Clone)]
pub struct FakeWiki {
    pub pages: BTreeMap<u64, FakePage>,
    /// Links (`prop=links`, across the pages of a request) or back-links per response.
    pub limit: usize,
}

impl Default for FakeWiki {
    fn default() -> Self {
        FakeWiki {
            pages: BTreeMap::new(),
            limit: 2,
        }
    }
}

/// A small wiki: 10 Apple, 20 Mercury (disambiguation), 30 Pie, 40 Newton (disambiguation);
/// two links per response.
pub fn fake_wiki() -> FakeWiki {
    FakeWiki::default()
        .page(
            10,
            FakePage::new(
                "Apple",
                "The apple is a fruit.\n\nHistory\nOld.",
                &["Fruit", "Tree", "Malus", "Newton", "Pie"],
            ),
        )
        .page(
            20,
            FakePage::new(
                "Mercury",
                "Mercury may refer to:",
                &["Mercury (planet)", "Mercury (element)"],
            )
            .disambiguation(),
        )
        .page(
            30,
            FakePage::new("Pie", "A pie is a baked dish.", &["Apple"]),
        )
        .page(
            40,
            FakePage::new("Newton", "Newton may refer to:", &["Apple", "Isaac Newton"])
                .disambiguation(),
        )
}

/// [`fake_wiki`], served.
pub fn fake_server() -> Server {
    fake_wiki().serve()
}

impl FakeWiki {
    /// The wiki with one more page.
    pub fn page(mut self, id: u64, page: FakePage) -> FakeWiki {
        self.pages.insert(id, page);
        self
    }

    /// Serves this wiki, healthy.
    pub fn serve(self) -> Server {
        serve(move |r| self.answer(r))
    }

    /// Serves this wiki, but `fault` sees each request first: what it answers replaces the
    /// wiki's answer, `None` lets the wiki answer. After [`Server::heal`] it is no longer asked.
    pub fn serve_with(
        self,
        fault: impl Fn(&Request) -> Option<Action> + Send + Sync + 'static,
    ) -> Server {
        let healthy = Arc::new(AtomicBool::new(false));
        let healed = healthy.clone();
        serve_until_healed(healthy, move |r| {
            if healed.load(Ordering::SeqCst) {
                return self.answer(r);
            }
            fault(r).unwrap_or_else(|| self.answer(r))
        })
    }

    /// Answers `action=query` like MediaWiki: one whole-page extract per response
    /// (`excontinue`), `limit` links per response across pages (`plcontinue` =
    /// `pageid|ns|title`), finished modules listed after `||` in `continue`. A request without
    /// `action=query&format=json&formatversion=2&maxlag=5` gets HTTP 400.
    pub fn answer(&self, r: &Request) -> Action {
        let p = &r.params;
        for (k, v) in [
            ("action", "query"),
            ("format", "json"),
            ("formatversion", "2"),
            ("maxlag", "5"),
        ] {
            if p.get(k).map(String::as_str) != Some(v) {
                return status(400, &format!("missing {k}={v}"));
            }
        }
        if p.get("list").map(String::as_str) == Some("categorymembers") {
            return self.category_members(p);
        }
        let ids: Vec<u64> = if p.contains_key("pageids") {
            r.page_ids()
        } else {
            let title = &p["titles"];
            vec![
                self.pages
                    .iter()
                    .find(|(_, fp)| &fp.title == title)
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
            .flat_map(|(id, fp)| fp.links.iter().map(move |l| (*id, l.as_str())))
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
                    .map(|(oid, other)| (*oid, other.title.as_str()))
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
            .map(|(id, fp)| (*id, fp.title.as_str()))
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
