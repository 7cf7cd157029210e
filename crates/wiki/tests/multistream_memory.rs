//! Issue 22, item 11: the multistream reader's memory grew with its threads (a 240 KB file of
//! 32 streams of 60 MiB each: 830 MB at 2 threads, 3.44 GB at 16), since it decoded 2 × threads
//! streams at once whatever their size. The bytes it holds are now bounded by a budget, whatever
//! the thread count. Measured, not timed: the decoded bytes the reader counted ahead of the
//! pages handed out.

use std::io::Write;
use wiki::io::Progress;
use wiki::xml::MultistreamOptions;

/// Decoded size of each stream of the generated dump: one page and padding (under the page cap).
const STREAM: usize = 4 << 20;
const STREAMS: usize = 32;

/// A multistream dump of [`STREAMS`] bz2 streams, each a page and `STREAM` bytes in all (the
/// padding compresses to almost nothing), and its index.
fn bomb(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let mut dump = Vec::new();
    let mut index = String::new();
    for i in 0..STREAMS {
        let page = format!(
            "<page><title>P{i}</title><ns>0</ns><id>{}</id><revision><text>word</text></revision></page>",
            i + 1
        );
        let padding = " ".repeat(STREAM - page.len());
        index.push_str(&format!("{}:{}:P{i}\n", dump.len(), i + 1));
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        enc.write_all(page.as_bytes()).unwrap();
        enc.write_all(padding.as_bytes()).unwrap();
        dump.extend(enc.finish().unwrap());
    }
    let (d, i) = (dir.join("bomb.xml.bz2"), dir.join("bomb-index.txt"));
    std::fs::write(&d, dump).unwrap();
    std::fs::write(&i, index).unwrap();
    (d, i)
}

#[test]
fn decoded_bytes_held_stay_within_the_budget_at_16_threads() {
    let dir = tempfile::tempdir().unwrap();
    let (dump, index) = bomb(dir.path());
    let budget = 16u64 << 20;
    let progress = Progress::default();
    let options = MultistreamOptions {
        threads: 16,
        budget,
    };
    let pages = wiki::xml::read_multistream_with(&dump, &index, &progress, options).unwrap();
    let (mut seen, mut most_ahead) = (0u64, 0u64);
    for page in pages {
        let page = page.unwrap();
        // Page `id` is the first of stream `id - 1`: the streams before it are handed out.
        let handed = (page.id - 1) * STREAM as u64;
        most_ahead = most_ahead.max(progress.decoded().saturating_sub(handed));
        seen += 1;
        // Give the decoding threads time to run ahead as far as they may.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(seen, STREAMS as u64);
    eprintln!("at most {} MiB decoded ahead", most_ahead >> 20);
    // The budget, the stream handed out, and the one the reader waits for (which may always
    // go on).
    assert!(
        most_ahead <= budget + 2 * STREAM as u64,
        "{} MiB decoded ahead of the pages handed out, budget {} MiB",
        most_ahead >> 20,
        budget >> 20
    );
}
