//! Summary statistics shared by the `bench` subcommands (`bench`, `bench --live`,
//! `bench --search`). Pure functions, any thread.

/// The median of a sample (the upper one of an even sample; 0 when empty). Benchmarks on a
/// noisy machine quote medians, not means.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_even_and_empty_samples() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }
}
