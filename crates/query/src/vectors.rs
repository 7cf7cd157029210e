//! An outside guesser: word vectors in the word2vec text format (a first line `WORDS DIMS`,
//! then one line per word: the word and its numbers, space-separated; `.gz` read as gzip).
//! It ranks the unrevealed cards by cosine with the clue; a two-word card is the mean of its
//! words. Used by `clue-db eval --guesser vectors:PATH` to judge clues with knowledge trained
//! elsewhere: nothing in the pipeline or the spymaster reads these vectors.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::guesser::{Guess, Guesser, ranked};

/// The longest line of a vectors file: 64 KiB (a word and 300 numbers take about 3 KB).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// Unit-length word vectors by word.
#[derive(Debug, Clone, Default)]
pub struct WordVectors {
    pub dims: usize,
    vectors: HashMap<String, Vec<f32>>,
}

impl WordVectors {
    /// Reads a word2vec text file (plain or `.gz`); errors name the file and line.
    pub fn load(path: &Path) -> Result<WordVectors> {
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let input: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
            Box::new(flate2::read::MultiGzDecoder::new(file))
        } else {
            Box::new(file)
        };
        Self::read(BufReader::new(input)).with_context(|| format!("reading {}", path.display()))
    }

    /// Reads the word2vec text format from any reader. A line longer than [`MAX_LINE_BYTES`]
    /// is an error, read no further: `vectors:/dev/zero` or a file of one 2 GB line is no
    /// vectors file, and held whole it took all the memory there was.
    pub fn read(mut input: impl BufRead) -> Result<WordVectors> {
        let mut buf = Vec::new();
        let mut next_line = |no: usize| -> Result<Option<String>> {
            buf.clear();
            let got = (&mut input)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut buf)
                .with_context(|| format!("line {no}"))?;
            if buf.len() > MAX_LINE_BYTES {
                bail!(
                    "line {no} is longer than {} KiB: not a vectors file of the word2vec text \
                     format",
                    MAX_LINE_BYTES >> 10
                );
            }
            if got == 0 {
                return Ok(None);
            }
            let line =
                std::str::from_utf8(&buf).with_context(|| format!("line {no}: not UTF-8"))?;
            Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
        };
        let header = next_line(1)?.context("empty: no `WORDS DIMS` header line")?;
        let mut h = header.split_whitespace();
        let (Some(n), Some(d), None) = (h.next(), h.next(), h.next()) else {
            bail!(
                "line 1: {} is not a `WORDS DIMS` header",
                crate::shown(&header)
            );
        };
        let n: usize = n
            .parse()
            .with_context(|| format!("line 1: word count {n:?}"))?;
        let dims: usize = d
            .parse()
            .with_context(|| format!("line 1: dimensions {d:?}"))?;
        if dims == 0 {
            bail!("line 1: 0 dimensions");
        }
        if dims > MAX_LINE_BYTES / 2 {
            bail!(
                "line 1: {dims} dimensions do not fit in a line of at most {MAX_LINE_BYTES} bytes"
            );
        }
        // The header's count is a hint only: a false one must not reserve gigabytes.
        let mut vectors = HashMap::with_capacity(n.min(1 << 20));
        let mut word_lines = 0usize;
        for no in 2.. {
            let Some(line) = next_line(no)? else { break };
            if line.trim().is_empty() {
                continue;
            }
            word_lines += 1;
            let mut parts = line.split(' ').filter(|p| !p.is_empty());
            let word = parts.next().unwrap_or_default().to_string();
            let shown = crate::shown(&word);
            let v: Vec<f32> = parts
                .map(|x| x.parse::<f32>())
                .collect::<Result<_, _>>()
                .with_context(|| format!("line {no} ({shown}): not a number"))?;
            if v.len() != dims {
                bail!(
                    "line {no} ({shown}): {} numbers, the header says {dims}",
                    v.len()
                );
            }
            if v.iter().any(|x| !x.is_finite()) {
                bail!("line {no} ({shown}): a number that is not finite");
            }
            if vectors.insert(word, unit(v)).is_some() {
                bail!("line {no}: {shown} has a vector already, on an earlier line");
            }
        }
        if word_lines != n {
            bail!("{word_lines} word lines, the header says {n}: a cut or altered file");
        }
        Ok(WordVectors { dims, vectors })
    }

    pub fn len(&self) -> usize {
        self.vectors.len()
    }
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// A word's unit vector; a card of several words is the mean of those it knows (unit
    /// length again); `None` when it knows none of them.
    pub fn vector(&self, word: &str) -> Option<Vec<f32>> {
        let parts: Vec<&Vec<f32>> = word
            .split([' ', '-'])
            .filter(|p| !p.is_empty())
            .filter_map(|p| self.vectors.get(p))
            .collect();
        if parts.is_empty() {
            return None;
        }
        let mut sum = vec![0f32; self.dims];
        for p in parts {
            sum.iter_mut().zip(p).for_each(|(s, x)| *s += x);
        }
        Some(unit(sum))
    }
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

/// Ranks cards by the cosine of their vectors with the clue's. A clue it does not know ranks
/// nothing above anything: it guesses nothing. A card it does not know is never guessed.
pub struct VectorGuesser {
    name: String,
    vectors: WordVectors,
}

impl VectorGuesser {
    pub fn new(name: &str, vectors: WordVectors) -> VectorGuesser {
        VectorGuesser {
            name: name.to_string(),
            vectors,
        }
    }
}

impl Guesser for VectorGuesser {
    fn name(&self) -> &str {
        &self.name
    }
    fn guess(&self, clue: &str, count: usize, words: &[String]) -> Result<Vec<Guess>> {
        let Some(c) = self.vectors.vector(clue) else {
            return Ok(Vec::new());
        };
        let scored = words
            .iter()
            .filter_map(|w| {
                let v = self.vectors.vector(w)?;
                let score = c.iter().zip(&v).map(|(a, b)| a * b).sum::<f32>() as f64;
                Some(Guess {
                    word: w.clone(),
                    score,
                })
            })
            .collect();
        Ok(ranked(scored, count))
    }
    fn knows(&self, card: &str) -> bool {
        self.vectors.vector(card).is_some()
    }
}
