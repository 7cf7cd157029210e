//! Opening databases: a build writes to a temporary file that replaces the real one only when it
//! succeeds, so a failed run leaves the previous database as it was.

use crate::pause::pause_for_test;
use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A database being written. Dropped without [`Build::finish`], its temporary file is deleted
/// and the database at `dest` is untouched.
pub struct Build {
    // Declared first so it is dropped (closed) before `file`: closing any descriptor of a file
    // drops the process's POSIX locks on it, SQLite's included.
    pub(crate) conn: Connection,
    pub(crate) tmp: PathBuf,
    dest: PathBuf,
    finished: bool,
    /// Whether the ingest staging tables exist: created once per build, not once per row.
    pub(crate) staging: Cell<bool>,
    /// Links resolved on the way in (`pagelinks` by link target), waiting for the graph.
    pub(crate) links: std::cell::RefCell<crate::ingest::LinkState>,
    /// Whether resolving links also writes the `links` table (`--keep-links`).
    pub(crate) keep_links: Cell<bool>,
    /// The temporary file this build created (`create_new`) and locked before writing a byte:
    /// the lock tells other builds it is alive (see `remove_stale_tmps`), and its inode is how
    /// `finish` knows the file at `tmp` is still this build's work.
    file: File,
}

/// The temporary files of this process's builds in progress, with their inode: what a signal
/// handler deletes ([`abandon_builds_and_exit`]), since a signal ends the process without
/// running any build's `Drop`. A file is listed from its creation (before a byte is copied into
/// it) until it is deleted or renamed into place, each under this lock.
static LIVE: std::sync::Mutex<Vec<(PathBuf, u64, u64)>> = std::sync::Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<(PathBuf, u64, u64)>> {
    // A panic while holding it leaves a list that is still whole: a push or a retain.
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Deletes `tmp` if it is still the build's `file`, and forgets it, under the lock.
fn discard_tmp(tmp: &Path, file: &File) {
    let mut live = live();
    if same_file(tmp, file) {
        let _ = std::fs::remove_file(tmp);
    }
    live.retain(|(p, _, _)| p != tmp);
}

/// Deletes the temporary file of every build of this process in progress and ends the process
/// with `code`, no build renaming its file into place meanwhile (the lock is held until the
/// end). For the handler of SIGINT, SIGTERM and SIGHUP: the builds' `Drop` never runs then.
pub fn abandon_builds_and_exit(code: i32) -> ! {
    let live = live();
    for (tmp, dev, ino) in live.iter() {
        let ours = std::fs::symlink_metadata(tmp).is_ok_and(|m| m.dev() == *dev && m.ino() == *ino);
        if ours {
            let _ = std::fs::remove_file(tmp);
        }
    }
    std::process::exit(code)
}

fn tmp_path(dest: &Path) -> PathBuf {
    let mut name = dest
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp{}", std::process::id()));
    dest.with_file_name(name)
}

/// Whether `path` names the same file (inode) as the open `file`.
fn same_file(path: &Path, file: &File) -> bool {
    match (std::fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Where a build of `--db dest` writes, checked before anything is written: `dest` itself when
/// it is a regular file or absent; the file a symlink points to (the link stays a link, as
/// `sqlite3` and editors treat links); anything else (a directory, a device such as
/// `/dev/null`, a FIFO, a socket) is refused, since renaming over it would replace it.
fn resolve_dest(dest: &Path) -> Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(dest) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(dest.to_path_buf()),
        Err(e) => return Err(e).with_context(|| format!("examining {}", dest.display())),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::canonicalize(dest).with_context(|| {
            format!(
                "{}: a symbolic link to nothing; --db takes a database file or a link to one",
                dest.display()
            )
        })?;
        check_regular(&target, &std::fs::metadata(&target)?)?;
        return Ok(target);
    }
    check_regular(dest, &meta)?;
    Ok(dest.to_path_buf())
}

/// Refuses what is not a regular file, by name, before it is opened: opening a FIFO blocks
/// until a writer comes, and a build would rename over a device or a directory.
fn check_regular(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    let ft = meta.file_type();
    let what = if ft.is_file() {
        return Ok(());
    } else if ft.is_dir() {
        "a directory"
    } else {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_char_device() || ft.is_block_device() {
            "a device"
        } else if ft.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        }
    };
    bail!(
        "{} is {what}; --db takes a database file (e.g. db/clues.sqlite)",
        path.display()
    )
}

/// Deletes the temporary files of builds that are gone (killed before they could clean up), so
/// they do not pile up beside the database. A running build holds a lock on its file from the
/// moment it creates it (see [`create_tmp`]); a file whose lock can be taken has no build
/// behind it, in any process, container or host sharing the folder. The file is deleted while
/// its lock is held, and only if the name still points to the file that was locked.
fn remove_stale_tmps(dest: &Path) {
    let (Some(dir), Some(name)) = (dest.parent(), dest.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!("{name}.tmp");
    for entry in entries.flatten() {
        let file = entry.file_name();
        let ours = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if !ours {
            continue;
        }
        let Ok(f) = File::open(entry.path()) else {
            continue;
        };
        if f.try_lock().is_ok() && same_file(&entry.path(), &f) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Creates this process's temporary file for `dest` and locks it, before anything is written
/// to it: a file another build could take for a dead build's is never this build's work. The
/// file is created new (`O_EXCL`), never reused. A cleaner that opened it in the instant between
/// creation and lock deletes it while holding the lock; the name then no longer points to the
/// locked file, and the creation is retried.
fn create_tmp(dest: &Path) -> Result<(PathBuf, File)> {
    let tmp = tmp_path(dest);
    for _ in 0..3 {
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => bail!(
                "{}: another build of this database is running in this process (its temporary \
                 file exists and is locked)",
                tmp.display()
            ),
            Err(e) => return Err(e).with_context(|| format!("creating {}", tmp.display())),
        };
        // Blocks only while a cleaner holds the lock, for the instant of an unlink.
        file.lock()
            .with_context(|| format!("locking {}", tmp.display()))?;
        if same_file(&tmp, &file) {
            let meta = file
                .metadata()
                .with_context(|| format!("examining {}", tmp.display()))?;
            live().push((tmp.clone(), meta.dev(), meta.ino()));
            return Ok((tmp, file));
        }
    }
    bail!(
        "{}: the temporary file was deleted by another process as soon as it was created, \
         three times",
        tmp.display()
    )
}

/// The temporary file opened, tuned and brought to the current schema (`db/schema.sql` is
/// idempotent: a copy of an older database gains the tables it lacks).
fn open_with_schema(tmp: &Path, file: &File) -> Result<Connection> {
    let conn = open_tmp(tmp, file)?;
    tune(&conn)?;
    conn.execute_batch(crate::SCHEMA_SQL)
        .context("applying db/schema.sql")?;
    Ok(conn)
}

/// Opens the temporary file this build created, by name, for SQLite. Without `SQLITE_OPEN_CREATE`:
/// if the file is gone, this fails rather than start an empty database in its place.
fn open_tmp(tmp: &Path, file: &File) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        tmp,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("opening {}", tmp.display()))?;
    if !same_file(tmp, file) {
        bail!(
            "{}: the temporary file was replaced by another process; nothing written",
            tmp.display()
        );
    }
    Ok(conn)
}

/// Runs the first steps of a build, deleting its temporary file (if still its own) when one
/// fails, before a [`Build`] owns the file and its `Drop` takes over.
fn discard_on_error<T>(tmp: &Path, file: &File, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let r = f();
    if r.is_err() {
        discard_tmp(tmp, file);
    }
    r
}

fn tune(conn: &Connection) -> Result<()> {
    // The temporary file is thrown away on failure, so no journal is needed while building;
    // `finish` syncs it once, whole, before the rename (see RELIABILITY.md).
    // Sorts bigger than the cache spill to SQLite's temporary directory (`SQLITE_TMPDIR`, else
    // /var/tmp or /tmp) rather than growing memory with the dump.
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE;
         PRAGMA cache_size = -262144; PRAGMA foreign_keys = OFF;",
    )?;
    Ok(())
}

/// Refuses to replace a file that is not a clue-db database (another program's SQLite
/// database, a text file: a mistyped `--db`), naming it; an empty file or a clue-db database of
/// any version may be replaced.
fn check_replaceable(dest: &Path) -> Result<()> {
    let len = match std::fs::metadata(dest) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("examining {}", dest.display())),
        Ok(m) => m.len(),
    };
    if len == 0 {
        return Ok(());
    }
    let mut head = [0u8; 16];
    let n = File::open(dest)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .with_context(|| format!("reading {}", dest.display()))?;
    let what = if head[..n] != *b"SQLite format 3\0" {
        format!("holds {len} bytes that are not SQLite")
    } else {
        let version = Connection::open_with_flags(dest, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(anyhow::Error::from)
            .and_then(|c| get_meta(&c, "schema_version"));
        match version {
            Ok(Some(_)) => return Ok(()),
            Ok(None) => "is an SQLite database without schema_version in its meta".to_string(),
            Err(e) => format!("is an SQLite database without a readable meta table ({e:#})"),
        }
    };
    bail!(
        "{} {what}: not a clue-db database, and a build would replace it; pass --overwrite to \
         replace it anyway, or name another --db",
        dest.display()
    )
}

impl Build {
    /// Starts a new, empty database that will replace `dest`: a clue-db database, an empty
    /// file or nothing; anything else is refused ([`Build::create_over_anything`] replaces it).
    pub fn create(dest: &Path) -> Result<Build> {
        Build::start(dest, false)
    }

    /// [`Build::create`] that replaces whatever file `dest` is (`--overwrite`).
    pub fn create_over_anything(dest: &Path) -> Result<Build> {
        Build::start(dest, true)
    }

    fn start(dest: &Path, over_anything: bool) -> Result<Build> {
        if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let dest = resolve_dest(dest)?;
        if !over_anything {
            check_replaceable(&dest)?;
        }
        remove_stale_tmps(&dest);
        let (tmp, file) = create_tmp(&dest)?;
        let conn = discard_on_error(&tmp, &file, || {
            pause_for_test("created", &tmp);
            open_with_schema(&tmp, &file)
        })?;
        let build = Build::on(conn, tmp, dest, file);
        build.set_meta("schema_version", &crate::SCHEMA_VERSION.to_string())?;
        Ok(build)
    }

    /// A build on its temporary file, its connection open (new or updated alike).
    fn on(conn: Connection, tmp: PathBuf, dest: PathBuf, file: File) -> Build {
        Build {
            conn,
            tmp,
            dest,
            finished: false,
            staging: Cell::new(false),
            links: Default::default(),
            keep_links: Cell::new(false),
            file,
        }
    }

    /// Starts a change to the existing database at `dest`, on a copy of it. The copy goes into
    /// a file this build has just created and locked, so no other build can take it for a dead
    /// one's and delete it meanwhile.
    pub fn update(dest: &Path) -> Result<Build> {
        let dest = resolve_dest(dest)?;
        if !dest.exists() {
            bail!(
                "{}: no database here (run `clue-db ingest` or `make pipeline` first)",
                dest.display()
            );
        }
        check_version(&dest)?;
        remove_stale_tmps(&dest);
        let (tmp, file) = create_tmp(&dest)?;
        let conn = discard_on_error(&tmp, &file, || {
            let mut src =
                File::open(&dest).with_context(|| format!("opening {}", dest.display()))?;
            std::io::copy(&mut src, &mut &file)
                .with_context(|| format!("copying {} to {}", dest.display(), tmp.display()))?;
            pause_for_test("copied", &tmp);
            open_with_schema(&tmp, &file)
        })?;
        let build = Build::on(conn, tmp, dest, file);
        build.check_work("copying the database")?;
        Ok(build)
    }

    /// Fails unless the temporary file is still this build's, holding a clue-db database: a
    /// build that finds its work gone says so instead of renaming something else into place.
    fn check_work(&self, when: &str) -> Result<()> {
        if !same_file(&self.tmp, &self.file) {
            bail!(
                "{}: this build's temporary file was deleted or replaced by another process \
                 (after {when}); {} is left as it was",
                self.tmp.display(),
                self.dest.display()
            );
        }
        let version = self
            .meta("schema_version")
            .with_context(|| format!("{}: reading schema_version", self.tmp.display()))?;
        if version.as_deref() != Some(crate::SCHEMA_VERSION.to_string().as_str()) {
            bail!(
                "{}: this build's temporary file has lost its schema_version (after {when}); \
                 {} is left as it was",
                self.tmp.display(),
                self.dest.display()
            );
        }
        Ok(())
    }

    /// Writes the database to disk and moves it into place: checks the work is still there,
    /// syncs the file, renames it over `dest`, and syncs the folder, so that after `finish`
    /// returns a power loss leaves the new database, and before it, the old one.
    pub fn finish(mut self) -> Result<()> {
        // Statistics for the planner; not the per-value `sqlite_stat4` samples, with which
        // SQLite prepares a keyed read again for every new key (a tenth of a query's time).
        self.conn
            .execute_batch("ANALYZE; DROP TABLE IF EXISTS sqlite_stat4;")
            .context("analysing the new database")?;
        self.check_work("the last stage")?;
        let conn = std::mem::replace(&mut self.conn, Connection::open_in_memory()?);
        conn.close()
            .map_err(|(_, e)| e)
            .with_context(|| format!("closing {}", self.tmp.display()))?;
        pause_for_test("closed", &self.tmp);
        if !same_file(&self.tmp, &self.file) {
            bail!(
                "{}: this build's temporary file was deleted or replaced by another process \
                 before it could be moved into place; {} is left as it was",
                self.tmp.display(),
                self.dest.display()
            );
        }
        self.file
            .sync_all()
            .with_context(|| format!("syncing {} to disk", self.tmp.display()))?;
        pause_for_test("synced", &self.tmp);
        {
            // Not while a signal handler deletes the builds' files (it holds the lock to the end).
            let mut live = live();
            std::fs::rename(&self.tmp, &self.dest).with_context(|| {
                format!("moving {} to {}", self.tmp.display(), self.dest.display())
            })?;
            live.retain(|(p, _, _)| p != &self.tmp);
        }
        self.finished = true;
        pause_for_test("renamed", &self.dest);
        sync_dir(&self.dest)?;
        pause_for_test("folder synced", &self.dest);
        Ok(())
    }

    /// Records one `meta` entry, replacing any earlier value.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?
            .execute(params![key, value])
            .with_context(|| format!("writing meta {key}"))?;
        Ok(())
    }

    /// Reads one `meta` entry.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        get_meta(&self.conn, key)
    }

    /// Opens a transaction; writes between `begin` and `commit` land together.
    pub fn begin(&self) -> Result<()> {
        self.conn.execute_batch("BEGIN")?;
        Ok(())
    }

    /// Commits the transaction [`Build::begin`] opened; an error when none is open.
    pub fn commit(&self) -> Result<()> {
        self.conn.execute_batch("COMMIT")?;
        Ok(())
    }

    /// Commits the open transaction, if any: what a failed stream wrote before it failed.
    pub fn commit_if_open(&self) -> Result<()> {
        if !self.conn.is_autocommit() {
            self.commit()?;
        }
        Ok(())
    }

    /// Read access to what has been written so far, for the next stage.
    pub fn reader(&self) -> Store<'_> {
        Store {
            conn: StoreConn::Borrowed(&self.conn),
        }
    }
}

impl Drop for Build {
    fn drop(&mut self) {
        // Only this build's own file: another process's file at the same name is not ours.
        if !self.finished {
            discard_tmp(&self.tmp, &self.file);
        }
    }
}

/// Syncs the folder holding `path`, so that a rename into it survives a power loss.
fn sync_dir(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("syncing {} to disk", dir.display()))
}

/// Names `db` in an error that came from SQLite (a full disk, a damaged or tampered file):
/// SQLite's own messages ("database or disk is full", "Invalid column type Text at index: 1,
/// name: score") say nothing of the file. Other errors, and those already naming it, pass as
/// they are.
pub fn name_database(e: anyhow::Error, db: &Path) -> anyhow::Error {
    let from_sqlite = e
        .chain()
        .any(|c| c.downcast_ref::<rusqlite::Error>().is_some());
    if from_sqlite && !format!("{e:#}").contains(&db.display().to_string()) {
        e.context(format!("database {}", db.display()))
    } else {
        e
    }
}

fn get_meta(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

fn check_version(path: &Path) -> Result<()> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("opening {}", path.display()))?;
    check_version_on(&conn, path)
}

/// [`check_version`] on a connection already open to `path` (a query's: opening the file a
/// second time would read and parse its schema twice).
fn check_version_on(conn: &Connection, path: &Path) -> Result<()> {
    let version = get_meta(conn, "schema_version").map_err(|e| unreadable(e, path))?;
    match version.as_deref() {
        Some(v) if v == crate::SCHEMA_VERSION.to_string() => Ok(()),
        Some(v) => bail!(
            "{}: schema version {v}, this clue-db reads version {}; rebuild it with `make pipeline`",
            path.display(),
            crate::SCHEMA_VERSION
        ),
        None => bail!(
            "{}: not a clue-db database (no schema_version in meta)",
            path.display()
        ),
    }
}

/// The `meta` table of the database at `path`, sorted by key, whatever its `schema_version`:
/// for `clue-db info`, which shows a database this clue-db cannot read (another version) rather
/// than only refusing it. Refuses what [`Store::open`] refuses short of the version (no file,
/// a FIFO, a directory, a file with no `meta`).
pub fn read_meta_of_any_version(path: &Path) -> Result<Vec<(String, String)>> {
    if !path.exists() {
        bail!(
            "{}: no database here; build one with `make pipeline` or pass --db PATH",
            path.display()
        );
    }
    let meta = std::fs::metadata(path).with_context(|| format!("examining {}", path.display()))?;
    check_regular(path, &meta)?;
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("opening {}", path.display()))?;
    let rows = (|| -> Result<Vec<(String, String)>> {
        let mut st = conn.prepare("SELECT key, value FROM meta ORDER BY key")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    })();
    rows.map_err(|e| unreadable(e.context("reading table meta"), path))
}

/// Whether the file at `path` is an SQLite database in WAL mode (its header's read and write
/// versions are 2).
fn is_wal(path: &Path) -> bool {
    let mut head = [0u8; 20];
    File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head.starts_with(b"SQLite format 3\0") && head[18] == 2 && head[19] == 2)
}

/// Why a database's `meta` cannot be read: a WAL database SQLite cannot open read-only (it
/// must create or write `-shm` beside it, and the folder or the mount is read-only) says so,
/// with what to do; anything else is no clue-db database.
fn unreadable(e: anyhow::Error, path: &Path) -> anyhow::Error {
    let code = e
        .downcast_ref::<rusqlite::Error>()
        .and_then(rusqlite::Error::sqlite_error_code);
    let cannot_open = matches!(
        code,
        Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
    );
    if cannot_open && is_wal(path) {
        let p = path.display();
        return e.context(format!(
            "{p}: a WAL database (journal_mode=wal), which SQLite cannot open read-only here: it \
             needs to create or write {p}-shm beside it, and the folder or the mount is \
             read-only. Copy the file (with its -wal, if any) to a writable folder, or turn WAL \
             off once where it is writable: sqlite3 {p} 'PRAGMA journal_mode=DELETE' (clue-db \
             never writes WAL databases)"
        ));
    }
    let mut journal = path.as_os_str().to_owned();
    journal.push("-journal");
    let journal = PathBuf::from(journal);
    if code == Some(rusqlite::ErrorCode::ReadOnly) && journal.exists() {
        // A journal beside the file is a write SQLite must roll back before anyone reads, and
        // a read-only connection may not: the database is not foreign, the journal is in the way.
        return e.context(format!(
            "{}: SQLite found {} beside it, the journal of a write that did not finish, and \
             cannot roll it back from a read-only connection; if that file is not a journal \
             (an output written there by mistake), move it away; if it is, open the database \
             once where it is writable (sqlite3 {} 'PRAGMA quick_check') to roll the write back",
            path.display(),
            journal.display(),
            path.display()
        ));
    }
    if code == Some(rusqlite::ErrorCode::DatabaseCorrupt) {
        return e.context(format!(
            "{}: a damaged or truncated database (a copy cut short?); rebuild it with `make \
             pipeline`",
            path.display()
        ));
    }
    e.context(format!("{}: not a clue-db database", path.display()))
}

/// The names of the schema's tables, in its order.
/// The tables of the schema a database is read without, each looked for before it is read
/// ([`Store::has_table`]): the word lists, the clue words' vectors and their packed list were
/// added after databases were built, and the set network is the last stage's.
pub const OPTIONAL_TABLES: [&str; 4] = [
    "word_lists",
    "clue_vectors",
    "clue_words_packed",
    crate::SETNET_TABLE,
];

fn schema_tables() -> impl Iterator<Item = &'static str> {
    crate::SCHEMA_SQL.lines().filter_map(|l| {
        l.trim()
            .strip_prefix("CREATE TABLE IF NOT EXISTS ")?
            .split_whitespace()
            .next()
    })
}

pub(crate) enum StoreConn<'a> {
    Owned(Connection),
    Borrowed(&'a Connection),
}

/// Read-only access to a database: what queries and later stages use.
pub struct Store<'a> {
    pub(crate) conn: StoreConn<'a>,
}

impl Store<'static> {
    /// Opens a finished database read-only.
    pub fn open(path: &Path) -> Result<Store<'static>> {
        if !path.exists() {
            bail!(
                "{}: no database here; build one with `make pipeline` or pass --db PATH",
                path.display()
            );
        }
        // Follows a symlink; refuses a FIFO (opening one blocks), a device, a directory.
        let meta =
            std::fs::metadata(path).with_context(|| format!("examining {}", path.display()))?;
        check_regular(path, &meta)?;
        // A connection serves one thread at a time (rusqlite's is not `Sync`), so SQLite's
        // per-call mutexes are pure cost, as rusqlite's default flags say. One connection
        // checks the version and serves the queries: a second would parse the schema again.
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("opening {}", path.display()))?;
        check_version_on(&conn, path)?;
        // A query runs a few hundred small statements: keep them all prepared, and take the
        // shared lock once rather than around each statement (nothing writes a built database
        // in place: builds write a temporary file and rename it, so holding a shared lock never
        // blocks one, and other readers share it). Relatedness rows are large blobs (4 bytes per
        // clue word): mapping the file lets SQLite hand them over without copying each page
        // through a read (crates/bench/README.md, "3. Query").
        conn.set_prepared_statement_cache_capacity(64);
        conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE; PRAGMA mmap_size = 1073741824;")
            .with_context(|| format!("opening {}", path.display()))?;
        Ok(Store {
            conn: StoreConn::Owned(conn),
        })
    }
}

impl Store<'_> {
    pub(crate) fn conn(&self) -> &Connection {
        match &self.conn {
            StoreConn::Owned(c) => c,
            StoreConn::Borrowed(c) => c,
        }
    }

    /// Reads one `meta` entry.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        get_meta(self.conn(), key)
    }

    /// Whether the database has the table `name`: the tables added after a database was built
    /// (`word_lists`, `clue_vectors`, `setnet_weights` …) are read only when there.
    pub fn has_table(&self, name: &str) -> Result<bool> {
        self.conn()
            .prepare_cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1")?
            .exists([name])
            .with_context(|| format!("looking for table {name}"))
    }

    /// The tables of the schema (`db/schema.sql`) this database does not have, in the schema's
    /// order: what a message names when a file holds less than a build writes (some are
    /// dropped by design: the build inputs, `setnet_weights` before its stage).
    pub fn missing_tables(&self) -> Result<Vec<String>> {
        let mut missing = Vec::new();
        for name in schema_tables() {
            if !self.has_table(name)? {
                missing.push(name.to_string());
            }
        }
        Ok(missing)
    }

    /// [`Store::missing_tables`] but those a database may lack and still be read (added after
    /// databases were built, or written by the last stage: `OPTIONAL_TABLES`): a file short of
    /// one of these is no finished build (`info` names them; `explain` failed with "no such
    /// table: scores").
    pub fn missing_required_tables(&self) -> Result<Vec<String>> {
        let mut missing = self.missing_tables()?;
        missing.retain(|t| !OPTIONAL_TABLES.contains(&t.as_str()));
        Ok(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pause::hook;

    #[test]
    fn a_new_build_removes_temporary_files_of_dead_builds_only() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("t.sqlite");
        let dead = dir.path().join("t.sqlite.tmp999999999");
        let live = dir.path().join("t.sqlite.tmp12345");
        let other = dir.path().join("other.sqlite.tmp999999999");
        let named_alike = dir.path().join("t.sqlite.tmpnotes");
        for f in [&dead, &live, &other, &named_alike] {
            std::fs::write(f, b"x").unwrap();
        }
        // A build in progress (here, in this process) holds its file's lock.
        let running = File::open(&live).unwrap();
        running.try_lock().unwrap();
        Build::create(&dest).unwrap().finish().unwrap();
        assert!(!dead.exists(), "a dead build's file is removed");
        assert!(live.exists(), "a running build's file is kept");
        assert!(other.exists(), "another database's files are not touched");
        assert!(named_alike.exists(), "only NAME.tmp<digits> is a build's");
    }

    /// A finished database at `dir/t.sqlite` with one marker in `meta`.
    fn existing(dir: &Path) -> PathBuf {
        let dest = dir.join("t.sqlite");
        let b = Build::create(&dest).unwrap();
        b.set_meta("marker", "kept").unwrap();
        b.finish().unwrap();
        dest
    }

    fn marker(dest: &Path) -> Option<String> {
        Store::open(dest).unwrap().meta("marker").unwrap()
    }

    /// A file written as `X.sqlite-journal` (an output sent there by mistake) made every read
    /// fail as "not a clue-db database"; a database cut short was called foreign too.
    #[test]
    fn a_journal_in_the_way_and_a_cut_database_are_named_for_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let dest = existing(dir.path());
        let journal = dir.path().join("t.sqlite-journal");
        std::fs::write(&journal, vec![b'{'; 4096]).unwrap();
        let e = format!("{:#}", Store::open(&dest).err().expect("refused"));
        assert!(
            e.contains("t.sqlite-journal beside it") && !e.contains("not a clue-db database"),
            "{e}"
        );
        std::fs::remove_file(&journal).unwrap();
        assert_eq!(marker(&dest).as_deref(), Some("kept"));
        let whole = std::fs::read(&dest).unwrap();
        assert!(whole.len() > 8192, "{} bytes", whole.len());
        let cut = dir.path().join("cut.sqlite");
        std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
        let e = format!("{:#}", Store::open(&cut).err().expect("refused"));
        assert!(e.contains("a damaged or truncated database"), "{e}");
    }

    /// Issue 13, item 1: another build started while this one copies the database cleans up
    /// "stale" temporary files. This build's file is locked before the copy, so the cleaner
    /// leaves it, and the update lands on the copy, not on an empty file.
    #[test]
    fn a_concurrent_build_cleaning_up_during_the_copy_cannot_take_this_builds_file() {
        let dir = tempfile::tempdir().unwrap();
        let dest = existing(dir.path());
        let cleaner_dest = dest.clone();
        hook::set(move |point, tmp| {
            if point == "copied" {
                // Exactly what another build does first (`Build::create` / `Build::update`).
                remove_stale_tmps(&cleaner_dest);
                assert!(tmp.exists(), "the cleaner removed a running build's file");
            }
        });
        let b = Build::update(&dest).unwrap();
        hook::set(|_, _| {});
        b.set_meta("stage", "done").unwrap();
        b.finish().unwrap();
        let store = Store::open(&dest).unwrap();
        assert_eq!(store.meta("marker").unwrap().as_deref(), Some("kept"));
        assert_eq!(store.meta("stage").unwrap().as_deref(), Some("done"));
    }

    /// A build whose temporary file is deleted (by hand, or a cleaner not following the lock)
    /// fails loudly at whatever moment it notices, and the database stays as it was; it never
    /// opens a new empty file in its place.
    #[test]
    fn a_build_whose_file_is_deleted_fails_and_leaves_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let dest = existing(dir.path());

        // During the copy: SQLite must not create a new, empty file at the name.
        hook::set(|point, tmp| {
            if point == "copied" {
                std::fs::remove_file(tmp).unwrap();
            }
        });
        let err = Build::update(&dest).err().expect("update must fail");
        hook::set(|_, _| {});
        assert!(format!("{err:#}").contains(".tmp"), "{err:#}");
        assert_eq!(marker(&dest).as_deref(), Some("kept"));

        // During a stage: `finish` notices before the rename.
        let b = Build::update(&dest).unwrap();
        b.set_meta("marker", "changed").unwrap();
        std::fs::remove_file(&b.tmp).unwrap();
        let err = b.finish().unwrap_err();
        assert!(
            format!("{err:#}").contains("deleted or replaced"),
            "{err:#}"
        );
        assert_eq!(marker(&dest).as_deref(), Some("kept"));
    }

    /// A file put in place of this build's (another process's, at the same name) is neither
    /// opened as this build's work nor renamed into place nor deleted.
    #[test]
    fn a_build_whose_file_is_replaced_fails_and_leaves_both_files() {
        let dir = tempfile::tempdir().unwrap();
        let dest = existing(dir.path());
        hook::set(|point, tmp| {
            if point == "copied" {
                std::fs::remove_file(tmp).unwrap();
                std::fs::write(tmp, b"").unwrap();
            }
        });
        let err = Build::update(&dest).err().expect("update must fail");
        hook::set(|_, _| {});
        assert!(format!("{err:#}").contains("replaced"), "{err:#}");
        assert_eq!(marker(&dest).as_deref(), Some("kept"));
        let tmp = tmp_path(&dest);
        assert!(tmp.exists(), "the other process's file is not deleted");
        std::fs::remove_file(&tmp).unwrap();

        let b = Build::update(&dest).unwrap();
        b.set_meta("marker", "changed").unwrap();
        std::fs::remove_file(&b.tmp).unwrap();
        std::fs::write(&b.tmp, b"someone else's").unwrap();
        let tmp = b.tmp.clone();
        assert!(b.finish().is_err());
        assert_eq!(marker(&dest).as_deref(), Some("kept"));
        assert_eq!(std::fs::read(&tmp).unwrap(), b"someone else's");
    }

    /// A reader that opened the database before a build replaced it keeps reading the old
    /// file, whole; the next open sees the new one.
    #[test]
    fn a_reader_open_during_a_build_keeps_reading_the_old_database() {
        let dir = tempfile::tempdir().unwrap();
        let dest = existing(dir.path());
        let reader = Store::open(&dest).unwrap();
        let b = Build::update(&dest).unwrap();
        b.set_meta("marker", "new").unwrap();
        assert_eq!(reader.meta("marker").unwrap().as_deref(), Some("kept"));
        b.finish().unwrap();
        assert_eq!(reader.meta("marker").unwrap().as_deref(), Some("kept"));
        assert_eq!(marker(&dest).as_deref(), Some("new"));
    }

    /// Issue 13, item 8: the new file is synced before the rename and its folder after, so a
    /// power loss leaves the old database or the new one, never a renamed, half-written file.
    #[test]
    fn finish_syncs_the_file_before_the_rename_and_the_folder_after() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("t.sqlite");
        let b = Build::create(&dest).unwrap();
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = seen.clone();
        hook::set(move |point, _| log.borrow_mut().push(point.to_string()));
        b.finish().unwrap();
        hook::set(|_, _| {});
        assert_eq!(
            *seen.borrow(),
            ["closed", "synced", "renamed", "folder synced"]
        );
    }

    /// Issue 13, item 5: `--db` naming a symlink builds its target and keeps the link; a
    /// directory is refused before anything is built.
    #[test]
    fn a_build_follows_a_symlink_and_refuses_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let real = existing(dir.path());
        let link = dir.path().join("link.sqlite");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let b = Build::update(&link).unwrap();
        b.set_meta("via", "link").unwrap();
        b.finish().unwrap();
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(
            Store::open(&real).unwrap().meta("via").unwrap().as_deref(),
            Some("link")
        );

        let folder = dir.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        let err = Build::create(&folder)
            .err()
            .expect("a directory is refused");
        assert!(format!("{err:#}").contains("is a directory"), "{err:#}");
        assert!(folder.is_dir());
        let dangling = dir.path().join("dangling.sqlite");
        std::os::unix::fs::symlink(dir.path().join("nothing"), &dangling).unwrap();
        assert!(Build::create(&dangling).is_err());
        assert!(
            dangling
                .symlink_metadata()
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
}
