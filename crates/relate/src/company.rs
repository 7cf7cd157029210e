//! Any vocabulary word as a card: what the stage keeps of every clue word so that a query can
//! score it as a card ([`Company`]), and the row it then computes ([`card_row`]), by the same
//! formula the stage applies to the listed cards ([`crate::ScoreMix`]).
//!
//! A listed card's row is stored whole (one score per clue word). A word typed on a board that
//! no list named (`ocean`, `captain`) is a clue word, so the stage has its joined vector; what
//! it does not keep for every word is the dense co-occurrence and the dictionary. So each clue
//! word keeps the clue words it meets most (their meetings), the sum of its other meetings
//! (spread over the pairs they fall on), and the clue words its definition names; the cosine
//! comes from the stored vectors at query time.

use crate::{Scale, ScoreMix, log_meetings};

/// What a clue word keeps for being scored as a card: its strongest meetings and its
/// definition, by clue index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Company {
    /// `(clue index, meetings)`: the clue words it meets most, by index.
    pub meetings: Vec<(u32, u32)>,
    /// Its meetings with every other clue word, summed ...
    pub rest_meetings: u64,
    /// ... and how many clue words they fall on.
    pub rest_pairs: u32,
    /// `(clue index, share)`: the clue words its dictionary definition names, each with the
    /// share of its senses that use it ([`crate::Relatedness::raise`]).
    pub definition: Vec<(u32, f32)>,
}

impl Company {
    /// From one word's meetings with every clue word (`meetings[j]`, its own index left out
    /// by the caller or 0), keeping the `keep` largest exactly.
    pub fn from_meetings(meetings: &[u32], keep: usize, definition: Vec<(u32, f32)>) -> Company {
        let mut order: Vec<u32> = (0..meetings.len() as u32)
            .filter(|&j| meetings[j as usize] > 0)
            .collect();
        order.sort_by(|&a, &b| {
            meetings[b as usize]
                .cmp(&meetings[a as usize])
                .then(a.cmp(&b))
        });
        let (kept, rest) = order.split_at(keep.min(order.len()));
        let mut kept: Vec<(u32, u32)> = kept.iter().map(|&j| (j, meetings[j as usize])).collect();
        kept.sort_unstable();
        Company {
            meetings: kept,
            rest_meetings: rest.iter().map(|&j| meetings[j as usize] as u64).sum(),
            rest_pairs: rest.len() as u32,
            definition,
        }
    }

    /// What the score counts of the meetings with a clue word not kept: the rest's meetings
    /// spread evenly over the `others` clue words not kept, as `ln(1 + meetings·f)` of their
    /// mean where they fall, times the share of pairs they fall on.
    fn rest_logged(&self, others: usize, factor: f32) -> f32 {
        if self.rest_pairs == 0 || others == 0 {
            return 0.0;
        }
        let mean = self.rest_meetings as f32 / self.rest_pairs as f32;
        let share = (self.rest_pairs as f32 / others as f32).min(1.0);
        share * (mean * factor).ln_1p()
    }
}

/// The score of a word with every clue word, as a card: `scale.z(mix(0, cosine, meetings)) +
/// definition_weight·share`, the stage's formula ([`crate::Relatedness::compute`] and
/// [`crate::Relatedness::raise`]) with the mix's scales the stage recorded. `cosines` are its
/// joined vector's cosines with every clue word (1 with itself), `count` its occurrences; the
/// row is written over them (a board computes 25 rows of 16,000: no second buffer to fill).
/// First-order PPMI is not kept for every word: it counts 0 here (its default weight is 0).
pub fn card_row(
    mix: &ScoreMix,
    scale: Scale,
    definition_weight: f32,
    mut cosines: Vec<f32>,
    company: &Company,
    count: u64,
) -> Vec<f32> {
    let factor = mix.card_factor(count);
    let others = cosines.len().saturating_sub(company.meetings.len());
    let rest = company.rest_logged(others, factor);
    // The mix by value: its weights and scales are registers the loop vectorises over
    // (collected through an iterator, they were read again through a reference for every clue
    // word, one at a time: an eighth of a typed board's time).
    let mix = *mix;
    let score = |c: f32, logged: f32| scale.z(mix.mix_logged(0.0, c, logged));
    // The kept meetings' scores first, while their cosines are still there; then every clue
    // word as one the word meets only in the rest, and the kept ones over them.
    let kept: Vec<(usize, f32)> = company
        .meetings
        .iter()
        .filter_map(|&(j, n)| {
            let c = *cosines.get(j as usize)?;
            Some((j as usize, score(c, log_meetings(n, factor))))
        })
        .collect();
    for x in cosines.iter_mut() {
        *x = score(*x, rest);
    }
    let mut row = cosines;
    for (j, s) in kept {
        row[j] = s;
    }
    if definition_weight > 0.0 {
        for &(j, share) in &company.definition {
            if let Some(x) = row.get_mut(j as usize)
                && share > 0.0
            {
                *x += definition_weight * share;
            }
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix() -> ScoreMix {
        ScoreMix {
            ppmi_weight: 0.0,
            meeting_weight: 0.5,
            card_power: 0.0,
            card_median: 0.0,
            ppmi: Scale {
                mean: 0.0,
                std: 1.0,
            },
            cosine: Scale {
                mean: 0.1,
                std: 0.2,
            },
            meetings: Scale {
                mean: 0.5,
                std: 1.0,
            },
        }
    }

    #[test]
    fn the_strongest_meetings_are_kept_and_the_rest_summed() {
        let c = Company::from_meetings(&[0, 5, 1, 9, 2], 2, vec![]);
        assert_eq!(c.meetings, vec![(1, 5), (3, 9)]);
        assert_eq!((c.rest_meetings, c.rest_pairs), (3, 2));
        // Keeping more than there are keeps them all.
        let all = Company::from_meetings(&[0, 5, 1], 10, vec![]);
        assert_eq!(all.meetings, vec![(1, 5), (2, 1)]);
        assert_eq!((all.rest_meetings, all.rest_pairs), (0, 0));
    }

    #[test]
    fn a_row_by_hand() {
        // Three clue words; the card meets clue 1 four times (kept) and clue 2 twice (the
        // rest), and its definition names clue 0 in half its senses.
        let company = Company {
            meetings: vec![(1, 4)],
            rest_meetings: 2,
            rest_pairs: 1,
            definition: vec![(0, 0.5)],
        };
        let scale = Scale {
            mean: 0.2,
            std: 2.0,
        };
        let row = card_row(&mix(), scale, 2.0, vec![0.5, 0.1, 0.3], &company, 100);
        // Not kept: two clue words (0 and 2) share the rest, 2 meetings on one pair:
        // ½·ln(1 + 2) each.
        let rest = 0.5 * 3f32.ln();
        let z = |cos: f32, logged: f32| {
            let m = (cos - 0.1) / 0.2 + 0.5 * (logged - 0.5);
            (m - 0.2) / 2.0
        };
        let want = [z(0.5, rest) + 2.0 * 0.5, z(0.1, 5f32.ln()), z(0.3, rest)];
        for (got, want) in row.iter().zip(want) {
            assert!((got - want).abs() < 1e-5, "{row:?}");
        }
    }

    #[test]
    fn with_every_meeting_kept_the_row_is_the_stages_score() {
        // The stage's score of a card (Relatedness::compute) is z(mix) over the same parts:
        // a company that kept every meeting gives the same row.
        let meetings = [3u32, 0, 7];
        let cosines = [0.2f32, -0.1, 0.4];
        let m = mix();
        let scale = Scale {
            mean: -0.3,
            std: 1.5,
        };
        let company = Company::from_meetings(&meetings, 10, vec![]);
        let row = card_row(&m, scale, 0.0, cosines.to_vec(), &company, 50);
        for j in 0..3 {
            let want = scale.z(m.mix(0.0, cosines[j], meetings[j], 50));
            assert!((row[j] - want).abs() < 1e-5);
        }
    }
}
