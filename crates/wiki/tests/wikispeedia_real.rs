//! The Wikispeedia reader on the real SNAP data (`/work/shared/data/wikispeedia`), with figures
//! from SOURCES.md, and on small hand-made directories for its errors.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use wiki::io::Progress;
use wiki::wikispeedia::{self, Options, SITE_PAGES};
use wiki::{Error, Page, Position};

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/wikispeedia"
    ))
}

/// What a full pass over the corpus yields, summarised.
struct Summary {
    pages: usize,
    links: usize,
    self_links: usize,
    titles: HashSet<String>,
    ids: HashSet<u64>,
    by_title: HashMap<String, Page>,
    no_out_links: usize,
}

fn read_all(options: Options) -> Summary {
    let progress = Progress::default();
    let start = Instant::now();
    let mut s = Summary {
        pages: 0,
        links: 0,
        self_links: 0,
        titles: HashSet::new(),
        ids: HashSet::new(),
        by_title: HashMap::new(),
        no_out_links: 0,
    };
    let keep = [
        "AT&T",
        "Avatar: The Last Airbender",
        "Áedán mac Gabráin",
        "Pikachu",
        "Donation",
        "Zulu",
    ];
    for page in wikispeedia::read_with(&data_dir(), options, &progress).unwrap() {
        let page = page.unwrap();
        s.pages += 1;
        s.links += page.links.len();
        s.self_links += page.links.iter().filter(|l| **l == page.title).count();
        s.no_out_links += usize::from(page.links.is_empty());
        assert!(s.ids.insert(page.id), "duplicate id {}", page.id);
        assert!(
            s.titles.insert(page.title.clone()),
            "duplicate {}",
            page.title
        );
        assert!(!page.text.contains("#copyright"), "{}", page.title);
        if keep.contains(&page.title.as_str()) {
            s.by_title.insert(page.title.clone(), page);
        }
    }
    // Every compressed byte was read, and the tar (98,179,258 bytes of text plus headers) was decoded.
    assert_eq!(progress.disk(), 35_363_972);
    assert!(progress.decoded() > 98_179_258, "{}", progress.decoded());
    eprintln!(
        "wikispeedia full read ({options:?}): {:.2?}, {} pages, {} decoded bytes",
        start.elapsed(),
        s.pages,
        progress.decoded()
    );
    s
}

#[test]
fn reads_the_whole_corpus() {
    let s = read_all(Options::default());
    assert_eq!(s.pages, 4_604);
    assert_eq!(s.titles.len(), 4_604);
    assert_eq!(s.links, 119_882);
    assert_eq!(s.self_links, 110);
    assert_eq!(s.no_out_links, 17);
    // Ids are 1-based positions in articles.tsv.
    assert_eq!(s.ids, (1..=4_604).collect());
    for t in ["Avatar: The Last Airbender", "AT&T", "Áedán mac Gabráin"] {
        assert!(s.titles.contains(t), "{t} missing");
    }
    assert!(
        s.titles
            .contains("Wikipedia Text of the GNU Free Documentation License")
    );

    // articles.tsv starts with %C3%81ed%C3%A1n_mac_Gabr%C3%A1in; line 2 after the header is %C3%85land.
    let aedan = &s.by_title["Áedán mac Gabráin"];
    assert_eq!(aedan.id, 1);
    assert_eq!(aedan.ns, 0);
    assert_eq!(aedan.links[..3], ["Bede", "Columba", "Dál Riata"]);
    // Its "Related subjects" header wraps onto a second line: that line must be gone too.
    assert!(
        aedan
            .text
            .starts_with("Satellite image of northern Britain and Ireland showing the approximate"),
        "{:?}",
        &aedan.text[..100]
    );
    assert!(
        !aedan
            .text
            .contains("before (including Roman Britain); Historical figures")
    );

    let att = &s.by_title["AT&T"];
    assert!(
        att.text
            .starts_with("AT&T Inc.\nThe logo used by AT&T.\n    Type     Public ( NYSE: T)\n"),
        "{:?}",
        &att.text[..80]
    );
    // The licence footer is gone; the article's last paragraph is kept.
    assert!(!att.text.contains("Retrieved from"));
    assert!(!att.text.contains("See also our Disclaimer."));
    assert!(!att.text.ends_with('\n'));

    // Pikachu's header line lacks the "." after "Selection".
    let pikachu = &s.by_title["Pikachu"];
    assert!(
        pikachu
            .text
            .starts_with("                         Pikachu\n"),
        "{:?}",
        &pikachu.text[..60]
    );
    assert!(!pikachu.text.contains("2007 Schools Wikipedia Selection"));

    let avatar = &s.by_title["Avatar: The Last Airbender"];
    assert!(!avatar.links.is_empty());

    // A headerless site page keeps its whole text.
    let donation = &s.by_title["Donation"];
    assert!(donation.text.contains("Make a Donation to SOS Children"));
    assert_eq!(donation.id, 1_232);
    // Its first line keeps its deep indent, less the 3-space text indent.
    assert!(
        donation.text.starts_with(
            "                          [1x1.gif] [1x1.gif]\n\n\nMake a Donation to SOS Children\n"
        ),
        "{:?}",
        &donation.text[..80]
    );
    assert_eq!(s.by_title["AT&T"].id, 71);
    assert_eq!(s.by_title["Pikachu"].id, 3_254);
    assert_eq!(s.by_title["Zulu"].id, 4_604);
}

#[test]
fn skips_site_pages() {
    let s = read_all(Options {
        skip_site_pages: true,
    });
    // 6 pages fewer; the 3 links among the direct-debit pages are the only links touching them.
    assert_eq!(s.pages, 4_598);
    assert_eq!(s.titles.len(), 4_598);
    assert_eq!(s.links, 119_879);
    assert_eq!(s.self_links, 110);
    for name in SITE_PAGES {
        let title = wikispeedia::decode_name(name);
        assert!(!s.titles.contains(&title), "{title} kept");
    }
    // Their ids (positions in articles.tsv) are gone; other pages keep their ids.
    for id in [1_211, 1_232, 1_601, 3_850, 4_481, 4_546] {
        assert!(!s.ids.contains(&id), "{id}");
    }
    assert_eq!(s.ids.len(), 4_598);
    assert_eq!(s.by_title["Áedán mac Gabráin"].id, 1);
    assert_eq!(s.by_title["Zulu"].id, 4_604);
}

// ---- error cases on small hand-made directories ----

const HEADER: &str = "# The list of all articles.\n#\n\n";

fn article(title: &str, body: &str) -> String {
    format!(
        "   #copyright\n\n{title}\n\n2007 Schools Wikipedia Selection. Related subjects: Test\n\n{body}\n"
    )
}

/// Writes articles.tsv, links.tsv and a tar.gz of `texts` (entry name, content) into a temp dir.
fn fixture(articles: &str, links: &str, texts: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("articles.tsv"),
        format!("{HEADER}{articles}"),
    )
    .unwrap();
    std::fs::write(dir.path().join("links.tsv"), format!("{HEADER}{links}")).unwrap();
    let file = std::fs::File::create(dir.path().join("plaintext_articles.tar.gz")).unwrap();
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    for (name, text) in texts {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(
            &mut header,
            format!("plaintext_articles/{name}.txt"),
            text.as_bytes(),
        )
        .unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap().flush().unwrap();
    dir
}

fn expect_parse(err: Error, file: &str, pos: Position, needle: &str) {
    match err {
        Error::Parse {
            path,
            position,
            message,
        } => {
            assert!(path.ends_with(file), "{}", path.display());
            assert_eq!(position, pos);
            assert!(message.contains(needle), "{message}");
        }
        other => panic!("expected a parse error, got {other}"),
    }
}

fn read_err(dir: &Path) -> Error {
    match wikispeedia::read(dir, &Progress::default()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

#[test]
fn small_corpus_in_archive_order() {
    // Archive order differs from articles.tsv order: pages come in archive order, ids from the TSV.
    let dir = fixture(
        "B%C3%A9b%C3%A9\nAT%26T\nStar_Fox__Assault\n",
        "AT%26T\tB%C3%A9b%C3%A9\nAT%26T\tAT%26T\nStar_Fox__Assault\tAT%26T\n",
        &[
            (
                "Star_Fox__Assault",
                &article("Star Fox: Assault", "   Game."),
            ),
            ("AT%26T", &article("AT&T", "   Phones.\n   More.")),
            ("B%C3%A9b%C3%A9", &article("Bébé", "   Baby.")),
        ],
    );
    let pages: Vec<Page> = wikispeedia::read(dir.path(), &Progress::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let got: Vec<(u64, &str, &str, Vec<&str>)> = pages
        .iter()
        .map(|p| {
            (
                p.id,
                p.title.as_str(),
                p.text.as_str(),
                p.links.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (3, "Star Fox: Assault", "Game.", vec!["AT&T"]),
            (2, "AT&T", "Phones.\nMore.", vec!["Bébé", "AT&T"]),
            (1, "Bébé", "Baby.", vec![]),
        ]
    );
}

#[test]
fn missing_files_are_named() {
    let dir = fixture("A\n", "", &[("A", &article("A", "x"))]);
    std::fs::remove_file(dir.path().join("links.tsv")).unwrap();
    match read_err(dir.path()) {
        Error::Io { path, .. } => assert!(path.ends_with("links.tsv")),
        e => panic!("{e}"),
    }
    std::fs::remove_file(dir.path().join("plaintext_articles.tar.gz")).unwrap();
    std::fs::write(dir.path().join("links.tsv"), "").unwrap();
    let e = read_err(dir.path());
    assert!(e.to_string().contains("plaintext_articles.tar.gz"), "{e}");
    std::fs::remove_file(dir.path().join("articles.tsv")).unwrap();
    let e = read_err(dir.path());
    assert!(e.to_string().contains("articles.tsv"), "{e}");
}

#[test]
fn malformed_link_line_names_file_and_line() {
    // Header is 3 lines, so data line 2 is file line 5.
    let dir = fixture("A\nB\n", "A\tB\nA B\n", &[]);
    expect_parse(
        read_err(dir.path()),
        "links.tsv",
        Position::Line(5),
        "source<TAB>target",
    );
    let dir = fixture("A\nB\n", "A\tB\tC\n", &[]);
    expect_parse(
        read_err(dir.path()),
        "links.tsv",
        Position::Line(4),
        "source<TAB>target",
    );
}

#[test]
fn malformed_article_line_names_file_and_line() {
    let dir = fixture("A\nB\tC\n", "", &[]);
    expect_parse(
        read_err(dir.path()),
        "articles.tsv",
        Position::Line(5),
        "one article name",
    );
    let dir = fixture("A\nA\n", "", &[]);
    expect_parse(
        read_err(dir.path()),
        "articles.tsv",
        Position::Line(5),
        "duplicate",
    );
}

#[test]
fn unknown_link_target_names_file_and_line() {
    let dir = fixture("A\nB\n", "A\tB\nB\tNowhere\n", &[]);
    expect_parse(
        read_err(dir.path()),
        "links.tsv",
        Position::Line(5),
        "\"Nowhere\"",
    );
}

#[test]
fn archive_mismatches_are_errors_per_page() {
    let dir = fixture(
        "A\nB\nC\n",
        "",
        &[
            ("A", &article("A", "a")),
            ("Stray", &article("Stray", "s")),
            ("B", "   #copyright\nbroken header\n"),
        ],
    );
    let results: Vec<_> = wikispeedia::read(dir.path(), &Progress::default())
        .unwrap()
        .collect();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0].as_ref().unwrap().text, "a");
    let mut errs = results.into_iter().skip(1).map(|r| r.unwrap_err());
    let entry = |s: &str| Position::Entry(format!("plaintext_articles/{s}.txt"));
    expect_parse(
        errs.next().unwrap(),
        "plaintext_articles.tar.gz",
        entry("Stray"),
        "not an article",
    );
    expect_parse(
        errs.next().unwrap(),
        "plaintext_articles.tar.gz",
        entry("B"),
        "header",
    );
    expect_parse(
        errs.next().unwrap(),
        "plaintext_articles.tar.gz",
        entry("C"),
        "missing",
    );
}

#[test]
fn stops_early_without_hanging() {
    // Dropping the iterator after one page must not block on the archive thread.
    let mut pages = wikispeedia::read(&data_dir(), &Progress::default()).unwrap();
    let first = pages.next().unwrap().unwrap();
    assert_eq!(first.title, "Áedán mac Gabráin");
    drop(pages);
}
