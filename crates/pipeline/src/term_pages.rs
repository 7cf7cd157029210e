//! Stage `term_pages`: which pages speak of each card word.
//!
//! For a term `t` (matched case-insensitively against titles), in order of trust:
//! 1. `disambiguation`: outgoing links of `T (disambiguation)` (or of `T` when that page is itself a
//!    disambiguation page) whose title is `T` or `T (sense)`, after redirects;
//! 2. `exact`: the page titled `T`, after redirects, unless it is a disambiguation page;
//! 3. `sense`: every page titled `T (sense)`;
//! 4. `supplement`: the titles listed for `t` in `pipeline/term_pages.tsv`.
//!
//! `(disambiguation)` is English Wikipedia's qualifier. In a build of another language, every
//! page `T (…)` flagged as a disambiguation page (`Bank (Begriffsklärung)`, `Banque (homonymie)`)
//! is read as step 1's page: the flag (from `page_props` in a dump run) names them in any
//! language, and the qualifiers differ.
//!
//! A `(term, page)` keeps the first origin found. Every listed term is looked up, covered or
//! not before, so a new supplement takes effect on a re-run of this stage alone. Terms with no
//! page stay in `terms` with `covered = 0`; their list goes to `meta` (`term_pages.uncovered`).

use crate::{Config, inputs, progress, record};
use anyhow::Result;
use std::collections::HashMap;
use store::{Build, PageRow};

/// Main-namespace pages looked up by lower-cased title, redirects followed.
pub struct Titles {
    by_lower: HashMap<String, Vec<usize>>,
    /// Lower-cased titles of articles, sorted, for prefix look-ups.
    sorted: Vec<(String, usize)>,
    by_id: HashMap<u64, usize>,
    pages: Vec<PageRow>,
}

impl Titles {
    pub fn new(pages: Vec<PageRow>) -> Self {
        let mut by_lower: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_id = HashMap::new();
        for (i, p) in pages.iter().enumerate() {
            by_id.insert(p.id, i);
            if p.ns == 0 {
                by_lower.entry(p.title.to_lowercase()).or_default().push(i);
            }
        }
        let mut sorted: Vec<(String, usize)> = by_lower
            .iter()
            .flat_map(|(t, is)| is.iter().map(move |&i| (t.clone(), i)))
            .filter(|&(_, i)| pages[i].redirect_to.is_none())
            .collect();
        sorted.sort();
        Titles {
            by_lower,
            sorted,
            by_id,
            pages,
        }
    }

    /// Every page, in the order given.
    pub fn pages(&self) -> impl Iterator<Item = &PageRow> {
        self.pages.iter()
    }

    pub fn page(&self, id: u64) -> Option<&PageRow> {
        self.by_id.get(&id).map(|&i| &self.pages[i])
    }

    /// The page a title lands on: exact case preferred, one redirect followed, redirects to
    /// missing pages dropped.
    pub fn resolve(&self, title: &str) -> Option<&PageRow> {
        let cands = self.by_lower.get(&title.to_lowercase())?;
        let p = cands
            .iter()
            .map(|&i| &self.pages[i])
            .find(|p| p.title == title)
            .unwrap_or(&self.pages[cands[0]]);
        match &p.redirect_to {
            None => Some(p),
            Some(target) => self
                .by_lower
                .get(&target.to_lowercase())?
                .iter()
                .map(|&i| &self.pages[i])
                .find(|t| t.redirect_to.is_none()),
        }
    }

    /// Articles (not redirects) whose lower-cased title is `prefix` followed by anything.
    fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a PageRow> + 'a {
        let start = self.sorted.partition_point(|(t, _)| t.as_str() < prefix);
        self.sorted[start..]
            .iter()
            .take_while(move |(t, _)| t.starts_with(prefix))
            .map(|&(_, i)| &self.pages[i])
    }
}

/// Whether a lower-cased title is the term itself or `term (sense)`.
fn names_term(lower_title: &str, term: &str) -> bool {
    lower_title == term
        || (lower_title.starts_with(term)
            && lower_title[term.len()..].starts_with(" (")
            && lower_title.ends_with(')')
            && !lower_title.ends_with("(disambiguation)"))
}

/// The term pages of one term: `(page id, origin)`, first origin kept.
pub fn find(
    term: &str,
    titles: &Titles,
    out_links: &HashMap<u64, Vec<u64>>,
    supplements: &[String],
) -> Vec<(u64, &'static str)> {
    find_in(term, titles, out_links, supplements, false)
}

/// [`find`], where `any_qualifier` also reads every disambiguation page `T (…)` as the term's
/// (a wiki whose qualifier is not `(disambiguation)`).
pub fn find_in(
    term: &str,
    titles: &Titles,
    out_links: &HashMap<u64, Vec<u64>>,
    supplements: &[String],
    any_qualifier: bool,
) -> Vec<(u64, &'static str)> {
    let mut found: Vec<(u64, &'static str)> = Vec::new();
    let mut add = |id: u64, origin: &'static str| {
        if !found.iter().any(|(i, _)| *i == id) {
            found.push((id, origin));
        }
    };
    let dab_pages = [format!("{term} (disambiguation)"), term.to_string()];
    let qualified = format!("{term} (");
    let other_qualifiers = titles
        .with_prefix(&qualified)
        .filter(|_| any_qualifier)
        .filter(|p| p.title.ends_with(')'));
    for dab in dab_pages
        .iter()
        .filter_map(|t| titles.resolve(t))
        .chain(other_qualifiers)
        .filter(|p| p.is_disambiguation)
    {
        for dst in out_links.get(&dab.id).into_iter().flatten() {
            if let Some(p) = titles.page(*dst)
                && !p.is_disambiguation
                && names_term(&p.title.to_lowercase(), term)
            {
                add(p.id, "disambiguation");
            }
        }
    }
    if let Some(p) = titles.resolve(term).filter(|p| !p.is_disambiguation) {
        add(p.id, "exact");
    }
    let prefix = format!("{term} (");
    for p in titles.with_prefix(&prefix) {
        if !p.is_disambiguation && names_term(&p.title.to_lowercase(), term) {
            add(p.id, "sense");
        }
    }
    for s in supplements {
        if let Some(p) = titles.resolve(s) {
            add(p.id, "supplement");
        }
    }
    found
}

pub fn run(build: &Build, config: &Config) -> Result<()> {
    let reader = build.reader();
    let terms = reader.listed_terms()?;
    let titles = Titles::new(reader.pages()?);
    // Only disambiguation pages' links are read (find_in): theirs alone, from the graph.
    let graph = reader.link_graph()?;
    let out_links: HashMap<u64, Vec<u64>> = titles
        .pages()
        .filter(|p| p.is_disambiguation)
        .map(|p| (p.id, graph.out_links(p.id).collect::<Vec<u64>>()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    drop(graph);
    let supplements_path = config.inputs.join("term_pages.tsv");
    let mut supplements: HashMap<String, Vec<String>> = HashMap::new();
    if supplements_path.exists() {
        for (t, title) in inputs::read_pairs(&supplements_path)? {
            supplements.entry(t).or_default().push(title);
        }
    }
    let mut missing_supplements = Vec::new();
    for (t, list) in &supplements {
        for title in list {
            if titles.resolve(title).is_none() {
                // Not a tab: `clue-db info` prints `meta` as tab-separated lines.
                missing_supplements.push(format!("{t} -> {title}"));
            }
        }
    }
    missing_supplements.sort();
    let pb = progress::bar(terms.len() as u64, "terms");
    pb.set_prefix("term_pages");
    build.begin()?;
    build.clear(&["term_pages"])?;
    let mut by_origin: HashMap<&str, u64> = HashMap::new();
    let any_qualifier = !crate::language(build)?.is_english();
    for t in &terms {
        let sup = supplements.get(t).map(Vec::as_slice).unwrap_or(&[]);
        for (id, origin) in find_in(t, &titles, &out_links, sup, any_qualifier) {
            build.insert_term_page(t, id, origin)?;
            *by_origin.entry(origin).or_default() += 1;
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    crate::shared::refresh_coverage(build)?;
    build.commit()?;
    let mut figures = vec![
        ("rows", by_origin.values().sum::<u64>().to_string()),
        ("missing_supplements", missing_supplements.join(";")),
    ];
    for o in ["disambiguation", "exact", "sense", "supplement"] {
        figures.push((o, by_origin.get(o).copied().unwrap_or(0).to_string()));
    }
    let figures: Vec<(&str, String)> = figures;
    record(build, "term_pages", &figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, title: &str, redirect: Option<&str>, dab: bool) -> PageRow {
        PageRow {
            id,
            title: title.into(),
            ns: 0,
            redirect_to: redirect.map(Into::into),
            is_disambiguation: dab,
            pagerank: None,
        }
    }

    #[test]
    fn finds_term_pages_by_every_origin() {
        let titles = Titles::new(vec![
            row(1, "Bat (disambiguation)", None, true),
            row(2, "Bat (animal)", None, false),
            row(3, "Baseball bat", None, false),
            row(4, "Bat", Some("Bat (animal)"), false),
            row(5, "Bat (Cricket)", None, false),
            row(6, "Vampire", None, false),
            row(7, "Batman", None, false),
        ]);
        let out: HashMap<u64, Vec<u64>> = [(1, vec![2, 3, 7])].into_iter().collect();
        let found = find("bat", &titles, &out, &["Vampire".into(), "Nowhere".into()]);
        assert_eq!(
            found,
            vec![(2, "disambiguation"), (5, "sense"), (6, "supplement")]
        );
    }

    #[test]
    fn exact_titles_follow_redirects_and_titles_may_be_disambiguation_pages() {
        let titles = Titles::new(vec![
            // car: the exact title is a redirect; a sense page beside it.
            row(1, "Car", Some("Automobile"), false),
            row(2, "Automobile", None, false),
            row(3, "Car (band)", None, false),
            // bass: the title itself is the disambiguation page, its `(disambiguation)` title
            // a redirect to it; only links to `Bass` or `Bass (sense)` count.
            row(10, "Bass", None, true),
            row(11, "Bass (fish)", None, false),
            row(12, "Bass (music)", None, false),
            row(13, "Bass guitar", None, false),
            row(14, "Bass (voice type)", None, false),
            row(15, "Bass (disambiguation)", Some("Bass"), false),
            // mercury: the title redirects to the disambiguation page.
            row(20, "Mercury", Some("Mercury (disambiguation)"), false),
            row(21, "Mercury (disambiguation)", None, true),
            row(22, "Mercury (planet)", None, false),
            row(23, "Mercury (element)", None, false),
            // apple: an article, and a supplement given by a redirect's title.
            row(30, "Apple", None, false),
            row(31, "Malus", None, false),
            row(32, "Apple tree", Some("Malus"), false),
        ]);
        let out: HashMap<u64, Vec<u64>> = [(10, vec![11, 12, 13]), (21, vec![22, 23, 30])]
            .into_iter()
            .collect();
        assert_eq!(
            find("car", &titles, &out, &[]),
            vec![(2, "exact"), (3, "sense")]
        );
        assert_eq!(
            find("bass", &titles, &out, &[]),
            vec![
                (11, "disambiguation"),
                (12, "disambiguation"),
                (14, "sense")
            ]
        );
        assert_eq!(
            find("mercury", &titles, &out, &[]),
            vec![(22, "disambiguation"), (23, "disambiguation")]
        );
        assert_eq!(
            find(
                "apple",
                &titles,
                &out,
                &["Apple tree".into(), "Apple".into()]
            ),
            vec![(30, "exact"), (31, "supplement")],
            "a page found twice keeps its first origin"
        );
    }

    #[test]
    fn names_term_accepts_only_the_term_or_a_sense() {
        assert!(names_term("bat", "bat"));
        assert!(names_term("bat (animal)", "bat"));
        assert!(!names_term("batman", "bat"));
        assert!(!names_term("bat (disambiguation)", "bat"));
        assert!(!names_term("baseball bat", "bat"));
    }
}
