//! Prints each sentence of the given text files as its tokens separated by spaces, one per
//! line: the input for comparing the tagger with the Python package (see `data/README.md`).
//!
//! `cargo run -p text --example sentences -- FILE...`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
        let tokens = text::tokenize(&text);
        for sentence in text::split_sentences(&text, &tokens) {
            let words: Vec<&str> = tokens[sentence.tokens]
                .iter()
                .map(|t| t.text(&text))
                .collect();
            writeln!(out, "{}", words.join(" "))?;
        }
    }
    Ok(())
}
