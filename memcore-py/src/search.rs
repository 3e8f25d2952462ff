//! `SearchResults`, `Hit` and `ScoreParts`: what `Memcore.search` returns, immutable.

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PySlice, PyTuple};

use crate::convert::{py_repr, type_name};
use crate::memory::PyMemorySummary;

/// An `f32` score as the shortest `f64` that reads back as the same `f32`, so that Python
/// shows `0.71` rather than `0.7099999785423279` (`float(f32)` would); no precision is lost.
fn f32_to_py(x: f32) -> f64 {
    x.to_string().parse().unwrap_or_else(|_| f64::from(x))
}

/// `None` or the value, as Python writes it in a `repr`.
fn opt_repr<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "None".to_owned(), |v| v.to_string())
}

/// Why a hit ranks where it does: the full-text and vector ranks and scores it came with,
/// the base score fused from them, and the recency factor multiplied in.
#[pyclass(frozen, eq, module = "memcore", name = "ScoreParts")]
#[derive(PartialEq)]
pub(crate) struct PyScoreParts {
    inner: memcore::ScoreParts,
}

#[pymethods]
impl PyScoreParts {
    /// 1-based rank in the full-text results, if it was there.
    #[getter]
    fn text_rank(&self) -> Option<usize> {
        self.inner.text_rank
    }

    /// BM25 score, if it was in the full-text results.
    #[getter]
    fn text_score(&self) -> Option<f64> {
        self.inner.text_score.map(f32_to_py)
    }

    /// 1-based rank in the vector results, if it was there.
    #[getter]
    fn vector_rank(&self) -> Option<usize> {
        self.inner.vector_rank
    }

    /// Cosine similarity to the query, if it was in the vector results.
    #[getter]
    fn vector_similarity(&self) -> Option<f64> {
        self.inner.vector_similarity.map(f32_to_py)
    }

    /// The score before the recency boost: reciprocal-rank fusion for hybrid, BM25 for text,
    /// cosine similarity for semantic.
    #[getter]
    fn base(&self) -> f64 {
        self.inner.base
    }

    /// The recency factor multiplied in (1.0 without a boost).
    #[getter]
    fn recency(&self) -> f64 {
        self.inner.recency
    }

    /// Every part as a new dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("text_rank", self.text_rank())?;
        dict.set_item("text_score", self.text_score())?;
        dict.set_item("vector_rank", self.vector_rank())?;
        dict.set_item("vector_similarity", self.vector_similarity())?;
        dict.set_item("base", self.inner.base)?;
        dict.set_item("recency", self.inner.recency)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let float = |x: f64| -> PyResult<String> { Ok(x.into_pyobject(py)?.repr()?.to_string()) };
        let opt_float = |x: Option<f64>| x.map_or_else(|| Ok("None".to_owned()), float);
        Ok(format!(
            "ScoreParts(text_rank={}, text_score={}, vector_rank={}, vector_similarity={}, \
             base={}, recency={})",
            opt_repr(self.inner.text_rank),
            opt_float(self.text_score())?,
            opt_repr(self.inner.vector_rank),
            opt_float(self.vector_similarity())?,
            float(self.inner.base)?,
            float(self.inner.recency)?,
        ))
    }
}

/// One search result: the memory found (as a `MemorySummary`; fetch the whole memory with
/// `Memcore.get(hit.memory.ref)`), its score, and how the score came about.
#[pyclass(frozen, eq, module = "memcore", name = "Hit")]
#[derive(PartialEq)]
pub(crate) struct PyHit {
    inner: memcore::Hit,
}

#[pymethods]
impl PyHit {
    /// The memory found.
    #[getter]
    fn memory(&self) -> PyMemorySummary {
        PyMemorySummary::new(self.inner.memory.clone())
    }

    /// The final score, `parts.base * parts.recency`; higher is better.
    #[getter]
    fn score(&self) -> f64 {
        self.inner.score
    }

    /// How the score came about.
    #[getter]
    fn parts(&self) -> PyScoreParts {
        PyScoreParts { inner: self.inner.parts }
    }

    /// `{"memory": {...}, "score": ..., "parts": {...}}`, all new dicts.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("memory", self.memory().to_dict(py)?)?;
        dict.set_item("score", self.inner.score)?;
        dict.set_item("parts", self.parts().to_dict(py)?)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let memory = &self.inner.memory;
        Ok(format!(
            "Hit(ref={}, title={}, score={})",
            py_repr(py, &format!("{}/{}", memory.collection, memory.id))?,
            py_repr(py, &memory.title)?,
            self.inner.score.into_pyobject(py)?.repr()?,
        ))
    }
}

/// What `Memcore.search` returns: a read-only sequence of `Hit`, best first (`len`,
/// indexing, slicing, iteration), with the mode actually used (`semantic` and `hybrid` fall
/// back to `text` without the embedding model) and warnings worth showing to a person.
#[pyclass(frozen, module = "memcore", name = "SearchResults", sequence)]
pub(crate) struct PySearchResults {
    /// `Hit` objects, made once: a search returns at most 1,000.
    hits: Py<PyTuple>,
    mode: memcore::SearchMode,
    warnings: Py<PyTuple>,
}

impl PySearchResults {
    pub(crate) fn new(py: Python<'_>, results: memcore::SearchResults) -> PyResult<Self> {
        let hits = results
            .hits
            .into_iter()
            .map(|inner| Bound::new(py, PyHit { inner }))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Self {
            hits: PyTuple::new(py, hits)?.unbind(),
            mode: results.mode,
            warnings: PyTuple::new(py, results.warnings)?.unbind(),
        })
    }
}

#[pymethods]
impl PySearchResults {
    /// The mode actually used: `hybrid`, `semantic` or `text`.
    #[getter]
    fn mode(&self) -> &'static str {
        self.mode.as_str()
    }

    /// Things to know about these results, e.g. that the embedding model is missing and
    /// the hits are full-text only.
    #[getter]
    fn warnings(&self, py: Python<'_>) -> Py<PyTuple> {
        self.warnings.clone_ref(py)
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.hits.bind(py).len()
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hits = self.hits.bind(index.py()).as_any();
        if index.is_instance_of::<PySlice>() {
            // A list, as `Listing` gives.
            return Ok(hits.get_item(index)?.cast_into::<PyTuple>()?.to_list().into_any());
        }
        if !index.is_instance_of::<PyInt>() && !index.get_type().hasattr("__index__")? {
            return Err(PyTypeError::new_err(format!(
                "SearchResults indices must be integers or slices, not {}",
                type_name(index)
            )));
        }
        hits.get_item(index).map_err(|err| {
            if err.is_instance_of::<PyIndexError>(index.py()) {
                PyIndexError::new_err("SearchResults index out of range")
            } else {
                err
            }
        })
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.hits.bind(py).as_any().try_iter()?.into_any())
    }

    /// `{"mode": ..., "warnings": [...], "hits": [hit.to_dict(), ...]}`, all new objects.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let hits = self
            .hits
            .bind(py)
            .iter()
            .map(|hit| hit.cast::<PyHit>()?.get().to_dict(py))
            .collect::<PyResult<Vec<_>>>()?;
        let dict = PyDict::new(py);
        dict.set_item("mode", self.mode.as_str())?;
        dict.set_item("warnings", self.warnings.bind(py).to_list())?;
        dict.set_item("hits", PyList::new(py, hits)?)?;
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let hits = self.hits.bind(py);
        let shown = hits
            .iter()
            .take(3)
            .map(|hit| {
                let memory = &hit.cast::<PyHit>()?.get().inner.memory;
                py_repr(py, &format!("{}/{}", memory.collection, memory.id))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let more = if hits.len() > 3 { ", ..." } else { "" };
        Ok(format!(
            "SearchResults(mode={}, len={}, refs=[{}{more}], warnings={})",
            py_repr(py, self.mode.as_str())?,
            hits.len(),
            shown.join(", "),
            self.warnings.bind(py).len(),
        ))
    }
}

/// Adds the search result types to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySearchResults>()?;
    m.add_class::<PyHit>()?;
    m.add_class::<PyScoreParts>()?;
    Ok(())
}
