//! `clue-db download`: parses, calls the `download` crate, shows its progress, prints the run
//! folder.

use anyhow::{Context, Result};
use clap::Args;
use download::{Activity, DateSpec, FileReport, How, Observer, Options};
use indicatif::{ProgressBar, ProgressStyle};
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args)]
pub struct DownloadArgs {
    /// The wiki, by its database name on the dumps site: enwiki, simplewiki, dewiki, frwiki…
    #[arg(long)]
    wiki: String,
    /// `latest` (the newest run whose seven files are all finished; a newer run still being
    /// written is skipped) or a run's date, YYYYMMDD.
    #[arg(long, default_value = "latest")]
    date: DateSpec,
    /// The dumps folder: the run goes to DIR/WIKI/DATE/.
    #[arg(long, default_value = "dumps")]
    dir: PathBuf,
    /// The dumps site or a mirror of it (the same layout: MIRROR/WIKI/DATE/FILE).
    #[arg(long, default_value = download::DEFAULT_MIRROR)]
    mirror: String,
    /// The User-Agent sent with every request. Wikimedia asks for one naming the tool and a way
    /// to reach you: `clue-db/0.1 (you@example.org)`.
    #[arg(long)]
    user_agent: Option<String>,
    /// Milliseconds before the first retry (doubled for each further one, capped at 64 times
    /// this), and the length of one second of `Retry-After`; for tests.
    #[arg(long, hide = true)]
    backoff_ms: Option<u64>,
    /// Seconds one file may take over all its attempts; past it the download stops (what
    /// arrived stays in the `.part`, and the next run resumes it). With --speed-limit, this is
    /// what ends a mirror that sends just fast enough for ever.
    #[arg(long, value_name = "SECONDS", default_value_t = download::DEFAULT_FILE_DEADLINE.as_secs())]
    file_deadline: u64,
    /// Bytes per second below which a connection is dropped, once it has been that slow for
    /// --speed-time seconds; the next attempt resumes on a new connection (a mirror that only
    /// trickles is given up after a few). 0 turns the check off, for a very slow line.
    #[arg(long, value_name = "BYTES_PER_S", default_value_t = download::DEFAULT_SPEED_LIMIT)]
    speed_limit: u64,
    /// Seconds a connection may stay below --speed-limit.
    #[arg(long, value_name = "SECONDS", default_value_t = download::DEFAULT_SPEED_TIME.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    speed_time: u64,
}

pub fn download(a: DownloadArgs) -> Result<()> {
    let mut options = Options::default();
    if let Some(ua) = a.user_agent {
        options.user_agent = ua;
    }
    if let Some(ms) = a.backoff_ms {
        options.backoff = Duration::from_millis(ms);
        options.max_backoff = Duration::from_millis(ms.saturating_mul(64));
        options.retry_after_unit = Duration::from_millis(ms);
    }
    options.file_deadline = Duration::from_secs(a.file_deadline);
    options.speed_limit = a.speed_limit;
    options.speed_time = Duration::from_secs(a.speed_time);
    let request = download::Request {
        wiki: a.wiki.clone(),
        date: a.date,
        dir: a.dir.clone(),
        mirror: a.mirror,
    };
    // The `.part` being written holds only whole, checked-later bytes at any moment: quitting
    // at once loses nothing, and the next run resumes it.
    let folder = crate::out::escape(&a.dir.join(&a.wiki).display().to_string()).into_owned();
    ctrlc::set_handler(move || {
        eprintln!(
            "\ninterrupted: the file being downloaded stays as NAME.part under {folder}; run the \
             same command again to resume it"
        );
        std::process::exit(130);
    })
    .context("installing the Ctrl-C handler")?;
    let progress = Progress::default();
    let run = download::download(&request, &options, &progress)
        .with_context(|| format!("downloading the {} dump", a.wiki))?;
    let total: u64 = run.files.iter().map(|f| f.size).sum();
    eprintln!(
        "{}",
        crate::out::escape(&format!(
            "{} {}: {} files, {}, verified in {}",
            run.wiki,
            run.date,
            run.files.len(),
            mb(total),
            run.run_dir.display()
        ))
    );
    // The last line of stdout is the run folder, for scripts.
    let mut out = crate::out::stdout();
    writeln!(out, "{}", run.run_dir.display())?;
    Ok(())
}

/// Bytes in decimal units, as the dumps site shows sizes.
fn mb(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} kB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.2} GB", b / 1e9),
    }
}

/// Progress bars on stderr (indicatif draws nothing when stderr is not a terminal) and one line
/// per file, retry and note. Everything it prints is escaped (`crate::out::escape`), as is
/// every error `main` prints: job statuses, notes, retry reasons and URLs may come from the
/// mirror.
#[derive(Default)]
struct Progress {
    bar: RefCell<Option<ProgressBar>>,
}

impl Progress {
    /// Prints a line without tearing the bar, its control characters escaped: most of what
    /// is printed comes from the mirror (job statuses, messages), and a terminal must not run
    /// a mirror's escape sequences.
    fn line(&self, text: &str) {
        let text = crate::out::escape(text);
        match &*self.bar.borrow() {
            Some(bar) => bar.suspend(|| eprintln!("{text}")),
            None => eprintln!("{text}"),
        }
    }
}

impl Observer for Progress {
    fn run_chosen(&self, wiki: &str, date: &str, skipped: &[String]) {
        for s in skipped {
            self.line(&format!("{wiki}: skipping the run {s}"));
        }
        self.line(&format!("{wiki}: run {date}"));
    }

    fn file_start(&self, name: &str, activity: Activity, total: Option<u64>, done: u64) {
        let verb = match activity {
            Activity::Download => "downloading",
            Activity::Resume => "resuming",
            Activity::Hash => "checking",
        };
        let (bar, template) = match total {
            Some(total) => (
                ProgressBar::new(total),
                "{prefix} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
            ),
            None => (
                ProgressBar::new_spinner(),
                "{prefix} {spinner} {bytes} ({bytes_per_sec})",
            ),
        };
        bar.set_style(
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(crate::out::escape(&format!("{verb} {name}")).into_owned());
        bar.set_position(done);
        bar.reset_eta();
        if let Some(old) = self.bar.replace(Some(bar)) {
            old.finish_and_clear();
        }
    }

    fn bytes(&self, n: u64) {
        if let Some(bar) = &*self.bar.borrow() {
            bar.inc(n);
        }
    }

    fn restart(&self) {
        if let Some(bar) = &*self.bar.borrow() {
            bar.set_position(0);
            bar.reset_eta();
        }
    }

    fn file_end(&self, _name: &str) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn file_done(&self, f: &FileReport) {
        let secs = f.elapsed.as_secs_f64();
        let how = match f.how {
            How::Trusted => "verified earlier (VERIFIED, same size), not read again".to_string(),
            How::Rehashed => format!("already here, SHA-1 ok ({secs:.1} s)"),
            How::Downloaded {
                resumed_from,
                received,
            } => {
                let resumed = if resumed_from > 0 {
                    format!(" (resumed at {})", mb(resumed_from))
                } else {
                    String::new()
                };
                format!(
                    "{} downloaded{resumed} in {secs:.1} s ({}/s), SHA-1 ok",
                    mb(received),
                    mb((received as f64 / secs.max(1e-3)) as u64)
                )
            }
        };
        self.line(&format!("{}: {}, {how}", f.name, mb(f.size)));
    }

    fn retry(&self, url: &str, reason: &str, wait: Duration, failures: u32) {
        self.line(&format!(
            "{url}: {reason}; retrying in {:.1} s (failure {failures})",
            wait.as_secs_f64()
        ));
    }

    fn note(&self, message: &str) {
        self.line(message);
    }
}
