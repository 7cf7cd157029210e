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
