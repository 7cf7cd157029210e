//! The query subcommands: suggest, explain, guess, play, eval.

use anyhow::{Context, Result, bail};
use clap::Args;
use query::Knowledge;
use query::answer;
use query::board_model::BoardModel;
use query::game::{self, PlayParams, Request, Strategy, StrategyKind};
use query::guesser::{Guesser, OwnGuesser};
use query::store_knowledge::{StoreKnowledge, StoreLexicon, parse_assassin, parse_list};
use query::strategy::{Margins, Ranking};
use query::vectors::{VectorGuesser, WordVectors};
use std::io::Write;
use std::path::PathBuf;
use store::Store;

use crate::commands::DEFAULT_DB;

#[derive(Args)]
pub struct SuggestArgs {
    /// Your team's unrevealed words, comma-separated (`apple,ice cream`; a line break separates
    /// too, as in `--pos "$(cat team.txt)"`, and so in every list of words below).
    #[arg(long, required = true)]
    pos: String,
    /// The opponent's unrevealed cards, comma-separated (to avoid).
    #[arg(long, default_value = "")]
    neg: String,
    /// The unrevealed bystanders, comma-separated (to avoid; a smaller margin than --neg with
    /// relatedness, the same as --neg with threshold and herfindahl).
    #[arg(long, default_value = "")]
    neutral: String,
    /// The assassin.
    #[arg(long)]
    assassin: Option<String>,
    /// The clues already given this game, comma-separated: never suggested again.
    #[arg(long, default_value = "")]
    given: String,
    /// How to pick: `relatedness` (the default: a target relates to the clue more than every
    /// card to avoid, by a margin for each kind, in relatedness learned from all page text),
    /// `threshold` (scores above the best negative) or `herfindahl` (clusters of term
    /// documents). herfindahl departs from the published method: the assassin's and every
    /// negative card's document are clusters to avoid; a clue's targets are the cluster's cards
    /// whose document has it and whose score with it beats every card to avoid, as threshold
    /// demands; clues rank by weight × number of targets. `setnet`: the set network the
    /// `setnet` stage trained proposes a clue vector for every subset of your cards, decoded to
    /// the nearest legal clue word and said only if it clears the relatedness margins (else
    /// `"clue": null`).
    #[arg(long, default_value = query::strategy::DEFAULT_STRATEGY)]
    strategy: String,
    /// How many suggestions (the best and its alternatives), 1 to 100 (as the server's `top`):
    /// at most, as many as clear the rules (setnet proposes one clue per subset of the team,
    /// and says only those that clear the relatedness margins, often two or three).
    #[arg(long, default_value_t = 5, value_parser = in_range(query::request::TOP))]
    top: usize,
    #[command(flatten)]
    margin: MarginArg,
    /// Print the JSON answer: {"clue", "count", "targets", "score", "strategy", "alternatives",
    /// "warnings"}.
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
    /// The cards to explain it against (a card of several words in quotes: "loch ness").
    #[arg(required = true)]
    terms: Vec<String>,
    /// Print the JSON answer: {"clue", "terms": [the evidence per card], "setnet", "warnings"}.
    #[arg(long)]
    json: bool,
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct GuessArgs {
    /// The clue heard.
    #[arg(long)]
    clue: String,
    /// The number heard, 0 to 25 (0 = no limit).
    #[arg(long, value_parser = in_range(query::request::COUNT))]
    count: usize,
    /// The unrevealed words, comma-separated.
    #[arg(long)]
    board: String,
    /// Stop guessing below this score, 0 to 1. It applies when the clue is not one of the
    /// relatedness's clue words and the cards are ranked by their page scores (links and counts
    /// in Wikipedia pages, 0 to 1); otherwise the cards are ranked by relatedness, best first,
    /// up to --count. A card the database does not know is never guessed.
    #[arg(long, default_value_t = query::guesser::GuessParams::default().floor, value_parser = in_range(query::request::FLOOR))]
    floor: f64,
    /// Print the JSON answer: {"clue", "guesses": [{"word", "score"}, …], "warnings"} (what
    /// the server's /api/guess answers).
    #[arg(long)]
    json: bool,
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct PlayArgs {
    /// Seed of the board and the opponent, any whole number from 0 to 2^64 − 1.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How red's spymaster picks its clues: relatedness, threshold, herfindahl or setnet (as
    /// `suggest --strategy`).
    #[arg(long, default_value = query::strategy::DEFAULT_STRATEGY)]
    strategy: String,
    #[command(flatten)]
    margin: MarginArg,
    /// Who guesses: `own` (our knowledge) or `vectors:PATH` (word2vec text vectors, `.gz` too).
    #[arg(long, default_value = "own")]
    guesser: String,
    /// Blue reveals one of its cards after each red turn (default: red plays alone).
    #[arg(long)]
    opponent: bool,
    #[command(flatten)]
    words: WordsArg,
    /// Print the game as JSON: the board, every turn (clue, targets, cards revealed) and the
    /// outcome.
    #[arg(long)]
    json: bool,
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct EvalArgs {
    /// Games per strategy, 1 to 100000.
    #[arg(long, default_value_t = 100, value_parser = whole_in(1, MAX_GAMES))]
    games: usize,
    #[command(flatten)]
    words: WordsArg,
    /// Seed of the games (game `i` plays the board of seed `f(seed, i)`), any whole number from
    /// 0 to 2^64 − 1.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Strategies to compare, comma-separated.
    #[arg(long, default_value = "relatedness,threshold,herfindahl")]
    strategies: String,
    #[command(flatten)]
    margin: MarginArg,
    /// Who guesses, repeatable: `own` (our knowledge: optimistic, it shares the spymaster's
    /// data) or `vectors:PATH` (word vectors trained elsewhere, word2vec text format, `.gz`
    /// too: `vectors:../shared/data/guesser/glove-6B-50d-top100k.txt.gz`).
    #[arg(long, default_value = "own")]
    guesser: Vec<String>,
    /// Blue reveals one of its cards after each red turn (default: red plays alone, as the
    /// outside guesser's reference figures are measured).
    #[arg(long)]
    opponent: bool,
    /// Also write one JSON line per turn to FILE: the board, the clue, its number and targets,
    /// the strategy's safety, every guesser's picks and the outcome (docs/evaluation.md, "Records
    /// for study"). With --scenarios, one line per scenario: each guesser's picks for the person's
    /// clue, and each strategy's clue with each guesser's picks for it. FILE may not be an input
    /// (the database or its -wal, -shm, the scenarios, the vectors), by any name.
    #[arg(long, value_name = "FILE")]
    turns: Option<PathBuf>,
    /// With --turns: each line also holds the strategy's next N suggestions for the same board
    /// (fewer when it ranks fewer: it ranks 10; N is 0 to 20), each with every guesser's picks
    /// (`alternatives`), to compare clues on the same board.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "turns",
          value_parser = whole_in(0, 20))]
    alternatives: usize,
    /// Instead of games, check clues people wrote: a file of scenarios (tab-separated `id`,
    /// `team`, `avoid`, `clue`, as `../shared/data/human-clues/scenarios-dev.tsv`). Reports how
    /// often our own knowledge and each guesser take exactly the team's cards for the person's
    /// clue, and, for each strategy's clue on the same board, how often each `--guesser`
    /// reaches every team card and how often its first pick is right. The scenarios are the
    /// boards: the options of games (--games, --seed, --opponent, --words) are refused beside it.
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["games", "seed", "opponent", "words"])]
    scenarios: Option<PathBuf>,
    /// Print the report as JSON: the figures per strategy and guesser (with --scenarios, per
    /// guesser and strategy).
    #[arg(long)]
    json: bool,
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

/// The word list boards are drawn from, shared by `play` and `eval`.
#[derive(Args)]
pub struct WordsArg {
    /// Draw boards from a word list: a list the build stored by name (`codenames`, the 400
    /// cards of the original game and the default; `duet`, Codenames Duet; `deep-undercover`,
    /// Codenames: Deep Undercover; `clue-db info` names them), or a file of one card a line, in
    /// any case (a group's own pack). Words the database cannot score, or a strategy in play
    /// does not cover, are named and left out; 25 must remain. Default: `codenames`, or every
    /// card word with a stored row when the build stored no such list.
    #[arg(long, value_name = "LIST")]
    words: Option<String>,
    /// The shared data folder, where `duet` and `deep-undercover` are read from when the
    /// database stored no list of that name (a database built before lists were stored).
    #[arg(long, default_value = "../shared/data", value_name = "DIR")]
    data: PathBuf,
    /// The folder of hand-kept inputs, where `codenames` is read from (terms.txt) when the
    /// database stored no list of that name.
    #[arg(long, default_value = "pipeline", value_name = "DIR")]
    inputs: PathBuf,
}

/// A word list's words from its file, each once, in the file's order (`read_terms` reads a
/// card as a board does: lower case, a hyphen as a space, no empty card).
fn list_file(file: &std::path::Path) -> Result<Vec<String>> {
    pipeline::inputs::read_terms(file)
}

/// A word list by its name (any case): the one the database stored (`word_lists`), else, for a
/// database built before lists were stored, the file of one of [`pipeline::WORD_LISTS`] here
/// (`codenames` in INPUTS, the editions in DATA/word-lists); `None` when neither has it. The
/// one lookup of `--words NAME`, the default deck and the lists `serve` offers.
pub fn named_list(
    stored: &[(String, Vec<String>)],
    name: &str,
    inputs: &std::path::Path,
    data: &std::path::Path,
) -> Result<Option<(String, Vec<String>)>> {
    if let Some(found) = query::deck::find_list(stored, name) {
        return Ok(Some(found.clone()));
    }
    let name = name.trim().to_lowercase();
    if !pipeline::WORD_LISTS.contains(&name.as_str()) {
        return Ok(None);
    }
    let file = pipeline::word_list_file(&name, inputs, data);
    if !file.exists() {
        return Ok(None);
    }
    let words = list_file(&file).with_context(|| format!("the list {name}"))?;
    Ok(Some((name, words)))
}

impl WordsArg {
    /// The list's name and words: `--words` as a list by name ([`named_list`]), else as a file;
    /// without `--words`, the original game's list, else (a database of another game's list)
    /// every stored card ([`query::deck::default_deck`]).
    fn list(&self, k: &StoreKnowledge) -> Result<(String, Vec<String>)> {
        let stored = k.store().word_lists()?;
        let Some(list) = &self.words else {
            return match named_list(&stored, query::deck::DEFAULT_LIST, &self.inputs, &self.data)? {
                Some(found) => Ok(found),
                None => query::deck::default_deck(k),
            };
        };
        if let Some(found) = named_list(&stored, list, &self.inputs, &self.data)? {
            if !list.contains('/') && std::path::Path::new(list).is_file() {
                eprintln!(
                    "clue-db: note: --words {list} is the list of that name; to read the file \
                     {list} here, write --words ./{list}"
                );
            }
            return Ok(found);
        }
        if list.trim().is_empty() {
            bail!(
                "--words is empty: give a list's name (codenames, duet, …) or a file of one card a line"
            );
        }
        let file = PathBuf::from(list);
        if !file.exists() {
            let names: Vec<&str> = stored.iter().map(|(n, _)| n.as_str()).collect();
            bail!(
                "--words {list}: no list of that name in the database ({}) and no file {}; give \
                 a list's name or a file of one card a line",
                if names.is_empty() {
                    "it stored none".to_string()
                } else {
                    format!("lists: {}", names.join(", "))
                },
                file.display()
            );
        }
        // The reader's errors name the file already.
        let words = list_file(&file).context("--words")?;
        Ok((file.display().to_string(), words))
    }

    /// The deck's name and the words of it that every strategy of `strategies` can score as
    /// cards, in the list's order; a note names the others ([`query::deck::playable`]).
    pub fn deck(
        &self,
        k: &StoreKnowledge,
        strategies: &[StrategyKind],
    ) -> Result<(String, Vec<String>)> {
        let (name, words) = self.list(k)?;
        let playable = query::deck::playable(k, &words, strategies)?;
        warn(&playable.warnings(&name));
        for n in playable.notes(&name) {
            eprintln!("clue-db: note: {n}");
        }
        if playable.words.len() < 25 {
            // A pack of everyday words fails with eval's default strategies only because
            // threshold and herfindahl cover the words with pages of their own: say so.
            let known = words.len() - playable.unknown.len() - playable.same.len();
            let narrowing: Vec<&str> = playable.uncovered.iter().map(|(s, _)| *s).collect();
            let hint = if known >= 25 && !narrowing.is_empty() {
                let who = match narrowing.as_slice() {
                    [one] => format!("the {one} strategy covers"),
                    many => format!("the {} strategies cover", many.join(" and ")),
                };
                format!(
                    "; {who} fewer of them (the note above): the relatedness strategy plays the \
                     {known} the database knows"
                )
            } else {
                String::new()
            };
            bail!(
                "{}: {} of its {} different words can be cards of these games, a board needs \
                 25{hint}",
                self.words
                    .as_deref()
                    .map_or(format!("the default deck, {name}"), |w| format!(
                        "--words {w}"
                    )),
                playable.words.len(),
                words.len(),
            );
        }
        Ok((name, playable.words))
    }
}

/// The margins and the relatedness ranking, shared by the commands that pick clues.
#[derive(Args)]
pub struct MarginArg {
    /// How far a target's score must exceed the clue's score with the assassin. Default per
    /// strategy: relatedness 4.5 (in standard deviations of its scores); threshold and
    /// herfindahl 0.1 (about one more mention on a well-ranked page; threshold applies it to
    /// every target, herfindahl to its targets' check against the scores). 0 to 100.
    #[arg(long, value_parser = in_range(query::request::MARGIN))]
    assassin_margin: Option<f64>,
    /// relatedness: how far a target must score above every opponent card (default 1.5), 0 to
    /// 100.
    #[arg(long, value_parser = in_range(query::request::MARGIN))]
    opponent_margin: Option<f64>,
    /// relatedness: how far a target must score above every bystander (default 1.0), 0 to 100.
    #[arg(long, value_parser = in_range(query::request::MARGIN))]
    neutral_margin: Option<f64>,
    /// relatedness: how clues with as many targets are ranked. `board` (the default): by what
    /// a guesser who weighs every unrevealed card would likely take, team cards gained less the
    /// assassin's chance; `safety`: by the weakest target's share of the margins alone.
    #[arg(long, value_parser = ["board", "safety"])]
    rank_by: Option<String>,
    /// relatedness, `--rank-by board`: how sharply the modelled guesser prefers the more
    /// related card, per unit of relatedness (default 0.6); more than 0 (at 0 every card is
    /// as likely and every clue ties) and at most 10 (sharper, the chances saturate and clues
    /// tie again).
    #[arg(long, value_parser = number_above(0.0, MAX_BETA))]
    board_beta: Option<f64>,
    /// relatedness, `--rank-by board`: how many team cards the assassin's chance costs
    /// (default 4.5), 0 to 100.
    #[arg(long, value_parser = number_in(0.0, MAX_ASSASSIN_WEIGHT))]
    board_assassin_weight: Option<f64>,
    /// relatedness, `--rank-by board`: how sharply the modelled guesser prefers a card over
    /// the assassin, per unit of relatedness (default 0.35: flatter than --board-beta, the
    /// assassin's chance taken as a flatter reader would have it), 0 to 10 (0: the assassin
    /// as likely as any card, whatever it has to do with the clue).
    #[arg(long, value_parser = number_in(0.0, MAX_BETA))]
    board_assassin_beta: Option<f64>,
}

/// The ranges of the query commands' numbers (`--help` says each): past them a number is a
/// mistake, not a setting, and a huge `--top` or `--alternatives` asked for memory for that
/// many suggestions (`--top 18446744073709551615` panicked, "capacity overflow").
const MAX_GAMES: usize = 100_000;
const MAX_BETA: f64 = 10.0;
const MAX_ASSASSIN_WEIGHT: f64 = 100.0;

/// A clap parser of a whole number from `lo` to `hi`; clap names the flag in its error.
pub fn whole_in(lo: usize, hi: usize) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(lo as u64..=hi as u64)
}

/// A clap parser of a number in one of the ranges the server checks too
/// ([`query::request::Range`]), its hint as the error (clap names the flag and the value).
fn in_range<T>(
    range: query::request::Range<T>,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy + Send + Sync + 'static,
{
    move |s| {
        s.trim()
            .parse::<T>()
            .ok()
            .and_then(|v| range.check(v).ok())
            .ok_or_else(|| range.hint())
    }
}

/// A clap parser of a finite number from `lo` to `hi`, both included.
fn number_in(lo: f64, hi: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s| match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!("give a number from {lo} to {hi}")),
    }
}

/// A clap parser of a finite number above `lo` and at most `hi`.
fn number_above(lo: f64, hi: f64) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s| match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > lo && x <= hi => Ok(x),
        _ => Err(format!("give a number more than {lo} and at most {hi}")),
    }
}

impl MarginArg {
    /// The margins given; refuses one that is not a score difference.
    fn value(&self) -> Result<Margins> {
        // Each number is in its range (checked as it is parsed).
        let tuned = self.board_beta.is_some()
            || self.board_assassin_weight.is_some()
            || self.board_assassin_beta.is_some();
        let ranking = match self.rank_by.as_deref() {
            Some("safety") if tuned => {
                bail!(
                    "--board-beta, --board-assassin-weight and --board-assassin-beta apply to \
                     --rank-by board"
                )
            }
            Some("safety") => Some(Ranking::Safety),
            _ if tuned || self.rank_by.is_some() => {
                let d = BoardModel::default();
                let model = BoardModel {
                    beta: self.board_beta.unwrap_or(d.beta),
                    assassin_weight: self.board_assassin_weight.unwrap_or(d.assassin_weight),
                    assassin_beta: self.board_assassin_beta.unwrap_or(d.assassin_beta),
                };
                Some(Ranking::Board(model))
            }
            _ => None,
        };
        Ok(Margins {
            opponent: self.opponent_margin,
            neutral: self.neutral_margin,
            assassin: self.assassin_margin,
            ranking,
        })
    }
}

/// A guesser named on the command line: `own`, or `vectors:PATH`.
fn guesser<'k>(spec: &str, k: &'k dyn Knowledge) -> Result<Box<dyn Guesser + 'k>> {
    if spec == "own" {
        return Ok(Box::new(OwnGuesser::new(k)));
    }
    if let Some(path) = spec.strip_prefix("vectors:") {
        if path.is_empty() {
            bail!("--guesser vectors: names no file: give vectors:PATH, a word vectors file");
        }
        let v = WordVectors::load(std::path::Path::new(path))
            .with_context(|| format!("--guesser {}", query::shown(spec)))?;
        return Ok(Box::new(VectorGuesser::new(&vectors_name(path), v)));
    }
    bail!(
        "--guesser {}: give `own` or `vectors:PATH`",
        query::shown(spec)
    )
}

/// A vectors guesser's name in reports and turn records: its file's name up to the first dot
/// (`glove-6B-50d-top100k`).
fn vectors_name(path: &str) -> String {
    let name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.split('.').next().unwrap_or("vectors").to_string()
}

/// Each guesser once by name: the report's rows and the turn records' `picks` are keyed by it,
/// and two guessers of one name (`vectors:a/ok.txt`, `vectors:b/ok.txt`; `own` twice) kept
/// one's picks only. Checked before any file is read.
fn distinct_guessers(specs: &[String]) -> Result<()> {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for spec in specs {
        let name = match spec.strip_prefix("vectors:") {
            Some(path) => vectors_name(path),
            None => spec.clone(),
        };
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            bail!(
                "--guesser {} and --guesser {} are both named {} in the report and the turn \
                 records: give each guesser once, a vectors file under a name of its own",
                query::shown(first),
                query::shown(spec),
                query::shown(&name)
            );
        }
        seen.push((name, spec));
    }
    Ok(())
}

/// A guesser that knows none of the deck's words (a vocabulary in upper case, of another
/// language) never guesses a card: its games would be lost by its file, not by the clues.
fn knows_a_card(g: &dyn Guesser, spec: &str, words: &[String]) -> Result<()> {
    if !words.is_empty() && !words.iter().any(|w| g.knows(w)) {
        bail!(
            "--guesser {} knows none of the {} card words (its vocabulary is read as written: \
             lower-case words, as the cards are)",
            query::shown(spec),
            words.len()
        );
    }
    Ok(())
}

/// `--strategy NAME`, parsed here rather than by clap, whose error would echo a long name whole.
fn strategy_arg(name: &str) -> Result<StrategyKind> {
    name.parse().context("--strategy")
}

/// A word for a line of text: as it is, or by its start and length when it is long.
fn plain(word: &str) -> std::borrow::Cow<'_, str> {
    if word.chars().count() > query::SHOWN_CHARS {
        query::shown(word).into()
    } else {
        word.into()
    }
}

/// The clue typed (`explain CLUE`, `guess --clue`): [`query::request::clue_word`].
fn clue_arg(raw: &str) -> Result<String> {
    Ok(query::request::clue_word(raw)?)
}

pub fn suggest(a: SuggestArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let margins = a.margin.value()?;
    let strategy = strategy_arg(&a.strategy)?
        .with_top(a.top)
        .with_margins(margins);
    let req = Request {
        pos: parse_list(&a.pos),
        neg: parse_list(&a.neg),
        neutral: parse_list(&a.neutral),
        assassin: parse_assassin(a.assassin.as_deref())?,
        given: parse_list(&a.given),
    };
    let store = Store::open(&a.db)?;
    let k = StoreKnowledge::new(&store);
    let opts = answer::Options {
        margins_set: margins,
        ..answer::Options::command_line(strategy)
    };
    let ans = answer::answer(&k, &req, &opts)?;
    if a.json {
        warn(&ans.warnings);
        writeln!(out, "{}", serde_json::to_string(&ans)?)?;
        return Ok(());
    }
    // With no clue, the answer's last warning says why: here it is the answer's line, not
    // said again on stderr.
    let reason = match (&ans.clue, ans.warnings.split_last()) {
        (None, Some((why, rest))) => {
            warn(rest);
            Some(why.as_str())
        }
        _ => {
            warn(&ans.warnings);
            None
        }
    };
    match &ans.clue {
        None => {
            let (head, why) = reason
                .and_then(|r| r.split_once(": "))
                .unwrap_or(("no safe clue", "no candidate clears the margins"));
            writeln!(
                out,
                "{head} for {} (strategy {}): {why}",
                req.pos.join(", "),
                ans.strategy
            )?
        }
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

/// Prints each warning on stderr, as `suggest` does.
fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("clue-db: warning: {w}");
    }
}

pub fn explain(a: ExplainArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let store = Store::open(&a.db)?;
    let clue = clue_arg(&a.clue)?;
    // An empty card is refused, as `/api/explain` refuses it.
    let terms = a
        .terms
        .iter()
        .map(|t| query::request::card_word(t, "TERMS"))
        .collect::<Result<Vec<String>, _>>()?;
    // Per term: the seed-003 evidence (`scores`), the relatedness (a typed word's as a board
    // computes it) and where the two meet; the set network's view (the terms as the subset);
    // the warnings (an unknown term, a clue no clue word, a network that cannot be shown).
    let k = StoreKnowledge::new(&store);
    let query::store_knowledge::Explanation {
        terms: found,
        setnet,
        warnings,
    } = query::store_knowledge::explanation(&k, &clue, &terms)?;
    warn(&warnings);
    if a.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string(
                &serde_json::json!({"clue": clue, "terms": found, "setnet": setnet, "warnings": warnings})
            )?
        )?;
        return Ok(());
    }
    for query::store_knowledge::Explained {
        term: t,
        evidence: e,
        relatedness: r,
        meeting: m,
        definition_raise: raised,
        typed,
        parts,
    } in found
    {
        match e {
            // A long word the database cannot know (warned of above) is cut here too.
            None => writeln!(
                out,
                "{clue} -> {}: no evidence in scores (score 0)",
                plain(&t)
            )?,
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
        match r {
            Some(r) if parts.len() == 1 => writeln!(
                out,
                "    relatedness {:.3} (computed for a word no list named, as {}: cosine {:.3})",
                r.score,
                plain(&parts[0]),
                r.cosine
            )?,
            Some(r) if !parts.is_empty() => writeln!(
                out,
                "    relatedness {:.3} (computed for a card no list named: the mean of the scores of {}; their mean cosine {:.3})",
                r.score,
                plain(&parts.join(" and ")),
                r.cosine
            )?,
            Some(r) if typed => writeln!(
                out,
                "    relatedness {:.3} (computed for a word no list named: cosine {:.3}, {} co-occurrence(s) counted)",
                r.score, r.cosine, r.cooccurrences
            )?,
            Some(r) => writeln!(
                out,
                "    relatedness {:.3} (PPMI {:.3}, cosine {:.3}, {} co-occurrence(s))",
                r.score, r.ppmi, r.cosine, r.cooccurrences
            )?,
            None => {}
        }
        if let Some(x) = raised {
            writeln!(
                out,
                "    of which {x:.3} is the raise by {t}'s dictionary definition, which names {clue}"
            )?;
        }
        if let Some(m) = m {
            writeln!(
                out,
                "    they meet most on page {:?} (id {}, {} time(s))",
                m.page_title, m.page_id, m.meetings
            )?;
            if let Some(x) = m.excerpt {
                writeln!(out, "    \"{x}\"")?;
            }
        }
    }
    if let Some(x) = setnet {
        let dist = |d: Option<f32>| d.map_or("no embedding".to_string(), |d| format!("{d:.3}"));
        let subset: Vec<String> = x
            .subset
            .iter()
            .map(|(w, d)| format!("{} {}", plain(w), dist(*d)))
            .collect();
        writeln!(
            out,
            "setnet: distance from {clue} to the subset's cards (0 to 2; the losses' d): {}",
            subset.join(", ")
        )?;
        let near: Vec<String> = x
            .nearest_cards
            .iter()
            .map(|(w, d)| format!("{w} {d:.3}"))
            .collect();
        writeln!(out, "    nearest card words to {clue}: {}", near.join(", "))?;
    }
    Ok(())
}

pub fn guess(a: GuessArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let store = Store::open(&a.db)?;
    let board = parse_list(&a.board);
    let clue = clue_arg(&a.clue)?;
    let k = StoreKnowledge::new(&store);
    // The server's `/api/guess` asks the same, and prints the same JSON.
    let g = answer::guess(
        &k,
        &answer::Heard {
            clue: &clue,
            count: a.count,
            board: &board,
            floor: a.floor,
        },
        &answer::FLAGS,
        answer::OnUnknown::Warn,
    )?;
    warn(&g.warnings);
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&g)?)?;
    } else if g.guesses.is_empty() {
        writeln!(
            out,
            "no word relates to {} (or scores above {}): pass",
            query::shown(&clue),
            a.floor
        )?;
    } else {
        for g in g.guesses {
            writeln!(out, "{}\t{:.3}", g.word, g.score)?;
        }
    }
    Ok(())
}

pub fn play(a: PlayArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let strategy = strategy_arg(&a.strategy)?.with_margins(a.margin.value()?);
    let store = Store::open(&a.db)?;
    let k = StoreKnowledge::new(&store);
    let guesser = guesser(&a.guesser, &k)?;
    let (_, words) = a.words.deck(&k, std::slice::from_ref(&strategy))?;
    knows_a_card(guesser.as_ref(), &a.guesser, &words)?;
    let deck = game::Deck::new(&k, words)?;
    let g = game::play(
        a.seed,
        &strategy,
        guesser.as_ref(),
        &deck,
        &StoreLexicon::new(&store),
        &PlayParams {
            opponent: a.opponent,
            ..PlayParams::default()
        },
    )?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string(&g)?)?;
        return Ok(());
    }
    writeln!(out, "game seed {} ({}), red plays:", g.seed, g.strategy)?;
    // One column for the roles, as wide as the board's longest word (`swimming pool`).
    let width = g
        .board
        .cards
        .iter()
        .map(|c| c.word.chars().count())
        .max()
        .unwrap_or(0)
        .max(12);
    for c in &g.board.cards {
        writeln!(out, "  {:<width$} {:?}", c.word, c.role)?;
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

/// Said with every evaluation, in text and JSON, by who guessed: our own guesser shares the
/// spymaster's knowledge, so its figures are optimistic; outside guessers' are not (the note
/// said "optimistic" of a run judged by GloVe alone).
fn eval_note(guessers: &[String]) -> &'static str {
    match (
        guessers.iter().any(|g| g == "own"),
        guessers.iter().any(|g| g != "own"),
    ) {
        (true, false) => "our spymaster with our own guesser: optimistic figures",
        (true, true) => {
            "our own guesser's figures are optimistic (it shares our spymaster's knowledge); the \
             outside guessers' are not"
        }
        _ => "judged by guessers trained elsewhere",
    }
}

pub fn eval(a: EvalArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    if let Some(turns) = &a.turns {
        // Before anything is opened: `--turns` onto the database truncated it under its reader.
        let mut inputs = crate::outputs::Inputs::new().database("the database --db", &a.db);
        if let Some(s) = &a.scenarios {
            inputs = inputs.file("--scenarios", s);
        }
        // A player's own pack (a stored list's name is no file here, and is passed over).
        if let Some(w) = &a.words.words {
            inputs = inputs.file("--words", w);
        }
        for g in &a.guesser {
            if let Some(path) = g.strip_prefix("vectors:") {
                inputs = inputs.file(format!("--guesser {g}"), path);
            }
        }
        crate::outputs::refuse_overwriting_inputs("--turns", turns, &inputs)?;
    }
    let margins = a.margin.value()?;
    let store = Store::open(&a.db)?;
    let k = StoreKnowledge::new(&store);
    // A strategy named twice (`relatedness,Relatedness`) plays its games once; an empty entry
    // (`relatedness,`) is skipped, as an empty card of a list is.
    let mut named = std::collections::HashSet::new();
    let kinds: Vec<StrategyKind> = a
        .strategies
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.parse())
        .collect::<Result<Vec<StrategyKind>>>()
        .context("--strategies")?
        .into_iter()
        .filter(|k| named.insert(k.as_str()))
        .map(|k| k.with_margins(margins))
        .collect();
    if kinds.is_empty() {
        bail!(
            "--strategies is empty: give one or more of {}, comma-separated",
            query::strategy::STRATEGIES.join(", ")
        );
    }
    let strategies: Vec<&dyn Strategy> = kinds.iter().map(|k| k as &dyn Strategy).collect();
    // Before the boards, the guessers' vectors and `--turns` are read or written, and before any
    // game: a strategy that cannot run here (setnet without its network) once failed after the
    // others' games, and their results were lost.
    query::strategy::check_ready(&strategies, &k).context("--strategies")?;
    distinct_guessers(&a.guesser)?;
    let guessers = a
        .guesser
        .iter()
        .map(|g| guesser(g, &k))
        .collect::<Result<Vec<_>>>()?;
    let guessers: Vec<&dyn Guesser> = guessers.iter().map(|g| g.as_ref()).collect();
    let lexicon = StoreLexicon::new(&store);
    if let Some(path) = &a.scenarios {
        if a.alternatives > 0 {
            bail!(
                "--alternatives lists the next suggestions of each game turn: with --scenarios, \
                 --turns writes one line per scenario, without alternatives"
            );
        }
        return eval_scenarios(
            path,
            &k,
            &lexicon,
            &strategies,
            &guessers,
            a.turns.as_deref(),
            a.json,
        );
    }
    // Boards only of cards every guesser can guess: a card outside an outside guesser's
    // vocabulary is never guessed, and a board holding it would judge the vocabulary, not the
    // clues (people know the word).
    let (name, words) = a.words.deck(&k, &kinds)?;
    for (g, spec) in guessers.iter().zip(&a.guesser) {
        knows_a_card(*g, spec, &words)?;
    }
    let query::deck::Guessable {
        words,
        left_out: unseen,
        note,
    } = query::deck::guessable(words, &guessers);
    if let Some(note) = note {
        eprintln!("clue-db: note: {note}");
    }
    let deck = game::Deck::new(&k, words).context("the boards' cards")?;
    let cards = deck.card_words()?.len();
    let mut turns_file = JsonLines::create(a.turns.as_deref())?;
    let mut write_turn = |r: &game::TurnRecord| turns_file.write(r);
    let mut progress = Progress::new();
    // Ctrl-C stops the run after the game being played; the reports are of the games played.
    let signal = crate::signals::stop_on_signal()?;
    let mut show = |s: &str, g: &str, done: usize, games: usize| {
        progress.show(s, g, done, games);
        signal.load(std::sync::atomic::Ordering::SeqCst) == 0
    };
    let reports = game::eval_watched(
        a.games,
        a.seed,
        &strategies,
        &guessers,
        &deck,
        &lexicon,
        &PlayParams {
            opponent: a.opponent,
            ..PlayParams::default()
        },
        a.turns.is_some().then_some(game::Turns {
            sink: &mut write_turn as &mut game::TurnSink,
            alternatives: a.alternatives,
        }),
        Some(&mut show as &mut game::Progress),
    );
    drop(progress);
    let reports = reports?;
    turns_file.finish()?;
    // Stopped by a signal: the figures of the games played, said to be so, then the exit
    // status of the signal (128 + its number), as a command a signal ends has. A signal after
    // the last game stopped nothing: the run is whole, and ends as one.
    let asked = a.games * strategies.len() * guessers.len();
    let played: usize = reports.iter().map(|r| r.games).sum();
    let stopped = match signal.load(std::sync::atomic::Ordering::SeqCst) {
        s if s != 0 && played < asked => Some(s),
        _ => None,
    };
    let interrupted = stopped.map(|_| {
        let rows: Vec<String> = reports
            .iter()
            .map(|r| format!("{} with {} {}", r.strategy, r.guesser, r.games))
            .collect();
        format!(
            "interrupted after {played} of {asked} games; each row is of the games it played ({})",
            rows.join(", ")
        )
    });
    if a.json {
        let mut v = serde_json::json!({
            "note": eval_note(&a.guesser),
            "games": a.games,
            "seed": a.seed,
            "strategies": reports,
            "words": serde_json::json!({
                "list": name,
                "cards": cards,
                "left_out": unseen.len(),
            }),
        });
        // What a program reads: the games played and asked for, and the signal's number.
        if let Some(signal) = stopped {
            v["interrupted"] = serde_json::json!({"played": played, "of": asked, "signal": signal});
        }
        writeln!(out, "{}", serde_json::to_string(&v)?)?;
        return exit_if_stopped(stopped, &mut out);
    }
    writeln!(
        out,
        "{} games per strategy, seed {}, boards from {name} ({cards} cards) ({})",
        a.games,
        a.seed,
        eval_note(&a.guesser),
    )?;
    if let Some(i) = &interrupted {
        writeln!(out, "{i}")?;
    }
    writeln!(
        out,
        "{:<12} {:<24} {:>8} {:>9} {:>10} {:>10} {:>10} {:>9} {:>9}",
        "strategy",
        "guesser",
        "win rate",
        "assassin",
        "turns/win",
        "mean turns",
        "mean clue",
        "net/clue",
        "fallback"
    )?;
    for r in &reports {
        writeln!(
            out,
            "{:<12} {:<24} {:>8.3} {:>9.3} {:>10} {:>10.2} {:>10.2} {:>9.3} {:>9.3}",
            r.strategy,
            r.guesser,
            r.win_rate,
            r.assassin_rate,
            // No game won: no turns per win (the JSON's 0.0 is "none").
            if r.win_rate > 0.0 {
                format!("{:.2}", r.turns_per_win)
            } else {
                "-".to_string()
            },
            r.mean_turns,
            r.mean_clue_number,
            r.net_per_clue,
            r.fallback_share()
        )?;
    }
    if reports.iter().any(|r| r.fallbacks > 0) {
        writeln!(
            out,
            "fallback: the share of clues given by the relatedness strategy's fallback when the \
             strategy had none (counted in its row)"
        )?;
    }
    exit_if_stopped(stopped, &mut out)
}

/// After a run a signal stopped (its number, `stopped`) printed what it did: the output
/// flushed, the process ends with 128 + the signal, as the signal's own action would have.
fn exit_if_stopped(stopped: Option<i32>, out: &mut impl Write) -> Result<()> {
    if let Some(signal) = stopped {
        out.flush()?;
        std::process::exit(128 + signal);
    }
    Ok(())
}

/// How far a long `eval` is, as a bar on stderr (indicatif, as `download` shows its files:
/// nothing where stderr is no terminal, a file, a pipe, the tests): first after two seconds,
/// so a short run shows nothing, and cleared when the run ends or fails (its error is then a
/// line of its own).
struct Progress {
    started: std::time::Instant,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            started: std::time::Instant::now(),
            bar: None,
        }
    }

    fn show(&mut self, strategy: &str, guesser: &str, done: usize, games: usize) {
        if self.bar.is_none() && self.started.elapsed().as_secs() < 2 {
            return;
        }
        let message = crate::out::escape(&format!("{strategy} with {guesser}")).into_owned();
        match &self.bar {
            // The name first: a draw between the calls showed the last pair's name with the
            // next pair's count.
            Some(bar) => {
                bar.set_message(message);
                bar.set_length(games as u64);
                bar.set_position(done as u64);
            }
            None => {
                let style = indicatif::ProgressStyle::with_template(
                    "clue-db: eval: {msg}: {pos} of {len} games",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
                self.bar = Some(
                    indicatif::ProgressBar::new(games as u64)
                        .with_style(style)
                        .with_position(done as u64)
                        .with_message(message),
                );
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// An optional file of JSON lines (`eval --turns FILE`): one record a line, errors naming the
/// file; without a path, writing does nothing.
struct JsonLines<'p> {
    out: Option<(std::io::BufWriter<std::fs::File>, &'p std::path::Path)>,
}

impl<'p> JsonLines<'p> {
    fn create(path: Option<&'p std::path::Path>) -> Result<Self> {
        let out = match path {
            Some(p) => Some((
                std::io::BufWriter::new(
                    std::fs::File::create(p)
                        .with_context(|| format!("creating {}", p.display()))?,
                ),
                p,
            )),
            None => None,
        };
        Ok(JsonLines { out })
    }

    /// Each line goes to the buffer whole, in one write: the buffer then reaches the file only
    /// between lines, so a run stopped by Ctrl-C or a kill leaves whole lines (written piece by
    /// piece, its last line was cut wherever the buffer filled).
    fn write(&mut self, record: &impl serde::Serialize) -> Result<()> {
        if let Some((f, p)) = self.out.as_mut() {
            let mut line = serde_json::to_vec(record)?;
            line.push(b'\n');
            f.write_all(&line)
                .with_context(|| format!("writing {}", p.display()))?;
        }
        Ok(())
    }

    /// Flushes the file: a write error at the end is an error too.
    fn finish(self) -> Result<()> {
        if let Some((mut f, p)) = self.out {
            f.flush()
                .with_context(|| format!("writing {}", p.display()))?;
        }
        Ok(())
    }
}

/// `eval --scenarios FILE`: clues people wrote, read by our own knowledge and every guesser, and
/// each strategy's clue on the same boards, followed by every guesser.
#[allow(clippy::too_many_arguments)]
fn eval_scenarios(
    path: &std::path::Path,
    k: &StoreKnowledge,
    lexicon: &StoreLexicon,
    strategies: &[&dyn Strategy],
    guessers: &[&dyn Guesser],
    records: Option<&std::path::Path>,
    json: bool,
) -> Result<()> {
    let mut out = crate::out::stdout();
    let scenarios = query::scenarios::read(path).context("--scenarios")?;
    // People's clues are scored as written, a rule broken or not: said, not silently kept.
    let broken: Vec<String> = scenarios
        .iter()
        .filter_map(|s| {
            s.rule_broken()
                .map(|why| format!("{} {} ({why})", s.id, query::shown(&s.clue)))
        })
        .collect();
    if !broken.is_empty() {
        eprintln!(
            "clue-db: note: {} of the people's clues break a rule the spymasters keep, and are \
             scored as written: {}",
            broken.len(),
            broken.join(", ")
        );
    }
    let own = OwnGuesser::new(k);
    let mut understanding: Vec<&dyn Guesser> = vec![&own];
    understanding.extend(guessers.iter().filter(|g| g.name() != "own"));
    let mut file = JsonLines::create(records)?;
    let mut write = |rec: &query::scenarios::ScenarioRecord| file.write(rec);
    let r = query::scenarios::evaluate(
        &scenarios,
        k,
        lexicon,
        strategies,
        &understanding,
        guessers,
        records
            .is_some()
            .then_some(&mut write as &mut query::scenarios::RecordSink),
    )?;
    file.finish()?;
    if json {
        writeln!(out, "{}", serde_json::to_string(&r)?)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} scenario{} from {}",
        r.scenarios,
        if r.scenarios == 1 { "" } else { "s" },
        path.display()
    )?;
    writeln!(out, "the person's clue: who takes exactly the team's cards")?;
    for (g, s) in &r.understands {
        writeln!(out, "  {g:<24} {:>6.3}  ({} of {})", s.rate(), s.hits, s.of)?;
    }
    writeln!(
        out,
        "our clue on the same board: every team card reached / first pick right / first pick wrong"
    )?;
    for (st, per) in &r.followed {
        let none = r.no_clue.get(st).copied().unwrap_or(0);
        for (g, f) in per {
            writeln!(
                out,
                "  {st:<12} {g:<24} {:>6.3} {:>6.3} {:>6.3}  (no clue {none})",
                f.all_team.rate(),
                f.first_right.rate(),
                f.first_wrong.rate(),
            )?;
        }
    }
    Ok(())
}
