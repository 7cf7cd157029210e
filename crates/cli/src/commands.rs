//! One function per subcommand.

use anyhow::{Context, Result, bail};
use clap::Args;
use pipeline::ingest::{Format, Request};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use store::{Build, Store};

pub const DEFAULT_DB: &str = "db/clues.sqlite";

#[derive(Args)]
pub struct IngestArgs {
    /// The source's format.
    #[arg(long, value_enum)]
    format: Format,
    /// Input files or folders: a folder stands for the files under it, walked in sorted order,
    /// hidden ones skipped (WikiExtractor: its `AA/wiki_00 …` tree; SQL: the dump files;
    /// Wikispeedia: its folder; dump-run: the files, or the run folder, read through VERIFIED).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The multistream index (`…-multistream-index.txt.bz2`), with `--format multistream`.
    #[arg(long)]
    index: Option<PathBuf>,
    /// Wikispeedia: leave out the six SOS Children's site pages (Donation, Wowpurchase, …).
    #[arg(long)]
    skip_site_pages: bool,
    /// API: page ids to fetch, comma-separated.
    #[arg(long, value_delimiter = ',')]
    page_ids: Vec<u64>,
    /// API: add to the database at --db instead of starting a new one, skipping the pages it
    /// already holds: how a failed or interrupted fetch goes on. (A failed fetch saves what it
    /// stored when it adds to a database, or when there was none.)
    #[arg(long)]
    resume: bool,
    /// API: the User-Agent sent with every request. Wikimedia asks for one naming the tool and
    /// a way to reach you: `clue-db/0.1 (you@example.org)`.
    #[arg(long)]
    user_agent: Option<String>,
    /// API: requests in flight at once (Wikimedia asks for few).
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// API: milliseconds before the first retry (doubled for each further one); for tests.
    #[arg(long, hide = true)]
    api_backoff_ms: Option<u64>,
    /// API: most `continue` rounds followed for one query before the fetch fails (a server
    /// sending a new token every time would otherwise be followed forever).
    #[arg(long, default_value_t = wiki::limits::MAX_CONTINUATIONS)]
    api_max_continue: usize,
    /// API: most response bytes read over the `continue` rounds of one query, and most bytes
    /// its pages hold in memory, before the fetch fails (each response and the rounds capped,
    /// a server could still pile up gigabytes).
    #[arg(long, default_value_t = wiki::limits::MAX_QUERY_BYTES)]
    api_max_query_bytes: u64,
    /// Also write the links as rows of table `links` (src, dst page ids), for tools that read
    /// them with SQL; the stages read the link graph (table `link_graph`) either way.
    #[arg(long)]
    keep_links: bool,
    /// The database to write; replaced only if the ingest succeeds.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
    /// Replace --db even when it is not a clue-db database (another program's SQLite file, any
    /// other file); without it such a file is refused, so that a mistyped path loses nothing.
    #[arg(long)]
    overwrite: bool,
}

#[derive(Args)]
pub struct PipelineArgs {
    /// `all`, `ingest` (with --corpus), or one stage, in the order `all` runs them: terms,
    /// term_pages, clue_pages, count, chunks, pagerank, scores, relatedness, setnet.
    stage: String,
    /// With `all` or `ingest`: build from these corpora instead of updating --db: the offline
    /// ones of the data folder (wikispeedia, enwiki-sample, enwiki-2015-wikiextractor,
    /// enwiki-2019-wikiextractor, simplewiki-2017-wikiextractor), a wiki downloaded into --dumps
    /// (`simplewiki`, `dewiki`: its newest verified run), or a run folder's path; several joined
    /// by commas (`make pipeline` builds the four offline corpora of text, Wikispeedia first). A page whose title an earlier corpus already stored is left
    /// out: the first corpus named wins.
    #[arg(long)]
    corpus: Option<String>,
    /// The shared data folder holding the offline corpora.
    #[arg(long, default_value = "../shared/data")]
    data: PathBuf,
    /// The folder `clue-db download` fills (`DUMPS/WIKI/DATE/`, with `VERIFIED`), where a
    /// corpus named after a wiki is looked up.
    #[arg(long, default_value = "dumps")]
    dumps: PathBuf,
    /// The corpus language (ISO 639-1: en, de, fr, …), when not the one its wiki's name says
    /// (`dewiki` → de; the offline corpora are English). Selects the stemmer and stopwords; see
    /// db/README.md for what is English-only.
    #[arg(long)]
    lang: Option<String>,
    /// The folder of hand-kept inputs (terms.txt, term_pages.tsv, synonyms.tsv).
    #[arg(long, default_value = "pipeline")]
    inputs: PathBuf,
    /// The card words, one per line; repeat it for several lists (a word in two lists is
    /// stored once) [default: INPUTS/terms.txt, the 400 cards of the original English game, and
    /// the other editions' lists of DATA/word-lists (Codenames Duet, Deep Undercover) when that
    /// folder exists]. Every other word the corpus knows well enough can be a card too, answered
    /// from the stored vectors; listed words get stored rows (quicker, and their evidence).
    #[arg(long)]
    terms: Vec<PathBuf>,
    /// Keep every neighbour of a term page as a clue page, not only the cut.
    #[arg(long)]
    keep_all_neighbours: bool,
    /// With `all`: keep the page text (table `page_text`) in the finished database. Only the
    /// stages read it (answers and `explain` do not) and it is half the file, so `pipeline all`
    /// drops it when it finishes; keep it to re-run stages alone, or for tools that read it.
    #[arg(long)]
    keep_text: bool,
    /// With `all`: keep the links between pages (the graph, table `link_graph`, which only the
    /// stages read: term pages, clue pages, PageRank; and the same as rows of table `links`,
    /// written only with this flag); the graph is dropped when `pipeline all` finishes otherwise.
    #[arg(long)]
    keep_links: bool,
    /// With --corpus: replace --db even when it is not a clue-db database (another program's
    /// SQLite file, any other file); without it such a file is refused.
    #[arg(long)]
    overwrite: bool,
    /// relatedness: how many times a corpus's text counts in what the stage learns, as NAME=N
    /// (N from 1 to 8; repeat the flag for several corpora) [default:
    /// simplewiki-2017-wikiextractor=2, Simple English Wikipedia's everyday words counted
    /// twice beside other corpora; every other corpus 1, a downloaded simplewiki too, and any
    /// corpus built alone]. NAME is the corpus as
    /// --corpus named it (a run folder's path for one); the last weight given for a name wins.
    /// Its co-occurrence counts, its meetings and the skip-gram's sentences are multiplied; the
    /// vocabulary's counts (which words are clue words) are not. Like the other relatedness
    /// flags, give it again when the stage runs again. The value used is in `meta`,
    /// relatedness.text_weights.
    #[arg(long = "text-weight", value_name = "NAME=N", value_parser = parse_text_weight)]
    text_weights: Vec<(String, u32)>,
    /// relatedness: content words on each side of a word that count as meeting it.
    #[arg(long, default_value_t = pipeline::RelateParams::default().window)]
    window: usize,
    /// relatedness: count every meeting in the window as 1, not by distance (nearer meetings
    /// weigh more by default: `window + 1 − d` for words `d` apart).
    #[arg(long)]
    flat_window: bool,
    /// relatedness: occurrences a word needs to be a clue word [default: 5.11 per million
    /// content tokens of the corpus, rounded, at least 200 (277 for the four offline corpora of
    /// `make pipeline`, 200 for Wikispeedia alone); the value used is in `meta`,
    /// relatedness.min_count].
    #[arg(long)]
    min_count: Option<u64>,
    /// relatedness: the largest share of all pages a clue word may occur on.
    #[arg(long, default_value_t = pipeline::RelateParams::default().max_page_share)]
    max_page_share: f64,
    /// relatedness: context-distribution smoothing of PPMI, the exponent of the contexts'
    /// counts (1: none; 0.75 gives rare contexts less weight).
    #[arg(long, default_value_t = pipeline::RelateParams::default().alpha)]
    alpha: f64,
    /// relatedness: dimensions of the SVD word vectors, the text's and the dictionary's (more
    /// keep more of what is particular to a word; the SVDs take longer).
    #[arg(long, default_value_t = pipeline::RelateParams::default().dims)]
    dims: usize,
    /// relatedness: exponent of the singular values in the word vectors.
    #[arg(long, default_value_t = pipeline::RelateParams::default().sigma_power)]
    sigma_power: f32,
    /// relatedness: weight of first-order PPMI in the score (the SVD cosine has the rest).
    #[arg(long, default_value_t = pipeline::RelateParams::default().ppmi_weight)]
    ppmi_weight: f32,
    /// relatedness: weight of how often card and clue meet, `z(ln(1 + meetings·f))`, added to
    /// the score (then standardised again).
    #[arg(long, default_value_t = pipeline::RelateParams::default().meeting_weight)]
    meeting_weight: f32,
    /// relatedness: each meeting of a card word seen `c` times counts `f = (m / c)^p`, `m` the
    /// median card word's occurrences: a card word that is everywhere meets every clue often
    /// for that alone (0: the plain meetings).
    #[arg(long, default_value_t = pipeline::RelateParams::default().meeting_card_power)]
    meeting_card_power: f32,
    /// relatedness: the share of the second view, skip-gram (word2vec) vectors trained on the
    /// same sentences, among the text's two, each view's cosines in their own standard
    /// deviations: `(1 − w)·z(cos_svd) + w·z(cos_skipgram)` (0: the SVD alone, a quicker build).
    #[arg(long, default_value_t = pipeline::RelateParams::default().skip_gram_weight)]
    skip_gram_weight: f32,
    /// relatedness: the share of the dictionary view, vectors from what WordNet says each word
    /// means, beside the text's, in standard deviations of its cosines: `(1 − w)·text +
    /// w·z(cos_dictionary)` (0: the text alone; English builds only).
    #[arg(long, default_value_t = pipeline::RelateParams::default().dictionary_weight)]
    dictionary_weight: f32,
    /// relatedness: how far, in standard deviations of the score, a card word's score with each
    /// word its WordNet definition uses is raised, times the share of its senses that use it
    /// (`snowman` → snow; 0: not at all; English builds with the dictionary view only).
    #[arg(long, default_value_t = pipeline::RelateParams::default().definition_weight)]
    definition_weight: f32,
    /// setnet: the seed of the games mined and of the initial weights (the same seed, the same
    /// weights).
    #[arg(long, default_value_t = setnet::Params::default().seed)]
    setnet_seed: u64,
    /// setnet: the most training steps (32 games each; 4 per card word on a smaller deck).
    #[arg(long, default_value_t = setnet::Params::default().steps)]
    setnet_steps: usize,
    /// The database; replaced only if every requested stage succeeds.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct ReadArgs {
    /// The source's format.
    #[arg(long, value_enum)]
    format: Format,
    /// Input files or folders, as `ingest` takes them (a folder stands for the files under it,
    /// in sorted order).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The multistream index (`…-multistream-index.txt.bz2`), with `--format multistream`.
    #[arg(long)]
    index: Option<PathBuf>,
}

fn request(
    format: Format,
    paths: Vec<PathBuf>,
    index: Option<PathBuf>,
    skip_site_pages: bool,
) -> Request {
    Request {
        index,
        skip_site_pages,
        ..Request::files(format, paths)
    }
}

/// A flag that the first Ctrl-C (or SIGTERM, SIGHUP) sets, so that a long API fetch stops and
/// saves what it stored, as a failed fetch does; a second signal quits at once, deleting the
/// build's temporary file.
fn stop_on_signal() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    crate::signals::abandon_builds_on_signal(move || {
        if set.swap(true, Ordering::SeqCst) {
            return false;
        }
        eprintln!(
            "interrupted: stopping the fetch and saving what it stored (again to quit at once)"
        );
        true
    })?;
    Ok(flag)
}

pub fn ingest(a: IngestArgs) -> Result<()> {
    check_ingest_options(&a)?;
    // The database is renamed over its path: never over a dump it is built from.
    let mut inputs = crate::outputs::Inputs::new();
    for p in &a.paths {
        inputs = inputs.file("the input", p);
    }
    if let Some(index) = &a.index {
        inputs = inputs.file("--index", index);
    }
    crate::outputs::refuse_overwriting_inputs("--db", &a.db, &inputs)?;
    // Before the build's temporary file exists: a signal deletes it.
    let cancel = if a.format == Format::Api {
        Some(stop_on_signal()?)
    } else {
        crate::signals::abandon_builds_on_signal(|| false)?;
        None
    };
    let build = if a.resume && a.db.exists() {
        Build::update(&a.db)?
    } else if a.overwrite {
        Build::create_over_anything(&a.db)?
    } else {
        Build::create(&a.db)?
    };
    build.set_keep_links(a.keep_links);
    // A failed API fetch keeps what it stored when that loses nothing: when it adds to the
    // database (--resume), or when there was none. Over another database it leaves it alone.
    let keep_partial = a.format == Format::Api && (a.resume || !a.db.exists());
    let req = Request {
        cancel,
        page_ids: a.page_ids,
        keep_partial,
        user_agent: a.user_agent.clone(),
        concurrency: Some(a.concurrency),
        backoff: a.api_backoff_ms.map(Duration::from_millis),
        max_continuations: Some(a.api_max_continue),
        max_query_bytes: Some(a.api_max_query_bytes),
        ..request(a.format, a.paths, a.index, a.skip_site_pages)
    };
    if req.format == Format::DumpRun {
        // A run's files say their wiki, and so its language, which later stages follow.
        let run = pipeline::dump_run::DumpRun::from_paths(&req.paths)?;
        if let Some(language) = run.wiki.and_then(|w| text::Language::of_wiki(&w).ok()) {
            pipeline::set_language(&build, language)?;
        }
    }
    let report = match pipeline::ingest::run(&build, &req) {
        Ok(r) => r,
        Err(e)
            if e.downcast_ref::<pipeline::ingest::PartialIngest>()
                .is_some() =>
        {
            build
                .finish()
                .context("saving the pages fetched before the failure")?;
            return Err(e.context(format!("{} holds the pages fetched so far", a.db.display())));
        }
        Err(e) => return Err(e),
    };
    build.finish()?;
    eprintln!(
        "ingested {} pages ({} redirects, {} disambiguation), {} links ({} unresolved) into {}",
        report.pages,
        report.redirects,
        report.disambiguations,
        report.links,
        report.links_unresolved,
        a.db.display()
    );
    Ok(())
}

/// Refuses option combinations that would be ignored or would lose data.
fn check_ingest_options(a: &IngestArgs) -> Result<()> {
    let one_path = matches!(
        a.format,
        Format::Multistream | Format::Wikispeedia | Format::Api
    );
    if one_path && a.paths.len() > 1 {
        bail!(
            "--format {:?} reads one PATH, got {}: {}",
            a.format,
            a.paths.len(),
            a.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if a.index.is_some() && a.format != Format::Multistream {
        bail!("--index is for --format multistream only");
    }
    if a.format != Format::Api
        && (!a.page_ids.is_empty() || a.user_agent.is_some() || a.api_backoff_ms.is_some())
    {
        bail!("--page-ids and --user-agent are for --format api only");
    }
    if a.concurrency == 0 {
        bail!("--concurrency 0: give 1 or more requests in flight");
    }
    if a.skip_site_pages && a.format != Format::Wikispeedia {
        bail!("--skip-site-pages is for --format wikispeedia only");
    }
    if a.resume && a.format != Format::Api {
        bail!("--resume is for --format api only (other sources are read whole)");
    }
    Ok(())
}

/// The language of a build: `--lang` if given, else the one the corpora's wikis say, which must
/// agree.
fn build_language(lang: Option<&str>, wikis: &[String]) -> Result<text::Language> {
    if let Some(code) = lang {
        return Ok(text::Language::from_code(code)?);
    }
    let mut found: Option<(text::Language, &str)> = None;
    for wiki in wikis {
        let l = text::Language::of_wiki(wiki).with_context(|| format!("the language of {wiki}"))?;
        match found {
            Some((first, first_wiki)) if first != l => bail!(
                "corpora of two languages: {first_wiki} is {}, {wiki} is {}; give --lang",
                first.code(),
                l.code()
            ),
            None => found = Some((l, wiki)),
            _ => {}
        }
    }
    Ok(found.map_or_else(text::Language::english, |(l, _)| l))
}

/// Says which of a build's corpora count more than once in what the relatedness stage learns,
/// if any.
fn say_text_weights<'a>(corpora: impl ExactSizeIterator<Item = (&'a str, u32)>) {
    let all = corpora.len();
    let weighed: Vec<String> = corpora
        .filter(|(_, w)| *w != 1)
        .map(|(n, w)| format!("{n} ×{w}"))
        .collect();
    if !weighed.is_empty() {
        let others = if weighed.len() < all {
            ", every other corpus ×1"
        } else {
            ""
        };
        eprintln!("text weights: {}{others}", weighed.join(", "));
    }
}

/// `--text-weight NAME=N`, checked as the flags are read.
fn parse_text_weight(arg: &str) -> Result<(String, u32)> {
    pipeline::corpora::TextWeights::parse(arg)
}

pub fn pipeline(a: PipelineArgs) -> Result<()> {
    let config = pipeline::Config {
        inputs: a.inputs.clone(),
        terms: if a.terms.is_empty() {
            let mut files = vec![a.inputs.join("terms.txt")];
            files.extend(pipeline::word_lists(&a.data.join("word-lists"))?);
            files
        } else {
            a.terms.clone()
        },
        keep_all_neighbours: a.keep_all_neighbours,
        text_weights: pipeline::corpora::TextWeights::with(a.text_weights.clone()),
        relate: pipeline::RelateParams {
            window: a.window,
            weighting: if a.flat_window {
                pipeline::RelateWeighting::Flat
            } else {
                pipeline::RelateWeighting::Linear
            },
            min_count: a.min_count.map_or(
                pipeline::RelateParams::default().min_count,
                pipeline::MinCount::Fixed,
            ),
            max_page_share: a.max_page_share,
            alpha: a.alpha,
            dims: a.dims,
            sigma_power: a.sigma_power,
            ppmi_weight: a.ppmi_weight,
            meeting_weight: a.meeting_weight,
            meeting_card_power: a.meeting_card_power,
            skip_gram_weight: a.skip_gram_weight,
            dictionary_weight: a.dictionary_weight,
            definition_weight: a.definition_weight,
            ..pipeline::RelateParams::default()
        },
        setnet: setnet::Params {
            seed: a.setnet_seed,
            steps: a.setnet_steps,
            ..setnet::Params::default()
        },
    };
    // Before any stage: a bad value would otherwise fail (or build nonsense) minutes in.
    config.relate.check().map_err(anyhow::Error::msg)?;
    crate::signals::abandon_builds_on_signal(|| false)?;
    let stages: Vec<&str> = match a.stage.as_str() {
        "all" => pipeline::STAGES.to_vec(),
        "ingest" => vec![],
        s if pipeline::STAGES.contains(&s) => vec![s],
        other => bail!(
            "unknown stage {}; stages: all, ingest, {}",
            query::shown(other),
            pipeline::STAGES.join(", ")
        ),
    };
    // Only the relatedness stage reads the text weights: elsewhere the flag would be taken and
    // do nothing (a later `pipeline relatedness` reads only its own flags).
    if !a.text_weights.is_empty() && !matches!(a.stage.as_str(), "all" | "relatedness") {
        bail!(
            "--text-weight is for `pipeline all` and `pipeline relatedness`, the stage that reads \
             it; `pipeline {}` would ignore it (give it again when relatedness runs)",
            a.stage
        );
    }
    // Only `all` drops the inputs when it finishes: the flags would say nothing elsewhere.
    if (a.keep_text || a.keep_links) && a.stage != "all" {
        bail!(
            "--keep-text and --keep-links are for `pipeline all`, which drops the page text and \
             the links when it finishes; `pipeline {}` keeps them",
            a.stage
        );
    }
    // The hand-kept inputs the stages read, which the database must not be renamed over.
    let mut inputs = crate::outputs::Inputs::new();
    for terms in &a.terms {
        inputs = inputs.file("--terms", terms);
    }
    for name in ["terms.txt", "term_pages.tsv", "synonyms.tsv"] {
        inputs = inputs.file("the input", a.inputs.join(name));
    }
    let build = match &a.corpus {
        Some(corpora) => {
            let names: Vec<&str> = corpora.split(',').map(str::trim).collect();
            if names.iter().any(|n| n.is_empty()) {
                bail!(
                    "--corpus {}: a corpus name is empty (names are separated by single commas)",
                    query::shown(corpora)
                );
            }
            // Check every name before the first long ingest, the text weights' too.
            let weights = config.text_weights.for_corpora(&names)?;
            say_text_weights(names.iter().copied().zip(weights));
            let (requests, wikis): (Vec<Request>, Vec<String>) = names
                .iter()
                .map(|c| pipeline::corpora::request(&a.data, &a.dumps, c))
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .unzip();
            for p in requests.iter().flat_map(|r| r.paths.iter().chain(&r.index)) {
                inputs = inputs.file("the corpus file", p);
            }
            crate::outputs::refuse_overwriting_inputs("--db", &a.db, &inputs)?;
            let language = build_language(a.lang.as_deref(), &wikis)?;
            let build = if a.overwrite {
                Build::create_over_anything(&a.db)?
            } else {
                Build::create(&a.db)?
            };
            build.set_keep_links(a.keep_links);
            pipeline::set_language(&build, language)?;
            eprintln!("language: {}", language.code());
            for (i, (name, req)) in names.iter().zip(requests).enumerate() {
                let req = Request {
                    id_offset: pipeline::ingest::source_offset(i),
                    meta_stage: if i == 0 {
                        "ingest".to_string()
                    } else {
                        format!("ingest.{name}")
                    },
                    ..req
                };
                let start = Instant::now();
                let r = pipeline::ingest::run(&build, &req)
                    .with_context(|| format!("ingesting corpus {name}"))?;
                eprintln!(
                    "ingest {name}: {} pages, {} links in all ({:.1} s)",
                    r.pages,
                    r.links,
                    start.elapsed().as_secs_f64()
                );
            }
            build.set_meta("ingest.corpus", &names.join(","))?;
            build
        }
        None if a.stage == "ingest" => {
            bail!("`pipeline ingest` needs --corpus NAME (or use `clue-db ingest`)")
        }
        None => {
            crate::outputs::refuse_overwriting_inputs("--db", &a.db, &inputs)?;
            // A language or a weight the build would refuse, refused before the copy below (a
            // second or more on a full build); the weight from the finished database read-only.
            // A path that is no file is left to `Build::update`, which says what it is.
            let language = a
                .lang
                .as_deref()
                .map(text::Language::from_code)
                .transpose()?;
            if !a.text_weights.is_empty() && a.db.is_file() {
                let recorded = Store::open(&a.db)?.meta("ingest.corpus")?;
                config.text_weights.for_recorded(recorded.as_deref())?;
            }
            let build = Build::update(&a.db)?;
            if let Some(language) = language {
                pipeline::set_language(&build, language)?;
            }
            // Before the stages ahead of relatedness: a weight it would refuse, refused now.
            let weighed = config.text_weights.for_build(&build)?;
            if stages.contains(&"relatedness") {
                say_text_weights(weighed.iter().map(|(n, w)| (n.as_str(), *w)));
            }
            build
        }
    };
    for s in stages {
        let start = Instant::now();
        pipeline::run_stage(&build, s, &config).with_context(|| format!("stage {s}"))?;
        eprintln!("{s}: done ({:.1} s)", start.elapsed().as_secs_f64());
    }
    if a.stage == "all" {
        let keep = store::KeepInputs {
            text: a.keep_text,
            links: a.keep_links,
        };
        let start = Instant::now();
        build.drop_inputs(keep)?;
        let dropped: Vec<&str> = [(keep.text, "page text"), (keep.links, "links")]
            .into_iter()
            .filter(|(kept, _)| !kept)
            .map(|(_, what)| what)
            .collect();
        if !dropped.is_empty() {
            eprintln!(
                "dropped the {} (kept with --keep-text, --keep-links; {:.1} s)",
                dropped.join(" and "),
                start.elapsed().as_secs_f64()
            );
        }
    }
    build.finish()?;
    eprintln!("wrote {}", a.db.display());
    Ok(())
}

pub fn read(a: ReadArgs) -> Result<()> {
    let mut out = crate::out::stdout();
    let r = pipeline::ingest::bench_read(&request(a.format, a.paths, a.index, false))?;
    writeln!(
        out,
        "{:?}: {} pages, {:.1} MB decoded, {:.2} s, {:.0} pages/s, {:.1} MB/s",
        a.format,
        r.pages,
        r.decoded_bytes as f64 / 1e6,
        r.seconds,
        r.pages as f64 / r.seconds,
        r.decoded_bytes as f64 / 1e6 / r.seconds
    )?;
    Ok(())
}

/// A `meta` key or value as one field of `info`'s tab-separated line: a tab or a line break in
/// it (an older build's `term_pages.missing_supplements` held tabs) is written as `\t`, `\n`,
/// and so a backslash as `\\`.
fn one_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\t', '\n', '\r', '\\']) {
        s.replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .into()
    } else {
        s.into()
    }
}

pub fn info(db: &Path) -> Result<()> {
    let mut out = crate::out::stdout();
    // `info` is how one looks at a database this clue-db will not read (another schema
    // version): its meta is shown, and what it is not, rather than only a refusal.
    let meta = store::read_meta_of_any_version(db)?;
    let version = meta
        .iter()
        .find(|(k, _)| k == "schema_version")
        .map(|(_, v)| v.clone());
    let ours = store::SCHEMA_VERSION.to_string();
    if version.is_some() && version.as_deref() != Some(ours.as_str()) {
        for (k, v) in &meta {
            writeln!(out, "{}\t{}", one_field(k), one_field(v))?;
        }
        let v = version.unwrap_or_default();
        let why = format!(
            "no: schema version {v}, and this clue-db reads version {ours} (its cards are not \
             read; rebuild the database with `make pipeline`, or use the clue-db that built it)"
        );
        writeln!(out, "readable\t{why}")?;
        eprintln!(
            "clue-db: warning: {}: schema version {v}, not {ours}: only its meta is shown",
            db.display()
        );
        return Ok(());
    }
    let store = Store::open(db)?;
    for (k, v) in &meta {
        writeln!(out, "{}\t{}", one_field(k), one_field(v))?;
    }
    let missing = store.missing_required_tables()?;
    if !missing.is_empty() {
        bail!("{}: {}", db.display(), lacks_tables(&missing));
    }
    // What a board may hold, after the build's own records.
    let k = query::store_knowledge::StoreKnowledge::new(&store);
    let stored = query::Knowledge::card_words(&k)
        .map_err(|e| lacking(&store, e))?
        .len();
    writeln!(out, "cards.stored\t{stored}")?;
    let any = if k.any_word().map_err(|e| lacking(&store, e))? {
        format!(
            "yes: any of the {} clue words (or their forms) can be a card, scored from the \
             stored vectors",
            query::Knowledge::clue_words(&k)?.len()
        )
    } else {
        "no: only the stored card words (this database keeps no clue vectors; rebuild with \
         `clue-db pipeline all`)"
            .to_string()
    };
    writeln!(out, "cards.any_word\t{any}")?;
    Ok(())
}

/// A read of the cards that failed, with the schema's tables the database lacks (a file with
/// only its `meta` once failed naming one table, as if the rest were there).
fn lacking(store: &Store, e: anyhow::Error) -> anyhow::Error {
    match store.missing_tables() {
        Ok(missing) if !missing.is_empty() => e.context(format!(
            "reading the card words: {}",
            lacks_tables(&missing)
        )),
        _ => e.context("reading the card words"),
    }
}

/// What a database short of tables is said to lack, and what to do.
fn lacks_tables(missing: &[String]) -> String {
    format!(
        "the database lacks {} of the schema's tables ({}): it is not a finished build; build \
         it with `clue-db pipeline all`",
        missing.len(),
        missing.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::one_field;

    /// `pipeline --help` states the weights' range and the registry's defaults in words: they
    /// are the code's, so that a change to either shows here.
    #[test]
    fn the_text_weight_help_says_the_codes_range_and_defaults() {
        use pipeline::corpora::{OFFLINE, TextWeights};
        let cmd = <super::PipelineArgs as clap::Args>::augment_args(clap::Command::new("p"));
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some("text-weight"))
            .expect("--text-weight");
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .expect("its help")
            .to_string();
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            help.contains(&format!("N from 1 to {}", TextWeights::MAX)),
            "{help}"
        );
        let weighed: Vec<_> = OFFLINE.iter().filter(|c| c.weight != 1).collect();
        assert!(!weighed.is_empty(), "the help names a default weight");
        for c in weighed {
            assert!(help.contains(&format!("{}={}", c.name, c.weight)), "{help}");
        }
        assert!(help.contains("every other corpus 1"), "{help}");
    }

    /// A value with a tab once printed as three fields on `info`'s line.
    #[test]
    fn a_meta_value_is_one_field_of_infos_line() {
        assert_eq!(
            one_field("bell\tBell (instrument)"),
            "bell\\tBell (instrument)"
        );
        assert_eq!(one_field("a\nb\rc"), "a\\nb\\rc");
        assert_eq!(one_field("plain value"), "plain value");
        assert_eq!(
            one_field("a\\tb"),
            "a\\\\tb",
            "a backslash and a t are not a tab"
        );
    }
}
