//! Python bindings for memcore: the native module `memcore._memcore`, re-exported by the pure
//! Python package `memcore` (`python/memcore/`, with hand-written stubs in `_memcore.pyi`).
//!
//! Built with maturin as an abi3 wheel for Python 3.9+, by `scripts/build-python`, which
//! first puts the embedding model in `python/memcore/model/` (a plain `maturin build` makes a
//! wheel without it, whose semantic search needs a model cache). The modules each register one part of the API (the redb layout):
//!
//! - `errors`: the exception hierarchy, `errors::to_pyerr` (the one place a core error
//!   becomes an exception) and `errors::run`, which every call into the core goes through:
//!   the GIL released (`py.detach`), panics caught and turned into `MemcoreError`.
//! - `records`: every result class (`Memory`, `SearchResults`, `VerifyReport`, ...), made
//!   from the JSON Schema of the core's result type, with one property per field.
//! - `handle`: `Memcore` (a frozen class over `Arc<memcore::Memcore>`), `open` and
//!   `operations`; every method is one operation of the core's `api`.
//! - `convert`: keyword arguments to request records (JSON), and JSON back to Python.
//! - `embedder` and `summarizer`: Python objects as the store's embedder and as the
//!   summariser of session compressions.
//! - `progress`: the adapter that lets `reindex` call a Python progress callback.
//! - `installed`: the model installed with the package, and `python -m memcore` (the
//!   `memcore_cli` command run inside Python).
//!
//! To reach a new operation: nothing (`Memcore.call` runs it by name). To give it a method:
//! say how its positional arguments fill the request record, call it, name its result
//! class; a new result type gets a line in `records::KINDS`. Then describe both in
//! `_memcore.pyi` (stubtest checks the match).

mod convert;
mod embedder;
mod errors;
mod handle;
mod installed;
mod progress;
mod records;
mod summarizer;

use pyo3::prelude::*;

/// The native module `memcore._memcore`; import `memcore` instead.
#[pymodule]
fn _memcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    records::register(m)?;
    handle::register(m)?;
    installed::register(m)?;
    Ok(())
}
