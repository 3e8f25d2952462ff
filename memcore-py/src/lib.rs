//! Python bindings for memcore: the native module `memcore._memcore`, re-exported by the pure
//! Python package `memcore` (`python/memcore/`, with hand-written stubs in `_memcore.pyi`).
//!
//! Built with maturin (`maturin build -m memcore-py/Cargo.toml`) as an abi3 wheel for
//! Python 3.9+. The modules each register one part of the API (the redb layout):
//!
//! - `errors`: the exception hierarchy, [`errors::to_pyerr`] (the one place a core error
//!   becomes an exception) and [`errors::run`], which every call into the core goes through:
//!   the GIL released (`py.detach`), panics caught and turned into `MemcoreError`.
//! - `handle`: `Memcore` (a frozen class over `Arc<memcore::Memcore>`) and `open`.
//! - `memory`, `history`, `listing`, `search`, `index`, `git`: the immutable result types
//!   (`index` also holds the adapter that lets `reindex` call a Python progress callback;
//!   `git` the hydration types).
//! - `convert`: argument extraction (metadata, string lists, filters, references).
//! - `put_args`: `put`'s arguments, parsed by one pyfunction that `put_many` reuses per item.
//!
//! To wrap a new core method: extract and check the arguments, clone the handle's `Arc`,
//! call the core inside `run(py, move || ...)`, convert the result to a frozen class that
//! has `to_dict` and `__repr__`, then add it to `_memcore.pyi` (stubtest checks the match).

mod convert;
mod errors;
mod git;
mod handle;
mod history;
mod index;
mod listing;
mod memory;
mod put_args;
mod search;

use pyo3::prelude::*;

/// The native module `memcore._memcore`; import `memcore` instead.
#[pymodule]
fn _memcore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    memory::register(m)?;
    history::register(m)?;
    listing::register(m)?;
    search::register(m)?;
    index::register(m)?;
    git::register(m)?;
    handle::register(m)?;
    Ok(())
}
