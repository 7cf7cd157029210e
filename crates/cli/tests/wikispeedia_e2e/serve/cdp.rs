//! A minimal Chrome DevTools Protocol client for the browser test: starts Debian's headless
//! Chromium with a fresh profile and no network of its own, and speaks JSON-RPC to one page over
//! a websocket (tungstenite). Only what the test needs: evaluate, navigate, mouse, keys,
//! screenshots, viewport.

use serde_json::{Value, json};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The Chromium binary: `$CHROMIUM`, else the first of the usual names on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A headless Chromium, killed (and its profile removed) when dropped.
pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    pub page: Page,
}

impl Browser {
    /// Starts Chromium on about:blank and connects to its page.
    pub fn start(binary: &Path, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().expect("a profile folder");
        let log = profile.path().join("chromium.log");
        let child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                "--mute-audio",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                &format!("--window-size={width},{height}"),
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("the browser's log file"))
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        let mut browser = Browser {
            child,
            _profile: profile,
            page: Page::placeholder(),
        };
        // Chromium writes its DevTools port to the profile once it listens.
        let port_file = browser._profile.path().join("DevToolsActivePort");
        let start = Instant::now();
        let port: u16 = loop {
            if let Some(p) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|s| s.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                break p;
            }
            if let Ok(Some(status)) = browser.child.try_wait() {
                panic!(
                    "chromium exited ({status}) before listening:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "chromium did not start its DevTools server in 60 s:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let ws_url = loop {
            let list = serve::client::get(addr, "/json/list")
                .and_then(|r| r.json())
                .unwrap_or(Value::Null);
            let page = list.as_array().and_then(|l| {
                l.iter()
                    .find(|t| t["type"] == "page")
                    .and_then(|t| t["webSocketDebuggerUrl"].as_str())
                    .map(str::to_string)
            });
            if let Some(u) = page {
                break u;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no page target: {list}"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let (socket, _) =
            tungstenite::connect(&ws_url).unwrap_or_else(|e| panic!("connecting to {ws_url}: {e}"));
        if let MaybeTlsStream::Plain(s) = socket.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(60)))
                .expect("a read timeout");
        }
        browser.page = Page {
            socket: Some(socket),
            next_id: 0,
        };
        browser
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One page's DevTools session.
pub struct Page {
    socket: Option<WebSocket<MaybeTlsStream<TcpStream>>>,
    next_id: u64,
}

impl Page {
    fn placeholder() -> Page {
        Page {
            socket: None,
            next_id: 0,
        }
    }

    /// Sends a command and waits for its result (events in between are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let socket = self.socket.as_mut().expect("connected");
        socket
            .send(Message::text(
                json!({"id": id, "method": method, "params": params}).to_string(),
            ))
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        loop {
            let msg = socket
                .read()
                .unwrap_or_else(|e| panic!("{method}: reading the answer: {e}"));
            let Message::Text(text) = msg else { continue };
            let v: Value = serde_json::from_str(text.as_str()).expect("DevTools sends JSON");
            if v["id"] != id {
                continue;
            }
            if let Some(err) = v.get("error") {
                panic!("{method} failed: {err}");
            }
            return v["result"].clone();
        }
    }

    /// Evaluates a JS expression (awaiting a promise): its value, or the exception thrown.
    pub fn try_eval(&mut self, expr: &str) -> Result<Value, Value> {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        match r.get("exceptionDetails") {
            Some(ex) => Err(ex.clone()),
            None => Ok(r["result"]["value"].clone()),
        }
    }

    /// Evaluates a JS expression and returns its value; an exception fails the test.
    #[track_caller]
    pub fn eval(&mut self, expr: &str) -> Value {
        self.try_eval(expr)
            .unwrap_or_else(|ex| panic!("{expr}: {ex}"))
    }

    /// Polls `expr` until it is `true`, for at most `secs` seconds.
    #[track_caller]
    pub fn wait_for(&mut self, expr: &str, secs: u64) {
        let start = Instant::now();
        // An exception (the page is still loading) counts as not yet.
        while self.try_eval(expr) != Ok(Value::Bool(true)) {
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "timed out after {secs} s waiting for: {expr}\nstatus: {:?}",
                self.try_eval("[...document.querySelectorAll('[role=status]')].map(e => e.textContent).join(' | ')")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
    }

    /// Makes the page behave as focused (headless windows are not), so keys reach it.
    pub fn focus(&mut self) {
        self.call("Page.bringToFront", json!({}));
        self.call(
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        );
    }

    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        );
    }

    /// A real mouse click at the centre of the first element matching `selector`.
    #[track_caller]
    pub fn click(&mut self, selector: &str) {
        let sel = serde_json::to_string(selector).unwrap();
        let rect = self.eval(&format!(
            "(() => {{ const e = document.querySelector({sel}); if (!e) return null;
               e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
               return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (Some(x), Some(y)) = (rect[0].as_f64(), rect[1].as_f64()) else {
            panic!("nothing to click at {selector}");
        };
        for (kind, buttons) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 0)] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1}),
            );
        }
    }

    /// Types text into the focused element, as an input method would.
    pub fn insert_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({ "text": text }));
    }

    /// Presses and releases a key (`"ArrowRight"`, `"Enter"`…) on the focused element.
    pub fn press(&mut self, key: &str, code: u32) {
        for kind in ["keyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code}),
            );
        }
    }

    /// A PNG of the viewport.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let r = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": false}),
        );
        base64_decode(r["data"].as_str().expect("screenshot data"))
    }
}

/// Standard base64 (what DevTools sends screenshots in).
fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=' && c != b'\n').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

#[test]
fn base64_by_hand() {
    assert_eq!(base64_decode("TWFu"), b"Man");
    assert_eq!(base64_decode("TWE="), b"Ma");
    assert_eq!(base64_decode("TQ=="), b"M");
}
