//! Index maintenance: `VerifyReport`, `IndexDiff`, `RepairReport` and `SyncReport` (what
//! `verify`, `repair` and `sync` return), and [`ProgressCallback`], which lets `reindex` call a Python progress
//! callback while the rest of the rebuild runs with the GIL released.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{py_repr, py_repr_opt, type_name};
use crate::errors::to_pyerr;

/// At most this many keys are shown in a `repr`.
const SHOWN: usize = 3;

/// `['a/b', 'c/d', ...]`: the first keys, as Python writes a list of them.
fn keys_repr(py: Python<'_>, keys: &[String]) -> PyResult<String> {
    let shown = keys.iter().take(SHOWN).map(|k| py_repr(py, k)).collect::<PyResult<Vec<_>>>()?;
    let more = if keys.len() > SHOWN { ", ..." } else { "" };
    Ok(format!("[{}{more}]", shown.join(", ")))
}

/// How one index differs from the store, as `collection/id` keys (sorted).
#[pyclass(frozen, eq, module = "memcore", name = "IndexDiff")]
#[derive(PartialEq)]
pub(crate) struct PyIndexDiff {
    inner: memcore::IndexDiff,
}

#[pymethods]
impl PyIndexDiff {
    /// In the store, not in the index.
    #[getter]
    fn missing<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.missing)
    }

    /// In the index, not in the store.
    #[getter]
    fn orphaned<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.orphaned)
    }

    /// In both, but the index holds another version.
    #[getter]
    fn mismatched<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.mismatched)
    }

    /// Whether the index matches the store.
    fn is_clean(&self) -> bool {
        self.inner.is_clean()
    }

    /// The three key lists as a new dict of lists.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("missing", &self.inner.missing)?;
        dict.set_item("orphaned", &self.inner.orphaned)?;
        dict.set_item("mismatched", &self.inner.mismatched)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "IndexDiff(missing={}, orphaned={}, mismatched={})",
            keys_repr(py, &self.inner.missing)?,
            keys_repr(py, &self.inner.orphaned)?,
            keys_repr(py, &self.inner.mismatched)?,
        ))
    }
}

/// What `Memcore.verify` found: the store against the full-text index and, where semantic
/// search is available, the vector index. `unreadable` holds one `MemcoreError` (usually a
/// `CorruptedError` naming its file) per memory file that could not be read.
#[pyclass(frozen, module = "memcore", name = "VerifyReport")]
pub(crate) struct PyVerifyReport {
    store_count: usize,
    text: memcore::IndexDiff,
    vectors: Option<memcore::IndexDiff>,
    vectors_unavailable: Option<String>,
    unreadable: Py<PyTuple>,
    consistent: bool,
}

impl PyVerifyReport {
    pub(crate) fn new(py: Python<'_>, report: memcore::VerifyReport) -> PyResult<Self> {
        let consistent = report.is_consistent();
        let unreadable = report
            .unreadable
            .iter()
            .map(|err| to_pyerr(py, err).into_value(py))
            .collect::<Vec<_>>();
        Ok(Self {
            store_count: report.store_count,
            text: report.text,
            vectors: report.vectors,
            vectors_unavailable: report.vectors_unavailable,
            unreadable: PyTuple::new(py, unreadable)?.unbind(),
            consistent,
        })
    }
}

#[pymethods]
impl PyVerifyReport {
    /// Memories in the store (readable ones).
    #[getter]
    fn store_count(&self) -> usize {
        self.store_count
    }

    /// The full-text index against the store.
    #[getter]
    fn text(&self) -> PyIndexDiff {
        PyIndexDiff { inner: self.text.clone() }
    }

    /// The vector index against the store; `None` when semantic search is unavailable.
    #[getter]
    fn vectors(&self) -> Option<PyIndexDiff> {
        self.vectors.clone().map(|inner| PyIndexDiff { inner })
    }

    /// Why the vector index was not checked, if it was not.
    #[getter]
    fn vectors_unavailable(&self) -> Option<&str> {
        self.vectors_unavailable.as_deref()
    }

    /// One error per store file that could not be read; such files are not indexed.
    #[getter]
    fn unreadable(&self, py: Python<'_>) -> Py<PyTuple> {
        self.unreadable.clone_ref(py)
    }

    /// Whether every index that was checked matches the store (`repair` fixes it if not).
    fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// Every field as a new dict; `unreadable` as a list of messages.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("store_count", self.store_count)?;
        dict.set_item("text", self.text().to_dict(py)?)?;
        dict.set_item("vectors", self.vectors().map(|v| v.to_dict(py)).transpose()?)?;
        dict.set_item("vectors_unavailable", &self.vectors_unavailable)?;
        let unreadable = self
            .unreadable
            .bind(py)
            .iter()
            .map(|err| Ok(err.str()?.to_cow()?.into_owned()))
            .collect::<PyResult<Vec<_>>>()?;
        dict.set_item("unreadable", unreadable)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let vectors = match self.vectors() {
            Some(diff) => diff.__repr__(py)?,
            None => format!(
                "None, vectors_unavailable={}",
                py_repr_opt(
                    py,
                    self.vectors_unavailable.as_deref().and_then(|s| s.lines().next())
                )?
            ),
        };
        Ok(format!(
            "VerifyReport(store_count={}, consistent={}, text={}, vectors={vectors}, \
             unreadable={})",
            self.store_count,
            if self.consistent { "True" } else { "False" },
            self.text().__repr__(py)?,
            self.unreadable.bind(py).len(),
        ))
    }
}

/// What `Memcore.repair` did.
#[pyclass(frozen, eq, module = "memcore", name = "RepairReport")]
#[derive(PartialEq)]
pub(crate) struct PyRepairReport {
    inner: memcore::RepairReport,
}

impl PyRepairReport {
    pub(crate) fn new(inner: memcore::RepairReport) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyRepairReport {
    /// Memories (re)indexed: missing from an index, or held there in another version.
    #[getter]
    fn reindexed(&self) -> usize {
        self.inner.reindexed
    }

    /// Index entries without a memory, removed.
    #[getter]
    fn removed(&self) -> usize {
        self.inner.removed
    }

    /// Both counts as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("reindexed", self.inner.reindexed)?;
        dict.set_item("removed", self.inner.removed)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("RepairReport(reindexed={}, removed={})", self.inner.reindexed, self.inner.removed)
    }
}

/// What `Memcore.sync` did.
#[pyclass(frozen, eq, module = "memcore", name = "SyncReport")]
#[derive(PartialEq)]
pub(crate) struct PySyncReport {
    inner: memcore::SyncReport,
}

impl PySyncReport {
    pub(crate) fn new(inner: memcore::SyncReport) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PySyncReport {
    /// Memories whose index entries were brought level with the store (changed or removed).
    #[getter]
    fn synced(&self) -> usize {
        self.inner.synced
    }

    /// Whether the whole store was compared (the first sync, or a backend that cannot say
    /// what changed) rather than only what changed since the last sync.
    #[getter]
    fn full(&self) -> bool {
        self.inner.full
    }

    /// Both fields as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("synced", self.inner.synced)?;
        dict.set_item("full", self.inner.full)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let full = if self.inner.full { "True" } else { "False" };
        format!("SyncReport(synced={}, full={full})", self.inner.synced)
    }
}

/// The `progress` argument of `reindex`: a Python callable `progress(done, total)`, called
/// from inside the core's rebuild, which runs with the GIL released; each call takes the GIL
/// back (`Python::attach`) for just the callback.
///
/// The core's progress hook cannot stop the rebuild, and stopping it half-way would leave the
/// index emptied (searches missing memories until the next reindex). So an exception from the
/// callback (`KeyboardInterrupt` included) is kept, the callback is not called again, the
/// rebuild finishes, and [`ProgressCallback::finish`] raises the exception afterwards.
pub(crate) struct ProgressCallback {
    callback: Option<Py<PyAny>>,
    raised: Option<PyErr>,
}

impl ProgressCallback {
    /// Checks the argument: `None` or a callable.
    pub(crate) fn new(callback: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let callback = callback.filter(|c| !c.is_none());
        if let Some(callback) = callback
            && !callback.is_callable()
        {
            return Err(PyTypeError::new_err(format!(
                "progress must be a callable taking (done, total), not {}",
                type_name(callback)
            )));
        }
        Ok(Self { callback: callback.map(|c| c.clone().unbind()), raised: None })
    }

    /// Passes one progress report to the callback (called by the core, GIL released).
    pub(crate) fn report(&mut self, progress: memcore::Progress) {
        let Some(callback) = &self.callback else { return };
        if self.raised.is_some() {
            return;
        }
        Python::attach(|py| {
            if let Err(err) = callback.bind(py).call1((progress.done, progress.total)) {
                self.raised = Some(err);
            }
        });
    }

    /// The outcome of the rebuild, with the callback's exception raised now if it raised one.
    /// If the rebuild failed as well, its error is raised with the callback's as context.
    pub(crate) fn finish<T>(self, py: Python<'_>, outcome: PyResult<T>) -> PyResult<T> {
        match (outcome, self.raised) {
            (Ok(value), None) => Ok(value),
            (Ok(_), Some(raised)) => Err(raised),
            (Err(err), raised) => {
                if raised.is_some() {
                    err.set_context(py, raised);
                }
                Err(err)
            }
        }
    }
}

/// Adds the report types to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyVerifyReport>()?;
    m.add_class::<PyIndexDiff>()?;
    m.add_class::<PyRepairReport>()?;
    m.add_class::<PySyncReport>()?;
    Ok(())
}
