//! The one place where `clue-db serve` calls the query engine and the store.
//!
//! Every handler goes through [`Engine::with_db`], so a change of the query crate's API (new
//! `Request` fields, new strategies) is one edit here. The functions are blocking (SQLite): the
//! HTTP layer runs them on tokio's blocking pool.
//!
//! A build renames a new file over the database while the server runs. Each request looks at
//! the path once and reads everything (covered terms, scores, relatedness) from the file it
//! finds there: requests after the rename read the new file, a request in flight finishes on the
//! old one, and no answer mixes the two (before, each worker thread kept the file it had first
//! opened, and the covered terms were the first file's for ever).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use query::Knowledge;
use query::answer;
pub use query::answer::{BoardError, Unknown, UnknownWords};
use query::game::{Answer, Board, Request, StrategyKind};
use query::store_knowledge::{Explanation, KnowledgeCache, StoreKnowledge};
use query::strategy::Margins;
use store::Store;

/// The strategy used when a request names none (the CLI's default).
pub const DEFAULT_STRATEGY: &str = query::strategy::DEFAULT_STRATEGY;

/// The strategies a request may name, for the page's menu and error messages.
pub const STRATEGIES: &[&str] = &query::strategy::STRATEGIES;

thread_local! {
    /// This thread's open databases: path, the file it opened, the store. A rusqlite
    /// connection cannot be shared between threads, and a `Store` cannot even move between
    /// them, so each thread of tokio's blocking pool opens its own on first use (a few
    /// milliseconds), and again when another file has been renamed over the path.
    static STORES: RefCell<Vec<(PathBuf, FileId, Store<'static>)>> = const { RefCell::new(Vec::new()) };
}

/// Which file stands under a path. A build renames a new file over the database, which changes
/// the inode (and the change time); size and modification time catch a file written in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
    bytes: u64,
    modified_ns: i128,
    changed_ns: i128,
}

fn file_id(path: &Path) -> Result<FileId> {
    let meta = std::fs::metadata(path).with_context(|| format!("examining {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Ok(FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            bytes: meta.len(),
            modified_ns: ns(meta.mtime(), meta.mtime_nsec()),
            changed_ns: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }
    #[cfg(not(unix))]
    {
        let modified_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        Ok(FileId {
            dev: 0,
            ino: 0,
            bytes: meta.len(),
            modified_ns,
            changed_ns: modified_ns,
        })
    }
}

/// What is read once per database file rather than per request: its covered terms, and what
/// the strategies read again on every board (the clue words, each card's relatedness), kept
/// after the first request that reads them.
pub struct Snapshot {
    id: FileId,
    /// The covered terms, sorted.
    terms: Vec<String>,
    /// The word lists the build stored (`word_lists`), by name: a rebuilt file brings its own.
    lists: Vec<(String, Vec<String>)>,
    cache: Arc<KnowledgeCache>,
}

impl Snapshot {
    fn read(id: FileId, store: &Store<'static>, path: &Path) -> Result<Snapshot> {
        let mut terms = Knowledge::card_words(store)
            .with_context(|| format!("reading the card words of {}", path.display()))?;
        terms.sort();
        terms.dedup();
        let lists = store
            .word_lists()
            .with_context(|| format!("reading the word lists of {}", path.display()))?;
        Ok(Snapshot {
            id,
            terms,
            lists,
            cache: Arc::default(),
        })
    }

    /// Every covered term (card word), sorted.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The file's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.id.bytes
    }

    /// The file's modification time, in seconds since 1970.
    pub fn modified(&self) -> i64 {
        i64::try_from(self.id.modified_ns.div_euclid(1_000_000_000)).unwrap_or(0)
    }
}

/// A board as a spymaster sees it, checked and normalised by the API layer.
#[derive(Debug, Clone)]
pub struct SuggestQuery {
    pub pos: Vec<String>,
    /// The opponent's cards.
    pub neg: Vec<String>,
    /// Bystanders.
    pub neutral: Vec<String>,
    pub assassin: Option<String>,
    /// Clues already given this game: never suggested again.
    pub given: Vec<String>,
    pub strategy: StrategyKind,
    pub top: usize,
    /// The assassin's margin; `None` keeps the strategy's default.
    pub assassin_margin: Option<f64>,
}

impl SuggestQuery {
    /// The board as the strategies read it, and the strategy with its `top` and margin.
    fn request(&self) -> (Request, StrategyKind) {
        let req = Request {
            pos: self.pos.clone(),
            neg: self.neg.clone(),
            neutral: self.neutral.clone(),
            assassin: self.assassin.clone(),
            given: self.given.clone(),
        };
        let strategy = self.strategy.with_top(self.top).with_margins(Margins {
            assassin: self.assassin_margin,
            ..Margins::default()
        });
        (req, strategy)
    }
}

/// The database under a path, as it is now: each request runs on one snapshot of the file
/// (see [`Engine::with_db`]), and a file renamed over the path is taken up by the next request.
pub struct Engine {
    path: PathBuf,
    /// The snapshot of the file most recently seen under the path.
    current: Mutex<Arc<Snapshot>>,
}

/// How many times a request tries to open the file under the path when it keeps changing.
const OPEN_TRIES: usize = 5;

impl Engine {
    /// Opens the database and reads its covered terms; fails on a missing file or one that is
    /// not a clue-db database (the store's checks name the file).
    pub fn open(path: &Path) -> Result<Engine> {
        let before = file_id(path);
        // The store's checks name a missing or foreign file.
        let store = Store::open(path)?;
        let id = file_id(path)?;
        if before.ok() != Some(id) {
            anyhow::bail!(
                "{}: the file changed while it was being opened (a build finishing?): try again",
                path.display()
            );
        }
        let snapshot = Snapshot::read(id, &store, path)?;
        Ok(Engine {
            path: path.to_path_buf(),
            current: Mutex::new(Arc::new(snapshot)),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The snapshot of the file most recently seen (a request reads the path again).
    pub fn current(&self) -> Arc<Snapshot> {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The strategy named `name` with its default parameters.
    pub fn strategy(name: &str) -> Result<StrategyKind> {
        name.parse()
    }

    /// Runs `f` on the file under the path now: one store (this thread's, reopened if another
    /// file was renamed over the path since it was opened) and the snapshot of that same file,
    /// so every read of one request comes from one file. `f` must not call back into the engine
    /// (the thread's stores are borrowed while it runs).
    pub fn with_db<T, E>(&self, f: impl FnOnce(&Db<'_>) -> Result<T, E>) -> Result<T, E>
    where
        E: From<anyhow::Error>,
    {
        let mut f = Some(f);
        for _ in 0..OPEN_TRIES {
            let id = file_id(&self.path)?;
            let done = STORES.with(|cell| -> Result<Option<Result<T, E>>> {
                let mut stores = cell
                    .try_borrow_mut()
                    .map_err(|_| anyhow::anyhow!("the engine was called from inside a query"))?;
                let found = stores.iter().position(|(p, _, _)| *p == self.path);
                let i = match found {
                    Some(i) if stores[i].1 == id => i,
                    _ => {
                        // Closes the file this thread had open, if any: a new one is in place.
                        if let Some(i) = found {
                            stores.swap_remove(i);
                        }
                        let store = Store::open(&self.path)?;
                        // The file SQLite opened is the one `id` names if the path named it
                        // both before and after (a renamed file changes the identity, and an
                        // inode reused in between would carry other times).
                        if file_id(&self.path)? != id {
                            return Ok(None);
                        }
                        stores.push((self.path.clone(), id, store));
                        stores.len() - 1
                    }
                };
                let store = &stores[i].2;
                let snapshot = self.snapshot(id, store)?;
                let f = f
                    .take()
                    .ok_or_else(|| anyhow::anyhow!("a query ran twice"))?;
                Ok(Some(f(&Db {
                    store,
                    snapshot: &snapshot,
                })))
            })?;
            if let Some(result) = done {
                return result;
            }
        }
        Err(anyhow::anyhow!(
            "{}: the file kept changing while it was being opened ({OPEN_TRIES} tries)",
            self.path.display()
        )
        .into())
    }

    /// The snapshot of the file `id`, read from `store` (that file) unless it is the current one.
    fn snapshot(&self, id: FileId, store: &Store<'static>) -> Result<Arc<Snapshot>> {
        let current = self.current();
        if current.id == id {
            return Ok(current);
        }
        let snapshot = Arc::new(Snapshot::read(id, store, &self.path)?);
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = snapshot.clone();
        Ok(snapshot)
    }
}

/// A board dealt from a deck, and the warnings and notes naming the deck's words left out.
pub struct Dealt {
    pub board: Board,
    pub warnings: Vec<String>,
}

/// One request's view of the database: a store and the snapshot of the same file.
pub struct Db<'a> {
    store: &'a Store<'static>,
    snapshot: &'a Snapshot,
}

impl Db<'_> {
    /// The store read through this file's cache.
    fn knowledge(&self) -> StoreKnowledge<'_> {
        StoreKnowledge::with_cache(self.store, self.snapshot.cache.clone())
    }

    /// The file's snapshot (terms, size, time).
    pub fn snapshot(&self) -> &Snapshot {
        self.snapshot
    }

    /// Every covered term (card word), sorted.
    pub fn terms(&self) -> &[String] {
        &self.snapshot.terms
    }

    /// The word lists offered for new games: those this file stored, or, for a database built
    /// before lists were stored (it stored none), `files` (read from the lists' files at start).
    /// A file built from other lists (`--terms my-pack.txt`) offers its own only.
    pub fn lists<'l>(
        &'l self,
        files: &'l [(String, Vec<String>)],
    ) -> Vec<&'l (String, Vec<String>)> {
        let stored = &self.snapshot.lists;
        let offered = if stored.is_empty() { files } else { stored };
        offered.iter().collect()
    }

    /// What `clue-db suggest --json` answers for this board ([`query::answer::answer`]), in
    /// the API's names; a board no one can mean is a [`BoardError`], one with words the
    /// database cannot score an [`UnknownWords`].
    pub fn suggest(&self, q: &SuggestQuery) -> Result<Answer> {
        let (req, strategy) = q.request();
        let opts = answer::Options {
            margins_set: Margins {
                assassin: q.assassin_margin,
                ..Margins::default()
            },
            ..answer::Options::api(strategy)
        };
        answer::answer(&self.knowledge(), &req, &opts)
    }

    /// The clue a game gives this turn, as `clue-db play` gives it ([`query::game::turn_clue`]:
    /// the strategy's best, or its fallback when it has none). A game's board is dealt from
    /// cards the strategy can score, so it needs none of [`Db::suggest`]'s checks.
    pub fn game_clue(&self, q: &SuggestQuery) -> Result<Option<query::game::Suggestion>> {
        let (req, strategy) = q.request();
        let k = self.knowledge();
        Ok(query::game::turn_clue(&k, k.lexicon(), &req, &strategy)?.clue)
    }

    /// The evidence behind the clue's score with each term, and the set network's view of them
    /// when the database has one (`clue-db explain`).
    pub fn explain(&self, clue: &str, terms: &[String]) -> Result<Explanation> {
        query::store_knowledge::explanation(&self.knowledge(), clue, terms)
    }

    /// What `clue-db guess --json` answers ([`query::answer::guess`]), in the API's names; a
    /// board no one can mean is a [`BoardError`], one with words the database cannot score an
    /// [`UnknownWords`].
    pub fn guess(
        &self,
        clue: &str,
        count: usize,
        board: &[String],
        floor: f64,
    ) -> Result<answer::Guessed> {
        let heard = answer::Heard {
            clue,
            count,
            board,
            floor,
        };
        answer::guess(
            &self.knowledge(),
            &heard,
            &answer::FIELDS,
            answer::OnUnknown::Refuse,
        )
    }

    /// The words of `words` the database cannot score as a card, each with the closest words
    /// that can be ([`query::answer::not_cards`]).
    pub fn not_cards(&self, words: &[String]) -> Result<Vec<Unknown>> {
        Ok(answer::not_cards(&self.knowledge(), words)?.0)
    }

    /// Whether any vocabulary word can be a card here, not only the stored card words.
    pub fn any_word(&self) -> Result<bool> {
        self.knowledge().any_word()
    }

    /// The seeded 9/8/7/1 board `clue-db play --seed` deals for `strategy`: drawn from
    /// `words` (a list by name or a pasted one), or from the default deck, each card one the
    /// strategy can score ([`query::deck::playable`]), with the warnings and notes `play`
    /// prints for the words left out. `Err(those texts)` when fewer than 25 can be cards.
    pub fn deal(
        &self,
        seed: u64,
        words: Option<&[String]>,
        strategy: &StrategyKind,
    ) -> Result<std::result::Result<Dealt, Vec<String>>> {
        let k = self.knowledge();
        let words = match words {
            Some(w) => w.to_vec(),
            None => query::deck::default_deck(&k)?.1,
        };
        let playable = query::deck::playable(&k, &words, std::slice::from_ref(strategy))?;
        let mut left_out = playable.warnings("the deck");
        left_out.extend(playable.notes("the deck"));
        if playable.words.len() < 25 {
            return Ok(Err(left_out));
        }
        Ok(Ok(Dealt {
            board: Board::random(&playable.words, seed)?,
            warnings: left_out,
        }))
    }
}
