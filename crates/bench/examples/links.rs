//! The links ingest at several sizes (issue 23, item 4): synthetic `page`, `linktarget` and
//! `pagelinks` SQL dumps of N links each (the set `make bench` times at 2 M, [`bench::dumps`]:
//! uniform random links over N / 10 pages titled `Page_I`), each read by one
//! `clue-db ingest --format sql` process: wall time, peak memory (`wait4`), links per second
//! and the database's size. The same ingest without the `pagelinks` dump (pages and link targets
//! only) is timed too, so that the links' own share shows: "links s" is the difference, and
//! "links/s (own)" the rows over it, the rate that scales to a wiki's `pagelinks` (whose pages
//! come from the XML, timed apart). It drives only the binary (`--bin`), so the same command measures
//! any build of it: how the before/after figures in `docs/evaluation.md` (part 9) were taken.
//!
//! Everything it writes is in one temporary folder (`--tmp`), removed on exit, also on Ctrl-C.

use anyhow::{Context, Result};
use bench::synth::SqlFrame;
use bench::{dumps, proc};
use clap::Parser;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "bench-links",
    about = "The links ingest (clue-db ingest --format sql) of synthetic page + linktarget + \
             pagelinks dumps at several sizes: wall time, peak memory, links per second"
)]
struct Args {
    /// The shared data folder (its `sql-sample/` gives the dumps' table definitions).
    #[arg(long, env = "DATA", default_value = "../shared/data")]
    data: PathBuf,
    /// The clue-db binary.
    #[arg(long, env = "CLUE_DB", default_value = "target/release/clue-db")]
    bin: PathBuf,
    /// `pagelinks` rows of each run, comma-separated.
    #[arg(
        long,
        env = "BENCH_LINKS",
        value_delimiter = ',',
        default_value = "2000000,6000000,20000000"
    )]
    links: Vec<u64>,
    /// Links per page: the pages of a run are its links divided by this.
    #[arg(long, default_value_t = 10)]
    links_per_page: u64,
    /// Where the temporary folder goes [default: $TMPDIR, else /tmp]; 60 M links need ~3 GB.
    #[arg(long, env = "BENCH_TMP")]
    tmp: Option<PathBuf>,
}

fn frame(data: &Path, table: &str) -> Result<SqlFrame> {
    let p = data
        .join("sql-sample")
        .join(format!("test-20240901-{table}.sql"));
    Ok(SqlFrame::of(
        &std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?,
    ))
}

fn write(p: &Path, f: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<()> {
    let mut w = BufWriter::with_capacity(
        1 << 20,
        File::create(p).with_context(|| format!("creating {}", p.display()))?,
    );
    f(&mut w)
        .and_then(|_| w.flush())
        .with_context(|| format!("writing {}", p.display()))
}

fn main() -> Result<()> {
    let a = Args::parse();
    let tmp = match &a.tmp {
        Some(dir) => tempfile::tempdir_in(dir),
        None => tempfile::tempdir(),
    }
    .context("creating the temporary folder")?;
    let folder = tmp.path().to_path_buf();
    ctrlc::set_handler(move || {
        proc::end_children(std::time::Duration::from_secs(2));
        let _ = std::fs::remove_dir_all(&folder);
        std::process::exit(130);
    })
    .context("installing the Ctrl-C handler")?;
    let frames = [
        frame(&a.data, "page")?,
        frame(&a.data, "linktarget")?,
        frame(&a.data, "pagelinks")?,
    ];
    println!(
        "{:>12} {:>10} {:>10} {:>10} {:>12} {:>10} {:>14} {:>10}",
        "links", "pages", "seconds", "peak MB", "links/s", "links s", "links/s (own)", "db MB"
    );
    for &links in &a.links {
        let pages = (links / a.links_per_page.max(1)).max(1);
        let set = ["page", "linktarget", "pagelinks"].map(|t| tmp.path().join(format!("{t}.sql")));
        let start = Instant::now();
        write(&set[0], |w| dumps::write_page_dump(w, &frames[0], pages))?;
        write(&set[1], |w| {
            dumps::write_linktarget_dump(w, &frames[1], pages)
        })?;
        write(&set[2], |w| {
            dumps::write_random_links(w, &frames[2], pages, links, dumps::SEED)
        })?;
        eprintln!(
            "{links} links over {pages} pages written in {:.1} s",
            start.elapsed().as_secs_f64()
        );
        let db = tmp.path().join("links.sqlite");
        let ingest = |files: &[PathBuf]| -> Result<proc::Finished> {
            let mut cmd = Command::new(&a.bin);
            cmd.args(["ingest", "--format", "sql"])
                .args(files)
                .arg("--db")
                .arg(&db)
                .stdout(Stdio::null());
            proc::run(&mut cmd, &tmp.path().join("ingest.log"))
        };
        let pages_only = ingest(&set[..2])?;
        let done = ingest(&set)?;
        let db_mb = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        let own = (done.seconds - pages_only.seconds).max(1e-9);
        println!(
            "{links:>12} {pages:>10} {:>10.1} {:>10.0} {:>12.0} {own:>10.1} {:>14.0} {db_mb:>10.0}",
            done.seconds,
            done.peak_mb,
            links as f64 / done.seconds.max(1e-9),
            links as f64 / own
        );
        let _ = std::io::stdout().flush();
        for f in set.iter().chain([&db]) {
            std::fs::remove_file(f).with_context(|| format!("removing {}", f.display()))?;
        }
    }
    Ok(())
}
