//! `clue-db bench-suggest`: the latency of `suggest` inside one process, for `make bench`.
//!
//! The database is opened and the covered terms are read once; each seeded random board is then
//! answered by the very function `suggest` calls ([`answer`]), with `suggest`'s default `--top`,
//! so the figures are the cost of one query without process start-up. `--print-boards` prints
//! the same boards so `make bench` (`crates/bench`) can time whole `clue-db suggest` processes on
//! them.
//! `--answers` prints what each strategy answers instead, so that two databases (before and after
//! a change of layout) can be shown to give the same clues with `diff`.

use anyhow::{Context, Result, bail};
use clap::Args;
use query::Knowledge;
use query::game::{Board, Request, Role, Strategy, StrategyKind, game_seed};
use query::store_knowledge::StoreKnowledge;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use store::Store;

use crate::commands::DEFAULT_DB;
use crate::query_commands::whole_in;
use query::answer::{Options, answer};

/// `suggest`'s default `--top`: the benchmark asks for as many suggestions as a user does.
const TOP: usize = 5;

#[derive(Args)]
pub struct BenchSuggestArgs {
    /// Random boards per strategy (red's view of a fresh 9/8/7/1 board), 1 to 1000000.
    #[arg(long, default_value_t = 1000, value_parser = whole_in(1, 1_000_000))]
    boards: usize,
    /// Seed of the boards (board `i` uses the seed `eval` would give game `i`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Strategies to time, comma-separated.
    #[arg(long, default_value = "relatedness,threshold,herfindahl")]
    strategies: String,
    /// Print N boards instead, one per line: `pos<TAB>neg<TAB>assassin<TAB>neutral`, words
    /// comma-separated (the arguments of `clue-db suggest`). 1 to 1000000.
    #[arg(long, value_name = "N", value_parser = whole_in(1, 1_000_000))]
    print_boards: Option<usize>,
    /// Print every strategy's answers instead of timing them, one line per board and strategy:
    /// `seed<TAB>strategy<TAB>clue:count:targets:score …` (the `--top` suggestions, best first),
    /// for the boards `Board::random` draws from the card words with the seeds 1 to `--boards`
    /// (`--seed` is not used). Two databases give the same answers when the outputs are equal.
    #[arg(long, conflicts_with = "print_boards")]
    answers: bool,
    /// Boards of typed words instead: drawn from the most frequent clue words with no stored
    /// row (the first N of them, by occurrences), each board's rows computed anew from the
    /// stored vectors (the rows of earlier boards are forgotten), as a user typing words no
    /// list names would meet them.
    #[arg(long, value_name = "N", conflicts_with = "answers")]
    typed: Option<usize>,
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

/// The `n` most frequent clue words with no stored row, the words of `--typed` boards.
fn typed_words(k: &StoreKnowledge, n: usize) -> Result<Vec<String>> {
    if !k.any_word()? {
        bail!("--typed: this database keeps no clue vectors, so no word but its cards can be one");
    }
    let stored: std::collections::HashSet<String> = k.card_words()?.into_iter().collect();
    let clues = k.clue_words()?;
    let mut order: Vec<usize> = (0..clues.len())
        .filter(|&i| !stored.contains(&clues.words[i]))
        .collect();
    order.sort_by(|&a, &b| clues.counts[b].cmp(&clues.counts[a]).then(a.cmp(&b)));
    order.truncate(n);
    if order.len() < 25 {
        bail!("--typed {n}: {} words, a board needs 25", order.len());
    }
    Ok(order.into_iter().map(|i| clues.words[i].clone()).collect())
}

/// `n` seeded boards over `terms`, as red's spymaster sees them.
pub fn boards(terms: &[String], n: usize, seed: u64) -> Result<Vec<Request>> {
    (0..n)
        .map(|i| {
            Board::random(terms, game_seed(seed, i))
                .map(|b| b.request_for(Role::Red))
                .with_context(|| format!("board {i} (seed {seed})"))
        })
        .collect()
}

/// One board as a line of `pos<TAB>neg<TAB>assassin<TAB>neutral`; refuses words that would
/// break the line.
pub fn board_line(req: &Request) -> Result<String> {
    for w in req.board_words() {
        if w.contains([',', '\t', '\n']) {
            bail!("card word {w:?} holds a comma, tab or newline: cannot print it as a board line");
        }
    }
    Ok(format!(
        "{}\t{}\t{}\t{}",
        req.pos.join(","),
        req.neg.join(","),
        req.assassin.as_deref().unwrap_or(""),
        req.neutral.join(",")
    ))
}

pub fn suggest(a: BenchSuggestArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let store = Store::open(&a.db)?;
    let cache = std::sync::Arc::new(query::store_knowledge::KnowledgeCache::default());
    let k = StoreKnowledge::with_cache(&store, cache.clone());
    let terms = match a.typed {
        Some(n) => typed_words(&k, n)?,
        None => k.card_words()?,
    };
    if let Some(n) = a.print_boards {
        for req in boards(&terms, n, a.seed)? {
            writeln!(out, "{}", board_line(&req)?)?;
        }
        return Ok(());
    }
    let kinds: Vec<StrategyKind> = a
        .strategies
        .split(',')
        .map(|s| s.trim().parse())
        .collect::<Result<_>>()
        .context("--strategies")?;
    if a.answers {
        return answers(&mut out, &k, &terms, a.boards, &kinds);
    }
    let reqs = boards(&terms, a.boards, a.seed)?;
    writeln!(
        out,
        "suggest in one process: {} boards per strategy (seed {}{}), --top {TOP}, {}",
        reqs.len(),
        a.seed,
        match a.typed {
            Some(n) => format!(", typed words: {n} most frequent clue words with no stored row"),
            None => String::new(),
        },
        a.db.display()
    )?;
    writeln!(
        out,
        "{:<12} {:>7} {:>10} {:>9} {:>9} {:>9} {:>8}",
        "strategy", "boards", "median ms", "p95 ms", "max ms", "mean ms", "no clue"
    )?;
    for kind in kinds {
        let strategy = kind.with_top(TOP);
        let mut ms = Vec::with_capacity(reqs.len());
        let mut no_clue = 0usize;
        for (i, req) in reqs.iter().enumerate() {
            if a.typed.is_some() {
                cache.forget_rows();
            }
            let start = Instant::now();
            let ans = answer(&k, req, &Options::command_line(strategy))
                .with_context(|| format!("board {i}: {}", board_line(req).unwrap_or_default()))?;
            ms.push(start.elapsed().as_secs_f64() * 1e3);
            no_clue += usize::from(ans.clue.is_none());
        }
        let Some(l) = latency::Summary::of(&ms) else {
            bail!("no board was timed");
        };
        writeln!(out, "{:<12} {} {:>8}", kind.name(), l.row(), no_clue)?;
    }
    Ok(())
}

/// One line of `--answers`: the board's seed, the strategy, and its suggestions as
/// `clue:count:targets:score` (targets joined by `+`, the score to 6 decimals), best first.
pub fn answer_line(seed: u64, strategy: &str, ans: &query::request::Answer) -> String {
    let best = ans.clue.as_ref().map(|clue| query::request::Suggestion {
        clue: clue.clone(),
        count: ans.count,
        targets: ans.targets.clone(),
        score: ans.score,
        safety: None,
        level: None,
    });
    let all: Vec<String> = best
        .iter()
        .chain(&ans.alternatives)
        .map(|s| {
            format!(
                "{}:{}:{}:{:.6}",
                s.clue,
                s.count,
                s.targets.join("+"),
                s.score
            )
        })
        .collect();
    format!("{seed}\t{strategy}\t{}", all.join(" "))
}

/// `--answers`: every strategy's answer on the boards seeded 1 to `n`.
fn answers(
    out: &mut impl Write,
    k: &StoreKnowledge,
    terms: &[String],
    n: usize,
    kinds: &[StrategyKind],
) -> Result<()> {
    for seed in 1..=n as u64 {
        let req = Board::random(terms, seed)
            .with_context(|| format!("board of seed {seed}"))?
            .request_for(Role::Red);
        for kind in kinds {
            let ans =
                answer(k, &req, &Options::command_line(kind.with_top(TOP))).with_context(|| {
                    format!(
                        "board of seed {seed}: {}",
                        board_line(&req).unwrap_or_default()
                    )
                })?;
            writeln!(out, "{}", answer_line(seed, kind.name(), &ans))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_are_seeded_full_and_printable() {
        let terms: Vec<String> = (0..40).map(|i| format!("w{i:02}")).collect();
        let a = boards(&terms, 3, 7).unwrap();
        assert_eq!(a, boards(&terms, 3, 7).unwrap());
        assert_ne!(a[0], a[1]);
        for r in &a {
            assert_eq!((r.pos.len(), r.neg.len(), r.neutral.len()), (9, 8, 7));
            let mut all = r.board_words();
            all.sort();
            all.dedup();
            assert_eq!(all.len(), 25);
        }
        let line = board_line(&a[0]).unwrap();
        let fields: Vec<&str> = line.split('\t').collect();
        // pos, neg, assassin, neutral (bystanders apart since the relatedness strategy).
        assert_eq!(fields.len(), 4);
        assert_eq!(fields[0].split(',').count(), 9);
        assert_eq!(fields[1].split(',').count(), 8);
        assert_eq!(Some(fields[2]), a[0].assassin.as_deref());
        assert_eq!(fields[3].split(',').count(), 7);
        // Too few terms for a board is an error naming the board, not a panic.
        let err = boards(&terms[..24], 1, 7).unwrap_err();
        assert!(
            format!("{err:#}").starts_with("board 0 (seed 7)"),
            "{err:#}"
        );
        let bad = Request {
            pos: vec!["a,b".into()],
            ..Request::default()
        };
        assert!(board_line(&bad).is_err());
    }

    #[test]
    fn an_answer_line_lists_every_suggestion_best_first() {
        let s = |clue: &str, targets: &[&str], score| query::request::Suggestion {
            clue: clue.into(),
            count: targets.len(),
            targets: targets.iter().map(|t| t.to_string()).collect(),
            score,
            safety: None,
            level: None,
        };
        let ans = query::request::Answer::new(
            "relatedness",
            vec![
                s("fruit", &["apple", "lemon"], 2.5),
                s("tree", &["apple"], 1.0),
            ],
        );
        assert_eq!(
            answer_line(7, "relatedness", &ans),
            "7\trelatedness\tfruit:2:apple+lemon:2.500000 tree:1:apple:1.000000"
        );
        let none = query::request::Answer::new("threshold", vec![]);
        assert_eq!(answer_line(8, "threshold", &none), "8\tthreshold\t");
    }
}
