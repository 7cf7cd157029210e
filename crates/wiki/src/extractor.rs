//! WikiExtractor output: the `<doc id=".." url=".." title="..">` plain-text form and the JSON-lines
//! form (`{"id","url","title","text"}` per line), plain or compressed.
//!
//! The plain form looks like XML but is not: the body is written unescaped, so a body line may
//! hold `<`, `&` or even `<doc` text. It is read line by line instead: a document starts with a
//! line beginning `<doc ` and ends with a line that is exactly `</doc>`. Only the `title`
//! attribute is HTML-escaped (`&amp;`, `&quot;`, `&#39;`), and it is unescaped here; MediaWiki
//! decodes character references in titles, so a real title never holds a literal `&amp;` and the
//! same unescaping is applied to JSON titles (WikiExtractor copies the raw, escaped title there
//! too). WikiExtractor repeats the title as the first body line; that line is dropped, along with
//! the blank lines after it and the trailing blanks of the body.
//!
//! The form is chosen from the first non-empty line: `<doc` or `{`. WikiExtractor skips
//! redirects and links (`-l` keeps them as HTML, which is not read here), so no page has a
//! redirect or links. It skips non-article namespaces too, but not every dump it ran over agreed
//! (Simple English Wikipedia's text keeps its `Category:` and `Wikipedia:` pages): a title's
//! namespace prefix sets the page's namespace ([`crate::title::namespace_of_title`]), articles
//! are namespace 0.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::io::{Progress, open, read_line_capped};
use crate::limits::{MAX_PAGE_BYTES, show};
use crate::title::normalize;
use crate::{Error, Page, Position, Result};

/// Which of WikiExtractor's two output forms a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `<doc id=".." url=".." title="..">` .. `</doc>`.
    Doc,
    /// One JSON object per line.
    JsonLines,
}

/// Reads the pages of a WikiExtractor output file (`.txt`/`.json`, or `.gz`/`.bz2`/`.xz`).
pub fn read(path: &Path, progress: &Progress) -> Result<Docs> {
    Docs::new(path, open(path, progress)?)
}

/// The pages of one WikiExtractor file, in file order; stops after the first error.
pub struct Docs {
    path: PathBuf,
    input: Box<dyn BufRead + Send>,
    /// `None` for an empty file.
    form: Option<Form>,
    /// Lines read so far, so the last line read is `line_no`.
    line_no: u64,
    /// The first non-empty line, read to detect the form and not yet consumed.
    pending: bool,
    /// The current header (or JSON) line.
    line: Vec<u8>,
    /// The body of the current document, reused between documents.
    body: Vec<u8>,
    done: bool,
}

impl Docs {
    /// Reads from any buffered stream; `path` names it in errors. Reads up to the first
    /// non-empty line to tell the form.
    pub fn new(path: impl Into<PathBuf>, input: Box<dyn BufRead + Send>) -> Result<Self> {
        let mut docs = Docs {
            path: path.into(),
            input,
            form: None,
            line_no: 0,
            pending: false,
            line: Vec::new(),
            body: Vec::with_capacity(1 << 20),
            done: false,
        };
        while docs.read_line()? {
            if docs.line_no == 1 && docs.line.starts_with(b"\xEF\xBB\xBF") {
                docs.line.drain(..3);
            }
            let first = docs.line.trim_ascii();
            if first.is_empty() {
                continue;
            }
            docs.form = if first.starts_with(b"<doc") {
                Some(Form::Doc)
            } else if first.starts_with(b"{") {
                Some(Form::JsonLines)
            } else {
                return Err(docs.error(
                    docs.line_no,
                    format!(
                        "neither WikiExtractor form (`<doc ...>` or a JSON object): {:?}",
                        String::from_utf8_lossy(&first[..first.len().min(60)])
                    ),
                ));
            };
            docs.pending = true;
            break;
        }
        Ok(docs)
    }

    /// The form detected, `None` for a file with no content.
    pub fn form(&self) -> Option<Form> {
        self.form
    }

    /// Reads the next line into `line` (unless one is pending); `false` at the end.
    fn read_line(&mut self) -> Result<bool> {
        if std::mem::take(&mut self.pending) {
            return Ok(true);
        }
        self.line.clear();
        let n = read_line_capped(&mut *self.input, &mut self.line, MAX_PAGE_BYTES)
            .map_err(|e| self.error(self.line_no + 1, format!("reading: {e}")))?
            .ok_or_else(|| {
                self.error(
                    self.line_no + 1,
                    format!(
                        "line longer than {} (cap wiki::limits::MAX_PAGE_BYTES on a page)",
                        show(MAX_PAGE_BYTES)
                    ),
                )
            })?;
        self.line_no += u64::from(n > 0);
        Ok(n > 0)
    }

    fn error(&self, line: u64, message: impl Into<String>) -> Error {
        Error::parse(&self.path, Position::Line(line), message)
    }

    fn next_page(&mut self) -> Result<Option<Page>> {
        match self.form {
            None => Ok(None),
            Some(Form::Doc) => self.next_doc(),
            Some(Form::JsonLines) => self.next_json(),
        }
    }

    /// The next `<doc>` .. `</doc>` block.
    fn next_doc(&mut self) -> Result<Option<Page>> {
        loop {
            if !self.read_line()? {
                return Ok(None);
            }
            if !self.line.trim_ascii().is_empty() {
                break;
            }
        }
        let header_line = self.line_no;
        let header = std::str::from_utf8(&self.line).map_err(|e| {
            self.error(
                header_line,
                format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            )
        })?;
        let (id, raw_title) =
            parse_header(header.trim_end()).map_err(|m| self.error(header_line, m))?;
        let raw_title = raw_title.to_string();

        self.body.clear();
        loop {
            let start = self.body.len();
            let n = read_line_capped(&mut *self.input, &mut self.body, MAX_PAGE_BYTES)
                .map_err(|e| self.error(self.line_no + 1, format!("reading: {e}")))?
                .ok_or_else(|| {
                    let title: String = raw_title.chars().take(200).collect();
                    self.error(
                        header_line,
                        format!(
                            "<doc id=\"{id}\" title={title:?}> is larger than {} (cap \
                             wiki::limits::MAX_PAGE_BYTES): a decompression bomb?",
                            show(MAX_PAGE_BYTES)
                        ),
                    )
                })?;
            if n == 0 {
                return Err(self.error(
                    header_line,
                    format!("<doc id=\"{id}\"> is not closed by </doc> before the end of the file"),
                ));
            }
            self.line_no += 1;
            let line = &self.body[start..];
            // Cheap test first: nearly every line starts with a letter.
            if line.first() == Some(&b'<') {
                let marker = line.trim_ascii_end();
                if marker == b"</doc>" {
                    self.body.truncate(start);
                    break;
                }
                if marker.starts_with(b"<doc ") {
                    return Err(self.error(
                        self.line_no,
                        format!(
                            "a new <doc> starts inside <doc id=\"{id}\"> of line {header_line}, \
                             which has no </doc>"
                        ),
                    ));
                }
            }
        }

        let text = std::str::from_utf8(&self.body).map_err(|e| {
            let line = header_line
                + 1
                + memchr::memchr_iter(b'\n', &self.body[..e.valid_up_to()]).count() as u64;
            self.error(line, "invalid UTF-8 in the text")
        })?;
        let title = unescape_html(&raw_title);
        let text = body_text(text, &[raw_title.as_str(), &title]);
        Ok(Some(make_page(id, &title, text.to_string())))
    }

    /// The next JSON object line.
    fn next_json(&mut self) -> Result<Option<Page>> {
        loop {
            if !self.read_line()? {
                return Ok(None);
            }
            if !self.line.trim_ascii().is_empty() {
                break;
            }
        }
        let doc: JsonDoc = serde_json::from_slice(&self.line)
            .map_err(|e| self.error(self.line_no, format!("bad JSON: {e}")))?;
        let id = match doc.id {
            JsonId::Number(n) => n,
            JsonId::Text(s) => s
                .trim()
                .parse()
                .map_err(|_| self.error(self.line_no, format!("bad id {s:?}")))?,
        };
        let title = unescape_html(&doc.title);
        let kept = body_text(&doc.text, &[&doc.title, &title]);
        // Reuse the allocation when nothing was cut, which is the common case for JSON.
        let text = if kept.len() == doc.text.len() {
            doc.text
        } else {
            kept.to_string()
        };
        Ok(Some(make_page(id, &title, text)))
    }
}

impl Iterator for Docs {
    type Item = Result<Page>;

    fn next(&mut self) -> Option<Result<Page>> {
        if self.done {
            return None;
        }
        let next = self.next_page();
        if !matches!(next, Ok(Some(_))) {
            self.done = true;
        }
        next.transpose()
    }
}

/// One line of the JSON form; `url` and `revid` are not needed.
#[derive(Deserialize)]
struct JsonDoc<'a> {
    id: JsonId,
    #[serde(borrow)]
    title: Cow<'a, str>,
    text: String,
}

/// WikiExtractor writes the id as a string; accept a number too.
#[derive(Deserialize)]
#[serde(untagged)]
enum JsonId {
    Number(u64),
    Text(String),
}

fn make_page(id: u64, title: &str, text: String) -> Page {
    let title = normalize(title);
    Page {
        id,
        is_disambiguation: title.ends_with(" (disambiguation)"),
        ns: crate::title::namespace_of_title(&title),
        title,
        text,
        redirect: None,
        links: Vec::new(),
    }
}

/// The body without its first line when that line repeats the title (in either spelling),
/// without the blank lines that follow, and without trailing blanks.
fn body_text<'a>(text: &'a str, titles: &[&str]) -> &'a str {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let first = first.trim();
    let text = if titles.iter().any(|t| t.trim() == first) {
        rest
    } else {
        text
    };
    // Leading blank lines go; leading spaces of the first real line stay.
    let start = text
        .bytes()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(text.len(), |p| text[..p].rfind('\n').map_or(0, |nl| nl + 1));
    text[start..].trim_end()
}

/// Parses `<doc id="12" url="..." title="Anarchism">` into the id and the raw (escaped) title.
fn parse_header(line: &str) -> std::result::Result<(u64, &str), String> {
    let Some(mut rest) = line.strip_prefix("<doc") else {
        return Err(format!("expected a <doc ...> line, found {:?}", clip(line)));
    };
    let (mut id, mut title) = (None, None);
    loop {
        rest = rest.trim_start();
        if rest == ">" {
            break;
        }
        let Some((name, after)) = rest.split_once("=\"") else {
            return Err(format!("malformed <doc> attributes: {:?}", clip(line)));
        };
        let Some((value, after)) = after.split_once('"') else {
            return Err(format!("unterminated attribute {name:?}: {:?}", clip(line)));
        };
        match name.trim() {
            "id" => id = Some(value),
            "title" => title = Some(value),
            _ => {}
        }
        rest = after;
    }
    let id = id.ok_or_else(|| format!("<doc> without an id: {:?}", clip(line)))?;
    let id = id.parse().map_err(|_| format!("bad id {id:?} in <doc>"))?;
    let title = title.ok_or_else(|| format!("<doc id=\"{id}\"> without a title"))?;
    Ok((id, title))
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(100) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Decodes the HTML character references Python's `html.escape`/`cgi.escape` write, plus
/// numeric ones; anything unrecognised is left as written.
pub fn unescape_html(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..].find(';').filter(|&e| e <= 10).and_then(|e| {
            let name = &rest[1..1 + e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let code = if let Some(hex) =
                        name.strip_prefix("#x").or_else(|| name.strip_prefix("#X"))
                    {
                        u32::from_str_radix(hex, 16).ok()
                    } else {
                        name.strip_prefix('#').and_then(|d| d.parse().ok())
                    };
                    code.and_then(char::from_u32)
                }
            };
            c.map(|c| (c, e + 2))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_titles() {
        assert_eq!(
            unescape_html("Batman &amp; Robin (film)"),
            "Batman & Robin (film)"
        );
        assert_eq!(
            unescape_html("&quot;Hello, World!&quot; program"),
            "\"Hello, World!\" program"
        );
        assert_eq!(
            unescape_html("Rock &#39;n&#x27; roll &lt;3&gt;"),
            "Rock 'n' roll <3>"
        );
        assert_eq!(
            unescape_html("AT&T & co &bogus; &#xZZ;"),
            "AT&T & co &bogus; &#xZZ;"
        );
        assert!(matches!(unescape_html("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn parses_headers() {
        assert_eq!(
            parse_header(
                r#"<doc id="12" url="http://en.wikipedia.org/wiki?curid=12" title="Anarchism">"#
            ),
            Ok((12, "Anarchism"))
        );
        assert!(
            parse_header(r#"<doc id="x12" title="A">"#)
                .unwrap_err()
                .contains("bad id")
        );
        assert!(
            parse_header(r#"<doc url="u" title="A">"#)
                .unwrap_err()
                .contains("without an id")
        );
        assert!(parse_header(r#"<doc id="1" title="A"#).is_err());
        assert!(
            parse_header(r#"<doc id="1">"#)
                .unwrap_err()
                .contains("without a title")
        );
    }

    #[test]
    fn body_drops_the_title_line_and_blank_edges() {
        assert_eq!(
            body_text("Anarchism\n\nFirst.\nSecond.\n\n", &["Anarchism"]),
            "First.\nSecond."
        );
        assert_eq!(
            body_text("Other\n\nFirst.\n", &["Anarchism"]),
            "Other\n\nFirst."
        );
        assert_eq!(
            body_text("A &amp; B\n  indented\n", &["A &amp; B", "A & B"]),
            "  indented"
        );
        assert_eq!(body_text("Title\n", &["Title"]), "");
        assert_eq!(body_text("", &["Title"]), "");
    }
}
