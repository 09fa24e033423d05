//! Watts-Strogatz small world: a ring where each vertex links to its k/2
//! successors; each such edge's far end is rewired with probability p to a
//! uniform vertex other than its source. Undirected; rewiring can repeat
//! an edge, which import collapses.

use super::rng::EdgeRng;
use super::Generator;

#[derive(Clone, Debug)]
pub struct WattsStrogatz {
    pub vertices: u64,
    /// Mean degree k (even); each vertex emits k/2 edges.
    pub degree: u64,
    pub rewire: f64,
    pub seed: u64,
}

impl Generator for WattsStrogatz {
    fn name(&self) -> &'static str {
        "watts-strogatz"
    }
    fn vertices(&self) -> u64 {
        self.vertices
    }
    fn edges(&self) -> u64 {
        self.vertices * (self.degree / 2)
    }
    fn directed(&self) -> bool {
        false
    }
    #[inline]
    fn edge(&self, i: u64) -> (u64, u64) {
        let half = self.degree / 2;
        let (u, j) = (i / half, i % half + 1);
        let mut rng = EdgeRng::new(self.seed, 0x3A775, i);
        if rng.next_f64() < self.rewire && self.vertices > 1 {
            let mut v = rng.below(self.vertices - 1);
            if v >= u {
                v += 1;
            }
            (u, v)
        } else {
            (u, (u + j) % self.vertices)
        }
    }
}
