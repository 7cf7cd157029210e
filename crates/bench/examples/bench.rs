//! `make bench`: reader throughput, pipeline stage times and peak memory, PageRank speed,
//! `suggest` latency, and `clue-db serve` throughput (alone, beside idle half-sent connections,
//! with its peak memory, and beside connections sending half a body): the four sections of [`bench::sections`].
//!
//! It prints tables only, and writes nothing outside one temporary folder, removed on exit (also
//! on failure, Ctrl-C and SIGTERM, which end its child processes first). It drives the release
//! `clue-db` binary and three examples built beside this one (`serve`'s `load`, `rank`'s
//! `pagerank_bench`, `relate`'s `skip_gram`): `make bench` builds them all. Settings: `--help` (each has an environment
//! variable too, as `make bench` takes them). What each figure means: `crates/bench/README.md`.

use anyhow::{Context, Result, bail};
use bench::proc;
use bench::sections::{self, Ctx, Settings};
use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "bench",
    about = "make bench: readers, pipeline per corpus, suggest latency, clue-db serve under load \
             (crates/bench/README.md)"
)]
struct Args {
    /// The shared data folder (the offline corpora and the SQL fixtures).
    #[arg(long, env = "DATA", default_value = "../shared/data")]
    data: PathBuf,
    /// Boards per strategy for the in-process latency (`clue-db bench-suggest`).
    #[arg(long, env = "BENCH_BOARDS", default_value_t = 1000)]
    boards: usize,
    /// Boards per strategy for the whole-process latency (one `clue-db suggest` each).
    #[arg(long, env = "BENCH_PROCESS_BOARDS", default_value_t = 1000)]
    process_boards: usize,
    /// Seed of the boards (sections 3 and 4).
    #[arg(long, env = "BENCH_SEED", default_value_t = 1)]
    seed: u64,
    /// Copies of the enwiki excerpt in the synthetic multistream dump.
    #[arg(long, env = "BENCH_MS_REPEAT", default_value_t = 5)]
    ms_repeat: usize,
    /// Idle half-sent connections held beside the serve load (section 4).
    #[arg(long, env = "BENCH_IDLE", default_value_t = 300)]
    idle: usize,
    /// Connections held beside the serve load (section 4) that sent a head announcing a body of
    /// 1,000 bytes and part of it.
    #[arg(long, env = "BENCH_HALF_BODIES", default_value_t = 600)]
    half_bodies: usize,
    /// Concurrent clients of the serve load, each on one kept-alive connection.
    #[arg(long, env = "BENCH_CLIENTS", default_value_t = 8)]
    clients: usize,
    /// Seconds of each serve load.
    #[arg(long, env = "BENCH_SECONDS", default_value_t = 10.0)]
    seconds: f64,
    /// The sections to run, comma-separated, by name or number.
    #[arg(
        long,
        env = "BENCH_SECTIONS",
        value_delimiter = ',',
        default_value = "readers,pipeline,query,serve"
    )]
    sections: Vec<Section>,
    /// The database that `query` and `serve` use when `pipeline` is not run (when it is, they
    /// use the database of both corpora it builds).
    #[arg(long, env = "BENCH_DB", default_value = "db/clues.sqlite")]
    db: PathBuf,
    /// The clue-db binary [default: the release build beside this program, target/release].
    #[arg(long, env = "CLUE_DB")]
    bin: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Section {
    /// 1: `clue-db read` per source, decompressors for reference, ingest peak memory,
    /// synthetic SQL and multistream dumps.
    #[value(alias = "1")]
    Readers,
    /// 2: `clue-db pipeline all` per corpus, stage seconds, wall time and peak memory,
    /// PageRank.
    #[value(alias = "2")]
    Pipeline,
    /// 3: `suggest` latency, in one process and as whole processes.
    #[value(alias = "3")]
    Query,
    /// 4: `clue-db serve` under load, then beside idle half-sent connections, then beside
    /// connections sending half a body.
    #[value(alias = "4")]
    Serve,
}

fn check(a: &Args) -> Result<()> {
    if a.boards == 0 || a.process_boards == 0 {
        bail!("--boards and --process-boards must be 1 or more");
    }
    if a.ms_repeat == 0 {
        bail!("--ms-repeat must be 1 or more");
    }
    if a.clients == 0 || !(a.seconds > 0.0 && a.seconds <= 600.0) {
        bail!("--clients must be 1 or more, --seconds in (0, 600]");
    }
    if a.idle > 10_000 || a.half_bodies > 10_000 {
        bail!("--idle and --half-bodies: at most 10,000 each");
    }
    if a.sections.is_empty() {
        bail!("--sections: give at least one of readers, pipeline, query, serve");
    }
    Ok(())
}

fn run(a: Args) -> Result<()> {
    check(&a)?;
    let exe = std::env::current_exe().context("finding this program's path")?;
    let examples = exe.parent().context("this program's folder")?.to_path_buf();
    let bin = match a.bin {
        Some(b) => b,
        None => examples
            .parent()
            .context("the folder above this program's")?
            .join("clue-db"),
    };
    if !bin.is_file() {
        bail!(
            "{} not found: build it first (`make bench` does, or `cargo build --release`; or give \
             --bin)",
            bin.display()
        );
    }
    let wants = |s: Section| a.sections.contains(&s);
    if (wants(Section::Readers) || wants(Section::Pipeline)) && !a.data.is_dir() {
        bail!(
            "{} not found: the shared data folder must sit beside the repository (or set \
             DATA=... / --data)",
            a.data.display()
        );
    }
    let needs_db = (wants(Section::Query) || wants(Section::Serve)) && !wants(Section::Pipeline);
    if needs_db && !a.db.is_file() {
        bail!(
            "{} not found: `make pipeline` builds it (or give --db / BENCH_DB, or run the \
             pipeline section)",
            a.db.display()
        );
    }

    let tmp = tempfile::Builder::new()
        .prefix("clue-db-bench.")
        .tempdir()
        .context("creating the temporary folder")?;
    // Ctrl-C, SIGTERM, SIGHUP: the children are ended, then the folder goes.
    let path = tmp.path().to_path_buf();
    ctrlc::set_handler(move || {
        proc::end_children(Duration::from_secs(5));
        let _ = std::fs::remove_dir_all(&path);
        std::process::exit(130);
    })
    .context("installing the signal handler")?;

    let ctx = Ctx {
        bin,
        examples,
        data: a.data.clone(),
        tmp: tmp.path().to_path_buf(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        settings: Settings {
            boards: a.boards,
            process_boards: a.process_boards,
            seed: a.seed,
            ms_repeat: a.ms_repeat,
            idle: a.idle,
            half_bodies: a.half_bodies,
            clients: a.clients,
            seconds: a.seconds,
        },
    };
    if wants(Section::Readers) {
        sections::readers::run(&ctx)?;
    }
    let db = if wants(Section::Pipeline) {
        sections::pipeline::run(&ctx)?
    } else {
        a.db.clone()
    };
    if wants(Section::Query) {
        let what = if wants(Section::Pipeline) {
            "of both corpora".to_string()
        } else {
            db.display().to_string()
        };
        sections::query::run(&ctx, &db, &what)?;
    }
    if wants(Section::Serve) {
        sections::serve::run(&ctx, &db)?;
    }
    if wants(Section::Readers) || wants(Section::Pipeline) {
        println!(
            "\nthe harness's own peak memory (a floor under the peak figures above): {:.0} MB",
            proc::own_peak_mb()
        );
    }
    tmp.close().context("removing the temporary folder")
}

fn main() {
    let code = match run(Args::parse()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("bench: {e:#}");
            1
        }
    };
    std::process::exit(code);
}
