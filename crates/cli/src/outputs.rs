//! No output path may be an input (issue 46, item 1): `eval --turns X --db X` truncated the
//! database it was reading (SIGBUS, a 0-byte file), `--turns` onto `--scenarios` overwrote the
//! scenarios. Every command that writes a file the user names checks it here first, before
//! anything is opened for writing: the same file is found by device and inode (a second name,
//! a hard link or a symbolic link to an input is refused alike), never by name; a path that does
//! not exist yet is no input.

use anyhow::{Result, bail};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The files a command reads, each with the flag (or words) that named it.
#[derive(Default)]
pub struct Inputs {
    files: Vec<(String, PathBuf)>,
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

    /// A database and the files SQLite keeps beside it (`-wal`, `-shm`, `-journal`).
    pub fn database(mut self, what: &str, db: &Path) -> Self {
        self.files.push((what.to_string(), db.to_path_buf()));
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut name = db.as_os_str().to_owned();
            name.push(suffix);
            self.files
                .push((format!("{what}'s {suffix} file"), PathBuf::from(name)));
        }
        self
    }
}

/// Refuses `output` (named by `flag`) when it is the same file as one of `inputs`, naming both
/// paths. An output that does not exist yet is no input; an input that does
/// not exist is none either.
pub fn refuse_overwriting_inputs(flag: &str, output: &Path, inputs: &Inputs) -> Result<()> {
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(());
    };
    for (what, input) in &inputs.files {
        let Ok(meta) = std::fs::metadata(input) else {
            continue;
        };
        if meta.dev() == out.dev() && meta.ino() == out.ino() {
            bail!(
                "{flag} {} is the same file as {what} {}: an output never overwrites an input; \
                 give another path",
                output.display(),
                input.display()
            );
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
}
