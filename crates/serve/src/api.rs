//! The HTTP routes: the embedded page and the JSON API under `/api/`.
//!
//! Every error is a JSON object `{"error": "…"}` with a 4xx status (5xx only for a failure of
//! the server itself); request bodies are capped at [`MAX_BODY`] and read under a deadline
//! ([`read_body`]); a request that another site's page could have sent through the browser is
//! refused ([`same_origin`]); the query engine runs on tokio's blocking pool, at most
//! [`AppState::permits`] queries at a time, each on one snapshot of the database file.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use query::game::{Answer, Role};
use query::store_knowledge::normalize_word;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tower_http::catch_panic::CatchPanicLayer;

use crate::engine::{self, BoardError, Db, Dealt, Engine, SuggestQuery, UnknownWords};
use crate::game::{Game, Games, MoveError};

/// The largest request body accepted (413 beyond): a full board with every option is < 2 KiB.
pub const MAX_BODY: usize = 16 * 1024;
/// The most words a request may carry in one list (a board has 25 cards).
pub const MAX_WORDS: usize = 25;
/// The longest card word or clue accepted, in characters; also the most characters of a word a
/// message echoes.
pub const MAX_WORD_CHARS: usize = query::SHOWN_CHARS;
/// The most suggestions `/api/suggest` returns, as `clue-db suggest --top`.
pub const MAX_TOP: usize = query::request::TOP.hi;

const INDEX_HTML: &str = include_str!("../static/index.html");
const APP_JS: &str = include_str!("../static/app.js");
const APP_CSS: &str = include_str!("../static/app.css");

/// What every handler shares.
pub struct AppState {
    pub engine: Engine,
    pub games: Games,
    /// Bounds the queries running at once, so a burst of requests queues instead of opening a
    /// connection and a thread each.
    pub permits: Semaphore,
    /// How long a request's body may take to arrive after its head.
    pub body_timeout: Duration,
    /// The address bound, whose port a `Host` must name.
    pub addr: SocketAddr,
    /// Bound to a loopback address: requests must then name it (`Host`).
    pub loopback: bool,
    /// The connection cap in force (for `/api/info`).
    pub max_connections: usize,
    /// The word lists read from their files at start, offered for new games when the database
    /// stored none (one built before lists were stored: [`Db::lists`]).
    pub lists: Vec<(String, Vec<String>)>,
}

/// The routes, with the origin checks, the body cap and deadline, and a guard that turns a
/// panic into a 500 JSON answer (the server keeps serving either way: each connection is its
/// own task).
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/app.css", get(app_css))
        .route("/api/info", get(info))
        .route("/api/terms", get(terms))
        .route("/api/board", post(board))
        .route("/api/suggest", post(suggest))
        .route("/api/explain", post(explain))
        .route("/api/guess", post(guess))
        .route("/api/new-game", post(new_game))
        .route("/api/game/{id}", get(get_game))
        .route("/api/game/{id}/reveal", post(reveal))
        .route("/api/game/{id}/pass", post(pass))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(from_fn_with_state(state.clone(), read_body))
        .layer(from_fn_with_state(state.clone(), same_origin))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(state)
}

/// `word` as a message shows it: quoted and escaped, cut to 64 characters with its length (a
/// 16 KB "word" is not echoed whole); the one helper of the CLI's messages and the API's.
pub use query::shown;

/// Whether `host` (a `Host` header) names this machine's loopback interface with the port
/// bound: `localhost`, `127.0.0.1`, `[::1]` or the address bound (`127.0.0.2`), any case, the
/// port optional only when it is 80.
fn is_loopback_host(host: &str, bound: SocketAddr) -> bool {
    let host = host.to_ascii_lowercase();
    let (name, given) = match host.find(']') {
        Some(end) if host.starts_with('[') => (&host[..=end], host[end + 1..].strip_prefix(':')),
        _ => match host.rsplit_once(':') {
            Some((name, p)) => (name, Some(p)),
            None => (host.as_str(), None),
        },
    };
    let port_ok = match given {
        Some(p) => p.parse::<u16>() == Ok(bound.port()),
        None => bound.port() == 80,
    };
    let own = match bound.ip() {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    port_ok && (["localhost", "127.0.0.1", "[::1]"].contains(&name) || name == own)
}

/// Refuses what a page of another site could make the browser send ([`foreign`]).
async fn same_origin(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    // A proxy's tunnel: its target is a host and port, which the check below took for another
    // host than the `Host` even when it named this server.
    if req.method() == axum::http::Method::CONNECT {
        let mut r = ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "CONNECT is a proxy's method, and this server is no proxy: send GET or POST to a path",
        )
        .into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD, POST"));
        return r;
    }
    match foreign(req.headers(), req.uri(), state.addr, state.loopback) {
        Some(e) => e.into_response(),
        None => next.run(req).await,
    }
}

/// Why a request could come from a page of another site, if it could. A server bound to a
/// loopback address answers only requests whose `Host` is a loopback name with its port: a
/// page whose domain an attacker re-points at 127.0.0.1 (DNS rebinding) sends its own domain.
/// And a request whose `Origin` is not this server's own (`http://` + its `Host`) is refused
/// whatever the address, so another site's page cannot drive the API through the browser.
/// Each is checked whole (issue 46): a second `Host` or `Origin` is refused, not ignored, and
/// a target in absolute form (`GET http://host/…`, whose host HTTP says replaces `Host`) must
/// name the `Host`.
fn foreign(
    headers: &HeaderMap,
    uri: &axum::http::Uri,
    bound: SocketAddr,
    loopback: bool,
) -> Option<ApiError> {
    if headers.get_all(header::HOST).iter().nth(1).is_some() {
        return Some(ApiError::bad(
            "more than one Host header: a request names one host",
        ));
    }
    let host = headers
        .get(header::HOST)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned());
    if let Some(target) = uri.authority() {
        let same = uri.scheme_str() == Some("http")
            && host
                .as_deref()
                .is_some_and(|h| h.eq_ignore_ascii_case(target.as_str()));
        if !same {
            return Some(ApiError::bad(format!(
                "the request's target {} names another host than its Host ({}): send the path alone",
                shown(&uri.to_string()),
                host.as_deref().map_or("none".to_string(), shown)
            )));
        }
    }
    if loopback && !host.as_deref().is_some_and(|h| is_loopback_host(h, bound)) {
        let named = host
            .as_deref()
            .map_or("no Host".to_string(), |h| format!("Host {}", shown(h)));
        return Some(ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "{named}: this server answers to localhost:{port}, 127.0.0.1:{port} or [::1]:{port} only (another name may be a page of another site reaching it through DNS rebinding)",
                port = bound.port()
            ),
        ));
    }
    if headers.get_all(header::ORIGIN).iter().nth(1).is_some() {
        return Some(ApiError::new(
            StatusCode::FORBIDDEN,
            "more than one Origin header: a request comes from one page",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = String::from_utf8_lossy(origin.as_bytes());
        let own = host.as_deref().map(|h| format!("http://{h}"));
        if !own
            .as_deref()
            .is_some_and(|o| o.eq_ignore_ascii_case(&origin))
        {
            return Some(ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "Origin {} is not this server's page: requests from another site's page are refused",
                    shown(&origin)
                ),
            ));
        }
    }
    None
}

/// An error answer that also closes the connection: the rest of the request's body is not
/// read, so the connection cannot carry another request.
fn closing(e: ApiError) -> Response {
    let mut r = e.into_response();
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

/// Reads the whole request body before the handler runs: refused at once (413) when its
/// declared length is over [`MAX_BODY`], cut at the cap when it is sent in chunks, and given up
/// (408) when it has not all arrived [`AppState::body_timeout`] after the head. Before, a
/// `Content-Length: 1000000000` with no body held its connection for ever.
async fn read_body(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let too_large = || {
        closing(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {MAX_BODY} bytes"),
        ))
    };
    if content_length(&parts.headers).is_some_and(|n| n > MAX_BODY as u64) {
        return too_large();
    }
    let read = tokio::time::timeout(state.body_timeout, Limited::new(body, MAX_BODY).collect());
    let bytes = match read.await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<LengthLimitError>() => return too_large(),
        Ok(Err(e)) => {
            return closing(ApiError::bad(format!("reading the request body: {e}")));
        }
        Err(_) => {
            return closing(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} s of its head",
                    state.body_timeout.as_secs_f64()
                ),
            ));
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// An error answer: a status and a JSON object with at least `"error"`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: Value,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: json!({ "error": message.into() }),
        }
    }
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    fn internal(e: anyhow::Error) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{e:#}"))
    }
}

/// A failure of the engine or the database: 500, with its message (which names the file).
impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> ApiError {
        ApiError::internal(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// A JSON body whose rejections (not JSON, wrong content type, wrong shape, too large) are
/// answered as JSON errors with axum's status (400, 415, 422, 413).
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let Json(v) = Json::<Value>::from_request(req, state)
            .await
            .map_err(rejection)?;
        // serde reads a struct from an array too (`[["king"], [], …]` was a board), and names
        // the struct when it cannot (`expected struct SuggestBody`): a body is an object.
        if !v.is_object() {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "the body is a JSON object of named fields (`{\"pos\": [\"apple\"]}`; `{}` for \
                 none), not an array, a string, a number or null",
            ));
        }
        // The field a value of the wrong type is in (`neg: invalid type: string "bank"`):
        // serde_json's own message named no field (`the body: invalid type: …`).
        serde_path_to_error::deserialize(v)
            .map(JsonBody)
            .map_err(|e| {
                let at = e.path().to_string();
                let at = if at == "." { "the body" } else { &at };
                ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    query::cut_long_words(&format!(
                        "{at}: {}",
                        plain_types(&e.inner().to_string())
                    )),
                )
            })
    }
}

/// serde's message with Rust's type names said as a user reads them (`expected usize`, a
/// `"top": 1.5`; `expected u64`, a `"seed": -1`).
fn plain_types(message: &str) -> String {
    [
        ("expected usize", "expected a whole number of 0 or more"),
        ("expected u64", "expected a whole number of 0 or more"),
        ("expected u32", "expected a whole number of 0 or more"),
        ("expected f64", "expected a number"),
        (
            "expected a sequence",
            "expected an array (`[\"apple\", \"moon\"]`)",
        ),
        (
            "data did not match any variant of untagged enum Words",
            "expected a list's name (`\"duet\"`) or an array of 25 words or more",
        ),
    ]
    .iter()
    .fold(message.to_string(), |m, (rust, plain)| {
        m.replace(rust, plain)
    })
}

fn rejection(r: JsonRejection) -> ApiError {
    let status = r.status();
    let message = match status {
        StatusCode::PAYLOAD_TOO_LARGE => {
            format!("the request body is larger than {MAX_BODY} bytes")
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            "send the body as JSON, with `Content-Type: application/json`".to_string()
        }
        // serde's message quotes what was sent: an unknown field's name (twice, with its
        // path), a string where a number belongs; cut as words are.
        _ => query::cut_long_words(&r.body_text()),
    };
    ApiError::new(status, message)
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error (a bug in clue-db serve); the server keeps serving",
    )
    .into_response()
}

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no such page or endpoint (the API is under /api/: suggest, explain, guess, new-game, game/ID, terms, board, info)",
    )
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed here (GET for /api/info, /api/terms and /api/game/ID; POST with \
         JSON for the others)",
    )
}

/// Runs `f` on the blocking pool, one permit at a time, with one snapshot of the database file
/// (every read of the request comes from the file under the path when it starts).
async fn blocking<T, F>(state: &Arc<AppState>, f: F) -> ApiResult<T>
where
    T: Send + 'static,
    F: FnOnce(&AppState, &Db<'_>) -> ApiResult<T> + Send + 'static,
{
    let _permit = state
        .permits
        .acquire()
        .await
        .map_err(|e| ApiError::internal(e.into()))?;
    let state = state.clone();
    tokio::task::spawn_blocking(move || state.engine.with_db(|db| f(&state, db)))
        .await
        .map_err(|e| ApiError::internal(anyhow::anyhow!("a query failed: {e}")))?
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut r = Response::new(Body::from(body));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Everything the page uses is served from here: nothing may come from elsewhere.
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; img-src 'self' data:"),
    );
    r
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX_HTML)
}
async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", APP_JS)
}
async fn app_css() -> Response {
    asset("text/css; charset=utf-8", APP_CSS)
}

/// The database file as it is now (a file renamed over the path is described once in place),
/// and the server's limits.
async fn info(State(state): State<Arc<AppState>>) -> ApiResult<Json<Value>> {
    blocking(&state, |s, db| {
        let snap = db.snapshot();
        Ok(Json(json!({
            "database": s.engine.path().display().to_string(),
            "bytes": snap.bytes(),
            "modified": snap.modified(),
            "terms": snap.terms().len(),
            "strategies": engine::STRATEGIES,
            "default_strategy": engine::DEFAULT_STRATEGY,
            "max_body_bytes": MAX_BODY,
            "max_connections": s.max_connections,
            "any_word": db.any_word()?,
            "lists": db.lists(&s.lists).iter().map(|(name, words)| json!({"name": name, "words": words.len()})).collect::<Vec<_>>(),
        })))
    })
    .await
}

async fn terms(State(state): State<Arc<AppState>>) -> ApiResult<Json<Value>> {
    blocking(&state, |_, db| Ok(Json(json!({ "terms": db.terms() })))).await
}

// ---- checks on what clients send ---------------------------------------------------------

/// A card word as sent: normalised like the CLI's (`normalize_word`), never empty or huge.
fn card_word(raw: &str, field: &str) -> ApiResult<String> {
    if raw.chars().count() > MAX_WORD_CHARS {
        return Err(ApiError::bad(format!(
            "a word of {field} is longer than {MAX_WORD_CHARS} characters"
        )));
    }
    query::request::card_word(raw, field).map_err(|e| ApiError::bad(e.to_string()))
}

fn card_words(raw: &[String], field: &str) -> ApiResult<Vec<String>> {
    if raw.len() > MAX_WORDS {
        return Err(ApiError::bad(format!(
            "{field} has {} words; a board has at most {MAX_WORDS} cards",
            raw.len()
        )));
    }
    raw.iter().map(|w| card_word(w, field)).collect()
}

/// A clue as sent: [`query::request::clue_word`], a 400 otherwise.
fn clue_word(raw: &str) -> ApiResult<String> {
    query::request::clue_word(raw).map_err(|e| ApiError::bad(e.0))
}

/// 422 naming every word the database cannot score as a card (no stored row, and no word of
/// its vocabulary), each with the closest words that can be cards, as the CLI's warning does.
fn covered(db: &Db<'_>, words: &[&String]) -> ApiResult<()> {
    let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let unknown = db.not_cards(&words)?;
    if unknown.is_empty() {
        return Ok(());
    }
    Err(unknown_words(&UnknownWords(unknown)))
}

/// 422 naming the words, with the closest words that can be cards.
fn unknown_words(u: &UnknownWords) -> ApiError {
    ApiError {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        body: json!({ "error": u.to_string(), "unknown": u.0 }),
    }
}

/// The query engine's refusal of a board as the API answers it: 400 for a board no one can
/// mean, 422 for words the database cannot score; any other failure is the server's (500).
fn answer_error(e: anyhow::Error) -> ApiError {
    if let Some(b) = e.downcast_ref::<BoardError>() {
        return ApiError::bad(b.to_string());
    }
    if let Some(u) = e.downcast_ref::<UnknownWords>() {
        return unknown_words(u);
    }
    ApiError::internal(e)
}

fn strategy(name: Option<&str>) -> ApiResult<query::game::StrategyKind> {
    let name = name.unwrap_or(engine::DEFAULT_STRATEGY);
    Engine::strategy(name).map_err(|_| {
        ApiError::bad(format!(
            "unknown strategy {} (expected one of: {})",
            shown(name),
            engine::STRATEGIES.join(", ")
        ))
    })
}

// ---- /api/suggest ------------------------------------------------------------------------

/// The board of `/api/suggest`, as `clue-db suggest` takes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuggestBody {
    pub pos: Vec<String>,
    #[serde(default)]
    pub neg: Vec<String>,
    /// Bystanders.
    #[serde(default)]
    pub neutral: Vec<String>,
    #[serde(default)]
    pub assassin: Option<String>,
    /// Clues already given, never suggested again.
    #[serde(default)]
    pub given: Vec<String>,
    #[serde(default)]
    pub strategy: Option<String>,
    #[serde(default)]
    pub top: Option<usize>,
    #[serde(default)]
    pub assassin_margin: Option<f64>,
}

async fn suggest(
    State(state): State<Arc<AppState>>,
    JsonBody(b): JsonBody<SuggestBody>,
) -> ApiResult<Json<Answer>> {
    // The board's checks (a team card, each card once, at most a board's cards, words the
    // database can score) are the query engine's, as for `clue-db suggest`.
    let pos = card_words(&b.pos, "pos")?;
    let neg = card_words(&b.neg, "neg")?;
    let neutral = card_words(&b.neutral, "neutral")?;
    let assassin = b
        .assassin
        .as_deref()
        .map(|a| card_word(a, "assassin"))
        .transpose()?;
    let top = b.top.unwrap_or(5);
    query::request::TOP
        .check(top)
        .map_err(|e| ApiError::bad(format!("top {top}: {e}")))?;
    let margin = b
        .assassin_margin
        .map(|m| {
            query::request::MARGIN.check(m).map_err(|e| {
                // `1e300` is printed with its 301 digits: cut as a long word is.
                ApiError::bad(query::cut_long_words(&format!("assassin_margin {m}: {e}")))
            })
        })
        .transpose()?;
    if b.given.len() > MAX_WORDS * 2 {
        return Err(ApiError::bad(format!(
            "given has {} clues; a game has far fewer",
            b.given.len()
        )));
    }
    // A given clue that is no clue word is the query engine's warning, as on the command line.
    let given = b.given.iter().map(|g| normalize_word(g)).collect();
    let strategy = strategy(b.strategy.as_deref())?;
    let q = SuggestQuery {
        pos,
        neg,
        neutral,
        assassin,
        given,
        strategy,
        top,
        assassin_margin: margin,
    };
    // `clue-db suggest --json`'s answer, its `"warnings"` after the other keys.
    let answer = blocking(&state, move |_, db| db.suggest(&q).map_err(answer_error)).await?;
    Ok(Json(answer))
}

// ---- /api/explain and /api/guess ---------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainBody {
    pub clue: String,
    pub terms: Vec<String>,
}

/// `clue-db explain --json`'s answer: per term the scores' evidence (page, count, excerpt…), the
/// relatedness and where the words meet; the set network's distances (null without one); then
/// the warnings.
async fn explain(
    State(state): State<Arc<AppState>>,
    JsonBody(b): JsonBody<ExplainBody>,
) -> ApiResult<Json<Value>> {
    let clue = clue_word(&b.clue)?;
    let terms = card_words(&b.terms, "terms")?;
    if terms.is_empty() {
        return Err(ApiError::bad("terms is empty: give the cards to explain"));
    }
    let c = clue.clone();
    let x = blocking(&state, move |_, db| {
        covered(db, &terms.iter().collect::<Vec<_>>())?;
        Ok(db.explain(&c, &terms)?)
    })
    .await?;
    Ok(Json(
        json!({ "clue": clue, "terms": x.terms, "setnet": x.setnet, "warnings": x.warnings }),
    ))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuessBody {
    pub clue: String,
    /// The number heard (0: no limit).
    #[serde(default)]
    pub count: usize,
    /// The unrevealed words.
    pub board: Vec<String>,
    #[serde(default)]
    pub floor: Option<f64>,
}

/// The guesser's ranking of the unrevealed words for a clue, with its warnings: `clue-db guess
/// --json`'s object (the board's checks are the query engine's, as the CLI's).
async fn guess(
    State(state): State<Arc<AppState>>,
    JsonBody(b): JsonBody<GuessBody>,
) -> ApiResult<Json<query::answer::Guessed>> {
    let clue = clue_word(&b.clue)?;
    let board = card_words(&b.board, "board")?;
    // The ranges of `clue-db guess --count` and `--floor`, said the same way.
    let count = query::request::COUNT
        .check(b.count)
        .map_err(|e| ApiError::bad(format!("count {}: {e}", b.count)))?;
    let floor = b
        .floor
        .unwrap_or(query::guesser::GuessParams::default().floor);
    query::request::FLOOR
        .check(floor)
        .map_err(|e| ApiError::bad(format!("floor {floor}: {e}")))?;
    let guessed = blocking(&state, move |_, db| {
        db.guess(&clue, count, &board, floor).map_err(answer_error)
    })
    .await?;
    Ok(Json(guessed))
}

// ---- boards and games --------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedBody {
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub strategy: Option<String>,
    /// The cards to draw the board from: a list by name (`/api/info` names them), or 25 words
    /// or more (a pack of one's own); by default the stored card words.
    #[serde(default)]
    pub words: Option<Words>,
}

/// What a board is drawn from ([`SeedBody::words`]).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Words {
    List(String),
    Words(Vec<String>),
}

/// The most words a pasted list may hold.
const MAX_LIST_WORDS: usize = 5000;

/// The words a board is drawn from, checked: a named list's (any case), or those sent
/// (normalised, each once, 25 or more); without either, the original game's list when offered,
/// else `None` (the engine's default deck).
fn deck(lists: &[&(String, Vec<String>)], words: Option<Words>) -> ApiResult<Option<Vec<String>>> {
    match words {
        // The original game's cards when the server offers them (stored, or read from the
        // files for an older database), else the engine's default deck.
        None => Ok(lists
            .iter()
            .find(|(n, _)| n == query::deck::DEFAULT_LIST)
            .map(|(_, w)| w.clone())),
        Some(Words::List(name)) => match query::deck::find_list(lists.iter().copied(), &name) {
            Some((_, words)) => Ok(Some(words.clone())),
            None => Err(ApiError::bad(format!(
                "no word list {} here (lists: {}){}",
                shown(&name),
                lists
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                // A pasted list sent as one string of words.
                if name.contains([',', '\n']) {
                    "; send a list of your own as an array of words"
                } else {
                    ""
                }
            ))),
        },
        Some(Words::Words(raw)) => {
            if raw.len() > MAX_LIST_WORDS {
                return Err(ApiError::bad(format!(
                    "words has {} entries; a list holds at most {MAX_LIST_WORDS}",
                    raw.len()
                )));
            }
            let mut out: Vec<String> = Vec::new();
            for w in &raw {
                let w = card_word(w, "words")?;
                if !out.contains(&w) {
                    out.push(w);
                }
            }
            if out.len() < 25 {
                return Err(ApiError::bad(format!(
                    "words has {} different word{}; a board needs 25",
                    out.len(),
                    if out.len() == 1 { "" } else { "s" }
                )));
            }
            Ok(Some(out))
        }
    }
}

/// The board of `seed` for `strategy`, drawn from `words` or the default deck, of the cards
/// the strategy can score ([`Db::deal`]), with warnings naming the words left out (as `clue-db
/// play --words` prints them); 422 naming them when fewer than 25 remain.
fn board_of(
    db: &Db<'_>,
    seed: u64,
    words: Option<&[String]>,
    strategy: &query::game::StrategyKind,
) -> ApiResult<Dealt> {
    match db.deal(seed, words, strategy) {
        Ok(Ok(dealt)) => Ok(dealt),
        Ok(Err(left_out)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            if left_out.is_empty() {
                "fewer than 25 words can be cards, a board needs 25".to_string()
            } else {
                format!(
                    "fewer than 25 of the words can be cards, a board needs 25: {}",
                    left_out.join("; ")
                )
            },
        )),
        Err(e) => Err(ApiError::internal(e)),
    }
}

/// A seed from the clock when the client gives none.
fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        % 1_000_000
}

/// A seed from the clock that deals no game being played.
fn free_seed(state: &AppState) -> u64 {
    let mut seed = clock_seed();
    while state.games.playing_seed(seed) {
        seed = (seed + 1) % 1_000_000;
    }
    seed
}

/// 403 when `seed` is that of a game being played, whatever the deck: its seed is on the page,
/// and a deck that differs from the game's by one word deals the same layout with that word
/// changed (boards are drawn by index from the sorted deck), colours and all. Checked after the
/// body's own errors, which give nothing away.
fn not_playing(state: &AppState, seed: u64, then: &str) -> ApiResult<()> {
    if state.games.playing_seed(seed) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("seed {seed} deals the board of a game being played: {then}"),
        ));
    }
    Ok(())
}

/// A seeded board with every colour (for assist mode: a generated board to edit). Never the
/// board of a game being played (403 for a seed asked for; a seed from the clock avoids the
/// seeds of games being played).
async fn board(
    State(state): State<Arc<AppState>>,
    JsonBody(b): JsonBody<SeedBody>,
) -> ApiResult<Json<Value>> {
    let seed = b.seed.unwrap_or_else(|| free_seed(&state));
    let kind = strategy(b.strategy.as_deref())?;
    blocking(&state, move |s, db| {
        let words = deck(&db.lists(&s.lists), b.words)?;
        let Dealt { board, warnings } = board_of(db, seed, words.as_deref(), &kind)?;
        not_playing(s, seed, "its colours are shown when that game ends")?;
        Ok(Json(
            json!({ "seed": seed, "cards": board.cards, "warnings": warnings }),
        ))
    })
    .await
}

/// Gives the game its next clue while it needs one (top 1, never a clue given before).
fn deal_clue(db: &Db<'_>, game: &mut Game) -> ApiResult<()> {
    if !game.needs_clue() {
        return Ok(());
    }
    let v = game.spymaster_view();
    let q = SuggestQuery {
        pos: v.pos,
        neg: v.neg,
        neutral: v.neutral,
        assassin: v.assassin,
        given: v.given,
        strategy: strategy(Some(&game.strategy))?,
        top: 1,
        assassin_margin: None,
    };
    let clue = db.game_clue(&q).map_err(answer_error)?;
    game.start_turn(clue);
    Ok(())
}

fn lock(game: &Mutex<Game>) -> std::sync::MutexGuard<'_, Game> {
    game.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new game's answer: the game, then the words of its deck left out, as `warnings` come
/// last in every answer that has them.
#[derive(Debug, serde::Serialize)]
pub struct NewGame {
    #[serde(flatten)]
    pub game: crate::game::GameView,
    pub warnings: Vec<String>,
}

async fn new_game(
    State(state): State<Arc<AppState>>,
    JsonBody(b): JsonBody<SeedBody>,
) -> ApiResult<Json<NewGame>> {
    let seed = b.seed.unwrap_or_else(|| free_seed(&state));
    // Checked now, so a bad name is a 400 before any work; the game keeps the name.
    let name = b
        .strategy
        .unwrap_or_else(|| engine::DEFAULT_STRATEGY.to_string());
    let kind = strategy(Some(&name))?;
    // The game shows the strategy by its name, not as typed (`SetNet`).
    let name = kind.as_str().to_string();
    blocking(&state, move |s, db| {
        let words = deck(&db.lists(&s.lists), b.words)?;
        let Dealt { board, warnings } = board_of(db, seed, words.as_deref(), &kind)?;
        // Never a second game on the board of one being played: played to its end, it would
        // show every colour of the first (as `/api/board` would, which refuses it too).
        not_playing(s, seed, "start another seed, or none, until that game ends")?;
        let mut game = Game::new(s.games.new_id(), seed, &name, board);
        deal_clue(db, &mut game)?;
        let view = game.view();
        s.games.insert(game);
        Ok(Json(NewGame {
            game: view,
            warnings,
        }))
    })
    .await
}

fn find_game(state: &AppState, id: &str) -> ApiResult<Arc<Mutex<Game>>> {
    state.games.get(id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "no game {} (games are kept in memory, at most {}; start a new one)",
                shown(id),
                Games::CAPACITY
            ),
        )
    })
}

/// The game id of a route's path; one that is not UTF-8 (`/api/game/%ff`) is a JSON 400 as
/// every other error, not axum's plain text.
fn game_id(id: Result<Path<String>, PathRejection>) -> ApiResult<String> {
    id.map(|Path(id)| id).map_err(|e| {
        ApiError::bad(format!(
            "the game id in the path cannot be read ({}): give the id a new game answered",
            query::cut_long_words(&e.body_text())
        ))
    })
}

async fn get_game(
    State(state): State<Arc<AppState>>,
    id: Result<Path<String>, PathRejection>,
) -> ApiResult<Json<crate::game::GameView>> {
    let game = find_game(&state, &game_id(id)?)?;
    Ok(Json(lock(&game).view()))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevealBody {
    pub word: String,
}

fn move_error(e: MoveError) -> ApiError {
    let status = match e {
        MoveError::NotOnBoard(_) => StatusCode::BAD_REQUEST,
        _ => StatusCode::CONFLICT,
    };
    ApiError::new(status, e.to_string())
}

/// The person reveals a card; the answer is the game after it (and after the opponent's move
/// and the next clue, when the turn ended).
async fn reveal(
    State(state): State<Arc<AppState>>,
    id: Result<Path<String>, PathRejection>,
    JsonBody(b): JsonBody<RevealBody>,
) -> ApiResult<Json<Value>> {
    let word = card_word(&b.word, "word")?;
    let game = find_game(&state, &game_id(id)?)?;
    blocking(&state, move |_, db| {
        let mut g = lock(&game);
        let role: Role = g.reveal(&word).map_err(move_error)?;
        deal_clue(db, &mut g)?;
        let mut v = serde_json::to_value(g.view()).map_err(|e| ApiError::internal(e.into()))?;
        v["last"] = json!({ "word": word, "role": role });
        Ok(Json(v))
    })
    .await
}

/// `/api/game/ID/pass` takes `{}` (what the page sends), checked as every other body is: not
/// JSON is a 400, a field a 422.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassBody {}

/// The person ends the turn.
async fn pass(
    State(state): State<Arc<AppState>>,
    id: Result<Path<String>, PathRejection>,
    JsonBody(PassBody {}): JsonBody<PassBody>,
) -> ApiResult<Json<crate::game::GameView>> {
    let game = find_game(&state, &game_id(id)?)?;
    blocking(&state, move |_, db| {
        let mut g = lock(&game);
        g.pass().map_err(move_error)?;
        deal_clue(db, &mut g)?;
        Ok(Json(g.view()))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_with_the_bound_port_are_this_server() {
        let v4: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        for ok in [
            "localhost:8080",
            "LocalHost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
        ] {
            assert!(is_loopback_host(ok, v4), "{ok}");
        }
        for bad in [
            "localhost",
            "localhost:8081",
            "evil.example:8080",
            "127.0.0.1.evil.example:8080",
            "localhost:8080:8080",
            "[::1]",
            "[::2]:8080",
            "",
            ":8080",
        ] {
            assert!(!is_loopback_host(bad, v4), "{bad}");
        }
        let other: SocketAddr = "127.0.0.2:80".parse().unwrap();
        assert!(is_loopback_host("127.0.0.2", other));
        assert!(is_loopback_host("localhost:80", other));
        let v6: SocketAddr = "[::1]:9000".parse().unwrap();
        assert!(is_loopback_host("[::1]:9000", v6));
        assert!(!is_loopback_host("[::1]:9001", v6));
    }

    /// The status [`foreign`] answers a request with these headers, to `target`, on a server
    /// bound to 127.0.0.1:8080 (`loopback`) or to every address; 200 when it lets it through.
    fn verdict(loopback: bool, target: &str, headers: &[(&str, &str)]) -> u16 {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.append(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        let uri: axum::http::Uri = target.parse().unwrap();
        let bound: SocketAddr = if loopback {
            "127.0.0.1:8080".parse().unwrap()
        } else {
            "0.0.0.0:8080".parse().unwrap()
        };
        foreign(&map, &uri, bound, loopback).map_or(200, |e| e.status.as_u16())
    }

    #[test]
    fn a_second_host_or_origin_or_another_target_host_is_refused() {
        let own = ("Host", "127.0.0.1:8080");
        let page = ("Origin", "http://127.0.0.1:8080");
        assert_eq!(verdict(true, "/api/info", &[own]), 200);
        assert_eq!(verdict(true, "/api/info", &[own, page]), 200);
        assert_eq!(
            verdict(true, "/api/info", &[("Host", "evil.example:8080")]),
            421
        );
        // Issue 46: only the first of each header was looked at, and the target not at all.
        for loopback in [true, false] {
            for headers in [
                &[own, ("Host", "evil.example:8080")][..],
                &[own, ("host", "evil.example:8080")],
            ] {
                assert_eq!(verdict(loopback, "/api/info", headers), 400, "{headers:?}");
            }
            assert_eq!(
                verdict(
                    loopback,
                    "/api/info",
                    &[own, page, ("Origin", "http://evil.example")]
                ),
                403
            );
            for target in [
                "http://evil.example:8080/api/info",
                "http://localhost:8080/api/info",
                "https://127.0.0.1:8080/api/info",
            ] {
                assert_eq!(verdict(loopback, target, &[own]), 400, "{target}");
            }
            // The target naming the Host's name is the same request.
            assert_eq!(
                verdict(loopback, "http://127.0.0.1:8080/api/info", &[own]),
                200
            );
        }
        // Bound to every address, any one name is served.
        assert_eq!(
            verdict(false, "/api/info", &[("Host", "clue-db.lan:8080")]),
            200
        );
    }

    #[test]
    fn long_words_are_shown_by_their_start_and_length() {
        assert_eq!(shown("apple"), "\"apple\"");
        let long = "é".repeat(100);
        let s = shown(&long);
        assert!(s.starts_with(&format!("\"{}\"…", "é".repeat(64))), "{s}");
        assert!(s.ends_with("(100 characters)"), "{s}");
        assert_eq!(shown("a\u{1b}b"), "\"a<U+001B>b\"");
    }
}
