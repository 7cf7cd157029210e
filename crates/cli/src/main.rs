//! `clue-db`: the command line. Thin on purpose: parses, calls `pipeline` or `query`, prints.

mod bench;
mod commands;
mod download_command;
mod out;
mod outputs;
mod query_commands;
mod serve_command;
mod signals;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Plays the spymaster in Codenames from knowledge derived from Wikipedia.
///
/// Build the database once (`make pipeline`, or `clue-db pipeline all --corpus wikispeedia`),
/// then ask for clues: `clue-db suggest --pos apple,water --neg fire,ice --assassin death`.
#[derive(Parser)]
#[command(name = "clue-db", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fetch and verify one run of a wiki's dumps: its article text and link tables.
    ///
    /// Fetches, for one dated run of one wiki on the Wikimedia dumps site (or a mirror), the
    /// seven files clue-db reads: WIKI-DATE-pages-articles-multistream.xml.bz2 and its
    /// -index.txt.bz2, and the SQL tables page, redirect, pagelinks, linktarget and page_props
    /// (.sql.gz). They land in DIR/WIKI/DATE/ under their dump names; the last line printed on
    /// stdout is that folder.
    ///
    /// Each file is checked against the run's published WIKI-DATE-sha1sums.txt while it
    /// streams. It is written as NAME.part and renamed only once its SHA-1 is right; a wrong one
    /// is moved to NAME.bad and the command fails. A NAME.part left by a cut connection or
    /// Ctrl-C is resumed (HTTP Range) by running the command again.
    ///
    /// When all seven files are verified, DIR/WIKI/DATE/VERIFIED lists them (`SHA1  NAME`); a run
    /// folder without it is incomplete. A re-run trusts, without reading it, a file that
    /// VERIFIED lists with the SHA-1 the run publishes and whose size is the published one, so
    /// it costs a few small requests.
    ///
    /// One download writes a run folder at a time (it locks DIR/WIKI/DATE.lock; a second fails
    /// at once). Each file checked is recorded in DIR/WIKI/DATE/CHECKED; when the mirror later
    /// publishes another SHA-1 for a file already checked, the command fails, naming it, and
    /// keeps the file (and VERIFIED): delete it, or use another --dir, to download it anew.
    ///
    /// A mirror cannot make it unbounded: a file stops at the size dumpstatus.json publishes
    /// (64 GiB when none is), and at --file-deadline; a connection slower than --speed-limit is
    /// dropped and resumed; redirects are followed 5 times at most, within the mirror's scheme,
    /// host and port; `latest` reads the status of the 10 newest runs of the listing at most.
    /// Mirror text (job statuses, messages) is printed with control characters escaped.
    ///
    /// Example: `clue-db download --wiki simplewiki` (a few hundred MB), then the pipeline on
    /// dumps/simplewiki/DATE/.
    Download(download_command::DownloadArgs),
    /// Read one Wikipedia source into a new database (pages, redirects, links, text).
    Ingest(commands::IngestArgs),
    /// Run pipeline stages on a database: one stage by name, or `all`.
    Pipeline(commands::PipelineArgs),
    /// Read a source without storing it and print pages/s and MB/s (a benchmark of the readers).
    Read(commands::ReadArgs),
    /// Suggest a clue and its number for a board.
    Suggest(query_commands::SuggestArgs),
    /// Show the evidence behind a clue's score with each term.
    Explain(query_commands::ExplainArgs),
    /// Guess: rank the unrevealed words for a clue, stopping under a confidence floor.
    Guess(query_commands::GuessArgs),
    /// Play one seeded game (our spymaster and our guesser against a simple opponent), turn by turn.
    Play(query_commands::PlayArgs),
    /// Play many seeded games per strategy and report win rate, turns, assassin rate, clue numbers.
    Eval(query_commands::EvalArgs),
    /// Serve the web app (play and assist modes) and its JSON API on 127.0.0.1.
    Serve(serve_command::ServeArgs),
    /// Show a database's `meta` table: schema version, source, counts, timings.
    Info {
        /// The database.
        #[arg(long, default_value = commands::DEFAULT_DB)]
        db: PathBuf,
    },
    /// Benchmark: `suggest` latency in one process on seeded random boards (`make bench`).
    #[command(hide = true)]
    BenchSuggest(bench::BenchSuggestArgs),
}

/// mimalloc, not glibc's malloc: a board's first reads keep 64 KB rows, which glibc gave fresh
/// pages each (16 page faults a row, the p95 of a process's first boards: docs/evaluation.md
/// part 11); the pipeline is faster with it and peaks lower.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Every option's value may look like a negative number (`--floor -0.5`, `--top -1`), so that it
/// reaches the option's own check, which names the option and its range, rather than clap's
/// "unexpected argument '-1' found", which names neither.
fn negative_numbers(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        let takes = a.get_action().takes_values();
        a.allow_negative_numbers(takes)
    })
    .mut_subcommands(negative_numbers)
}

fn main() -> ExitCode {
    let matches = negative_numbers(Cli::command()).get_matches();
    // The database of the command, if it takes one, to name it in storage errors.
    let db: Option<PathBuf> = matches
        .subcommand()
        .and_then(|(_, m)| m.try_get_one::<PathBuf>("db").ok().flatten().cloned());
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Download(a) => download_command::download(a),
        Command::Ingest(a) => commands::ingest(a),
        Command::Pipeline(a) => commands::pipeline(a),
        Command::Read(a) => commands::read(a),
        Command::Suggest(a) => query_commands::suggest(a),
        Command::Explain(a) => query_commands::explain(a),
        Command::Guess(a) => query_commands::guess(a),
        Command::Play(a) => query_commands::play(a),
        Command::Eval(a) => query_commands::eval(a),
        Command::Serve(a) => serve_command::serve(a),
        Command::Info { db } => commands::info(&db),
        Command::BenchSuggest(a) => bench::suggest(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of our output has gone (`clue-db eval | head -1`): it wanted no more.
        Err(e) if out::is_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let e = match &db {
                Some(db) => store::name_database(e, db),
                None => e,
            };
            eprintln!("clue-db: error: {}", out::escape(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Cli, negative_numbers};
    use clap::CommandFactory;

    /// A negative number given to an option is refused by the option's own check, which names
    /// it, in every subcommand; a flag that takes no value is left as it was.
    #[test]
    fn a_negative_number_is_refused_naming_its_option() {
        let cmd = negative_numbers(Cli::command());
        cmd.clone().debug_assert();
        for (args, named) in [
            (
                &["guess", "--clue", "fruit", "--floor", "-0.5"][..],
                "--floor",
            ),
            (&["suggest", "--pos", "apple", "--top", "-1"], "--top"),
            (&["eval", "--games", "-3"], "--games"),
            (&["play", "--seed", "-1"], "--seed"),
            (&["serve", "--port", "-1"], "--port"),
        ] {
            let e = cmd
                .clone()
                .try_get_matches_from(std::iter::once("clue-db").chain(args.iter().copied()))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!(
                    "invalid value '{}' for '{named}",
                    args[args.len() - 1]
                )),
                "{args:?}: {e}"
            );
        }
        // Without the setting clap took the number for an option and named neither.
        let e = Cli::command()
            .try_get_matches_from(["clue-db", "suggest", "--pos", "apple", "--top", "-1"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unexpected argument '-1'"), "{e}");
        // A flag that takes no value is untouched: `-1` after it is still an error.
        let e = cmd
            .clone()
            .try_get_matches_from(["clue-db", "suggest", "--pos", "apple", "--json", "-1"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("unexpected argument '-1'"), "{e}");
    }
}
