//! The set network's seeded generator: games and initial weights depend on the seed only, never
//! on the machine or a thread-local generator (candle's CPU generator cannot be seeded). The
//! stream is the `seeded` crate's SplitMix64; the seed is offset and [`Rng::below`] takes the
//! remainder (not SplitMix64's multiply-shift), as when the stored networks were trained, so the
//! same seed still trains the same weights.

use seeded::SplitMix64;

#[derive(Debug, Clone)]
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed ^ 0x5DEE_CE66_D1CE_4E5B))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`), by remainder.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0.unit()
    }

    /// Standard normal (Box–Muller).
    #[cfg(test)]
    pub fn gaussian(&mut self) -> f64 {
        self.0.gaussian()
    }

    /// The first `k` items of a seeded shuffle of `0..n` (partial Fisher–Yates).
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        let k = k.min(n);
        for i in 0..k {
            let j = i + self.below(n - i);
            all.swap(i, j);
        }
        all.truncate(k);
        all
    }
}
