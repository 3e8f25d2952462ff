//! The embedding model installed with the Python package (`memcore/_installed.py` finds it),
//! and the command-line tool run inside Python (`python -m memcore`, the `memcore` script).

use std::ffi::OsString;
use std::path::PathBuf;

use memcore::ModelFiles;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::errors::run;

/// The installed files once found: every later `open` in the process reuses them.
static FOUND: PyOnceLock<ModelFiles> = PyOnceLock::new();

/// The model, tokenizer and runtime installed with the package, if all are there. Looked up
/// until found (so that installing the extra while a program runs is noticed), then
/// remembered. Best effort: a lookup that fails (an unreadable directory) finds nothing
/// rather than failing the call that needed it.
pub(crate) fn installed_model(py: Python<'_>) -> Option<ModelFiles> {
    if let Some(files) = FOUND.get(py) {
        return Some(files.clone());
    }
    let found = py.import("memcore._installed").and_then(|m| m.call_method0("model_files")).ok()?;
    let paths: Option<(PathBuf, PathBuf, PathBuf)> = found.extract().ok()?;
    let (model, tokenizer, runtime) = paths?;
    let files = ModelFiles { model, tokenizer, runtime };
    Some(FOUND.get_or_init(py, || files).clone())
}

/// Runs the `memcore` command line `argv` (the program name first) with the installed model
/// and this interpreter for `model fetch`; returns the exit status. The GIL is released while
/// it runs; a panic is a `MemcoreError`.
#[pyfunction]
fn _cli_main(py: Python<'_>, argv: Vec<OsString>) -> PyResult<u8> {
    let python: PathBuf = py.import("sys")?.getattr("executable")?.extract()?;
    let mut host = memcore_cli::Host::new();
    if !python.as_os_str().is_empty() {
        host = host.python(python);
    }
    if let Some(files) = installed_model(py) {
        host = host.installed_model(files);
    }
    run(py, move || Ok(memcore_cli::run(argv, host)))
}

/// Adds `_cli_main` to the module (not in `__all__`: `memcore.__main__` is its API).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.setattr("_cli_main", wrap_pyfunction!(_cli_main, m)?)
}
