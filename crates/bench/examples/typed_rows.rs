//! How close a row computed at query time from the stored vectors (`clue_vectors`,
//! `clue_company`: any word as a card) comes to the stored row of the same card word, over every
//! card word that is also a clue word, and how long the computation takes: one row alone, and
//! a board's 25 together (db/README.md, "Any word as a card").
//!
//! `cargo run --release -p bench --example typed_rows -- [DB]` (default `db/clues.sqlite`).

use query::Knowledge;
use query::store_knowledge::StoreKnowledge;
use query::typed::TypedCards;
use std::time::Instant;
use store::Store;

fn main() -> anyhow::Result<()> {
    let db = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "db/clues.sqlite".into());
    let store = Store::open(std::path::Path::new(&db))?;
    let k = StoreKnowledge::new(&store);
    let t = Instant::now();
    let Some(typed) = TypedCards::read(&store)? else {
        anyhow::bail!("{db}: no clue vectors (a database built before schema 8)");
    };
    let read_ms = t.elapsed().as_secs_f64() * 1e3;
    let words = k.clue_words()?;
    let ids: Vec<(String, usize)> = k
        .card_words()?
        .into_iter()
        .filter_map(|c| words.id(&c).map(|i| (c, i)))
        .collect();
    let (mut mad, mut corr, mut overlap, mut one_ms) = (0f64, 0f64, 0f64, Vec::new());
    for (card, id) in &ids {
        let stored = store.relatedness_vector(card)?.expect("a stored row").1;
        let t = Instant::now();
        let row = typed
            .rows(&store, &[(*id, words.counts[*id])])?
            .pop()
            .flatten()
            .expect("a company row");
        one_ms.push(t.elapsed().as_secs_f64() * 1e3);
        let n = stored.len() as f64;
        mad += stored
            .iter()
            .zip(&row)
            .map(|(a, b)| (a - b).abs() as f64)
            .sum::<f64>()
            / n;
        let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / n;
        let (ma, mb) = (mean(&stored), mean(&row));
        let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
        for (a, b) in stored.iter().zip(&row) {
            let (a, b) = (*a as f64 - ma, *b as f64 - mb);
            ab += a * b;
            aa += a * a;
            bb += b * b;
        }
        corr += ab / (aa * bb).sqrt();
        let top = |v: &[f32]| {
            let mut i: Vec<usize> = (0..v.len()).collect();
            i.sort_by(|&a, &b| v[b].total_cmp(&v[a]));
            i.truncate(20);
            i
        };
        let (ta, tb) = (top(&stored), top(&row));
        overlap += ta.iter().filter(|x| tb.contains(x)).count() as f64 / 20.0;
    }
    let n = ids.len().max(1) as f64;
    one_ms.sort_by(f64::total_cmp);
    let board: Vec<(usize, u64)> = ids
        .iter()
        .take(25)
        .map(|(_, i)| (*i, words.counts[*i]))
        .collect();
    let mut board_ms = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        typed.rows(&store, &board)?;
        board_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    board_ms.sort_by(f64::total_cmp);
    println!("{db}: {} card words that are clue words", ids.len());
    println!(
        "computed against stored rows: mean |difference| {:.4}, correlation {:.4}, top-20 overlap {:.3}",
        mad / n,
        corr / n,
        overlap / n
    );
    println!(
        "reading the vectors {read_ms:.1} ms; one row: median {:.3} ms; a board's 25 rows together: median {:.3} ms (20 runs)",
        one_ms[one_ms.len() / 2],
        board_ms[board_ms.len() / 2]
    );
    Ok(())
}
