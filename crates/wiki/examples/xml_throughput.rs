//! Reads a MediaWiki XML dump and prints throughput: `xml_throughput FILE [INDEX] [--show TITLE]`.
//! With INDEX, reads FILE as a multistream dump. `--show TITLE` prints that page's plain text.

use std::path::Path;
use std::time::Instant;
use wiki::io::Progress;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show = args
        .iter()
        .position(|a| a == "--show")
        .and_then(|i| args.get(i + 1).cloned());
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| *a != "--show" && (*i == 0 || args[i - 1] != "--show"))
        .map(|(_, a)| a)
        .collect();
    let Some(file) = positional.first() else {
        return Err("usage: xml_throughput FILE [INDEX] [--show TITLE]".into());
    };
    let progress = Progress::default();
    let start = Instant::now();
    let pages: Box<dyn Iterator<Item = wiki::Result<wiki::Page>>> = match positional.get(1) {
        Some(index) => Box::new(wiki::xml::read_multistream(
            Path::new(file),
            Path::new(index),
            &progress,
        )?),
        None => Box::new(wiki::xml::read(Path::new(file), &progress)?),
    };
    let (mut n, mut links, mut text_bytes) = (0u64, 0usize, 0usize);
    for page in pages {
        let page = page?;
        n += 1;
        links += page.links.len();
        text_bytes += page.text.len();
        if show.as_deref() == Some(page.title.as_str()) {
            println!("{}\n---\nlinks: {:?}\n---", page.text, page.links);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = progress.decoded() as f64 / 1e6;
    println!(
        "{n} pages, {links} links, {:.1} MB XML -> {:.1} MB text in {secs:.3} s: {:.1} MB/s, {:.0} pages/s",
        mb,
        text_bytes as f64 / 1e6,
        mb / secs,
        n as f64 / secs
    );
    Ok(())
}
