//! Erdos-Renyi G(n, m): m directed edges with independent uniform endpoints.

use super::rng::EdgeRng;
use super::Generator;

#[derive(Clone, Debug)]
pub struct Uniform {
    pub vertices: u64,
    pub edges: u64,
    pub seed: u64,
}

impl Generator for Uniform {
    fn name(&self) -> &'static str {
        "uniform"
    }
    fn vertices(&self) -> u64 {
        self.vertices
    }
    fn edges(&self) -> u64 {
        self.edges
    }
    fn directed(&self) -> bool {
        true
    }
    #[inline]
    fn edge(&self, i: u64) -> (u64, u64) {
        let mut rng = EdgeRng::new(self.seed, 0xE2D05, i);
        (rng.below(self.vertices), rng.below(self.vertices))
    }
}
