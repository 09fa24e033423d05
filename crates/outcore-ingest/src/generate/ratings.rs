//! Planted low-rank ratings (the data of VENUS's collaborative-filtering
//! experiment, section 5, with a known answer): user `u` and item `i` have
//! hidden factors `x_u`, `y_i` in [0, 1)^rank, and the rating of a pair is
//! `x_u . y_i` plus Gaussian noise of deviation `noise`. ALS of that rank
//! (or more) fits the ratings to an RMSE near `noise` and predicts unseen
//! pairs near `x_u . y_i`.
//!
//! Rating `k` goes to user `k mod users` (every user gets the same number,
//! within one) and to an item drawn uniformly; the rating of a pair is a
//! function of the pair alone, so a pair drawn twice repeats one rating
//! and the import keeps it once. Items are numbered from 0 in their own id
//! space (the import's `--bipartite` keeps the two apart).

use super::rng::{hash64, uniform01, EdgeRng};
use super::Generator;

#[derive(Clone, Debug)]
pub struct Ratings {
    pub users: u64,
    pub items: u64,
    /// Rank of the hidden factors.
    pub rank: usize,
    /// Fraction of the user x item pairs drawn.
    pub density: f64,
    /// Standard deviation of the noise added to each rating.
    pub noise: f64,
    pub seed: u64,
}

const USER_STREAM: u64 = 0x05E2;
const ITEM_STREAM: u64 = 0x17E3;
const NOISE_STREAM: u64 = 0x0015E;

impl Ratings {
    /// The number of ratings drawn (pairs drawn twice are kept once).
    pub fn draws(&self) -> u64 {
        ((self.users as f64 * self.items as f64 * self.density).round() as u64).max(1)
    }

    /// Hidden factor `j` of user `u`.
    pub fn user_factor(&self, u: u64, j: usize) -> f64 {
        uniform01(hash64(hash64(self.seed ^ USER_STREAM) ^ (u * self.rank as u64 + j as u64)))
    }

    /// Hidden factor `j` of item `i`.
    pub fn item_factor(&self, i: u64, j: usize) -> f64 {
        uniform01(hash64(hash64(self.seed ^ ITEM_STREAM) ^ (i * self.rank as u64 + j as u64)))
    }

    /// The noiseless rating of a pair: `x_u . y_i`.
    pub fn planted(&self, u: u64, i: u64) -> f64 {
        (0..self.rank).map(|j| self.user_factor(u, j) * self.item_factor(i, j)).sum()
    }

    /// The rating of a pair as generated: planted plus noise (Box-Muller).
    pub fn rating(&self, u: u64, i: u64) -> f32 {
        let mut rng = EdgeRng::new(self.seed, NOISE_STREAM, u.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i);
        let (a, b) = (1.0 - rng.next_f64(), rng.next_f64());
        let gauss = (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos();
        (self.planted(u, i) + self.noise * gauss) as f32
    }
}

impl Generator for Ratings {
    fn name(&self) -> &'static str {
        "ratings"
    }
    fn vertices(&self) -> u64 {
        self.users + self.items
    }
    fn edges(&self) -> u64 {
        self.draws()
    }
    fn directed(&self) -> bool {
        false
    }
    fn weighted(&self) -> bool {
        true
    }
    fn vertex_range(&self) -> Option<(u64, u64)> {
        None
    }
    #[inline]
    fn edge(&self, k: u64) -> (u64, u64) {
        let mut rng = EdgeRng::new(self.seed, ITEM_STREAM, k);
        (k % self.users, rng.below(self.items))
    }
    fn weight(&self, k: u64) -> f32 {
        let (u, i) = self.edge(k);
        self.rating(u, i)
    }
}
