//! Checking WCC labels without the code that computed them: every label is
//! a vertex that labels itself and is no larger than the vertices it
//! labels; the ends of every edge share a label; and there are as many
//! labels as components (counted by an independent union-find over one
//! scan). Together: each component carries its smallest vertex, and no two
//! components share a label.

use crate::run::{Check, Validation};
use outcore_store::StoreError;

const METHOD: &str = "labels are component minima, edges agree, one label per component";

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[parent[x as usize] as usize];
        parent[x as usize] = p;
        x = p;
    }
    x
}

pub fn validate(check: &Check) -> Result<Validation, StoreError> {
    let store = check.store;
    let n = store.vertices();
    let Some(column) = check.outcome.column("component") else {
        return Ok(Validation::fail(METHOD, "the run returned no labels"));
    };
    let _charge = check.budget.reserve("WCC validation: labels and a union-find forest", n * 12)?;
    let label = column.to_u64()?;
    if label.len() as u64 != n {
        return Ok(Validation::fail(METHOD, format!("{} labels for {n} vertices", label.len())));
    }
    let mut labels = 0u64;
    for (v, &l) in label.iter().enumerate() {
        if l >= n {
            return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has label {l}, which is not a vertex")));
        }
        if l > v as u64 {
            return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has label {l}, larger than itself")));
        }
        if label[l as usize] != l {
            return Ok(Validation::fail(METHOD, format!("vertex {v} (dense) has label {l}, whose own label is {}", label[l as usize])));
        }
        labels += (l == v as u64) as u64;
    }
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut components = n;
    let _scan_charge = crate::needs::charge_scans(check.budget, store, &["out"])?;
    let mut scan = store.layout("out")?.scan()?;
    while let Some((u, targets, _)) = scan.next_list()? {
        for &v in targets {
            if label[u as usize] != label[v as usize] {
                return Ok(Validation::fail(
                    METHOD,
                    format!("edge {u} -> {v} (dense) joins labels {} and {}", label[u as usize], label[v as usize]),
                ));
            }
            let (a, b) = (find(&mut parent, u as u32), find(&mut parent, v as u32));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
                components -= 1;
            }
        }
    }
    if labels != components {
        return Ok(Validation::fail(METHOD, format!("{labels} labels for {components} components")));
    }
    Ok(Validation::pass(METHOD, format!("{components} components, each labelled by its smallest vertex")))
}
