//! The [`Strategy`] trait every way of choosing clues implements, and [`StrategyKind`], the
//! built-in strategies with their parameters (what `--strategy` names).

use anyhow::bail;
use serde::{Deserialize, Serialize};

use crate::Knowledge;
use crate::board_model::BoardModel;
use crate::herfindahl::{self, HerfindahlParams};
use crate::legality::Legality;
use crate::relatedness::{self, RelatednessParams};
use crate::request::{Request, Suggestion};
use crate::setnet::{self, SetnetParams};
use crate::threshold::{self, ThresholdParams};

/// A way of choosing clues; games and evaluations take any of them.
pub trait Strategy {
    /// The name printed in reports and answers.
    fn name(&self) -> &str;
    /// Ranked suggestions, best first; empty when there is no safe clue.
    fn suggest(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>>;
    /// A clue for when [`Strategy::suggest`] has none: games give it rather than pass turn
    /// after turn. None by default (the strategy passes).
    fn fallback(
        &self,
        _k: &dyn Knowledge,
        _req: &Request,
        _legality: &Legality<'_>,
    ) -> anyhow::Result<Option<Suggestion>> {
        Ok(None)
    }
    /// Fails when the strategy cannot run on `k` at all (setnet on a database without its
    /// trained network), so that a run of many games fails before the first, not after the
    /// other strategies' games. Ready by default.
    fn ready(&self, _k: &dyn Knowledge) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Checks that every strategy can run ([`Strategy::ready`]), naming the first that cannot and
/// why: `eval` and the scenarios call it before any game, so no finished result is lost.
pub fn check_ready(strategies: &[&dyn Strategy], k: &dyn Knowledge) -> anyhow::Result<()> {
    for s in strategies {
        s.ready(k).map_err(|e| {
            e.context(format!(
                "strategy {} cannot run on this database (checked before any game)",
                s.name()
            ))
        })?;
    }
    Ok(())
}

/// The built-in strategies with their parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "strategy", rename_all = "snake_case")]
pub enum StrategyKind {
    Threshold(ThresholdParams),
    Herfindahl(HerfindahlParams),
    Relatedness(RelatednessParams),
    Setnet(SetnetParams),
}

/// The strategy `suggest`, `play` and `eval` use when none is named: the one that measures best
/// with a guesser that does not share our data (docs/evaluation.md, "Quality").
pub const DEFAULT_STRATEGY: &str = "relatedness";

/// Every strategy name, in the order reports list them.
pub const STRATEGIES: [&str; 4] = ["relatedness", "threshold", "herfindahl", "setnet"];

/// Margins given on the command line, and the relatedness strategy's ranking; `None` keeps the
/// strategy's default.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Margins {
    pub opponent: Option<f64>,
    pub neutral: Option<f64>,
    pub assassin: Option<f64>,
    pub ranking: Option<Ranking>,
}

/// How the relatedness strategy ranks clues with as many targets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ranking {
    /// By the weakest target's safety alone.
    Safety,
    /// By what a guesser who reads the whole board would likely take ([`BoardModel`]).
    Board(BoardModel),
}

impl std::str::FromStr for StrategyKind {
    type Err = anyhow::Error;
    /// `relatedness`, `threshold`, `herfindahl` or `setnet`, with default parameters; in any
    /// case and with spaces around it (`Relatedness`, ` setnet`), as a card word is read.
    fn from_str(s: &str) -> anyhow::Result<StrategyKind> {
        match s.trim().to_lowercase().as_str() {
            "threshold" => Ok(StrategyKind::Threshold(ThresholdParams::default())),
            "herfindahl" => Ok(StrategyKind::Herfindahl(HerfindahlParams::default())),
            "relatedness" => Ok(StrategyKind::Relatedness(RelatednessParams::default())),
            "setnet" => Ok(StrategyKind::Setnet(SetnetParams::default())),
            _ => bail!(
                "unknown strategy {} (expected {})",
                crate::shown(s),
                STRATEGIES.join(", ")
            ),
        }
    }
}

impl StrategyKind {
    /// Sets how many suggestions the strategy returns.
    pub fn with_top(self, top: usize) -> StrategyKind {
        match self {
            StrategyKind::Threshold(p) => StrategyKind::Threshold(ThresholdParams { top, ..p }),
            StrategyKind::Herfindahl(p) => StrategyKind::Herfindahl(HerfindahlParams { top, ..p }),
            StrategyKind::Relatedness(p) => {
                StrategyKind::Relatedness(RelatednessParams { top, ..p })
            }
            StrategyKind::Setnet(p) => StrategyKind::Setnet(SetnetParams { top, ..p }),
        }
    }

    /// Sets the margins given: relatedness and setnet have all three; threshold and herfindahl
    /// only the assassin's (they avoid every other card with no margin).
    pub fn with_margins(self, m: Margins) -> StrategyKind {
        match self {
            StrategyKind::Relatedness(p) => StrategyKind::Relatedness(RelatednessParams {
                opponent_margin: m.opponent.unwrap_or(p.opponent_margin),
                neutral_margin: m.neutral.unwrap_or(p.neutral_margin),
                assassin_margin: m.assassin.unwrap_or(p.assassin_margin),
                board: match m.ranking {
                    None => p.board,
                    Some(Ranking::Safety) => None,
                    Some(Ranking::Board(b)) => Some(b),
                },
                ..p
            }),
            StrategyKind::Setnet(p) => StrategyKind::Setnet(SetnetParams {
                opponent_margin: m.opponent.unwrap_or(p.opponent_margin),
                neutral_margin: m.neutral.unwrap_or(p.neutral_margin),
                assassin_margin: m.assassin.unwrap_or(p.assassin_margin),
                ..p
            }),
            other => match m.assassin {
                Some(a) => other.with_assassin_margin(a),
                None => other,
            },
        }
    }

    /// Sets the margin added to a clue's score with the assassin: threshold's bar for every
    /// target, and the same bar in herfindahl's check of its targets against `scores`.
    pub fn with_assassin_margin(self, assassin_margin: f64) -> StrategyKind {
        match self {
            StrategyKind::Threshold(p) => StrategyKind::Threshold(ThresholdParams {
                assassin_margin,
                ..p
            }),
            StrategyKind::Herfindahl(p) => StrategyKind::Herfindahl(HerfindahlParams {
                assassin_margin,
                ..p
            }),
            StrategyKind::Relatedness(p) => StrategyKind::Relatedness(RelatednessParams {
                assassin_margin,
                ..p
            }),
            StrategyKind::Setnet(p) => StrategyKind::Setnet(SetnetParams {
                assassin_margin,
                ..p
            }),
        }
    }
}

impl StrategyKind {
    /// The strategy's name, as [`STRATEGIES`] spells it.
    pub fn as_str(&self) -> &'static str {
        match self {
            StrategyKind::Threshold(_) => "threshold",
            StrategyKind::Herfindahl(_) => "herfindahl",
            StrategyKind::Relatedness(_) => "relatedness",
            StrategyKind::Setnet(_) => "setnet",
        }
    }
}

impl Strategy for StrategyKind {
    fn ready(&self, k: &dyn Knowledge) -> anyhow::Result<()> {
        match self {
            StrategyKind::Setnet(_) => k.setnet().map(|_| ()),
            _ => Ok(()),
        }
    }
    fn name(&self) -> &str {
        self.as_str()
    }
    fn suggest(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Vec<Suggestion>> {
        match self {
            StrategyKind::Threshold(p) => threshold::suggest(k, req, legality, p),
            StrategyKind::Herfindahl(p) => herfindahl::suggest(k, req, legality, p),
            StrategyKind::Relatedness(p) => relatedness::suggest(k, req, legality, p),
            StrategyKind::Setnet(p) => setnet::suggest(k, req, legality, p),
        }
    }
    fn fallback(
        &self,
        k: &dyn Knowledge,
        req: &Request,
        legality: &Legality<'_>,
    ) -> anyhow::Result<Option<Suggestion>> {
        match self {
            StrategyKind::Relatedness(p) => relatedness::fallback(k, req, legality, p),
            // The relatedness strategy's clue for one card, with setnet's margins.
            StrategyKind::Setnet(p) => relatedness::fallback(
                k,
                req,
                legality,
                &RelatednessParams {
                    opponent_margin: p.opponent_margin,
                    neutral_margin: p.neutral_margin,
                    assassin_margin: p.assassin_margin,
                    ..RelatednessParams::default()
                },
            ),
            _ => Ok(None),
        }
    }
}
