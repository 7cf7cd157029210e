//! Which source a corpus name means: an offline corpus of the shared data folder (each named
//! here once, with its format and file, for `clue-db pipeline --corpus` and the benchmarks), a
//! wiki's newest verified dump run ([`crate::dumps`]), or a run folder's path.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

use crate::dump_run::DumpRun;
use crate::ingest::{Format, Request};

/// An offline corpus: its name, its format, its file or folder under the shared data folder.
#[derive(Debug, Clone, Copy)]
pub struct Offline {
    pub name: &'static str,
    pub format: Format,
    pub file: &'static str,
}

/// The offline corpora, in the order `make pipeline` lists them.
pub const OFFLINE: [Offline; 5] = [
    Offline {
        name: "wikispeedia",
        format: Format::Wikispeedia,
        file: "wikispeedia",
    },
    Offline {
        name: "enwiki-sample",
        format: Format::Xml,
        file: "enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
    },
    Offline {
        name: "enwiki-2015-wikiextractor",
        format: Format::Extractor,
        file: "enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz",
    },
    Offline {
        name: "enwiki-2019-wikiextractor",
        format: Format::Extractor,
        file: "enwiki-2019-wikiextractor/enwiki-2019-featured-wikiextractor.txt.xz",
    },
    Offline {
        name: "simplewiki-2017-wikiextractor",
        format: Format::Extractor,
        file: "simplewiki-2017-wikiextractor/simplewiki-2017-wikiextractor.txt.xz",
    },
];

/// The offline corpus named `name`, if it is one.
pub fn offline(name: &str) -> Option<&'static Offline> {
    OFFLINE.iter().find(|c| c.name == name)
}

impl Offline {
    /// Its file or folder under the shared data folder `data`.
    pub fn path(&self, data: &Path) -> PathBuf {
        data.join(self.file)
    }
}

/// The source behind a corpus name: an offline corpus of the shared data folder `data`, a
/// wiki's newest verified dump run under `dumps`, or a run folder's path. With it, the wiki
/// whose language the corpus is in (`en` for the offline ones).
pub fn request(data: &Path, dumps: &Path, corpus: &str) -> Result<(Request, String)> {
    let is_path = corpus.contains(std::path::MAIN_SEPARATOR) || corpus.contains('/');
    let found = if is_path { None } else { offline(corpus) };
    let Some(c) = found else {
        let run = if is_path {
            PathBuf::from(corpus)
        } else {
            crate::dumps::newest_run(dumps, corpus).with_context(|| {
                let names: Vec<&str> = OFFLINE.iter().map(|c| c.name).collect();
                format!(
                    "corpus {corpus:?} is not an offline corpus ({})",
                    names.join(", ")
                )
            })?
        };
        if !run.is_dir() {
            bail!("{}: no such dump run folder", run.display());
        }
        let parsed = DumpRun::from_paths(std::slice::from_ref(&run))
            .with_context(|| format!("corpus {corpus:?}"))?;
        let wiki = match parsed.wiki {
            Some(w) => w,
            None if is_path => bail!(
                "{}: its files are not named WIKI-DATE-…, so the wiki (and its language) is \
                 unknown",
                run.display()
            ),
            None => corpus.to_string(),
        };
        return Ok((Request::files(Format::DumpRun, vec![run]), wiki));
    };
    let path = c.path(data);
    if !path.exists() {
        bail!(
            "{}: corpus {corpus:?} not found in {} (the data folder, --data: ../shared/data \
             when ../shared is beside the repository)",
            path.display(),
            data.display()
        );
    }
    Ok((Request::files(c.format, vec![path]), "enwiki".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_offline_corpus_is_named_once_and_found_by_its_name() {
        for c in &OFFLINE {
            assert_eq!(offline(c.name).map(|o| o.file), Some(c.file));
        }
        assert!(offline("enwiki").is_none());
        assert!(offline("wikispeedia/").is_none());
    }
}
