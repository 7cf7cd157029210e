//! Opening databases: a build writes to a temporary file that replaces the real one only when it
//! succeeds, so a failed run leaves the previous database as it was.

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::cell::Cell;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A database being written. Dropped without [`Build::finish`], its temporary file is deleted
/// and the database at `dest` is untouched.
pub struct Build {
    pub(crate) conn: Connection,
    tmp: PathBuf,
    dest: PathBuf,
    finished: bool,
    /// Whether the ingest staging tables exist: created once per build, not once per row.
    pub(crate) staging: Cell<bool>,
    /// The lock that tells other builds this one is alive (see `remove_stale_tmps`).
    _alive: File,
}

fn tmp_path(dest: &Path) -> PathBuf {
    let mut name = dest
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp{}", std::process::id()));
    dest.with_file_name(name)
}

/// Deletes the temporary files of builds that are gone (killed before they could clean up), so
/// they do not pile up beside the database. A running build holds a lock on its file (see
/// [`hold`]); a file whose lock can be taken has no build behind it, in any process, container
/// or host sharing the folder.
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
        if f.try_lock().is_ok() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Locks a build's temporary file for as long as the build runs, so that other builds see it
/// is alive (advisory `flock`, apart from SQLite's own locks).
fn hold(tmp: &Path) -> Result<File> {
    let f = File::open(tmp).with_context(|| format!("opening {}", tmp.display()))?;
    if f.try_lock().is_err() {
        bail!(
            "{}: another build of this database is running in this process",
            tmp.display()
        );
    }
    Ok(f)
}

fn tune(conn: &Connection) -> Result<()> {
    // The temporary file is thrown away on failure, so no journal is needed while building.
    // Sorts bigger than the cache spill to SQLite's temporary directory (`SQLITE_TMPDIR`, else
    // /var/tmp or /tmp) rather than growing memory with the dump.
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE;
         PRAGMA cache_size = -262144; PRAGMA foreign_keys = OFF;",
    )?;
    Ok(())
}

impl Build {
    /// Starts a new, empty database that will replace `dest`.
    pub fn create(dest: &Path) -> Result<Build> {
        if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        remove_stale_tmps(dest);
        let tmp = tmp_path(dest);
        let _ = std::fs::remove_file(&tmp);
        let conn = Connection::open(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let alive = hold(&tmp)?;
        tune(&conn)?;
        conn.execute_batch(crate::SCHEMA_SQL)
            .context("applying db/schema.sql")?;
        let build = Build {
            conn,
            tmp,
            dest: dest.to_path_buf(),
            finished: false,
            staging: Cell::new(false),
            _alive: alive,
        };
        build.set_meta("schema_version", &crate::SCHEMA_VERSION.to_string())?;
        Ok(build)
    }

    /// Starts a change to the existing database at `dest`, on a copy of it.
    pub fn update(dest: &Path) -> Result<Build> {
        if !dest.exists() {
            bail!(
                "{}: no database here (run `clue-db ingest` or `make pipeline` first)",
                dest.display()
            );
        }
        check_version(dest)?;
        remove_stale_tmps(dest);
        let tmp = tmp_path(dest);
        std::fs::copy(dest, &tmp)
            .with_context(|| format!("copying {} to {}", dest.display(), tmp.display()))?;
        let conn = Connection::open(&tmp).with_context(|| format!("opening {}", tmp.display()))?;
        let alive = hold(&tmp)?;
        tune(&conn)?;
        conn.execute_batch(crate::SCHEMA_SQL)
            .context("applying db/schema.sql")?;
        Ok(Build {
            conn,
            tmp,
            dest: dest.to_path_buf(),
            finished: false,
            staging: Cell::new(false),
            _alive: alive,
        })
    }

    /// Writes the database to disk and moves it into place.
    pub fn finish(mut self) -> Result<()> {
        self.conn
            .execute_batch("ANALYZE;")
            .context("analysing the new database")?;
        let conn = std::mem::replace(&mut self.conn, Connection::open_in_memory()?);
        conn.close()
            .map_err(|(_, e)| e)
            .context("closing the new database")?;
        std::fs::rename(&self.tmp, &self.dest)
            .with_context(|| format!("moving {} to {}", self.tmp.display(), self.dest.display()))?;
        self.finished = true;
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
        if !self.finished {
            let _ = std::fs::remove_file(&self.tmp);
        }
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
    let version = get_meta(&conn, "schema_version")
        .with_context(|| format!("{}: not a clue-db database", path.display()))?;
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
        if path.is_dir() {
            bail!(
                "{} is a directory; --db takes the database file (e.g. db/clues.sqlite)",
                path.display()
            );
        }
        check_version(path)?;
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
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

    /// Every `meta` entry, sorted by key.
    pub fn all_meta(&self) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT key, value FROM meta ORDER BY key")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let _running = hold(&live).unwrap();
        Build::create(&dest).unwrap().finish().unwrap();
        assert!(!dead.exists(), "a dead build's file is removed");
        assert!(live.exists(), "a running build's file is kept");
        assert!(other.exists(), "another database's files are not touched");
        assert!(named_alike.exists(), "only NAME.tmp<digits> is a build's");
    }
}
