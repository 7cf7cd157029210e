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

/// Opens `path` for streaming, decompressing by extension (`.gz`, `.bz2`, `.xz`; every stream of
/// a multi-stream file). `progress`, if given, counts the bytes read from disk.
pub fn open(path: &Path, progress: Option<Arc<AtomicU64>>) -> crate::Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).map_err(|e| crate::Error::io(path, e))?;
    let raw: Box<dyn Read + Send> = match progress {
        Some(c) => Box::new(Counting::new(file, c)),
        None => Box::new(file),
    };
    let raw = BufReader::with_capacity(1 << 16, raw);
    Ok(match Compression::of(path) {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            1 << 16,
            bzip2::bufread::MultiBzDecoder::new(raw),
        )),
        Compression::Xz => Box::new(BufReader::with_capacity(
            1 << 16,
            liblzma::bufread::XzDecoder::new_multi_decoder(raw),
        )),
    })
}
