//! End-to-end tests of `clue-db download` against the fake dumps site of `fakewiki::dumps` (a
//! finished run and a newer unfinished one, built from the real samples): the binary's output,
//! exit codes and files, and that what it downloads is what `clue-db ingest` reads.

mod common;

use common::{clue_db, count, open, poll_bounded};
use fakewiki::Server;
use fakewiki::dumps::{self, DONE_DATE, DumpSite, Fault, SUFFIXES};
use std::path::{Path, PathBuf};

const WIKI: &str = "simplewiki";

/// `clue-db download --wiki simplewiki --mirror SERVER --dir DIR --backoff-ms 1 EXTRA…`.
fn download(server: &Server, dir: &Path, extra: &[&str]) -> common::Run {
    let mut args: Vec<std::ffi::OsString> = vec![
        "download".into(),
        "--wiki".into(),
        WIKI.into(),
        "--mirror".into(),
        server.origin.clone().into(),
        "--dir".into(),
        dir.as_os_str().to_owned(),
        "--backoff-ms".into(),
        "1".into(),
    ];
    args.extend(extra.iter().map(|s| s.into()));
    clue_db(args)
}

/// The `Range` headers of the requests for the file with this suffix, in order.
fn ranges_asked(server: &Server, suffix: &str) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with(suffix))
        .filter_map(|r| r.headers.get("range").cloned())
        .collect()
}

fn run_dir(dir: &Path) -> PathBuf {
    dir.join(WIKI).join(DONE_DATE)
}

fn path_of(dir: &Path, suffix: &str) -> PathBuf {
    run_dir(dir).join(dumps::file_name(WIKI, DONE_DATE, suffix))
}

/// Where the download keeps `suffix`'s file while it is incomplete.
fn part_of(dir: &Path, suffix: &str) -> PathBuf {
    let mut part = path_of(dir, suffix).into_os_string();
    part.push(".part");
    PathBuf::from(part)
}

#[test]
fn download_fetches_the_latest_finished_run_and_prints_its_folder() {
    let server = DumpSite::new(WIKI).serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&server, dir.path(), &[]).ok();
    assert_eq!(
        run.stdout.lines().last(),
        Some(&*run_dir(dir.path()).display().to_string())
    );
    assert!(
        run.stderr.contains("skipping the run 20240920"),
        "{}",
        run.stderr
    );
    let mut record = String::new();
    for (suffix, bytes) in dumps::files() {
        let got = std::fs::read(path_of(dir.path(), suffix)).unwrap();
        assert!(got == *bytes, "{suffix}");
        record.push_str(&format!(
            "{}  {}\n",
            dumps::sha1_hex(bytes),
            dumps::file_name(WIKI, DONE_DATE, suffix)
        ));
    }
    let verified = std::fs::read_to_string(run_dir(dir.path()).join("VERIFIED")).unwrap();
    assert_eq!(verified, record);

    // The downloaded run is what the readers read: the multistream dump with its index…
    let db = dir.path().join("text.sqlite");
    let xml = path_of(dir.path(), SUFFIXES[0]);
    let index = path_of(dir.path(), SUFFIXES[1]);
    clue_db([
        "ingest".as_ref(),
        "--format".as_ref(),
        "multistream".as_ref(),
        xml.as_os_str(),
        "--index".as_ref(),
        index.as_os_str(),
        "--db".as_ref(),
        db.as_os_str(),
    ])
    .ok();
    assert_eq!(count(&open(&db), "SELECT count(*) FROM pages"), 206);
    // …and the SQL tables.
    let db = dir.path().join("links.sqlite");
    let mut args: Vec<std::ffi::OsString> = vec!["ingest".into(), "--format".into(), "sql".into()];
    for suffix in &SUFFIXES[2..6] {
        args.push(path_of(dir.path(), suffix).into_os_string());
    }
    args.extend(["--db".into(), db.as_os_str().to_owned()]);
    clue_db(args).ok();
    assert!(count(&open(&db), "SELECT count(*) FROM pages") > 0);

    // Again: nothing is fetched but the status and the checksums.
    let before = server.count();
    let again = download(&server, dir.path(), &[]).ok();
    assert_eq!(again.stdout, run.stdout);
    let paths: Vec<String> = server.requests()[before..]
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert!(
        paths
            .iter()
            .all(|p| p.ends_with('/') || p.ends_with(".json") || p.ends_with(".txt")),
        "{paths:?}"
    );
    assert!(again.stderr.contains("not read again"), "{}", again.stderr);
}

#[test]
fn download_resumes_a_cut_file_with_range() {
    let multistream = SUFFIXES[0];
    let server = DumpSite::new(WIKI)
        .fault(Fault::CutAfter(multistream, 500_000))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&server, dir.path(), &["--date", DONE_DATE]).ok();
    assert!(run.stderr.contains("connection lost"), "{}", run.stderr);
    let ranges = ranges_asked(&server, multistream);
    assert_eq!(ranges, ["bytes=500000-"]);
    assert!(std::fs::read(path_of(dir.path(), multistream)).unwrap() == dumps::file(multistream));
}

#[test]
fn download_refuses_a_corrupted_file_and_keeps_it_aside() {
    let page = SUFFIXES[2];
    let server = DumpSite::new(WIKI).fault(Fault::Corrupt(page)).serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&server, dir.path(), &["--date", DONE_DATE]).failed();
    let name = dumps::file_name(WIKI, DONE_DATE, page);
    assert!(run.stderr.contains(&name), "{}", run.stderr);
    assert!(run.stderr.contains("SHA-1 mismatch"), "{}", run.stderr);
    assert!(
        run.stderr.contains(&dumps::sha1_hex(dumps::file(page))),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.is_empty(),
        "no run folder printed: {}",
        run.stdout
    );
    let bad = run_dir(dir.path()).join(format!("{name}.bad"));
    assert!(bad.exists());
    assert!(!path_of(dir.path(), page).exists());
    assert!(!run_dir(dir.path()).join("VERIFIED").exists());
}

#[test]
fn download_names_the_url_of_a_404() {
    let server = DumpSite::new(WIKI)
        .fault(Fault::NotFound("linktarget.sql.gz".into()))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&server, dir.path(), &["--date", DONE_DATE]).failed();
    let url = format!(
        "{}/{WIKI}/{DONE_DATE}/{}",
        server.origin,
        dumps::file_name(WIKI, DONE_DATE, "linktarget.sql.gz")
    );
    assert!(run.stderr.contains(&url), "{}", run.stderr);
    assert!(run.stderr.contains("404"), "{}", run.stderr);
    // An unknown wiki: the run listing's URL.
    let run = clue_db([
        "download",
        "--wiki",
        "nosuchwiki",
        "--mirror",
        &server.origin,
        "--dir",
        &dir.path().display().to_string(),
    ])
    .failed();
    assert!(
        run.stderr
            .contains(&format!("{}/nosuchwiki/: not found", server.origin)),
        "{}",
        run.stderr
    );
}

/// Starts `clue-db download` from `server` into `dir` in the background and returns once the
/// `.part` of `suffix` holds `stall` bytes (where the server stops sending): the child and that
/// `.part`'s path. Bounded, so a download that never gets there fails the test.
fn stalled_download(
    server: &Server,
    dir: &Path,
    suffix: &str,
    stall: usize,
) -> (std::process::Child, PathBuf) {
    let part = part_of(dir, suffix);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_clue-db"))
        .args(["download", "--wiki", WIKI, "--date", DONE_DATE, "--mirror"])
        .arg(&server.origin)
        .arg("--dir")
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let reached = poll_bounded(std::time::Duration::from_secs(60), || {
        (std::fs::metadata(&part).map_or(0, |m| m.len()) >= stall as u64).then_some(())
    });
    assert!(reached.is_some(), "the .part never reached {stall} bytes");
    (child, part)
}

#[test]
fn download_interrupted_by_ctrl_c_keeps_the_part_and_resumes_it() {
    let multistream = SUFFIXES[0];
    let stall = 400_000;
    let server = DumpSite::new(WIKI)
        .fault(Fault::StallAfter(multistream, stall))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let (child, part) = stalled_download(&server, dir.path(), multistream, stall);
    // SAFETY: kill(2) on the child we started, with SIGINT (what Ctrl-C sends).
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::metadata(&part).unwrap().len(), stall as u64);
    assert!(!path_of(dir.path(), multistream).exists());

    let run = download(&server, dir.path(), &["--date", DONE_DATE]).ok();
    assert!(run.stderr.contains("resumed at"), "{}", run.stderr);
    let ranges = ranges_asked(&server, multistream);
    assert_eq!(ranges, [format!("bytes={stall}-")]);
    assert!(std::fs::read(path_of(dir.path(), multistream)).unwrap() == dumps::file(multistream));
    assert!(!part.exists());
}

/// Two downloads into one run folder (issue 22, item 5): the second used to open the first's
/// `.part`, get the whole file from a mirror that ignores `Range`, and truncate it under the
/// first, which then wrote `VERIFIED` over a corrupt file. Now the second fails at once, naming
/// the folder's lock, and leaves the first's bytes alone; the run completes afterwards with
/// every file on disk matching `VERIFIED`.
#[test]
fn a_second_download_into_the_same_run_folder_is_refused() {
    let multistream = SUFFIXES[0];
    let stall = 400_000;
    let server = DumpSite::new(WIKI)
        .fault(Fault::StallAfter(multistream, stall))
        .fault(Fault::IgnoreRange(multistream))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let (first, part) = stalled_download(&server, dir.path(), multistream, stall);
    let second = download(&server, dir.path(), &["--date", DONE_DATE]);
    assert!(second.code.is_some_and(|c| c != 0), "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains("another download is writing this run folder")
            && second.stderr.contains(".lock"),
        "{}",
        second.stderr
    );
    assert_eq!(std::fs::metadata(&part).unwrap().len(), stall as u64);
    // SAFETY: kill(2) on the child we started, with SIGINT (what Ctrl-C sends).
    unsafe { libc::kill(first.id() as libc::pid_t, libc::SIGINT) };
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(!run_dir(dir.path()).join("VERIFIED").exists());

    // The lock died with the process: the run completes, and what VERIFIED says holds on disk.
    download(&server, dir.path(), &["--date", DONE_DATE]).ok();
    let verified = std::fs::read_to_string(run_dir(dir.path()).join("VERIFIED")).unwrap();
    assert_eq!(verified.lines().count(), SUFFIXES.len());
    for line in verified.lines() {
        let (sha1, name) = line.split_once("  ").unwrap();
        let on_disk = std::fs::read(run_dir(dir.path()).join(name)).unwrap();
        assert_eq!(dumps::sha1_hex(&on_disk), sha1, "{name}");
    }
}

/// Mirror text reaches the terminal escaped (issue 22, item 8): a job status that is a terminal
/// escape sequence (set the window title, clear the screen) shows as text, both on the progress
/// line of `latest` skipping the unfinished run and in the error of a `--date` naming it.
#[test]
fn mirror_text_is_escaped_on_the_terminal() {
    let server = DumpSite::new(WIKI)
        .fault(Fault::StatusText("\u{1b}]0;PWNED\u{7}\u{1b}[2J"))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&server, dir.path(), &[]).ok();
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
    assert!(
        run.stderr.contains("skipping the run")
            && run.stderr.contains("\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J"),
        "{}",
        run.stderr
    );
    let run = download(&server, dir.path(), &["--date", dumps::UNFINISHED_DATE]).failed();
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
    assert!(
        run.stderr.contains("is not finished")
            && run.stderr.contains("\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J"),
        "{}",
        run.stderr
    );
}

/// A mirror that publishes a different SHA-1 for a file of a verified run (issue 22, item 7)
/// used to take the run out of use: `VERIFIED` deleted, the good file moved to `.bad` and
/// downloaded again (for enwiki, hours). Now the download stops before touching the folder,
/// names the file and both sums, and the run stays verified: the pipeline still reads it.
#[test]
fn a_changed_published_sha1_never_costs_a_verified_file() {
    let good = DumpSite::new(WIKI).serve();
    let dir = tempfile::tempdir().unwrap();
    download(&good, dir.path(), &["--date", DONE_DATE]).ok();
    let verified = std::fs::read(run_dir(dir.path()).join("VERIFIED")).unwrap();
    let page = SUFFIXES[2];
    let resynced = DumpSite::new(WIKI).fault(Fault::WrongSha1(page)).serve();
    let run = download(&resynced, dir.path(), &["--date", DONE_DATE]);
    assert!(run.code.is_some_and(|c| c != 0), "{}", run.stderr);
    assert!(
        run.stderr.contains("now publishes other SHA-1s")
            && run
                .stderr
                .contains(&dumps::file_name(WIKI, DONE_DATE, page))
            && run.stderr.contains("kept as they are"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(run_dir(dir.path()).join("VERIFIED")).unwrap(),
        verified
    );
    assert!(std::fs::read(path_of(dir.path(), page)).unwrap() == dumps::file(page));
    let bad = run_dir(dir.path()).join(format!("{}.bad", dumps::file_name(WIKI, DONE_DATE, page)));
    assert!(!bad.exists());
    assert!(
        resynced.requests().iter().all(|r| !r.path.ends_with(page)),
        "nothing downloaded"
    );
}

/// Bounds on what a mirror can make a download do (issue 22, item 6): a file that goes on past
/// its published size is stopped at that size (a mirror that sent for ever filled 314 MB in a
/// second for a file of 1,405 bytes); a redirect to another host is refused; a trickle ends at
/// `--file-deadline`, its bytes kept for the next run.
#[test]
fn a_mirror_cannot_send_past_the_published_size_redirect_elsewhere_or_trickle_for_ever() {
    let page = SUFFIXES[2];
    let published = dumps::file(page).len() as u64;
    let server = DumpSite::new(WIKI)
        .fault(Fault::Oversize(page, 4 << 20))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&server, dir.path(), &["--date", DONE_DATE]);
    assert!(run.code.is_some_and(|c| c != 0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("the mirror sends more than {published} bytes")),
        "{}",
        run.stderr
    );
    let part = part_of(dir.path(), page);
    assert!(std::fs::metadata(&part).map_or(0, |m| m.len()) <= published);
    assert!(!run_dir(dir.path()).join("VERIFIED").exists());

    let elsewhere = DumpSite::new(WIKI)
        .fault(Fault::RedirectTo(
            page,
            "http://localhost:9/elsewhere".into(),
        ))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(&elsewhere, dir.path(), &["--date", DONE_DATE]);
    assert!(run.code.is_some_and(|c| c != 0), "{}", run.stderr);
    assert!(
        run.stderr.contains("a redirect to another host"),
        "{}",
        run.stderr
    );

    let multistream = SUFFIXES[0];
    let trickle = DumpSite::new(WIKI)
        .fault(Fault::StallAfter(multistream, 100_000))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(
        &trickle,
        dir.path(),
        &["--date", DONE_DATE, "--file-deadline", "1"],
    );
    assert!(run.code.is_some_and(|c| c != 0), "{}", run.stderr);
    assert!(
        run.stderr.contains("not complete after 1 s"),
        "{}",
        run.stderr
    );
    let part = part_of(dir.path(), multistream);
    assert_eq!(std::fs::metadata(&part).unwrap().len(), 100_000);
}

/// `--speed-limit` and `--speed-time` (issue 22, item 6): a mirror trickling a byte every 20 ms
/// is left after a second below 10 kB/s, and the file is resumed on a new connection.
#[test]
fn a_trickling_mirror_is_left_below_the_speed_limit_and_resumed() {
    let multistream = SUFFIXES[0];
    let server = DumpSite::new(WIKI)
        .fault(Fault::TrickleAfter(multistream, 200_000))
        .serve();
    let dir = tempfile::tempdir().unwrap();
    let run = download(
        &server,
        dir.path(),
        &[
            "--date",
            DONE_DATE,
            "--speed-limit",
            "10000",
            "--speed-time",
            "1",
        ],
    )
    .ok();
    assert!(
        run.stderr.contains("slower than 10000 bytes/s"),
        "{}",
        run.stderr
    );
    assert_eq!(ranges_asked(&server, multistream).len(), 1);
    assert!(std::fs::read(path_of(dir.path(), multistream)).unwrap() == dumps::file(multistream));
}
