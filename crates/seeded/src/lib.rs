//! Reproducible pseudo-random numbers: one small generator (SplitMix64, Steele, Lea & Flood
//! 2014) for everything the project draws from a seed (boards and games, the SVD's Gaussian
//! start, the set network's initial weights and training games). A build, a game or a trained
//! network is then the same on every machine and release, with no dependency whose stream could
//! change under it (and candle's CPU generator cannot be seeded).

/// The constant the state advances by at each draw.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The generator: a 64-bit state advanced by a constant, its output mixed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Moves past the next `n` outputs of [`SplitMix64::next_u64`] at once (the state only adds
    /// a constant per draw), so a caller that wants some rows of a long stream of draws need not
    /// draw the others.
    pub fn skip(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(GAMMA.wrapping_mul(n));
    }

    /// Uniform in `0..n` (multiply-shift; the bias is below 2⁻³² for board-sized `n`).
    /// Returns 0 for `n = 0`.
    pub fn below(&mut self, n: usize) -> usize {
        self.below_u64(n as u64) as usize
    }

    /// [`SplitMix64::below`] for ranges wider than `usize` may hold (synthetic dumps' ids).
    pub fn below_u64(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A standard normal draw (Box–Muller, one of the pair; two draws of [`SplitMix64::unit`]).
    pub fn gaussian(&mut self) -> f64 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_first_outputs() {
        // SplitMix64 seeded with 0 (the reference implementation's first two outputs).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn below_stays_in_range_and_zero_is_zero() {
        let mut r = SplitMix64::new(7);
        assert!((0..1000).all(|_| r.below(25) < 25));
        assert_eq!(r.below(0), 0);
        // Multiply-shift: the top bits of the output, scaled. 0x6e78…/2⁶⁴ × 1000 = 431.5…
        let mut r = SplitMix64::new(0);
        r.next_u64();
        assert_eq!(r.below(1000), 431);
    }

    #[test]
    fn unit_and_gaussian_by_hand() {
        // unit: the top 53 bits over 2⁵³, so the first output 0xe220… gives 0.8833…
        let mut r = SplitMix64::new(0);
        let u = r.unit();
        assert!((u - 0xe220_a839_7b1d_cdafu64 as f64 / 2f64.powi(64)).abs() < 1e-15);
        // gaussian: sqrt(−2 ln u) · cos(2π v) with the next two units.
        let mut a = SplitMix64::new(3);
        let mut b = SplitMix64::new(3);
        let (u, v) = (b.unit(), b.unit());
        let expected = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
        assert_eq!(a.gaussian(), expected);
        // Many draws: mean near 0, variance near 1.
        let xs: Vec<f64> = (0..20_000).map(|_| a.gaussian()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(
            mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
    }

    #[test]
    fn skip_lands_where_drawing_would() {
        let mut drawn = SplitMix64::new(11);
        for _ in 0..1_000 {
            drawn.next_u64();
        }
        let mut skipped = SplitMix64::new(11);
        skipped.skip(1_000);
        assert_eq!(skipped.next_u64(), drawn.next_u64());
        // A Gaussian takes two outputs: skipping 2·n passes n of them.
        let (mut a, mut b) = (SplitMix64::new(5), SplitMix64::new(5));
        for _ in 0..7 {
            a.gaussian();
        }
        b.skip(14);
        assert_eq!(a.gaussian(), b.gaussian());
    }

    #[test]
    fn shuffle_is_a_seeded_permutation() {
        let mut v: Vec<u32> = (0..50).collect();
        SplitMix64::new(9).shuffle(&mut v);
        let mut w: Vec<u32> = (0..50).collect();
        SplitMix64::new(9).shuffle(&mut w);
        assert_eq!(v, w);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}
