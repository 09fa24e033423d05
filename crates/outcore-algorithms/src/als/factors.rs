//! The arithmetic every ALS version shares: the seeded initial factors and
//! one vertex's update, the regularised least-squares fit of its factor
//! vector to its ratings given the other side's factors (ALS-WR, Zhou et
//! al. 2008, equation 5):
//!
//!   x_u = (sum_i y_i y_i^T + lambda n_u I)^-1 sum_i r_ui y_i
//!
//! over the n_u items i that u rated (and the same for items over users),
//! solved in f64 by Cholesky (the matrix is symmetric positive definite
//! for lambda > 0).

use outcore_io::hash::splitmix64;

/// The most factors a vertex may have.
pub const MAX_RANK: usize = 64;

const INIT_STREAM: u64 = 0xA15_1A1;

/// Initial factor `j` of vertex `v` (dense id) for `seed`: uniform in [0, 1).
pub fn initial(seed: u64, v: u64, j: usize) -> f32 {
    let bits = splitmix64(splitmix64(seed ^ INIT_STREAM) ^ (v.wrapping_mul(MAX_RANK as u64) + j as u64));
    ((bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)) as f32
}

/// Fit `out` (the first `rank` factors) to `ratings`: pairs of a rating and
/// the rater's (or rated's) factors, of which the first `rank` are read.
/// Returns false, leaving `out` as it was, when there are no ratings.
pub fn fit<Y: AsRef<[f32]>>(rank: usize, lambda: f64, ratings: impl Iterator<Item = (f32, Y)>, out: &mut [f32]) -> bool {
    debug_assert!(rank <= MAX_RANK && out.len() >= rank);
    let mut a = [0f64; MAX_RANK * MAX_RANK];
    let mut b = [0f64; MAX_RANK];
    let mut n = 0u64;
    let mut y = [0f64; MAX_RANK];
    for (r, factors) in ratings {
        for (t, &f) in y[..rank].iter_mut().zip(factors.as_ref()) {
            *t = f as f64;
        }
        // the lower triangle of sum y y^T, row by row
        for i in 0..rank {
            let row = &mut a[i * MAX_RANK..i * MAX_RANK + i + 1];
            let yi = y[i];
            for (cell, &yj) in row.iter_mut().zip(&y[..=i]) {
                *cell += yi * yj;
            }
            b[i] += r as f64 * yi;
        }
        n += 1;
    }
    if n == 0 {
        return false;
    }
    for i in 0..rank {
        a[i * MAX_RANK + i] += lambda * n as f64;
    }
    if !cholesky_solve(&mut a, &mut b, rank) {
        return false;
    }
    for (o, &x) in out[..rank].iter_mut().zip(&b[..rank]) {
        *o = x as f32;
    }
    true
}

/// Solve `A x = b` in place for symmetric positive definite `A` (its
/// lower triangle, rows of stride [`MAX_RANK`]): `b` becomes `x`. False if
/// `A` is not positive definite (no update is made then).
fn cholesky_solve(a: &mut [f64; MAX_RANK * MAX_RANK], b: &mut [f64; MAX_RANK], k: usize) -> bool {
    // A = L L^T, L over A's lower triangle
    for j in 0..k {
        let mut d = a[j * MAX_RANK + j];
        for p in 0..j {
            d -= a[j * MAX_RANK + p] * a[j * MAX_RANK + p];
        }
        if d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[j * MAX_RANK + j] = d;
        for i in j + 1..k {
            let mut s = a[i * MAX_RANK + j];
            for p in 0..j {
                s -= a[i * MAX_RANK + p] * a[j * MAX_RANK + p];
            }
            a[i * MAX_RANK + j] = s / d;
        }
    }
    // L z = b, then L^T x = z
    for i in 0..k {
        let mut s = b[i];
        for p in 0..i {
            s -= a[i * MAX_RANK + p] * b[p];
        }
        b[i] = s / a[i * MAX_RANK + i];
    }
    for i in (0..k).rev() {
        let mut s = b[i];
        for p in i + 1..k {
            s -= a[p * MAX_RANK + i] * b[p];
        }
        b[i] = s / a[i * MAX_RANK + i];
    }
    true
}

/// The squared error of `x`'s fit to `ratings` (pairs as [`fit`] takes them).
pub fn squared_error<Y: AsRef<[f32]>>(rank: usize, x: &[f32], ratings: impl Iterator<Item = (f32, Y)>) -> f64 {
    ratings
        .map(|(r, y)| {
            let p: f64 = x[..rank].iter().zip(&y.as_ref()[..rank]).map(|(&a, &b)| a as f64 * b as f64).sum();
            (r as f64 - p).powi(2)
        })
        .sum()
}

/// The root mean squared error of `ratings` ratings whose squared errors sum to `squared` (0 without ratings).
pub fn rmse(squared: f64, ratings: u64) -> f64 {
    if ratings == 0 {
        0.0
    } else {
        (squared / ratings as f64).sqrt()
    }
}

/// An f64 sum shared by threads (a compare-and-swap on its bits).
#[derive(Default)]
pub struct SharedSum(std::sync::atomic::AtomicU64);

impl SharedSum {
    pub fn add(&self, x: f64) {
        use std::sync::atomic::Ordering::Relaxed;
        let mut old = self.0.load(Relaxed);
        while let Err(now) = self.0.compare_exchange_weak(old, (f64::from_bits(old) + x).to_bits(), Relaxed, Relaxed) {
            old = now;
        }
    }
    pub fn take(&self) -> f64 {
        f64::from_bits(self.0.swap(0, std::sync::atomic::Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_solves_the_regularised_normal_equations() {
        // two ratings, rank 2: (y1 = [1, 0], r = 2), (y2 = [1, 1], r = 3), lambda 0.5
        // A = [[2, 1], [1, 1]] + 0.5 * 2 I = [[3, 1], [1, 2]], b = [5, 3] -> x = [7/5, 4/5]
        let (y1, y2) = ([1f32, 0.0], [1f32, 1.0]);
        let mut x = [0f32; 2];
        assert!(fit(2, 0.5, [(2.0, &y1[..]), (3.0, &y2[..])].into_iter(), &mut x));
        assert!((x[0] - 1.4).abs() < 1e-6 && (x[1] - 0.8).abs() < 1e-6, "{x:?}");
        let mut untouched = [9f32; 2];
        assert!(!fit(2, 0.5, std::iter::empty::<(f32, &[f32])>(), &mut untouched));
        assert_eq!(untouched, [9.0, 9.0]);
    }

    #[test]
    fn shared_sum_adds_from_many_threads() {
        let s = SharedSum::default();
        std::thread::scope(|t| {
            for _ in 0..4 {
                t.spawn(|| (0..1000).for_each(|_| s.add(0.5)));
            }
        });
        assert_eq!(s.take(), 2000.0);
        assert_eq!(s.take(), 0.0);
    }
}
