//! Per-vertex results, in dense ids and dense order: in memory, in an
//! interval engine's value table, or in a sort-reduce vertex file, so a
//! result larger than memory is streamed, never forced into memory. A
//! [`Column`] names one result and says what its values are ([`ValueKind`]),
//! which is all a front end needs to write it in original ids.

use outcore_engines::sortreduce::source::DenseSource;
use outcore_engines::sortreduce::{Record, SortReduce, ValueFile};
use outcore_engines::{IntervalEngine, VertexValue};
use outcore_store::{Layout, StoreError};
use std::sync::{Arc, Mutex};

/// A vertex not reached (levels, parents) in 32-bit results.
pub const UNREACHED_U32: u32 = u32::MAX;
/// A vertex not reached (levels, parents) in 64-bit results.
pub const UNREACHED_U64: u64 = u64::MAX;

/// One value of a column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    U32(u32),
    U64(u64),
    F64(f64),
}

impl Value {
    /// Whether this is the "unreached" value of its width.
    pub fn is_unreached(self) -> bool {
        match self {
            Value::U32(x) => x == UNREACHED_U32,
            Value::U64(x) => x == UNREACHED_U64,
            Value::F64(x) => x.is_infinite(),
        }
    }
    /// As an integer (unreached: `u64::MAX`).
    pub fn as_u64(self) -> u64 {
        match self {
            Value::U32(x) if x == UNREACHED_U32 => u64::MAX,
            Value::U32(x) => x as u64,
            Value::U64(x) => x,
            Value::F64(x) => x as u64,
        }
    }
    pub fn as_f64(self) -> f64 {
        match self {
            Value::U32(x) if x == UNREACHED_U32 => f64::INFINITY,
            Value::U32(x) => x as f64,
            Value::U64(x) if x == UNREACHED_U64 => f64::INFINITY,
            Value::U64(x) => x as f64,
            Value::F64(x) => x,
        }
    }
}

/// What a column's values mean, which decides how they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// Hops from a root; unreached is written as 9223372036854775807 (Graphalytics).
    Level,
    /// A dense vertex id (a parent, a label): written as its original id;
    /// unreached as -1.
    Vertex,
    /// A real number (Graphalytics `%.15e`; `infinity` when unreachable).
    Real,
    /// A count (core number, triangles).
    Count,
}

/// Values of one column in memory, for zero-copy access.
pub enum Slice<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
    F64(&'a [f64]),
}

/// Where a column lives and how to read it in dense order.
pub trait ColumnData: Send {
    /// Call `f(v, value)` for every vertex `v` in dense order.
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError>;
    /// The values, if they are in memory.
    fn slice(&self) -> Option<Slice<'_>> {
        None
    }
    /// How many values there are (one a vertex): what a copy in memory
    /// allocates, exactly (a validator charges that much).
    fn vertices(&self) -> u64;
    /// What reading the values in order holds beside them: a file
    /// reader's chunks, nothing for values in memory (a validator
    /// charges it with its copy).
    fn read_bytes(&self) -> Result<u64, StoreError> {
        Ok(0)
    }
}

/// One per-vertex result: its name (`level`, `parent`, `rank`, ...), what its
/// values mean, and the values.
pub struct Column {
    pub name: &'static str,
    pub kind: ValueKind,
    pub data: Box<dyn ColumnData>,
}

impl Column {
    pub fn new(name: &'static str, kind: ValueKind, data: impl ColumnData + 'static) -> Self {
        Column { name, kind, data: Box::new(data) }
    }
    /// Every value in dense order.
    pub fn for_each(&self, mut f: impl FnMut(u64, Value)) -> Result<(), StoreError> {
        self.data.for_each(&mut f)
    }
    /// All values in memory as integers (unreached: `u64::MAX`): for tests
    /// and graphs small enough.
    pub fn to_u64(&self) -> Result<Vec<u64>, StoreError> {
        let mut out = Vec::with_capacity(self.data.vertices() as usize);
        self.for_each(|_, x| out.push(x.as_u64()))?;
        Ok(out)
    }
    /// All values in memory as 32-bit integers (unreached, and any value
    /// of u32::MAX or more: u32::MAX): vertex ids and levels, 4 bytes a
    /// vertex and no wider copy on the way.
    pub fn to_u32(&self) -> Result<Vec<u32>, StoreError> {
        let mut out = Vec::with_capacity(self.data.vertices() as usize);
        self.for_each(|_, x| out.push(x.as_u64().min(u32::MAX as u64) as u32))?;
        Ok(out)
    }
    /// All values in memory as reals (unreached: infinity).
    pub fn to_f64(&self) -> Result<Vec<f64>, StoreError> {
        let mut out = Vec::with_capacity(self.data.vertices() as usize);
        self.for_each(|_, x| out.push(x.as_f64()))?;
        Ok(out)
    }
}

/// The columns of one run, and its vector result if it has one.
#[derive(Default)]
pub struct Outcome {
    pub columns: Vec<Column>,
    pub vectors: Option<Vectors>,
}

impl Outcome {
    pub fn new(columns: Vec<Column>) -> Self {
        Outcome { columns, vectors: None }
    }
    /// A result of one vector per vertex (and no scalar columns).
    pub fn of_vectors(vectors: Vectors) -> Self {
        Outcome { columns: Vec::new(), vectors: Some(vectors) }
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
    /// The vector result called `name`.
    pub fn vectors(&self, name: &str) -> Option<&Vectors> {
        self.vectors.as_ref().filter(|v| v.name == name)
    }
    /// The bytes of its columns' values held in memory (what the result
    /// of a reference takes).
    pub fn memory_bytes(&self) -> u64 {
        let bytes = |s: Slice| match s {
            Slice::U32(x) => 4 * x.len() as u64,
            Slice::U64(x) => 8 * x.len() as u64,
            Slice::F64(x) => 8 * x.len() as u64,
        };
        self.columns.iter().filter_map(|c| c.data.slice()).map(bytes).sum()
    }
}

/// A per-vertex result of `width` reals a vertex (ALS's latent factors),
/// read in dense order wherever it lives.
pub struct Vectors {
    pub name: &'static str,
    pub width: usize,
    pub data: Box<dyn VectorData>,
}

/// Where a vector result lives and how to read it in dense order.
pub trait VectorData: Send {
    /// Call `f(v, vector)` for every vertex `v` in dense order.
    fn for_each(&self, f: &mut dyn FnMut(u64, &[f32])) -> Result<(), StoreError>;
}

impl Vectors {
    /// Every vector in dense order.
    pub fn for_each(&self, mut f: impl FnMut(u64, &[f32])) -> Result<(), StoreError> {
        self.data.for_each(&mut f)
    }
    /// All vectors in memory, `width` values a vertex (tests, small graphs).
    pub fn to_vec(&self) -> Result<Vec<f32>, StoreError> {
        let mut out = Vec::new();
        self.for_each(|_, x| out.extend_from_slice(x))?;
        Ok(out)
    }
}

/// Vectors in memory, `width` a vertex, with their budget charge.
pub struct HeldVectors {
    pub values: Vec<f32>,
    pub width: usize,
    pub charge: Option<outcore_io::Reservation>,
}

impl VectorData for HeldVectors {
    fn for_each(&self, f: &mut dyn FnMut(u64, &[f32])) -> Result<(), StoreError> {
        for (v, x) in self.values.chunks_exact(self.width.max(1)).enumerate() {
            f(v as u64, x);
        }
        Ok(())
    }
}

impl ColumnData for Vec<u32> {
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError> {
        self.iter().enumerate().for_each(|(v, &x)| f(v as u64, Value::U32(x)));
        Ok(())
    }
    fn slice(&self) -> Option<Slice<'_>> {
        Some(Slice::U32(self))
    }
    fn vertices(&self) -> u64 {
        self.len() as u64
    }
}

impl ColumnData for Vec<u64> {
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError> {
        self.iter().enumerate().for_each(|(v, &x)| f(v as u64, Value::U64(x)));
        Ok(())
    }
    fn slice(&self) -> Option<Slice<'_>> {
        Some(Slice::U64(self))
    }
    fn vertices(&self) -> u64 {
        self.len() as u64
    }
}

impl ColumnData for Vec<f64> {
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError> {
        self.iter().enumerate().for_each(|(v, &x)| f(v as u64, Value::F64(x)));
        Ok(())
    }
    fn slice(&self) -> Option<Slice<'_>> {
        Some(Slice::F64(self))
    }
    fn vertices(&self) -> u64 {
        self.len() as u64
    }
}

/// Values that keep their budget charge for as long as they live.
pub struct Held<T> {
    pub values: T,
    pub charge: outcore_io::Reservation,
}

impl<T: ColumnData> ColumnData for Held<T> {
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError> {
        self.values.for_each(f)
    }
    fn slice(&self) -> Option<Slice<'_>> {
        self.values.slice()
    }
    fn vertices(&self) -> u64 {
        self.values.vertices()
    }
    fn read_bytes(&self) -> Result<u64, StoreError> {
        self.values.read_bytes()
    }
}

/// Per-vertex values of one type: in memory, in the interval engine's
/// value table (optionally multiplied by the out-degree when read), or in
/// a sort-reduce vertex file (which the engine keeps until dropped).
pub enum VertexValues<T: VertexValue + Record> {
    Memory(Vec<T>),
    Intervals { engine: Box<IntervalEngine<T>>, scale_by_degree: Option<Box<Layout>> },
    External { engine: Box<SortReduce>, values: ValueFile<T> },
}

/// Every value of a vertex file, in vertex order.
pub fn for_each_stored<T: Record>(values: &ValueFile<T>, mut f: impl FnMut(u64, T)) -> Result<(), StoreError> {
    use outcore_engines::sortreduce::source::VertexSource;
    let mut source = values.source()?;
    while let Some((v, x)) = source.next()? {
        f(v, x);
    }
    Ok(())
}

/// Conversions of a stored value to a [`Value`] and back to a real (for
/// the degree scaling of PageRank's interval table).
pub trait Scalar: VertexValue + Record {
    fn value(self) -> Value;
    fn scaled(self, degree: u64) -> Self;
    fn slice_of(values: &[Self]) -> Slice<'_>;
}

impl Scalar for f64 {
    fn value(self) -> Value {
        Value::F64(self)
    }
    fn scaled(self, degree: u64) -> Self {
        if degree > 0 {
            self * degree as f64
        } else {
            self
        }
    }
    fn slice_of(values: &[Self]) -> Slice<'_> {
        Slice::F64(values)
    }
}

impl Scalar for u64 {
    fn value(self) -> Value {
        Value::U64(self)
    }
    fn scaled(self, _: u64) -> Self {
        self
    }
    fn slice_of(values: &[Self]) -> Slice<'_> {
        Slice::U64(values)
    }
}

impl<T: VertexValue + Record> VertexValues<T> {
    /// The values of a finished sort-reduce run: the engine gives back its
    /// working memory and keeps the file.
    pub fn external(mut engine: SortReduce, values: ValueFile<T>) -> Self {
        engine.release_budget();
        VertexValues::External { engine: Box::new(engine), values }
    }
}

impl<T: Scalar> VertexValues<T> {
    /// Call `f(v, value)` for every vertex in order.
    pub fn for_each(&self, mut f: impl FnMut(u64, T)) -> Result<(), StoreError> {
        match self {
            VertexValues::Memory(v) => v.iter().enumerate().for_each(|(k, &x)| f(k as u64, x)),
            VertexValues::Intervals { engine, scale_by_degree } => {
                let mut degrees = scale_by_degree.as_ref().map(|l| l.degrees()).transpose()?;
                let mut failure = None;
                engine.for_each_value(|v, x| {
                    let d = match degrees.as_mut().map(|d| d.next_degree()) {
                        Some(Ok(d)) => d,
                        Some(Err(e)) => {
                            failure.get_or_insert(e);
                            0
                        }
                        None => 0,
                    };
                    f(v, if scale_by_degree.is_some() { x.scaled(d) } else { x })
                })?;
                if let Some(e) = failure {
                    return Err(e);
                }
            }
            VertexValues::External { values, .. } => for_each_stored(values, f)?,
        }
        Ok(())
    }

    /// How many values there are, one a vertex.
    pub fn vertices(&self) -> u64 {
        match self {
            VertexValues::Memory(v) => v.len() as u64,
            VertexValues::Intervals { engine, .. } => engine.vertices(),
            VertexValues::External { values, .. } => values.vertices(),
        }
    }

    /// All values in memory (tests and small graphs).
    pub fn to_vec(&self) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::with_capacity(self.vertices() as usize);
        self.for_each(|_, x| out.push(x))?;
        Ok(out)
    }
}

impl<T: Scalar> ColumnData for VertexValues<T>
where
    VertexValues<T>: Send,
{
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError> {
        VertexValues::for_each(self, |v, x| f(v, x.value()))
    }
    fn slice(&self) -> Option<Slice<'_>> {
        match self {
            VertexValues::Memory(v) => Some(T::slice_of(v)),
            _ => None,
        }
    }
    fn vertices(&self) -> u64 {
        VertexValues::vertices(self)
    }
    fn read_bytes(&self) -> Result<u64, StoreError> {
        Ok(match self {
            VertexValues::Memory(_) => 0,
            // and the degrees read beside the table, at most a scan
            VertexValues::Intervals { engine, scale_by_degree } => {
                engine.value_read_bytes() + scale_by_degree.as_ref().map(|l| l.scan_bytes()).transpose()?.unwrap_or(0)
            }
            VertexValues::External { .. } => DenseSource::<T>::buffer_bytes(),
        })
    }
}

/// One field of a vertex file shared by several columns (a sort-reduce
/// BFS keeps `[level, parent]` per vertex).
pub struct Projection<T: Record, S: Send> {
    pub shared: Arc<Mutex<(S, ValueFile<T>)>>,
    pub field: fn(&T) -> Value,
}

/// A column's name, kind, and how it reads its value from a record.
pub type Field<T> = (&'static str, ValueKind, fn(&T) -> Value);

/// One column per `(name, kind, field)`, each showing one field of the
/// vertex file `values` of the finished sort-reduce run `engine` (which
/// gives back its working memory).
pub fn projections<T: Record>(mut engine: SortReduce, values: ValueFile<T>, fields: &[Field<T>]) -> Vec<Column> {
    engine.release_budget();
    let shared = Arc::new(Mutex::new((engine, values)));
    fields.iter().map(|&(name, kind, field)| Column { name, kind, data: Box::new(Projection { shared: shared.clone(), field }) }).collect()
}

impl<T: Record, S: Send> ColumnData for Projection<T, S> {
    fn for_each(&self, f: &mut dyn FnMut(u64, Value)) -> Result<(), StoreError> {
        let guard = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        for_each_stored(&guard.1, |v, x| f(v, (self.field)(&x)))
    }
    fn vertices(&self) -> u64 {
        self.shared.lock().unwrap_or_else(|e| e.into_inner()).1.vertices()
    }
    fn read_bytes(&self) -> Result<u64, StoreError> {
        Ok(DenseSource::<T>::buffer_bytes())
    }
}
