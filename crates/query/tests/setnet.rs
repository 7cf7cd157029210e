//! The setnet strategy on an in-memory knowledge with a network trained for the test: two
//! families of card words (fruits, metals), each led by its own clue word.

mod common;

use std::sync::Arc;

use common::MemoryKnowledge;
use query::Knowledge;
use query::legality::{Legality, NoLexicon};
use query::request::Request;
use query::setnet::{SetnetParams, Trained};

const FRUITS: [&str; 8] = [
    "apple", "lemon", "cherry", "grape", "peach", "plum", "melon", "olive",
];
const METALS: [&str; 8] = [
    "iron", "copper", "gold", "silver", "tin", "lead", "zinc", "nickel",
];

/// The stored rows of a network trained on [`relations`]' rows, with the card words, the
/// number of clue words and the margins `Trained::from_rows` takes.
type Stored = (Vec<store::WeightRow>, Vec<String>, usize, setnet::Alphas);

fn knowledge() -> MemoryKnowledge {
    let mut k = relations();
    let (stored, cards, words, alphas) = stored(&k);
    let net = Trained::from_rows(Some(stored), cards, words, alphas, None).unwrap();
    k.setnet = Some(Arc::new(net));
    k
}

fn relations() -> MemoryKnowledge {
    let mut k = MemoryKnowledge::default();
    for (i, f) in FRUITS.iter().enumerate() {
        k.relate("fruit", f, 5.0 - 0.1 * i as f32)
            .relate("juice", f, 2.0)
            .relate("metal", f, -1.0)
            .relate("mine", f, -0.5);
    }
    for (i, m) in METALS.iter().enumerate() {
        k.relate("metal", m, 5.0 - 0.1 * i as f32)
            .relate("mine", m, 2.0)
            .relate("fruit", m, -1.0)
            .relate("juice", m, -0.5);
    }
    k.clue_word("table", 0.0);
    k
}

/// The network, trained here on the knowledge's own rows, stored as the database holds it.
fn stored(k: &MemoryKnowledge) -> Stored {
    let cards = k.card_words().unwrap();
    let words = k.clue_words().unwrap();
    let rows: Vec<Arc<[f32]>> = cards
        .iter()
        .map(|c| k.relatedness(c).unwrap().unwrap())
        .collect();
    let refs: Vec<&[f32]> = rows.iter().map(|r| &r[..]).collect();
    let p = setnet::Params {
        dims: 4,
        set_dims: 8,
        hidden: 16,
        steps: 200,
        batch: 8,
        learning_rate: 1e-2,
        max_team: 4,
        max_enemy: 3,
        max_civilian: 2,
        ..setnet::Params::default()
    };
    let space = setnet::Space::from_scores(&refs, words.len(), p.dims, 1);
    let trained = setnet::train(&space.cards, space.dims, &p).unwrap();
    let mut tensors = trained.tensors;
    tensors.extend(space.tensors());
    let stored = tensors
        .iter()
        .map(|t| (t.name.clone(), t.shape_text(), t.bytes()))
        .collect();
    (stored, cards, words.len(), p.alphas)
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn leads_the_family_that_stands_apart_and_respects_the_margins() {
    let k = knowledge();
    let req = Request {
        pos: strs(&["apple", "lemon", "cherry"]),
        neg: strs(&["iron", "copper"]),
        neutral: strs(&["gold"]),
        assassin: Some("tin".into()),
        given: vec![],
    };
    let board = req.board_words();
    let legality = Legality::new(&board, &NoLexicon);
    let got = query::setnet::suggest(&k, &req, &legality, &SetnetParams::default()).unwrap();
    let best = got.first().expect("a clue for three fruits");
    assert!(["fruit", "juice"].contains(&best.clue.as_str()), "{best:?}");
    // Every fruit clears the assassin's margin of 4 with "fruit" (5.0 - 0.1 i against -1).
    assert!(best.count >= 2, "{best:?}");
    // Every target relates to the clue more than every card to avoid.
    let score = |card: &str, clue: &str| {
        let id = k.clue_words().unwrap().id(clue).unwrap();
        k.relatedness(card).unwrap().unwrap()[id]
    };
    for s in &got {
        for t in &s.targets {
            assert!(req.pos.contains(t));
            for a in ["iron", "copper", "gold", "tin"] {
                assert!(score(t, &s.clue) > score(a, &s.clue), "{s:?}");
            }
        }
    }
    // A clue given before is never said again; with both fruit clues given, none is safe.
    let given = strs(&["fruit", "juice"]);
    let legality = Legality::new(&board, &NoLexicon).with_given(&given);
    let got = query::setnet::suggest(&k, &req, &legality, &SetnetParams::default()).unwrap();
    assert!(got.iter().all(|s| !given.contains(&s.clue)), "{got:?}");
}

#[test]
fn without_a_network_the_strategy_names_the_table() {
    let mut k = knowledge();
    k.setnet = None;
    let req = Request {
        pos: strs(&["apple"]),
        neg: strs(&["iron"]),
        neutral: vec![],
        assassin: None,
        given: vec![],
    };
    let board = req.board_words();
    let err = query::setnet::suggest(
        &k,
        &req,
        &Legality::new(&board, &NoLexicon),
        &SetnetParams::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("setnet_weights"), "{err}");
}

/// Issue 46: weights that are finite but huge (3e38) overflowed in the products, every loss
/// was no number, and `suggest --strategy setnet` answered `"clue": null` while `eval` played
/// the fallback's clues under setnet's name. Such a network is refused when read, naming the
/// table (and the tensor, when one row's length is the overflow).
#[test]
fn finite_but_huge_weights_are_refused_naming_the_table() {
    let k = relations();
    for (tensor, names_it) in [
        ("h2.weight", false),
        ("phi_t.weight", false),
        ("clue_vectors", true),
        ("card_vectors", true),
    ] {
        let (mut rows, cards, words, alphas) = stored(&k);
        let row = rows.iter_mut().find(|r| r.0 == tensor).unwrap();
        row.2 = row
            .2
            .chunks(4)
            .flat_map(|_| 3e38f32.to_le_bytes())
            .collect();
        let Err(err) = Trained::from_rows(Some(rows), cards, words, alphas, None) else {
            panic!("{tensor}: read as a network");
        };
        let message = format!("{err:#}");
        assert!(message.contains("setnet_weights"), "{tensor}: {message}");
        assert!(message.contains("finite"), "{tensor}: {message}");
        assert_eq!(message.contains(tensor), names_it, "{tensor}: {message}");
    }
}
