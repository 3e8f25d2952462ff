//! `Memory` and `MemorySummary`: immutable views of the core's plain data.

use memcore::{Format, Timestamp};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{metadata_to_py, py_repr};
use crate::errors::to_pyerr;

/// One memory: markdown content plus its metadata. Immutable; `get`, `put`, `update`,
/// `restore` and `get_version` return one.
#[pyclass(frozen, eq, module = "memcore", name = "Memory")]
#[derive(PartialEq)]
pub(crate) struct PyMemory {
    inner: memcore::Memory,
}

impl PyMemory {
    pub(crate) fn new(inner: memcore::Memory) -> Self {
        Self { inner }
    }
}

/// `collection/id`, the reference that finds exactly this memory.
fn reference(collection: &memcore::Collection, id: &memcore::MemoryId) -> String {
    format!("{collection}/{id}")
}

#[pymethods]
impl PyMemory {
    /// The id, unique within its collection.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id.as_str()
    }

    /// The collection holding it.
    #[getter]
    fn collection(&self) -> &str {
        self.inner.collection.as_str()
    }

    /// `collection/id`: finds exactly this memory.
    #[getter]
    fn r#ref(&self) -> String {
        reference(&self.inner.collection, &self.inner.id)
    }

    /// The title.
    #[getter]
    fn title(&self) -> &str {
        &self.inner.title
    }

    /// A one-line summary, where one was given.
    #[getter]
    fn summary(&self) -> Option<&str> {
        self.inner.summary.as_deref()
    }

    /// The kind of memory (fact, decision, ...), where given.
    #[getter]
    fn r#type(&self) -> Option<&str> {
        self.inner.kind.as_deref()
    }

    /// The lifecycle status: active, resolved, archived or tombstone.
    #[getter]
    fn status(&self) -> &'static str {
        self.inner.status.as_str()
    }

    /// The tags, in order.
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.tags)
    }

    /// The category.
    #[getter]
    fn category(&self) -> Option<&str> {
        self.inner.category.as_deref()
    }

    /// Why the memory was created.
    #[getter]
    fn context(&self) -> Option<&str> {
        self.inner.context.as_deref()
    }

    /// Related memory ids or references.
    #[getter]
    fn related_to<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.related_to)
    }

    /// The project.
    #[getter]
    fn project(&self) -> Option<&str> {
        self.inner.project.as_deref()
    }

    /// The priority label.
    #[getter]
    fn priority(&self) -> Option<&str> {
        self.inner.priority.as_deref()
    }

    /// Who wrote it.
    #[getter]
    fn created_by(&self) -> Option<&str> {
        self.inner.created_by.as_deref()
    }

    /// When it was first stored (UTC).
    #[getter]
    fn created_at(&self) -> Timestamp {
        self.inner.created_at
    }

    /// When it was last changed (UTC).
    #[getter]
    fn updated_at(&self) -> Timestamp {
        self.inner.updated_at
    }

    /// How much it matters, 0.0 to 1.0, where set.
    #[getter]
    fn importance(&self) -> Option<f64> {
        self.inner.importance
    }

    /// 1 when created, one more on every update.
    #[getter]
    fn version(&self) -> u64 {
        self.inner.version
    }

    /// Frontmatter keys memcore does not interpret (a new dict on every access).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        metadata_to_py(py, &self.inner.metadata)
    }

    /// The markdown body.
    #[getter]
    fn content(&self) -> &str {
        &self.inner.content
    }

    /// Renders the memory: `context` (a block for a prompt), `json` or `raw` (the content).
    #[pyo3(signature = (format = "context"))]
    fn render(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        let format: Format = format.parse().map_err(|e| to_pyerr(py, &e))?;
        Ok(self.inner.render(format))
    }

    /// Every field as a new dict (tags and related_to as lists).
    pub(crate) fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = &self.inner;
        let dict = PyDict::new(py);
        dict.set_item("id", m.id.as_str())?;
        dict.set_item("collection", m.collection.as_str())?;
        dict.set_item("title", &m.title)?;
        dict.set_item("summary", &m.summary)?;
        dict.set_item("type", &m.kind)?;
        dict.set_item("status", m.status.as_str())?;
        dict.set_item("tags", &m.tags)?;
        dict.set_item("category", &m.category)?;
        dict.set_item("context", &m.context)?;
        dict.set_item("related_to", &m.related_to)?;
        dict.set_item("project", &m.project)?;
        dict.set_item("priority", &m.priority)?;
        dict.set_item("created_by", &m.created_by)?;
        dict.set_item("created_at", m.created_at)?;
        dict.set_item("updated_at", m.updated_at)?;
        dict.set_item("importance", m.importance)?;
        dict.set_item("version", m.version)?;
        dict.set_item("metadata", metadata_to_py(py, &m.metadata)?)?;
        dict.set_item("content", &m.content)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Memory(ref={}, title={}, version={}, status={})",
            py_repr(py, &self.r#ref())?,
            py_repr(py, &self.inner.title)?,
            self.inner.version,
            py_repr(py, self.inner.status.as_str())?,
        ))
    }
}

/// The listing form of a memory: identity and the fields people sort and filter by.
/// Fetch the full memory with `Memcore.get(summary.ref)`.
#[pyclass(frozen, eq, module = "memcore", name = "MemorySummary")]
#[derive(PartialEq)]
pub(crate) struct PyMemorySummary {
    inner: memcore::MemorySummary,
}

impl PyMemorySummary {
    pub(crate) fn new(inner: memcore::MemorySummary) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyMemorySummary {
    /// The id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id.as_str()
    }

    /// The collection.
    #[getter]
    fn collection(&self) -> &str {
        self.inner.collection.as_str()
    }

    /// `collection/id`: finds exactly this memory.
    #[getter]
    fn r#ref(&self) -> String {
        reference(&self.inner.collection, &self.inner.id)
    }

    /// The title.
    #[getter]
    fn title(&self) -> &str {
        &self.inner.title
    }

    /// The type.
    #[getter]
    fn r#type(&self) -> Option<&str> {
        self.inner.kind.as_deref()
    }

    /// The status.
    #[getter]
    fn status(&self) -> &'static str {
        self.inner.status.as_str()
    }

    /// The tags.
    #[getter]
    fn tags<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.tags)
    }

    /// The category.
    #[getter]
    fn category(&self) -> Option<&str> {
        self.inner.category.as_deref()
    }

    /// When it was created (UTC).
    #[getter]
    fn created_at(&self) -> Timestamp {
        self.inner.created_at
    }

    /// When it was last changed (UTC).
    #[getter]
    fn updated_at(&self) -> Timestamp {
        self.inner.updated_at
    }

    /// The version.
    #[getter]
    fn version(&self) -> u64 {
        self.inner.version
    }

    /// Every field as a new dict.
    pub(crate) fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.inner;
        let dict = PyDict::new(py);
        dict.set_item("id", s.id.as_str())?;
        dict.set_item("collection", s.collection.as_str())?;
        dict.set_item("title", &s.title)?;
        dict.set_item("type", &s.kind)?;
        dict.set_item("status", s.status.as_str())?;
        dict.set_item("tags", &s.tags)?;
        dict.set_item("category", &s.category)?;
        dict.set_item("created_at", s.created_at)?;
        dict.set_item("updated_at", s.updated_at)?;
        dict.set_item("version", s.version)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "MemorySummary(ref={}, title={}, version={}, status={})",
            py_repr(py, &self.r#ref())?,
            py_repr(py, &self.inner.title)?,
            self.inner.version,
            py_repr(py, self.inner.status.as_str())?,
        ))
    }
}

/// Adds `Memory` and `MemorySummary` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMemory>()?;
    m.add_class::<PyMemorySummary>()?;
    Ok(())
}
