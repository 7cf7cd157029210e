//! No output path may be an input (issue 46, item 1): `eval --turns X --db X` truncated the
//! database it was reading (SIGBUS, a 0-byte file), `--turns` onto `--scenarios` overwrote the
//! scenarios. Every command that writes a file the user names checks it here first, before
//! anything is opened for writing: the same file is found by device and inode (a second name,
//! a hard link or a symbolic link to an input is refused alike), never by name; a path that does
//! not exist yet is no input.

use anyhow::{Result, bail};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The files a command reads, each with the flag (or words) that named it, and the paths SQLite
/// may create beside a database (compared by path: they need not exist yet).
#[derive(Default)]
pub struct Inputs {
    files: Vec<(String, PathBuf)>,
    beside: Vec<(String, PathBuf)>,
}

impl Inputs {
    pub fn new() -> Self {
        Self::default()
    }

    /// An input file. (A folder given as an input is not searched: only the files the command
    /// is named are compared.)
    pub fn file(mut self, what: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        self.files.push((what.into(), path.into()));
        self
    }

    /// A database and the files SQLite keeps beside it (`-wal`, `-shm`, `-journal`). Those
    /// are refused whether they exist or not: `--turns X.sqlite-journal` written while none
    /// was there made SQLite take it for a crashed write's journal, and every later read of
    /// the database failed ("attempt to write a readonly database") until it was removed.
    pub fn database(mut self, what: &str, db: &Path) -> Self {
        self.files.push((what.to_string(), db.to_path_buf()));
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            self.beside
                .push((format!("{what}'s {suffix} file"), PathBuf::from(name)));
        }
        self
    }
}

/// `path` with its folder resolved (links, `..`), its own name kept: the same for two paths
/// of one file that need not exist; `None` when the folder cannot be resolved.
fn resolved(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(name))
}

/// Refuses `output` (named by `flag`) when it is the same file as one of `inputs`, naming both
/// paths. An output that does not exist yet is no input; an input that does
/// not exist is none either.
pub fn refuse_overwriting_inputs(flag: &str, output: &Path, inputs: &Inputs) -> Result<()> {
    let refuse = |what: &str, input: &Path| {
        bail!(
            "{flag} {} is the same file as {what} {}: an output never overwrites an input; \
             give another path",
            output.display(),
            input.display()
        )
    };
    if let Some(out) = resolved(output) {
        for (what, beside) in &inputs.beside {
            if resolved(beside).is_some_and(|b| b == out) {
                return refuse(what, beside);
            }
        }
    }
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(());
    };
    for (what, input) in inputs.files.iter().chain(&inputs.beside) {
        let Ok(meta) = std::fs::metadata(input) else {
            continue;
        };
        if meta.dev() == out.dev() && meta.ino() == out.ino() {
            return refuse(what, input);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_that_is_an_input_by_any_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.sqlite");
        std::fs::write(&db, b"db").unwrap();
        let wal = dir.path().join("x.sqlite-wal");
        std::fs::write(&wal, b"wal").unwrap();
        let scenarios = dir.path().join("s.tsv");
        std::fs::write(&scenarios, b"s").unwrap();
        let inputs = Inputs::new()
            .database("the database --db", &db)
            .file("--scenarios", &scenarios);
        let refused = |out: &Path| {
            refuse_overwriting_inputs("--turns", out, &inputs)
                .unwrap_err()
                .to_string()
        };
        let e = refused(&db);
        assert!(
            e.contains("--turns") && e.contains("the database --db") && e.contains("x.sqlite"),
            "{e}"
        );
        assert!(refused(&wal).contains("-wal"));
        assert!(refused(&scenarios).contains("--scenarios"));
        // Another name of the same file: a hard link, a symbolic link, a path through `..`.
        let hard = dir.path().join("hard");
        std::fs::hard_link(&db, &hard).unwrap();
        refused(&hard);
        let soft = dir.path().join("soft");
        std::os::unix::fs::symlink(&scenarios, &soft).unwrap();
        refused(&soft);
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        refused(&dir.path().join("sub/../x.sqlite"));
        // New files, other files, and inputs that do not exist are fine.
        let other = dir.path().join("turns.jsonl");
        refuse_overwriting_inputs("--turns", &other, &inputs).unwrap();
        std::fs::write(&other, b"old turns").unwrap();
        refuse_overwriting_inputs("--turns", &other, &inputs).unwrap();
        let absent = Inputs::new().database("--db", &dir.path().join("none.sqlite"));
        refuse_overwriting_inputs("--turns", &other, &absent).unwrap();
    }

    #[test]
    fn the_files_sqlite_keeps_beside_a_database_are_refused_before_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.sqlite");
        std::fs::write(&db, b"db").unwrap();
        let inputs = Inputs::new().database("the database --db", &db);
        for suffix in ["-journal", "-wal", "-shm"] {
            let side = dir.path().join(format!("x.sqlite{suffix}"));
            assert!(!side.exists());
            let e = refuse_overwriting_inputs("--turns", &side, &inputs)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("the database --db's {suffix} file")),
                "{e}"
            );
            // By another path to the same folder, too.
            std::fs::create_dir_all(dir.path().join("sub")).unwrap();
            let other = dir.path().join(format!("sub/../x.sqlite{suffix}"));
            refuse_overwriting_inputs("--turns", &other, &inputs).unwrap_err();
        }
        // A file of another name beside it is fine.
        refuse_overwriting_inputs("--turns", &dir.path().join("x.sqlite-turns"), &inputs).unwrap();
    }
}
