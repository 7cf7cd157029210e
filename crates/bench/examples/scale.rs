//! `make bench-scale`: the scale rehearsal of issue 23, item 5.
//!
//! For each scale (1×, 3×, 10× the offline text by default) it writes a synthetic dump run made
//! from the real text ([`bench::synth`]: a `pages-articles` XML and `pagelinks` + `linktarget`
//! dumps of 6 M, 20 M, 60 M rows), then runs every stage of the pipeline as its own `clue-db`
//! process (`clue-db ingest --format dump-run`, then `clue-db pipeline STAGE`), and prints each
//! stage's wall time and peak memory (the child's `ru_maxrss`, from `wait4`), then a table of
//! every stage at every scale and its growth from the first scale to the last against linear.
//!
//! Everything it writes is in one temporary folder, removed on exit (also on Ctrl-C). It drives
//! only the `clue-db` binary (built beforehand: `make bench-scale` does), so it measures
//! whatever the binary does. Settings: `--help`.

use anyhow::{Context, Result, bail};
use bench::synth::{self, Article, LinkPlan, SqlFrame};
use clap::Parser;
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "bench-scale",
    about = "The scale rehearsal: synthetic corpora of several times the offline text, every \
             pipeline stage as its own clue-db process, wall time and peak memory of each"
)]
struct Args {
    /// The shared data folder (the offline corpora: Wikispeedia and the 2015 slice, and the SQL
    /// fixtures whose table definitions the link dumps take).
    #[arg(long, env = "DATA", default_value = "../shared/data")]
    data: PathBuf,
    /// Sizes of the corpora, in multiples of the offline text (fractions allowed: 0.1 is the
    /// first tenth of its articles).
    #[arg(
        long,
        env = "BENCH_SCALES",
        value_delimiter = ',',
        default_value = "1,3,10"
    )]
    scales: Vec<f64>,
    /// `pagelinks` rows of each corpus, one per scale.
    #[arg(
        long,
        env = "BENCH_LINKS",
        value_delimiter = ',',
        default_value = "6000000,20000000,60000000"
    )]
    links: Vec<u64>,
    /// Seed of the shuffled sentences and of the links.
    #[arg(long, env = "BENCH_SEED", default_value_t = 1)]
    seed: u64,
    /// The clue-db binary.
    #[arg(long, env = "CLUE_DB", default_value = "target/release/clue-db")]
    bin: PathBuf,
    /// The hand-kept inputs (card words, term-page supplements, synonyms).
    #[arg(long, default_value = "pipeline")]
    inputs: PathBuf,
    /// Where the temporary folder goes [default: $TMPDIR, else /tmp]. At 10× it needs ~25 GB.
    #[arg(long, env = "BENCH_TMP")]
    tmp: Option<PathBuf>,
    /// Internal: drop the build inputs of DB and rewrite it (what `pipeline all` does last),
    /// run as a child so that its memory is its own.
    #[arg(long, hide = true)]
    finish: Option<PathBuf>,
    /// Internal: write the dump run of the first scale and link count into this folder, run
    /// as a child, so that the harness itself stays small (see [`measured`]).
    #[arg(long, hide = true)]
    generate: Option<PathBuf>,
}

/// One child's figures.
#[derive(Debug, Clone, Copy, Default)]
struct Run {
    seconds: f64,
    /// CPU seconds, user and system (`ru_utime` + `ru_stime`): the growth a busy machine's wall
    /// time blurs.
    cpu: f64,
    /// Peak resident memory, MB.
    peak_mb: f64,
}

/// Runs `cmd` to its end, with its wall time and its peak resident memory (`ru_maxrss` of
/// `wait4`: this child's alone). Its stderr goes to `log`, shown if it fails, its stdout to
/// `log` + `.out`.
///
/// The child is started by `posix_spawn` (vfork), and Linux carries the high-water mark of the
/// parent's memory into the child's `ru_maxrss` at `exec`: every figure is at least the
/// harness's own peak. So the harness keeps nothing large (the synthetic files are written by
/// a child too, `--generate`), and prints its own peak at the end: a few MB.
fn measured(mut cmd: Command, log: &Path) -> Result<Run> {
    let err = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let out = std::fs::File::create(log.with_extension("out"))?;
    cmd.stdout(out).stderr(err);
    let shown = format!("{cmd:?}");
    let start = Instant::now();
    let child = cmd.spawn().with_context(|| format!("starting {shown}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain data, filled by the kernel; `pid` is our own child, not yet
    // waited for (the `Child` is dropped without waiting).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break r;
    };
    let seconds = start.elapsed().as_secs_f64();
    drop(child);
    if got != pid {
        bail!("waiting for {shown}: {}", std::io::Error::last_os_error());
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        bail!(
            "{shown} failed (status {status}):\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Run {
        seconds,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        // Linux reports kilobytes.
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
    })
}

/// The real articles, streamed: Wikispeedia, then the 2015 slice, articles with text only, a
/// title kept once (the first source's), as `make pipeline` builds.
fn open_source(data: &Path) -> Result<impl Iterator<Item = Result<Article>> + use<>> {
    let progress = wiki::io::Progress::default();
    // The corpora's files as the pipeline names them (`pipeline::corpora`).
    let corpus = |name: &str| {
        pipeline::corpora::offline(name)
            .expect("an offline corpus")
            .path(data)
    };
    let speedia = wiki::wikispeedia::read(&corpus("wikispeedia"), &progress)
        .context("reading the Wikispeedia corpus")?;
    let slice = corpus("enwiki-2015-wikiextractor");
    let docs = wiki::extractor::read(&slice, &progress)
        .with_context(|| format!("reading {}", slice.display()))?;
    let mut seen = std::collections::HashSet::new();
    let pages = speedia
        .map(|p| p.map_err(anyhow::Error::from))
        .chain(docs.map(|p| p.map_err(anyhow::Error::from)));
    Ok(pages.filter_map(move |p| match p {
        Err(e) => Some(Err(e)),
        Ok(p) => (p.ns == 0
            && p.redirect.is_none()
            && !p.text.trim().is_empty()
            && seen.insert(p.title.clone()))
        .then(|| {
            Ok(Article {
                title: p.title,
                text: p.text,
            })
        }),
    }))
}

/// `clue-db info --db DB` as a map.
fn meta(bin: &Path, db: &Path) -> Result<HashMap<String, String>> {
    let out = Command::new(bin)
        .args(["info", "--db"])
        .arg(db)
        .output()
        .context("running clue-db info")?;
    if !out.status.success() {
        bail!("clue-db info: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect())
}

/// One scale's figures.
struct Scale {
    scale: f64,
    pages: u64,
    links: u64,
    text_mb: f64,
    /// (row name, run, the stage's own seconds from `meta` when it records them).
    rows: Vec<(String, Run, Option<f64>)>,
    db_with_inputs_mb: f64,
    db_mb: f64,
    facts: Vec<(String, String)>,
}

fn file_mb(p: &Path) -> f64 {
    std::fs::metadata(p).map_or(0.0, |m| m.len() as f64 / 1e6)
}

/// The files of the synthetic dump run in `dir`: XML, linktarget, pagelinks.
fn run_files(dir: &Path) -> [PathBuf; 3] {
    ["pages-articles.xml", "linktarget.sql", "pagelinks.sql"]
        .map(|f| dir.join(format!("synthwiki-20990101-{f}")))
}

/// `--generate DIR`: writes the dump run of `scale` (and `links` rows) into `dir`, and prints
/// one line saying what it wrote.
fn generate(a: &Args, dir: &Path, scale: f64, links: u64) -> Result<()> {
    let t = Instant::now();
    let mut source_titles = Vec::new();
    for art in open_source(&a.data)? {
        source_titles.push(art?.title);
    }
    let pages = synth::pages_at(scale, source_titles.len());
    let titles = synth::titles(&source_titles, pages);
    drop(source_titles);
    let [xml, lt, pl] = run_files(dir);
    let written = synth::write_xml(
        BufWriter::with_capacity(1 << 20, std::fs::File::create(&xml)?),
        &titles,
        a.seed,
        || open_source(&a.data),
    )?;
    let sql = a.data.join("sql-sample");
    let frame = |table: &str| -> Result<SqlFrame> {
        let p = sql.join(format!("test-20240901-{table}.sql"));
        Ok(SqlFrame::of(
            &std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?,
        ))
    };
    let plan = LinkPlan {
        pages,
        rows: links,
        seed: a.seed,
    };
    synth::write_linktarget(
        BufWriter::with_capacity(1 << 20, std::fs::File::create(&lt)?),
        &frame("linktarget")?,
        &plan,
        &titles,
    )?;
    synth::write_pagelinks(
        BufWriter::with_capacity(1 << 20, std::fs::File::create(&pl)?),
        &frame("pagelinks")?,
        &plan,
    )?;
    println!(
        "{pages}\t{:.1}\t{scale}×: {} pages, {:.0} MB of text ({} sentences), {links} \
         pagelinks rows, {} linktarget rows; written in {:.0} s (XML {:.0} MB, SQL {:.0} MB)",
        written.text_bytes as f64 / 1e6,
        written.pages,
        written.text_bytes as f64 / 1e6,
        written.sentences,
        plan.targets(),
        t.elapsed().as_secs_f64(),
        written.bytes as f64 / 1e6,
        file_mb(&lt) + file_mb(&pl)
    );
    Ok(())
}

fn run_scale(a: &Args, tmp: &Path, scale: f64, links: u64) -> Result<Scale> {
    let dir = tmp.join(format!("scale-{scale}"));
    std::fs::create_dir_all(&dir)?;
    let log = dir.join("stage.log");
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("--generate")
        .arg(&dir)
        .arg("--data")
        .arg(&a.data)
        .arg("--seed")
        .arg(a.seed.to_string())
        .arg("--scales")
        .arg(scale.to_string())
        .arg("--links")
        .arg(links.to_string());
    let gen_run = measured(cmd, &log)?;
    let said = std::fs::read_to_string(log.with_extension("out"))?;
    let mut fields = said.trim().splitn(3, '\t');
    let (Some(pages), Some(text_mb), Some(line)) = (fields.next(), fields.next(), fields.next())
    else {
        bail!("the generator said {said:?}");
    };
    let (pages, text_mb): (u64, f64) = (pages.parse()?, text_mb.parse()?);
    println!("{line} (peak memory {:.0} MB)", gen_run.peak_mb);
    let _ = std::io::stdout().flush();
    let [xml, lt, pl] = run_files(&dir);

    let db = dir.join("clues.sqlite");
    let mut rows: Vec<(String, Run, Option<f64>)> = Vec::new();
    let mut report = |name: &str, run: Run, own: Option<f64>| {
        println!(
            "  {name:<28} {:>9.1} s {:>9.1} s cpu {:>9.0} MB{}",
            run.seconds,
            run.cpu,
            run.peak_mb,
            own.map_or(String::new(), |s| format!("   (stage {s:.1} s)"))
        );
        let _ = std::io::stdout().flush();
        rows.push((name.to_string(), run, own));
    };

    // The text alone (no link dumps: the XML has no links), into a database thrown away, so
    // that the links' share of the ingest shows.
    let text_db = dir.join("text-only.sqlite");
    let mut cmd = Command::new(&a.bin);
    cmd.args(["ingest", "--format", "dump-run"])
        .arg(&xml)
        .arg("--db")
        .arg(&text_db);
    let run = measured(cmd, &log)?;
    report("ingest: text only", run, None);
    std::fs::remove_file(&text_db)?;

    let mut cmd = Command::new(&a.bin);
    cmd.args(["ingest", "--format", "dump-run"])
        .args([&xml, &lt, &pl])
        .arg("--db")
        .arg(&db);
    let run = measured(cmd, &log)?;
    report("ingest: text + links", run, None);
    for f in [&xml, &lt, &pl] {
        std::fs::remove_file(f)?;
    }

    for stage in pipeline::STAGES {
        let mut cmd = Command::new(&a.bin);
        cmd.args(["pipeline", stage, "--db"])
            .arg(&db)
            .arg("--inputs")
            .arg(&a.inputs);
        let run = measured(cmd, &log)?;
        let own = meta(&a.bin, &db)?
            .get(&format!("{stage}.seconds"))
            .and_then(|s| s.parse().ok());
        report(stage, run, own);
    }
    let m = meta(&a.bin, &db)?;
    let db_with_inputs_mb = file_mb(&db);

    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("--finish").arg(&db);
    let run = measured(cmd, &log)?;
    report("finish: drop inputs, VACUUM", run, None);
    let db_mb = file_mb(&db);
    println!(
        "  database: {db_with_inputs_mb:.0} MB with the page text and links, {db_mb:.0} MB finished"
    );

    let facts = [
        "ingest.links",
        "pagerank.edges",
        "pagerank.iterations",
        "clue_pages.kept",
        "relatedness.tokens",
        "relatedness.min_count",
        "relatedness.vocabulary",
        "relatedness.clue_words",
    ]
    .iter()
    .map(|k| (k.to_string(), m.get(*k).cloned().unwrap_or_default()))
    .collect::<Vec<_>>();
    println!(
        "  {}",
        facts
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(Scale {
        scale,
        pages,
        links,
        text_mb,
        rows,
        db_with_inputs_mb,
        db_mb,
        facts,
    })
}

/// Prints every stage at every scale, and the growth from the first scale to the last: the
/// ratio of times over the ratio of sizes (1 is linear; the bar is 1.2).
fn summary(scales: &[Scale]) {
    let (Some(first), Some(last)) = (scales.first(), scales.last()) else {
        return;
    };
    let size_ratio = last.scale / first.scale;
    println!("\n== wall time (s) / peak memory (MB) per stage ==");
    let mut head = format!("{:<28}", "stage");
    for s in scales {
        head += &format!(" {:>17}", format!("{}×", s.scale));
    }
    head += &format!(
        " {:>12} {:>10} {:>14} {:>16}",
        "time growth", "vs linear", "cpu vs linear", "stage vs linear"
    );
    println!("{head}");
    let mut total = vec![0.0; scales.len()];
    for (i, (name, _, _)) in first.rows.iter().enumerate() {
        let mut line = format!("{name:<28}");
        for (k, s) in scales.iter().enumerate() {
            let (_, r, _) = &s.rows[i];
            line += &format!(" {:>8.1} {:>8.0}", r.seconds, r.peak_mb);
            if name != "ingest: text only" {
                total[k] += r.seconds;
            }
        }
        let g = last.rows[i].1.seconds / first.rows[i].1.seconds.max(1e-3);
        line += &format!(" {:>11.1}× {:>10.2}", g, g / size_ratio);
        let c = last.rows[i].1.cpu / first.rows[i].1.cpu.max(1e-3);
        line += &format!(" {:>14.2}", c / size_ratio);
        // The stage's own seconds (`meta`), without the process's copy of the database and
        // its `ANALYZE` at the end.
        if let (Some(a), Some(b)) = (first.rows[i].2, last.rows[i].2) {
            line += &format!(" {:>16.2}", b / a.max(1e-3) / size_ratio);
        }
        println!("{line}");
    }
    let mut line = format!("{:<28}", "all (without text only)");
    for t in &total {
        line += &format!(" {t:>8.1} {:>8}", "");
    }
    let g = total[total.len() - 1] / total[0].max(1e-3);
    line += &format!(" {:>11.1}× {:>10.2}", g, g / size_ratio);
    println!("{line}");
    let mut line = format!("{:<28}", "database MB (inputs / kept)");
    for s in scales {
        line += &format!(" {:>8.0} {:>8.0}", s.db_with_inputs_mb, s.db_mb);
    }
    println!("{line}");
    for s in scales {
        println!(
            "{}×: {} pages, {:.0} MB of text, {} pagelinks rows; {}",
            s.scale,
            s.pages,
            s.text_mb,
            s.links,
            s.facts
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// `--finish DB`: what `pipeline all` does after its last stage.
fn finish(db: &Path) -> Result<()> {
    let build = store::Build::update(db)?;
    build.drop_inputs(store::KeepInputs::default())?;
    build.finish()
}

fn main() -> Result<()> {
    let a = Args::parse();
    if let Some(db) = &a.finish {
        return finish(db);
    }
    if let Some(dir) = &a.generate {
        return generate(&a, dir, a.scales[0], a.links[0]);
    }
    if a.scales.len() != a.links.len() {
        bail!(
            "{} scales but {} link counts: give one --links per --scales",
            a.scales.len(),
            a.links.len()
        );
    }
    if a.scales.iter().any(|&s| !(s > 0.0 && s.is_finite())) {
        bail!("scales must be positive");
    }
    if !a.bin.exists() {
        bail!(
            "{}: no clue-db binary (build it: `cargo build --release`, or give --bin)",
            a.bin.display()
        );
    }
    let tmp = match &a.tmp {
        Some(dir) => tempfile::Builder::new()
            .prefix("clue-db-bench-scale.")
            .tempdir_in(dir)?,
        None => tempfile::Builder::new()
            .prefix("clue-db-bench-scale.")
            .tempdir()?,
    };
    // Ctrl-C, SIGTERM, SIGHUP: the folder goes too (the children get the terminal's signal).
    let path = tmp.path().to_path_buf();
    ctrlc::set_handler(move || {
        let _ = std::fs::remove_dir_all(&path);
        std::process::exit(130);
    })
    .context("installing the signal handler")?;

    println!(
        "bench-scale: {} cores, seed {}, {}; temporary folder {}",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        a.seed,
        a.bin.display(),
        tmp.path().display()
    );
    let mut done = Vec::new();
    for (&scale, &links) in a.scales.iter().zip(&a.links) {
        done.push(run_scale(&a, tmp.path(), scale, links)?);
    }
    summary(&done);
    // SAFETY: `rusage` is plain data filled by the kernel.
    let mut own: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut own) };
    println!(
        "the harness's own peak memory (a floor of every figure above): {:.0} MB",
        own.ru_maxrss as f64 / 1024.0
    );
    Ok(())
}
