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

    /// Reads the word2vec text format from any reader.
    pub fn read(input: impl BufRead) -> Result<WordVectors> {
        let mut lines = input.lines();
        let header = lines
            .next()
            .context("empty: no `WORDS DIMS` header line")?
            .context("line 1")?;
        let mut h = header.split_whitespace();
        let (Some(n), Some(d), None) = (h.next(), h.next(), h.next()) else {
            bail!("line 1: {header:?} is not a `WORDS DIMS` header");
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
        let mut vectors = HashMap::with_capacity(n.min(10_000_000));
        for (i, line) in lines.enumerate() {
            let no = i + 2;
            let line = line.with_context(|| format!("line {no}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let mut parts = line.split(' ').filter(|p| !p.is_empty());
            let word = parts.next().unwrap_or_default().to_string();
            let v: Vec<f32> = parts
                .map(|x| x.parse::<f32>())
                .collect::<Result<_, _>>()
                .with_context(|| format!("line {no} ({word:?}): not a number"))?;
            if v.len() != dims {
                bail!(
                    "line {no} ({word:?}): {} numbers, the header says {dims}",
                    v.len()
                );
            }
            vectors.insert(word, unit(v));
        }
        if vectors.len() != n {
            bail!(
                "{} word lines, the header says {n}: a cut or altered file",
                vectors.len()
            );
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
