//! Descending-degree order (NETALX, section 3.4.1): the hubs get the
//! smallest ids, so their state and lists cluster at the front.

use super::Undirected;

/// new_of_old: vertices by descending (in + out) degree, ties by id.
pub fn descending_degree_order(g: &impl Undirected) -> Vec<u32> {
    let n = g.vertices() as usize;
    let mut by_degree: Vec<u32> = (0..n as u32).collect();
    by_degree.sort_by_key(|&v| (std::cmp::Reverse(g.degree(v as u64)), v));
    let mut new_of_old = vec![0u32; n];
    for (new, &old) in by_degree.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    new_of_old
}

#[cfg(test)]
mod tests {
    use super::super::{is_permutation, ListsGraph};
    use super::*;

    #[test]
    fn hubs_first() {
        let g = ListsGraph::from_edges(5, &[(4, 0), (4, 1), (4, 2), (3, 0), (3, 1)]);
        let p = descending_degree_order(&g);
        assert!(is_permutation(&p));
        // degrees: 0:2 1:2 2:1 3:2 4:3
        assert_eq!(p, vec![1, 2, 4, 3, 0]);
    }
}
