//! Stage `relatedness`: how strongly every card word relates to every clue word, from all page
//! text (crate `relate` does the counting and the algebra). Dense, so that a query never reads a
//! missing value as "unrelated".
//!
//! Three passes over the text, each in parallel over batches of pages: token counts (the
//! vocabulary), window co-occurrence, and for each card word's strongest clue words the page and
//! sentence where they meet most (the evidence `explain` shows). English builds also read the
//! embedded WordNet: a third view of the vectors, and each card's definition, which raises its
//! scores with the words it names (db/README.md, "Relatedness", 5c and 6b).
//!
//! The tokens, stopwords and the folding of forms follow the build's language (see
//! [`relate::Vocab::build_for`]).

use crate::corpora::TextWeights;
use crate::ingest::source_of;
use crate::{progress, record};
use anyhow::{Result, bail};
use rayon::prelude::*;
use relate::cooccur::Meetings;
use relate::{Cooc, PairSet, Params, Relatedness, TypeCounter, Vocab};
use std::collections::HashMap;
use std::time::Instant;
use store::{Build, RelatednessIds};

/// Text per parallel batch, in bytes.
const BATCH_BYTES: usize = 32 << 20;
/// Clue words per card word whose meeting place is kept as evidence.
pub const EVIDENCE_PER_CARD: usize = 60;

/// Runs `f(acc, id, text)` over the text of `ids`, one accumulator per thread.
fn each_text<A: Send>(
    build: &Build,
    ids: &[u64],
    accs: &mut [A],
    what: &str,
    f: impl Fn(&mut A, u64, &str) + Sync,
) -> Result<()> {
    let pb = progress::bar(ids.len() as u64, "pages");
    pb.set_prefix(format!("relatedness: {what}"));
    let mut batch: Vec<(u64, String)> = Vec::new();
    let mut bytes = 0usize;
    let mut run = |batch: &mut Vec<(u64, String)>| {
        // Equal shares of bytes per accumulator.
        let total: usize = batch.iter().map(|(_, t)| t.len()).sum();
        let share = total / accs.len() + 1;
        let mut chunks: Vec<&[(u64, String)]> = Vec::new();
        let (mut start, mut acc) = (0, 0);
        for (i, (_, t)) in batch.iter().enumerate() {
            acc += t.len();
            if acc >= share {
                chunks.push(&batch[start..=i]);
                start = i + 1;
                acc = 0;
            }
        }
        chunks.push(&batch[start..]);
        accs.par_iter_mut().zip(chunks).for_each(|(a, chunk)| {
            for (id, text) in chunk {
                f(a, *id, text);
            }
        });
        pb.inc(batch.len() as u64);
        batch.clear();
    };
    build.reader().for_each_text(ids, |id, text| {
        bytes += text.len();
        batch.push((id, text));
        if bytes >= BATCH_BYTES {
            run(&mut batch);
            bytes = 0;
        }
        Ok(())
    })?;
    run(&mut batch);
    pb.finish_and_clear();
    Ok(())
}

/// The clue words `word`'s dictionary definition names ([`wordnet::Definitions::of`]), each
/// in any of its forms (`animal` → `animals`), as `(clue index, share)`, the word itself (id
/// `own`) left out; one pair a clue, its largest share.
fn definition_of(
    definitions: &wordnet::Definitions,
    vocab: &Vocab,
    clue_index: &HashMap<u32, usize>,
    word: &str,
    own: u32,
) -> Vec<(usize, f32)> {
    let mut pairs: Vec<(usize, f32)> = definitions
        .of(word)
        .into_iter()
        .filter_map(|(w, share)| {
            let id = vocab.id(&w);
            (id != own)
                .then(|| clue_index.get(&id).map(|&j| (j, share as f32)))
                .flatten()
        })
        .collect();
    // One pair once: two words of a definition can be forms of one clue word.
    pairs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    pairs.dedup_by_key(|x| x.0);
    pairs
}

/// Each clue word's position among the clue words, by vocabulary id.
fn clue_index(rel: &Relatedness) -> HashMap<u32, usize> {
    rel.clues
        .iter()
        .enumerate()
        .map(|(j, &id)| (id, j))
        .collect()
}

/// The pairs whose scores a card's dictionary definition raises ([`Relatedness::raise`]):
/// `(card, clue, share)` as indices into `rel.cards` and `rel.clues`, each word of the card's
/// definition ([`definition_of`]).
fn definition_pairs(
    lexicon: &wordnet::Lexicon,
    vocab: &Vocab,
    rel: &Relatedness,
) -> Vec<(usize, usize, f32)> {
    let definitions = lexicon.definitions();
    let clue_index = clue_index(rel);
    let mut pairs = Vec::new();
    for (t, (card, card_id)) in rel.cards.iter().enumerate() {
        for (j, share) in definition_of(&definitions, vocab, &clue_index, card, *card_id) {
            pairs.push((t, j, share));
        }
    }
    pairs
}

/// Clue words whose meetings a clue word keeps exactly for being scored as a card
/// (`clue_company`); its other meetings are kept as their sum. A word meets a few hundred
/// clue words often and thousands once or twice: the few hundred are most of what the
/// meetings add to its scores (db/README.md, "Any word as a card").
pub const COMPANY_KEPT: usize = 256;

/// What every clue word keeps for being scored as a card at query time ([`relate::Company`]):
/// its meetings with the other clue words (exact for a card word; for any other word its
/// weighted meetings divided by the mean weight of a meeting, measured on the card words'
/// exact ones), and its definition. Also that mean weight, for `meta`.
fn companies(
    vocab: &Vocab,
    cooc: &relate::Cooc,
    rel: &Relatedness,
    lexicon: Option<&wordnet::Lexicon>,
) -> (Vec<relate::Company>, f64) {
    let nc = rel.clues.len();
    let n = cooc.n;
    // The mean weight of one meeting, over the card words' exact meetings.
    let (mut weighted, mut plain) = (0f64, 0f64);
    for (t, &(_, card)) in rel.cards.iter().enumerate() {
        for (j, &clue) in rel.clues.iter().enumerate() {
            let m = rel.cooccurrences[t * nc + j];
            if m > 0 {
                plain += m as f64;
                weighted += cooc.m[card as usize * n + clue as usize] as f64;
            }
        }
    }
    let weight = if plain > 0.0 { weighted / plain } else { 1.0 };
    let card_row: HashMap<u32, usize> = rel
        .cards
        .iter()
        .enumerate()
        .map(|(t, &(_, id))| (id, t))
        .collect();
    let definitions = lexicon.map(|l| l.definitions());
    let index = clue_index(rel);
    let companies = rel
        .clues
        .par_iter()
        .enumerate()
        .map(|(i, &id)| {
            let meetings: Vec<u32> = match card_row.get(&id) {
                Some(&t) => rel.cooccurrences[t * nc..(t + 1) * nc].to_vec(),
                None => rel
                    .clues
                    .iter()
                    .map(|&c| {
                        let w = cooc.m[id as usize * n + c as usize] as f64;
                        (w / weight).round() as u32
                    })
                    .collect(),
            };
            let mut meetings = meetings;
            meetings[i] = 0;
            let definition = definitions.as_ref().map_or_else(Vec::new, |d| {
                definition_of(d, vocab, &index, &vocab.words[id as usize], id)
                    .into_iter()
                    .map(|(j, s)| (j as u32, s))
                    .collect()
            });
            relate::Company::from_meetings(&meetings, COMPANY_KEPT, definition)
        })
        .collect();
    (companies, weight)
}

/// The dictionary view's vectors for `words` ([`relate::dictionary`] over WordNet's contexts),
/// and how many of the words WordNet has.
fn dictionary_vectors(
    lexicon: &wordnet::Lexicon,
    words: &[String],
    p: &Params,
) -> (relate::linalg::Mat, usize) {
    let contexts = lexicon.contexts();
    let headword = contexts.headword_rows(lexicon, words);
    let known = headword.iter().flatten().count();
    let v = relate::dictionary::vectors(&contexts.rows, contexts.columns.len(), &headword, p);
    (v, known)
}

/// One view of relatedness: its name in `meta`, its unit-length word vectors and its nominal
/// weight ([`Params::skip_gram_weight`], [`Params::dictionary_weight`]).
struct View<'a> {
    name: &'static str,
    vecs: &'a relate::linalg::Mat,
    weight: f32,
}

impl<'a> View<'a> {
    /// The views the build has, at their nominal weights: the text's SVD and skip-gram share
    /// what the dictionary leaves, by the skip-gram's weight.
    fn all(
        svd: &'a relate::linalg::Mat,
        skip_gram: Option<&'a relate::linalg::Mat>,
        dictionary: Option<&'a relate::linalg::Mat>,
        p: &Params,
    ) -> Vec<View<'a>> {
        let text = if dictionary.is_some() {
            1.0 - p.dictionary_weight
        } else {
            1.0
        };
        let sg = if skip_gram.is_some() {
            p.skip_gram_weight
        } else {
            0.0
        };
        let mut views = vec![View {
            name: "svd",
            vecs: svd,
            weight: text * (1.0 - sg),
        }];
        views.extend(skip_gram.map(|vecs| View {
            name: "skip_gram",
            vecs,
            weight: text * sg,
        }));
        views.extend(dictionary.map(|vecs| View {
            name: "dictionary",
            vecs,
            weight: p.dictionary_weight,
        }));
        views
    }
}

/// The views joined so that each weighs its nominal share in standard deviations of its own
/// cosines between card words and clue words ([`relate::spread_weights`]), and for `meta`
/// each view's `name spread weight`: raw cosines would give the skip-gram, whose 50
/// dimensions spread its cosines twice as wide as the SVDs' 200, half the say.
fn join_views(views: &[View<'_>], vocab: &Vocab) -> (relate::linalg::Mat, String) {
    let cards: Vec<u32> = vocab.cards.iter().map(|&(_, id)| id).collect();
    let clues = vocab.clue_ids();
    let spreads: Vec<f32> = views
        .iter()
        .map(|v| relate::cosine_spread(v.vecs, &cards, &clues))
        .collect();
    let nominal: Vec<f32> = views.iter().map(|v| v.weight).collect();
    let weights = relate::spread_weights(&nominal, &spreads);
    let joined: Vec<(&relate::linalg::Mat, f32)> = views
        .iter()
        .zip(&weights)
        .map(|(v, &w)| (v.vecs, w))
        .collect();
    let described = views
        .iter()
        .zip(spreads.iter().zip(&weights))
        .map(|(v, (s, w))| format!("{} {s:.4} {w:.4}", v.name))
        .collect::<Vec<_>>()
        .join(", ");
    (relate::join_all(&joined), described)
}

/// What every pass over the text needs: the pages to read, the card words (and the pairs
/// of words that are one card), the build's language, one accumulator per thread.
struct Input {
    cards: Vec<String>,
    ids: Vec<u64>,
    pairs: PairSet,
    language: text::Language,
    threads: usize,
    /// How many times each source's text counts in the co-occurrence, the meetings and the
    /// skip-gram, by source ([`source_of`] a page's id).
    copies: Vec<u32>,
}

impl Input {
    /// How many times page `id`'s text counts ([`crate::corpora::TextWeights`]); 1 for a page
    /// of no named corpus (a database made by `clue-db ingest` names none).
    fn copies(&self, id: u64) -> u32 {
        let source = source_of(id);
        debug_assert!(
            self.copies.is_empty() || source < self.copies.len(),
            "page {id} of source {source}, past the {} corpora `meta` names",
            self.copies.len()
        );
        self.copies.get(source).copied().unwrap_or(1)
    }
}

/// Each phase's seconds, for `meta` (`seconds_words`, …).
type Times = Vec<(&'static str, f64)>;

/// Pass 1: the token counts, and from them the vocabulary (card words and clue words above
/// the floor, [`relate::MinCount`]).
fn vocabulary(build: &Build, input: &Input, p: &Params) -> Result<(TypeCounter, Vocab, u64)> {
    let mut types: Vec<TypeCounter> = (0..input.threads).map(|_| TypeCounter::default()).collect();
    each_text(build, &input.ids, &mut types, "words", |a, _, text| {
        a.add(text, &input.pairs)
    })?;
    let mut all = types.pop().unwrap_or_default();
    for t in types {
        all.merge(t);
    }
    // The clue words' floor, from the corpus's size unless given (see [`relate::MinCount`]).
    let min_count = p.min_count.resolve(all.tokens);
    let vocab = Vocab::build_for(all.counts(), &input.cards, min_count, input.language);
    Ok((all, vocab, min_count))
}

/// Pass 2: the window co-occurrence, and (for the skip-gram) every page's sentences as one
/// stream of word ids in page order; the vocabulary learns each word's pages and drops the
/// words on too many of them.
fn cooccurrence(
    build: &Build,
    input: &Input,
    vocab: &mut Vocab,
    all_pages: u64,
    p: &Params,
) -> Result<(Cooc, Vec<u32>)> {
    // Each thread counts its pages' meetings and keeps their sentences for the skip-gram, by
    // page id: the stream is in page order whatever the number of threads.
    let skip_gram = p.skip_gram_weight > 0.0;
    type Acc = (Cooc, Vec<(u64, Vec<u32>)>);
    let mut accs: Vec<Acc> = (0..input.threads)
        .map(|_| (Cooc::for_vocab(vocab), Vec::new()))
        .collect();
    let v: &Vocab = vocab;
    each_text(
        build,
        &input.ids,
        &mut accs,
        "co-occurrence",
        |(c, s), id, text| {
            let mut sentences = Vec::new();
            let keep = skip_gram.then_some(&mut sentences);
            let copies = input.copies(id);
            c.add(text, v, &input.pairs, p.window, p.weighting, copies, keep);
            if skip_gram {
                s.push((id, sentences));
            }
        },
    )?;
    let (mut coocs, streams): (Vec<Cooc>, Vec<_>) = accs.into_iter().unzip();
    let mut pages: Vec<(u64, Vec<u32>)> = streams.into_iter().flatten().collect();
    pages.sort_unstable_by_key(|(id, _)| *id);
    let stream: Vec<u32> = pages.into_iter().flat_map(|(_, s)| s).collect();
    let mut cooc = coocs.pop().expect("one accumulator per thread");
    for c in &coocs {
        cooc.merge(c);
    }
    drop(coocs);
    cooc.finish();
    vocab.pages = cooc.pages.clone();
    vocab.limit_generality((p.max_page_share * all_pages as f64) as u64);
    Ok((cooc, stream))
}

/// What the algebra made of the counts: the scores, the joined vectors, and what `meta` says
/// of the views.
struct Learned {
    rel: Relatedness,
    vecs: relate::linalg::Mat,
    lexicon: Option<wordnet::Lexicon>,
    /// Each view's `name spread weight` ([`join_views`]).
    views: String,
    dictionary_words: usize,
    definition_pairs: usize,
    stream_tokens: usize,
}

/// The views (the text's PPMI by SVD, the skip-gram over `stream`, the dictionary), joined;
/// the scores ([`Relatedness::compute`]) raised by the cards' definitions.
fn learn(
    vocab: &Vocab,
    cooc: &Cooc,
    stream: Vec<u32>,
    language: text::Language,
    p: &Params,
    times: &mut Times,
) -> Learned {
    let t = Instant::now();
    let m = relate::ppmi(cooc, p.alpha);
    times.push(("seconds_ppmi", t.elapsed().as_secs_f64()));
    let t = Instant::now();
    let svd = relate::vectors(&m, p);
    times.push(("seconds_svd", t.elapsed().as_secs_f64()));
    let t = Instant::now();
    let skip_gram_vecs = (p.skip_gram_weight > 0.0).then(|| {
        let pb = progress::bar((stream.len() * p.skip_gram.epochs) as u64, "words");
        pb.set_prefix("relatedness: skip-gram");
        let sg = relate::sgns::train(&stream, vocab.len(), &p.skip_gram, |n| pb.inc(n));
        pb.finish_and_clear();
        sg
    });
    let stream_tokens = stream.iter().filter(|&&t| t != relate::sgns::SEP).count();
    drop(stream);
    times.push(("seconds_skip_gram", t.elapsed().as_secs_f64()));
    let t = Instant::now();
    // The dictionary view: English only, WordNet being an English dictionary.
    let dictionary = p.dictionary_weight > 0.0 && language.is_english();
    let lexicon = dictionary.then(wordnet::Lexicon::embedded);
    let (dictionary_vecs, dictionary_words) = match &lexicon {
        Some(lexicon) => {
            let (d, known) = dictionary_vectors(lexicon, &vocab.words, p);
            (Some(d), known)
        }
        None => (None, 0),
    };
    times.push(("seconds_dictionary", t.elapsed().as_secs_f64()));
    let views = View::all(&svd, skip_gram_vecs.as_ref(), dictionary_vecs.as_ref(), p);
    let (vecs, views) = join_views(&views, vocab);
    drop((svd, skip_gram_vecs, dictionary_vecs));
    let mut rel = Relatedness::compute(vocab, cooc, &m, &vecs, p);
    let t = Instant::now();
    let definition_pairs = match &lexicon {
        Some(lexicon) if p.definition_weight > 0.0 => {
            let pairs = definition_pairs(lexicon, vocab, &rel);
            rel.raise(&pairs, p.definition_weight)
        }
        _ => 0,
    };
    times.push(("seconds_definitions", t.elapsed().as_secs_f64()));
    Learned {
        rel,
        vecs,
        lexicon,
        views,
        dictionary_words,
        definition_pairs,
        stream_tokens,
    }
}

/// A pair of vocabulary ids (the lower first) → its place in the list of wanted pairs.
type PairIndex = HashMap<(u32, u32), usize>;

/// The pairs whose meeting place is kept as evidence: each card word's
/// [`EVIDENCE_PER_CARD`] strongest clue words that it meets at all, each pair once, as
/// `(card index, clue index)` and by its two vocabulary ids.
fn evidence_pairs(rel: &Relatedness) -> (PairIndex, Vec<(usize, usize)>) {
    let nc = rel.clues.len();
    let mut wanted: PairIndex = HashMap::new();
    let mut wanted_list: Vec<(usize, usize)> = Vec::new();
    for (ti, &(_, card)) in rel.cards.iter().enumerate() {
        let row = &rel.score[ti * nc..(ti + 1) * nc];
        let mut order: Vec<usize> = (0..nc)
            .filter(|&j| rel.cooccurrences[ti * nc + j] > 0)
            .collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        for &j in order.iter().take(EVIDENCE_PER_CARD) {
            let clue = rel.clues[j];
            let key = if card < clue {
                (card, clue)
            } else {
                (clue, card)
            };
            if let std::collections::hash_map::Entry::Vacant(e) = wanted.entry(key) {
                e.insert(wanted_list.len());
                wanted_list.push((ti, j));
            }
        }
    }
    (wanted, wanted_list)
}

/// Pass 3: where each pair of [`evidence_pairs`] meets most, with a sentence.
fn evidence(
    build: &Build,
    input: &Input,
    vocab: &Vocab,
    rel: &Relatedness,
    p: &Params,
) -> Result<(Vec<(usize, usize)>, Meetings)> {
    let (wanted, wanted_list) = evidence_pairs(rel);
    // Every wanted pair has a card in it: only card ids are flagged.
    let mut flagged = vec![false; vocab.len()];
    for &(_, id) in &rel.cards {
        flagged[id as usize] = true;
    }
    let mut meets: Vec<Meetings> = (0..input.threads)
        .map(|_| Meetings::new(wanted_list.len()))
        .collect();
    each_text(build, &input.ids, &mut meets, "evidence", |a, id, text| {
        a.add(id, text, vocab, &input.pairs, p.window, &wanted, &flagged)
    })?;
    let mut meetings = meets.pop().expect("one accumulator per thread");
    for m in meets {
        meetings.merge(m);
    }
    Ok((wanted_list, meetings))
}

/// What any vocabulary word needs to be a card at query time: every clue word's joined vector
/// (row-major, `dims` wide) and company.
struct AnyWord {
    dims: usize,
    clue_vecs: Vec<f32>,
    companies: Vec<relate::Company>,
    meeting_mean_weight: f64,
}

/// The stage's tables, in one transaction: the clue words and their other forms, the card
/// words with a vector (`blank` marks those without: they get no row), their rows, the clue
/// words' vectors and company, the evidence. Returns the card words written.
fn write(
    build: &Build,
    vocab: &Vocab,
    rel: &Relatedness,
    any: &AnyWord,
    blank: &[bool],
    wanted_list: &[(usize, usize)],
    meetings: &Meetings,
) -> Result<usize> {
    let nc = rel.clues.len();
    let pb = progress::bar(rel.cards.len() as u64, "card words");
    pb.set_prefix("relatedness: write");
    build.begin()?;
    build.clear(&[
        "clue_words",
        "card_words",
        "relatedness_by_id",
        "relatedness_vectors",
        "relatedness_evidence",
        "clue_forms",
        "clue_vectors",
        "clue_company",
    ])?;
    let clue_words: Vec<(&str, u64, u64, f32)> = rel
        .clues
        .iter()
        .zip(&rel.risk)
        .map(|(&c, &risk)| {
            let c = c as usize;
            (
                vocab.words[c].as_str(),
                vocab.counts[c],
                vocab.pages[c],
                risk,
            )
        })
        .collect();
    build.replace_clue_words(&clue_words)?;
    let forms: Vec<(&str, &str)> = vocab
        .other_forms()
        .into_iter()
        .filter(|&(_, id)| vocab.candidate[id as usize])
        .map(|(form, id)| (form, vocab.words[id as usize].as_str()))
        .collect();
    build.replace_clue_forms(&forms)?;
    let kept: Vec<usize> = (0..rel.cards.len()).filter(|&t| !blank[t]).collect();
    let cards: Vec<&str> = kept.iter().map(|&t| rel.cards[t].0.as_str()).collect();
    build.replace_card_words(&cards)?;
    build.replace_clue_vectors(any.dims, &any.clue_vecs)?;
    for (j, c) in any.companies.iter().enumerate() {
        build.insert_clue_company(
            j as u32,
            &store::CompanyRow {
                meetings: c.meetings.clone(),
                rest_meetings: c.rest_meetings,
                rest_pairs: c.rest_pairs,
                definition: c.definition.clone(),
            },
        )?;
    }
    for (card_id, &ti) in kept.iter().enumerate() {
        let (card, id) = &rel.cards[ti];
        let k = ti * nc..(ti + 1) * nc;
        for j in 0..nc {
            let at = ti * nc + j;
            build.insert_relatedness(&RelatednessIds {
                card_id: card_id as u32,
                clue_id: j as u32,
                score: rel.score[at],
                ppmi: rel.ppmi[at],
                cosine: rel.cosine[at],
                cooccurrences: rel.cooccurrences[at],
            })?;
        }
        build.insert_relatedness_vector(card, vocab.counts[*id as usize], &rel.score[k.clone()])?;
        pb.inc(1);
    }
    for (p_idx, &(ti, j)) in wanted_list.iter().enumerate() {
        if blank[ti] {
            continue;
        }
        if let Some((page, n, sentence)) = &meetings.best[p_idx] {
            let excerpt = crate::shared::excerpt(sentence);
            build.insert_meeting(
                &rel.cards[ti].0,
                clue_words[j].0,
                *page,
                *n as u64,
                Some(&excerpt),
            )?;
        }
    }
    build.commit()?;
    pb.finish_and_clear();
    Ok(kept.len())
}

/// Runs the stage: every listed card word against every clue word of the articles' text,
/// written with its evidence and the vectors of any word as a card, then the `inflections`
/// table and the figures in `meta`. Fails without card words or clue words, and on a text
/// weight for a corpus the build does not have.
pub fn run(build: &Build, p: &Params, weights: &TextWeights) -> Result<()> {
    p.check().map_err(anyhow::Error::msg)?;
    let reader = build.reader();
    let weighed = weights.for_build(build)?;
    let copies: Vec<u32> = weighed.iter().map(|(_, w)| *w).collect();
    let text_weights: Vec<String> = weighed.iter().map(|(c, w)| format!("{c}={w}")).collect();
    let cards = reader.listed_terms()?;
    if cards.is_empty() {
        bail!("no card words: run the `terms` stage first");
    }
    let ids: Vec<u64> = reader
        .pages()?
        .into_iter()
        .filter(|pg| pg.ns == 0 && pg.redirect_to.is_none())
        .map(|pg| pg.id)
        .collect();
    let language = crate::language(build)?;
    let input = Input {
        pairs: PairSet::with_language(cards.iter().map(String::as_str), language),
        cards,
        ids,
        language,
        threads: rayon::current_num_threads().max(1),
        copies,
    };
    let mut times: Times = Vec::new();

    let t = Instant::now();
    let (all, mut vocab, min_count) = vocabulary(build, &input, p)?;
    times.push(("seconds_words", t.elapsed().as_secs_f64()));

    let t = Instant::now();
    let (cooc, stream) = cooccurrence(build, &input, &mut vocab, all.pages, p)?;
    times.push(("seconds_cooccurrence", t.elapsed().as_secs_f64()));

    let Learned {
        rel,
        vecs,
        lexicon,
        views,
        dictionary_words,
        definition_pairs,
        stream_tokens,
    } = learn(&vocab, &cooc, stream, language, p, &mut times);
    let rel = &rel;

    // Any vocabulary word as a card: every clue word's joined vector and company.
    let t = Instant::now();
    let (companies, meeting_mean_weight) = companies(&vocab, &cooc, rel, lexicon.as_ref());
    // The co-occurrence counts (a dense matrix of the vocabulary) and the joined vectors are not
    // needed past here: freed before the evidence pass and the writes.
    let sentences = cooc.sentences;
    drop(cooc);
    let any = AnyWord {
        dims: vecs.cols,
        clue_vecs: rel
            .clues
            .iter()
            .flat_map(|&id| vecs.row(id as usize).iter().copied())
            .collect(),
        companies,
        meeting_mean_weight,
    };
    // A card word neither the text nor the dictionary knows has no vector: its row would be
    // every clue word's mean, a card that seems safe to avoid and is never reached. It gets no
    // row, so that a board treats it as the unknown word it is (a warning, and a risk).
    let blank: Vec<bool> = rel
        .cards
        .iter()
        .map(|&(_, id)| vecs.row(id as usize).iter().all(|&x| x == 0.0))
        .collect();
    drop(vecs);
    times.push(("seconds_company", t.elapsed().as_secs_f64()));

    // Evidence: each card word's strongest clue words, where they meet.
    let t = Instant::now();
    let (wanted_list, meetings) = evidence(build, &input, &vocab, rel, p)?;
    times.push(("seconds_evidence", t.elapsed().as_secs_f64()));

    // A build without clue words answers no board: fail it, so it replaces no database.
    let nc = rel.clues.len();
    if nc == 0 {
        bail!(
            "no clue words: no word of the {} pages' text occurs --min-count {} times on at most \
             --max-page-share {} of the pages; lower --min-count, or build from more text",
            all.pages,
            min_count,
            p.max_page_share
        );
    }
    let t = Instant::now();
    let kept = write(build, &vocab, rel, &any, &blank, &wanted_list, &meetings)?;
    times.push(("seconds_write", t.elapsed().as_secs_f64()));
    let inflections = crate::shared::refresh_inflections(build)?;

    let unseen: Vec<&str> = rel
        .cards
        .iter()
        .filter(|(_, id)| vocab.counts[*id as usize] == 0)
        .map(|(c, _)| c.as_str())
        .collect();
    let mut figures: Vec<(&str, String)> = vec![
        ("pages", all.pages.to_string()),
        ("tokens", all.tokens.to_string()),
        ("sentences", sentences.to_string()),
        ("vocabulary", vocab.len().to_string()),
        ("clue_words", nc.to_string()),
        ("card_words", kept.to_string()),
        (
            "card_words_unknown",
            (0..rel.cards.len())
                .filter(|&t| blank[t])
                .map(|t| rel.cards[t].0.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ),
        ("card_words_unseen", unseen.join(",")),
        ("text_weights", text_weights.join(",")),
        ("window", p.window.to_string()),
        ("weighting", p.weighting.name().to_string()),
        ("min_count", min_count.to_string()),
        ("min_count_rule", p.min_count.rule()),
        ("max_page_share", p.max_page_share.to_string()),
        ("alpha", p.alpha.to_string()),
        ("dims", p.dims.to_string()),
        ("sigma_power", p.sigma_power.to_string()),
        ("ppmi_weight", p.ppmi_weight.to_string()),
        ("ppmi_mean", rel.parts.ppmi.mean.to_string()),
        ("ppmi_std", rel.parts.ppmi.std.to_string()),
        ("cosine_mean", rel.parts.cosine.mean.to_string()),
        ("cosine_std", rel.parts.cosine.std.to_string()),
        ("meeting_weight", p.meeting_weight.to_string()),
        ("meeting_card_power", p.meeting_card_power.to_string()),
        ("meetings_card_median", rel.parts.card_median.to_string()),
        ("skip_gram_weight", p.skip_gram_weight.to_string()),
        ("skip_gram_dims", p.skip_gram.dims.to_string()),
        ("skip_gram_window", p.skip_gram.window.to_string()),
        ("skip_gram_negative", p.skip_gram.negative.to_string()),
        ("skip_gram_sample", p.skip_gram.sample.to_string()),
        ("skip_gram_epochs", p.skip_gram.epochs.to_string()),
        ("skip_gram_tokens", stream_tokens.to_string()),
        (
            "dictionary_weight",
            if lexicon.is_some() {
                p.dictionary_weight
            } else {
                0.0
            }
            .to_string(),
        ),
        ("dictionary_words", dictionary_words.to_string()),
        ("views", views),
        (
            "definition_weight",
            if lexicon.is_some() {
                p.definition_weight
            } else {
                0.0
            }
            .to_string(),
        ),
        ("definition_pairs", definition_pairs.to_string()),
        ("meetings_mean", rel.parts.meetings.mean.to_string()),
        ("meetings_std", rel.parts.meetings.std.to_string()),
        ("mix_mean", rel.mix_scale.mean.to_string()),
        (
            "reading_ppmi_mean",
            rel.reading_scales.ppmi.mean.to_string(),
        ),
        ("reading_ppmi_std", rel.reading_scales.ppmi.std.to_string()),
        (
            "reading_cosine_mean",
            rel.reading_scales.cosine.mean.to_string(),
        ),
        (
            "reading_cosine_std",
            rel.reading_scales.cosine.std.to_string(),
        ),
        ("reading_mix_mean", rel.reading_scales.mix.mean.to_string()),
        ("reading_mix_std", rel.reading_scales.mix.std.to_string()),
        ("mix_std", rel.mix_scale.std.to_string()),
        ("evidence_pairs", wanted_list.len().to_string()),
        ("inflections", inflections.to_string()),
        ("vector_dims", any.dims.to_string()),
        ("company_kept", COMPANY_KEPT.to_string()),
        (
            "meeting_mean_weight",
            format!("{:.4}", any.meeting_mean_weight),
        ),
    ];
    figures.extend(times.iter().map(|(k, v)| (*k, format!("{v:.3}"))));
    record(build, "relatedness", &figures)
}
