//! Clues people wrote, as a check on the knowledge (`clue-db eval --scenarios FILE`): a scenario
//! is a small board (the team's cards, the cards to avoid) and the one-word clue a person gave
//! for the team's cards. Two questions, both for evaluation only:
//!
//! - does a guesser *understand* the person: given the clue and the number of team cards, does
//!   it take exactly the team's cards?
//! - do guessers *follow our clue*: on the same board, does each outside guesser reach every
//!   team card with our clue (taking up to its number, stopping at the first wrong card), and is
//!   its first pick a team card?

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::Knowledge;
use crate::guesser::Guesser;
use crate::legality::Lexicon;
use crate::request::Request;
use crate::strategy::Strategy;

/// One board and the clue a person gave for its team cards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub id: String,
    pub team: Vec<String>,
    pub avoid: Vec<String>,
    pub clue: String,
}

impl Scenario {
    /// Why the person's clue breaks a rule the spymasters keep, if it does: more than one
    /// word of letters (`credit suisse`, `deadmau5`), or a card of the board (people's own
    /// data holds both). Such a scenario is scored as written, and named in a note.
    pub fn rule_broken(&self) -> Option<&'static str> {
        if !crate::legality::is_word(&self.clue) {
            return Some("not one word of letters");
        }
        let board: Vec<&String> = self.team.iter().chain(&self.avoid).collect();
        match crate::legality::Legality::new(&board, &crate::legality::NoLexicon).check(&self.clue)
        {
            Err(crate::legality::Illegal::BoardWord(_)) => Some("a card of the board"),
            _ => None,
        }
    }
}

/// The longest line read: a scenario is a few words, so a longer line is not one.
const MAX_LINE_BYTES: usize = 64 << 10;

/// The board checks' names for a scenario's columns. (A scenario is one board: 8,000 team words
/// on one line took herfindahl over 100 s and 1.5 GB.)
const COLUMNS: crate::answer::Names = crate::answer::Names {
    pos: "team",
    neg: "avoid",
    neutral: "neutral",
    assassin: "assassin",
    board: "board",
    clue: "clue",
    list_hint: "",
};

/// Reads a scenario file: tab-separated, a header naming at least the columns `id`, `team`,
/// `avoid` and `clue` (any order), then one scenario a line; `team` and `avoid` are
/// comma-separated card words. Words are lower-cased; blank lines are skipped. An error names
/// the file and the line.
pub fn read(path: &Path) -> anyhow::Result<Vec<Scenario>> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut lines = std::io::BufReader::new(file);
    let mut line = String::new();
    let mut header: Option<[usize; 4]> = None;
    let mut out = Vec::new();
    let mut n = 0;
    loop {
        line.clear();
        let read = std::io::Read::take(&mut lines, MAX_LINE_BYTES as u64 + 1)
            .read_line(&mut line)
            .with_context(|| format!("{}: line {}", path.display(), n + 1))?;
        if read == 0 {
            break;
        }
        n += 1;
        if line.len() > MAX_LINE_BYTES {
            bail!(
                "{}: line {n} is longer than {MAX_LINE_BYTES} bytes: not a scenario file",
                path.display()
            );
        }
        let row = line.trim_end_matches(['\n', '\r']);
        // A file saved with a byte-order mark (a spreadsheet's UTF-8 export) starts with one.
        let row = if n == 1 {
            row.strip_prefix('\u{feff}').unwrap_or(row)
        } else {
            row
        };
        if row.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = row.split('\t').map(str::trim).collect();
        let Some(cols) = header else {
            let at = |name: &str| {
                cells.iter().position(|c| c.eq_ignore_ascii_case(name)).with_context(|| {
                    format!(
                        "{}: line {n}: the header has no column {name:?} (it needs id, team, avoid, clue)",
                        path.display()
                    )
                })
            };
            header = Some([at("id")?, at("team")?, at("avoid")?, at("clue")?]);
            continue;
        };
        let cell = |i: usize| -> anyhow::Result<&str> {
            cells.get(cols[i]).copied().with_context(|| {
                format!(
                    "{}: line {n}: {} cells, the header has more",
                    path.display(),
                    cells.len()
                )
            })
        };
        let words = |s: &str| -> Vec<String> {
            s.split(',')
                .map(|w| w.trim().to_lowercase())
                .filter(|w| !w.is_empty())
                .collect()
        };
        let s = Scenario {
            id: cell(0)?.to_string(),
            team: words(cell(1)?),
            avoid: words(cell(2)?),
            clue: cell(3)?.to_lowercase(),
        };
        if s.team.is_empty() || s.clue.is_empty() {
            bail!(
                "{}: line {n}: a scenario needs team cards and a clue",
                path.display()
            );
        }
        // One board, each card on it once, as `suggest` and the API demand.
        let board = Request {
            pos: s.team.clone(),
            neg: s.avoid.clone(),
            ..Request::default()
        };
        crate::answer::check_board(&board, &COLUMNS)
            .with_context(|| format!("{}: line {n}", path.display()))?;
        out.push(s);
    }
    if header.is_none() {
        bail!("{}: empty: no header, no scenario", path.display());
    }
    if out.is_empty() {
        bail!(
            "{}: a header and no scenario (one a line: id, team, avoid, clue, tab-separated)",
            path.display()
        );
    }
    Ok(out)
}

/// How often something held, out of how many.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub hits: usize,
    pub of: usize,
}

impl Share {
    fn add(&mut self, hit: bool) {
        self.hits += hit as usize;
        self.of += 1;
    }
    pub fn rate(&self) -> f64 {
        if self.of == 0 {
            0.0
        } else {
            self.hits as f64 / self.of as f64
        }
    }
}

/// How one outside guesser took one strategy's clues.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Followed {
    /// Every team card reached with the clue (of all scenarios; no clue counts as a miss).
    pub all_team: Share,
    /// The first pick a team card (of the scenarios with a clue).
    pub first_right: Share,
    /// The first pick a card to avoid (of the scenarios with a clue).
    pub first_wrong: Share,
}

/// The figures of [`evaluate`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    pub scenarios: usize,
    /// Per guesser: took exactly the team's cards for the person's clue.
    pub understands: BTreeMap<String, Share>,
    /// Per strategy: scenarios where it gave no clue.
    pub no_clue: BTreeMap<String, usize>,
    /// Per strategy, then per guesser: how our clue was followed.
    pub followed: BTreeMap<String, BTreeMap<String, Followed>>,
}

/// One scenario as read and played, for studying clues one board at a time (`eval --scenarios
/// FILE --turns OUT` writes one a line): what each guesser took for the person's clue, and each
/// strategy's clue with what each judge took for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    pub id: String,
    pub team: Vec<String>,
    pub avoid: Vec<String>,
    /// The person's clue.
    pub clue: String,
    /// Per guesser: its picks for the person's clue, as many as there are team cards (none for
    /// a clue it does not know).
    pub understood: BTreeMap<String, Vec<String>>,
    /// Each strategy's clue on the same board, in the order the strategies were given.
    pub ours: Vec<OurClue>,
}

/// A strategy's clue for a scenario's board ([`ScenarioRecord::ours`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OurClue {
    pub strategy: String,
    /// `None` when the strategy gave no clue.
    pub clue: Option<String>,
    pub number: usize,
    pub targets: Vec<String>,
    /// Per judge: its picks for the clue, at most its number, in order (it stops at its first
    /// wrong card when playing; all are listed here).
    pub picks: BTreeMap<String, Vec<String>>,
}

/// Where [`evaluate`] hands each scenario's record.
pub type RecordSink<'a> = dyn FnMut(&ScenarioRecord) -> anyhow::Result<()> + 'a;

/// Both checks over `scenarios`: every guesser of `understanding` reads the person's clues, and
/// every guesser of `judges` follows each strategy's clue on the same boards. Each scenario's
/// record goes to `records`, when given, as it is played.
pub fn evaluate(
    scenarios: &[Scenario],
    k: &dyn Knowledge,
    lexicon: &dyn Lexicon,
    strategies: &[&dyn Strategy],
    understanding: &[&dyn Guesser],
    judges: &[&dyn Guesser],
    mut records: Option<&mut RecordSink<'_>>,
) -> anyhow::Result<ScenarioReport> {
    crate::strategy::check_ready(strategies, k)?;
    let mut r = ScenarioReport {
        scenarios: scenarios.len(),
        ..ScenarioReport::default()
    };
    let words = |picks: &[crate::guesser::Guess]| -> Vec<String> {
        picks.iter().map(|p| p.word.clone()).collect()
    };
    for s in scenarios {
        let board: Vec<String> = s.team.iter().chain(&s.avoid).cloned().collect();
        let mut record = ScenarioRecord {
            id: s.id.clone(),
            team: s.team.clone(),
            avoid: s.avoid.clone(),
            clue: s.clue.clone(),
            understood: BTreeMap::new(),
            ours: Vec::new(),
        };
        for g in understanding {
            let picks = g.guess(&s.clue, s.team.len(), &board).with_context(|| {
                format!("scenario {}: {} guessing {:?}", s.id, g.name(), s.clue)
            })?;
            let exact =
                picks.len() == s.team.len() && picks.iter().all(|p| s.team.contains(&p.word));
            r.understands
                .entry(g.name().to_string())
                .or_default()
                .add(exact);
            record
                .understood
                .insert(g.name().to_string(), words(&picks));
        }
        let req = Request {
            pos: s.team.clone(),
            neg: s.avoid.clone(),
            ..Request::default()
        };
        for st in strategies {
            let clue = crate::answer::ranked(k, lexicon, &req, *st)
                .with_context(|| format!("scenario {}: {}", s.id, st.name()))?
                .into_iter()
                .next();
            let per = r.followed.entry(st.name().to_string()).or_default();
            let Some(clue) = clue else {
                *r.no_clue.entry(st.name().to_string()).or_default() += 1;
                for g in judges {
                    per.entry(g.name().to_string())
                        .or_default()
                        .all_team
                        .add(false);
                }
                record.ours.push(OurClue {
                    strategy: st.name().to_string(),
                    clue: None,
                    number: 0,
                    targets: Vec::new(),
                    picks: BTreeMap::new(),
                });
                continue;
            };
            let mut ours = OurClue {
                strategy: st.name().to_string(),
                clue: Some(clue.clue.clone()),
                number: clue.count,
                targets: clue.targets.clone(),
                picks: BTreeMap::new(),
            };
            for g in judges {
                let picks = g.guess(&clue.clue, clue.count, &board)?;
                ours.picks.insert(g.name().to_string(), words(&picks));
                let f = per.entry(g.name().to_string()).or_default();
                // The guesser stops at its first wrong card.
                let reached = picks
                    .iter()
                    .take_while(|p| s.team.contains(&p.word))
                    .count();
                f.all_team.add(reached == s.team.len());
                let first = picks.first().map(|p| s.team.contains(&p.word));
                f.first_right.add(first == Some(true));
                f.first_wrong.add(first == Some(false));
            }
            record.ours.push(ours);
        }
        if let Some(sink) = records.as_mut() {
            sink(&record)?;
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 46: a header after a UTF-8 byte-order mark was read as having no column `id`.
    #[test]
    fn a_byte_order_mark_before_the_header_is_no_part_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.tsv");
        std::fs::write(
            &path,
            "\u{feff}id\tteam\tavoid\tclue\na1\tdog,vet\tking\tpet\n",
        )
        .unwrap();
        let s = read(&path).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].id, "a1");
    }

    #[test]
    fn a_scenario_file_is_read_by_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.tsv");
        std::fs::write(
            &path,
            "clue\tid\tteam\tavoid\nPoker\ta1\tdeck, luck\thorn,cap\n\npet\ta2\tdog,vet\tking\n",
        )
        .unwrap();
        let s = read(&path).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0],
            Scenario {
                id: "a1".into(),
                team: vec!["deck".into(), "luck".into()],
                avoid: vec!["horn".into(), "cap".into()],
                clue: "poker".into(),
            }
        );
        assert_eq!(s[1].team, ["dog", "vet"]);
    }

    #[test]
    fn a_bad_scenario_file_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.tsv");
        std::fs::write(&path, "id\tteam\tclue\n").unwrap();
        let e = format!("{:#}", read(&path).unwrap_err());
        assert!(
            e.contains("bad.tsv") && e.contains("line 1") && e.contains("avoid"),
            "{e}"
        );
        std::fs::write(&path, "id\tteam\tavoid\tclue\nx\tdog\tcat\n").unwrap();
        let e = format!("{:#}", read(&path).unwrap_err());
        assert!(e.contains("line 2"), "{e}");
        std::fs::write(&path, "").unwrap();
        assert!(read(&path).is_err());
        // A person's clue that breaks a rule is read, and says which.
        std::fs::write(
            &path,
            "id\tteam\tavoid\tclue\na\tdog,cat\tsea\tpets\nb\tdog\tcat\tice cream\nc\tdog\tcat\tdog\n",
        )
        .unwrap();
        let broken: Vec<Option<&str>> = read(&path)
            .unwrap()
            .iter()
            .map(Scenario::rule_broken)
            .collect();
        assert_eq!(
            broken,
            [
                None,
                Some("not one word of letters"),
                Some("a card of the board")
            ]
        );
        // A header alone was 0 scenarios, reported as a result.
        std::fs::write(&path, "id\tteam\tavoid\tclue\n\n").unwrap();
        let e = format!("{:#}", read(&path).unwrap_err());
        assert!(e.contains("bad.tsv: a header and no scenario"), "{e}");
    }

    /// Issue 46, item 9: one line of 8,000 team words from the 400 (53 KB, under the line cap)
    /// took herfindahl over 100 s and 1.5 GB. Duplicate cards are refused, as `suggest` refuses
    /// them, and a scenario holds one board's cards at most, each named with file and line.
    #[test]
    fn duplicate_cards_and_more_than_a_board_are_refused_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dup.tsv");
        let header = "id\tteam\tavoid\tclue\nok\tdog\tcat\tpet\n";
        for (line, want) in [
            (
                "x\tdog,Dog\tcat\tpet\n",
                "\"dog\" is given twice (team and team)",
            ),
            (
                "x\tdog\tcat,dog\tpet\n",
                "\"dog\" is given twice (team and avoid)",
            ),
            (
                "x\tdog\tcat, cat\tpet\n",
                "\"cat\" is given twice (avoid and avoid)",
            ),
        ] {
            std::fs::write(&path, format!("{header}{line}")).unwrap();
            let e = format!("{:#}", read(&path).unwrap_err());
            assert!(
                e.contains("dup.tsv") && e.contains("line 3") && e.contains(want),
                "{e}"
            );
        }
        let words: Vec<String> = (0..8_000).map(|i| format!("w{}", i % 400)).collect();
        std::fs::write(&path, format!("{header}x\t{}\t\tpet\n", words.join(","))).unwrap();
        let e = format!("{:#}", read(&path).unwrap_err());
        assert!(
            e.contains("line 3") && e.contains("8000 words") && e.contains("at most 25"),
            "{e}"
        );
        // A full board is a scenario.
        let team: Vec<String> = (0..9).map(|i| format!("t{i}")).collect();
        let avoid: Vec<String> = (0..16).map(|i| format!("a{i}")).collect();
        std::fs::write(
            &path,
            format!("{header}x\t{}\t{}\tpet\n", team.join(","), avoid.join(",")),
        )
        .unwrap();
        assert_eq!(read(&path).unwrap().len(), 2);
    }
}
