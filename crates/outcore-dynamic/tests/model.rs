//! The dynamic store against a plain `HashMap` model: random insert and
//! delete batches (small id ranges, so vertices cross the degree threshold
//! both ways and tables grow, rehash and shrink), commits, reopens, and
//! crashes (a store dropped without commit, which leaves its mappings as a
//! killed process would).

use outcore_dynamic::store::{DynamicStore, StoreOptions, Update};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};

type Model = HashMap<u64, BTreeMap<u64, (u32, f32)>>;

fn model_apply(m: &mut Model, opts: &StoreOptions, x: &Update) {
    let one = |m: &mut Model, u: u64, v: u64, ins: bool, w: f32| {
        let adj = m.entry(u).or_default();
        if ins {
            match adj.get_mut(&v) {
                Some(e) if opts.multigraph => {
                    e.0 += 1;
                    e.1 = w;
                }
                Some(_) => {}
                None => {
                    adj.insert(v, (1, w));
                }
            }
        } else if let Some(e) = adj.get_mut(&v) {
            if e.0 > 1 {
                e.0 -= 1;
            } else {
                adj.remove(&v);
            }
        }
    };
    match *x {
        Update::InsertEdge { u, v, w } => {
            one(m, u, v, true, w);
            if opts.undirected && u != v {
                one(m, v, u, true, w);
            }
        }
        Update::DeleteEdge { u, v } => {
            one(m, u, v, false, 0.0);
            if opts.undirected && u != v {
                one(m, v, u, false, 0.0);
            }
        }
        Update::DeleteVertex { u } => {
            m.remove(&u);
            for adj in m.values_mut() {
                adj.remove(&u);
            }
        }
        _ => {}
    }
}

fn compare(store: &DynamicStore, m: &Model, opts: &StoreOptions, ids: u64) -> Result<(), TestCaseError> {
    store.check().map_err(TestCaseError::fail)?;
    let mut arcs = 0;
    for u in 0..ids {
        let adj = m.get(&u).cloned().unwrap_or_default();
        let degree: u64 = adj.values().map(|e| e.0 as u64).sum();
        arcs += degree;
        prop_assert_eq!(store.degree(u), degree, "degree of {}", u);
        let mut got: Vec<(u64, u32, f32)> = store.neighbours(u).iter().map(|e| (e.target, e.count, e.weight)).collect();
        got.sort_by_key(|e| e.0);
        let want: Vec<(u64, u32, f32)> = adj.iter().map(|(&v, &(c, w))| (v, c, if opts.weighted { w } else { 1.0 })).collect();
        prop_assert_eq!(got, want, "neighbours of {}", u);
        for v in 0..ids {
            prop_assert_eq!(store.edge(u, v).map(|e| e.count), adj.get(&v).map(|e| e.0), "edge {} {}", u, v);
        }
    }
    prop_assert_eq!(store.arcs(), arcs);
    Ok(())
}

fn update(ids: u64) -> impl Strategy<Value = Update> {
    prop_oneof![
        6 => (0..ids, 0..ids, 1..100u32).prop_map(|(u, v, w)| Update::InsertEdge { u, v, w: w as f32 }),
        3 => (0..ids, 0..ids).prop_map(|(u, v)| Update::DeleteEdge { u, v }),
        1 => (0..ids).prop_map(|u| Update::DeleteVertex { u }),
    ]
}

#[derive(Clone, Debug)]
enum Step {
    Batch(Vec<Update>),
    Commit,
    Reopen,
    Crash(Vec<Update>),
}

fn steps(ids: u64) -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            6 => prop::collection::vec(update(ids), 1..400).prop_map(Step::Batch),
            2 => Just(Step::Commit),
            1 => Just(Step::Reopen),
            1 => prop::collection::vec(update(ids), 1..400).prop_map(Step::Crash),
        ],
        1..12,
    )
}

fn run(opts: StoreOptions, ids: u64, steps: Vec<Step>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dyn");
    let mut store = Some(DynamicStore::create(&path, opts).unwrap());
    let mut model = Model::new();
    let mut committed = Model::new();
    for step in steps {
        match step {
            Step::Batch(batch) => {
                store.as_mut().unwrap().apply(&batch).unwrap();
                for x in &batch {
                    model_apply(&mut model, &opts, x);
                }
            }
            Step::Commit => {
                store.as_mut().unwrap().commit().unwrap();
                committed = model.clone();
            }
            Step::Reopen => {
                store.as_mut().unwrap().commit().unwrap();
                committed = model.clone();
                drop(store.take());
                store = Some(DynamicStore::open(&path).unwrap());
            }
            Step::Crash(batch) => {
                store.as_mut().unwrap().apply(&batch).unwrap();
                // No commit: what the mappings hold is what a killed process leaves.
                drop(store.take());
                store = Some(DynamicStore::open(&path).unwrap());
                model = committed.clone();
            }
        }
        compare(store.as_ref().unwrap(), &model, &opts, ids)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn directed_unique(steps in steps(60), threshold in 1u32..6, partitions in 1usize..4) {
        run(StoreOptions { partitions, threshold, ..Default::default() }, 60, steps)?;
    }

    #[test]
    fn undirected_weighted_multigraph(steps in steps(40), threshold in 1u32..6, partitions in 1usize..4) {
        let opts = StoreOptions { partitions, threshold, undirected: true, weighted: true, multigraph: true };
        run(opts, 40, steps)?;
    }

    #[test]
    fn directed_multigraph_hubs(steps in steps(12), threshold in 2u32..4) {
        // Few ids: every vertex has a chunk that grows to hold all others, then shrinks.
        run(StoreOptions { partitions: 2, threshold, multigraph: true, ..Default::default() }, 12, steps)?;
    }
}

/// Tables grow well past their initial size and shrink back after deletes.
#[test]
fn growth_and_shrink_at_scale() {
    let dir = tempfile::tempdir().unwrap();
    let opts = StoreOptions { partitions: 2, ..Default::default() };
    let mut store = DynamicStore::create(&dir.path().join("dyn"), opts).unwrap();
    let mut model = Model::new();
    let mut rng = 1u64;
    let mut batch = Vec::new();
    for i in 0..200_000u64 {
        rng = outcore_dynamic::hash::mix(rng);
        // a few hubs and many degree-1 vertices
        let u = if i % 3 == 0 { rng % 16 } else { 1000 + rng % 50_000 };
        batch.push(Update::InsertEdge { u, v: (rng >> 32) % 100_000, w: 1.0 });
    }
    // Small batches, so tables and chunks grow step by step.
    for part in batch.chunks(5000) {
        store.apply(part).unwrap();
    }
    for x in &batch {
        model_apply(&mut model, &opts, x);
    }
    store.commit().unwrap();
    let grown = store.counts();
    assert!(grown.grows > 20, "{grown:?}");
    let deletes: Vec<Update> = batch
        .iter()
        .step_by(1)
        .take(190_000)
        .map(|x| match *x {
            Update::InsertEdge { u, v, .. } => Update::DeleteEdge { u, v },
            _ => unreachable!(),
        })
        .collect();
    for part in deletes.chunks(5000) {
        store.apply(part).unwrap();
    }
    for x in &deletes {
        model_apply(&mut model, &opts, x);
    }
    store.check().unwrap();
    let c = store.counts();
    assert!(c.moves_down > 0 && c.rehashes > grown.rehashes, "{c:?}");
    let want: u64 = model.values().map(|a| a.len() as u64).sum();
    assert_eq!(store.arcs(), want);
    for (&u, adj) in &model {
        assert_eq!(store.degree(u), adj.len() as u64);
    }
}
