//! Stage `terms`: the card words of `pipeline/terms.txt` and the synonyms of `pipeline/synonyms.tsv`.
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
    for file in &files {
        let listed = inputs::read_terms(file)?;
        if listed.is_empty() {
            anyhow::bail!("{}: no card word in this file", file.display());
        }
        terms.extend(listed.into_iter().filter(|t| seen.insert(t.clone())));
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
    build.clear(&["terms", "synonyms"])?;
    for t in &terms {
        build.insert_term(t)?;
        pb.inc(1);
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
        ],
    )
}
