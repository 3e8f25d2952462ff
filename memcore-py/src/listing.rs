//! `Listing`: what `Memcore.list` returns. A read-only sequence of `MemorySummary` that makes
//! each Python object only when it is reached, plus the files that could not be read.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyTuple};

use crate::convert::type_name;
use crate::errors::to_pyerr;
use crate::memory::PyMemorySummary;

/// The memories a `list` call matched, sorted by collection then id. Behaves like a
/// read-only list of `MemorySummary` (`len`, indexing, slicing, iteration); `skipped` holds
/// one `MemcoreError` per memory file that could not be read.
#[pyclass(frozen, module = "memcore", name = "Listing", sequence)]
pub(crate) struct PyListing {
    memories: Arc<Vec<memcore::MemorySummary>>,
    skipped: Py<PyTuple>,
}

impl PyListing {
    pub(crate) fn new(py: Python<'_>, listing: memcore::Listing) -> PyResult<Self> {
        let skipped =
            listing.skipped.iter().map(|err| to_pyerr(py, err).into_value(py)).collect::<Vec<_>>();
        Ok(Self {
            memories: Arc::new(listing.memories),
            skipped: PyTuple::new(py, skipped)?.unbind(),
        })
    }

    fn item(&self, index: usize) -> PyMemorySummary {
        PyMemorySummary::new(self.memories[index].clone())
    }
}

#[pymethods]
impl PyListing {
    /// One `MemcoreError` (usually `CorruptedError`, naming its file) per memory that could
    /// not be read; the listing is complete apart from these.
    #[getter]
    fn skipped(&self, py: Python<'_>) -> Py<PyTuple> {
        self.skipped.clone_ref(py)
    }

    fn __len__(&self) -> usize {
        self.memories.len()
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = index.py();
        let len = self.memories.len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let indices = slice.indices(isize::try_from(len).unwrap_or(isize::MAX))?;
            let mut items = Vec::with_capacity(indices.slicelength);
            let mut at = indices.start;
            for _ in 0..indices.slicelength {
                // `indices` keeps every position in 0..len.
                items.push(Bound::new(py, self.item(at.unsigned_abs()))?);
                at += indices.step;
            }
            return Ok(PyList::new(py, items)?.into_any());
        }
        let Ok(i) = index.extract::<isize>() else {
            return Err(PyTypeError::new_err(format!(
                "Listing indices must be integers or slices, not {}",
                type_name(index)
            )));
        };
        let position = if i < 0 {
            len.checked_sub(i.unsigned_abs())
        } else {
            Some(i.unsigned_abs()).filter(|&p| p < len)
        };
        match position {
            Some(p) => Ok(Bound::new(py, self.item(p))?.into_any()),
            None => Err(PyIndexError::new_err("Listing index out of range")),
        }
    }

    fn __iter__(&self) -> ListingIterator {
        ListingIterator { memories: Arc::clone(&self.memories), next: AtomicUsize::new(0) }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let shown: Vec<String> =
            self.memories.iter().take(3).map(|s| format!("'{}/{}'", s.collection, s.id)).collect();
        let more = if self.memories.len() > 3 { ", ..." } else { "" };
        format!(
            "Listing(len={}, refs=[{}{more}], skipped={})",
            self.memories.len(),
            shown.join(", "),
            self.skipped.bind(py).len()
        )
    }
}

/// Iterates a `Listing`, making one `MemorySummary` per step.
#[pyclass(frozen, module = "memcore", name = "ListingIterator")]
pub(crate) struct ListingIterator {
    memories: Arc<Vec<memcore::MemorySummary>>,
    next: AtomicUsize,
}

#[pymethods]
impl ListingIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self) -> Option<PyMemorySummary> {
        let at = self.next.fetch_add(1, Ordering::Relaxed);
        match self.memories.get(at) {
            Some(summary) => Some(PyMemorySummary::new(summary.clone())),
            None => {
                // Stay exhausted.
                self.next.store(self.memories.len(), Ordering::Relaxed);
                None
            }
        }
    }
}

/// Adds `Listing` and its iterator to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyListing>()?;
    m.add_class::<ListingIterator>()?;
    Ok(())
}
