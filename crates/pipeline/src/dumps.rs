//! The dumps folder that `clue-db download` fills, as the pipeline reads it.
//!
//! The contract between the two: `download --wiki W --dir DIR` leaves the files of one dump run
//! in `DIR/W/DATE/` (`DATE` is the run's `YYYYMMDD`) under their names on the dumps site
//! (`W-DATE-pages-articles-multistream.xml.bz2`, `W-DATE-pages-articles-multistream-index.txt.bz2`,
//! `W-DATE-{page,redirect,pagelinks,linktarget,page_props}.sql.gz`), and only once every file has
//! passed its checksum writes `DIR/W/DATE/VERIFIED`, one line per file: `SHA1  FILENAME`, as
//! `sha1sum` prints them. A run without `VERIFIED` is still downloading, or failed, and is never
//! read; only the files `VERIFIED` names are, so a half-written file (`….part`) or a stray one
//! beside them is never ingested. The checksums are the download's to check: reading 20 GB
//! again on every build is not worth it.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// The file a finished, verified download writes last in its run folder.
pub const VERIFIED: &str = "VERIFIED";

/// Whether a folder name is a run's date, `YYYYMMDD`.
fn is_date(name: &str) -> bool {
    name.len() == 8 && name.bytes().all(|b| b.is_ascii_digit())
}

/// The newest run of `wiki` under `dumps` that has its `VERIFIED` file: `dumps/wiki/DATE`.
/// Runs still downloading (no `VERIFIED`) are passed over; none at all is an error that says how
/// to get one.
pub fn newest_run(dumps: &Path, wiki: &str) -> Result<PathBuf> {
    let folder = dumps.join(wiki);
    let how = format!(
        "run `clue-db download --wiki {wiki} --dir {}` (or `make pipeline CORPUS={wiki}`) first",
        dumps.display()
    );
    let mut dates: Vec<String> = match std::fs::read_dir(&folder) {
        Ok(entries) => entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| is_date(n))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("listing {}", folder.display())),
    };
    dates.sort_unstable_by(|a, b| b.cmp(a));
    if let Some(date) = dates
        .iter()
        .find(|d| folder.join(d).join(VERIFIED).is_file())
    {
        return Ok(folder.join(date));
    }
    if dates.is_empty() {
        bail!(
            "corpus {wiki:?}: no dump run of it in {}: {how}",
            folder.display()
        );
    }
    bail!(
        "corpus {wiki:?}: no verified dump run in {} ({} without {VERIFIED}: still downloading, \
         or a file failed its check): {how}",
        folder.display(),
        dates.join(", ")
    )
}

/// The largest `VERIFIED` read: seven lines of ~100 bytes are what `clue-db download` writes;
/// anything near this is not such a record, and is not read whole into memory.
pub const MAX_VERIFIED_BYTES: u64 = 1 << 20;

/// Reads a text file of at most `cap` bytes; a larger one is an error naming it.
fn read_capped(path: &Path, cap: u64) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(cap + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > cap {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {cap} bytes: not a record `clue-db download` writes"),
        ));
    }
    Ok(text)
}

/// The files a run folder's `VERIFIED` lists, in its order. No `VERIFIED`, a line that is not
/// `SHA1  NAME`, a name that leaves the folder, or a listed file that is missing: an error naming
/// the run and the line, and nothing is read.
pub fn verified_files(run: &Path) -> Result<Vec<PathBuf>> {
    let list = run.join(VERIFIED);
    let text = match read_capped(&list, MAX_VERIFIED_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{}: no {VERIFIED} file, so the download of this run is not finished or not \
             verified; nothing is ingested from it (run `clue-db download` again)",
            run.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("reading {}", list.display())),
    };
    let mut files = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| {
            anyhow::anyhow!(
                "{}: line {}: {why}; expected `SHA1  FILENAME`, got {:?}",
                list.display(),
                n + 1,
                line.chars().take(120).collect::<String>()
            )
        };
        let (sum, name) = line
            .split_once(char::is_whitespace)
            .ok_or_else(|| bad("no file name"))?;
        // `sha1sum -b` marks binary mode with a `*` before the name.
        let name = name.trim_start().trim_start_matches('*');
        if sum.len() != 40 || !sum.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad("not a SHA-1"));
        }
        if name.is_empty()
            || name.contains('/')
            || name.contains('\\')
            || name == "."
            || name == ".."
        {
            return Err(bad("not a file name of this folder"));
        }
        let path = run.join(name);
        if !path.is_file() {
            bail!(
                "{}: line {}: {name} is listed but not in {}",
                list.display(),
                n + 1,
                run.display()
            );
        }
        files.push(path);
    }
    if files.is_empty() {
        bail!("{}: lists no file", list.display());
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUM: &str = "da39a3ee5e6b4b0d3255bfef95601890afd80709";

    #[test]
    fn the_newest_verified_run_is_used() {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path().join("simplewiki");
        for date in ["20240801", "20240901", "20241001"] {
            std::fs::create_dir_all(w.join(date)).unwrap();
        }
        std::fs::create_dir_all(w.join("latest")).unwrap();
        std::fs::write(w.join("latest").join(VERIFIED), "").unwrap();
        // 20241001 is still downloading.
        for date in ["20240801", "20240901"] {
            std::fs::write(w.join(date).join(VERIFIED), "").unwrap();
        }
        assert_eq!(
            newest_run(dir.path(), "simplewiki").unwrap(),
            w.join("20240901")
        );
        let err = newest_run(dir.path(), "dewiki").unwrap_err().to_string();
        assert!(
            err.contains("clue-db download --wiki dewiki") && err.contains("CORPUS=dewiki"),
            "{err}"
        );
        std::fs::remove_file(w.join("20240801").join(VERIFIED)).unwrap();
        std::fs::remove_file(w.join("20240901").join(VERIFIED)).unwrap();
        let err = newest_run(dir.path(), "simplewiki")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("20241001, 20240901, 20240801 without VERIFIED"),
            "{err}"
        );
    }

    #[test]
    fn only_listed_files_are_read_and_bad_lists_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path();
        std::fs::write(run.join("a.sql.gz"), "x").unwrap();
        std::fs::write(run.join("b.xml.bz2"), "x").unwrap();
        std::fs::write(run.join("c.sql.gz.part"), "x").unwrap();
        let err = verified_files(run).unwrap_err().to_string();
        assert!(err.contains("no VERIFIED file"), "{err}");
        std::fs::write(
            run.join(VERIFIED),
            format!("{SUM}  b.xml.bz2\n\n{SUM} *a.sql.gz\n"),
        )
        .unwrap();
        assert_eq!(
            verified_files(run).unwrap(),
            [run.join("b.xml.bz2"), run.join("a.sql.gz")]
        );
        for (list, needle) in [
            ("nothing\n", "line 1: no file name"),
            ("abc  a.sql.gz\n", "line 1: not a SHA-1"),
            (
                &format!("{SUM}  ../a.sql.gz\n"),
                "not a file name of this folder",
            ),
            (
                &format!("{SUM}  a.sql.gz\n{SUM}  d.sql.gz\n"),
                "line 2: d.sql.gz is listed",
            ),
            ("\n", "lists no file"),
        ] {
            std::fs::write(run.join(VERIFIED), list).unwrap();
            let err = verified_files(run).unwrap_err().to_string();
            assert!(err.contains(needle), "{list:?}: {err}");
        }
        // A VERIFIED past its cap (here, a file of 2 MiB of one line) is refused unread.
        let big = format!("{SUM}  a.sql.gz{}\n", " ".repeat(2 << 20));
        std::fs::write(run.join(VERIFIED), big).unwrap();
        let err = format!("{:#}", verified_files(run).unwrap_err());
        assert!(
            err.contains("VERIFIED") && err.contains("larger than 1048576 bytes"),
            "{err}"
        );
    }
}
