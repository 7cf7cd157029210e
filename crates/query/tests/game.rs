//! Boards, the guesser, games and evaluation on hand-made knowledge whose outcomes can be
//! worked out in advance.

mod common;

use common::{MemoryKnowledge, card_words};
use query::Knowledge;
use query::game::{
    Board, GuessParams, PlayParams, Request, Role, Strategy, StrategyKind, Suggestion, eval, guess,
    play,
};
use query::guesser::OwnGuesser;
use query::legality::{Legality, NoLexicon};

/// Blue reveals one of its cards after each red turn.
const WITH_BLUE: PlayParams = PlayParams {
    opponent: true,
    max_turns: 25,
};

/// 30 covered terms and nothing else.
fn terms_only() -> MemoryKnowledge {
    let mut k = MemoryKnowledge::default();
    for w in card_words(30) {
        k.term(&w);
    }
    k
}

/// The private clue of a card word: "cardab" -> "pvtab".
fn private(term: &str) -> String {
    format!("pvt{}", &term[4..])
}

/// Every term has its own clue (0.9) and no other: the best possible play is one card a turn.
fn private_knowledge() -> MemoryKnowledge {
    let mut k = terms_only();
    for w in card_words(30) {
        k.score(&private(&w), &w, 0.9);
    }
    k
}

#[test]
fn boards_are_seeded_9_8_7_1() {
    let terms = card_words(30);
    let b = Board::random(&terms, 42).unwrap();
    assert_eq!(b.cards.len(), 25);
    let count = |r| b.cards.iter().filter(|c| c.role == r).count();
    assert_eq!(
        (
            count(Role::Red),
            count(Role::Blue),
            count(Role::Bystander),
            count(Role::Assassin)
        ),
        (9, 8, 7, 1)
    );
    let mut words: Vec<&String> = b.cards.iter().map(|c| &c.word).collect();
    words.sort();
    words.dedup();
    assert_eq!(words.len(), 25);
    assert!(b.cards.iter().all(|c| !c.revealed));
    assert_eq!(Board::random(&terms, 42).unwrap(), b);
    assert_ne!(Board::random(&terms, 43).unwrap(), b);
    let err = Board::random(&card_words(24), 1).unwrap_err().to_string();
    assert!(err.contains("25 distinct") && err.contains("24"), "{err}");
    // Duplicates do not count twice.
    let mut dup = card_words(24);
    dup.push(dup[0].clone());
    assert!(Board::random(&dup, 1).is_err());
}

#[test]
fn board_requests_and_reveals() {
    let mut b = Board::random(&card_words(25), 3).unwrap();
    let req = b.request_for(Role::Red);
    // Bystanders are apart from the opponent's cards (the relatedness strategy gives them a
    // margin of their own).
    assert_eq!((req.pos.len(), req.neg.len(), req.neutral.len()), (9, 8, 7));
    assert!(req.assassin.is_some());
    assert_eq!(req.avoid().len(), 15);
    let red = req.pos[0].clone();
    assert_eq!(b.reveal(&red), Some(Role::Red));
    assert_eq!(b.reveal(&red), None, "already revealed");
    assert_eq!(b.reveal("nosuchcard"), None);
    assert_eq!(b.remaining(Role::Red), 8);
    assert_eq!(b.unrevealed().len(), 24);
    assert!(!b.request_for(Role::Red).board_words().contains(&red));
}

#[test]
fn a_revealed_card_no_longer_bars_a_clue() {
    // "<first red card>zz" contains the first red card: illegal while that card is on the
    // board. It is the best clue of the second red card (0.95); the first has its private clue
    // (0.9) and nothing else.
    let mut k = terms_only();
    let seed = 17;
    let board = Board::random(&k.terms().unwrap(), seed).unwrap();
    let red: Vec<String> = board
        .cards
        .iter()
        .filter(|c| c.role == Role::Red)
        .map(|c| c.word.clone())
        .collect();
    let barred = format!("{}zz", red[0]);
    k.score(&private(&red[0]), &red[0], 0.9)
        .score(&barred, &red[1], 0.95);
    // On the board as dealt the clue breaks the rules; once the card is revealed it does not.
    let mut b = board.clone();
    assert!(!Legality::new(&b.unrevealed(), &NoLexicon).allows(&barred));
    b.reveal(&red[0]);
    assert!(Legality::new(&b.unrevealed(), &NoLexicon).allows(&barred));
    // In a game: turn 1 cannot say it and finds the first card; turn 2 can, and does.
    let s: StrategyKind = "threshold".parse().unwrap();
    let g = play(
        seed,
        &s,
        &OwnGuesser::new(&k),
        &k,
        &NoLexicon,
        &PlayParams::default(),
    )
    .unwrap();
    let said = |t: usize| g.turns[t].clue.as_ref().map(|c| c.clue.clone());
    assert_eq!(said(0), Some(private(&red[0])));
    assert_eq!(g.turns[0].revealed, vec![(red[0].clone(), Role::Red)]);
    assert_eq!(said(1), Some(barred.clone()));
    assert_eq!(g.turns[1].revealed, vec![(red[1].clone(), Role::Red)]);
}

#[test]
fn guesser_ranks_stops_at_floor_and_count() {
    let mut k = MemoryKnowledge::default();
    k.score("sea", "wave", 0.7)
        .score("sea", "fish", 0.7)
        .score("sea", "ship", 0.9)
        .score("sea", "salt", 0.005)
        .score("land", "salt", 0.8);
    let words: Vec<String> = ["salt", "wave", "fish", "ship", "tree"]
        .map(String::from)
        .to_vec();
    let p = GuessParams::default();
    let g = guess(&k, "sea", 0, &words, &p).unwrap();
    let ranked: Vec<(&str, f64)> = g.iter().map(|g| (g.word.as_str(), g.score)).collect();
    // salt (0.005) is under the 0.01 floor, tree has no score: both left out.
    assert_eq!(ranked, vec![("ship", 0.9), ("fish", 0.7), ("wave", 0.7)]);
    assert_eq!(guess(&k, "sea", 2, &words, &p).unwrap().len(), 2);
    let strict = GuessParams { floor: 0.8 };
    assert_eq!(guess(&k, "sea", 0, &words, &strict).unwrap().len(), 1);
    assert!(guess(&k, "unknown", 3, &words, &p).unwrap().is_empty());
}

#[test]
fn a_perfect_clue_wins_in_one_turn() {
    let mut k = terms_only();
    let seed = 11;
    let board = Board::random(&k.terms().unwrap(), seed).unwrap();
    for c in board.cards.iter().filter(|c| c.role == Role::Red) {
        k.score("crimson", &c.word, 0.9);
    }
    let s: StrategyKind = "threshold".parse().unwrap();
    let g = play(seed, &s, &OwnGuesser::new(&k), &k, &NoLexicon, &WITH_BLUE).unwrap();
    assert_eq!(g.board, board);
    assert!(g.won && !g.assassin);
    assert_eq!(g.turns.len(), 1);
    assert_eq!(
        (g.clues, g.clue_numbers, g.correct, g.incorrect),
        (1, 9, 9, 0)
    );
    assert_eq!(
        g.turns[0].clue.as_ref().map(|c| c.clue.as_str()),
        Some("crimson")
    );
    assert_eq!(g.turns[0].revealed.len(), 9);
    assert_eq!(
        g.turns[0].opponent, None,
        "the game ended before blue played"
    );
}

#[test]
fn one_card_a_turn_loses_to_blue_in_eight() {
    let k = private_knowledge();
    let s: StrategyKind = "threshold".parse().unwrap();
    let own = OwnGuesser::new(&k);
    let g = play(5, &s, &own, &k, &NoLexicon, &WITH_BLUE).unwrap();
    // Red finds one card per turn, blue reveals one: blue's 8th card ends turn 8.
    assert!(!g.won && !g.assassin);
    assert_eq!(g.turns.len(), 8);
    assert_eq!(
        (g.clues, g.clue_numbers, g.correct, g.incorrect),
        (8, 8, 8, 0)
    );
    assert!(g.turns.iter().all(|t| t.opponent.is_some()));
    // Deterministic.
    assert_eq!(play(5, &s, &own, &k, &NoLexicon, &WITH_BLUE).unwrap(), g);
    // The same through eval, over several boards.
    let reports = eval(4, 99, &[&s], &[&own], &k, &NoLexicon, &WITH_BLUE, None).unwrap();
    let r = &reports[0];
    assert_eq!(
        (r.strategy.as_str(), r.guesser.as_str(), r.games),
        ("threshold", "own", 4)
    );
    assert_eq!(
        (
            r.win_rate,
            r.mean_turns,
            r.assassin_rate,
            r.mean_clue_number,
            r.net_per_clue
        ),
        (0.0, 8.0, 0.0, 1.0, 1.0)
    );
    assert_eq!((r.clues, r.correct, r.incorrect), (32, 32, 0));
    assert_eq!(r.turns_per_win, 0.0, "no game won");
}

#[test]
fn without_the_opponent_red_plays_alone_and_wins_in_nine() {
    let k = private_knowledge();
    let s: StrategyKind = "threshold".parse().unwrap();
    let own = OwnGuesser::new(&k);
    // The default: blue never plays, so one card a turn finds all 9 red cards in 9 turns.
    assert!(!PlayParams::default().opponent);
    let g = play(5, &s, &own, &k, &NoLexicon, &PlayParams::default()).unwrap();
    assert!(g.won && !g.assassin);
    assert_eq!(g.turns.len(), 9);
    assert_eq!(
        (g.clues, g.clue_numbers, g.correct, g.incorrect),
        (9, 9, 9, 0)
    );
    assert!(g.turns.iter().all(|t| t.opponent.is_none()));
    let r = &eval(
        4,
        99,
        &[&s],
        &[&own],
        &k,
        &NoLexicon,
        &PlayParams::default(),
        None,
    )
    .unwrap()[0];
    assert_eq!(
        (r.win_rate, r.mean_turns, r.turns_per_win, r.net_per_clue),
        (1.0, 9.0, 9.0, 1.0)
    );
}

/// A strategy that always points at the first unrevealed card of one role, with its private
/// clue: to drive the game into the assassin or a bystander.
struct PointAt(Role);

impl Strategy for PointAt {
    fn name(&self) -> &str {
        "point-at"
    }
    fn suggest(
        &self,
        _: &dyn Knowledge,
        req: &Request,
        _: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>> {
        let target = match self.0 {
            Role::Assassin => req.assassin.clone(),
            Role::Bystander => req.neutral.first().cloned(),
            _ => req.neg.first().cloned(),
        };
        Ok(target
            .map(|t| Suggestion {
                clue: private(&t),
                count: 1,
                targets: vec![t],
                score: 1.0,
                safety: None,
                level: None,
            })
            .into_iter()
            .collect())
    }
}

#[test]
fn the_assassin_ends_the_game() {
    let k = private_knowledge();
    let own = OwnGuesser::new(&k);
    let g = play(
        8,
        &PointAt(Role::Assassin),
        &own,
        &k,
        &NoLexicon,
        &PlayParams::default(),
    )
    .unwrap();
    assert!(g.assassin && !g.won);
    assert_eq!(g.turns.len(), 1);
    assert_eq!((g.correct, g.incorrect), (0, 1));
    assert_eq!(g.turns[0].revealed[0].1, Role::Assassin);
    let r = &eval(
        3,
        1,
        &[&PointAt(Role::Assassin)],
        &[&own],
        &k,
        &NoLexicon,
        &PlayParams::default(),
        None,
    )
    .unwrap()[0];
    assert_eq!(
        (r.assassin_rate, r.win_rate, r.mean_turns, r.net_per_clue),
        (1.0, 0.0, 1.0, -1.0)
    );
}

#[test]
fn wrong_cards_end_the_turn_and_blue_can_win_faster() {
    let k = private_knowledge();
    let own = OwnGuesser::new(&k);
    // Each wrong guess is incorrect and ends the turn. Blue cards found by red shorten blue's
    // path: with blue revealing one card a turn too, blue's 8 cards go in 4 turns.
    let g = play(21, &PointAt(Role::Blue), &own, &k, &NoLexicon, &WITH_BLUE).unwrap();
    assert!(!g.won && !g.assassin);
    assert_eq!(g.turns.len(), 4);
    assert_eq!(g.correct, 0);
    assert_eq!(g.incorrect, g.clues);
    assert!(
        g.turns
            .iter()
            .all(|t| t.revealed.len() == 1 && t.revealed[0].1 == Role::Blue)
    );
    // Alone, red reveals blue's 8 cards itself: lost in 8 turns.
    let g = play(
        21,
        &PointAt(Role::Blue),
        &own,
        &k,
        &NoLexicon,
        &PlayParams::default(),
    )
    .unwrap();
    assert!(!g.won && !g.assassin);
    assert_eq!((g.turns.len(), g.incorrect), (8, 8));
    // A bystander ends the turn and nothing else: 7 turns of one bystander each, then no
    // clue is left (the strategy passes) until the turn limit.
    let g = play(
        21,
        &PointAt(Role::Bystander),
        &own,
        &k,
        &NoLexicon,
        &PlayParams::default(),
    )
    .unwrap();
    assert!(!g.won && !g.assassin);
    assert_eq!(g.turns.len(), 25);
    assert_eq!((g.clues, g.incorrect), (7, 7));
    assert!(
        g.turns[..7]
            .iter()
            .all(|t| t.revealed[0].1 == Role::Bystander)
    );
    assert!(g.turns[7..].iter().all(|t| t.clue.is_none()));
}

#[test]
fn eval_compares_strategies_on_the_same_boards() {
    let mut k = private_knowledge();
    // Documents for herfindahl: each term's document is its private clue and a filler word.
    for w in card_words(30) {
        k.doc(&w, &[(&private(&w), 3), ("common", 1)]);
    }
    let t: StrategyKind = "threshold".parse().unwrap();
    let h: StrategyKind = "herfindahl".parse().unwrap();
    let params = WITH_BLUE;
    let own = OwnGuesser::new(&k);
    let a = eval(3, 7, &[&t, &h], &[&own], &k, &NoLexicon, &params, None).unwrap();
    let b = eval(3, 7, &[&t, &h], &[&own], &k, &NoLexicon, &params, None).unwrap();
    assert_eq!(a, b, "seeded evaluation is reproducible");
    // Told after each game, per pair of strategy and guesser, without changing the games.
    let watched = |progress: &mut query::game::Progress| {
        query::game::eval_watched(
            3,
            7,
            &[&t, &h],
            &[&own],
            &k,
            &NoLexicon,
            &params,
            None,
            Some(progress),
        )
        .unwrap()
    };
    let mut told = Vec::new();
    let c = watched(&mut |s: &str, g: &str, done: usize, games: usize| {
        told.push((s.to_string(), g.to_string(), done, games));
        true
    });
    assert_eq!(c, a);
    let expected: Vec<(String, String, usize, usize)> = ["threshold", "herfindahl"]
        .iter()
        .flat_map(|s| (1..=3).map(move |n| (s.to_string(), "own".to_string(), n, 3)))
        .collect();
    assert_eq!(told, expected);
    assert_eq!(a.len(), 2);
    assert_eq!(
        (a[0].strategy.as_str(), a[1].strategy.as_str()),
        ("threshold", "herfindahl")
    );
    for r in &a {
        assert_eq!(r.games, 3);
        assert!((0.0..=1.0).contains(&r.win_rate) && (0.0..=1.0).contains(&r.assassin_rate));
        assert!(r.mean_turns >= 1.0 && r.mean_turns <= 8.0);
        if r.clues > 0 {
            let net = (r.correct as f64 - r.incorrect as f64) / r.clues as f64;
            assert_eq!(r.net_per_clue, net);
        }
    }
    // Herfindahl: every term's private word is concentrated in one document, so each cluster's
    // clue is a private word of one member; the guesser finds exactly that member.
    // Multi-member clusters get no clue (a private word is in one document only, H_document
    // = 1, weight 0; "common" is everywhere, danger included), so herfindahl sometimes passes.
    assert!(a[1].clues > 0 && a[1].clues <= 24);
    assert_eq!(
        (a[1].mean_clue_number, a[1].net_per_clue, a[1].incorrect),
        (1.0, 1.0, 0)
    );
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json[1]["strategy"], "herfindahl");
    // Stopped after the second game of the first pair (Ctrl-C): its report is of the two games
    // played, the first two of the whole run's, and no other pair plays.
    // Stopped on a pair's last game: that pair's report is whole, and no other pair plays.
    let last = watched(&mut |_: &str, _: &str, done: usize, _: usize| done < 3);
    assert_eq!(last, a[..1]);
    let stopped = watched(&mut |_: &str, _: &str, done: usize, _: usize| done < 2);
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert_eq!(stopped[0].games, 2);
    let two = eval(2, 7, &[&t], &[&own], &k, &NoLexicon, &params, None).unwrap();
    assert_eq!(stopped, two);
}

/// A strategy that never has a clue of its own; its fallback gives the first red card's
/// private clue.
struct Silent;

impl Strategy for Silent {
    fn name(&self) -> &str {
        "silent"
    }
    fn suggest(
        &self,
        _k: &dyn Knowledge,
        _req: &Request,
        _legality: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>> {
        Ok(Vec::new())
    }
    fn fallback(
        &self,
        _k: &dyn Knowledge,
        req: &Request,
        _legality: &Legality<'_>,
    ) -> anyhow::Result<Option<Suggestion>> {
        Ok(req.pos.first().map(|w| Suggestion {
            clue: private(w),
            count: 1,
            targets: vec![w.clone()],
            score: -1.0,
            safety: None,
            level: None,
        }))
    }
}

/// Issue 46: a strategy that answered nothing (setnet on a damaged network) was reported with
/// the fallback's figures as its own. Games count the fallback's clues, and eval reports them.
#[test]
fn eval_counts_the_clues_the_fallback_gave() {
    let k = private_knowledge();
    let g = OwnGuesser::new(&k);
    let reports = eval(5, 1, &[&Silent], &[&g], &k, &NoLexicon, &WITH_BLUE, None).unwrap();
    let r = &reports[0];
    assert!(r.clues > 0, "{r:?}");
    assert_eq!(r.fallbacks, r.clues, "{r:?}");
    assert_eq!(r.fallback_share(), 1.0);
    let record = play(3, &Silent, &g, &k, &NoLexicon, &WITH_BLUE).unwrap();
    assert_eq!(record.fallbacks, record.clues);
    // A strategy with clues of its own gives none by the fallback here.
    let own: StrategyKind = "threshold".parse().unwrap();
    let reports = eval(5, 1, &[&own], &[&g], &k, &NoLexicon, &WITH_BLUE, None).unwrap();
    assert_eq!(reports[0].fallbacks, 0, "{:?}", reports[0]);
    assert!(reports[0].clues > 0);
}

/// A strategy that cannot run here (setnet with no network) fails the evaluation before any
/// game, naming it and why: `eval --strategies relatedness,setnet` once played every
/// relatedness game, then failed on setnet's first and printed nothing.
#[test]
fn eval_fails_before_any_game_when_a_strategy_cannot_run() {
    let k = private_knowledge();
    let own = OwnGuesser::new(&k);
    let t: StrategyKind = "threshold".parse().unwrap();
    let s: StrategyKind = "setnet".parse().unwrap();
    let mut turns = 0;
    let mut sink = |_: &query::game::TurnRecord| {
        turns += 1;
        Ok(())
    };
    let e = eval(
        3,
        7,
        &[&t, &s],
        &[&own],
        &k,
        &NoLexicon,
        &WITH_BLUE,
        Some(query::game::Turns {
            sink: &mut sink as &mut query::game::TurnSink,
            alternatives: 0,
        }),
    )
    .unwrap_err();
    let e = format!("{e:#}");
    assert!(
        e.contains("strategy setnet cannot run") && e.contains("setnet_weights"),
        "{e}"
    );
    assert_eq!(turns, 0, "no game was played");
}
