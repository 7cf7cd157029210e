//! The ingest stage on inputs made of several files (issue 12): a `page_props` dump joined to
//! the `page` dump, a WikiExtractor folder tree, and one dump run (XML + SQL) joined on page ids,
//! read through its `VERIFIED` list. Built from the real samples of `shared/data`.

use fakewiki::dump_run::{build_run, page_props_sql, shared_data};
use pipeline::ingest::{Format, Request, run};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use store::Build;

fn ingest(dir: &Path, name: &str, format: Format, paths: Vec<PathBuf>) -> anyhow::Result<Build> {
    let build = Build::create(&dir.join(name))?;
    run(&build, &Request::files(format, paths))?;
    Ok(build)
}

fn flagged(build: &Build) -> BTreeSet<u64> {
    let pages = build.reader().pages().unwrap();
    pages
        .iter()
        .filter(|p| p.is_disambiguation)
        .map(|p| p.id)
        .collect()
}

/// `page_props` sets the flag on exactly the pages whose `disambiguation` row it has: not on a
/// page with other properties only, and a row for a page the dump of `page` lacks is dropped.
#[test]
fn page_props_flags_exactly_the_disambiguation_pages() {
    let dir = tempfile::tempdir().unwrap();
    let props = dir.path().join("loginwiki-20240901-page_props.sql");
    std::fs::write(
        &props,
        page_props_sql(
            "loginwiki",
            &[
                (1, "disambiguation", ""),
                (1, "wikibase_item", "Q5296"),
                (7, "defaultsort", "Aurelio, Marco"),
                (12, "displaytitle", "it's <i>common</i>.js"),
                (20, "disambiguation", ""),
                (999, "disambiguation", ""),
            ],
        ),
    )
    .unwrap();
    let page = shared_data().join("sql-sample/test-20240901-page.sql");
    let build = ingest(dir.path(), "p.sqlite", Format::Sql, vec![page, props]).unwrap();
    let pages = build.reader().pages().unwrap();
    assert_eq!(pages.len(), 14, "the real page dump's rows");
    assert_eq!(flagged(&build), BTreeSet::from([1, 20]));
    let titles: Vec<&str> = pages
        .iter()
        .filter(|p| p.is_disambiguation)
        .map(|p| p.title.as_str())
        .collect();
    assert_eq!(titles, ["Main Page", "Project:General disclaimer"]);
    assert_eq!(
        build.meta("ingest.page_props_disambiguations").unwrap(),
        Some("2".into()),
        "page 999 is not stored"
    );
    assert_eq!(
        build.meta("ingest.disambiguations").unwrap(),
        Some("2".into())
    );
}

/// The first `n` documents of the real 2015 WikiExtractor corpus, as lines.
fn extractor_docs(n: usize) -> Vec<Vec<String>> {
    let path = shared_data()
        .join("enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz");
    let file = std::fs::File::open(path).unwrap();
    let reader = BufReader::new(liblzma::read::XzDecoder::new(file));
    let mut docs = Vec::new();
    let mut doc = Vec::new();
    for line in reader.lines() {
        let line = line.unwrap();
        let end = line == "</doc>";
        doc.push(line);
        if end {
            docs.push(std::mem::take(&mut doc));
            if docs.len() == n {
                break;
            }
        }
    }
    docs
}

fn text_of(docs: &[Vec<String>]) -> String {
    let mut s = String::new();
    for line in docs.iter().flatten() {
        s.push_str(line);
        s.push('\n');
    }
    s
}

/// Every page with its title and text, by id.
fn pages_and_texts(build: &Build) -> Vec<(u64, String, String)> {
    let pages = build.reader().pages().unwrap();
    let ids: Vec<u64> = pages.iter().map(|p| p.id).collect();
    let mut texts = std::collections::HashMap::new();
    build
        .reader()
        .for_each_text(&ids, |id, text| {
            texts.insert(id, text);
            Ok(())
        })
        .unwrap();
    pages
        .into_iter()
        .map(|p| (p.id, p.title, texts.remove(&p.id).unwrap_or_default()))
        .collect()
}

/// WikiExtractor's output tree (`AA/wiki_00, AA/wiki_01, AB/wiki_00`, some files compressed,
/// a hidden file beside them) ingests to the same pages as one file of the same documents; a bad
/// file in the tree is named in the error.
#[test]
fn a_wikiextractor_tree_ingests_as_the_single_file() {
    let docs = extractor_docs(60);
    let dir = tempfile::tempdir().unwrap();
    let single = dir.path().join("all.txt");
    std::fs::write(&single, text_of(&docs)).unwrap();
    let tree = dir.path().join("text");
    std::fs::create_dir_all(tree.join("AA")).unwrap();
    std::fs::create_dir_all(tree.join("AB")).unwrap();
    std::fs::write(tree.join("AA/wiki_00"), text_of(&docs[..20])).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(text_of(&docs[20..45]).as_bytes()).unwrap();
    std::fs::write(tree.join("AA/wiki_01.bz2"), bz.finish().unwrap()).unwrap();
    std::fs::write(
        tree.join("AB/wiki_00.gz"),
        fakewiki::dump_run::gzip(text_of(&docs[45..]).as_bytes()),
    )
    .unwrap();
    std::fs::write(tree.join("AA/.wiki_00.swp"), b"\x00garbage").unwrap();
    std::fs::create_dir_all(tree.join(".git")).unwrap();
    std::fs::write(tree.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();

    let one = ingest(dir.path(), "one.sqlite", Format::Extractor, vec![single]).unwrap();
    let many = ingest(
        dir.path(),
        "tree.sqlite",
        Format::Extractor,
        vec![tree.clone()],
    )
    .unwrap();
    let (a, b) = (pages_and_texts(&one), pages_and_texts(&many));
    assert_eq!(a.len(), 60);
    assert_eq!(a, b);
    assert_eq!(
        ingest(
            dir.path(),
            "again.sqlite",
            Format::Extractor,
            vec![tree.clone()]
        )
        .map(|b| pages_and_texts(&b))
        .unwrap(),
        a,
        "the same ids and titles on every run"
    );

    std::fs::write(tree.join("AB/wiki_01"), "not a WikiExtractor file\n").unwrap();
    let err = ingest(
        dir.path(),
        "bad.sqlite",
        Format::Extractor,
        vec![tree.clone()],
    )
    .err()
    .expect("a bad file fails the ingest");
    assert!(
        format!("{err:#}").contains(&format!("{}", tree.join("AB/wiki_01").display())),
        "{err:#}"
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(empty.join(".hidden")).unwrap();
    let err = ingest(dir.path(), "e.sqlite", Format::Extractor, vec![empty])
        .err()
        .expect("a folder with no file");
    assert!(
        format!("{err:#}").contains("no file in this folder"),
        "{err:#}"
    );
}

/// Ids of the enwiki sample that the run's `page_props` marks: Anarchism and Autism are no
/// disambiguation pages, which shows the flags come from `page_props`, not from the XML.
const MARKED: [u64; 2] = [12, 25];

fn sample_props() -> String {
    page_props_sql(
        "enwiki",
        &[
            (MARKED[0], "disambiguation", ""),
            (MARKED[0], "wikibase_item", "Q6199"),
            (MARKED[1], "disambiguation", ""),
            (39, "wikibase_item", "Q101038"),
            (999_999, "disambiguation", ""),
        ],
    )
}

/// A dump run folder (multistream XML + index, SQL page/linktarget/pagelinks/page_props,
/// VERIFIED) ingests as one build: pages and text from the XML, flags from `page_props`, links
/// from `pagelinks` (the sample's loginwiki rows name no page of the enwiki XML, so none
/// resolves: the XML's own links are not used when the run has `pagelinks`). Without VERIFIED
/// it is refused.
#[test]
fn a_verified_dump_run_joins_its_files_on_page_ids() {
    let dir = tempfile::tempdir().unwrap();
    let dumps = dir.path().join("dumps");
    let run_dir = build_run(
        &dumps,
        "enwiki",
        "20240901",
        &[("page_props", sample_props())],
    );
    let build = ingest(
        dir.path(),
        "run.sqlite",
        Format::DumpRun,
        vec![run_dir.clone()],
    )
    .unwrap();
    let pages = build.reader().pages().unwrap();
    assert_eq!(
        pages.len(),
        206,
        "every page of the XML, none of the SQL page dump"
    );
    assert_eq!(
        build.ingest_counts().unwrap()[4],
        106,
        "texts: the 106 non-redirects"
    );
    assert_eq!(flagged(&build), BTreeSet::from(MARKED));
    assert_eq!(
        build.ingest_counts().unwrap()[3],
        0,
        "links from pagelinks only"
    );
    let meta = |k: &str| build.meta(k).unwrap().unwrap_or_default();
    assert_eq!(meta("ingest.links_from"), "pagelinks");
    assert_eq!(meta("ingest.disambiguation_from"), "page_props");
    assert_eq!(meta("ingest.dump_run"), "enwiki 20240901");
    assert_eq!(meta("ingest.links_staged"), "3");
    assert!(meta("ingest.dump_run_unread").ends_with("enwiki-20240901-page.sql.gz"));

    // The XML alone (with its index): its own links and disambiguation guesses.
    let xml =
        |name: &str| run_dir.join(format!("enwiki-20240901-pages-articles-multistream{name}"));
    let alone = ingest(
        dir.path(),
        "xml.sqlite",
        Format::DumpRun,
        vec![xml(".xml.bz2"), xml("-index.txt.bz2")],
    )
    .unwrap();
    let plain = ingest(
        dir.path(),
        "plain.sqlite",
        Format::Xml,
        vec![fakewiki::dump_run::enwiki_sample()],
    )
    .unwrap();
    assert_eq!(pages_and_texts(&alone), pages_and_texts(&plain));
    assert_eq!(
        alone.ingest_counts().unwrap(),
        plain.ingest_counts().unwrap()
    );
    assert_eq!(
        alone.meta("ingest.links_from").unwrap().as_deref(),
        Some("xml")
    );

    // A run whose download is not finished: nothing of it is read.
    std::fs::remove_file(run_dir.join("VERIFIED")).unwrap();
    let err = ingest(dir.path(), "no.sqlite", Format::DumpRun, vec![run_dir])
        .err()
        .expect("refused");
    assert!(format!("{err:#}").contains("no VERIFIED file"), "{err:#}");
}

/// A file the run's VERIFIED does not list (a download in progress) is not read, even where its
/// name says it belongs to the run.
#[test]
fn a_file_missing_from_verified_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = build_run(&dir.path().join("dumps"), "enwiki", "20240901", &[]);
    std::fs::write(
        run_dir.join("enwiki-20240901-page_props.sql.gz.part"),
        b"half a file",
    )
    .unwrap();
    std::fs::write(
        run_dir.join("enwiki-20240901-page_props.sql.gz"),
        fakewiki::dump_run::gzip(sample_props().as_bytes()),
    )
    .unwrap();
    let build = ingest(dir.path(), "run.sqlite", Format::DumpRun, vec![run_dir]).unwrap();
    assert_eq!(
        build.meta("ingest.disambiguation_from").unwrap().as_deref(),
        Some("xml"),
        "page_props is not in VERIFIED"
    );
    assert!(!flagged(&build).contains(&MARKED[0]));
}

/// A corpus ingested after another records what it added, not the database's totals: the
/// default build's text-only corpora each recorded Wikispeedia's 119,882 links as their own.
#[test]
fn a_corpus_added_to_another_records_its_own_pages_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let build = Build::create(&dir.path().join("two.sqlite")).unwrap();
    let xml = shared_data()
        .join("enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2");
    let first = run(&build, &Request::files(Format::Xml, vec![xml])).unwrap();
    assert!(first.links > 0, "the XML sample has links");
    let text = dir.path().join("docs.txt");
    // Titles of their own: a page of the XML sample by the same title would be a duplicate.
    let docs = text_of(&extractor_docs(30)).replace("title=\"", "title=\"Other ");
    std::fs::write(&text, docs).unwrap();
    let added = Request {
        id_offset: pipeline::ingest::SOURCE_ID_STRIDE,
        meta_stage: "ingest.docs".to_string(),
        ..Request::files(Format::Extractor, vec![text])
    };
    let all = run(&build, &added).unwrap();
    let meta = |k: &str| build.meta(k).unwrap().unwrap_or_else(|| panic!("meta {k}"));
    assert_eq!(meta("ingest.pages"), first.pages.to_string());
    assert_eq!(meta("ingest.links"), first.links.to_string());
    assert_eq!(
        meta("ingest.docs.links"),
        "0",
        "a text-only corpus adds no link"
    );
    assert_eq!(meta("ingest.docs.texts"), "30");
    assert_eq!(
        meta("ingest.docs.pages"),
        (all.pages - first.pages).to_string()
    );
    assert!(all.pages > first.pages, "the report keeps the totals");
    assert_eq!(meta("ingest.docs.duplicates"), "0");
    // A third corpus holding the second's 30 titles and 5 more: its own duplicates are the 30,
    // the database's all it left out.
    let more = dir.path().join("more.txt");
    let docs = text_of(&extractor_docs(35)).replace("title=\"", "title=\"Other ");
    std::fs::write(&more, docs).unwrap();
    let third = Request {
        id_offset: 2 * pipeline::ingest::SOURCE_ID_STRIDE,
        meta_stage: "ingest.more".to_string(),
        ..Request::files(Format::Extractor, vec![more])
    };
    let total = run(&build, &third).unwrap();
    assert_eq!(meta("ingest.more.duplicates"), "30");
    assert_eq!(meta("ingest.more.pages"), "5");
    assert_eq!(meta("ingest.docs.duplicates"), "0");
    assert_eq!(total.duplicates, first.duplicates + 30);
    assert_eq!(meta("ingest.duplicates"), total.duplicates.to_string());
}
