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
    /// Input files or folders (SQL: the dump files, named by table; Wikispeedia: the folder).
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
    /// The database to write; replaced only if the ingest succeeds.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct PipelineArgs {
    /// `all`, `ingest` (with --corpus), or one stage: terms, term_pages, clue_pages, count, chunks,
    /// pagerank, scores.
    stage: String,
    /// With `all` or `ingest`: build from these corpora of the data folder instead of updating
    /// --db: wikispeedia, enwiki-sample, enwiki-2015-wikiextractor, or several joined by commas
    /// (`wikispeedia,enwiki-2015-wikiextractor`, what `make pipeline` builds). A page whose title
    /// an earlier corpus already stored is left out: the first corpus named wins.
    #[arg(long)]
    corpus: Option<String>,
    /// The shared data folder holding the corpora.
    #[arg(long, default_value = "../shared/data")]
    data: PathBuf,
    /// The folder of hand-kept inputs (terms.txt, term_pages.tsv, synonyms.tsv).
    #[arg(long, default_value = "pipeline")]
    inputs: PathBuf,
    /// Keep every neighbour of a term page as a clue page, not only the cut.
    #[arg(long)]
    keep_all_neighbours: bool,
    /// relatedness: content words on each side of a word that count as meeting it.
    #[arg(long, default_value_t = pipeline::RelateParams::default().window)]
    window: usize,
    /// relatedness: occurrences a word needs to be a clue word.
    #[arg(long, default_value_t = pipeline::RelateParams::default().min_count)]
    min_count: u64,
    /// relatedness: dimensions of the SVD word vectors.
    #[arg(long, default_value_t = pipeline::RelateParams::default().dims)]
    dims: usize,
    /// relatedness: exponent of the singular values in the word vectors.
    #[arg(long, default_value_t = pipeline::RelateParams::default().sigma_power)]
    sigma_power: f32,
    /// relatedness: weight of first-order PPMI in the score (the SVD cosine has the rest).
    #[arg(long, default_value_t = pipeline::RelateParams::default().ppmi_weight)]
    ppmi_weight: f32,
    /// The database; replaced only if every requested stage succeeds.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
}

#[derive(Args)]
pub struct ReadArgs {
    #[arg(long, value_enum)]
    format: Format,
    #[arg(required = true)]
    paths: Vec<PathBuf>,
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
/// saves what it stored, as a failed fetch does; a second signal quits at once.
fn stop_on_signal() -> Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    ctrlc::set_handler(move || {
        if set.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!(
            "interrupted: stopping the fetch and saving what it stored (again to quit at once)"
        );
    })
    .context("installing the Ctrl-C handler")?;
    Ok(flag)
}

pub fn ingest(a: IngestArgs) -> Result<()> {
    check_ingest_options(&a)?;
    let build = if a.resume && a.db.exists() {
        Build::update(&a.db)?
    } else {
        Build::create(&a.db)?
    };
    // A failed API fetch keeps what it stored when that loses nothing: when it adds to the
    // database (--resume), or when there was none. Over another database it leaves it alone.
    let keep_partial = a.format == Format::Api && (a.resume || !a.db.exists());
    let cancel = if a.format == Format::Api {
        Some(stop_on_signal()?)
    } else {
        None
    };
    let req = Request {
        cancel,
        page_ids: a.page_ids,
        keep_partial,
        user_agent: a.user_agent.clone(),
        concurrency: Some(a.concurrency),
        backoff: a.api_backoff_ms.map(Duration::from_millis),
        max_continuations: Some(a.api_max_continue),
        ..request(a.format, a.paths, a.index, a.skip_site_pages)
    };
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

/// The source behind a corpus name of the shared data folder.
pub fn corpus_request(data: &Path, corpus: &str) -> Result<Request> {
    let (format, rel) = match corpus {
        "wikispeedia" => (Format::Wikispeedia, "wikispeedia"),
        "enwiki-sample" => (
            Format::Xml,
            "enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
        ),
        "enwiki-2015-wikiextractor" => (
            Format::Extractor,
            "enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz",
        ),
        other => bail!(
            "unknown corpus {other:?}; corpora: wikispeedia, enwiki-sample, enwiki-2015-wikiextractor"
        ),
    };
    let path = data.join(rel);
    if !path.exists() {
        bail!(
            "{}: corpus {corpus:?} not found (is ../shared beside the repository?)",
            path.display()
        );
    }
    Ok(request(format, vec![path], None, false))
}

pub fn pipeline(a: PipelineArgs) -> Result<()> {
    let config = pipeline::Config {
        inputs: a.inputs.clone(),
        keep_all_neighbours: a.keep_all_neighbours,
        relate: pipeline::RelateParams {
            window: a.window,
            min_count: a.min_count,
            dims: a.dims,
            sigma_power: a.sigma_power,
            ppmi_weight: a.ppmi_weight,
            ..pipeline::RelateParams::default()
        },
    };
    let stages: Vec<&str> = match a.stage.as_str() {
        "all" => pipeline::STAGES.to_vec(),
        "ingest" => vec![],
        s if pipeline::STAGES.contains(&s) => vec![s],
        other => bail!(
            "unknown stage {other:?}; stages: all, ingest, {}",
            pipeline::STAGES.join(", ")
        ),
    };
    let build = match &a.corpus {
        Some(corpora) => {
            let names: Vec<&str> = corpora.split(',').map(str::trim).collect();
            // Check every name before the first long ingest.
            let requests = names
                .iter()
                .map(|c| corpus_request(&a.data, c))
                .collect::<Result<Vec<_>>>()?;
            let build = Build::create(&a.db)?;
            for (i, (name, req)) in names.iter().zip(requests).enumerate() {
                let req = Request {
                    id_offset: i as u64 * pipeline::ingest::SOURCE_ID_STRIDE,
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
        None => Build::update(&a.db)?,
    };
    for s in stages {
        let start = Instant::now();
        pipeline::run_stage(&build, s, &config).with_context(|| format!("stage {s}"))?;
        eprintln!("{s}: done ({:.1} s)", start.elapsed().as_secs_f64());
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

pub fn info(db: &Path) -> Result<()> {
    let mut out = crate::out::stdout();
    let store = Store::open(db)?;
    for (k, v) in store.all_meta().context("reading table meta")? {
        writeln!(out, "{k}\t{v}")?;
    }
    Ok(())
}
