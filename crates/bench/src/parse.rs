//! What `make bench` reads from `clue-db`'s own output: the line of `clue-db read`, the
//! `key<TAB>value` lines of `clue-db info`, and the boards of `clue-db bench-suggest
//! --print-boards`.

use anyhow::{Context, Result, bail};

/// The figures of one `clue-db read` run, from its line
/// `Xml: 206 pages, 6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadLine {
    /// The reader (`Xml`, `Sql`, `Multistream`…).
    pub format: String,
    /// Pages read; for SQL dumps, rows.
    pub pages: u64,
    /// Uncompressed megabytes through the parser.
    pub mb: f64,
    pub seconds: f64,
    pub pages_per_second: f64,
    pub mb_per_second: f64,
}

impl ReadLine {
    pub fn parse(out: &str) -> Result<ReadLine> {
        let line = out
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .context("`clue-db read` printed nothing")?;
        let bad = || format!("`clue-db read` printed {line:?}, not `Format: N pages, …`");
        let (format, rest) = line.split_once(": ").with_context(bad)?;
        let fields: Vec<&str> = rest.split(", ").collect();
        let [pages, mb, seconds, pps, mbps] = fields[..] else {
            bail!("{}", bad());
        };
        // Each field is `NUMBER UNIT`, with the unit `clue-db read` prints.
        let number = |field: &str, unit: &str| -> Result<f64> {
            let v = field
                .strip_suffix(unit)
                .with_context(|| format!("{}: {field:?} does not end in {unit:?}", bad()))?;
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .with_context(|| format!("{}: {v:?} is not a number", bad()))
        };
        let pages_f = number(pages, " pages")?;
        if pages_f.fract() != 0.0 {
            bail!("{}: a fraction of a page", bad());
        }
        Ok(ReadLine {
            format: format.trim().to_string(),
            pages: pages_f as u64,
            mb: number(mb, " MB decoded")?,
            seconds: number(seconds, " s")?,
            pages_per_second: number(pps, " pages/s")?,
            mb_per_second: number(mbps, " MB/s")?,
        })
    }
}

/// The stages of `clue-db pipeline all`, in their order, as the pipeline table lists them:
/// the ingest, then [`pipeline::STAGES`].
fn stages() -> impl Iterator<Item = &'static str> {
    std::iter::once("ingest").chain(pipeline::STAGES)
}

/// The `meta` table as `clue-db info` prints it (`key<TAB>value`, in its order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta(pub Vec<(String, String)>);

impl Meta {
    pub fn parse(out: &str) -> Meta {
        Meta(
            out.lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key`, or `-` when the database has none (as the table shows it).
    pub fn show(&self, key: &str) -> &str {
        self.get(key).unwrap_or("-")
    }

    /// `(stage, seconds)` of every stage: `stages` first, in order (`-` when not recorded),
    /// then any other `NAME.seconds` key in `info`'s order, so that a stage added later, or an
    /// ingest of a second corpus (`ingest.CORPUS.seconds`), still shows.
    pub fn stage_seconds(&self) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = stages()
            .map(|s| {
                (
                    s.to_string(),
                    self.show(&format!("{s}.seconds")).to_string(),
                )
            })
            .collect();
        for (k, v) in &self.0 {
            if let Some(stage) = k.strip_suffix(".seconds")
                && !stages().any(|s| s == stage)
            {
                rows.push((stage.to_string(), v.clone()));
            }
        }
        rows
    }

    /// The pages of each source: the keys `ingest.pages` and `ingest.CORPUS.pages` (`CORPUS`
    /// without a dot), in `info`'s order.
    pub fn pages_per_source(&self) -> Vec<(&str, &str)> {
        self.0
            .iter()
            .filter(|(k, _)| {
                k.strip_prefix("ingest.")
                    .and_then(|r| r.strip_suffix("pages"))
                    .is_some_and(|mid| mid.is_empty() || is_corpus_part(mid))
            })
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }
}

/// `CORPUS.` with no other dot and something before it.
fn is_corpus_part(mid: &str) -> bool {
    mid.strip_suffix('.')
        .is_some_and(|c| !c.is_empty() && !c.contains('.'))
}

/// One board of `clue-db bench-suggest --print-boards`: `pos<TAB>neg<TAB>assassin<TAB>neutral`,
/// the words comma-separated, as `clue-db suggest` takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardLine {
    pub pos: String,
    pub neg: String,
    pub assassin: String,
    pub neutral: String,
}

impl BoardLine {
    pub fn parse_all(out: &str) -> Result<Vec<BoardLine>> {
        out.lines()
            .filter(|l| !l.is_empty())
            .enumerate()
            .map(|(i, l)| {
                let f: Vec<&str> = l.split('\t').collect();
                let [pos, neg, assassin, neutral] = f[..] else {
                    bail!(
                        "board line {}: {l:?} has {} fields, not pos, neg, assassin, neutral",
                        i + 1,
                        f.len()
                    );
                };
                if pos.is_empty() {
                    bail!("board line {}: {l:?} has no team word", i + 1);
                }
                Ok(BoardLine {
                    pos: pos.into(),
                    neg: neg.into(),
                    assassin: assassin.into(),
                    neutral: neutral.into(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_line_gives_its_figures() {
        let r = ReadLine::parse("Xml: 206 pages, 6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s\n")
            .unwrap();
        assert_eq!(
            r,
            ReadLine {
                format: "Xml".into(),
                pages: 206,
                mb: 6.1,
                seconds: 0.56,
                pages_per_second: 371.0,
                mb_per_second: 11.0,
            }
        );
        // Large counts, no thousands separators; a warning line before it is skipped.
        let r = ReadLine::parse(
            "note: something\nSql: 6000000 pages, 142.3 MB decoded, 0.61 s, 9836066 pages/s, 233.3 MB/s",
        )
        .unwrap();
        assert_eq!((r.format.as_str(), r.pages), ("Sql", 6_000_000));
        assert_eq!((r.mb, r.seconds, r.mb_per_second), (142.3, 0.61, 233.3));
        let r = ReadLine::parse("DumpRun: 0 pages, 0.0 MB decoded, 0.00 s, 0 pages/s, 0.0 MB/s")
            .unwrap();
        assert_eq!((r.format.as_str(), r.pages, r.mb), ("DumpRun", 0, 0.0));
    }

    #[test]
    fn a_read_line_of_another_shape_is_an_error_that_quotes_it() {
        for bad in [
            "",
            "Xml 206 pages",
            "Xml: 206 pages, 6.1 MB decoded, 0.56 s, 371 pages/s",
            "Xml: 206 pages, 6.1 MB, 0.56 s, 371 pages/s, 11.0 MB/s",
            "Xml: many pages, 6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s",
            "Xml: 2.5 pages, 6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s",
            "Xml: 206 pages, -6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s",
        ] {
            let e = ReadLine::parse(bad).unwrap_err().to_string();
            assert!(e.contains("clue-db read"), "{bad:?}: {e}");
        }
    }

    const INFO: &str = "chunks.seconds\t2.436\n\
        count.seconds\t2.911\n\
        ingest.corpus\twikispeedia,enwiki-2015-wikiextractor\n\
        ingest.duplicates\t1953\n\
        ingest.enwiki-2015-wikiextractor.pages\t33380\n\
        ingest.enwiki-2015-wikiextractor.seconds\t12.893\n\
        ingest.pages\t4604\n\
        ingest.seconds\t1.275\n\
        ingest.x.y.pages\t1\n\
        ingest.texts_pages\t1\n\
        pagerank.edges_per_second\t390653094\n\
        relatedness.card_words_unseen\t\n\
        relatedness.seconds\t41.8\n\
        relatedness.seconds_svd\t3.0\n\
        shiny.seconds\t0.5\n\
        terms.seconds\t0.1\n";

    #[test]
    fn info_lines_become_meta_with_empty_values_kept() {
        let m = Meta::parse(INFO);
        assert_eq!(m.0.len(), 16);
        assert_eq!(m.get("ingest.duplicates"), Some("1953"));
        assert_eq!(m.get("relatedness.card_words_unseen"), Some(""));
        assert_eq!(m.get("nothing"), None);
        assert_eq!(m.show("nothing"), "-");
        assert_eq!(Meta::parse("no tab here\n"), Meta::default());
    }

    #[test]
    fn stages_come_in_pipeline_order_then_the_others() {
        let rows = Meta::parse(INFO).stage_seconds();
        let got: Vec<(&str, &str)> = rows.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            got,
            [
                ("ingest", "1.275"),
                ("terms", "0.1"),
                ("term_pages", "-"),
                ("clue_pages", "-"),
                ("count", "2.911"),
                ("chunks", "2.436"),
                ("pagerank", "-"),
                ("scores", "-"),
                ("relatedness", "41.8"),
                ("setnet", "-"),
                ("ingest.enwiki-2015-wikiextractor", "12.893"),
                ("shiny", "0.5"),
            ]
        );
    }

    #[test]
    fn pages_per_source_are_ingest_and_each_corpus() {
        assert_eq!(
            Meta::parse(INFO).pages_per_source(),
            [
                ("ingest.enwiki-2015-wikiextractor.pages", "33380"),
                ("ingest.pages", "4604")
            ]
        );
    }

    #[test]
    fn board_lines_keep_their_four_fields() {
        let b = BoardLine::parse_all("a,b\tc\td\te,f\nx\ty\t\tz\n").unwrap();
        assert_eq!(
            b,
            [
                BoardLine {
                    pos: "a,b".into(),
                    neg: "c".into(),
                    assassin: "d".into(),
                    neutral: "e,f".into()
                },
                BoardLine {
                    pos: "x".into(),
                    neg: "y".into(),
                    assassin: "".into(),
                    neutral: "z".into()
                }
            ]
        );
        let e = BoardLine::parse_all("a\tb\tc\n").unwrap_err().to_string();
        assert!(e.contains("board line 1") && e.contains("3 fields"), "{e}");
        assert!(BoardLine::parse_all("\tb\tc\td\n").is_err());
        assert_eq!(BoardLine::parse_all("").unwrap(), []);
    }
}
