//! MediaWiki XML dumps (`pages-articles`, export schema 0.10 and 0.11), plain or compressed,
//! and multistream `.bz2` dumps decoded in parallel through their index (the streams' reading
//! and decoding are in `crate::multistream`, re-exported here).
//!
//! Each `<page>` becomes a [`Page`]: its id (the page's, not the revision's), title, namespace,
//! the last revision's text turned into plain text, its links, and its redirect target. Both
//! readers stream: memory holds one page (or, for multistream, a budget of streams) at a time.
//! Any defect in the input (malformed XML, a truncated compressed file, invalid UTF-8, a page
//! without an id) ends the iteration with an [`Error::Parse`] naming the file and the byte.

use crate::io::{self, Compression, Progress};
use crate::limits::MAX_PAGE_BYTES;
use crate::{Error, Page, Position, Result, title, wikitext};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use std::io::BufRead;
use std::path::{Path, PathBuf};

pub use crate::multistream::{
    MultistreamOptions, MultistreamPages, read_multistream, read_multistream_with,
};

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

impl Field {
    /// Appends text read inside this field: the title and the wikitext to the page, the
    /// numbers (`<ns>`, `<id>`) to `scratch` until their element ends; outside any field,
    /// nothing.
    fn push(self, p: &mut RawPage, scratch: &mut String, s: &str) {
        match self {
            Field::None => {}
            Field::Text => p.wikitext.push_str(s),
            Field::Title => p.title.push_str(s),
            Field::Ns | Field::Id => scratch.push_str(s),
        }
    }
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
                    // Text outside the fields read (timestamps, contributors) is not decoded.
                    if field != Field::None
                        && let Some(p) = page.as_mut()
                    {
                        field.push(p, &mut scratch, &t.xml10_content());
                    }
                }
                Event::CData(t) => {
                    // Text outside the fields read (timestamps, contributors) is not decoded.
                    if field != Field::None
                        && let Some(p) = page.as_mut()
                    {
                        field.push(p, &mut scratch, &t.xml10_content());
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
                        field.push(p, &mut scratch, c.encode_utf8(&mut [0; 4]));
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

/// Parses the pages of one decoded bz2 stream of a multistream dump (see
/// [`crate::multistream`]), which starts at byte `start` of the compressed file.
pub(crate) fn parse_stream(path: &Path, start: u64, xml: &[u8]) -> Vec<Result<Page>> {
    let mut parser = PageParser::new(xml, path, Origin::Stream { start });
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
