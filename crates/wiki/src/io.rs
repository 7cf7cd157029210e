//! Opening inputs: compression chosen by file name, and a byte counter for progress bars.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts the bytes read through it (compressed bytes, when placed under a decoder), so a
/// progress bar can show how far through the file a stream is without the reader's help.
pub struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R> Counting<R> {
    pub fn new(inner: R, count: Arc<AtomicU64>) -> Self {
        Counting { inner, count }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The compression a path's name says it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Xz,
}

impl Compression {
    pub fn of(path: &Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some("gz") => Compression::Gzip,
            Some("bz2") => Compression::Bzip2,
            Some("xz") => Compression::Xz,
            _ => Compression::None,
        }
    }
}

/// Shared counters a reader bumps as it goes, read by a progress bar or a benchmark.
/// Cloning shares the counters.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// Bytes read from disk (compressed, for a compressed file).
    pub disk_bytes: Arc<AtomicU64>,
    /// Bytes after decompression: the size of the text actually parsed.
    pub decoded_bytes: Arc<AtomicU64>,
}

impl Progress {
    pub fn disk(&self) -> u64 {
        self.disk_bytes.load(Ordering::Relaxed)
    }
    pub fn decoded(&self) -> u64 {
        self.decoded_bytes.load(Ordering::Relaxed)
    }
}

/// Opens `path` for streaming, decompressing by extension (`.gz`, `.bz2`, `.xz`; every stream of
/// a multi-stream file), and counts disk and decoded bytes into `progress`.
pub fn open(path: &Path, progress: &Progress) -> crate::Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).map_err(|e| crate::Error::io(path, e))?;
    let raw = BufReader::with_capacity(1 << 16, Counting::new(file, progress.disk_bytes.clone()));
    let decoded: Box<dyn Read + Send> = match Compression::of(path) {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(raw)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(raw)),
        Compression::Xz => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(raw)),
    };
    Ok(Box::new(BufReader::with_capacity(
        1 << 16,
        Counting::new(decoded, progress.decoded_bytes.clone()),
    )))
}

/// A buffered reader that fails once more than `cap` bytes have been consumed since the last
/// [`Budget::reset`]. The XML reader resets it at every page boundary, so one page (whose text
/// quick-xml buffers whole) can never hold more than the cap in memory, whatever a small
/// compressed file expands to.
pub struct Budget<R> {
    inner: R,
    used: u64,
    cap: u64,
    exceeded: bool,
}

impl<R> Budget<R> {
    pub fn new(inner: R, cap: u64) -> Self {
        Budget {
            inner,
            used: 0,
            cap,
            exceeded: false,
        }
    }

    /// Starts counting again from zero (at a page boundary).
    pub fn reset(&mut self) {
        self.used = 0;
    }

    /// Whether a read failed because the cap was passed.
    pub fn exceeded(&self) -> bool {
        self.exceeded
    }

    fn check(&mut self) -> std::io::Result<()> {
        if self.used > self.cap {
            self.exceeded = true;
            return Err(std::io::Error::other(format!(
                "more than {} since the last page boundary",
                crate::limits::show(self.cap)
            )));
        }
        Ok(())
    }
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.check()?;
        let n = self.inner.read(buf)?;
        self.used += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Budget<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.check()?;
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.used += amt as u64;
        self.inner.consume(amt);
    }
}

/// Reads one line (up to and including `\n`) onto `buf`, but never lets `buf` grow past `cap`
/// bytes: returns `Ok(None)` when the line would pass it, so the caller can name the line and
/// the cap instead of buffering a gigabyte-long line of a decompression bomb. `Ok(Some(0))` at
/// the end of the input.
pub fn read_line_capped(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: u64,
) -> std::io::Result<Option<usize>> {
    let room = cap.saturating_sub(buf.len() as u64);
    let n = input.take(room + 1).read_until(b'\n', buf)?;
    if buf.len() as u64 > cap {
        return Ok(None);
    }
    Ok(Some(n))
}
