//! Vertex sources (BigSparse section 4.3): streams of (vertex, value) in
//! increasing vertex order, evaluated just in time so that an active list
//! is never written out before it is used.
//!
//! Sources: a sparse vertex file ([`RunReader`]), a dense one
//! ([`DenseSource`]), a short list in memory ([`Listed`]). Compound
//! sources (VListLogical, Table 1, and VListArith): [`Union`] (the first
//! source's value where both have the vertex), [`Difference`], [`Join`]
//! (a custom function where both have the vertex: Minimum, Custom and
//! Converge are joins with min, any function, or "changed"), [`LeftJoin`]
//! (Custom where the second may lack the vertex), [`Map`]; [`Tee`] keeps
//! a copy of what a source yields (a superstep's active set).

use super::run::{Record, Run, RunReader, RunWriter};
use super::VALUE_CHUNK_BYTES;
use outcore_io::SeqReader;
use outcore_store::StoreError;
use std::marker::PhantomData;
use std::path::Path;

pub trait VertexSource<T> {
    /// The next vertex (ids increase) and its value.
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError>;
    /// An upper bound on the vertices still to come.
    fn size_hint(&self) -> u64;
}

impl<T: Record> VertexSource<T> for RunReader<T> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        Ok(self.advance()?)
    }
    fn size_hint(&self) -> u64 {
        u64::MAX
    }
}

impl<T, S: VertexSource<T> + ?Sized> VertexSource<T> for &mut S {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        (**self).next()
    }
    fn size_hint(&self) -> u64 {
        (**self).size_hint()
    }
}

impl<T, S: VertexSource<T> + ?Sized> VertexSource<T> for Box<S> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        (**self).next()
    }
    fn size_hint(&self) -> u64 {
        (**self).size_hint()
    }
}

/// A run with a known length.
pub struct Counted<T> {
    reader: RunReader<T>,
    left: u64,
}

impl<T: Record> Counted<T> {
    pub fn new(reader: RunReader<T>, entries: u64) -> Self {
        Counted { reader, left: entries }
    }
}

impl<T: Record> VertexSource<T> for Counted<T> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        self.left = self.left.saturating_sub(1);
        Ok(self.reader.advance()?)
    }
    fn size_hint(&self) -> u64 {
        self.left
    }
}

/// Every vertex of a dense vertex file, in order.
pub struct DenseSource<T> {
    input: SeqReader,
    buf: Vec<u8>,
    pos: usize,
    vertex: u64,
    vertices: u64,
    _t: PhantomData<T>,
}

impl<T: Record> DenseSource<T> {
    /// What a source holds while it reads: its reader's chunks and the
    /// buffer a record that straddles two of them is gathered in.
    pub fn buffer_bytes() -> u64 {
        SeqReader::buffer_bytes(VALUE_CHUNK_BYTES) + (VALUE_CHUNK_BYTES + std::mem::size_of::<T>()) as u64
    }
    pub fn open(path: &Path, vertices: u64) -> Result<Self, StoreError> {
        let buf = Vec::with_capacity(VALUE_CHUNK_BYTES + std::mem::size_of::<T>());
        Ok(DenseSource { input: SeqReader::open(path, VALUE_CHUNK_BYTES)?, buf, pos: 0, vertex: 0, vertices, _t: PhantomData })
    }
}

impl<T: Record> VertexSource<T> for DenseSource<T> {
    #[inline]
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        if self.vertex == self.vertices {
            return Ok(None);
        }
        let size = std::mem::size_of::<T>();
        if self.buf.len() - self.pos < size {
            self.buf.drain(..self.pos);
            self.pos = 0;
            while self.buf.len() < size {
                match self.input.next_chunk()? {
                    Some(c) => self.buf.extend_from_slice(c),
                    None => {
                        return Err(StoreError::invalid(
                            self.input.path(),
                            format!("vertex file ends at vertex {} of {}", self.vertex, self.vertices),
                        ))
                    }
                }
            }
        }
        let x = bytemuck::pod_read_unaligned(&self.buf[self.pos..self.pos + size]);
        self.pos += size;
        self.vertex += 1;
        Ok(Some((self.vertex - 1, x)))
    }
    fn size_hint(&self) -> u64 {
        self.vertices - self.vertex
    }
}

/// A short, sorted list in memory (a BFS root, a set of sources).
pub struct Listed<T> {
    items: std::vec::IntoIter<(u64, T)>,
}

impl<T> Listed<T> {
    pub fn new(mut items: Vec<(u64, T)>) -> Self {
        items.sort_by_key(|e| e.0);
        items.dedup_by_key(|e| e.0);
        Listed { items: items.into_iter() }
    }
}

impl<T> VertexSource<T> for Listed<T> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        Ok(self.items.next())
    }
    fn size_hint(&self) -> u64 {
        self.items.len() as u64
    }
}

/// A source with its next element looked at.
struct Peeked<S, T> {
    source: S,
    head: Option<(u64, T)>,
    started: bool,
}

impl<T: Copy, S: VertexSource<T>> Peeked<S, T> {
    fn new(source: S) -> Self {
        Peeked { source, head: None, started: false }
    }
    fn peek(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        if !self.started {
            self.head = self.source.next()?;
            self.started = true;
        }
        Ok(self.head)
    }
    fn take(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        let h = self.peek()?;
        self.head = self.source.next()?;
        Ok(h)
    }
    /// Skip to the first element at or after `v`.
    fn skip_to(&mut self, v: u64) -> Result<Option<(u64, T)>, StoreError> {
        while let Some((u, _)) = self.peek()? {
            if u >= v {
                break;
            }
            self.take()?;
        }
        self.peek()
    }
}

/// Vertices in either source; the first source's value where both have one.
pub struct Union<A, B, T> {
    a: Peeked<A, T>,
    b: Peeked<B, T>,
}

impl<T: Copy, A: VertexSource<T>, B: VertexSource<T>> Union<A, B, T> {
    pub fn new(a: A, b: B) -> Self {
        Union { a: Peeked::new(a), b: Peeked::new(b) }
    }
}

impl<T: Copy, A: VertexSource<T>, B: VertexSource<T>> VertexSource<T> for Union<A, B, T> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        match (self.a.peek()?, self.b.peek()?) {
            (None, None) => Ok(None),
            (Some(_), None) => self.a.take(),
            (None, Some(_)) => self.b.take(),
            (Some((u, _)), Some((v, _))) => {
                if u == v {
                    self.b.take()?;
                }
                if u <= v {
                    self.a.take()
                } else {
                    self.b.take()
                }
            }
        }
    }
    fn size_hint(&self) -> u64 {
        self.a.source.size_hint().saturating_add(self.b.source.size_hint())
    }
}

/// Vertices of the first source that the second does not have.
pub struct Difference<A, B, T, X> {
    a: A,
    b: Peeked<B, X>,
    _t: PhantomData<T>,
}

impl<T, X: Copy, A: VertexSource<T>, B: VertexSource<X>> Difference<A, B, T, X> {
    pub fn new(a: A, b: B) -> Self {
        Difference { a, b: Peeked::new(b), _t: PhantomData }
    }
}

impl<T, X: Copy, A: VertexSource<T>, B: VertexSource<X>> VertexSource<T> for Difference<A, B, T, X> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        while let Some((v, x)) = self.a.next()? {
            if self.b.skip_to(v)?.is_none_or(|(u, _)| u != v) {
                return Ok(Some((v, x)));
            }
        }
        Ok(None)
    }
    fn size_hint(&self) -> u64 {
        self.a.size_hint()
    }
}

/// Vertices in both sources, valued `f(v, a, b)` (dropped where `None`).
pub struct Join<A, B, X, Y, T, F> {
    a: A,
    b: Peeked<B, Y>,
    f: F,
    _t: PhantomData<(X, T)>,
}

impl<X, Y: Copy, T, A: VertexSource<X>, B: VertexSource<Y>, F: FnMut(u64, X, Y) -> Option<T>> Join<A, B, X, Y, T, F> {
    pub fn new(a: A, b: B, f: F) -> Self {
        Join { a, b: Peeked::new(b), f, _t: PhantomData }
    }
}

impl<X, Y: Copy, T, A: VertexSource<X>, B: VertexSource<Y>, F: FnMut(u64, X, Y) -> Option<T>> VertexSource<T> for Join<A, B, X, Y, T, F> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        while let Some((v, x)) = self.a.next()? {
            if let Some((u, y)) = self.b.skip_to(v)? {
                if u == v {
                    if let Some(t) = (self.f)(v, x, y) {
                        return Ok(Some((v, t)));
                    }
                }
            } else {
                return Ok(None);
            }
        }
        Ok(None)
    }
    fn size_hint(&self) -> u64 {
        self.a.size_hint()
    }
}

/// Every vertex of the first source, valued `f(v, a, b)` with `b` the
/// second source's value if it has the vertex (dropped where `None`).
pub struct LeftJoin<A, B, X, Y, T, F> {
    a: A,
    b: Peeked<B, Y>,
    f: F,
    _t: PhantomData<(X, T)>,
}

impl<X, Y: Copy, T, A: VertexSource<X>, B: VertexSource<Y>, F: FnMut(u64, X, Option<Y>) -> Option<T>> LeftJoin<A, B, X, Y, T, F> {
    pub fn new(a: A, b: B, f: F) -> Self {
        LeftJoin { a, b: Peeked::new(b), f, _t: PhantomData }
    }
}

impl<X, Y: Copy, T, A: VertexSource<X>, B: VertexSource<Y>, F: FnMut(u64, X, Option<Y>) -> Option<T>> VertexSource<T>
    for LeftJoin<A, B, X, Y, T, F>
{
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        while let Some((v, x)) = self.a.next()? {
            let y = self.b.skip_to(v)?.filter(|(u, _)| *u == v).map(|(_, y)| y);
            if let Some(t) = (self.f)(v, x, y) {
                return Ok(Some((v, t)));
            }
        }
        Ok(None)
    }
    fn size_hint(&self) -> u64 {
        self.a.size_hint()
    }
}

/// Passes a source through while writing what it yields to a run.
pub struct Tee<A, T> {
    a: A,
    out: RunWriter<T>,
}

impl<T: Record, A: VertexSource<T>> Tee<A, T> {
    pub fn new(a: A, out: RunWriter<T>) -> Self {
        Tee { a, out }
    }
    /// The run of everything yielded.
    pub fn finish(self) -> Result<Run<T>, StoreError> {
        Ok(self.out.finish()?)
    }
}

impl<T: Record, A: VertexSource<T>> VertexSource<T> for Tee<A, T> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        let x = self.a.next()?;
        if let Some((v, t)) = &x {
            self.out.push(*v, t)?;
        }
        Ok(x)
    }
    fn size_hint(&self) -> u64 {
        self.a.size_hint()
    }
}

/// `f(v, x)` for each vertex of a source (dropped where `None`).
pub struct Map<A, X, T, F> {
    a: A,
    f: F,
    _t: PhantomData<(X, T)>,
}

impl<X, T, A: VertexSource<X>, F: FnMut(u64, X) -> Option<T>> Map<A, X, T, F> {
    pub fn new(a: A, f: F) -> Self {
        Map { a, f, _t: PhantomData }
    }
}

impl<X, T, A: VertexSource<X>, F: FnMut(u64, X) -> Option<T>> VertexSource<T> for Map<A, X, T, F> {
    fn next(&mut self) -> Result<Option<(u64, T)>, StoreError> {
        while let Some((v, x)) = self.a.next()? {
            if let Some(t) = (self.f)(v, x) {
                return Ok(Some((v, t)));
            }
        }
        Ok(None)
    }
    fn size_hint(&self) -> u64 {
        self.a.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all<T>(mut s: impl VertexSource<T>) -> Vec<(u64, T)> {
        let mut out = Vec::new();
        while let Some(x) = s.next().unwrap() {
            out.push(x);
        }
        out
    }

    #[test]
    fn set_operations_follow_table_1() {
        let a = || Listed::new(vec![(1, 10u64), (3, 30), (5, 50), (9, 90)]);
        let b = || Listed::new(vec![(0, 1u64), (3, 3), (4, 4), (9, 9), (12, 12)]);
        assert_eq!(all(Union::new(a(), b())), vec![(0, 1), (1, 10), (3, 30), (4, 4), (5, 50), (9, 90), (12, 12)]);
        assert_eq!(all(Difference::new(a(), b())), vec![(1, 10), (5, 50)]);
        assert_eq!(all(Join::new(a(), b(), |_, x: u64, y: u64| Some(x.min(y)))), vec![(3, 3), (9, 9)]);
        // Converge: vertices whose value changed by more than 20
        assert_eq!(all(Join::new(a(), b(), |_, x: u64, y: u64| (x.abs_diff(y) > 20).then_some(x))), vec![(3, 30), (9, 90)]);
        assert_eq!(all(Map::new(a(), |v, x: u64| (v > 2).then_some(x + 1))), vec![(3, 31), (5, 51), (9, 91)]);
    }
}
