//! The outside guesser (`clue-db eval --guesser vectors:PATH`): the word2vec text reader on
//! small files written here (plain and gzip; bad headers, wrong dimension counts, cut files)
//! and how [`VectorGuesser`] ranks cards.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use query::guesser::Guesser;
use query::vectors::{VectorGuesser, WordVectors};

/// Six words in three dimensions; lengths differ on purpose (the reader normalises).
const SMALL: &str = "6 3
fruit 2 0 0
apple 3 1 0
lemon 2 0 1
car 0 1 0
ice 0 0 5
cream 1 0 1
";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `text` gzipped, as one member or split into two members at `split` (a `.gz` made by
/// concatenating files is still one file to gzip readers).
fn gzip(text: &str, split: Option<usize>) -> Vec<u8> {
    let member = |t: &str| {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(t.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    match split {
        None => member(text),
        Some(at) => [member(&text[..at]), member(&text[at..])].concat(),
    }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

fn err(text: &str) -> String {
    format!("{:#}", WordVectors::read(text.as_bytes()).unwrap_err())
}

/// The cosine of two vectors given unnormalised.
fn cos(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let n = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

#[test]
fn reads_plain_and_gzip_alike() {
    let dir = tempfile::tempdir().unwrap();
    let plain = WordVectors::load(&write(dir.path(), "v.txt", SMALL)).unwrap();
    assert_eq!((plain.len(), plain.dims), (6, 3));
    // Unit length whatever the file says.
    let fruit = plain.vector("fruit").unwrap();
    assert_eq!(fruit, vec![1.0, 0.0, 0.0]);
    let apple = plain.vector("apple").unwrap();
    let norm: f32 = apple.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-6);
    for (name, bytes) in [
        ("one.txt.gz", gzip(SMALL, None)),
        ("two.txt.gz", gzip(SMALL, Some(30))),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let gz = WordVectors::load(&path).unwrap();
        assert_eq!((gz.len(), gz.dims), (6, 3), "{name}");
        for w in ["fruit", "apple", "lemon", "car", "ice", "cream"] {
            assert_eq!(gz.vector(w), plain.vector(w), "{name}: {w}");
        }
    }
    // Extra spaces, blank lines and CRLF line ends are tolerated.
    let loose = WordVectors::read("2 2\n\nfruit  1 0 \napple 0 1\n".as_bytes()).unwrap();
    assert_eq!(loose.len(), 2);
    let crlf = WordVectors::read("1 2\r\nfruit 1 0\r\n".as_bytes()).unwrap();
    assert_eq!(crlf.vector("fruit"), Some(vec![1.0, 0.0]));
}

#[test]
fn bad_headers_are_refused() {
    assert!(err("").contains("empty"), "{}", err(""));
    for bad in ["3\nfruit 1 0 0\n", "1 3 9\nfruit 1 0 0\n", "fruit 1 0 0\n"] {
        let e = err(bad);
        assert!(e.contains("line 1") && e.contains("header"), "{bad:?}: {e}");
    }
    let e = err("x 3\nfruit 1 0 0\n");
    assert!(e.contains("line 1") && e.contains("word count"), "{e}");
    let e = err("1 y\nfruit 1 0 0\n");
    assert!(e.contains("line 1") && e.contains("dimensions"), "{e}");
    let e = err("1 0\nfruit\n");
    assert!(e.contains("0 dimensions"), "{e}");
}

#[test]
fn wrong_numbers_and_cut_files_are_refused() {
    // A line with a number too few or too many: named by line and word.
    let e = err("2 3\nfruit 1 0 0\napple 1 0\n");
    assert!(
        e.contains("line 3") && e.contains("\"apple\"") && e.contains("2 numbers"),
        "{e}"
    );
    assert!(e.contains("header says 3"), "{e}");
    let e = err("1 3\nfruit 1 0 0 7\n");
    assert!(e.contains("line 2") && e.contains("4 numbers"), "{e}");
    // Not a number.
    let e = err("1 3\nfruit 1 x 0\n");
    assert!(e.contains("line 2") && e.contains("not a number"), "{e}");
    // Fewer word lines than the header says: a cut file. More: altered.
    let e = err("3 3\nfruit 1 0 0\napple 1 0 0\n");
    assert!(e.contains("2 word lines") && e.contains("cut"), "{e}");
    let e = err("1 3\nfruit 1 0 0\napple 1 0 0\n");
    assert!(e.contains("2 word lines") && e.contains("says 1"), "{e}");
    // A file cut inside a line: that line has too few numbers.
    let cut = &SMALL[..SMALL.find("car 0 1").unwrap() + 5];
    let e = err(cut);
    assert!(e.contains("line 5") && e.contains("\"car\""), "{e}");
    // A gzip file cut short fails (never a smaller vocabulary read as whole), naming the file.
    let dir = tempfile::tempdir().unwrap();
    let whole = gzip(SMALL, None);
    let path = dir.path().join("cut.txt.gz");
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
    let e = format!("{:#}", WordVectors::load(&path).unwrap_err());
    assert!(e.contains("cut.txt.gz"), "{e}");
    // A missing file too.
    let gone = dir.path().join("missing.txt");
    let e = format!("{:#}", WordVectors::load(&gone).unwrap_err());
    assert!(e.contains("missing.txt"), "{e}");
}

#[test]
fn endless_lines_repeated_words_and_odd_numbers_are_refused() {
    use query::vectors::MAX_LINE_BYTES;
    // `vectors:/dev/zero`: a line with no end took every byte of memory the machine had. Now
    // it is refused once past the cap, having read no more than that.
    let endless = std::io::BufReader::new(std::io::repeat(b'0'));
    let e = format!("{:#}", WordVectors::read(endless).unwrap_err());
    assert!(e.contains("line 1 is longer than 64 KiB"), "{e}");
    // A long word line too, and the message does not echo it.
    let long = format!("1 3\nfruit{} 1 0 0\n", "x".repeat(MAX_LINE_BYTES));
    let e = err(&long);
    assert!(e.contains("line 2 is longer") && e.len() < 200, "{e}");
    // A line just under the cap is read.
    let word = "y".repeat(MAX_LINE_BYTES - 10);
    let ok = WordVectors::read(format!("1 3\n{word} 1 0 0\n").as_bytes()).unwrap();
    assert!(ok.vector(&word).is_some());
    // A header that claims more dimensions than a line can hold.
    let e = err("1 1000000\nfruit 1\n");
    assert!(e.contains("1000000 dimensions do not fit"), "{e}");
    // The header's count reserves nothing it cannot use: a false one is a plain error.
    let e = err("18446744073709551615 3\nfruit 1 0 0\n");
    assert!(e.contains("1 word lines"), "{e}");
    // A word given twice was read as one, and then said to be a count mismatch.
    let e = err("2 2\nking 1 0\nking 0 1\n");
    assert!(
        e.contains("line 3") && e.contains("\"king\" has a vector already"),
        "{e}"
    );
    // NaN and infinity are no coordinates.
    for bad in ["NaN", "inf", "-inf"] {
        let e = err(&format!("1 2\nking 1 {bad}\n"));
        assert!(
            e.contains("line 2") && e.contains("not finite"),
            "{bad}: {e}"
        );
    }
    // A gzip bomb (a 2 GB line in 2 MB) stops at the cap as well.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, b"2 50\n").unwrap();
    let zeros = vec![b'0'; 1 << 20];
    for _ in 0..64 {
        std::io::Write::write_all(&mut gz, &zeros).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.txt.gz");
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let e = format!("{:#}", WordVectors::load(&path).unwrap_err());
    assert!(
        e.contains("bomb.txt.gz") && e.contains("line 2 is longer"),
        "{e}"
    );
}

#[test]
fn the_vector_guesser_ranks_by_cosine() {
    let v = WordVectors::read(SMALL.as_bytes()).unwrap();
    let g = VectorGuesser::new("small", v.clone());
    assert_eq!(g.name(), "small");
    let board = words(&["car", "ice cream", "apple", "lemon", "zebra"]);
    let got = g.guess("fruit", 0, &board).unwrap();
    let ranked: Vec<&str> = got.iter().map(|g| g.word.as_str()).collect();
    // zebra is unknown: never guessed. The rest by cosine with fruit = (1, 0, 0).
    assert_eq!(ranked, ["apple", "lemon", "ice cream", "car"]);
    let expect = [
        cos(&[3.0, 1.0, 0.0], &[1.0, 0.0, 0.0]),
        cos(&[2.0, 0.0, 1.0], &[1.0, 0.0, 0.0]),
        // A two-word card is the mean of its words' unit vectors: ice (0, 0, 1) and cream
        // (1/√2, 0, 1/√2).
        cos(
            &[
                0.5 * std::f64::consts::FRAC_1_SQRT_2,
                0.0,
                0.5 * (1.0 + std::f64::consts::FRAC_1_SQRT_2),
            ],
            &[1.0, 0.0, 0.0],
        ),
        0.0,
    ];
    for (g, e) in got.iter().zip(expect) {
        assert!((g.score - e).abs() < 1e-6, "{}: {} vs {e}", g.word, g.score);
    }
    // The mean, hyphen or space alike; a card with one known word is that word.
    assert_eq!(v.vector("ice-cream"), v.vector("ice cream"));
    assert_eq!(v.vector("ice zebra"), v.vector("ice"));
    assert_eq!(v.vector("zebra yak"), None);
    // The count stops the guesses.
    let two = g.guess("fruit", 2, &board).unwrap();
    assert_eq!(two.len(), 2);
    assert_eq!(two[0].word, "apple");
    // A clue it does not know ranks nothing above anything: it guesses nothing.
    assert!(g.guess("zebra", 3, &board).unwrap().is_empty());
    // A word of a two-word card leads that card.
    let icy = g.guess("ice", 1, &board).unwrap();
    assert_eq!(icy[0].word, "ice cream");
}
