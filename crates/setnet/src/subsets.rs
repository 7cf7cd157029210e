//! The non-empty subsets of a team of `n` cards, as bit masks: the loss sums over all of them,
//! and the strategy proposes a clue for each.

/// The most team cards a board may have for the subsets to be enumerated (2^12 − 1 = 4,095
/// subsets); Codenames has at most 9.
pub const MAX_TEAM: usize = 12;

/// Every non-empty subset of `0..n` once, as a bit mask (bit `i`: card `i`), in increasing
/// order: `2^n − 1` of them. `n` is capped at [`MAX_TEAM`].
pub fn subsets(n: usize) -> Vec<u32> {
    let n = n.min(MAX_TEAM);
    (1..(1u32 << n)).collect()
}

/// The cards of a subset, in increasing order.
pub fn members(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| mask & (1 << i) != 0)
}

/// The subsets as a `(2^n − 1) × n` 0/1 matrix, row-major: the product with the cards' rows
/// sums each subset's.
pub fn mask_matrix(n: usize) -> Vec<f32> {
    let n = n.min(MAX_TEAM);
    subsets(n)
        .into_iter()
        .flat_map(|m| (0..n).map(move |i| if m & (1 << i) != 0 { 1.0 } else { 0.0 }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_non_empty_subset_once() {
        for n in 0..=9 {
            let s = subsets(n);
            assert_eq!(s.len(), (1usize << n) - 1, "n = {n}");
            let mut seen = std::collections::HashSet::new();
            for &m in &s {
                assert!(m != 0 && m < (1 << n));
                assert!(seen.insert(m), "{m:b} twice");
            }
        }
        assert_eq!(subsets(9).len(), 511);
        assert_eq!(members(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert_eq!(
            mask_matrix(2),
            vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            "rows 01, 10, 11"
        );
    }
}
