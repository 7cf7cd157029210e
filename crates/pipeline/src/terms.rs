//! Stage `terms`: the card words of `pipeline/terms.txt` (and the other lists given), each list
//! kept by name in `word_lists`, and the synonyms of `pipeline/synonyms.tsv`.
//! Every listed word is kept; which of them the corpus covers is settled by the `term_pages`
//! stage. Rewriting the list re-derives coverage from the `term_pages` rows already stored, so
//! running this stage alone leaves covered terms covered (and their clues reachable).

use crate::{Config, inputs, progress, record};
use anyhow::Result;
use store::Build;

pub fn run(build: &Build, config: &Config) -> Result<()> {
    let files = if config.terms.is_empty() {
        vec![config.inputs.join("terms.txt")]
    } else {
        config.terms.clone()
    };
    let mut terms: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut lists: Vec<(String, Vec<String>)> = Vec::new();
    let mut read = std::collections::HashSet::new();
    // One card per word however it is spelt: a pack of `café` and `cafe` stored both, and dealt
    // them as two cards of one board. An English card is stored as its text writes it, without
    // accents (its vocabulary is the letters a to z: a stored `café` was counted 0 times, `cafe`
    // 99); another language keeps them (`text::Language::card_key`).
    let language = crate::language(build)?;
    for file in &files {
        // The same file named twice (`pipeline/terms.txt,./pipeline/terms.txt`) is one list.
        if !read.insert(file.canonicalize().unwrap_or_else(|_| file.clone())) {
            continue;
        }
        let listed: Vec<String> = inputs::read_terms(file)?
            .iter()
            .map(|t| language.card_key(t))
            .collect();
        if listed.is_empty() {
            anyhow::bail!("{}: no card word in this file", file.display());
        }
        let name = list_name(file, &config.inputs);
        if lists.iter().any(|(n, _)| *n == name) {
            anyhow::bail!(
                "{}: a second word list named {name:?} (lists are named by their files' stems): \
                 rename one",
                file.display()
            );
        }
        let mut once = std::collections::HashSet::new();
        let words: Vec<String> = listed
            .into_iter()
            .filter(|t| once.insert(t.clone()))
            .collect();
        terms.extend(words.iter().filter(|t| seen.insert(t.to_string())).cloned());
        lists.push((name, words));
    }
    let file = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(",");
    let synonyms_path = config.inputs.join("synonyms.tsv");
    let synonyms = if synonyms_path.exists() {
        inputs::read_pairs(&synonyms_path)?
    } else {
        Vec::new()
    };
    let pb = progress::bar((terms.len() + synonyms.len()) as u64, "entries");
    pb.set_prefix("terms");
    build.begin()?;
    build.clear(&["terms", "synonyms", "word_lists"])?;
    for t in &terms {
        build.insert_term(t)?;
        pb.inc(1);
    }
    for (name, words) in &lists {
        for (i, w) in words.iter().enumerate() {
            build.insert_list_word(name, i, w)?;
        }
    }
    for (t, s) in &synonyms {
        build.insert_synonym(t, &s.to_lowercase())?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    crate::shared::refresh_coverage(build)?;
    build.commit()?;
    record(
        build,
        "terms",
        &[
            ("listed", terms.len().to_string()),
            ("file", file),
            ("synonyms", synonyms.len().to_string()),
            (
                "lists",
                lists
                    .iter()
                    .map(|(n, w)| format!("{n}:{}", w.len()))
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        ],
    )
}

/// A word list's name in `word_lists`: `codenames` for the hand-kept `inputs/terms.txt` (the
/// original game's cards), else the file's stem (`duet`, `deep-undercover`, `my-pack`).
fn list_name(file: &std::path::Path, inputs: &std::path::Path) -> String {
    let default = inputs.join("terms.txt");
    let same = file == default
        || matches!(
            (file.canonicalize(), default.canonicalize()),
            (Ok(a), Ok(b)) if a == b
        );
    if same {
        return crate::WORD_LISTS[0].to_string();
    }
    file.file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_else(|| file.display().to_string())
}
