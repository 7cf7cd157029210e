//! End-to-end tests of what RELIABILITY.md promises about the database file: a build never
//! replaces it with anything but a whole, finished database, whatever another `clue-db` does
//! meanwhile, and `--db` naming something that is not a database file is refused up front
//! (issue 13, items 1, 5 and 7).

mod common;

use common::{clue_db, count, enwiki_sample, meta, open, poll_bounded, utf8};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A database of the enwiki XML excerpt (206 pages) at `dir/X.sqlite`.
fn small_db(dir: &Path) -> PathBuf {
    let db = dir.join("X.sqlite");
    clue_db([
        "ingest",
        "--format",
        "xml",
        utf8(&enwiki_sample()),
        "--db",
        utf8(&db),
    ])
    .ok();
    db
}

/// Starts `clue-db ARGS` in the background from the repository root, with `env` set.
fn spawn(args: &[&str], env: &[(&str, &Path)]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clue-db"));
    cmd.args(args)
        .current_dir(common::repo_root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("starting clue-db")
}

/// Whether `child` reached its debug-build pause point (it writes `gate/reached`) within
/// `limit`; false as soon as it exits instead, or when the bound passes.
fn held_at_pause(child: &mut Child, gate: &Path, limit: Duration) -> bool {
    poll_bounded(limit, || {
        if gate.join("reached").exists() {
            Some(true)
        } else if child.try_wait().expect("waiting for clue-db").is_some() {
            Some(false)
        } else {
            None
        }
    })
    .unwrap_or(false)
}

/// Waits for `child` at most `limit`. Kills it and returns `None` if it is still running by
/// then.
fn wait_bounded(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let status = poll_bounded(limit, || child.try_wait().expect("waiting for clue-db"));
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    status
}

fn stderr_of(child: Child) -> String {
    let out = child.wait_with_output().expect("reading clue-db's output");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Item 1: `pipeline pagerank` is held (by a debug-build hook) right after it copied the
/// database into its temporary file; another `clue-db` on the same `--db`, one that fails, runs
/// to its end meanwhile, cleaning up what it takes for dead builds' files. Before the fix the
/// copy was not yet locked, the second run deleted it, and the first opened a new empty file
/// there, exited 0 and renamed it over the database (no `schema_version`, no pages).
#[test]
fn a_concurrent_failing_build_does_not_replace_the_database_with_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let pages = count(&open(&db), "SELECT count(*) FROM pages");
    let gate = dir.path().join("gate");
    std::fs::create_dir(&gate).unwrap();

    let mut first = spawn(
        &["pipeline", "pagerank", "--db", utf8(&db)],
        &[
            ("CLUE_DB_TEST_PAUSE", Path::new("copied")),
            ("CLUE_DB_TEST_PAUSE_DIR", &gate),
        ],
    );
    // Wait (bounded) until the first build is held just after its copy.
    assert!(
        held_at_pause(&mut first, &gate, Duration::from_secs(60)),
        "the first build never reached its pause point"
    );

    let second = clue_db([
        "ingest",
        "--format",
        "xml",
        "/nonexistent.xml",
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(
        second.stderr.contains("nonexistent.xml"),
        "{}",
        second.stderr
    );

    std::fs::write(gate.join("go"), b"").unwrap();
    let status = wait_bounded(&mut first, Duration::from_secs(120)).expect("first build hung");
    let stderr = stderr_of(first);
    let c = open(&db);
    assert_eq!(
        meta(&c, "schema_version").as_deref(),
        Some(store::SCHEMA_VERSION.to_string().as_str()),
        "the database lost its schema_version; first build: {status:?}\n{stderr}"
    );
    assert_eq!(count(&c, "SELECT count(*) FROM pages"), pages);
    // The first build either finished its work on the real copy or failed loudly.
    if status.success() {
        assert!(meta(&c, "pagerank.seconds").is_some(), "{stderr}");
    } else {
        assert!(stderr.contains("temporary file"), "{stderr}");
    }
    assert!(common::tmp_leftovers(dir.path()).is_empty());
}

/// Issue 23, item 3: `pipeline all` drops the page text and the links inside its own build.
/// Killed (`SIGKILL`) right after the drop, before `finish`, it leaves the database it was to
/// replace byte for byte, text and links included; the next build deletes its temporary file.
#[test]
fn a_build_killed_after_dropping_its_inputs_leaves_the_database_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let gate = dir.path().join("gate");
    std::fs::create_dir(&gate).unwrap();
    let mut build = spawn(
        &["pipeline", "all", "--db", utf8(&db)],
        &[
            ("CLUE_DB_TEST_PAUSE", Path::new("inputs dropped")),
            ("CLUE_DB_TEST_PAUSE_DIR", &gate),
        ],
    );
    if !held_at_pause(&mut build, &gate, Duration::from_secs(120)) {
        let _ = build.kill();
        panic!(
            "the build never reached its pause point:\n{}",
            stderr_of(build)
        );
    }
    // The temporary file holds the database without its inputs; the database is untouched.
    let tmp = PathBuf::from(std::fs::read_to_string(gate.join("reached")).unwrap());
    assert_eq!(count(&open(&tmp), "SELECT count(*) FROM page_text"), 0);
    build.kill().unwrap();
    build.wait().unwrap();
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the database changed"
    );
    let c = open(&db);
    assert!(count(&c, "SELECT count(*) FROM page_text") > 0);
    assert!(count(&c, "SELECT count(*) FROM link_graph") > 0);
    assert_eq!(common::tmp_leftovers(dir.path()).len(), 1);
    clue_db(["pipeline", "pagerank", "--db", utf8(&db)]).ok();
    assert!(common::tmp_leftovers(dir.path()).is_empty());
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(utf8(path)).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    path.symlink_metadata().unwrap().file_type().is_fifo()
}

/// Items 5 and 7: a FIFO as `--db` is refused by name, at once, by readers and builds alike
/// (before the fix, every command blocked in `open` forever, and a build renamed over it).
#[test]
fn a_fifo_as_db_is_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.sqlite");
    mkfifo(&fifo);
    let f = utf8(&fifo);
    let sample = enwiki_sample();
    let commands: [&[&str]; 4] = [
        &["info", "--db", f],
        &["suggest", "--pos", "apple", "--neg", "fire", "--db", f],
        &["pipeline", "pagerank", "--db", f],
        &["ingest", "--format", "xml", utf8(&sample), "--db", f],
    ];
    for args in commands {
        let mut child = spawn(args, &[]);
        let status = wait_bounded(&mut child, Duration::from_secs(60))
            .unwrap_or_else(|| panic!("clue-db {args:?} hung on a FIFO"));
        let stderr = stderr_of(child);
        assert!(!status.success(), "clue-db {args:?} succeeded");
        assert!(stderr.contains("is a FIFO"), "{args:?}: {stderr}");
        assert!(is_fifo(&fifo), "{args:?} replaced the FIFO");
    }
    assert!(common::tmp_leftovers(dir.path()).is_empty());
}

/// Item 5: a device node as `--db` is refused before the build (made here, in a temporary
/// folder, as a copy of /dev/null's numbers, so a regression replaces only that copy). Needs
/// the right to make device nodes; without it the test checks nothing.
#[test]
fn a_device_as_db_is_refused() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("null");
    let c = std::ffi::CString::new(utf8(&dev)).unwrap();
    if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } != 0 {
        eprintln!("cannot make a device node here; skipped");
        return;
    }
    let run = clue_db([
        "ingest",
        "--format",
        "xml",
        utf8(&enwiki_sample()),
        "--db",
        utf8(&dev),
    ])
    .failed();
    assert!(run.stderr.contains("is a device"), "{}", run.stderr);
    assert!(dev.symlink_metadata().unwrap().file_type().is_char_device());
}

/// Item 5: a symlink as `--db` is followed: its target gets the new database, the link stays a
/// link (before the fix the link was replaced by a file and its target left stale).
#[test]
fn a_symlink_as_db_builds_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let link = dir.path().join("link.sqlite");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    clue_db(["pipeline", "pagerank", "--db", utf8(&link)]).ok();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(meta(&open(&db), "pagerank.seconds").is_some());
    assert!(common::tmp_leftovers(dir.path()).is_empty());
}

/// Issue 46: `ingest --db notes.sqlite` replaced another program's SQLite database without a
/// word. A build refuses to replace a file that is not a clue-db database (SQLite or not),
/// naming it, before anything is written, unless `--overwrite` says so; a new path, an empty
/// file and a clue-db database are replaced as before.
#[test]
fn a_file_that_is_not_a_clue_db_database_is_replaced_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("notes.sqlite");
    let c = rusqlite::Connection::open(&foreign).unwrap();
    c.execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('keep me');")
        .unwrap();
    drop(c);
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "my notes\n").unwrap();
    let sample = enwiki_sample();
    for (db, what) in [(&foreign, "not a clue-db database"), (&text, "not SQLite")] {
        let before = std::fs::read(db).unwrap();
        for args in [
            vec!["ingest", "--format", "xml", utf8(&sample), "--db", utf8(db)],
            vec![
                "pipeline",
                "ingest",
                "--corpus",
                "enwiki-sample",
                "--db",
                utf8(db),
            ],
        ] {
            let run = clue_db(&args).failed();
            assert!(run.stderr.contains(utf8(db)), "{}", run.stderr);
            assert!(run.stderr.contains(what), "{}", run.stderr);
            assert!(run.stderr.contains("--overwrite"), "{}", run.stderr);
            assert_eq!(std::fs::read(db).unwrap(), before, "{args:?}");
        }
        assert!(common::tmp_leftovers(dir.path()).is_empty());
    }
    clue_db([
        "ingest",
        "--format",
        "xml",
        utf8(&sample),
        "--db",
        utf8(&foreign),
        "--overwrite",
    ])
    .ok();
    assert!(meta(&open(&foreign), "schema_version").is_some());
    // A clue-db database and an empty file are replaced without asking.
    clue_db([
        "ingest",
        "--format",
        "xml",
        utf8(&sample),
        "--db",
        utf8(&foreign),
    ])
    .ok();
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, "").unwrap();
    clue_db([
        "ingest",
        "--format",
        "xml",
        utf8(&sample),
        "--db",
        utf8(&empty),
    ])
    .ok();
}

/// Issue 46: a database someone switched to WAL (`journal_mode=wal`), in a read-only folder or
/// on a read-only mount, was "not a clue-db database": SQLite cannot open it read-only there
/// (it must create or write its `-shm` beside it). The message says so, with what to do. (The
/// folder is read-only for the child: run as root, the test runs it as `nobody`, whom the
/// folder's mode binds.)
#[test]
fn a_wal_database_in_a_read_only_folder_is_named_as_such() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let db = small_db(&ro);
    let c = rusqlite::Connection::open(&db).unwrap();
    let mode: String = c
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(c);
    // Then a -wal without its -shm (copied without it), and the file alone.
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    for wal in [true, false] {
        if wal {
            std::fs::write(ro.join("X.sqlite-wal"), b"").unwrap();
        } else {
            std::fs::remove_file(ro.join("X.sqlite-wal")).unwrap();
        }
        mode(dir.path(), 0o755).unwrap();
        mode(&ro, 0o555).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_clue-db"));
        cmd.args(["info", "--db", utf8(&db)])
            .current_dir(common::repo_root());
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            cmd.uid(65534).gid(65534);
        }
        let out = cmd.output().unwrap();
        mode(&ro, 0o755).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("a WAL database"), "{stderr}");
        assert!(stderr.contains("read-only"), "{stderr}");
        assert!(stderr.contains("journal_mode=DELETE"), "{stderr}");
        assert!(!stderr.contains("not a clue-db database"), "{stderr}");
        assert!(stderr.contains(utf8(&db)), "{stderr}");
    }
}

/// Runs `clue-db ingest --format FORMAT PATH --db DB` and expects it to fail, leaving `db`
/// byte for byte as it was; returns its stderr.
fn refused(format: &str, path: &Path, db: &Path) -> String {
    let before = std::fs::read(db).unwrap();
    let run = clue_db(["ingest", "--format", format, utf8(path), "--db", utf8(db)]).failed();
    assert_eq!(
        std::fs::read(db).unwrap(),
        before,
        "{format}: the database changed"
    );
    assert!(common::tmp_leftovers(db.parent().unwrap()).is_empty());
    run.stderr
}

/// Item 6: empty or garbage input was a successful ingest of 0 pages that replaced a good
/// database. Each is now refused, naming the file, and the database stays.
#[test]
fn empty_or_garbage_input_does_not_replace_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let file = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };

    let empty_sql = file("page.sql", b"");
    let err = refused("sql", &empty_sql, &db);
    assert!(err.contains("page.sql") && err.contains("no page"), "{err}");

    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let garbage_sql = file("garbage-page.sql", &garbage);
    let err = refused("sql", &garbage_sql, &db);
    assert!(err.contains("garbage-page.sql"), "{err}");

    let empty_docs = file("docs.txt", b"\n");
    let err = refused("extractor", &empty_docs, &db);
    assert!(err.contains("docs.txt") && err.contains("no page"), "{err}");

    let no_pages = file("none.xml", b"<mediawiki><siteinfo/></mediawiki>");
    let err = refused("xml", &no_pages, &db);
    assert!(err.contains("none.xml") && err.contains("no page"), "{err}");

    // One empty file among good ones is refused too, named (the good one alone is ingested).
    let good = file(
        "good.txt",
        b"<doc id=\"12\" url=\"u\" title=\"Anarchism\">\nAnarchism\n\nA text.\n</doc>\n",
    );
    let before = std::fs::read(&db).unwrap();
    let run = clue_db([
        "ingest",
        "--format",
        "extractor",
        utf8(&good),
        utf8(&empty_docs),
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(
        run.stderr.contains("docs.txt") && !run.stderr.contains("good.txt"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");

    // The real Wikispeedia corpus with an empty links.tsv.
    let ws = dir.path().join("wikispeedia");
    std::fs::create_dir(&ws).unwrap();
    for name in ["articles.tsv", "plaintext_articles.tar.gz"] {
        std::os::unix::fs::symlink(common::data().join("wikispeedia").join(name), ws.join(name))
            .unwrap();
    }
    std::fs::write(ws.join("links.tsv"), b"# no links\n").unwrap();
    let err = refused("wikispeedia", &ws, &db);
    assert!(
        err.contains("links.tsv") && err.contains("no link"),
        "{err}"
    );
}

/// Item 4: `--api-max-continue` bounds the `continue` rounds of one query; a server sending a
/// new token every time makes the fetch fail with the cap named.
#[test]
fn api_max_continue_stops_a_server_that_never_finishes() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = AtomicUsize::new(0);
    let server = fakewiki::serve(move |_| {
        let i = calls.fetch_add(1, Ordering::SeqCst);
        fakewiki::ok(serde_json::json!({
            "continue": {"plcontinue": format!("1|0|{i}"), "continue": "||"},
            "query": {"pages": [{"pageid": 1, "ns": 0, "title": "Pie",
                                 "links": [{"ns": 0, "title": "Apple"}]}]}
        }))
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let run = clue_db([
        "ingest",
        "--format",
        "api",
        server.base.as_str(),
        "--page-ids",
        "1",
        "--api-max-continue",
        "5",
        "--api-backoff-ms",
        "1",
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(
        run.stderr.contains("more than 5 `continue` rounds"),
        "{}",
        run.stderr
    );
    assert_eq!(server.count(), 6);
}

/// Item 9: a title with a terminal escape sequence is refused, and the message quoting it is
/// escaped; control characters in page text are dropped when stored.
#[test]
fn control_characters_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("docs.sqlite");
    let evil = dir.path().join("evil.txt");
    std::fs::write(
        &evil,
        "<doc id=\"5\" url=\"u\" title=\"Evil\x1b[2J\x07\">\nEvil\nText.\n</doc>\n",
    )
    .unwrap();
    let run = clue_db([
        "ingest",
        "--format",
        "extractor",
        utf8(&evil),
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(run.stderr.contains("page 5"), "{}", run.stderr);
    assert!(run.stderr.contains("control character"), "{}", run.stderr);
    assert!(
        !run.stderr.contains('\x1b') && !run.stderr.contains('\x07'),
        "raw control characters on stderr: {:?}",
        run.stderr
    );

    let noisy = dir.path().join("noisy.txt");
    std::fs::write(
        &noisy,
        "<doc id=\"6\" url=\"u\" title=\"Fine\">\nFine\nRing\x07 \x1b[31mred\x00.\n</doc>\n",
    )
    .unwrap();
    clue_db([
        "ingest",
        "--format",
        "extractor",
        utf8(&noisy),
        "--db",
        utf8(&db),
    ])
    .ok();
    let text = common::column(&open(&db), "SELECT text FROM page_text WHERE id = 6");
    assert_eq!(text, ["Ring [31mred."]);
}

/// Item 11: an error from SQLite names the database (a tampered `meta` value used to give only
/// "Invalid column type Blob at index: 1, name: value"); a huge word is not echoed whole.
#[test]
fn messages_name_the_database_and_cut_long_words() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute(
            "UPDATE meta SET value = x'00ff' WHERE key = 'ingest.format'",
            [],
        )
        .unwrap();
    }
    let run = clue_db(["info", "--db", utf8(&db)]).failed();
    assert!(run.stderr.contains("Invalid column type"), "{}", run.stderr);
    assert!(run.stderr.contains(utf8(&db)), "{}", run.stderr);
    assert!(run.stderr.contains("table meta"), "{}", run.stderr);

    // A write that fails names its table and stage (a trigger stands in for a full disk), and
    // the database stays.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "UPDATE meta SET value = 'xml' WHERE key = 'ingest.format';
         CREATE TRIGGER full BEFORE INSERT ON terms BEGIN SELECT RAISE(ABORT, 'disk is full'); END;",
    )
    .unwrap();
    drop(c);
    let before = std::fs::read(&db).unwrap();
    let inputs = common::inputs();
    let run = clue_db([
        "pipeline",
        "terms",
        "--inputs",
        utf8(&inputs),
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(
        run.stderr.contains("writing table terms") && run.stderr.contains("stage terms"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("disk is full"), "{}", run.stderr);
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");

    let word = "w".repeat(120_000);
    // The word is unknown (a warning, cut), and the database has no relatedness (an error).
    let run = clue_db(["suggest", "--pos", &word, "--db", utf8(&db)]).failed();
    assert!(
        run.stderr.len() < 2_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
    assert!(
        run.stderr.contains("warning") && run.stderr.contains("(120000 characters)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("pipeline relatedness"),
        "{}",
        run.stderr
    );
}

/// `info` is the tool to look at a database: one of another schema version shows its meta and
/// says it is not the version this binary reads (exit 0; the query commands still refuse it),
/// and one holding only its meta fails naming the tables it lacks.
#[test]
fn info_shows_what_it_can_of_a_database_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let with_meta = |name: &str, version: &str| {
        let db = dir.path().join(name);
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(&format!(
                "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
                 INSERT INTO meta VALUES ('schema_version', '{version}'), ('source', 'by hand');"
            ))
            .unwrap();
        db
    };
    let other = with_meta("other.sqlite", "7");
    let run = clue_db(["info", "--db", utf8(&other)]).ok();
    assert!(
        run.stdout
            .starts_with("schema_version\t7\nsource\tby hand\n"),
        "{}",
        run.stdout
    );
    let ours = store::SCHEMA_VERSION.to_string();
    let last = run.stdout.lines().last().unwrap();
    assert!(
        last.starts_with("readable\tno: schema version 7")
            && last.contains(&format!("reads version {ours}")),
        "{last}"
    );
    assert!(
        run.stderr.contains("only its meta is shown"),
        "{}",
        run.stderr
    );
    // The commands that read it still refuse it.
    let run = clue_db(["suggest", "--pos", "apple", "--db", utf8(&other)]).failed();
    assert!(run.stderr.contains("schema version 7"), "{}", run.stderr);

    let bare = with_meta("bare.sqlite", &ours);
    let run = clue_db(["info", "--db", utf8(&bare)]).failed();
    assert!(run.stdout.contains("source\tby hand"), "{}", run.stdout);
    assert!(
        run.stderr.contains("the database lacks")
            && run.stderr.contains("relatedness_vectors")
            && run.stderr.contains("clue-db pipeline all"),
        "{}",
        run.stderr
    );
}

// ---- issue 22: malformed stored data, and builds that yield nothing ----

/// [`small_db`] with every pipeline stage run on it (`pipeline all`: relatedness included),
/// keeping the page text and the links so that tests can build on it again.
fn built_db(dir: &Path) -> PathBuf {
    let db = small_db(dir);
    clue_db([
        "pipeline",
        "all",
        "--keep-text",
        "--keep-links",
        "--db",
        utf8(&db),
    ])
    .ok();
    db
}

/// Runs `clue-db ARGS` on `db` and expects an error (exit code non-zero, not a panic's 101)
/// whose message holds every one of `want`.
#[track_caller]
fn fails_naming(args: &[&str], db: &Path, want: &[&str]) {
    let mut all = args.to_vec();
    all.extend(["--db", utf8(db)]);
    let run = clue_db(&all);
    assert_ne!(run.code, Some(101), "{args:?} panicked:\n{}", run.stderr);
    let run = run.failed();
    for w in want {
        assert!(
            run.stderr.contains(w),
            "{args:?}: no {w:?} in:\n{}",
            run.stderr
        );
    }
}

/// Issue 22, item 9: a stored vector of the wrong length, a NaN in one, or a `clue_words` table
/// whose ids are not `0..n` is an error naming the table and the word, never a panic (a
/// 4-byte `relatedness_vectors.scores` made `suggest` and `guess` panic with "index out of
/// bounds", exit 101).
#[test]
fn malformed_stored_relatedness_is_an_error_naming_table_and_term() {
    let dir = tempfile::tempdir().unwrap();
    let good = built_db(dir.path());
    let clue_words = count(&open(&good), "SELECT count(*) FROM clue_words");
    assert!(clue_words > 1, "the sample yields clue words");
    let suggest = [
        "suggest",
        "--pos",
        "apple,water",
        "--neg",
        "fire",
        "--assassin",
        "ice",
    ];
    let guess = [
        "guess",
        "--clue",
        "water",
        "--count",
        "2",
        "--board",
        "apple,fire,ice",
    ];
    let tampered = |name: &str, sql: &str| {
        let db = dir.path().join(name);
        std::fs::copy(&good, &db).unwrap();
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
        db
    };
    let expected = format!("expected {clue_words} (clue_words rows)");

    // One score where there should be one per clue word; the guesser's reading (computed from
    // relatedness_by_id) short of one clue word's row.
    let db = tampered(
        "short.sqlite",
        "UPDATE relatedness_vectors SET scores = x'00000000' WHERE term = 'apple';
         DELETE FROM relatedness_by_id WHERE clue_id = 0
           AND card_id = (SELECT id FROM card_words WHERE word = 'apple');",
    );
    fails_naming(
        &suggest,
        &db,
        &["relatedness_vectors", "'apple' has 1 scores", &expected],
    );
    fails_naming(
        &guess,
        &db,
        &["relatedness_by_id", "'apple' has no row for clue word id 0"],
    );
    fails_naming(&guess, &db, &["pipeline relatedness"]);

    // Not a whole number of scores.
    let db = tampered(
        "ragged.sqlite",
        "UPDATE relatedness_vectors SET scores = x'0000' WHERE term = 'water';",
    );
    fails_naming(
        &suggest,
        &db,
        &["relatedness_vectors", "'water'", "2 bytes"],
    );

    // A NaN (0x7fc00000, little-endian) in place of the first score.
    let db = tampered(
        "nan.sqlite",
        "UPDATE relatedness_vectors SET scores = CAST(x'0000c07f' || substr(scores, 5) AS BLOB)
         WHERE term = 'apple';",
    );
    fails_naming(&suggest, &db, &["relatedness_vectors", "'apple'", "NaN"]);

    // A clue word's id moved out of `0..n`: every vector position after it would shift.
    let db = tampered(
        "ids.sqlite",
        "UPDATE clue_words SET id = id + 100000 WHERE id = 3;",
    );
    fails_naming(&suggest, &db, &["clue_words", "id"]);
    fails_naming(&guess, &db, &["clue_words", "id"]);
}

/// Issue 22, item 11: a build whose relatedness stage finds no clue word (every word below
/// `--min-count`) fails, and the database it would have replaced stays byte for byte (before,
/// `pipeline all` succeeded and wrote a database no query can use).
#[test]
fn a_build_yielding_no_clue_word_fails_and_keeps_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = built_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let run = clue_db([
        "pipeline",
        "all",
        "--min-count",
        "1000000000",
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(run.stderr.contains("no clue words"), "{}", run.stderr);
    // The floor given wins over the one the corpus's size sets.
    assert!(
        run.stderr.contains("--min-count 1000000000 times"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");
    assert!(common::tmp_leftovers(dir.path()).is_empty());
}

/// Issue 22, item 11: `--terms /dev/zero` read 2.1 GB and ran out of memory; it now fails at
/// the line cap, naming the file, and the database stays.
#[test]
fn an_endless_terms_file_is_refused_at_its_cap() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let run = clue_db([
        "pipeline",
        "terms",
        "--terms",
        "/dev/zero",
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(
        run.stderr.contains("/dev/zero") && run.stderr.contains("longer than"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");
}

/// Issue 22, item 11: a server answering every `continue` round with a new token and a few
/// hundred KB, each response under its cap and the rounds under theirs, grew `ingest --format
/// api` to 7.7 GB until it aborted, leaving its `.tmpPID`. The bytes of one query's rounds are
/// capped (`--api-max-query-bytes`): the fetch fails naming the cap, over a new database as over
/// an old one (which stays as it was), and no temporary file is left.
#[test]
fn api_rounds_of_one_query_stop_at_the_byte_cap() {
    // Each link carries a field that is read and not kept: what the rounds hold stays under
    // the cap on what they hold, and the cap on what they read is the one reached.
    let server = fakewiki::serve(move |req| {
        let round = req.params.get("plcontinue").cloned().unwrap_or_default();
        let links: Vec<_> = (0..4000)
            .map(|j| serde_json::json!({"ns": 0, "title": format!("Link {j}"), "x": format!("{round} {}", "x".repeat(40))}))
            .collect();
        fakewiki::ok(serde_json::json!({
            "continue": {"plcontinue": format!("{round}x"), "continue": "||"},
            "query": {"pages": [{"pageid": 1, "ns": 0, "title": "Pie", "links": links}]}
        }))
    });
    let dir = tempfile::tempdir().unwrap();
    let fetch = |db: &Path| {
        clue_db([
            "ingest",
            "--format",
            "api",
            server.base.as_str(),
            "--page-ids",
            "1",
            "--api-max-query-bytes",
            "1048576",
            "--api-backoff-ms",
            "1",
            "--db",
            utf8(db),
        ])
        .failed()
    };
    let run = fetch(&dir.path().join("new.sqlite"));
    assert!(
        run.stderr
            .contains("more than 1 MiB over the `continue` rounds of one query"),
        "{}",
        run.stderr
    );
    assert!(common::tmp_leftovers(dir.path()).is_empty());

    let db = small_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let run = fetch(&db);
    assert!(
        run.stderr.contains("--api-max-query-bytes"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");
    assert!(common::tmp_leftovers(dir.path()).is_empty());
    assert_eq!(server.count(), 8, "four rounds of each fetch");
}

/// Peak resident memory of `child` once it exits, in bytes (`wait4`: this child's alone, not
/// the largest of every child of the test process), and its exit status.
fn wait_peak_rss(child: &mut Child) -> (u64, i32) {
    let mut status = 0;
    // SAFETY: wait4 only writes the two values it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        assert_eq!(
            libc::wait4(child.id() as i32, &mut status, 0, &mut u),
            child.id() as i32
        );
        u
    };
    (usage.ru_maxrss as u64 * 1024, status)
}

/// Issue 46, item 8: a server answering every `continue` round with a response of empty
/// links (`links: [{},{},…]`) under the caps on a response and on a query's rounds made
/// `ingest --format api` hold 11 times the query's cap: each 3-byte `{}` became a 40-byte
/// record while parsing and a 24-byte `String` kept (2.86 GB under the default 256 MiB;
/// here, 16 MiB, 168 MB). A link without a title is no link, and what a query's pages hold is
/// counted against the cap too: the ingest stays within a few times the cap, and fails naming
/// it.
#[test]
fn api_ingest_holds_no_more_than_its_cap_of_links_without_titles() {
    let links = vec!["{}"; 700_000].join(",");
    let server = fakewiki::serve(move |req| {
        let round = req.params.get("plcontinue").cloned().unwrap_or_default();
        fakewiki::Action::Reply {
            status: 200,
            headers: vec![],
            body: format!(
                r#"{{"continue":{{"plcontinue":"{round}x","continue":"||"}},"query":{{"pages":[{{"pageid":1,"ns":0,"title":"Pie","links":[{links}]}}]}}}}"#
            ),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("api.sqlite");
    let mut child = spawn(
        &[
            "ingest",
            "--format",
            "api",
            server.base.as_str(),
            "--page-ids",
            "1",
            "--concurrency",
            "1",
            "--api-max-query-bytes",
            "16777216",
            "--api-backoff-ms",
            "1",
            "--db",
            utf8(&db),
        ],
        &[],
    );
    let (peak, status) = wait_peak_rss(&mut child);
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1,
        "{status}: {stderr}"
    );
    assert!(
        stderr.contains("more than 16 MiB over the `continue` rounds of one query"),
        "{stderr}"
    );
    assert!(server.count() >= 8, "{} rounds", server.count());
    assert!(peak < 64 << 20, "peak RSS {} MB", peak >> 20);
}

/// A relatedness parameter that would build no measure (`--alpha nan`, `--dims 0`), or a text
/// weight for a corpus the build did not read, is refused before any text is read, naming the
/// flag, and the database is left as it was: before the check, a NaN or a zero built a database
/// of NaN scores or zero vectors and replaced the good one.
#[test]
fn a_parameter_that_builds_no_measure_is_refused_and_the_database_survives() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    for (flag, value) in [("--alpha", "nan"), ("--dims", "0"), ("--window", "0")] {
        for stage in ["all", "relatedness"] {
            let run = clue_db(["pipeline", stage, flag, value, "--db", utf8(&db)]).failed();
            assert!(
                run.stderr.contains(&format!("{flag} ")),
                "{stage} {flag} {value}: {}",
                run.stderr
            );
            assert!(
                std::fs::read(&db).unwrap() == before,
                "{stage} {flag} {value}"
            );
        }
    }
    // A text weight for a corpus the build did not read would change nothing: refused, naming
    // the corpora it has (`clue-db ingest` records none), before any stage runs and before the
    // database is copied (the debug-build hook after the copy is never reached; `go` is there
    // so that a copy, if made, would not wait).
    for stage in ["all", "relatedness"] {
        let gate = dir.path().join(format!("gate-{stage}"));
        std::fs::create_dir(&gate).unwrap();
        std::fs::write(gate.join("go"), "").unwrap();
        let child = spawn(
            &[
                "pipeline",
                stage,
                "--text-weight",
                "wikispeedia=2",
                "--db",
                utf8(&db),
            ],
            &[
                ("CLUE_DB_TEST_PAUSE", Path::new("copied")),
                ("CLUE_DB_TEST_PAUSE_DIR", &gate),
            ],
        );
        let out = child.wait_with_output().expect("running clue-db");
        let run = common::Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
        .failed();
        // The hook is compiled into debug builds only, as the other pause tests here need too.
        assert!(
            !gate.join("reached").exists(),
            "{stage}: the database was copied before the weight was refused"
        );
        std::fs::remove_dir_all(&gate).unwrap();
        assert!(
            run.stderr.contains(
                "--text-weight \"wikispeedia\": no corpus of that name in this build (it was made \
                 by `clue-db ingest`"
            ),
            "{stage}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains(": done"), "{stage}: {}", run.stderr);
        assert!(
            std::fs::read(&db).unwrap() == before,
            "{stage} --text-weight"
        );
    }
    // With --corpus, before the first ingest; a weight that is no whole number from 1 to 8 as
    // the flags are read.
    let fresh = dir.path().join("fresh.sqlite");
    let data = common::data();
    for (weight, said) in [
        (
            "wikispeedia=2",
            "--text-weight \"wikispeedia\": no corpus of that name in this build (its corpora: \
             enwiki-sample)",
        ),
        ("enwiki-sample=0", "a whole number from 1 to 8"),
    ] {
        let run = clue_db([
            "pipeline",
            "all",
            "--corpus",
            "enwiki-sample",
            "--text-weight",
            weight,
            "--data",
            utf8(&data),
            "--db",
            utf8(&fresh),
        ])
        .failed();
        assert!(run.stderr.contains(said), "{}", run.stderr);
        assert!(
            !run.stderr.contains("ingest enwiki-sample"),
            "{}",
            run.stderr
        );
        assert!(!fresh.exists());
    }
    // A stage that does not read it takes no weight, which would be lost by the time relatedness
    // runs.
    let run = clue_db([
        "pipeline",
        "terms",
        "--text-weight",
        "enwiki-sample=2",
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(
        run.stderr
            .contains("--text-weight is for `pipeline all` and `pipeline relatedness`"),
        "{}",
        run.stderr
    );
    assert!(std::fs::read(&db).unwrap() == before, "terms --text-weight");
    assert!(common::tmp_leftovers(dir.path()).is_empty());
}

// ---- issue 46: nothing lost to a mistyped path or a signal ----

/// Issue 46, item 1: `eval --turns X --db X` truncated the database it read (SIGBUS, a 0-byte
/// file), and `--turns` onto `--scenarios` overwrote the scenarios. An output path that is an
/// input (by any name: the same file, a symbolic link, the `-wal` beside the database) is
/// refused before anything is opened for writing, naming both paths, and the input keeps its
/// bytes; `ingest` and `pipeline` never rename their database over a file they read either.
#[test]
fn no_output_path_may_be_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let wal = dir.path().join("X.sqlite-wal");
    std::fs::write(&wal, b"a write-ahead log").unwrap();
    for out in [&db, &link, &wal] {
        let out_bytes = std::fs::read(out).unwrap();
        let run = clue_db([
            "eval",
            "--games",
            "2",
            "--strategies",
            "relatedness",
            "--turns",
            utf8(out),
            "--db",
            utf8(&db),
        ])
        .failed();
        assert!(
            run.stderr.contains("--turns")
                && run.stderr.contains(utf8(out))
                && run.stderr.contains("the same file as")
                && run.stderr.contains(utf8(&db)),
            "{}",
            run.stderr
        );
        assert!(std::fs::read(out).unwrap() == out_bytes, "{out:?} changed");
        assert!(
            std::fs::read(&db).unwrap() == before,
            "the database changed"
        );
    }
    std::fs::remove_file(&wal).unwrap();

    let scenarios = dir.path().join("scenarios.tsv");
    std::fs::copy(
        common::data().join("human-clues/scenarios-dev.tsv"),
        &scenarios,
    )
    .unwrap();
    let kept = std::fs::read(&scenarios).unwrap();
    let run = clue_db([
        "eval",
        "--scenarios",
        utf8(&scenarios),
        "--turns",
        utf8(&scenarios),
        "--db",
        utf8(&db),
    ])
    .failed();
    assert!(run.stderr.contains("--scenarios"), "{}", run.stderr);
    assert_eq!(std::fs::read(&scenarios).unwrap(), kept);

    // ingest's database over the dump it reads.
    let dump = dir.path().join("dump.xml.bz2");
    std::fs::copy(enwiki_sample(), &dump).unwrap();
    let dump_bytes = std::fs::read(&dump).unwrap();
    let run = clue_db([
        "ingest",
        "--format",
        "xml",
        utf8(&dump),
        "--db",
        utf8(&dump),
    ])
    .failed();
    assert!(run.stderr.contains("--db"), "{}", run.stderr);
    assert!(
        std::fs::read(&dump).unwrap() == dump_bytes,
        "the dump changed"
    );

    // pipeline's database over its card words.
    let terms = dir.path().join("terms.txt");
    std::fs::copy(common::inputs().join("terms.txt"), &terms).unwrap();
    let terms_bytes = std::fs::read(&terms).unwrap();
    let data = common::data();
    let run = clue_db([
        "pipeline",
        "all",
        "--corpus",
        "enwiki-sample",
        "--data",
        utf8(&data),
        "--terms",
        utf8(&terms),
        "--db",
        utf8(&terms),
    ])
    .failed();
    assert!(run.stderr.contains("--terms"), "{}", run.stderr);
    assert_eq!(std::fs::read(&terms).unwrap(), terms_bytes);
    assert!(common::tmp_leftovers(dir.path()).is_empty());

    // A corpus list with an empty name (it suggested `download --wiki  --dir`), and a data
    // folder without the corpus (it asked whether ../shared was beside the repository, though
    // --data named another folder).
    let fresh = dir.path().join("fresh.sqlite");
    for (corpus, data, said) in [
        (
            "enwiki-sample,,wikispeedia",
            data.as_path(),
            "a corpus name is empty".to_string(),
        ),
        (
            "wikispeedia",
            dir.path(),
            format!("not found in {}", dir.path().display()),
        ),
    ] {
        let run = clue_db([
            "pipeline",
            "all",
            "--corpus",
            corpus,
            "--data",
            utf8(data),
            "--db",
            utf8(&fresh),
        ])
        .failed();
        assert!(run.stderr.contains(&said), "{}", run.stderr);
        assert!(!fresh.exists());
    }
}

/// Issue 46, item 2: SIGTERM, Ctrl-C (SIGINT) or SIGHUP ended a build without deleting its
/// temporary file `DB.tmpPID` (118 MB left by `timeout -s TERM 12 clue-db pipeline all`): a
/// signal does not run the build's `Drop`. Each is sent while a build holds its temporary file
/// (held there by a debug-build pause point, so nothing depends on timing): a new database
/// (`pipeline all --corpus`), an update (`pipeline pagerank`, after its copy) and an `ingest`.
/// The process exits 128 + the signal, the temporary file is gone, and `--db` is as it was.
#[test]
fn a_signal_during_a_build_deletes_its_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let data = common::data();
    let sample = enwiki_sample();
    let cases: [(&[&str], &str, i32, i32); 3] = [
        (
            &[
                "pipeline",
                "all",
                "--corpus",
                "enwiki-sample",
                "--data",
                utf8(&data),
            ],
            "created",
            libc::SIGTERM,
            143,
        ),
        (&["pipeline", "pagerank"], "copied", libc::SIGINT, 130),
        (
            &["ingest", "--format", "xml", utf8(&sample)],
            "created",
            libc::SIGHUP,
            129,
        ),
    ];
    for (args, point, signal, code) in cases {
        let gate = dir.path().join(format!("gate-{signal}"));
        std::fs::create_dir(&gate).unwrap();
        let mut all = args.to_vec();
        all.extend(["--db", utf8(&db)]);
        let mut child = spawn(
            &all,
            &[
                ("CLUE_DB_TEST_PAUSE", Path::new(point)),
                ("CLUE_DB_TEST_PAUSE_DIR", &gate),
            ],
        );
        if !held_at_pause(&mut child, &gate, Duration::from_secs(60)) {
            let _ = child.kill();
            panic!("{args:?} never reached {point:?}:\n{}", stderr_of(child));
        }
        let tmp = PathBuf::from(std::fs::read_to_string(gate.join("reached")).unwrap());
        assert!(tmp.exists(), "{args:?}: no temporary file at {tmp:?}");
        // SAFETY: kill(2) on the child this test started.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = wait_bounded(&mut child, Duration::from_secs(60)).expect("no exit");
        assert_eq!(status.code(), Some(code), "{args:?}: {status:?}");
        assert!(!tmp.exists(), "{args:?}: {tmp:?} is left");
        assert!(common::tmp_leftovers(dir.path()).is_empty(), "{args:?}");
        assert!(
            std::fs::read(&db).unwrap() == before,
            "{args:?}: --db changed"
        );
    }
}
