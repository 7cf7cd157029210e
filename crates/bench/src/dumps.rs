//! The synthetic inputs of `make bench`'s readers section, seeded and streamed:
//!
//! - [`write_pagelinks_lines`]: a `pagelinks` dump big enough to time the SQL reader on lines as
//!   long as Wikimedia's (the fixture's `CREATE TABLE`, then 100 `INSERT` lines of 60,000 tuples
//!   `(pl_from, pl_from_namespace, pl_target_id)`, ~1.4 MB each: 5 distinct lines written 20
//!   times, which keeps generating it quick);
//! - [`write_page_dump`], [`write_linktarget_dump`], [`write_random_links`]: a `page` +
//!   `linktarget` + `pagelinks` set with the fixtures' headers (200,000 pages and 2 M links in
//!   the benchmark), for a whole SQL ingest with link resolution;
//! - [`write_multistream`]: a multistream dump made of an XML dump's pages, repeated (page ids
//!   shifted by 1,000,000 per copy), 100 pages per bz2 stream as Wikimedia builds them, with its
//!   bz2 `offset:id:title` index.
//!
//! The SQL dumps take their frame (the table's definition before the first `INSERT`, the
//! closing lines after the last) from a real dump: [`SqlFrame`].

use crate::synth::{Rng, SqlFrame};
use anyhow::{Context, Result, bail};
use std::io::{self, Write};

/// The seed of every synthetic dump (the boards have their own, `BENCH_SEED`).
pub const SEED: u64 = 1;

/// Writes `frame`'s head, then rows `row(i)` for `i` in `0..n` as extended `INSERT`s of `table`,
/// `per_insert` rows a statement, then `frame`'s tail.
pub fn write_batched(
    out: &mut impl Write,
    frame: &SqlFrame,
    table: &str,
    n: u64,
    per_insert: u64,
    mut row: impl FnMut(&mut dyn Write, u64) -> io::Result<()>,
) -> io::Result<()> {
    let per_insert = per_insert.max(1);
    out.write_all(frame.head.as_bytes())?;
    for i in 0..n {
        if i % per_insert == 0 {
            write!(out, "INSERT INTO `{table}` VALUES ")?;
        } else {
            out.write_all(b",")?;
        }
        row(out, i)?;
        if i % per_insert == per_insert - 1 || i + 1 == n {
            out.write_all(b";\n")?;
        }
    }
    out.write_all(frame.tail.as_bytes())?;
    out.flush()
}

/// The long-line `pagelinks` dump's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongLines {
    /// Distinct `INSERT` lines.
    pub distinct: usize,
    /// Tuples per line.
    pub tuples: usize,
    /// Times the distinct lines are written, in turn.
    pub repeat: usize,
}

impl LongLines {
    /// The benchmark's: 5 lines of 60,000 tuples, 20 times over: 6 M rows.
    pub const BENCH: LongLines = LongLines {
        distinct: 5,
        tuples: 60_000,
        repeat: 20,
    };

    pub fn rows(&self) -> u64 {
        (self.distinct * self.tuples * self.repeat) as u64
    }
}

/// Writes the long-line `pagelinks` dump: `pl_from` uniform in 1..80,000,000, the namespace
/// one of 0, 0, 0, 2, 4, 14, `pl_target_id` uniform in 1..3,000,000,000. Returns the rows.
pub fn write_pagelinks_lines(
    out: &mut impl Write,
    frame: &SqlFrame,
    shape: LongLines,
    seed: u64,
) -> io::Result<u64> {
    let mut rng = Rng::new(seed);
    const NAMESPACES: [u8; 6] = [0, 0, 0, 2, 4, 14];
    let lines: Vec<String> = (0..shape.distinct)
        .map(|_| {
            let mut s = String::with_capacity(shape.tuples * 24 + 40);
            s.push_str("INSERT INTO `pagelinks` VALUES ");
            for t in 0..shape.tuples {
                if t > 0 {
                    s.push(',');
                }
                let from = 1 + rng.below_u64(80_000_000 - 1);
                let ns = NAMESPACES[rng.below(NAMESPACES.len())];
                let target = 1 + rng.below_u64(3_000_000_000 - 1);
                s.push_str(&format!("({from},{ns},{target})"));
            }
            s.push_str(";\n");
            s
        })
        .collect();
    out.write_all(frame.head.as_bytes())?;
    for _ in 0..shape.repeat {
        for l in &lines {
            out.write_all(l.as_bytes())?;
        }
    }
    out.write_all(frame.tail.as_bytes())?;
    out.flush()?;
    Ok(shape.rows())
}

/// Rows per `INSERT` of the SQL ingest set.
pub const SET_ROWS_PER_INSERT: u64 = 20_000;

/// The `page` dump of pages `1..=n`, all articles titled `Page_I`.
pub fn write_page_dump(out: &mut impl Write, frame: &SqlFrame, n: u64) -> io::Result<()> {
    write_batched(out, frame, "page", n, SET_ROWS_PER_INSERT, |out, i| {
        let id = i + 1;
        write!(
            out,
            "({id},0,'Page_{id}',0,0,0.5,'20240901000000','20240901000000',1,100,'wikitext',NULL)"
        )
    })
}

/// The `linktarget` dump: target `I` is the title of page `I`, for `1..=n`.
pub fn write_linktarget_dump(out: &mut impl Write, frame: &SqlFrame, n: u64) -> io::Result<()> {
    write_batched(
        out,
        frame,
        "linktarget",
        n,
        SET_ROWS_PER_INSERT,
        |out, i| write!(out, "({},0,'Page_{}')", i + 1, i + 1),
    )
}

/// The `pagelinks` dump of `links` rows, source and target each uniform in `1..=pages`.
pub fn write_random_links(
    out: &mut impl Write,
    frame: &SqlFrame,
    pages: u64,
    links: u64,
    seed: u64,
) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let pages = pages.max(1);
    write_batched(
        out,
        frame,
        "pagelinks",
        links,
        SET_ROWS_PER_INSERT,
        |out, _| {
            let from = 1 + rng.below_u64(pages);
            let to = 1 + rng.below_u64(pages);
            write!(out, "({from},0,{to})")
        },
    )
}

/// Pages per bz2 stream of the multistream dump (as Wikimedia builds them).
pub const PAGES_PER_STREAM: usize = 100;
/// What each copy adds to the page ids.
pub const ID_SHIFT: u64 = 1_000_000;

/// What [`write_multistream`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Multistream {
    pub pages: u64,
    /// Streams of pages (the header and the footer are two more).
    pub streams: u64,
}

/// The page's id: the first `<id>DIGITS</id>`, as its byte range in `page`.
fn first_id(page: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(at) = page[from..].find("<id>") {
        let start = from + at + 4;
        let digits = page[start..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && page[start + digits..].starts_with("</id>") {
            return Some((start, start + digits));
        }
        from = start;
    }
    None
}

fn bz2(data: &[u8]) -> io::Result<Vec<u8>> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    enc.write_all(data)?;
    enc.finish()
}

/// Writes a multistream dump of the pages of `xml` (a whole `pages-articles` XML), `repeat`
/// times over, to `dump`, and its index to `index`: the header (`<mediawiki>`, `<siteinfo>`)
/// as one bz2 stream, [`PAGES_PER_STREAM`] pages a stream, the closing tag as the last; copy
/// `k` of a page has its id plus `k ×` [`ID_SHIFT`]. The index (bz2) has a line
/// `OFFSET:ID:TITLE` per page, `OFFSET` the byte where its stream starts.
pub fn write_multistream(
    xml: &str,
    repeat: usize,
    dump: &mut impl Write,
    index: &mut impl Write,
) -> Result<Multistream> {
    let starts: Vec<usize> = xml.match_indices("  <page>").map(|(i, _)| i).collect();
    let footer = xml.rfind("</mediawiki>");
    let (Some(&first), Some(footer)) = (starts.first(), footer) else {
        bail!("the XML dump has no <page> or no </mediawiki>");
    };
    if footer < *starts.last().expect("a page") {
        bail!("the XML dump has a <page> after </mediawiki>");
    }
    let mut bounds = starts.clone();
    bounds.push(footer);
    let pages: Vec<&str> = bounds.windows(2).map(|w| &xml[w[0]..w[1]]).collect();
    let mut offset = 0u64;
    let mut put = |dump: &mut dyn Write, data: &[u8]| -> io::Result<u64> {
        let at = offset;
        let z = bz2(data)?;
        dump.write_all(&z)?;
        offset += z.len() as u64;
        Ok(at)
    };
    put(dump, &xml.as_bytes()[..first])?;
    let mut lines = String::new();
    let mut group = String::new();
    let mut group_index: Vec<(u64, String)> = Vec::new();
    let mut written = Multistream {
        pages: 0,
        streams: 0,
    };
    let mut flush = |dump: &mut dyn Write,
                     group: &mut String,
                     group_index: &mut Vec<(u64, String)>,
                     written: &mut Multistream|
     -> Result<()> {
        if group_index.is_empty() {
            return Ok(());
        }
        let at = put(dump, group.as_bytes()).context("writing the multistream dump")?;
        for (id, title) in group_index.drain(..) {
            lines.push_str(&format!("{at}:{id}:{title}\n"));
        }
        group.clear();
        written.streams += 1;
        Ok(())
    };
    for k in 0..repeat as u64 {
        for (n, page) in pages.iter().enumerate() {
            let (a, b) = first_id(page).with_context(|| format!("page {} has no <id>", n + 1))?;
            let id: u64 = page[a..b].parse().context("a page id")?;
            let new_id = id + k * ID_SHIFT;
            let title = page
                .split_once("<title>")
                .and_then(|(_, t)| t.split_once("</title>"))
                // The index holds titles unescaped; the escapes a dump writes are a subset of what
                // the extractor reader's decoder undoes.
                .map(|(t, _)| wiki::extractor::unescape_html(t).into_owned())
                .with_context(|| format!("page {id} has no <title>"))?;
            group.push_str(&page[..a]);
            group.push_str(&new_id.to_string());
            group.push_str(&page[b..]);
            group_index.push((new_id, title));
            written.pages += 1;
            if group_index.len() == PAGES_PER_STREAM {
                flush(dump, &mut group, &mut group_index, &mut written)?;
            }
        }
    }
    flush(dump, &mut group, &mut group_index, &mut written)?;
    put(dump, &xml.as_bytes()[footer..]).context("writing the multistream dump")?;
    dump.flush()?;
    index
        .write_all(&bz2(lines.as_bytes())?)
        .and_then(|()| index.flush())
        .context("writing the multistream index")?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn frame() -> SqlFrame {
        SqlFrame::of("-- head\nCREATE TABLE t;\nINSERT INTO `t` VALUES (1);\n-- tail\n")
    }

    /// The tuples of every `INSERT` of a dump, as numbers (quoted fields as 0).
    fn tuples(text: &str) -> Vec<Vec<u64>> {
        text.lines()
            .filter_map(|l| l.strip_prefix("INSERT INTO `"))
            .flat_map(|l| {
                let body = l.split_once(" VALUES (").unwrap().1;
                let body = body.strip_suffix(");").unwrap();
                body.split("),(")
                    .map(|t| t.split(',').map(|f| f.parse().unwrap_or(0)).collect())
                    .collect::<Vec<Vec<u64>>>()
            })
            .collect()
    }

    #[test]
    fn the_long_line_dump_repeats_its_lines_in_its_frame_and_is_seeded() {
        let shape = LongLines {
            distinct: 3,
            tuples: 1_000,
            repeat: 4,
        };
        assert_eq!(LongLines::BENCH.rows(), 6_000_000);
        let mut a = Vec::new();
        assert_eq!(
            write_pagelinks_lines(&mut a, &frame(), shape, 1).unwrap(),
            12_000
        );
        let mut b = Vec::new();
        write_pagelinks_lines(&mut b, &frame(), shape, 1).unwrap();
        assert_eq!(a, b, "same seed, same bytes");
        let mut c = Vec::new();
        write_pagelinks_lines(&mut c, &frame(), shape, 2).unwrap();
        assert_ne!(a, c);
        let text = String::from_utf8(a).unwrap();
        assert!(text.starts_with("-- head\nCREATE TABLE t;\nINSERT INTO `pagelinks` VALUES ("));
        assert!(text.ends_with(");\n-- tail\n"));
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("INSERT")).collect();
        assert_eq!(lines.len(), 12);
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(l, &lines[i % 3], "line {i} repeats line {}", i % 3);
        }
        assert_ne!(lines[0], lines[1]);
        let rows = tuples(&text);
        assert_eq!(rows.len(), 12_000);
        for r in &rows {
            assert_eq!(r.len(), 3);
            assert!((1..80_000_000).contains(&r[0]));
            assert!([0, 2, 4, 14].contains(&r[1]));
            assert!((1..3_000_000_000).contains(&r[2]));
        }
        let main_ns = rows.iter().filter(|r| r[1] == 0).count() as f64 / rows.len() as f64;
        assert!((0.45..0.55).contains(&main_ns), "namespace 0: {main_ns}");
    }

    #[test]
    fn the_sql_set_has_every_page_its_target_and_links_in_range() {
        let n = 45_000;
        let mut page = Vec::new();
        write_page_dump(&mut page, &frame(), n).unwrap();
        let page = String::from_utf8(page).unwrap();
        // 45,000 rows in statements of at most 20,000.
        assert_eq!(page.matches("INSERT INTO `page` VALUES ").count(), 3);
        assert!(page.contains(
            "VALUES (1,0,'Page_1',0,0,0.5,'20240901000000','20240901000000',1,100,'wikitext',NULL),(2,"
        ));
        assert!(page.contains("(45000,0,'Page_45000',0,0,0.5,"));
        assert!(page.ends_with("'wikitext',NULL);\n-- tail\n"));
        assert_eq!(page.matches("'wikitext',NULL)").count(), 45_000);

        let mut lt = Vec::new();
        write_linktarget_dump(&mut lt, &frame(), n).unwrap();
        let lt = String::from_utf8(lt).unwrap();
        let targets = tuples(&lt);
        assert_eq!(targets.len(), 45_000);
        assert!(lt.contains("VALUES (1,0,'Page_1'),(2,0,'Page_2')"));
        assert!(lt.contains("(20001,0,'Page_20001')"));

        let mut pl = Vec::new();
        write_random_links(&mut pl, &frame(), n, 50_001, SEED).unwrap();
        let mut again = Vec::new();
        write_random_links(&mut again, &frame(), n, 50_001, SEED).unwrap();
        assert_eq!(pl, again, "same seed, same links");
        let pl = String::from_utf8(pl).unwrap();
        assert_eq!(pl.matches("INSERT INTO `pagelinks`").count(), 3);
        let links = tuples(&pl);
        assert_eq!(links.len(), 50_001);
        assert!(
            links
                .iter()
                .all(|l| l[1] == 0 && (1..=n).contains(&l[0]) && (1..=n).contains(&l[2]))
        );
        // Spread over the pages, not stuck at one end.
        let low = links.iter().filter(|l| l[0] <= n / 2).count() as f64 / 50_001.0;
        assert!((0.45..0.55).contains(&low), "{low}");
    }

    fn page(id: u64, title: &str, text: &str) -> String {
        format!(
            "  <page>\n    <title>{title}</title>\n    <ns>0</ns>\n    <id>{id}</id>\n    \
             <revision>\n      <id>{}</id>\n      <text bytes=\"{}\" xml:space=\"preserve\">{text}</text>\n    \
             </revision>\n  </page>\n",
            id + 500,
            text.len()
        )
    }

    fn source_xml(pages: usize) -> String {
        let mut x = String::from(
            "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\" version=\"0.10\" \
             xml:lang=\"en\">\n  <siteinfo>\n    <sitename>Wikipedia</sitename>\n  </siteinfo>\n",
        );
        for i in 0..pages {
            let title = if i == 1 {
                "AT&amp;T &#233;t&#xE9; &quot;q&quot;".to_string()
            } else {
                format!("Page {i}")
            };
            x.push_str(&page(
                10 + i as u64,
                &title,
                &format!("Text of page {i}, about [[Apple]]."),
            ));
        }
        x.push_str("</mediawiki>\n");
        x
    }

    #[test]
    fn the_multistream_dump_has_its_streams_where_the_index_says_and_reads_back() {
        let xml = source_xml(70);
        let mut dump = Vec::new();
        let mut index = Vec::new();
        let w = write_multistream(&xml, 3, &mut dump, &mut index).unwrap();
        // 210 pages: streams of 100, 100, 10.
        assert_eq!(
            w,
            Multistream {
                pages: 210,
                streams: 3
            }
        );
        let mut lines = String::new();
        bzip2::read::BzDecoder::new(&index[..])
            .read_to_string(&mut lines)
            .unwrap();
        let entries: Vec<(usize, u64, &str)> = lines
            .lines()
            .map(|l| {
                let mut f = l.splitn(3, ':');
                (
                    f.next().unwrap().parse().unwrap(),
                    f.next().unwrap().parse().unwrap(),
                    f.next().unwrap(),
                )
            })
            .collect();
        assert_eq!(entries.len(), 210);
        // Copy k of page i: id 10 + i + k · 1,000,000; titles unescaped.
        assert_eq!(entries[0].1, 10);
        assert_eq!(entries[1], (entries[0].0, 11, "AT&T été \"q\""));
        assert_eq!(entries[70].1, 1_000_010);
        assert_eq!(entries[209].1, 2_000_079);
        let offsets: std::collections::BTreeSet<usize> = entries.iter().map(|e| e.0).collect();
        assert_eq!(offsets.len(), 3);
        // Each offset starts a stream holding exactly its pages, with their new ids.
        for &at in &offsets {
            let mut text = String::new();
            bzip2::read::BzDecoder::new(&dump[at..])
                .read_to_string(&mut text)
                .unwrap();
            let ids: Vec<u64> = entries.iter().filter(|e| e.0 == at).map(|e| e.1).collect();
            assert_eq!(text.matches("  <page>").count(), ids.len());
            for id in ids {
                assert!(text.contains(&format!("<id>{id}</id>")), "{id} at {at}");
            }
        }
        // The revision ids are left as they were.
        let mut whole = String::new();
        bzip2::read::MultiBzDecoder::new(&dump[..])
            .read_to_string(&mut whole)
            .unwrap();
        assert_eq!(whole.matches("<id>510</id>").count(), 3);
        assert!(whole.starts_with("<mediawiki "));
        assert!(whole.ends_with("</mediawiki>\n"));

        // Both readers of clue-db take it.
        let dir = tempfile::tempdir().unwrap();
        let (d, i) = (
            dir.path().join("ms.xml.bz2"),
            dir.path().join("ms-index.txt.bz2"),
        );
        std::fs::write(&d, &dump).unwrap();
        std::fs::write(&i, &index).unwrap();
        let progress = wiki::io::Progress::default();
        let mut ids: Vec<u64> = wiki::xml::read_multistream(&d, &i, &progress)
            .unwrap()
            .map(|p| p.unwrap().id)
            .collect();
        ids.sort();
        let mut want: Vec<u64> = entries.iter().map(|e| e.1).collect();
        want.sort();
        assert_eq!(ids, want);
        let seq: Vec<wiki::Page> = wiki::xml::read(&d, &progress)
            .unwrap()
            .map(|p| p.unwrap())
            .collect();
        assert_eq!(seq.len(), 210);
        assert_eq!(
            (seq[71].id, seq[71].title.as_str()),
            (1_000_011, "AT&T été \"q\"")
        );

        // Same input, same bytes.
        let (mut d2, mut i2) = (Vec::new(), Vec::new());
        write_multistream(&xml, 3, &mut d2, &mut i2).unwrap();
        assert_eq!((d2, i2), (dump, index));
    }

    #[test]
    fn a_dump_without_pages_is_refused() {
        let (mut d, mut i) = (Vec::new(), Vec::new());
        let e = write_multistream("<mediawiki></mediawiki>", 1, &mut d, &mut i).unwrap_err();
        assert!(e.to_string().contains("no <page>"), "{e}");
    }
}
