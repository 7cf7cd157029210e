//! Standard output for every command. `println!` panics when the reader has gone
//! (`clue-db eval | head -1`); commands write through [`stdout`] instead, which reports a closed
//! pipe as a [`StdoutClosed`] error, and `main` ends on it quietly with success: the reader
//! asked for no more, so nothing failed.
//!
//! Everything written through [`stdout`], and every error `main` prints (through [`escape`]),
//! has its control characters escaped (`\u{1b}`) but newline and tab: a page's text or title
//! from a hostile corpus (or a database written before ingest stripped them) cannot send a
//! terminal escape sequence.

use std::borrow::Cow;
use std::io::{self, Write};

/// What a write to a closed standard output fails with (inside an `io::Error` of kind
/// `BrokenPipe`), so `main` can tell it from a broken pipe elsewhere, e.g. a network socket.
#[derive(Debug)]
pub struct StdoutClosed;

impl std::fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// Locked standard output whose broken-pipe errors are [`StdoutClosed`].
pub struct Stdout(io::StdoutLock<'static>);

/// Standard output for a command to write to with `writeln!(out, …)?`.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

fn mark(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, StdoutClosed)
    } else {
        e
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        write_escaped(&mut self.0, buf).map_err(mark)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(mark)
    }
}

/// Whether the byte at `i` starts a control character other than newline and tab: C0 and DEL
/// are one byte; C1 (U+0080 to U+009F, such as the one-byte CSI U+009B) is `C2 80`..`C2 9F`.
fn control_at(buf: &[u8], i: usize) -> Option<usize> {
    match buf[i] {
        b'\n' | b'\t' => None,
        0x00..=0x1f | 0x7f => Some(1),
        0xc2 if matches!(buf.get(i + 1), Some(0x80..=0x9f)) => Some(2),
        _ => None,
    }
}

/// Writes `buf` to `w` with control characters escaped as `\u{..}`; reports all of `buf`
/// written once it is, so a caller's `write_all` never splits an escape.
fn write_escaped(w: &mut impl Write, buf: &[u8]) -> io::Result<usize> {
    if !(0..buf.len()).any(|i| control_at(buf, i).is_some()) {
        return w.write(buf);
    }
    let mut out = Vec::with_capacity(buf.len() + 16);
    let mut i = 0;
    while i < buf.len() {
        match control_at(buf, i) {
            Some(1) => {
                out.extend_from_slice(format!("\\u{{{:x}}}", buf[i]).as_bytes());
                i += 1;
            }
            Some(_) => {
                let c = u32::from(buf[i] & 0x1f) << 6 | u32::from(buf[i + 1] & 0x3f);
                out.extend_from_slice(format!("\\u{{{c:x}}}").as_bytes());
                i += 2;
            }
            None => {
                out.push(buf[i]);
                i += 1;
            }
        }
    }
    w.write_all(&out)?;
    Ok(buf.len())
}

/// `s` with control characters escaped as [`stdout`] escapes them, for what goes to standard
/// error (`main`'s error messages quote titles and words from the input).
pub fn escape(s: &str) -> Cow<'_, str> {
    let mut out = Vec::new();
    match write_escaped(&mut out, s.as_bytes()) {
        Ok(_) if out.len() != s.len() || out != s.as_bytes() => {
            Cow::Owned(String::from_utf8_lossy(&out).into_owned())
        }
        _ => Cow::Borrowed(s),
    }
}

/// Whether `e` is a write to a standard output nobody reads any more.
pub fn is_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .and_then(|e| e.get_ref())
            .is_some_and(|inner| inner.is::<StdoutClosed>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13, item 9: a terminal escape sequence, a bell, a NUL or a C1 control in what a
    /// command prints comes out escaped; text, newlines and tabs as they are.
    #[test]
    fn control_characters_are_escaped() {
        let mut out = Vec::new();
        let raw = "red \u{1b}[31mtext\u{7}\u{0} csi\u{9b}2J\ttab été\r\n";
        write!(Escaped(&mut out), "{raw}").unwrap();
        let printed = String::from_utf8(out).unwrap();
        assert_eq!(
            printed,
            "red \\u{1b}[31mtext\\u{7}\\u{0} csi\\u{9b}2J\ttab été\\u{d}\n"
        );
        assert_eq!(escape(raw), printed);
        assert!(matches!(escape("plain\ttext\n"), Cow::Borrowed(_)));
    }

    /// What [`Stdout`] does, over any writer.
    struct Escaped<'a>(&'a mut Vec<u8>);

    impl Write for Escaped<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            write_escaped(self.0, buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn only_our_broken_pipe_counts() {
        let ours = anyhow::Error::from(mark(io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(is_closed(&ours));
        assert!(is_closed(&ours.context("printing the report")));
        // A broken pipe elsewhere (a socket, a child's stdin) is a real failure.
        let other = anyhow::Error::from(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!is_closed(&other));
        let unrelated = anyhow::Error::from(mark(io::Error::from(io::ErrorKind::NotFound)));
        assert!(!is_closed(&unrelated));
    }
}
