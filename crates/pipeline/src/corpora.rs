//! Which source a corpus name means: an offline corpus of the shared data folder (each named
//! here once, with its format and file, for `clue-db pipeline --corpus` and the benchmarks), a
//! wiki's newest verified dump run ([`crate::dumps`]), or a run folder's path.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

use crate::dump_run::DumpRun;
use crate::ingest::{Format, Request};

/// An offline corpus: its name, its format, its file or folder under the shared data folder,
/// and how much its text teaches.
#[derive(Debug, Clone, Copy)]
pub struct Offline {
    pub name: &'static str,
    pub format: Format,
    pub file: &'static str,
    /// How many times its text counts in what the relatedness stage learns ([`TextWeights`]):
    /// 2 for Simple English Wikipedia, written in the everyday words a player hears a clue in,
    /// where an encyclopaedia writes a word's technical company (docs/evaluation.md, "Simple
    /// English counted twice"); 1 for the others.
    pub weight: u32,
}

/// The offline corpora, in the order `make pipeline` lists them.
pub const OFFLINE: [Offline; 5] = [
    Offline {
        name: "wikispeedia",
        format: Format::Wikispeedia,
        file: "wikispeedia",
        weight: 1,
    },
    Offline {
        name: "enwiki-sample",
        format: Format::Xml,
        file: "enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
        weight: 1,
    },
    Offline {
        name: "enwiki-2015-wikiextractor",
        format: Format::Extractor,
        file: "enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz",
        weight: 1,
    },
    Offline {
        name: "enwiki-2019-wikiextractor",
        format: Format::Extractor,
        file: "enwiki-2019-wikiextractor/enwiki-2019-featured-wikiextractor.txt.xz",
        weight: 1,
    },
    Offline {
        name: "simplewiki-2017-wikiextractor",
        format: Format::Extractor,
        file: "simplewiki-2017-wikiextractor/simplewiki-2017-wikiextractor.txt.xz",
        weight: 2,
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

/// How many times each corpus's text counts in what the relatedness stage learns (its
/// co-occurrence counts, its meetings, the skip-gram's sentences; not the vocabulary's counts,
/// so that the clue words are the same): an offline corpus's [`Offline::weight`] unless given
/// otherwise (`clue-db pipeline --text-weight NAME=N`, NAME as `--corpus` named it), 1 for any
/// other corpus (a downloaded `simplewiki` too: its weight was not measured). A weight says how
/// much a corpus counts beside the others, so the registry's apply only to a build of several
/// corpora: one built alone counts once unless given. Given, a weight is a count, not only a
/// ratio: a corpus alone at weight 2 learns the same PPMI, but its meetings weigh more beside
/// the card words' counts in the score, and the skip-gram reads it twice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextWeights {
    given: Vec<(String, u32)>,
}

impl TextWeights {
    /// The largest weight: the skip-gram keeps a weighted corpus's sentences that many times,
    /// so its memory and time grow with the weight of a large corpus.
    pub const MAX: u32 = 8;

    /// Parses one `NAME=N` (`--text-weight`), N a whole number from 1 to [`TextWeights::MAX`].
    pub fn parse(arg: &str) -> Result<(String, u32)> {
        let (name, n) = arg.rsplit_once('=').with_context(|| {
            format!("text weight {arg:?} is not NAME=N (simplewiki-2017-wikiextractor=2)")
        })?;
        let name = name.trim();
        if name.is_empty() {
            bail!("text weight {arg:?} names no corpus");
        }
        let n: u32 = n
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=Self::MAX).contains(n))
            .with_context(|| {
                format!(
                    "text weight {arg:?}: the weight is a whole number from 1 to {}",
                    Self::MAX
                )
            })?;
        Ok((name.to_string(), n))
    }

    /// The offline corpora's weights, with `given` instead where it names a corpus (the last
    /// of a name wins).
    pub fn with(given: Vec<(String, u32)>) -> TextWeights {
        TextWeights { given }
    }

    /// The weight of the corpus named `name`, beside others (`alone`: the only corpus of its
    /// build, which counts once unless given).
    pub fn weight(&self, name: &str, alone: bool) -> u32 {
        match self.given.iter().rev().find(|(n, _)| n == name) {
            Some(&(_, w)) => w,
            None if alone => 1,
            None => offline(name).map_or(1, |c| c.weight),
        }
    }

    /// The weights of corpora named in the order they were ingested ([`TextWeights::for_build`]).
    /// A weight given for a corpus they do not hold is an error: it would change nothing,
    /// silently.
    pub fn for_corpora(&self, corpora: &[&str]) -> Result<Vec<u32>> {
        if let Some((name, _)) = self
            .given
            .iter()
            .find(|(n, _)| !corpora.contains(&n.as_str()))
        {
            bail!(
                "--text-weight {name:?}: no corpus of that name in this build ({})",
                if corpora.is_empty() {
                    "it was made by `clue-db ingest`, which records no corpus names, so its text \
                     all counts once; build with `clue-db pipeline all --corpus NAME,…` to weigh \
                     a corpus"
                        .to_string()
                } else {
                    format!("its corpora: {}", corpora.join(", "))
                }
            );
        }
        let alone = corpora.len() == 1;
        Ok(corpora.iter().map(|c| self.weight(c, alone)).collect())
    }

    /// Each corpus `build` was made from, in the order they were ingested (`meta`
    /// `ingest.corpus`: the `i`-th one's pages have ids from `i` ×
    /// [`crate::ingest::SOURCE_ID_STRIDE`], [`crate::ingest::source_of`]), with its weight; none
    /// for a database made by `clue-db ingest`, whose source has no name.
    pub fn for_build(&self, build: &store::Build) -> Result<Vec<(String, u32)>> {
        self.for_recorded(build.meta("ingest.corpus")?.as_deref())
    }

    /// [`TextWeights::for_build`] from a database's `meta` `ingest.corpus` as read (`None`: a
    /// database made by `clue-db ingest`): so an update can check the weights on the finished
    /// database, read-only, before it copies it.
    pub fn for_recorded(&self, recorded: Option<&str>) -> Result<Vec<(String, u32)>> {
        let names: Vec<&str> = recorded
            .unwrap_or_default()
            .split(',')
            .filter(|c| !c.is_empty())
            .collect();
        let weights = self.for_corpora(&names)?;
        Ok(names.into_iter().map(str::to_string).zip(weights).collect())
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

    #[test]
    fn text_weights_are_the_registrys_unless_given() {
        let simple = "simplewiki-2017-wikiextractor";
        let default = TextWeights::default();
        assert_eq!(
            (
                default.weight(simple, false),
                default.weight("wikispeedia", false),
                default.weight("dewiki", false),
                default.weight(simple, true)
            ),
            (2, 1, 1, 1)
        );
        let given = TextWeights::with(vec![
            TextWeights::parse("simplewiki-2017-wikiextractor=3").unwrap(),
            TextWeights::parse(" dewiki = 4 ").unwrap(),
            TextWeights::parse("simplewiki-2017-wikiextractor=1").unwrap(),
        ]);
        assert_eq!(
            (given.weight(simple, false), given.weight("dewiki", true)),
            (1, 4)
        );
        // A build's corpora in their order; a given weight the build cannot use is an error
        // naming what it has.
        let built = ["wikispeedia", simple];
        assert_eq!(default.for_corpora(&built).unwrap(), [1, 2]);
        // A corpus built alone counts once unless given: its weight says how much it counts
        // beside others.
        assert_eq!(default.for_corpora(&[simple]).unwrap(), [1]);
        let three = TextWeights::with(vec![(simple.to_string(), 3)]);
        assert_eq!(three.for_corpora(&[simple]).unwrap(), [3]);
        let err = given.for_corpora(&built).unwrap_err().to_string();
        assert!(
            err.contains("\"dewiki\"") && err.contains("its corpora: wikispeedia, simplewiki"),
            "{err}"
        );
        assert!(default.for_corpora(&[]).unwrap().is_empty());
        let err = given.for_corpora(&[]).unwrap_err().to_string();
        assert!(err.contains("made by `clue-db ingest`"), "{err}");
        for bad in ["simplewiki", "=2", "x=0", "x=9", "x=1.5", "x=two"] {
            assert!(TextWeights::parse(bad).is_err(), "{bad}");
        }
        let err = TextWeights::parse("x=0").unwrap_err().to_string();
        assert!(err.contains("1 to 8"), "{err}");
    }
}
