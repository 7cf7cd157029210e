//! MediaWiki XML dumps (`pages-articles`, export schema 0.10 and 0.11), plain or compressed,
//! and multistream `.bz2` dumps decoded in parallel through their index.
//!
//! Each `<page>` becomes a [`Page`]: its id (the page's, not the revision's), title, namespace,
//! the last revision's text turned into plain text, its links, and its redirect target. Both
//! readers stream: memory holds one page (or one batch of multistream streams) at a time.
//! Any defect in the input (malformed XML, a truncated compressed file, invalid UTF-8, a page
//! without an id) ends the iteration with an [`Error::Parse`] naming the file and the byte.

use crate::io::{self, Compression, Progress};
use crate::limits::{MAX_DECODED_STREAM_BYTES, MAX_PAGE_BYTES};
use crate::{Error, Page, Position, Result, title, wikitext};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Opens a dump (`.xml`, `.xml.bz2`, `.xml.gz`, `.xml.xz`) and iterates over its pages.
pub fn read(path: &Path, progress: &Progress) -> Result<XmlPages> {
    let input = io::open(path, progress)?;
    let note = if Compression::of(path) == Compression::None {
        ""
    } else {
        " (offset in the decompressed XML)"
    };
    Ok(XmlPages {
        parser: PageParser::new(input, path, Origin::Document { note }),
        done: false,
    })
}

/// The pages of one XML dump, in file order. Yields at most one error, then stops.
pub struct XmlPages {
    parser: PageParser<Box<dyn BufRead + Send>>,
    done: bool,
}

impl Iterator for XmlPages {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Result<Page>> {
        if self.done {
            return None;
        }
        match self.parser.next_raw() {
            Ok(Some(raw)) => Some(Ok(raw.into_page())),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// A page as it stands in the dump, before its wikitext is converted.
#[derive(Debug, Default)]
struct RawPage {
    id: u64,
    title: String,
    ns: i32,
    redirect: Option<String>,
    wikitext: String,
}

impl RawPage {
    /// Converts the wikitext. A redirect keeps only its target: its text is the redirect
    /// instruction, not prose, and its one link is the redirect itself.
    fn into_page(self) -> Page {
        let title = title::normalize(&self.title);
        let redirect = self
            .redirect
            .map(|t| title::normalize(&t))
            .filter(|t| !t.is_empty())
            .or_else(|| wikitext::redirect_target(&self.wikitext));
        if redirect.is_some() {
            return Page {
                id: self.id,
                title,
                ns: self.ns,
                redirect,
                ..Page::default()
            };
        }
        let plain = wikitext::to_plain(&self.wikitext);
        Page {
            id: self.id,
            title,
            ns: self.ns,
            text: plain.text,
            redirect: None,
            is_disambiguation: plain.is_disambiguation,
            links: plain.links,
        }
    }
}

/// Where the parsed bytes come from, for error positions.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// A whole document: it must have a root element, and end only once the root is closed.
    Document { note: &'static str },
    /// One bz2 stream of a multistream dump, starting at this byte of the compressed file:
    /// bare `<page>` elements, possibly preceded by the opening `<mediawiki><siteinfo>` or
    /// followed by the closing `</mediawiki>`.
    Stream { start: u64 },
}

/// Which page field the current text belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    None,
    Title,
    Ns,
    Id,
    Text,
}

/// What an error message needs to say where it happened.
struct Ctx {
    path: PathBuf,
    origin: Origin,
}

impl Ctx {
    fn error(&self, position: u64, message: impl std::fmt::Display) -> Error {
        match self.origin {
            Origin::Document { note } => Error::parse(
                &self.path,
                Position::Byte(position),
                format!("{message}{note}"),
            ),
            Origin::Stream { start } => Error::parse(
                &self.path,
                Position::Byte(start),
                format!("in the bz2 stream starting here, at decoded byte {position}: {message}"),
            ),
        }
    }

    /// An error of the event that started at byte `before`. Invalid UTF-8 is placed on its
    /// first bad byte, which the decoder counts from the start of the event.
    fn xml_error<R>(&self, reader: &Reader<R>, before: u64, e: &quick_xml::Error) -> Error {
        match e {
            quick_xml::Error::Io(io) => {
                self.error(reader.buffer_position(), format!("read error: {io}"))
            }
            quick_xml::Error::Encoding(quick_xml::encoding::EncodingError::Utf8(u)) => self.error(
                before + u.valid_up_to() as u64,
                format!("invalid UTF-8: {u}"),
            ),
            quick_xml::Error::Encoding(enc) => self.error(
                reader.buffer_position(),
                format!("invalid text encoding: {enc}"),
            ),
            other => self.error(reader.error_position(), format!("malformed XML: {other}")),
        }
    }
}

/// Pulls `<page>` elements out of an XML event stream.
struct PageParser<R> {
    /// Bounded per page: see [`crate::limits::MAX_PAGE_BYTES`].
    reader: Reader<io::Budget<R>>,
    buf: Vec<u8>,
    ctx: Ctx,
    /// Open elements in the whole input, to tell a complete document from a truncated one.
    depth: i64,
    seen_root: bool,
}

impl<R: BufRead> PageParser<R> {
    fn new(input: R, path: &Path, origin: Origin) -> Self {
        let mut reader = Reader::from_reader(io::Budget::new(input, MAX_PAGE_BYTES));
        if matches!(origin, Origin::Stream { .. }) {
            // The final stream closes `</mediawiki>`, opened in the first one.
            reader.config_mut().allow_unmatched_ends = true;
        }
        PageParser {
            reader,
            buf: Vec::with_capacity(1 << 16),
            ctx: Ctx {
                path: path.to_path_buf(),
                origin,
            },
            depth: 0,
            seen_root: false,
        }
    }

    /// The next page, `None` at a clean end of input.
    fn next_raw(&mut self) -> Result<Option<RawPage>> {
        let mut page: Option<RawPage> = None;
        let mut page_start = 0u64;
        let mut page_depth = 0u32;
        let mut in_revision = false;
        let mut field = Field::None;
        let mut scratch = String::new();
        let (mut has_id, mut has_title) = (false, false);
        loop {
            self.buf.clear();
            let before = self.reader.buffer_position();
            let event = match self.reader.read_event_into(&mut self.buf) {
                Ok(ev) => ev,
                Err(_) if self.reader.get_ref().exceeded() => {
                    let at = if page.is_some() { page_start } else { before };
                    return Err(self.ctx.error(at, too_big(page.as_ref(), has_id)));
                }
                Err(e) => return Err(self.ctx.xml_error(&self.reader, before, &e)),
            };
            match event {
                Event::Start(e) => {
                    self.depth += 1;
                    self.seen_root = true;
                    let name = e.local_name();
                    let name = name.as_ref();
                    let Some(p) = page.as_mut() else {
                        if name == "page" {
                            self.reader.get_mut().reset();
                            page = Some(RawPage::default());
                            page_start = before;
                            page_depth = 1;
                            in_revision = false;
                            has_id = false;
                            has_title = false;
                        }
                        continue;
                    };
                    page_depth += 1;
                    field = match (page_depth, name) {
                        (2, "title") => Field::Title,
                        (2, "ns") => Field::Ns,
                        (2, "id") => Field::Id,
                        (2, "revision") => {
                            in_revision = true;
                            Field::None
                        }
                        (2, "redirect") => {
                            let target =
                                redirect_title(&e).map_err(|m| self.ctx.error(before, m))?;
                            p.redirect = target;
                            Field::None
                        }
                        (3, "text") if in_revision => {
                            // Full-history dumps: the last revision wins.
                            p.wikitext.clear();
                            Field::Text
                        }
                        _ => Field::None,
                    };
                    scratch.clear();
                }
                Event::Empty(e) => {
                    self.seen_root = true;
                    let Some(p) = page.as_mut() else { continue };
                    let name = e.local_name();
                    match (page_depth + 1, name.as_ref()) {
                        (2, "redirect") => {
                            p.redirect =
                                redirect_title(&e).map_err(|m| self.ctx.error(before, m))?;
                        }
                        (3, "text") if in_revision => p.wikitext.clear(), // deleted text
                        _ => {}
                    }
                }
                Event::Text(t) => {
                    if field != Field::None
                        && let Some(p) = page.as_mut()
                    {
                        let s = t.xml10_content();
                        match field {
                            Field::Text => p.wikitext.push_str(&s),
                            Field::Title => p.title.push_str(&s),
                            _ => scratch.push_str(&s),
                        }
                    }
                }
                Event::CData(t) => {
                    if field != Field::None
                        && let Some(p) = page.as_mut()
                    {
                        let s = t.xml10_content();
                        match field {
                            Field::Text => p.wikitext.push_str(&s),
                            Field::Title => p.title.push_str(&s),
                            _ => scratch.push_str(&s),
                        }
                    }
                }
                Event::GeneralRef(r) => {
                    if field != Field::None
                        && let Some(p) = page.as_mut()
                    {
                        let c = if r.is_char_ref() {
                            match r.resolve_char_ref() {
                                Ok(Some(c)) => c,
                                _ => {
                                    return Err(self.ctx.error(
                                        before,
                                        format!("invalid character reference &{};", &*r),
                                    ));
                                }
                            }
                        } else {
                            match &*r {
                                "lt" => '<',
                                "gt" => '>',
                                "amp" => '&',
                                "quot" => '"',
                                "apos" => '\'',
                                other => {
                                    return Err(self
                                        .ctx
                                        .error(before, format!("undefined entity &{other};")));
                                }
                            }
                        };
                        match field {
                            Field::Text => p.wikitext.push(c),
                            Field::Title => p.title.push(c),
                            _ => scratch.push(c),
                        }
                    }
                }
                Event::End(e) => {
                    self.depth -= 1;
                    let Some(p) = page.as_mut() else { continue };
                    match field {
                        Field::Ns => {
                            p.ns = scratch.trim().parse().map_err(|_| {
                                self.ctx
                                    .error(before, format!("<ns> is not a number: {scratch:?}"))
                            })?;
                        }
                        Field::Id if !has_id => {
                            p.id = scratch.trim().parse().map_err(|_| {
                                self.ctx.error(
                                    before,
                                    format!("page <id> is not a number: {scratch:?}"),
                                )
                            })?;
                            has_id = true;
                        }
                        Field::Title => has_title = true,
                        _ => {}
                    }
                    field = Field::None;
                    if page_depth == 2 && e.local_name().as_ref() == "revision" {
                        in_revision = false;
                    }
                    page_depth -= 1;
                    if page_depth == 0 {
                        self.reader.get_mut().reset();
                        let done = page.take().unwrap_or_default();
                        if !has_id {
                            return Err(self.ctx.error(page_start, "<page> without an <id>"));
                        }
                        if !has_title {
                            return Err(self.ctx.error(page_start, "<page> without a <title>"));
                        }
                        return Ok(Some(done));
                    }
                }
                Event::Eof => {
                    let position = self.reader.buffer_position();
                    if page.is_some() {
                        return Err(self.ctx.error(
                            page_start,
                            format!("input ends at byte {position} inside this <page>"),
                        ));
                    }
                    if let Origin::Document { .. } = self.ctx.origin {
                        if !self.seen_root {
                            return Err(self.ctx.error(position, "no XML root element"));
                        }
                        if self.depth > 0 {
                            return Err(self.ctx.error(
                                position,
                                format!(
                                    "input ends with {} element(s) still open: truncated?",
                                    self.depth
                                ),
                            ));
                        }
                    }
                    return Ok(None);
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }
}

/// What a page past [`MAX_PAGE_BYTES`] is told with: its title and id when they came first.
fn too_big(page: Option<&RawPage>, has_id: bool) -> String {
    let cap = crate::limits::show(MAX_PAGE_BYTES);
    match page {
        None => {
            format!("more than {cap} of XML outside any <page> (cap wiki::limits::MAX_PAGE_BYTES)")
        }
        Some(p) => {
            let title: String = p.title.chars().take(200).collect();
            let id = if has_id {
                format!(" (id {})", p.id)
            } else {
                String::new()
            };
            format!(
                "<page> {title:?}{id} is larger than {cap} of XML (cap \
                 wiki::limits::MAX_PAGE_BYTES): a decompression bomb or a broken dump?"
            )
        }
    }
}

/// The unescaped `title` attribute of `<redirect title="..."/>`.
fn redirect_title(e: &BytesStart<'_>) -> Result<Option<String>, String> {
    match e.try_get_attribute("title") {
        Ok(Some(a)) => a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map(|v| Some(v.into_owned()))
            .map_err(|err| format!("bad <redirect title>: {err}")),
        Ok(None) => Ok(None),
        Err(err) => Err(format!("bad <redirect> attributes: {err}")),
    }
}

/// Reads a multistream dump (`...-pages-articles-multistream.xml.bz2`) with its index
/// (`...-multistream-index.txt` or `.txt.bz2`, lines `offset:page_id:title`). The bz2 streams
/// between consecutive index offsets are decoded and parsed in parallel, a batch at a time, on
/// a background thread; pages come out in file order. The bytes before the first offset (the
/// `<siteinfo>` stream) and after the last (the final pages and `</mediawiki>`) are read too,
/// so no page is lost if the index is short.
pub fn read_multistream(
    path: &Path,
    index: &Path,
    progress: &Progress,
) -> Result<MultistreamPages> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let index_reader = io::open(index, &Progress::default())?;
    let (tx, rx) = sync_channel(1);
    let job = Producer {
        path: path.to_path_buf(),
        index: index.to_path_buf(),
        file,
        len,
        progress: progress.clone(),
        tx,
    };
    std::thread::Builder::new()
        .name("multistream".into())
        .spawn(move || job.run(index_reader))
        .map_err(|e| Error::io(path, e))?;
    Ok(MultistreamPages {
        rx,
        current: Vec::new().into_iter(),
        done: false,
        path: path.to_path_buf(),
    })
}

/// What the decoding thread sends: a batch of pages in order, or the end.
enum Message {
    Pages(Vec<Result<Page>>),
    Done,
}

/// The pages of a multistream dump, in file order. Yields at most one error, then stops.
pub struct MultistreamPages {
    rx: Receiver<Message>,
    current: std::vec::IntoIter<Result<Page>>,
    done: bool,
    path: PathBuf,
}

impl Iterator for MultistreamPages {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Result<Page>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(item) = self.current.next() {
                if item.is_err() {
                    self.done = true;
                }
                return Some(item);
            }
            match self.rx.recv() {
                Ok(Message::Pages(pages)) => self.current = pages.into_iter(),
                Ok(Message::Done) => self.done = true,
                Err(_) => {
                    // The thread ended without saying it was done: never a silent short read.
                    self.done = true;
                    return Some(Err(Error::parse(
                        &self.path,
                        Position::Unknown,
                        "the multistream decoding thread stopped unexpectedly",
                    )));
                }
            }
        }
    }
}

/// The largest range between index offsets read into memory. Wikimedia's streams hold 100
/// pages (well under 1 MB compressed); a range past this means a truncated or foreign index,
/// which is reported rather than read into memory whole.
const MAX_STREAM_BYTES: u64 = 64 << 20;

/// The decoding thread's state.
struct Producer {
    path: PathBuf,
    index: PathBuf,
    file: File,
    len: u64,
    progress: Progress,
    tx: SyncSender<Message>,
}

impl Producer {
    fn run(mut self, index: Box<dyn BufRead + Send>) {
        let batch_size = rayon::current_num_threads().max(1) * 2;
        let mut offsets = IndexOffsets::new(index, self.index.clone());
        let mut previous = 0u64;
        let mut batch: Vec<(u64, u64)> = Vec::with_capacity(batch_size);
        let mut finished = false;
        while !finished {
            // Collect the next batch of stream ranges [start, end).
            while batch.len() < batch_size {
                let end = match offsets.next_offset() {
                    Ok(Some(o)) if o > self.len => {
                        let e = Error::parse(
                            &self.index,
                            Position::Line(offsets.line),
                            format!(
                                "offset {o} is beyond the end of {} ({} bytes)",
                                self.path.display(),
                                self.len
                            ),
                        );
                        return self.fail(batch, e);
                    }
                    Ok(Some(o)) => o,
                    Ok(None) => {
                        finished = true;
                        self.len
                    }
                    Err(e) => return self.fail(batch, e),
                };
                if end - previous > MAX_STREAM_BYTES {
                    let e = Error::parse(
                        &self.path,
                        Position::Byte(previous),
                        format!(
                            "{} bytes until the next index offset: the index {} looks \
                             incomplete (read the dump with xml::read instead)",
                            end - previous,
                            self.index.display()
                        ),
                    );
                    return self.fail(batch, e);
                }
                if end > previous {
                    batch.push((previous, end));
                    previous = end;
                }
                if finished {
                    break;
                }
            }
            let pages = match self.decode_batch(&batch) {
                Ok(pages) => pages,
                Err(e) => return self.fail(Vec::new(), e),
            };
            batch.clear();
            let failed = pages.iter().any(|p| p.is_err());
            if self.tx.send(Message::Pages(pages)).is_err() || failed {
                return; // the reader was dropped, or the error has been delivered
            }
        }
        let _ = self.tx.send(Message::Done);
    }

    /// Delivers the pages of the ranges read so far, then `error`.
    fn fail(&mut self, batch: Vec<(u64, u64)>, error: Error) {
        let mut pages = match self.decode_batch(&batch) {
            Ok(pages) => pages,
            Err(e) => vec![Err(e)],
        };
        if !pages.iter().any(|p| p.is_err()) {
            pages.push(Err(error));
        }
        let _ = self.tx.send(Message::Pages(pages));
    }

    /// Reads the ranges' bytes in order, then decodes and parses them in parallel.
    fn decode_batch(&mut self, batch: &[(u64, u64)]) -> Result<Vec<Result<Page>>> {
        let mut chunks = Vec::with_capacity(batch.len());
        for &(start, end) in batch {
            let mut bytes = vec![0u8; (end - start) as usize];
            self.file
                .seek(SeekFrom::Start(start))
                .and_then(|_| self.file.read_exact(&mut bytes))
                .map_err(|e| Error::io(&self.path, e))?;
            self.progress
                .disk_bytes
                .fetch_add(end - start, Ordering::Relaxed);
            chunks.push((start, bytes));
        }
        let results: Vec<Vec<Result<Page>>> = chunks
            .par_iter()
            .map(|(start, bytes)| decode_stream(&self.path, *start, bytes, &self.progress))
            .collect();
        let mut pages = Vec::new();
        for chunk in results {
            let failed = chunk.iter().any(|p| p.is_err());
            pages.extend(chunk);
            if failed {
                break;
            }
        }
        Ok(pages)
    }
}

/// Decodes one index range (normally one bz2 stream) and parses its pages. A multi-stream
/// decoder, because the last range also holds the closing `</mediawiki>` stream (and a range
/// spans several streams when the index skips some).
fn decode_stream(path: &Path, start: u64, bytes: &[u8], progress: &Progress) -> Vec<Result<Page>> {
    let mut xml = Vec::with_capacity(bytes.len() * 5);
    let decoder = bzip2::bufread::MultiBzDecoder::new(bytes);
    if let Err(e) = decoder
        .take(MAX_DECODED_STREAM_BYTES + 1)
        .read_to_end(&mut xml)
    {
        return vec![Err(Error::parse(
            path,
            Position::Byte(start),
            format!("bad bz2 stream starting here: {e}"),
        ))];
    }
    if xml.len() as u64 > MAX_DECODED_STREAM_BYTES {
        return vec![Err(Error::parse(
            path,
            Position::Byte(start),
            format!(
                "the bz2 stream starting here decodes to more than {} (cap \
                 wiki::limits::MAX_DECODED_STREAM_BYTES): a decompression bomb?",
                crate::limits::show(MAX_DECODED_STREAM_BYTES)
            ),
        ))];
    }
    progress
        .decoded_bytes
        .fetch_add(xml.len() as u64, Ordering::Relaxed);
    let mut parser = PageParser::new(&xml[..], path, Origin::Stream { start });
    let mut pages = Vec::new();
    loop {
        match parser.next_raw() {
            Ok(Some(raw)) => pages.push(Ok(raw.into_page())),
            Ok(None) => break,
            Err(e) => {
                pages.push(Err(e));
                break;
            }
        }
    }
    pages
}

/// The distinct stream offsets of a multistream index, in order.
struct IndexOffsets {
    input: Box<dyn BufRead + Send>,
    path: PathBuf,
    line: u64,
    last: Option<u64>,
    buf: Vec<u8>,
}

impl IndexOffsets {
    fn new(input: Box<dyn BufRead + Send>, path: PathBuf) -> Self {
        IndexOffsets {
            input,
            path,
            line: 0,
            last: None,
            buf: Vec::new(),
        }
    }

    fn next_offset(&mut self) -> Result<Option<u64>> {
        loop {
            self.buf.clear();
            let n = self.input.read_until(b'\n', &mut self.buf).map_err(|e| {
                Error::parse(
                    &self.path,
                    Position::Line(self.line + 1),
                    format!("read error: {e}"),
                )
            })?;
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let line = self.buf.trim_ascii();
            if line.is_empty() {
                continue;
            }
            let field = line.split(|&c| c == b':').next().unwrap_or_default();
            let offset = std::str::from_utf8(field)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| {
                    Error::parse(
                        &self.path,
                        Position::Line(self.line),
                        format!(
                            "expected offset:page_id:title, got {:?}",
                            String::from_utf8_lossy(&line[..line.len().min(80)])
                        ),
                    )
                })?;
            match self.last {
                Some(last) if offset == last => continue,
                Some(last) if offset < last => {
                    return Err(Error::parse(
                        &self.path,
                        Position::Line(self.line),
                        format!("offset {offset} is smaller than the previous one, {last}"),
                    ));
                }
                _ => {
                    self.last = Some(offset);
                    return Ok(Some(offset));
                }
            }
        }
    }
}
