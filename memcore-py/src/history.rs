//! `Version` (one entry of a memory's history) and `TrashEntry` (a deleted memory).

use std::path::PathBuf;

use memcore::Timestamp;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{iso, py_repr, py_repr_opt};

/// One entry in the history of a memory, as `Memcore.versions` lists them (oldest first).
#[pyclass(frozen, eq, module = "memcore", name = "Version")]
#[derive(PartialEq)]
pub(crate) struct PyVersion {
    inner: memcore::Version,
}

impl PyVersion {
    pub(crate) fn new(inner: memcore::Version) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyVersion {
    /// What to pass to `Memcore.get_version`: a version number, or a commit id for git history.
    #[getter]
    fn rev(&self) -> &str {
        &self.inner.rev
    }

    /// The memory's `version` field at that point, when known.
    #[getter]
    fn version(&self) -> Option<u64> {
        self.inner.version
    }

    /// When that version was written (UTC).
    #[getter]
    fn timestamp(&self) -> Timestamp {
        self.inner.timestamp
    }

    /// Who wrote it, when known.
    #[getter]
    fn author(&self) -> Option<&str> {
        self.inner.author.as_deref()
    }

    /// The commit message, for git history.
    #[getter]
    fn message(&self) -> Option<&str> {
        self.inner.message.as_deref()
    }

    /// Whether this is the current version.
    #[getter]
    fn current(&self) -> bool {
        self.inner.current
    }

    /// Every field as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let v = &self.inner;
        let dict = PyDict::new(py);
        dict.set_item("rev", &v.rev)?;
        dict.set_item("version", v.version)?;
        dict.set_item("timestamp", v.timestamp)?;
        dict.set_item("author", &v.author)?;
        dict.set_item("message", &v.message)?;
        dict.set_item("current", v.current)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let v = &self.inner;
        Ok(format!(
            "Version(rev={}, version={}, timestamp={}, author={}, current={})",
            py_repr(py, &v.rev)?,
            v.version.map_or_else(|| "None".to_owned(), |n| n.to_string()),
            py_repr(py, &iso(v.timestamp))?,
            py_repr_opt(py, v.author.as_deref())?,
            if v.current { "True" } else { "False" },
        ))
    }
}

/// A memory moved to the trash by `Memcore.delete`; `Memcore.restore` brings it back.
#[pyclass(frozen, eq, module = "memcore", name = "TrashEntry")]
#[derive(PartialEq)]
pub(crate) struct PyTrashEntry {
    inner: memcore::TrashEntry,
}

impl PyTrashEntry {
    pub(crate) fn new(inner: memcore::TrashEntry) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyTrashEntry {
    /// The deleted memory's id.
    #[getter]
    fn id(&self) -> &str {
        self.inner.id.as_str()
    }

    /// The deleted memory's collection.
    #[getter]
    fn collection(&self) -> &str {
        self.inner.collection.as_str()
    }

    /// `collection/id`, to pass to `Memcore.restore`.
    #[getter]
    fn r#ref(&self) -> String {
        format!("{}/{}", self.inner.collection, self.inner.id)
    }

    /// When it was deleted (UTC).
    #[getter]
    fn deleted_at(&self) -> Timestamp {
        self.inner.deleted_at
    }

    /// Where the deleted file now is.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path.clone()
    }

    /// Every field as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.inner;
        let dict = PyDict::new(py);
        dict.set_item("id", t.id.as_str())?;
        dict.set_item("collection", t.collection.as_str())?;
        dict.set_item("deleted_at", t.deleted_at)?;
        dict.set_item("path", &t.path)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "TrashEntry(ref={}, deleted_at={})",
            py_repr(py, &self.r#ref())?,
            py_repr(py, &iso(self.inner.deleted_at))?,
        ))
    }
}

/// Adds `Version` and `TrashEntry` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyVersion>()?;
    m.add_class::<PyTrashEntry>()?;
    Ok(())
}
