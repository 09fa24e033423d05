//! Graph500 (graph500.org): the validation rules ([`rules`], used by the
//! BFS and SSSP validators) and the statistics block of the reference
//! implementation's output. The benchmark driver (generation, kernels,
//! validation) is the facade crate's `outcore::graph500`.

pub mod rules;

pub use crate::bfs::validate::validate_bfs;
pub use crate::sssp::validate::validate_sssp;
pub use rules::{Validated, Violation};

/// The reference implementation's statistics of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Statistics {
    pub min: f64,
    pub first_quartile: f64,
    pub median: f64,
    pub third_quartile: f64,
    pub max: f64,
    pub mean: f64,
    pub stddev: f64,
    pub harmonic_mean: f64,
    pub harmonic_stddev: f64,
}

/// As `get_statistics` in the reference code: quartiles average the two
/// middle order statistics, stddev uses n-1, and the harmonic standard
/// deviation is sqrt(sum (1/x - 1/h)^2) / (n-1) * h^2.
pub fn statistics(sample: &[f64]) -> Statistics {
    let mut x = sample.to_vec();
    x.sort_by(|a, b| a.total_cmp(b));
    let n = x.len();
    assert!(n > 0);
    let mean = x.iter().sum::<f64>() / n as f64;
    let var = if n > 1 { x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let hmean = n as f64 / x.iter().map(|v| 1.0 / v).sum::<f64>();
    let htemp: f64 = x.iter().map(|v| (1.0 / v - 1.0 / hmean).powi(2)).sum();
    Statistics {
        min: x[0],
        first_quartile: (x[(n - 1) / 4] + x[n / 4]) * 0.5,
        median: (x[(n - 1) / 2] + x[n / 2]) * 0.5,
        third_quartile: (x[n - 1 - (n - 1) / 4] + x[n - 1 - n / 4]) * 0.5,
        max: x[n - 1],
        mean,
        stddev: var.sqrt(),
        harmonic_mean: hmean,
        harmonic_stddev: if n > 1 { htemp.sqrt() / (n - 1) as f64 * hmean * hmean } else { 0.0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_match_the_reference_definitions() {
        let s = statistics(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!((s.min, s.max, s.median, s.mean), (1.0, 4.0, 2.5, 2.5));
        assert_eq!((s.first_quartile, s.third_quartile), (1.5, 3.5));
        assert!((s.stddev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((s.harmonic_mean - 4.0 / (1.0 + 0.5 + 1.0 / 3.0 + 0.25)).abs() < 1e-12);
        // the harmonic mean is 48/25: sqrt(sum (1/x - 25/48)^2) / 3 * (48/25)^2
        let spread = [1.0, 0.5, 1.0 / 3.0, 0.25].iter().map(|r: &f64| (r - 25.0 / 48.0).powi(2)).sum::<f64>().sqrt();
        assert!((s.harmonic_stddev - spread / 3.0 * (48.0f64 / 25.0).powi(2)).abs() < 1e-12, "{}", s.harmonic_stddev);
        assert!((s.harmonic_stddev - 0.71497).abs() < 1e-5, "{}", s.harmonic_stddev);
        // one sample has no spread
        let one = statistics(&[7.0]);
        assert_eq!((one.min, one.first_quartile, one.median, one.third_quartile, one.max), (7.0, 7.0, 7.0, 7.0, 7.0));
        assert_eq!((one.stddev, one.harmonic_mean, one.harmonic_stddev), (0.0, 7.0, 0.0));
    }
}
