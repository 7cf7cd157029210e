//! The one place where `clue-db serve` calls the query engine and the store.
//!
//! Every handler goes through [`Engine`], so a change of the query crate's API (new `Request`
//! fields, new strategies) is one edit here. The functions are blocking (SQLite): the HTTP layer
//! runs them on tokio's blocking pool.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use query::Knowledge;
use query::game::{self, Answer, Board, GuessParams, Request, Strategy, StrategyKind};
use query::guesser::{Guesser, OwnGuesser};
use query::legality::Legality;
use query::store_knowledge::{Explained, StoreLexicon};
use query::strategy::Margins;
use store::Store;

/// The strategy used when a request names none (the CLI's default).
pub const DEFAULT_STRATEGY: &str = query::strategy::DEFAULT_STRATEGY;

/// The strategies a request may name, for the page's menu and error messages.
pub const STRATEGIES: &[&str] = &query::strategy::STRATEGIES;

thread_local! {
    /// This thread's open databases, by path. A rusqlite connection cannot be shared between
    /// threads, and a `Store` cannot even move between them, so each thread of tokio's blocking
    /// pool opens its own on first use (a few milliseconds) and keeps it while the thread lives.
    static STORES: RefCell<Vec<(PathBuf, Store<'static>)>> = const { RefCell::new(Vec::new()) };
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

/// The database, opened read-only once per worker thread (see `STORES`).
pub struct Engine {
    path: PathBuf,
    /// The covered terms, sorted (read once: the database is read-only while served).
    terms: Vec<String>,
}

impl Engine {
    /// Opens the database and reads its covered terms; fails on a missing file or one that is
    /// not a clue-db database (the store's checks name the file).
    pub fn open(path: &Path) -> Result<Engine> {
        let store = Store::open(path)?;
        let mut terms = Knowledge::card_words(&store)
            .with_context(|| format!("reading the card words of {}", path.display()))?;
        terms.sort();
        terms.dedup();
        Ok(Engine {
            path: path.to_path_buf(),
            terms,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every covered term (card word), sorted.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// The strategy named `name` with its default parameters.
    pub fn strategy(name: &str) -> Result<StrategyKind> {
        name.parse()
    }

    /// Runs `f` on this thread's store of the database, opening it on first use. `f` must not
    /// call back into the engine (the thread's stores are borrowed while it runs).
    fn with_store<T>(&self, f: impl FnOnce(&Store<'static>) -> Result<T>) -> Result<T> {
        STORES.with(|cell| {
            let mut stores = cell
                .try_borrow_mut()
                .map_err(|_| anyhow::anyhow!("the engine was called from inside a query"))?;
            let i = match stores.iter().position(|(p, _)| *p == self.path) {
                Some(i) => i,
                None => {
                    stores.push((self.path.clone(), Store::open(&self.path)?));
                    stores.len() - 1
                }
            };
            f(&stores[i].1)
        })
    }

    /// What `clue-db suggest --json` answers for this board.
    pub fn suggest(&self, q: &SuggestQuery) -> Result<Answer> {
        let req = Request {
            pos: q.pos.clone(),
            neg: q.neg.clone(),
            neutral: q.neutral.clone(),
            assassin: q.assassin.clone(),
            given: q.given.clone(),
        };
        let strategy = q.strategy.with_top(q.top).with_margins(Margins {
            assassin: q.assassin_margin,
            ..Margins::default()
        });
        self.with_store(|store| {
            let board = req.board_words();
            let lexicon = StoreLexicon::new(store);
            let legality = Legality::new(&board, &lexicon).with_given(&req.given);
            let ranked = strategy.suggest(store, &req, &legality)?;
            Ok(Answer::new(strategy.name(), ranked))
        })
    }

    /// The evidence behind the clue's score with each term (`clue-db explain`).
    pub fn explain(&self, clue: &str, terms: &[String]) -> Result<(Vec<Explained>, Vec<String>)> {
        self.with_store(|store| {
            let found = query::store_knowledge::explain(store, clue, terms)?;
            let warnings = query::store_knowledge::clue_warning(store, clue)?;
            Ok((found, warnings.into_iter().collect()))
        })
    }

    /// The guesser's ranking of `words` for a clue (`clue-db guess`).
    pub fn guess(
        &self,
        clue: &str,
        count: usize,
        words: &[String],
        floor: f64,
    ) -> Result<Vec<game::Guess>> {
        self.with_store(|store| {
            OwnGuesser {
                knowledge: store,
                params: GuessParams { floor },
            }
            .guess(clue, count, words)
        })
    }

    /// A seeded 9/8/7/1 board of covered terms, the one `clue-db play --seed` deals.
    pub fn board(&self, seed: u64) -> Result<Board> {
        Board::random(&self.terms, seed)
    }
}
