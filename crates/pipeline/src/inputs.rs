//! The hand-kept inputs in `pipeline/`: the card words, term-page supplements and synonyms.
//!
//! Formats (UTF-8, one entry per line, `#` starts a comment line, blank lines ignored):
//! - `terms.txt`: one card word per line, any case (stored lower-case).
//! - `term_pages.tsv`: `term<TAB>page title`, a page to count as the term's own.
//! - `synonyms.tsv`: `term<TAB>synonym`, a word that stands for the term when counting.

use anyhow::{Context, Result, bail};
use std::io::{BufReader, Read};
use std::path::Path;
use wiki::limits::show;

/// Largest hand-kept input file: 16 MiB (the English card list is 3 KB). `--terms` names any
/// file, `/dev/zero` included: past this it is not a list of words.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;
/// Longest line of a hand-kept input: 4 KiB (a card word and a page title, at most 1 KiB).
pub const MAX_LINE_BYTES: u64 = 4 << 10;

/// The entries of an input file: `(line number, trimmed line)`, comments and blank lines left
/// out. A line past [`MAX_LINE_BYTES`] or a file past [`MAX_INPUT_BYTES`] is an error naming
/// the file and the cap, read no further (never held in memory whole).
fn lines(path: &Path) -> Result<Vec<(usize, String)>> {
    let reading = || format!("reading {}", path.display());
    let file = std::fs::File::open(path).with_context(reading)?;
    let mut input = BufReader::new(file.take(MAX_INPUT_BYTES + 1));
    let (mut out, mut buf, mut read) = (Vec::new(), Vec::new(), 0u64);
    for n in 1.. {
        buf.clear();
        let Some(got) = wiki::io::read_line_capped(&mut input, &mut buf, MAX_LINE_BYTES)
            .with_context(reading)?
        else {
            bail!(
                "{}: line {n} is longer than {}: not a list of words (one card a line)",
                path.display(),
                show(MAX_LINE_BYTES)
            );
        };
        read += got as u64;
        if read > MAX_INPUT_BYTES {
            bail!(
                "{}: larger than {}: not a list of words (one card a line)",
                path.display(),
                show(MAX_INPUT_BYTES)
            );
        }
        if got == 0 {
            break;
        }
        let line = std::str::from_utf8(&buf)
            .with_context(|| format!("{}: line {n} is not UTF-8", path.display()))?
            .trim();
        if !line.is_empty() && !line.starts_with('#') {
            out.push((n, line.to_string()));
        }
    }
    Ok(out)
}

/// The card words in their normal form ([`text::card_word`]: a hyphen is a space, as a board's
/// words are read; Deep Undercover's `G-SPOT` was stored as `g-spot`, which a board asked for
/// as `g spot` and never found), in file order, without duplicates.
pub fn read_terms(path: &Path) -> Result<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (n, l) in lines(path)? {
        // A line of hyphens alone is no card.
        let t = text::card_word(&l);
        // `ice,cream` was stored as a card no one can type (a board's lists split at commas).
        if t.contains(',') {
            bail!(
                "{}: line {n}: {l:?} holds a comma: one card a line",
                path.display()
            );
        }
        // So was a line of words a spreadsheet separates by tabs, one card of them all.
        if l.trim().contains('\t') {
            bail!(
                "{}: line {n}: {l:?} holds a tab: one card a line",
                path.display()
            );
        }
        if !t.is_empty() && seen.insert(t.clone()) {
            out.push(t);
        }
    }
    Ok(out)
}

/// Two-column tab-separated pairs; the first column is lower-cased.
pub fn read_pairs(path: &Path) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (n, l) in lines(path)? {
        let Some((a, b)) = l.split_once('\t') else {
            bail!(
                "{}: line {n}: expected two tab-separated columns, got {l:?}",
                path.display()
            );
        };
        let (a, b) = (a.trim(), b.trim());
        if a.is_empty() || b.is_empty() {
            bail!("{}: line {n}: empty column in {l:?}", path.display());
        }
        out.push((a.to_lowercase(), b.to_string()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_terms_and_pairs_and_names_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("terms.txt");
        std::fs::write(&t, "# cards\nAPPLE\n\nice  cream\napple\nG-SPOT\n - \n").unwrap();
        assert_eq!(
            read_terms(&t).unwrap(),
            vec!["apple", "ice cream", "g spot"]
        );
        let p = dir.path().join("p.tsv");
        std::fs::write(&p, "Conductor\tElectrical conductor\n").unwrap();
        assert_eq!(
            read_pairs(&p).unwrap(),
            vec![("conductor".into(), "Electrical conductor".into())]
        );
        std::fs::write(&p, "ok\tfine\nbroken line\n").unwrap();
        let e = read_pairs(&p).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        std::fs::write(&t, "apple\nice,cream\n").unwrap();
        let e = read_terms(&t).unwrap_err().to_string();
        assert!(e.contains("line 2: \"ice,cream\" holds a comma"), "{e}");
        // A tab at a line's end is space around the card; between words, a row of cards.
        std::fs::write(&t, "apple\t\nice\tcream\n").unwrap();
        let e = read_terms(&t).unwrap_err().to_string();
        assert!(e.contains("line 2: \"ice\\tcream\" holds a tab"), "{e}");
    }

    /// Issue 22, item 11: `--terms /dev/zero` read 2.1 GB before it ran out of memory. An
    /// endless line stops at the line cap, a file of many lines at the size cap, each naming
    /// the file and the cap.
    #[test]
    fn inputs_past_their_caps_are_errors_naming_the_file() {
        let e = format!("{:#}", read_terms(Path::new("/dev/zero")).unwrap_err());
        assert!(
            e.contains("/dev/zero") && e.contains("line 1") && e.contains("4 KiB"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("synonyms.tsv");
        let line = "apple\tfruit\n";
        let lines = (MAX_INPUT_BYTES as usize) / line.len() + 1;
        std::fs::write(&big, line.repeat(lines)).unwrap();
        let e = format!("{:#}", read_pairs(&big).unwrap_err());
        assert!(e.contains("synonyms.tsv") && e.contains("16 MiB"), "{e}");
        // A line at the cap, and a file just under its cap, are read.
        let long = dir.path().join("terms.txt");
        let word = "a".repeat(MAX_LINE_BYTES as usize - 1);
        std::fs::write(&long, format!("{word}\n")).unwrap();
        assert_eq!(read_terms(&long).unwrap(), [word]);
    }
}
