//! A plain in-memory CSR, the substrate of the reference algorithms.

use outcore_io::{Budget, Reservation};
use outcore_store::{Store, StoreError};

#[derive(Debug)]
pub struct MemGraph {
    pub offsets: Vec<u64>,
    pub targets: Vec<u64>,
    /// One weight per target, if the graph is weighted.
    pub weights: Option<Vec<f32>>,
    pub directed: bool,
    /// What a graph loaded under a budget holds of it, returned when the
    /// graph is dropped (none for a graph built from edges).
    _charge: Option<Reservation>,
}

impl MemGraph {
    /// Build from (source, target, weight) triples on vertices 0..n; an
    /// undirected graph gets both directions of each non-loop edge.
    pub fn from_edges(n: u64, edges: &[(u64, u64, f32)], directed: bool, weighted: bool) -> Self {
        let mut arcs: Vec<(u64, u64, f32)> = Vec::with_capacity(if directed { edges.len() } else { edges.len() * 2 });
        for &(s, t, w) in edges {
            arcs.push((s, t, w));
            if !directed && s != t {
                arcs.push((t, s, w));
            }
        }
        // in place: a stable sort's scratch would be as large as the arcs
        // (records equal under this order are the same record)
        arcs.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
        arcs.dedup_by(|b, a| a.0 == b.0 && a.1 == b.1);
        let mut offsets = vec![0u64; n as usize + 1];
        for &(s, _, _) in &arcs {
            offsets[s as usize + 1] += 1;
        }
        for v in 0..n as usize {
            offsets[v + 1] += offsets[v];
        }
        MemGraph {
            offsets,
            targets: arcs.iter().map(|a| a.1).collect(),
            weights: weighted.then(|| arcs.iter().map(|a| a.2).collect()),
            directed,
            _charge: None,
        }
    }

    /// Load a layout of a store entirely into memory, charged to `budget`:
    /// the graph for as long as it lives, and the scan that reads it while
    /// it loads ([`MemGraph::load_bytes`]).
    pub fn load(store: &Store, layout: &str, budget: &Budget) -> Result<Self, StoreError> {
        let m = store.manifest();
        let n = m.vertices as usize;
        let lay = store.layout(layout)?;
        let weighted = lay.record().weights.is_some();
        let charge = budget.reserve("in-memory graph", Self::bytes(m.vertices, m.arcs, weighted))?;
        let _scan = crate::needs::charge_scans(budget, store, &[layout])?;
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::with_capacity(m.arcs as usize);
        let mut weights = weighted.then(|| Vec::with_capacity(m.arcs as usize));
        offsets.push(0);
        let mut scan = lay.scan()?;
        while let Some((_, nbrs, ws)) = scan.next_list()? {
            targets.extend_from_slice(nbrs);
            if let Some(w) = &mut weights {
                w.extend_from_slice(ws);
            }
            offsets.push(targets.len() as u64);
        }
        Ok(MemGraph { offsets, targets, weights, directed: m.directed, _charge: Some(charge) })
    }

    /// Memory of a graph of `n` vertices and `arcs` arcs: offsets, targets
    /// and weights.
    pub fn bytes(n: u64, arcs: u64, weighted: bool) -> u64 {
        (n + 1) * 8 + arcs * (8 + 4 * weighted as u64)
    }

    /// What [`MemGraph::load`] charges: the graph, and the scan reading it.
    pub fn load_bytes(store: &Store, layout: &str) -> Result<u64, StoreError> {
        let m = store.manifest();
        let weighted = store.layout(layout)?.record().weights.is_some();
        Ok(Self::bytes(m.vertices, m.arcs, weighted) + crate::needs::scan_bytes(store, &[layout])?)
    }

    /// The most [`MemGraph::transpose`] holds at once for a graph of `n`
    /// vertices and `arcs` arcs: the arcs gathered (24 bytes each), sorted
    /// in place in a copy (24), and the new graph (8 a target and 4 a
    /// weight, and the offsets).
    pub fn transpose_bytes(n: u64, arcs: u64) -> u64 {
        arcs * 60 + (n + 1) * 8
    }

    pub fn vertices(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }
    pub fn arcs(&self) -> u64 {
        self.targets.len() as u64
    }
    pub fn degree(&self, v: u64) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }
    pub fn neighbours(&self, v: u64) -> &[u64] {
        &self.targets[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }
    pub fn edge_weights(&self, v: u64) -> Option<&[f32]> {
        self.weights.as_ref().map(|w| &w[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize])
    }

    /// The reverse graph (in-edges as out-edges).
    pub fn transpose(&self) -> MemGraph {
        let n = self.vertices();
        let mut edges = Vec::with_capacity(self.targets.len());
        for v in 0..n {
            let ws = self.edge_weights(v);
            for (i, &t) in self.neighbours(v).iter().enumerate() {
                edges.push((t, v, ws.map_or(1.0, |w| w[i])));
            }
        }
        MemGraph::from_edges(n, &edges, true, self.weights.is_some()).with_directed(self.directed)
    }

    fn with_directed(mut self, directed: bool) -> Self {
        self.directed = directed;
        self
    }
}
