//! Weakly connected components across ranks: label propagation with a
//! shortcutting step. Every vertex starts labelled by its own original id
//! and ends labelled by the smallest id of its component (so the
//! partition equals the single-machine WCC's). Each iteration:
//! 1. pull: each rank receives the labels of its ghosts from their owners;
//! 2. propagate: along every arc of the part, in list order, the smaller
//!    label of its two ends goes to the other end (a ghost's smallest
//!    offer is kept and sent to its owner, one all-to-all), so an arc
//!    carries labels both ways, whatever its direction;
//! 3. shortcut: every vertex asks the owner of its label for that
//!    vertex's label, and takes it if smaller (pointer jumping, which cuts
//!    the iterations from the diameter towards its logarithm); a round's
//!    worth of vertices at a time, so that the questions are bounded, a
//!    later group seeing the labels an earlier one lowered.
//!
//! It stops after an iteration in which no label fell on any rank: then
//! both ends of every arc carry the same label.

use super::{par_rounds_all, RankFigures, ROUND_BYTES};
use crate::error::{DistError, Result};
use crate::part::{ask_round_bytes, bit, bitmap, push_round_bytes, set_bit, Part, PartShape, Place};
use std::time::Instant;

pub struct DistWcc {
    /// Per owned vertex: the smallest original id of its component
    /// ([`DistWcc::label_of`]).
    pub label: Labels,
    pub iterations: u32,
    pub components: u64,
    pub figures: RankFigures,
}

/// Each owned vertex's label, as the run keeps it.
pub enum Labels {
    Ids(Vec<u64>),
    /// When every id of the graph is below 2^32 - 1: 4 bytes a vertex.
    Narrow(Vec<u32>),
}

impl DistWcc {
    /// Owned vertex `i`'s label: the smallest original id of its component.
    pub fn label_of(&self, i: usize) -> u64 {
        match &self.label {
            Labels::Ids(ids) => ids[i],
            Labels::Narrow(ids) => ids[i] as u64,
        }
    }
}

/// How the run keeps a label: an original id in 8 bytes, or in 4 when
/// every id of the graph fits.
trait Label: Copy + Ord + Send + Sync {
    fn of(id: u64) -> Self;
    fn id(self) -> u64;
    fn labels(all: Vec<Self>) -> Labels;
}

impl Label for u64 {
    fn of(id: u64) -> u64 {
        id
    }
    fn id(self) -> u64 {
        self
    }
    fn labels(all: Vec<u64>) -> Labels {
        Labels::Ids(all)
    }
}

impl Label for u32 {
    fn of(id: u64) -> u32 {
        // (only for graphs whose ids all fit: `PartShape::ids_fit_u32`)
        id as u32
    }
    fn id(self) -> u64 {
        self as u64
    }
    fn labels(all: Vec<u32>) -> Labels {
        Labels::Narrow(all)
    }
}

/// Bytes of state of a part of `shape`: per owned vertex its label; per
/// ghost its label (an offer lowers it) and a bit, whether it was
/// offered (a label 4 bytes when every id fits, else 8); a round of
/// arcs and its vertices, or a round's worth of the shortcut's questions
/// and answers; and a round of an exchange (the labels', the offers' or
/// the shortcut's).
pub fn state_bytes(shape: &PartShape) -> u64 {
    let label = if shape.ids_fit_u32() { 4 } else { 8 };
    shape.owned * label
        + shape.ghosts * label
        + shape.ghosts.div_ceil(8)
        + shape.round_arcs * (ROUND_BYTES + 4).max(8 + 8)
        + push_round_bytes(1, shape.ranks).max(ask_round_bytes(shape.ranks))
}

pub fn wcc(part: &Part) -> Result<DistWcc> {
    if part.shape().ids_fit_u32() {
        run::<u32>(part)
    } else {
        run::<u64>(part)
    }
}

/// [`wcc`], keeping labels as `L`.
fn run<L: Label>(part: &Part) -> Result<DistWcc> {
    let start = Instant::now();
    let comm = part.comm();
    let before = comm.traffic();
    let owned = part.owned_count();
    let mut label: Vec<L> = (0..owned).map(|i| L::of(part.owned_id(i))).collect();
    let mut iterations = 0u32;
    loop {
        iterations += 1;
        let mut fell = 0u64;
        // 1. the ghosts' labels
        let mut ghost_label = vec![L::of(0); part.ghost_count()];
        part.pull_each(|i| label[i as usize].id(), |g, x| ghost_label[g as usize] = L::of(x));
        // ghosts whose label an arc lowered: what they were lowered to is
        // offered to their owners (found by a scan of these bits, no list
        // of them is kept)
        let mut was_offered = bitmap(part.ghost_count());
        // 2. along every arc, both ways: every core reads lists, the arcs
        // are applied here, in list order
        let places = part.places();
        par_rounds_all(
            part,
            false,
            // (each core places the far ends of the arcs it reads)
            |i, nbrs, _, out| out.extend(nbrs.iter().map(|&v| (i, places.place(v as u32)))),
            |(i, place)| {
                let i = i as usize;
                let there = match place {
                    Place::Owned(j) => label[j as usize],
                    Place::Ghost(g) => ghost_label[g as usize],
                };
                if there < label[i] {
                    label[i] = there;
                    fell += 1;
                } else if label[i] < there {
                    let m = label[i];
                    match place {
                        Place::Owned(j) => {
                            label[j as usize] = m;
                            fell += 1;
                        }
                        Place::Ghost(g) => {
                            set_bit(&mut was_offered, g);
                            ghost_label[g as usize] = m;
                        }
                    }
                }
            },
        )
        .map_err(|e| DistError::Ingest(e.into()))?;
        part.push_some(
            (0..part.ghost_count() as u32).filter(|&g| bit(&was_offered, g)).map(|g| (g, [ghost_label[g as usize].id()])),
            |j, [m]| {
                let m = L::of(m);
                if m < label[j as usize] {
                    label[j as usize] = m;
                    fell += 1;
                }
            },
        );
        // 3. the label's label, a group of owned vertices at a time (as
        // many groups on every rank: asking is collective)
        let group = part.round_arcs().max(1) as usize;
        let groups = comm.max(&[(owned as usize).div_ceil(group) as u64])[0] as usize;
        let mut asked: Vec<u64> = Vec::with_capacity(group);
        for g in 0..groups {
            let members = (g * group).min(owned as usize)..((g + 1) * group).min(owned as usize);
            asked.clear();
            // (a vertex that is its own label has nothing to ask)
            asked.extend(members.clone().filter(|&i| label[i].id() != part.owned_id(i as u32)).map(|i| label[i].id()));
            asked.sort_unstable();
            asked.dedup();
            let answers = part.ask(&asked, |i| label[i as usize].id())?;
            for l in &mut label[members] {
                if let Ok(k) = asked.binary_search(&l.id()) {
                    if answers[k] < l.id() {
                        *l = L::of(answers[k]);
                        fell += 1;
                    }
                }
            }
        }
        if comm.sum(&[fell])[0] == 0 {
            break;
        }
    }
    let roots = (0..owned).filter(|&i| label[i as usize].id() == part.owned_id(i)).count() as u64;
    let components = comm.sum(&[roots])[0];
    let figures = RankFigures::now(part, start, before);
    let label = L::labels(label);
    Ok(DistWcc { label, iterations, components, figures })
}
