//! Synthetic corpora for the scale rehearsal, made from the real text and streamed.
//!
//! A corpus of scale `s` holds `round(s × P)` pages, `P` the articles of the source (the
//! offline corpora: Wikispeedia, then the 2015 slice, a title kept once). Page `i` (id `i + 1`)
//! is article `i mod P` of copy `i div P`:
//!
//! - copy 0 is the real text under the real titles, so scale 1 is the offline corpus;
//! - copy `k ≥ 1` has new titles (the real one with letters added: `Apple` → `Appleb`, so a
//!   one-word title stays one word; made unique) and text of as many sentences as the real
//!   article, drawn across articles: every sentence of the source goes through a shuffle buffer
//!   of [`SHUFFLE_SENTENCES`] sentences (seeded per copy) and comes out in another page. Each
//!   copy holds every sentence of the source exactly once, so word counts grow exactly with the
//!   scale, while no page repeats another.
//!
//! Nothing holds the corpus: the source is streamed once per copy (the caller opens it again),
//! and only the titles are kept (tens of bytes a page).
//!
//! The links are `pagelinks` rows `(pl_from, 0, pl_target_id)` in `pl_from` order (as the dumps
//! are), every page the source of `rows / pages` of them (spread evenly), and `linktarget` rows
//! `(lt_id, 0, lt_title)`: first every page's title (`lt_id` = page id), then titles of pages
//! that do not exist (red links), up to `max(pages × 1.1, rows / 30)` targets (enwiki has ~30
//! `pagelinks` rows per `linktarget` row). A link goes to a red link with probability 1/10,
//! else to page `⌊pages · u²⌋ + 1` (`u` uniform): the first pages, the real ones, are linked
//! most, as popular pages are.

use std::collections::HashSet;
use std::io::{self, Write};

/// Sentences held in the shuffle buffer of a copy: how far apart a sentence may land.
pub const SHUFFLE_SENTENCES: usize = 1 << 16;
/// `pagelinks` tuples per `INSERT` statement (~1 MB lines, as in Wikimedia's dumps).
pub const ROWS_PER_INSERT: u64 = 50_000;

/// A real article: its title and plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Article {
    pub title: String,
    pub text: String,
}

/// The benchmarks' seeded generator: the `seeded` crate's SplitMix64, the same on every machine.
pub use seeded::SplitMix64 as Rng;

/// The pages of a corpus of `scale` times `source_articles` articles.
pub fn pages_at(scale: f64, source_articles: usize) -> u64 {
    (scale * source_articles as f64).round() as u64
}

/// Letters for copy `k` (`1 → b`, `25 → z`, `26 → ba`): base 26 in `a..z`.
fn copy_suffix(mut k: u64) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (k % 26) as u8);
        k /= 26;
        if k == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).expect("ASCII")
}

/// The titles of the `pages` pages of a corpus over the source's `titles`, in page order: copy 0
/// the real ones, copy `k` each with `copy_suffix(k)` added (and `q`s until it is unique).
pub fn titles(source: &[String], pages: u64) -> Vec<String> {
    let p = source.len() as u64;
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(pages as usize);
    for i in 0..pages {
        let (k, j) = (i / p, (i % p) as usize);
        let mut t = if k == 0 {
            source[j].clone()
        } else {
            format!("{}{}", source[j], copy_suffix(k))
        };
        while !seen.insert(t.clone()) {
            t.push('q');
        }
        out.push(t);
    }
    out
}

/// The sentences of a text: split after `.`, `!` or `?` followed by a space, and at line
/// breaks; empty ones dropped.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let b = line.as_bytes();
        let mut start = 0;
        for i in 0..b.len() {
            if matches!(b[i], b'.' | b'!' | b'?') && b.get(i + 1) == Some(&b' ') {
                out.push(&line[start..=i]);
                start = i + 2;
            }
        }
        out.push(&line[start..]);
    }
    out.retain(|s| !s.trim().is_empty());
    out
}

/// Writes `s` with XML's five characters escaped.
fn xml_escaped(out: &mut impl Write, s: &str) -> io::Result<()> {
    let b = s.as_bytes();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        let rep: &[u8] = match c {
            b'&' => b"&amp;",
            b'<' => b"&lt;",
            b'>' => b"&gt;",
            b'"' => b"&quot;",
            b'\'' => b"&#39;",
            _ => continue,
        };
        out.write_all(&b[start..i])?;
        out.write_all(rep)?;
        start = i + 1;
    }
    out.write_all(&b[start..])
}

fn write_page(out: &mut impl Write, id: u64, title: &str, text: &str) -> io::Result<()> {
    out.write_all(b"  <page>\n    <title>")?;
    xml_escaped(out, title)?;
    write!(
        out,
        "</title>\n    <ns>0</ns>\n    <id>{id}</id>\n    <revision>\n      <id>{id}</id>\n      \
         <text bytes=\"{}\" xml:space=\"preserve\">",
        text.len()
    )?;
    xml_escaped(out, text)?;
    out.write_all(b"</text>\n    </revision>\n  </page>\n")
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    pub pages: u64,
    /// Plain-text bytes of the pages (before XML escaping).
    pub text_bytes: u64,
    pub sentences: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

/// A `Write` that counts.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// An article of a shuffled copy, waiting for its sentences.
struct Pending {
    index: u64,
    sentences: usize,
}

/// Writes the `pages_at(scale, P)` pages of a corpus as a `pages-articles` XML to `out`.
/// `titles` are [`titles`] of the source (as many as the pages); `open` streams the source's
/// `P` articles, in the same order every time it is called (once per copy).
pub fn write_xml<I, E>(
    out: impl Write,
    titles: &[String],
    seed: u64,
    mut open: impl FnMut() -> Result<I, E>,
) -> Result<Written, E>
where
    I: Iterator<Item = Result<Article, E>>,
    E: From<io::Error>,
{
    let pages = titles.len() as u64;
    let mut out = Counting {
        inner: out,
        bytes: 0,
    };
    out.write_all(
        b"<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\" \
          xml:lang=\"en\">\n  <siteinfo>\n    <sitename>Synthetic</sitename>\n    \
          <dbname>synthwiki</dbname>\n    <case>first-letter</case>\n    <namespaces>\n      \
          <namespace key=\"0\" case=\"first-letter\" />\n    </namespaces>\n  </siteinfo>\n",
    )?;
    let mut w = Written::default();
    let mut copy = 0u64;
    let mut per_copy: Option<u64> = None;
    while w.pages < pages {
        let mut rng = Rng::new(seed ^ copy.wrapping_mul(0xa076_1d64_78bd_642f));
        let mut buffer: Vec<String> = Vec::new();
        let mut pending: std::collections::VecDeque<Pending> = Default::default();
        let emit = |out: &mut Counting<_>,
                    w: &mut Written,
                    p: Pending,
                    buffer: &mut Vec<String>,
                    rng: &mut Rng|
         -> io::Result<()> {
            let mut text = String::new();
            for n in 0..p.sentences {
                let s = buffer.swap_remove(rng.below(buffer.len()));
                if n > 0 {
                    text.push(if n % 5 == 0 { '\n' } else { ' ' });
                }
                text.push_str(&s);
            }
            write_page(out, p.index + 1, &titles[p.index as usize], &text)?;
            w.pages += 1;
            w.sentences += p.sentences as u64;
            w.text_bytes += text.len() as u64;
            Ok(())
        };
        let mut j = 0u64;
        for article in open()? {
            let article = article?;
            let index = copy * per_copy.unwrap_or(0) + j;
            j += 1;
            if per_copy.is_some() && index >= pages {
                break;
            }
            if copy == 0 {
                if index < pages {
                    write_page(&mut out, index + 1, &titles[index as usize], &article.text)?;
                    w.pages += 1;
                    w.sentences += sentences(&article.text).len() as u64;
                    w.text_bytes += article.text.len() as u64;
                }
                continue;
            }
            let s = sentences(&article.text);
            pending.push_back(Pending {
                index,
                sentences: s.len(),
            });
            buffer.extend(s.into_iter().map(String::from));
            while let Some(front) = pending.front() {
                if buffer.len() < SHUFFLE_SENTENCES + front.sentences {
                    break;
                }
                let p = pending.pop_front().expect("a front");
                emit(&mut out, &mut w, p, &mut buffer, &mut rng)?;
            }
        }
        while let Some(p) = pending.pop_front() {
            emit(&mut out, &mut w, p, &mut buffer, &mut rng)?;
        }
        if per_copy.is_none() {
            if j == 0 {
                return Err(io::Error::other("the source has no article").into());
            }
            per_copy = Some(j);
        }
        copy += 1;
    }
    out.write_all(b"</mediawiki>\n")?;
    out.flush()?;
    w.bytes = out.bytes;
    Ok(w)
}

/// The part of a mysqldump file before its first `INSERT` and the part after its last: the
/// table's definition and the closing lines, taken from a real dump.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SqlFrame {
    pub head: String,
    pub tail: String,
}

impl SqlFrame {
    /// The frame of a dump's text.
    pub fn of(dump: &str) -> SqlFrame {
        let lines: Vec<&str> = dump.lines().collect();
        let first = lines.iter().position(|l| l.starts_with("INSERT INTO"));
        let last = lines.iter().rposition(|l| l.starts_with("INSERT INTO"));
        match (first, last) {
            (Some(f), Some(l)) => SqlFrame {
                head: lines[..f].iter().map(|l| format!("{l}\n")).collect(),
                tail: lines[l + 1..].iter().map(|l| format!("{l}\n")).collect(),
            },
            _ => SqlFrame {
                head: dump.to_string(),
                tail: String::new(),
            },
        }
    }
}

/// The link dumps' sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkPlan {
    pub pages: u64,
    /// `pagelinks` rows.
    pub rows: u64,
    pub seed: u64,
}

impl LinkPlan {
    /// `linktarget` rows: every page, and red links up to `max(pages × 1.1, rows / 30)`.
    pub fn targets(&self) -> u64 {
        (self.pages + self.pages / 10).max(self.rows / 30)
    }
}

/// A title as `linktarget` holds it (underscores), quoted for MySQL.
fn sql_title(out: &mut (impl Write + ?Sized), title: &str) -> io::Result<()> {
    out.write_all(b"'")?;
    for c in title.chars() {
        match c {
            ' ' => out.write_all(b"_")?,
            '\'' => out.write_all(b"\\'")?,
            '\\' => out.write_all(b"\\\\")?,
            '"' => out.write_all(b"\\\"")?,
            c => write!(out, "{c}")?,
        }
    }
    out.write_all(b"'")
}

/// Writes rows `row(i)` for `i` in `0..n` as extended `INSERT`s of `table` inside `frame`.
fn write_inserts(
    mut out: impl Write,
    frame: &SqlFrame,
    table: &str,
    n: u64,
    mut row: impl FnMut(&mut dyn Write, u64) -> io::Result<()>,
) -> io::Result<()> {
    out.write_all(frame.head.as_bytes())?;
    for i in 0..n {
        if i % ROWS_PER_INSERT == 0 {
            write!(out, "INSERT INTO `{table}` VALUES ")?;
        } else {
            out.write_all(b",")?;
        }
        row(&mut out, i)?;
        if i % ROWS_PER_INSERT == ROWS_PER_INSERT - 1 || i + 1 == n {
            out.write_all(b";\n")?;
        }
    }
    out.write_all(frame.tail.as_bytes())?;
    out.flush()
}

/// Writes the `linktarget` dump: `titles` (page `i`'s is `lt_id` `i + 1`), then red links
/// `Red link N` up to [`LinkPlan::targets`].
pub fn write_linktarget(
    out: impl Write,
    frame: &SqlFrame,
    plan: &LinkPlan,
    titles: &[String],
) -> io::Result<()> {
    write_inserts(out, frame, "linktarget", plan.targets(), |out, i| {
        write!(out, "({},0,", i + 1)?;
        match titles.get(i as usize) {
            Some(t) => sql_title(out, t)?,
            None => write!(out, "'Red_link_{}'", i + 1)?,
        }
        out.write_all(b")")
    })
}

/// Writes the `pagelinks` dump: `plan.rows` rows in `pl_from` order (see the module's notes).
pub fn write_pagelinks(out: impl Write, frame: &SqlFrame, plan: &LinkPlan) -> io::Result<()> {
    let mut rng = Rng::new(plan.seed ^ 0x1157_5eed);
    let (pages, rows, targets) = (plan.pages.max(1), plan.rows, plan.targets());
    let red = targets - plan.pages.min(targets);
    write_inserts(out, frame, "pagelinks", rows, |out, i| {
        let from = (i as u128 * pages as u128 / rows.max(1) as u128) as u64 + 1;
        let to = if red > 0 && rng.below_u64(10) == 0 {
            plan.pages + 1 + rng.below_u64(red)
        } else {
            let u = rng.unit();
            ((pages as f64 * u * u) as u64).min(pages - 1) + 1
        };
        write!(out, "({from},0,{to})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> Vec<Article> {
        (0..7)
            .map(|a| Article {
                title: format!("Title {a}"),
                text: (0..=a)
                    .map(|s| format!("Sentence {s} of article {a} & <more>."))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
            .collect()
    }

    fn xml(scale: f64, seed: u64) -> (String, Written) {
        let src = source();
        let names: Vec<String> = src.iter().map(|a| a.title.clone()).collect();
        let t = titles(&names, pages_at(scale, src.len()));
        let mut out = Vec::new();
        let w = write_xml(&mut out, &t, seed, || {
            Ok::<_, io::Error>(source().into_iter().map(Ok))
        })
        .unwrap();
        (String::from_utf8(out).unwrap(), w)
    }

    /// The texts between `<text …>` and `</text>`, unescaped enough for the test's words.
    fn texts(xml: &str) -> Vec<String> {
        xml.split("xml:space=\"preserve\">")
            .skip(1)
            .map(|t| {
                t.split("</text>")
                    .next()
                    .unwrap()
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
            })
            .collect()
    }

    #[test]
    fn a_corpus_has_the_pages_asked_and_is_the_same_for_a_seed() {
        let (a, w) = xml(3.0, 1);
        assert_eq!(w.pages, 21);
        assert_eq!(a.matches("<page>").count(), 21);
        assert_eq!(w.bytes, a.len() as u64);
        assert_eq!(xml(3.0, 1).0, a, "same seed, same bytes");
        assert_ne!(xml(3.0, 2).0, a, "another seed, another corpus");
        // Fractions of the source: the first articles of copy 0; past one copy, into the next.
        assert_eq!(xml(0.5, 1).1.pages, 4);
        assert_eq!(xml(1.5, 1).1.pages, 11);
        // Page ids from 1, in order.
        for i in 1..=21 {
            assert!(a.contains(&format!("<id>{i}</id>")), "{i}");
        }
        // Copy 0 is the real text; every copy holds every sentence once, elsewhere.
        let src = source();
        let t = texts(&a);
        for (j, art) in src.iter().enumerate() {
            assert_eq!(t[j], art.text);
        }
        let mut real: Vec<String> = src
            .iter()
            .flat_map(|a| {
                sentences(&a.text)
                    .into_iter()
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .collect();
        real.sort();
        for copy in 1..3 {
            let mut got: Vec<String> = t[copy * 7..(copy + 1) * 7]
                .iter()
                .flat_map(|x| {
                    sentences(x)
                        .into_iter()
                        .map(String::from)
                        .collect::<Vec<_>>()
                })
                .collect();
            got.sort();
            assert_eq!(got, real, "copy {copy}");
            // As many sentences as the real article, and not the same text throughout.
            for j in 0..7 {
                assert_eq!(sentences(&t[copy * 7 + j]).len(), j + 1);
            }
            assert_ne!(&t[copy * 7..(copy + 1) * 7], &t[..7]);
        }
        assert_eq!(w.sentences, 3 * real.len() as u64);
    }

    #[test]
    fn titles_are_new_one_word_and_unique() {
        let names: Vec<String> = ["Apple", "Cub", "Cubb", "New York"]
            .map(String::from)
            .to_vec();
        let t = titles(&names, 10);
        assert_eq!(
            t,
            [
                "Apple",
                "Cub",
                "Cubb",
                "New York",
                "Appleb",
                "Cubbq",
                "Cubbb",
                "New Yorkb",
                "Applec",
                "Cubc"
            ]
        );
        assert_eq!(copy_suffix(25), "z");
        assert_eq!(copy_suffix(26), "ba");
    }

    #[test]
    fn link_dumps_have_the_rows_asked_in_order_and_in_range() {
        let frame = SqlFrame::of("CREATE TABLE x;\nINSERT INTO `x` VALUES (1);\n-- done\n");
        assert_eq!(frame.head, "CREATE TABLE x;\n");
        assert_eq!(frame.tail, "-- done\n");
        let plan = LinkPlan {
            pages: 40,
            rows: 120_001,
            seed: 7,
        };
        assert_eq!(plan.targets(), 4_000);
        let mut out = Vec::new();
        write_pagelinks(&mut out, &frame, &plan).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut again = Vec::new();
        write_pagelinks(&mut again, &frame, &plan).unwrap();
        assert_eq!(again, text.as_bytes(), "same seed, same dump");
        assert!(text.starts_with("CREATE TABLE x;\nINSERT INTO `pagelinks` VALUES ("));
        assert!(text.ends_with(");\n-- done\n"));
        // 120,001 rows in 3 statements of at most 50,000.
        assert_eq!(text.matches("INSERT INTO").count(), 3);
        let rows: Vec<(u64, u64)> = text
            .split('(')
            .skip(1)
            .map(|r| {
                let f: Vec<u64> = r
                    .split(')')
                    .next()
                    .unwrap()
                    .split(',')
                    .map(|x| x.parse().unwrap())
                    .collect();
                assert_eq!(f[1], 0);
                (f[0], f[2])
            })
            .collect();
        assert_eq!(rows.len(), 120_001);
        assert!(rows.windows(2).all(|w| w[0].0 <= w[1].0), "pl_from order");
        assert_eq!((rows[0].0, rows[rows.len() - 1].0), (1, 40));
        assert!(rows.iter().all(|&(_, t)| (1..=4_000).contains(&t)));
        let red = rows.iter().filter(|&&(_, t)| t > 40).count() as f64 / rows.len() as f64;
        assert!((0.09..0.11).contains(&red), "red links {red}");

        let names: Vec<String> = (1..=40).map(|i| format!("Page {i}'s")).collect();
        let mut out = Vec::new();
        write_linktarget(&mut out, &frame, &plan, &names).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("(1,0,'Page_1\\'s'),(2,0,"));
        assert!(text.contains("(41,0,'Red_link_41')"));
        assert!(text.contains("(4000,0,'Red_link_4000');\n-- done\n"));
        assert_eq!(text.matches("),(").count() + 1, 4_000);
    }
}
