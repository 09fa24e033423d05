//! The Graph500 Kronecker generator (specification section 3, reference
//! `kronecker_generator.m`): for each of `scale` bit levels, the source
//! bit is 1 with probability C+D and the target bit is 1 with probability
//! D/(C+D) given a 1 source bit, B/(A+B) given a 0; then vertex labels go
//! through a random permutation and the edge list is shuffled.

use super::rng::{hash64, uniform01, EdgeRng};
use super::{Generator, Permutation};

#[derive(Clone, Debug)]
pub struct Kronecker {
    pub scale: u32,
    pub edge_factor: u64,
    pub seed: u64,
    /// A, B, C (D = 1 - A - B - C).
    pub abc: (f64, f64, f64),
    /// Permute labels and shuffle edges (Graph500 does; tests may not).
    pub permute: bool,
    /// Give each edge a weight uniform in [0, 1) (Graph500 kernel 3).
    pub weighted: bool,
    vertex_perm: Permutation,
    edge_perm: Permutation,
}

impl Kronecker {
    pub fn graph500(scale: u32, edge_factor: u64, seed: u64) -> Self {
        Self::new(scale, edge_factor, seed, (0.57, 0.19, 0.19), true)
    }

    pub fn new(scale: u32, edge_factor: u64, seed: u64, abc: (f64, f64, f64), permute: bool) -> Self {
        assert!((1..=40).contains(&scale), "scale must be 1..=40");
        let n = 1u64 << scale;
        Kronecker {
            scale,
            edge_factor,
            seed,
            abc,
            permute,
            weighted: false,
            vertex_perm: Permutation::new(n, seed ^ 0x5EED_0001),
            edge_perm: Permutation::new(n * edge_factor, seed ^ 0x5EED_0002),
        }
    }

    /// Edge `i` before labels are permuted and edges shuffled.
    #[inline]
    pub fn raw_edge(&self, i: u64) -> (u64, u64) {
        let (a, b, c) = self.abc;
        let ab = a + b;
        let c_norm = c / (1.0 - ab);
        let a_norm = a / ab;
        let mut rng = EdgeRng::new(self.seed, 0xC0FFEE, i);
        let (mut s, mut t) = (0u64, 0u64);
        for bit in 0..self.scale {
            let ii = rng.next_f64() > ab;
            let jj = rng.next_f64() > if ii { c_norm } else { a_norm };
            s |= (ii as u64) << bit;
            t |= (jj as u64) << bit;
        }
        (s, t)
    }
}

impl Generator for Kronecker {
    fn name(&self) -> &'static str {
        "kronecker"
    }
    fn vertices(&self) -> u64 {
        1 << self.scale
    }
    fn edges(&self) -> u64 {
        self.edge_factor << self.scale
    }
    fn directed(&self) -> bool {
        false
    }
    fn weight(&self, i: u64) -> f32 {
        if self.weighted {
            // f32 rounding can reach 1.0; keep the weight below it
            (uniform01(hash64(self.seed ^ 0x003E_1647 ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))) as f32).min(0.999_999_94)
        } else {
            1.0
        }
    }

    #[inline]
    fn edge(&self, i: u64) -> (u64, u64) {
        if !self.permute {
            return self.raw_edge(i);
        }
        let (s, t) = self.raw_edge(self.edge_perm.apply(i));
        (self.vertex_perm.apply(s), self.vertex_perm.apply(t))
    }
}
