//! [`Format::DumpRun`](crate::ingest::Format::DumpRun): one dump run of one wiki as one build.
//! This module knows a run's files; `ingest` joins them (see the table below).
//!
//! Wikimedia publishes a wiki's content for a date as several files: the `pages-articles` XML
//! (with wikitext) and SQL dumps of its tables. They come from the same database, so they share
//! one page-id space, and they are joined on page ids, with no id offset between them (unlike
//! the corpora of `pipeline --corpus a,b`, which are different sources and are offset apart).
//!
//! Which input gives which field:
//!
//! | field | from |
//! |---|---|
//! | which pages exist, id, title, namespace, text, redirect target | the XML (multistream with its index, decoded on all cores; or plain) |
//! | links | `pagelinks` (+ `linktarget`, its titles) when the run has it: what MediaWiki computed, templates included. Without it, the XML's wikitext links |
//! | disambiguation flag | `page_props` (`disambiguation` rows, set by the Disambiguator extension in every language) when the run has it; the XML's template guess is then not used. Without it, the XML's guess |
//!
//! `page` and `redirect` dumps are accepted in a run and not read: the XML already has every
//! page's id, title and namespace and every redirect's target, and a page of the `page` table
//! the XML lacks has no text (talk and user pages: millions of rows of no use). Those dumps are
//! for `--format sql`. `pagelinks` rows from pages the XML lacks, and `page_props` rows of such
//! pages, match no stored page and are dropped (counted in `meta`).
//!
//! The files must be of one run: names of the dumps site's form (`W-DATE-…`) must agree on `W`
//! and `DATE`, since ids of another date may name other pages.

use crate::sql_tables::sql_tables;
use anyhow::{Result, bail};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The files of one dump run, by role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRun {
    /// The wiki and the date the file names say (`enwiki`, `20240901`), if they follow the
    /// dumps site's names.
    pub wiki: Option<String>,
    pub date: Option<String>,
    /// The `pages-articles` XML (`.xml`, `.xml.bz2`, …).
    pub xml: PathBuf,
    /// Its multistream index (`…-multistream-index.txt.bz2`), if given.
    pub index: Option<PathBuf>,
    /// The SQL dumps by table (`pagelinks`, `linktarget`, `page_props`, `page`, `redirect`).
    pub sql: HashMap<String, PathBuf>,
}

/// The role a file plays in a run, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Xml,
    Index,
    Sql,
}

fn role(path: &Path) -> Option<Role> {
    let name = path.file_name()?.to_str()?;
    if name.contains("index") && name.contains(".txt") {
        Some(Role::Index)
    } else if name.contains(".xml") {
        Some(Role::Xml)
    } else if name.contains(".sql") {
        Some(Role::Sql)
    } else {
        None
    }
}

/// `(wiki, date)` of a dump file name `W-DATE-…`.
fn run_of(path: &Path) -> Option<(String, String)> {
    let name = path.file_name()?.to_str()?;
    let mut parts = name.splitn(3, '-');
    let (wiki, date, _) = (parts.next()?, parts.next()?, parts.next()?);
    let is_date = date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit());
    (is_date && !wiki.is_empty()).then(|| (wiki.to_string(), date.to_string()))
}

impl DumpRun {
    /// The run of `paths`: one folder (its files are those its `VERIFIED` lists, see
    /// [`crate::dumps`]), or the files themselves, each known by its name.
    pub fn from_paths(paths: &[PathBuf]) -> Result<DumpRun> {
        let files = match paths {
            [dir] if dir.is_dir() => crate::dumps::verified_files(dir)?,
            _ => paths.to_vec(),
        };
        let (mut xml, mut index, mut sql) = (None::<PathBuf>, None::<PathBuf>, Vec::new());
        for f in &files {
            if f.is_dir() {
                bail!(
                    "{}: a folder among the files of a dump run (give the run folder alone)",
                    f.display()
                );
            }
            let slot = match role(f) {
                Some(Role::Xml) => &mut xml,
                Some(Role::Index) => &mut index,
                Some(Role::Sql) => {
                    sql.push(f.clone());
                    continue;
                }
                None => bail!(
                    "{}: not a file of a dump run (W-DATE-pages-articles-multistream.xml.bz2, \
                     its -index.txt.bz2, W-DATE-TABLE.sql.gz)",
                    f.display()
                ),
            };
            if let Some(first) = slot.replace(f.clone()) {
                bail!(
                    "two files of one role in a dump run: {} and {}",
                    first.display(),
                    f.display()
                );
            }
        }
        let Some(xml) = xml else {
            bail!(
                "no pages-articles XML among {}: a dump run's pages and text come from it",
                files
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        let mut runs = files.iter().filter_map(|f| run_of(f).map(|r| (f, r)));
        let first = runs.next();
        if let Some((f0, r0)) = &first
            && let Some((f, r)) = runs.find(|(_, r)| r != r0)
        {
            bail!(
                "files of two dump runs: {} is {} {}, {} is {} {}; page ids are joined across \
                 the files, so they must come from one run",
                f0.display(),
                r0.0,
                r0.1,
                f.display(),
                r.0,
                r.1
            );
        }
        let (wiki, date) = first.map(|(_, r)| r).unzip();
        Ok(DumpRun {
            wiki,
            date,
            xml,
            index,
            sql: sql_tables(&sql)?,
        })
    }

    /// Every file of the run.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out = vec![self.xml.clone()];
        out.extend(self.index.clone());
        let mut sql: Vec<PathBuf> = self.sql.values().cloned().collect();
        sql.sort();
        out.extend(sql);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "").unwrap();
        p
    }

    #[test]
    fn files_are_known_by_their_dump_names() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let xml = touch(d, "simplewiki-20240901-pages-articles-multistream.xml.bz2");
        let index = touch(
            d,
            "simplewiki-20240901-pages-articles-multistream-index.txt.bz2",
        );
        let props = touch(d, "simplewiki-20240901-page_props.sql");
        let run = DumpRun::from_paths(&[props.clone(), index.clone(), xml.clone()]).unwrap();
        assert_eq!(run.xml, xml);
        assert_eq!(run.index, Some(index.clone()));
        assert_eq!(run.sql.get("page_props"), Some(&props));
        assert_eq!(run.wiki.as_deref(), Some("simplewiki"));
        assert_eq!(run.date.as_deref(), Some("20240901"));

        let other = touch(d, "simplewiki-20241001-pagelinks.sql");
        let err = DumpRun::from_paths(&[xml.clone(), other])
            .unwrap_err()
            .to_string();
        assert!(err.contains("files of two dump runs"), "{err}");
        let err = DumpRun::from_paths(&[index]).unwrap_err().to_string();
        assert!(err.contains("no pages-articles XML"), "{err}");
        let stray = touch(d, "notes.md");
        let err = DumpRun::from_paths(&[xml.clone(), stray])
            .unwrap_err()
            .to_string();
        assert!(err.contains("notes.md: not a file of a dump run"), "{err}");
        let err = DumpRun::from_paths(&[xml.clone(), xml])
            .unwrap_err()
            .to_string();
        assert!(err.contains("two files of one role"), "{err}");
    }
}
