//! MediaWiki SQL dumps (`page`, `redirect`, `linktarget`, `pagelinks`, `page_props`), as mysqldump
//! writes them.
//!
//! Wikimedia publishes its link tables as `INSERT INTO \`t\` VALUES (..),(..);` statements whose
//! lines run to about a megabyte each. [`SqlReader`] streams those rows one tuple at a time from a
//! `.sql` file or a compressed one (see [`crate::io::open`]) with one reused line buffer, so memory
//! stays flat whatever the size of the dump. The typed readers ([`read_pages`], [`read_redirects`],
//! [`read_linktargets`], [`read_pagelinks`], [`read_page_props`], [`read_disambiguations`]) find
//! their columns by *name* in the `CREATE TABLE`
//! statement, because the layout changes between MediaWiki versions (`page_lang` was added,
//! `pagelinks` moved its target into `linktarget` in 2024).
//!
//! Decisions about real dumps:
//! - Strings are byte strings (`varbinary`). Only the columns a typed reader uses are decoded, and
//!   they must be UTF-8: MediaWiki stores titles as validated UTF-8, so bytes that are not mean the
//!   file is not what we think it is (re-encoded, cut, another table), and that is an error with its
//!   line rather than a silently mangled title.
//! - A statement may continue on the next line (a tuple or a `,` may start a line), and blanks may
//!   sit between tuples and values.
//! - An `INSERT` that stops at the end of the file right after a complete tuple, with no `;`, is
//!   accepted: excerpts of real dumps (like the fixtures in `sql-sample/`) are cut that way. A file
//!   that ends inside a tuple is an error. Whether mysqldump's closing `-- Dump completed` line
//!   was read is reported ([`SqlReader::completed`]), so a caller can tell a whole dump from an
//!   excerpt or a file cut between tuples.
//! - MySQL escapes `\0 \' \" \b \n \r \t \Z \\` are decoded; any other `\x` is `x`, as MySQL does.
//!   A doubled quote `''` inside a string is a quote. `_binary '..'` and `0x..` literals are read
//!   as byte strings, so `mysqldump` output from MySQL 8 or `--hex-blob` also parses.

use std::collections::HashMap;
use std::io::BufRead;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use crate::io::{Progress, open, read_line_capped};
use crate::limits::MAX_SQL_LINE_BYTES;
use crate::title::normalize;
use crate::{Error, Position, Result};

/// A tuple longer than this (in bytes, across lines) is reported rather than buffered, so an
/// unterminated string cannot make the reader swallow the rest of a multi-gigabyte file.
const MAX_TUPLE_BYTES: usize = 64 << 20;

/// One value of a tuple, borrowed from the reader until the next row is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Field<'a> {
    Null,
    Int(i64),
    Float(f64),
    /// A string with its escapes decoded; bytes, since the columns are `varbinary`.
    Str(&'a [u8]),
}

/// A parsed value whose string bytes live in the reader's scratch buffer.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Null,
    Int(i64),
    Float(f64),
    Str(usize, usize),
}

/// Where the reader is in the statement stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between statements: lines are looked at for `CREATE TABLE` and `INSERT`.
    Outside,
    /// Inside `INSERT .. VALUES`; `true` when the next token must be a tuple.
    Insert { need_tuple: bool },
    /// End of input, or an error was returned: nothing more is yielded.
    Done,
}

/// Why a tuple could not be parsed.
enum TupleError {
    /// The buffer ended inside the tuple: read another line and try again.
    NeedMore,
    /// Malformed input at this offset of the line buffer.
    Bad(usize, String),
}

/// Streams the rows of the `INSERT` statements of a mysqldump file, and the column names of the
/// table from its `CREATE TABLE`.
pub struct SqlReader {
    path: PathBuf,
    input: Box<dyn BufRead + Send>,
    /// The current line; several lines while a tuple spans line breaks.
    buf: Vec<u8>,
    /// Cursor in `buf`.
    pos: usize,
    /// 1-based line number of `buf[0]`.
    line_no: u64,
    /// Lines held in `buf`.
    lines_in_buf: u64,
    state: State,
    /// Table named by the last `CREATE TABLE`, and its columns in order.
    ddl_table: Option<String>,
    ddl_columns: Vec<String>,
    /// Table of the current `INSERT`, and its columns (from the DDL or its own column list).
    insert_table: String,
    columns: Vec<String>,
    /// Bumped whenever `columns` may change, so typed readers know to look names up again.
    schema_generation: u64,
    /// Whether mysqldump's closing `-- Dump completed` line has been read.
    completed: bool,
    slots: Vec<Slot>,
    scratch: Vec<u8>,
    /// Offset in `buf` where the current tuple starts. Its line and column are worked out only
    /// when asked (an error): counting newlines for every tuple of a 1 MB line is quadratic.
    row_start: usize,
}

/// The current tuple of a [`SqlReader`].
pub struct Row<'a> {
    slots: &'a [Slot],
    scratch: &'a [u8],
    columns: &'a [String],
    table: &'a str,
    path: &'a Path,
    /// The reader's buffer, its first line number, and where the tuple starts in it.
    buf: &'a [u8],
    first_line: u64,
    start: usize,
    /// The reader's schema generation when this row was read.
    generation: u64,
}

impl SqlReader {
    /// Opens a dump (`.sql`, `.sql.gz`, `.sql.bz2`, `.sql.xz`) for streaming.
    pub fn open(path: &Path, progress: &Progress) -> Result<Self> {
        Ok(Self::from_reader(path, open(path, progress)?))
    }

    /// Reads a dump from any buffered stream; `path` only names it in errors.
    pub fn from_reader(path: impl Into<PathBuf>, input: Box<dyn BufRead + Send>) -> Self {
        SqlReader {
            path: path.into(),
            input,
            buf: Vec::with_capacity(1 << 20),
            pos: 0,
            line_no: 1,
            lines_in_buf: 0,
            state: State::Outside,
            ddl_table: None,
            ddl_columns: Vec::new(),
            insert_table: String::new(),
            columns: Vec::new(),
            schema_generation: 0,
            completed: false,
            slots: Vec::new(),
            scratch: Vec::new(),
            row_start: 0,
        }
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the dump's closing `-- Dump completed` line has been read: after the last row,
    /// false for an excerpt or a file cut between tuples.
    pub fn completed(&self) -> bool {
        self.completed
    }

    /// Table of the current `INSERT` (empty before the first one).
    pub fn table(&self) -> &str {
        &self.insert_table
    }

    /// The next tuple, `None` at the end of the input. After an error, always `None`.
    pub fn next_row(&mut self) -> Result<Option<Row<'_>>> {
        match self.advance() {
            Ok(true) => Ok(Some(Row {
                slots: &self.slots,
                scratch: &self.scratch,
                columns: &self.columns,
                table: &self.insert_table,
                path: &self.path,
                buf: &self.buf,
                first_line: self.line_no,
                start: self.row_start,
                generation: self.schema_generation,
            })),
            Ok(false) => {
                self.state = State::Done;
                Ok(None)
            }
            Err(e) => {
                self.state = State::Done;
                Err(e)
            }
        }
    }

    /// Parses up to the next tuple into `slots`; `false` at the end of the input.
    fn advance(&mut self) -> Result<bool> {
        loop {
            match self.state {
                State::Done => return Ok(false),
                State::Outside => {
                    if !self.read_fresh_line()? {
                        return Ok(false);
                    }
                    self.statement_start()?;
                }
                State::Insert { need_tuple } => {
                    if !self.skip_blanks()? {
                        if need_tuple {
                            return Err(
                                self.error_at(self.pos, "file ends where a tuple was expected")
                            );
                        }
                        // An excerpt cut after a complete tuple: see the module notes.
                        return Ok(false);
                    }
                    let c = self.buf[self.pos];
                    match (need_tuple, c) {
                        (true, b'(') => {
                            self.tuple()?;
                            self.state = State::Insert { need_tuple: false };
                            return Ok(true);
                        }
                        (false, b',') => {
                            self.pos += 1;
                            self.state = State::Insert { need_tuple: true };
                        }
                        (false, b';') => {
                            self.pos += 1;
                            self.state = State::Outside;
                        }
                        (true, _) => {
                            return Err(self.error_at(
                                self.pos,
                                format!("expected '(' to start a tuple, found {}", show(c)),
                            ));
                        }
                        (false, _) => {
                            return Err(self.error_at(
                                self.pos,
                                format!("expected ',' or ';' after a tuple, found {}", show(c)),
                            ));
                        }
                    }
                }
            }
        }
    }

    /// Replaces the buffer with the next line; `false` at the end of the input.
    fn read_fresh_line(&mut self) -> Result<bool> {
        self.line_no += self.lines_in_buf;
        self.lines_in_buf = 0;
        self.buf.clear();
        self.pos = 0;
        self.append_line()
    }

    /// Appends the next line to the buffer; `false` at the end of the input.
    fn append_line(&mut self) -> Result<bool> {
        let line = self.line_no + self.lines_in_buf;
        // Capped on the whole buffer, which holds the current line or the lines of one tuple.
        let n = read_line_capped(&mut *self.input, &mut self.buf, MAX_SQL_LINE_BYTES)
            .map_err(|e| {
                // A cut or corrupt compressed file: say where the text stopped.
                Error::parse(&self.path, Position::Line(line), format!("reading: {e}"))
            })?
            .ok_or_else(|| {
                Error::parse(
                    &self.path,
                    Position::Line(line),
                    format!(
                        "a line (or a tuple across lines) longer than {} (cap \
                         wiki::limits::MAX_SQL_LINE_BYTES): unterminated string?",
                        crate::limits::show(MAX_SQL_LINE_BYTES)
                    ),
                )
            })?;
        if n > 0 {
            self.lines_in_buf += 1;
        }
        Ok(n > 0)
    }

    /// Skips blanks, reading further lines as needed; `false` at the end of the input.
    fn skip_blanks(&mut self) -> Result<bool> {
        loop {
            while self.pos < self.buf.len() && self.buf[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < self.buf.len() {
                return Ok(true);
            }
            if !self.read_fresh_line()? {
                return Ok(false);
            }
        }
    }

    /// Looks at a line between statements: learns columns from `CREATE TABLE`, enters `INSERT`.
    fn statement_start(&mut self) -> Result<()> {
        let start = self
            .buf
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let line = &self.buf[start..];
        if line.starts_with(b"-- Dump completed") {
            self.completed = true;
            return Ok(());
        }
        if let Some(rest) = strip_prefix_ci(line, b"CREATE TABLE ") {
            let name = backquoted(rest).map(|(n, _)| n).unwrap_or_default();
            return self.create_table(name);
        }
        let rest = strip_prefix_ci(line, b"INSERT INTO ")
            .or_else(|| strip_prefix_ci(line, b"INSERT IGNORE INTO "))
            .or_else(|| strip_prefix_ci(line, b"REPLACE INTO "));
        let Some(rest) = rest else {
            return Ok(());
        };
        let consumed = self.buf.len() - rest.len();
        let Some((table, after)) = backquoted(rest) else {
            return Err(self.error_at(consumed, "INSERT without a `table` name"));
        };
        let mut at = self.buf.len() - after.len();
        at += count_blanks(&self.buf[at..]);
        // mysqldump --complete-insert names the columns in the statement itself.
        let mut own_columns = None;
        if self.buf.get(at) == Some(&b'(') {
            let close = self.buf[at..]
                .iter()
                .position(|&b| b == b')')
                .map(|p| at + p)
                .ok_or_else(|| self.error_at(at, "unterminated column list in INSERT"))?;
            let list = &self.buf[at + 1..close];
            own_columns = Some(
                list.split(|&b| b == b',')
                    .map(|c| {
                        String::from_utf8_lossy(c.trim_ascii())
                            .trim_matches('`')
                            .to_string()
                    })
                    .collect::<Vec<_>>(),
            );
            at = close + 1;
            at += count_blanks(&self.buf[at..]);
        }
        let Some(after_values) = strip_prefix_ci(&self.buf[at..], b"VALUES") else {
            return Err(self.error_at(at, "expected VALUES in INSERT"));
        };
        self.pos = self.buf.len() - after_values.len();
        self.insert_table = table;
        self.columns = match own_columns {
            Some(cols) => cols,
            None if self.ddl_table.as_deref() == Some(self.insert_table.as_str()) => {
                self.ddl_columns.clone()
            }
            None => Vec::new(),
        };
        self.schema_generation += 1;
        self.state = State::Insert { need_tuple: true };
        Ok(())
    }

    /// Reads the column definitions of a `CREATE TABLE` up to its closing `)`.
    fn create_table(&mut self, table: String) -> Result<()> {
        let first_line = self.line_no;
        let mut columns = Vec::new();
        loop {
            if !self.read_fresh_line()? {
                return Err(Error::parse(
                    &self.path,
                    Position::Line(first_line),
                    format!("CREATE TABLE `{table}` is not closed before the end of the file"),
                ));
            }
            let line = self.buf.trim_ascii_start();
            if line.starts_with(b")") {
                break;
            }
            // Column lines start with the quoted name; keys and constraints do not.
            if line.starts_with(b"`")
                && let Some((name, _)) = backquoted(line)
            {
                columns.push(name);
            }
        }
        self.ddl_table = Some(table);
        self.ddl_columns = columns;
        Ok(())
    }

    /// Parses the tuple at `pos`, reading more lines if it continues past this one.
    fn tuple(&mut self) -> Result<()> {
        let start = self.pos;
        loop {
            match parse_tuple(&self.buf, start, &mut self.slots, &mut self.scratch) {
                Ok(end) => {
                    self.row_start = start;
                    self.pos = end;
                    return Ok(());
                }
                Err(TupleError::Bad(at, message)) => return Err(self.error_at(at, message)),
                Err(TupleError::NeedMore) => {
                    if self.buf.len() - start > MAX_TUPLE_BYTES {
                        return Err(self.error_at(
                            start,
                            format!(
                                "tuple longer than {} MB: unterminated string?",
                                MAX_TUPLE_BYTES >> 20
                            ),
                        ));
                    }
                    if !self.append_line()? {
                        return Err(self.error_at(start, "file ends inside this tuple"));
                    }
                }
            }
        }
    }

    fn error_at(&self, at: usize, message: impl std::fmt::Display) -> Error {
        Error::parse(
            &self.path,
            Position::Line(line_at(&self.buf, self.line_no, at)),
            format!("column {}: {message}", column_at(&self.buf, at)),
        )
    }
}

impl<'a> Row<'a> {
    /// Number of values in the tuple.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Value `i`, or `None` past the end of the tuple.
    pub fn get(&self, i: usize) -> Option<Field<'a>> {
        self.slots.get(i).map(|s| match *s {
            Slot::Null => Field::Null,
            Slot::Int(v) => Field::Int(v),
            Slot::Float(v) => Field::Float(v),
            Slot::Str(a, b) => Field::Str(&self.scratch[a..b]),
        })
    }

    /// Column names of the tuple's table (empty if the dump did not declare them).
    pub fn columns(&self) -> &'a [String] {
        self.columns
    }

    /// Line of the file where the tuple starts.
    pub fn line(&self) -> u64 {
        line_at(self.buf, self.first_line, self.start)
    }

    fn error(&self, column: usize, message: impl std::fmt::Display) -> Error {
        let name = self.columns.get(column).map_or("?", String::as_str);
        Error::parse(
            self.path,
            Position::Line(self.line()),
            format!(
                "column {}: `{}`.`{name}`: {message}",
                column_at(self.buf, self.start),
                self.table
            ),
        )
    }

    fn field(&self, column: usize) -> Result<Field<'a>> {
        self.get(column).ok_or_else(|| {
            self.error(
                column,
                format!(
                    "tuple has {} values but the table declares {} columns",
                    self.len(),
                    self.columns.len()
                ),
            )
        })
    }

    fn int(&self, column: usize) -> Result<i64> {
        match self.field(column)? {
            Field::Int(v) => Ok(v),
            other => Err(self.error(column, format!("expected an integer, found {other:?}"))),
        }
    }

    fn u64(&self, column: usize) -> Result<u64> {
        let v = self.int(column)?;
        u64::try_from(v).map_err(|_| self.error(column, format!("expected an id, found {v}")))
    }

    fn i32(&self, column: usize) -> Result<i32> {
        let v = self.int(column)?;
        i32::try_from(v).map_err(|_| self.error(column, format!("namespace {v} out of range")))
    }

    fn bytes(&self, column: usize) -> Result<&'a [u8]> {
        match self.field(column)? {
            Field::Str(s) => Ok(s),
            other => Err(self.error(column, format!("expected a string, found {other:?}"))),
        }
    }

    fn text(&self, column: usize) -> Result<&'a str> {
        let b = self.bytes(column)?;
        std::str::from_utf8(b).map_err(|e| {
            self.error(
                column,
                format!(
                    "invalid UTF-8 at byte {} of {:?}",
                    e.valid_up_to(),
                    String::from_utf8_lossy(b)
                ),
            )
        })
    }

    /// A title column, normalised (underscores to spaces, first letter upper-case).
    fn title(&self, column: usize) -> Result<String> {
        Ok(normalize(self.text(column)?))
    }
}

/// 1-based line number of offset `at` of a buffer whose first line is `first_line`.
fn line_at(buf: &[u8], first_line: u64, at: usize) -> u64 {
    let at = at.min(buf.len());
    first_line + memchr::memchr_iter(b'\n', &buf[..at]).count() as u64
}

/// 1-based byte column of offset `at` within its line.
fn column_at(buf: &[u8], at: usize) -> usize {
    let at = at.min(buf.len());
    at - memchr::memrchr(b'\n', &buf[..at]).map_or(0, |p| p + 1) + 1
}

/// Parses `(v, v, ..)` starting at `buf[start] == b'('`; returns the offset after `)`.
fn parse_tuple(
    buf: &[u8],
    start: usize,
    slots: &mut Vec<Slot>,
    scratch: &mut Vec<u8>,
) -> std::result::Result<usize, TupleError> {
    slots.clear();
    scratch.clear();
    let mut i = start + 1;
    loop {
        i += count_blanks(&buf[i..]);
        let Some(&c) = buf.get(i) else {
            return Err(TupleError::NeedMore);
        };
        i = match c {
            b'\'' => string(buf, i + 1, slots, scratch)?,
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                if c == b'0' && matches!(buf.get(i + 1), Some(b'x' | b'X')) {
                    hex(buf, i + 2, slots, scratch)?
                } else {
                    number(buf, i, slots)?
                }
            }
            b'N' | b'n' => {
                if buf.len() < i + 4 {
                    return Err(TupleError::NeedMore);
                }
                if !buf[i..i + 4].eq_ignore_ascii_case(b"NULL") {
                    return Err(bad_token(buf, i));
                }
                slots.push(Slot::Null);
                i + 4
            }
            b'_' => {
                // A charset introducer: `_binary 'x'`, `_utf8mb4 'x'`.
                let name_end = buf[i..]
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                    .map(|p| i + p)
                    .ok_or(TupleError::NeedMore)?;
                let q = name_end + count_blanks(&buf[name_end..]);
                match buf.get(q) {
                    Some(b'\'') => string(buf, q + 1, slots, scratch)?,
                    Some(_) => return Err(bad_token(buf, i)),
                    None => return Err(TupleError::NeedMore),
                }
            }
            _ => return Err(bad_token(buf, i)),
        };
        i += count_blanks(&buf[i..]);
        match buf.get(i) {
            Some(b',') => i += 1,
            Some(b')') => return Ok(i + 1),
            Some(&c) => {
                return Err(TupleError::Bad(
                    i,
                    format!("expected ',' or ')' after a value, found {}", show(c)),
                ));
            }
            None => return Err(TupleError::NeedMore),
        }
    }
}

/// Decodes a quoted string whose body starts at `i`; returns the offset after the closing quote.
fn string(
    buf: &[u8],
    mut i: usize,
    slots: &mut Vec<Slot>,
    scratch: &mut Vec<u8>,
) -> std::result::Result<usize, TupleError> {
    let from = scratch.len();
    loop {
        let Some(p) = memchr::memchr2(b'\'', b'\\', &buf[i..]) else {
            return Err(TupleError::NeedMore);
        };
        scratch.extend_from_slice(&buf[i..i + p]);
        i += p;
        if buf[i] == b'\\' {
            let Some(&e) = buf.get(i + 1) else {
                return Err(TupleError::NeedMore);
            };
            scratch.push(match e {
                b'0' => 0,
                b'b' => 8,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'Z' => 0x1a,
                other => other,
            });
            i += 2;
        } else if buf.get(i + 1) == Some(&b'\'') {
            scratch.push(b'\'');
            i += 2;
        } else {
            slots.push(Slot::Str(from, scratch.len()));
            return Ok(i + 1);
        }
    }
}

/// Decodes a `0x..` literal whose digits start at `i`.
fn hex(
    buf: &[u8],
    i: usize,
    slots: &mut Vec<Slot>,
    scratch: &mut Vec<u8>,
) -> std::result::Result<usize, TupleError> {
    let len = buf[i..]
        .iter()
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    if i + len == buf.len() {
        return Err(TupleError::NeedMore);
    }
    if len % 2 != 0 {
        return Err(TupleError::Bad(i - 2, "odd number of hex digits".into()));
    }
    let from = scratch.len();
    let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    scratch.extend(
        buf[i..i + len]
            .chunks_exact(2)
            .map(|p| digit(p[0]) << 4 | digit(p[1])),
    );
    slots.push(Slot::Str(from, scratch.len()));
    Ok(i + len)
}

/// Parses an integer or a float starting at `i`.
fn number(buf: &[u8], i: usize, slots: &mut Vec<Slot>) -> std::result::Result<usize, TupleError> {
    // Fast path for the ids and namespaces that make up most of a link dump: up to 18 digits
    // cannot overflow an i64.
    let digits = buf[i..]
        .iter()
        .take(19)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if (1..=18).contains(&digits)
        && let Some(&next) = buf.get(i + digits)
        && matches!(next, b',' | b')' | b' ')
    {
        let value = buf[i..i + digits]
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        slots.push(Slot::Int(value));
        return Ok(i + digits);
    }
    let len = buf[i..]
        .iter()
        .take_while(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .count();
    if i + len == buf.len() {
        return Err(TupleError::NeedMore);
    }
    let token = &buf[i..i + len];
    let is_float = token.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
    // The token is ASCII by construction.
    let text = std::str::from_utf8(token).unwrap_or_default();
    let slot = if is_float {
        text.parse().ok().map(Slot::Float)
    } else {
        text.parse().ok().map(Slot::Int)
    };
    match slot {
        Some(s) => {
            slots.push(s);
            Ok(i + len)
        }
        None => Err(TupleError::Bad(i, format!("bad number {text:?}"))),
    }
}

fn bad_token(buf: &[u8], i: usize) -> TupleError {
    let end = (i + 20).min(buf.len());
    TupleError::Bad(
        i,
        format!(
            "expected a value, found {:?}",
            String::from_utf8_lossy(&buf[i..end])
        ),
    )
}

fn show(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else {
        format!("byte 0x{c:02x}")
    }
}

fn count_blanks(s: &[u8]) -> usize {
    s.iter().take_while(|b| b.is_ascii_whitespace()).count()
}

fn strip_prefix_ci<'a>(s: &'a [u8], prefix: &[u8]) -> Option<&'a [u8]> {
    (s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix))
        .then(|| &s[prefix.len()..])
}

/// The name in a leading `` `name` `` and what follows it.
fn backquoted(s: &[u8]) -> Option<(String, &[u8])> {
    let s = s.strip_prefix(b"`")?;
    let end = memchr::memchr(b'`', s)?;
    Some((
        String::from_utf8_lossy(&s[..end]).into_owned(),
        &s[end + 1..],
    ))
}

/// A record type a typed reader builds from one tuple of its table.
pub trait SqlRecord: Sized {
    /// Column positions, found once per table layout.
    type Columns;
    /// Finds the columns this record needs by name.
    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String>;
    /// Builds the record; `Ok(None)` skips a row that does not describe one.
    fn build(row: &Row<'_>, columns: &Self::Columns) -> Result<Option<Self>>;
}

/// An iterator of typed records over a dump; stops after the first error.
pub struct Records<T: SqlRecord> {
    reader: SqlReader,
    columns: Option<(u64, T::Columns)>,
    _record: PhantomData<fn() -> T>,
}

impl<T: SqlRecord> Records<T> {
    /// See [`SqlReader::completed`].
    pub fn completed(&self) -> bool {
        self.reader.completed()
    }

    pub fn new(reader: SqlReader) -> Self {
        Records {
            reader,
            columns: None,
            _record: PhantomData,
        }
    }

    fn next_record(&mut self) -> Result<Option<T>> {
        loop {
            let Some(row) = self.reader.next_row()? else {
                return Ok(None);
            };
            let generation = row.generation;
            if self.columns.as_ref().map(|c| c.0) != Some(generation) {
                let resolved = if row.columns().is_empty() {
                    Err(format!(
                        "no CREATE TABLE for `{}` before its INSERT, so its columns are unknown",
                        row.table
                    ))
                } else {
                    T::columns(row.columns())
                };
                let resolved =
                    resolved.map_err(|m| Error::parse(row.path, Position::Line(row.line()), m))?;
                self.columns = Some((generation, resolved));
            }
            let Some((_, columns)) = &self.columns else {
                continue;
            };
            if let Some(record) = T::build(&row, columns)? {
                return Ok(Some(record));
            }
        }
    }
}

impl<T: SqlRecord> Iterator for Records<T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        self.next_record().transpose()
    }
}

/// Position of each named column, or an error naming the missing one and what there is.
fn find_columns<const N: usize>(
    names: &[String],
    wanted: [&str; N],
) -> std::result::Result<[usize; N], String> {
    let mut out = [0; N];
    for (slot, want) in out.iter_mut().zip(wanted) {
        *slot = find(names, want)
            .ok_or_else(|| format!("no column `{want}` (columns: {})", names.join(", ")))?;
    }
    Ok(out)
}

fn find(names: &[String], want: &str) -> Option<usize> {
    names.iter().position(|n| n == want)
}

/// A row of the `page` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRow {
    pub id: u64,
    pub ns: i32,
    /// Normalised title, without namespace prefix.
    pub title: String,
    pub is_redirect: bool,
    /// Length of the current revision in bytes.
    pub len: u64,
}

impl SqlRecord for PageRow {
    type Columns = [usize; 5];

    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String> {
        find_columns(
            names,
            [
                "page_id",
                "page_namespace",
                "page_title",
                "page_is_redirect",
                "page_len",
            ],
        )
    }

    fn build(row: &Row<'_>, c: &Self::Columns) -> Result<Option<Self>> {
        Ok(Some(PageRow {
            id: row.u64(c[0])?,
            ns: row.i32(c[1])?,
            title: row.title(c[2])?,
            is_redirect: row.int(c[3])? != 0,
            len: row.u64(c[4])?,
        }))
    }
}

/// A row of the `redirect` table: page `from` redirects to `title` in namespace `ns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectRow {
    pub from: u64,
    pub ns: i32,
    /// Normalised target title (no fragment: `rd_fragment` is a separate column).
    pub title: String,
}

impl SqlRecord for RedirectRow {
    /// `rd_from`, `rd_namespace`, `rd_title`, and `rd_interwiki` where the layout has it.
    type Columns = ([usize; 3], Option<usize>);

    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String> {
        Ok((
            find_columns(names, ["rd_from", "rd_namespace", "rd_title"])?,
            find(names, "rd_interwiki"),
        ))
    }

    /// Redirects to another wiki (non-empty `rd_interwiki`) are skipped: they name no page here.
    fn build(row: &Row<'_>, (c, interwiki): &Self::Columns) -> Result<Option<Self>> {
        if let Some(i) = *interwiki
            && let Field::Str(s) = row.field(i)?
            && !s.is_empty()
        {
            return Ok(None);
        }
        Ok(Some(RedirectRow {
            from: row.u64(c[0])?,
            ns: row.i32(c[1])?,
            title: row.title(c[2])?,
        }))
    }
}

/// A row of the `linktarget` table (MediaWiki 1.38+): the target that `pl_target_id` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkTargetRow {
    pub id: u64,
    pub ns: i32,
    /// Normalised title.
    pub title: String,
}

impl SqlRecord for LinkTargetRow {
    type Columns = [usize; 3];

    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String> {
        find_columns(names, ["lt_id", "lt_namespace", "lt_title"])
    }

    fn build(row: &Row<'_>, c: &Self::Columns) -> Result<Option<Self>> {
        Ok(Some(LinkTargetRow {
            id: row.u64(c[0])?,
            ns: row.i32(c[1])?,
            title: row.title(c[2])?,
        }))
    }
}

/// Where a link points: a `linktarget` id in the current layout, a title in the old one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LinkTarget {
    Id(u64),
    Title { ns: i32, title: String },
}

impl LinkTarget {
    /// The namespace and title, looking ids up in a `linktarget` map (as built from
    /// [`read_linktargets`]); `None` for an id the map lacks.
    pub fn resolve<'a>(
        &'a self,
        targets: &'a HashMap<u64, (i32, String)>,
    ) -> Option<(i32, &'a str)> {
        match self {
            LinkTarget::Id(id) => targets.get(id).map(|(ns, t)| (*ns, t.as_str())),
            LinkTarget::Title { ns, title } => Some((*ns, title.as_str())),
        }
    }
}

/// A row of the `pagelinks` table: page `from` (in namespace `from_ns`) links to `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLinkRow {
    pub from: u64,
    pub from_ns: i32,
    pub target: LinkTarget,
}

/// Column positions of the two `pagelinks` layouts.
#[derive(Debug, Clone, Copy)]
pub enum PageLinkColumns {
    /// `pl_from, pl_from_namespace, pl_target_id` (2024 on).
    TargetId {
        from: usize,
        from_ns: usize,
        target: usize,
    },
    /// `pl_from, pl_namespace, pl_title, pl_from_namespace` (2014–2024).
    Title {
        from: usize,
        from_ns: usize,
        ns: usize,
        title: usize,
    },
}

impl SqlRecord for PageLinkRow {
    type Columns = PageLinkColumns;

    /// Dumps before 2014 have no `pl_from_namespace`; they are refused with that reason rather
    /// than guessed, since the source namespace decides which links count.
    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String> {
        if find(names, "pl_target_id").is_some() {
            let [from, from_ns, target] =
                find_columns(names, ["pl_from", "pl_from_namespace", "pl_target_id"])?;
            Ok(PageLinkColumns::TargetId {
                from,
                from_ns,
                target,
            })
        } else {
            let [from, from_ns, ns, title] = find_columns(
                names,
                ["pl_from", "pl_from_namespace", "pl_namespace", "pl_title"],
            )?;
            Ok(PageLinkColumns::Title {
                from,
                from_ns,
                ns,
                title,
            })
        }
    }

    fn build(row: &Row<'_>, c: &Self::Columns) -> Result<Option<Self>> {
        Ok(Some(match *c {
            PageLinkColumns::TargetId {
                from,
                from_ns,
                target,
            } => PageLinkRow {
                from: row.u64(from)?,
                from_ns: row.i32(from_ns)?,
                target: LinkTarget::Id(row.u64(target)?),
            },
            PageLinkColumns::Title {
                from,
                from_ns,
                ns,
                title,
            } => PageLinkRow {
                from: row.u64(from)?,
                from_ns: row.i32(from_ns)?,
                target: LinkTarget::Title {
                    ns: row.i32(ns)?,
                    title: row.title(title)?,
                },
            },
        }))
    }
}

/// A row of the `page_props` table: page `page` has property `name` with value `value`.
///
/// Wikimedia's `page_props` dump holds every property of every page (`wikibase_item`,
/// `page_image_free`, `defaultsort`, …): for enwiki some 30 million rows, of which about 1 % say
/// `disambiguation`. [`read_disambiguations`] reads only those, without decoding the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PagePropRow {
    pub page: u64,
    /// `pp_propname`: `disambiguation`, `wikibase_item`, `displaytitle`, …
    pub name: String,
    /// `pp_value` (a `blob`), decoded as UTF-8 with invalid bytes replaced: the values are
    /// free-form (a Wikidata id, a sort key, a serialized number), not titles.
    pub value: String,
}

impl SqlRecord for PagePropRow {
    type Columns = [usize; 3];

    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String> {
        find_columns(names, ["pp_page", "pp_propname", "pp_value"])
    }

    fn build(row: &Row<'_>, c: &Self::Columns) -> Result<Option<Self>> {
        Ok(Some(PagePropRow {
            page: row.u64(c[0])?,
            name: row.text(c[1])?.to_string(),
            value: String::from_utf8_lossy(row.bytes(c[2])?).into_owned(),
        }))
    }
}

/// The property that marks a disambiguation page (set by the Disambiguator extension's
/// `__DISAMBIG__`, which every disambiguation template of every Wikipedia emits).
pub const DISAMBIGUATION_PROP: &[u8] = b"disambiguation";

/// A page that `page_props` marks as a disambiguation page: the `pp_page` of a row whose
/// `pp_propname` is [`DISAMBIGUATION_PROP`]. Other rows are skipped without decoding their
/// name as text or copying their value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disambiguation(pub u64);

impl SqlRecord for Disambiguation {
    /// `pp_page`, `pp_propname`; `pp_value` is looked for too, so that a table of another
    /// layout is refused rather than read wrong.
    type Columns = [usize; 3];

    fn columns(names: &[String]) -> std::result::Result<Self::Columns, String> {
        PagePropRow::columns(names)
    }

    fn build(row: &Row<'_>, c: &Self::Columns) -> Result<Option<Self>> {
        if row.bytes(c[1])? != DISAMBIGUATION_PROP {
            return Ok(None);
        }
        Ok(Some(Disambiguation(row.u64(c[0])?)))
    }
}

/// Rows of a `page` dump (`*-page.sql.gz`).
pub fn read_pages(path: &Path, progress: &Progress) -> Result<Records<PageRow>> {
    Ok(Records::new(SqlReader::open(path, progress)?))
}

/// Rows of a `redirect` dump (`*-redirect.sql.gz`), interwiki redirects left out.
pub fn read_redirects(path: &Path, progress: &Progress) -> Result<Records<RedirectRow>> {
    Ok(Records::new(SqlReader::open(path, progress)?))
}

/// Rows of a `linktarget` dump (`*-linktarget.sql.gz`).
pub fn read_linktargets(path: &Path, progress: &Progress) -> Result<Records<LinkTargetRow>> {
    Ok(Records::new(SqlReader::open(path, progress)?))
}

/// Rows of a `pagelinks` dump (`*-pagelinks.sql.gz`), in either layout.
pub fn read_pagelinks(path: &Path, progress: &Progress) -> Result<Records<PageLinkRow>> {
    Ok(Records::new(SqlReader::open(path, progress)?))
}

/// Every row of a `page_props` dump (`*-page_props.sql.gz`).
pub fn read_page_props(path: &Path, progress: &Progress) -> Result<Records<PagePropRow>> {
    Ok(Records::new(SqlReader::open(path, progress)?))
}

/// The disambiguation pages of a `page_props` dump, in file order: the only rows of that table
/// clue-db uses. Streams like every reader here: the other properties are parsed and dropped.
pub fn read_disambiguations(path: &Path, progress: &Progress) -> Result<Records<Disambiguation>> {
    Ok(Records::new(SqlReader::open(path, progress)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(text: &str) -> SqlReader {
        SqlReader::from_reader(
            "mem.sql",
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
        )
    }

    fn all(text: &str) -> Result<Vec<Vec<String>>> {
        let mut r = reader(text);
        let mut out = Vec::new();
        while let Some(row) = r.next_row()? {
            out.push(
                (0..row.len())
                    .map(|i| match row.get(i) {
                        Some(Field::Str(s)) => format!("s:{}", String::from_utf8_lossy(s)),
                        other => format!("{other:?}"),
                    })
                    .collect(),
            );
        }
        Ok(out)
    }

    #[test]
    fn values_and_escapes() {
        let rows = all(
            "INSERT INTO `t` VALUES (1,-2,NULL,'a\\'b\\\\c\\\"d\\n\\r\\0\\Z\\t\\x',1.5e3,'it''s'),\
             (0x4142,_binary 'z',null,'');\n",
        )
        .unwrap();
        assert_eq!(
            rows,
            vec![
                vec![
                    "Some(Int(1))",
                    "Some(Int(-2))",
                    "Some(Null)",
                    "s:a'b\\c\"d\n\r\0\u{1a}\tx",
                    "Some(Float(1500.0))",
                    "s:it's",
                ],
                vec!["s:AB", "s:z", "Some(Null)", "s:"],
            ]
        );
    }

    #[test]
    fn tuples_across_lines_and_statements() {
        let text = "CREATE TABLE `t` (\n  `a` int,\n  `b` varbinary(3),\n  PRIMARY KEY (`a`)\n);\n\
                    INSERT INTO `t` VALUES (1,'x'),\n(2,'y')\n,\n(3,\n'z');\nINSERT INTO `t` VALUES (4,'w');\n";
        let mut r = reader(text);
        let mut lines = Vec::new();
        while let Some(row) = r.next_row().unwrap() {
            assert_eq!(row.columns(), ["a", "b"]);
            lines.push(row.line());
        }
        assert_eq!(lines, [6, 7, 9, 11]);
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = all("-- x\nINSERT INTO `t` VALUES (1,2),(3,abc);\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "mem.sql: line 2: column 33: expected a value, found \"abc);\\n\""
        );
        let err = all("INSERT INTO `t` VALUES (1,'open\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("mem.sql: line 1: column 24: file ends inside"),
            "{err}"
        );
        let err = all("INSERT INTO `t` VALUES (1,2) (3,4);\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("expected ',' or ';' after a tuple"),
            "{err}"
        );
        let err = all("INSERT INTO `t` VALUES (1,2),").unwrap_err();
        assert!(err.to_string().contains("tuple was expected"), "{err}");
        let err = all("INSERT INTO `t` VALUES (99999999999999999999);").unwrap_err();
        assert!(err.to_string().contains("bad number"), "{err}");
    }

    #[test]
    fn page_props_by_column_name_and_only_disambiguations() {
        // MediaWiki's columns, in an order of another version: found by name.
        let text = "CREATE TABLE `page_props` (\n  `pp_propname` varbinary(60) NOT NULL,\n  \
                    `pp_page` int(10) unsigned NOT NULL,\n  `pp_sortkey` float DEFAULT NULL,\n  \
                    `pp_value` blob NOT NULL,\n  PRIMARY KEY (`pp_page`,`pp_propname`)\n);\n\
                    INSERT INTO `page_props` VALUES ('disambiguation',3,NULL,''),\
                    ('wikibase_item',3,NULL,'Q1'),('page_image_free',4,NULL,_binary '\\xff'),\
                    ('disambiguation',9,NULL,'');\n";
        let props: Vec<PagePropRow> = Records::new(reader(text)).collect::<Result<_>>().unwrap();
        assert_eq!(props.len(), 4);
        assert_eq!(
            props[1],
            PagePropRow {
                page: 3,
                name: "wikibase_item".into(),
                value: "Q1".into()
            }
        );
        let pages: Vec<u64> = Records::<Disambiguation>::new(reader(text))
            .map(|d| d.map(|d| d.0))
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(pages, [3, 9]);
        let err = Records::<Disambiguation>::new(reader(
            "CREATE TABLE `page_props` (\n  `pp_page` int,\n  `pp_name` varbinary(60)\n);\n\
             INSERT INTO `page_props` VALUES (1,'disambiguation');\n",
        ))
        .next()
        .unwrap()
        .unwrap_err();
        assert!(err.to_string().contains("no column `pp_propname`"), "{err}");
    }

    #[test]
    fn stops_after_an_error() {
        let mut r = reader("INSERT INTO `t` VALUES (x),(1);\n");
        assert!(r.next_row().is_err());
        assert!(r.next_row().unwrap().is_none());
    }
}
