//! The hand-kept inputs in `pipeline/`: the card words, term-page supplements and synonyms.
//!
//! Formats (UTF-8, one entry per line, `#` starts a comment line, blank lines ignored):
//! - `terms.txt`: one card word per line, any case (stored lower-case).
//! - `term_pages.tsv`: `term<TAB>page title`, a page to count as the term's own.
//! - `synonyms.tsv`: `term<TAB>synonym`, a word that stands for the term when counting.

use anyhow::{Context, Result, bail};
use std::path::Path;

fn lines(path: &Path) -> Result<Vec<(usize, String)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect())
}

/// The card words, lower-case, in file order, without duplicates.
pub fn read_terms(path: &Path) -> Result<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (_, l) in lines(path)? {
        let t = l
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        if seen.insert(t.clone()) {
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
        std::fs::write(&t, "# cards\nAPPLE\n\nice  cream\napple\n").unwrap();
        assert_eq!(read_terms(&t).unwrap(), vec!["apple", "ice cream"]);
        let p = dir.path().join("p.tsv");
        std::fs::write(&p, "Conductor\tElectrical conductor\n").unwrap();
        assert_eq!(
            read_pairs(&p).unwrap(),
            vec![("conductor".into(), "Electrical conductor".into())]
        );
        std::fs::write(&p, "ok\tfine\nbroken line\n").unwrap();
        let e = read_pairs(&p).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }
}
