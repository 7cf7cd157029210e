//! Play mode: one game between a person (red's guesser) and clue-db (red's spymaster), against
//! the simple opponent of `clue-db play` (blue reveals one of its own cards after each red turn).
//!
//! The rules are the issue's: a turn ends on a wrong card, when the clue's number is used up,
//! or on a pass; the game ends on the assassin (lost), when red's 9 cards are found (won), or
//! when blue's 8 are revealed, by either side (lost). The state machine is pure: the caller
//! asks the engine for each clue ([`Game::needs_clue`], [`Game::start_turn`]), so it is tested
//! here without a database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use query::game::{Board, Ending, Opponent, Role, SplitMix64, Suggestion};
use serde::Serialize;

/// Where a game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Playing,
    Won,
    Lost,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Red's 9 cards were found.
    AllFound,
    /// The person revealed the assassin.
    Assassin,
    /// Blue's 8 cards were revealed.
    OpponentFound,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    WrongCard,
    NumberUsed,
    Pass,
    GameOver,
}

/// A card revealed, with its colour.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reveal {
    pub word: String,
    pub role: Role,
}

/// A finished turn: the clue with its intended targets (shown once the turn is over), what the
/// person revealed, and the card the opponent revealed after it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnRecord {
    pub clue: Option<Suggestion>,
    pub revealed: Vec<Reveal>,
    pub opponent: Option<String>,
    pub ended: TurnEnd,
}

/// The turn in progress.
#[derive(Debug, Clone)]
struct Current {
    clue: Option<Suggestion>,
    guesses_left: usize,
    revealed: Vec<Reveal>,
}

/// A move the rules refuse; the API answers it with 409 (or 400 for a word not on the board).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    Over,
    NotOnBoard(String),
    AlreadyRevealed(String),
    NoGuessesLeft,
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveError::Over => f.write_str("the game is over: start a new one"),
            MoveError::NotOnBoard(w) => {
                write!(f, "{} is not a card of this board", query::shown(w))
            }
            MoveError::AlreadyRevealed(w) => write!(f, "{} is already revealed", query::shown(w)),
            MoveError::NoGuessesLeft => {
                f.write_str("no guesses left this turn (no safe clue was found): pass")
            }
        }
    }
}

/// Which side revealed a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    You,
    Opponent,
}

/// One game.
#[derive(Debug, Clone)]
pub struct Game {
    pub id: String,
    pub seed: u64,
    pub strategy: String,
    board: Board,
    by: Vec<Option<By>>,
    turns: Vec<TurnRecord>,
    current: Option<Current>,
    opponent: Opponent,
    status: Status,
    reason: Option<EndReason>,
}

/// What a spymaster of red sees, for the engine.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpymasterView {
    pub pos: Vec<String>,
    pub neg: Vec<String>,
    pub neutral: Vec<String>,
    pub assassin: Option<String>,
    pub given: Vec<String>,
}

impl Game {
    /// A game on `board` (as dealt); it needs its first clue.
    pub fn new(id: String, seed: u64, strategy: &str, board: Board) -> Game {
        let n = board.cards.len();
        Game {
            id,
            seed,
            strategy: strategy.to_string(),
            board,
            by: vec![None; n],
            turns: Vec::new(),
            current: None,
            // The opponent's choices are seeded like `clue-db play`'s.
            opponent: Opponent::new(seed),
            status: Status::Playing,
            reason: None,
        }
    }

    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether the game waits for its spymaster's next clue.
    pub fn needs_clue(&self) -> bool {
        self.status == Status::Playing && self.current.is_none()
    }

    /// Red's spymaster's view: unrevealed cards by role, and the clues already given.
    pub fn spymaster_view(&self) -> SpymasterView {
        let req = self.board.request_for(Role::Red);
        let mut v = SpymasterView {
            pos: req.pos,
            neg: req.neg,
            neutral: req.neutral,
            assassin: req.assassin,
            given: Vec::new(),
        };
        v.given = self
            .turns
            .iter()
            .filter_map(|t| t.clue.as_ref())
            .chain(self.current.iter().filter_map(|c| c.clue.as_ref()))
            .map(|s| s.clue.clone())
            .collect();
        v
    }

    /// Starts a turn with the spymaster's clue (`None`: no safe clue, the person can only pass).
    pub fn start_turn(&mut self, clue: Option<Suggestion>) {
        if !self.needs_clue() {
            return;
        }
        self.current = Some(Current {
            guesses_left: clue.as_ref().map_or(0, |c| c.count),
            clue,
            revealed: Vec::new(),
        });
    }

    /// The person reveals `word`; returns its colour.
    pub fn reveal(&mut self, word: &str) -> Result<Role, MoveError> {
        if self.status != Status::Playing {
            return Err(MoveError::Over);
        }
        let Some(i) = self.board.cards.iter().position(|c| c.word == word) else {
            return Err(MoveError::NotOnBoard(word.to_string()));
        };
        if self.board.cards[i].revealed {
            return Err(MoveError::AlreadyRevealed(word.to_string()));
        }
        let Some(cur) = self.current.as_mut() else {
            return Err(MoveError::NoGuessesLeft);
        };
        if cur.guesses_left == 0 {
            return Err(MoveError::NoGuessesLeft);
        }
        cur.guesses_left -= 1;
        let card = &mut self.board.cards[i];
        card.revealed = true;
        let role = card.role;
        self.by[i] = Some(By::You);
        cur.revealed.push(Reveal {
            word: word.to_string(),
            role,
        });
        let left = cur.guesses_left;
        if let Some(ending) = self.board.ending_after(role) {
            match ending {
                Ending::Assassin => self.finish(Status::Lost, EndReason::Assassin),
                Ending::AllFound => self.finish(Status::Won, EndReason::AllFound),
                Ending::OpponentFound => self.finish(Status::Lost, EndReason::OpponentFound),
            }
        } else if role != Role::Red {
            self.end_turn(TurnEnd::WrongCard);
        } else if left == 0 {
            self.end_turn(TurnEnd::NumberUsed);
        }
        Ok(role)
    }

    /// The person ends the turn.
    pub fn pass(&mut self) -> Result<(), MoveError> {
        if self.status != Status::Playing {
            return Err(MoveError::Over);
        }
        self.end_turn(TurnEnd::Pass);
        Ok(())
    }

    fn finish(&mut self, status: Status, reason: EndReason) {
        self.status = status;
        self.reason = Some(reason);
        self.end_turn(TurnEnd::GameOver);
    }

    /// Closes the turn in progress; while the game goes on, the opponent reveals one of its
    /// cards, which may end the game.
    fn end_turn(&mut self, ended: TurnEnd) {
        let cur = self.current.take().unwrap_or(Current {
            clue: None,
            guesses_left: 0,
            revealed: Vec::new(),
        });
        let mut record = TurnRecord {
            clue: cur.clue,
            revealed: cur.revealed,
            opponent: None,
            ended,
        };
        if self.status == Status::Playing {
            if let Some(i) = self.opponent.reveal(&mut self.board) {
                self.by[i] = Some(By::Opponent);
                record.opponent = Some(self.board.cards[i].word.clone());
            }
            if self.board.remaining(Role::Blue) == 0 {
                self.status = Status::Lost;
                self.reason = Some(EndReason::OpponentFound);
            }
        }
        self.turns.push(record);
    }

    /// What the person sees: colours of revealed cards only, until the game is over; the
    /// current clue without its targets; finished turns with theirs.
    pub fn view(&self) -> GameView {
        let over = self.status != Status::Playing;
        GameView {
            id: self.id.clone(),
            seed: self.seed,
            strategy: self.strategy.clone(),
            status: self.status,
            reason: self.reason,
            cards: self
                .board
                .cards
                .iter()
                .zip(&self.by)
                .map(|(c, by)| CardView {
                    word: c.word.clone(),
                    revealed: c.revealed,
                    role: (c.revealed || over).then_some(c.role),
                    by: *by,
                })
                .collect(),
            remaining: Remaining {
                red: self.board.remaining(Role::Red),
                blue: self.board.remaining(Role::Blue),
            },
            clue: self.current.as_ref().map(|c| CurrentView {
                clue: c.clue.as_ref().map(|s| s.clue.clone()),
                count: c.clue.as_ref().map_or(0, |s| s.count),
                guesses_left: c.guesses_left,
                revealed: c.revealed.clone(),
            }),
            turns: self.turns.clone(),
        }
    }
}

/// One card as the person sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardView {
    pub word: String,
    pub revealed: bool,
    /// Known once revealed, and for every card when the game is over.
    pub role: Option<Role>,
    pub by: Option<By>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Remaining {
    pub red: usize,
    pub blue: usize,
}

/// The clue of the turn in progress, without its targets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurrentView {
    /// `None`: no safe clue this turn; the person can only pass.
    pub clue: Option<String>,
    pub count: usize,
    pub guesses_left: usize,
    pub revealed: Vec<Reveal>,
}

/// The JSON of `/api/new-game` and the game endpoints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameView {
    pub id: String,
    pub seed: u64,
    pub strategy: String,
    pub status: Status,
    pub reason: Option<EndReason>,
    pub cards: Vec<CardView>,
    pub remaining: Remaining,
    pub clue: Option<CurrentView>,
    pub turns: Vec<TurnRecord>,
}

/// The games being played, bounded: past [`Games::CAPACITY`], the least recently used is
/// dropped, so a client that starts games in a loop cannot grow the server's memory.
pub struct Games {
    inner: Mutex<GamesInner>,
}

struct GamesInner {
    /// Each game with the tick of its last use.
    map: HashMap<String, (Arc<Mutex<Game>>, u64)>,
    tick: u64,
    rng: SplitMix64,
}

impl Games {
    pub const CAPACITY: usize = 500;

    /// `seed` makes the game ids (unguessable ids are not needed on a local server; distinct
    /// ones are).
    pub fn new(seed: u64) -> Games {
        Games {
            inner: Mutex::new(GamesInner {
                map: HashMap::new(),
                tick: 0,
                rng: SplitMix64::new(seed),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GamesInner> {
        // A panic while holding the lock leaves a map that is still consistent.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh id, not in use.
    pub fn new_id(&self) -> String {
        let mut g = self.lock();
        loop {
            let id = format!("{:016x}", g.rng.next_u64());
            if !g.map.contains_key(&id) {
                return id;
            }
        }
    }

    /// Stores a game, dropping the least recently used past capacity.
    pub fn insert(&self, game: Game) -> Arc<Mutex<Game>> {
        let mut g = self.lock();
        while g.map.len() >= Self::CAPACITY {
            let Some(oldest) = g
                .map
                .iter()
                .min_by_key(|(_, (_, t))| *t)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            g.map.remove(&oldest);
        }
        let id = game.id.clone();
        let game = Arc::new(Mutex::new(game));
        g.tick += 1;
        let tick = g.tick;
        g.map.insert(id, (game.clone(), tick));
        game
    }

    /// The game with this id, marked as used now.
    pub fn get(&self, id: &str) -> Option<Arc<Mutex<Game>>> {
        let mut g = self.lock();
        g.tick += 1;
        let tick = g.tick;
        let entry = g.map.get_mut(id)?;
        entry.1 = tick;
        Some(entry.0.clone())
    }

    /// Whether a game still being played was dealt from `seed` (a seed drawn from the clock
    /// avoids it).
    pub fn playing_seed(&self, seed: u64) -> bool {
        // The games are locked one by one after the map is released, as the handlers do.
        let games: Vec<Arc<Mutex<Game>>> =
            self.lock().map.values().map(|(g, _)| g.clone()).collect();
        games.iter().any(|g| {
            let g = g.lock().unwrap_or_else(|e| e.into_inner());
            g.seed == seed && g.status() == Status::Playing
        })
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use query::game::Card;

    /// A board whose roles are known by word: r0..r8 red, b0..b7 blue, n0..n6 bystanders, x.
    fn board() -> Board {
        let mut cards = Vec::new();
        for (prefix, role, n) in [
            ("r", Role::Red, 9),
            ("b", Role::Blue, 8),
            ("n", Role::Bystander, 7),
            ("x", Role::Assassin, 1),
        ] {
            for i in 0..n {
                let word = if n == 1 {
                    prefix.to_string()
                } else {
                    format!("{prefix}{i}")
                };
                cards.push(Card {
                    word,
                    role,
                    revealed: false,
                });
            }
        }
        Board { cards }
    }

    fn clue(word: &str, count: usize) -> Option<Suggestion> {
        Some(Suggestion {
            clue: word.into(),
            count,
            targets: (0..count).map(|i| format!("r{i}")).collect(),
            score: 1.0,
            safety: None,
            level: None,
        })
    }

    #[test]
    fn a_turn_ends_when_the_number_is_used_and_the_opponent_plays() {
        let mut g = Game::new("g".into(), 3, "threshold", board());
        assert!(g.needs_clue());
        g.start_turn(clue("one", 2));
        assert!(!g.needs_clue());
        let v = g.view();
        assert!(v.cards.iter().all(|c| c.role.is_none()), "colours hidden");
        assert_eq!(v.clue.as_ref().unwrap().guesses_left, 2);
        assert_eq!(g.reveal("r0"), Ok(Role::Red));
        assert_eq!(g.reveal("r0"), Err(MoveError::AlreadyRevealed("r0".into())));
        assert_eq!(g.reveal("zzz"), Err(MoveError::NotOnBoard("zzz".into())));
        assert_eq!(g.reveal("r1"), Ok(Role::Red));
        // Number used: the turn is over, blue revealed one of its cards, a clue is needed.
        assert!(g.needs_clue());
        let v = g.view();
        assert_eq!(v.turns.len(), 1);
        assert_eq!(v.turns[0].ended, TurnEnd::NumberUsed);
        assert_eq!(v.turns[0].clue.as_ref().unwrap().targets, ["r0", "r1"]);
        let opp = v.turns[0].opponent.clone().unwrap();
        assert!(opp.starts_with('b'));
        assert_eq!(v.remaining.red, 7);
        assert_eq!(v.remaining.blue, 7);
        let c = v.cards.iter().find(|c| c.word == opp).unwrap();
        assert_eq!((c.role, c.by), (Some(Role::Blue), Some(By::Opponent)));
        // The spymaster's view leaves revealed cards out and remembers the clue.
        let s = g.spymaster_view();
        assert_eq!((s.pos.len(), s.neg.len(), s.neutral.len()), (7, 7, 7));
        assert_eq!(s.assassin.as_deref(), Some("x"));
        assert_eq!(s.given, ["one"]);
    }

    #[test]
    fn wrong_cards_and_passes_end_turns_and_the_assassin_ends_the_game() {
        let mut g = Game::new("g".into(), 1, "threshold", board());
        g.start_turn(clue("one", 3));
        assert_eq!(g.reveal("n0"), Ok(Role::Bystander));
        assert_eq!(g.view().turns[0].ended, TurnEnd::WrongCard);
        g.start_turn(clue("two", 1));
        g.pass().unwrap();
        assert_eq!(g.view().turns[1].ended, TurnEnd::Pass);
        // No safe clue: only a pass.
        g.start_turn(None);
        assert_eq!(g.reveal("r0"), Err(MoveError::NoGuessesLeft));
        g.pass().unwrap();
        g.start_turn(clue("three", 2));
        assert_eq!(g.reveal("x"), Ok(Role::Assassin));
        assert_eq!(g.status(), Status::Lost);
        let v = g.view();
        assert_eq!(v.reason, Some(EndReason::Assassin));
        assert!(
            v.cards.iter().all(|c| c.role.is_some()),
            "all shown at the end"
        );
        assert_eq!(v.turns.last().unwrap().ended, TurnEnd::GameOver);
        assert_eq!(g.reveal("r1"), Err(MoveError::Over));
        assert_eq!(g.pass(), Err(MoveError::Over));
        assert!(!g.needs_clue());
    }

    #[test]
    fn finding_all_nine_wins_and_blue_finishing_loses() {
        let mut g = Game::new("g".into(), 1, "threshold", board());
        g.start_turn(clue("all", 9));
        for i in 0..9 {
            assert_eq!(g.reveal(&format!("r{i}")), Ok(Role::Red));
        }
        assert_eq!(g.status(), Status::Won);
        assert_eq!(g.view().reason, Some(EndReason::AllFound));

        // Passing every turn: blue reveals one card a turn and wins after 8.
        let mut g = Game::new("g".into(), 2, "threshold", board());
        let mut turns = 0;
        while g.status() == Status::Playing {
            g.start_turn(None);
            g.pass().unwrap();
            turns += 1;
        }
        assert_eq!(turns, 8);
        assert_eq!(g.view().reason, Some(EndReason::OpponentFound));
    }

    /// The lock is on a game's seed while it is played (revealed cards or not), whatever the
    /// deck, and on nothing once it ends.
    #[test]
    fn a_seed_is_locked_while_its_game_is_played() {
        let games = Games::new(1);
        let game = games.insert(Game::new(games.new_id(), 3, "t", board()));
        assert!(games.playing_seed(3));
        assert!(!games.playing_seed(4));
        {
            let mut g = game.lock().unwrap();
            g.start_turn(clue("one", 1));
            assert_eq!(g.reveal("r0"), Ok(Role::Red));
        }
        assert!(games.playing_seed(3), "revealed cards change nothing");
        {
            let mut g = game.lock().unwrap();
            g.start_turn(clue("two", 1));
            assert_eq!(g.reveal("x"), Ok(Role::Assassin));
        }
        assert!(!games.playing_seed(3), "an ended game shows its colours");
    }

    #[test]
    fn games_are_bounded() {
        let games = Games::new(1);
        let first = games.new_id();
        games.insert(Game::new(first.clone(), 1, "t", board()));
        for _ in 0..Games::CAPACITY {
            let id = games.new_id();
            games.insert(Game::new(id, 1, "t", board()));
        }
        assert_eq!(games.len(), Games::CAPACITY);
        assert!(games.get(&first).is_none(), "the oldest was dropped");
    }
}
