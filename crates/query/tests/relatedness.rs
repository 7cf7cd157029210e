//! The relatedness strategy on in-memory knowledge (issue 14): a frequent hub word against a
//! specific one, the margins per kind of card, the clue history (`given`), and card words the
//! knowledge does not know.

mod common;

use std::cell::RefCell;

use common::{MemoryKnowledge, card_words};
use query::Knowledge;
use query::board_model::{Board as ModelBoard, BoardModel};
use query::game::{Board, PlayParams, Request, Role, Strategy, StrategyKind, Suggestion, play};
use query::guesser::{Guess, Guesser, OwnGuesser};
use query::legality::{Illegal, Legality, NoLexicon};
use query::relatedness::{self, RelatednessParams};
use query::strategy::{DEFAULT_STRATEGY, Margins, Ranking};
use query::threshold::{self, ThresholdParams};

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

fn request(pos: &[&str], neg: &[&str], neutral: &[&str], assassin: Option<&str>) -> Request {
    Request {
        pos: words(pos),
        neg: words(neg),
        neutral: words(neutral),
        assassin: assassin.map(String::from),
        given: Vec::new(),
    }
}

/// The relatedness strategy's ranked suggestions on `req`, the board's legality rules.
/// Margins of 1 / 0.5 / 2 (opponent, bystander, assassin): the boards below are drawn for
/// them, so that the tests pin the mechanics whatever defaults the measurements choose; ranked
/// by safety, whose score is worked by hand below (the board model has its own test).
fn unit_margins() -> RelatednessParams {
    RelatednessParams {
        opponent_margin: 1.0,
        neutral_margin: 0.5,
        assassin_margin: 2.0,
        board: None,
        ..RelatednessParams::default()
    }
}

fn related(k: &MemoryKnowledge, req: &Request, p: &RelatednessParams) -> Vec<Suggestion> {
    let legality = Legality::new(&req.board_words(), &NoLexicon).with_given(&req.given);
    relatedness::suggest(k, req, &legality, p).unwrap()
}

fn find<'a>(got: &'a [Suggestion], clue: &str) -> Option<&'a Suggestion> {
    got.iter().find(|s| s.clue == clue)
}

/// A fruit board. In `scores` (sparse, rewarding frequency) the hub word "use" scores with all
/// three team cards and has no score with any card to avoid, which the threshold rule reads as
/// "unrelated"; "citrus" scores with two. In the dense relatedness "use" relates to every card
/// alike, those to avoid included, and "citrus" to the two citrus fruits only.
fn hub_board() -> (MemoryKnowledge, Request) {
    let mut k = MemoryKnowledge::default();
    for t in ["apple", "orange", "lemon"] {
        k.score("use", t, 0.6);
    }
    k.score("citrus", "orange", 0.7)
        .score("citrus", "lemon", 0.7);
    for (card, hub, citrus) in [
        ("apple", 0.9, 1.2),
        ("orange", 0.8, 2.6),
        ("lemon", 0.8, 2.4),
        ("fire", 0.9, -0.2),
        ("car", 1.0, -0.3),
        ("desk", 0.9, 0.0),
        ("opera", 0.7, -0.5),
    ] {
        k.relate("use", card, hub).relate("citrus", card, citrus);
    }
    let req = request(
        &["apple", "orange", "lemon"],
        &["fire", "car"],
        &["desk"],
        Some("opera"),
    );
    (k, req)
}

#[test]
fn a_hub_word_beats_a_specific_one_under_the_threshold_rule_and_loses_under_relatedness() {
    let (k, req) = hub_board();
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    // Old rule: "use" is above every (missing, hence 0) score of the cards to avoid for all
    // three team cards: 1.8 against citrus's 1.4.
    let old = threshold::suggest(&k, &req, &legality, &ThresholdParams::default()).unwrap();
    assert_eq!(
        old.iter()
            .map(|s| (s.clue.as_str(), s.count))
            .collect::<Vec<_>>(),
        vec![("use", 3), ("citrus", 2)]
    );
    // New rule: "use" relates to the opponent's "car" (1.0) more than to any team card, so it
    // has no target at all; "citrus" leads orange and lemon past every margin (apple, 1.2, is
    // 1.7 above the assassin: short of its margin 2.0).
    let new = related(&k, &req, &unit_margins());
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0].clue, "citrus");
    assert_eq!(new[0].targets, vec!["orange", "lemon"]);
    assert_eq!(new[0].count, 2);
    // Score: the count, plus the weakest target's safety λ squashed to λ/(1+λ). lemon's λ is
    // the least of (2.4 + 0.2)/1, (2.4 − 0)/0.5 and (2.4 + 0.5)/2 = 1.45.
    let lambda = (2.4f64 + 0.5) / 2.0;
    assert!(
        (new[0].score - (2.0 + lambda / (1.0 + lambda))).abs() < 1e-6,
        "{}",
        new[0].score
    );
    // The default strategy is relatedness, and the guesser that reads relatedness follows it.
    assert_eq!(DEFAULT_STRATEGY, "relatedness");
    let default: StrategyKind = DEFAULT_STRATEGY.parse().unwrap();
    let via_trait = default.suggest(&k, &req, &legality).unwrap();
    assert_eq!(via_trait[0].clue, "citrus");
    let g = OwnGuesser::new(&k)
        .guess("citrus", 2, &req.board_words())
        .unwrap();
    let g: Vec<&str> = g.iter().map(|g| g.word.as_str()).collect();
    assert_eq!(g, ["orange", "lemon"]);
}

/// A board where the clue "probe" scores 3.0 with the team's "apple" and `score` with the one
/// card of `kind` (every other card 0), and "anchor" leads "banana" past every margin, so that
/// the full margins apply (no relaxing: some clue clears them).
fn margin_board(kind: Role, score: f32) -> (MemoryKnowledge, Request) {
    let mut k = MemoryKnowledge::default();
    k.relate("probe", "apple", 3.0)
        .relate("anchor", "banana", 9.0);
    for c in ["fire", "desk", "opera"] {
        k.related_card(c);
    }
    let card = match kind {
        Role::Blue => "fire",
        Role::Bystander => "desk",
        Role::Assassin => "opera",
        Role::Red => panic!("a card to avoid"),
    };
    k.relate("probe", card, score);
    let req = request(&["apple", "banana"], &["fire"], &["desk"], Some("opera"));
    (k, req)
}

/// Whether "probe" is offered for apple on [`margin_board`] with these parameters.
fn probe_offered(kind: Role, score: f32, p: &RelatednessParams) -> bool {
    let (k, req) = margin_board(kind, score);
    let got = related(&k, &req, p);
    assert_eq!(got[0].clue, "anchor", "{got:?}");
    match find(&got, "probe") {
        Some(s) => {
            assert_eq!(s.targets, vec!["apple"]);
            true
        }
        None => false,
    }
}

#[test]
fn each_kind_of_card_has_its_own_margin() {
    let p = RelatednessParams::default();
    assert_eq!(
        (p.opponent_margin, p.neutral_margin, p.assassin_margin),
        (
            relatedness::DEFAULT_OPPONENT_MARGIN,
            relatedness::DEFAULT_NEUTRAL_MARGIN,
            relatedness::DEFAULT_ASSASSIN_MARGIN
        )
    );
    assert!(p.neutral_margin < p.opponent_margin && p.opponent_margin < p.assassin_margin);
    let p = unit_margins();
    use Role::{Assassin, Blue, Bystander};
    // (kind, its score with probe, offered): apple scores 3.0.
    let cases = [
        // A bystander blocks inside its margin 0.5 only.
        (Bystander, 2.7, false),
        (Bystander, 2.3, true),
        // An opponent card at the same 2.3 blocks: inside its margin 1.0.
        (Blue, 2.3, false),
        (Blue, 1.9, true),
        // The assassin at the same 1.9 blocks: inside its margin 2.0.
        (Assassin, 1.9, false),
        (Assassin, 0.9, true),
        // Above the target, any card blocks.
        (Bystander, 3.5, false),
    ];
    for (kind, score, offered) in cases {
        assert_eq!(
            probe_offered(kind, score, &p),
            offered,
            "{kind:?} at {score}"
        );
    }
    // The margins given replace the defaults, each for its kind only.
    let with = |m: Margins| match StrategyKind::Relatedness(p).with_margins(m) {
        StrategyKind::Relatedness(p) => p,
        other => panic!("{other:?}"),
    };
    let wider_neutral = with(Margins {
        neutral: Some(1.0),
        ..Margins::default()
    });
    assert_eq!(
        (wider_neutral.opponent_margin, wider_neutral.assassin_margin),
        (p.opponent_margin, p.assassin_margin)
    );
    assert!(!probe_offered(Bystander, 2.3, &wider_neutral));
    assert!(probe_offered(Blue, 1.9, &wider_neutral));
    let narrow_opponent = with(Margins {
        opponent: Some(0.5),
        ..Margins::default()
    });
    assert!(probe_offered(Blue, 2.3, &narrow_opponent));
    let narrow_assassin = with(Margins {
        assassin: Some(1.0),
        ..Margins::default()
    });
    assert!(probe_offered(Assassin, 1.9, &narrow_assassin));
    assert!(!probe_offered(Assassin, 2.1, &narrow_assassin));
    // threshold and herfindahl take the assassin's margin only.
    let t: StrategyKind = "threshold".parse().unwrap();
    match t.with_margins(Margins {
        opponent: Some(5.0),
        neutral: Some(5.0),
        assassin: Some(0.3),
        ranking: Some(Ranking::Safety),
    }) {
        StrategyKind::Threshold(tp) => assert_eq!(
            tp,
            ThresholdParams {
                assassin_margin: 0.3,
                ..ThresholdParams::default()
            }
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn margins_relax_before_a_clue_is_refused_and_the_fallback_keeps_the_assassin_margin() {
    let p = unit_margins();
    // Without the anchor's banana no clue clears the full margins: the bystander 0.3 behind
    // apple (λ = 0.6) still lets probe lead it, at the level of half the margins.
    let (k, mut req) = margin_board(Role::Bystander, 2.7);
    req.pos = words(&["apple"]);
    let got = related(&k, &req, &p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!((got[0].clue.as_str(), got[0].count), ("probe", 1));
    // The answer says the level it was held to (for the warning that margins a person set
    // were relaxed); with the anchor's banana on the team, the full margins.
    assert_eq!(got[0].level, Some(0.5));
    let (k, mut req) = margin_board(Role::Bystander, 2.7);
    req.pos = words(&["apple", "banana"]);
    assert!(related(&k, &req, &p).iter().all(|s| s.level == Some(1.0)));
    // A bystander level with apple: apple ranks above nothing, so no clue leads it...
    let (k, mut req) = margin_board(Role::Bystander, 3.0);
    req.pos = words(&["apple"]);
    assert!(related(&k, &req, &p).is_empty());
    // ...and the fallback (what games say rather than pass) still names probe: apple is 3.0
    // above the assassin, past its margin 2.0, and leads the best other card by 0.
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    let fb = relatedness::fallback(&k, &req, &legality, &p)
        .unwrap()
        .unwrap();
    assert_eq!((fb.clue.as_str(), fb.count), ("probe", 1));
    assert_eq!(fb.targets, vec!["apple"]);
    assert!(fb.score.abs() < 1e-6, "{}", fb.score);
    let s: StrategyKind = "relatedness".parse().unwrap();
    assert_eq!(s.fallback(&k, &req, &legality).unwrap(), Some(fb));
    // With the assassin inside its margin the fallback relaxes that margin too, in steps (half
    // of it here: apple 3.0 is 1.5 above the assassin, past half of 2.0)...
    let mut k2 = k.clone();
    k2.relate("probe", "opera", 1.5);
    let fb2 = relatedness::fallback(&k2, &req, &legality, &p).unwrap();
    assert_eq!(fb2.map(|s| s.clue), Some("probe".to_string()));
    // ...but never below the assassin: level with apple, nothing.
    k2.relate("probe", "opera", 3.0);
    assert_eq!(
        relatedness::fallback(&k2, &req, &legality, &p).unwrap(),
        None
    );
    // threshold never falls back.
    let t: StrategyKind = "threshold".parse().unwrap();
    assert_eq!(t.fallback(&k, &req, &legality).unwrap(), None);
}

/// A clue that may not be said does not set the level. The card word "apple" is its own
/// strongest clue word (as every card word is in real data, `yard` with `yard` first), far past
/// every margin; "probe" clears only half of them. Were the level set by "apple", "probe" would
/// be held to the full margins, and the board, which has a clue, would get none.
#[test]
fn a_clue_that_may_not_be_said_does_not_set_the_level() {
    let p = unit_margins();
    let mut k = MemoryKnowledge::default();
    k.relate("apple", "apple", 9.0)
        .relate("probe", "apple", 3.0)
        .relate("probe", "desk", 2.7);
    for c in ["fire", "desk", "opera"] {
        k.related_card(c);
    }
    let req = request(&["apple"], &["fire"], &["desk"], Some("opera"));
    let got = related(&k, &req, &p);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!((got[0].clue.as_str(), got[0].count), ("probe", 1));
    // λ = 0.6 (0.3 past the bystander, whose margin is 0.5): the level of half the margins.
    assert!(
        (got[0].score - (1.0 + 0.6 / 1.6)).abs() < 1e-6,
        "{}",
        got[0].score
    );
    // Said before, "probe" may not be said either: then there is no clue, and no level.
    let mut req = req;
    req.given = words(&["probe"]);
    assert!(related(&k, &req, &p).is_empty());
}

#[test]
fn the_number_is_what_the_margins_support_and_at_most_max_count() {
    let cards = card_words(6);
    let mut k = MemoryKnowledge::default();
    // "crimson": 3.0 with the first two team cards, 1.3 with the third (0.8 above the opponent
    // card's 0.5: inside its margin 1.0).
    for (c, s) in cards[..3].iter().zip([3.0, 3.0, 1.3]) {
        k.relate("crimson", c, s);
    }
    k.relate("crimson", "fire", 0.5).related_card("opera");
    let pos: Vec<&str> = cards[..3].iter().map(String::as_str).collect();
    let req = request(&pos, &["fire"], &[], Some("opera"));
    let got = related(&k, &req, &RelatednessParams::default());
    assert_eq!(got[0].clue, "crimson");
    assert_eq!(got[0].count, 2);
    assert_eq!(got[0].targets, &cards[..2]);
    // Six team cards all far ahead: the number stops at max_count (4 by default), the safest
    // first (ties alphabetically).
    let mut k = MemoryKnowledge::default();
    for (i, c) in cards.iter().enumerate() {
        k.relate("scarlet", c, 5.0 + i as f32);
    }
    k.related_card("fire").related_card("opera");
    let pos: Vec<&str> = cards.iter().map(String::as_str).collect();
    let req = request(&pos, &["fire"], &[], Some("opera"));
    let p = RelatednessParams::default();
    assert_eq!(p.max_count, 4);
    let got = related(&k, &req, &p);
    assert_eq!(got[0].count, 4);
    let best: Vec<String> = cards.iter().rev().take(4).cloned().collect();
    assert_eq!(got[0].targets, best);
    let two = RelatednessParams { max_count: 2, ..p };
    assert_eq!(related(&k, &req, &two)[0].count, 2);
    // top limits the suggestions ("ruby" clears the assassin's margin, 4.5, for one card).
    k.relate("ruby", &cards[0], 4.8);
    assert_eq!(related(&k, &req, &p).len(), 2);
    assert_eq!(
        related(&k, &req, &RelatednessParams { top: 1, ..p }).len(),
        1
    );
}

#[test]
fn a_last_target_needs_the_assassin_margin_but_only_to_rank_above_the_others() {
    let cards = card_words(3);
    let pos: Vec<&str> = cards.iter().map(String::as_str).collect();
    // "crimson": 9.0 with two team cards, 4.5 with the third; the opponent card at 4.0 (the
    // third is inside its margin of 2 but above it), the bystander at 3.0.
    let board = |assassin: f32| {
        let mut k = MemoryKnowledge::default();
        for (c, s) in cards.iter().zip([9.0, 9.0, 4.5]) {
            k.relate("crimson", c, s);
        }
        k.relate("crimson", "fire", 4.0)
            .relate("crimson", "desk", 3.0)
            .relate("crimson", "opera", assassin);
        k
    };
    let req = request(&pos, &["fire"], &["desk"], Some("opera"));
    // Margins 2/1/4 by hand (not the defaults, which may move).
    let p = RelatednessParams {
        opponent_margin: 2.0,
        neutral_margin: 1.0,
        assassin_margin: 4.0,
        ..RelatednessParams::default()
    };
    // The assassin at 0.5: 4.5 clears its margin of 4, so the third card is the last target.
    let got = related(&board(0.5), &req, &p);
    assert_eq!((got[0].clue.as_str(), got[0].count), ("crimson", 3));
    assert_eq!(got[0].targets[2], cards[2]);
    // Its safety is its share of the opponent's margin: (4.5 - 4.0) / 2 = 0.25, squashed in
    // the score when the safety ranks.
    assert!((got[0].safety.unwrap() - 0.25).abs() < 1e-6);
    let by_safety = related(&board(0.5), &req, &RelatednessParams { board: None, ..p });
    assert!((by_safety[0].score - (3.0 + 0.25 / 1.25)).abs() < 1e-6);
    // The assassin at 1.0: 4.5 is inside its margin (1.0 + 4 = 5.0): two targets.
    let got = related(&board(1.0), &req, &p);
    assert_eq!(got[0].count, 2);
    // Below an opponent card it is no target either.
    let mut k = board(0.5);
    k.relate("crimson", "fire", 4.6);
    assert_eq!(related(&k, &req, &p)[0].count, 2);
    // Off, the number is what the full margins support.
    let off = RelatednessParams {
        last_target: false,
        ..p
    };
    assert_eq!(related(&board(0.5), &req, &off)[0].count, 2);
}

#[test]
fn a_clue_given_before_is_never_suggested_again() {
    let (k, mut req) = hub_board();
    let board = req.board_words();
    // The legality rule, case and spaces aside.
    let rules = Legality::new(&board, &NoLexicon).with_given(&[" Citrus"]);
    assert_eq!(rules.check("citrus"), Err(Illegal::Given));
    assert_eq!(rules.check("use"), Ok(()));
    assert!(Legality::new(&board, &NoLexicon).allows("citrus"));
    // Every strategy, through the request's history.
    assert_eq!(
        related(&k, &req, &RelatednessParams::default())[0].clue,
        "citrus"
    );
    req.given = words(&["citrus"]);
    assert!(find(&related(&k, &req, &RelatednessParams::default()), "citrus").is_none());
    let legality = Legality::new(&board, &NoLexicon).with_given(&req.given);
    for name in ["relatedness", "threshold", "herfindahl"] {
        let s: StrategyKind = name.parse().unwrap();
        let got = s.suggest(&k, &req, &legality).unwrap();
        assert!(find(&got, "citrus").is_none(), "{name}: {got:?}");
        if let Some(fb) = s.fallback(&k, &req, &legality).unwrap() {
            assert_ne!(fb.clue, "citrus", "{name}");
        }
    }
    // threshold's best was "use": given, citrus is back on top.
    req.given = words(&["use"]);
    let legality = Legality::new(&board, &NoLexicon).with_given(&req.given);
    let got = threshold::suggest(&k, &req, &legality, &ThresholdParams::default()).unwrap();
    assert_eq!(got[0].clue, "citrus");
}

/// A guesser that never guesses: the board never changes, so without a history the same clue
/// would come back every turn.
struct Silent;

impl Guesser for Silent {
    fn name(&self) -> &str {
        "silent"
    }
    fn guess(&self, _: &str, _: usize, _: &[String]) -> anyhow::Result<Vec<Guess>> {
        Ok(Vec::new())
    }
}

/// A strategy that records the history each request carries.
struct Recording<'s> {
    inner: &'s dyn Strategy,
    given: RefCell<Vec<Vec<String>>>,
}

impl Strategy for Recording<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn suggest(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>> {
        self.given.borrow_mut().push(req.given.clone());
        self.inner.suggest(k, req, legality)
    }
    fn fallback(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Option<Suggestion>> {
        self.inner.fallback(k, req, legality)
    }
}

#[test]
fn play_never_gives_a_clue_twice() {
    let mut k = MemoryKnowledge::default();
    for c in card_words(25) {
        k.related_card(&c);
    }
    let seed = 4;
    let board = Board::random(&k.card_words().unwrap(), seed).unwrap();
    // Two clue words lead every red card; nothing else relates to anything.
    for c in board.cards.iter().filter(|c| c.role == Role::Red) {
        k.relate("crimson", &c.word, 3.0)
            .relate("scarlet", &c.word, 2.5);
    }
    let s: StrategyKind = "relatedness".parse().unwrap();
    let rec = Recording {
        inner: &s,
        given: RefCell::default(),
    };
    let g = play(seed, &rec, &Silent, &k, &NoLexicon, &PlayParams::default()).unwrap();
    assert_eq!(g.board, board);
    let said: Vec<Option<&str>> = g
        .turns
        .iter()
        .map(|t| t.clue.as_ref().map(|c| c.clue.as_str()))
        .collect();
    // crimson, then scarlet, then nothing legal is left: pass until the turn limit.
    assert_eq!(said.len(), 25);
    assert_eq!(said[..2], [Some("crimson"), Some("scarlet")]);
    assert!(said[2..].iter().all(Option::is_none), "{said:?}");
    assert_eq!(g.clues, 2);
    // Each turn's request carried the clues of the turns before it.
    let given = rec.given.borrow();
    assert_eq!(given.len(), 25);
    assert!(given[0].is_empty());
    assert_eq!(given[1], words(&["crimson"]));
    assert!(
        given[2..]
            .iter()
            .all(|g| *g == words(&["crimson", "scarlet"]))
    );
}

#[test]
fn an_unknown_card_word_is_never_a_target() {
    let mut k = MemoryKnowledge::default();
    // "fruit" is risky (an unknown word is assumed at 5.0 with it), which must not make the
    // unknown team card a target either.
    k.relate("fruit", "apple", 3.0)
        .clue_word("fruit", 5.0)
        .related_card("fire")
        .related_card("opera");
    let req = request(&["apple", "zzunknown"], &["fire"], &[], Some("opera"));
    let got = related(&k, &req, &RelatednessParams::default());
    assert!(!got.is_empty());
    for s in &got {
        assert!(!s.targets.contains(&"zzunknown".to_string()), "{s:?}");
    }
    assert_eq!(got[0].targets, vec!["apple"]);
    // Alone on the team it leaves nothing to lead: no clue, no error, and no fallback.
    let alone = request(&["zzunknown"], &["fire"], &[], Some("opera"));
    assert!(related(&k, &alone, &RelatednessParams::default()).is_empty());
    let legality = Legality::new(&alone.board_words(), &NoLexicon);
    let fb = relatedness::fallback(&k, &alone, &legality, &RelatednessParams::default());
    assert_eq!(fb.unwrap(), None);
    // Our own guesser never guesses it.
    let g = OwnGuesser::new(&k)
        .guess("fruit", 0, &words(&["zzunknown", "apple", "fire"]))
        .unwrap();
    assert!(g.iter().all(|g| g.word != "zzunknown"), "{g:?}");
}

#[test]
fn an_unknown_card_to_avoid_counts_at_the_clues_risk() {
    // "fruit" leads apple at 3.0 (every known card to avoid at 0); "anchor" leads banana past
    // every margin whatever the unknown card, so the full margins apply.
    let board = |risk: f32| {
        let mut k = MemoryKnowledge::default();
        k.relate("fruit", "apple", 3.0)
            .clue_word("fruit", risk)
            .relate("anchor", "banana", 9.0)
            .related_card("fire")
            .related_card("desk")
            .related_card("opera");
        k
    };
    let fruit_offered = |k: &MemoryKnowledge, req: &Request| {
        find(&related(k, req, &unit_margins()), "fruit").is_some()
    };
    let pos = ["apple", "banana"];
    // Ignored, the unknown word would block nothing.
    let without = request(&pos, &["fire"], &["desk"], Some("opera"));
    assert!(fruit_offered(&board(2.5), &without));
    // As an opponent card at risk 2.5: 0.5 behind apple, inside the opponent margin 1.0.
    let as_opponent = request(&pos, &["fire", "zzunknown"], &["desk"], Some("opera"));
    assert!(!fruit_offered(&board(2.5), &as_opponent));
    // A low risk keeps it clear: 1.5 behind.
    assert!(fruit_offered(&board(1.5), &as_opponent));
    // As a bystander its margin is 0.5; as the assassin 2.0.
    let as_bystander = request(&pos, &["fire"], &["desk", "zzunknown"], Some("opera"));
    assert!(!fruit_offered(&board(2.7), &as_bystander));
    assert!(fruit_offered(&board(2.3), &as_bystander));
    let as_assassin = request(&pos, &["fire"], &["desk"], Some("zzunknown"));
    assert!(!fruit_offered(&board(1.5), &as_assassin));
    assert!(fruit_offered(&board(0.5), &as_assassin));
    // A risk above the target blocks at every level: with apple alone on the team there is no
    // clue at all, where without the unknown word there is.
    let k = board(3.5);
    let alone = request(&["apple"], &["fire", "zzunknown"], &[], Some("opera"));
    assert!(related(&k, &alone, &RelatednessParams::default()).is_empty());
    let known_only = request(&["apple"], &["fire"], &[], Some("opera"));
    assert_eq!(
        related(&k, &known_only, &RelatednessParams::default())[0].clue,
        "fruit"
    );
}

#[test]
fn without_relatedness_the_strategy_says_which_stage_to_run() {
    let (mut k, req) = hub_board();
    k.clue_words.clear();
    k.related.clear();
    let legality = Legality::new(&req.board_words(), &NoLexicon);
    let e = relatedness::suggest(&k, &req, &legality, &RelatednessParams::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("pipeline relatedness"), "{e}");
}

/// Two one-card clues for apple whose weakest target clears the margins alike (λ = 2 both:
/// 5 against the opponent's 3 and the assassin's 0), so the safety ranks them by name. The
/// board model reads the rest of the board: "alpha" has every other card to avoid at 3, just
/// under apple; "beta" has them far below and the team's banana near: a guesser who weighs
/// every card takes a team card first far more often with beta, which ranks first.
#[test]
fn among_clues_as_safe_the_board_model_prefers_the_one_the_whole_board_backs() {
    let mut k = MemoryKnowledge::default();
    for (card, alpha, beta) in [
        ("apple", 5.0, 5.0),
        ("banana", 0.0, 2.9),
        ("fire", 3.0, 3.0),
        ("car", 3.0, -3.0),
        ("desk", 3.0, -3.0),
        ("opera", 0.0, 0.0),
    ] {
        k.relate("alpha", card, alpha).relate("beta", card, beta);
    }
    let req = request(
        &["apple", "banana"],
        &["fire", "car"],
        &["desk"],
        Some("opera"),
    );
    let by_safety = related(&k, &req, &unit_margins());
    let names = |got: &[Suggestion]| got.iter().map(|s| s.clue.clone()).collect::<Vec<_>>();
    assert_eq!(names(&by_safety), ["alpha", "beta"]);
    assert_eq!(by_safety[0].score, by_safety[1].score);
    assert_eq!(by_safety[0].safety, Some(2.0));
    let model = BoardModel::default();
    let by_board = related(
        &k,
        &req,
        &RelatednessParams {
            board: Some(model),
            ..unit_margins()
        },
    );
    assert_eq!(names(&by_board), ["beta", "alpha"]);
    for s in &by_board {
        assert_eq!(s.targets, ["apple"]);
        assert_eq!(s.safety, Some(2.0), "the safety is kept beside the score");
    }
    // Each score is the count plus the model's share of the clue's board (pinned by hand in
    // board_model's tests): team 5 and banana's, wrong cards fire, car, desk; assassin 0.
    let share = |banana: f64, others: f64| {
        1.0 + model.share(
            &ModelBoard {
                team: &[5.0, banana],
                wrong: &[3.0, others, others],
                assassin: Some(0.0),
            },
            1,
        )
    };
    assert!((by_board[0].score - share(2.9, -3.0)).abs() < 1e-6);
    assert!((by_board[1].score - share(0.0, 3.0)).abs() < 1e-6);
    // The command line's `--rank-by safety` restores the safety's order.
    let back = match StrategyKind::Relatedness(RelatednessParams {
        board: Some(model),
        ..unit_margins()
    })
    .with_margins(Margins {
        ranking: Some(Ranking::Safety),
        ..Margins::default()
    }) {
        StrategyKind::Relatedness(p) => p,
        other => panic!("{other:?}"),
    };
    assert_eq!(names(&related(&k, &req, &back)), ["alpha", "beta"]);
}
