//! What `Memcore.hydrate` returns: `Hydrated` (a memory with as much git context as its
//! level asked for), `CommitInfo` (the commit its note is attached to) and `ChangedFile` (a
//! file that commit changed); and the `level` argument's names.

use memcore::{HydrationLevel, Timestamp};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{choice, iso, py_repr};
use crate::memory::PyMemory;

/// Every hydration level, least first.
const LEVELS: [HydrationLevel; 3] =
    [HydrationLevel::Summary, HydrationLevel::Full, HydrationLevel::Files];

/// The Python name of a level: `"summary"`, `"full"` or `"files"`.
fn level_name(level: HydrationLevel) -> &'static str {
    match level {
        HydrationLevel::Summary => "summary",
        HydrationLevel::Full => "full",
        HydrationLevel::Files => "files",
    }
}

/// The `level` argument of `hydrate`; another string is a `ValidationError`.
pub(crate) fn parse_level(py: Python<'_>, level: &str) -> PyResult<HydrationLevel> {
    choice(py, "level", level, &LEVELS.map(|l| (level_name(l), l)))
}

/// A memory with the context its level asked for (seed 002's progressive hydration):
/// `"summary"` the memory alone; `"full"` also the whole note holding it and the commit the
/// note is attached to; `"files"` also the files that commit changed (at most 20, each
/// file's text up to 100 KiB).
#[pyclass(frozen, eq, module = "memcore", name = "Hydrated")]
#[derive(PartialEq)]
pub(crate) struct PyHydrated {
    inner: memcore::Hydrated,
}

impl PyHydrated {
    pub(crate) fn new(inner: memcore::Hydrated) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyHydrated {
    /// The memory.
    #[getter]
    fn memory(&self) -> PyMemory {
        PyMemory::new(self.inner.memory.clone())
    }

    /// The level loaded: `"summary"`, `"full"` or `"files"`.
    #[getter]
    fn level(&self) -> &'static str {
        level_name(self.inner.level)
    }

    /// The whole note holding the memory (level `"full"` and up), else `None`.
    #[getter]
    fn note(&self) -> Option<&str> {
        self.inner.note.as_deref()
    }

    /// The commit the note is attached to (level `"full"` and up), else `None`.
    #[getter]
    fn commit(&self) -> Option<PyCommitInfo> {
        self.inner.commit.clone().map(|inner| PyCommitInfo { inner })
    }

    /// The files that commit changed (level `"files"`; empty below), in the order git
    /// lists them.
    #[getter]
    fn files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.files.iter().map(|f| PyChangedFile { inner: f.clone() }))
    }

    /// How many changed files were left out past the first 20.
    #[getter]
    fn files_omitted(&self) -> usize {
        self.inner.files_omitted
    }

    /// Every field as a new dict (`memory` and `commit` as dicts, `files` a list of dicts).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = &self.inner;
        let files = h
            .files
            .iter()
            .map(|f| PyChangedFile { inner: f.clone() }.to_dict(py))
            .collect::<PyResult<Vec<_>>>()?;
        let dict = PyDict::new(py);
        dict.set_item("memory", self.memory().to_dict(py)?)?;
        dict.set_item("level", self.level())?;
        dict.set_item("note", &h.note)?;
        dict.set_item("commit", self.commit().map(|c| c.to_dict(py)).transpose()?)?;
        dict.set_item("files", files)?;
        dict.set_item("files_omitted", h.files_omitted)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let m = &self.inner.memory;
        Ok(format!(
            "Hydrated(ref={}, level={}, files={}, files_omitted={})",
            py_repr(py, &format!("{}/{}", m.collection, m.id))?,
            py_repr(py, self.level())?,
            self.inner.files.len(),
            self.inner.files_omitted,
        ))
    }
}

/// The commit a hydrated memory's note is attached to.
#[pyclass(frozen, eq, module = "memcore", name = "CommitInfo")]
#[derive(PartialEq)]
pub(crate) struct PyCommitInfo {
    inner: memcore::CommitInfo,
}

#[pymethods]
impl PyCommitInfo {
    /// The full commit id.
    #[getter]
    fn sha(&self) -> &str {
        &self.inner.sha
    }

    /// The author's name.
    #[getter]
    fn author(&self) -> &str {
        &self.inner.author
    }

    /// The author's email address.
    #[getter]
    fn email(&self) -> &str {
        &self.inner.email
    }

    /// When the commit was authored (UTC).
    #[getter]
    fn time(&self) -> Timestamp {
        self.inner.time
    }

    /// The commit message, without trailing white space.
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    /// Every field as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.inner;
        let dict = PyDict::new(py);
        dict.set_item("sha", &c.sha)?;
        dict.set_item("author", &c.author)?;
        dict.set_item("email", &c.email)?;
        dict.set_item("time", c.time)?;
        dict.set_item("message", &c.message)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let c = &self.inner;
        Ok(format!(
            "CommitInfo(sha={}, author={}, time={}, message={})",
            py_repr(py, &c.sha)?,
            py_repr(py, &c.author)?,
            py_repr(py, &iso(c.time))?,
            py_repr(py, c.message.lines().next().unwrap_or_default())?,
        ))
    }
}

/// A file changed by the commit of a hydrated memory.
#[pyclass(frozen, eq, module = "memcore", name = "ChangedFile")]
#[derive(PartialEq)]
pub(crate) struct PyChangedFile {
    inner: memcore::ChangedFile,
}

#[pymethods]
impl PyChangedFile {
    /// The path in the repository (`/`-separated, from its top).
    #[getter]
    fn path(&self) -> &str {
        &self.inner.path
    }

    /// Its size at that commit in bytes (0 when the commit deleted it).
    #[getter]
    fn size(&self) -> usize {
        self.inner.size
    }

    /// Its text at that commit; `None` when deleted, binary or over 100 KiB.
    #[getter]
    fn content(&self) -> Option<&str> {
        self.inner.content.as_deref()
    }

    /// Every field as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("path", &self.inner.path)?;
        dict.set_item("size", self.inner.size)?;
        dict.set_item("content", &self.inner.content)?;
        Ok(dict)
    }

    /// The text is left out; `content=None` says when there is none.
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ChangedFile(path={}, size={}{})",
            py_repr(py, &self.inner.path)?,
            self.inner.size,
            if self.inner.content.is_none() { ", content=None" } else { "" },
        ))
    }
}

/// Adds `Hydrated`, `CommitInfo` and `ChangedFile` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHydrated>()?;
    m.add_class::<PyCommitInfo>()?;
    m.add_class::<PyChangedFile>()?;
    Ok(())
}
