//! Wikipedia in every form users have it, read as one stream of [`Page`] records.
//!
//! Each source module turns its format into the same record so that the store and the
//! pipeline never care where a page came from. Readers stream: none holds a dump in memory.

pub mod api;
pub mod extractor;
pub mod io;
mod multistream;
pub mod sql;
pub mod title;
pub mod wikispeedia;
pub mod wikitext;
pub mod xml;

use std::path::PathBuf;

/// Caps on what one input can make clue-db hold in memory, so a decompression bomb or a hostile
/// server fails with an error naming the page (or the file and position) and the cap, instead of
/// exhausting memory. Wikipedia's own limits are far below them: a page's wikitext is at most
/// 2 MiB (`$wgMaxArticleSize`), a title 255 bytes, a multistream bz2 stream 100 pages. Titles
/// are checked when stored (`store::MAX_TITLE_BYTES`). RELIABILITY.md lists the caps with the
/// tests that pin them.
pub mod limits {
    /// One page as read, before conversion: the XML of a `<page>` (or whatever comes between
    /// two pages), a WikiExtractor document or JSON line, a Wikispeedia article file. 16 MiB,
    /// eight times Wikipedia's largest page; converting a page takes about 6.5 times its size.
    pub const MAX_PAGE_BYTES: u64 = 16 << 20;
    /// One decoded bz2 stream of a multistream dump (100 pages, usually 1-5 MiB): 64 MiB.
    pub const MAX_DECODED_STREAM_BYTES: u64 = 64 << 20;
    /// One range between two offsets of a multistream index, read into memory to be decoded
    /// (Wikimedia's streams are well under 1 MB compressed; past this the index is incomplete).
    pub const MAX_STREAM_BYTES: u64 = 64 << 20;
    /// Bytes the multistream reader holds at once, by default (see
    /// `xml::MultistreamOptions::budget`): compressed ranges, decoded streams and their pages
    /// not yet handed out, over all its threads, whatever their number. Real streams (1-5 MiB
    /// decoded) keep dozens of threads busy under it: 256 MiB.
    pub const MAX_MULTISTREAM_BYTES: u64 = 256 << 20;
    /// One line of an SQL dump (mysqldump writes about 1 MiB of tuples per `INSERT` line), and
    /// so one tuple, however many lines it spans: 64 MiB.
    pub const MAX_SQL_LINE_BYTES: u64 = 64 << 20;
    /// One MediaWiki API response body, by default (see `api::ApiOptions::max_response_bytes`):
    /// 64 MiB.
    pub const MAX_RESPONSE_BYTES: u64 = 64 << 20;
    /// `continue` rounds of one API query, by default (see `api::ApiOptions::max_continuations`):
    /// a batch of pages takes one round per page plus one per 500 links.
    pub const MAX_CONTINUATIONS: usize = 10_000;
    /// Response bytes of all the `continue` rounds of one API query, and bytes its pages hold
    /// in memory, by default (see `api::ApiOptions::max_query_bytes`): what one query may make
    /// the client hold, its rounds' links and texts merged. A batch of 20 pages, each at most 2 MiB of text and a
    /// few thousand links, is well under it: 256 MiB.
    pub const MAX_QUERY_BYTES: u64 = 256 << 20;

    /// `n` bytes as the caps are written: `16 MiB`, `1 KiB`, `700 bytes`.
    pub fn show(n: u64) -> String {
        if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
            format!("{} MiB", n >> 20)
        } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
            format!("{} KiB", n >> 10)
        } else {
            format!("{n} bytes")
        }
    }
}

/// One page as every reader yields it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// MediaWiki page id (or a stable sequence number where the source has none).
    pub id: u64,
    /// Normalised title (see [`title::normalize`]): spaces, URL-decoded, first letter upper-case.
    pub title: String,
    /// Namespace number (0 = articles).
    pub ns: i32,
    /// Plain text, markup removed.
    pub text: String,
    /// Normalised target title when this page is a redirect.
    pub redirect: Option<String>,
    /// True for disambiguation pages.
    pub is_disambiguation: bool,
    /// Normalised titles of the main-namespace pages this page links to, in order, duplicates kept.
    pub links: Vec<String>,
}

/// Where in an input an error happened: enough for a user to open the file and look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    Byte(u64),
    Line(u64),
    Entry(String),
    Unknown,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::Byte(b) => write!(f, "byte {b}"),
            Position::Line(l) => write!(f, "line {l}"),
            Position::Entry(e) => write!(f, "entry {e}"),
            Position::Unknown => write!(f, "unknown position"),
        }
    }
}

/// Every reader error names the input and, where known, the position in it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The cause is part of the message, not a `source()`, so that a chain printed by
    /// `anyhow` (`{:#}`) does not say it twice.
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: {position}: {message}", path.display())]
    Parse {
        path: PathBuf,
        position: Position,
        message: String,
    },
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    /// The caller asked the work to stop (Ctrl-C on a long fetch).
    #[error("{url}: interrupted")]
    Interrupted { url: String },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error: source,
        }
    }
    pub fn parse(path: impl Into<PathBuf>, position: Position, message: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            position,
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
