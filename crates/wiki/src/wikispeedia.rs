//! The SNAP Wikispeedia corpus (Wikipedia for Schools 2007) read as [`Page`] records.
//!
//! The directory holds `articles.tsv` (one URL-encoded name per line), `links.tsv`
//! (`source<TAB>target`, both names) and `plaintext_articles.tar.gz` (one
//! `plaintext_articles/<name>.txt` per article). The archive is streamed in place: nothing is
//! unpacked to disk, and only one article's text is in memory at a time. The two TSVs are small
//! (3 MB) and are read up front, so that a malformed line fails [`read`] before any page is yielded.
//!
//! **Ids and order.** A page's id is its 1-based line position among the names of
//! `articles.tsv`, so ids are stable across runs and independent of the archive. Pages are
//! yielded in *archive* order (the order the tar was written in), which need not be the order of
//! `articles.tsv`: matching the archive order lets the text be streamed without buffering.
//! Names in `articles.tsv` with no text in the archive are reported as errors after the archive
//! ends, in `articles.tsv` order.
//!
//! **Titles.** A name is decoded by [`decode_name`]: `__` stands for `": "`
//! (`Avatar__The_Last_Airbender`), then percent-decoding and [`crate::title::normalize`].
//!
//! **Text.** Each article file starts with a header: line 1 `   #copyright`, line 3 the title,
//! line 5 `2007 Schools Wikipedia Selection. Related subjects: ...` (a paragraph that may wrap
//! onto further lines). The header is dropped, as is the identical 5-line licence footer
//! (`Retrieved from "http://en.wikipedia.org/..."` ... `See also our Disclaimer.`) that ends
//! every article: it would otherwise put the same words in every document. The body is de-indented
//! (up to 3 leading spaces per line, the file's text indent; deeper indents such as table cells
//! keep the rest), trailing spaces are removed, and leading and trailing blank lines dropped.
//! The SOS Children's site pages (see [`SITE_PAGES`]) mostly have no header; their whole text is
//! kept unless [`Options::skip_site_pages`] drops them.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::io::Progress;
use crate::title::decode_url_title;
use crate::{Error, Page, Position, Result};

/// File names inside the Wikispeedia directory.
pub const ARTICLES_FILE: &str = "articles.tsv";
pub const LINKS_FILE: &str = "links.tsv";
pub const TEXT_ARCHIVE: &str = "plaintext_articles.tar.gz";

/// The names (as written in `articles.tsv`) of the 6 pages that are SOS Children's web-site
/// pages (donation forms, the GFDL text) rather than encyclopaedia articles. They have no
/// category and 5 of them lack the article header; a corpus for word associations is better
/// without them.
pub const SITE_PAGES: [&str; 6] = [
    "Directdebit",
    "Donation",
    "Friend_Directdebit",
    "Sponsorship_Directdebit",
    "Wikipedia_Text_of_the_GNU_Free_Documentation_License",
    "Wowpurchase",
];

/// How to read the corpus. The default keeps every page, as the dataset ships.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Drop the [`SITE_PAGES`] and every link to them. Other pages keep their ids.
    pub skip_site_pages: bool,
}

/// Decodes an `articles.tsv` / `links.tsv` name into a normalised title:
/// `__` means `": "`, then percent-decoding (`AT%26T` -> `AT&T`) and normalisation.
pub fn decode_name(name: &str) -> String {
    decode_url_title(&name.replace("__", ": "))
}

/// Reads every page with default [`Options`] (all 4,604 pages of the real data).
pub fn read(dir: &Path, progress: &Progress) -> Result<impl Iterator<Item = Result<Page>> + use<>> {
    read_with(dir, Options::default(), progress)
}

/// Reads the corpus in `dir`. The TSVs are parsed now (errors name the file and line); the
/// archive is then streamed on a background thread, one page at a time, through a small bounded
/// channel, so decompression overlaps with the caller's work. `progress` counts the archive's
/// compressed and decompressed bytes. Dropping the iterator stops the thread.
pub fn read_with(
    dir: &Path,
    options: Options,
    progress: &Progress,
) -> Result<impl Iterator<Item = Result<Page>> + use<>> {
    let articles_path = dir.join(ARTICLES_FILE);
    let links_path = dir.join(LINKS_FILE);
    let archive_path = dir.join(TEXT_ARCHIVE);
    let names = read_articles(&articles_path)?;
    let index: HashMap<&str, u32> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect();
    let links = read_links(&links_path, &index)?;
    let skipped: Vec<bool> = names
        .iter()
        .map(|n| options.skip_site_pages && SITE_PAGES.contains(&n.as_str()))
        .collect();
    // Open now so that a missing archive is an error of `read`, not of the first page.
    let reader = crate::io::open(&archive_path, progress)?;
    let corpus = Corpus {
        titles: names.iter().map(|n| decode_name(n)).collect(),
        names,
        links,
        skipped,
        archive_path,
    };
    let (tx, rx) = sync_channel(32);
    std::thread::Builder::new()
        .name("wikispeedia".into())
        .spawn(move || corpus.stream(reader, &tx))
        .map_err(|e| Error::io(dir, e))?;
    Ok(Pages { rx, done: false })
}

/// What the archive thread needs: names and titles by index, out-links by source index.
struct Corpus {
    names: Vec<String>,
    titles: Vec<String>,
    /// Target indices per source index, in `links.tsv` order.
    links: Vec<Vec<u32>>,
    skipped: Vec<bool>,
    archive_path: PathBuf,
}

enum Msg {
    Page(Result<Page>),
    End,
}

/// The page iterator: receives from the archive thread. If the thread dies without saying it
/// finished, the iterator yields one error instead of ending quietly with pages missing.
struct Pages {
    rx: Receiver<Msg>,
    done: bool,
}

impl Iterator for Pages {
    type Item = Result<Page>;
    fn next(&mut self) -> Option<Result<Page>> {
        if self.done {
            return None;
        }
        match self.rx.recv() {
            Ok(Msg::Page(p)) => Some(p),
            Ok(Msg::End) => {
                self.done = true;
                None
            }
            Err(_) => {
                self.done = true;
                Some(Err(Error::parse(
                    TEXT_ARCHIVE,
                    Position::Unknown,
                    "the archive reader thread stopped unexpectedly",
                )))
            }
        }
    }
}

impl Corpus {
    /// Streams the archive and sends one message per page; returns early if the receiver is gone.
    fn stream(self, reader: Box<dyn BufRead + Send>, tx: &SyncSender<Msg>) {
        let send = |m: Result<Page>| tx.send(Msg::Page(m)).is_ok();
        let mut seen = vec![false; self.names.len()];
        let index: HashMap<&str, u32> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect();
        let mut archive = tar::Archive::new(reader);
        let entries = match archive.entries() {
            Ok(e) => e,
            Err(e) => {
                let _ = send(Err(Error::io(&self.archive_path, e)));
                let _ = tx.send(Msg::End);
                return;
            }
        };
        for (n, entry) in entries.enumerate() {
            let mut entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    // A broken tar stream cannot be resynchronised: report where and stop.
                    let _ = send(Err(Error::parse(
                        &self.archive_path,
                        Position::Entry(format!("#{}", n + 1)),
                        e.to_string(),
                    )));
                    let _ = tx.send(Msg::End);
                    return;
                }
            };
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let result = match article_name(&path).and_then(|name| index.get(name)) {
                None => Err(self.entry_error(&path, "not an article of articles.tsv")),
                Some(&i) if seen[i as usize] => {
                    Err(self.entry_error(&path, "article appears twice in the archive"))
                }
                Some(&i) => {
                    seen[i as usize] = true;
                    if self.skipped[i as usize] {
                        continue;
                    }
                    self.page(i, &path, &mut entry)
                }
            };
            if !send(result) {
                return;
            }
        }
        // `tar` stops at the end-of-archive blocks; the gzip trailer (CRC and length) comes
        // after them. Read to the end so a corrupt archive fails instead of yielding altered
        // text as a success.
        let mut rest = archive.into_inner();
        if let Err(e) = std::io::copy(&mut rest, &mut std::io::sink()) {
            let _ = send(Err(Error::parse(
                &self.archive_path,
                Position::Unknown,
                format!("after the last entry: {e} (the archive is corrupt)"),
            )));
            let _ = tx.send(Msg::End);
            return;
        }
        for (i, seen) in seen.iter().enumerate() {
            if !seen && !self.skipped[i] {
                let e = self.entry_error(
                    &format!("plaintext_articles/{}.txt", self.names[i]),
                    "article of articles.tsv missing from the archive",
                );
                if !send(Err(e)) {
                    return;
                }
            }
        }
        let _ = tx.send(Msg::End);
    }

    fn entry_error(&self, entry: &str, message: &str) -> Error {
        Error::parse(
            &self.archive_path,
            Position::Entry(entry.to_string()),
            message,
        )
    }

    fn page(&self, i: u32, path: &str, entry: &mut impl Read) -> Result<Page> {
        let mut raw = Vec::new();
        let cap = crate::limits::MAX_PAGE_BYTES;
        entry
            .take(cap + 1)
            .read_to_end(&mut raw)
            .map_err(|e| self.entry_error(path, &e.to_string()))?;
        if raw.len() as u64 > cap {
            return Err(self.entry_error(
                path,
                &format!(
                    "article larger than {} (cap wiki::limits::MAX_PAGE_BYTES)",
                    crate::limits::show(cap)
                ),
            ));
        }
        let raw = String::from_utf8(raw).map_err(|e| {
            self.entry_error(
                path,
                &format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()),
            )
        })?;
        let text = article_text(&raw).map_err(|m| self.entry_error(path, &m))?;
        let i = i as usize;
        Ok(Page {
            id: i as u64 + 1,
            title: self.titles[i].clone(),
            ns: 0,
            text,
            redirect: None,
            is_disambiguation: false,
            links: self.links[i]
                .iter()
                .filter(|&&t| !self.skipped[t as usize])
                .map(|&t| self.titles[t as usize].clone())
                .collect(),
        })
    }
}

/// `plaintext_articles/AT%26T.txt` -> `AT%26T`: the file name without directory and `.txt`.
fn article_name(path: &str) -> Option<&str> {
    path.rsplit('/').next()?.strip_suffix(".txt")
}

/// Non-comment, non-blank lines of a TSV with their 1-based line numbers.
fn data_lines(path: &Path) -> Result<impl Iterator<Item = Result<(u64, String)>>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let path = path.to_path_buf();
    Ok(BufReader::new(file)
        .lines()
        .enumerate()
        .filter_map(move |(n, line)| match line {
            Err(e) => Some(Err(Error::parse(
                &path,
                Position::Line(n as u64 + 1),
                e.to_string(),
            ))),
            Ok(l) => {
                let l = l.strip_suffix('\r').unwrap_or(&l);
                (!l.is_empty() && !l.starts_with('#')).then(|| Ok((n as u64 + 1, l.to_string())))
            }
        }))
}

/// The article names of `articles.tsv`, in file order (index + 1 = page id).
fn read_articles(path: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for line in data_lines(path)? {
        let (n, name) = line?;
        if name.contains('\t') || name.trim() != name {
            return Err(Error::parse(
                path,
                Position::Line(n),
                format!("expected one article name, found {name:?}"),
            ));
        }
        if !seen.insert(name.clone()) {
            return Err(Error::parse(
                path,
                Position::Line(n),
                format!("duplicate article name {name:?}"),
            ));
        }
        names.push(name);
    }
    Ok(names)
}

/// Out-links per source index. Both names must be in `articles.tsv`.
fn read_links(path: &Path, index: &HashMap<&str, u32>) -> Result<Vec<Vec<u32>>> {
    let mut links = vec![Vec::new(); index.len()];
    for line in data_lines(path)? {
        let (n, line) = line?;
        let mut fields = line.split('\t');
        let (Some(source), Some(target), None) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(Error::parse(
                path,
                Position::Line(n),
                format!("expected `source<TAB>target`, found {line:?}"),
            ));
        };
        let lookup = |name: &str| {
            index.get(name).copied().ok_or_else(|| {
                Error::parse(
                    path,
                    Position::Line(n),
                    format!("link names {name:?}, which is not in {ARTICLES_FILE}"),
                )
            })
        };
        let (s, t) = (lookup(source)?, lookup(target)?);
        links[s as usize].push(t);
    }
    Ok(links)
}

/// The article body of one plaintext file: header and licence footer dropped, de-indented.
/// Errs (with a message naming the line) when a `#copyright` header is not the expected shape.
pub fn article_text(raw: &str) -> Result<String, String> {
    let lines: Vec<&str> = raw.lines().collect();
    let mut start = 0;
    if lines.first().is_some_and(|l| l.trim() == "#copyright") {
        // Line 2 blank, line 3 title, line 4 blank, line 5 the subjects paragraph.
        let shape_ok = lines.len() >= 5
            && lines[1].trim().is_empty()
            && !lines[2].trim().is_empty()
            && lines[3].trim().is_empty()
            && lines[4].starts_with("2007 Schools Wikipedia Selection");
        if !shape_ok {
            return Err(
                "header: expected `#copyright`, blank, title, blank, `2007 Schools Wikipedia Selection...` on lines 1-5"
                    .to_string(),
            );
        }
        start = 5;
        // The subjects paragraph may wrap; it ends at the first blank line.
        while start < lines.len() && !lines[start].trim().is_empty() {
            start += 1;
        }
    }
    let mut end = lines.len();
    if let Some(footer) = lines[start..]
        .iter()
        .rposition(|l| l.trim_start().starts_with("Retrieved from \""))
    {
        end = start + footer;
    }
    let body: Vec<&str> = lines[start..end]
        .iter()
        .map(|l| deindent(l).trim_end())
        .collect();
    let body = drop_enlarge_captions(&body);
    let first = body
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(body.len());
    let last = body
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(first, |p| p + 1);
    Ok(body[first..last].join("\n"))
}

/// Image captions appear as `caption / Enlarge / caption again` (the web page's zoom link).
/// Keeps the caption once and drops the `Enlarge` line and the repeat, so neither the word
/// "enlarge" nor the doubled caption weighs in word counts.
fn drop_enlarge_captions<'a>(body: &[&'a str]) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i].trim() != "Enlarge" {
            out.push(body[i]);
            i += 1;
            continue;
        }
        // The caption is the run of non-blank lines just before `Enlarge`.
        let caption_len = out
            .iter()
            .rev()
            .take_while(|l| !l.trim().is_empty())
            .count();
        let caption = &out[out.len() - caption_len..];
        let after = &body[i + 1..];
        let repeat = (1..=caption_len.min(after.len()))
            .rev()
            .find(|&k| after[..k] == caption[caption_len - k..] || after[..k] == caption[..k])
            .unwrap_or(0);
        i += 1 + repeat;
    }
    out
}

/// Removes up to 3 leading spaces: the text indent of the plaintext files.
fn deindent(line: &str) -> &str {
    let spaces = line.bytes().take(3).take_while(|&b| b == b' ').count();
    &line[spaces..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_enlarge_and_the_repeated_caption() {
        let body = [
            "Text.",
            "",
            "Wild apple in",
            "Kazakhstan",
            "Enlarge",
            "Wild apple in",
            "Kazakhstan",
            "",
            "More.",
        ];
        assert_eq!(
            drop_enlarge_captions(&body),
            vec!["Text.", "", "Wild apple in", "Kazakhstan", "", "More."]
        );
        let odd = ["Caption", "Enlarge", "Different", "Enlarge"];
        assert_eq!(drop_enlarge_captions(&odd), vec!["Caption", "Different"]);
    }

    #[test]
    fn decodes_names() {
        assert_eq!(
            decode_name("Avatar__The_Last_Airbender"),
            "Avatar: The Last Airbender"
        );
        assert_eq!(decode_name("AT%26T"), "AT&T");
        assert_eq!(
            decode_name("%C3%81ed%C3%A1n_mac_Gabr%C3%A1in"),
            "Áedán mac Gabráin"
        );
        assert_eq!(decode_name("Bat_%28animal%29"), "Bat (animal)");
    }

    #[test]
    fn strips_header_footer_and_indent() {
        let raw = "   #copyright\n\nPikachu\n\n2007 Schools Wikipedia Selection. Related subjects: A;\nB\n\n   First line.\n      Table cell\n\n   Second.  \n   Retrieved from \" http://en.wikipedia.org/wiki/Pikachu\"\n   This reference article is mainly selected\n";
        assert_eq!(
            article_text(raw).unwrap(),
            "First line.\n   Table cell\n\nSecond."
        );
    }

    #[test]
    fn keeps_headerless_text() {
        let raw = "                             [1x1.gif] [1x1.gif]\n\n\nMake a Donation\n   Title: ___\n";
        assert_eq!(
            article_text(raw).unwrap(),
            "                          [1x1.gif] [1x1.gif]\n\n\nMake a Donation\nTitle: ___"
        );
    }

    #[test]
    fn rejects_a_broken_header() {
        let err = article_text("   #copyright\nTitle\n\n").unwrap_err();
        assert!(err.contains("header"), "{err}");
    }

    #[test]
    fn names_archive_entries() {
        assert_eq!(
            article_name("plaintext_articles/AT%26T.txt"),
            Some("AT%26T")
        );
        assert_eq!(article_name("plaintext_articles/"), None);
    }
}
