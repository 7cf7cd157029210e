//! What one dump run is, on paper: the names of its files, the dates of the runs, and the three
//! small texts the dumps site publishes about a run (`dumpstatus.json`, `WIKI-DATE-sha1sums.txt`,
//! the HTML index of run folders), plus the `VERIFIED` and `CHECKED` records this crate writes.
//!
//! Everything here is parsing and naming, with no I/O, so it is tested on strings.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One of the files clue-db needs from a run, named `WIKI-DATE-SUFFIX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DumpFile {
    /// What follows `WIKI-DATE-` in the file's name.
    pub suffix: &'static str,
    /// The jobs of `dumpstatus.json` that may produce it, the preferred one first. Large wikis
    /// write the multistream dump in parts (`articlesmultistreamdump`) and recombine them into
    /// the one file clue-db reads (`articlesmultistreamdumprecombine`, finished later); small
    /// wikis have no recombine job and list the one file under `articlesmultistreamdump`.
    pub jobs: &'static [&'static str],
}

const MULTISTREAM_JOBS: &[&str] = &[
    "articlesmultistreamdumprecombine",
    "articlesmultistreamdump",
];

/// The seven files of a run clue-db reads: the article text (multistream XML and its index) and
/// the tables that carry titles, redirects, links and the disambiguation flag. Downloaded in
/// this order.
pub const FILES: [DumpFile; 7] = [
    DumpFile {
        suffix: "pages-articles-multistream.xml.bz2",
        jobs: MULTISTREAM_JOBS,
    },
    DumpFile {
        suffix: "pages-articles-multistream-index.txt.bz2",
        jobs: MULTISTREAM_JOBS,
    },
    DumpFile {
        suffix: "page.sql.gz",
        jobs: &["pagetable"],
    },
    DumpFile {
        suffix: "redirect.sql.gz",
        jobs: &["redirecttable"],
    },
    DumpFile {
        suffix: "pagelinks.sql.gz",
        jobs: &["pagelinkstable"],
    },
    DumpFile {
        suffix: "linktarget.sql.gz",
        jobs: &["linktargettable"],
    },
    DumpFile {
        suffix: "page_props.sql.gz",
        jobs: &["pagepropstable"],
    },
];

/// The name of the record of a complete, verified run folder.
pub const VERIFIED: &str = "VERIFIED";

/// The name of the record of the files of a run folder checked so far, complete or not, in
/// `VERIFIED`'s form. It outlives `VERIFIED` (removed whenever a re-run changes the folder), so
/// that a file once checked is never given up for a mirror's later word; the pipeline ignores it.
pub const CHECKED: &str = "CHECKED";

/// `WIKI-DATE-SUFFIX`, the file's name on the dumps site and on disk.
pub fn file_name(wiki: &str, date: &str, file: &DumpFile) -> String {
    format!("{wiki}-{date}-{}", file.suffix)
}

/// `WIKI-DATE-sha1sums.txt`.
pub fn sha1sums_name(wiki: &str, date: &str) -> String {
    format!("{wiki}-{date}-sha1sums.txt")
}

/// Checks a wiki's database name (`enwiki`, `simplewiki`, `zh_min_nanwiki`, `enwiktionary`):
/// lower-case ASCII letters, digits and `_`. The name becomes a folder and a URL path segment,
/// so nothing else (no `/`, no `..`) may pass.
pub fn check_wiki(wiki: &str) -> Result<(), String> {
    if wiki.is_empty() || wiki.len() > 64 {
        return Err("a wiki's name has 1 to 64 characters".into());
    }
    if let Some(c) = wiki
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
    {
        return Err(format!(
            "{c:?} is not allowed: a wiki's database name is lower-case letters, digits and _ \
             (enwiki, simplewiki, dewiki)"
        ));
    }
    Ok(())
}

/// Which run to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DateSpec {
    /// The newest run whose needed jobs are all done.
    Latest,
    /// This run, `YYYYMMDD`.
    Date(String),
}

impl std::str::FromStr for DateSpec {
    type Err = String;

    /// `latest` or a date `YYYYMMDD` (a real calendar date between 2000 and 2199).
    fn from_str(s: &str) -> Result<DateSpec, String> {
        if s == "latest" {
            return Ok(DateSpec::Latest);
        }
        if is_date(s) {
            Ok(DateSpec::Date(s.to_string()))
        } else {
            Err(format!("{s:?} is not `latest` nor a date YYYYMMDD"))
        }
    }
}

/// Whether `s` is a date `YYYYMMDD` as the dumps site names its runs.
pub fn is_date(s: &str) -> bool {
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let n = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (n(0..4), n(4..6), n(6..8));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => 0,
    };
    (2000..2200).contains(&year) && (1..=days).contains(&day)
}

/// The run dates an HTML index of `MIRROR/WIKI/` links to (`<a href="20240901/">`), newest
/// first, without repeats. `latest/` and anything else is left out.
pub fn parse_listing(html: &str) -> Vec<String> {
    let mut dates: Vec<String> = html
        .split("href=")
        .skip(1)
        .filter_map(|rest| {
            let rest = rest.trim_start_matches(['"', '\'']);
            let end = rest.find(['"', '\'', '>', ' '])?;
            let target = rest[..end].trim_start_matches("./");
            let target = target.strip_suffix('/').unwrap_or(target);
            is_date(target).then(|| target.to_string())
        })
        .collect();
    dates.sort_unstable_by(|a, b| b.cmp(a));
    dates.dedup();
    dates
}

/// `dumpstatus.json`: the run's jobs by name. Fields clue-db does not use are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DumpStatus {
    #[serde(default)]
    pub jobs: BTreeMap<String, Job>,
}

/// One job of a run: `done`, `in-progress`, `waiting`, `failed`, `skipped`…, and the files it
/// wrote (listed as they are finished).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Job {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub files: BTreeMap<String, FileInfo>,
}

/// A file as `dumpstatus.json` lists it. Its `sha1` is not used: the run's `sha1sums.txt` is
/// what a file is checked against.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct FileInfo {
    #[serde(default)]
    pub size: Option<u64>,
}

/// A file to fetch: its name and, when `dumpstatus.json` gives it, its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed {
    pub name: String,
    pub size: Option<u64>,
}

impl DumpStatus {
    pub fn parse(text: &str) -> Result<DumpStatus, String> {
        serde_json::from_str(text).map_err(|e| format!("not a dumpstatus.json: {e}"))
    }

    /// The seven files with their sizes, if the jobs producing them are all `done`; otherwise
    /// the jobs that are not, as `job (status)`.
    pub fn needed(&self, wiki: &str, date: &str) -> Result<Vec<Needed>, Vec<String>> {
        let mut needed = Vec::new();
        let mut not_done: Vec<String> = Vec::new();
        for file in &FILES {
            let name = file_name(wiki, date, file);
            let listed = file.jobs.iter().find_map(|j| {
                let job = self.jobs.get(*j)?;
                job.files.get(&name).map(|info| (*j, job, info))
            });
            let problem = match listed {
                Some((_, job, info)) if job.status == "done" => {
                    needed.push(Needed {
                        name,
                        size: info.size,
                    });
                    continue;
                }
                Some((j, job, _)) => format!("{j} ({})", job.status),
                // Unlisted: the first of its jobs the run has is the one to wait for.
                None => match file
                    .jobs
                    .iter()
                    .find_map(|j| Some((*j, self.jobs.get(*j)?)))
                {
                    Some((j, job)) if job.status == "done" => {
                        format!("{j} (done, but {name} is not among its files)")
                    }
                    Some((j, job)) => format!("{j} ({})", job.status),
                    None => format!("{} (not in this run)", file.jobs[0]),
                },
            };
            if !not_done.contains(&problem) {
                not_done.push(problem);
            }
        }
        if not_done.is_empty() {
            Ok(needed)
        } else {
            Err(not_done)
        }
    }
}

/// Lines `SHA1  NAME` (`sha1sum`'s format; `SHA1 *NAME` too) as a map from name to lower-case
/// SHA-1. Lines that are not a 40-digit hex SHA-1 and a name are skipped: a file missing from
/// the map is reported when it is needed.
pub fn parse_sha1sums(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let (sum, name) = line.trim_end().split_once(' ')?;
            let name = name.trim_start_matches(' ').trim_start_matches('*');
            let ok = sum.len() == 40 && sum.bytes().all(|b| b.is_ascii_hexdigit());
            (ok && !name.is_empty()).then(|| (name.to_string(), sum.to_ascii_lowercase()))
        })
        .collect()
}

/// The `VERIFIED` record: `SHA1  NAME` per file, in the order given, newline-terminated.
pub fn format_verified(files: &[(String, String)]) -> String {
    files
        .iter()
        .map(|(name, sha1)| format!("{sha1}  {name}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_dumps_site() {
        assert_eq!(
            file_name("simplewiki", "20261101", &FILES[2]),
            "simplewiki-20261101-page.sql.gz"
        );
        assert_eq!(
            sha1sums_name("enwiki", "20240901"),
            "enwiki-20240901-sha1sums.txt"
        );
    }

    #[test]
    fn wiki_names_cannot_escape_the_folder() {
        for ok in ["enwiki", "simplewiki", "zh_min_nanwiki", "enwiktionary"] {
            assert!(check_wiki(ok).is_ok(), "{ok}");
        }
        for bad in ["", "../etc", "en/wiki", "EnWiki", "en wiki", "en.wiki"] {
            assert!(check_wiki(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_latest_or_real_calendar_days() {
        assert_eq!("latest".parse(), Ok(DateSpec::Latest));
        assert_eq!(
            "20240229".parse(),
            Ok(DateSpec::Date("20240229".to_string()))
        );
        for bad in [
            "20230229",
            "20241301",
            "20240100",
            "2024091",
            "2024-09-01",
            "Latest",
            "",
        ] {
            assert!(bad.parse::<DateSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn listing_gives_run_dates_newest_first() {
        let html = r#"<html><head><title>Index of /simplewiki/</title></head><body>
<h1>Index of /simplewiki/</h1><hr><pre><a href="../">../</a>
<a href="20240801/">20240801/</a>                                          02-Aug-2024 01:36    -
<a href="20240920/">20240920/</a>                                          20-Sep-2024 01:36    -
<a href='20240901/'>20240901/</a>
<a href="latest/">latest/</a>                                            20-Sep-2024 01:36    -
<a href="20240901/">again</a><a href="20249999/">bad</a><a href=20240701/>bare</a>
</pre><hr></body></html>"#;
        assert_eq!(
            parse_listing(html),
            ["20240920", "20240901", "20240801", "20240701"]
        );
        assert!(parse_listing("no links").is_empty());
    }

    /// The real file's shape (abridged from simplewiki's): jobs with status, updated, files.
    const STATUS: &str = r#"{"jobs": {
      "pagelinkstable": {"status": "done", "updated": "2024-09-02 00:01:02",
        "files": {"simplewiki-20240901-pagelinks.sql.gz": {"size": 120, "url": "/simplewiki/20240901/simplewiki-20240901-pagelinks.sql.gz", "sha1": "aa", "md5": "bb"}}},
      "pagetable": {"status": "done", "files": {"simplewiki-20240901-page.sql.gz": {"size": 100}}},
      "redirecttable": {"status": "done", "files": {"simplewiki-20240901-redirect.sql.gz": {"size": 10}}},
      "linktargettable": {"status": "done", "files": {"simplewiki-20240901-linktarget.sql.gz": {"size": 11}}},
      "pagepropstable": {"status": "done", "files": {"simplewiki-20240901-page_props.sql.gz": {}}},
      "articlesmultistreamdump": {"status": "done", "files": {
        "simplewiki-20240901-pages-articles-multistream.xml.bz2": {"size": 5000},
        "simplewiki-20240901-pages-articles-multistream-index.txt.bz2": {"size": 50}}},
      "metahistory7zdump": {"status": "failed", "files": {}}
    }, "version": "0.8"}"#;

    #[test]
    fn a_finished_run_lists_its_seven_files() {
        let status = DumpStatus::parse(STATUS).unwrap();
        let needed = status.needed("simplewiki", "20240901").unwrap();
        assert_eq!(needed.len(), 7);
        assert_eq!(
            needed[0],
            Needed {
                name: "simplewiki-20240901-pages-articles-multistream.xml.bz2".into(),
                size: Some(5000)
            }
        );
        assert_eq!(needed[6].size, None);
    }

    #[test]
    fn an_unfinished_run_names_the_jobs_to_wait_for() {
        let text = STATUS
            .replace(r#""pagetable": {"status": "done""#, r#""pagetable": {"status": "in-progress""#)
            .replace(
                r#""redirecttable": {"status": "done", "files": {"simplewiki-20240901-redirect.sql.gz": {"size": 10}}}"#,
                r#""redirecttable": {"status": "waiting", "files": {}}"#,
            );
        let status = DumpStatus::parse(&text).unwrap();
        assert_eq!(
            status.needed("simplewiki", "20240901").unwrap_err(),
            ["pagetable (in-progress)", "redirecttable (waiting)"]
        );
    }

    #[test]
    fn a_large_wiki_waits_for_the_recombined_multistream() {
        // enwiki: the parts are done, the recombined file is not written yet.
        let text = STATUS.replace(
            r#""metahistory7zdump""#,
            r#""articlesmultistreamdumprecombine": {"status": "in-progress", "files": {}}, "x""#,
        );
        let status = DumpStatus::parse(&text).unwrap();
        // The small-wiki listing under articlesmultistreamdump still counts once listed there.
        assert!(status.needed("simplewiki", "20240901").is_ok());
        let parts_only = text.replace("simplewiki-20240901-pages-articles-multistream", "other");
        let status = DumpStatus::parse(&parts_only).unwrap();
        assert_eq!(
            status.needed("simplewiki", "20240901").unwrap_err(),
            ["articlesmultistreamdumprecombine (in-progress)"]
        );
    }

    #[test]
    fn missing_jobs_and_bad_json_are_reported() {
        let status = DumpStatus::parse(r#"{"jobs": {}}"#).unwrap();
        let err = status.needed("w", "20240901").unwrap_err();
        assert_eq!(err.len(), 6);
        assert_eq!(err[0], "articlesmultistreamdumprecombine (not in this run)");
        assert!(DumpStatus::parse("<html>").is_err());
        assert!(DumpStatus::parse(r#"{"jobs": {"pagetable": {"status": 3}}}"#).is_err());
    }

    #[test]
    fn sha1sums_lines_are_parsed_and_bad_ones_skipped() {
        let text = "0123456789abcdef0123456789abcdef01234567  a.sql.gz\n\
                    0123456789ABCDEF0123456789ABCDEF01234567 *b.xml.bz2\n\
                    short  c\n\n\
                    0123456789abcdef0123456789abcdef0123456z  d\n";
        let sums = parse_sha1sums(text);
        assert_eq!(sums.len(), 2);
        assert_eq!(sums["a.sql.gz"], "0123456789abcdef0123456789abcdef01234567");
        assert_eq!(
            sums["b.xml.bz2"],
            "0123456789abcdef0123456789abcdef01234567"
        );
    }

    #[test]
    fn verified_record_reads_back_as_sha1sums() {
        let files = vec![
            ("x.sql.gz".to_string(), "a".repeat(40)),
            ("y.xml.bz2".to_string(), "b".repeat(40)),
        ];
        let text = format_verified(&files);
        assert_eq!(
            text.lines().next(),
            Some(&*format!("{}  x.sql.gz", "a".repeat(40)))
        );
        let back = parse_sha1sums(&text);
        assert_eq!(back.len(), 2);
        assert_eq!(back["y.xml.bz2"], "b".repeat(40));
    }
}
