//! Standard output for every command. `println!` panics when the reader has gone
//! (`clue-db eval | head -1`); commands write through [`stdout`] instead, which reports a closed
//! pipe as a [`StdoutClosed`] error, and `main` ends on it quietly with success: the reader
//! asked for no more, so nothing failed.

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
        self.0.write(buf).map_err(mark)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(mark)
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
