//! The query subcommands: suggest, explain, guess, play, eval.

use anyhow::{Context, Result, bail};
use clap::Args;
use query::game::{self, Answer, PlayParams, Request, Strategy, StrategyKind};
use query::legality::{Illegal, Legality, NoLexicon};
use query::store_knowledge::{
    StoreLexicon, check_board, check_covered, normalize_word, parse_assassin, parse_list,
};
use std::io::Write;
use std::path::PathBuf;
use store::Store;

use crate::commands::DEFAULT_DB;

#[derive(Args)]
pub struct SuggestArgs {
    /// Your team's unrevealed words, comma-separated (`apple,ice cream`).
    #[arg(long, required = true)]
    pos: String,
    /// The words to avoid: opponent's cards and bystanders, comma-separated.
    #[arg(long, default_value = "")]
    neg: String,
    /// The assassin.
    #[arg(long)]
    assassin: Option<String>,
    /// How to pick: `threshold` (scores above the best negative) or `herfindahl` (clusters of
    /// term documents). herfindahl departs from the published method: the assassin's and every
    /// negative card's document are clusters to avoid; a clue's targets are the cluster's cards
    /// whose document has it and whose score with it beats every card to avoid, as threshold
    /// demands; clues rank by weight × number of targets.
    #[arg(long, default_value = "threshold")]
    strategy: StrategyKind,
    /// How many suggestions (the best and its alternatives), 1 or more.
    #[arg(long, default_value_t = 5)]
    top: usize,
    #[command(flatten)]
    margin: MarginArg,
    /// Print the JSON answer: {"clue", "count", "targets", "score", "strategy", "alternatives"}.
    #[arg(long)]
    json: bool,
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct ExplainArgs {
    /// The clue.
    clue: String,
    /// The terms to explain it against.
    #[arg(required = true)]
    terms: Vec<String>,
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct GuessArgs {
    /// The clue heard.
    #[arg(long)]
    clue: String,
    /// The number heard (0 = no limit).
    #[arg(long)]
    count: usize,
    /// The unrevealed words, comma-separated.
    #[arg(long)]
    board: String,
    /// Stop guessing below this score.
    #[arg(long, default_value_t = 0.01)]
    floor: f64,
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct PlayArgs {
    /// Seed of the board and the opponent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "threshold")]
    strategy: StrategyKind,
    #[command(flatten)]
    margin: MarginArg,
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct EvalArgs {
    /// Games per strategy.
    #[arg(long, default_value_t = 100)]
    games: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Strategies to compare, comma-separated.
    #[arg(long, default_value = "threshold,herfindahl")]
    strategies: String,
    #[command(flatten)]
    margin: MarginArg,
    #[arg(long)]
    json: bool,
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

/// The assassin's margin, shared by the commands that pick clues.
#[derive(Args)]
pub struct MarginArg {
    /// Added to a clue's score with the assassin: a target must score above that (and above
    /// the clue's score with every other card to avoid). threshold applies it to every
    /// target; herfindahl to its targets' check against the scores. 0.1 is about one more
    /// mention on a well-ranked page.
    #[arg(long, default_value_t = query::threshold::DEFAULT_ASSASSIN_MARGIN)]
    assassin_margin: f64,
}

impl MarginArg {
    /// The margin; refuses one that is not a score difference.
    fn value(&self) -> Result<f64> {
        let m = self.assassin_margin;
        if !(m.is_finite() && m >= 0.0) {
            bail!("--assassin-margin {m} is not a margin: give a number of 0 or more");
        }
        Ok(m)
    }
}

/// Answers one board: what `suggest` prints, as a value (used by the benchmark too).
pub fn answer(store: &Store, req: &Request, strategy: StrategyKind) -> Result<Answer> {
    let board = req.board_words();
    let lexicon = StoreLexicon::new(store);
    let legality = Legality::new(&board, &lexicon);
    let ranked = strategy.suggest(store, req, &legality)?;
    Ok(Answer::new(strategy.name(), ranked))
}

pub fn suggest(a: SuggestArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    if a.top == 0 {
        bail!("--top 0: give how many suggestions to print (1 or more)");
    }
    let strategy = a
        .strategy
        .with_top(a.top)
        .with_assassin_margin(a.margin.value()?);
    let req = Request {
        pos: parse_list(&a.pos),
        neg: parse_list(&a.neg),
        assassin: parse_assassin(a.assassin.as_deref())?,
    };
    check_board(&req.pos, &req.neg, req.assassin.as_deref())?;
    let store = Store::open(&a.db)?;
    check_covered(&req.board_words(), &store.terms()?)?;
    let ans = answer(&store, &req, strategy)?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&ans)?)?;
        return Ok(());
    }
    match &ans.clue {
        None => writeln!(
            out,
            "no safe clue for {} (strategy {})",
            req.pos.join(", "),
            ans.strategy
        )?,
        Some(c) => {
            writeln!(
                out,
                "{c} {}   -> {}   (score {:.3}, {})",
                ans.count,
                ans.targets.join(", "),
                ans.score,
                ans.strategy
            )?;
            for alt in &ans.alternatives {
                writeln!(
                    out,
                    "  also: {} {} -> {} ({:.3})",
                    alt.clue,
                    alt.count,
                    alt.targets.join(", "),
                    alt.score
                )?;
            }
        }
    }
    Ok(())
}

pub fn explain(a: ExplainArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let store = Store::open(&a.db)?;
    let clue = normalize_word(&a.clue);
    if !query::legality::is_word(&clue) {
        bail!("{:?} is not a clue: a clue is one word of letters", a.clue);
    }
    let terms: Vec<String> = a.terms.iter().map(|t| normalize_word(t)).collect();
    check_covered(&terms, &store.terms()?)?;
    let mut found = Vec::new();
    for t in &terms {
        found.push((t.clone(), store.evidence(&clue, t)?));
    }
    if a.json {
        let v: Vec<serde_json::Value> = found
            .iter()
            .map(|(t, e)| serde_json::json!({"term": t, "evidence": e}))
            .collect();
        writeln!(
            out,
            "{}",
            serde_json::to_string(&serde_json::json!({"clue": clue, "terms": v}))?
        )?;
        return Ok(());
    }
    for (t, e) in found {
        match e {
            None => writeln!(out, "{clue} -> {t}: no evidence (score 0)")?,
            Some(e) => {
                writeln!(
                    out,
                    "{clue} -> {t}: score {:.3} from page {:?} (id {}, PageRank {:.2}): {} counted {} time(s) in the {} page",
                    e.score,
                    e.page_title,
                    e.page_id,
                    e.pagerank.unwrap_or(0.0),
                    if e.direction == "clue_page" {
                        &t
                    } else {
                        &clue
                    },
                    e.count,
                    if e.direction == "clue_page" {
                        "clue's"
                    } else {
                        "term's"
                    }
                )?;
                if let Some(x) = e.excerpt {
                    writeln!(out, "    \"{x}\"")?;
                }
            }
        }
    }
    Ok(())
}

pub fn guess(a: GuessArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let store = Store::open(&a.db)?;
    let board = parse_list(&a.board);
    if board.is_empty() {
        bail!("--board is empty: give the unrevealed words, comma-separated");
    }
    if !(a.floor.is_finite() && a.floor >= 0.0) {
        bail!(
            "--floor {} is not a score: give a number of 0 or more",
            a.floor
        );
    }
    let clue = normalize_word(&a.clue);
    if !query::legality::is_word(&clue) {
        bail!("{:?} is not a clue: a clue is one word of letters", a.clue);
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(w) = board.iter().find(|w| !seen.insert(w.as_str())) {
        bail!("{w:?} is on --board twice; each card is there once");
    }
    // A card cannot be its own clue (the legality rules' first board rule; a word of a
    // multi-word card counts).
    if let Err(Illegal::BoardWord(card)) = Legality::new(&board, &NoLexicon).check(&clue) {
        bail!("--clue {clue:?} is the card {card:?} on --board: a clue is never a board word");
    }
    check_covered(&board, &store.terms()?)?;
    let guesses = game::guess(
        &store,
        &clue,
        a.count,
        &board,
        &game::GuessParams { floor: a.floor },
    )?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&guesses)?)?;
    } else if guesses.is_empty() {
        writeln!(
            out,
            "no word scores above {} with {:?}: pass",
            a.floor, a.clue
        )?;
    } else {
        for g in guesses {
            writeln!(out, "{}\t{:.3}", g.word, g.score)?;
        }
    }
    Ok(())
}

pub fn play(a: PlayArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let strategy = a.strategy.with_assassin_margin(a.margin.value()?);
    let store = Store::open(&a.db)?;
    let g = game::play(
        a.seed,
        &strategy,
        &store,
        &StoreLexicon::new(&store),
        &PlayParams::default(),
    )?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&g)?)?;
        return Ok(());
    }
    writeln!(out, "game seed {} ({}), red plays:", g.seed, g.strategy)?;
    for c in &g.board.cards {
        writeln!(out, "  {:<12} {:?}", c.word, c.role)?;
    }
    for (i, t) in g.turns.iter().enumerate() {
        match &t.clue {
            None => writeln!(out, "turn {}: no safe clue, pass", i + 1)?,
            Some(c) => {
                let revealed: Vec<String> = t
                    .revealed
                    .iter()
                    .map(|(w, r)| format!("{w} ({r:?})"))
                    .collect();
                let revealed = if revealed.is_empty() {
                    "no guess above the floor".to_string()
                } else {
                    revealed.join(", ")
                };
                writeln!(
                    out,
                    "turn {}: {} {} (for {}) -> {revealed}",
                    i + 1,
                    c.clue,
                    c.count,
                    c.targets.join(", "),
                )?;
            }
        }
        if let Some(o) = &t.opponent {
            writeln!(out, "         blue reveals {o}")?;
        }
    }
    let outcome = if g.won {
        "red wins"
    } else if g.assassin {
        "red hit the assassin"
    } else {
        "red loses"
    };
    writeln!(
        out,
        "{outcome}: {} clues, {} correct, {} incorrect",
        g.clues, g.correct, g.incorrect
    )?;
    Ok(())
}

/// Said with every evaluation, in text and JSON.
pub const EVAL_NOTE: &str = "our spymaster with our own guesser: optimistic figures";

pub fn eval(a: EvalArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    if a.games == 0 {
        bail!("--games 0: give how many games to play per strategy (1 or more)");
    }
    let margin = a.margin.value()?;
    let store = Store::open(&a.db)?;
    let kinds: Vec<StrategyKind> = a
        .strategies
        .split(',')
        .map(|s| s.trim().parse())
        .collect::<Result<Vec<StrategyKind>>>()
        .context("--strategies")?
        .into_iter()
        .map(|k| k.with_assassin_margin(margin))
        .collect();
    let strategies: Vec<&dyn Strategy> = kinds.iter().map(|k| k as &dyn Strategy).collect();
    let reports = game::eval(
        a.games,
        a.seed,
        &strategies,
        &store,
        &StoreLexicon::new(&store),
        &PlayParams::default(),
    )?;
    if a.json {
        let v = serde_json::json!({
            "note": EVAL_NOTE,
            "games": a.games,
            "seed": a.seed,
            "strategies": reports,
        });
        writeln!(out, "{}", serde_json::to_string(&v)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} games per strategy, seed {} ({EVAL_NOTE})",
        a.games, a.seed
    )?;
    writeln!(
        out,
        "{:<12} {:>8} {:>10} {:>9} {:>10} {:>12}",
        "strategy", "win rate", "mean turns", "assassin", "mean clue", "net/clue"
    )?;
    for r in reports {
        writeln!(
            out,
            "{:<12} {:>8.3} {:>10.2} {:>9.3} {:>10.2} {:>12.3}",
            r.strategy,
            r.win_rate,
            r.mean_turns,
            r.assassin_rate,
            r.mean_clue_number,
            r.net_per_clue
        )?;
    }
    Ok(())
}
