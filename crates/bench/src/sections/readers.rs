//! Section 1: the readers. One `clue-db read --format F PATH` per source (pages counted,
//! nothing stored), the command-line decompressors for reference, two whole ingests with their
//! peak memory, the synthetic 6 M-row `pagelinks` read, and the multistream dump read at 1 to
//! all the machine's threads.

use super::{Ctx, remove, rule, section};
use crate::dumps;
use crate::parse::ReadLine;
use crate::proc;
use crate::synth::SqlFrame;
use anyhow::{Context, Result};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The files of the shared data folder it reads.
pub struct Sources {
    pub wikispeedia: PathBuf,
    pub enwiki: PathBuf,
    pub tables: PathBuf,
    pub extractor: PathBuf,
    pub sql: PathBuf,
}

impl Sources {
    pub fn of(data: &Path) -> Sources {
        // The corpora's files as the pipeline names them (`pipeline::corpora`).
        let corpus = |name: &str| {
            pipeline::corpora::offline(name)
                .expect("an offline corpus")
                .path(data)
        };
        Sources {
            wikispeedia: corpus("wikispeedia"),
            enwiki: corpus("enwiki-sample"),
            tables: data.join("enwiki-sample/enwiki-table-markup.xml.bz2"),
            extractor: corpus("enwiki-2015-wikiextractor"),
            sql: data.join("sql-sample"),
        }
    }
}

/// A row of the table.
pub fn row(label: &str, format: &str, cells: [&str; 5]) -> String {
    let [pages, mb, s, pps, mbps] = cells;
    format!("{label:<44} {format:<12} {pages:>9} {mb:>9} {s:>8} {pps:>10} {mbps:>9}")
}

/// The row of one `clue-db read`.
pub fn read_row(label: &str, format: &str, r: &ReadLine) -> String {
    row(
        label,
        format,
        [
            &r.pages.to_string(),
            &format!("{:.1}", r.mb),
            &format!("{:.2}", r.seconds),
            &format!("{:.0}", r.pages_per_second),
            &format!("{:.1}", r.mb_per_second),
        ],
    )
}

/// The row of a decompressor's own run: `bytes` out in `seconds`.
pub fn reference_row(label: &str, seconds: f64, bytes: u64) -> String {
    let mb = bytes as f64 / 1e6;
    row(
        label,
        "(reference)",
        [
            "-",
            &format!("{mb:.1}"),
            &format!("{seconds:.2}"),
            "-",
            &format!("{:.1}", mb / seconds.max(1e-9)),
        ],
    )
}

/// `uname -sr`.
fn kernel() -> String {
    // SAFETY: `utsname` is plain data filled by the kernel; its fields are NUL-terminated.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return "unknown kernel".into();
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    format!("{} {}", field(&u.sysname), field(&u.release))
}

/// Runs `clue-db read --format FORMAT ARGS…` (with `env`) and prints its row.
fn read(
    ctx: &Ctx,
    label: &str,
    env: Option<(&str, String)>,
    format: &str,
    args: &[OsString],
) -> Result<()> {
    let mut cmd = ctx.clue_db();
    cmd.args(["read", "--format", format]).args(args);
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let out = proc::output(&mut cmd, &ctx.tmp("read.log"))?;
    let r = ReadLine::parse(&out).with_context(|| proc::shown(&cmd))?;
    println!("{}", read_row(label, format, &r));
    Ok(())
}

fn os(p: &Path) -> OsString {
    p.as_os_str().to_owned()
}

/// Decompresses `src` into `dst` with the command-line `tool -dc` (the reference row), or, where
/// the tool is not installed, with the Rust decoder the readers use (and says so). Returns the
/// label, the seconds and the bytes written.
fn decompress(
    ctx: &Ctx,
    tool: &str,
    what: &str,
    src: &Path,
    dst: &Path,
) -> Result<(String, f64, u64)> {
    let out = File::create(dst).with_context(|| format!("creating {}", dst.display()))?;
    let mut cmd = Command::new(tool);
    cmd.arg("-dc").arg(src).stdout(out);
    let label;
    let seconds = match proc::run(&mut cmd, &ctx.tmp("decompress.log")) {
        Ok(done) => {
            label = format!("  {tool} -dc of {what}");
            done.seconds
        }
        Err(e) if which(tool).is_none() => {
            let t = Instant::now();
            let input = File::open(src).with_context(|| format!("opening {}", src.display()))?;
            let mut reader: Box<dyn Read> = if tool == "xz" {
                Box::new(liblzma::read::XzDecoder::new_multi_decoder(input))
            } else {
                Box::new(bzip2::read::MultiBzDecoder::new(input))
            };
            let mut w = BufWriter::new(File::create(dst)?);
            std::io::copy(&mut reader, &mut w)
                .and_then(|_| w.flush())
                .with_context(|| format!("decompressing {} ({e:#})", src.display()))?;
            label = format!("  {tool} decoder (Rust, no {tool} installed) of {what}");
            t.elapsed().as_secs_f64()
        }
        Err(e) => return Err(e),
    };
    let bytes = std::fs::metadata(dst)?.len();
    Ok((label, seconds, bytes))
}

/// The program `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A whole ingest, with its wall time and the child's peak memory.
fn ingest(ctx: &Ctx, what: &str, format: &str, inputs: &[&Path], db: &Path) -> Result<()> {
    let mut cmd = ctx.clue_db();
    cmd.args(["ingest", "--format", format])
        .args(inputs)
        .arg("--db")
        .arg(db)
        .stdout(Stdio::null());
    let done = proc::run(&mut cmd, &ctx.tmp("ingest.log"))?;
    println!(
        "  ingest --format {format} of {what}: {:.2} s, peak RSS {:.0} MB (wait4)",
        done.seconds, done.peak_mb
    );
    Ok(())
}

fn frame(sql: &Path, table: &str) -> Result<SqlFrame> {
    let p = sql.join(format!("test-20240901-{table}.sql"));
    Ok(SqlFrame::of(
        &std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?,
    ))
}

fn create(p: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::with_capacity(
        1 << 20,
        File::create(p).with_context(|| format!("creating {}", p.display()))?,
    ))
}

pub fn run(ctx: &Ctx) -> Result<()> {
    let src = Sources::of(&ctx.data);
    section("1. Readers: `clue-db read` (pages counted, nothing stored; MB = uncompressed bytes)");
    println!("machine: {} cores; {}", ctx.cores, kernel());
    println!(
        "{}",
        row("source", "format", ["pages", "MB", "s", "pages/s", "MB/s"])
    );
    rule();

    read(
        ctx,
        "wikispeedia/ (tar.gz + tsv)",
        None,
        "wikispeedia",
        &[os(&src.wikispeedia)],
    )?;

    read(
        ctx,
        "enwiki excerpt .xml.bz2",
        None,
        "xml",
        &[os(&src.enwiki)],
    )?;
    let enwiki_xml = ctx.tmp("enwiki.xml");
    let (label, s, bytes) = decompress(ctx, "bzip2", "the excerpt", &src.enwiki, &enwiki_xml)?;
    read(
        ctx,
        "enwiki excerpt .xml (decompressed copy)",
        None,
        "xml",
        &[os(&enwiki_xml)],
    )?;
    println!("{}", reference_row(&label, s, bytes));
    read(
        ctx,
        "enwiki table-markup .xml.bz2",
        None,
        "xml",
        &[os(&src.tables)],
    )?;

    read(
        ctx,
        "WikiExtractor 2015 .txt.xz",
        None,
        "extractor",
        &[os(&src.extractor)],
    )?;
    let extractor_txt = ctx.tmp("extractor.txt");
    let (label, s, bytes) = decompress(
        ctx,
        "xz",
        "the extractor file",
        &src.extractor,
        &extractor_txt,
    )?;
    read(
        ctx,
        "WikiExtractor 2015 .txt (decompressed copy)",
        None,
        "extractor",
        &[os(&extractor_txt)],
    )?;
    println!("{}", reference_row(&label, s, bytes));
    remove(&[&extractor_txt]);
    // Ingest (read and store) of the same file, with its peak resident memory.
    let db = ctx.tmp("extractor.sqlite");
    ingest(ctx, "the .txt.xz", "extractor", &[&src.extractor], &db)?;
    remove(&[&db]);

    let mut dumps: Vec<PathBuf> = std::fs::read_dir(&src.sql)
        .with_context(|| format!("reading {}", src.sql.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    dumps.sort();
    let dumps: Vec<OsString> = dumps.iter().map(|p| os(p)).collect();
    read(
        ctx,
        &format!("sql-sample/ ({} dumps; pages = rows)", dumps.len()),
        None,
        "sql",
        &dumps,
    )?;

    // A pagelinks dump big enough to time, on lines as long as real dumps'.
    let pl = ctx.tmp("synthetic-pagelinks.sql");
    let mut w = create(&pl)?;
    let rows = dumps::write_pagelinks_lines(
        &mut w,
        &frame(&src.sql, "pagelinks")?,
        dumps::LongLines::BENCH,
        dumps::SEED,
    )
    .with_context(|| format!("writing {}", pl.display()))?;
    drop(w);
    read(
        ctx,
        &format!("synthetic pagelinks .sql ({} M rows)", rows / 1_000_000),
        None,
        "sql",
        &[os(&pl)],
    )?;
    remove(&[&pl]);

    // Ingest (read, store, resolve links) of a synthetic SQL dump set, with its peak memory
    // (link resolution spills to disk: memory stays bounded by SQLite's caches).
    const PAGES: u64 = 200_000;
    const LINKS: u64 = 2_000_000;
    let set = ["page", "linktarget", "pagelinks"].map(|t| ctx.tmp(&format!("synthetic-{t}.sql")));
    let write = |p: &Path, f: &dyn Fn(&mut BufWriter<File>) -> std::io::Result<()>| -> Result<()> {
        let mut w = create(p)?;
        f(&mut w).with_context(|| format!("writing {}", p.display()))
    };
    let fr = [
        frame(&src.sql, "page")?,
        frame(&src.sql, "linktarget")?,
        frame(&src.sql, "pagelinks")?,
    ];
    write(&set[0], &|w| dumps::write_page_dump(w, &fr[0], PAGES))?;
    write(&set[1], &|w| dumps::write_linktarget_dump(w, &fr[1], PAGES))?;
    write(&set[2], &|w| {
        dumps::write_random_links(w, &fr[2], PAGES, LINKS, dumps::SEED)
    })?;
    let db = ctx.tmp("sql.sqlite");
    ingest(
        ctx,
        "200,000 pages and 2 M links",
        "sql",
        &[&set[0], &set[1], &set[2]],
        &db,
    )?;
    remove(&[&set[0], &set[1], &set[2], &db]);

    // Multistream: the excerpt's pages, repeated, 100 pages a bz2 stream, with its index.
    let (ms, index) = (ctx.tmp("ms.xml.bz2"), ctx.tmp("ms-index.txt.bz2"));
    let xml = std::fs::read_to_string(&enwiki_xml)
        .with_context(|| format!("reading {}", enwiki_xml.display()))?;
    let (mut d, mut i) = (create(&ms)?, create(&index)?);
    let w = dumps::write_multistream(&xml, ctx.settings.ms_repeat, &mut d, &mut i)?;
    drop((d, i, xml));
    eprintln!("{} pages in {} streams", w.pages, w.streams);
    let label = format!("multistream (excerpt x{})", ctx.settings.ms_repeat);
    read(
        ctx,
        &format!("{label}, as one .xml.bz2"),
        None,
        "xml",
        &[os(&ms)],
    )?;
    // Scaling with cores: one run per thread count, 1 to the machine's cores.
    for threads in 1..=ctx.cores {
        read(
            ctx,
            &format!("{label}, {threads} thread(s)"),
            Some(("RAYON_NUM_THREADS", threads.to_string())),
            "multistream",
            &[os(&ms), "--index".into(), os(&index)],
        )?;
    }
    remove(&[&ms, &index, &enwiki_xml]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_line_up_with_the_header() {
        let head = row("source", "format", ["pages", "MB", "s", "pages/s", "MB/s"]);
        let r = ReadLine::parse("Xml: 206 pages, 6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s")
            .unwrap();
        let line = read_row("enwiki excerpt .xml.bz2", "xml", &r);
        assert_eq!(
            line,
            "enwiki excerpt .xml.bz2                      xml                206       6.1     0.56        371      11.0"
        );
        assert_eq!(line.len(), head.len());
        let reference = reference_row("  bzip2 -dc of the excerpt", 0.5, 6_100_000);
        assert_eq!(
            reference,
            "  bzip2 -dc of the excerpt                   (reference)          -       6.1     0.50          -      12.2"
        );
        assert_eq!(reference.len(), head.len());
    }
}
