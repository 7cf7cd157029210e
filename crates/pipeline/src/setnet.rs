//! Stage `setnet`: trains the set-network spymaster (crate `setnet`) on the relatedness the
//! `relatedness` stage stored, and writes its weights into `setnet_weights`.
//!
//! The embedding is the card words' score rows (`relatedness_vectors`) factored by their SVD
//! ([`setnet::Space`]); games are mined from the card words with a fixed seed, so a build gives
//! the same weights every time. The embedding goes into the table too (`card_vectors` in the
//! sorted order of the card words, `clue_vectors` in `clue_words.id` order): the strategy reads
//! one table and recomputes nothing.

use crate::record;
use anyhow::{Context, Result, bail};
use store::Build;

/// The most training steps per card word (the rule recorded as `setnet.steps_rule`).
pub const STEPS_PER_CARD: usize = 4;
/// Clue words per training step at most: the network decodes into the relatedness's clue words,
/// and a corpus that kept a few hundred of them (a test corpus: 140 for the enwiki sample) has
/// little for 600 steps to learn; the offline corpora (16,400) train all 600.
pub const CLUE_WORDS_PER_STEP: usize = 25;

pub fn run(build: &Build, p: &setnet::Params) -> Result<()> {
    let reader = build.reader();
    let cards = reader
        .related_cards()
        .context("reading table relatedness_vectors")?;
    let clues = reader
        .clue_words()
        .context("reading table clue_words")?
        .len();
    if cards.is_empty() || clues == 0 {
        bail!("no relatedness to train the set network on: run the `relatedness` stage first");
    }
    let mut rows = Vec::with_capacity(cards.len());
    for c in &cards {
        let (_, v) = reader
            .relatedness_vector(c)
            .with_context(|| format!("reading table relatedness_vectors ({c:?})"))?
            .with_context(|| format!("table relatedness_vectors lost {c:?} while read"))?;
        rows.push(v.to_vec());
    }
    if cards.len() < setnet::train::MIN_CARDS {
        return skip(
            build,
            format!(
                "{} card words with relatedness, a game needs {}",
                cards.len(),
                setnet::train::MIN_CARDS
            ),
        );
    }
    // Steps by the deck's size: a few steps per card word, at most `p.steps` (a test corpus of
    // a handful of card words trains in a blink; the 400 card words take all of them).
    let p = &setnet::Params {
        steps: p
            .steps
            .min(STEPS_PER_CARD * cards.len())
            .min((clues / CLUE_WORDS_PER_STEP).max(1)),
        ..*p
    };
    let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
    let t = std::time::Instant::now();
    let space = setnet::Space::from_scores(&refs, clues, p.dims, p.seed);
    let space_seconds = t.elapsed().as_secs_f64();
    let trained = setnet::train(&space.cards, space.dims, p)?;
    let mut tensors = trained.tensors.clone();
    tensors.extend(space.tensors());
    // A corpus of a few pages gives rows with no spread, whose embedding divides by zero: such
    // weights were stored, and every board of the strategy then failed on them.
    if let Some(t) = first_not_finite(&tensors) {
        return skip(
            build,
            format!(
                "its tensor {:?} is not all finite numbers: the relatedness of {} card words \
                 and {clues} clue words is too little to train on",
                t.name,
                cards.len()
            ),
        );
    }
    let stored: Vec<store::WeightRow> = tensors
        .iter()
        .map(|t| (t.name.clone(), t.shape_text(), t.bytes()))
        .collect();
    build.begin()?;
    build.replace_setnet_weights(&stored)?;
    build.commit()?;
    let parameters: usize = trained.tensors.iter().map(|t| t.data.len()).sum();
    record(
        build,
        "setnet",
        &[
            ("seed", p.seed.to_string()),
            ("steps", p.steps.to_string()),
            (
                "steps_rule",
                format!(
                    "min({}, {STEPS_PER_CARD} per card word, 1 per {CLUE_WORDS_PER_STEP} clue words)",
                    setnet::Params::default().steps
                ),
            ),
            ("skipped", String::new()),
            ("batch", p.batch.to_string()),
            ("games", trained.games.to_string()),
            ("learning_rate", p.learning_rate.to_string()),
            ("alpha_enemy", p.alphas.enemy.to_string()),
            ("alpha_civilian", p.alphas.civilian.to_string()),
            ("alpha_assassin", p.alphas.assassin.to_string()),
            ("dims", space.dims.to_string()),
            ("set_dims", p.set_dims.to_string()),
            ("hidden", p.hidden.to_string()),
            ("parameters", parameters.to_string()),
            ("card_words", cards.len().to_string()),
            ("clue_words", clues.to_string()),
            ("max_team", p.max_team.to_string()),
            ("max_enemy", p.max_enemy.to_string()),
            ("max_civilian", p.max_civilian.to_string()),
            ("first_loss", format!("{:.4}", trained.first_loss)),
            ("last_loss", format!("{:.4}", trained.last_loss)),
            ("last_loss_enemy", format!("{:.4}", trained.last_parts[0])),
            (
                "last_loss_civilian",
                format!("{:.4}", trained.last_parts[1]),
            ),
            (
                "last_loss_assassin",
                format!("{:.4}", trained.last_parts[2]),
            ),
            ("seconds_space", format!("{space_seconds:.3}")),
            ("seconds_training", format!("{:.3}", trained.seconds)),
        ],
    )
}

/// The stage left undone, and why: the table is left empty and the reason recorded
/// (`setnet.skipped`), which the strategy names, rather than fail the whole build.
fn skip(build: &Build, why: String) -> Result<()> {
    build.begin()?;
    build.replace_setnet_weights(&[])?;
    build.commit()?;
    eprintln!("setnet: skipped: {why}");
    record(build, "setnet", &[("skipped", why)])
}

/// The first tensor holding a NaN or an infinity, which no board can be answered with.
fn first_not_finite(tensors: &[setnet::Tensor]) -> Option<&setnet::Tensor> {
    tensors
        .iter()
        .find(|t| t.data.iter().any(|x| !x.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tensor_with_a_nan_or_an_infinity_is_found() {
        let t = |name: &str, data: Vec<f32>| setnet::Tensor::new(name, vec![data.len()], data);
        let fine = vec![t("a", vec![0.0, -1.5]), t("b", vec![f32::MAX])];
        assert!(first_not_finite(&fine).is_none());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut ts = fine.clone();
            ts.push(t("card_vectors", vec![1.0, bad]));
            assert_eq!(
                first_not_finite(&ts).map(|t| t.name.as_str()),
                Some("card_vectors")
            );
        }
    }
}
