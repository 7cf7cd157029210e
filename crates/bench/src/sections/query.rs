//! Section 3: `suggest` latency on seeded random boards (red's view: 9 / 8 / 7 / 1): in one
//! process (`clue-db bench-suggest`), then one whole `clue-db suggest --json` process per board,
//! and process start-up alone (`clue-db --version`).

use super::{Ctx, STRATEGIES, section};
use crate::parse::BoardLine;
use crate::proc;
use anyhow::{Context, Result};
use latency::Summary;
use std::path::Path;
use std::process::Stdio;

/// Runs of `clue-db --version` for the start-up row.
pub const STARTUPS: usize = 20;

/// The header of the whole-process table.
pub fn header() -> String {
    format!(
        "{:<12} {:>7} {:>10} {:>9} {:>9} {:>9}",
        "strategy", "boards", "median ms", "p95 ms", "max ms", "mean ms"
    )
}

/// A row of the whole-process table; the figures in ms.
pub fn table_row(name: &str, ms: &[f64]) -> Result<String> {
    let s = Summary::of(ms).with_context(|| format!("{name}: nothing was timed"))?;
    Ok(format!("{name:<12} {}", s.row()))
}

/// Times `suggest` on `db`, which `what` names in the section's title (`of both corpora` when
/// the pipeline section built it).
pub fn run(ctx: &Ctx, db: &Path, what: &str) -> Result<()> {
    let s = &ctx.settings;
    section(&format!(
        "3. Query: `suggest` latency on seeded random boards (red's view: 9 / 8 / 7 / 1), database \
         {what}"
    ));
    let mut cmd = ctx.clue_db();
    // Every strategy, the set network's included (issue 24: its p95 over 1,000 boards).
    cmd.args(["bench-suggest", "--boards", &s.boards.to_string()])
        .args(["--strategies", "relatedness,threshold,herfindahl,setnet"])
        .args(["--seed", &s.seed.to_string(), "--db"])
        .arg(db);
    proc::run(&mut cmd, &ctx.tmp("bench-suggest.log"))?;

    // Whole processes: `clue-db suggest --json` once per board, as a user or a bot would call it.
    println!();
    let mut cmd = ctx.clue_db();
    cmd.args([
        "bench-suggest",
        "--print-boards",
        &s.process_boards.to_string(),
    ])
    .args(["--seed", &s.seed.to_string(), "--db"])
    .arg(db);
    let boards = BoardLine::parse_all(&proc::output(&mut cmd, &ctx.tmp("boards.log"))?)?;
    // Process start-up alone, for scale.
    let mut startup = Vec::with_capacity(STARTUPS);
    for _ in 0..STARTUPS {
        let mut cmd = ctx.clue_db();
        cmd.arg("--version").stdout(Stdio::null());
        startup.push(proc::run(&mut cmd, &ctx.tmp("version.log"))?.seconds * 1e3);
    }
    println!(
        "suggest as a whole process: {} boards per strategy (seed {}), `clue-db suggest --json`",
        s.process_boards, s.seed
    );
    println!("{}", header());
    for strategy in STRATEGIES {
        let mut ms = Vec::with_capacity(boards.len());
        for b in &boards {
            let mut cmd = ctx.clue_db();
            cmd.args(["suggest", "--json", "--strategy", strategy])
                .args(["--pos", &b.pos, "--neg", &b.neg, "--neutral", &b.neutral])
                .args(["--assassin", &b.assassin, "--db"])
                .arg(db)
                .stdout(Stdio::null());
            let done = proc::run(&mut cmd, &ctx.tmp("suggest.log")).with_context(|| {
                format!(
                    "clue-db suggest failed on board: {} / {} / {}",
                    b.pos, b.neg, b.assassin
                )
            })?;
            ms.push(done.seconds * 1e3);
        }
        println!("{}", table_row(strategy, &ms)?);
    }
    println!("{}", table_row("(start-up)", &startup)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lines_up() {
        let h = header();
        assert_eq!(
            h,
            "strategy      boards  median ms    p95 ms    max ms   mean ms"
        );
        let r = table_row("relatedness", &[12.0, 14.5, 13.0, 30.25]).unwrap();
        assert_eq!(
            r,
            "relatedness        4     13.000    30.250    30.250    17.438"
        );
        assert_eq!(r.len(), h.len());
        assert!(
            table_row("x", &[])
                .unwrap_err()
                .to_string()
                .contains("x: nothing")
        );
    }
}
