//! ALS in memory, plainly: f64 factors, the normal equations of every
//! vertex formed in full and solved by Gaussian elimination with partial
//! pivoting (not the versions' Cholesky). The oracle of the tests.

use super::factors::initial;
use super::Params;
use crate::MemGraph;

/// Factors (`rank` a vertex, dense order) and the RMSE after each iteration.
pub fn als(g: &MemGraph, users: u64, p: &Params) -> (Vec<f64>, Vec<f64>) {
    let (n, k) = (g.vertices() as usize, p.rank);
    let mut x: Vec<f64> = (0..n * k).map(|e| initial(p.seed, (e / k) as u64, e % k) as f64).collect();
    let ratings = g.arcs() / 2;
    let mut rmse = Vec::new();
    for _ in 0..p.iterations {
        for fit_users in [true, false] {
            for v in 0..n {
                if ((v as u64) < users) != fit_users || g.degree(v as u64) == 0 {
                    continue;
                }
                let ws = g.edge_weights(v as u64).expect("a ratings store is weighted");
                let mut a = vec![vec![0.0; k + 1]; k];
                for (&u, &r) in g.neighbours(v as u64).iter().zip(ws) {
                    let y = &x[u as usize * k..u as usize * k + k];
                    for i in 0..k {
                        for j in 0..k {
                            a[i][j] += y[i] * y[j];
                        }
                        a[i][k] += r as f64 * y[i];
                    }
                }
                for (i, row) in a.iter_mut().enumerate() {
                    row[i] += p.lambda * ws.len() as f64;
                }
                let solution = gauss(a);
                // stored as the versions store them
                for (j, s) in solution.into_iter().enumerate() {
                    x[v * k + j] = s as f32 as f64;
                }
            }
        }
        let mut squared = 0.0;
        for v in users as usize..n {
            let ws = g.edge_weights(v as u64).unwrap_or(&[]);
            for (&u, &r) in g.neighbours(v as u64).iter().zip(ws) {
                let pred: f64 = (0..k).map(|j| x[v * k + j] * x[u as usize * k + j]).sum();
                squared += (r as f64 - pred).powi(2);
            }
        }
        rmse.push(super::factors::rmse(squared, ratings));
    }
    (x, rmse)
}

/// Solve the augmented system `a` (k rows of k + 1) by elimination with
/// partial pivoting.
fn gauss(mut a: Vec<Vec<f64>>) -> Vec<f64> {
    let k = a.len();
    for c in 0..k {
        let pivot = (c..k).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs())).unwrap();
        a.swap(c, pivot);
        for r in 0..k {
            if r != c {
                let f = a[r][c] / a[c][c];
                for j in c..=k {
                    a[r][j] -= f * a[c][j];
                }
            }
        }
    }
    (0..k).map(|i| a[i][k] / a[i][i]).collect()
}
