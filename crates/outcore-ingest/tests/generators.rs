//! The generators match the Graph500 specification's expectations and are
//! deterministic for a seed.

use outcore_ingest::generate::{write_edge_list, EdgeListFormat, Generator, Kronecker, Uniform, WattsStrogatz};
use outcore_ingest::NoProgress;

fn degrees(g: &dyn Generator) -> Vec<u64> {
    let mut d = vec![0u64; g.vertices() as usize];
    for i in 0..g.edges() {
        let (s, t) = g.edge(i);
        d[s as usize] += 1;
        d[t as usize] += 1;
    }
    d
}

fn binomial(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

#[test]
fn kronecker_edge_count_and_per_level_bit_probabilities() {
    let scale = 16;
    let g = Kronecker::new(scale, 16, 7, (0.57, 0.19, 0.19), false);
    assert_eq!(g.edges(), 16 << scale);
    assert_eq!(g.vertices(), 1 << scale);
    let m = g.edges() as f64;
    let mut src_ones = vec![0u64; scale as usize];
    let mut dst_ones = vec![0u64; scale as usize];
    let mut both = 0u64;
    for i in 0..g.edges() {
        let (s, t) = g.edge(i);
        for b in 0..scale as usize {
            src_ones[b] += (s >> b) & 1;
            dst_ones[b] += (t >> b) & 1;
        }
        both += s & t & 1;
    }
    // P(source bit) = C + D = 0.24, P(target bit) = B + D = 0.24, P(both) = D = 0.05 at every level.
    for b in 0..scale as usize {
        assert!((src_ones[b] as f64 / m - 0.24).abs() < 0.003, "level {b}: {}", src_ones[b] as f64 / m);
        assert!((dst_ones[b] as f64 / m - 0.24).abs() < 0.003, "level {b}: {}", dst_ones[b] as f64 / m);
    }
    assert!((both as f64 / m - 0.05).abs() < 0.002);
}

#[test]
fn kronecker_degree_skew_matches_the_model() {
    // Unpermuted, a vertex whose label has k one-bits expects degree
    // 2M * 0.24^k * 0.76^(scale-k); check the totals per k class and the hub.
    let scale = 14u64;
    let g = Kronecker::new(scale as u32, 16, 11, (0.57, 0.19, 0.19), false);
    let d = degrees(&g);
    let m2 = 2.0 * g.edges() as f64;
    for k in 0..=4u64 {
        let total: u64 = d.iter().enumerate().filter(|(v, _)| (*v as u64).count_ones() as u64 == k).map(|(_, &x)| x).sum();
        let expect = m2 * binomial(scale, k) * 0.24f64.powi(k as i32) * 0.76f64.powi((scale - k) as i32);
        assert!((total as f64 - expect).abs() < 0.02 * expect + 5.0 * expect.sqrt(), "k={k}: {total} vs {expect:.0}");
    }
    let mean = m2 / g.vertices() as f64;
    let hub_expect = m2 * 0.76f64.powi(scale as i32);
    assert!((d[0] as f64 - hub_expect).abs() < 0.05 * hub_expect);
    assert!(d[0] as f64 > 50.0 * mean, "degree skew: hub {} vs mean {mean}", d[0]);
    let isolated = d.iter().filter(|&&x| x == 0).count() as f64 / d.len() as f64;
    assert!(isolated > 0.1 && isolated < 0.6, "isolated fraction {isolated}");
}

#[test]
fn permutation_relabels_without_changing_the_degree_sequence() {
    let raw = Kronecker::new(12, 16, 5, (0.57, 0.19, 0.19), false);
    let perm = Kronecker::graph500(12, 16, 5);
    let (mut a, mut b) = (degrees(&raw), degrees(&perm));
    assert_ne!(a, b, "labels must be permuted");
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    // edges are shuffled: the first edges differ from generation order
    let same = (0..100).filter(|&i| {
        let (s, t) = raw.edge(i);
        let (ps, pt) = perm.edge(i);
        (s, t) == (ps, pt)
    });
    assert!(same.count() < 5);
}

#[test]
fn generators_are_deterministic_for_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    type Make = Box<dyn Fn(u64) -> Box<dyn Generator>>;
    let gens: Vec<(&str, Make)> = vec![
        ("kron", Box::new(|s| Box::new(Kronecker::graph500(10, 8, s)))),
        ("uniform", Box::new(|s| Box::new(Uniform { vertices: 1000, edges: 8000, seed: s }))),
        ("ws", Box::new(|s| Box::new(WattsStrogatz { vertices: 1000, degree: 6, rewire: 0.2, seed: s }))),
    ];
    for (name, make) in gens {
        let file = |tag: &str| dir.path().join(format!("{name}-{tag}.bin64"));
        write_edge_list(make(1).as_ref(), &file("a"), EdgeListFormat::Bin64, false, &NoProgress).unwrap();
        write_edge_list(make(1).as_ref(), &file("b"), EdgeListFormat::Bin64, false, &NoProgress).unwrap();
        write_edge_list(make(2).as_ref(), &file("c"), EdgeListFormat::Bin64, false, &NoProgress).unwrap();
        let (a, b, c) = (std::fs::read(file("a")).unwrap(), std::fs::read(file("b")).unwrap(), std::fs::read(file("c")).unwrap());
        assert_eq!(a, b, "{name}: same seed, same bytes");
        assert_ne!(a, c, "{name}: another seed, another graph");
        assert_eq!(a.len() as u64, make(1).edges() * 16);
    }
}

#[test]
fn watts_strogatz_and_uniform_shapes() {
    let ws = WattsStrogatz { vertices: 10_000, degree: 10, rewire: 0.0, seed: 3 };
    assert!(degrees(&ws).iter().all(|&d| d == 10), "p=0 is the ring lattice");
    let ws = WattsStrogatz { vertices: 10_000, degree: 10, rewire: 0.3, seed: 3 };
    let rewired = (0..ws.edges()).filter(|&i| {
        let (u, v) = ws.edge(i);
        let j = i % 5 + 1;
        v != (u + j) % 10_000
    });
    let frac = rewired.count() as f64 / ws.edges() as f64;
    assert!((frac - 0.3).abs() < 0.02, "rewired fraction {frac}");
    let u = Uniform { vertices: 1 << 12, edges: 1 << 18, seed: 9 };
    let d = degrees(&u);
    let mean = 2.0 * u.edges() as f64 / u.vertices() as f64;
    let var = d.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / d.len() as f64;
    assert!((var / mean - 1.0).abs() < 0.15, "uniform degrees should be ~Poisson: var/mean {}", var / mean);
}
