//! Multistream dumps (`...-pages-articles-multistream.xml.bz2` with its index): the bz2 streams
//! between consecutive index offsets are read, decoded and parsed on several threads, and their
//! pages handed out in file order.
//!
//! Memory is bounded by a byte budget shared by all threads, not by their number (issue 22: 32
//! streams of 60 MiB each, decoded two per thread at once, took 3.44 GB at 16 threads). A thread
//! reserves a stream's compressed bytes before reading them and its decoded bytes a chunk at a
//! time while decoding, and about seven times its largest possible page while converting its
//! pages to text (the conversion's peak); the decoded bytes stay reserved, standing for the
//! stream's pages, until the reader has handed those pages out and moves on. A thread that would pass the budget waits,
//! except on the stream the reader waits for, which may always go on: threads take streams in
//! file order, so that stream is always being decoded (or done), and the reader never waits on
//! threads that wait on it. The reader so holds at most the budget, plus the stream it hands out
//! and the one it waits for (each under the caps of `crate::limits`).

use crate::io::{self, Progress};
use crate::limits::{
    MAX_DECODED_STREAM_BYTES, MAX_MULTISTREAM_BYTES, MAX_PAGE_BYTES, MAX_STREAM_BYTES,
};
use crate::{Error, Page, Position, Result};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// Decoded bytes reserved at a time while a stream decodes.
const CHUNK: u64 = 1 << 20;
/// Peak memory of converting a page to text, as a multiple of its XML (measured: about 6.5).
const CONVERSION_FACTOR: u64 = 7;

/// How many threads decode a multistream dump, and how many bytes they may hold at once.
#[derive(Debug, Clone, Copy)]
pub struct MultistreamOptions {
    /// Threads decoding streams (default: rayon's thread count, one per core).
    pub threads: usize,
    /// Bytes held at once (default [`MAX_MULTISTREAM_BYTES`]): see the module documentation.
    pub budget: u64,
}

impl Default for MultistreamOptions {
    fn default() -> Self {
        MultistreamOptions {
            threads: rayon::current_num_threads().max(1),
            budget: MAX_MULTISTREAM_BYTES,
        }
    }
}

/// Reads a multistream dump with its index (`...-multistream-index.txt` or `.txt.bz2`, lines
/// `offset:page_id:title`), with the default [`MultistreamOptions`]. The bytes before the first
/// offset (the `<siteinfo>` stream) and after the last (the final pages and `</mediawiki>`) are
/// read too, so no page is lost if the index is short.
pub fn read_multistream(
    path: &Path,
    index: &Path,
    progress: &Progress,
) -> Result<MultistreamPages> {
    read_multistream_with(path, index, progress, MultistreamOptions::default())
}

/// [`read_multistream`] with these threads and this budget.
pub fn read_multistream_with(
    path: &Path,
    index: &Path,
    progress: &Progress,
    options: MultistreamOptions,
) -> Result<MultistreamPages> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let index_reader = io::open(index, &Progress::default())?;
    let threads = options.threads.max(1);
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            offsets: IndexOffsets::new(index_reader, index.to_path_buf()),
            previous: 0,
            index_done: false,
            next_seq: 0,
            end: None,
            head: 0,
            held: 0,
            budget: options.budget,
            results: BTreeMap::new(),
            workers: threads,
            stop: false,
        }),
        changed: Condvar::new(),
        path: path.to_path_buf(),
        index: index.to_path_buf(),
        file,
        len,
        progress: progress.clone(),
    });
    for _ in 0..threads {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("multistream".into())
            .spawn(move || work(&shared))
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(MultistreamPages {
        shared,
        current: Vec::new().into_iter(),
        current_bytes: 0,
        done: false,
    })
}

/// What the threads and the reader share.
struct Shared {
    state: Mutex<State>,
    /// Signalled whenever bytes are released, a stream is done, the reader moves on, or it stops.
    changed: Condvar,
    path: PathBuf,
    index: PathBuf,
    file: File,
    len: u64,
    progress: Progress,
}

struct State {
    offsets: IndexOffsets,
    /// End of the last range handed to a thread.
    previous: u64,
    index_done: bool,
    /// The next stream's number (streams are numbered in file order from 0).
    next_seq: u64,
    /// The number after the last stream, once known (the index's end, or a stream that failed).
    end: Option<u64>,
    /// The stream the reader waits for.
    head: u64,
    /// Bytes reserved, and the most allowed (but for the head stream).
    held: u64,
    budget: u64,
    /// Streams decoded and not yet taken by the reader: their pages and the bytes they hold.
    results: BTreeMap<u64, (Vec<Result<Page>>, u64)>,
    /// Threads still running (a thread that panicked is counted out too).
    workers: usize,
    /// Set when the reader is dropped: threads stop.
    stop: bool,
}

impl State {
    /// The next `[start, end)` range of the dump, `None` after the last.
    fn next_range(&mut self, shared: &Shared) -> Result<Option<(u64, u64)>> {
        while !self.index_done {
            let end = match self.offsets.next_offset()? {
                Some(o) if o > shared.len => {
                    return Err(Error::parse(
                        &shared.index,
                        Position::Line(self.offsets.line),
                        format!(
                            "offset {o} is beyond the end of {} ({} bytes)",
                            shared.path.display(),
                            shared.len
                        ),
                    ));
                }
                Some(o) => o,
                None => {
                    self.index_done = true;
                    shared.len
                }
            };
            if end - self.previous > MAX_STREAM_BYTES {
                return Err(Error::parse(
                    &shared.path,
                    Position::Byte(self.previous),
                    format!(
                        "{} bytes until the next index offset: the index {} looks incomplete \
                         (read the dump with xml::read instead)",
                        end - self.previous,
                        shared.index.display()
                    ),
                ));
            }
            if end > self.previous {
                let range = (self.previous, end);
                self.previous = end;
                return Ok(Some(range));
            }
        }
        Ok(None)
    }

    /// Ends the streams at `seq`: none after it is taken or waited for.
    fn end_at(&mut self, seq: u64) {
        self.end = Some(self.end.map_or(seq, |e| e.min(seq)));
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A thread that panicked holding the lock left consistent counts: go on.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves `n` bytes for stream `seq`, waiting while they would pass the budget (unless
    /// `seq` is the stream the reader waits for). `false` once the reader is gone.
    fn reserve(&self, seq: u64, n: u64) -> bool {
        let mut st = self.lock();
        loop {
            if st.stop {
                return false;
            }
            if st.held + n <= st.budget || seq == st.head {
                st.held += n;
                return true;
            }
            st = self.changed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, n: u64) {
        if n > 0 {
            self.lock().held -= n;
            self.changed.notify_all();
        }
    }

    /// Hands stream `seq`'s pages (holding `bytes`) to the reader.
    fn deliver(&self, seq: u64, pages: Vec<Result<Page>>, bytes: u64) {
        let mut st = self.lock();
        if pages.iter().any(|p| p.is_err()) {
            st.end_at(seq + 1);
        }
        st.results.insert(seq, (pages, bytes));
        drop(st);
        self.changed.notify_all();
    }
}

/// Counts a thread out when it ends, however it ends.
struct Worker<'a>(&'a Shared);

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        self.0.lock().workers -= 1;
        self.0.changed.notify_all();
    }
}

/// One decoding thread: takes the next stream in file order until none is left or the reader
/// is gone.
fn work(shared: &Shared) {
    let _count = Worker(shared);
    loop {
        let (seq, range) = {
            let mut st = shared.lock();
            let seq = st.next_seq;
            if st.stop || st.end.is_some_and(|e| seq >= e) {
                return;
            }
            let range = st.next_range(shared);
            match range {
                Ok(None) => {
                    st.end_at(seq);
                    drop(st);
                    shared.changed.notify_all();
                    return;
                }
                Ok(Some(r)) => {
                    st.next_seq += 1;
                    (seq, Ok(r))
                }
                Err(e) => {
                    // The index is read no further: this stream is the last.
                    st.next_seq += 1;
                    st.end_at(seq + 1);
                    (seq, Err(e))
                }
            }
        };
        let outcome = match range {
            Ok((start, end)) => decode(shared, seq, start, end),
            Err(e) => Some((vec![Err(e)], 0)),
        };
        let Some((pages, bytes)) = outcome else {
            return; // the reader is gone
        };
        shared.deliver(seq, pages, bytes);
    }
}

/// Reads, decodes and parses stream `seq`, `[start, end)` of the file, under the budget.
/// Returns its pages (or the error ending them) and the bytes they hold; `None` once the reader
/// is gone.
fn decode(shared: &Shared, seq: u64, start: u64, end: u64) -> Option<(Vec<Result<Page>>, u64)> {
    let path = &shared.path;
    let size = end - start;
    if !shared.reserve(seq, size) {
        return None;
    }
    let mut bytes = vec![0u8; size as usize];
    if let Err(e) = shared.file.read_exact_at(&mut bytes, start) {
        shared.release(size);
        return Some((vec![Err(Error::io(path, e))], 0));
    }
    shared
        .progress
        .disk_bytes
        .fetch_add(size, Ordering::Relaxed);
    // A multi-stream decoder: the last range also holds the closing `</mediawiki>` stream, and
    // a range spans several streams where the index skips some.
    let mut decoder = bzip2::bufread::MultiBzDecoder::new(&bytes[..]);
    let mut xml: Vec<u8> = Vec::new();
    let mut reserved = 0u64;
    let failure = loop {
        if !shared.reserve(seq, CHUNK) {
            shared.release(size + reserved);
            return None;
        }
        reserved += CHUNK;
        xml.reserve_exact(CHUNK as usize);
        match (&mut decoder).take(CHUNK).read_to_end(&mut xml) {
            Err(e) => break Some(format!("bad bz2 stream starting here: {e}")),
            Ok(_) if xml.len() as u64 > MAX_DECODED_STREAM_BYTES => {
                break Some(format!(
                    "the bz2 stream starting here decodes to more than {} (cap \
                     wiki::limits::MAX_DECODED_STREAM_BYTES): a decompression bomb?",
                    crate::limits::show(MAX_DECODED_STREAM_BYTES)
                ));
            }
            Ok(n) if (n as u64) < CHUNK => break None,
            Ok(_) => {}
        }
    };
    drop(decoder);
    drop(bytes);
    if let Some(message) = failure {
        shared.release(size + reserved);
        return Some((
            vec![Err(Error::parse(path, Position::Byte(start), message))],
            0,
        ));
    }
    let decoded = xml.len() as u64;
    shared.release(size + reserved - decoded);
    shared
        .progress
        .decoded_bytes
        .fetch_add(decoded, Ordering::Relaxed);
    // Converting a page takes up to ~7 times its size at peak, per thread: reserved too.
    let converting = CONVERSION_FACTOR * decoded.min(MAX_PAGE_BYTES);
    if !shared.reserve(seq, converting) {
        shared.release(decoded);
        return None;
    }
    let pages = crate::xml::parse_stream(path, start, &xml);
    shared.release(converting);
    Some((pages, decoded))
}

/// The pages of a multistream dump, in file order. Yields at most one error, then stops.
/// Dropping it stops the decoding threads.
pub struct MultistreamPages {
    shared: Arc<Shared>,
    current: std::vec::IntoIter<Result<Page>>,
    /// Bytes held by the stream being handed out, released when the next is taken.
    current_bytes: u64,
    done: bool,
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
            let shared = self.shared.clone();
            let mut st = shared.lock();
            st.held -= std::mem::take(&mut self.current_bytes);
            loop {
                let head = st.head;
                if let Some((pages, bytes)) = st.results.remove(&head) {
                    st.head += 1;
                    self.current = pages.into_iter();
                    self.current_bytes = bytes;
                    break;
                }
                if st.end.is_some_and(|e| head >= e) {
                    self.done = true;
                    break;
                }
                if st.workers == 0 {
                    // The threads ended without the stream: never a silent short read.
                    self.done = true;
                    drop(st);
                    shared.changed.notify_all();
                    return Some(Err(Error::parse(
                        &shared.path,
                        Position::Unknown,
                        "the multistream decoding threads stopped unexpectedly",
                    )));
                }
                shared.changed.notify_all();
                st = shared.changed.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            drop(st);
            shared.changed.notify_all();
        }
    }
}

impl Drop for MultistreamPages {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
    }
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
