//! Python bindings for memcore (filled by the Python issue).
use pyo3::prelude::*;

/// The native module `memcore._memcore`.
#[pymodule]
fn _memcore(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
