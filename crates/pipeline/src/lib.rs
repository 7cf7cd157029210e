//! The offline pipeline: Wikipedia in, `(clue, term, score)` out, one idempotent stage at a time.
//!
//! Every stage reads what earlier stages stored, empties and rewrites its own tables, and records
//! its parameters, counts and time in `meta` under its own name (`count.pages`, `pagerank.seconds`…).

pub mod chunks;
pub mod clue_pages;
pub mod corpora;
pub mod count;
pub mod dump_run;
pub mod dumps;
pub mod ingest;
pub mod inputs;
pub mod pagerank;
pub mod progress;
pub mod relatedness;
pub mod scores;
pub mod setnet;
pub mod shared;
mod sql_tables;
pub mod term_pages;
pub mod terms;

use anyhow::Result;
/// The relatedness stage's parameters (crate `relate`).
pub use relate::{MinCount, Params as RelateParams, Weighting as RelateWeighting};
use std::time::Instant;
use store::Build;

/// The stages after ingest, in the order `pipeline all` runs them.
pub const STAGES: [&str; 9] = [
    "terms",
    "term_pages",
    "clue_pages",
    "count",
    "chunks",
    "pagerank",
    "scores",
    "relatedness",
    "setnet",
];

/// The stages that read the page text (`page_text`), and those that read the links (`links`):
/// the build inputs a finished `pipeline all` empties unless kept (`store::KeepInputs`).
pub const TEXT_STAGES: [&str; 3] = ["count", "chunks", "relatedness"];
pub const LINK_STAGES: [&str; 3] = ["term_pages", "clue_pages", "pagerank"];

/// Refuses a stage whose input `pipeline all` emptied when it finished the database: run on, it
/// would compute from nothing (no counts, no clue pages, every PageRank equal) and succeed.
fn check_inputs(build: &Build, name: &str) -> Result<()> {
    let needs = [
        (
            TEXT_STAGES,
            store::PAGE_TEXT_KEY,
            "page text (table page_text)",
        ),
        (LINK_STAGES, store::LINKS_KEY, "links (table link_graph)"),
    ];
    for (stages, key, what) in needs {
        if stages.contains(&name) && build.meta(key)?.as_deref() == Some("dropped") {
            anyhow::bail!(
                "it reads the {what}, which this database no longer holds: \
                 `pipeline all` drops it when it finishes; to re-run stages alone, build with \
                 `clue-db pipeline all --corpus … --keep-text --keep-links`"
            );
        }
    }
    Ok(())
}

/// What the stages read from the repository's hand-kept inputs, and their switches.
#[derive(Debug, Clone)]
pub struct Config {
    /// Folder holding `terms.txt`, `term_pages.tsv`, `synonyms.tsv`.
    pub inputs: std::path::PathBuf,
    /// The card words' files, read together (a word in two lists once): empty for
    /// `inputs/terms.txt` alone. `--terms FILE` (another game's list, another language's), or by
    /// default `inputs/terms.txt` and the other editions' lists the data folder has
    /// ([`word_lists`]).
    pub terms: Vec<std::path::PathBuf>,
    /// Keep every neighbour as a clue page, not only the cut (see [`clue_pages`]).
    pub keep_all_neighbours: bool,
    /// The relatedness measure's parameters (see [`relatedness`]).
    pub relate: relate::Params,
    /// How many times each corpus's text counts in what the relatedness stage learns.
    pub text_weights: corpora::TextWeights,
    /// The set network's training parameters (see [`setnet`](mod@setnet)).
    pub setnet: ::setnet::Params,
}

/// The word lists of other Codenames editions in `folder` (`../shared/data/word-lists`: Duet,
/// Deep Undercover), sorted, when it exists: the cards players bring, which a default build
/// stores rows for beside `terms.txt`. None when the folder is absent (a bare clone): its words
/// are then answered from the stored vectors like any typed word.
pub fn word_lists(folder: &std::path::Path) -> anyhow::Result<Vec<std::path::PathBuf>> {
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in
        std::fs::read_dir(folder).map_err(|e| anyhow::anyhow!("{}: {e}", folder.display()))?
    {
        let path = entry
            .map_err(|e| anyhow::anyhow!("{}: {e}", folder.display()))?
            .path();
        if path.extension().is_some_and(|x| x == "txt") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// The word lists players bring, by name: the cards of a Codenames edition.
pub const WORD_LISTS: [&str; 3] = ["codenames", "duet", "deep-undercover"];

/// The file of the list `name` ([`WORD_LISTS`]): `codenames` is `inputs/terms.txt`, the other
/// editions are in `data/word-lists/`; any other name is a path.
pub fn word_list_file(
    name: &str,
    inputs: &std::path::Path,
    data: &std::path::Path,
) -> std::path::PathBuf {
    match name {
        "codenames" => inputs.join("terms.txt"),
        "duet" | "deep-undercover" => data.join("word-lists").join(format!("{name}.txt")),
        path => std::path::PathBuf::from(path),
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            inputs: "pipeline".into(),
            terms: Vec::new(),
            keep_all_neighbours: false,
            relate: relate::Params::default(),
            text_weights: corpora::TextWeights::default(),
            setnet: ::setnet::Params::default(),
        }
    }
}

/// Runs one named stage on an open build and records its time in `meta`.
pub fn run_stage(build: &Build, name: &str, config: &Config) -> Result<()> {
    let start = Instant::now();
    check_inputs(build, name)?;
    match name {
        "terms" => terms::run(build, config)?,
        "term_pages" => term_pages::run(build, config)?,
        "clue_pages" => clue_pages::run(build, config)?,
        "count" => count::run(build)?,
        "chunks" => chunks::run(build)?,
        "pagerank" => pagerank::run(build, &pagerank::Params::default())?,
        "scores" => scores::run(build)?,
        "relatedness" => relatedness::run(build, &config.relate, &config.text_weights)?,
        "setnet" => setnet::run(build, &config.setnet)?,
        other => anyhow::bail!(
            "unknown stage {other:?}; stages are: ingest, {}",
            STAGES.join(", ")
        ),
    }
    build.set_meta(
        &format!("{name}.seconds"),
        &format!("{:.3}", start.elapsed().as_secs_f64()),
    )?;
    Ok(())
}

/// The `meta` key holding the build's language (an ISO 639-1 code; absent means English, as in
/// databases built before languages).
pub const LANGUAGE_KEY: &str = "language";

/// The language of the build: which stemmer and stopwords the stages use, and whether the
/// English-only parts run (see `db/README.md`, "Languages").
pub fn language(build: &Build) -> Result<text::Language> {
    match build.meta(LANGUAGE_KEY)? {
        None => Ok(text::Language::english()),
        Some(code) => Ok(text::Language::from_code(&code)
            .map_err(|e| anyhow::anyhow!("meta `{LANGUAGE_KEY}` of the database: {e}"))?),
    }
}

/// Records the build's language, refusing to change it: stages re-run alone must agree with
/// those that ran before.
pub fn set_language(build: &Build, language: text::Language) -> Result<()> {
    let current = build.meta(LANGUAGE_KEY)?;
    if let Some(code) = current.filter(|c| c != language.code()) {
        anyhow::bail!(
            "the database was built for language {code:?}, not {:?}: rebuild it (with --corpus) \
             to change its language",
            language.code()
        );
    }
    build.set_meta(LANGUAGE_KEY, language.code())
}

/// Records a stage's figures in `meta` as `stage.key`.
pub(crate) fn record(build: &Build, stage: &str, pairs: &[(&str, String)]) -> Result<()> {
    for (k, v) in pairs {
        build.set_meta(&format!("{stage}.{k}"), v)?;
    }
    Ok(())
}
