//! The latency figures every benchmark prints: median, p95, max and mean, the quantiles by the
//! nearest-rank rule (the value at rank ⌈p·n⌉ of the sorted samples). One crate, so that
//! `clue-db bench-suggest`, `make bench` and the serve load generator (`crates/serve/examples/load.rs`)
//! compute them alike and every table compares.

/// The `p`-quantile (0 < p ≤ 1) of sorted samples by the nearest-rank rule; `None` when empty.
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    let rank = ((p * n as f64).ceil() as usize).clamp(1, n.max(1));
    sorted.get(rank - 1).copied()
}

/// The figures of one row of a latency table, in the samples' unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub p95: f64,
    pub max: f64,
    pub mean: f64,
}

impl Summary {
    /// Median, p95, max and mean of unsorted samples; `None` when there are none.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        Some(Summary {
            n: s.len(),
            median: nearest_rank(&s, 0.5)?,
            p95: nearest_rank(&s, 0.95)?,
            max: *s.last()?,
            mean: s.iter().sum::<f64>() / s.len() as f64,
        })
    }

    /// The row's figures as `make bench`'s whole-process table and `clue-db bench-suggest` print
    /// them: count, then median, p95, max and mean to the microsecond (in ms).
    pub fn row(&self) -> String {
        format!(
            "{:>7} {:>10.3} {:>9.3} {:>9.3} {:>9.3}",
            self.n, self.median, self.p95, self.max, self.mean
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_by_hand() {
        let s: Vec<f64> = (1..=10).map(f64::from).collect();
        // ⌈0.5·10⌉ = 5, ⌈0.95·10⌉ = 10, ⌈0.1·10⌉ = 1, ⌈0.11·10⌉ = 2.
        assert_eq!(nearest_rank(&s, 0.5), Some(5.0));
        assert_eq!(nearest_rank(&s, 0.95), Some(10.0));
        assert_eq!(nearest_rank(&s, 0.1), Some(1.0));
        assert_eq!(nearest_rank(&s, 0.11), Some(2.0));
        assert_eq!(nearest_rank(&s, 1.0), Some(10.0));
        assert_eq!(nearest_rank(&[], 0.5), None);
        // One sample is every quantile; odd counts round the rank up (⌈0.5·3⌉ = 2).
        assert_eq!(nearest_rank(&[7.0], 0.95), Some(7.0));
        assert_eq!(nearest_rank(&[1.0, 2.0, 3.0], 0.5), Some(2.0));
        // 100 samples: p95 is rank 95, not an interpolation.
        let h: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(nearest_rank(&h, 0.95), Some(95.0));
        // 1,000 samples: ranks 500 and 950.
        let k: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(nearest_rank(&k, 0.5), Some(500.0));
        assert_eq!(nearest_rank(&k, 0.95), Some(950.0));
    }

    #[test]
    fn a_summary_sorts_its_samples_and_prints_a_row() {
        // 20 samples, given backwards: median rank 10, p95 rank 19.
        let v: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        let s = Summary::of(&v).unwrap();
        assert_eq!(
            s,
            Summary {
                n: 20,
                median: 10.0,
                p95: 19.0,
                max: 20.0,
                mean: 10.5
            }
        );
        assert_eq!(s.row(), "     20     10.000    19.000    20.000    10.500");
        let t = Summary::of(&[12.3456, 11.0, 30.0]).unwrap();
        assert_eq!((t.median, t.p95, t.max), (12.3456, 30.0, 30.0));
        assert!((t.mean - 17.781_866_666).abs() < 1e-6);
        assert_eq!(Summary::of(&[]), None);
    }
}
